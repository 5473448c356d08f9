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
