//! The re-entrant build lock that makes first construction single-flight.
//!
//! Taking the lock when nobody holds it, or again on the thread that holds it, is one atomic
//! operation; the mutex and condition variable behind it are used only when another thread
//! holds it (then the caller waits). Which services the holding thread is building is kept
//! per thread (only the holder builds under a lock), so entering and leaving a service takes
//! no lock either.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

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
}

thread_local! {
    /// Its address identifies the thread while it lives (never 0).
    static TOKEN: u8 = const { 0 };
    /// Services under construction on this thread: (lock address, service index), outermost
    /// first.
    static BUILDING: RefCell<Vec<(usize, usize)>> = const { RefCell::new(Vec::new()) };
}

/// A number unique to the current thread among the threads alive.
fn thread_token() -> usize {
    TOKEN.with(|t| t as *const u8 as usize)
}

/// Held while a thread constructs cached services; released on drop (also on unwind).
pub(crate) struct BuildGuard<'a>(&'a BuildLock);

/// Marks one service as under construction (see [`BuildGuard::enter`]); ends it on drop, also
/// on unwind.
pub(crate) struct Building {
    lock: usize,
    service: usize,
}

impl BuildLock {
    /// Takes the lock, waiting for another owner to release it.
    pub(crate) fn lock(&self) -> BuildGuard<'_> {
        let me = thread_token();
        if self.owner.load(Ordering::Relaxed) == me {
            // Only this thread could have stored its own token: it holds the lock, and only
            // the holder touches `depth`, so a load and a store do (no atomic increment).
            let depth = self.depth.load(Ordering::Relaxed);
            self.depth.store(depth + 1, Ordering::Relaxed);
            return BuildGuard(self);
        }
        if self
            .owner
            .compare_exchange(0, me, Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
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
        self.depth.store(1, Ordering::Relaxed);
        BuildGuard(self)
    }

    fn addr(&self) -> usize {
        self as *const BuildLock as usize
    }
}

impl BuildGuard<'_> {
    /// Marks `service` as under construction. Returns the services being built under this
    /// lock from the first occurrence of `service` on (a cycle) if it already was.
    pub(crate) fn enter(&self, service: usize) -> Result<Building, Vec<usize>> {
        let lock = self.0.addr();
        BUILDING.with(|b| {
            let mut b = b.borrow_mut();
            if let Some(pos) = b.iter().position(|&e| e == (lock, service)) {
                return Err(b[pos..]
                    .iter()
                    .filter(|(l, _)| *l == lock)
                    .map(|(_, s)| *s)
                    .collect());
            }
            b.push((lock, service));
            Ok(Building { lock, service })
        })
    }
}

impl Drop for Building {
    fn drop(&mut self) {
        // Also reached while unwinding, when the thread-local may be gone already.
        let _ = BUILDING.try_with(|b| {
            let mut b = b.borrow_mut();
            if let Some(pos) = b.iter().rposition(|&e| e == (self.lock, self.service)) {
                b.truncate(pos);
            }
        });
    }
}

impl Drop for BuildGuard<'_> {
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
            // Taking the gate orders this wake-up after a waiter's last look at `owner`.
            let _gate = lock.gate.lock().unwrap_or_else(PoisonError::into_inner);
            lock.released.notify_all();
        }
    }
}
