//! Medians of repeated timed runs, for the summaries the runtime benches print after
//! criterion's groups (`runtime.rs`, `scopes.rs`).

use std::time::{Duration, Instant};

/// Median time per call of `f` over `runs` runs of `reps` calls each, read from `clock` (any
/// monotonic source: wall time, or the thread's CPU time).
pub fn median_by(
    runs: usize,
    reps: usize,
    clock: impl Fn() -> Duration,
    mut f: impl FnMut(),
) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = clock();
            for _ in 0..reps {
                f();
            }
            (clock() - t) / reps as u32
        })
        .collect();
    times.sort();
    times[runs / 2]
}

/// [`median_by`] in wall time.
pub fn median(runs: usize, reps: usize, f: impl FnMut()) -> Duration {
    let start = Instant::now();
    median_by(runs, reps, || start.elapsed(), f)
}

/// The CPU time this thread has used so far (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant of the platform.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// [`median_by`] in CPU time of this thread instead of wall time (steadier than wall time on
/// a shared machine).
pub fn cpu_median(runs: usize, reps: usize, f: impl FnMut()) -> Duration {
    median_by(runs, reps, thread_cpu, f)
}
