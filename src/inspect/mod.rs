//! Inspection: the compiler's knowledge as answers. Every function here takes the
//! [`ContainerBuilder`](crate::builder::ContainerBuilder) (or a plan) and returns plain data
//! that renders to text (`Display`) and serializes to JSON; `wireplan explain`, `wireplan graph`
//! and the REPL's `:explain`, `:type`, `:deps`, `:needed-by` only print these answers.

pub mod deps;
pub mod explain;
pub mod graph;
pub mod types;
mod values;

pub use deps::{deps, needed_by, Dependents, Direction, Related};
pub use explain::{explain_service, ServiceExplanation};
pub use graph::{Edge, EdgeKind, Graph, Node};
pub use types::{type_candidates, Candidate, CandidateStatus, TypeAnswer, TypeExplanation};
pub use values::{ActorInfo, Location};
#[cfg(test)]
mod tests;
