//! Run-time values: what plan expressions evaluate to and what constructors receive.
//!
//! * [`Instance`] is a type-erased service object (`Arc<dyn Any + Send + Sync>`) that remembers
//!   its concrete Rust type.
//! * [`Value`] is a JSON-like value that can also hold an [`Instance`].
//! * [`Args`] is the positional argument list handed to constructors, methods and property
//!   writers, with typed accessors that return [`ArgError`] instead of panicking.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;

use crate::registry::Registry;

/// The error type user code returns from constructors, methods and factories.
///
/// Anything that implements `std::error::Error + Send + Sync` converts into it with `?`
/// (including [`ArgError`] and `String`/`&str` messages via `.into()`).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The result type of constructors, methods, property writers and static methods.
pub type CallResult<T> = Result<T, BoxError>;

type Object = Arc<dyn Any + Send + Sync>;

/// What an [`Instance`] knows about its concrete Rust type: one constant per type, so an
/// `Instance` is a fat pointer plus one pointer (24 bytes) and moves cheaply through the
/// creation path.
struct TypeMeta {
    /// `TypeId` of the concrete type: read from here, a cast of a new object costs a load,
    /// not the indirect call of the object's `Any::type_id` (a tenth of the casts' cost on
    /// the transient path; docs/performance.md).
    type_id: TypeId,
    /// `std::any::type_name` of the concrete type.
    type_name: fn() -> &'static str,
}

/// A service object with its type erased: a shared `Arc<dyn Any + Send + Sync>` plus the
/// [`TypeId`] and name of its concrete Rust type.
///
/// Cloning an `Instance` clones the `Arc` (the same object). Getting it back as a concrete type
/// needs no registry ([`Instance::downcast`]); getting it as a trait object (`Arc<dyn Trait>`)
/// goes through the caster registered with
/// [`ClassBuilder::implements`](crate::ClassBuilder::implements), see [`Registry::cast`].
#[derive(Clone)]
pub struct Instance {
    object: Object,
    /// The per-type constant (`TypeMeta`) of the concrete type.
    meta: &'static TypeMeta,
}

impl Instance {
    /// Wraps a shared object.
    pub fn new<T: Any + Send + Sync>(object: Arc<T>) -> Instance {
        Instance {
            object,
            meta: const {
                &TypeMeta {
                    type_id: TypeId::of::<T>(),
                    type_name: std::any::type_name::<T>,
                }
            },
        }
    }

    /// Wraps an owned object in a new `Arc`.
    pub fn from_value<T: Any + Send + Sync>(object: T) -> Instance {
        Instance::new(Arc::new(object))
    }

    /// The [`TypeId`] of the concrete Rust type.
    pub fn type_id(&self) -> TypeId {
        // `Instance::new`, the only constructor, took both from the same `T`.
        self.meta.type_id
    }

