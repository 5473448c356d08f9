//! Compiling a configuration into a plan file, once ([`compile_once`], what `wireplan
//! compile` and `check` run) or again whenever an input changes ([`run`], `wireplan compile
//! --watch`).
//!
//! The watcher recompiles when any file the last compilation read changes: the configuration
//! and its includes, extension scripts, and the files extensions registered with
//! `addDependency` (after a failed compilation, the files it read plus the last good plan's
//! dependencies). Changes are debounced until the watched folders are quiet (an editor's save
//! is often several events, and `cp` writes a file in steps: the half-written file is not
//! compiled); opening or reading a file is not a change. Every recompilation is preceded by an
//! [`Event::Changed`] naming the files that changed. A failed compilation leaves the last good plan in place:
//! plans are written atomically and only when there is no error. A plan file that is one of the
//! inputs stops the watch (an edit cannot make it another file).

use crate::compiler::{self, Options};
use crate::diagnostics::Diagnostic;
use crate::source::SourceMap;
use notify::{RecursiveMode, Watcher};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};
use wireplan_runtime::plan::Plan;
use wireplan_runtime::Encoding;

/// The outcome of one compilation.
pub struct CompileRun {
    /// Every file read, for rendering the diagnostics.
    pub sources: SourceMap,
    /// Errors and warnings, in the order found; a failure to write the plan is the last one.
    pub diagnostics: Vec<Diagnostic>,
    /// The plan, when there was no error (and it was written, when a target was given).
    pub plan: Option<Plan>,
    /// Wall-clock time of compiling and writing.
    pub elapsed: Duration,
    /// Absolute paths of the files the compilation read or depends on, sorted: the root
    /// configuration (even when it could not be read), includes, scripts, `--catalog` files
    /// (also when they could not be read) and the files registered with `addDependency`.
    pub files: Vec<PathBuf>,
    /// The plan was not written because the target is one of the files the compilation reads
    /// (an `io-error` among the diagnostics says which).
    pub output_is_input: bool,
    /// The compilation gave a plan without services and `--watch` did not write it over the
    /// last plan it wrote, which had services ([`compile_once_holding`]); `plan` is `None`.
    pub held_back: bool,
    /// Where the time went, stage by stage, when `--timings` asked for it
    /// ([`crate::timings::want`]).
    pub timings: Option<crate::timings::Timings>,
    /// The plan file the watch wrote last was replaced by another file since (another process
    /// compiled to the same path; set by the watch loop for a run that wrote nothing): the
    /// summary does not call the file at the output the last good plan.
    pub output_replaced: bool,
}

impl CompileRun {
    /// Number of errors (not warnings).
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The one-line summary of a watch step: `compiled 9 services in 12 ms → PLAN`, or
    /// `2 error(s); the last good plan PLAN is kept` when `kept` (a plan was written to `output`
    /// earlier in this watch) and the file is still there (`… the plan PLAN this watch wrote is
    /// no longer there` when it was removed since, `… PLAN no longer holds the plan this watch
    /// wrote` when something else replaced it, `… cannot be looked at (why)` when its folder
    /// cannot be read), else `2 error(s); no plan written yet`. A
    /// file that was at `output` before the watch started is not counted: this run did not
    /// write it.
    pub fn summary(&self, output: &Path, kept: bool) -> String {
        let summary = self.summary_line(output, kept);
        match self.empty_inputs() {
            Some(empty) if self.plan.is_none() => format!("{summary} ({empty})"),
            _ => summary,
        }
    }

