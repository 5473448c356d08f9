//! Scope slots: `scoped` services the application fills in each [`Scope`] instead of the
//! plan creating them (`slot: true` in the configuration; Symfony's synthetic services, Clean
//! IoC 2's `declare_scope_slot` / `scope.provide`).
//!
//! ## Rules (Clean IoC 2's, §4 of the reference)
//!
//! * Only declared slots are accepted: providing a service that is not a slot, or a type no
//!   slot is autowired for, is [`Error::UndeclaredSlot`].
//! * A slot is provided at most once per scope ([`Error::SlotProvision`] the second time).
//! * Provisions lock once resolution starts: after a scope created its first scoped service,
//!   which may have read a slot, providing in it is [`Error::SlotProvision`]. Provide every
//!   slot right after opening the scope.
//! * A nested scope sees its ancestors' provided values and may provide its own (overriding
//!   them for itself and its descendants) before its own first resolution.
//! * A service that needs a slot nobody provided fails with [`Error::SlotNotProvided`], naming
//!   the slot and the service that needs it; nothing is cached, so providing the slot and
//!   asking again works (while the scope has created nothing yet).
//!
//! A provided value belongs to the application: the scope keeps a reference to it until it is
//! dropped, but runs no dispose hook on it.
//!
//! The slot's value lives in the scope's cache like any scoped instance, so resolving a slot
//! costs what resolving an already created scoped service costs.

use std::any::Any;
use std::sync::Arc;

use super::cell::CacheSlot;
use super::{Container, Inner, Scope, ScopeState};
use crate::error::Error;
use crate::plan::{Plan, ServiceKind};
use crate::value::Instance;

