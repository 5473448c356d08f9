//! The re-entrant build lock that makes first construction single-flight.
//!
//! Taking the lock when nobody holds it, or again on the thread that holds it, is one atomic
//! operation; the mutex and condition variable behind it are used only when another thread
//! holds it (then the caller waits). Which services the holding thread is building under a
//! lock is kept in the lock itself, touched only by its holder, so entering and leaving a
//! service takes no atomic operation and no thread-local either.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use smallvec::SmallVec;

/// A re-entrant lock: the thread that holds it may take it again (nested construction of
/// dependencies); other threads wait. It also remembers which services the owning thread is
/// building right now, so a re-entry into the same service (through a factory or accessor
/// called from a constructor) is reported as a cycle instead of recursing forever.
#[derive(Default)]
pub(crate) struct BuildLock {
    /// The holding thread's token ([`thread_token`]), 0 when free.
    owner: AtomicUsize,
    /// How many times the holder took the lock; only the holder reads or writes it (between
    /// taking `owner` and releasing it, which order these accesses between holders).
    depth: AtomicUsize,
    /// Threads waiting for the lock; a release wakes them only when there are any.
    waiting: AtomicUsize,
    gate: Mutex<()>,
    released: Condvar,
    /// The services the holder is building under this lock, outermost first (inline up to 6
    /// levels). Only the holder reads or writes it, through its [`BuildGuard`].
    building: UnsafeCell<SmallVec<[u32; 6]>>,
}

// SAFETY: every field but `building` is `Sync`. `building` is read and written only through
// a `BuildGuard` (`enter`) or a `Building` that borrows one, i.e. only by the thread that holds
// the lock, while it holds it: taking `owner` (an acquire compare-and-swap) and releasing it
// (a release store, and a waiter's gate) order one holder's accesses before the next holder's,
// exactly like the data behind a mutex. A guard is neither `Send` nor `Sync` (its marker), so
// it never reaches another thread.
unsafe impl Sync for BuildLock {}

thread_local! {
    /// Its address identifies the thread while it lives (never 0).
    static TOKEN: u8 = const { 0 };
}

/// A number unique to the current thread among the threads alive.
fn thread_token() -> usize {
    TOKEN.with(|t| t as *const u8 as usize)
}

/// Held while a thread constructs cached services; released on drop (also on unwind).
///
/// Not `Send` or `Sync` (the marker): the lock belongs to the thread that took it, and only
/// that thread may touch the lock's building list through the guard.
pub(crate) struct BuildGuard<'a>(&'a BuildLock, std::marker::PhantomData<*const ()>);

/// Marks one service as under construction (see [`BuildGuard::enter`]); ends it on drop, also
/// on unwind. It borrows the guard, so it ends before the lock is released.
pub(crate) struct Building<'g> {
    lock: &'g BuildLock,
    /// The length of the building list before this service was pushed.
    at: usize,
}

impl BuildLock {
    /// Takes the lock, waiting for another owner to release it. Inlined: the uncontended
    /// path is a load and a compare-and-swap; waiting is out of line.
    #[inline]
    pub(crate) fn lock(&self) -> BuildGuard<'_> {
        let me = thread_token();
        if self.owner.load(Ordering::Relaxed) == me {
            // Only this thread could have stored its own token: it holds the lock, and only
            // the holder touches `depth`, so a load and a store do (no atomic increment).
            let depth = self.depth.load(Ordering::Relaxed);
            self.depth.store(depth + 1, Ordering::Relaxed);
            return BuildGuard(self, std::marker::PhantomData);
        }
        if self
            .owner
            .compare_exchange(0, me, Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            self.wait_for(me);
        }
        self.depth.store(1, Ordering::Relaxed);
        BuildGuard(self, std::marker::PhantomData)
    }

    /// Waits until the holder releases the lock, then takes it for the thread `me`.
    #[cold]
    #[inline(never)]
    fn wait_for(&self, me: usize) {
        let mut gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        self.waiting.fetch_add(1, Ordering::SeqCst);
        while self
            .owner
            .compare_exchange(0, me, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            gate = self
                .released
                .wait(gate)
                .unwrap_or_else(PoisonError::into_inner);
        }
        self.waiting.fetch_sub(1, Ordering::SeqCst);
    }

    /// Wakes the threads waiting for the lock (after its release).
    #[cold]
    #[inline(never)]
    fn wake_waiters(&self) {
        // Taking the gate orders this wake-up after a waiter's last look at `owner`.
        let _gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        self.released.notify_all();
    }
}

