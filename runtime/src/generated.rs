//! Generated services: [`Factory`], [`Accessor`] and [`Locator`].
//!
//! Nette generates a class for an interface such as `App\ArticleFactory` (`create()`),
//! `App\DbAccessor` (`get()`) or a locator (`get(name)`). Here the runtime provides one Rust
//! type per kind; the plan's service of that kind *is* such an object:
//!
//! ```
//! # use std::sync::Arc;
//! # use wireplan_runtime::{Container, Factory, Registry, Value};
//! struct Article { id: i64 }
//! let mut registry = Registry::new();
//! registry.class::<Article>("App\\Article").constructor(|a| Ok(Article { id: a.int(0)? }));
//! let plan = r#"{"format": "wireplan-plan", "version": 1, "compiler": "x", "inputs_hash": "0",
//!   "services": {"articles": {"kind": "factory", "type": "App\\ArticleFactory",
//!       "implement": "App\\ArticleFactory", "parameters": ["id"],
//!       "create": {"$new": "App\\Article", "args": [{"$arg": "id"}]}}}}"#;
//! let container = Container::from_json_str(plan, &registry)?;
//! let factory = container.get::<Factory>("articles")?;
//! let a = factory.create::<Article>(&[("id", Value::Int(7))])?;
//! let b = factory.create::<Article>(&[("id", Value::Int(8))])?;
//! assert_eq!((a.id, b.id), (7, 8)); // a new object per call
//! # Ok::<(), wireplan_runtime::Error>(())
//! ```
//!
//! Plans may also call these objects' methods (`{"$call": [{"$ref": "articles"}, "create"],
//! "args": [7]}`) or bind them (`{"$callable": [{"$ref": "articles"}, "create"]}`): the runtime
//! answers `create` of a factory, `get` of an accessor, and `get(key)`, `create(key)`, `getX()`
//! and `createX()` of a locator itself, without the registry.
//!
//! A generated object holds its container weakly (the container caches it, so a strong
//! reference would keep the container alive forever): after the container is dropped, its
//! methods return [`Error::ContainerDropped`]. One created inside a [`Scope`](crate::Scope)
//! resolves scoped services in that scope, for as long as the scope lives.

use std::sync::{Arc, Weak};

use crate::container::{Inner, ScopeState};
use crate::error::Error;
use crate::plan::{ServiceKind, ServicePlan};
use crate::value::{Callable, Instance, Value};

/// Where a generated object (or a [`Provider`](crate::Provider) handle) resolves: its
/// container and scope, held weakly, and its service.
#[derive(Clone)]
pub(crate) struct Origin {
    inner: Weak<Inner>,
    pub(crate) scope: Option<Weak<ScopeState>>,
    pub(crate) service: usize,
    pub(crate) name: String,
}

impl Origin {
    pub(crate) fn new(inner: &Inner, service: usize, scope: Option<&Arc<ScopeState>>) -> Origin {
        Origin {
            inner: inner.me.clone(),
            scope: scope.map(Arc::downgrade),
            service,
            name: inner.name_of(service).to_string(),
        }
    }

    /// The live container and scope, or [`Error::ContainerDropped`].
    pub(crate) fn live(&self) -> Result<(Arc<Inner>, Option<Arc<ScopeState>>), Error> {
        let dropped = || Error::ContainerDropped {
            service: self.name.clone(),
        };
        let inner = self.inner.upgrade().ok_or_else(dropped)?;
        let scope = match &self.scope {
            Some(w) => Some(w.upgrade().ok_or_else(dropped)?),
            None => None,
        };
        Ok((inner, scope))
    }
}

/// A generated factory (`kind: factory`): [`create`](Factory::create) builds a new object from
/// the service's `create` and `setup` each time, with `{"$arg": name}` reading the arguments
/// (and `{"$arg": name, "default": …}` giving a value for one left out).
#[derive(Clone)]
pub struct Factory {
    origin: Origin,
    parameters: Vec<String>,
}

impl std::fmt::Debug for Factory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Factory")
            .field("service", &self.origin.name)
            .field("parameters", &self.parameters)
            .finish()
    }
}

