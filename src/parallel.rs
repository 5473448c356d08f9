//! Work split over the machine's cores: how many threads the compiler's helpers may use at
//! once, and the ways they run: one job per thread ([`split`]: definitions completed in
//! parts), blocks claimed by whichever thread is free ([`claimed`]: NEON lexing stretches and
//! parser parts), and [`InOrder`], blocks produced ahead by helpers and consumed in order (the
//! JSON plan's services, the `services:` section's entries).

/// The machine's parallelism (`std::thread::available_parallelism`, read once), at most four;
/// 1 when it cannot be read.
pub(crate) fn parallelism() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

/// How many parts `count` items are split into: one below `min`, else one per core (at most
/// four, [`parallelism`]) as long as each part gets at least `min / 2` items.
pub(crate) fn parts(count: usize, min: usize) -> usize {
    if count < min {
        return 1;
    }
    parallelism().min(count / (min / 2).max(1)).max(1)
}

/// Runs `first` on the calling thread while `later(k)` runs for each `k` in `0..count` on a
/// scoped thread of its own named `name`; returns `first`'s result and the others' in the
/// order of `k`. A thread that cannot be started leaves its job to the calling thread (run
/// after `first`); a job that panics panics the caller with the same payload. Each thread
/// publishes its heap count before it ends ([`crate::memory::counted`]).
pub(crate) fn split<F, L>(
    name: &str,
    count: usize,
    first: impl FnOnce() -> F,
    later: impl Fn(usize) -> L + Sync,
) -> (F, Vec<L>)
where
    L: Send,
{
    std::thread::scope(|scope| {
        let later = &later;
        let handles: Vec<_> = (0..count)
            .map(|k| {
                let thread = std::thread::Builder::new()
                    .name(name.into())
                    .stack_size(THREAD_STACK);
                spawn_scoped(scope, thread, move || later(k)).ok()
            })
            .collect();
        let done = first();
        let rest = handles
            .into_iter()
            .enumerate()
            .map(|(k, handle)| match handle {
                Some(h) => crate::timings::waiting(name, || h.join())
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                None => later(k),
            })
            .collect();
        (done, rest)
    })
}

/// `job(k)` for every `k` in `0..count`, run by the calling thread and `helpers` scoped
/// threads named `name`, each claiming the next block nobody has claimed ([`InOrder`]); the
/// results in the order of `k`. Several blocks per thread even out threads that get less of
/// a core than the others: the include decoded ahead shares the two cores with the loader's
/// own decode, so of its two halves one ran at half speed and finished 4 ms after the other,
/// with a core idle (app-10000, `perf record -a`). A panic in a job panics the caller with
/// the same payload; a thread that cannot be started leaves its blocks to the others.
pub(crate) fn claimed<T: Send>(
    name: &str,
    count: usize,
    helpers: usize,
    job: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let mut done = Vec::with_capacity(count);
    claimed_each(name, count, helpers, job, |block| done.push(block));
    done
}

/// [`claimed`] handing each result to `consume` in the order of `k` as soon as it and those
/// before it are done, on the calling thread, while the helpers go on with later blocks: the
/// parser's parts are joined into one map as they come, so only the last part's join is left
/// once the last part is parsed (joining eight parts at the end took 1.0–1.4 ms at app-10000,
/// with the loader waiting).
pub(crate) fn claimed_each<T: Send>(
    name: &str,
    count: usize,
    helpers: usize,
    job: impl Fn(usize) -> T + Sync,
    mut consume: impl FnMut(T),
) {
    let helpers = helpers.min(count.saturating_sub(1));
    let blocks = &InOrder::new(count, count, helpers);
    let job = &job;
    split(
        name,
        helpers,
        || {
            for k in 0..count {
                match blocks.turn(k, &mut |later| job(later)) {
                    Turn::Yours => consume(job(k)),
                    Turn::Ready(block) => consume(block),
                    // Joining the helper passes its panic on.
                    Turn::Lost => return,
                }
                blocks.consumed(k);
            }
        },
        |_| blocks.help(job),
    );
}

