//! wireplan: a dependency-injection container compiler in the spirit of Nette DI.
//!
//! Services are declared in NEON files; extensions are Rhai scripts that run at each compilation
//! phase against a scripted `ContainerBuilder`; the compiler writes a plan file that the
//! `wireplan-runtime` crate loads to create services lazily.
//!
//! Pipeline: [`neon`] → [`config`] (includes, merging, parameters) → [`compiler`] (phases A/B/C,
//! running [`script`] extensions against the [`builder`], checking types against the
//! [`catalog`]) → [`plan`]. Every problem is a [`diagnostics::Diagnostic`].

#[path = "build_support.rs"]
pub mod build;
pub mod builder;
pub mod catalog;
#[cfg(feature = "cli")]
pub mod cli;
pub mod compiler;
pub mod config;
pub mod dev;
pub mod diagnostics;
pub mod expr;
pub mod inspect;
pub mod memory;
pub mod neon;
mod parallel;
pub mod plan;
pub mod project;
#[cfg(feature = "cli")]
pub mod repl;
pub mod schema;
pub mod script;
pub mod source;
pub mod timings;
#[cfg(feature = "cli")]
pub mod watch;
