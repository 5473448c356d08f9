//! The [`Container`]: a loaded plan plus a [`Registry`], creating services lazily.
//!
//! ## Life of a service
//!
//! `get("mailer")` resolves aliases, then returns the cached singleton if it exists. Otherwise
//! it evaluates the service's `create` expression (arguments first, so dependencies are
//! created depth-first), runs the `setup` statements on the new object, and publishes it.
//! A failure anywhere is returned as an [`Error`] and nothing is cached for that service, so a
//! later `get` tries again.
//!
//! ## Threads
//!
//! `Container` is `Send + Sync`. Published singletons sit in one `OnceLock` per service and
//! are read without locking. Creation runs under a single container-wide, re-entrant build lock:
//! two threads asking for the same fresh singleton never both construct it, and a cyclic plan
//! can never deadlock two threads that enter the cycle at different services (each resolution
//! carries its own dependency path, and the cycle is reported as
//! [`Error::CircularReference`]). The price is that first-time construction is serialized,
//! which for a DI container (each singleton is built once) is the right trade.
//!
//! Constructors and methods must not panic; a panic unwinds through the container and leaves
//! it usable (the lock is released, nothing is cached).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::thread::{self, ThreadId};

use indexmap::IndexMap;
use serde::Deserialize;

use crate::error::{Error, Missing};
use crate::plan::{CallTarget, Expr, Lifespan, Plan, ServiceKind, ServicePlan, FORMAT, VERSION};
use crate::registry::Registry;
use crate::value::{Args, BoxError, Instance, Value};

/// Options for loading a plan; start with [`Container::builder`].
///
/// ```no_run
/// # use wireplan_runtime::{Container, Registry};
/// # let registry = Registry::new();
/// let container = Container::builder(&registry)
///     .parameter("tempDir", "/var/tmp/app")
///     .load("app.plan.json")?;
/// # Ok::<(), wireplan_runtime::Error>(())
/// ```
pub struct ContainerBuilder<'r> {
    registry: &'r Registry,
    dynamic: HashMap<String, Value>,
    read_env: bool,
}

impl<'r> ContainerBuilder<'r> {
    /// Sets the dynamic parameter `name`, read by `{"$param": name}`. A value given here also
    /// wins over the environment for `env.X` names.
    pub fn parameter(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.dynamic.insert(name.to_string(), value.into());
        self
    }

    /// Whether `{"$param": "env.X"}` may read the environment variable `X` (default `true`).
    pub fn read_environment(mut self, yes: bool) -> Self {
        self.read_env = yes;
        self
    }

    /// Reads and loads a JSON plan file. Errors name the file.
    pub fn load(self, path: impl AsRef<Path>) -> Result<Container, Error> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|cause| Error::Io {
            origin: origin.clone(),
            cause,
        })?;
        self.from_json_str_named(&text, &origin)
    }

    /// Loads a JSON plan from a string; errors call it `<string>`.
    pub fn from_json_str(self, json: &str) -> Result<Container, Error> {
        self.from_json_str_named(json, "<string>")
    }

    /// Loads a JSON plan from a string; errors call it `origin` (e.g. the file it came from).
    pub fn from_json_str_named(self, json: &str, origin: &str) -> Result<Container, Error> {
        let plan = parse_plan(json, origin)?;
        self.build(plan, origin)
    }

    /// Uses a plan already in memory; errors call it `<plan>`.
    pub fn from_plan(self, plan: Plan) -> Result<Container, Error> {
        self.build(plan, "<plan>")
    }

    fn build(self, plan: Plan, origin: &str) -> Result<Container, Error> {
        let bad = |reason: String| Error::BadPlan {
            origin: origin.to_string(),
            reason,
        };
        if plan.format != FORMAT {
            return Err(bad(format!(
                "format is '{}', expected '{FORMAT}' (not a wireplan plan)",
                plan.format
            )));
        }
        if plan.version != VERSION {
            return Err(Error::VersionMismatch {
                origin: origin.to_string(),
                found: plan.version.into(),
                expected: VERSION,
            });
        }
        let mut check = Checker::new(&plan, self.registry);
        check.run();
        let tags = check.tag_values();
        if !check.problems.is_empty() {
            let list: String = check
                .problems
                .iter()
                .map(|p| format!("\n  - {p}"))
                .collect();
            return Err(bad(format!("{} problem(s):{list}", check.problems.len())));
        }
        if !check.missing.is_empty() {
            return Err(Error::MissingRegistrations {
                origin: origin.to_string(),
                missing: check.missing,
            });
        }
        let slots = plan.services.keys().map(|_| OnceLock::new()).collect();
        Ok(Container {
            registry: self.registry.clone(),
            origin: origin.to_string(),
            slots,
            tags,
            dynamic: self.dynamic,
            read_env: self.read_env,
            build_lock: BuildLock::default(),
            plan,
        })
    }
}