/// `entries` cut into ranges of `block` entries (the last one shorter), each behind a lock
/// for the thread that claims it to take: the blocks of [`InOrder`] work that takes the
/// entries out of a map where they are (the loader's `services:` entries, the plan's service
/// entries) instead of moving them into blocks first.
pub(crate) fn blocks_of<K, V>(
    entries: &mut indexmap::map::Slice<K, V>,
    block: usize,
) -> Vec<std::sync::Mutex<Option<&mut indexmap::map::Slice<K, V>>>> {
    let block = block.max(1);
    let mut blocks = Vec::with_capacity(entries.len().div_ceil(block));
    let mut rest = entries;
    while !rest.is_empty() {
        let (next, after) = rest.split_at_mut(block.min(rest.len()));
        blocks.push(std::sync::Mutex::new(Some(next)));
        rest = after;
    }
    blocks
}

/// Spawns the helper thread `job` in `scope` with `thread`'s settings (its name, its stack):
/// it starts at once on another core than the calling thread's ([`Start`]) and publishes its
/// heap count when done. Errors: the spawn's.
pub(crate) fn spawn_scoped<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    thread: std::thread::Builder,
    job: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<std::thread::ScopedJoinHandle<'scope, T>> {
    let start = Start::here();
    thread.spawn_scoped(scope, start.helper(job))
}

/// [`spawn_scoped`] for a thread that may outlive the caller (the include decoded ahead).
pub(crate) fn spawn<T: Send + 'static>(
    thread: std::thread::Builder,
    job: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<T>> {
    let start = Start::here();
    thread.spawn(start.helper(job))
}

/// The start of one helper thread ([`spawn`], [`spawn_scoped`]): created with [`Start::here`]
/// on the thread that spawns the helper, the helper's body made with [`Start::helper`], then
/// dropped once the thread is spawned (or could not be).
///
/// The helper begins at once on another core than its starter's, and publishes its heap count
/// when done ([`crate::memory::counted`]). This kernel places a new thread on core 0, or
/// beside its starter, even with another core idle, and the thread there waits until the one
/// running ends its time slice: eight helpers of one app-10000 compile began 0.3–4.7 ms after
/// they were spawned, 17 ms in all (`perf record -e sched:sched_wakeup_new,sched:sched_switch`;
/// docs/performance.md, "Twenty-eighth round"). Earlier a helper placed beside its starter
/// took turns with it on one core for 10–20 ms ("Thirteenth round"). So (Linux):
///
/// - [`Start::here`] keeps the starter on the core it runs on (its affinity narrowed to that
///   core, which moves nothing), so the new thread, which inherits the affinity, is placed
///   there and nowhere else;
/// - dropping the `Start` gives the starter its affinity back and yields the core once, so
///   the new thread runs now;
/// - the helper's first step moves it off that core (its affinity without it, which the
///   kernel carries out at once), then lets it run wherever the starter was allowed to.
///
/// Four affinity calls and a yield; nothing happens where the starter may run on one core only.
struct Start {
    #[cfg(target_os = "linux")]
    pinned: Option<(usize, libc::cpu_set_t)>,
}

impl Start {
    /// Keeps the calling thread on its core until the `Start` is dropped (see [`Start`]).
    fn here() -> Start {
        #[cfg(target_os = "linux")]
        {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            // SAFETY: the sets are plain data the kernel reads and writes; `0` is the calling
            // thread, and `sched_getcpu` reads no memory of ours.
            unsafe {
                let mut allowed: libc::cpu_set_t = std::mem::zeroed();
                let cpu = libc::sched_getcpu();
                if cpu < 0
                    || cpu as usize >= libc::CPU_SETSIZE as usize
                    || libc::sched_getaffinity(0, size, &mut allowed) != 0
                    || libc::CPU_COUNT(&allowed) < 2
                    || !libc::CPU_ISSET(cpu as usize, &allowed)
                {
                    return Start { pinned: None };
                }
                let mut here: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu as usize, &mut here);
                if libc::sched_setaffinity(0, size, &here) != 0 {
                    return Start { pinned: None };
                }
                Start {
                    pinned: Some((cpu as usize, allowed)),
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        Start {}
    }

    /// `job` made the body of the helper thread this `Start` is for.
    fn helper<T>(&self, job: impl FnOnce() -> T) -> impl FnOnce() -> T {
        #[cfg(target_os = "linux")]
        let pinned = self.pinned;
        let job = crate::memory::counted(job);
        move || {
            #[cfg(target_os = "linux")]
            if let Some((cpu, allowed)) = pinned {
                start_elsewhere(cpu, &allowed);
            }
            job()
        }
    }
}

impl Drop for Start {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some((_, allowed)) = self.pinned.take() {
            // SAFETY: as in `Start::here`; `sched_yield` touches no memory of ours.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &allowed);
                libc::sched_yield();
            }
        }
    }
}