    /// The name of the concrete Rust type (`std::any::type_name`), for messages.
    pub fn type_name(&self) -> &'static str {
        (self.meta.type_name)()
    }

    /// The object as `Arc<T>` when `T` is exactly its concrete type, otherwise `None`.
    pub fn downcast<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.object.clone().downcast::<T>().ok()
    }

    /// The erased object.
    pub fn as_any(&self) -> &Object {
        &self.object
    }

    /// Whether two instances are the same object (`Arc::ptr_eq`).
    pub fn ptr_eq(&self, other: &Instance) -> bool {
        Arc::ptr_eq(&self.object, &other.object)
    }

    /// The address of the shared object: equal for two instances exactly when
    /// [`Instance::ptr_eq`] holds (for hashing by identity).
    pub(crate) fn addr(&self) -> usize {
        Arc::as_ptr(&self.object) as *const () as usize
    }

    pub(crate) fn object_mut(&mut self) -> Option<&mut (dyn Any + Send + Sync)> {
        Arc::get_mut(&mut self.object)
    }

    /// `Arc<T>` for `T` = the concrete type (works for `?Sized` requests: the `TypeId`s are
    /// compared first); `None` for any other `T`. The registry compares them itself and calls
    /// [`Instance::identity_arc_unchecked`].
    #[cfg(test)]
    pub(crate) fn identity_arc<T: ?Sized + 'static>(&self) -> Option<Arc<T>> {
        if TypeId::of::<T>() != self.type_id() {
            return None;
        }
        // SAFETY: `T` is the concrete type (checked just above).
        unsafe { self.identity_arc_unchecked() }
    }

    /// [`Instance::identity_arc`] for a caller that already compared the `TypeId`s (saves
    /// asking the object's vtable again). Inline and with no call through a pointer: the new
    /// reference comes back in a register (the fifth pass called a per-type caster that wrote
    /// it through an out-parameter, a store and a reload per cast).
    ///
    /// # Safety
    /// `TypeId::of::<T>()` is this instance's [`Instance::type_id`].
    #[inline(always)]
    pub(crate) unsafe fn identity_arc_unchecked<T: ?Sized + 'static>(&self) -> Option<Arc<T>> {
        // SAFETY: the clone is this instance (same `TypeId`): the caller's contract holds for
        // it; its reference, one more, becomes the `Arc<T>`.
        unsafe { self.clone().into_identity_arc_unchecked() }.ok()
    }

    /// `Arc<T>` from this instance's own reference (no second one taken): for a new object
    /// the caller owns (a transient asked for directly), which saves an increment and a
    /// decrement of the shared count. `Err(self)` for a `T` whose pointer is not thin (ruled
    /// out by the contract).
    ///
    /// # Safety
    /// `TypeId::of::<T>()` is this instance's [`Instance::type_id`].
    #[inline(always)]
    pub(crate) unsafe fn into_identity_arc_unchecked<T: ?Sized + 'static>(
        self,
    ) -> Result<Arc<T>, Instance> {
        if std::mem::size_of::<*const T>() != std::mem::size_of::<*const ()>() {
            return Err(self);
        }
        // A concrete type is `Sized` (`Instance::new` takes `T: Any`), so under the contract a
        // pointer to `T` is thin; the check above is a constant and keeps the copy below in
        // bounds for any other `T` (which the contract rules out anyway).
        // The instance's own reference, as a pointer to the object's data (the vtable dropped).
        let data = Arc::into_raw(self.object).cast::<()>();
        // SAFETY: `*const T` and `*const ()` are both thin pointers (checked above), so the
        // copy reinterprets the address as a `*const T`. `T` is the object's concrete type
        // `C` (equal `TypeId`s, the caller's contract), so `typed` points to the `C` of an
        // allocation made by an `Arc<C>` and coerced to `Arc<dyn Any + Send + Sync>` since,
        // returned by `Arc::into_raw` just above: what `Arc::from_raw` asks for, and the
        // reference `into_raw` gave up is handed to the new `Arc`.
        unsafe {
            let typed: *const T = std::mem::transmute_copy(&data);
            Ok(Arc::from_raw(typed))
        }
    }
}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Instance<{}>@{:p}",
            self.type_name(),
            Arc::as_ptr(&self.object)
        )
    }
}

impl PartialEq for Instance {
    fn eq(&self, other: &Instance) -> bool {
        self.ptr_eq(other)
    }
}

/// A run-time value: plain JSON data, or a service object.
///
/// Plan expressions evaluate to `Value`s; they are the arguments of constructors and methods
/// and the results of methods and static factories. Integers are `i64`; maps keep their order.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<Value>),
    /// An ordered map.
    Map(IndexMap<String, Value>),
    /// A service object.
    Service(Instance),
    /// A first-class callable (`{"$callable": [target, method]}` in the plan): a method bound
    /// to its object, or a static method.
    Callable(Callable),
}

type CallableFn = dyn Fn(Vec<Value>) -> CallResult<Value> + Send + Sync;

/// A first-class callable: what Nette's `Class::method(...)` / `@svc::method(...)` give, a
/// method bound to the object it is called on (or a static method), ready to call later.
///
/// Arguments are positional and passed as they are: unlike a plan's `$call`, nothing fills in
/// defaults or autowires, so pass every argument the registered method reads. Cloning shares the
/// binding; two callables are equal when they are clones of each other.
///
/// ```
/// use wireplan_runtime::{Callable, Value};
///
/// let add = Callable::new("Math::add", |args| {
///     Ok(Value::Int(args.iter().filter_map(Value::as_int).sum()))
/// });
/// assert_eq!(add.call(vec![Value::Int(2), Value::Int(3)]).unwrap(), Value::Int(5));
/// assert_eq!(add.name(), "Math::add");
/// ```
#[derive(Clone)]
pub struct Callable {
    name: Arc<str>,
    f: Arc<CallableFn>,
}

