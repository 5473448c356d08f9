//! Service resolution: finding a service by name, alias or type, honouring its lifespan
//! (singleton, scoped, transient) with single-flight caching and cycle detection, and
//! creating its object. Evaluating the plan's expressions for that lives in `eval`.

use std::borrow::Cow;
use std::cell::Cell;
use std::sync::Arc;

use super::cell::CacheSlot;
use super::eval::{Frame, Owner};
use super::program::Node;
use super::{Inner, ScopeState};
use crate::error::Error;
use crate::generated;
use crate::plan::{Lifespan, ServiceKind};
use crate::value::{Instance, Value};

/// The services being created on the way to the current one (outermost first), for cycle
/// detection and messages; inline up to 8 levels, so a request allocates nothing for it.
pub(crate) type Path = smallvec::SmallVec<[usize; 8]>;

/// How deep transients may nest within one thread before it is called a cycle (a transient
/// has no cache that could reveal a cycle through user code).
const MAX_TRANSIENT_DEPTH: usize = 256;

/// Stack that must remain before resolving one more service or evaluating one more
/// expression; with less, the recursion continues on a new stack segment (`stacker`). It
/// covers the frames between two such points (in a debug build up to some 40 KB per
/// dependency level) and leaves room for the constructors and methods called there.
pub(super) const RED_ZONE: usize = 256 * 1024;
/// The size of each new stack segment.
pub(super) const STACK_SEGMENT: usize = 2 * 1024 * 1024;

/// This thread's creation depths, in one thread-local (one lookup per access, no destructor
/// to register): how many objects are under construction (nested `create_service` calls,
/// bounded by [`super::MAX_RESOLUTION_DEPTH`]) and how many of them are transients (bounded
/// by [`MAX_TRANSIENT_DEPTH`]).
struct Depths {
    creating: Cell<usize>,
    transient: Cell<usize>,
}

thread_local! {
    static DEPTHS: Depths = const {
        Depths {
            creating: Cell::new(0),
            transient: Cell::new(0),
        }
    };
}

/// One level of [`Depths::creating`], released on drop (also when a constructor panics).
struct CreatingGuard;

impl CreatingGuard {
    /// Enters one more level, or `None` at [`super::MAX_RESOLUTION_DEPTH`].
    fn enter() -> Option<CreatingGuard> {
        DEPTHS.with(|d| {
            let n = d.creating.get();
            (n < super::MAX_RESOLUTION_DEPTH).then(|| {
                d.creating.set(n + 1);
                CreatingGuard
            })
        })
    }
}

impl Drop for CreatingGuard {
    fn drop(&mut self) {
        DEPTHS.with(|d| d.creating.set(d.creating.get().saturating_sub(1)));
    }
}

/// One level of [`Depths::transient`], released on drop (also when a constructor panics).
struct TransientGuard;

impl TransientGuard {
    /// Enters one more transient level, or `None` past [`MAX_TRANSIENT_DEPTH`].
    fn enter() -> Option<TransientGuard> {
        DEPTHS.with(|d| {
            let n = d.transient.get() + 1;
            (n <= MAX_TRANSIENT_DEPTH).then(|| {
                d.transient.set(n);
                TransientGuard
            })
        })
    }
}

impl Drop for TransientGuard {
    fn drop(&mut self) {
        DEPTHS.with(|d| d.transient.set(d.transient.get().saturating_sub(1)));
    }
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

impl Inner {
    // ----------------------------------------------------------------------------------
    // public entry points (Container and Scope delegate here)

    /// [`Error::UnknownService`] for a name the caller asked for, with a hint: a class name
    /// is asked for by type (`get_by_type_name`); otherwise the closest service or alias name
    /// by the project's one suggestion rule ([`crate::suggest::suggest`]).
    pub(crate) fn unknown_service(&self, name: &str) -> Error {
        let hint = if name.contains('\\') {
            Some(format!(
                "'{name}' is a class name: get_by_type_name(\"{name}\") asks for the service of a type"
            ))
        } else {
            let names = (0..self.service_count())
                .filter_map(|i| self.service_name(i))
                .chain(self.aliases().keys().map(|a| a.as_str()));
            crate::suggest::suggest(name, names).map(|n| format!("did you mean '{n}'?"))
        };
        Error::UnknownService {
            name: name.to_string(),
            hint,
        }
    }

