//! The memory ceiling of a compilation: the live heap is counted by the program's allocator,
//! and a compilation whose heap grows past the ceiling stops with a `memory-limit` error (no
//! plan is written) instead of being killed by the operating system.
//!
//! The count needs [`crate::script::sandbox::CountingAllocator`] as the program's
//! `#[global_allocator]` (the `wireplan` and `wireplan-repl` binaries install it); without it
//! the live count stays 0 and the ceiling never trips. The pipeline checks the ceiling after
//! loading the files, after expanding the configuration, after loading the services, after
//! `resolve` and `complete`, after building the plan and before writing it; a stage can
//! therefore overshoot by what it allocates itself before the next check. The ceiling is
//! process-wide (set from the command line with `--max-memory`, default
//! [`default_ceiling`]). Each thread adds its allocations and frees to a running sum of its own
//! and publishes it to the process-wide count every [`PUBLISH_STEP`] bytes, so the count is
//! exact for the calling thread and within that step per other thread.

use crate::diagnostics::{Code, Diagnostic};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};

/// Bytes currently allocated through the counting allocator, as published by the threads
/// (each thread holds back less than [`PUBLISH_STEP`] bytes of change; see [`ThreadCount`]).
static LIVE: AtomicIsize = AtomicIsize::new(0);
/// The most [`LIVE`] has been since the last [`reset_peak`].
static PEAK: AtomicIsize = AtomicIsize::new(0);
/// The ceiling in bytes (`isize::MAX`: none).
static CEILING: AtomicIsize = AtomicIsize::new(isize::MAX);
/// Whether [`LIVE`] went past [`CEILING`] since the ceiling was set.
static EXCEEDED: AtomicBool = AtomicBool::new(false);

/// How much a thread's live-heap change may grow (up or down) before it is added to the
/// process-wide count: 64 KiB. Counting every allocation into one shared atomic cost about a
/// tenth of a compile's time (a locked read-modify-write per `malloc` and per `free`); a
/// thread-local running sum costs a plain add. So [`live`] and [`peak`] are exact to within
/// this many bytes per thread, and an allocation of this size or more is published at once
/// (the ceiling sees every large block as it is made).
pub const PUBLISH_STEP: usize = 64 * 1024;

/// What one thread counts: every byte it allocated (never decreasing; the script sandbox
/// bounds a lifecycle call by it) and its live-heap change not yet added to [`LIVE`].
/// Const-initialised and without a destructor, so touching it never allocates. What a thread
/// holds back when it ends (under [`PUBLISH_STEP`]) is lost to the process-wide count.
struct ThreadCount {
    allocated: Cell<u64>,
    pending: Cell<isize>,
}

thread_local! {
    static THREAD: ThreadCount = const {
        ThreadCount { allocated: Cell::new(0), pending: Cell::new(0) }
    };
}

/// Counts `bytes` newly allocated on this thread (called by the counting allocator on every
/// allocation, so it allocates nothing; it touches one thread-local, and the shared atomics
/// only once the thread's change reaches [`PUBLISH_STEP`]).
#[inline(always)]
pub(crate) fn allocated(bytes: usize) {
    count(bytes as u64, bytes as isize);
}

/// Counts `bytes` freed on this thread.
#[inline(always)]
pub(crate) fn freed(bytes: usize) {
    count(0, -(bytes as isize));
}

/// Counts a block grown or shrunk in place from `old` to `new` bytes: the thread's total
/// counts the growth only, the live heap the difference.
#[inline(always)]
pub(crate) fn reallocated(old: usize, new: usize) {
    count(new.saturating_sub(old) as u64, new as isize - old as isize);
}

/// Adds `total` to the thread's allocation total and `change` to its held-back live-heap
/// change, publishing the latter once it reaches [`PUBLISH_STEP`] either way.
#[inline(always)]
fn count(total: u64, change: isize) {
    const STEP: isize = PUBLISH_STEP as isize;
    // `try_with`: during thread teardown the slot may be gone; then publish directly.
    let held = THREAD.try_with(|t| {
        t.allocated.set(t.allocated.get().wrapping_add(total));
        let now = t.pending.get().wrapping_add(change);
        if -STEP < now && now < STEP {
            t.pending.set(now);
            0
        } else {
            t.pending.set(0);
            now
        }
    });
    match held {
        Ok(0) => {}
        Ok(now) => publish(now),
        Err(_) => publish(change),
    }
}

