//! The catalog export: what the binary really provides, so the compiler can check a
//! configuration against it. [`Registry::catalog_document`] collects it as data
//! ([`CatalogDocument`]); [`Registry::catalog`] writes the NEON `types:` section and
//! [`Registry::catalog_json`] the compact JSON form (`wireplan --catalog FILE`; shape in
//! docs/catalog.md). For deployment, [`write_if_requested`] writes the file from the
//! application and [`assert_current`] is the golden test that keeps a checked-in catalog equal
//! to the registry ([`golden`]).
//!
//! Type information comes from signatures: the [`register!`](crate::register) macro records
//! them from the Rust parameter types through [`ArgType`] and [`ReturnType`]; hand-written
//! registrations can add them with [`ClassBuilder::signature`](crate::ClassBuilder::signature)
//! and friends. Members registered without a signature are still exported (in NEON, marked
//! with a `# signature not registered` comment).

use std::any::Any;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::registry::Registry;
use crate::value::{ArgError, Args, Callable, Value};

pub mod golden;
mod model;

pub use golden::{
    assert_current, check_current, diff, unregistered_warning, write_catalog, write_if_requested,
    CatalogMismatch, Change,
};
pub use model::{
    CatalogDocument, Constructor, MethodEntry, ParamEntry, PropertyEntry, TypeEntry, FORMAT,
    VERSION,
};

/// Produces a catalog type string (`int`, `?App\Clock`, `App\Handler[]`) with the registry's
/// catalog names at hand.
pub type TypeFn = fn(&Registry) -> String;

/// One declared parameter: its name, catalog type and optional default.
#[derive(Clone, Copy)]
pub struct Param {
    /// Parameter name as the configuration uses it (named arguments).
    pub name: &'static str,
    /// Its catalog type.
    pub ty: TypeFn,
    /// Its catalog default (`{type: int, default: 3}`): the compiler fills it in when the
    /// configuration leaves the argument out. `None`: the argument is required.
    pub default: Option<fn() -> Value>,
    /// The Rust type of the service object it takes (`T` of `Arc<T>` or `Option<Arc<T>>`),
    /// `None` for every other parameter ([`ArgType::object_type`]): what the load check
    /// compares a service reference with, without building the catalog type.
    pub object: fn() -> Option<std::any::TypeId>,
}

impl std::fmt::Debug for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Param({})", self.name)
    }
}

impl Param {
    /// A parameter of Rust type `A`, e.g. `Param::of::<Option<Arc<Clock>>>("clock")`.
    pub fn of<A: ArgType>(name: &'static str) -> Param {
        Param {
            name,
            ty: A::catalog_type,
            default: None,
            object: A::object_type,
        }
    }

    /// The same parameter with a catalog default, e.g.
    /// `Param::of::<i64>("level").with_default(|| Value::Int(3))`.
    pub fn with_default(self, default: fn() -> Value) -> Param {
        Param {
            default: Some(default),
            ..self
        }
    }
}

/// A declared method signature.
#[derive(Clone, Debug, Default)]
pub struct MethodSig {
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// The return type, if declared.
    pub returns: Option<TypeFn>,
}

/// A Rust type that can be a parameter of a registered constructor or method: how to take it
/// from the [`Args`] and what it is called in the catalog.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a registered constructor or method",
    label = "no catalog conversion for this parameter type",
    note = "accepted: Arc<T>, Arc<dyn Trait>, Vec<Arc<dyn Trait>>, Provider<T>, Option<_>, i64, i32, i16, i8, u64, u32, u16, u8, usize, f64, bool, String, Value, Callable, Vec<Value>, IndexMap<String, Value>"
)]
pub trait ArgType: Sized {
    /// The catalog type, e.g. `string`, `?int`, `App\Logger`, `App\Handler[]`.
    fn catalog_type(registry: &Registry) -> String;
    /// Argument `index` as this type. Errors are [`ArgError`]s, never panics.
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError>;
    /// The Rust type of the service object this parameter takes: `T` for `Arc<T>` (and for
    /// `Option<Arc<T>>`), `None` (the default) for every other type.
    fn object_type() -> Option<std::any::TypeId> {
        None
    }
}

/// A Rust type a registered method may return: how it becomes a [`Value`] and what it is
/// called in the catalog.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a registered method",
    label = "no catalog conversion for this return type",
    note = "accepted: (), Arc<T>, i64, i32, f64, bool, String, Value, Callable; wrap lists and maps in a Value"
)]
pub trait ReturnType {
    /// The catalog type (`void` for `()`).
    fn catalog_type(registry: &Registry) -> String;
    /// The value of the `$call` expression.
    fn into_value(self) -> Value;
}

