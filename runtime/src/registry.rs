//! The [`Registry`]: what the application can build, keyed by catalog names.
//!
//! A plan names classes (`"App\\FileLogger"`), methods (`setLevel`) and interfaces
//! (`"App\\Logger"`); the registry maps those names to Rust code:
//!
//! * per **class name**: a constructor and static methods;
//! * per **Rust type**: methods, property writers and readers, and casters to trait objects;
//! * per **Rust type or trait object** (`TypeId::of::<dyn Logger>()`): its catalog name, so
//!   [`Container::get_by_type`](crate::Container::get_by_type) can find the plan's services.
//!
//! All registrations are plain `fn` pointers (closures that capture nothing coerce to them):
//! a registration has no state of its own, everything a service needs comes from the plan as
//! arguments. That keeps the registry `Send + Sync + 'static` and cheap to clone, and is the
//! shape a future `#[derive]` will generate.
//!
//! ## Mutation in setups
//!
//! Services are shared `Arc`s once created. The plan's `setup` statements run after the
//! constructor and before the service is published, so the runtime offers two kinds of methods:
//!
//! * [`ClassBuilder::method_mut`] and [`ClassBuilder::property`] get `&mut T`. They may only
//!   be called on the object being set up (`@self`), and only while nothing else holds it: if an
//!   earlier setup passed `@self` somewhere that kept a clone, or `@self` is an argument of this
//!   very call, the call fails with a clear error instead of aliasing.
//! * [`ClassBuilder::method`] gets `&T`. It works everywhere: in setups, and on other, already
//!   published services (`{"$call": [{"$ref": "f"}, "build"]}`). Mutation through `&T` needs
//!   interior mutability in your type (`Mutex`, `RwLock`, `OnceLock`, atomics).
//!
//! In a setup `$call` on `@self`, a `method_mut` registration is preferred over a `method` of
//! the same name.

use std::any::{Any, TypeId};
use std::marker::PhantomData;
use std::sync::Arc;

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::catalog::{MethodSig, Param, TypeFn};
use crate::plan::Name;
use crate::value::{Args, CallResult, Instance, Value};

