//! Resolution: lifespans, caching and single-flight construction, and the evaluation of plan
//! expressions.

use std::cell::Cell;
use std::sync::{Arc, OnceLock, PoisonError};

use indexmap::IndexMap;

use super::{Inner, ScopeState};
use crate::error::Error;
use crate::generated;
use crate::plan::{CallTarget, Expr, Lifespan, ServiceKind};
use crate::value::{Args, BoxError, Callable, Instance, Value};

/// How deep transients may nest within one thread before it is called a cycle (a transient
/// has no cache that could reveal a cycle through user code).
const MAX_TRANSIENT_DEPTH: usize = 256;

thread_local! {
    static TRANSIENT_DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Where a resolution happens: in which scope (none for the container itself and for
/// everything a singleton needs), and with which `create()` arguments (inside a factory).
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub(crate) scope: Option<&'a Arc<ScopeState>>,
    pub(crate) args: Option<&'a [(String, Value)]>,
}

impl Ctx<'_> {
    /// The container itself.
    pub(crate) const ROOT: Ctx<'static> = Ctx {
        scope: None,
        args: None,
    };
}

/// Where an expression is evaluated: which service is being created (by name, for messages),
/// `@self` in setups, and the context.
struct Frame<'a> {
    service: &'a str,
    this: Option<&'a Instance>,
    ctx: Ctx<'a>,
}

