//! Inspection: the compiler's knowledge as answers. Every function here takes the
//! [`ContainerBuilder`](crate::builder::ContainerBuilder) or a plan and returns plain data that
//! renders to text (`Display`) and serializes to JSON; `wireplan explain`, `graph`, `show`,
//! `diff` and the REPL's `:explain`, `:type`, `:deps`, `:needed-by`, `:diff` only print these
//! answers.
//!
//! - over a builder: [`explain`], [`types`], [`deps()`](deps::deps), [`graph`];
//! - over plans: [`plan_file`] (reading a plan file of either encoding, with a diagnostic when it
//!   is not one), [`text`] (plan expressions written readably), [`show`] (`wireplan show`),
//!   [`diff`] (`wireplan diff`, the REPL's `:diff`).

pub mod deps;
pub mod diff;
pub mod explain;
pub mod graph;
pub mod plan_file;
pub mod show;
pub mod text;
pub mod types;
mod values;

pub use deps::{deps, needed_by, Dependents, Direction, Related};
pub use explain::{explain_service, ServiceExplanation};
pub use graph::{Edge, EdgeKind, Graph, Node};
pub use types::{type_candidates, Candidate, CandidateStatus, TypeAnswer, TypeExplanation};
pub use values::{ActorInfo, Location};
#[cfg(test)]
mod tests;
