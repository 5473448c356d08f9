//! Sandbox limits that bound work, not only operations: a wall-clock limit and a ceiling on the
//! bytes allocated per lifecycle call, both checked from Rhai's progress callback (which runs
//! after every operation), and the project's `wireplan: sandbox:` settings that raise or lower
//! every limit.
//!
//! Rhai's operation budget counts a `pad(1000000, "x")` as a few operations although it
//! allocates a megabyte, and its size limits bound each value, not the total; so a loop of
//! allocations ran for hours within the budget. Here every allocation made on the script's
//! thread while a lifecycle call runs is counted by [`CountingAllocator`] — whatever function
//! made it (`pad`, `+`, `push`, string interpolation, the builder API) — and the call stops
//! once the total passes [`Limits::max_allocated`]. The count needs the allocator installed as
//! the program's `#[global_allocator]`: the `wireplan` and `wireplan-repl` binaries do; a build
//! script that compiles a plan can do the same with two lines. Without it only the time limit
//! and Rhai's per-value limits apply.

use super::Limits;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprKind};
use mimalloc::MiMalloc;
use rhai::{Dynamic, EvalAltResult};
use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    /// The lifecycle call running on this thread: when it started and the allocation count then.
    static RUN: Cell<Option<(Instant, u64)>> = const { Cell::new(None) };
    /// Whether [`begin`] holds the current run (nested calls do not restart it).
    static HELD: Cell<bool> = const { Cell::new(false) };
}

/// The program's allocator: mimalloc (faster than glibc's `malloc` on a compile's millions of
/// small blocks; tuned before its first allocation, see `memory::tune_allocator`), counting the bytes each
/// thread allocates (a reallocation counts what it grows by) and the live heap
/// ([`crate::memory`]). Install it with
/// `#[global_allocator] static ALLOC: wireplan::script::sandbox::CountingAllocator =
/// wireplan::script::sandbox::CountingAllocator;` to enforce [`Limits::max_allocated`].
pub struct CountingAllocator;

// SAFETY: every method forwards to `MiMalloc` (a `GlobalAlloc`) with the caller's arguments
// unchanged; counting
// (`crate::memory`) touches only a const-initialised thread-local without a destructor, which
// never allocates, and atomics.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        crate::memory::tune_allocator();
        crate::memory::allocated(layout.size());
        // SAFETY: forwarded as received.
        unsafe { MiMalloc.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        crate::memory::tune_allocator();
        crate::memory::allocated(layout.size());
        // SAFETY: forwarded as received.
        unsafe { MiMalloc.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        crate::memory::freed(layout.size());
        // SAFETY: forwarded as received.
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Growing in place costs the growth, not the whole block:
        // the thread's total counts the growth only, the live heap the difference.
        crate::memory::reallocated(layout.size(), new_size);
        // SAFETY: forwarded as received.
        unsafe { MiMalloc.realloc(ptr, layout, new_size) }
    }
}

/// The stack the calling program's main thread may grow to once [`raise_stack_limit`] ran:
/// 64 MiB (Linux's default is 8 MiB; the room the kernel leaves below the main stack is at
/// least 128 MiB).
pub const MAIN_STACK: u64 = 64 << 20;

/// Lets the main thread's stack grow to [`MAIN_STACK`] (the soft `RLIMIT_STACK`, which Linux
/// reads whenever the stack grows; never lowered, never past the hard limit). Extension
/// scripts run on the thread that compiles, and Rhai shows and compares nested arrays and maps
/// by recursion: an array nested 30,000 levels deep overflowed the default 8 MiB when printed
/// (a new user's trial, with `maxAllocated` raised past its default); with 64 MiB it prints.
/// The `wireplan` and `wireplan-repl` programs call it first thing; elsewhere it does nothing.
pub fn raise_stack_limit() {
    #[cfg(target_os = "linux")]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `getrlimit` and `setrlimit` read and write the struct given, nothing else.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_STACK, &mut limit) != 0 {
                return;
            }
            let want = MAIN_STACK as libc::rlim_t;
            if limit.rlim_cur != libc::RLIM_INFINITY
                && limit.rlim_cur < want
                && (limit.rlim_max == libc::RLIM_INFINITY || limit.rlim_max >= want)
            {
                limit.rlim_cur = want;
                libc::setrlimit(libc::RLIMIT_STACK, &limit);
            }
        }
    }
}

