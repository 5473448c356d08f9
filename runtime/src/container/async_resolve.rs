//! Async creation: `get_async` / `get_by_type_async` on [`Container`] and [`Scope`], for
//! services the plan marks `requires_async` (Clean IoC 2's `resolve_async`).
//!
//! An async request runs in two parts, so the whole sync machinery (lifespans, scopes,
//! cycles, depth, setups, disposal order) is reused as it is:
//!
//! 1. **Prepare** (async): walk the service's `create` and `setup` expressions. A `$ref` to a
//!    service that requires async is prepared in turn (singletons and scoped services are
//!    created and published right there, under their single-flight gate); a `$new` of a class
//!    with an async constructor has its arguments evaluated (synchronously) and its future
//!    awaited, and the object is kept, by the address of that `$new` expression.
//! 2. **Complete** (sync): the ordinary sync creation runs with the prepared objects
//!    installed for this thread; evaluating a prepared `$new` takes its object instead of
//!    calling a constructor. Nothing is awaited while this part runs, so the thread-local
//!    state never crosses an `.await`.
//!
//! A transient that needs async is prepared once per reference to it, and each sync creation
//! takes one prepared object. The futures are `Send` and need no particular executor.
//!
//! Each async singleton (and each scoped service per scope) has a gate, an async mutex: the
//! first task creates, the others wait without blocking a thread; when the creation fails,
//! the tasks that were waiting get that failure ([`Error::ConstructorFailed`] naming the
//! service, with the first error's text) and the next request tries again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};

use super::eval::Frame;
use super::program::{Node, Setup};
use super::resolve::{Ctx, Path};
use super::{Container, Inner, Scope, ScopeState};
use crate::error::Error;
use crate::plan::{CallTarget, Expr, Lifespan, ServiceKind};
use crate::value::{name_param, Args, Instance, Value};

/// How many services deep one async request may prepare, as for sync creation
/// ([`super::MAX_RESOLUTION_DEPTH`]); deeper is [`Error::TooDeep`]. Each level nests a boxed
/// future and a poll walks them recursively, on new stack segments when the thread's stack
/// runs low, so any depth up to this works on an executor's worker thread.
pub const MAX_ASYNC_DEPTH: usize = super::MAX_RESOLUTION_DEPTH;

type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Polls the future it wraps on a new stack segment when little of the current one is left
/// (the futures of a deep dependency chain nest, and polling them recurses).
struct GrowStack<'a, T>(BoxFut<'a, T>);

impl<T> Future for GrowStack<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let inner = &mut self.get_mut().0;
        stacker::maybe_grow(
            super::resolve::RED_ZONE,
            super::resolve::STACK_SEGMENT,
            || inner.as_mut().poll(cx),
        )
    }
}

/// `fut`, boxed, polled on a grown stack when needed.
fn boxed<'a, T: 'a>(fut: impl Future<Output = T> + Send + 'a) -> BoxFut<'a, T> {
    Box::pin(GrowStack(Box::pin(fut)))
}

thread_local! {
    /// The services whose preparation is being polled on this thread right now, outermost
    /// first, each with its container (by address). A new request that starts inside one of
    /// those polls (a constructor awaiting `Provider::get_async`) is nested in that creation:
    /// it starts from this chain instead of an empty path, so a cycle back to a service being
    /// created is [`Error::CircularReference`] (a singleton's gate would otherwise wait for
    /// itself, and transients would make new objects until memory ran out), and the depth
    /// limit counts the whole nesting.
    static PREPARING: RefCell<Vec<(usize, usize)>> = const { RefCell::new(Vec::new()) };
}

/// A service's preparation, which marks itself in [`PREPARING`] while it is polled, and is
/// polled on a grown stack when needed (as [`GrowStack`]; one box around the future, not
/// two).
struct Preparing<'a, T> {
    key: (usize, usize),
    fut: BoxFut<'a, T>,
}

/// Takes the innermost [`PREPARING`] entry off on drop, also when a constructor panics.
struct PreparingGuard;

impl Drop for PreparingGuard {
    fn drop(&mut self) {
        PREPARING.with(|p| p.borrow_mut().pop());
    }
}

impl<T> Future for Preparing<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        PREPARING.with(|p| p.borrow_mut().push(this.key));
        let _guard = PreparingGuard;
        let fut = &mut this.fut;
        stacker::maybe_grow(
            super::resolve::RED_ZONE,
            super::resolve::STACK_SEGMENT,
            || fut.as_mut().poll(cx),
        )
    }
}

