//! wireplan-runtime: loads a wireplan plan and creates services lazily.
//!
//! This crate depends on nothing of the compiler side (no pest, Rhai or codespan): an
//! application lists `wireplan-runtime` alone.

pub mod plan;
