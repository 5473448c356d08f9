//! Where a cached instance lives: [`CacheSlot`], implemented by the container's `OnceLock`s
//! and by a scope's [`InstanceCell`]s.
//!
//! A scope fills up to one cell per scoped service on every request, so filling one is on the
//! per-request path. `OnceLock::set` runs `Once`'s general state machine out of line (a
//! compare-and-swap, a dynamic call of the initialiser, an atomic swap and a check for
//! waiters). Every fill of a cache slot happens under its owner's build lock (the container's
//! for its singletons, the scope's for its scoped services and slots), which already makes
//! the fillers take turns, so an [`InstanceCell`] is filled with plain stores (the last one a
//! release store) and no read-modify-write at all, and read with one acquire load, like a
//! `OnceLock`.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use crate::value::Instance;

/// A cell holding at most one cached [`Instance`], filled at most once through `&self`.
pub(crate) trait CacheSlot {
    /// The instance, once the cell is filled.
    fn get(&self) -> Option<&Instance>;

    /// Fills the cell with `inst` unless it already holds one. Returns the instance the cell
    /// holds afterwards and whether it is `inst` (`false`: `inst` was dropped).
    ///
    /// # Safety
    /// The current thread holds the build lock of the cell's owner (`BuildLock`), and every
    /// fill of this cell happens while holding that same lock.
    unsafe fn fill(&self, inst: Instance) -> (&Instance, bool);

    /// Empties the cell, giving its instance back.
    fn take(&mut self) -> Option<Instance>;
}

impl CacheSlot for OnceLock<Instance> {
    fn get(&self) -> Option<&Instance> {
        OnceLock::get(self)
    }

    unsafe fn fill(&self, inst: Instance) -> (&Instance, bool) {
        // A `OnceLock` is sound under any filling; the lock only saves it from waiting.
        let mut filled = false;
        let held = self.get_or_init(|| {
            filled = true;
            inst
        });
        (held, filled)
    }

    fn take(&mut self) -> Option<Instance> {
        OnceLock::take(self)
    }
}

const EMPTY: u8 = 0;
const FULL: u8 = 1;

/// A write-once cell for an [`Instance`]: a `OnceLock<Instance>` with a cheaper fill, for
/// fillers that hold a common lock (see the module docs).
///
/// States: `EMPTY` → `FULL` (the value written, then the state published with release
/// ordering, by the one filler holding the owner's lock that found the cell `EMPTY`). Only
/// `&mut self` (`take`, drop) leaves `FULL`.
pub(crate) struct InstanceCell {
    state: AtomicU8,
    value: UnsafeCell<MaybeUninit<Instance>>,
}

// SAFETY: the cell hands out `&Instance` to any thread (so `Instance` must be `Sync`) and moves
// an `Instance` in from one thread and out (`take`, drop) on another (so it must be `Send`);
// `Instance` is both (an `Arc<dyn Any + Send + Sync>` and a `&'static` of plain function
// pointers). Shared access is sound because of the fill's contract and the state protocol:
// - Writes: the value is written only by `fill`, whose callers all hold one and the same
//   build lock (its safety contract), so no two writes overlap, and each later filler's
//   taking of the lock happens after the earlier filler's release of it, so a later filler
//   sees the earlier one's `FULL` and never writes again; `take` and drop need `&mut self`.
// - Reads without the lock (`get`): only after an acquire load saw `FULL`, which the filler
//   stored with release ordering after writing the value, so the write happens-before the
//   read; a reader that sees `EMPTY` reads nothing. `FULL` is never left through `&self`.
unsafe impl Sync for InstanceCell {}