/// Bytes allocated on this thread so far (0 forever without [`CountingAllocator`]).
pub fn allocated_on_this_thread() -> u64 {
    crate::memory::allocated_on_this_thread()
}

/// Whether [`CountingAllocator`] is the global allocator (it has counted on this thread).
pub fn counting() -> bool {
    // Any allocation counts (at least its one byte); make one in case this thread has not
    // allocated yet. A u64 byte count does not wrap back to 0 in practice.
    drop(std::hint::black_box(Box::new(0u8)));
    allocated_on_this_thread() != 0
}

/// Marks the start of a lifecycle call on this thread; the time and allocation limits count
/// from here until the guard drops. Nested calls (a callback run from inside a call) keep
/// the outer start.
pub fn begin() -> RunGuard {
    let outer = HELD.with(|h| h.replace(true));
    if !outer {
        RUN.with(|r| r.set(Some((Instant::now(), allocated_on_this_thread()))));
    }
    RunGuard { outer }
}

/// Ends the run that [`begin`] started, when dropped.
pub struct RunGuard {
    outer: bool,
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        if !self.outer {
            HELD.with(|h| h.set(false));
            RUN.with(|r| r.set(None));
        }
    }
}

/// What stopped a script, carried in Rhai's `ErrorTerminated` value.
pub const TIME_LIMIT: &str = "wireplan-sandbox-time-limit";
/// See [`TIME_LIMIT`].
pub const ALLOCATION_LIMIT: &str = "wireplan-sandbox-allocation-limit";
/// See [`TIME_LIMIT`]: the process's heap passed the compilation's memory ceiling
/// (`--max-memory`, [`crate::memory::set_ceiling`]) while the script ran.
pub const MEMORY_LIMIT: &str = "wireplan-sandbox-memory-limit";

/// The progress callback for an engine with `limits`: stops the script once the current run
/// has taken longer than [`Limits::time_limit`] or allocated more than
/// [`Limits::max_allocated`] bytes, or once the process's heap is past the compilation's
/// memory ceiling (`--max-memory`; whatever the sandbox's own limits allow). A run not
/// opened by [`begin`] (a script evaluated directly) starts at its first operation.
pub fn progress(limits: &Limits) -> impl Fn(u64) -> Option<Dynamic> + 'static {
    let (time, bytes) = (limits.time_limit, limits.max_allocated);
    move |ops| {
        let now_bytes = allocated_on_this_thread();
        let held = HELD.with(Cell::get);
        let (start, base) = match RUN.with(Cell::get) {
            Some(run) if held || ops > 1 => run,
            _ => {
                let run = (Instant::now(), now_bytes);
                RUN.with(|r| r.set(Some(run)));
                run
            }
        };
        if now_bytes.wrapping_sub(base) > bytes {
            return Some(Dynamic::from(ALLOCATION_LIMIT));
        }
        if crate::memory::over_ceiling_now() {
            return Some(Dynamic::from(MEMORY_LIMIT));
        }
        // Reading the clock every 64 operations keeps the callback cheap; no single
        // operation runs long (each value is bounded by Rhai's size limits).
        if ops % 64 == 0 && start.elapsed() > time {
            return Some(Dynamic::from(TIME_LIMIT));
        }
        None
    }
}

/// Whether a script's terminating value is [`MEMORY_LIMIT`] (reported as `memory-limit`).
pub fn is_memory_limit(value: &Dynamic) -> bool {
    value
        .clone()
        .into_string()
        .is_ok_and(|token| token == MEMORY_LIMIT)
}

