//! Writing a file atomically: a temporary file next to the target, filled, synced, then
//! renamed over it, so a reader sees the old file or the whole new one, never half of it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// The temporary files [`write_atomic_with`] is filling right now, so that a program stopped
/// while it writes can remove them ([`remove_unfinished_files`]). Its lock also orders a
/// write's rename against that removal: a rename happens under it, and never after
/// [`STOPPING`] is set.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Set by [`remove_unfinished_files`]: the process is ending, so no write renames its file
/// into place any more (it fails with [`std::io::ErrorKind::Interrupted`] instead).
static STOPPING: AtomicBool = AtomicBool::new(false);

/// How many files [`write_atomic_with`] has renamed into place in this process
/// ([`files_put_in_place`]).
static PUT_IN_PLACE: AtomicU64 = AtomicU64::new(0);

/// How many files this process has put in place with [`write_atomic_with`] so far: a caller
/// that compares the count before and after a step knows whether the step's file went into
/// place, also from a signal handler after [`remove_unfinished_files`] (then the count no
/// longer changes).
pub fn files_put_in_place() -> u64 {
    PUT_IN_PLACE.load(Ordering::SeqCst)
}

/// Numbers the temporary files of this process (with its id, the file's name).
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Removes the temporary files of writes that are still under way, and returns how many it
/// removed. For a program about to end before its writes finish: `wireplan compile` calls it
/// from its Ctrl-C (and `SIGTERM`) handler, so an interrupted compile leaves the old plan
/// file, or none, and no `.NAME.PID.N.tmp` beside it. The interrupted writes then fail (their
/// file is gone) and leave their target as it was; from here on no write of this process
/// renames its file into place (a write that was about to fails with
/// [`std::io::ErrorKind::Interrupted`]), so what [`files_put_in_place`] says afterwards stays
/// true until the process ends.
pub fn remove_unfinished_files() -> usize {
    let mut files = unfinished();
    STOPPING.store(true, Ordering::SeqCst);
    remove_recorded(&mut files, |_| true)
}

/// [`UNFINISHED`], locked (a lock poisoned by a panic elsewhere still holds the list).
fn unfinished() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// [`remove_unfinished_files`] for the temporary files `which` accepts (the others stay
/// recorded), without stopping the process's writes: for the tests, which share the process.
#[cfg(test)]
fn remove_unfinished_where(which: impl Fn(&Path) -> bool) -> usize {
    remove_recorded(&mut unfinished(), which)
}

/// Removes the files of `files` that `which` accepts, and forgets them; how many were removed.
fn remove_recorded(files: &mut Vec<PathBuf>, which: impl Fn(&Path) -> bool) -> usize {
    let mut removed = 0;
    files.retain(|f| {
        if !which(f) {
            return true;
        }
        removed += usize::from(std::fs::remove_file(f).is_ok());
        false
    });
    removed
}

/// Records `tmp` as being filled ([`remove_unfinished_files`]); the guard forgets it again.
struct Unfinished(PathBuf);

impl Unfinished {
    fn record(tmp: &Path) -> Unfinished {
        unfinished().push(tmp.to_path_buf());
        Unfinished(tmp.to_path_buf())
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        let mut files = unfinished();
        if let Some(i) = files.iter().position(|f| *f == self.0) {
            files.swap_remove(i);
        }
    }
}