type Erased = dyn Any + Send + Sync;
pub(crate) type CtorFn = Arc<dyn Fn(&Args<'_>) -> CallResult<Instance> + Send + Sync>;
pub(crate) type StaticFn = Arc<dyn Fn(&Args<'_>) -> CallResult<Value> + Send + Sync>;
pub(crate) type MethodFn = Arc<dyn Fn(&Erased, &Args<'_>) -> CallResult<Value> + Send + Sync>;
pub(crate) type MethodMutFn = Arc<dyn Fn(&mut Erased, &Args<'_>) -> CallResult<()> + Send + Sync>;
pub(crate) type GetterFn = Arc<dyn Fn(&Erased) -> CallResult<Value> + Send + Sync>;
/// Writes the object as `Arc<I>` into the out-parameter, an `Option<Arc<I>>` (no allocation
/// per cast).
type CasterFn = Arc<dyn Fn(&Arc<Erased>, &mut dyn Any) + Send + Sync>;
pub(crate) type DisposeFn = Arc<dyn Fn(&Erased) + Send + Sync>;
pub(crate) type AsyncCtorFn =
    Arc<dyn Fn(&Args<'_>) -> CallResult<BoxFuture<CallResult<Instance>>> + Send + Sync>;

/// A boxed, `Send` future with no borrowed state: what an async constructor's synchronous
/// part returns (see [`ClassBuilder::async_constructor`]).
pub type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'static>>;

/// A registered class: what creating its objects needs, inline; its static methods and
/// catalog-export data out of line ([`ClassMore`]), which most classes never set. The load
/// check and the program compiler read the entry of every class a plan uses, so the entries
/// are kept small: 104-byte buckets for a 10,000-class table fit the cache where the
/// 232-byte ones with every member table inline did not (a cache miss per lookup).
#[derive(Clone)]
pub(crate) struct ClassEntry {
    pub(crate) type_id: TypeId,
    pub(crate) rust_name: &'static str,
    pub(crate) ctor: Option<CtorFn>,
    /// The async constructor ([`ClassBuilder::async_constructor`]); a class has this or
    /// `ctor`, the later registration wins.
    pub(crate) async_ctor: Option<AsyncCtorFn>,
    /// Set on the first registration of a static method or catalog data (see [`ClassMore`]).
    more: Option<Box<ClassMore>>,
}

/// A class's rarely registered parts (see [`ClassEntry`]). Its member tables use FxHash like
/// the registry's own (names from code), and an empty one costs no random seed.
#[derive(Clone, Default)]
pub(crate) struct ClassMore {
    pub(crate) statics: FxHashMap<String, StaticFn>,
    /// For the catalog export: the constructor's declared parameters.
    pub(crate) ctor_sig: Option<Vec<Param>>,
    /// For the catalog export: declared signatures of static methods.
    pub(crate) static_sigs: FxHashMap<String, MethodSig>,
    /// For the catalog export: class constants.
    pub(crate) constants: Vec<(String, Value)>,
    /// For the catalog export: the parent class.
    pub(crate) extends: Option<String>,
}

/// What a class without static methods or catalog data has.
static NO_MORE: ClassMore = ClassMore {
    statics: std::collections::HashMap::with_hasher(FxBuildHasher),
    ctor_sig: None,
    static_sigs: std::collections::HashMap::with_hasher(FxBuildHasher),
    constants: Vec::new(),
    extends: None,
};

impl ClassEntry {
    /// The class's static methods and catalog data (empty ones when it registered none).
    pub(crate) fn more(&self) -> &ClassMore {
        self.more.as_deref().unwrap_or(&NO_MORE)
    }

    /// As [`ClassEntry::more`], for registering: allocated on the first use.
    fn more_mut(&mut self) -> &mut ClassMore {
        self.more.get_or_insert_with(Box::default)
    }
}

#[derive(Clone, Default)]
pub(crate) struct TypeEntry {
    pub(crate) methods: FxHashMap<String, MethodFn>,
    pub(crate) methods_mut: FxHashMap<String, MethodMutFn>,
    pub(crate) properties: FxHashMap<String, MethodMutFn>,
    pub(crate) getters: FxHashMap<String, GetterFn>,
    pub(crate) dispose: Option<DisposeFn>,
    /// For the catalog export: declared signatures of methods.
    pub(crate) method_sigs: FxHashMap<String, MethodSig>,
    /// For the catalog export: declared property types.
    pub(crate) property_types: FxHashMap<String, TypeFn>,
    /// For the catalog export: the properties Nette's inject step fills (`inject: true`).
    pub(crate) injected: rustc_hash::FxHashSet<String>,
}

/// The Rust side of a plan: constructors, methods, property writers, static methods and
/// trait-object casters, registered by catalog name.
///
/// Fill it once at start-up with [`Registry::class`] and pass it to
/// [`Container::load`](crate::Container::load); the container keeps its own clone, which is
/// cheap (the tables are shared, copied on the next registration only).
/// Registering a class name or member again replaces the earlier registration.
///
/// ```
/// use std::sync::Arc;
/// use wireplan_runtime::Registry;
///
/// trait Logger: Send + Sync { fn log(&self, msg: &str); }
/// struct FileLogger { path: String }
/// impl Logger for FileLogger { fn log(&self, _msg: &str) {} }
///
/// let mut registry = Registry::new();
/// registry
///     .class::<FileLogger>("App\\FileLogger")
///     .constructor(|a| Ok(FileLogger { path: a.str(0)?.to_string() }))
///     .implements::<dyn Logger>("App\\Logger", |x| x);
/// assert_eq!(registry.catalog_name_of::<dyn Logger>(), Some("App\\Logger"));
/// ```
#[derive(Clone, Default)]
pub struct Registry {
    /// Every table in one shared allocation: cloning a registry (each container keeps a
    /// clone) touches one reference count, and registering a class copies the tables only
    /// when a clone shares them (`Arc::make_mut`, once per [`Registry::class`] call; a
    /// [`ClassBuilder`] then writes through the unique borrow it holds).
    pub(crate) t: Arc<Tables>,
}

/// The tables of a [`Registry`].
#[derive(Clone, Default)]
pub(crate) struct Tables {
    // FxHash in these maps: keys come from code (no untrusted input), and a lookup sits on
    // every object creation and cast.
    // Class and type names are `Name`s (inline up to 24 bytes): registering a class allocates
    // no string for a short name.
    /// Catalog class name → registration. An `IndexMap`: the hash table holds only indexes
    /// (small enough to stay in cache for 10,000 classes) and the entries sit in registration
    /// order, so a plan that uses its classes in about that order reads them front to back
    /// instead of one cache miss per class in a table of ~220-byte slots.
    pub(crate) classes: ClassTable,
    /// Rust type → its members (methods, property writers and readers, dispose hook). Only
    /// types with at least one member have an entry: registering a class adds none, and a
    /// type without an entry behaves as one with no members.
    pub(crate) types: FxHashMap<TypeId, TypeEntry>,
    /// Rust type or trait object → catalog name (first registration wins).
    pub(crate) names: FxHashMap<TypeId, Name>,
    /// Interface catalog name → `TypeId` of the trait object (asked once per autowired type
    /// of every service when a plan is loaded).
    pub(crate) interfaces: FxHashMap<String, (TypeId, &'static str)>,
    /// (concrete type, requested trait object) → caster writing an `Option<Arc<dyn Trait>>`.
    pub(crate) casters: FxHashMap<(TypeId, TypeId), CasterFn>,
    /// Whether an async constructor was ever registered (stays true when a sync one replaces
    /// it): without one, a plan's async checks have nothing to find in the registry.
    pub(crate) async_classes: bool,
    /// Whether a dispose hook was ever registered: without one, a container or scope
    /// releases what it created without looking up each object's type (asked once per load
    /// instead of walking every type entry).
    pub(crate) dispose_hooks: bool,
    /// Catalog names registered for a second Rust type, which replaced the first: (name, the
    /// first type, the second). A load with such a registry is refused
    /// ([`crate::error::Missing::Reregistered`]).
    pub(crate) conflicts: Vec<(Name, &'static str, &'static str)>,
}

/// The registry's class table (see [`Registry`]'s `classes`).
pub(crate) type ClassTable = IndexMap<Name, ClassEntry, FxBuildHasher>;

impl Registry {
    /// An empty registry. Its class and name tables start with room for 32 entries each (a
    /// small application's registrations without a rehash that moves every entry); the member
    /// table grows with the types that register members.
    pub fn new() -> Registry {
        const ROOM: usize = 32;
        Registry {
            t: Arc::new(Tables {
                classes: ClassTable::with_capacity_and_hasher(ROOM, FxBuildHasher),
                types: FxHashMap::default(),
                names: FxHashMap::with_capacity_and_hasher(ROOM, Default::default()),
                interfaces: FxHashMap::default(),
                casters: FxHashMap::default(),
                async_classes: false,
                dispose_hooks: false,
                conflicts: Vec::new(),
            }),
        }
    }

    /// Starts (or continues) registering the Rust type `T` as the catalog class `name`.
    ///
    /// The returned builder writes into the registry at each call; chain
    /// [`constructor`](ClassBuilder::constructor), [`implements`](ClassBuilder::implements),
    /// [`method`](ClassBuilder::method), ... on it. A class without a constructor is fine when
    /// it only provides static methods or is created by a factory.
    ///
    /// Calling it again for the same `T` and `name` continues that registration. A `name`
    /// already registered for another Rust type is taken over by `T` (the first registration
    /// is dropped), and every container load with this registry is then refused with
    /// [`crate::error::Missing::Reregistered`] in [`Error::MissingRegistrations`](crate::Error::MissingRegistrations).
    pub fn class<T: Any + Send + Sync>(&mut self, name: &str) -> ClassBuilder<'_, T> {
        let type_id = TypeId::of::<T>();
        let name = Name::from(name);
        let t = Arc::make_mut(&mut self.t);
        let entry = t.classes.entry(name.clone());
        let index = entry.index();
        let entry = entry.or_insert_with(new_entry::<T>);
        if entry.type_id != type_id {
            // The name now means the second type; kept as a problem that refuses every load,
            // so a slip shows before a service is handed out as the wrong type (a new user's
            // trial found it only at the first `get`).
            let first = entry.rust_name;
            *entry = new_entry::<T>();
            t.conflicts
                .push((name.clone(), first, std::any::type_name::<T>()));
        }
        t.names.entry(type_id).or_insert(name);
        ClassBuilder {
            t,
            index,
            _t: PhantomData,
        }
    }

    /// Declares that the trait object `I` (e.g. `dyn Logger`) is the catalog interface
    /// `name`. [`ClassBuilder::implements`] does this too; call it directly for an interface
    /// that no registered class implements yet.
    pub fn interface<I: ?Sized + 'static>(&mut self, name: &str) -> &mut Registry {
        Arc::make_mut(&mut self.t).interface::<I>(name);
        self
    }

    /// The catalog name registered for the Rust type or trait object `T`, if any.
    pub fn catalog_name_of<T: ?Sized + 'static>(&self) -> Option<&str> {
        self.t.names.get(&TypeId::of::<T>()).map(Name::as_str)
    }

    /// Whether the catalog class `name` is registered.
    pub fn has_class(&self, name: &str) -> bool {
        self.t.classes.contains_key(name)
    }

    /// Registered classes as (catalog name, Rust type name), sorted by catalog name; the
    /// start of a catalog export for the compiler.
    pub fn classes(&self) -> Vec<(&str, &'static str)> {
        let mut v: Vec<_> = self
            .t
            .classes
            .iter()
            .map(|(n, c)| (n.as_str(), c.rust_name))
            .collect();
        v.sort_unstable();
        v
    }

    /// Whether the catalog interface `name` is registered.
    pub fn has_interface(&self, name: &str) -> bool {
        self.t.interfaces.contains_key(name)
    }

    /// Whether the class `class` registered a caster to the interface `interface`.
    pub fn implements(&self, class: &str, interface: &str) -> bool {
        match (self.t.classes.get(class), self.t.interfaces.get(interface)) {
            (Some(c), Some((i, _))) => self.t.casters.contains_key(&(c.type_id, *i)),
            _ => false,
        }
    }

    /// Whether an object of the registered class `class` would cast to `T` ([`Registry::cast`]
    /// of it succeeds): `Err` with the class's Rust type name when it would not, `Ok` when it
    /// would or the class is not registered (nothing to say before it is made).
    pub(crate) fn class_casts_to<T: ?Sized + 'static>(
        &self,
        class: &str,
    ) -> Result<(), &'static str> {
        let Some(c) = self.t.classes.get(class) else {
            return Ok(());
        };
        let wanted = TypeId::of::<T>();
        match c.type_id == wanted || self.t.casters.contains_key(&(c.type_id, wanted)) {
            true => Ok(()),
            false => Err(c.rust_name),
        }
    }

    /// The object as `Arc<T>`: when `T` is the object's concrete type, directly; when `T` is
    /// a trait object, through the caster registered for (concrete type, `T`). `None` when
    /// neither applies.
    ///
    /// Inlined into its callers (a `get`, a constructor's `Args::service`): the identity
    /// case is a `TypeId` comparison and a reference count; a trait object goes through
    /// its registered caster, looked up out of line.
    #[inline(always)]
    pub fn cast<T: ?Sized + 'static>(&self, instance: &Instance) -> Option<Arc<T>> {
        let wanted = TypeId::of::<T>();
        // Asked once: the object's `TypeId` comes through its vtable.
        let concrete = instance.type_id();
        if wanted == concrete {
            // SAFETY: the `TypeId`s were compared just above.
            return unsafe { instance.identity_arc_unchecked::<T>() };
        }
        self.cast_through_caster(instance, concrete, wanted)
    }

    /// [`Registry::cast`] of an instance the caller owns and gives up (a new transient asked
    /// for directly): for `T` = the concrete type its reference is handed over (no increment
    /// and decrement of the shared count); any other `T` goes through the caster. `Err` gives
    /// the instance back when it is not a `T`.
    #[inline]
    pub(crate) fn cast_owned<T: ?Sized + 'static>(
        &self,
        instance: Instance,
    ) -> Result<Arc<T>, Instance> {
        if TypeId::of::<T>() == instance.type_id() {
            // SAFETY: the `TypeId`s were compared just above.
            return unsafe { instance.into_identity_arc_unchecked::<T>() };
        }
        let concrete = instance.type_id();
        match self.cast_through_caster(&instance, concrete, TypeId::of::<T>()) {
            Some(arc) => Ok(arc),
            None => Err(instance),
        }
    }

    /// [`Registry::cast`] when `T` (`wanted`) is not the object's concrete type (`concrete`):
    /// through the caster registered for the pair, if any.
    #[inline(never)]
    fn cast_through_caster<T: ?Sized + 'static>(
        &self,
        instance: &Instance,
        concrete: TypeId,
        wanted: TypeId,
    ) -> Option<Arc<T>> {
        let caster = self.t.casters.get(&(concrete, wanted))?;
        let mut out: Option<Arc<T>> = None;
        caster(instance.as_any(), &mut out);
        out
    }

    /// The catalog class name of the object's concrete type, if it was registered.
    pub fn class_name_of_instance(&self, instance: &Instance) -> Option<&str> {
        self.t.names.get(&instance.type_id()).map(Name::as_str)
    }

    pub(crate) fn type_entry(&self, id: TypeId) -> Option<&TypeEntry> {
        self.t.types.get(&id)
    }

    /// The parameters the registration of `class` declares for its constructor (`method`
    /// `None`) or for `method` (an instance method, else a static one), when it declares them
    /// ([`ClassBuilder::signature`], `method_signature`, `static_signature`).
    pub(crate) fn declared_params(&self, class: &str, method: Option<&str>) -> Option<&[Param]> {
        let c = self.t.classes.get(class)?;
        let Some(method) = method else {
            return c.more().ctor_sig.as_deref();
        };
        let instance = self
            .type_entry(c.type_id)
            .and_then(|t| t.method_sigs.get(method));
        instance
            .or_else(|| c.more().static_sigs.get(method))
            .map(|sig| &*sig.params)
    }
}