/// The note and message part for a script stopped by this module, from the terminating value.
pub fn termination_message(value: &Dynamic, limits: &Limits) -> Option<(String, String)> {
    let token = value.clone().into_string().ok()?;
    if token == TIME_LIMIT {
        Some((
            format!(
                "the script ran longer than the sandbox's time limit ({})",
                seconds(limits.time_limit)
            ),
            format!(
                "the sandbox allows {} of wall-clock time per lifecycle call; raise it with `wireplan: sandbox: timeLimit:` (seconds)",
                seconds(limits.time_limit)
            ),
        ))
    } else if token == ALLOCATION_LIMIT {
        Some((
            format!(
                "the script allocated more than the sandbox's ceiling of {} bytes",
                limits.max_allocated
            ),
            format!(
                "the sandbox allows {} bytes allocated per lifecycle call (strings, arrays, maps and everything else, freed or not); raise it with `wireplan: sandbox: maxAllocated:`",
                limits.max_allocated
            ),
        ))
    } else if token == MEMORY_LIMIT {
        let ceiling = crate::memory::ceiling()
            .map_or_else(|| "its limit".to_string(), crate::memory::format_size);
        Some((
            format!("the compilation's heap passed its memory ceiling of {ceiling} while the script ran"),
            "the ceiling holds whatever the sandbox's own limits allow; raise it with --max-memory SIZE (e.g. --max-memory 8GB); the default is 3/4 of the machine's memory".to_string(),
        ))
    } else {
        None
    }
}

fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// The limits for a project: `base` (the caller's, by default [`Limits::default`]) with what
/// the `wireplan:` section sets. An invalid section is reported to `diags` and leaves `base`,
/// marked [`Limits::section_failed`] (an unusable `timeLimit` alone leaves the time limit).
pub fn project_limits(section: Option<&Expr>, base: &Limits, diags: &mut Diagnostics) -> Limits {
    let mut limits = *base;
    let Some(section) = section else {
        return limits;
    };
    let Some(valid) =
        crate::schema::validate(&crate::project::schema(), section, &["wireplan"], diags)
    else {
        limits.section_failed = true;
        return limits;
    };
    let Some(sandbox) = valid
        .as_array()
        .and_then(|a| a.get("sandbox"))
        .and_then(Expr::as_array)
    else {
        return limits;
    };
    for (key, value) in &sandbox.items {
        let key = key.as_string();
        let int = match value.kind {
            ExprKind::Int(i) => Some(i.max(0) as u64),
            _ => None,
        };
        let as_usize = |i: u64| usize::try_from(i).unwrap_or(usize::MAX);
        match (key.as_str(), int) {
            ("timeLimit", _) => {
                let secs = match value.kind {
                    ExprKind::Int(i) => i as f64,
                    ExprKind::Float(f) => f,
                    _ => continue,
                };
                match Duration::try_from_secs_f64(secs) {
                    Ok(d) => limits.time_limit = d,
                    Err(_) => diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("wireplan › sandbox › timeLimit: {secs:?} is not a usable number of seconds"),
                        )
                        .at(value.span),
                    ),
                }
            }
            ("maxAllocated", Some(i)) => limits.max_allocated = i,
            ("maxOperations", Some(i)) => limits.max_operations = i,
            ("maxCallLevels", Some(i)) => limits.max_call_levels = as_usize(i),
            ("maxStringSize", Some(i)) => limits.max_string_size = as_usize(i),
            ("maxArraySize", Some(i)) => limits.max_array_size = as_usize(i),
            ("maxMapSize", Some(i)) => limits.max_map_size = as_usize(i),
            ("maxVariables", Some(i)) => limits.max_variables = as_usize(i),
            _ => {}
        }
    }
    limits
}

/// The size limits an engine enforces on one value: the sandbox's (`limits`), lowered under a
/// memory ceiling ([`crate::memory::ceiling`]) to a sixteenth of it for text (bytes), arrays
/// (an item counted as a 16-byte `Dynamic`) and maps (an entry counted as 64 bytes: key,
/// value, table slot). One operation can at most double a value before the progress callback
/// sees the heap (`s += s`), so the heap passes the ceiling by at most an eighth before the
/// callback stops the script. Each is `(limit, lowered by the ceiling)`; 0 means no limit, as
/// Rhai reads it.
pub(crate) struct ValueSizes {
    pub(crate) strings: (usize, bool),
    pub(crate) arrays: (usize, bool),
    pub(crate) maps: (usize, bool),
}