impl Inner {
    /// The provided value of slot `idx` in `scope` (or an ancestor). `path` is the chain of
    /// services being created that led here (the requester last).
    ///
    /// Errors: [`Error::ScopeRequired`] without a scope; [`Error::SlotNotProvided`].
    pub(super) fn slot_value<'a>(
        &self,
        idx: usize,
        scope: Option<&'a Arc<ScopeState>>,
        path: &[usize],
    ) -> Result<&'a Instance, Error> {
        // The path's names are built only for an error: this runs once per request.
        let names = || {
            let mut names = self.names(path);
            names.push(self.name_of(idx).to_string());
            names
        };
        let (Some(scope), Some(slot)) = (scope, self.scoped_slot[idx]) else {
            return Err(self.scope_required(names()));
        };
        match scope.find(slot as usize) {
            Some(inst) => Ok(inst),
            None => Err(Error::SlotNotProvided {
                slot: self.name_of(idx).to_string(),
                type_name: self.plan().services[idx].type_.to_string(),
                path: names(),
            }),
        }
    }

    /// Every slot of the plan as `name (type)`, for error messages.
    fn declared_slots(&self) -> Vec<String> {
        self.plan()
            .services
            .iter()
            .filter(|(_, sp)| sp.kind == ServiceKind::Slot)
            .map(|(n, sp)| format!("{n} ({})", sp.type_))
            .collect()
    }

    /// The slot service `name` (aliases followed).
    fn slot_by_name(&self, name: &str) -> Result<usize, Error> {
        self.index_of(name)
            .filter(|&i| self.program.services[i].kind == ServiceKind::Slot)
            .ok_or_else(|| Error::UndeclaredSlot {
                requested: name.to_string(),
                declared: self.declared_slots(),
            })
    }

    /// The one slot autowired for the Rust type `T` (by its catalog name). `by_name`: what the
    /// caller offers for naming the slot instead (the hint of [`Error::UnregisteredType`]).
    fn slot_by_type<T: ?Sized + 'static>(
        &self,
        by_name: Option<&'static str>,
    ) -> Result<usize, Error> {
        let idx = match self.autowired_index::<T>() {
            Err(Error::UnregisteredType { rust_type, .. }) => {
                return Err(Error::UnregisteredType { rust_type, by_name })
            }
            found => found?.ok(),
        };
        idx.filter(|&i| self.program.services[i].kind == ServiceKind::Slot)
            .ok_or_else(|| Error::UndeclaredSlot {
                requested: self
                    .registry
                    .catalog_name_of::<T>()
                    .unwrap_or(std::any::type_name::<T>())
                    .to_string(),
                declared: self.declared_slots(),
            })
    }

    /// Whether the registered class `class` is `wanted` or implements or extends it.
    fn is_a(&self, class: &str, wanted: &str) -> bool {
        let mut c = class;
        // Bounded: a cycle of `extends` cannot hang the check.
        for _ in 0..=self.registry.t.classes.len() {
            if c == wanted || self.registry.implements(c, wanted) {
                return true;
            }
            match self
                .registry
                .t
                .classes
                .get(c)
                .and_then(|e| e.more().extends.as_deref())
            {
                Some(parent) => c = parent,
                None => return false,
            }
        }
        false
    }

    /// Fills slot `idx` in `state` with `value`.
    fn provide(&self, state: &ScopeState, idx: usize, value: Instance) -> Result<(), Error> {
        let name = self.name_of(idx);
        let fail = |reason: String| Error::SlotProvision {
            slot: name.to_string(),
            reason,
        };
        let type_name = &self.plan().services[idx].type_;
        let exact = self.scoped_slot[idx]
            .and_then(|s| self.slot_types.get(s as usize).copied().flatten())
            .is_some_and(|t| t == value.type_id());
        // Not the slot's own registered type: look up the value's class and walk its parents.
        let class = (!exact)
            .then(|| self.registry.class_name_of_instance(&value))
            .flatten();
        if let Some(class) = class {
            if !self.is_a(class, type_name) {
                return Err(fail(format!(
                    "the value is of class {class} ({}), not of {type_name}",
                    value.type_name()
                )));
            }
        }
        let Some(slot) = self.scoped_slot[idx] else {
            return Err(fail("the plan gives it no place in a scope".into()));
        };
        // Under the scope's build lock, no scoped service is being created meanwhile.
        let guard = state.lock.lock();
        // Provided before: that, not what was created since, is the reason (a new user's
        // trial provided twice after a scoped service was created and was told only the
        // latter).
        if state
            .slots
            .get(slot as usize)
            .is_some_and(|c| c.get().is_some())
        {
            return Err(fail(ALREADY_PROVIDED.into()));
        }
        let created = state.created.len();
        if created > 0 {
            return Err(fail(format!(
                "this scope already created {created} scoped service(s), which may have read \
                 the slot; provide slots right after opening the scope"
            )));
        }
        // Overriding an ancestor's value: what the ancestors created may have read theirs, and
        // this scope would take those instances as they are, so its services would disagree
        // with its own value depending on what was asked first (a new user's trial).
        let mut above = state.parent.as_deref();
        let mut overridden = false;
        let mut created_above = 0;
        while let Some(a) = above {
            overridden |= a
                .slots
                .get(slot as usize)
                .is_some_and(|c| c.get().is_some());
            created_above += a.created.len();
            above = a.parent.as_deref();
        }
        if overridden && created_above > 0 {
            return Err(fail(format!(
                "an enclosing scope provided it and already created {created_above} scoped \
                 service(s), which may have read its value and which this scope would share; \
                 override a slot in a nested scope before the enclosing scopes create scoped \
                 services"
            )));
        }
        // SAFETY: `guard` holds the scope's build lock, under which every fill of its cells
        // happens (here and in `Inner::cached`).
        let filled = state
            .slots
            .get(slot as usize)
            .map(|s| unsafe { s.fill(value) });
        drop(guard);
        match filled {
            Some((_, true)) => Ok(()),
            Some((_, false)) => Err(fail(ALREADY_PROVIDED.into())),
            None => Err(fail("the plan gives it no place in a scope".into())),
        }
    }
}

/// The addresses of the values provided to slots in `state` itself (not its ancestors): the
/// application owns them, so the scope disposes none of them.
pub(super) fn provided_addrs(state: &ScopeState) -> impl Iterator<Item = usize> + '_ {
    let inner = &state.inner;
    inner
        .program
        .services
        .iter()
        .zip(&inner.scoped_slot)
        .filter(|(sp, _)| sp.kind == ServiceKind::Slot)
        .filter_map(|(_, slot)| state.slots.get((*slot)? as usize)?.get())
        .map(Instance::addr)
}

/// Per scope slot (`Inner::scoped_slot` numbering): the `TypeId` of the Rust type registered
/// under the slot service's catalog type, when that type's catalog name is exactly it. A value
/// of that type passes [`Scope::provide`]'s type check without looking up its class; any
/// other value takes the full check. Built once at load.
pub(super) fn slot_types(
    plan: &Plan,
    registry: &crate::Registry,
    scoped_slot: &[Option<u32>],
    scoped_count: usize,
) -> Vec<Option<std::any::TypeId>> {
    let mut types = vec![None; scoped_count];
    for (sp, slot) in plan.services.values().zip(scoped_slot) {
        let Some(slot) = slot else { continue };
        if sp.kind != ServiceKind::Slot {
            continue;
        }
        types[*slot as usize] = registry
            .t
            .classes
            .get(sp.type_.as_str())
            .map(|c| c.type_id)
            .filter(|t| registry.t.names.get(t).is_some_and(|n| *n == sp.type_));
    }
    types
}

