//! `--timings`: where one compilation's wall time went, stage by stage, with the page faults
//! and the heap of each stage, printed after the compilation (like `cargo build --timings` or
//! TypeScript's `--extendedDiagnostics`, as a table on standard error).
//!
//! The stages are the ones the memory ceiling is checked between ([`crate::memory::check`]):
//! reading the configuration, expanding it, loading the services, resolving, completing,
//! building the plan, encoding and writing it. [`start`] begins a recording on the calling
//! thread; each stage boundary reached on that thread adds a [`Mark`]; [`finish`] ends the
//! recording and returns it. Helper threads (decoding lanes, the catalog's thread, the
//! loading and JSON helpers) add no marks: a row is the wall time of the thread that runs the
//! compilation, which is what a user waits for. Waits of that thread for a helper are
//! recorded as [`Wait`]s inside the stage they happen in (the catalog's thread at the end of
//! the expansion).
//!
//! Off by default, and then a boundary costs one relaxed atomic load. Page faults and the peak
//! resident set come from `getrusage` (the process's minor faults: helper threads' included,
//! since they fault in pages the compilation uses); the heap from the compiler's own
//! allocation count ([`crate::memory::live`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// One stage boundary: the stage that just ended, when, and the process's state then.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// What the compilation did up to this boundary (`"loading the services"`).
    pub stage: String,
    /// Wall time from [`start`] to this boundary.
    pub at: Duration,
    /// Minor page faults of the process from [`start`] to this boundary; `None` where
    /// `getrusage` does not tell.
    pub faults: Option<u64>,
    /// Bytes the compiler had allocated and not freed at this boundary
    /// ([`crate::memory::live`]: other threads' counts within 64 KB each).
    pub heap: usize,
}

/// A wait of the compiling thread for a helper thread, inside the stage that ends at the
/// next [`Mark`].
#[derive(Debug, Clone, PartialEq)]
pub struct Wait {
    /// What was waited for: the helper thread's name (`catalog`, `complete`).
    pub what: String,
    /// How long (wall time).
    pub took: Duration,
    /// The index of the mark that ends the stage the wait belongs to (the number of marks
    /// recorded when the wait ended).
    pub before_mark: usize,
}

/// A finished recording ([`finish`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Timings {
    /// The stage boundaries, in order.
    pub marks: Vec<Mark>,
    /// Waits for helper threads, in order.
    pub waits: Vec<Wait>,
    /// Wall time from [`start`] to [`finish`].
    pub total: Duration,
    /// Minor page faults from [`start`] to [`finish`] (`None`: unknown).
    pub faults: Option<u64>,
    /// The compiler's peak heap (bytes, [`crate::memory::peak`]) since the memory ceiling
    /// was last set, which each compilation of the command line does (`--watch` every
    /// round): the compilation's peak.
    pub peak_heap: usize,
    /// The process's peak resident set so far (bytes; `None`: unknown). It counts the whole
    /// process's life, so in `--watch` it is the largest of all compilations so far.
    pub peak_rss: Option<u64>,
}

struct Recording {
    thread: ThreadId,
    started: Instant,
    faults: Option<u64>,
    marks: Vec<Mark>,
    waits: Vec<Wait>,
}

static ON: AtomicBool = AtomicBool::new(false);
static WANTED: AtomicBool = AtomicBool::new(false);
static RECORDING: Mutex<Option<Recording>> = Mutex::new(None);

/// Asks every later compilation of the process ([`crate::watch::compile_once`]: `compile`,
/// `check`, each round of `--watch`) to record its timings (`--timings`).
pub fn want(on: bool) {
    WANTED.store(on, Ordering::Relaxed);
}

/// Whether [`want`] asked for timings.
pub fn wanted() -> bool {
    WANTED.load(Ordering::Relaxed)
}

/// Starts recording on the calling thread (a recording already running is dropped).
pub fn start() {
    let rec = Recording {
        thread: std::thread::current().id(),
        started: Instant::now(),
        faults: minor_faults(),
        marks: Vec::new(),
        waits: Vec::new(),
    };
    *RECORDING.lock().unwrap_or_else(|p| p.into_inner()) = Some(rec);
    ON.store(true, Ordering::Relaxed);
}

/// Whether a recording runs ([`start`] called, [`finish`] not yet).
pub fn recording() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Runs `record` on the running recording when this thread started it; else nothing.
fn with_own_recording(record: impl FnOnce(&mut Recording)) {
    let mut guard = RECORDING.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(rec) = guard
        .as_mut()
        .filter(|r| r.thread == std::thread::current().id())
    {
        record(rec);
    }
}

/// Records the end of `stage` when a recording runs and this is its thread; else nothing.
pub fn mark(stage: &str) {
    if !recording() {
        return;
    }
    with_own_recording(|rec| {
        let faults = since(rec.faults, minor_faults());
        rec.marks.push(Mark {
            stage: stage.to_string(),
            at: rec.started.elapsed(),
            faults,
            heap: crate::memory::live(),
        });
    });
}