/// Adds a thread's held-back change to the process-wide count; on a new peak, records it and
/// compares it with the ceiling.
#[inline(never)]
fn publish(change: isize) {
    let now = LIVE.fetch_add(change, Relaxed).wrapping_add(change);
    if change > 0 && now > PEAK.load(Relaxed) {
        PEAK.fetch_max(now, Relaxed);
        if now > CEILING.load(Relaxed) {
            EXCEEDED.store(true, Relaxed);
        }
        if now > PROMPT_PURGE_ABOVE as isize && !PROMPT_PURGE.load(Relaxed) {
            purge_promptly();
        }
    }
}

/// `job` made the body of a helper thread (lexing lanes, parser parts, an include decoded
/// ahead, the catalog's thread): once it has run, the thread adds what it holds back to the
/// process-wide count. What a thread holds back is lost when it exits, and a long `--watch`
/// session starts several such threads per rebuild, so the count would drift by up to
/// [`PUBLISH_STEP`] per thread.
pub(crate) fn counted<T>(job: impl FnOnce() -> T) -> impl FnOnce() -> T {
    move || {
        let done = job();
        publish_this_thread();
        done
    }
}

/// Adds this thread's held-back change to the process-wide count now.
fn publish_this_thread() {
    if let Ok(change) = THREAD.try_with(|t| t.pending.replace(0)) {
        if change != 0 {
            publish(change);
        }
    }
}

/// Bytes allocated on this thread so far, frees not subtracted (0 forever without the
/// counting allocator).
pub fn allocated_on_this_thread() -> u64 {
    THREAD.with(|t| t.allocated.get())
}

/// Bytes of heap live now (0 without the counting allocator): the process-wide count plus
/// what this thread holds back, so exact for a single-threaded caller and within
/// [`PUBLISH_STEP`] per other thread.
pub fn live() -> usize {
    publish_this_thread();
    LIVE.load(Relaxed).max(0) as usize
}

/// The most heap that was live at once since the last [`reset_peak`], in bytes. A peak that
/// lasted less than [`PUBLISH_STEP`] of allocation can be missed by up to that much.
pub fn peak() -> usize {
    publish_this_thread();
    PEAK.load(Relaxed).max(0) as usize
}

/// Starts a new peak measurement from the current live heap (benchmarks measure each stage).
pub fn reset_peak() {
    publish_this_thread();
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

/// Sets the ceiling in bytes (`None`: no ceiling) and clears an earlier overrun.
pub fn set_ceiling(bytes: Option<u64>) {
    let bytes = bytes.map_or(isize::MAX, |b| isize::try_from(b).unwrap_or(isize::MAX));
    publish_this_thread();
    CEILING.store(bytes, Relaxed);
    EXCEEDED.store(LIVE.load(Relaxed) > bytes, Relaxed);
    // The peak check in `publish` only looks at the ceiling on a new peak.
    reset_peak();
}

/// Clears an overrun that the heap is no longer past, for a compilation that starts over
/// from its files (a deferred `types:` file that was not one, `config::load_refetched`):
/// what the first attempt held is freed, and the second must not stop at its first check
/// because of it. An overrun that still holds stays.
pub fn start_over() {
    publish_this_thread();
    EXCEEDED.store(LIVE.load(Relaxed) > CEILING.load(Relaxed), Relaxed);
}

/// Raises the ceiling (if one is set) by `bytes`: for memory held for later, not needed by the
/// compilation itself (what `--watch` keeps between compilations, [`crate::config::DecodedFiles`]),
/// so a compilation under `--max-memory` stops where it stops without it.
pub fn allow(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let _ = CEILING.fetch_update(Relaxed, Relaxed, |c| {
        (c != isize::MAX).then(|| c.saturating_add(bytes))
    });
}

/// Runs `make`, which allocates what is held for later (a copy `--watch` keeps), outside the
/// ceiling: the ceiling, if one is set, is raised by what `make` added to the heap, and the
/// ceiling counts as passed afterwards only if it was before or the heap is above the raised
/// one. Returns `make`'s value and the bytes it added. Meant for the calling thread alone
/// allocating meanwhile (others' allocations in that time are exempted too).
pub fn held<T>(make: impl FnOnce() -> T) -> (T, usize) {
    publish_this_thread();
    let (was, before) = (EXCEEDED.load(Relaxed), LIVE.load(Relaxed));
    let ceiling = CEILING.swap(isize::MAX, Relaxed);
    let value = make();
    publish_this_thread();
    let now = LIVE.load(Relaxed);
    let raised = match ceiling {
        isize::MAX => isize::MAX,
        c => c.saturating_add(now.saturating_sub(before).max(0)),
    };
    CEILING.store(raised, Relaxed);
    EXCEEDED.store(was || now > raised, Relaxed);
    (value, now.saturating_sub(before).max(0) as usize)
}

/// The ceiling in bytes, if one is set.
pub fn ceiling() -> Option<u64> {
    match CEILING.load(Relaxed) {
        isize::MAX => None,
        b => Some(b as u64),
    }
}

/// Whether the live heap is past the ceiling right now, counting what this thread holds back
/// (no shared write: two relaxed loads and a thread-local, cheap enough for the script
/// sandbox's progress callback, which runs after every operation). Other threads' counts are
/// within [`PUBLISH_STEP`] each.
pub fn over_ceiling_now() -> bool {
    let ceiling = CEILING.load(Relaxed);
    ceiling != isize::MAX && {
        let pending = THREAD.with(|t| t.pending.get());
        LIVE.load(Relaxed).saturating_add(pending) > ceiling
    }
}

/// Whether the live heap went past the ceiling since it was set.
pub fn exceeded() -> bool {
    publish_this_thread();
    EXCEEDED.load(Relaxed)
}

/// The default ceiling: three quarters of the machine's physical memory (`MemTotal` of
/// `/proc/meminfo`), or 8 GiB where that cannot be read.
pub fn default_ceiling() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    });
    total.map_or(8 << 30, |t| t / 4 * 3)
}