impl Tables {
    /// See [`Registry::interface`].
    fn interface<I: ?Sized + 'static>(&mut self, name: &str) {
        let id = TypeId::of::<I>();
        self.interfaces
            .insert(name.to_string(), (id, std::any::type_name::<I>()));
        self.names.entry(id).or_insert_with(|| Name::from(name));
    }
}

/// Registers one class; returned by [`Registry::class`]. Each method writes into the
/// registry immediately and returns the builder for chaining.
pub struct ClassBuilder<'r, T> {
    /// The registry's tables, made unique once by [`Registry::class`].
    t: &'r mut Tables,
    /// The class's index in the registry's class table (stable while the builder borrows the
    /// registry: entries are only added at the end or replaced in place).
    index: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T: Any + Send + Sync> ClassBuilder<'_, T> {
    pub(crate) fn class(&mut self) -> &mut ClassEntry {
        // Registry::class inserted the entry at `index` and the builder borrows the registry
        // mutably, so the index still names it (no hash, no key comparison per call).
        &mut self.t.classes[self.index]
    }

    pub(crate) fn type_entry(&mut self) -> &mut TypeEntry {
        self.t.types.entry(TypeId::of::<T>()).or_default()
    }

    /// The constructor used by `{"$new": "<this class>", "args": [...]}`. It receives the
    /// positional, complete arguments of the catalog constructor.
    ///
    /// `f` is any function or closure (a `fn` pointer too): it is compiled into the stored
    /// constructor, so the object it returns goes straight into its `Arc` (through a `fn`
    /// pointer, it came back through memory and was copied with a store-forwarding stall).
    pub fn constructor<F>(mut self, f: F) -> Self
    where
        F: Fn(&Args<'_>) -> CallResult<T> + Send + Sync + 'static,
    {
        let class = self.class();
        class.ctor = Some(Arc::new(move |a| f(a).map(Instance::from_value)));
        class.async_ctor = None;
        self
    }

    /// An async constructor, used by `{"$new": "<this class>", ...}` when the service is
    /// created with [`Container::get_async`](crate::Container::get_async) (Clean IoC 2's
    /// async factories). It runs in two parts: `f` reads and converts the arguments
    /// synchronously, then returns the future that builds the object; the future owns what
    /// it needs, so it is `'static` and may be awaited on any executor:
    ///
    /// ```
    /// # use wireplan_runtime::Registry;
    /// struct Pool { url: String }
    /// impl Pool { async fn connect(url: String) -> Pool { Pool { url } } }
    /// let mut registry = Registry::new();
    /// registry.class::<Pool>("App\\Pool").async_constructor(|a| {
    ///     let url = a.str(0)?.to_string();
    ///     Ok(Box::pin(async move { Ok(Pool::connect(url).await) }))
    /// });
    /// ```
    ///
    /// The catalog export marks the class `async: true`, so the compiler sets
    /// `requires_async` on every service whose creation reaches it. A sync `get` of such a
    /// service is [`Error::AsyncRequired`](crate::Error::AsyncRequired). Replaces a sync
    /// [`constructor`](Self::constructor) registered before (and is replaced by one after).
    pub fn async_constructor(
        mut self,
        f: fn(&Args<'_>) -> CallResult<BoxFuture<CallResult<T>>>,
    ) -> Self {
        self.t.async_classes = true;
        let class = self.class();
        class.async_ctor = Some(Arc::new(move |a| {
            let fut = f(a)?;
            Ok(Box::pin(async move { fut.await.map(Instance::from_value) })
                as BoxFuture<CallResult<Instance>>)
        }));
        class.ctor = None;
        self
    }

    /// Declares that this class implements the catalog interface `name`, represented in
    /// Rust by the trait object `I`, with the coercion `cast` (write `|x| x`: the closure
    /// coerces `Arc<T>` to `Arc<dyn Trait>` on stable Rust).
    ///
    /// After this, services of this class can be fetched as `Arc<I>`
    /// (`container.get::<dyn Logger>("logger")`), passed to `args.service::<dyn Logger>(i)`,
    /// and `container.get_by_type::<dyn Logger>()` finds the plan's services of type `name`.
    pub fn implements<I: ?Sized + 'static>(self, name: &str, cast: fn(Arc<T>) -> Arc<I>) -> Self {
        self.t.interface::<I>(name);
        let caster: CasterFn = Arc::new(move |o: &Arc<Erased>, out: &mut dyn Any| {
            if let Some(out) = out.downcast_mut::<Option<Arc<I>>>() {
                *out = o.clone().downcast::<T>().ok().map(cast);
            }
        });
        self.t
            .casters
            .insert((TypeId::of::<T>(), TypeId::of::<I>()), caster);
        self
    }

    /// A method on a shared object (`&T`), callable in setups on `@self` and on any published
    /// service (`{"$call": [{"$ref": "svc"}, "name"], ...}`). Its result becomes the value of
    /// the `$call` expression; return `Ok(())` for none.
    pub fn method<R: Into<Value> + 'static>(
        mut self,
        name: &str,
        f: fn(&T, &Args<'_>) -> CallResult<R>,
    ) -> Self {
        let m: MethodFn = Arc::new(
            move |o: &Erased, a: &Args<'_>| match o.downcast_ref::<T>() {
                Some(t) => f(t, a).map(Into::into),
                None => Err(wrong_receiver::<T>()),
            },
        );
        self.type_entry().methods.insert(name.to_string(), m);
        self
    }

    /// A method that needs `&mut T`; callable only from a setup on `@self`, while no one else
    /// holds the object (see the module docs). Preferred over a [`method`](Self::method) of the
    /// same name in setups.
    pub fn method_mut(mut self, name: &str, f: fn(&mut T, &Args<'_>) -> CallResult<()>) -> Self {
        self.type_entry()
            .methods_mut
            .insert(name.to_string(), mut_fn::<T>(f));
        self
    }

    /// A property writer for setups' `{"$set": ["@self", "name"], "value": V}`: gets `&mut T`
    /// and the value as argument `0` (`a.bool(0)?`, `a.service::<Db>(0)?`). Same access rules
    /// as [`method_mut`](Self::method_mut).
    pub fn property(mut self, name: &str, f: fn(&mut T, &Args<'_>) -> CallResult<()>) -> Self {
        self.type_entry()
            .properties
            .insert(name.to_string(), mut_fn::<T>(f));
        self
    }

    /// A property reader for `{"$get": [target, "name"]}` (Nette's `@svc::name` argument): gets
    /// `&T` and returns the property's value. Works on `@self` in setups and on any published
    /// service, like [`method`](Self::method).
    pub fn getter<R: Into<Value> + 'static>(mut self, name: &str, f: fn(&T) -> R) -> Self {
        let g: GetterFn = Arc::new(move |o: &Erased| match o.downcast_ref::<T>() {
            Some(t) => Ok(f(t).into()),
            None => Err(wrong_receiver::<T>()),
        });
        self.type_entry().getters.insert(name.to_string(), g);
        self
    }

    /// A static method of the class, for `{"$call": ["<this class>", "name"], ...}` (e.g. a
    /// factory `App\LoggerFactory::create`). To create a service, return the object as a value:
    /// `Ok(Value::service(FileLogger::new(..)))`.
    pub fn static_method<R: Into<Value> + 'static>(
        mut self,
        name: &str,
        f: fn(&Args<'_>) -> CallResult<R>,
    ) -> Self {
        let s: StaticFn = Arc::new(move |a| f(a).map(Into::into));
        self.class().more_mut().statics.insert(name.to_string(), s);
        self
    }
}

