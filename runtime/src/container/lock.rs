//! The re-entrant build lock that makes first construction single-flight.
//!
//! Taking the lock when nobody holds it, or again on the thread that holds it, is one atomic
//! operation; the mutex and condition variable behind it are used only when another thread
//! holds it (then the caller waits). Which services the holding thread is building under a
//! lock is kept in the lock itself, touched only by its holder, so entering and leaving a
//! service takes no atomic operation and no thread-local either.
//!
//! ## Releasing without a read-modify-write
//!
//! A release must not miss a thread that is about to sleep: the releaser stores "free" and
//! then looks for waiters, a waiter announces itself and then looks at the owner. That is
//! Dekker's pattern, and on its own it needs a full fence (or a locked `xchg`) between the
//! store and the load on *both* sides. Where the operating system offers an asymmetric
//! barrier (Linux `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, see [`asymmetric`]), the
//! waiter — the slow side, about to sleep anyway — issues it instead, and the releaser gets
//! by with a release store and a compiler fence: the barrier makes every other running
//! thread of the process execute a full memory barrier before it returns, so either a
//! releaser's store of "free" is visible to the waiter's next look at the owner, or the
//! releaser's later load of the waiter count comes after that barrier and sees the waiter.
//! The process asks once, when it makes its first container; until the answer is in, and
//! without the barrier (another system, or the call refused), releasers keep the sequentially
//! consistent store and load. A waiter issues the barrier whenever the answer is yes, so a
//! releaser that skips the fence always faces waiters that issue it. The locked `xchg` of
//! the release was ~20 ns of a request of four lock takes (docs/performance.md, "Seventh
//! pass on the creation path").