    /// The files the failed run read that are empty now, named once the errors are counted: an
    /// editor's save that truncated an included file leaves one `missing-service` error per
    /// service it held, and nothing said why (a new user's trial: 292 errors for one file).
    /// `None` when no file the run read from disk is empty.
    fn empty_inputs(&self) -> Option<String> {
        let empty: Vec<String> = self
            .sources
            .files()
            .filter(|(_, f)| f.path.is_some() && f.text.trim().is_empty())
            .map(|(_, f)| f.name.clone())
            .collect();
        match empty.as_slice() {
            [] => None,
            [one] => Some(format!("{one} is empty")),
            [one, two] => Some(format!("{one} and {two} are empty")),
            [one, rest @ ..] => Some(format!("{one} and {} more files are empty", rest.len())),
        }
    }

    /// [`CompileRun::summary`] without the note on empty files.
    fn summary_line(&self, output: &Path, kept: bool) -> String {
        if self.held_back {
            return format!(
                "the configuration defines no service now; the last good plan {} is kept",
                output.display()
            );
        }
        match &self.plan {
            Some(plan) => format!(
                "compiled {} in {} ms → {}",
                crate::diagnostics::services(plan.services.len()),
                self.elapsed.as_millis(),
                output.display()
            ),
            None if kept => {
                let (errors, plan) = (self.error_count(), output.display());
                match std::fs::metadata(output) {
                    // (Another compilation to the same path replaced it: a trial was told
                    // the plan it held was this watch's last good one.)
                    Ok(m) if m.is_file() && self.output_replaced => format!(
                        "{errors} error(s); {plan} no longer holds the plan this watch wrote (another file replaced it)"
                    ),
                    // (A file that is no plan now was replaced since: a new user's trial was
                    // told the plan was kept.)
                    Ok(m) if m.is_file() => match crate::config::holds_plan_or_nothing(output) {
                        Some(false) if std::fs::File::open(output).is_ok() => {
                            format!("{errors} error(s); {plan} no longer holds the plan this watch wrote")
                        }
                        _ => format!("{errors} error(s); the last good plan {plan} is kept"),
                    },
                    // (An unreadable folder is not a removed plan: a new user's trial.)
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        format!("{errors} error(s); the plan {plan} cannot be looked at: {e}")
                    }
                    // Removed (or replaced by a folder) since this watch wrote it: nothing is
                    // kept.
                    _ => format!(
                        "{errors} error(s); the plan {plan} this watch wrote is no longer there"
                    ),
                }
            }
            None => format!("{} error(s); no plan written yet", self.error_count()),
        }
    }
}

/// Compiles `config` and, when there is no error and `target` is given, writes the plan there
/// atomically (binary or JSON as `target`'s encoding says).
///
/// Errors become diagnostics of the run: `io-error` when the plan cannot be written or when
/// `target` is one of the files the compilation reads (it would overwrite its own input).
pub fn compile_once(
    config: &Path,
    options: &Options,
    target: Option<(&Path, Encoding)>,
) -> CompileRun {
    compile_once_holding(config, options, target, false)
}

/// [`compile_once`], except that with `hold_empty` a plan without services is not written
/// (the run says [`CompileRun::held_back`]): `--watch` passes it once it has written a plan
/// with services, so a configuration that is empty for a moment (an editor that truncates the
/// file, then writes it) does not replace that plan with an empty one. The diagnostics are
/// the same (`empty-configuration` among them).
pub fn compile_once_holding(
    config: &Path,
    options: &Options,
    target: Option<(&Path, Encoding)>,
    hold_empty: bool,
) -> CompileRun {
    compile_once_with(config, options, target, hold_empty, false)
}

/// [`compile_once`] for `wireplan compile --deny-warnings`: with `deny_warnings`, a plan the
/// compilation gave with warnings is not written (and `plan` is `None`, as after an error), so
/// a CI job compiles once instead of running `check --deny-warnings` first.
pub fn compile_once_denying(
    config: &Path,
    options: &Options,
    target: Option<(&Path, Encoding)>,
    deny_warnings: bool,
) -> CompileRun {
    compile_once_with(config, options, target, false, deny_warnings)
}

