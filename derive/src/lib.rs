//! Attribute macros that register a Rust type with a wireplan `Registry` from its own
//! definition, so each type is written once: `#[interface]` on a trait, `#[class]` on an
//! inherent impl block.
//!
//! Use them through `wireplan_runtime` (feature `derive`, on by default):
//! `#[wireplan_runtime::class(..)]`, `#[wireplan_runtime::interface(..)]`. The expansion
//! names `::wireplan_runtime`, so the runtime must be a direct dependency under that name.
//!
//! The expansion makes the same `ClassBuilder` calls the `register!` macro makes: the catalog
//! (`Registry::catalog`) and the argument errors (`ArgError`) are the same either way.

mod attrs;
mod class;
mod errors;
mod interface;
mod members;
mod names;
mod types;

use proc_macro::TokenStream;

/// Gives a trait its catalog interface name, once: `dyn Trait` gets an implementation of
/// `wireplan_runtime::Interface` with `NAME`, so classes list it by Rust type only
/// (`#[class(implements(dyn Logger))]`).
///
/// The argument is the catalog name (`"App\\Logger"`); without one, the trait's own name
/// (`Logger`) is used. A generic trait is a compile error.
///
/// ```
/// use wireplan_runtime::{Interface, Registry};
///
/// #[wireplan_runtime::interface("App\\Logger")]
/// pub trait Logger: Send + Sync {
///     fn log(&self, message: &str);
/// }
///
/// assert_eq!(<dyn Logger as Interface>::NAME, "App\\Logger");
/// let mut registry = Registry::new();
/// registry.register_interface::<dyn Logger>();
/// assert!(registry.catalog().contains("App\\Logger: {interface: true}"));
/// ```
#[proc_macro_attribute]
pub fn interface(attr: TokenStream, item: TokenStream) -> TokenStream {
    interface::expand(attr.into(), item.into()).into()
}