use std::cell::UnsafeCell;
use std::sync::atomic::{compiler_fence, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use smallvec::SmallVec;

/// How long a waiter sleeps before it looks at the owner again when its asymmetric barrier
/// failed (which a registered process should never see): a backstop, so a missed wake-up
/// costs at most this, never a hang.
const BACKSTOP: Duration = Duration::from_millis(1);

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

impl BuildLock {
    /// A free lock for a container: as `default`, and the first container of the process
    /// asks whether asymmetric barriers are available ([`asymmetric::ask_once`]), so the
    /// releases of every lock (the scopes' too) can skip the fence from then on. (A scope's
    /// lock does not ask: opening a scope stays free of the check.)
    pub(crate) fn for_container() -> BuildLock {
        asymmetric::ask_once();
        BuildLock::default()
    }
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
        loop {
            // In asymmetric mode the releaser does not fence between its store of "free" and
            // its load of `waiting`; this barrier, after our count and before our look at the
            // owner, does it for every thread (module docs). Issued before every look that
            // may end in sleeping, so each sleep is covered; should it fail, the sleep is
            // bounded instead.
            let covered = !asymmetric::available() || asymmetric::barrier();
            if self
                .owner
                .compare_exchange(0, me, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                break;
            }
            gate = if covered {
                self.released
                    .wait(gate)
                    .unwrap_or_else(PoisonError::into_inner)
            } else {
                self.released
                    .wait_timeout(gate, BACKSTOP)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            };
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
        let waiting = if asymmetric::fast_release() {
            // A plain store, no locked instruction: the waiters' asymmetric barrier orders it
            // before our load of `waiting` where it matters (module docs). The compiler fence
            // keeps the compiler from moving the load above the store.
            lock.owner.store(0, Ordering::Release);
            compiler_fence(Ordering::SeqCst);
            lock.waiting.load(Ordering::Relaxed)
        } else {
            lock.owner.store(0, Ordering::SeqCst);
            lock.waiting.load(Ordering::SeqCst)
        };
        if waiting > 0 {
            lock.wake_waiters();
        }
    }
}

/// The asymmetric memory barrier behind the build lock's release (module docs).
pub(crate) mod asymmetric {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::OnceLock;

    /// Whether the process was asked ([`available`] has its answer).
    static ASKED: AtomicBool = AtomicBool::new(false);
    /// Whether releases may skip the fence: set once [`available`] answered yes (after the
    /// registration), never cleared.
    static FAST: AtomicBool = AtomicBool::new(false);

    /// Asks [`available`] unless the process already has its answer (one relaxed load).
    #[inline]
    pub(crate) fn ask_once() {
        if !ASKED.load(Ordering::Relaxed) {
            ask();
        }
    }

    #[cold]
    #[inline(never)]
    fn ask() {
        available();
    }

    /// Whether a release may use a plain store: [`available`] answered yes.
    #[inline(always)]
    pub(crate) fn fast_release() -> bool {
        FAST.load(Ordering::Relaxed)
    }

    /// Whether [`barrier`] works in this process (asked once; the answer never changes).
    pub(crate) fn available() -> bool {
        static ANSWER: OnceLock<bool> = OnceLock::new();
        *ANSWER.get_or_init(|| {
            let yes = register();
            // Set inside the initialiser: a releaser that sees `FAST` faces waiters whose
            // `available` returns this same `true`.
            FAST.store(yes, Ordering::Relaxed);
            ASKED.store(true, Ordering::Relaxed);
            yes
        })
    }

    /// Registers this process for asymmetric barriers: on Linux, when the kernel offers
    /// `MEMBARRIER_CMD_PRIVATE_EXPEDITED` (a seccomp filter or an old kernel that refuses
    /// the query or the registration means no). Elsewhere always `false`.
    #[cfg(target_os = "linux")]
    fn register() -> bool {
        let offered = membarrier(CMD_QUERY);
        offered >= 0
            && offered & (CMD_PRIVATE_EXPEDITED | CMD_REGISTER_PRIVATE_EXPEDITED)
                == CMD_PRIVATE_EXPEDITED | CMD_REGISTER_PRIVATE_EXPEDITED
            && membarrier(CMD_REGISTER_PRIVATE_EXPEDITED) == 0
    }

    /// Makes every running thread of this process execute a full memory barrier before it
    /// returns (and this one too). `false` when the call failed, which a process for which
    /// [`available`] said yes should never see.
    #[cfg(target_os = "linux")]
    pub(crate) fn barrier() -> bool {
        membarrier(CMD_PRIVATE_EXPEDITED) == 0
    }

    // The commands of `membarrier(2)` (linux/membarrier.h).
    #[cfg(target_os = "linux")]
    const CMD_QUERY: libc::c_long = 0;
    #[cfg(target_os = "linux")]
    const CMD_PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    #[cfg(target_os = "linux")]
    const CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

    /// `membarrier(cmd, 0, 0)`: its result, or -1.
    #[cfg(target_os = "linux")]
    fn membarrier(cmd: libc::c_long) -> libc::c_long {
        // SAFETY: `membarrier(int cmd, unsigned int flags, int cpu_id)` takes plain integers
        // and reads or writes no memory of the caller's; an unknown command or a refused
        // call returns -1 (errno set), which the callers treat as "not available".
        unsafe {
            libc::syscall(
                libc::SYS_membarrier,
                cmd as libc::c_int,
                0 as libc::c_uint,
                0 as libc::c_int,
            )
        }
    }

    /// No asymmetric barrier outside Linux: the locks keep the fenced release.
    #[cfg(not(target_os = "linux"))]
    fn register() -> bool {
        false
    }

    /// Never called outside Linux ([`available`] is `false`).
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn barrier() -> bool {
        false
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

    #[test]
    fn the_process_asks_once_and_releases_skip_the_fence_only_when_barriers_work() {
        let lock = BuildLock::for_container();
        let yes = asymmetric::available();
        assert_eq!(asymmetric::fast_release(), yes);
        if yes {
            // A registered process can issue the barrier (what its waiters rely on).
            assert!(asymmetric::barrier());
        }
        #[cfg(not(target_os = "linux"))]
        assert!(!yes);
        // The lock works either way.
        let guard = lock.lock();
        drop(guard);
        assert_eq!(lock.owner.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn contended_releases_lose_no_waiter_and_exclude_each_other() {
        // Four threads take one lock 2,000 times each, some holding it across a yield, so
        // many takes wait; a lost wake-up would leave a waiter asleep (the hang guard
        // catches it) and a broken exclusion would lose increments of the unsynchronised
        // counter (a relaxed load and store, read only under the lock).
        const THREADS: usize = 4;
        const ROUNDS: usize = 2_000;
        let lock = std::sync::Arc::new(BuildLock::for_container());
        let counter = std::sync::Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (lock, counter) = (lock.clone(), counter.clone());
                std::thread::spawn(move || {
                    for round in 0..ROUNDS {
                        let guard = lock.lock();
                        let n = counter.load(Ordering::Relaxed);
                        if (round + t) % 7 == 0 {
                            std::thread::yield_now();
                        }
                        counter.store(n + 1, Ordering::Relaxed);
                        drop(guard);
                    }
                })
            })
            .collect();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !workers.iter().all(|w| w.is_finished()) {
            assert!(
                Instant::now() < deadline,
                "a waiter never woke (counter at {})",
                counter.load(Ordering::SeqCst)
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        for w in workers {
            w.join().expect("no panic");
        }
        assert_eq!(counter.load(Ordering::SeqCst), THREADS * ROUNDS);
        assert_eq!(lock.owner.load(Ordering::SeqCst), 0);
        assert_eq!(lock.waiting.load(Ordering::SeqCst), 0);
    }
}
