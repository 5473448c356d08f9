//! The compiled form of a plan: what the container runs when it creates a service.
//!
//! At load ([`compile`]) every service's `create` and `setup` become a small tree of [`Node`]s
//! in which every name the plan spells out is already resolved:
//!
//! * a `$ref` is the index of its service (aliases followed once, here);
//! * a `$new` holds its class's registered constructor (the function itself, not the catalog
//!   name to look it up by) and whether the class has an async constructor;
//! * plain data (numbers, strings, lists and maps of them) is built into a [`Value`] once;
//!   a constructor or setup argument borrows it, other uses clone it;
//! * a `$param` of a dynamic parameter the loader resolved (given, from the environment, or
//!   its default; fixed for the container's life) is folded into that constant;
//! * a setup call or property write on `@self` holds the method or writer registered for the
//!   class its `$new` creates, used when the object has that Rust type.
//!
//! Creating a service then hashes no name and walks no plan expression: arguments are
//! evaluated into inline storage ([`crate::value::Args`] keeps up to four without a heap
//! allocation) and the constructor is called through its pointer. Everything else a plan may
//! hold (`$call`, `$get`, `$callable`, `$func`, `$concat`, factory `$arg`s, maps holding
//! services) stays an [`Expr`] ([`Node::Tree`]) and is evaluated as before: those are rare,
//! and they keep their exact behaviour and messages. The async path prepares the same nodes
//! (see `async_resolve`).

use std::any::TypeId;
use std::collections::HashMap;
use std::ptr::NonNull;
use std::sync::Arc;

use super::argbuf::ArgBuf;
use super::eval::Frame;
use super::resolve::{Ctx, Path, RED_ZONE, STACK_SEGMENT};
use super::{Inner, ScopeState};
use crate::error::Error;
use crate::plan::{CallTarget, Expr, Lifespan, Plan, ServiceKind, ServicePlan};
use crate::registry::{ClassEntry, CtorFn, MethodFn, MethodMutFn, Registry};
use crate::value::{name_param, ArgValue, Args, BoxError, Instance, Value};
use crate::CallResult;

/// A compiled plan: one [`Service`] per plan service, in the plan's order (the index of a
/// service is its index in `plan.services`).
///
/// The nodes live in three flat tables built in one pass at load, so compiling allocates no
/// box per service and dropping frees none: every constant in `consts` ([`Node::Const`] holds
/// its index), every constructor call in `news` ([`Node::New`]), and the arguments of all
/// constructor calls and setup members in `args` (each holds the range of its own). They
/// stay the vectors they were filled in (shrinking them to boxed slices copied each once more).
pub(crate) struct Program {
    pub(crate) services: Vec<Service>,
    /// The compiled `$new`s of all services, nested ones included.
    pub(crate) news: Vec<NewOp>,
    /// The argument nodes of every [`NewOp`] and [`Setup::Member`], each a contiguous range.
    pub(crate) args: Vec<Node>,
    /// Plain data built once (also folded dynamic parameters).
    pub(crate) consts: Vec<Value>,
    /// Whether the registry has any dispose hook: without one, a scope releases what it
    /// created without looking up each object's type.
    pub(crate) any_dispose_hook: bool,
}

impl Program {
    /// The argument nodes in `range` (a [`NewOp`]'s or a setup member's).
    #[inline]
    pub(crate) fn args(&self, range: ArgRange) -> &[Node] {
        &self.args[range.start as usize..range.end as usize]
    }

    /// The compiled `$new` `id`.
    #[inline]
    pub(crate) fn new_op(&self, id: NewId) -> &NewOp {
        &self.news[id.0 as usize]
    }
}

/// A compiled service.
pub(crate) struct Service {
    pub(crate) kind: ServiceKind,
    pub(crate) lifespan: Lifespan,
    pub(crate) requires_async: bool,
    /// The compiled `create` (a factory's product; unused for accessors, locators and slots).
    pub(crate) create: Node,
    /// The compiled `setup` statements, in order.
    pub(crate) setup: Box<[Setup]>,
}

