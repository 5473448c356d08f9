//! Work split over the machine's cores: how many threads the compiler's helpers may use at
//! once, and the one way they run (NEON lexing lanes and parser parts, definitions completed
//! in parts).

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
                std::thread::Builder::new()
                    .name(name.into())
                    .stack_size(THREAD_STACK)
                    .spawn_scoped(scope, crate::memory::counted(move || later(k)))
                    .ok()
            })
            .collect();
        let done = first();
        let rest = handles
            .into_iter()
            .enumerate()
            .map(|(k, handle)| match handle {
                Some(h) => h
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                None => later(k),
            })
            .collect();
        (done, rest)
    })
}

/// The stack of a helper thread of [`split`]: what the main thread has (the completion
/// recurses through nested statements; the parser's parts move deeper nesting to a thread of
/// their own, as the parser does on the calling thread). Reserved, not committed: pages are
/// touched only as deep as a job goes.
const THREAD_STACK: usize = 8 << 20;
