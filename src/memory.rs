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
//! [`default_ceiling`]).

use crate::diagnostics::{Code, Diagnostic};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// Bytes currently allocated through the counting allocator.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most [`LIVE`] has been since the last [`reset_peak`].
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The ceiling in bytes (`usize::MAX`: none).
static CEILING: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Whether [`LIVE`] went past [`CEILING`] since the ceiling was set.
static EXCEEDED: AtomicBool = AtomicBool::new(false);

/// Counts `bytes` newly allocated (called by the counting allocator on every allocation, so it
/// allocates nothing and touches three atomics at most).
#[inline(always)]
pub(crate) fn allocated(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed).wrapping_add(bytes);
    if now > PEAK.load(Relaxed) {
        PEAK.fetch_max(now, Relaxed);
        if now > CEILING.load(Relaxed) {
            EXCEEDED.store(true, Relaxed);
        }
    }
}

/// Counts `bytes` freed.
#[inline(always)]
pub(crate) fn freed(bytes: usize) {
    LIVE.fetch_sub(bytes, Relaxed);
}

/// Bytes of heap live now (0 without the counting allocator).
pub fn live() -> usize {
    LIVE.load(Relaxed)
}

/// The most heap that was live at once since the last [`reset_peak`], in bytes.
pub fn peak() -> usize {
    PEAK.load(Relaxed)
}

/// Starts a new peak measurement from the current live heap (benchmarks measure each stage).
pub fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

/// Sets the ceiling in bytes (`None`: no ceiling) and clears an earlier overrun.
pub fn set_ceiling(bytes: Option<u64>) {
    let bytes = bytes.map_or(usize::MAX, |b| usize::try_from(b).unwrap_or(usize::MAX));
    CEILING.store(bytes, Relaxed);
    EXCEEDED.store(LIVE.load(Relaxed) > bytes, Relaxed);
    // The peak check in `allocated` only looks at the ceiling on a new peak.
    reset_peak();
}

/// The ceiling in bytes, if one is set.
pub fn ceiling() -> Option<u64> {
    match CEILING.load(Relaxed) {
        usize::MAX => None,
        b => Some(b as u64),
    }
}

/// Whether the live heap went past the ceiling since it was set.
pub fn exceeded() -> bool {
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
/// and how to raise it.
pub fn check(stage: &str) -> Result<(), Diagnostic> {
    if !exceeded() {
        return Ok(());
    }
    let limit = ceiling().map_or_else(|| "its limit".to_string(), format_size);
    Err(Diagnostic::error(
        Code::MemoryLimit,
        format!("The compilation needs more memory than the ceiling of {limit} (passed while {stage}); no plan is written."),
    )
    .with_note("raise the ceiling with --max-memory SIZE (e.g. --max-memory 8GB); the default is 3/4 of the machine's memory"))
}

/// A byte count for people: `512 MB`, `1.5 GB` (powers of 1024, as `--max-memory` reads them).
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
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
    let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
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
    if !(1.0..=u64::MAX as f64).contains(&bytes) {
        return Err(format!(
            "'{text}' is out of range (a ceiling is at least 1 byte and below 16 EiB)"
        ));
    }
    Ok(bytes as u64)
}

/// The threshold of [`release_large_blocks`]: glibc's initial default, made fixed.
pub const MMAP_THRESHOLD: usize = 128 * 1024;

/// Makes the C allocator give every block of [`MMAP_THRESHOLD`] bytes or more its own mapping,
/// returned to the operating system as soon as it is freed (glibc's `M_MMAP_THRESHOLD`, set
/// once, which also turns off glibc's adjustment of it). By default glibc raises the
/// threshold, up to 32 MiB, each time such a block is freed: after the NEON tree of a large
/// file is dropped, the next stage's tables (definitions, plan) come from the heap and stay
/// resident after they are freed, on top of what was already there. Fixed, the peak resident
/// memory of a compile is its live heap plus the process's floor: about 10 % less at 10,000
/// services and more (docs/performance.md, "Where the memory goes"). Nothing happens with
/// another C library. Call it before the compilation allocates.
pub fn release_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets an allocator parameter (under the allocator's own lock); no
    // memory is touched and every pointer allocated before stays valid.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int);
    }
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
        assert!(parse_size("MB").is_err());
        assert_eq!(
            parse_size("0"),
            Err("'0' is out of range (a ceiling is at least 1 byte and below 16 EiB)".into())
        );
    }

    #[test]
    fn sizes_are_written_with_one_decimal_at_most() {
        assert_eq!(format_size(512), "512 bytes");
        assert_eq!(format_size(20 << 20), "20 MB");
        assert_eq!(format_size(3 << 29), "1.5 GB");
    }
}
