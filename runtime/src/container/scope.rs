//! [`Scope`]: a cache and cleanup boundary for `scoped` services.

use std::collections::HashSet;
use std::sync::Arc;

use smallvec::SmallVec;

use super::cell::{CacheSlot, InstanceCell};
use super::lock::BuildLock;
use super::order::{CreationOrder, INLINE};
use super::{dispose, Container, Inner};
use crate::error::Error;
use crate::value::Instance;

/// The state behind a [`Scope`] handle.
pub(crate) struct ScopeState {
    pub(crate) inner: Arc<Inner>,
    pub(crate) parent: Option<Arc<ScopeState>>,
    /// One slot per scoped service (`Inner::scoped_slot`); inline up to [`INLINE`], so
    /// opening a small scope is one allocation.
    pub(crate) slots: SmallVec<[InstanceCell; INLINE]>,
    pub(crate) lock: BuildLock,
    /// Single-flight gates for async creation of scoped services (see `async_resolve`).
    pub(crate) gates: super::async_resolve::Gates,
    /// Service indexes in the order their scoped instances were published here.
    pub(crate) created: CreationOrder,
}

impl ScopeState {
    /// The instance of the scoped service `service` (slot `slot`) cached in this scope or
    /// an ancestor.
    pub(crate) fn find(&self, slot: usize) -> Option<&Instance> {
        let mut s = self;
        loop {
            if let Some(i) = s.slots.get(slot).and_then(CacheSlot::get) {
                return Some(i);
            }
            s = s.parent.as_deref()?;
        }
    }
}

impl Drop for ScopeState {
    /// Releases what this scope created, and only that: the walk is over the scope's own
    /// creation order, never over the container's services. When none of those instances has
    /// a dispose hook (the common case), releasing is dropping the references in reverse
    /// creation order, with no bookkeeping; otherwise [`dispose`] runs the hooks, skipping an
    /// object that a singleton, an ancestor scope or a provided slot value also is (a
    /// `{"$ref": …}` create), which its owner disposes.
    fn drop(&mut self) {
        let inner = &self.inner;
        let slot_of = |i: usize| {
            inner
                .scoped_slot
                .get(i)
                .copied()
                .flatten()
                .map(|s| s as usize)
        };
        if !inner.program.any_dispose_hook {
            // No dispose hook registered at all: release newest first, nothing else to do.
            for i in self.created.take_newest_first() {
                if let Some(slot) = slot_of(i).and_then(|s| self.slots.get_mut(s)) {
                    drop(slot.take());
                }
            }
            return;
        }
        let order = self.created.take();
        if order.is_empty() {
            return;
        }
        let has_hook = |inst: &Instance| {
            inner
                .registry
                .type_entry(inst.type_id())
                .is_some_and(|t| t.dispose.is_some())
        };
        let any_hook = order
            .iter()
            .filter_map(|&i| self.slots.get(slot_of(i)?)?.get())
            .any(has_hook);
        if !any_hook {
            for &i in order.iter().rev() {
                if let Some(slot) = slot_of(i).and_then(|s| self.slots.get_mut(s)) {
                    drop(slot.take());
                }
            }
            return;
        }
        // Both the singletons and the ancestors are still alive (this scope holds them); the
        // check runs only for an instance that has a hook.
        fn same<S: CacheSlot>(slots: &[S], addr: usize) -> bool {
            slots
                .iter()
                .any(|s| s.get().is_some_and(|x| x.addr() == addr))
        }
        let provided: HashSet<usize> = super::slots::provided_addrs(self).collect();
        let parent = self.parent.clone();
        dispose(&inner.registry, &mut self.slots, &order, slot_of, |inst| {
            let addr = inst.addr();
            if provided.contains(&addr) || same(&inner.slots, addr) {
                return true;
            }
            let mut ancestor = parent.as_deref();
            while let Some(a) = ancestor {
                if same(&a.slots, addr) {
                    return true;
                }
                ancestor = a.parent.as_deref();
            }
            false
        });
    }
}