/// Creates a new temporary file beside `path` for [`write_atomic_with`]:
/// `.NAME.PID.N.tmp` in `path`'s folder, `N` counting this process's temporary files. The
/// file must not exist yet (`O_CREAT | O_EXCL`): a file or a symbolic link already at that name
/// (left by a process with the same id, or placed there) is never opened or followed; the
/// next number is tried instead, up to 100 times.
fn create_temporary(dir: &Path, file_name: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    let mut last = None;
    for _ in 0..100 {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{file_name}.{}.{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary file name was free")))
}

/// Writes `bytes` to `path` atomically: a temporary file next to it, synced, then renamed
/// over it, so a reader sees the old file or the whole new one, never half of it
/// ([`write_atomic_with`], whose target rules apply).
///
/// Only a regular file is replaced: when `path` is a symbolic link, the file it points to is
/// written (the link stays); a directory, device (`/dev/null`), FIFO or socket at `path`, or
/// a link to one, is refused with [`std::io::ErrorKind::InvalidInput`] and left as it is (a
/// rename would have put a plain file in its place). A read-only file is refused with
/// [`std::io::ErrorKind::PermissionDenied`]; a file that is replaced keeps its permissions.
/// Errors: those, and the operating system's for creating, writing, syncing and renaming.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// How much is buffered before [`write_atomic_with`] writes to the file: 128 KiB. An encoder
/// writing through it never holds the whole text in memory (a 10,000-service JSON plan is
/// 4.5 MB).
pub const WRITE_BUFFER: usize = 128 * 1024;

/// Bytes written to a [`PlanFile`] between two requests to start writing them to the disk:
/// 64 KiB (app-1000's 437 KB plan: 6 requests, its sync 1.5 → 0.8–1.2 ms; with 256 KiB steps
/// one request and no gain there; app-10000 is the same with either).
pub const WRITEBACK_STEP: u64 = 64 * 1024;

/// The temporary file [`write_atomic_with`] fills. On Linux, every [`WRITEBACK_STEP`] bytes it
/// asks the kernel to start writing what it holds so far to the disk
/// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, which does not wait for the writing), so the device writes
/// while the rest is encoded and the final sync waits only for the tail: at app-10000 (a
/// 4.5 MB JSON plan) the sync took 4.8–5.1 ms of the compile's wall time when it started
/// only then. Elsewhere it is a plain file.
pub struct PlanFile {
    file: std::fs::File,
    /// Bytes written so far.
    written: u64,
    /// Bytes already handed to the kernel to write out.
    submitted: u64,
}

impl PlanFile {
    /// Asks the kernel to start writing the bytes written since the last request.
    fn start_writeback(&mut self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let (from, len) = (self.submitted, self.written - self.submitted);
            // SAFETY: `sync_file_range` only reads its integer arguments; the descriptor is
            // the open file this value owns. A failure only means the final sync does all
            // the waiting, so its result is not needed.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    from as libc::off64_t,
                    len as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
        self.submitted = self.written;
    }
}

impl std::io::Write for PlanFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.submitted >= WRITEBACK_STEP {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Writes a file atomically from a writer: `fill` writes the content through a
/// [`WRITE_BUFFER`]-byte buffer into a temporary file next to `path` (a [`PlanFile`], which
/// has the disk start writing as it goes); then the file is synced and renamed over `path`,
/// so a reader sees the old file or the whole new one. When `fill` fails (its error is
/// returned), or creating, writing, syncing or renaming fails, the temporary file is removed
/// and `path` is left as it was. The target rules are [`write_atomic`]'s.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<PlanFile>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (path, permissions) = replaceable(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plan".into());
    let (tmp, file) = create_temporary(&dir, &file_name)?;
    let recorded = Unfinished::record(&tmp);
    let result = (|| {
        if let Some(p) = permissions {
            file.set_permissions(p)?;
        }
        let file = PlanFile {
            file,
            written: 0,
            submitted: 0,
        };
        let mut out = std::io::BufWriter::with_capacity(WRITE_BUFFER, file);
        fill(&mut out)?;
        let file = out
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        file.file.sync_all()?;
        // Under the lock that `remove_unfinished_files` takes: a process that began to stop
        // puts nothing in place any more.
        let _order = unfinished();
        if STOPPING.load(Ordering::SeqCst) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "the process is stopping",
            ));
        }
        std::fs::rename(&tmp, &path)?;
        PUT_IN_PLACE.fetch_add(1, Ordering::SeqCst);
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    drop(recorded);
    if result.is_ok() {
        remove_stale_temporaries(&dir, &file_name);
    }
    result
}

/// How long a temporary file of a process that no longer runs must have been left alone
/// before [`remove_stale_temporaries`] removes it: 60 s. A process in another PID namespace
/// (a container writing into the same folder) looks dead from here while it writes; no plan
/// takes that long between two writes of its temporary file.
pub const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the temporary files `.NAME.PID.N.tmp` of `file_name` in `dir` that a process which
/// no longer runs left behind (killed by `SIGKILL` or the out-of-memory killer, which no
/// handler sees) and that nobody wrote for [`STALE_AFTER`]: after a plan was written, so such
/// files do not pile up beside it. Only regular files whose name has exactly that form, with
/// another process's id, are considered; a process is looked up with `kill(PID, 0)` (Linux
/// only; elsewhere nothing is removed). Failures are ignored: the plan is written already.
fn remove_stale_temporaries(dir: &Path, file_name: &str) {
    #[cfg(target_os = "linux")]
    {
        let prefix = format!(".{file_name}.");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix(&prefix))
                .and_then(|n| n.strip_suffix(".tmp"))
                .and_then(|n| n.split_once('.'))
                .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|(pid, _)| pid.parse::<libc::pid_t>().ok())
                .filter(|&pid| pid > 0 && pid as u32 != std::process::id())
            else {
                continue;
            };
            let old = entry.metadata().is_ok_and(|m| {
                m.file_type().is_file()
                    && m.modified()
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age >= STALE_AFTER)
            });
            if old && !process_runs(pid) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (dir, file_name);
}