#[derive(Deserialize)]
struct Header {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

/// Checks `format` and `version` before the full parse, so an old or foreign file gets a
/// clear message instead of a field error.
fn parse_plan(json: &str, origin: &str) -> Result<Plan, Error> {
    let bad = |reason: String| Error::BadPlan {
        origin: origin.to_string(),
        reason,
    };
    let header: Header =
        serde_json::from_str(json).map_err(|e| bad(format!("not a JSON plan object: {e}")))?;
    match header.format.as_ref().and_then(|f| f.as_str()) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(bad(format!(
                "format is '{other}', expected '{FORMAT}' (not a wireplan plan)"
            )))
        }
        None => {
            return Err(bad(format!(
                "no \"format\": \"{FORMAT}\" field (not a wireplan plan)"
            )))
        }
    }
    match header.version.as_ref().and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(found) => {
            return Err(Error::VersionMismatch {
                origin: origin.to_string(),
                found,
                expected: VERSION,
            })
        }
        None => return Err(bad("\"version\" is missing or not an integer".into())),
    }
    serde_json::from_str(json).map_err(|e| bad(e.to_string()))
}

/// A loaded plan: creates services on first use and hands them out as `Arc<T>`.
///
/// `T` is either the concrete type of the service (`get::<Db>("db")`) or a trait object its
/// class registered with [`implements`](crate::ClassBuilder::implements)
/// (`get::<dyn Logger>("logger")`); both return the same shared object.
///
/// See the [module docs](self) for creation order, caching and threads.
pub struct Container {
    plan: Plan,
    origin: String,
    registry: Registry,
    slots: Vec<OnceLock<Instance>>,
    tags: IndexMap<String, Vec<(String, Value)>>,
    dynamic: HashMap<String, Value>,
    read_env: bool,
    build_lock: BuildLock,
}

impl std::fmt::Debug for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Container")
            .field("origin", &self.origin)
            .field("services", &self.plan.services.len())
            .field(
                "created",
                &self.slots.iter().filter(|s| s.get().is_some()).count(),
            )
            .finish()
    }
}

/// Where an expression is evaluated: which service is being created, and `@self` in setups.
struct Scope<'a> {
    service: &'a str,
    this: Option<&'a Instance>,
}