/// `Ok` while the heap stayed under the ceiling; else the `memory-limit` error for `stage`
/// (what the compilation was doing, e.g. `"loading the services"`), which names the ceiling
/// and how to raise it. Called between stages, so it first returns the freed pages to the
/// operating system ([`release_freed`]), once the heap has been at least
/// [`RELEASE_FREED_ABOVE`] large.
pub fn check(stage: &str) -> Result<(), Diagnostic> {
    if peak() >= RELEASE_FREED_ABOVE {
        release_freed();
    }
    check_keeping_freed(stage)
}

/// The peak heap (bytes) from which [`check`] returns freed pages between stages. Below it the
/// process is small whatever happens to its freed pages, and returning them costs more than
/// it saves: at app-1000 (a 3.3 MB peak) the `madvise` calls of the purges were 3.5 % of the
/// compile's samples. app-10000 peaks near 20 MB and keeps its purges.
pub const RELEASE_FREED_ABOVE: usize = 8 << 20;

/// [`check`] without returning the freed pages first: for the boundaries after which the next
/// stage allocates about as much as the last one freed (from loading the services on: resolve,
/// complete and the plan build free little and reuse it), where returning the pages would only
/// make the next stage fault them in again. app-10000: 9,390 → 8,210 page faults for 1.9 MB
/// more peak RSS (30.6 → 32.5 MB; docs/performance.md, "Seventh round"). The stages that free
/// a whole tree (reading the files, expanding them) call [`check`].
pub fn check_keeping_freed(stage: &str) -> Result<(), Diagnostic> {
    crate::timings::mark(stage);
    if !exceeded() {
        return Ok(());
    }
    Err(limit_error(stage))
}

/// The `memory-limit` error of a compilation that passed the ceiling while doing `stage`
/// ("reading the configuration"), with the note that says how to raise it.
pub fn limit_error(stage: &str) -> Diagnostic {
    let limit = ceiling().map_or_else(|| "its limit".to_string(), format_size);
    Diagnostic::error(
        Code::MemoryLimit,
        format!("The compilation needs more memory than the ceiling of {limit} (passed while {stage}); no plan is written."),
    )
    .with_note("raise the ceiling with --max-memory SIZE (e.g. --max-memory 8GB); the default is 3/4 of the machine's memory")
}

/// A byte count for people: `512 MB`, `1.5 GB` (powers of 1024, as `--max-memory` reads them).
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} byte{}", if bytes == 1 { "" } else { "s" });
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text} {}", UNITS[unit])
}