/// A compiled expression (16 bytes: what it refers to lives in the [`Program`]'s tables).
pub(crate) enum Node {
    /// Plain data built once (also a folded dynamic parameter): its index in
    /// [`Program::consts`].
    Const(u32),
    /// A service, by index.
    Ref(usize),
    /// `@self`: the object being set up.
    SelfObject,
    /// A `$provider` handle on the service with this index.
    Provider(usize),
    /// A list whose items are not all plain data (e.g. a list of services). (Boxed twice so
    /// a node stays two words: the rare list pays an indirection, every other node is passed
    /// in registers instead of through a copy on the stack.)
    #[allow(clippy::redundant_allocation)]
    List(Box<Box<[Node]>>),
    /// A constructor call: its index in [`Program::news`].
    New(NewId),
    /// Anything else, evaluated from the plan expression as it is.
    Tree(Box<Expr>),
}

/// The index of a compiled `$new` in [`Program::news`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct NewId(pub(crate) u32);

/// A range of [`Program::args`] (`start..end`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct ArgRange {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// A compiled `$new`.
pub(crate) struct NewOp {
    /// The class: its index in the registry's class table (its name, for messages, is read
    /// there; [`NO_CLASS`] when not registered). An index rather than a copy of the name:
    /// building that copy per service was a visible part of a small plan's load.
    pub(crate) class: u32,
    /// The registered sync constructor, if any (borrowed from the registry the container
    /// keeps: no reference count touched per service at load and at drop).
    pub(crate) ctor: Option<CtorRef>,
    /// Whether the class has an async constructor (then an async request may have prepared
    /// this call's object, and a sync request without a sync constructor is
    /// [`crate::Error::AsyncRequired`]).
    pub(crate) has_async: bool,
    /// The positional arguments, in [`Program::args`].
    pub(crate) args: ArgRange,
}

/// In [`NewOp::class`]: the class is not registered.
pub(crate) const NO_CLASS: u32 = u32::MAX;

/// A registered sync constructor, borrowed from the container's registry.
///
/// The function object lives in an `Arc` held by the registry's class table; a container
/// keeps a clone of the registry that shares that table (`Inner::registry`), and a shared
/// table is never written (registering more classes copies it first, `Arc::make_mut`), so
/// the function outlives every program compiled against that registry. Cloning the `Arc`
/// per compiled `$new` instead cost two locked instructions per service (one at load, one at
/// drop) — about a tenth of a small plan's load.
#[derive(Clone, Copy)]
pub(crate) struct CtorRef(NonNull<CtorDyn>);

/// The function type behind [`CtorFn`].
type CtorDyn = dyn Fn(&Args<'_>) -> CallResult<Instance> + Send + Sync;

// SAFETY: the pointee is `Send + Sync` and is only ever read through a shared reference.
unsafe impl Send for CtorRef {}
// SAFETY: as above.
unsafe impl Sync for CtorRef {}

impl CtorRef {
    /// Borrows `f`. The caller compiles a program that is only run while a registry sharing
    /// the class table that holds `f` is alive (see [`CtorRef`]).
    pub(crate) fn borrow(f: &CtorFn) -> CtorRef {
        CtorRef(NonNull::from(&**f))
    }

    /// Calls the constructor.
    #[inline(always)]
    pub(crate) fn call(&self, args: &Args<'_>) -> CallResult<Instance> {
        // SAFETY: the function is alive as long as the container's registry (see
        // [`CtorRef`]), and the program that holds this is part of the same container.
        let f = unsafe { self.0.as_ref() };
        f(args)
    }
}

impl NewOp {
    /// The key under which the async path keeps the object it prepared for this call (its
    /// address: the program's table does not move once built).
    pub(crate) fn key(&self) -> usize {
        self as *const NewOp as usize
    }
}

/// Whether a setup member is a method call or a property write.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemberKind {
    Method,
    Property,
}

impl MemberKind {
    /// `method` or `property`, for messages.
    pub(crate) fn label(self) -> &'static str {
        match self {
            MemberKind::Method => "method",
            MemberKind::Property => "property",
        }
    }
}

