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

/// One timed batch: wall time and this thread's CPU time per call.
#[derive(Clone, Copy, Debug)]
pub struct Batch {
    pub wall: Duration,
    pub cpu: Duration,
}

/// Times `reps` calls of each of `fs` in turn, `rounds` times over (round `r` runs every
/// function once before round `r + 1` starts), so that a burst of the machine's other work
/// falls on all of them alike rather than on whichever happened to run then. Returns, per
/// function, its batches in round order (index `r` of every list is the same round, for
/// paired ratios).
pub fn interleaved(rounds: usize, reps: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<Vec<Batch>> {
    let start = Instant::now();
    let mut out: Vec<Vec<Batch>> = fs.iter().map(|_| Vec::with_capacity(rounds)).collect();
    for _ in 0..rounds {
        for (f, list) in fs.iter_mut().zip(out.iter_mut()) {
            let (w, c) = (start.elapsed(), thread_cpu());
            for _ in 0..reps {
                f();
            }
            list.push(Batch {
                wall: (start.elapsed() - w) / reps as u32,
                cpu: (thread_cpu() - c) / reps as u32,
            });
        }
    }
    out
}

/// [`interleaved`] for a pair of functions, each called directly (not through `dyn`), so a
/// call of a few nanoseconds is timed as the compiler inlines it into a loop: `f`'s batch,
/// then `g`'s, `rounds` times over.
pub fn interleaved_pair(
    rounds: usize,
    reps: usize,
    mut f: impl FnMut(),
    mut g: impl FnMut(),
) -> [Vec<Batch>; 2] {
    let start = Instant::now();
    let mut out = [Vec::with_capacity(rounds), Vec::with_capacity(rounds)];
    let batch = |list: &mut Vec<Batch>, h: &mut dyn FnMut(usize)| {
        let (w, c) = (start.elapsed(), thread_cpu());
        h(reps);
        list.push(Batch {
            wall: (start.elapsed() - w) / reps as u32,
            cpu: (thread_cpu() - c) / reps as u32,
        });
    };
    for _ in 0..rounds {
        let [a, b] = &mut out;
        batch(a, &mut |n| (0..n).for_each(|_| f()));
        batch(b, &mut |n| (0..n).for_each(|_| g()));
    }
    out
}

/// The median of `values` (sorted in place; the upper one of an even count).
pub fn median_of<T: Copy + PartialOrd>(values: &mut [T]) -> T {
    values.sort_by(|a, b| a.partial_cmp(b).expect("comparable"));
    values[values.len() / 2]
}

/// The median over rounds of `a`'s time divided by `b`'s in the same round (`pick` chooses
/// wall or CPU time): a paired ratio, which a slow stretch of the machine moves far less
/// than it moves either median.
pub fn paired_ratio(a: &[Batch], b: &[Batch], pick: impl Fn(&Batch) -> Duration) -> f64 {
    let mut ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| pick(x).as_secs_f64() / pick(y).as_secs_f64().max(1e-12))
        .collect();
    median_of(&mut ratios)
}