impl<T: Any + Send + Sync> ClassBuilder<'_, T> {
    /// A hook run when the container (for singletons) or the scope (for scoped services)
    /// that created the object releases it: in reverse creation order, before the container
    /// drops its reference. Use it for explicit cleanup (flush, close); `Drop` still runs when
    /// the last `Arc` goes. Transient objects are not tracked and get no hook call.
    pub fn on_dispose(mut self, f: fn(&T)) -> Self {
        let hook: DisposeFn = Arc::new(move |o: &Erased| {
            if let Some(t) = o.downcast_ref::<T>() {
                f(t)
            }
        });
        self.type_entry().dispose = Some(hook);
        self.t.dispose_hooks = true;
        self
    }

    /// For [`Registry::catalog`]: the parent class in the catalog (`extends:`).
    pub fn extends(mut self, parent: &str) -> Self {
        self.class().more_mut().extends = Some(parent.to_string());
        self
    }

    /// For [`Registry::catalog`]: a class constant (`constants:`), e.g. `("VERSION", 2)`.
    pub fn constant(mut self, name: &str, value: impl Into<Value>) -> Self {
        let v = value.into();
        let c = &mut self.class().more_mut().constants;
        c.retain(|(n, _)| n != name);
        c.push((name.to_string(), v));
        self
    }

    /// For [`Registry::catalog`]: the constructor's parameters, in order (the
    /// [`register!`](crate::register) macro fills this from the Rust signature). A wrong
    /// argument then names its parameter ([`ParamError`](crate::ParamError)).
    pub fn signature(mut self, params: Vec<Param>) -> Self {
        self.class().more_mut().ctor_sig = Some(params);
        self
    }

    /// For [`Registry::catalog`]: the signature of the method `name` (instance methods,
    /// `method`, `method_mut`).
    pub fn method_signature(mut self, name: &str, sig: MethodSig) -> Self {
        self.type_entry().method_sigs.insert(name.to_string(), sig);
        self
    }

    /// For [`Registry::catalog`]: the signature of the static method `name`.
    pub fn static_signature(mut self, name: &str, sig: MethodSig) -> Self {
        self.class()
            .more_mut()
            .static_sigs
            .insert(name.to_string(), sig);
        self
    }

    /// For [`Registry::catalog`]: marks the property `name` (whose writer is registered with
    /// [`property`](Self::property)) as one Nette's inject step fills, as PHP's `#[Inject]`
    /// attribute on a public property does: the catalog writes it `{type: T, inject: true}`,
    /// and a service written `inject: true` then gets a setup that writes the property with
    /// the service autowired for its type (docs/catalog.md, "inject"). The derive's
    /// `#[property(inject)]` and `register!`'s `inject property name(..)` call it.
    pub fn inject_property(mut self, name: &str) -> Self {
        self.type_entry().injected.insert(name.to_string());
        self
    }

    /// For [`Registry::catalog`]: the type of the property `name` (written by a
    /// [`property`](Self::property) writer).
    pub fn property_type(mut self, name: &str, ty: TypeFn) -> Self {
        self.type_entry()
            .property_types
            .insert(name.to_string(), ty);
        self
    }
}