impl Callable {
    /// A callable named `name` (for messages, e.g. `App\\Mailer::send`) running `f`.
    pub fn new(
        name: impl Into<String>,
        f: impl Fn(Vec<Value>) -> CallResult<Value> + Send + Sync + 'static,
    ) -> Callable {
        Callable {
            name: name.into().into(),
            f: Arc::new(f),
        }
    }

    /// The catalog name of the method, `Class::method`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Calls the method with positional arguments; its result, or the error it returned.
    pub fn call(&self, args: Vec<Value>) -> CallResult<Value> {
        (self.f)(args)
    }
}

impl fmt::Debug for Callable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Callable({})", self.name)
    }
}

impl PartialEq for Callable {
    fn eq(&self, other: &Callable) -> bool {
        Arc::ptr_eq(&self.f, &other.f)
    }
}

impl Value {
    /// Wraps an owned object as a service value (`Value::Service`), e.g. as the result of a
    /// static factory method.
    pub fn service<T: Any + Send + Sync>(object: T) -> Value {
        Value::Service(Instance::from_value(object))
    }

    /// A short description of the kind of value, for messages: `null`, `bool`, `int`,
    /// `float`, `string`, `list`, `map` or `service <Rust type>`.
    pub fn kind(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Float(_) => "float".into(),
            Value::Str(_) => "string".into(),
            Value::List(_) => "list".into(),
            Value::Map(_) => "map".into(),
            Value::Service(i) => format!("service of Rust type {}", i.type_name()),
            Value::Callable(c) => format!("callable {}", c.name()),
        }
    }

    /// `true` for [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The boolean, if this is a [`Value::Bool`].
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The integer, if this is a [`Value::Int`].
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The number as `f64`, if this is a [`Value::Float`] or a [`Value::Int`].
    pub fn as_float(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// The string, if this is a [`Value::Str`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The items, if this is a [`Value::List`].
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    /// The entries, if this is a [`Value::Map`].
    pub fn as_map(&self) -> Option<&IndexMap<String, Value>> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The callable, if this is a [`Value::Callable`], or a [`Value::Service`] whose object is a
    /// [`Callable`] (PHP passes a `Closure` object where a `callable` is expected).
    pub fn as_callable(&self) -> Option<&Callable> {
        match self {
            Value::Callable(c) => Some(c),
            // A service whose object is a `Callable` (a `Closure` service in the catalog).
            Value::Service(inst) => inst.as_any().downcast_ref::<Callable>(),
            _ => None,
        }
    }

    /// The object, if this is a [`Value::Service`].
    pub fn as_instance(&self) -> Option<&Instance> {
        match self {
            Value::Service(i) => Some(i),
            _ => None,
        }
    }
}

