//! Reading and decoding included files ahead, on threads of their own.
//!
//! A configuration's `includes:` come first in Nette's load order, but which files they name
//! is only known once the including file is decoded. So as soon as a file is read, its text is
//! scanned for a plain block list under a top-level `includes:` ([`scan_includes`]) and each
//! file it names is read and decoded on another thread while the including file is decoded on
//! the calling one (app-10000: the 345 KB configuration and its 780 KB `types.neon` at once).
//!
//! It changes nothing but the time: the include list that counts is still the decoded one, a
//! prefetched file is used only when the loader asks for exactly that path, and its reading
//! (the same [`crate::source::read_input_file`]) and decoding (the same [`neon::decode`]) are
//! pure functions of the file. A guess that is wrong (a list inside a multi-line string, an
//! include named twice) costs only the work done for nothing. A fetch nobody asks for (the
//! including file has a syntax error, or the guess was wrong) is not waited for: its thread
//! finishes on its own, or ends with the process, so an error in the root file is reported as
//! soon as it is found however large the files it includes.

use super::deferred::TypesStream;
use crate::diagnostics::Diagnostic;
use crate::neon::{self, Value};
use crate::source::FileId;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// How many files of one `includes:` list are fetched ahead at most; the rest are read when
/// the loader gets to them.
const MAX_AHEAD: usize = 8;

/// Bytes a file must have to be fetched ahead. A thread costs more than it saves on small
/// files: with app-1000's 76 KB `types.neon` fetched ahead the compile took 0.5–1 ms more CPU
/// and wall time; app-10000's 780 KB one saves several milliseconds.
const AHEAD_MIN: u64 = 256 * 1024;

/// Bytes a file that the lighter decode may take ([`Prefetch::lighter`]) must have to be
/// fetched ahead: such a file is not waited for, and its catalog is read on the fetch's side,
/// so a thread pays for itself on far smaller files. app-1000's 76 KB `types.neon`:
/// `benches/paired.py` 0.79 (40 pairs; 9.30 → 7.56 ms).
const LIGHTER_MIN: u64 = 32 * 1024;

/// Whether the file `path` starts with the line `types:` (its first bytes read; a fetch
/// reads the whole file and checks it again).
fn starts_as_types(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; TYPES_LINE.len()];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == TYPES_LINE.as_bytes())
}

/// What a thread fetched for one path: the file read as the loader reads it
/// ([`super::read_text`]) and, for valid UTF-8, the result of decoding it with spans in the
/// given file.
pub(super) struct Fetched {
    pub read: std::io::Result<super::ReadText>,
    pub decoded: Option<(FileId, Result<Value, Diagnostic>)>,
    /// The lighter decode of a `types:` file, when the fetch was asked for one
    /// ([`Prefetch::lighter`]) and the text lies in its subset; `decoded` is then `None` (the
    /// loader decodes the file itself if it needs its value tree).
    pub light: Option<LightFetched>,
}

/// The lighter decode of a file fetched ahead ([`Fetched::light`]).
pub(super) struct LightFetched {
    /// The file its spans are in.
    pub file: FileId,
    /// The tree ([`crate::neon::Light`]).
    pub light: crate::neon::Light,
    /// How many entries of its `types:` map went to the fetch's [`TypesStream`] instead (the
    /// map is then empty in the tree).
    pub streamed: usize,
    /// The stream's last batches, read by the fetch ([`TypesStream::take_back`]).
    pub parts: Vec<crate::catalog::CatalogPart>,
}

/// What a fetch asked for the lighter decode gets ([`Prefetch::lighter`]): where it says
/// whether the file looks like a plain `types:` file ([`looks_plain`]) once it has read it,
/// and where it hands the entries of its `types:` map over as it reads them.
struct Lighter {
    says: std::sync::mpsc::SyncSender<bool>,
    stream: std::sync::Arc<TypesStream>,
}

/// A fetch under way: the path the loader will ask for, the id it is decoded in, its thread,
/// and, for a fetch asked for the lighter decode, where the thread says whether the file it
/// read looks like a plain `types:` file ([`looks_plain`]) before it decodes it.
struct Ahead {
    path: PathBuf,
    file: FileId,
    handle: JoinHandle<Fetched>,
    plain: Option<(std::sync::mpsc::Receiver<bool>, std::sync::Arc<TypesStream>)>,
}