impl InstanceCell {
    /// An empty cell.
    pub(crate) const fn new() -> InstanceCell {
        InstanceCell {
            state: AtomicU8::new(EMPTY),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// The value, in state `FULL`.
    ///
    /// # Safety
    /// The caller saw `state == FULL` (with acquire ordering, under the fillers' lock, or
    /// through `&mut self`).
    unsafe fn full(&self) -> &Instance {
        // SAFETY: in `FULL` the value is initialised and only `&mut self` changes it.
        unsafe { (*self.value.get()).assume_init_ref() }
    }
}

impl Default for InstanceCell {
    fn default() -> InstanceCell {
        InstanceCell::new()
    }
}

impl CacheSlot for InstanceCell {
    #[inline]
    fn get(&self) -> Option<&Instance> {
        if self.state.load(Ordering::Acquire) == FULL {
            // SAFETY: `FULL` seen with acquire ordering.
            Some(unsafe { self.full() })
        } else {
            None
        }
    }

    #[inline(always)]
    unsafe fn fill(&self, inst: Instance) -> (&Instance, bool) {
        // Under the fillers' lock the state cannot change while we look at it (only a filler
        // moves it, and fillers take turns), and an earlier fill happened before our taking
        // of the lock.
        if self.state.load(Ordering::Acquire) == FULL {
            drop(inst);
            // SAFETY: `FULL` seen, and it stays so (only `&mut self` leaves it).
            return (unsafe { self.full() }, false);
        }
        // SAFETY: the cell is `EMPTY` and this thread is the only filler right now (the
        // caller's contract): nobody else writes the value, and no reader reads it before
        // the `FULL` below. A move cannot panic, so the state always reaches `FULL`.
        unsafe { (*self.value.get()).write(inst) };
        self.state.store(FULL, Ordering::Release);
        // SAFETY: this thread stored `FULL` after writing the value.
        (unsafe { self.full() }, true)
    }

    fn take(&mut self) -> Option<Instance> {
        let state = self.state.get_mut();
        if *state != FULL {
            return None;
        }
        *state = EMPTY;
        // SAFETY: the value was initialised (`FULL`) and the state is now `EMPTY`, so it is
        // read out exactly once and never read again.
        Some(unsafe { self.value.get_mut().assume_init_read() })
    }
}

impl Drop for InstanceCell {
    fn drop(&mut self) {
        drop(self.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::lock::BuildLock;
    use std::sync::Arc;

    /// Fills `cell` the way the container does: under `lock`, the one lock of its owner.
    fn fill_under<'c, S: CacheSlot>(
        lock: &BuildLock,
        cell: &'c S,
        inst: Instance,
    ) -> (&'c Instance, bool) {
        let _guard = lock.lock();
        // SAFETY: every fill of `cell` in these tests goes through here, under `lock`.
        unsafe { cell.fill(inst) }
    }

    #[test]
    fn fills_once_and_gives_the_first_instance() {
        let lock = BuildLock::default();
        let cell = InstanceCell::new();
        assert!(cell.get().is_none());
        let a = Instance::from_value(1_u32);
        let b = Instance::from_value(2_u32);
        let (held, filled) = fill_under(&lock, &cell, a.clone());
        assert!(filled && held.ptr_eq(&a));
        let (held, filled) = fill_under(&lock, &cell, b.clone());
        assert!(!filled && held.ptr_eq(&a));
        assert!(cell.get().is_some_and(|i| i.ptr_eq(&a)));
        // The refused instance was dropped, not kept.
        assert_eq!(Arc::strong_count(b.as_any()), 1);
    }

    #[test]
    fn take_empties_and_drop_releases() {
        let lock = BuildLock::default();
        let a = Instance::from_value(String::from("x"));
        let mut cell = InstanceCell::new();
        assert!(cell.take().is_none());
        fill_under(&lock, &cell, a.clone());
        assert_eq!(Arc::strong_count(a.as_any()), 2);
        let out = cell.take().expect("filled");
        assert!(out.ptr_eq(&a) && cell.get().is_none());
        drop(out);
        // Empty again after `take`: it can be filled again (through `&mut`, then `&`).
        fill_under(&lock, &cell, a.clone());
        assert!(cell.get().is_some_and(|i| i.ptr_eq(&a)));
        drop(cell);
        assert_eq!(Arc::strong_count(a.as_any()), 1);
    }

    #[test]
    fn fillers_under_one_lock_agree_and_readers_see_a_whole_instance() {
        for _ in 0..50 {
            let lock = BuildLock::default();
            let cell = InstanceCell::new();
            let mine: Vec<Instance> = (0..4)
                .map(|i| Instance::from_value(String::from(["a", "b", "c", "d"][i])))
                .collect();
            let (results, seen): (Vec<(usize, bool)>, Vec<String>) = std::thread::scope(|s| {
                // Two readers poll without the lock while four threads race to fill.
                let readers: Vec<_> = (0..2)
                    .map(|_| {
                        let cell = &cell;
                        s.spawn(move || loop {
                            if let Some(i) = cell.get() {
                                let text = i.downcast::<String>().expect("a String");
                                return String::clone(&text);
                            }
                            std::hint::spin_loop();
                        })
                    })
                    .collect();
                let fillers: Vec<_> = mine
                    .iter()
                    .map(|inst| {
                        let (cell, lock) = (&cell, &lock);
                        let inst = inst.clone();
                        s.spawn(move || {
                            let (held, filled) = fill_under(lock, cell, inst);
                            (held.addr(), filled)
                        })
                    })
                    .collect();
                let results = fillers
                    .into_iter()
                    .map(|h| h.join().expect("no panic"))
                    .collect();
                let seen = readers
                    .into_iter()
                    .map(|h| h.join().expect("no panic"))
                    .collect();
                (results, seen)
            });
            assert_eq!(results.iter().filter(|(_, filled)| *filled).count(), 1);
            let winner = cell.get().expect("filled");
            assert!(results.iter().all(|(addr, _)| *addr == winner.addr()));
            let text = winner.downcast::<String>().expect("a String");
            assert!(
                seen.iter().all(|s| s == text.as_str()),
                "{seen:?} vs {text}"
            );
            // The cell holds one reference of the winner, none of the others.
            drop(text);
            let counts: usize = mine.iter().map(|i| Arc::strong_count(i.as_any())).sum();
            assert_eq!(counts, 4 + 1);
        }
    }

    #[test]
    fn the_container_slots_fill_the_same_way() {
        let lock = BuildLock::default();
        let slot: OnceLock<Instance> = OnceLock::new();
        let a = Instance::from_value(1_u8);
        let (held, filled) = fill_under(&lock, &slot, a.clone());
        assert!(filled && held.ptr_eq(&a));
        let (_, filled) = fill_under(&lock, &slot, Instance::from_value(2_u8));
        assert!(!filled);
    }
}