impl Factory {
    /// The factory's service name.
    pub fn name(&self) -> &str {
        &self.origin.name
    }

    /// The names `create()` accepts, in order (the plan's `parameters`).
    pub fn parameters(&self) -> &[String] {
        &self.parameters
    }

    /// A new object, as `Arc<T>` (its concrete type or a registered trait object), built with
    /// the named arguments `args`.
    ///
    /// Errors: [`Error::BadArguments`] for a name the factory does not declare (when the plan
    /// lists its parameters); [`Error::ConstructorFailed`], with `factory_product` set when a
    /// step of the new object itself fails (also a `$arg` not given that has no default; a
    /// failing dependency names itself),
    /// [`Error::WrongProductType`] (naming the product's class; before anything is made when
    /// the product's class is registered), [`Error::ContainerDropped`].
    pub fn create<T: ?Sized + 'static>(&self, args: &[(&str, Value)]) -> Result<Arc<T>, Error> {
        self.product_casts_to::<T>()?;
        let inst = self.create_instance(args)?;
        self.cast_product(inst)
    }

    /// [`Error::WrongProductType`] before anything is made when the product's registered
    /// class does not cast to `T` (a new user's trial: the product was constructed, with its
    /// side effects, and then refused).
    fn product_casts_to<T: ?Sized + 'static>(&self) -> Result<(), Error> {
        let (inner, _) = self.origin.live()?;
        let crate::plan::Expr::New { class, .. } =
            &inner.plan().services[self.origin.service].create
        else {
            return Ok(());
        };
        inner
            .registry
            .class_casts_to::<T>(class)
            .map_err(|rust_type| Error::WrongProductType {
                factory: self.origin.name.clone(),
                class: class.to_string(),
                rust_type,
                requested: std::any::type_name::<T>(),
            })
    }

    /// The new object as `Arc<T>` (its reference handed over, see `Registry::cast_owned`);
    /// [`Error::WrongProductType`] names the product's class.
    fn cast_product<T: ?Sized + 'static>(&self, inst: Instance) -> Result<Arc<T>, Error> {
        let (inner, _) = self.origin.live()?;
        inner.registry.cast_owned::<T>(inst).map_err(|inst| {
            let plan = &inner.plan().services[self.origin.service];
            let class = match &plan.create {
                crate::plan::Expr::New { class, .. } => class.to_string(),
                _ => format!(
                    "what {}::create() returns",
                    plan.implement.as_deref().unwrap_or(&plan.type_)
                ),
            };
            Error::WrongProductType {
                factory: self.origin.name.clone(),
                class,
                rust_type: inst.type_name(),
                requested: std::any::type_name::<T>(),
            }
        })
    }

    /// As [`Factory::create`], positionally: `args[i]` is the `i`-th name of
    /// [`Factory::parameters`].
    pub fn create_positional<T: ?Sized + 'static>(
        &self,
        args: Vec<Value>,
    ) -> Result<Arc<T>, Error> {
        self.product_casts_to::<T>()?;
        let inst = self.create_positional_instance(args)?;
        self.cast_product(inst)
    }

    /// As [`Factory::create_positional`], erased.
    pub fn create_positional_instance(&self, args: Vec<Value>) -> Result<Instance, Error> {
        let named = self.named(args)?;
        self.create_instance(&named)
    }

    /// As [`Factory::create_async`], positionally (as [`Factory::create_positional`]).
    pub fn create_positional_async<T: ?Sized + 'static>(
        &self,
        args: Vec<Value>,
    ) -> impl std::future::Future<Output = Result<Arc<T>, Error>> + Send + 'static {
        let made = self.named(args).map(|named| self.create_async::<T>(&named));
        async move { made?.await }
    }

    /// Positional arguments named by [`Factory::parameters`]; [`Error::BadArguments`] for more
    /// than it declares.
    fn named(&self, args: Vec<Value>) -> Result<Vec<(&str, Value)>, Error> {
        if args.len() > self.parameters.len() {
            return Err(Error::BadArguments {
                service: self.origin.name.clone(),
                reason: format!(
                    "{} arguments given, create() takes {}",
                    args.len(),
                    self.parameters.len()
                ),
            });
        }
        Ok(self
            .parameters
            .iter()
            .map(String::as_str)
            .zip(args)
            .collect())
    }

    /// As [`Factory::create`], erased.
    pub fn create_instance(&self, args: &[(&str, Value)]) -> Result<Instance, Error> {
        let (inner, scope) = self.origin.live()?;
        let owned = self.checked_args(args)?;
        inner.create_with_args(self.origin.service, &owned, scope.as_ref())
    }

    /// As [`Factory::create`], with the product's async constructors (and those of the
    /// services it needs) awaited: the way to make a product whose creation reaches an async
    /// constructor, where `create` is [`Error::AsyncRequired`] (Clean IoC 2's
    /// `resolve_async`, as [`Container::get_async`](crate::Container::get_async) for
    /// services). The singletons and scoped services the product needs are created as by
    /// `get_async`, each once; the product itself is new on every call. A product that needs
    /// no async is made as by `create`. Same errors as `create`.
    ///
    /// The arguments are checked and copied when this is called, so the future owns what it
    /// needs: it is `Send + 'static` (`tokio::spawn` it, or `join!` several with temporary
    /// arguments) and needs no particular executor.
    pub fn create_async<T: ?Sized + 'static>(
        &self,
        args: &[(&str, Value)],
    ) -> impl std::future::Future<Output = Result<Arc<T>, Error>> + Send + 'static {
        let checked = self
            .product_casts_to::<T>()
            .and_then(|()| self.checked_args(args));
        let this = self.clone();
        async move {
            let inst = this.create_owned_async(checked?).await?;
            this.cast_product(inst)
        }
    }

    /// As [`Factory::create_async`], erased (as [`Factory::create_instance`]).
    pub fn create_instance_async(
        &self,
        args: &[(&str, Value)],
    ) -> impl std::future::Future<Output = Result<Instance, Error>> + Send + 'static {
        let checked = self.checked_args(args);
        let this = self.clone();
        async move { this.create_owned_async(checked?).await }
    }

    /// The product made with `args` (checked), its async constructors awaited.
    async fn create_owned_async(&self, args: Vec<(String, Value)>) -> Result<Instance, Error> {
        let (inner, scope) = self.origin.live()?;
        inner
            .create_with_args_async(self.origin.service, &args, scope.as_ref())
            .await
    }

    /// `args` owned, after the checks of [`Factory::create`]: [`Error::BadArguments`] for a
    /// name the factory does not declare (when the plan lists its parameters) or a name given
    /// twice.
    fn checked_args(&self, args: &[(&str, Value)]) -> Result<Vec<(String, Value)>, Error> {
        if !self.parameters.is_empty() {
            let unknown: Vec<&str> = args
                .iter()
                .map(|(n, _)| *n)
                .filter(|n| !self.parameters.iter().any(|p| p == n))
                .collect();
            if !unknown.is_empty() {
                return Err(Error::BadArguments {
                    service: self.origin.name.clone(),
                    reason: format!(
                        "unknown argument(s) {}; create() takes {}",
                        unknown.join(", "),
                        self.parameters.join(", ")
                    ),
                });
            }
        }
        // A name given twice: which value was meant is not known (the first one won silently
        // before; a new user's trial).
        // (Each such name once, where it is given the second time.)
        let twice: Vec<&str> = args
            .iter()
            .enumerate()
            .filter(|(i, (n, _))| args[..*i].iter().filter(|(m, _)| m == n).count() == 1)
            .map(|(_, (n, _))| *n)
            .collect();
        if !twice.is_empty() {
            return Err(Error::BadArguments {
                service: self.origin.name.clone(),
                reason: format!("argument(s) {} given more than once", twice.join(", ")),
            });
        }
        Ok(args
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect())
    }
}

