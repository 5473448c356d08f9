//! How many threads the compiler's helpers may use at once (NEON lexing lanes and parser
//! parts, completing definitions in parts).

/// The machine's parallelism (`std::thread::available_parallelism`, read once), at most four;
/// 1 when it cannot be read.
pub(crate) fn parallelism() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}