/// Objects made by async constructors, waiting for the sync part: per `$new` expression
/// (by address), in the order they were made.
#[derive(Default)]
struct Prepared {
    made: HashMap<usize, Vec<Instance>>,
}

thread_local! {
    /// The prepared objects of the sync parts running on this thread, innermost last.
    static TAIL: RefCell<Vec<Prepared>> = const { RefCell::new(Vec::new()) };
}

/// Pops [`TAIL`] on drop, also when a constructor panics.
struct TailGuard;

impl Drop for TailGuard {
    fn drop(&mut self) {
        TAIL.with(|t| t.borrow_mut().pop());
    }
}

/// Runs `f` (sync) with `prepared` installed as this thread's innermost tail, then puts what
/// was not taken back.
fn with_tail<R>(prepared: &mut Prepared, f: impl FnOnce() -> R) -> R {
    TAIL.with(|t| t.borrow_mut().push(std::mem::take(prepared)));
    let guard = TailGuard;
    let r = f();
    if let Some(left) = TAIL.with(|t| t.borrow_mut().pop()) {
        *prepared = left;
    }
    std::mem::forget(guard);
    r
}

/// Whether the sync part of an async request runs on this thread (so services marked
/// `requires_async` may be created).
pub(super) fn in_async_tail() -> bool {
    TAIL.with(|t| !t.borrow().is_empty())
}

/// The object an async constructor made for the `$new` whose key is `key` (the address of its
/// compiled [`NewOp`] or of its plan [`Expr`]), if one waits.
pub(super) fn take_prepared(key: usize) -> Option<Instance> {
    TAIL.with(|t| {
        let mut t = t.borrow_mut();
        let made = &mut t.last_mut()?.made;
        let list = made.get_mut(&key)?;
        let inst = list.pop();
        if list.is_empty() {
            made.remove(&key);
        }
        inst
    })
}

/// One single-flight gate per cached service (per singleton in a container, per scoped
/// service in a scope), allocated on the first async request.
#[derive(Default)]
pub(crate) struct Gates {
    gates: OnceLock<Box<[Gate]>>,
}

impl Gates {
    fn get(&self, i: usize, count: usize) -> Option<&Gate> {
        self.gates
            .get_or_init(|| (0..count).map(|_| Gate::default()).collect())
            .get(i)
    }
}

#[derive(Default)]
struct Gate {
    lock: async_lock::Mutex<()>,
    /// Failed creations so far; a waiter that sees it change got the failure.
    failures: AtomicU64,
    /// The text of the last failure, for the waiters.
    last: Mutex<String>,
}

impl Inner {
    /// The path of an [`Error::AsyncRequired`]: `path` (which ends with a service marked
    /// `requires_async`), continued through its dependencies that require async down to the
    /// one whose own constructor is async.
    pub(super) fn async_path(&self, path: &[usize]) -> Vec<String> {
        let mut out = path.to_vec();
        let mut at = path.last().copied();
        while let Some(i) = at {
            let sp = &self.plan().services[i];
            let mut next = None;
            let mut find = |n: &str| {
                if next.is_none() {
                    next = self.index_of(n).filter(|&j| {
                        let d = &self.program.services[j];
                        d.requires_async && d.kind == ServiceKind::Service && !out.contains(&j)
                    });
                }
            };
            sp.create.for_each_ref(&mut find);
            sp.setup.iter().for_each(|s| s.for_each_ref(&mut find));
            if let Some(j) = next {
                out.push(j);
            }
            at = next;
        }
        self.names(&out)
    }