/// A generated accessor (`kind: accessor`): [`get`](Accessor::get) returns the service its
/// `create` refers to, creating it on first use (a lazy handle to one service).
#[derive(Clone)]
pub struct Accessor {
    origin: Origin,
}

impl std::fmt::Debug for Accessor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accessor")
            .field("service", &self.origin.name)
            .finish()
    }
}

impl Accessor {
    /// The accessor's service name.
    pub fn name(&self) -> &str {
        &self.origin.name
    }

    /// The referenced service as `Arc<T>`. Errors as [`Container::get`](crate::Container::get),
    /// plus [`Error::ContainerDropped`].
    pub fn get<T: ?Sized + 'static>(&self) -> Result<Arc<T>, Error> {
        let inst = self.get_instance()?;
        let (inner, _) = self.origin.live()?;
        // The object is the target's: the error names that service and its class, not the
        // accessor and its interface (a new user's trial: "service 'clockAccessor' is
        // App\ClockAccessor (Rust type Clock)").
        inner.registry.cast_owned::<T>(inst).map_err(|inst| {
            let plan = inner.plan();
            let (service, class) = match &plan.services[self.origin.service].create {
                crate::plan::Expr::Ref(target) => {
                    let name = plan.aliases.get(target).unwrap_or(target);
                    let class = plan
                        .services
                        .get(name.as_str())
                        .map(|s| s.type_.to_string());
                    (name.to_string(), class)
                }
                _ => (self.origin.name.clone(), None),
            };
            Error::WrongType {
                service,
                class: class.unwrap_or_else(|| object_class(&inner.registry, &inst)),
                rust_type: inst.type_name(),
                requested: std::any::type_name::<T>(),
            }
        })
    }

    /// As [`Accessor::get`], erased.
    pub fn get_instance(&self) -> Result<Instance, Error> {
        let (inner, scope) = self.origin.live()?;
        let create = &inner.plan().services[self.origin.service].create;
        match inner.eval_in(self.origin.service, create, scope.as_ref())? {
            Value::Service(inst) => Ok(inst),
            other => Err(Error::BadArguments {
                service: self.origin.name.clone(),
                reason: format!("the accessor's target is {}, not a service", other.kind()),
            }),
        }
    }
}