/// Fetches under way.
pub(super) struct Prefetch {
    ahead: Vec<Ahead>,
    /// Fetches finished before this loader started: a file a deferred `types:` include had
    /// fetched, handed to the loader that starts over without deferring it
    /// ([`super::deferred`]).
    done: Vec<(PathBuf, Fetched)>,
    /// Bytes a file must have to be fetched ahead ([`AHEAD_MIN`]).
    min_size: u64,
    /// Whether a file fetched from now on that looks like a plain `types:` file
    /// ([`looks_plain`]) gets the lighter decode ([`crate::neon::Light`]) instead of a value
    /// tree (a file that starts with the line `types:` is fetched from [`LIGHTER_MIN`] on):
    /// for the root's includes when the loader defers a `types:` file ([`super::deferred`]).
    pub lighter: bool,
}

impl Default for Prefetch {
    fn default() -> Prefetch {
        Prefetch {
            ahead: Vec::new(),
            done: Vec::new(),
            min_size: AHEAD_MIN,
            lighter: false,
        }
    }
}

impl Prefetch {
    /// Starts fetching `paths` (as written in an `includes:` list of a file in `dir`), the
    /// `k`-th decoded with spans in `FileId(first.0 + k)`: the id it gets when no earlier
    /// include includes files of its own (otherwise the loader decodes it again). A thread
    /// that cannot be started leaves its file to the loader; a file `kept` from an earlier
    /// compilation is left to it too.
    pub fn start(
        &mut self,
        paths: Vec<String>,
        dir: Option<&Path>,
        first: FileId,
        kept: Option<&super::DecodedFiles>,
    ) {
        for (k, written) in paths.into_iter().take(MAX_AHEAD).enumerate() {
            let path = super::include_target(dir, &written);
            if self.ahead.iter().any(|a| a.path == path)
                || self.done.iter().any(|(p, _)| *p == path)
            {
                continue;
            }
            // A file kept from an earlier compilation is most likely taken from there.
            if kept.is_some_and(|k| k.has(&std::fs::canonicalize(&path).unwrap_or_default())) {
                continue;
            }
            // (A file that cannot be looked at is read, and reported, by the loader.)
            let Ok(size) = std::fs::metadata(&path).map(|m| m.len()) else {
                continue;
            };
            let lighter = self.lighter && size >= LIGHTER_MIN.min(self.min_size);
            if size < self.min_size && !(lighter && starts_as_types(&path)) {
                continue;
            }
            let file = FileId(first.0 + k as u32);
            let job = path.clone();
            // Counted as a running decode from now on, before the thread starts: the loader
            // decodes the including file next and must keep to its thread (neon::Decoding).
            let counted = crate::neon::Decoding::start();
            let thread = std::thread::Builder::new().name("include-prefetch".into());
            let (lighter, plain) = match self.lighter {
                true => {
                    let (says, plain) = std::sync::mpsc::sync_channel(1);
                    let stream = std::sync::Arc::new(TypesStream::new());
                    let lighter = Lighter {
                        says,
                        stream: std::sync::Arc::clone(&stream),
                    };
                    (Some(lighter), Some((plain, stream)))
                }
                false => (None, None),
            };
            let spawned = crate::parallel::spawn(thread, move || {
                let fetched = fetch(&job, file, lighter);
                drop(counted);
                fetched
            });
            if let Ok(handle) = spawned {
                self.ahead.push(Ahead {
                    path,
                    file,
                    handle,
                    plain,
                });
            }
        }
    }

    /// What was fetched for `path`, when it was fetched ahead (waits for the thread).
    pub fn take(&mut self, path: &Path) -> Option<Fetched> {
        if let Some(at) = self.done.iter().position(|(p, _)| p == path) {
            return Some(self.done.swap_remove(at).1);
        }
        let at = self.ahead.iter().position(|a| a.path == path)?;
        Some(join(self.ahead.swap_remove(at).handle))
    }

    /// The fetch of `path` still under way, when it is decoded with spans in `file`, was
    /// asked for the lighter decode and read a file that looks like a plain `types:` file
    /// ([`looks_plain`]; this waits for the thread to have read the file, not for its
    /// decode): taken out without waiting for it (a deferred `types:` include,
    /// [`super::deferred`]). Otherwise the fetch stays for [`Prefetch::take`].
    pub fn detach(
        &mut self,
        path: &Path,
        file: FileId,
    ) -> Option<(JoinHandle<Fetched>, std::sync::Arc<TypesStream>)> {
        let at = self
            .ahead
            .iter()
            .position(|a| a.path == path && a.file == file)?;
        let (plain, _) = self.ahead[at].plain.as_ref()?;
        // (A thread that ended without saying, by a panic, says no: `take` reports it.)
        let looks_plain =
            crate::timings::waiting("include-prefetch", || plain.recv().unwrap_or(false));
        if !looks_plain {
            return None;
        }
        let ahead = self.ahead.swap_remove(at);
        let (_, stream) = ahead.plain?;
        stream
            .claimed
            .store(true, std::sync::atomic::Ordering::Release);
        Some((ahead.handle, stream))
    }