    /// The service `idx`, created with async constructors where its plan needs them; in
    /// `scope` for scoped services. Services that need no async go the sync way.
    pub(crate) async fn instance_async(
        &self,
        idx: usize,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Instance, Error> {
        let ctx = Ctx { scope, args: None };
        if !self.program.services[idx].requires_async {
            return self.resolve_index(idx, ctx, &mut Path::new());
        }
        if let Some(inst) = self.slots[idx].get() {
            return Ok(inst.clone());
        }
        let mut prepared = Prepared::default();
        let mut path = self.preparing_here();
        self.prepare(idx, scope, &mut path, &mut prepared).await?;
        with_tail(&mut prepared, || {
            self.resolve_index(idx, ctx, &mut Path::new())
        })
    }

    /// A new product of the generated factory `service`, built with `args` (checked by the
    /// caller), its async constructors awaited: the async counterpart of
    /// [`Inner::create_with_args`], in two parts as `get_async` (see the module docs). The
    /// product is not cached; what it needs is, as for any request.
    pub(crate) async fn create_with_args_async(
        &self,
        service: usize,
        args: &[(String, Value)],
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Instance, Error> {
        // A parameter not passed fails before anything is made: the sync `create` meets it
        // before the dependencies after it, and the async preparation creates them all first
        // (a new user's trial saw a pool connect run, or fail, before the argument error).
        let sp = &self.plan().services[service];
        let mut missing = None;
        for stmt in std::iter::once(&sp.create).chain(&sp.setup) {
            first_missing_arg(stmt, args, &mut missing);
        }
        if let Some(name) = missing {
            return Err(super::eval::arg_not_passed(self.name_of(service), name));
        }
        let mut prepared = Prepared::default();
        let mut path = self.preparing_here();
        path.push(service);
        let ctx = Ctx {
            scope,
            args: Some(args),
        };
        self.prepare_parts(service, ctx, &mut path, &mut prepared)
            .await?;
        with_tail(&mut prepared, || {
            self.create_with_args(service, args, scope)
        })
    }

    /// The services of this container whose preparation this thread is polling (see
    /// [`PREPARING`]), outermost first: where a request made inside one of them starts.
    fn preparing_here(&self) -> Path {
        let me = self as *const Inner as usize;
        PREPARING.with(|p| {
            p.borrow()
                .iter()
                .filter(|(c, _)| *c == me)
                .map(|&(_, i)| i)
                .collect()
        })
    }

    /// Part 1 for service `idx` reached through `path` (see the module docs).
    fn prepare<'a>(
        &'a self,
        idx: usize,
        scope: Option<&'a Arc<ScopeState>>,
        path: &'a mut Path,
        out: &'a mut Prepared,
    ) -> BoxFut<'a, Result<(), Error>> {
        let key = (self as *const Inner as usize, idx);
        let fut = Box::pin(async move {
            let sp = &self.program.services[idx];
            if !sp.requires_async || sp.kind != ServiceKind::Service {
                return Ok(());
            }
            if self.slots[idx].get().is_some() {
                return Ok(());
            }
            if let Some(start) = path.iter().position(|&p| p == idx) {
                return Err(self.cycle(&path[start..], idx));
            }
            if path.len() >= MAX_ASYNC_DEPTH {
                let mut p = self.names(path);
                p.push(self.name_of(idx).to_string());
                return Err(Error::TooDeep {
                    path: p,
                    limit: MAX_ASYNC_DEPTH,
                });
            }
            match sp.lifespan {
                Lifespan::Singleton => {
                    let Some(gate) = self.gates.get(idx, self.slots.len()) else {
                        return Ok(());
                    };
                    self.prepare_cached(idx, None, gate, &self.slots[idx], path)
                        .await
                }
                Lifespan::Scoped => {
                    let (Some(scope), Some(slot)) = (scope, self.scoped_slot[idx]) else {
                        let mut p = self.names(path);
                        p.push(self.name_of(idx).to_string());
                        return Err(self.scope_required(p));
                    };
                    let slot = slot as usize;
                    if scope.find(slot).is_some() {
                        return Ok(());
                    }
                    let Some(gate) = scope.gates.get(slot, self.scoped_count) else {
                        return Ok(());
                    };
                    self.prepare_cached(idx, Some(scope), gate, &scope.slots[slot], path)
                        .await
                }
                Lifespan::Transient => {
                    path.push(idx);
                    let r = self
                        .prepare_parts(idx, Ctx { scope, args: None }, path, out)
                        .await;
                    path.pop();
                    r
                }
            }
        });
        Box::pin(Preparing { key, fut })
    }

