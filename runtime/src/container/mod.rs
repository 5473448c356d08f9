//! The [`Container`]: a loaded plan plus a [`Registry`], creating services lazily; and its
//! [`Scope`]s.
//!
//! ## Life of a service
//!
//! `get("mailer")` resolves aliases, then returns the cached instance if there is one.
//! Otherwise it evaluates the service's `create` expression (arguments first, so dependencies
//! are created depth-first), runs the `setup` statements on the new object, and publishes it.
//! A failure anywhere is returned as an [`Error`] and nothing is cached for that service, so a
//! later `get` tries again.
//!
//! ## Lifespans
//!
//! * `singleton` (the default): one instance per container, created on first use.
//! * `scoped`: one instance per [`Scope`] (`container.scope()`); asking the container itself,
//!   or a singleton that depends on it, is [`Error::ScopeRequired`]. A nested scope
//!   (`scope.scope()`) sees the scoped instances its ancestors already created and creates the
//!   rest itself. Scoped instances are released when their scope is dropped.
//! * `transient`: a new instance for every request and every injection; the container keeps
//!   no reference to it (its owner drops it).
//!
//! ## Disposal
//!
//! When the last handle of a container is dropped (every [`Container`] clone and every
//! [`Scope`], which keeps its container alive), the singletons are released in reverse
//! creation order: first the [dispose hook](crate::ClassBuilder::on_dispose) of each runs,
//! then the container drops its reference, so an object nobody else holds is dropped right
//! there. A scope does the same for its scoped instances when it is dropped.
//!
//! Each distinct object is disposed once, even when several services hold it (a service
//! whose `create` is just `{"$ref": "db"}`, as `t8: @db` compiles, is the very object of
//! `db`): its hook runs where the object was first created in that order. A scoped service
//! that is the object of a singleton, or of a scoped service an ancestor scope created, is
//! left to that owner.
//!
//! ## Deep graphs
//!
//! Creating a service recurses into its dependencies. When little of the thread's stack is
//! left, resolution and evaluation continue on a new heap-allocated stack segment, so a long
//! dependency chain works on any thread (a 2,000-deep chain on a 256 KB stack). The number
//! of objects under construction at once on one thread is limited to
//! [`MAX_RESOLUTION_DEPTH`]; beyond it a request fails with [`Error::TooDeep`], naming the
//! path, instead of growing without bound (e.g. a factory whose product calls that factory).
//!
//! ## Threads
//!
//! `Container` and `Scope` are `Send + Sync` and cheap to clone (an `Arc`). Created instances
//! sit in one write-once cell per service (a `OnceLock` in the container, a cheaper-to-fill
//! `InstanceCell` in a scope) and are read without locking. First construction runs
//! under a re-entrant build lock (one per container for singletons, one per scope for scoped
//! services): several threads asking for the same fresh singleton never both construct it, and
//! a failed construction is simply retried by the next request. A cyclic plan is reported as
//! [`Error::CircularReference`], never a deadlock. Transients take no lock of their own.
//!
//! Constructors and methods must not panic; a panic unwinds through the container and leaves
//! it usable (locks are released, nothing is cached).

use std::any::TypeId;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock, Weak};

use indexmap::IndexMap;

use crate::error::Error;
use crate::plan::{Lifespan, Plan, ServiceKind};
use crate::registry::Registry;
use crate::value::{Instance, Value};

mod argbuf;
mod async_resolve;
mod cell;
mod check;
mod eval;
mod literals;
mod load;
mod lock;
mod order;
mod program;
mod resolve;
mod scope;
mod slots;
mod stream;

pub use async_resolve::MAX_ASYNC_DEPTH;
pub use load::ContainerBuilder;
pub use scope::Scope;

use lock::BuildLock;
pub(crate) use scope::ScopeState;

/// How many objects one thread may have under construction at once (a service whose
/// dependency's dependency … is being created counts each level). Deeper graphs fail with
/// [`Error::TooDeep`] naming the path instead of growing the stack without bound; the stack
/// itself grows as needed, so any depth up to this works even on a small thread stack.
pub const MAX_RESOLUTION_DEPTH: usize = 4096;