/// A generated locator (`kind: locator`): [`get`](Locator::get) returns one of the services in
/// its `references`, by the locator's own key, creating it on first use;
/// [`create`](Locator::create) creates a new object of that service on every call (Nette's
/// `createService`).
///
/// An interface with methods `getX()` / `createX()` (no parameters) is served by the key `x`
/// (`X` with its first letter in lower case, as Nette's `lcfirst`): call
/// [`call_method`](Locator::call_method) with the method's name, or `get("x")` / `create("x")`.
#[derive(Clone)]
pub struct Locator {
    origin: Origin,
    keys: Vec<String>,
}

impl std::fmt::Debug for Locator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Locator")
            .field("service", &self.origin.name)
            .field("keys", &self.keys)
            .finish()
    }
}

impl Locator {
    /// The locator's service name.
    pub fn name(&self) -> &str {
        &self.origin.name
    }

    /// The keys `get` accepts, in plan order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// Whether `key` is one of [`Locator::keys`].
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    /// The service under `key`, as `Arc<T>`.
    ///
    /// Errors: [`Error::UnknownService`] naming `locator[key]` for a key it does not have;
    /// otherwise as [`Container::get`](crate::Container::get), plus
    /// [`Error::ContainerDropped`].
    pub fn get<T: ?Sized + 'static>(&self, key: &str) -> Result<Arc<T>, Error> {
        let inst = self.get_instance(key)?;
        self.cast(key, inst)
    }

    /// A new object of the service under `key`, as `Arc<T>`: its `create` and `setup` run
    /// again, whatever its lifespan, and the container keeps no reference to it (Nette's
    /// `createService`, what a locator's `create($name)` / `createX()` does). Errors as
    /// [`Locator::get`].
    pub fn create<T: ?Sized + 'static>(&self, key: &str) -> Result<Arc<T>, Error> {
        let inst = self.create_instance(key)?;
        self.cast(key, inst)
    }

    /// As [`Locator::get`], erased.
    pub fn get_instance(&self, key: &str) -> Result<Instance, Error> {
        let (inner, scope) = self.origin.live()?;
        let e = self.reference(&inner, key)?;
        self.service(inner.eval_in(self.origin.service, e, scope.as_ref())?, key)
    }

    /// As [`Locator::create`], erased.
    pub fn create_instance(&self, key: &str) -> Result<Instance, Error> {
        let (inner, scope) = self.origin.live()?;
        let e = self.reference(&inner, key)?;
        let value = match e {
            crate::plan::Expr::Ref(name) => match inner.index_of(name) {
                Some(idx) => Value::Service(inner.create_new(idx, scope.as_ref())?),
                None => {
                    return Err(Error::UnknownService {
                        name: name.to_string(),
                        hint: None,
                    })
                }
            },
            other => inner.eval_in(self.origin.service, other, scope.as_ref())?,
        };
        self.service(value, key)
    }

    /// Calls a method of the locator's interface by name, as a plan's `$call` does: `get(key)`
    /// and `create(key)` with one argument (a string or integer key), `getX()` and `createX()`
    /// with none (the key `x`). Errors: [`Error::BadArguments`] for a method a locator does not
    /// have or wrong arguments; otherwise as [`Locator::get`] / [`Locator::create`].
    pub fn call_method(&self, method: &str, args: &[Value]) -> Result<Instance, Error> {
        let Some(LocatorMethod { create, key: named }) = locator_method(method) else {
            return Err(self.bad(format!(
                "a locator has no method {method}(); it has get($name), create($name), getX() and createX()"
            )));
        };
        let key = match (named, args) {
            (Some(key), []) => key,
            (None, [Value::Str(k)]) => k.clone(),
            (None, [Value::Int(i)]) => i.to_string(),
            (None, [other]) => {
                return Err(self.bad(format!(
                    "{method}() takes a service key, {} given",
                    other.kind()
                )))
            }
            (Some(_), _) => {
                return Err(self.bad(format!(
                    "{method}() takes no arguments, {} given",
                    args.len()
                )))
            }
            (None, _) => {
                return Err(self.bad(format!("{method}() takes 1 argument, {} given", args.len())))
            }
        };
        if create {
            self.create_instance(&key)
        } else {
            self.get_instance(&key)
        }
    }

    fn bad(&self, reason: String) -> Error {
        Error::BadArguments {
            service: self.origin.name.clone(),
            reason,
        }
    }

    /// The plan's reference under `key`. Errors: [`Error::UnknownService`] naming
    /// `locator[key]`, with the closest key or, when none is close, the keys there are (as a
    /// container's unknown name gets the closest name).
    fn reference<'p>(&self, inner: &'p Inner, key: &str) -> Result<&'p crate::plan::Expr, Error> {
        let references = &inner.plan().services[self.origin.service].references;
        references.get(key).ok_or_else(|| {
            let keys = || references.keys().map(|k| k.as_str());
            let hint = match crate::suggest::suggest(key, keys()) {
                Some(close) => format!("did you mean '{close}'?"),
                None if references.is_empty() => "the locator has no keys".to_string(),
                None => format!("its keys are {}", keys().collect::<Vec<_>>().join(", ")),
            };
            Error::UnknownService {
                name: format!("{}[{key}]", self.origin.name),
                hint: Some(hint),
            }
        })
    }

    fn service(&self, value: Value, key: &str) -> Result<Instance, Error> {
        match value {
            Value::Service(inst) => Ok(inst),
            other => Err(self.bad(format!(
                "reference '{key}' is {}, not a service",
                other.kind()
            ))),
        }
    }

    /// The object under `key` as `Arc<T>` (its reference handed over, see
    /// `Registry::cast_owned`).
    fn cast<T: ?Sized + 'static>(&self, key: &str, inst: Instance) -> Result<Arc<T>, Error> {
        let (inner, _) = self.origin.live()?;
        inner
            .registry
            .cast_owned::<T>(inst)
            .map_err(|inst| Error::WrongType {
                service: format!("{}[{key}]", self.origin.name),
                class: object_class(&inner.registry, &inst),
                rust_type: inst.type_name(),
                requested: std::any::type_name::<T>(),
            })
    }
}