/// Reads a size: a number of bytes, or a number (decimals allowed) with a unit `K`, `M`, `G`,
/// `T` (optionally followed by `B` or `iB`; all powers of 1024; case-insensitive):
/// `1048576`, `512M`, `1.5GB`, `2GiB`. Errors: a message saying what is wrong (for `clap`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    // One unit, written once: `k`, `kb` or `kib` (any case); `b` or nothing for bytes.
    let prefix = match unit.as_str() {
        "" | "b" => "",
        u => u
            .strip_suffix("ib")
            .or_else(|| u.strip_suffix('b'))
            .unwrap_or(u),
    };
    let shift = match prefix {
        "" if unit.len() <= 1 => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(format!("'{text}' is not a size (write e.g. 512MB or 2GB)")),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size (write e.g. 512MB or 2GB)"))?;
    let bytes = value * (1u64 << shift) as f64;
    // 2^64 is exactly representable; a ceiling must be below it.
    if !(1.0..18_446_744_073_709_551_616.0).contains(&bytes) {
        return Err(format!(
            "'{text}' is out of range (a ceiling is at least 1 byte and below 16 EiB)"
        ));
    }
    Ok(bytes as u64)
}

/// mimalloc's option numbers (the `mi_option_e` enum of its version 3 `mimalloc.h`, which
/// `libmimalloc-sys` builds by default; the crate names only some of them).
mod mi_option {
    /// Commit a whole arena when it is reserved (default 2: where the OS overcommits).
    pub const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    /// Milliseconds before freed pages are returned to the OS (default 10; 0: at once; -1:
    /// never).
    pub const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    /// The size of each arena mimalloc reserves from the OS, in KiB (default 1 GiB).
    pub const ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;
    /// What mimalloc does when the process exits (default 0: collect the main thread's heap,
    /// returning its freed pages to the OS one `madvise` at a time; 2: nothing).
    pub const DESTROY_ON_EXIT: libmimalloc_sys::mi_option_t = 22;
}

/// Whether the process ends after its compilation ([`end_process_after_compiling`]).
static ENDS_AFTER_COMPILING: AtomicBool = AtomicBool::new(false);

/// Declares that the process ends once its one compilation is reported (the `wireplan compile`
/// and `check` commands call this; the REPL, `--watch`, tests and library users do not): then
/// [`crate::compiler::compile`] leaves its working state (builder, catalog, extensions, the
/// expanded sections) to the operating system instead of freeing it block by block, about
/// 1 % of a compilation's time. Nothing is written or released by those structures' drops.
///
/// It also tells mimalloc to skip its collection at exit: by default its exit hook collects
/// the main thread's heap and returns the freed pages one `madvise` at a time (about 50 calls
/// after an app-1000 compile, 30 after app-10000), work the process's end does anyway.
pub fn end_process_after_compiling() {
    ENDS_AFTER_COMPILING.store(true, Relaxed);
    // SAFETY: `mi_option_set` stores a value in mimalloc's option table (see
    // `tune_allocator_now`); the exit hook reads this option and returns at once when it is
    // above 1, so nothing is released that another exit handler could still use.
    unsafe { libmimalloc_sys::mi_option_set(mi_option::DESTROY_ON_EXIT, 2) };
}

/// Whether [`end_process_after_compiling`] was called in this process.
pub fn process_ends_after_compiling() -> bool {
    ENDS_AFTER_COMPILING.load(Relaxed)
}

/// Whether [`tune_allocator`] has run.
static TUNED: AtomicBool = AtomicBool::new(false);