fn compile_once_with(
    config: &Path,
    options: &Options,
    target: Option<(&Path, Encoding)>,
    hold_empty: bool,
    deny_warnings: bool,
) -> CompileRun {
    let started = Instant::now();
    let timed = crate::timings::wanted();
    if timed {
        crate::timings::start();
    }
    let result = compiler::compile(config, options);
    let mut diagnostics = result.diagnostics.into_vec();
    let mut plan = result.plan;
    let sources = result.sources;
    let mut files = read_files(&sources, config);
    // `--catalog` files, even one that could not be read yet (it is watched until it appears).
    files.extend(options.catalogs.iter().filter_map(|c| match c {
        crate::catalog::CatalogInput::File(p) => Some(absolute(p)),
        crate::catalog::CatalogInput::Text { .. } => None,
    }));
    if let Some(p) = &plan {
        files.extend(p.dependencies.iter().map(|d| absolute(Path::new(&d.path))));
    }
    let mut output_is_input = false;
    let held_back =
        hold_empty && target.is_some() && plan.as_ref().is_some_and(|p| p.services.is_empty());
    if held_back || (deny_warnings && !diagnostics.is_empty()) {
        plan = None;
    }
    if let (Some(p), Some((out, encoding))) = (&plan, target) {
        if let Err(d) = crate::plan::check_output(out, &sources, p) {
            diagnostics.push(d);
            plan = None;
            output_is_input = true;
        } else if let Err(d) = crate::plan::write_checked(&sources, out, p, encoding) {
            diagnostics.push(d);
            plan = None;
        }
        crate::timings::mark("writing the plan");
    }
    let files: BTreeSet<PathBuf> = files.into_iter().collect();
    let timings = timed.then(crate::timings::finish).flatten();
    CompileRun {
        sources,
        diagnostics,
        plan,
        elapsed: started.elapsed(),
        files: files.into_iter().collect(),
        output_is_input,
        held_back,
        timings,
        output_replaced: false,
    }
}

/// The canonical path when the file exists, else the path made absolute lexically (so the
/// same file is never listed twice under two spellings).
fn absolute(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let p = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    crate::source::normalize_path(&p)
}

/// The root configuration and every file of the source map that came from disk.
fn read_files(sources: &SourceMap, config: &Path) -> Vec<PathBuf> {
    let mut files = vec![absolute(config)];
    files.extend(
        sources
            .files()
            .filter_map(|(_, f)| f.path.as_deref().map(absolute)),
    );
    // A file the compilation looked for and could not read: creating it recompiles.
    files.extend(sources.missing().iter().map(|p| absolute(p)));
    files
}

/// What `wireplan compile --watch` compiles, and how.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// The root configuration.
    pub config: PathBuf,
    /// The plan file kept up to date.
    pub output: PathBuf,
    /// Its encoding.
    pub encoding: Encoding,
    /// Compiler options (parameters, dynamic parameters, script folders).
    pub options: Options,
    /// How long the watched folders must be quiet before a recompilation ([`DEBOUNCE`] from
    /// the command line).
    pub debounce: Duration,
}

/// Messages the watch loop waits for.
#[derive(Debug)]
pub enum Signal {
    /// Files in a watched folder changed (absolute paths).
    Changed(Vec<PathBuf>),
    /// The file watcher reported an error.
    WatchError(String),
    /// Stop watching (Ctrl-C).
    Stop,
}