/// Moves the calling thread, a helper just started with its starter's one-core affinity, off
/// core `spawner`, then gives it the starter's own affinity `allowed` (two or more cores).
#[cfg(target_os = "linux")]
fn start_elsewhere(spawner: usize, allowed: &libc::cpu_set_t) {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    let mut elsewhere = *allowed;
    // SAFETY: the sets are plain data the kernel reads; `0` is the calling thread.
    unsafe {
        libc::CPU_CLR(spawner, &mut elsewhere);
        libc::sched_setaffinity(0, size, &elsewhere);
        libc::sched_setaffinity(0, size, allowed);
    }
}

/// The stack of a helper thread of [`split`]: what the main thread has (the completion
/// recurses through nested statements; the parser's parts move deeper nesting to a thread of
/// their own, as the parser does on the calling thread). Reserved, not committed: pages are
/// touched only as deep as a job goes.
const THREAD_STACK: usize = 8 << 20;

/// Work cut into `count` blocks, produced by helper threads ahead of a calling thread that
/// consumes the blocks in order (the JSON plan's services, the `services:` section's
/// entries). Every thread claims the next block nobody has claimed; no block is claimed more
/// than `ahead` blocks past the last one consumed, so only a few produced blocks wait at once.
///
/// The calling thread asks for each block's [`Turn`] in order: when nobody has claimed the
/// block it is its own to do in place ([`Turn::Yours`]); when a helper produced it, it is
/// handed over ([`Turn::Ready`]); while a helper is still at it, the calling thread produces
/// a later block meanwhile instead of waiting. Helpers run [`InOrder::help`].
pub(crate) struct InOrder<T> {
    count: usize,
    ahead: usize,
    helpers: usize,
    /// The next block nobody has claimed.
    next: std::sync::atomic::AtomicUsize,
    state: std::sync::Mutex<InOrderState<T>>,
    /// Signalled when a block is produced or consumed, a helper ends, or the work stops.
    changed: std::sync::Condvar,
}

struct InOrderState<T> {
    /// Blocks produced ahead and not yet consumed, by block number.
    produced: Vec<Option<T>>,
    /// Blocks consumed so far (in order).
    consumed: usize,
    helpers_gone: usize,
    stopped: bool,
}

/// What the calling thread does with block `k` ([`InOrder::turn`]).
pub(crate) enum Turn<T> {
    /// Nobody had claimed it: do it in place.
    Yours,
    /// A helper (or this thread, ahead) produced it.
    Ready(T),
    /// A helper claimed it and ended without producing it (it panicked): joining the helpers
    /// passes the panic on.
    Lost,
}