/// Tunes mimalloc (the allocator under [`crate::script::sandbox::CountingAllocator`]) once,
/// before its first allocation: the counting allocator calls this on every allocation, so
/// only the first call does anything.
///
/// The settings: arenas of [`ARENA_RESERVE_KIB`] are committed as they are used rather than
/// whole, and freed pages go back to the operating system [`PURGE_DELAY_MS`] after they were
/// freed, or at once when [`release_freed`] runs between the stages of a compilation. A compile allocates its largest
/// structures (the NEON trees of the files) first and frees them before the next stage's
/// tables grow. Returning every freed page at once (the setting until the fifth round) kept
/// the peak low but made each stage fault fresh pages in again: app-10000 took 25,600 page
/// faults (100 MB of zeroed pages) for a 28.6 MB peak. Keeping the freed pages within a stage
/// and returning them between stages takes 12,900 faults for a 37 MB peak; never returning
/// them, 11,700 faults for 55 MB (mimalloc reuses freed pages only partly); with mimalloc's
/// defaults (eagerly committed arenas, 10 ms) app-10000 peaked at 77 MB and app-1000 at
/// 43 MB. A large compilation (once its live heap passes [`PROMPT_PURGE_ABOVE`]) switches
/// back to returning pages at once, so its peak stays where it was (gen 100000: 225 MB with
/// the delay throughout, 198 MB switching at the first stage boundary, 185 MB switching as
/// the heap passes the threshold; 178 MB returning every page at once). An arena's commit mode is fixed when it is
/// reserved, at the program's first allocation, hence the call from the allocator rather than
/// from `main`. Measured in docs/performance.md ("The allocator", "Fifth round: page faults").
#[inline(always)]
pub(crate) fn tune_allocator() {
    if !TUNED.load(Relaxed) {
        tune_allocator_now();
    }
}