macro_rules! scalar {
    ($t:ty, $name:literal, $get:ident, $conv:expr) => {
        impl ArgType for $t {
            fn catalog_type(_: &Registry) -> String {
                $name.into()
            }
            fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
                args.$get(index).and_then(|v| {
                    let conv: fn(_) -> Option<$t> = $conv;
                    conv(v).ok_or_else(|| ArgError {
                        index,
                        expected: concat!($name, " in range of ", stringify!($t)).into(),
                        found: "an out-of-range value".into(),
                    })
                })
            }
        }
        impl ReturnType for $t {
            fn catalog_type(_: &Registry) -> String {
                $name.into()
            }
            fn into_value(self) -> Value {
                self.into()
            }
        }
    };
}

scalar!(i64, "int", int, Some);
scalar!(f64, "float", float, Some);
scalar!(bool, "bool", bool, Some);
scalar!(String, "string", str, |s: &str| Some(s.to_string()));

/// The fixed-size integers other than `i64`: the catalog type is the integer range the Rust
/// type holds (`int<0, 255>` for `u8`, `int<0, max>` for `u64` and `usize`, whose range
/// passes `i64`'s), so the compiler refuses a written value out of range at compile time;
/// a value known only at start-up (a dynamic parameter) is checked here, when the
/// constructor's argument is read.
macro_rules! ranged {
    ($t:ty, $range:literal) => {
        impl ArgType for $t {
            fn catalog_type(_: &Registry) -> String {
                $range.into()
            }
            fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
                let v = args.int(index)?;
                <$t>::try_from(v).map_err(|_| ArgError {
                    index,
                    expected: concat!("int in range of ", stringify!($t)).into(),
                    found: v.to_string(),
                })
            }
        }
    };
}

ranged!(i8, "int<-128, 127>");
ranged!(i16, "int<-32768, 32767>");
ranged!(i32, "int<-2147483648, 2147483647>");
ranged!(u8, "int<0, 255>");
ranged!(u16, "int<0, 65535>");
ranged!(u32, "int<0, 4294967295>");
ranged!(u64, "int<0, max>");
ranged!(usize, "int<0, max>");

/// `i32` as a registered method's return value: `int` (every `i32` is one).
impl ReturnType for i32 {
    fn catalog_type(_: &Registry) -> String {
        "int".into()
    }
    fn into_value(self) -> Value {
        self.into()
    }
}

impl ArgType for Value {
    fn catalog_type(_: &Registry) -> String {
        "mixed".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.value(index).cloned()
    }
}

impl ReturnType for Value {
    fn catalog_type(_: &Registry) -> String {
        "mixed".into()
    }
    fn into_value(self) -> Value {
        self
    }
}

impl ReturnType for () {
    fn catalog_type(_: &Registry) -> String {
        "void".into()
    }
    fn into_value(self) -> Value {
        Value::Null
    }
}

impl ArgType for Callable {
    fn catalog_type(_: &Registry) -> String {
        "callable".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.callable(index).cloned()
    }
}

impl ReturnType for Callable {
    fn catalog_type(_: &Registry) -> String {
        "callable".into()
    }
    fn into_value(self) -> Value {
        Value::Callable(self)
    }
}

impl ArgType for Vec<Value> {
    fn catalog_type(_: &Registry) -> String {
        "array".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.list(index).map(<[Value]>::to_vec)
    }
}

impl ArgType for IndexMap<String, Value> {
    fn catalog_type(_: &Registry) -> String {
        "array".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.map(index).cloned()
    }
}

impl<A: ArgType> ArgType for Option<A> {
    /// `?T`; `mixed` stays `mixed` (it already holds null) and a nested option adds no second
    /// `?`.
    fn catalog_type(registry: &Registry) -> String {
        let inner = A::catalog_type(registry);
        if inner == "mixed" || inner.starts_with('?') {
            inner
        } else {
            format!("?{inner}")
        }
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        if args.is_null(index) {
            Ok(None)
        } else {
            A::from_arg(args, index).map(Some)
        }
    }
    fn object_type() -> Option<std::any::TypeId> {
        A::object_type()
    }
}

/// The catalog type of a service parameter `Arc<T>`: `T`'s catalog name, or `object` when the
/// registry names no class or interface for `T` — the generated [`Factory`](crate::Factory),
/// [`Accessor`](crate::Accessor) and [`Locator`](crate::Locator) (one Rust type for every
/// generated interface) and imported objects. The compiler accepts any service for `object`
/// and never autowires it; the runtime checks the Rust type when it creates the service.
fn service_name<T: ?Sized + 'static>(registry: &Registry) -> String {
    match registry.catalog_name_of::<T>() {
        Some(name) => name.to_string(),
        None => {
            unnamed::note::<T>();
            "object".to_string()
        }
    }
}