/// The shared state of a container; [`Container`], [`Scope`] and generated services point at
/// it.
pub(crate) struct Inner {
    /// The plan model, kept from a JSON or in-memory load, or built from the binary payload
    /// on first use (see [`Model`]).
    pub(crate) model: Model,
    /// The tables a binary load read straight from the payload (see `stream`): service
    /// names, aliases, the `types` index, static parameters. `None` when the container keeps
    /// the model it was checked with, which then answers the same questions (see
    /// [`Inner::service_index`] and its neighbours).
    pub(crate) own: Option<OwnTables>,
    /// Whether the plan has `initialization` statements (read from the model when it has).
    pub(crate) has_initialization: bool,
    /// The plan compiled for creation: names resolved to indexes and registered functions
    /// (see `program`).
    pub(crate) program: program::Program,
    pub(crate) origin: String,
    pub(crate) registry: Registry,
    /// Per service: the singleton (or imported) instance once created.
    pub(crate) slots: Vec<OnceLock<Instance>>,
    /// Per service: its slot index in every scope, for scoped services.
    pub(crate) scoped_slot: Vec<Option<u32>>,
    /// Number of scoped services (the slot count of a scope).
    pub(crate) scoped_count: usize,
    /// Per scope slot: the Rust type that passes `provide`'s type check at once
    /// (`slots::slot_types`).
    pub(crate) slot_types: Vec<Option<TypeId>>,
    pub(crate) tags: IndexMap<String, Vec<(String, Value)>>,
    pub(crate) dynamic: HashMap<String, Value>,
    pub(crate) read_env: bool,
    pub(crate) lock: BuildLock,
    /// Single-flight gates for async creation of singletons (see `async_resolve`).
    pub(crate) gates: async_resolve::Gates,
    /// Service indexes in the order their singletons were published.
    pub(crate) created: order::CreationOrder,
    /// Registered Rust type → the one service the plan autowires for its catalog name, built
    /// on the first by-type request (`load::by_type_table`). (FxHash: `TypeId`s are already
    /// well-mixed, SipHash would dominate a cached lookup.)
    pub(crate) by_type: OnceLock<rustc_hash::FxHashMap<TypeId, ByType>>,
    /// This container, for generated factories, accessors and locators.
    pub(crate) me: Weak<Inner>,
}

/// One entry of the by-type table: the index of the service autowired for the key's type,
/// and, once a container-level lookup made it, that singleton cast to the key's type. A
/// singleton of the container never changes once created, so `get_by_type::<dyn Trait>()`
/// then answers with one downcast and one clone instead of a cast through the registry's
/// caster table (a second hash lookup, an indirect call and a `dyn Any` round trip).
pub(crate) struct ByType {
    /// The service's index.
    pub(crate) idx: usize,
    /// `Arc<T>` for the key's `T`, set by the first lookup without a scope that found the
    /// singleton created.
    pub(crate) cast: OnceLock<CastArc>,
}

/// An `Arc<T>` (of any `T`, sized or not) in a box of its own, held as a thin pointer with
/// the `TypeId` of `Arc<T>` beside it: [`ByType::cast`]. Reading it back compares two
/// `TypeId`s inline, where a `Box<dyn Any>`'s `downcast_ref` asks the vtable for its type
/// (an indirect call on every cached `get_by_type`).
pub(crate) struct CastArc {
    /// `TypeId::of::<Arc<T>>()`.
    tid: TypeId,
    /// `Box<Arc<T>>::into_raw`, type-erased.
    ptr: std::ptr::NonNull<()>,
    /// Drops the box behind `ptr` as the `Box<Arc<T>>` it is.
    drop: unsafe fn(std::ptr::NonNull<()>),
}