/// A compiled setup statement.
pub(crate) enum Setup {
    /// A method call (`$call` on `@self`) or a property write (`$set` on `@self`; its one
    /// input is the written value).
    Member {
        kind: MemberKind,
        member: Box<str>,
        /// The argument nodes, in [`Program::args`].
        inputs: ArgRange,
        /// The registered functions for the Rust type the service's `$new` creates.
        resolved: Option<Resolved>,
    },
    /// Any other statement, evaluated with `@self` bound.
    Other(Box<Expr>),
}

/// The functions a setup member resolves to for one Rust type.
pub(crate) struct Resolved {
    pub(crate) type_id: TypeId,
    /// The `&mut` method (or property writer), preferred while the object is not shared.
    pub(crate) mut_fn: Option<MethodMutFn>,
    /// The shared (`&T`) method, for method calls only.
    pub(crate) shared_fn: Option<MethodFn>,
}

/// Compiles a plan against a registry, one service at a time, in plan order: the load check
/// hands each service over right after checking it ([`super::check::Checker::run`]), with the
/// registration of its top-level `$new` class and the services that `$new`'s arguments
/// reference, so no class or name is looked up twice and the service's plan is read while it
/// is still in cache. Never fails: whatever cannot be resolved here stays a [`Node::Tree`]
/// and reports its error when evaluated, as before.
pub(crate) struct Compiler<'a> {
    plan: &'a Plan,
    registry: &'a Registry,
    /// The dynamic parameters the loader resolved (fixed for the container's life).
    dynamic: &'a HashMap<String, Value>,
    services: Vec<Service>,
    news: Vec<NewOp>,
    args: Vec<Node>,
    consts: Vec<Value>,
    /// The one constant `null` every `null` argument shares (constants are never written).
    null: Option<u32>,
}

impl<'a> Compiler<'a> {
    /// A compiler for `plan`; `dynamic` holds the dynamic parameters the loader resolved.
    pub(crate) fn new(
        plan: &'a Plan,
        registry: &'a Registry,
        dynamic: &'a HashMap<String, Value>,
    ) -> Compiler<'a> {
        // The tables are sized for a typical plan (one `$new` per service, a few arguments
        // each, about half of them constants); they grow past that and are trimmed at the end.
        let n = plan.services.len();
        Compiler {
            plan,
            registry,
            dynamic,
            services: Vec::with_capacity(n),
            news: Vec::with_capacity(n),
            args: Vec::with_capacity(n * 4),
            consts: Vec::with_capacity(n * 2),
            null: None,
        }
    }

    /// Compiles service `index` of the plan, the next one (services come in plan order):
    /// `entry` is the registration of its top-level `$new` class, `refs` per argument of that
    /// `$new` the service a `$ref` argument was resolved to by the load check (or
    /// [`super::check::NO_REF`]).
    pub(crate) fn service(
        &mut self,
        index: usize,
        sp: &ServicePlan,
        entry: Option<(u32, &ClassEntry)>,
        refs: &[u32],
    ) {
        debug_assert_eq!(
            index,
            self.services.len(),
            "services are compiled in plan order"
        );
        let mut refs = refs.iter().copied();
        let create = match &sp.create {
            Expr::New { class, args } => self.new_op(class, args, Some(entry), Some(&mut refs)),
            other => self.node(other),
        };
        let made = entry.map(|(_, e)| e.type_id);
        // (Most services have no setup: no collect for them.)
        let setup = if sp.setup.is_empty() {
            Box::default()
        } else {
            sp.setup.iter().map(|s| self.setup(s, made)).collect()
        };
        self.services.push(Service {
            kind: sp.kind,
            lifespan: sp.lifespan,
            requires_async: sp.requires_async,
            create,
            setup,
        });
    }

    /// The compiled program; every service of the plan was handed to
    /// [`Compiler::service`].
    pub(crate) fn finish(self) -> Program {
        Program {
            services: self.services,
            news: self.news,
            args: self.args,
            consts: self.consts,
            any_dispose_hook: self.registry.t.dispose_hooks,
        }
    }
}