impl Container {
    /// Options (dynamic parameters, environment) for loading a plan with `registry`.
    pub fn builder(registry: &Registry) -> ContainerBuilder<'_> {
        ContainerBuilder {
            registry,
            dynamic: HashMap::new(),
            read_env: true,
        }
    }

    /// Reads a JSON plan file and checks it against `registry`.
    ///
    /// Errors: [`Error::Io`], [`Error::BadPlan`] (not JSON, wrong `format`, inconsistent
    /// references; every problem listed), [`Error::VersionMismatch`],
    /// [`Error::MissingRegistrations`] (every gap listed). No service is created here.
    pub fn load(path: impl AsRef<Path>, registry: &Registry) -> Result<Container, Error> {
        Container::builder(registry).load(path)
    }

    /// Like [`Container::load`], from a JSON string.
    pub fn from_json_str(json: &str, registry: &Registry) -> Result<Container, Error> {
        Container::builder(registry).from_json_str(json)
    }

    /// Like [`Container::load`], from a plan in memory.
    pub fn from_plan(plan: Plan, registry: &Registry) -> Result<Container, Error> {
        Container::builder(registry).from_plan(plan)
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The file the plan came from, or `<string>` / `<plan>`.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether a service or alias `name` exists.
    pub fn has(&self, name: &str) -> bool {
        self.plan.services.contains_key(self.canonical(name))
    }

    /// Whether the service `name` was already created.
    pub fn is_created(&self, name: &str) -> bool {
        self.plan
            .services
            .get_index_of(self.canonical(name))
            .is_some_and(|i| self.slots[i].get().is_some())
    }

    /// Service names, in definition order.
    pub fn service_names(&self) -> impl Iterator<Item = &str> {
        self.plan.services.keys().map(String::as_str)
    }

    /// The service `name` (or an alias of it) as `Arc<T>`, creating it on first use.
    ///
    /// Errors: [`Error::UnknownService`]; [`Error::WrongType`] when the object is neither a `T`
    /// nor castable to it; [`Error::CircularReference`], [`Error::ConstructorFailed`] and
    /// [`Error::Unsupported`] from creating it or its dependencies.
    pub fn get<T: ?Sized + 'static>(&self, name: &str) -> Result<Arc<T>, Error> {
        let inst = self.get_instance(name)?;
        self.registry.cast::<T>(&inst).ok_or_else(|| {
            let service = self.canonical(name).to_string();
            let class = self
                .plan
                .services
                .get(&service)
                .map(|s| s.type_.clone())
                .unwrap_or_default();
            Error::WrongType {
                service,
                class,
                rust_type: inst.type_name(),
                requested: std::any::type_name::<T>(),
            }
        })
    }

    /// The service `name` as an erased [`Instance`], creating it on first use.
    pub fn get_instance(&self, name: &str) -> Result<Instance, Error> {
        self.resolve(name, &mut Vec::new())
    }

    /// The service autowired for the Rust type `T`: `T`'s catalog name (from
    /// [`Registry::class`] or [`implements`](crate::ClassBuilder::implements)) is looked up
    /// in the plan's `types` index.
    ///
    /// Errors: [`Error::UnregisteredType`], then as [`Container::get_by_type_name`].
    pub fn get_by_type<T: ?Sized + 'static>(&self) -> Result<Arc<T>, Error> {
        let name = self
            .registry
            .catalog_name_of::<T>()
            .ok_or(Error::UnregisteredType {
                rust_type: std::any::type_name::<T>(),
            })?;
        self.get_by_type_name::<T>(name)
    }

    /// The service autowired for the catalog type `type_name`, as `Arc<T>`.
    ///
    /// Errors: [`Error::NoServiceOfType`], [`Error::AmbiguousType`] (more than one service is
    /// autowired for the type), then as [`Container::get`].
    pub fn get_by_type_name<T: ?Sized + 'static>(&self, type_name: &str) -> Result<Arc<T>, Error> {
        match self.find_by_type(type_name) {
            [] => Err(Error::NoServiceOfType {
                type_name: type_name.to_string(),
            }),
            [one] => self.get::<T>(one),
            many => Err(Error::AmbiguousType {
                type_name: type_name.to_string(),
                services: many.to_vec(),
            }),
        }
    }

    /// Names of the services autowired for the catalog type `type_name` (empty if none).
    pub fn find_by_type(&self, type_name: &str) -> &[String] {
        self.plan
            .types
            .get(type_name)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Services with the tag `tag`: (service name, tag value), in the plan's order. Nothing
    /// is created.
    pub fn find_by_tag(&self, tag: &str) -> Vec<(&str, &Value)> {
        self.tags
            .get(tag)
            .map(|v| v.iter().map(|(n, v)| (n.as_str(), v)).collect())
            .unwrap_or_default()
    }

    /// A parameter: a static one from the plan (`"db"`, or a dotted path into it: `"db.host"`),
    /// else a dynamic one given to [`ContainerBuilder::parameter`], else `env.X` from the
    /// environment.
    ///
    /// Errors: [`Error::UnknownParameter`].
    pub fn parameter(&self, name: &str) -> Result<Value, Error> {
        let scope = Scope {
            service: "parameters",
            this: None,
        };
        if let Some(e) = self.plan.parameters.get(name) {
            return self.eval(e, &scope, &mut Vec::new());
        }
        let mut dots = name.match_indices('.').map(|(i, _)| i).collect::<Vec<_>>();
        dots.reverse();
        for i in dots {
            if let Some(e) = self.plan.parameters.get(&name[..i]) {
                let mut v = self.eval(e, &scope, &mut Vec::new())?;
                for key in name[i + 1..].split('.') {
                    v = match v {
                        Value::Map(mut m) => m.swap_remove(key),
                        _ => None,
                    }
                    .ok_or_else(|| Error::UnknownParameter {
                        name: name.to_string(),
                    })?;
                }
                return Ok(v);
            }
        }
        self.dynamic_param(name)
            .ok_or_else(|| Error::UnknownParameter {
                name: name.to_string(),
            })
    }

    /// Runs the plan's `initialization` statements, in order. Errors as in
    /// [`Container::get`], with the service named `initialization`.
    pub fn initialize(&self) -> Result<(), Error> {
        let scope = Scope {
            service: "initialization",
            this: None,
        };
        for e in &self.plan.initialization {
            self.eval(e, &scope, &mut Vec::new())?;
        }
        Ok(())
    }

    // ----------------------------------------------------------------------------------
    // resolution

    fn canonical<'a>(&'a self, name: &'a str) -> &'a str {
        let mut n = name;
        // Bounded: a cycle of aliases cannot hang the lookup.
        for _ in 0..=self.plan.aliases.len() {
            match self.plan.aliases.get(n) {
                Some(target) if !self.plan.services.contains_key(n) => n = target,
                _ => break,
            }
        }
        n
    }

    fn resolve(&self, name: &str, path: &mut Vec<String>) -> Result<Instance, Error> {
        let target = self.canonical(name);
        let Some((idx, key, sp)) = self.plan.services.get_full(target) else {
            return Err(Error::UnknownService {
                name: name.to_string(),
            });
        };
        if let Some(inst) = self.slots[idx].get() {
            return Ok(inst.clone());
        }
        if let Some(start) = path.iter().position(|p| p == key) {
            let mut cycle = path[start..].to_vec();
            cycle.push(key.clone());
            return Err(Error::CircularReference { path: cycle });
        }
        if sp.kind != ServiceKind::Service {
            return Err(Error::Unsupported {
                service: key.clone(),
                what: format!("service kind '{}'", kind_name(sp.kind)),
            });
        }
        if sp.lifespan != Lifespan::Singleton {
            return Err(Error::Unsupported {
                service: key.clone(),
                what: format!("lifespan '{}'", lifespan_name(sp.lifespan)),
            });
        }
        let _guard = self.build_lock.lock();
        if let Some(inst) = self.slots[idx].get() {
            return Ok(inst.clone());
        }
        path.push(key.clone());
        let created = self.create(key, sp, path);
        path.pop();
        let inst = created?;
        // We hold the build lock and the slot was empty, so this sets it.
        let _ = self.slots[idx].set(inst.clone());
        Ok(inst)
    }

    fn create(
        &self,
        name: &str,
        sp: &ServicePlan,
        path: &mut Vec<String>,
    ) -> Result<Instance, Error> {
        let scope = Scope {
            service: name,
            this: None,
        };
        let mut inst = match self.eval(&sp.create, &scope, path)? {
            Value::Service(i) => i,
            other => {
                return Err(self.fail(
                    name,
                    path,
                    "create",
                    format!("produced {}, not an object", other.kind()),
                ))
            }
        };
        for (i, stmt) in sp.setup.iter().enumerate() {
            self.run_setup(stmt, i + 1, &mut inst, name, path)?;
        }
        Ok(inst)
    }

    fn class_label(&self, inst: &Instance) -> String {
        self.registry
            .class_name_of_instance(inst)
            .unwrap_or(inst.type_name())
            .to_string()
    }

    fn run_setup(
        &self,
        stmt: &Expr,
        index: usize,
        inst: &mut Instance,
        service: &str,
        path: &mut Vec<String>,
    ) -> Result<(), Error> {
        let (member, kind, raw_args) = match stmt {
            Expr::Call {
                target: CallTarget::SelfObject,
                method,
                args,
            } => (method, "method", SetupInput::Args(args)),
            Expr::Set {
                target: CallTarget::SelfObject,
                property,
                value,
            } => (property, "property", SetupInput::Value(value)),
            other => {
                let scope = Scope {
                    service,
                    this: Some(&*inst),
                };
                return self.eval(other, &scope, path).map(drop);
            }
        };
        let label = self.class_label(inst);
        let step = if kind == "method" {
            format!("setup #{index}: {label}::{member}()")
        } else {
            format!("setup #{index}: {label}::${member} = ...")
        };
        let values = {
            let scope = Scope {
                service,
                this: Some(&*inst),
            };
            match raw_args {
                SetupInput::Args(args) => self.eval_list(args, &scope, path)?,
                SetupInput::Value(v) => vec![self.eval(v, &scope, path)?],
            }
        };
        let args = Args::new(values, &self.registry);
        let entry = self.registry.type_entry(inst.type_id());
        let mut_fn = entry.and_then(|t| {
            if kind == "method" {
                t.methods_mut.get(member.as_str())
            } else {
                t.properties.get(member.as_str())
            }
        });
        if let Some(f) = mut_fn.cloned() {
            let Some(obj) = inst.object_mut() else {
                return Err(self.fail(
                    service,
                    path,
                    step,
                    "needs exclusive access (&mut) but the object is already shared: @self was \
                     passed to this or an earlier call that kept it; register it with .method() \
                     and interior mutability instead",
                ));
            };
            return f(obj, &args).map_err(|e| self.fail(service, path, step, e));
        }
        let shared_fn = entry
            .filter(|_| kind == "method")
            .and_then(|t| t.methods.get(member.as_str()));
        match shared_fn {
            Some(f) => f(&**inst.as_any(), &args)
                .map(drop)
                .map_err(|e| self.fail(service, path, step, e)),
            None => Err(self.fail(
                service,
                path,
                step,
                format!("{kind} not registered for Rust type {}", inst.type_name()),
            )),
        }
    }

    // ----------------------------------------------------------------------------------
    // evaluation

    fn fail(
        &self,
        service: &str,
        path: &[String],
        step: impl Into<String>,
        cause: impl Into<BoxError>,
    ) -> Error {
        let defined_at = self
            .plan
            .services
            .get(service)
            .and_then(|s| s.source.as_ref())
            .map(|l| format!("{}:{}:{}", l.file, l.line, l.column));
        Error::ConstructorFailed {
            service: service.to_string(),
            defined_at,
            path: path.to_vec(),
            step: step.into(),
            cause: cause.into(),
        }
    }

    fn eval_list(
        &self,
        items: &[Expr],
        scope: &Scope<'_>,
        path: &mut Vec<String>,
    ) -> Result<Vec<Value>, Error> {
        items.iter().map(|e| self.eval(e, scope, path)).collect()
    }

    fn eval(&self, e: &Expr, scope: &Scope<'_>, path: &mut Vec<String>) -> Result<Value, Error> {
        Ok(match e {
            Expr::Null => Value::Null,
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Int(i) => Value::Int(*i),
            Expr::Float(f) => Value::Float(*f),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::List(items) => Value::List(self.eval_list(items, scope, path)?),
            Expr::Map(m) => {
                let mut out = IndexMap::with_capacity(m.len());
                for (k, v) in m {
                    out.insert(k.clone(), self.eval(v, scope, path)?);
                }
                Value::Map(out)
            }
            Expr::Ref(name) if name == "@self" => match scope.this {
                Some(i) => Value::Service(i.clone()),
                None => return Err(self.fail(scope.service, path, "@self", "only valid in setup")),
            },
            Expr::Ref(name) => Value::Service(self.resolve(name, path)?),
            Expr::New { class, args } => {
                let values = self.eval_list(args, scope, path)?;
                let step = || format!("constructor of {class}");
                let ctor = self
                    .registry
                    .classes
                    .get(class)
                    .and_then(|c| c.ctor.clone())
                    .ok_or_else(|| self.fail(scope.service, path, step(), "not registered"))?;
                let inst = ctor(&Args::new(values, &self.registry))
                    .map_err(|e| self.fail(scope.service, path, step(), e))?;
                Value::Service(inst)
            }
            Expr::Call {
                target,
                method,
                args,
            } => self.call(target, method, args, scope, path)?,
            Expr::Set { property, .. } => {
                return Err(self.fail(
                    scope.service,
                    path,
                    format!("${property} = ..."),
                    "a property write is only valid as a setup statement on @self",
                ))
            }
            Expr::Param(name) => self.dynamic_param(name).ok_or_else(|| {
                self.fail(
                    scope.service,
                    path,
                    format!("dynamic parameter '{name}'"),
                    "not set (pass it to ContainerBuilder::parameter, or set the environment \
                     variable for env.X)",
                )
            })?,
            Expr::Concat(parts) => {
                let mut s = String::new();
                for p in parts {
                    let v = self.eval(p, scope, path)?;
                    concat_into(&mut s, &v).map_err(|kind| {
                        self.fail(
                            scope.service,
                            path,
                            "$concat",
                            format!("cannot put {kind} into a string"),
                        )
                    })?;
                }
                Value::Str(s)
            }
            Expr::Arg(name) => {
                return Err(self.fail(
                    scope.service,
                    path,
                    format!("$arg '{name}'"),
                    "generated factories are not supported by this runtime yet",
                ))
            }
        })
    }

    fn call(
        &self,
        target: &CallTarget,
        method: &str,
        args: &[Expr],
        scope: &Scope<'_>,
        path: &mut Vec<String>,
    ) -> Result<Value, Error> {
        let inst = match target {
            CallTarget::Class(class) => {
                let values = self.eval_list(args, scope, path)?;
                let step = || format!("{class}::{method}()");
                let f = self
                    .registry
                    .classes
                    .get(class)
                    .and_then(|c| c.statics.get(method).cloned())
                    .ok_or_else(|| {
                        self.fail(scope.service, path, step(), "static method not registered")
                    })?;
                return f(&Args::new(values, &self.registry))
                    .map_err(|e| self.fail(scope.service, path, step(), e));
            }
            CallTarget::SelfObject => match scope.this {
                Some(i) => i.clone(),
                None => {
                    return Err(self.fail(
                        scope.service,
                        path,
                        format!("@self::{method}()"),
                        "@self is only valid in setup",
                    ))
                }
            },
            CallTarget::Expr(e) => match self.eval(e, scope, path)? {
                Value::Service(i) => i,
                other => {
                    return Err(self.fail(
                        scope.service,
                        path,
                        format!("{method}()"),
                        format!("cannot call a method on {}", other.kind()),
                    ))
                }
            },
        };
        let values = self.eval_list(args, scope, path)?;
        let step = format!("{}::{method}()", self.class_label(&inst));
        let entry = self.registry.type_entry(inst.type_id());
        let Some(f) = entry.and_then(|t| t.methods.get(method)).cloned() else {
            let why = if entry.is_some_and(|t| t.methods_mut.contains_key(method)) {
                "registered with method_mut (needs &mut), which only setup calls on @self can use"
            } else {
                "method not registered"
            };
            return Err(self.fail(scope.service, path, step, why));
        };
        f(&**inst.as_any(), &Args::new(values, &self.registry))
            .map_err(|e| self.fail(scope.service, path, step, e))
    }

    fn dynamic_param(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.dynamic.get(name) {
            return Some(v.clone());
        }
        let var = name.strip_prefix("env.").filter(|_| self.read_env)?;
        std::env::var(var).ok().map(Value::Str)
    }
}