/// Runs `wait` (a join, a receive) and, when a recording runs on this thread, records how
/// long it took as a wait for `what`: added to an earlier wait for `what` in the same stage
/// (one row per thread waited for, however many times), else a wait of its own. Returns
/// what `wait` returned.
pub fn waiting<T>(what: &str, wait: impl FnOnce() -> T) -> T {
    if !recording() {
        return wait();
    }
    let begun = Instant::now();
    let out = wait();
    let took = begun.elapsed();
    with_own_recording(|rec| {
        let before_mark = rec.marks.len();
        let earlier = rec
            .waits
            .iter_mut()
            .rev()
            .take_while(|w| w.before_mark == before_mark)
            .find(|w| w.what == what);
        match earlier {
            Some(w) => w.took += took,
            None => rec.waits.push(Wait {
                what: what.to_string(),
                took,
                before_mark,
            }),
        }
    });
    out
}

/// Ends the recording and returns it; `None` when none was started.
pub fn finish() -> Option<Timings> {
    ON.store(false, Ordering::Relaxed);
    let rec = RECORDING.lock().unwrap_or_else(|p| p.into_inner()).take()?;
    Some(Timings {
        total: rec.started.elapsed(),
        faults: since(rec.faults, minor_faults()),
        marks: rec.marks,
        waits: rec.waits,
        peak_heap: crate::memory::peak(),
        peak_rss: peak_rss(),
    })
}

impl Timings {
    /// The table `--timings` prints: one row per stage (its wall time in milliseconds, when it
    /// ended, the page faults during it and the heap at its end), each wait for a helper
    /// thread indented under the stage it happened in, a row for what followed the last
    /// boundary, and a total row. Consecutive boundaries of the same stage (the plan's
    /// encoding is checked twice) make one row.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        struct Row {
            stage: String,
            took: Duration,
            at: Duration,
            faults: Option<u64>,
            heap: Option<usize>,
            waits: Vec<(String, Duration)>,
        }
        let mut rows: Vec<Row> = Vec::new();
        let (mut prev_at, mut prev_faults) = (Duration::ZERO, Some(0));
        let mut waits = self.waits.iter().peekable();
        for (i, m) in self.marks.iter().enumerate() {
            let took = m.at.saturating_sub(prev_at);
            let faults = since(prev_faults, m.faults);
            match rows.last_mut().filter(|r| r.stage == m.stage) {
                Some(r) => {
                    r.took += took;
                    r.at = m.at;
                    r.faults = r.faults.zip(faults).map(|(a, b)| a + b);
                    r.heap = Some(m.heap);
                }
                None => rows.push(Row {
                    stage: m.stage.clone(),
                    took,
                    at: m.at,
                    faults,
                    heap: Some(m.heap),
                    waits: Vec::new(),
                }),
            }
            let row = rows.last_mut().expect("a row was just pushed or found");
            while let Some(w) = waits.next_if(|w| w.before_mark <= i) {
                row.waits.push((w.what.clone(), w.took));
            }
            (prev_at, prev_faults) = (m.at, m.faults);
        }
        rows.push(Row {
            stage: "the rest".into(),
            took: self.total.saturating_sub(prev_at),
            at: self.total,
            faults: since(prev_faults, self.faults),
            heap: None,
            waits: waits.map(|w| (w.what.clone(), w.took)).collect(),
        });

        let wait_label = |what: &str| format!("  waiting for the {what} thread");
        let width = rows
            .iter()
            .flat_map(|r| {
                std::iter::once(r.stage.len()).chain(r.waits.iter().map(|w| wait_label(&w.0).len()))
            })
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        let mut line = |stage: &str, took: &str, at: &str, faults: &str, heap: &str| {
            let text = format!("{stage:width$}  {took:>8}  {at:>8}  {faults:>8}  {heap:>10}");
            let _ = writeln!(out, "{}", text.trim_end());
        };
        line("stage", "took ms", "ends at", "faults", "heap");
        for r in &rows {
            line(
                &r.stage,
                &format!("{:.2}", ms(r.took)),
                &format!("{:.2}", ms(r.at)),
                &r.faults.map_or(String::new(), group),
                &r.heap
                    .map_or(String::new(), |h| crate::memory::format_size(h as u64)),
            );
            for (what, took) in &r.waits {
                line(&wait_label(what), &format!("{:.2}", ms(*took)), "", "", "");
            }
        }
        line(
            "total",
            &format!("{:.2}", ms(self.total)),
            "",
            &self.faults.map_or(String::new(), group),
            &format!("peak {}", crate::memory::format_size(self.peak_heap as u64)),
        );
        if let Some(rss) = self.peak_rss {
            let _ = writeln!(
                out,
                "peak resident set of the process: {}",
                crate::memory::format_size(rss)
            );
        }
        out
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `12345` → `12,345`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn since(start: Option<u64>, now: Option<u64>) -> Option<u64> {
    start.zip(now).map(|(s, n)| n.saturating_sub(s))
}