impl<T> InOrder<T> {
    /// Work of `count` blocks for `helpers` helper threads, at most `ahead` (at least 1)
    /// blocks claimed past the last one consumed.
    pub(crate) fn new(count: usize, ahead: usize, helpers: usize) -> InOrder<T> {
        InOrder {
            count,
            ahead: ahead.max(1),
            helpers,
            next: std::sync::atomic::AtomicUsize::new(0),
            state: std::sync::Mutex::new(InOrderState {
                produced: (0..count).map(|_| None).collect(),
                consumed: 0,
                helpers_gone: 0,
                stopped: false,
            }),
            changed: std::sync::Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, InOrderState<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims the next unclaimed block when it is within reach of `consumed`.
    fn claim(&self, consumed: usize) -> Option<usize> {
        use std::sync::atomic::Ordering::SeqCst;
        let mut k = self.next.load(SeqCst);
        while k < self.count && k < consumed + self.ahead {
            match self.next.compare_exchange(k, k + 1, SeqCst, SeqCst) {
                Ok(_) => return Some(k),
                Err(now) => k = now,
            }
        }
        None
    }

    /// Stores block `k`, produced ahead.
    fn produced(&self, k: usize, block: T) {
        self.lock().produced[k] = Some(block);
        self.changed.notify_all();
    }

    /// The calling thread's turn at block `k` (blocks are taken in order, each followed by
    /// [`InOrder::consumed`]); `make` produces a later block while a helper is at `k`.
    pub(crate) fn turn(&self, k: usize, make: &mut dyn FnMut(usize) -> T) -> Turn<T> {
        use std::sync::atomic::Ordering::SeqCst;
        loop {
            if self.next.compare_exchange(k, k + 1, SeqCst, SeqCst).is_ok() {
                return Turn::Yours;
            }
            let mut st = self.lock();
            if let Some(block) = st.produced[k].take() {
                return Turn::Ready(block);
            }
            if st.helpers_gone == self.helpers {
                return Turn::Lost;
            }
            let consumed = st.consumed;
            drop(st);
            match self.claim(consumed) {
                Some(later) => {
                    let block = make(later);
                    self.produced(later, block);
                }
                None => {
                    let st = self.lock();
                    if st.produced[k].is_none() && st.helpers_gone < self.helpers {
                        drop(self.changed.wait(st).unwrap_or_else(|e| e.into_inner()));
                    }
                }
            }
        }
    }

    /// Block `k` is consumed: helpers may claim one block further.
    pub(crate) fn consumed(&self, k: usize) {
        self.lock().consumed = k + 1;
        self.changed.notify_all();
    }

    /// The calling thread gives up (its consumer failed): helpers stop claiming.
    pub(crate) fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }

    /// A helper's loop: claims blocks within reach (waiting for the calling thread to consume
    /// when none is) and produces each with `make`, until every block is claimed or the work
    /// stops. However it ends (a panic in `make` included), the helper is counted as gone, so
    /// the calling thread never waits for a block no one will produce.
    pub(crate) fn help(&self, mut make: impl FnMut(usize) -> T) {
        struct Gone<'a, T>(&'a InOrder<T>);
        impl<T> Drop for Gone<'_, T> {
            fn drop(&mut self) {
                self.0.lock().helpers_gone += 1;
                self.0.changed.notify_all();
            }
        }
        let _gone = Gone(self);
        loop {
            let claimed = {
                let mut st = self.lock();
                loop {
                    if st.stopped {
                        break None;
                    }
                    if let Some(k) = self.claim(st.consumed) {
                        break Some(k);
                    }
                    if self.next.load(std::sync::atomic::Ordering::SeqCst) >= self.count {
                        break None;
                    }
                    st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            };
            match claimed {
                Some(k) => {
                    let block = make(k);
                    self.produced(k, block);
                }
                None => return,
            }
        }
    }
}

/// Blocks of work handed to one helper thread in order, whose last blocks the thread that
/// handed them over takes back for itself once it has nothing else to do (the `types:`
/// section's entries, read into the catalog). The helper takes blocks from the front
/// ([`Handover::front`]); the other thread puts them at the back ([`Handover::push`]),
/// closes the handover when there are no more ([`Handover::close`]), and then takes from the
/// back ([`Handover::back`]). So the helper's blocks always come before the other thread's.
pub(crate) struct Handover<T> {
    state: std::sync::Mutex<HandoverState<T>>,
    /// Signalled when a block is put in, the handover closes, or a block is taken back.
    changed: std::sync::Condvar,
}

/// Closes its [`Handover`] when dropped ([`Handover::closing`]).
pub(crate) struct Closing<'a, T>(&'a Handover<T>);

impl<T> Drop for Closing<'_, T> {
    fn drop(&mut self) {
        self.0.close();
    }
}

struct HandoverState<T> {
    blocks: std::collections::VecDeque<T>,
    closed: bool,
    /// Some block was taken from the back.
    taken_back: bool,
    /// The helper waits for a block to be taken back before it takes any (tests).
    hold: bool,
}

