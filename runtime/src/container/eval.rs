//! Evaluation of plan expressions: a service's `create` and `setup` statements, `$call`,
//! `$get`, `$callable`, `$func`, `$concat`, factory `$arg`s, and parameters (static from the
//! plan, dynamic from start-up or `env.X`); plus the `ConstructorFailed` error every failing
//! step reports.

use std::sync::Arc;

use indexmap::IndexMap;

use super::resolve::{Ctx, Path};
use super::{Inner, ScopeState};
use crate::error::Error;
use crate::generated;
use crate::plan::{CallTarget, Expr};
use crate::value::{name_param, Args, BoxError, Callable, Instance, Value};

/// Where an expression is evaluated: whose evaluation it is (for messages), `@self` in
/// setups, and the context.
pub(super) struct Frame<'a> {
    pub(super) service: Owner<'a>,
    pub(super) this: Option<&'a Instance>,
    pub(super) ctx: Ctx<'a>,
}

/// Whose evaluation a [`Frame`] is, as [`Inner::fail`] names it: a service by index (its
/// name is looked up only when an error is built, not for every object created), or a
/// pseudo-service such as `parameters` or `initialization`.
#[derive(Clone, Copy)]
pub(super) enum Owner<'a> {
    /// The service of this index.
    Service(usize),
    /// A name of its own.
    Named(&'a str),
}

impl<'a> From<&'a str> for Owner<'a> {
    fn from(name: &'a str) -> Owner<'a> {
        Owner::Named(name)
    }
}

impl<'a> Frame<'a> {
    /// The frame for creating service `service` in `ctx` (no `@self` yet).
    pub(super) fn new(service: usize, ctx: Ctx<'a>) -> Self {
        Frame {
            service: Owner::Service(service),
            this: None,
            ctx,
        }
    }
}