impl From<()> for Value {
    fn from(_: ()) -> Value {
        Value::Null
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<i32> for Value {
    fn from(i: i32) -> Value {
        Value::Int(i.into())
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}
impl From<Vec<Value>> for Value {
    fn from(l: Vec<Value>) -> Value {
        Value::List(l)
    }
}
impl From<IndexMap<String, Value>> for Value {
    fn from(m: IndexMap<String, Value>) -> Value {
        Value::Map(m)
    }
}
impl From<Callable> for Value {
    fn from(c: Callable) -> Value {
        Value::Callable(c)
    }
}
impl From<Instance> for Value {
    fn from(i: Instance) -> Value {
        Value::Service(i)
    }
}
impl<T: Any + Send + Sync> From<Arc<T>> for Value {
    fn from(a: Arc<T>) -> Value {
        Value::Service(Instance::new(a))
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Value {
        o.map_or(Value::Null, Into::into)
    }
}

/// A typed accessor of [`Args`] did not find what it expected.
///
/// Converts into [`BoxError`] with `?`, so a constructor can simply write `a.str(0)?`.
/// Displayed as `argument at index N: expected …, found …`: the zero-based index the
/// accessor took (`a.str(N)`), named as an index since the runtime's ordinals (`setup #1`)
/// count from one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("argument at index {index}: expected {expected}, found {found}")]
pub struct ArgError {
    /// Zero-based position of the argument.
    pub index: usize,
    /// What the accessor expected (e.g. `string`, `service dyn app::Logger`).
    pub expected: String,
    /// What was there (e.g. `int`, `nothing (2 arguments given)`).
    pub found: String,
}

/// An [`ArgError`] about a parameter the registry declares by name (the derive,
/// `register!` and [`ClassBuilder::signature`](crate::ClassBuilder::signature) declare them):
/// the cause of a failed constructor or method call, displayed as
/// `argument $maxLoans (index 3): expected int, found string`.
///
/// A constructor's error without a declared name stays the [`ArgError`] itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "argument ${param} (index {}): expected {}, found {}",
    error.index,
    error.expected,
    error.found
)]
pub struct ParamError {
    /// The parameter's name as the configuration uses it (without the `$`).
    pub param: String,
    /// What the accessor reported.
    pub error: ArgError,
}

/// `cause` naming its parameter when it is an [`ArgError`] at an index `params` declares (a
/// [`ParamError`]); anything else unchanged.
pub(crate) fn name_param(cause: BoxError, params: Option<&[crate::catalog::Param]>) -> BoxError {
    match cause.downcast::<ArgError>() {
        Ok(error) => match params.and_then(|p| p.get(error.index)) {
            Some(p) => Box::new(ParamError {
                param: p.name.to_string(),
                error: *error,
            }),
            None => error,
        },
        Err(cause) => cause,
    }
}

/// The positional arguments of a constructor, method, static method or property writer.
///
/// Arguments in a plan are positional and complete (defaults already filled in by the
/// compiler), so index `i` is the `i`-th parameter of the catalog signature. Property writers
/// receive the written value as argument `0`.
///
/// Every accessor returns `Err(ArgError)` on a missing argument or a type mismatch, never
/// panics. Service accessors ([`Args::service`], [`Args::list_of`]) accept concrete types and
/// trait objects alike (`a.service::<Db>(0)?`, `a.service::<dyn Logger>(1)?`); trait objects
/// use the casters of the [`Registry`].
pub struct Args<'r> {
    values: ArgValues<'r>,
    registry: &'r Registry,
}

/// How many arguments the compiled creation path evaluates into a buffer on the stack (more
/// go into a `Vec`).
pub(crate) const INLINE_ARGS: usize = 4;

/// One evaluated argument of the compiled creation path. Plain data and cached services are
/// borrowed from where they live (the compiled plan; the container or scope that caches the
/// service), so passing them touches no reference count and clones no string until the
/// constructor keeps them. Each form is at most an `Instance` wide, so filling the argument
/// buffer moves little.
pub(crate) enum ArgValue<'a> {
    /// Plain data of the compiled plan, borrowed.
    Plain(&'a Value),
    /// A cached service, borrowed.
    Cached(&'a Instance),
    /// A new object made for this call (a transient, a generated handle, `@self`).
    New(Instance),
    /// Any other value evaluated for this call (rare forms: lists, plan expressions).
    Own(Box<Value>),
}

impl ArgValue<'_> {
    /// An evaluated value as an argument.
    pub(crate) fn from_value(v: Value) -> ArgValue<'static> {
        match v {
            Value::Service(i) => ArgValue::New(i),
            other => ArgValue::Own(Box::new(other)),
        }
    }

    /// The argument as a `Value` of its own.
    fn to_value(&self) -> Value {
        match self {
            ArgValue::Plain(v) => (*v).clone(),
            ArgValue::Cached(i) => Value::Service((*i).clone()),
            ArgValue::New(i) => Value::Service(i.clone()),
            ArgValue::Own(v) => (**v).clone(),
        }
    }
}

/// The values of [`Args`]: owned, or the compiled creation path's arguments (which allocate nothing for up to [`INLINE_ARGS`] arguments and borrow
/// cached services).
enum ArgValues<'r> {
    Owned(Vec<Value>),
    Mixed {
        items: &'r [ArgValue<'r>],
        /// Every argument as a `Value`, built on the first request for a borrowed service as
        /// a `Value` (`Args::values`, `Args::value`, messages); the typed service accessors
        /// never need it.
        all: OnceLock<Vec<Value>>,
    },
}