/// What a method of a locator interface does, judged by its name ([`locator_method`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatorMethod {
    /// `create…`: a new object each call; `get…`: the shared service.
    pub create: bool,
    /// `getX` / `createX`: the key `x` the name carries; `None` for `get` / `create`, which
    /// take the key as their one argument.
    pub key: Option<String>,
}

/// The locator method named `method`, by Nette's rule (`LocatorDefinition`): `get` and `create`
/// take the key as their argument; `getX` / `createX` (`^(get|create)[A-Z]`) serve the key `x`,
/// `X` with a lower-case first letter (PHP's `lcfirst`). `None` for any other name. The
/// compiler checks interfaces with the same rule, so both sides agree on the keys.
///
/// ```
/// use wireplan_runtime::generated::locator_method;
///
/// let m = locator_method("createArticle").unwrap();
/// assert!(m.create);
/// assert_eq!(m.key.as_deref(), Some("article"));
/// assert_eq!(locator_method("get").unwrap().key, None);
/// assert!(locator_method("getter").is_none());
/// ```
pub fn locator_method(method: &str) -> Option<LocatorMethod> {
    for (prefix, create) in [("get", false), ("create", true)] {
        if method.eq_ignore_ascii_case(prefix) {
            return Some(LocatorMethod { create, key: None });
        }
        if let Some(rest) = method.strip_prefix(prefix) {
            let mut chars = rest.chars();
            if let Some(first) = chars.next().filter(char::is_ascii_uppercase) {
                let key = first.to_ascii_lowercase().to_string() + chars.as_str();
                return Some(LocatorMethod {
                    create,
                    key: Some(key),
                });
            }
        }
    }
    None
}