impl Compiler<'_> {
    /// The index of service `name`, aliases followed (as `Inner::index_of`).
    fn index_of(&self, name: &str) -> Option<usize> {
        if let Some(i) = self.plan.services.get_index_of(name) {
            return Some(i);
        }
        let mut n = name;
        for _ in 0..=self.plan.aliases.len() {
            match self.plan.aliases.get(n) {
                Some(target) if !self.plan.services.contains_key(n) => n = target,
                _ => break,
            }
        }
        self.plan.services.get_index_of(n)
    }

    /// A constant node holding `v`.
    fn constant(&mut self, v: Value) -> Node {
        self.consts.push(v);
        Node::Const((self.consts.len() - 1) as u32)
    }

    /// The index of the constant of the commonest arguments after references, null (one
    /// shared constant) and an integer; `None` for anything else.
    #[inline(always)]
    fn scalar(&mut self, e: &Expr) -> Option<u32> {
        match e {
            Expr::Null => Some(match self.null {
                Some(i) => i,
                None => {
                    self.consts.push(Value::Null);
                    let i = (self.consts.len() - 1) as u32;
                    self.null = Some(i);
                    i
                }
            }),
            Expr::Int(i) => {
                self.consts.push(Value::Int(*i));
                Some((self.consts.len() - 1) as u32)
            }
            _ => None,
        }
    }

    fn node(&mut self, e: &Expr) -> Node {
        // The common arguments first: a reference, null, a number.
        if let Expr::Ref(name) = e {
            if name != "@self" {
                if let Some(i) = self.index_of(name) {
                    return Node::Ref(i);
                }
            }
        }
        if let Some(c) = self.scalar(e) {
            return Node::Const(c);
        }
        if let Some(v) = e.plain_value() {
            return self.constant(v);
        }
        let tree = || Node::Tree(Box::new(e.clone()));
        match e {
            Expr::Ref(name) if name == "@self" => Node::SelfObject,
            Expr::Provider(name) => self.index_of(name).map_or_else(tree, Node::Provider),
            Expr::Param(name) => match self.dynamic.get(name) {
                Some(v) => {
                    let v = v.clone();
                    self.constant(v)
                }
                None => tree(),
            },
            Expr::List(items) => Node::List(Box::new(items.iter().map(|i| self.node(i)).collect())),
            Expr::New { class, args } => self.new_op(class, args, None, None),
            _ => tree(),
        }
    }

    /// The argument nodes of `exprs`, as a contiguous range of the shared table (the nodes a
    /// nested call adds go after it). `refs` yields, per argument, the service a `$ref` argument was resolved to by the
    /// load check (or [`super::check::NO_REF`]).
    fn arg_range(
        &mut self,
        exprs: &[Expr],
        mut refs: Option<&mut dyn Iterator<Item = u32>>,
    ) -> ArgRange {
        let start = self.args.len();
        let known = |refs: &mut Option<&mut dyn Iterator<Item = u32>>| {
            refs.as_mut()
                .and_then(|r| r.next())
                .filter(|&i| i != super::check::NO_REF)
        };
        if exprs.iter().all(Expr::is_leaf) {
            // The common case: no argument adds nodes of its own to the table (only a nested
            // `$new`, also inside a list, does), so each is pushed as it is compiled.
            self.args.reserve(exprs.len());
            // (Each case pushes its own node: a node chosen by a `match` and then pushed went
            // through a copy on the stack that the CPU stalled on.)
            for a in exprs {
                if let Some(i) = known(&mut refs) {
                    self.args.push(Node::Ref(i as usize));
                } else if let Some(c) = self.scalar(a) {
                    self.args.push(Node::Const(c));
                } else {
                    let n = self.node(a);
                    self.args.push(n);
                }
            }
        } else {
            // The range is reserved first, so the nodes nested calls add go after it.
            self.args
                .extend(std::iter::repeat_with(|| Node::SelfObject).take(exprs.len()));
            for (k, a) in exprs.iter().enumerate() {
                let n = match known(&mut refs) {
                    Some(i) => Node::Ref(i as usize),
                    None => self.node(a),
                };
                self.args[start + k] = n;
            }
        }
        ArgRange {
            start: start as u32,
            end: (start + exprs.len()) as u32,
        }
    }

    /// A `$new` of `class`; `entry` is its registration when the caller looked it up
    /// already (`Some(None)`: not registered), `refs` as for [`Compiler::arg_range`].
    fn new_op(
        &mut self,
        class: &crate::plan::Name,
        args: &[Expr],
        entry: Option<Option<(u32, &ClassEntry)>>,
        refs: Option<&mut dyn Iterator<Item = u32>>,
    ) -> Node {
        let entry = entry.unwrap_or_else(|| {
            self.registry
                .t
                .classes
                .get_full(class.as_str())
                .map(|(i, _, c)| (i as u32, c))
        });
        let ctor = entry.and_then(|(_, c)| c.ctor.as_ref().map(CtorRef::borrow));
        let has_async = entry.is_some_and(|(_, c)| c.async_ctor.is_some());
        let args = self.arg_range(args, refs);
        self.news.push(NewOp {
            class: entry.map_or(NO_CLASS, |(i, _)| i),
            ctor,
            has_async,
            args,
        });
        Node::New(NewId((self.news.len() - 1) as u32))
    }

    /// A setup statement of a service whose `$new` makes objects of the Rust type `made`.
    fn setup(&mut self, stmt: &Expr, made: Option<TypeId>) -> Setup {
        let (kind, member, inputs) = match stmt {
            Expr::Call {
                target: CallTarget::SelfObject,
                method,
                args,
            } => (MemberKind::Method, method, self.arg_range(args, None)),
            Expr::Set {
                target: CallTarget::SelfObject,
                property,
                value,
            } => (
                MemberKind::Property,
                property,
                self.arg_range(std::slice::from_ref(&**value), None),
            ),
            other => return Setup::Other(Box::new(other.clone())),
        };
        let resolved = made.and_then(|type_id| {
            let t = self.registry.type_entry(type_id)?;
            Some(Resolved {
                type_id,
                mut_fn: match kind {
                    MemberKind::Method => t.methods_mut.get(member.as_str()).cloned(),
                    MemberKind::Property => t.properties.get(member.as_str()).cloned(),
                },
                shared_fn: match kind {
                    MemberKind::Method => t.methods.get(member.as_str()).cloned(),
                    MemberKind::Property => None,
                },
            })
        });
        Setup::Member {
            kind,
            member: member.as_str().into(),
            inputs,
            resolved,
        }
    }
}