/// Why a slot cannot be provided a second time in one scope.
const ALREADY_PROVIDED: &str = "it was already provided in this scope";

impl Scope {
    /// Fills the scope slot autowired for the Rust type `T` (its catalog name from
    /// [`Registry::class`](crate::Registry::class)) with `value` in this scope, for every
    /// service resolved in it or in its nested scopes.
    ///
    /// ```
    /// # use wireplan_runtime::{Container, Registry};
    /// # struct CurrentUser(&'static str);
    /// # let mut registry = Registry::new();
    /// # registry.class::<CurrentUser>("App\\CurrentUser");
    /// # let plan = r#"{"format": "wireplan-plan", "version": 3, "compiler": "x", "inputs_hash": "0",
    /// #   "services": {"user": {"kind": "slot", "type": "App\\CurrentUser", "lifespan": "scoped",
    /// #                         "create": null}},
    /// #   "types": {"App\\CurrentUser": ["user"]}}"#;
    /// let container = Container::from_json_str(plan, &registry)?;
    /// let scope = container.scope();
    /// scope.provide::<CurrentUser>(CurrentUser("ada"))?;
    /// assert_eq!(scope.get::<CurrentUser>("user")?.0, "ada");
    /// assert!(container.scope().get::<CurrentUser>("user").is_err()); // not provided there
    /// # Ok::<(), wireplan_runtime::Error>(())
    /// ```
    ///
    /// Errors: [`Error::UnregisteredType`]; [`Error::UndeclaredSlot`] when no slot (or more
    /// than one service) is autowired for `T`; [`Error::SlotProvision`] when the slot was
    /// already provided in this scope or the scope already created scoped services.
    pub fn provide<T: Any + Send + Sync>(&self, value: T) -> Result<(), Error> {
        self.provide_shared(Arc::new(value))
    }

    /// As [`Scope::provide`], with an object the caller keeps sharing.
    pub fn provide_shared<T: Any + Send + Sync>(&self, value: Arc<T>) -> Result<(), Error> {
        let inner = &self.state.inner;
        let idx = inner.slot_by_type::<T>(Some("Scope::provide_named"))?;
        inner.provide(&self.state, idx, Instance::new(value))
    }

    /// Fills the scope slot `name` (a service with `slot: true`, or an alias of one) with
    /// `value`; as [`Scope::provide`].
    ///
    /// Errors: [`Error::UndeclaredSlot`]; [`Error::SlotProvision`], also when `value`'s
    /// registered class is not the slot's type (nor implements or extends it).
    pub fn provide_named<T: Any + Send + Sync>(
        &self,
        name: &str,
        value: Arc<T>,
    ) -> Result<(), Error> {
        self.provide_instance(name, Instance::new(value))
    }

    /// As [`Scope::provide_named`], with an erased object.
    pub fn provide_instance(&self, name: &str, value: Instance) -> Result<(), Error> {
        let inner = &self.state.inner;
        let idx = inner.slot_by_name(name)?;
        inner.provide(&self.state, idx, value)
    }

    /// Whether the slot `name` has a value in this scope or an ancestor. `false` for a name
    /// that is not a slot.
    pub fn is_provided(&self, name: &str) -> bool {
        let inner = &self.state.inner;
        inner
            .slot_by_name(name)
            .ok()
            .and_then(|i| inner.scoped_slot[i])
            .is_some_and(|s| self.state.find(s as usize).is_some())
    }
}

impl Container {
    /// The plan's scope slots as (service name, catalog type), in definition order.
    pub fn slots(&self) -> Vec<(&str, &str)> {
        self.inner
            .plan()
            .services
            .iter()
            .filter(|(_, sp)| sp.kind == ServiceKind::Slot)
            .map(|(n, sp)| (n.as_str(), sp.type_.as_str()))
            .collect()
    }

    /// The name of the scope slot that [`Scope::provide::<T>`](Scope::provide) fills, so an
    /// integration can check its slot fillers once, when it is set up, instead of on every
    /// request.
    ///
    /// Errors: [`Error::UnregisteredType`]; [`Error::UndeclaredSlot`].
    pub fn slot_for_type<T: Any + Send + Sync>(&self) -> Result<&str, Error> {
        let idx = self.inner.slot_by_type::<T>(None)?;
        Ok(self.inner.name_of(idx))
    }
}