/// What kind of generated object a service's plan describes, for messages (`None` for other
/// kinds).
fn kind_label(kind: ServiceKind) -> Option<&'static str> {
    match kind {
        ServiceKind::Factory => Some("factory"),
        ServiceKind::Accessor => Some("accessor"),
        ServiceKind::Locator => Some("locator"),
        _ => None,
    }
}

/// Load check of a `$call` (`args`: its argument count) or `$callable` (`None`) of `method` on
/// the generated service `name`: the runtime itself answers these, so the registry is not
/// asked. `None` when the service has the method (or is not generated), else the problem.
pub(crate) fn member_problem(
    name: &str,
    sp: &ServicePlan,
    method: &str,
    args: Option<usize>,
) -> Option<String> {
    let kind = kind_label(sp.kind)?;
    let arity = |want: usize| match args {
        Some(n) if n != want => Some(format!(
            "{method}() of {kind} '{name}' takes {want} argument(s), {n} given"
        )),
        _ => None,
    };
    match sp.kind {
        ServiceKind::Factory if method.eq_ignore_ascii_case("create") => match args {
            Some(n) if n > sp.parameters.len() => Some(format!(
                "create() of factory '{name}' takes {} argument(s), {n} given",
                sp.parameters.len()
            )),
            _ => None,
        },
        ServiceKind::Accessor if method.eq_ignore_ascii_case("get") => arity(0),
        ServiceKind::Locator => match locator_method(method).map(|m| m.key) {
            Some(None) => arity(1),
            Some(Some(key)) => arity(0).or_else(|| {
                (!sp.references.contains_key(&key)).then(|| {
                    format!("locator '{name}' has no reference '{key}' for {method}()")
                })
            }),
            None => Some(format!(
                "locator '{name}' has no method {method}() (a locator has get($name), create($name), getX() and createX())"
            )),
        },
        ServiceKind::Factory => Some(format!(
            "factory '{name}' has no method {method}() (a generated factory has create())"
        )),
        _ => Some(format!(
            "accessor '{name}' has no method {method}() (a generated accessor has get())"
        )),
    }
}

/// Whether `inst` is a generated factory, accessor or locator.
pub(crate) fn is_generated(inst: &Instance) -> bool {
    let id = inst.type_id();
    id == std::any::TypeId::of::<Factory>()
        || id == std::any::TypeId::of::<Accessor>()
        || id == std::any::TypeId::of::<Locator>()
}