    /// The service index of `name` after following aliases.
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        // A service name is the common case: one hash probe, the aliases only on a miss.
        if let Some(i) = self.service_index(name) {
            return Some(i);
        }
        self.service_index(self.canonical(name))
    }

    fn canonical<'a>(&'a self, name: &'a str) -> &'a str {
        let mut n = name;
        // Bounded: a cycle of aliases cannot hang the lookup.
        let aliases = self.aliases();
        for _ in 0..=aliases.len() {
            match aliases.get(n) {
                Some(target) if self.service_index(n).is_none() => n = target,
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
        let idx = self
            .index_of(name)
            .ok_or_else(|| self.unknown_service(name))?;
        let ctx = Ctx { scope, args: None };
        self.resolve_index(idx, ctx, &mut Path::new())
    }

    pub(crate) fn get<T: ?Sized + 'static>(
        &self,
        name: &str,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        let idx = self
            .index_of(name)
            .ok_or_else(|| self.unknown_service(name))?;
        self.get_index(idx, scope)
    }

    pub(crate) fn get_index<T: ?Sized + 'static>(
        &self,
        idx: usize,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        // The fast path skips generated services asked for in a scope: see `resolve_index`.
        // A cached hit casts the slot's object in place (no clone of the `Instance`).
        match self.cached_in(idx, scope) {
            Some(i) => self.cast(idx, i),
            None => {
                let ctx = Ctx { scope, args: None };
                // Matched in place: binding the `Cow` first copied it out of the returned
                // `Result` with a 16-byte load over the callee's 8-byte stores (a
                // store-forwarding stall per creation).
                match self.resolve_missed(idx, ctx, &mut Path::new())? {
                    Cow::Borrowed(inst) => self.cast(idx, inst),
                    Cow::Owned(inst) => self.cast_owned(idx, inst),
                }
            }
        }
    }