impl ArgValues<'_> {
    fn len(&self) -> usize {
        match self {
            ArgValues::Owned(v) => v.len(),
            ArgValues::Mixed { items, .. } => items.len(),
        }
    }

    /// Every argument as a `Value`.
    fn all(&self) -> &[Value] {
        match self {
            ArgValues::Owned(v) => v,
            ArgValues::Mixed { items, all } => {
                all.get_or_init(|| items.iter().map(ArgValue::to_value).collect())
            }
        }
    }

    /// Argument `i` as a `Value`.
    fn get(&self, i: usize) -> Option<&Value> {
        match self {
            ArgValues::Mixed { items, .. } => match items.get(i)? {
                ArgValue::Plain(v) => Some(v),
                ArgValue::Own(v) => Some(v),
                ArgValue::Cached(_) | ArgValue::New(_) => self.all().get(i),
            },
            other => other.all().get(i),
        }
    }

    /// Argument `i` if it is a service (borrowed services without building a `Value`).
    fn instance(&self, i: usize) -> Option<&Instance> {
        match self {
            ArgValues::Mixed { items, .. } => match items.get(i)? {
                ArgValue::Plain(v) => v.as_instance(),
                ArgValue::Own(v) => v.as_instance(),
                ArgValue::Cached(inst) => Some(inst),
                ArgValue::New(inst) => Some(inst),
            },
            other => other.get(i)?.as_instance(),
        }
    }

    /// Whether argument `i` is present and `null`.
    fn is_null(&self, i: usize) -> bool {
        match self {
            ArgValues::Mixed { items, .. } => match items.get(i) {
                Some(ArgValue::Plain(v)) => v.is_null(),
                Some(ArgValue::Own(v)) => v.is_null(),
                _ => false,
            },
            other => matches!(other.get(i), Some(Value::Null)),
        }
    }
}

impl<'r> Args<'r> {
    /// Wraps evaluated values; the registry supplies casters for trait-object accessors.
    pub fn new(values: Vec<Value>, registry: &'r Registry) -> Args<'r> {
        Args {
            values: ArgValues::Owned(values),
            registry,
        }
    }

    /// The compiled creation path's arguments (cached services borrowed).
    pub(crate) fn compiled(items: &'r [ArgValue<'r>], registry: &'r Registry) -> Args<'r> {
        Args {
            values: ArgValues::Mixed {
                items,
                all: OnceLock::new(),
            },
            registry,
        }
    }

    /// Number of arguments.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` when there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.values.len() == 0
    }

    /// All arguments.
    pub fn values(&self) -> &[Value] {
        self.values.all()
    }