/// The inputs of a setup statement on `@self`: a call's arguments or a written value.
enum SetupInput<'a> {
    Args(&'a [Expr]),
    Value(&'a Expr),
}

/// PHP-like string conversion for `$concat`: null → "", true → "1", false → "".
fn concat_into(out: &mut String, v: &Value) -> Result<(), String> {
    match v {
        Value::Null | Value::Bool(false) => {}
        Value::Bool(true) => out.push('1'),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&f.to_string()),
        Value::Str(s) => out.push_str(s),
        other => return Err(other.kind()),
    }
    Ok(())
}

fn kind_name(k: ServiceKind) -> &'static str {
    match k {
        ServiceKind::Service => "service",
        ServiceKind::Factory => "factory",
        ServiceKind::Accessor => "accessor",
        ServiceKind::Locator => "locator",
        ServiceKind::Imported => "imported",
    }
}

fn lifespan_name(l: Lifespan) -> &'static str {
    match l {
        Lifespan::Singleton => "singleton",
        Lifespan::Scoped => "scoped",
        Lifespan::Transient => "transient",
    }
}

// --------------------------------------------------------------------------------------
// the build lock

/// A re-entrant lock: the thread that holds it may take it again (nested construction of
/// dependencies); other threads wait.
#[derive(Default)]
struct BuildLock {
    state: Mutex<(Option<ThreadId>, usize)>,
    released: Condvar,
}