impl BuildGuard<'_> {
    /// Marks `service` as under construction. Returns the services being built under this
    /// lock from the first occurrence of `service` on (a cycle) if it already was.
    pub(crate) fn enter(&self, service: usize) -> Result<Building<'_>, Vec<usize>> {
        let lock = self.0;
        // SAFETY: this guard proves the current thread holds `lock` (see `impl Sync for
        // BuildLock`), and the reference ends before anything else could touch the list.
        let list = unsafe { &mut *lock.building.get() };
        let entry = service as u32;
        if let Some(pos) = list.iter().position(|&e| e == entry) {
            return Err(list[pos..].iter().map(|&s| s as usize).collect());
        }
        let at = list.len();
        list.push(entry);
        Ok(Building { lock, at })
    }
}

impl Drop for Building<'_> {
    fn drop(&mut self) {
        // SAFETY: a `Building` borrows the guard of the thread holding `lock` (see `enter`);
        // also on unwind, the guard is released only after this.
        let list = unsafe { &mut *self.lock.building.get() };
        list.truncate(self.at);
    }
}

impl Drop for BuildGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        let lock = self.0;
        // Only the holder touches `depth`: a load and a store, no atomic decrement.
        let depth = lock.depth.load(Ordering::Relaxed);
        if depth != 1 {
            lock.depth.store(depth - 1, Ordering::Relaxed);
            return;
        }
        lock.depth.store(0, Ordering::Relaxed);
        lock.owner.store(0, Ordering::SeqCst);
        if lock.waiting.load(Ordering::SeqCst) > 0 {
            lock.wake_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    #[test]
    fn a_service_entered_again_under_its_lock_is_a_cycle_from_its_first_entry() {
        let lock = BuildLock::default();
        let guard = lock.lock();
        let a = guard.enter(1).expect("first entry");
        let b = guard.enter(2).expect("first entry");
        let c = guard.enter(3).expect("first entry");
        assert_eq!(guard.enter(2).err(), Some(vec![2, 3]));
        assert_eq!(guard.enter(1).err(), Some(vec![1, 2, 3]));
        // Leaving ends the marks from there on, so the service can be entered again.
        drop(c);
        drop(b);
        let again = guard.enter(2).expect("2 was left");
        assert_eq!(guard.enter(3).map(|_| ()).err(), None);
        drop(again);
        drop(a);
    }

    #[test]
    fn each_lock_keeps_its_own_building_list_also_when_re_entered() {
        let (x, y) = (BuildLock::default(), BuildLock::default());
        let gx = x.lock();
        let _in_x = gx.enter(7).expect("first entry under x");
        let gy = y.lock();
        // The same service under another lock is no cycle.
        let in_y = gy.enter(7).expect("first entry under y");
        // Re-entering x (depth 2) sees x's list.
        let gx2 = x.lock();
        assert_eq!(gx2.enter(7).err(), Some(vec![7]));
        drop(gx2);
        drop(in_y);
        assert!(gy.enter(7).is_ok());
    }

    #[test]
    fn a_panic_while_building_leaves_the_lock_free_and_the_list_empty() {
        let lock = BuildLock::default();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let guard = lock.lock();
            let _b = guard.enter(4).expect("first entry");
            let _nested = lock.lock();
            panic!("constructor failed");
        }));
        assert!(r.is_err());
        assert_eq!(lock.owner.load(Ordering::SeqCst), 0);
        // Another thread can take it at once, and 4 is not under construction any more.
        std::thread::scope(|s| {
            s.spawn(|| {
                let guard = lock.lock();
                assert!(guard.enter(4).is_ok());
            });
        });
    }

    #[test]
    fn another_thread_waits_for_the_holder_and_sees_its_writes() {
        for _ in 0..20 {
            let lock = BuildLock::default();
            let written = AtomicBool::new(false);
            let entered = AtomicBool::new(false);
            std::thread::scope(|s| {
                let guard = lock.lock();
                let nested = lock.lock();
                let waiter = s.spawn(|| {
                    entered.store(true, Ordering::SeqCst);
                    let guard = lock.lock();
                    // The holder's writes are visible once the lock is ours, and its building
                    // list is empty again.
                    let seen = written.load(Ordering::Relaxed);
                    let free = guard.enter(9).is_ok();
                    (seen, free)
                });
                let deadline = Instant::now() + Duration::from_secs(10);
                while !entered.load(Ordering::SeqCst) {
                    assert!(Instant::now() < deadline, "the waiter never started");
                    std::thread::yield_now();
                }
                std::thread::sleep(Duration::from_millis(1));
                // Still held (depth 2): the waiter cannot have taken it.
                assert!(!waiter.is_finished());
                let b = guard.enter(9).expect("first entry");
                written.store(true, Ordering::Relaxed);
                drop(b);
                drop(nested);
                assert!(!waiter.is_finished());
                drop(guard);
                assert_eq!(waiter.join().expect("no panic"), (true, true));
            });
        }
    }
}
