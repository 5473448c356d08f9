//! Inspection: questions answered over a plan (and, in other submodules, over a builder). The
//! CLI and the REPL only format what these functions answer.
//!
//! - [`plan_file`]: reading a plan file of either encoding, with a diagnostic when it is not one;
//! - [`text`]: plan expressions written readably, in NEON-like notation;
//! - [`show`]: what a plan holds (`wireplan show`);
//! - [`diff`]: the semantic difference between two plans (`wireplan diff`, the REPL's `:diff`).

pub mod diff;
pub mod plan_file;
pub mod show;
pub mod text;