    /// Hands the loader what an earlier loader fetched for `path`: [`Prefetch::take`] gives
    /// it when the loader gets to that path.
    pub fn seed(&mut self, path: PathBuf, fetched: Fetched) {
        self.done.push((path, fetched));
    }
}

/// Waits for a fetch's thread (a panic in it goes on in the caller).
pub(super) fn join(handle: JoinHandle<Fetched>) -> Fetched {
    crate::timings::waiting("include-prefetch", || handle.join())
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Reads and decodes `path` as the loader would. With `lighter` (a fetch asked for the
/// lighter decode), first says there whether the file looks like a plain `types:` file
/// ([`looks_plain`]), and when it does, tries the lighter decode on it, handing the entries
/// of its `types:` map to the stream as it reads them; the stream is closed when the fetch
/// ends, whatever it fetched.
fn fetch(path: &Path, file: FileId, lighter: Option<Lighter>) -> Fetched {
    crate::neon::decoding_ahead();
    let _closing = lighter.as_ref().map(|l| l.stream.batches.closing());
    let read = super::read_text(path);
    let text = match &read {
        Ok((text, None)) => text,
        _ => {
            if let Some(lighter) = &lighter {
                let _ = lighter.says.send(false);
            }
            return Fetched {
                read,
                decoded: None,
                light: None,
            };
        }
    };
    if let Some(lighter) = &lighter {
        let plain = looks_plain(text);
        // (The loader may be gone, after an error in the root file.)
        let _ = lighter.says.send(plain);
        let stream = &lighter.stream;
        let entries = match plain {
            true => super::deferred::count_entries(text),
            false => 0,
        };
        stream
            .entries
            .store(entries, std::sync::atomic::Ordering::Relaxed);
        if let Some((light, streamed)) = plain
            .then(|| {
                crate::neon::decode_light_streaming(text, file, entries, &mut |batch| {
                    stream.batches.push(batch)
                })
            })
            .flatten()
        {
            // Every batch is in: the reader of the front may finish, and this thread shares
            // the last ones with it.
            stream.batches.close();
            let parts = stream.take_back();
            return Fetched {
                read,
                decoded: None,
                light: Some(LightFetched {
                    file,
                    light,
                    streamed,
                    parts,
                }),
            };
        }
    }
    let decoded = Some((file, neon::decode(text, file)));
    Fetched {
        read,
        decoded,
        light: None,
    }
}

/// Whether `text` looks like a plain `types:` file, one the lighter decode most likely takes
/// whole and whose catalog can be read without the rest of the configuration: it starts with
/// the line `types:` and has no `%` (no parameter), no `(` (no entity) and no `!` merge marker
/// ([`super::merge::unmarked_text`]). Memchr scans; only a guess, which
/// [`super::deferred`] checks on the decoded file.
fn looks_plain(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.starts_with(TYPES_LINE)
        && memchr::memchr2(b'%', b'(', bytes).is_none()
        && super::merge::unmarked_text(text)
}

/// How a file the lighter decode is tried on starts ([`Prefetch::lighter`]).
pub(super) const TYPES_LINE: &str = "types:\n";

/// The paths of a block list under a top-level `includes:` key of `text`, when it has one in
/// the plain form:
///
/// ```neon
/// includes:
///     - services.neon
///     - 'types.neon'  # a comment
/// ```
///
/// Items that are not a plain path (inline lists, `%parameters%`, quotes with escapes) end
/// the scan; what was found before them is returned. Only a guess: the loader reads the
/// decoded list.
pub(super) fn scan_includes(text: &str) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(at) = find_top_level_key(text, "includes:") else {
        return Vec::new();
    };
    let mut lines = text[at + "includes:".len()..].lines();
    // The rest of the key's line must be empty (or a comment): a block list follows.
    if !is_blank_or_comment(lines.next().unwrap_or("")) {
        return Vec::new();
    }
    let mut paths = Vec::new();
    for line in lines {
        if is_blank_or_comment(line) {
            continue;
        }
        if !line.starts_with([' ', '\t']) {
            break;
        }
        let Some(item) = line.trim_start().strip_prefix("- ") else {
            break;
        };
        let item = match item.find(" #").or_else(|| item.find("\t#")) {
            Some(comment) => &item[..comment],
            None => item,
        }
        .trim();
        let path = match item.as_bytes().first() {
            Some(b'\'' | b'"') => {
                let quote = &item[..1];
                match item[1..].strip_suffix(quote) {
                    Some(inner) if !inner.contains(['\'', '"', '\\']) => inner,
                    _ => break,
                }
            }
            _ => item,
        };
        if path.is_empty() || path.contains(['%', '[', ']', '{', '}', ',', '#']) {
            break;
        }
        paths.push(path.to_owned());
    }
    paths
}

/// The offset of `key` written at the start of a line of `text` (column 0). Searched with
/// `memchr`'s vectorised substring search: app-10000's 780 KB `types.neon`, which has no such
/// key, took 0.49 ms on the loader's thread with `str::match_indices`.
fn find_top_level_key(text: &str, key: &str) -> Option<usize> {
    if text.starts_with(key) {
        return Some(0);
    }
    memchr::memmem::find_iter(text.as_bytes(), key.as_bytes())
        .find(|&at| at > 0 && text.as_bytes()[at - 1] == b'\n')
}

fn is_blank_or_comment(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('#')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_block_list_is_found() {
        let text = "# app\nparameters:\n\tx: 1\nincludes:\n\t- types.neon\n\n\t- 'more/b.neon' # c\nservices:\n\t- x\n";
        assert_eq!(scan_includes(text), vec!["types.neon", "more/b.neon"]);
        assert_eq!(
            scan_includes("includes:  # list\n  - a.neon\n  - \"b c.neon\"\n"),
            vec!["a.neon", "b c.neon"]
        );
    }

    #[test]
    fn other_forms_are_left_to_the_loader() {
        // inline lists, parameters, a key not at column 0, nothing at all
        assert!(scan_includes("includes: [a.neon]\n").is_empty());
        assert!(scan_includes("x:\n\tincludes:\n\t\t- a.neon\n").is_empty());
        assert!(scan_includes("services:\n\t- a\n").is_empty());
        assert_eq!(
            scan_includes("includes:\n\t- a.neon\n\t- %dir%/b.neon\n\t- c.neon\n"),
            vec!["a.neon"]
        );
        assert_eq!(
            scan_includes("includes:\n\t- 'a\\'b.neon'\n"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_prefetched_file_is_what_the_loader_would_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("a.neon"), "x: [1, 2]\n").expect("write");
        std::fs::write(dir.path().join("bad.neon"), b"x: \xff\n").expect("write");
        let mut ahead = Prefetch {
            min_size: 0,
            ..Prefetch::default()
        };
        ahead.start(
            vec!["a.neon".into(), "bad.neon".into(), "gone.neon".into()],
            Some(dir.path()),
            FileId(3),
            None,
        );
        let target = super::super::include_target(Some(dir.path()), "a.neon");
        match ahead.take(&target) {
            Some(Fetched {
                read: Ok((text, None)),
                decoded: Some((file, result)),
                light: None,
            }) => {
                assert_eq!(text, "x: [1, 2]\n");
                assert_eq!(file, FileId(3));
                let value = result.expect("decodes");
                assert_eq!(value, neon::decode(&text, FileId(3)).expect("decodes"));
            }
            _ => panic!("a.neon was not decoded ahead"),
        }
        // asked once only
        assert!(ahead.take(&target).is_none());
        let bad = super::super::include_target(Some(dir.path()), "bad.neon");
        assert!(matches!(
            ahead.take(&bad),
            Some(Fetched { read: Ok((_, Some(b))), decoded: None, light: None }) if b == b"x: \xff\n"
        ));
        // a file that is not there is left to the loader, which reports it
        let gone = super::super::include_target(Some(dir.path()), "gone.neon");
        assert!(ahead.take(&gone).is_none());
        assert!(ahead.take(Path::new("elsewhere.neon")).is_none());
        // small files are read by the loader too
        let mut ahead = Prefetch::default();
        ahead.start(vec!["a.neon".into()], Some(dir.path()), FileId(3), None);
        let target = super::super::include_target(Some(dir.path()), "a.neon");
        assert!(ahead.take(&target).is_none());
    }

    /// A file fetched ahead counts as a running decode from the moment it is started, before
    /// its thread has read a byte: the loader, which decodes the including file right after,
    /// must see it and keep to its own thread (it split over both cores first, as the
    /// thread counted itself only once it had read its file: 4–9 ms of app-10000's reading
    /// waited for the loader's own lanes).
    #[test]
    fn a_fetch_counts_as_a_decode_before_its_thread_runs() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("a.neon"), "x: 1\n".repeat(1000)).expect("write");
        let mut ahead = Prefetch {
            min_size: 0,
            ..Prefetch::default()
        };
        // The loader's own decode of the including file.
        let including = crate::neon::Decoding::start();
        ahead.start(vec!["a.neon".into()], Some(dir.path()), FileId(3), None);
        assert!(!crate::neon::decoding_alone());
        drop(including);
        let target = super::super::include_target(Some(dir.path()), "a.neon");
        assert!(ahead.take(&target).is_some_and(|f| f.decoded.is_some()));
    }
}