/// The inputs of a setup statement on `@self`: a call's arguments or a written value.
enum SetupInput<'a> {
    Args(&'a [Expr]),
    Value(&'a Expr),
}

impl Inner {
    // ----------------------------------------------------------------------------------
    // public entry points (Container and Scope delegate here)

    /// The service index of `name` after following aliases.
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.plan.services.get_index_of(self.canonical(name))
    }

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

    pub(crate) fn get_instance(
        &self,
        name: &str,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Instance, Error> {
        let idx = self.index_of(name).ok_or_else(|| Error::UnknownService {
            name: name.to_string(),
        })?;
        let ctx = Ctx { scope, args: None };
        self.resolve_index(idx, ctx, &mut Vec::new())
    }

    pub(crate) fn get<T: ?Sized + 'static>(
        &self,
        name: &str,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        let idx = self.index_of(name).ok_or_else(|| Error::UnknownService {
            name: name.to_string(),
        })?;
        self.get_index(idx, scope)
    }

    pub(crate) fn get_index<T: ?Sized + 'static>(
        &self,
        idx: usize,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        // The fast path skips generated services asked for in a scope: see `resolve_index`.
        let inst = match self.slots[idx].get() {
            Some(i) if scope.is_none() || self.plan.services[idx].kind == ServiceKind::Service => {
                i.clone()
            }
            _ => self.resolve_index(idx, Ctx { scope, args: None }, &mut Vec::new())?,
        };
        self.cast(idx, &inst)
    }

    pub(crate) fn cast<T: ?Sized + 'static>(
        &self,
        idx: usize,
        inst: &Instance,
    ) -> Result<Arc<T>, Error> {
        self.registry.cast::<T>(inst).ok_or_else(|| {
            let (service, sp) = self
                .plan
                .services
                .get_index(idx)
                .map(|(n, s)| (n.clone(), s.type_.clone()))
                .unwrap_or_default();
            Error::WrongType {
                service,
                class: sp,
                rust_type: inst.type_name(),
                requested: std::any::type_name::<T>(),
            }
        })
    }

    pub(crate) fn get_by_type<T: ?Sized + 'static>(
        &self,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        if let Some(&idx) = self.by_type.get(&std::any::TypeId::of::<T>()) {
            return self.get_index(idx, scope);
        }
        let name = self
            .registry
            .catalog_name_of::<T>()
            .ok_or(Error::UnregisteredType {
                rust_type: std::any::type_name::<T>(),
            })?;
        self.get_by_type_name::<T>(name, scope)
    }

    pub(crate) fn get_by_type_name<T: ?Sized + 'static>(
        &self,
        type_name: &str,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        match self.find_by_type(type_name) {
            [] => Err(Error::NoServiceOfType {
                type_name: type_name.to_string(),
            }),
            [one] => self.get::<T>(one, scope),
            many => Err(Error::AmbiguousType {
                type_name: type_name.to_string(),
                services: many.to_vec(),
            }),
        }
    }

    pub(crate) fn find_by_type(&self, type_name: &str) -> &[String] {
        self.plan
            .types
            .get(type_name)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub(crate) fn parameter(&self, name: &str) -> Result<Value, Error> {
        // A value given at load (or from the environment) wins over the plan's value, which
        // for a dynamic parameter is only its configured default.
        if let Some(v) = self.given_param(name) {
            return Ok(v);
        }
        self.static_param(name)
    }

    /// A parameter's value from the plan (static parameters, and the configured defaults of
    /// dynamic ones), walking dotted names into maps.
    fn static_param(&self, name: &str) -> Result<Value, Error> {
        let frame = Frame {
            service: "parameters",
            this: None,
            ctx: Ctx::ROOT,
        };
        if let Some(e) = self.plan.parameters.get(name) {
            return self.eval(e, &frame, &mut Vec::new());
        }
        let mut dots = name.match_indices('.').map(|(i, _)| i).collect::<Vec<_>>();
        dots.reverse();
        for i in dots {
            if let Some(e) = self.plan.parameters.get(&name[..i]) {
                let mut v = self.eval(e, &frame, &mut Vec::new())?;
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
        Err(Error::UnknownParameter {
            name: name.to_string(),
        })
    }

    pub(crate) fn initialize(&self) -> Result<(), Error> {
        let frame = Frame {
            service: "initialization",
            this: None,
            ctx: Ctx::ROOT,
        };
        for e in &self.plan.initialization {
            self.eval(e, &frame, &mut Vec::new())?;
        }
        Ok(())
    }

    /// Evaluates `e` as the generated service `service` would (for accessors and locators).
    pub(crate) fn eval_in(
        &self,
        service: usize,
        e: &Expr,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Value, Error> {
        let name = self.name_of(service);
        let frame = Frame {
            service: name,
            this: None,
            ctx: Ctx { scope, args: None },
        };
        self.eval(e, &frame, &mut Vec::new())
    }

    /// Creates a new object from a factory service's `create` and `setup` with the
    /// `create()` arguments `args`.
    pub(crate) fn create_with_args(
        &self,
        service: usize,
        args: &[(String, Value)],
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Instance, Error> {
        let ctx = Ctx {
            scope,
            args: Some(args),
        };
        let mut path = vec![service];
        self.create_service(service, ctx, &mut path)
    }

    /// A new object of service `idx`, whatever its lifespan, not cached (Nette's
    /// `createService`; a locator's `create`). Its dependencies resolve as usual, in `scope`.
    pub(crate) fn create_new(
        &self,
        idx: usize,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Instance, Error> {
        if self.plan.services[idx].kind == ServiceKind::Imported {
            return Err(Error::BadArguments {
                service: self.name_of(idx).to_string(),
                reason: "an imported service cannot be created anew".into(),
            });
        }
        let mut path = vec![idx];
        self.create_service(idx, Ctx { scope, args: None }, &mut path)
    }

    // ----------------------------------------------------------------------------------
    // lifespans and caching

    pub(crate) fn name_of(&self, idx: usize) -> &str {
        self.plan
            .services
            .get_index(idx)
            .map(|(n, _)| n.as_str())
            .unwrap_or("?")
    }

    fn names(&self, path: &[usize]) -> Vec<String> {
        path.iter().map(|&i| self.name_of(i).to_string()).collect()
    }

    fn cycle(&self, from: &[usize], repeated: usize) -> Error {
        let mut path = self.names(from);
        path.push(self.name_of(repeated).to_string());
        Error::CircularReference { path }
    }

    /// The instance of service `idx` for a request in `ctx`, created if its lifespan says so.
    pub(crate) fn resolve_index(
        &self,
        idx: usize,
        ctx: Ctx<'_>,
        path: &mut Vec<usize>,
    ) -> Result<Instance, Error> {
        // A factory, accessor or locator asked for inside a scope is a fresh handle bound to
        // that scope (handles are cheap), so it can reach the scope's services; the cached
        // container-wide one has no scope.
        if ctx.scope.is_some() && ctx.args.is_none() {
            match self.plan.services[idx].kind {
                ServiceKind::Factory => return Ok(generated::factory(self, idx, ctx.scope)),
                ServiceKind::Accessor => return Ok(generated::accessor(self, idx, ctx.scope)),
                ServiceKind::Locator => return Ok(generated::locator(self, idx, ctx.scope)),
                _ => {}
            }
        }
        if let Some(inst) = self.slots[idx].get() {
            return Ok(inst.clone());
        }
        if let Some(start) = path.iter().position(|&p| p == idx) {
            return Err(self.cycle(&path[start..], idx));
        }
        let sp = &self.plan.services[idx];
        if sp.kind == ServiceKind::Imported {
            // Checked at load; only reachable through a plan edited in memory.
            return Err(Error::UnknownService {
                name: self.name_of(idx).to_string(),
            });
        }
        match sp.lifespan {
            Lifespan::Singleton => {
                self.cached(idx, &self.slots[idx], &self.lock, None, Ctx::ROOT, path)
            }
            Lifespan::Scoped => {
                let (Some(scope), Some(slot)) = (ctx.scope, self.scoped_slot[idx]) else {
                    let mut p = self.names(path);
                    p.push(self.name_of(idx).to_string());
                    return Err(Error::ScopeRequired { path: p });
                };
                let slot = slot as usize;
                if let Some(inst) = scope.find(slot) {
                    return Ok(inst.clone());
                }
                let inner = Ctx {
                    scope: Some(scope),
                    args: None,
                };
                self.cached(
                    idx,
                    &scope.slots[slot],
                    &scope.lock,
                    Some(scope),
                    inner,
                    path,
                )
            }
            Lifespan::Transient => {
                let depth = TRANSIENT_DEPTH.with(|d| {
                    d.set(d.get() + 1);
                    d.get()
                });
                let result = if depth > MAX_TRANSIENT_DEPTH {
                    Err(self.cycle(path, idx))
                } else {
                    path.push(idx);
                    let r = self.create_service(
                        idx,
                        Ctx {
                            scope: ctx.scope,
                            args: None,
                        },
                        path,
                    );
                    path.pop();
                    r
                };
                TRANSIENT_DEPTH.with(|d| d.set(d.get() - 1));
                result
            }
        }
    }

    /// Single-flight construction of a cached (singleton or scoped) instance.
    fn cached(
        &self,
        idx: usize,
        slot: &OnceLock<Instance>,
        lock: &super::lock::BuildLock,
        scope: Option<&Arc<ScopeState>>,
        ctx: Ctx<'_>,
        path: &mut Vec<usize>,
    ) -> Result<Instance, Error> {
        let guard = lock.lock();
        if let Some(inst) = slot.get() {
            return Ok(inst.clone());
        }
        if let Err(building) = guard.enter(idx) {
            return Err(self.cycle(&building, idx));
        }
        path.push(idx);
        let created = self.create_service(idx, ctx, path);
        path.pop();
        guard.leave(idx);
        let inst = created?;
        // We hold the lock and the slot was empty, so this sets it.
        let _ = slot.set(inst.clone());
        let order = match scope {
            Some(s) => &s.created,
            None => &self.created,
        };
        order
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(idx);
        Ok(inst)
    }

    /// Creates the object of service `idx`: a generated factory, accessor or locator, or the
    /// result of `create` with the `setup` statements run on it.
    fn create_service(
        &self,
        idx: usize,
        ctx: Ctx<'_>,
        path: &mut Vec<usize>,
    ) -> Result<Instance, Error> {
        let (name, sp) =
            self.plan
                .services
                .get_index(idx)
                .ok_or_else(|| Error::UnknownService {
                    name: idx.to_string(),
                })?;
        match sp.kind {
            ServiceKind::Factory if ctx.args.is_none() => {
                return Ok(generated::factory(self, idx, ctx.scope))
            }
            ServiceKind::Accessor => return Ok(generated::accessor(self, idx, ctx.scope)),
            ServiceKind::Locator => return Ok(generated::locator(self, idx, ctx.scope)),
            _ => {}
        }
        let frame = Frame {
            service: name,
            this: None,
            ctx,
        };
        let mut inst = match self.eval(&sp.create, &frame, path)? {
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
            self.run_setup(stmt, i + 1, &mut inst, &frame, path)?;
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
        outer: &Frame<'_>,
        path: &mut Vec<usize>,
    ) -> Result<(), Error> {
        let service = outer.service;
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
                let frame = Frame {
                    service,
                    this: Some(&*inst),
                    ctx: outer.ctx,
                };
                return self.eval(other, &frame, path).map(drop);
            }
        };
        let label = self.class_label(inst);
        let step = if kind == "method" {
            format!("setup #{index}: {label}::{member}()")
        } else {
            format!("setup #{index}: {label}::${member} = ...")
        };
        let values = {
            let frame = Frame {
                service,
                this: Some(&*inst),
                ctx: outer.ctx,
            };
            match raw_args {
                SetupInput::Args(args) => self.eval_list(args, &frame, path)?,
                SetupInput::Value(v) => vec![self.eval(v, &frame, path)?],
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
        path: &[usize],
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
            path: self.names(path),
            step: step.into(),
            cause: cause.into(),
        }
    }

    fn eval_list(
        &self,
        items: &[Expr],
        frame: &Frame<'_>,
        path: &mut Vec<usize>,
    ) -> Result<Vec<Value>, Error> {
        items.iter().map(|e| self.eval(e, frame, path)).collect()
    }

    fn eval(&self, e: &Expr, frame: &Frame<'_>, path: &mut Vec<usize>) -> Result<Value, Error> {
        Ok(match e {
            Expr::Null => Value::Null,
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Int(i) => Value::Int(*i),
            Expr::Float(f) => Value::Float(*f),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::List(items) => Value::List(self.eval_list(items, frame, path)?),
            Expr::Map(m) => {
                let mut out = IndexMap::with_capacity(m.len());
                for (k, v) in m {
                    out.insert(k.clone(), self.eval(v, frame, path)?);
                }
                Value::Map(out)
            }
            Expr::Ref(name) if name == "@self" => match frame.this {
                Some(i) => Value::Service(i.clone()),
                None => return Err(self.fail(frame.service, path, "@self", "only valid in setup")),
            },
            Expr::Ref(name) => {
                let idx = self.index_of(name).ok_or_else(|| Error::UnknownService {
                    name: name.to_string(),
                })?;
                let ctx = Ctx {
                    scope: frame.ctx.scope,
                    args: None,
                };
                Value::Service(self.resolve_index(idx, ctx, path)?)
            }
            Expr::New { class, args } => {
                let values = self.eval_list(args, frame, path)?;
                let step = || format!("constructor of {class}");
                let ctor = self
                    .registry
                    .classes
                    .get(class)
                    .and_then(|c| c.ctor.clone())
                    .ok_or_else(|| self.fail(frame.service, path, step(), "not registered"))?;
                let inst = ctor(&Args::new(values, &self.registry))
                    .map_err(|e| self.fail(frame.service, path, step(), e))?;
                Value::Service(inst)
            }
            Expr::Call {
                target,
                method,
                args,
            } => self.call(target, method, args, frame, path)?,
            Expr::Set { property, .. } => {
                return Err(self.fail(
                    frame.service,
                    path,
                    format!("${property} = ..."),
                    "a property write is only valid as a setup statement on @self",
                ))
            }
            Expr::Get { target, property } => {
                let inst = self.target_object(target, &format!("${property}"), frame, path)?;
                let step = format!("{}::${property}", self.class_label(&inst));
                let entry = self.registry.type_entry(inst.type_id());
                let Some(g) = entry.and_then(|t| t.getters.get(property.as_str())) else {
                    return Err(self.fail(frame.service, path, step, "getter not registered"));
                };
                g(&**inst.as_any()).map_err(|e| self.fail(frame.service, path, step, e))?
            }
            Expr::Callable { target, method } => self.callable(target, method, frame, path)?,
            Expr::Func { name, arg } => {
                let v = self.eval(arg, frame, path)?;
                crate::convert::convert(name, &v)
                    .map_err(|e| self.fail(frame.service, path, format!("{name}()"), e))?
            }
            Expr::Param(name) => self.dynamic_param(name).ok_or_else(|| {
                self.fail(
                    frame.service,
                    path,
                    format!("dynamic parameter '{name}'"),
                    "not set (pass it to ContainerBuilder::parameter, or set the environment \
                     variable for env.X)",
                )
            })?,
            Expr::Concat(parts) => {
                let mut s = String::new();
                for p in parts {
                    let v = self.eval(p, frame, path)?;
                    concat_into(&mut s, &v).map_err(|kind| {
                        self.fail(
                            frame.service,
                            path,
                            "$concat",
                            format!("cannot put {kind} into a string"),
                        )
                    })?;
                }
                Value::Str(s)
            }
            Expr::Arg(name) => {
                let found = frame
                    .ctx
                    .args
                    .and_then(|a| a.iter().find(|(n, _)| n == name));
                match found {
                    Some((_, v)) => v.clone(),
                    None => {
                        return Err(self.fail(
                            frame.service,
                            path,
                            format!("$arg '{name}'"),
                            "not passed to the factory's create()",
                        ))
                    }
                }
            }
        })
    }

    fn call(
        &self,
        target: &CallTarget,
        method: &str,
        args: &[Expr],
        frame: &Frame<'_>,
        path: &mut Vec<usize>,
    ) -> Result<Value, Error> {
        let inst = match target {
            CallTarget::Class(class) => {
                let values = self.eval_list(args, frame, path)?;
                let step = || format!("{class}::{method}()");
                let f = self
                    .registry
                    .classes
                    .get(class)
                    .and_then(|c| c.statics.get(method).cloned())
                    .ok_or_else(|| {
                        self.fail(frame.service, path, step(), "static method not registered")
                    })?;
                return f(&Args::new(values, &self.registry))
                    .map_err(|e| self.fail(frame.service, path, step(), e));
            }
            CallTarget::SelfObject => match frame.this {
                Some(i) => i.clone(),
                None => {
                    return Err(self.fail(
                        frame.service,
                        path,
                        format!("@self::{method}()"),
                        "@self is only valid in setup",
                    ))
                }
            },
            CallTarget::Expr(e) => match self.eval(e, frame, path)? {
                Value::Service(i) => i,
                other => {
                    return Err(self.fail(
                        frame.service,
                        path,
                        format!("{method}()"),
                        format!("cannot call a method on {}", other.kind()),
                    ))
                }
            },
        };
        let values = self.eval_list(args, frame, path)?;
        if generated::is_generated(&inst) {
            return generated::call(&inst, method, values);
        }
        let step = format!("{}::{method}()", self.class_label(&inst));
        let entry = self.registry.type_entry(inst.type_id());
        let Some(f) = entry.and_then(|t| t.methods.get(method)).cloned() else {
            if let Some(f) = self.static_of_instance(&inst, method) {
                return f(&Args::new(values, &self.registry))
                    .map_err(|e| self.fail(frame.service, path, step, e));
            }
            let why = if entry.is_some_and(|t| t.methods_mut.contains_key(method)) {
                "registered with method_mut (needs &mut), which only setup calls on @self can use"
            } else {
                "method not registered"
            };
            return Err(self.fail(frame.service, path, step, why));
        };
        f(&**inst.as_any(), &Args::new(values, &self.registry))
            .map_err(|e| self.fail(frame.service, path, step, e))
    }

    /// A static method of the instance's registered class: PHP lets `$obj->m()` call a static
    /// `m` (a chain such as `App\B::make()::make()`), so a `$call` on an object falls back to it.
    fn static_of_instance(
        &self,
        inst: &Instance,
        method: &str,
    ) -> Option<crate::registry::StaticFn> {
        let class = self.registry.class_name_of_instance(inst)?;
        self.registry
            .classes
            .get(class)?
            .statics
            .get(method)
            .cloned()
    }

    /// The object a `$get` or `$callable` works on: `@self` or the value of an expression,
    /// which must be a service.
    fn target_object(
        &self,
        target: &CallTarget,
        member: &str,
        frame: &Frame<'_>,
        path: &mut Vec<usize>,
    ) -> Result<Instance, Error> {
        match target {
            CallTarget::SelfObject => frame.this.cloned().ok_or_else(|| {
                self.fail(
                    frame.service,
                    path,
                    format!("@self::{member}"),
                    "@self is only valid in setup",
                )
            }),
            CallTarget::Expr(e) => match self.eval(e, frame, path)? {
                Value::Service(i) => Ok(i),
                other => Err(self.fail(
                    frame.service,
                    path,
                    member.to_string(),
                    format!("{} has no members", other.kind()),
                )),
            },
            CallTarget::Class(class) => Err(self.fail(
                frame.service,
                path,
                format!("{class}::{member}"),
                "static properties are not supported",
            )),
        }
    }

    /// A `$callable`: a static method, or a method bound to its (already created) object.
    fn callable(
        &self,
        target: &CallTarget,
        method: &str,
        frame: &Frame<'_>,
        path: &mut Vec<usize>,
    ) -> Result<Value, Error> {
        let registry = self.registry.clone();
        if let CallTarget::Class(class) = target {
            let name = format!("{class}::{method}");
            let f = self
                .registry
                .classes
                .get(class)
                .and_then(|c| c.statics.get(method).cloned())
                .ok_or_else(|| {
                    self.fail(
                        frame.service,
                        path,
                        name.clone(),
                        "static method not registered",
                    )
                })?;
            return Ok(Value::Callable(Callable::new(name, move |values| {
                f(&Args::new(values, &registry))
            })));
        }
        let inst = self.target_object(target, &format!("{method}(...)"), frame, path)?;
        if let Some(bound) = generated::bind(&inst, method) {
            return bound.map(Value::Callable);
        }
        let name = format!("{}::{method}", self.class_label(&inst));
        let entry = self.registry.type_entry(inst.type_id());
        let Some(f) = entry.and_then(|t| t.methods.get(method)).cloned() else {
            if let Some(f) = self.static_of_instance(&inst, method) {
                return Ok(Value::Callable(Callable::new(name, move |values| {
                    f(&Args::new(values, &registry))
                })));
            }
            return Err(self.fail(frame.service, path, name, "method not registered"));
        };
        Ok(Value::Callable(Callable::new(name, move |values| {
            f(&**inst.as_any(), &Args::new(values, &registry))
        })))
    }

    /// A dynamic parameter: given at load, from the environment (`env.X`), or else the
    /// configured default the plan keeps under `parameters`.
    fn dynamic_param(&self, name: &str) -> Option<Value> {
        self.given_param(name)
            .or_else(|| self.static_param(name).ok())
    }

    fn given_param(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.dynamic.get(name) {
            return Some(v.clone());
        }
        let var = name.strip_prefix("env.").filter(|_| self.read_env)?;
        std::env::var(var).ok().map(Value::Str)
    }
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