impl ValueSizes {
    pub(crate) fn of(limits: &Limits) -> ValueSizes {
        let share = crate::memory::ceiling().map(|c| usize::try_from(c / 16).unwrap_or(usize::MAX));
        let capped = |asked: usize, per: usize| match share {
            None => (asked, false),
            Some(share) => {
                let cap = (share / per).max(1);
                if asked == 0 || asked > cap {
                    (cap, true)
                } else {
                    (asked, false)
                }
            }
        };
        ValueSizes {
            strings: capped(limits.max_string_size, 1),
            arrays: capped(limits.max_array_size, 16),
            maps: capped(limits.max_map_size, 64),
        }
    }
}

/// Names the sandbox limit a script ran into.
pub(crate) fn limit_note(err: &EvalAltResult, limits: &Limits) -> Option<String> {
    Some(match err {
        EvalAltResult::ErrorTooManyOperations(_) => format!(
            "the sandbox allows {} operations per lifecycle call; raise it with `wireplan: sandbox: maxOperations:`",
            limits.max_operations
        ),
        EvalAltResult::ErrorStackOverflow(_) => format!(
            "the sandbox allows a call depth of {}; raise it with `wireplan: sandbox: maxCallLevels:`",
            limits.max_call_levels
        ),
        EvalAltResult::ErrorDataTooLarge(what, _) => {
            let sizes = ValueSizes::of(limits);
            // Rhai adds up what a value holds: the strings of an array or map and of those
            // nested in it, the items and entries of nested arrays and maps.
            let (size, unit, counted, setting) = if what.contains("tring") {
                (
                    sizes.strings,
                    "bytes of text",
                    "in one value (a string, or all the strings an array or map holds)",
                    "maxStringSize",
                )
            } else if what.contains("rray") {
                (
                    sizes.arrays,
                    "items",
                    "in one array (the items of arrays and maps nested in it count too)",
                    "maxArraySize",
                )
            } else if what.contains("ap") {
                (
                    sizes.maps,
                    "entries",
                    "in one map (the entries of maps nested in it count too)",
                    "maxMapSize",
                )
            } else {
                return Some(format!(
                    "{what} exceeds the sandbox limit (strings {} bytes, arrays {} items, maps {} entries; `wireplan: sandbox: maxStringSize:`, `maxArraySize:`, `maxMapSize:`)",
                    limits.max_string_size, limits.max_array_size, limits.max_map_size
                ));
            };
            match size {
                (limit, true) => {
                    let ceiling = crate::memory::ceiling()
                        .map_or_else(String::new, crate::memory::format_size);
                    format!(
                        "{what} exceeds {limit} {unit}, the most one value may hold under the memory ceiling of {ceiling} (a sixteenth of it, whatever the sandbox section allows); raise the ceiling with --max-memory SIZE"
                    )
                }
                (limit, false) => format!(
                    "{what} exceeds the sandbox limit of {limit} {unit} {counted}; raise it with `wireplan: sandbox: {setting}:`"
                ),
            }
        }
        EvalAltResult::ErrorTooManyVariables(_) => format!(
            "the sandbox allows {} variables; raise it with `wireplan: sandbox: maxVariables:`",
            limits.max_variables
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    /// After `raise_stack_limit`, the soft stack limit is at least `MAIN_STACK` (unless the
    /// hard limit is lower, when it is left alone), and a second call changes nothing.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_stack_limit_is_raised_within_the_hard_limit() {
        let read = || {
            let mut l = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: `getrlimit` fills the struct given.
            assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut l) }, 0);
            l
        };
        super::raise_stack_limit();
        let after = read();
        let want = super::MAIN_STACK as libc::rlim_t;
        if after.rlim_max == libc::RLIM_INFINITY || after.rlim_max >= want {
            assert!(
                after.rlim_cur == libc::RLIM_INFINITY || after.rlim_cur >= want,
                "{}",
                after.rlim_cur
            );
        }
        super::raise_stack_limit();
        assert_eq!(read().rlim_cur, after.rlim_cur);
    }
}