impl Frame<'_> {
    /// The value passed to the factory's `create()` as `name`, if it was.
    fn arg(&self, name: &str) -> Option<&Value> {
        let args = self.ctx.args?;
        args.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl Inner {
    // ----------------------------------------------------------------------------------
    // parameters (`Container::parameter` delegates here; `$param` reads them too)

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
            service: Owner::Named("parameters"),
            this: None,
            ctx: Ctx::ROOT,
        };
        if let Some(e) = self.parameters().get(name) {
            return self.eval(e, &frame, &mut Path::new());
        }
        let mut dots = name.match_indices('.').map(|(i, _)| i).collect::<Vec<_>>();
        dots.reverse();
        for i in dots {
            if let Some(e) = self.parameters().get(&name[..i]) {
                let mut v = self.eval(e, &frame, &mut Path::new())?;
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

    /// A dynamic parameter: given at load, from the environment (`env.X`), or else the
    /// configured default the plan keeps under `parameters`.
    fn dynamic_param(&self, name: &str) -> Option<Value> {
        self.given_param(name).or_else(|| {
            // A dotted dynamic parameter (`database.password`) stands in its parent's map as
            // `{"$param": name}` itself: that is no default, and reading it would recurse.
            if self.reads_itself(name) {
                return None;
            }
            self.static_param(name).ok()
        })
    }

    /// Whether the plan's value for the dotted parameter `name` is `{"$param": name}`.
    fn reads_itself(&self, name: &str) -> bool {
        for (i, _) in name.match_indices('.') {
            let Some(mut e) = self.parameters().get(&name[..i]) else {
                continue;
            };
            for key in name[i + 1..].split('.') {
                match e {
                    Expr::Map(m) => match m.get(key) {
                        Some(inner) => e = inner,
                        None => return false,
                    },
                    _ => return false,
                }
            }
            return matches!(e, Expr::Param(n) if n == name);
        }
        false
    }

    fn given_param(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.dynamic.get(name) {
            return Some(v.clone());
        }
        let var = name.strip_prefix("env.").filter(|_| self.read_env)?;
        std::env::var(var).ok().map(Value::Str)
    }

    // ----------------------------------------------------------------------------------
    // evaluation outside a service's own creation: `initialization`, generated services

    pub(crate) fn initialize(&self) -> Result<(), Error> {
        let frame = Frame {
            service: Owner::Named("initialization"),
            this: None,
            ctx: Ctx::ROOT,
        };
        if !self.has_initialization {
            return Ok(());
        }
        for e in &self.plan().initialization {
            self.eval(e, &frame, &mut Path::new())?;
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
        let frame = Frame {
            service: Owner::Service(service),
            this: None,
            ctx: Ctx { scope, args: None },
        };
        self.eval(e, &frame, &mut Path::new())
    }

    // ----------------------------------------------------------------------------------
    // setup statements

    // ----------------------------------------------------------------------------------
    // evaluation

    /// Where the plan says service `name` was defined (`file:line:column`), if it says.
    pub(super) fn defined_at(&self, name: &str) -> Option<String> {
        crate::dynamic::defined_at(self.plan(), name)
    }

    /// The [`Error::ScopeRequired`] for the scoped service at the end of `path` (names).
    #[cold]
    #[inline(never)]
    pub(super) fn scope_required(&self, path: Vec<String>) -> Error {
        let defined_at = path.last().and_then(|n| self.defined_at(n));
        Error::ScopeRequired { path, defined_at }
    }

    /// The [`Error::AsyncRequired`] for the async service at the end of `path` (names).
    #[cold]
    #[inline(never)]
    pub(super) fn async_required(&self, path: Vec<String>) -> Error {
        let defined_at = path.last().and_then(|n| self.defined_at(n));
        let factory = path
            .first()
            .and_then(|n| self.index_of(n))
            .is_some_and(|i| self.plan().services[i].kind == crate::plan::ServiceKind::Factory);
        Error::AsyncRequired {
            path,
            defined_at,
            factory,
        }
    }

    /// The [`Error::ConstructorFailed`] for `step` of creating `service`, reached through
    /// `path`. (Cold: only failures build it, and keeping it out of line keeps the creation
    /// path's frames small.)
    #[cold]
    #[inline(never)]
    pub(super) fn fail<'o>(
        &self,
        service: impl Into<Owner<'o>>,
        path: &[usize],
        step: impl Into<String>,
        cause: impl Into<BoxError>,
    ) -> Error {
        let cause = cause.into();
        // A cycle or a chain too deep that a constructor ran into (a provider or factory
        // resolved inside it, reaching the service being created again) passes through as
        // it is: wrapped at every level, a transient cycle through a provider gave one error
        // nesting 128 "cannot create service" messages under `constructor-failed` (a new
        // user's trial).
        let cause = match cause.downcast::<Error>() {
            Ok(e) if matches!(*e, Error::CircularReference { .. } | Error::TooDeep { .. }) => {
                return *e
            }
            Ok(e) => e as BoxError,
            Err(other) => other,
        };
        let service = self.owner_name(service.into());
        let defined_at = self.defined_at(service);
        Error::ConstructorFailed {
            service: service.to_string(),
            factory_product: false,
            defined_at,
            path: self.names(path),
            step: step.into(),
            cause,
        }
    }

    /// The name an error gives `owner`: its service's name, or its own.
    fn owner_name<'o>(&'o self, owner: Owner<'o>) -> &'o str {
        match owner {
            Owner::Service(idx) => self.name_of(idx),
            Owner::Named(name) => name,
        }
    }

    pub(super) fn class_label(&self, inst: &Instance) -> String {
        self.registry
            .class_name_of_instance(inst)
            .unwrap_or(inst.type_name())
            .to_string()
    }

    fn eval_list(
        &self,
        items: &[Expr],
        frame: &Frame<'_>,
        path: &mut Path,
    ) -> Result<Vec<Value>, Error> {
        items.iter().map(|e| self.eval(e, frame, path)).collect()
    }

    /// The value of `e`, on a new stack segment when the current one is nearly used up (an
    /// expression may create services, which evaluate expressions in turn). Leaves do not
    /// recurse (a `$ref` grows the stack in `resolve_index` when it creates a service), so they
    /// skip the stack check: they are most of what a plan evaluates.
    pub(super) fn eval(
        &self,
        e: &Expr,
        frame: &Frame<'_>,
        path: &mut Path,
    ) -> Result<Value, Error> {
        if e.is_leaf() {
            return self.eval_here(e, frame, path);
        }
        stacker::maybe_grow(
            super::resolve::RED_ZONE,
            super::resolve::STACK_SEGMENT,
            || self.eval_here(e, frame, path),
        )
    }

    fn eval_here(&self, e: &Expr, frame: &Frame<'_>, path: &mut Path) -> Result<Value, Error> {
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
                    hint: None,
                })?;
                let ctx = Ctx {
                    scope: frame.ctx.scope,
                    args: None,
                };
                Value::Service(self.resolve_index(idx, ctx, path)?)
            }
            Expr::New { class, args } => {
                // Made by its async constructor before this sync part of `get_async` ran.
                if let Some(inst) = super::async_resolve::take_prepared(e as *const Expr as usize) {
                    return Ok(Value::Service(inst));
                }
                let entry = self.registry.t.classes.get(class.as_str());
                if entry.is_some_and(|c| c.ctor.is_none() && c.async_ctor.is_some()) {
                    return Err(self.async_required(self.names(path)));
                }
                let values = self.eval_list(args, frame, path)?;
                let step = || format!("constructor of {class}");
                let ctor = entry
                    .and_then(|c| c.ctor.as_ref())
                    .ok_or_else(|| self.fail(frame.service, path, step(), "not registered"))?;
                let inst = ctor(&Args::new(values, &self.registry)).map_err(|e| {
                    // Looked up only on failure: the success path reads no signature.
                    let params = entry.and_then(|c| c.more().ctor_sig.as_deref());
                    self.fail(frame.service, path, step(), name_param(e, params))
                })?;
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
                crate::convert::convert(name, &v).map_err(|e| {
                    // A dynamic parameter's value (a password, a key) never goes into a message.
                    let e = match dynamic_source(arg) {
                        Some(param) => format!(
                            "cannot convert the value of dynamic parameter '{param}' to {name} \
                             (the value is not shown)"
                        ),
                        None => e,
                    };
                    self.fail(frame.service, path, format!("{name}()"), e)
                })?
            }
            Expr::Provider(name) => {
                let idx = self.index_of(name).ok_or_else(|| Error::UnknownService {
                    name: name.to_string(),
                    hint: None,
                })?;
                Value::Service(crate::provider::handle(self, idx, frame.ctx.scope))
            }
            Expr::Param(name) => self.dynamic_param(name).ok_or_else(|| {
                // `env.NAME` reads the environment variable NAME; other names only come from
                // `ContainerBuilder::parameter`.
                let how = match name.strip_prefix("env.") {
                    Some(var) => format!(
                        "not set (set the environment variable {var}, or pass it to \
                         ContainerBuilder::parameter)"
                    ),
                    None => "not set (pass it to ContainerBuilder::parameter)".to_string(),
                };
                self.fail(
                    frame.service,
                    path,
                    format!("dynamic parameter '{name}'"),
                    how,
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
            Expr::Arg(name) => match frame.arg(name) {
                Some(v) => v.clone(),
                // The caller's arguments, not the product's construction, are at fault: the
                // same kind as an unknown or extra argument.
                None => return Err(arg_not_passed(self.owner_name(frame.service), name)),
            },
            Expr::ArgOr { name, default } => match frame.arg(name) {
                Some(v) => v.clone(),
                None => self.eval(default, frame, path)?,
            },
        })
    }

    fn call(
        &self,
        target: &CallTarget,
        method: &str,
        args: &[Expr],
        frame: &Frame<'_>,
        path: &mut Path,
    ) -> Result<Value, Error> {
        if let CallTarget::Class(class) = target {
            let values = self.eval_list(args, frame, path)?;
            let step = format!("{class}::{method}()");
            let f = self.static_method(class, method, frame, path, &step)?;
            return f(&Args::new(values, &self.registry)).map_err(|e| {
                let params = self.registry.t.classes.get(class.as_str()).and_then(|c| {
                    c.more()
                        .static_sigs
                        .get(method)
                        .map(|s| s.params.as_slice())
                });
                self.fail(frame.service, path, step, name_param(e, params))
            });
        }
        let inst = self.target_object(target, &format!("{method}()"), frame, path)?;
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
        f(&**inst.as_any(), &Args::new(values, &self.registry)).map_err(|e| {
            let params = entry
                .and_then(|t| t.method_sigs.get(method))
                .map(|s| s.params.as_slice());
            self.fail(frame.service, path, step, name_param(e, params))
        })
    }

    /// The static method `class::method`, or the error for `step` when it is not registered.
    fn static_method(
        &self,
        class: &str,
        method: &str,
        frame: &Frame<'_>,
        path: &[usize],
        step: &str,
    ) -> Result<crate::registry::StaticFn, Error> {
        self.registry
            .t
            .classes
            .get(class)
            .and_then(|c| c.more().statics.get(method).cloned())
            .ok_or_else(|| {
                self.fail(
                    frame.service,
                    path,
                    step.to_string(),
                    "static method not registered",
                )
            })
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
            .t
            .classes
            .get(class)?
            .more()
            .statics
            .get(method)
            .cloned()
    }

    /// The object a `$call`, `$get` or `$callable` works on: `@self` or the value of an
    /// expression, which must be a service.
    fn target_object(
        &self,
        target: &CallTarget,
        member: &str,
        frame: &Frame<'_>,
        path: &mut Path,
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
        path: &mut Path,
    ) -> Result<Value, Error> {
        let registry = self.registry.clone();
        if let CallTarget::Class(class) = target {
            let name = format!("{class}::{method}");
            let f = self.static_method(class, method, frame, path, &name)?;
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
}

/// PHP-like string conversion for `$concat`: null → "", true → "1", false → "".
/// The error for a factory's `create()` that did not pass `$arg` `name`, which has no
/// default, of the factory `service`: the caller's arguments are at fault (the same kind as
/// an unknown or extra argument).
pub(super) fn arg_not_passed(service: &str, name: &str) -> Error {
    Error::BadArguments {
        service: service.to_string(),
        reason: format!(
            "create(): parameter '{name}' was not passed, and the plan gives no default for it"
        ),
    }
}

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

/// The dynamic parameter an expression's value comes from, if any (`{"$param": …}` itself, or a
/// `$concat` or `$func` built from one).
fn dynamic_source(e: &Expr) -> Option<&str> {
    match e {
        Expr::Param(name) => Some(name),
        Expr::Concat(parts) => parts.iter().find_map(dynamic_source),
        Expr::Func { arg, .. } => dynamic_source(arg),
        _ => None,
    }
}