#[cold]
#[inline(never)]
fn tune_allocator_now() {
    TUNED.store(true, Relaxed);
    // SAFETY: `mi_option_set` stores a value in mimalloc's option table; it allocates nothing
    // (so it may run inside the allocator) and any option may be changed at any time. Two
    // threads racing here store the same values.
    unsafe {
        libmimalloc_sys::mi_option_set(mi_option::PURGE_DELAY, PURGE_DELAY_MS);
        libmimalloc_sys::mi_option_set(mi_option::ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(mi_option::ARENA_RESERVE, ARENA_RESERVE_KIB);
    }
}

/// The size of the arenas (address-space reservations) mimalloc takes from the operating
/// system, in KiB: 64 MiB instead of mimalloc's 1 GiB. In a large arena mimalloc hands out
/// slices it never used before while the slices a stage freed wait for their purge, so each
/// stage faults in fresh pages; a small arena fills up and makes it reuse the freed (still
/// mapped) slices first. app-10000: 11,280 → 9,390 page faults, peak RSS 35.0 → 30.7 MB; gen
/// 100000: 183 → 175 MB (docs/performance.md, "Seventh round"). 16 and 32 MiB gave the same
/// counts as 64 MiB; 128 MiB and more the default's. A compilation that needs more takes more
/// arenas of this size.
pub const ARENA_RESERVE_KIB: std::ffi::c_long = 64 * 1024;

/// How long mimalloc keeps a freed page before returning it to the operating system, in
/// milliseconds: longer than a 10,000-service compile's stages, so a stage reuses the pages
/// the previous one freed and [`release_freed`] decides when they go back.
pub const PURGE_DELAY_MS: std::ffi::c_long = 1000;

/// The live heap, in bytes, from which on mimalloc returns freed pages at once (purge delay 0)
/// for the rest of the process: 64 MiB. Below it (app-10000 peaks at about 20 MB of live
/// heap) freed pages wait for the next stage boundary ([`release_freed`]).
pub const PROMPT_PURGE_ABOVE: usize = 64 << 20;

/// Whether the live heap passed [`PROMPT_PURGE_ABOVE`] (freed pages are returned at once).
static PROMPT_PURGE: AtomicBool = AtomicBool::new(false);

/// Whether freed pages are returned to the operating system at once (the live heap passed
/// [`PROMPT_PURGE_ABOVE`] in this process), rather than at the next stage boundary.
pub fn purges_promptly() -> bool {
    PROMPT_PURGE.load(Relaxed)
}

/// Makes mimalloc return freed pages at once from now on (called by [`publish`] when the live
/// heap first passes [`PROMPT_PURGE_ABOVE`]; allocates nothing, so it may run inside the
/// allocator).
#[cold]
#[inline(never)]
fn purge_promptly() {
    if !PROMPT_PURGE.swap(true, Relaxed) {
        set_purge_delay(if REUSING.load(Relaxed) > 0 {
            REUSE_DELAY_MS
        } else {
            0
        });
    }
}

/// Sets how long mimalloc keeps a freed page before returning it, in milliseconds.
fn set_purge_delay(ms: std::ffi::c_long) {
    // SAFETY: `mi_option_set` stores a value in mimalloc's option table; it allocates nothing
    // (so it may run inside the allocator) and any option may be changed at any time.
    unsafe { libmimalloc_sys::mi_option_set(mi_option::PURGE_DELAY, ms) };
}

/// How long freed pages wait while a [`ReuseWithin`] lives and the heap is past
/// [`PROMPT_PURGE_ABOVE`], in milliseconds: mimalloc's default, long enough for the copy
/// being made to take the pages the tree it replaces gave up.
pub const REUSE_DELAY_MS: std::ffi::c_long = 10;

/// How many [`ReuseWithin`] live (one inside another keeps the outer one's delay).
static REUSING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// While it lives, freed pages are not returned at once even past [`PROMPT_PURGE_ABOVE`]: they
/// wait [`REUSE_DELAY_MS`]. For a stage that frees a tree as it copies it (expanding the
/// configuration: each raw entry is dropped as its expanded copy is made), where pages
/// returned at once are faulted in again by the copy a moment later. gen 100000's expanding
/// took 38,600 page faults and 153–173 ms that way, 14,700–17,400 faults and 135–145 ms with
/// the delay, for the same peak (192–207 MB either way, `/usr/bin/time`; docs/performance.md,
/// "Twenty-seventh round"). Also for loading the services (each `services:` entry is dropped
/// as its definition is made) and the plan build of a large compilation (each definition is
/// freed once its entry is made; docs/performance.md, "Thirtieth round"). Below the threshold
/// freed pages wait for the stage's end anyway ([`PURGE_DELAY_MS`]), so this changes nothing
/// there. Dropping the last one alive returns to prompt purges.
pub struct ReuseWithin(());

impl ReuseWithin {
    /// Starts keeping freed pages for [`REUSE_DELAY_MS`] until the value is dropped.
    pub fn start() -> ReuseWithin {
        REUSING.fetch_add(1, Relaxed);
        if PROMPT_PURGE.load(Relaxed) {
            set_purge_delay(REUSE_DELAY_MS);
        }
        ReuseWithin(())
    }
}

impl Drop for ReuseWithin {
    fn drop(&mut self) {
        let was = REUSING.fetch_sub(1, Relaxed);
        if was == 1 && PROMPT_PURGE.load(Relaxed) {
            set_purge_delay(0);
        }
    }
}

/// Returns the pages freed so far to the operating system (mimalloc's `mi_collect(true)`).
/// Called between the stages of a compilation (by [`check`]): what a stage freed is
/// reused within it instead of being faulted in again, and given back before the next stage
/// grows the peak. Without mimalloc as the allocator (a library user's program) it touches
/// only mimalloc's own empty state.
pub fn release_freed() {
    // SAFETY: `mi_collect` frees mimalloc's cached empty pages of this thread and purges the
    // arenas' freed pages; it may be called at any time from any thread.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_in_powers_of_1024() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("512mb"), Ok(512 << 20));
        assert_eq!(parse_size("1.5GB"), Ok(3 << 29));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size(" 64 KB "), Ok(64 << 10));
        assert!(parse_size("12XB").is_err());
        // A unit written once, not run on: 1KBBBBB and 1KiBB are not sizes.
        assert!(parse_size("1KBBBBB").is_err());
        assert!(parse_size("1KiBB").is_err());
        assert!(parse_size("1ib").is_err());
        assert_eq!(parse_size("7b"), Ok(7));
        assert_eq!(parse_size("2kib"), Ok(2048));
        // 2^64 bytes is not below 16 EiB; the largest accepted value is below it.
        assert!(parse_size("18446744073709551616").is_err());
        assert!(parse_size("16384PB").is_err());
        assert_eq!(parse_size("15TB"), Ok(15 << 40));
        assert!(parse_size("MB").is_err());
        assert_eq!(
            parse_size("0"),
            Err("'0' is out of range (a ceiling is at least 1 byte and below 16 EiB)".into())
        );
    }

    #[test]
    fn sizes_are_written_with_one_decimal_at_most() {
        assert_eq!(format_size(512), "512 bytes");
        assert_eq!(format_size(1), "1 byte");
        assert_eq!(format_size(20 << 20), "20 MB");
        assert_eq!(format_size(3 << 29), "1.5 GB");
    }
}