    /// Single-flight async creation of a singleton or scoped service: prepare its parts,
    /// then create and publish it the sync way, all under its gate.
    async fn prepare_cached(
        &self,
        idx: usize,
        scope: Option<&Arc<ScopeState>>,
        gate: &Gate,
        slot: &(impl super::cell::CacheSlot + Sync),
        path: &mut Path,
    ) -> Result<(), Error> {
        let seen = gate.failures.load(Ordering::Acquire);
        let _held = gate.lock.lock().await;
        if slot.get().is_some() {
            return Ok(());
        }
        if gate.failures.load(Ordering::Acquire) != seen {
            let cause = gate
                .last
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            let mut names = path.clone();
            names.push(idx);
            return Err(self.fail(
                self.name_of(idx),
                &names,
                "waited for another task's creation of it, which failed",
                cause,
            ));
        }
        let mut own = Prepared::default();
        path.push(idx);
        let parts = self
            .prepare_parts(idx, Ctx { scope, args: None }, path, &mut own)
            .await;
        path.pop();
        let made = parts.and_then(|()| {
            let ctx = Ctx { scope, args: None };
            with_tail(&mut own, || self.resolve_index(idx, ctx, &mut path.clone()))
        });
        if let Err(e) = &made {
            // The waiters' errors name this service and their own paths: of a failure of
            // this very service they keep what failed, not its name and place again.
            let text = match e {
                Error::ConstructorFailed {
                    service,
                    factory_product: false,
                    step,
                    cause,
                    ..
                } if service.as_str() == self.name_of(idx) => format!("{step}: {cause}"),
                other => other.to_string(),
            };
            *gate.last.lock().unwrap_or_else(PoisonError::into_inner) = text;
            gate.failures.fetch_add(1, Ordering::AcqRel);
        }
        made.map(drop)
    }

    /// Prepares what creating service `idx` evaluates: its `create` and `setup`, in `ctx`
    /// (its scope, and a factory's `create()` arguments, which `$arg` reads). `path` ends
    /// with `idx`.
    async fn prepare_parts(
        &self,
        idx: usize,
        ctx: Ctx<'_>,
        path: &mut Path,
        out: &mut Prepared,
    ) -> Result<(), Error> {
        let Some(sp) = self.compiled(idx) else {
            return Ok(());
        };
        self.visit_node(idx, &sp.create, ctx, path, out).await?;
        for stmt in sp.setup.iter() {
            match stmt {
                Setup::Member { inputs, .. } => {
                    for n in self.program.args(*inputs) {
                        self.visit_node(idx, n, ctx, path, out).await?;
                    }
                }
                Setup::Other(e) => self.visit(idx, e, ctx, path, out).await?,
            }
        }
        Ok(())
    }