impl<T> Handover<T> {
    /// An empty, open handover. With `hold` (tests), once the handover is closed, the helper
    /// waits until a block has been taken back (or none is left) before it takes any, so
    /// that both ends are used.
    pub(crate) fn new(hold: bool) -> Handover<T> {
        Handover {
            state: std::sync::Mutex::new(HandoverState {
                blocks: std::collections::VecDeque::new(),
                closed: false,
                taken_back: false,
                hold,
            }),
            changed: std::sync::Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HandoverState<T>> {
        // A thread that panicked while holding the lock left the queue whole (no operation
        // panics half-way); its panic reaches the caller when the helper is joined.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts `block` at the back.
    pub(crate) fn push(&self, block: T) {
        self.lock().blocks.push_back(block);
        self.changed.notify_one();
    }

    /// No more blocks will be put in.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    /// A guard that closes the handover when it is dropped, also while the thread putting
    /// blocks in unwinds from a panic: the helper would otherwise wait for blocks forever, and
    /// the scope that joins it with it.
    pub(crate) fn closing(&self) -> Closing<'_, T> {
        Closing(self)
    }

    /// The helper's next block, from the front: waits while the handover is open and empty;
    /// `None` once it is closed and empty.
    pub(crate) fn front(&self) -> Option<T> {
        let mut s = self.lock();
        loop {
            let held = s.hold && !(s.closed && (s.taken_back || s.blocks.is_empty()));
            if !held {
                if let Some(block) = s.blocks.pop_front() {
                    return Some(block);
                }
                if s.closed {
                    return None;
                }
            }
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The last block not taken yet, taken back by the thread that put it in.
    pub(crate) fn back(&self) -> Option<T> {
        let mut s = self.lock();
        let block = s.blocks.pop_back();
        if block.is_some() && !s.taken_back {
            s.taken_back = true;
            drop(s);
            self.changed.notify_all();
        }
        block
    }

    /// Whether some block was taken back. Final once [`Handover::front`] returned `None`.
    pub(crate) fn taken_back(&self) -> bool {
        self.lock().taken_back
    }
}

#[cfg(test)]
mod tests {
    use super::{split, Handover, InOrder, Start, Turn};
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    /// Blocks come out in order whoever produced them, each produced once, and never more
    /// than `ahead` past the last one consumed are produced and waiting.
    #[test]
    fn blocks_are_consumed_in_order_whoever_produces_them() {
        for (count, ahead, helpers) in [(0, 3, 1), (1, 1, 1), (200, 4, 1), (200, 4, 3), (57, 1, 2)]
        {
            let work = InOrder::new(count, ahead, helpers);
            let made = AtomicUsize::new(0);
            let waiting_most = AtomicUsize::new(0);
            let consumed = AtomicUsize::new(0);
            let make = |k: usize| {
                made.fetch_add(1, SeqCst);
                let waiting = k + 1 - consumed.load(SeqCst);
                waiting_most.fetch_max(waiting, SeqCst);
                k * 3
            };
            let (got, _) = split(
                "test",
                helpers,
                || {
                    let mut got = Vec::new();
                    for k in 0..count {
                        let value = match work.turn(k, &mut |later| make(later)) {
                            Turn::Yours => make(k),
                            Turn::Ready(v) => v,
                            Turn::Lost => panic!("no helper panicked"),
                        };
                        got.push(value);
                        consumed.store(k + 1, SeqCst);
                        work.consumed(k);
                    }
                    got
                },
                |_| work.help(make),
            );
            let expected: Vec<usize> = (0..count).map(|k| k * 3).collect();
            assert_eq!(got, expected, "{count} blocks, {helpers} helpers");
            assert_eq!(made.load(SeqCst), count);
            assert!(
                waiting_most.load(SeqCst) <= ahead,
                "{count}/{ahead}/{helpers}"
            );
        }
    }

    /// A helper that panics at a block it claimed leaves the calling thread a `Lost` turn
    /// instead of a wait for ever; the join passes the panic on.
    #[test]
    fn a_helper_that_panics_does_not_leave_the_caller_waiting() {
        let work = InOrder::new(20, 8, 1);
        let (at_five, reached) = std::sync::mpsc::channel::<()>();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            split(
                "test",
                1,
                || {
                    // The helper claims blocks 0 to 5 first.
                    reached.recv().expect("the helper got to block 5");
                    let mut turns = Vec::new();
                    for k in 0..20 {
                        match work.turn(k, &mut |later| later) {
                            Turn::Yours => turns.push(format!("yours {k}")),
                            Turn::Ready(v) => turns.push(format!("ready {v}")),
                            Turn::Lost => {
                                turns.push(format!("lost {k}"));
                                break;
                            }
                        }
                        work.consumed(k);
                    }
                    turns
                },
                |_| {
                    work.help(|k| {
                        if k == 5 {
                            at_five.send(()).expect("sent");
                            panic!("block five");
                        }
                        k
                    })
                },
            )
        }));
        let payload = outcome.expect_err("the helper's panic is passed on");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"block five"));
    }

    /// After `stop`, helpers claim nothing more and end.
    #[test]
    fn a_stop_ends_the_helpers() {
        let work: InOrder<usize> = InOrder::new(1000, 2, 2);
        let made = AtomicUsize::new(0);
        split(
            "test",
            2,
            || {
                assert!(matches!(
                    work.turn(0, &mut |k| k),
                    Turn::Yours | Turn::Ready(_)
                ));
                work.stop();
            },
            |_| {
                work.help(|k| {
                    made.fetch_add(1, SeqCst);
                    k
                })
            },
        );
        // Nothing past the first blocks within reach was produced.
        assert!(made.load(SeqCst) <= 3, "{}", made.load(SeqCst));
    }

    /// A helper starts on another core than its starter's when it may, with the starter's
    /// affinity (it is not left pinned), and the starter gets its own affinity back.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_helper_starts_elsewhere_and_both_may_run_anywhere_afterwards() {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: plain data filled by the kernel for the calling thread.
        let affinity = move || unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
            set
        };
        let same = |a: &libc::cpu_set_t, b: &libc::cpu_set_t| {
            // SAFETY: reads the two sets only.
            (0..libc::CPU_SETSIZE as usize)
                .all(|c| unsafe { libc::CPU_ISSET(c, a) == libc::CPU_ISSET(c, b) })
        };
        std::thread::spawn(move || {
            let before = affinity();
            // SAFETY: reads the set only.
            let cores = unsafe { libc::CPU_COUNT(&before) };
            let start = Start::here();
            // SAFETY: reads no memory of ours.
            let here = unsafe { libc::sched_getcpu() };
            let pinned = affinity();
            // SAFETY: reads the set only.
            let pinned_cores = unsafe { libc::CPU_COUNT(&pinned) };
            let helper = std::thread::spawn(start.helper(move || {
                // SAFETY: reads no memory of ours.
                (unsafe { libc::sched_getcpu() }, affinity())
            }));
            drop(start);
            assert!(same(&affinity(), &before), "the starter's affinity is back");
            let (there, helper_affinity) = helper.join().expect("the helper");
            assert!(
                same(&helper_affinity, &before),
                "the helper's affinity is the starter's"
            );
            if cores >= 2 {
                assert_eq!(
                    pinned_cores, 1,
                    "the starter is kept on its core while it starts"
                );
                assert_ne!(there, here, "the helper began off core {here}");
            } else {
                assert_eq!(pinned_cores, cores);
            }
        })
        .join()
        .expect("the test thread");
    }

    /// The helper's blocks are a prefix and the blocks taken back the rest: every block
    /// once, in order when the two are put one after the other.
    #[test]
    fn a_handover_splits_its_blocks_into_a_prefix_and_the_rest() {
        for hold in [false, true] {
            let work: Handover<usize> = Handover::new(hold);
            let (mut back, mut fronts) = split(
                "test",
                1,
                || {
                    for k in 0..500 {
                        work.push(k);
                    }
                    work.close();
                    let mut back = Vec::new();
                    while let Some(k) = work.back() {
                        back.push(k);
                    }
                    back
                },
                |_| {
                    let mut front = Vec::new();
                    while let Some(k) = work.front() {
                        front.push(k);
                    }
                    front
                },
            );
            let mut all = fronts.pop().expect("the helper's blocks");
            assert_eq!(
                all,
                (0..all.len()).collect::<Vec<_>>(),
                "in order from the front"
            );
            back.reverse();
            all.extend(back);
            assert_eq!(all, (0..500).collect::<Vec<_>>());
            if hold {
                assert!(work.taken_back(), "with hold, some block was taken back");
            }
        }
    }
}