impl Inner {
    /// The catalog name of a compiled `$new`'s class, for messages.
    pub(crate) fn class_name(&self, op: &NewOp) -> &str {
        self.registry
            .t
            .classes
            .get_index(op.class as usize)
            .map_or("?", |(name, _)| name.as_str())
    }

    /// The constructor parameters the registry declares for class number `class`, if any.
    pub(crate) fn ctor_params(&self, class: u32) -> Option<&[crate::catalog::Param]> {
        self.registry
            .t
            .classes
            .get_index(class as usize)
            .and_then(|(_, c)| c.more().ctor_sig.as_deref())
    }

    /// The compiled service `idx`.
    pub(crate) fn compiled(&self, idx: usize) -> Option<&Service> {
        self.program.services.get(idx)
    }
}

// --------------------------------------------------------------------------------------
// running compiled nodes

impl Inner {
    /// The value of the compiled node `node` in `frame` (as `Inner::eval` for its
    /// expression).
    pub(super) fn run(
        &self,
        node: &Node,
        frame: &Frame<'_>,
        path: &mut Path,
    ) -> Result<Value, Error> {
        Ok(match node {
            Node::Const(i) => self.program.consts[*i as usize].clone(),
            Node::Ref(idx) => {
                let ctx = Ctx {
                    scope: frame.ctx.scope,
                    args: None,
                };
                Value::Service(self.resolve_index(*idx, ctx, path)?)
            }
            Node::SelfObject => match frame.this {
                Some(i) => Value::Service(i.clone()),
                None => return Err(self.fail(frame.service, path, "@self", "only valid in setup")),
            },
            Node::Provider(idx) => {
                Value::Service(crate::provider::handle(self, *idx, frame.ctx.scope))
            }
            Node::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items.iter() {
                    out.push(self.run(item, frame, path)?);
                }
                Value::List(out)
            }
            // A nested constructor call recurses: grow the stack when it runs low.
            Node::New(id) => Value::Service(stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
                self.run_new(id, frame, path)
            })?),
            Node::Tree(e) => self.eval(e, frame, path)?,
        })
    }

    /// Evaluates an argument node onto `buf`: plain data borrowed from the compiled plan, a
    /// cached service borrowed from the container or scope holding it (no reference count
    /// touched), a new object owned; the rarer kinds through [`Inner::run`]. `scope` is
    /// `frame`'s scope, with the lifetime of the borrowed services.
    #[inline(always)]
    fn push_arg<'f>(
        &'f self,
        node: &'f Node,
        frame: &Frame<'_>,
        scope: Option<&'f Arc<ScopeState>>,
        path: &mut Path,
        buf: &mut ArgBuf<'f>,
    ) -> Result<(), Error> {
        match node {
            Node::Const(i) => buf.push(ArgValue::Plain(&self.program.consts[*i as usize])),
            // A cached service is looked up inline (the common case: no call, nothing
            // returned through memory); anything else resolves the full way.
            Node::Ref(idx) => {
                if let Some(inst) = self.cached_in(*idx, scope) {
                    buf.push(ArgValue::Cached(inst));
                    return Ok(());
                }
                let ctx = Ctx { scope, args: None };
                match self.resolve_missed(*idx, ctx, path)? {
                    std::borrow::Cow::Borrowed(i) => buf.push(ArgValue::Cached(i)),
                    std::borrow::Cow::Owned(i) => buf.push(ArgValue::New(i)),
                }
            }
            Node::New(id) => {
                let inst =
                    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.run_new(id, frame, path))?;
                buf.push(ArgValue::New(inst));
            }
            other => buf.push(ArgValue::from_value(self.run(other, frame, path)?)),
        }
        Ok(())
    }

    /// Evaluates `nodes` into the arguments of a call, in `buf` (an [`ArgBuf`]: on the
    /// caller's stack for up to `INLINE_ARGS` of them, which allocates nothing). Inlined, so
    /// the evaluated arguments are not returned through memory.
    #[inline(always)]
    fn fill_args<'b, 'f: 'b>(
        &'f self,
        nodes: &'f [Node],
        frame: &Frame<'_>,
        scope: Option<&'f Arc<ScopeState>>,
        path: &mut Path,
        buf: &'b mut ArgBuf<'f>,
    ) -> Result<Args<'b>, Error> {
        for n in nodes {
            self.push_arg(n, frame, scope, path, buf)?;
        }
        Ok(Args::compiled(buf.as_slice(), &self.registry))
    }

    /// Calls the constructor of a compiled `$new` (or takes the object its async constructor
    /// made for this call in the async path's first part). Inlined: see `create_service`.
    #[inline(always)]
    pub(super) fn run_new(
        &self,
        id: &NewId,
        frame: &Frame<'_>,
        path: &mut Path,
    ) -> Result<Instance, Error> {
        let op = self.program.new_op(*id);
        if op.has_async {
            if let Some(inst) = super::async_resolve::take_prepared(op.key()) {
                return Ok(inst);
            }
            if op.ctor.is_none() {
                return Err(self.async_required(self.names(path)));
            }
        }
        let mut buf = ArgBuf::new();
        let args = self.fill_args(
            self.program.args(op.args),
            frame,
            frame.ctx.scope,
            path,
            &mut buf,
        )?;
        let step = || format!("constructor of {}", self.class_name(op));
        let ctor = op
            .ctor
            .as_ref()
            .ok_or_else(|| self.fail(frame.service, path, step(), "not registered"))?;
        ctor.call(&args).map_err(|e| {
            let params = self.ctor_params(op.class);
            self.fail(frame.service, path, step(), name_param(e, params))
        })
    }

    /// A setup call's error, naming the parameter when it is a wrong argument of a method
    /// whose signature the registry declares.
    fn setup_cause(
        &self,
        e: BoxError,
        kind: MemberKind,
        member: &str,
        inst: &Instance,
    ) -> BoxError {
        let params = (kind == MemberKind::Method)
            .then(|| self.registry.type_entry(inst.type_id()))
            .flatten()
            .and_then(|t| t.method_sigs.get(member))
            .map(|s| s.params.as_slice());
        name_param(e, params)
    }

    /// Runs compiled setup statement number `index` (from 1) on the new object `inst`: a
    /// method call or property write on `@self` (which may take `&mut` while the object is
    /// not yet shared), or any other statement, evaluated with `@self` bound.
    pub(super) fn run_setup(
        &self,
        stmt: &Setup,
        index: usize,
        inst: &mut Instance,
        outer: &Frame<'_>,
        path: &mut Path,
    ) -> Result<(), Error> {
        let service = outer.service;
        let (kind, member, inputs, resolved) = match stmt {
            Setup::Member {
                kind,
                member,
                inputs,
                resolved,
            } => (*kind, &**member, *inputs, resolved.as_ref()),
            Setup::Other(e) => {
                let frame = Frame {
                    service,
                    this: Some(&*inst),
                    ctx: outer.ctx,
                };
                return self.eval(e, &frame, path).map(drop);
            }
        };
        // The step names the object's class (built for errors only).
        let step = |inst: &Instance| {
            let label = self.class_label(inst);
            match kind {
                MemberKind::Method => format!("setup #{index}: {label}::{member}()"),
                MemberKind::Property => format!("setup #{index}: {label}::${member} = ..."),
            }
        };
        let mut buf = ArgBuf::new();
        let args = {
            let frame = Frame {
                service,
                this: Some(&*inst),
                ctx: outer.ctx,
            };
            self.fill_args(
                self.program.args(inputs),
                &frame,
                outer.ctx.scope,
                path,
                &mut buf,
            )?
        };
        let (mut_fn, shared_fn) = match resolved.filter(|r| r.type_id == inst.type_id()) {
            Some(r) => (r.mut_fn.clone(), r.shared_fn.clone()),
            None => {
                let entry = self.registry.type_entry(inst.type_id());
                let mut_fn = entry.and_then(|t| match kind {
                    MemberKind::Method => t.methods_mut.get(member),
                    MemberKind::Property => t.properties.get(member),
                });
                let shared_fn = entry
                    .filter(|_| kind == MemberKind::Method)
                    .and_then(|t| t.methods.get(member));
                (mut_fn.cloned(), shared_fn.cloned())
            }
        };
        if let Some(f) = mut_fn {
            let Some(obj) = inst.object_mut() else {
                return Err(self.fail(
                    service,
                    path,
                    step(inst),
                    "needs exclusive access (&mut) but the object is already shared: @self was \
                     passed to this or an earlier call that kept it; register it with .method() \
                     and interior mutability instead",
                ));
            };
            let made = f(obj, &args);
            return made.map_err(|e| {
                self.fail(
                    service,
                    path,
                    step(inst),
                    self.setup_cause(e, kind, member, inst),
                )
            });
        }
        match shared_fn {
            Some(f) => f(&**inst.as_any(), &args).map(drop).map_err(|e| {
                self.fail(
                    service,
                    path,
                    step(inst),
                    self.setup_cause(e, kind, member, inst),
                )
            }),
            None => Err(self.fail(
                service,
                path,
                step(inst),
                format!(
                    "{} not registered for Rust type {}",
                    kind.label(),
                    inst.type_name()
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compiled nodes stay small: what a constant, a call or an argument list holds lives
    /// in the program's tables, not in the node.
    #[test]
    fn a_node_is_two_words() {
        assert_eq!(std::mem::size_of::<Node>(), 16);
        assert!(std::mem::size_of::<Value>() > std::mem::size_of::<Node>());
    }
}