/// Registers a type from its inherent impl block: the block stays as written, and the type
/// gets an implementation of `wireplan_runtime::Register`, so
/// `registry.register::<Mailer>()` registers the class, its casts to trait objects and the
/// interfaces it names.
///
/// # Arguments
///
/// `#[class("App\\Mailer", implements(dyn Logger, dyn Notifier), extends = "App\\Base")]`,
/// all optional:
///
/// * the catalog name; without it, the type's own name (`Mailer`, no namespace);
/// * `implements(dyn Trait, ..)`: casts to these trait objects, each named in the catalog by
///   its `#[interface]` (the type must implement the trait);
/// * `extends = "Parent"`: the catalog parent class;
/// * `no_constructor`: the class has no `#[constructor]` on purpose (it is created by a
///   factory or only offers static methods). Without it, a missing constructor is an error.
///
/// # Items
///
/// Inside the block, helper attributes mark what is registered; unmarked items stay plain
/// Rust. Catalog names of methods and properties default to the camelCase of the Rust name
/// (`set_level` → `setLevel`); `name = ".."` overrides. Parameter names are camelCased too
/// (`per_page` → `perPage`, as Nette configurations name PHP parameters).
///
/// | attribute | on | registers |
/// |---|---|---|
/// | `#[constructor]` | associated fn returning `Self`, `Arc<Self>`, `Result<Self, E>` or `Result<Arc<Self>, E>` | the constructor |
/// | `#[constructor]` | `async` associated fn returning `Self` or `Result<Self, E>` | an async constructor (`ClassBuilder::async_constructor`, as `register!`'s `async new`; the catalog marks the class `async: true`; the future must be `Send + 'static`) |
/// | `#[method]`, `#[method(name = "x")]` | `&self` fn returning anything `ReturnType` (or a `Result` of it) | a method (setups and `$call` on any service) |
/// | `#[method]` | `&mut self` fn returning `()` or `Result<(), E>` | a setup method on `@self` |
/// | `#[property]` | `&mut self` fn of one value; name: the fn name without `set_` | a property writer (`$prop: value`); `#[property(inject)]`: one Nette's inject step fills (`inject: true`) |
/// | `#[getter]` | `&self` fn returning the value; name: the fn name without `get_` | a property reader (`@svc::prop`) |
/// | `#[static_method]` | associated fn (a returned `Self` becomes a service) | a static method |
/// | `#[constant]`, `#[constant(name = "X")]` | associated const of a type that converts into `Value`; name: as written | a class constant |
/// | `#[dispose]` | `&self` fn, no parameters | the dispose hook |
/// | `#[default(expr)]` | a parameter of a constructor or method | the catalog default (`Value::from(expr)`; `None` is `null`) |
///
/// Parameters take the types `register!` takes ([`ArgType`]): `Arc<T>` and `Arc<dyn Trait>`
/// services, `Vec<Arc<dyn Trait>>` (`Trait[]`), `Option<_>` (nullable), `i64`, `i32`, `u32`,
/// `usize`, `f64`, `bool`, `String`, `Value`, `Callable`, `Vec<Value>` and
/// `IndexMap<String, Value>` (`array`). A `Result` return is fallible: its error must convert
/// into `BoxError` and fails the service creation.
///
/// [`ArgType`]: https://docs.rs/wireplan-runtime/latest/wireplan_runtime/catalog/trait.ArgType.html
///
/// # Compile errors
///
/// With the span of the offending item: a generic type or generic method; a trait impl; a
/// reference or `impl Trait` parameter, or any other type with no conversion (a path type with
/// no `ArgType` fails the trait bound at the parameter); a missing or second constructor; a
/// `self` receiver on a constructor or static method; a catalog name that is no class name
/// (`"App\\With Space"`, a built-in type such as `"int"`) or no member name (`name = "set
/// level"`); a `#[default(..)]` literal the parameter's type cannot take (a string for an
/// `i64`, 300 for a `u8`, `None` for a type that is no `Option`); two items with one catalog
/// name; two
/// parameters of one function with one catalog name (`per_page` and `perPage`); a
/// `&mut self` method returning a value; an `async fn` other than the constructor, or an async
/// constructor returning an `Arc`; helper attributes on the wrong kind of item.
///
/// # Why `register::<T>()` and not automatic collection
///
/// Collecting every `#[class]` at link time (`inventory`, `linkme`) depends on linker
/// sections that are dropped with unused object files of static libraries and do not work the
/// same on every target; an explicit call is visible, ordered, and lets an application (or a
/// test) register only what it wants.
///
/// # Example
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use wireplan_runtime::{Container, Registry};
///
/// #[wireplan_runtime::interface("App\\Logger")]
/// pub trait Logger: Send + Sync {
///     fn log(&self, message: &str);
/// }
///
/// pub struct FileLogger {
///     path: String,
///     level: i64,
///     lines: Mutex<Vec<String>>,
/// }
///
/// impl Logger for FileLogger {
///     fn log(&self, message: &str) {
///         self.lines.lock().unwrap().push(format!("{}: {message}", self.path));
///     }
/// }
///
/// #[wireplan_runtime::class("App\\FileLogger", implements(dyn Logger))]
/// impl FileLogger {
///     #[constructor]
///     pub fn new(path: String, #[default(3)] level: i64) -> Self {
///         FileLogger { path, level, lines: Mutex::default() }
///     }
///
///     #[method]
///     pub fn set_level(&mut self, level: i64) {
///         self.level = level;
///     }
///
///     #[method]
///     pub fn line_count(&self) -> i64 {
///         self.lines.lock().unwrap().len() as i64
///     }
///
///     #[getter]
///     pub fn path(&self) -> String {
///         self.path.clone()
///     }
///
///     #[constant]
///     pub const MAX_LEVEL: i64 = 9;
/// }
///
/// let mut registry = Registry::new();
/// registry.register::<FileLogger>();
/// let catalog = registry.catalog();
/// assert!(catalog.contains("\t\t\tlevel: {type: int, default: 3}\n"));
/// assert!(catalog.contains("setLevel: {params: {level: int}, returns: void}"));
/// assert!(catalog.contains("lineCount: {params: {}, returns: int}"));
///
/// let plan = r#"{
///   "format": "wireplan-plan", "version": 1, "compiler": "wireplan 0.1.0", "inputs_hash": "0",
///   "services": {
///     "logger": {"type": "App\\FileLogger",
///                "create": {"$new": "App\\FileLogger", "args": ["app.log", 3]},
///                "setup": [{"$call": ["@self", "setLevel"], "args": [7]}]}
///   },
///   "types": {"App\\Logger": ["logger"], "App\\FileLogger": ["logger"]}
/// }"#;
/// let container = Container::from_json_str(plan, &registry)?;
/// container.get_by_type::<dyn Logger>()?.log("hello");
/// let logger = container.get::<FileLogger>("logger")?;
/// assert_eq!((logger.level, logger.lines.lock().unwrap().len()), (7, 1));
/// # Ok::<(), wireplan_runtime::Error>(())
/// ```
#[proc_macro_attribute]
pub fn class(attr: TokenStream, item: TokenStream) -> TokenStream {
    class::expand(attr.into(), item.into()).into()
}