impl CastArc {
    /// Keeps `arc`.
    pub(crate) fn new<T: ?Sized + 'static>(arc: Arc<T>) -> CastArc {
        /// # Safety
        /// `ptr` comes from `Box::<Arc<T>>::into_raw` and is dropped once.
        unsafe fn drop_box<T: ?Sized>(ptr: std::ptr::NonNull<()>) {
            // SAFETY: as the function's contract says.
            drop(unsafe { Box::from_raw(ptr.cast::<Arc<T>>().as_ptr()) });
        }
        let ptr = std::ptr::NonNull::from(Box::leak(Box::new(arc))).cast::<()>();
        CastArc {
            tid: TypeId::of::<Arc<T>>(),
            ptr,
            drop: drop_box::<T>,
        }
    }

    /// The kept `Arc<T>`, when it is one (`None` for any other `T`).
    #[inline(always)]
    pub(crate) fn get<T: ?Sized + 'static>(&self) -> Option<&Arc<T>> {
        // SAFETY: the `TypeId`s are equal, so `ptr` is the `Box<Arc<T>>` that `new::<T>` made
        // for this very `T`, alive until `self` drops.
        (self.tid == TypeId::of::<Arc<T>>()).then(|| unsafe { self.ptr.cast::<Arc<T>>().as_ref() })
    }
}

impl Drop for CastArc {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `drop` were made together by `new` for the same `T`; dropped once.
        unsafe { (self.drop)(self.ptr) }
    }
}

// SAFETY: a `CastArc` holds a clone of the `Arc` that `get_by_type::<T>()` returns for a
// container-level singleton, that is, the container's own `Instance` (whose object the registry
// requires to be `Send + Sync`) seen as `T`. The container already hands that `Arc<T>` to any
// thread that asks; the cache is only read (`get`, then a clone, an atomic increment)
// and dropped with the container, which drops its `Instance`s on whichever thread it is
// dropped on too. So sharing or sending it adds nothing the container does not already do.
unsafe impl Send for CastArc {}
// SAFETY: as for `Send` above.
unsafe impl Sync for CastArc {}

/// What a container answers from its own tables after a binary load (see [`Inner::own`]).
pub(crate) struct OwnTables {
    /// Service names in definition order (a service's index is its position) and the lookup
    /// by name.
    pub(crate) names: crate::plan::NameSet,
    /// Alias name → service name.
    pub(crate) aliases: crate::plan::NameMap<crate::plan::Name>,
    /// The autowiring index: type → the services autowired for it (preferred first).
    pub(crate) types: crate::plan::NameMap<crate::plan::TypeServices>,
    /// Static parameters, fully expanded (the plan's `parameters`).
    pub(crate) parameters: IndexMap<String, crate::plan::Expr>,
}

/// The plan model of a container. A binary plan that the loader read straight into the
/// container's tables (see `stream`) keeps only its payload and decodes the model the first
/// time something asks for it ([`Container::plan`], the rare paths of generated services,
/// parameters, initialization and error messages that name a service's source); every other
/// load keeps the model it checked.
pub(crate) struct Model {
    cell: OnceLock<Plan>,
    /// The binary plan's bytes, the payload's range in them and its version, when the model
    /// is built on first use.
    payload: Option<(Vec<u8>, std::ops::Range<usize>, u64)>,
}

impl Model {
    /// A model at hand.
    pub(crate) fn kept(plan: Plan) -> Model {
        Model {
            cell: OnceLock::from(plan),
            payload: None,
        }
    }

    /// A model decoded on first use from the payload at `range` of `bytes` (of plan version
    /// `version`). Bytes the loader read from a file are kept as they are; the caller's bytes
    /// are copied (the payload only). The loader read the same payload with the same reader
    /// and checks before, so decoding it again cannot fail.
    pub(crate) fn deferred(
        bytes: std::borrow::Cow<'_, [u8]>,
        range: std::ops::Range<usize>,
        version: u64,
    ) -> Model {
        let payload = match bytes {
            std::borrow::Cow::Owned(file) => (file, range, version),
            std::borrow::Cow::Borrowed(b) => {
                let copy = b[range].to_vec();
                let whole = 0..copy.len();
                (copy, whole, version)
            }
        };
        Model {
            cell: OnceLock::new(),
            payload: Some(payload),
        }
    }

