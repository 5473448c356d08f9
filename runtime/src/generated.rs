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
//! A generated object holds its container weakly (the container caches it, so a strong
//! reference would keep the container alive forever): after the container is dropped, its
//! methods return [`Error::ContainerDropped`]. One created inside a [`Scope`](crate::Scope)
//! resolves scoped services in that scope, for as long as the scope lives.

use std::sync::{Arc, Weak};

use crate::container::{Inner, ScopeState};
use crate::error::Error;
use crate::value::{Instance, Value};

/// Where a generated object resolves: its container, its scope, and its service.
#[derive(Clone)]
struct Origin {
    inner: Weak<Inner>,
    scope: Option<Weak<ScopeState>>,
    service: usize,
    name: String,
}

impl Origin {
    fn new(inner: &Inner, service: usize, scope: Option<&Arc<ScopeState>>) -> Origin {
        Origin {
            inner: inner.me.clone(),
            scope: scope.map(Arc::downgrade),
            service,
            name: inner.name_of(service).to_string(),
        }
    }

    /// The live container and scope, or [`Error::ContainerDropped`].
    fn live(&self) -> Result<(Arc<Inner>, Option<Arc<ScopeState>>), Error> {
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
/// the service's `create` and `setup` each time, with `{"$arg": name}` reading the arguments.
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
    /// lists its parameters); [`Error::ConstructorFailed`] (also for a `$arg` not given),
    /// [`Error::WrongType`], [`Error::ContainerDropped`].
    pub fn create<T: ?Sized + 'static>(&self, args: &[(&str, Value)]) -> Result<Arc<T>, Error> {
        let inst = self.create_instance(args)?;
        let (inner, _) = self.origin.live()?;
        inner.cast(self.origin.service, &inst)
    }

    /// As [`Factory::create`], positionally: `args[i]` is the `i`-th name of
    /// [`Factory::parameters`].
    pub fn create_positional<T: ?Sized + 'static>(
        &self,
        args: Vec<Value>,
    ) -> Result<Arc<T>, Error> {
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
        let named: Vec<(&str, Value)> = self
            .parameters
            .iter()
            .map(String::as_str)
            .zip(args)
            .collect();
        self.create::<T>(&named)
    }

    /// As [`Factory::create`], erased.
    pub fn create_instance(&self, args: &[(&str, Value)]) -> Result<Instance, Error> {
        let (inner, scope) = self.origin.live()?;
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
        let owned: Vec<(String, Value)> = args
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect();
        inner.create_with_args(self.origin.service, &owned, scope.as_ref())
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
        let (inner, scope) = self.origin.live()?;
        let create = &inner.plan.services[self.origin.service].create;
        match inner.eval_in(self.origin.service, create, scope.as_ref())? {
            Value::Service(inst) => {
                inner
                    .registry
                    .cast::<T>(&inst)
                    .ok_or_else(|| Error::WrongType {
                        service: self.origin.name.clone(),
                        class: inner.plan.services[self.origin.service].type_.clone(),
                        rust_type: inst.type_name(),
                        requested: std::any::type_name::<T>(),
                    })
            }
            other => Err(Error::BadArguments {
                service: self.origin.name.clone(),
                reason: format!("the accessor's target is {}, not a service", other.kind()),
            }),
        }
    }
}

/// A generated locator (`kind: locator`): [`get`](Locator::get) returns one of the services in
/// its `references`, by the locator's own key, creating it on first use.
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
        let (inner, scope) = self.origin.live()?;
        let sp = &inner.plan.services[self.origin.service];
        let Some(e) = sp.references.get(key) else {
            return Err(Error::UnknownService {
                name: format!("{}[{key}]", self.origin.name),
            });
        };
        match inner.eval_in(self.origin.service, e, scope.as_ref())? {
            Value::Service(inst) => {
                inner
                    .registry
                    .cast::<T>(&inst)
                    .ok_or_else(|| Error::WrongType {
                        service: format!("{}[{key}]", self.origin.name),
                        class: String::new(),
                        rust_type: inst.type_name(),
                        requested: std::any::type_name::<T>(),
                    })
            }
            other => Err(Error::BadArguments {
                service: self.origin.name.clone(),
                reason: format!("reference '{key}' is {}, not a service", other.kind()),
            }),
        }
    }
}

pub(crate) fn factory(inner: &Inner, service: usize, scope: Option<&Arc<ScopeState>>) -> Instance {
    let parameters = inner.plan.services[service].parameters.clone();
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
    let keys = inner.plan.services[service]
        .references
        .keys()
        .cloned()
        .collect();
    Instance::from_value(Locator {
        origin: Origin::new(inner, service, scope),
        keys,
    })
}