struct BuildGuard<'a>(&'a BuildLock);

impl BuildLock {
    fn lock(&self) -> BuildGuard<'_> {
        let me = thread::current().id();
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match st.0 {
                None => {
                    *st = (Some(me), 1);
                    break;
                }
                Some(owner) if owner == me => {
                    st.1 += 1;
                    break;
                }
                Some(_) => {
                    st = self
                        .released
                        .wait(st)
                        .unwrap_or_else(PoisonError::into_inner)
                }
            }
        }
        BuildGuard(self)
    }
}

impl Drop for BuildGuard<'_> {
    fn drop(&mut self) {
        let mut st = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.1 = st.1.saturating_sub(1);
        if st.1 == 0 {
            st.0 = None;
            drop(st);
            self.0.released.notify_all();
        }
    }
}

// --------------------------------------------------------------------------------------
// load-time checks

/// Walks the whole plan once, collecting every inconsistency (`problems`) and every missing
/// registration (`missing`), so both can be reported at once.
struct Checker<'a> {
    plan: &'a Plan,
    registry: &'a Registry,
    problems: Vec<String>,
    missing: Vec<Missing>,
    seen: HashSet<String>,
}

impl<'a> Checker<'a> {
    fn new(plan: &'a Plan, registry: &'a Registry) -> Checker<'a> {
        Checker {
            plan,
            registry,
            problems: Vec::new(),
            missing: Vec::new(),
            seen: HashSet::new(),
        }
    }

    fn miss(&mut self, m: Missing) {
        if self.seen.insert(m.to_string()) {
            self.missing.push(m);
        }
    }

    fn exists(&self, name: &str) -> bool {
        self.plan.services.contains_key(name) || self.plan.aliases.contains_key(name)
    }

    /// The registered class a service's object will have, when the plan says so statically.
    fn static_class(&self, name: &str) -> Option<&'a str> {
        let sp = self.plan.services.get(name)?;
        match &sp.create {
            Expr::New { class, .. } => Some(class.as_str()),
            _ if self.registry.has_class(&sp.type_) => Some(sp.type_.as_str()),
            _ => None,
        }
    }

    fn run(&mut self) {
        let plan = self.plan;
        for (name, sp) in &plan.services {
            let here = format!("service '{name}'");
            let factory = sp.kind == ServiceKind::Factory;
            self.walk(&sp.create, &format!("{here} (create)"), None, factory);
            let class = self.static_class(name);
            for (i, stmt) in sp.setup.iter().enumerate() {
                let at = format!("{here} (setup #{})", i + 1);
                match stmt {
                    Expr::Call {
                        target: CallTarget::SelfObject,
                        method,
                        args,
                    } => {
                        self.check_method(class, method, true, &at);
                        for a in args {
                            self.walk(a, &at, Some(class), factory);
                        }
                    }
                    Expr::Set {
                        target: CallTarget::SelfObject,
                        property,
                        value,
                    } => {
                        self.check_property(class, property, &at);
                        self.walk(value, &at, Some(class), factory);
                    }
                    other => self.walk(other, &at, Some(class), factory),
                }
            }
            for r in sp.references.values() {
                self.walk(r, &format!("{here} (references)"), None, false);
            }
            self.check_casts(name, sp, class);
        }
        for (alias, target) in &plan.aliases {
            if !plan.services.contains_key(target.as_str()) {
                self.problems.push(format!(
                    "alias '{alias}' points to unknown service '{target}'"
                ));
            }
        }
        for (ty, names) in &plan.types {
            for n in names {
                if !plan.services.contains_key(n.as_str()) {
                    self.problems
                        .push(format!("types index: {ty} lists unknown service '{n}'"));
                }
            }
        }
        for (i, e) in plan.initialization.iter().enumerate() {
            self.walk(e, &format!("initialization #{}", i + 1), None, false);
        }
        for (p, e) in &plan.parameters {
            self.walk(e, &format!("parameter '{p}'"), None, false);
        }
    }

    /// `this`: `None` outside setups (`@self` is an error); `Some(class)` inside.
    fn walk(&mut self, e: &Expr, at: &str, this: Option<Option<&'a str>>, factory: bool) {
        match e {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Float(_) | Expr::Str(_) => {}
            Expr::Param(_) => {}
            Expr::List(items) | Expr::Concat(items) => {
                for x in items {
                    self.walk(x, at, this, factory);
                }
            }
            Expr::Map(m) => {
                for x in m.values() {
                    self.walk(x, at, this, factory);
                }
            }
            Expr::Ref(name) if name == "@self" => {
                if this.is_none() {
                    self.problems.push(format!("{at}: @self outside setup"));
                }
            }
            Expr::Ref(name) => {
                if !self.exists(name) {
                    self.problems
                        .push(format!("{at}: reference to unknown service '{name}'"));
                }
            }
            Expr::Arg(name) => {
                if !factory {
                    self.problems
                        .push(format!("{at}: $arg '{name}' outside a factory"));
                }
            }
            Expr::New { class, args } => {
                match self.registry.classes.get(class) {
                    None => self.miss(Missing::Class {
                        class: class.clone(),
                        needed_by: at.to_string(),
                    }),
                    Some(c) if c.ctor.is_none() => self.miss(Missing::Constructor {
                        class: class.clone(),
                        needed_by: at.to_string(),
                    }),
                    Some(_) => {}
                }
                for a in args {
                    self.walk(a, at, this, factory);
                }
            }
            Expr::Call {
                target,
                method,
                args,
            } => {
                match target {
                    CallTarget::Class(class) => match self.registry.classes.get(class) {
                        None => self.miss(Missing::Class {
                            class: class.clone(),
                            needed_by: at.to_string(),
                        }),
                        Some(c) if !c.statics.contains_key(method) => {
                            self.miss(Missing::StaticMethod {
                                class: class.clone(),
                                method: method.clone(),
                                needed_by: at.to_string(),
                            })
                        }
                        Some(_) => {}
                    },
                    CallTarget::SelfObject => match this {
                        None => self.problems.push(format!("{at}: @self outside setup")),
                        Some(class) => self.check_method(class, method, false, at),
                    },
                    CallTarget::Expr(inner) => {
                        self.walk(inner, at, this, factory);
                        if let Expr::Ref(s) = &**inner {
                            if s != "@self" {
                                let class = self.static_class(s);
                                self.check_method(class, method, false, at);
                            }
                        }
                    }
                }
                for a in args {
                    self.walk(a, at, this, factory);
                }
            }
            Expr::Set {
                target,
                property,
                value,
            } => {
                match target {
                    CallTarget::SelfObject if this.is_some() => {
                        self.check_property(this.flatten(), property, at)
                    }
                    _ => self.problems.push(format!(
                        "{at}: property write ${property} is only supported as a setup \
                         statement on @self"
                    )),
                }
                self.walk(value, at, this, factory);
            }
        }
    }

    fn members(&self, class: &str) -> Option<&'a crate::registry::TypeEntry> {
        let c = self.registry.classes.get(class)?;
        self.registry.type_entry(c.type_id)
    }

    fn check_method(&mut self, class: Option<&str>, method: &str, allow_mut: bool, at: &str) {
        let Some(class) = class.filter(|c| self.registry.has_class(c)) else {
            return; // unknown class: reported where it is created, or checked at run time
        };
        let ok = self.members(class).is_some_and(|t| {
            t.methods.contains_key(method) || (allow_mut && t.methods_mut.contains_key(method))
        });
        if !ok {
            self.miss(Missing::Method {
                class: class.to_string(),
                method: method.to_string(),
                needed_by: at.to_string(),
            });
        }
    }

    fn check_property(&mut self, class: Option<&str>, property: &str, at: &str) {
        let Some(class) = class.filter(|c| self.registry.has_class(c)) else {
            return;
        };
        if !self
            .members(class)
            .is_some_and(|t| t.properties.contains_key(property))
        {
            self.miss(Missing::Property {
                class: class.to_string(),
                property: property.to_string(),
                needed_by: at.to_string(),
            });
        }
    }

    /// Every registered interface the plan autowires this service as (or declares as its
    /// type) needs a caster from its class. Type names the registry does not know as
    /// interfaces are not checked: Rust code cannot ask for them.
    fn check_casts(&mut self, name: &str, sp: &ServicePlan, class: Option<&str>) {
        let Some(class) = class.filter(|c| self.registry.has_class(c)) else {
            return;
        };
        let plan = self.plan;
        let mut wanted: Vec<&str> = plan
            .types
            .iter()
            .filter(|(_, names)| names.iter().any(|n| n == name))
            .map(|(t, _)| t.as_str())
            .collect();
        if !wanted.contains(&sp.type_.as_str()) {
            wanted.push(&sp.type_);
        }
        for iface in wanted {
            if iface != class
                && self.registry.has_interface(iface)
                && !self.registry.implements(class, iface)
            {
                self.miss(Missing::Cast {
                    class: class.to_string(),
                    interface: iface.to_string(),
                    needed_by: format!("service '{name}'"),
                });
            }
        }
    }

    /// The tag index with plain values; anything else is a problem.
    fn tag_values(&mut self) -> IndexMap<String, Vec<(String, Value)>> {
        let plan = self.plan;
        let mut out = IndexMap::new();
        for (tag, entries) in &plan.tags {
            let mut list = Vec::new();
            for (service, e) in entries {
                if !plan.services.contains_key(service.as_str()) {
                    self.problems
                        .push(format!("tag '{tag}' lists unknown service '{service}'"));
                    continue;
                }
                match plain_value(e) {
                    Some(v) => list.push((service.clone(), v)),
                    None => self.problems.push(format!(
                        "tag '{tag}' of service '{service}': the value must be plain data"
                    )),
                }
            }
            out.insert(tag.clone(), list);
        }
        out
    }
}

/// A value without services, parameters or calls.
fn plain_value(e: &Expr) -> Option<Value> {
    Some(match e {
        Expr::Null => Value::Null,
        Expr::Bool(b) => Value::Bool(*b),
        Expr::Int(i) => Value::Int(*i),
        Expr::Float(f) => Value::Float(*f),
        Expr::Str(s) => Value::Str(s.clone()),
        Expr::List(items) => Value::List(items.iter().map(plain_value).collect::<Option<_>>()?),
        Expr::Map(m) => Value::Map(
            m.iter()
                .map(|(k, v)| Some((k.clone(), plain_value(v)?)))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}