/// What the watch loop reports to its caller, which prints it.
pub enum Event<'a> {
    /// A compilation finished (successfully or not). `kept`: a plan written earlier in this
    /// watch is in place (see [`CompileRun::summary`]).
    Compiled {
        /// The compilation.
        run: &'a CompileRun,
        /// Whether a plan was written earlier in this watch (and is kept on errors).
        kept: bool,
    },
    /// The files now watched.
    Watching(&'a [PathBuf]),
    /// A changed input triggered the next compilation.
    Changed(&'a [PathBuf]),
    /// The file watcher reported an error; watching goes on.
    WatchError(&'a str),
}

/// Compiles, then recompiles whenever a watched file changes, until a [`Signal::Stop`]
/// arrives on `signals` (or every sender is gone). `sender` is the other end of the same
/// channel; the file watcher sends through it. Each step is reported through `report`.
///
/// Errors: the file watcher cannot be started (the message of `notify`); the plan file is one
/// of the inputs, or its folder does not exist (reported with the compilation first): no edit
/// of the inputs can fix either.
pub fn run(
    opts: &WatchOptions,
    sender: Sender<Signal>,
    signals: Receiver<Signal>,
    report: &mut dyn FnMut(Event<'_>),
) -> Result<(), String> {
    let fs_sender = sender.clone();
    // For the files found changed when they start being watched (below).
    let self_sender = sender;
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let signal = match res {
            Ok(event) if !is_change(&event.kind) => return,
            Ok(event) => Signal::Changed(event.paths),
            Err(e) => Signal::WatchError(e.to_string()),
        };
        let _ = fs_sender.send(signal);
    })
    .map_err(|e| format!("cannot watch files: {e}"))?;
    let mut watched_dirs = WatchedFolders::default();
    let mut last_good: Vec<PathBuf> = Vec::new();
    let mut watched: Vec<PathBuf> = Vec::new();
    let mut written = false;
    // Which file the plan this watch wrote last is ([`path_id`]).
    let mut wrote: Option<(u64, u64)> = None;
    // The number of services of the last plan this watch wrote (0 before it wrote one).
    let mut last_services = 0;
    // Files that did not change between compilations are not decoded again.
    let mut options = opts.options.clone();
    options.decoded.get_or_insert_with(Default::default);
    // `--max-memory` limits each compilation: what the watch keeps between compilations (the
    // decoded files and catalog, `DecodedFiles`) comes on top, so a compilation stops where a
    // cold one would.
    let ceiling = crate::memory::ceiling();
    let mut compile = |report: &mut dyn FnMut(Event<'_>)| -> Result<Fingerprints, String> {
        let busy = Compiling::start();
        if let Some(c) = ceiling {
            crate::memory::set_ceiling(Some(c.saturating_add(crate::memory::live() as u64)));
        }
        let mut run = compile_once_holding(
            &opts.config,
            &options,
            Some((&opts.output, opts.encoding)),
            last_services > 0,
        );
        if run.plan.is_some() {
            wrote = path_id(&opts.output);
        } else if let Some(ours) = wrote {
            run.output_replaced = path_id(&opts.output).is_some_and(|now| now != ours);
        }
        // The plan is written (or kept): a Ctrl-C from here on ends the watch between
        // compilations (exit 0), not an interrupted one (a trial's Ctrl-C just after the
        // `compiled` line exited 130 while the watch took its copies for the next round).
        drop(busy);
        report(Event::Compiled {
            run: &run,
            kept: written,
        });
        if run.output_is_input {
            return Err(format!(
                "the plan file {} is one of the inputs; watching stops",
                opts.output.display()
            ));
        }
        // No edit of the inputs can make a missing output folder appear.
        let folder = opts
            .output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if run.plan.is_none() && !folder.is_dir() {
            return Err(format!(
                "the folder of the plan file {} does not exist; watching stops",
                opts.output.display()
            ));
        }
        if let Some(kept) = &options.decoded {
            kept.retain_only(&run.files);
            // After the result is reported: the copies the next compilation takes (not under
            // the ceiling, which is set again before the next compilation).
            crate::memory::set_ceiling(None);
            kept.prepare();
        }
        written |= run.plan.is_some();
        if let Some(p) = &run.plan {
            last_services = p.services.len();
        }
        let mut files = run.files.clone();
        if run.plan.is_some() {
            last_good = run.files.clone();
        } else {
            files.extend(last_good.iter().cloned());
        }
        let compiled: BTreeMap<PathBuf, u64> = run
            .sources
            .files()
            .filter_map(|(_, s)| Some((absolute(s.path.as_deref()?), hash_text(&s.text))))
            .collect();
        Ok(files
            .into_iter()
            .map(|f| {
                let print = compiled.get(&f).copied().or_else(|| fingerprint(&f));
                (f, print)
            })
            .collect())
    };
    let mut fresh = compile(report)?;
    loop {
        // What each watched file held when it was compiled; a file event whose file still
        // holds that (the compiler's own reads are events too, and so is an editor's save
        // without changes) starts no compilation.
        let files: Vec<PathBuf> = fresh.keys().cloned().collect();
        let state = fresh;
        if files != watched {
            let before: BTreeSet<PathBuf> = watched.iter().cloned().collect();
            watch_folders(&files, &mut watched_dirs, &mut watcher, report);
            watched = files;
            report(Event::Watching(&watched));
            // A file watched only now made no event for an edit saved while it was compiled
            // (or before its folder was watched): its content is compared with what was
            // compiled instead, so that edit is not lost (a new user's trial: an edit during
            // the first compilation of a large application left the plan stale).
            let stale: Vec<PathBuf> = watched
                .iter()
                .filter(|f| !before.contains(*f))
                .filter(|f| state.get(*f).copied().flatten() != fingerprint(f))
                .cloned()
                .collect();
            // As if an event had named them: they are compiled once they hold still.
            if !stale.is_empty() {
                let _ = self_sender.send(Signal::Changed(stale));
            }
        }
        fresh = loop {
            match signals.recv() {
                Err(_) | Ok(Signal::Stop) => return Ok(()),
                Ok(Signal::WatchError(e)) => report(Event::WatchError(&e)),
                Ok(Signal::Changed(mut paths)) => {
                    // Debounce: take the events that follow until the folders are quiet (for
                    // at most `QUIET_LIMIT`: a file written all the time is still compiled).
                    // A file still being written (`cp` empties it, then writes) is not quiet.
                    let first = Instant::now();
                    while first.elapsed() < QUIET_LIMIT {
                        match signals.recv_timeout(opts.debounce) {
                            Ok(Signal::Changed(more)) => paths.extend(more),
                            Ok(Signal::WatchError(e)) => report(Event::WatchError(&e)),
                            Ok(Signal::Stop) => return Ok(()),
                            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
                            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
                        }
                    }
                    paths.sort();
                    paths.dedup();
                    // A watched folder that was moved or removed (an event names it or a
                    // folder above it) is watched again by its path: the operating system's
                    // watch follows the folder, wherever it went, not the path.
                    // (Only a folder that is no longer at its path: a change of its permissions
                    // names it too, and its watch must stay, or the watch goes deaf when it is
                    // made readable again; a new user's trial.)
                    let moved: Vec<PathBuf> = watched_dirs
                        .folders
                        .iter()
                        .filter(|(d, id)| {
                            paths.iter().any(|p| d.starts_with(p)) && path_id(d) != **id
                        })
                        .map(|(d, _)| d.clone())
                        .collect();
                    for dir in &moved {
                        let _ = watcher.unwatch(dir);
                        watched_dirs.folders.remove(dir);
                    }
                    // A folder on the way to a watched file may have appeared: the files in
                    // a folder watched only now count as touched (written before the watch).
                    let appeared = watch_folders(&watched, &mut watched_dirs, &mut watcher, report);
                    // A file is touched by an event about it or about a folder above it (a
                    // folder renamed away takes its files along).
                    let touched: Vec<PathBuf> = watched
                        .iter()
                        .filter(|w| {
                            paths.iter().any(|p| same_file(w, p) || w.starts_with(p))
                                || w.parent().is_some_and(|d| appeared.iter().any(|a| a == d))
                        })
                        .cloned()
                        .collect();
                    if touched.is_empty() {
                        continue;
                    }
                    // Compile what changed, and say so first.
                    let now: Vec<Option<u64>> = touched.iter().map(|f| fingerprint(f)).collect();
                    let changed: Vec<PathBuf> = touched
                        .into_iter()
                        .zip(now)
                        .filter(|(w, print)| state.get(w).copied().flatten() != *print)
                        .map(|(w, _)| w)
                        .collect();
                    if !changed.is_empty() {
                        report(Event::Changed(&changed));
                        break compile(report)?;
                    }
                }
            }
        };
    }
}

/// Whether a compilation of a watch is under way ([`compiling`]).
static COMPILING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How many files the process had put in place when the compilation under way began
/// ([`wireplan_runtime::encoding::files_put_in_place`]).
static PLACED_BEFORE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Marks a compilation of [`run`] as under way while it lives.
struct Compiling;

impl Compiling {
    fn start() -> Compiling {
        PLACED_BEFORE.store(
            wireplan_runtime::encoding::files_put_in_place(),
            std::sync::atomic::Ordering::SeqCst,
        );
        COMPILING.store(true, std::sync::atomic::Ordering::SeqCst);
        Compiling
    }
}

impl Drop for Compiling {
    fn drop(&mut self) {
        COMPILING.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Whether a watch in this process is compiling right now (between a change and its
/// result) and has not yet put its plan in place: once the plan's rename is done, what is left
/// of the round (reporting, the copies for the next round) is between compilations.
/// `wireplan compile --watch` asks it on Ctrl-C: during a compilation it ends the process at
/// once, removing the unfinished plan, as a one-shot compile does; between compilations it
/// stops the watch. Asked again after [`wireplan_runtime::encoding::remove_unfinished_files`]
/// (after which no plan goes into place), the answer holds until the process ends: a Ctrl-C
/// racing the rename either stops the plan or finds it written, never both (the full test
/// run saw exit 130 with the plan written).
pub fn compiling() -> bool {
    COMPILING.load(std::sync::atomic::Ordering::SeqCst)
        && wireplan_runtime::encoding::files_put_in_place()
            == PLACED_BEFORE.load(std::sync::atomic::Ordering::SeqCst)
}

/// Whether a file event can mean new content: anything but an access (a file opened, read,
/// or closed after reading). The compiler's own reads, and the watch's reads of what changed,
/// are accesses; counting them made every recompilation's reads start another round of
/// reading, forever.
fn is_change(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode};
    match kind {
        notify::EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        notify::EventKind::Access(_) => false,
        _ => true,
    }
}

/// The folders a watch watches, each with what it was when its watch began ([`path_id`]),
/// and the folders that could not be watched (reported once until they can).
#[derive(Default)]
struct WatchedFolders {
    folders: BTreeMap<PathBuf, Option<(u64, u64)>>,
    unwatchable: BTreeSet<PathBuf>,
}

impl WatchedFolders {
    /// Records `dir` as watched from now on, with what is at its path now.
    fn add(&mut self, dir: &Path) {
        self.folders.insert(dir.to_path_buf(), path_id(dir));
    }
}

/// Which file or folder is at `path` (device and inode): a folder renamed away and one made in
/// its place are told apart from the same folder whose permissions changed, and a plan file
/// replaced by a rename from the one this watch wrote; `None` where the system does not say.
fn path_id(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Watches the folder of each of `files` that is not watched yet; returns the folders watched
/// now. A folder that does not exist (an include in a folder not made yet) cannot be watched:
/// its nearest existing ancestor is, so that making the folder is an event, after which the
/// next call watches it. A folder that exists but cannot be watched (no permission to read
/// it) is reported once, and the nearest folder above it that can be is watched instead, so
/// that making it readable again is an event (a new user's trial: after `chmod 000` and back
/// the watch heard nothing more).
fn watch_folders(
    files: &[PathBuf],
    watched_dirs: &mut WatchedFolders,
    watcher: &mut dyn notify::Watcher,
    report: &mut dyn FnMut(Event<'_>),
) -> Vec<PathBuf> {
    let mut now = Vec::new();
    for file in files {
        let Some(mut dir) = file.parent() else {
            continue;
        };
        while !dir.is_dir() {
            match dir.parent() {
                Some(up) => dir = up,
                None => break,
            }
        }
        if watched_dirs.folders.contains_key(dir) || !dir.is_dir() {
            continue;
        }
        match watcher.watch(dir, RecursiveMode::NonRecursive) {
            Ok(()) => {
                watched_dirs.unwatchable.remove(dir);
                watched_dirs.add(dir);
                now.push(dir.to_path_buf());
            }
            Err(e) => {
                if watched_dirs.unwatchable.insert(dir.to_path_buf()) {
                    report(Event::WatchError(&format!(
                        "cannot watch {}: {e}",
                        dir.display()
                    )));
                }
                let mut up = dir.parent();
                while let Some(above) = up.filter(|a| !watched_dirs.folders.contains_key(*a)) {
                    if watcher.watch(above, RecursiveMode::NonRecursive).is_ok() {
                        watched_dirs.add(above);
                        now.push(above.to_path_buf());
                        break;
                    }
                    up = above.parent();
                }
            }
        }
    }
    now
}

/// What each watched file held when it was compiled (`None`: it could not be read).
type Fingerprints = BTreeMap<PathBuf, Option<u64>>;

/// How long `wireplan compile --watch` waits for the watched folders to be quiet before it
/// looks at what changed: 30 ms. An editor's save (a temporary file renamed over the old one,
/// or the file emptied and written again) and `cp` are bursts of events a few milliseconds
/// long, so a file is not compiled half-written. Until issue #15's rebuild work the watch
/// waited 150 ms for quiet and then read the changed files every 50 ms until two reads agreed:
/// a save of app-1000 took about 100 ms to become a plan, of which the compilation was 7 ms
/// (docs/performance.md, "Rebuilds").
pub const DEBOUNCE: Duration = Duration::from_millis(30);

/// How long the watch gathers events at most before it looks at what changed, even when the
/// folders are never quiet: 1 s (a file rewritten all the time is still compiled).
pub const QUIET_LIMIT: Duration = Duration::from_secs(1);

/// A hash of a text (files are compared as the compiler reads them: lossily decoded). FxHash
/// over the bytes, eight at a time: it tells an edit from no edit, which is all it is for (a
/// compiled app-10000 is 1.1 MB to hash after every compilation; SipHash over the text took
/// about a fifth of a watching process's time, with the lossy decoding below).
fn hash_text(text: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(text.as_bytes());
    h.write_usize(text.len());
    h.finish()
}

/// The hash of a file's current content, `None` when it cannot be read. Valid UTF-8 (every
/// file the compiler can use) is hashed as it is; only other bytes are decoded lossily first,
/// as the compiler does.
fn fingerprint(path: &Path) -> Option<u64> {
    let bytes = crate::source::read_input_file(path).ok()?;
    Some(match std::str::from_utf8(&bytes) {
        Ok(text) => hash_text(text),
        Err(_) => hash_text(&String::from_utf8_lossy(&bytes)),
    })
}

/// Whether an event path names a watched file (the folder part may be spelled differently,
/// e.g. through a symbolic link, so it is compared after canonicalising).
fn same_file(watched: &Path, event: &Path) -> bool {
    if watched == event {
        return true;
    }
    let (Some(a), Some(b)) = (watched.file_name(), event.file_name()) else {
        return false;
    };
    a == b
        && match (watched.parent(), event.parent()) {
            (Some(x), Some(y)) => std::fs::canonicalize(x)
                .ok()
                .is_some_and(|x| std::fs::canonicalize(y).ok() == Some(x)),
            _ => false,
        }
}