/// A plan's `$call` of `method` on a generated object ([`is_generated`]): a factory's
/// `create(...)` (positional arguments, in the order of its `parameters`), an accessor's
/// `get()`, a locator's methods ([`Locator::call_method`]).
pub(crate) fn call(inst: &Instance, method: &str, args: Vec<Value>) -> Result<Value, Error> {
    let result = if let Some(f) = inst.downcast::<Factory>() {
        if method.eq_ignore_ascii_case("create") {
            f.create_positional_instance(args)
        } else {
            Err(Error::BadArguments {
                service: f.origin.name.clone(),
                reason: format!("a generated factory has no method {method}(), only create()"),
            })
        }
    } else if let Some(a) = inst.downcast::<Accessor>() {
        match (method.eq_ignore_ascii_case("get"), args.len()) {
            (true, 0) => a.get_instance(),
            (true, n) => Err(Error::BadArguments {
                service: a.origin.name.clone(),
                reason: format!("get() takes no arguments, {n} given"),
            }),
            (false, _) => Err(Error::BadArguments {
                service: a.origin.name.clone(),
                reason: format!("a generated accessor has no method {method}(), only get()"),
            }),
        }
    } else if let Some(l) = inst.downcast::<Locator>() {
        l.call_method(method, &args)
    } else {
        Err(Error::Unsupported {
            service: inst.type_name().to_string(),
            what: format!("{method}() on an object that is not a generated service"),
        })
    };
    result.map(Value::Service)
}

/// A plan's `$callable` of `method` on a generated object (`None` when `inst` is not one): a
/// [`Callable`] named `Interface::method` that calls it as [`call`] does. A method the object
/// does not have is an error now, not when the callable is called.
pub(crate) fn bind(inst: &Instance, method: &str) -> Option<Result<Callable, Error>> {
    let origin = if let Some(f) = inst.downcast::<Factory>() {
        f.origin.clone()
    } else if let Some(a) = inst.downcast::<Accessor>() {
        a.origin.clone()
    } else if let Some(l) = inst.downcast::<Locator>() {
        l.origin.clone()
    } else {
        return None;
    };
    let checked = origin.live().and_then(|(inner, _)| {
        let (name, sp) = inner
            .plan()
            .services
            .get_index(origin.service)
            .ok_or_else(|| Error::UnknownService {
                name: origin.name.clone(),
                hint: None,
            })?;
        match member_problem(name, sp, method, None) {
            Some(reason) => Err(Error::BadArguments {
                service: origin.name.clone(),
                reason,
            }),
            None => Ok(format!("{}::{method}", sp.type_)),
        }
    });
    Some(checked.map(|label| {
        let inst = inst.clone();
        let method = method.to_string();
        Callable::new(label, move |values| {
            call(&inst, &method, values).map_err(Into::into)
        })
    }))
}

pub(crate) fn factory(inner: &Inner, service: usize, scope: Option<&Arc<ScopeState>>) -> Instance {
    let parameters = inner.plan().services[service].parameters.clone();
    Instance::from_value(Factory {
        origin: Origin::new(inner, service, scope),
        parameters,
    })
}

pub(crate) fn accessor(inner: &Inner, service: usize, scope: Option<&Arc<ScopeState>>) -> Instance {
    Instance::from_value(Accessor {
        origin: Origin::new(inner, service, scope),
    })
}

pub(crate) fn locator(inner: &Inner, service: usize, scope: Option<&Arc<ScopeState>>) -> Instance {
    let keys = inner.plan().services[service]
        .references
        .keys()
        .cloned()
        .collect();
    Instance::from_value(Locator {
        origin: Origin::new(inner, service, scope),
        keys,
    })
}

/// The catalog class of `inst`'s Rust type, for a message, or what stands in for it when its
/// type was registered under no class name.
fn object_class(registry: &crate::Registry, inst: &Instance) -> String {
    registry
        .class_name_of_instance(inst)
        .map_or_else(|| "of no registered class".to_string(), str::to_string)
}
