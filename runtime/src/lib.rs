//! wireplan-runtime: loads a wireplan plan and creates services lazily.
//!
//! This crate depends on nothing of the compiler side (no pest, Rhai or codespan): an
//! application lists `wireplan-runtime` alone.
//!
//! The compiler writes a [plan](plan::Plan): services by name, each with a `create`
//! expression (`{"$new": "App\\FileLogger", "args": [...]}`) and `setup` statements. The
//! application fills a [`Registry`] with the Rust code behind the catalog names the plan uses
//! (constructors, methods, property writers, static methods, and casts to trait objects), then
//! loads the plan into a [`Container`], which checks that every name the plan needs is
//! registered (all gaps at once) and creates singletons on first use.
//!
//! # Example
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use wireplan_runtime::{Container, Registry};
//!
//! // The application's types. Interfaces of the catalog are traits, used as `dyn Logger`.
//! trait Logger: Send + Sync {
//!     fn log(&self, msg: &str);
//! }
//!
//! struct FileLogger {
//!     path: String,
//!     lines: Mutex<Vec<String>>,
//! }
//! impl Logger for FileLogger {
//!     fn log(&self, msg: &str) {
//!         self.lines.lock().unwrap().push(format!("{}: {msg}", self.path));
//!     }
//! }
//!
//! struct Mailer {
//!     from: String,
//!     logger: Option<Arc<dyn Logger>>,
//! }
//!
//! // 1. Register the Rust side under the catalog names.
//! let mut registry = Registry::new();
//! registry
//!     .class::<FileLogger>("App\\FileLogger")
//!     .constructor(|a| Ok(FileLogger { path: a.str(0)?.into(), lines: Mutex::default() }))
//!     .implements::<dyn Logger>("App\\Logger", |x| x);
//! registry
//!     .class::<Mailer>("App\\Mailer")
//!     .constructor(|a| Ok(Mailer { from: a.str(0)?.into(), logger: None }))
//!     // Setups run on the new object before it is shared, so `&mut` works here.
//!     .method_mut("setLogger", |m, a| {
//!         m.logger = Some(a.service::<dyn Logger>(0)?);
//!         Ok(())
//!     });
//!
//! // 2. Load the plan the compiler wrote (usually `Container::load("app.plan.json", ..)`).
//! let plan = r#"{
//!   "format": "wireplan-plan", "version": 1, "compiler": "wireplan 0.1.0", "inputs_hash": "0",
//!   "services": {
//!     "logger": {"type": "App\\FileLogger",
//!                "create": {"$new": "App\\FileLogger", "args": ["/var/log/app.log"]}},
//!     "mailer": {"type": "App\\Mailer",
//!                "create": {"$new": "App\\Mailer", "args": ["noreply@example.com"]},
//!                "setup": [{"$call": ["@self", "setLogger"], "args": [{"$ref": "logger"}]}]}
//!   },
//!   "types": {"App\\Logger": ["logger"], "App\\FileLogger": ["logger"], "App\\Mailer": ["mailer"]}
//! }"#;
//! let container = Container::from_json_str(plan, &registry)?;
//!
//! // 3. Get services by name or by type, as concrete types or trait objects.
//! let mailer = container.get::<Mailer>("mailer")?;
//! let logger = container.get_by_type::<dyn Logger>()?;
//! mailer.logger.as_ref().unwrap().log(&format!("hello from {}", mailer.from));
//!
//! let concrete = container.get::<FileLogger>("logger")?;
//! assert_eq!(concrete.lines.lock().unwrap().len(), 1);
//! // One singleton, whichever way it is asked for.
//! assert!(std::ptr::addr_eq(Arc::as_ptr(&logger), Arc::as_ptr(&concrete)));
//! # Ok::<(), wireplan_runtime::Error>(())
//! ```
//!
//! # Modules
//!
//! * [`registry`]: [`Registry`] and [`ClassBuilder`]; how setups may mutate (`&mut T` vs `&T`).
//!   `#[class]` and `#[interface]` (feature `derive`, on by default) register a type from its
//!   own impl block ([`Register`], [`Registry::register`]); the [`register!`] macro registers
//!   from signatures written in the macro call; [`catalog`] exports the `types:`
//!   section ([`Registry::catalog`]) so the compiler checks configurations against the binary.
//! * [`container`]: [`Container`], [`ContainerBuilder`] and [`Scope`]; creation order,
//!   lifespans (singleton, scoped, transient), disposal, threads.
//! * [`generated`]: [`Factory`], [`Accessor`] and [`Locator`], the generated services.
//! * Async creation: [`Container::get_async`] / [`Scope::get_async`] for services the plan
//!   marks `requires_async` (classes registered with
//!   [`async_constructor`](ClassBuilder::async_constructor)); [`provider`]: [`Provider<T>`],
//!   the lazy handle a `Provider<App\Logger>` parameter receives. See `docs/async.md`.
//! * [`value`]: [`Value`], [`Instance`] and the typed argument accessors of [`Args`].
//! * [`error`]: [`Error`] and [`Missing`].
//! * [`plan`]: the plan model shared with the compiler; [`encoding`]: its JSON and binary
//!   forms, version and integrity checks, atomic writes.
//!
//! # Loading a plan compiled at build time
//!
//! ```text
//! // build.rs: wireplan::build::compile_plan("config/app.neon", &out_dir)?;
//! static PLAN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/app.plan.bin"));
//! let container = Container::from_bytes(PLAN, &registry)?;
//! ```

#![warn(missing_docs)]

pub mod catalog;
pub mod container;
pub mod convert;
mod derived;
pub mod dynamic;
pub mod encoding;
pub mod error;
pub mod generated;
mod macros;
pub mod plan;
pub mod provider;
pub mod registry;
pub mod suggest;
pub mod value;

pub use catalog::{ArgType, ReturnType};
pub use container::{Container, ContainerBuilder, Scope};
pub use derived::{Interface, Register};
pub use encoding::Encoding;
pub use error::{Error, Missing, CODES as ERROR_CODES};
pub use generated::{Accessor, Factory, Locator};
pub use provider::Provider;
pub use registry::{BoxFuture, ClassBuilder, Registry};
pub use value::{ArgError, Args, BoxError, CallResult, Callable, Instance, ParamError, Value};
/// Registers a type from its inherent impl block (see [`Register`]); the derive way, next to
/// the manual [`register!`] and [`ClassBuilder`].
#[cfg(feature = "derive")]
pub use wireplan_derive::class;
/// Names a trait as a catalog interface (see [`Interface`]).
#[cfg(feature = "derive")]
pub use wireplan_derive::interface;