/// A scope: one instance of every `scoped` service, created on first use inside it, and
/// released (reverse creation order, dispose hooks first) when the scope is dropped.
///
/// Get services from it exactly as from the [`Container`]: singletons come from the
/// container, scoped services from this scope (or an ancestor that already created them),
/// transients are new each time. Cloning a `Scope` gives another handle to the same scope.
///
/// ```
/// # use wireplan_runtime::{Container, Registry};
/// # struct Request;
/// # let mut registry = Registry::new();
/// # registry.class::<Request>("App\\Request").constructor(|_| Ok(Request));
/// # let plan = r#"{"format": "wireplan-plan", "version": 1, "compiler": "x", "inputs_hash": "0",
/// #   "services": {"req": {"type": "App\\Request", "lifespan": "scoped",
/// #                        "create": {"$new": "App\\Request", "args": []}}}}"#;
/// let container = Container::from_json_str(plan, &registry)?;
/// let a = container.scope();
/// let b = container.scope();
/// let r1 = a.get::<Request>("req")?;
/// assert!(std::sync::Arc::ptr_eq(&r1, &a.get::<Request>("req")?)); // one per scope
/// assert!(!std::sync::Arc::ptr_eq(&r1, &b.get::<Request>("req")?)); // another scope
/// assert!(container.get::<Request>("req").is_err()); // scoped needs a scope
/// # Ok::<(), wireplan_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Scope {
    pub(crate) state: Arc<ScopeState>,
}

impl std::fmt::Debug for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("origin", &self.state.inner.origin)
            .field(
                "created",
                &self
                    .state
                    .slots
                    .iter()
                    .filter(|s| s.get().is_some())
                    .count(),
            )
            .field("nested", &self.state.parent.is_some())
            .finish()
    }
}

impl Scope {
    pub(crate) fn new(inner: Arc<Inner>, parent: Option<Arc<ScopeState>>) -> Scope {
        // `new_cyclic` allocates first and builds the state in its place; `Arc::new` built the
        // ~400-byte state on the stack and copied it into the allocation (a `memcpy`, 4 % of
        // a request).
        let state = Arc::new_cyclic(|_| {
            let n = inner.scoped_count;
            // Up to `INLINE` slots: the inline buffer of empty cells as it is (the cells past
            // `n` are empty and need no drop).
            let slots = if n <= INLINE {
                SmallVec::from_buf_and_len([const { InstanceCell::new() }; INLINE], n)
            } else {
                (0..n).map(|_| InstanceCell::new()).collect()
            };
            ScopeState {
                created: CreationOrder::new(n),
                inner,
                parent,
                slots,
                lock: BuildLock::default(),
                gates: super::async_resolve::Gates::default(),
            }
        });
        Scope { state }
    }

    /// A nested scope: it sees the scoped instances this scope (and its ancestors) already
    /// created, creates the others itself, and releases those when it is dropped. It keeps
    /// this scope alive.
    pub fn scope(&self) -> Scope {
        Scope::new(self.state.inner.clone(), Some(self.state.clone()))
    }

    /// The container this scope belongs to.
    pub fn container(&self) -> Container {
        Container {
            inner: self.state.inner.clone(),
        }
    }

    /// The service `name` as `Arc<T>`; as [`Container::get`], but scoped services are
    /// created in (or taken from) this scope.
    pub fn get<T: ?Sized + 'static>(&self, name: &str) -> Result<Arc<T>, Error> {
        self.state.inner.get(name, Some(&self.state))
    }

    /// The service `name` as an erased [`Instance`]; see [`Scope::get`].
    pub fn get_instance(&self, name: &str) -> Result<Instance, Error> {
        self.state.inner.get_instance(name, Some(&self.state))
    }

    /// The service autowired for the Rust type `T`; as [`Container::get_by_type`], in this
    /// scope.
    pub fn get_by_type<T: ?Sized + 'static>(&self) -> Result<Arc<T>, Error> {
        self.state.inner.get_by_type(Some(&self.state))
    }

    /// The service autowired for the catalog type `type_name`; as
    /// [`Container::get_by_type_name`], in this scope.
    pub fn get_by_type_name<T: ?Sized + 'static>(&self, type_name: &str) -> Result<Arc<T>, Error> {
        self.state
            .inner
            .get_by_type_name(type_name, Some(&self.state))
    }

    /// Whether the scoped service `name` has an instance in this scope or an ancestor.
    pub fn is_created(&self, name: &str) -> bool {
        let inner = &self.state.inner;
        inner
            .index_of(name)
            .and_then(|i| inner.scoped_slot[i])
            .is_some_and(|s| self.state.find(s as usize).is_some())
    }
}