    /// The plan.
    pub(crate) fn get(&self) -> &Plan {
        self.cell.get_or_init(|| {
            let (bytes, range, version) = self
                .payload
                .as_ref()
                .expect("a container without a model keeps its payload");
            crate::encoding::decode::decode(&bytes[range.clone()], *version)
                .expect("a payload the loader accepted decodes again")
        })
    }
}

impl Inner {
    /// The plan model (see [`Model`]).
    pub(crate) fn plan(&self) -> &Plan {
        self.model.get()
    }

    /// The index of the service `name` (aliases not followed).
    #[inline]
    pub(crate) fn service_index(&self, name: &str) -> Option<usize> {
        match &self.own {
            Some(t) => t.names.get_index_of(name),
            None => self.plan().services.get_index_of(name),
        }
    }

    /// The name of service `i`.
    #[inline]
    pub(crate) fn service_name(&self, i: usize) -> Option<&str> {
        match &self.own {
            Some(t) => t.names.get_index(i).map(|n| n.as_str()),
            None => self.plan().services.get_index(i).map(|(n, _)| n.as_str()),
        }
    }

    /// How many services the plan has.
    pub(crate) fn service_count(&self) -> usize {
        self.slots.len()
    }

    /// Alias name → service name.
    pub(crate) fn aliases(&self) -> &crate::plan::NameMap<crate::plan::Name> {
        match &self.own {
            Some(t) => &t.aliases,
            None => &self.plan().aliases,
        }
    }

    /// The autowiring index (the plan's `types`).
    pub(crate) fn types(&self) -> &crate::plan::NameMap<crate::plan::TypeServices> {
        match &self.own {
            Some(t) => &t.types,
            None => &self.plan().types,
        }
    }

    /// The static parameters (the plan's `parameters`).
    pub(crate) fn parameters(&self) -> &IndexMap<String, crate::plan::Expr> {
        match &self.own {
            Some(t) => &t.parameters,
            None => &self.plan().parameters,
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The casts the by-type table keeps are more references to singletons: released
        // first, so each object's last reference still goes in the order below.
        drop(self.by_type.take());
        if !self.program.any_dispose_hook {
            // No dispose hook registered at all: release newest first (each object's last
            // reference still goes at the place of its first publication), without grouping
            // the references by object.
            for i in self.created.take_newest_first() {
                if let Some(slot) = self.slots.get_mut(i) {
                    drop(slot.take());
                }
            }
            return;
        }
        let order = self.created.take();
        dispose(&self.registry, &mut self.slots, &order, Some, |_| false);
    }
}

/// Releases `slots` in reverse `order` (service indexes; `slot_of` maps them to slots),
/// running dispose hooks first.
///
/// Several slots may hold the same object (a service whose `create` is `{"$ref": "db"}`, as
/// an alias service `t8: @db` compiles): each distinct object (by pointer identity) gets its
/// hook once, at the place of its first publication in `order` (so it is released after every
/// service created later, which may depend on it), and then all of these slots' references
/// to it are dropped together. An object for which `owned_elsewhere` says yes (held by the
/// container or an ancestor scope, which disposes it itself) only loses these references.
pub(crate) fn dispose<S: cell::CacheSlot>(
    registry: &Registry,
    slots: &mut [S],
    order: &[usize],
    slot_of: impl Fn(usize) -> Option<usize>,
    owned_elsewhere: impl Fn(&Instance) -> bool,
) {
    // Every reference this owner holds, grouped by object, in order of first publication.
    let mut groups: Vec<Vec<Instance>> = Vec::new();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for &service in order {
        let Some(inst) = slot_of(service).and_then(|s| slots.get_mut(s)?.take()) else {
            continue;
        };
        match group_of.get(&inst.addr()) {
            Some(&g) => groups[g].push(inst),
            None => {
                group_of.insert(inst.addr(), groups.len());
                groups.push(vec![inst]);
            }
        }
    }
    drop(group_of);
    while let Some(refs) = groups.pop() {
        let inst = &refs[0];
        if !owned_elsewhere(inst) {
            if let Some(hook) = registry
                .type_entry(inst.type_id())
                .and_then(|t| t.dispose.as_ref())
            {
                hook(&**inst.as_any());
            }
        }
        drop(refs);
    }
}

/// A loaded plan: creates services on first use and hands them out as `Arc<T>`.
///
/// `T` is either the concrete type of the service (`get::<Db>("db")`) or a trait object its
/// class registered with [`implements`](crate::ClassBuilder::implements)
/// (`get::<dyn Logger>("logger")`); both return the same shared object. Generated services
/// come back as [`Factory`](crate::Factory), [`Accessor`](crate::Accessor) and
/// [`Locator`](crate::Locator).
///
/// Cloning a `Container` gives another handle to the same container. See the
/// [module docs](self) for creation order, lifespans, disposal and threads.
#[derive(Clone)]
pub struct Container {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Container")
            .field("origin", &self.inner.origin)
            .field("services", &self.inner.service_count())
            .field(
                "created",
                &self
                    .inner
                    .slots
                    .iter()
                    .filter(|s| s.get().is_some())
                    .count(),
            )
            .finish()
    }
}

