//! Where a cached instance lives: [`CacheSlot`], implemented by the container's `OnceLock`s
//! and by a scope's [`InstanceCell`]s.
//!
//! A scope fills up to one cell per scoped service on every request, so filling one is on the
//! per-request path. `OnceLock::set` runs `Once`'s general state machine out of line (a
//! compare-and-swap, a dynamic call of the initialiser, an atomic swap and a check for
//! waiters); an [`InstanceCell`] is filled with one compare-and-swap and one plain release
//! store, and read with one acquire load, like a `OnceLock`.

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
    fn fill(&self, inst: Instance) -> (&Instance, bool);

    /// Empties the cell, giving its instance back.
    fn take(&mut self) -> Option<Instance>;
}

impl CacheSlot for OnceLock<Instance> {
    fn get(&self) -> Option<&Instance> {
        OnceLock::get(self)
    }

    fn fill(&self, inst: Instance) -> (&Instance, bool) {
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
const WRITING: u8 = 1;
const FULL: u8 = 2;

/// A write-once cell for an [`Instance`]: a `OnceLock<Instance>` with a cheaper fill (see the
/// module docs).
///
/// States: `EMPTY` → `WRITING` (exactly one filler won the compare-and-swap and is moving its
/// instance in) → `FULL` (published with release ordering). Only `&mut self` (`take`, drop)
/// leaves `FULL`.
pub(crate) struct InstanceCell {
    state: AtomicU8,
    value: UnsafeCell<MaybeUninit<Instance>>,
}

// SAFETY: the cell hands out `&Instance` to any thread (so `Instance` must be `Sync`) and moves
// an `Instance` in from one thread and out (`take`, drop) on another (so it must be `Send`);
// `Instance` is both (an `Arc<dyn Any + Send + Sync>` and a `&'static` of plain function
// pointers). Shared access is sound because of the state protocol: the value is written only
// by the one thread whose compare-and-swap moved `state` from `EMPTY` to `WRITING`, while no
// other thread reads it (readers read only in `FULL`, which comes after the write); it is read
// through `&self` only after an acquire load saw `FULL`, which the writer stored with release
// ordering after the write, so the write happens-before every read; and it is never written
// again through `&self` once `FULL` (`take` and drop need `&mut self`).
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
    /// The caller saw `state == FULL` (with acquire ordering, or through `&mut self`).
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

    #[inline]
    fn fill(&self, inst: Instance) -> (&Instance, bool) {
        match self
            .state
            .compare_exchange(EMPTY, WRITING, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => {
                // SAFETY: this thread moved the state from `EMPTY` to `WRITING`: no other
                // thread writes the value or reads it until the state is `FULL`. A move
                // cannot panic, so the state always reaches `FULL`.
                unsafe { (*self.value.get()).write(inst) };
                self.state.store(FULL, Ordering::Release);
                // SAFETY: this thread stored `FULL` after writing the value.
                (unsafe { self.full() }, true)
            }
            Err(_) => {
                // Filled already, or being filled right now by another thread (only a move
                // of the instance remains there; the container's fillers hold a build lock,
                // so this is reached only through misuse): wait for `FULL`.
                let mut spins = 0u32;
                while self.state.load(Ordering::Acquire) != FULL {
                    spins += 1;
                    if spins < 64 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                }
                drop(inst);
                // SAFETY: `FULL` seen with acquire ordering.
                (unsafe { self.full() }, false)
            }
        }
    }

    fn take(&mut self) -> Option<Instance> {
        let state = self.state.get_mut();
        if *state != FULL {
            // `WRITING` cannot be seen through `&mut self` (the writer finishes before its
            // borrow ends), so this is `EMPTY`.
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
    use std::sync::Arc;

    #[test]
    fn fills_once_and_gives_the_first_instance() {
        let cell = InstanceCell::new();
        assert!(cell.get().is_none());
        let a = Instance::from_value(1_u32);
        let b = Instance::from_value(2_u32);
        let (held, filled) = cell.fill(a.clone());
        assert!(filled && held.ptr_eq(&a));
        let (held, filled) = cell.fill(b.clone());
        assert!(!filled && held.ptr_eq(&a));
        assert!(cell.get().is_some_and(|i| i.ptr_eq(&a)));
        // The refused instance was dropped, not kept.
        assert_eq!(Arc::strong_count(b.as_any()), 1);
    }

    #[test]
    fn take_empties_and_drop_releases() {
        let a = Instance::from_value(String::from("x"));
        let mut cell = InstanceCell::new();
        assert!(cell.take().is_none());
        cell.fill(a.clone());
        assert_eq!(Arc::strong_count(a.as_any()), 2);
        let out = cell.take().expect("filled");
        assert!(out.ptr_eq(&a) && cell.get().is_none());
        drop(out);
        cell.fill(a.clone());
        drop(cell);
        assert_eq!(Arc::strong_count(a.as_any()), 1);
    }

    #[test]
    fn concurrent_fillers_agree_on_one_instance() {
        for _ in 0..50 {
            let cell = InstanceCell::new();
            let mine: Vec<Instance> = (0..4).map(|i| Instance::from_value(i as u64)).collect();
            let results: Vec<(usize, bool)> = std::thread::scope(|s| {
                let handles: Vec<_> = mine
                    .iter()
                    .map(|inst| {
                        let cell = &cell;
                        let inst = inst.clone();
                        s.spawn(move || {
                            let (held, filled) = cell.fill(inst);
                            (held.addr(), filled)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("no panic"))
                    .collect()
            });
            assert_eq!(results.iter().filter(|(_, filled)| *filled).count(), 1);
            let winner = cell.get().expect("filled").addr();
            assert!(results.iter().all(|(addr, _)| *addr == winner));
            // The cell holds one reference of the winner, none of the others.
            let counts: usize = mine.iter().map(|i| Arc::strong_count(i.as_any())).sum();
            assert_eq!(counts, 4 + 1);
        }
    }

    #[test]
    fn the_container_slots_fill_the_same_way() {
        let lock: OnceLock<Instance> = OnceLock::new();
        let a = Instance::from_value(1_u8);
        let (held, filled) = CacheSlot::fill(&lock, a.clone());
        assert!(filled && held.ptr_eq(&a));
        let (_, filled) = CacheSlot::fill(&lock, Instance::from_value(2_u8));
        assert!(!filled);
    }
}