/// Whether a process with id `pid` runs (or may: any answer but "no such process" counts as
/// running, so a file is kept when in doubt).
#[cfg(target_os = "linux")]
fn process_runs(pid: libc::pid_t) -> bool {
    // SAFETY: `kill` with signal 0 sends nothing; it only checks that the process exists.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// The refusal of a target that is not a regular file.
fn not_regular() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "it is not a regular file (a device, FIFO or socket), which is never replaced",
    )
}

/// The file [`write_atomic_with`] replaces for `path` (a symbolic link's target) and the
/// permissions it keeps (`None`: a new file). Errors: as [`write_atomic`] refuses.
fn replaceable(path: &Path) -> std::io::Result<(PathBuf, Option<std::fs::Permissions>)> {
    use std::io::{Error, ErrorKind};
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok((path.to_path_buf(), None)),
        Err(e) => return Err(e),
    };
    let (path, meta) = if meta.file_type().is_symlink() {
        let Ok(target) = std::fs::canonicalize(path) else {
            // A link that names no path but opens something (`/dev/stdout` into a pipe goes
            // through `/proc/self/fd/1`, whose target is `pipe:[…]`) is what it opens.
            if let Ok(meta) = std::fs::metadata(path) {
                if !meta.is_file() {
                    return Err(not_regular());
                }
            }
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "it is a symbolic link to a file that does not exist",
            ));
        };
        let meta = std::fs::metadata(&target)?;
        (target, meta)
    } else {
        (path.to_path_buf(), meta)
    };
    if meta.is_dir() {
        return Err(Error::new(ErrorKind::InvalidInput, "it is a directory"));
    }
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.permissions().readonly() {
        return Err(Error::new(ErrorKind::PermissionDenied, "it is read-only"));
    }
    Ok((path, Some(meta.permissions())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write removes the temporary files of its name that a process no longer running left
    /// long enough ago (a compile killed by `SIGKILL`, a new user's trial), and nothing else.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_write_removes_what_a_killed_writer_left() {
        let dir = std::env::temp_dir().join(format!("wireplan-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("folder");
        let at = |name: &str| dir.join(name);
        let long_ago =
            std::time::SystemTime::now() - STALE_AFTER - std::time::Duration::from_secs(5);
        let leave = |name: &str, modified: std::time::SystemTime| {
            let f = std::fs::File::create(at(name)).expect("create");
            f.set_modified(modified).expect("mtime");
        };
        // No process has this id (beyond any pid_max).
        let dead = 2_000_000_000;
        let ours = std::process::id();
        leave(&format!(".plan.json.{dead}.0.tmp"), long_ago);
        leave(
            &format!(".plan.json.{dead}.1.tmp"),
            std::time::SystemTime::now(),
        );
        leave(&format!(".plan.json.{ours}.7.tmp"), long_ago);
        leave(".plan.json.1.0.tmp", long_ago);
        leave(&format!(".other.json.{dead}.0.tmp"), long_ago);
        leave(&format!(".plan.json.{dead}.x.tmp"), long_ago);
        std::os::unix::fs::symlink(at("nowhere"), at(&format!(".plan.json.{dead}.2.tmp")))
            .expect("symlink");
        write_atomic(&at("plan.json"), b"{}").expect("written");
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .expect("folder")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected = vec![
            format!(".other.json.{dead}.0.tmp"),
            ".plan.json.1.0.tmp".to_string(),
            format!(".plan.json.{dead}.1.tmp"),
            format!(".plan.json.{dead}.2.tmp"),
            format!(".plan.json.{dead}.x.tmp"),
            format!(".plan.json.{ours}.7.tmp"),
            "plan.json".to_string(),
        ];
        expected.sort();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(left, expected);
    }

    /// The files in `dir` whose names start with `.NAME.` (the temporary files of `NAME`).
    fn temporaries(dir: &Path, name: &str) -> Vec<String> {
        std::fs::read_dir(dir)
            .expect("folder")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&format!(".{name}.")))
            .collect()
    }

    #[test]
    fn an_interrupted_write_leaves_the_old_file_and_no_temporary_one() {
        let dir = std::env::temp_dir().join(format!("wireplan-unfinished-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("folder");
        let path = dir.join("plan.json");
        std::fs::write(&path, b"old plan").expect("old plan");
        let mut removed = None;
        let mut during = Vec::new();
        let result = write_atomic_with(&path, |w| {
            w.write_all(b"half of a new pl")?;
            w.flush()?;
            during = temporaries(&dir, "plan.json");
            // What the signal handler of `wireplan compile` does (here only for this test's
            // folder: other tests of this process may be writing meanwhile).
            removed = Some(remove_unfinished_where(|f| f.starts_with(&dir)));
            w.write_all(b"an")
        });
        // Named `.NAME.PID.N.tmp` while it was filled (no `ThreadId(…)` in it).
        assert_eq!(during.len(), 1, "{during:?}");
        let prefix = format!(".plan.json.{}.", std::process::id());
        assert!(
            during[0].starts_with(&prefix) && during[0].ends_with(".tmp"),
            "{during:?}"
        );
        assert_eq!(removed, Some(1));
        assert!(result.is_err(), "the rename of a removed file fails");
        assert_eq!(std::fs::read(&path).expect("read"), b"old plan");
        assert!(temporaries(&dir, "plan.json").is_empty());
        // Nothing is left to remove, and the next write works.
        assert_eq!(remove_unfinished_where(|f| f.starts_with(&dir)), 0);
        write_atomic(&path, b"new plan").expect("written");
        assert_eq!(std::fs::read(&path).expect("read"), b"new plan");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_placed_at_the_temporary_name_is_not_followed() {
        let dir = std::env::temp_dir().join(format!("wireplan-placed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("folder");
        let path = dir.join("plan.json");
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep me").expect("victim");
        // Links at the next names this process would use (other tests may take some).
        let next = TEMP_COUNTER.load(Ordering::Relaxed);
        for n in next..next + 50 {
            let name = format!(".plan.json.{}.{n}.tmp", std::process::id());
            std::os::unix::fs::symlink(&victim, dir.join(name)).expect("link");
        }
        write_atomic(&path, b"new plan").expect("written");
        assert_eq!(std::fs::read(&path).expect("read"), b"new plan");
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep me");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_written_in_many_steps_has_every_byte() {
        // several writeback steps and a tail, in writes of odd sizes
        let bytes: Vec<u8> = (0..(3 * WRITEBACK_STEP + 12_345))
            .map(|i| (i % 251) as u8)
            .collect();
        let path = std::env::temp_dir().join(format!(
            "wireplan-writeback-{}-{:?}.bin",
            std::process::id(),
            std::thread::current().id()
        ));
        write_atomic_with(&path, |w| {
            for chunk in bytes.chunks(70_001) {
                w.write_all(chunk)?;
            }
            Ok(())
        })
        .expect("written");
        let read = std::fs::read(&path).expect("read");
        let _ = std::fs::remove_file(&path);
        assert_eq!(read.len(), bytes.len());
        assert!(read == bytes, "the bytes differ");
    }
}