impl Container {
    /// Options (dynamic parameters, environment, imported services) for loading a plan with
    /// `registry`.
    pub fn builder(registry: &Registry) -> ContainerBuilder<'_> {
        ContainerBuilder::new(registry)
    }

    /// Reads a plan file (JSON or binary, recognised by content) and checks it against
    /// `registry`.
    ///
    /// Errors: [`Error::Io`]; [`Error::BadPlan`] (not a plan, truncated or corrupt,
    /// inconsistent references; every problem listed); [`Error::VersionMismatch`];
    /// [`Error::MissingRegistrations`] (every gap listed); [`Error::Imports`];
    /// [`Error::DynamicParameters`]; [`Error::Several`] when problems of more than one of
    /// these kinds are found (each reported). All name the file. No service is created here.
    pub fn load(path: impl AsRef<Path>, registry: &Registry) -> Result<Container, Error> {
        Container::builder(registry).load(path)
    }

    /// Like [`Container::load`], from a JSON string; errors call it `<string>`.
    pub fn from_json_str(json: &str, registry: &Registry) -> Result<Container, Error> {
        Container::builder(registry).from_json_str(json)
    }

    /// Like [`Container::load`], from the bytes of a plan in either form (e.g.
    /// `include_bytes!` of a plan compiled at build time); errors call it `<bytes>`.
    pub fn from_bytes(bytes: &[u8], registry: &Registry) -> Result<Container, Error> {
        Container::builder(registry).from_bytes(bytes)
    }

    /// Like [`Container::load`], from a plan in memory; errors call it `<plan>`.
    pub fn from_plan(plan: Plan, registry: &Registry) -> Result<Container, Error> {
        Container::builder(registry).from_plan(plan)
    }

    /// The plan.
    ///
    /// After a binary load the model is built from the plan's bytes on the first call (the
    /// container itself runs on its own tables); later calls return the same model.
    pub fn plan(&self) -> &Plan {
        self.inner.plan()
    }

    /// The file the plan came from, or `<string>` / `<bytes>` / `<plan>`.
    pub fn origin(&self) -> &str {
        &self.inner.origin
    }

    /// The registry the container creates services with.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// Whether a service or alias `name` exists.
    pub fn has(&self, name: &str) -> bool {
        self.inner.index_of(name).is_some()
    }

    /// Whether the singleton (or imported, or generated) service `name` was already created
    /// in this container. Scoped and transient services are never created *in the container*.
    pub fn is_created(&self, name: &str) -> bool {
        self.inner
            .index_of(name)
            .is_some_and(|i| self.inner.slots[i].get().is_some())
    }

    /// Service names, in definition order.
    pub fn service_names(&self) -> impl Iterator<Item = &str> {
        (0..self.inner.service_count()).filter_map(|i| self.inner.service_name(i))
    }

    /// The service `name` (or an alias of it) as `Arc<T>`, creating it on first use.
    ///
    /// Errors: [`Error::UnknownService`]; [`Error::WrongType`] when the object is neither a `T`
    /// nor castable to it; [`Error::ScopeRequired`] for a scoped service (use a [`Scope`]);
    /// [`Error::CircularReference`] and [`Error::ConstructorFailed`] from creating it or its
    /// dependencies.
    pub fn get<T: ?Sized + 'static>(&self, name: &str) -> Result<Arc<T>, Error> {
        self.inner.get(name, None)
    }

    /// The service `name` as an erased [`Instance`], creating it on first use.
    pub fn get_instance(&self, name: &str) -> Result<Instance, Error> {
        self.inner.get_instance(name, None)
    }

    /// The service autowired for the Rust type `T`: `T`'s catalog name (from
    /// [`Registry::class`] or [`implements`](crate::ClassBuilder::implements)) is looked up
    /// in the plan's `types` index (precomputed at load, so a cached lookup is one hash probe).
    ///
    /// Errors: [`Error::UnregisteredType`], then as [`Container::get_by_type_name`].
    pub fn get_by_type<T: ?Sized + 'static>(&self) -> Result<Arc<T>, Error> {
        self.inner.get_by_type(None)
    }

    /// The service autowired for the catalog type `type_name`, as `Arc<T>`.
    ///
    /// Errors: [`Error::NoServiceOfType`], [`Error::AmbiguousType`] (more than one service is
    /// autowired for the type), then as [`Container::get`].
    pub fn get_by_type_name<T: ?Sized + 'static>(&self, type_name: &str) -> Result<Arc<T>, Error> {
        self.inner.get_by_type_name(type_name, None)
    }

    /// Names of the services autowired for the catalog type `type_name` (empty if none).
    pub fn find_by_type(&self, type_name: &str) -> &[crate::plan::Name] {
        self.inner.find_by_type(type_name)
    }

    /// Services with the tag `tag`: (service name, tag value), in the plan's order. Nothing
    /// is created.
    pub fn find_by_tag(&self, tag: &str) -> Vec<(&str, &Value)> {
        self.inner
            .tags
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
        self.inner.parameter(name)
    }

    /// Runs the plan's `initialization` statements, in order. Errors as in
    /// [`Container::get`], with the service named `initialization`.
    pub fn initialize(&self) -> Result<(), Error> {
        self.inner.initialize()
    }

    /// Creates every singleton service now, in definition order, so no first request pays for
    /// it later (an explicit warm-up). Returns the number of services created by this call.
    /// Stops at the first error. Services that require async are left out: create them with
    /// [`Container::warm_up_async`].
    pub fn warm_up(&self) -> Result<usize, Error> {
        let mut made = 0;
        for (i, sp) in self.inner.program.services.iter().enumerate() {
            if sp.lifespan == Lifespan::Singleton
                && sp.kind == ServiceKind::Service
                && !sp.requires_async
                && self.inner.slots[i].get().is_none()
            {
                self.inner
                    .resolve_index(i, resolve::Ctx::ROOT, &mut resolve::Path::new())?;
                made += 1;
            }
        }
        Ok(made)
    }

    /// A new top-level [`Scope`] for scoped services (e.g. one per request). It keeps the
    /// container alive; its scoped instances are released when it is dropped.
    pub fn scope(&self) -> Scope {
        Scope::new(self.inner.clone(), None)
    }
}

#[cfg(test)]
mod cast_tests {
    use super::CastArc;
    use std::sync::Arc;

    trait Speak: Send + Sync {
        fn word(&self) -> &'static str;
    }
    struct Dog;
    impl Speak for Dog {
        fn word(&self) -> &'static str {
            "woof"
        }
    }

    #[test]
    fn a_kept_arc_is_read_back_as_its_own_type_only_and_released_on_drop() {
        let dog: Arc<dyn Speak> = Arc::new(Dog);
        let kept = CastArc::new(dog.clone());
        assert_eq!(Arc::strong_count(&dog), 2);
        let back = kept.get::<dyn Speak>().expect("the same type reads back");
        assert!(Arc::ptr_eq(back, &dog));
        assert_eq!(back.word(), "woof");
        // Any other type, sized or not, is refused.
        assert!(kept.get::<Dog>().is_none());
        assert!(kept.get::<dyn Send>().is_none());
        drop(kept);
        assert_eq!(Arc::strong_count(&dog), 1);
    }
}