fn new_entry<T: Any>() -> ClassEntry {
    ClassEntry {
        type_id: TypeId::of::<T>(),
        rust_name: std::any::type_name::<T>(),
        ctor: None,
        async_ctor: None,
        more: None,
    }
}

fn mut_fn<T: Any + Send + Sync>(f: fn(&mut T, &Args<'_>) -> CallResult<()>) -> MethodMutFn {
    Arc::new(
        move |o: &mut Erased, a: &Args<'_>| match o.downcast_mut::<T>() {
            Some(t) => f(t, a),
            None => Err(wrong_receiver::<T>()),
        },
    )
}

fn wrong_receiver<T>() -> crate::value::BoxError {
    format!(
        "receiver is not a {} (registry/plan mismatch)",
        std::any::type_name::<T>()
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts a load reads stay inline and small; the rest is one pointer.
    #[test]
    fn a_class_entry_keeps_its_rare_parts_out_of_line() {
        assert!(std::mem::size_of::<ClassEntry>() <= 72);
        struct Plain;
        let mut r = Registry::new();
        r.class::<Plain>("App\\Plain").constructor(|_| Ok(Plain));
        let c = &r.t.classes["App\\Plain"];
        assert!(c.more.is_none());
        assert!(c.more().statics.is_empty() && c.more().extends.is_none());
        r.class::<Plain>("App\\Plain").extends("App\\Base");
        let c = &r.t.classes["App\\Plain"];
        assert_eq!(c.more().extends.as_deref(), Some("App\\Base"));
        assert!(
            c.ctor.is_some(),
            "registering catalog data keeps the constructor"
        );
    }

    trait Named: Send + Sync {
        fn name(&self) -> &str;
    }

    struct Clock(&'static str);

    impl Named for Clock {
        fn name(&self) -> &str {
            self.0
        }
    }

    /// An owned instance cast to its own type hands its reference over (no second one);
    /// to a registered trait object it goes through the caster; to anything else it comes
    /// back untouched.
    #[test]
    fn an_owned_instance_is_handed_over_to_its_own_type() {
        let mut r = Registry::new();
        r.class::<Clock>("App\\Clock")
            .implements::<dyn Named>("App\\Named", |x| x);
        let made = Instance::from_value(Clock("utc"));
        let watch = made.clone();
        assert_eq!(Arc::strong_count(watch.as_any()), 2);
        let clock: Arc<Clock> = r.cast_owned(made).expect("its own type");
        assert_eq!(clock.0, "utc");
        // `made`'s reference became `clock`'s: still two, not three.
        assert_eq!(Arc::strong_count(watch.as_any()), 2);
        drop(clock);
        assert_eq!(Arc::strong_count(watch.as_any()), 1);

        let named: Arc<dyn Named> = r.cast_owned(watch.clone()).expect("the caster");
        assert_eq!(named.name(), "utc");
        assert_eq!(Arc::strong_count(watch.as_any()), 2);
        drop(named);

        let back = r
            .cast_owned::<String>(watch.clone())
            .expect_err("not a String");
        assert_eq!(back.addr(), watch.addr());
        assert_eq!(Arc::strong_count(watch.as_any()), 2);
    }
}