/// The Rust types a catalog type function met that the registry names no class or interface
/// for (other than the generated handles, which are `object` on purpose), collected while
/// [`Registry::unregistered_types`] calls the functions. A thread-local, because a
/// [`TypeFn`] returns only the text.
mod unnamed {
    use std::any::TypeId;
    use std::cell::RefCell;

    thread_local! {
        static MET: RefCell<Option<Vec<&'static str>>> = const { RefCell::new(None) };
    }

    /// Records `T` when a collection runs on this thread.
    pub(super) fn note<T: ?Sized + 'static>() {
        let generated = [
            TypeId::of::<crate::Factory>(),
            TypeId::of::<crate::Accessor>(),
            TypeId::of::<crate::Locator>(),
        ];
        if generated.contains(&TypeId::of::<T>()) {
            return;
        }
        MET.with(|m| {
            if let Some(list) = m.borrow_mut().as_mut() {
                list.push(std::any::type_name::<T>());
            }
        });
    }

    /// Runs `f`, returning what it met.
    pub(super) fn collect(f: impl FnOnce()) -> Vec<&'static str> {
        let outer = MET.with(|m| m.borrow_mut().replace(Vec::new()));
        f();
        MET.with(|m| std::mem::replace(&mut *m.borrow_mut(), outer))
            .unwrap_or_default()
    }
}

/// A parameter or property whose Rust type the registry names no class or interface for: the
/// catalog calls it `object` (`array` for a list of them), so the compiler autowires nothing
/// for it and asks for the argument. Usually a dependency that was not registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnregisteredType {
    /// The class whose constructor, method or property it is.
    pub class: String,
    /// Where: `__construct($db)`, `setLogger($logger)`, `$cache` (a property).
    pub place: String,
    /// The Rust type the registry does not name, e.g. `my_app::Db` or `dyn my_app::Logger`.
    pub rust_type: &'static str,
}

impl std::fmt::Display for UnregisteredType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}::{}: {}", self.class, self.place, self.rust_type)
    }
}

impl Registry {
    /// Every constructor or method parameter, return type and property type of the registered
    /// classes whose Rust type (the `T` of an `Arc<T>`, `Provider<T>` or `Vec<Arc<T>>`) the
    /// registry names no class or interface for, in catalog order. The catalog writes those as
    /// `object` or `array`, which the compiler never autowires: a dependency the application
    /// forgot to register shows up here. [`write_if_requested`] prints them.
    pub fn unregistered_types(&self) -> Vec<UnregisteredType> {
        let mut out = Vec::new();
        for (class, place, f) in self.type_fns() {
            for rust_type in unnamed::collect(|| {
                f(self);
            }) {
                out.push(UnregisteredType {
                    class: class.to_string(),
                    place: place.clone(),
                    rust_type,
                });
            }
        }
        out
    }
}

impl<T: ?Sized + 'static> ArgType for Arc<T> {
    fn catalog_type(registry: &Registry) -> String {
        service_name::<T>(registry)
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.service::<T>(index)
    }
    fn object_type() -> Option<std::any::TypeId> {
        Some(std::any::TypeId::of::<T>())
    }
}

/// `Provider<T>`: a lazy handle on the service autowired for `T`; in the catalog
/// `Provider<App\Logger>` (docs/async.md, "Providers").
impl<T: ?Sized + 'static> ArgType for crate::provider::Provider<T> {
    fn catalog_type(registry: &Registry) -> String {
        format!("Provider<{}>", service_name::<T>(registry))
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.provider::<T>(index)
    }
}

impl<T: ?Sized + 'static> ArgType for Vec<Arc<T>> {
    /// `T[]` (every autowired service of the type), or `array` when `T` has no catalog name.
    fn catalog_type(registry: &Registry) -> String {
        match registry.catalog_name_of::<T>() {
            Some(name) => format!("{name}[]"),
            None => {
                unnamed::note::<T>();
                "array".into()
            }
        }
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.list_of::<T>(index)
    }
}

impl<T: Any + Send + Sync> ReturnType for Arc<T> {
    fn catalog_type(registry: &Registry) -> String {
        service_name::<T>(registry)
    }
    fn into_value(self) -> Value {
        Value::from(self)
    }
}

impl Registry {
    /// The catalog of everything registered, as the NEON `types:` section the compiler reads
    /// (see docs/catalog.md): the text form of [`Registry::catalog_document`]. Deterministic:
    /// the same registry gives the same text. [`Registry::catalog_json`] is the compact form
    /// of the same document.
    ///
    /// Write it to a file and pass it with `--catalog` (or `includes:` it from the
    /// configuration), so the compiler checks the configuration against what this binary
    /// provides.
    pub fn catalog(&self) -> String {
        self.catalog_document().to_neon()
    }
}