fn usage() -> Option<libc::rusage> {
    // SAFETY: `getrusage` writes the struct it is given and nothing else; a zeroed
    // `rusage` is a valid value of the type.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    (unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } == 0).then_some(ru)
}

/// The process's minor page faults so far.
fn minor_faults() -> Option<u64> {
    usage().map(|ru| ru.ru_minflt as u64)
}

/// The process's peak resident set so far, in bytes (`ru_maxrss` is in kilobytes on Linux,
/// in bytes on macOS).
fn peak_rss() -> Option<u64> {
    let max = usage()?.ru_maxrss as u64;
    Some(if cfg!(target_os = "macos") {
        max
    } else {
        max * 1024
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(stage: &str, at_ms: u64, faults: u64, heap: usize) -> Mark {
        Mark {
            stage: stage.into(),
            at: Duration::from_millis(at_ms),
            faults: Some(faults),
            heap,
        }
    }

    /// The row of `stage` in a rendered table, split into its columns.
    fn row<'t>(table: &'t str, stage: &str) -> Vec<&'t str> {
        let line = table
            .lines()
            .find(|l| l.trim_start().starts_with(stage))
            .unwrap_or_else(|| panic!("no row {stage:?} in\n{table}"));
        line[line.find(stage).unwrap() + stage.len()..]
            .split_whitespace()
            .collect()
    }

    #[test]
    fn a_table_gives_each_stage_its_own_time_faults_and_heap() {
        let t = Timings {
            marks: vec![
                at("reading the configuration", 30, 5_000, 14 << 20),
                at("expanding the configuration", 50, 7_500, 13 << 20),
                at("encoding the plan", 60, 7_600, 12 << 20),
                // checked twice while encoding: one row
                at("encoding the plan", 64, 7_650, 12 << 20),
                at("writing the plan", 67, 7_650, 12 << 20),
            ],
            waits: vec![Wait {
                what: "catalog".into(),
                took: Duration::from_micros(3_250),
                before_mark: 1,
            }],
            total: Duration::from_millis(70),
            faults: Some(7_700),
            peak_heap: 20 << 20,
            peak_rss: Some(34 << 20),
        };
        let table = t.render();
        assert_eq!(
            row(&table, "reading the configuration"),
            ["30.00", "30.00", "5,000", "14", "MB"]
        );
        assert_eq!(
            row(&table, "expanding the configuration"),
            ["20.00", "50.00", "2,500", "13", "MB"]
        );
        assert_eq!(row(&table, "waiting for the catalog thread"), ["3.25"]);
        assert_eq!(
            row(&table, "encoding the plan"),
            ["14.00", "64.00", "150", "12", "MB"]
        );
        assert_eq!(table.matches("encoding the plan").count(), 1);
        assert_eq!(
            row(&table, "writing the plan"),
            ["3.00", "67.00", "0", "12", "MB"]
        );
        assert_eq!(row(&table, "the rest"), ["3.00", "70.00", "50"]);
        assert_eq!(row(&table, "total"), ["70.00", "7,700", "peak", "20", "MB"]);
        assert!(
            table.ends_with("peak resident set of the process: 34 MB\n"),
            "{table}"
        );
        // The wait is listed under the stage it happened in, before the next stage.
        let lines: Vec<&str> = table.lines().collect();
        let line_of = |s: &str| lines.iter().position(|l| l.contains(s)).unwrap();
        assert_eq!(
            line_of("waiting for the catalog"),
            line_of("expanding the configuration") + 1
        );
        assert_eq!(line_of("stage"), 0);
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
    }

    /// A recording keeps the marks of the thread that started it only, and records nothing
    /// once finished. (One test for the process-wide recording, so no other test races it.)
    #[test]
    fn a_recording_keeps_its_own_thread_s_marks() {
        start();
        super::mark("reading the configuration");
        std::thread::spawn(|| super::mark("a helper's stage"))
            .join()
            .unwrap();
        let waited = waiting("catalog", || 7);
        assert_eq!(waited, 7);
        // Waits for one thread in one stage add up to one; each thread keeps its own.
        waiting("load", || std::thread::sleep(Duration::from_millis(2)));
        waiting("catalog", || std::thread::sleep(Duration::from_millis(3)));
        super::mark("loading the services");
        waiting("catalog", || ());
        let t = finish().expect("a recording");
        let stages: Vec<&str> = t.marks.iter().map(|m| m.stage.as_str()).collect();
        assert_eq!(
            stages,
            ["reading the configuration", "loading the services"]
        );
        let waits: Vec<(&str, usize)> = t
            .waits
            .iter()
            .map(|w| (w.what.as_str(), w.before_mark))
            .collect();
        assert_eq!(waits, [("catalog", 1), ("load", 1), ("catalog", 2)]);
        assert!(t.waits[0].took >= Duration::from_millis(3));
        assert!(t.waits[1].took >= Duration::from_millis(2));
        assert!(t.marks[0].at <= t.marks[1].at && t.marks[1].at <= t.total);
        assert!(!recording());
        super::mark("after the end");
        assert_eq!(finish(), None);
    }
}