    /// The registry the arguments were evaluated against.
    pub fn registry(&self) -> &'r Registry {
        self.registry
    }

    fn mismatch(&self, index: usize, expected: impl Into<String>) -> ArgError {
        ArgError {
            index,
            expected: expected.into(),
            found: match self.values.get(index) {
                Some(v) => v.kind(),
                None => format!("nothing ({} arguments given)", self.values.len()),
            },
        }
    }

    /// Argument `i`, whatever it is.
    pub fn value(&self, i: usize) -> Result<&Value, ArgError> {
        self.values
            .get(i)
            .ok_or_else(|| self.mismatch(i, "a value"))
    }

    /// `true` when argument `i` is present and `null`.
    pub fn is_null(&self, i: usize) -> bool {
        self.values.is_null(i)
    }

    /// Argument `i` as a boolean.
    pub fn bool(&self, i: usize) -> Result<bool, ArgError> {
        self.values
            .get(i)
            .and_then(Value::as_bool)
            .ok_or_else(|| self.mismatch(i, "bool"))
    }

    /// Argument `i` as an integer.
    pub fn int(&self, i: usize) -> Result<i64, ArgError> {
        self.values
            .get(i)
            .and_then(Value::as_int)
            .ok_or_else(|| self.mismatch(i, "int"))
    }

    /// Argument `i` as an integer, or `None` when it is `null`.
    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, ArgError> {
        if self.is_null(i) {
            return Ok(None);
        }
        self.int(i)
            .map(Some)
            .map_err(|_| self.mismatch(i, "int or null"))
    }

    /// Argument `i` as a float; an integer is accepted and converted.
    pub fn float(&self, i: usize) -> Result<f64, ArgError> {
        self.values
            .get(i)
            .and_then(Value::as_float)
            .ok_or_else(|| self.mismatch(i, "float"))
    }

    /// Argument `i` as a string slice.
    pub fn str(&self, i: usize) -> Result<&str, ArgError> {
        self.values
            .get(i)
            .and_then(Value::as_str)
            .ok_or_else(|| self.mismatch(i, "string"))
    }

    /// Argument `i` as a string slice, or `None` when it is `null`.
    pub fn opt_str(&self, i: usize) -> Result<Option<&str>, ArgError> {
        if self.is_null(i) {
            return Ok(None);
        }
        self.str(i)
            .map(Some)
            .map_err(|_| self.mismatch(i, "string or null"))
    }

    /// Argument `i` as a list of values.
    pub fn list(&self, i: usize) -> Result<&[Value], ArgError> {
        self.values
            .get(i)
            .and_then(Value::as_list)
            .ok_or_else(|| self.mismatch(i, "list"))
    }

    /// Argument `i` as an ordered map.
    pub fn map(&self, i: usize) -> Result<&IndexMap<String, Value>, ArgError> {
        self.values
            .get(i)
            .and_then(Value::as_map)
            .ok_or_else(|| self.mismatch(i, "map"))
    }

    /// Argument `i` as a first-class callable (a `callable` or `Closure` parameter given
    /// `Class::method(...)` in the configuration).
    pub fn callable(&self, i: usize) -> Result<&Callable, ArgError> {
        self.values
            .get(i)
            .and_then(Value::as_callable)
            .ok_or_else(|| self.mismatch(i, "callable"))
    }

    /// Argument `i` as an erased service object.
    pub fn instance(&self, i: usize) -> Result<&Instance, ArgError> {
        self.values
            .instance(i)
            .ok_or_else(|| self.mismatch(i, "service"))
    }

    /// Argument `i` as a service of type `T`: the concrete type (`a.service::<Db>(0)`) or a
    /// trait object the argument's class registered (`a.service::<dyn Logger>(0)`).
    pub fn service<T: ?Sized + 'static>(&self, i: usize) -> Result<Arc<T>, ArgError> {
        self.values
            .instance(i)
            .and_then(|inst| self.registry.cast::<T>(inst))
            .ok_or_else(|| self.mismatch(i, self.expected_service::<T>()))
    }

    /// Argument `i` as a service of type `T`, or `None` when it is `null` (a nullable
    /// parameter such as `?App\Clock`).
    pub fn opt_service<T: ?Sized + 'static>(&self, i: usize) -> Result<Option<Arc<T>>, ArgError> {
        if self.is_null(i) {
            return Ok(None);
        }
        self.service::<T>(i).map(Some)
    }

    /// Argument `i` as a list of services of type `T` (a `tagged(..)`, `typed(..)` or `T[]`
    /// parameter), e.g. `a.list_of::<dyn Handler>(3)?`. Fails on the first item that is not
    /// such a service, naming it.
    pub fn list_of<T: ?Sized + 'static>(&self, i: usize) -> Result<Vec<Arc<T>>, ArgError> {
        let items =
            self.values.get(i).and_then(Value::as_list).ok_or_else(|| {
                self.mismatch(i, format!("list of {}", self.expected_service::<T>()))
            })?;
        items
            .iter()
            .enumerate()
            .map(|(k, item)| {
                item.as_instance()
                    .and_then(|inst| self.registry.cast::<T>(inst))
                    .ok_or_else(|| ArgError {
                        index: i,
                        expected: format!("list of {}", self.expected_service::<T>()),
                        found: format!("item #{k}: {}", item.kind()),
                    })
            })
            .collect()
    }

    fn expected_service<T: ?Sized + 'static>(&self) -> String {
        let rust = std::any::type_name::<T>();
        match self.registry.catalog_name_of::<T>() {
            Some(name) => format!("service {rust} ({name})"),
            None => format!("service {rust}"),
        }
    }
}

impl fmt::Debug for Args<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.values.all().iter()).finish()
    }
}

#[cfg(test)]
mod tests;