    /// Prepares the compiled node `node` of service `service` (see the module docs).
    fn visit_node<'a>(
        &'a self,
        service: usize,
        node: &'a Node,
        ctx: Ctx<'a>,
        path: &'a mut Path,
        out: &'a mut Prepared,
    ) -> BoxFut<'a, Result<(), Error>> {
        boxed(async move {
            match node {
                Node::Ref(target) => self.prepare(*target, ctx.scope, path, out).await?,
                Node::List(items) => {
                    for n in items.iter() {
                        self.visit_node(service, n, ctx, path, out).await?;
                    }
                }
                Node::New(id) => {
                    let op = self.program.new_op(*id);
                    for n in self.program.args(op.args) {
                        self.visit_node(service, n, ctx, path, out).await?;
                    }
                    let ctor = if op.has_async {
                        self.registry
                            .t
                            .classes
                            .get_index(op.class as usize)
                            .and_then(|(_, c)| c.async_ctor.clone())
                    } else {
                        None
                    };
                    if let Some(ctor) = ctor {
                        let name = self.name_of(service);
                        let step = || format!("async constructor of {}", self.class_name(op));
                        let values = with_tail(out, || {
                            let frame = Frame::new(service, ctx);
                            self.program
                                .args(op.args)
                                .iter()
                                .map(|a| self.run(a, &frame, path))
                                .collect::<Result<Vec<Value>, Error>>()
                        })?;
                        // The signature is read only on failure.
                        let fail = |c| {
                            self.fail(
                                name,
                                path,
                                step(),
                                name_param(c, self.ctor_params(op.class)),
                            )
                        };
                        let future = ctor(&Args::new(values, &self.registry)).map_err(fail)?;
                        let inst = future.await.map_err(fail)?;
                        out.made.entry(op.key()).or_default().push(inst);
                    }
                }
                Node::Tree(e) => self.visit(service, e, ctx, path, out).await?,
                // Providers resolve later; the rest holds no service.
                Node::Const(_) | Node::SelfObject | Node::Provider(_) => {}
            }
            Ok(())
        })
    }

    /// Prepares the expression `e` of service `service` (see the module docs).
    fn visit<'a>(
        &'a self,
        service: usize,
        e: &'a Expr,
        ctx: Ctx<'a>,
        path: &'a mut Path,
        out: &'a mut Prepared,
    ) -> BoxFut<'a, Result<(), Error>> {
        boxed(async move {
            match e {
                Expr::Ref(name) if name != "@self" => {
                    if let Some(target) = self.index_of(name) {
                        self.prepare(target, ctx.scope, path, out).await?;
                    }
                }
                Expr::New { class, args } => {
                    for a in args {
                        self.visit(service, a, ctx, path, out).await?;
                    }
                    let ctor = self
                        .registry
                        .t
                        .classes
                        .get(class.as_str())
                        .and_then(|c| c.async_ctor.clone());
                    if let Some(ctor) = ctor {
                        let name = self.name_of(service);
                        let step = || format!("async constructor of {class}");
                        let values = with_tail(out, || {
                            let frame = Frame::new(service, ctx);
                            args.iter()
                                .map(|a| self.eval(a, &frame, path))
                                .collect::<Result<Vec<Value>, Error>>()
                        })?;
                        let fail = |c| {
                            let params = self
                                .registry
                                .t
                                .classes
                                .get(class.as_str())
                                .and_then(|c| c.more().ctor_sig.as_deref());
                            self.fail(name, path, step(), name_param(c, params))
                        };
                        let future = ctor(&Args::new(values, &self.registry)).map_err(fail)?;
                        let inst = future.await.map_err(fail)?;
                        out.made
                            .entry(e as *const Expr as usize)
                            .or_default()
                            .push(inst);
                    }
                }
                Expr::Call { target, args, .. } => {
                    if let CallTarget::Expr(t) = target {
                        self.visit(service, t, ctx, path, out).await?;
                    }
                    for a in args {
                        self.visit(service, a, ctx, path, out).await?;
                    }
                }
                Expr::Set { target, value, .. } => {
                    if let CallTarget::Expr(t) = target {
                        self.visit(service, t, ctx, path, out).await?;
                    }
                    self.visit(service, value, ctx, path, out).await?;
                }
                Expr::Get { target, .. } | Expr::Callable { target, .. } => {
                    if let CallTarget::Expr(t) = target {
                        self.visit(service, t, ctx, path, out).await?;
                    }
                }
                Expr::Func { arg, .. } => self.visit(service, arg, ctx, path, out).await?,
                Expr::ArgOr { default, .. } => self.visit(service, default, ctx, path, out).await?,
                Expr::List(items) | Expr::Concat(items) => {
                    for a in items {
                        self.visit(service, a, ctx, path, out).await?;
                    }
                }
                Expr::Map(m) => {
                    for a in m.values() {
                        self.visit(service, a, ctx, path, out).await?;
                    }
                }
                // Providers resolve later; the rest holds no service.
                _ => {}
            }
            Ok(())
        })
    }

    async fn get_async<T: ?Sized + 'static>(
        &self,
        name: &str,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        let idx = self
            .index_of(name)
            .ok_or_else(|| self.unknown_service(name))?;
        let inst = self.instance_async(idx, scope).await?;
        self.cast_owned(idx, inst)
    }

    async fn get_by_type_async<T: ?Sized + 'static>(
        &self,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        let idx = match self.autowired_index::<T>()? {
            Ok(idx) => idx,
            // The sync lookup words the errors (none, several).
            Err(type_name) => return self.get_by_type_name::<T>(type_name, scope),
        };
        let inst = self.instance_async(idx, scope).await?;
        self.cast_owned(idx, inst)
    }
}