    #[inline]
    pub(crate) fn cast<T: ?Sized + 'static>(
        &self,
        idx: usize,
        inst: &Instance,
    ) -> Result<Arc<T>, Error> {
        self.registry
            .cast::<T>(inst)
            .ok_or_else(|| self.wrong_type::<T>(idx, inst))
    }

    /// [`Error::WrongType`] for service `idx`'s object `inst` asked for as `T`.
    fn wrong_type<T: ?Sized + 'static>(&self, idx: usize, inst: &Instance) -> Error {
        let (service, class) = self
            .plan()
            .services
            .get_index(idx)
            .map(|(n, s)| (n.to_string(), s.type_.to_string()))
            .unwrap_or_default();
        Error::WrongType {
            service,
            class,
            rust_type: inst.type_name(),
            requested: std::any::type_name::<T>(),
        }
    }

    /// [`Inner::cast`] of an instance the caller gives up (a new object, or a reference it
    /// took for itself): when `T` is the concrete type, the instance's reference is handed
    /// over instead of a second one taken and the first dropped (two locked instructions
    /// fewer per transient asked for; docs/performance.md, "Twenty-fourth round").
    #[inline]
    pub(crate) fn cast_owned<T: ?Sized + 'static>(
        &self,
        idx: usize,
        inst: Instance,
    ) -> Result<Arc<T>, Error> {
        self.registry
            .cast_owned::<T>(inst)
            .map_err(|inst| self.wrong_type::<T>(idx, &inst))
    }

    /// The entry of the by-type table (built on first use) for the Rust type `T`, if the
    /// loader indexed one.
    fn by_type_entry<T: ?Sized + 'static>(&self) -> Option<&super::ByType> {
        self.by_type
            .get_or_init(|| super::load::by_type_table(self))
            .get(&std::any::TypeId::of::<T>())
    }

    /// The service autowired for the Rust type `T` (Nette's `getByType`): the one the loader
    /// indexed for its `TypeId`, else the only service of its catalog type. `Ok(Err(type_name))`
    /// when the plan has none or several (then [`Inner::get_by_type_name`] words the error).
    /// Errors: [`Error::UnregisteredType`] when `T` has no catalog name.
    pub(crate) fn autowired_index<T: ?Sized + 'static>(
        &self,
    ) -> Result<Result<usize, &str>, Error> {
        match self.by_type_entry::<T>() {
            Some(entry) => Ok(Ok(entry.idx)),
            None => self.index_by_catalog_name::<T>(),
        }
    }

    /// [`Inner::autowired_index`] for a `T` the by-type table does not index: through `T`'s
    /// catalog name.
    fn index_by_catalog_name<T: ?Sized + 'static>(&self) -> Result<Result<usize, &str>, Error> {
        let type_name = self
            .registry
            .catalog_name_of::<T>()
            .ok_or(Error::UnregisteredType {
                rust_type: std::any::type_name::<T>(),
                by_name: Some("get_by_type_name"),
            })?;
        Ok(match self.find_by_type(type_name) {
            [one] => self.index_of(one).ok_or(type_name),
            _ => Err(type_name),
        })
    }

    pub(crate) fn get_by_type<T: ?Sized + 'static>(
        &self,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        let idx = match self.by_type_entry::<T>() {
            // Without a scope, a created singleton's cast is kept in its entry (`ByType`).
            Some(entry) if scope.is_none() => {
                if let Some(hit) = entry.cast.get().and_then(|c| c.get::<T>()) {
                    return Ok(hit.clone());
                }
                let got = self.get_index::<T>(entry.idx, None)?;
                if self.slots[entry.idx].get().is_some() {
                    let _ = entry.cast.set(super::CastArc::new(got.clone()));
                }
                return Ok(got);
            }
            Some(entry) => Ok(entry.idx),
            None => self.index_by_catalog_name::<T>()?,
        };
        match idx {
            Ok(idx) => self.get_index(idx, scope),
            Err(type_name) => self.get_by_type_name::<T>(type_name, scope),
        }
    }

    pub(crate) fn get_by_type_name<T: ?Sized + 'static>(
        &self,
        type_name: &str,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Arc<T>, Error> {
        match self.find_by_type(type_name) {
            [] => Err(Error::NoServiceOfType {
                type_name: type_name.to_string(),
                // The plan knows each service's own type only (not its parents).
                not_autowired: self
                    .plan()
                    .services
                    .iter()
                    .filter(|(_, s)| s.type_ == type_name)
                    .map(|(n, _)| n.to_string())
                    .collect(),
            }),
            [one] => self.get::<T>(one, scope),
            many => Err(Error::AmbiguousType {
                type_name: type_name.to_string(),
                services: many.iter().map(|n| n.to_string()).collect(),
            }),
        }
    }

    pub(crate) fn find_by_type(&self, type_name: &str) -> &[crate::plan::Name] {
        self.types()
            .get(type_name)
            .map(|names| names.as_slice())
            .unwrap_or(&[])
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
        let mut path: Path = smallvec::smallvec![service];
        let mut made = self.create_service(service, ctx, &mut path);
        // A step of the product itself failed (not a dependency, which names itself): say
        // that the factory could not create its product, not that the factory is broken.
        if let Err(Error::ConstructorFailed {
            service: failed,
            factory_product,
            ..
        }) = &mut made
        {
            if failed == self.name_of(service) {
                *factory_product = true;
            }
        }
        made
    }

    /// A new object of service `idx`, whatever its lifespan, not cached (Nette's
    /// `createService`; a locator's `create`). Its dependencies resolve as usual, in `scope`.
    pub(crate) fn create_new(
        &self,
        idx: usize,
        scope: Option<&Arc<ScopeState>>,
    ) -> Result<Instance, Error> {
        if matches!(
            self.program.services[idx].kind,
            ServiceKind::Imported | ServiceKind::Slot
        ) {
            return Err(Error::BadArguments {
                service: self.name_of(idx).to_string(),
                reason: "an imported service or scope slot cannot be created anew".into(),
            });
        }
        let mut path: Path = smallvec::smallvec![idx];
        self.create_service(idx, Ctx { scope, args: None }, &mut path)
    }

    // ----------------------------------------------------------------------------------
    // lifespans and caching

    #[inline]
    pub(crate) fn name_of(&self, idx: usize) -> &str {
        self.service_name(idx).unwrap_or("?")
    }

    pub(super) fn names(&self, path: &[usize]) -> Vec<String> {
        path.iter().map(|&i| self.name_of(i).to_string()).collect()
    }

    #[cold]
    #[inline(never)]
    pub(super) fn cycle(&self, from: &[usize], repeated: usize) -> Error {
        let mut path = self.names(from);
        path.push(self.name_of(repeated).to_string());
        Error::CircularReference { path }
    }

    /// The instance of service `idx` for a request in `ctx`, created if its lifespan says so.
    ///
    /// Creation runs on a new stack segment when the current one is nearly used up, so a deep
    /// dependency graph does not overflow a small thread stack; a cached instance is returned
    /// right away.
    pub(crate) fn resolve_index(
        &self,
        idx: usize,
        ctx: Ctx<'_>,
        path: &mut Path,
    ) -> Result<Instance, Error> {
        self.resolve_ref(idx, ctx, path).map(Cow::into_owned)
    }

    /// The instance a request for service `idx` in `scope` finds already cached, if any: a
    /// scoped service or slot in the scope or an ancestor, any other service in the
    /// container, except a factory, accessor or locator asked for in a scope (that request
    /// gets a new handle bound to the scope). Inlined into the callers' fast paths, so a hit
    /// comes back in a register, with no stack check and no result written through memory.
    #[inline(always)]
    pub(crate) fn cached_in<'a>(
        &'a self,
        idx: usize,
        scope: Option<&'a Arc<ScopeState>>,
    ) -> Option<&'a Instance> {
        let Some(scope) = scope else {
            return self.slots[idx].get();
        };
        match self.scoped_slot[idx] {
            Some(slot) => scope.find(slot as usize),
            None => match self.program.services[idx].kind {
                ServiceKind::Factory | ServiceKind::Accessor | ServiceKind::Locator => None,
                _ => self.slots[idx].get(),
            },
        }
    }

    /// [`Inner::resolve_index`] without taking a reference of its own: a cached instance is
    /// borrowed from the container or scope that holds it (no reference count touched), a new
    /// one (transient, generated handle) is owned.
    pub(crate) fn resolve_ref<'a>(
        &'a self,
        idx: usize,
        ctx: Ctx<'a>,
        path: &mut Path,
    ) -> Result<Cow<'a, Instance>, Error> {
        if let Some(inst) = self.cached_in(idx, ctx.scope) {
            return Ok(Cow::Borrowed(inst));
        }
        self.resolve_missed(idx, ctx, path)
    }

    /// [`Inner::resolve_ref`] after [`Inner::cached_in`] found nothing (its callers' fast
    /// paths ask that first, so it is not asked twice).
    pub(crate) fn resolve_missed<'a>(
        &'a self,
        idx: usize,
        ctx: Ctx<'a>,
        path: &mut Path,
    ) -> Result<Cow<'a, Instance>, Error> {
        // A factory, accessor or locator asked for inside a scope is a fresh handle bound to
        // that scope (handles are cheap), so it can reach the scope's services; the cached
        // container-wide one has no scope.
        if ctx.scope.is_some() && ctx.args.is_none() {
            match self.program.services[idx].kind {
                ServiceKind::Factory => {
                    return Ok(Cow::Owned(generated::factory(self, idx, ctx.scope)))
                }
                ServiceKind::Accessor => {
                    return Ok(Cow::Owned(generated::accessor(self, idx, ctx.scope)))
                }
                ServiceKind::Locator => {
                    return Ok(Cow::Owned(generated::locator(self, idx, ctx.scope)))
                }
                _ => {}
            }
        }
        if let Some(inst) = self.slots[idx].get() {
            return Ok(Cow::Borrowed(inst));
        }
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            self.resolve_uncached(idx, ctx, path)
        })
    }

    /// [`Inner::resolve_index`] for a service without a container-wide instance yet.
    fn resolve_uncached<'a>(
        &'a self,
        idx: usize,
        ctx: Ctx<'a>,
        path: &mut Path,
    ) -> Result<Cow<'a, Instance>, Error> {
        if let Some(start) = path.iter().position(|&p| p == idx) {
            return Err(self.cycle(&path[start..], idx));
        }
        let sp = &self.program.services[idx];
        if sp.kind == ServiceKind::Imported {
            // Checked at load; only reachable through a plan edited in memory.
            return Err(Error::UnknownService {
                name: self.name_of(idx).to_string(),
                hint: None,
            });
        }
        if sp.kind == ServiceKind::Slot {
            return self.slot_value(idx, ctx.scope, path).map(Cow::Borrowed);
        }
        match sp.lifespan {
            Lifespan::Singleton => self
                .cached(idx, &self.slots[idx], &self.lock, None, Ctx::ROOT, path)
                .map(Cow::Borrowed),
            Lifespan::Scoped => {
                let (Some(scope), Some(slot)) = (ctx.scope, self.scoped_slot[idx]) else {
                    let mut p = self.names(path);
                    p.push(self.name_of(idx).to_string());
                    return Err(self.scope_required(p));
                };
                // `resolve_ref`, the only caller, looked in this scope and its ancestors.
                let slot = slot as usize;
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
                .map(Cow::Borrowed)
            }
            Lifespan::Transient => {
                let Some(_level) = TransientGuard::enter() else {
                    return Err(self.cycle(path, idx));
                };
                path.push(idx);
                let created = self.create_service(
                    idx,
                    Ctx {
                        scope: ctx.scope,
                        args: None,
                    },
                    path,
                );
                path.pop();
                created.map(Cow::Owned)
            }
        }
    }

    /// Single-flight construction of a cached (singleton or scoped) instance; the instance
    /// in its slot. `slot` and `lock` belong to the same owner (a container slot and the
    /// container's lock, or a scope's cell and that scope's lock): the cell is filled with
    /// that lock held (see `CacheSlot::fill`).
    fn cached<'s, S: CacheSlot>(
        &self,
        idx: usize,
        slot: &'s S,
        lock: &super::lock::BuildLock,
        scope: Option<&Arc<ScopeState>>,
        ctx: Ctx<'_>,
        path: &mut Path,
    ) -> Result<&'s Instance, Error> {
        let guard = lock.lock();
        if let Some(inst) = slot.get() {
            return Ok(inst);
        }
        let building = match guard.enter(idx) {
            Ok(b) => b,
            Err(cycle) => return Err(self.cycle(&cycle, idx)),
        };
        path.push(idx);
        let created = self.create_service(idx, ctx, path);
        path.pop();
        drop(building);
        let inst = created?;
        // We hold the lock and the slot was empty, so this fills it (and only then is the
        // publication recorded: one entry per filled slot).
        // SAFETY: `lock` is the lock of the slot's owner (the container's for its slots, the
        // scope's for its cells: the only callers pass them in pairs), the guard holds it, and
        // every fill of these slots happens here or in `provide`, under the same lock.
        let (published, filled) = unsafe { slot.fill(inst) };
        if filled {
            match scope {
                Some(s) => s.created.push(idx),
                None => self.created.push(idx),
            }
        }
        Ok(published)
    }

    /// Creates the object of service `idx`: a generated factory, accessor or locator, or the
    /// result of `create` with the `setup` statements run on it. `path` ends with `idx`.
    ///
    /// Errors: [`Error::TooDeep`] when this thread already has
    /// [`super::MAX_RESOLUTION_DEPTH`] objects under construction.
    ///
    /// Always inlined (as `run_new` into it): each out-of-line hop returned the new instance
    /// as a `Result` through memory, written with 8-byte stores and read back with a 16-byte
    /// load, a store-forwarding stall per hop (about 35 ns per request of three scoped
    /// creations, docs/performance.md "Sixth pass").
    #[inline(always)]
    fn create_service(&self, idx: usize, ctx: Ctx<'_>, path: &mut Path) -> Result<Instance, Error> {
        let Some(_level) = CreatingGuard::enter() else {
            return Err(Error::TooDeep {
                path: self.names(path),
                limit: super::MAX_RESOLUTION_DEPTH,
            });
        };
        let sp = self.compiled(idx).ok_or_else(|| Error::UnknownService {
            name: idx.to_string(),
            hint: None,
        })?;
        if sp.requires_async && !super::async_resolve::in_async_tail() {
            return Err(self.async_required(self.async_path(path)));
        }
        match sp.kind {
            ServiceKind::Factory if ctx.args.is_none() => {
                return Ok(generated::factory(self, idx, ctx.scope))
            }
            ServiceKind::Accessor => return Ok(generated::accessor(self, idx, ctx.scope)),
            ServiceKind::Locator => return Ok(generated::locator(self, idx, ctx.scope)),
            _ => {}
        }
        let frame = Frame::new(idx, ctx);
        // The common `create`, a constructor call, runs directly (the caller grew the stack).
        let mut inst = match &sp.create {
            Node::New(op) => self.run_new(op, &frame, path)?,
            other => match self.run(other, &frame, path)? {
                Value::Service(i) => i,
                other => {
                    return Err(self.fail(
                        Owner::Service(idx),
                        path,
                        "create",
                        format!("produced {}, not an object", other.kind()),
                    ))
                }
            },
        };
        for (i, stmt) in sp.setup.iter().enumerate() {
            self.run_setup(stmt, i + 1, &mut inst, &frame, path)?;
        }
        Ok(inst)
    }
}