impl Container {
    /// The service `name` as `Arc<T>`, created on first use with the async constructors its
    /// plan needs (`requires_async`), on the caller's executor (any: the future is `Send` and
    /// needs no particular runtime). A service that needs no async is created the sync way.
    ///
    /// Each singleton is created once even when many tasks ask at once; the others wait
    /// without blocking a thread. A failure is returned to the tasks that waited for it, and
    /// the next request tries again.
    ///
    /// Errors: as [`Container::get`], plus the errors of async constructors (as
    /// [`Error::ConstructorFailed`], step `async constructor of App\Pool`).
    pub async fn get_async<T: ?Sized + 'static>(&self, name: &str) -> Result<Arc<T>, Error> {
        self.inner.get_async(name, None).await
    }

    /// Creates every singleton service now, in definition order, those that require async
    /// included (as [`Container::warm_up`] does for the others). Returns the number of
    /// services created by this call. Stops at the first error.
    pub async fn warm_up_async(&self) -> Result<usize, Error> {
        let mut made = 0;
        for (i, sp) in self.inner.program.services.iter().enumerate() {
            if sp.lifespan == Lifespan::Singleton
                && sp.kind == ServiceKind::Service
                && self.inner.slots[i].get().is_none()
            {
                self.inner.instance_async(i, None).await?;
                made += 1;
            }
        }
        Ok(made)
    }

    /// The service `name` as an erased [`Instance`]; see [`Container::get_async`].
    pub async fn get_instance_async(&self, name: &str) -> Result<Instance, Error> {
        let idx = self
            .inner
            .index_of(name)
            .ok_or_else(|| Error::UnknownService {
                name: name.to_string(),
                hint: None,
            })?;
        self.inner.instance_async(idx, None).await
    }

    /// The service autowired for the Rust type `T` (as [`Container::get_by_type`]), created
    /// as [`Container::get_async`] does.
    pub async fn get_by_type_async<T: ?Sized + 'static>(&self) -> Result<Arc<T>, Error> {
        self.inner.get_by_type_async(None).await
    }
}

impl Scope {
    /// The service `name`, created as [`Container::get_async`] does; scoped services in (or
    /// from) this scope.
    pub async fn get_async<T: ?Sized + 'static>(&self, name: &str) -> Result<Arc<T>, Error> {
        self.state.inner.get_async(name, Some(&self.state)).await
    }

    /// The service `name` as an erased [`Instance`]; see [`Scope::get_async`].
    pub async fn get_instance_async(&self, name: &str) -> Result<Instance, Error> {
        let inner = &self.state.inner;
        let idx = inner
            .index_of(name)
            .ok_or_else(|| inner.unknown_service(name))?;
        inner.instance_async(idx, Some(&self.state)).await
    }

    /// The service autowired for the Rust type `T`, created as [`Scope::get_async`] does.
    pub async fn get_by_type_async<T: ?Sized + 'static>(&self) -> Result<Arc<T>, Error> {
        self.state.inner.get_by_type_async(Some(&self.state)).await
    }
}

/// The first `$arg` of `e` (depth first, in order) that `args` does not give and that has no
/// default, into `found` (left as it is when already set). A default is looked into only
/// when its own argument is not given, as evaluating it would.
fn first_missing_arg<'e>(e: &'e Expr, args: &[(String, Value)], found: &mut Option<&'e str>) {
    let given = |name: &str| args.iter().any(|(n, _)| n == name);
    if found.is_some() {
        return;
    }
    match e {
        Expr::Arg(name) if !given(name) => *found = Some(name),
        Expr::Arg(_) => {}
        Expr::ArgOr { name, .. } if given(name) => {}
        _ => e.for_each_child(&mut |child| first_missing_arg(child, args, found)),
    }
}

/// Load-time check that the plan's `requires_async` flags agree with the registry
/// ([`crate::plan::async_flags`], with the registry's constructors), each problem with the
/// loader's advice.
pub(super) fn plan_problems(plan: &crate::plan::Plan, registry: &crate::Registry) -> Vec<String> {
    let ctor = |class: &str| {
        let c = registry.t.classes.get(class)?;
        if c.async_ctor.is_some() {
            Some(crate::plan::Constructor::Async)
        } else {
            c.ctor.is_some().then_some(crate::plan::Constructor::Sync)
        }
    };
    crate::plan::async_flags(plan, &ctor)
        .into_iter()
        .map(|p| {
            let advice = match p.kind {
                crate::plan::AsyncFlag::MarkedButSync { .. } => {
                    ": the plan was compiled for another registry, or edited since (a reference \
                     changed, say); recompile it with the registry's catalog"
                }
                crate::plan::AsyncFlag::AsyncConstructor { .. } => {
                    " (recompile the plan with the registry's catalog)"
                }
                crate::plan::AsyncFlag::NeedsAsync { .. } => "",
            };
            format!("{p}{advice}")
        })
        .collect()
}
