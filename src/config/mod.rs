//! Configuration loading: the root file, `includes:`, merging of layers, and `%parameter%`
//! expansion.
//!
//! Follows Nette's `Config\Loader` and nette/schema 1.3 merging (see
//! `../shared/reference/nette-di.md` §6–8):
//! - `includes:` is a list of paths relative to the including file; included files are loaded
//!   first and the including file's own data wins;
//! - maps merge recursively, newer items whose keys continue the sequence `0, 1, …` are appended
//!   (lists concatenate), a newer `null` over an array keeps the array, `key!:` replaces;
//! - service definitions are normalised per layer before merging (short forms become maps, tag
//!   lists become maps), so `s: App\Svc` in one file and `s: {setup: …}` in another merge field
//!   by field.

mod decoded;
mod deferred;
pub mod dynamic;
mod merge;
mod origins;
mod overrides;
mod params;
mod placeholders;
mod plan_guard;
pub(crate) mod predefined;
mod prefetch;
pub(crate) mod symfony;

pub use decoded::DecodedFiles;
pub(crate) use deferred::{load_deferring_types, load_refetched, DeferredTypes, Refetch};
pub use merge::merge;
pub use overrides::{applicable_overrides, check_overrides, note_overrides, CommandLineParameters};
pub(crate) use params::nested_too_deep_error;
pub use params::{
    declares_parameter, expand_config, expand_config_streaming, note_left_out, EnvSource,
    Parameters, Sections, Streamed, StreamedEntry, StreamedValue,
};
pub use placeholders::expand_with;
pub use plan_guard::{holds_plan_or_nothing, plan_file_hint};

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::neon::{self, Array, Key, Kind, Value};
use crate::source::{FileId, SourceMap, Span};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};

/// How deeply `includes:` may nest.
pub const MAX_INCLUDE_DEPTH: usize = 64;

/// How many files one configuration may read through `includes:` (the root file and each
/// inclusion counted, a file included twice twice). Nesting alone does not bound it: 24 files
/// that each include the next one twice are 16 million inclusions (a new user's trial held CI
/// for minutes and gigabytes with them). Real applications read tens of files.
pub const MAX_INCLUDED_FILES: usize = 4096;

/// The merged, not yet expanded configuration of one root file and its includes.
#[derive(Debug, Clone)]
pub struct RawConfig {
    /// Top-level sections in order of first appearance, merged over all layers.
    pub sections: Array,
    /// Every file read, in load order (for the plan's dependency list).
    pub files: Vec<FileId>,
    /// Catalog files given apart from the configuration (`--catalog`, dev mode's registry
    /// catalog), read by [`crate::catalog::load_inputs`]; empty for a configuration alone.
    pub catalogs: Vec<FileId>,
}

/// Loads `path` and everything it includes. Errors (unreadable files, syntax errors, include
/// cycles, a non-list `includes:`) are pushed to `diags`; loading goes on with the remaining
/// files so that independent errors are all reported. A root file that is a plan rather than
/// a configuration is not read: the error of [`plan_file_hint`] is reported instead. Returns
/// the merged sections.
pub fn load(path: &Path, sources: &mut SourceMap, diags: &mut Diagnostics) -> RawConfig {
    load_with(path, &IndexMap::new(), sources, diags)
}

/// [`load`] with the parameters given from outside (`-p name=value`), which `%name%` in
/// `includes:` paths may use. As in Nette, parameters defined in the files themselves cannot be
/// used there (the files are not merged yet); such a reference is a `missing-parameter` error.
pub fn load_with(
    path: &Path,
    parameters: &IndexMap<String, Value>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> RawConfig {
    load_keeping(path, parameters, sources, diags, None)
}

/// [`load_with`] that takes a file decoded by an earlier compilation from `kept` when its
/// text did not change, and keeps the large files it decodes there ([`DecodedFiles`]): what
/// a `--watch` session does between its compilations. The result is the same as
/// [`load_with`]'s.
pub fn load_keeping(
    path: &Path,
    parameters: &IndexMap<String, Value>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
    kept: Option<&DecodedFiles>,
) -> RawConfig {
    // A plan file is not read as NEON: it would give a page of errors about its keys, or
    // about its binary bytes (issue #11).
    if let Some(d) = plan_file_hint(path) {
        diags.push(d);
        return RawConfig {
            sections: Array::new(),
            files: Vec::new(),
            catalogs: Vec::new(),
        };
    }
    let mut loader = Loader::new(sources, diags, parameters, kept);
    let sections = loader.load_file(path, None).unwrap_or_default();
    RawConfig {
        sections,
        files: loader.files,
        catalogs: Vec::new(),
    }
}

/// Loads NEON text given in memory (no includes are followed relative to disk unless
/// `base_dir` is given). Used by tests and the REPL.
pub fn load_str(
    name: &str,
    text: &str,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> RawConfig {
    let id = sources.add(name, text);
    let none = IndexMap::new();
    let mut loader = Loader::new(sources, diags, &none, None);
    loader.files.push(id);
    let sections = loader.load_decoded(id, None).unwrap_or_default();
    RawConfig {
        sections,
        files: loader.files,
        catalogs: Vec::new(),
    }
}

/// The `invalid-value` diagnostic for a top-level section (`services:`, `types:`) whose value
/// is not a map or list (Nette's "The item 'NAME' expects to be array, TYPE given."), at the
/// value. Only for a non-null `section`: an empty section is fine.
pub fn section_not_array(name: &str, section: &crate::expr::Expr) -> Diagnostic {
    Diagnostic::error(
        Code::InvalidValue,
        format!(
            "The item '{name}' expects to be array, {} given.",
            section.type_name()
        ),
    )
    .at(section.span)
}

/// The `file-not-found` diagnostic for a configuration file that cannot be read (`err` from
/// [`crate::source::read_input_file`] becomes its note). `wireplan check` and the other
/// commands report a missing root or included file with it; the REPL refuses to start with it.
///
/// When the file does not exist and a file in the same folder has a close name, the message
/// ends with "did you mean 'NAME'?" ([`crate::diagnostics::suggest`]).
///
/// A file that exists but is refused (a directory, a device or FIFO, a file over the size
/// limit) says so in the message instead of Nette's "missing or is not readable"; a
/// directory's note names the NEON files in it. `-` gets a note that only `neon decode` and
/// `neon encode` read standard input.
pub fn unreadable_file(path: &Path, err: &std::io::Error) -> Diagnostic {
    if err.kind() == std::io::ErrorKind::InvalidInput {
        let d = Diagnostic::error(
            Code::FileNotFound,
            format!("File '{}' cannot be read: {err}.", path.display()),
        );
        return if crate::source::is_not_a_regular_file(err) {
            d.with_note(STDIN_NOTE)
        } else if path.is_dir() {
            d.with_note(folder_note(path))
        } else {
            d
        };
    }
    if path.as_os_str() == "-" && err.kind() == std::io::ErrorKind::NotFound {
        return Diagnostic::error(
            Code::FileNotFound,
            "File '-' is missing or is not readable.",
        )
        .with_note(STDIN_NOTE);
    }
    let message = format!("File '{}' is missing or is not readable.", path.display());
    let d = Diagnostic::error(Code::FileNotFound, message);
    // The close name is a note, as every other "did you mean" is (a trial: tools reading
    // the JSON `notes` missed it in the message).
    let d = match (err.kind() == std::io::ErrorKind::NotFound)
        .then(|| similar_file(path))
        .flatten()
    {
        Some(name) => d.with_note(format!("did you mean '{name}'?")),
        None => d,
    };
    let d = match crate::source::backslash_note(path) {
        Some(note) if err.kind() == std::io::ErrorKind::NotFound => d.with_note(note),
        _ => d,
    };
    d.with_note(err.to_string())
}

/// What to give instead of the folder `dir` (an operator's trial gave the configuration's
/// folder): a file, with the NEON files in it named (at most five, sorted).
fn folder_note(dir: &Path) -> String {
    let mut neon: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "neon"))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    neon.sort();
    if neon.is_empty() {
        return "give a file, not a folder".to_string();
    }
    let shown: Vec<String> = neon
        .iter()
        .take(5)
        .map(|n| dir.join(n).display().to_string())
        .collect();
    let more = if neon.len() > 5 { ", …" } else { "" };
    format!(
        "give a file, not a folder; it holds {}{more}",
        shown.join(", ")
    )
}

/// Where standard input is read instead of a configuration file.
const STDIN_NOTE: &str = "a configuration is read from a file (its includes are relative to its \
folder); standard input is read only by `wireplan neon decode -` and `neon encode -`";

/// The name of a file in `path`'s folder whose name is close to `path`'s (a typo), if any:
/// [`crate::diagnostics::suggest`] over the files with the same extension (any, for a name
/// without one) whose name before it is at least half and at most twice as long. A name of
/// fewer than three characters before its extension gets no such suggestion. (Nette's rule
/// alone offered `e` for `-` and `p.neon` for `nope.neon`: new user's trial.) Before that, and
/// whatever the name's length, a file whose name differs only in letter case, or in the order
/// of its extension's letters, or by one letter of its extension, is suggested (`Ok.neon`,
/// `ok.noen`, `ok.nen` for `ok.neon`).
fn similar_file(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let split = |n: &str| -> (String, String) {
        match n.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => (stem.to_string(), ext.to_lowercase()),
            _ => (n.to_string(), String::new()),
        }
    };
    let (stem, ext) = split(name);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // The files of the folder, read once; directory order differs between systems, and the
    // suggestion must not.
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    files.sort();
    // The name in other letter case (`Ok.neon`), or with its extension's letters mixed up
    // (`ok.noen`), whatever its length.
    if let Some(near) = near_spelling(&files, name, &stem, &ext, &split) {
        return Some(near.to_owned());
    }
    if stem.chars().count() < 3 {
        return None;
    }
    // The one file named as the missing one plus a suffix (`part12-renamed.neon` for
    // `part12.neon`): a file renamed, which the distance rule below misses for a sibling of
    // about the same name (a new user's trial was offered `part21.neon`).
    let renamed: Vec<&String> = files
        .iter()
        .filter(|n| {
            let (c_stem, c_ext) = split(n);
            c_ext == ext
                && c_stem.len() > stem.len()
                && c_stem.starts_with(stem.as_str())
                && c_stem[stem.len()..].starts_with(['-', '_', '.', ' ', '~'])
        })
        .collect();
    if let [only] = renamed.as_slice() {
        return Some(only.to_string());
    }
    let comparable = |candidate: &str| {
        let (c_stem, c_ext) = split(candidate);
        (ext.is_empty() || c_ext == ext)
            && c_stem.len() * 2 >= stem.len()
            && stem.len() * 2 >= c_stem.len()
    };
    let names: Vec<&String> = files.iter().filter(|n| comparable(n)).collect();
    // The names (whose extensions are the same) are compared by Nette's rule, and their
    // stems must be close by the same rule too, measured by the longer stem: on whole names
    // the distance allowed grows with the extension's length (`nope.neon` was close enough to
    // `bom.neon`), while `typo.neon` still finds `types.neon`.
    let stem_close = |candidate: &str| {
        let c_stem = split(candidate).0;
        let (longer, shorter) = if c_stem.len() > stem.len() {
            (c_stem.as_str(), stem.as_str())
        } else {
            (stem.as_str(), c_stem.as_str())
        };
        crate::diagnostics::suggest(longer, [shorter]).is_some()
    };
    let close: Vec<&str> = names
        .iter()
        .map(|n| n.as_str())
        .filter(|n| stem_close(n))
        .collect();
    crate::diagnostics::suggest(name, close).map(str::to_owned)
}

/// The first of `files` (sorted names of a folder's files) whose name is `name` in other
/// letter case, or has the same stem (any case) and an extension with the same letters in
/// another order or case.
fn near_spelling<'f>(
    files: &'f [String],
    name: &str,
    stem: &str,
    ext: &str,
    split: &dyn Fn(&str) -> (String, String),
) -> Option<&'f str> {
    let letters = |e: &str| {
        let mut l: Vec<char> = e.to_lowercase().chars().collect();
        l.sort_unstable();
        l
    };
    files
        .iter()
        .filter(|n| *n != name)
        .find(|n| {
            if n.eq_ignore_ascii_case(name) {
                return true;
            }
            let (c_stem, c_ext) = split(n);
            !ext.is_empty()
                && c_stem.eq_ignore_ascii_case(stem)
                && (letters(&c_ext) == letters(ext) || one_edit_apart(&c_ext, ext))
        })
        .map(String::as_str)
}

/// Whether two extensions of at least two letters differ by one letter added, dropped or
/// changed (`jsn` for `json`, `nen` for `neon`: a new user's trial got no suggestion for
/// `--catalog cat.jsn`).
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().min(b.len()) < 2 || a.len().abs_diff(b.len()) > 1 || a == b {
        return false;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let common = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        short[common + 1..] == long[common + 1..]
    } else {
        short[common..] == long[common + 1..]
    }
}

/// A configuration file's text and, when it is not valid UTF-8, its bytes (the text is then
/// the lossy conversion); see [`read_text`].
type ReadText = (String, Option<Vec<u8>>);

/// Reads a configuration file ([`crate::source::read_input_file`]). Valid UTF-8 (the usual
/// case) becomes the text without a copy, so the loader moves it into the source map and
/// decodes it from there; only invalid input keeps its bytes, for the decoder to point at the
/// first bad one.
fn read_text(path: &Path) -> std::io::Result<ReadText> {
    let bytes = crate::source::read_input_file(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let bytes = e.into_bytes();
            (String::from_utf8_lossy(&bytes).into_owned(), Some(bytes))
        }
    })
}

struct Loader<'a> {
    sources: &'a mut SourceMap,
    diags: &'a mut Diagnostics,
    stack: Vec<PathBuf>,
    files: Vec<FileId>,
    parameters: &'a IndexMap<String, Value>,
    /// Included files being read and decoded ahead (see [`prefetch`]).
    prefetch: prefetch::Prefetch,
    /// Files decoded by earlier compilations ([`load_keeping`]).
    kept: Option<&'a DecodedFiles>,
    /// Whether loading stopped at [`MAX_INCLUDED_FILES`] or at the memory ceiling (reported
    /// once; every later include is skipped).
    stopped: bool,
    /// Whether a large `types:` include may be left to decode while loading goes on
    /// ([`deferred`]).
    defer: deferred::Defer,
}

/// The path an `includes:` item `written` in a file of folder `dir` names: relative paths are
/// relative to the including file's folder (Nette's `Loader::expandIncludedFile`).
fn include_target(dir: Option<&Path>, written: &str) -> PathBuf {
    match dir {
        Some(d) if !Path::new(written).is_absolute() => {
            crate::source::normalize_path(&d.join(written))
        }
        _ => PathBuf::from(written),
    }
}

impl<'a> Loader<'a> {
    fn new(
        sources: &'a mut SourceMap,
        diags: &'a mut Diagnostics,
        parameters: &'a IndexMap<String, Value>,
        kept: Option<&'a DecodedFiles>,
    ) -> Loader<'a> {
        Loader {
            sources,
            diags,
            stack: Vec::new(),
            files: Vec::new(),
            parameters,
            prefetch: prefetch::Prefetch::default(),
            kept,
            stopped: false,
            defer: deferred::Defer::Off,
        }
    }

    fn load_file(&mut self, path: &Path, from: Option<Span>) -> Option<Array> {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if self.stack.contains(&canonical) {
            // Relative to the working folder, as the other diagnostics name files.
            let here = std::env::current_dir().and_then(std::fs::canonicalize).ok();
            let chain: Vec<String> = self
                .stack
                .iter()
                .chain(std::iter::once(&canonical))
                .map(|p| {
                    here.as_deref()
                        .and_then(|h| p.strip_prefix(h).ok())
                        .unwrap_or(p)
                        .display()
                        .to_string()
                })
                .collect();
            self.diags.push(
                Diagnostic::error(
                    Code::CircularInclude,
                    format!("Recursive included file '{}'", path.display()),
                )
                .at(from)
                .with_note(format!("include chain: {}", chain.join(" -> "))),
            );
            return None;
        }
        if self.stopped {
            return None;
        }
        // Checked before each file, not only after the whole reading: a configuration that
        // includes a lot passed a 1 GB ceiling by 1.7 GB before the stage's check (a trial).
        if crate::memory::exceeded() {
            self.stopped = true;
            self.diags.push(
                crate::memory::limit_error("reading the configuration")
                    .at(from)
                    .with_note(format!("{} file(s) read so far", self.files.len())),
            );
            return None;
        }
        if self.files.len() >= MAX_INCLUDED_FILES {
            self.stopped = true;
            self.diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "Too many included files: '{}' would be file {} of this configuration, the limit is {MAX_INCLUDED_FILES}.",
                        path.display(),
                        self.files.len() + 1
                    ),
                )
                .at(from)
                .with_note(
                    "each inclusion counts, a file included twice twice: look for files that \
                     include the same file more than once",
                ),
            );
            return None;
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            self.diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "Includes are nested too deep: '{}' is at level {}, the limit is {MAX_INCLUDE_DEPTH}.",
                        path.display(),
                        self.stack.len() + 1
                    ),
                )
                .at(from),
            );
            return None;
        }
        let (read, ahead) = match self.prefetch.take(path) {
            Some(fetched) => (fetched.read, fetched.decoded),
            None => (read_text(path), None),
        };
        let (text, invalid) = match read {
            Ok(read) => read,
            Err(e) => {
                let mut d = unreadable_file(path, &e).at(from);
                // Where an include was looked for, as the missing-extension error says (a new
                // user's trial saw only the name as written).
                if from.is_some() && e.kind() == std::io::ErrorKind::NotFound {
                    if let Ok(at) = std::path::absolute(path) {
                        d = d.with_note(format!(
                            "looked for {} (an include is relative to the folder of the file \
                             that includes it)",
                            at.display()
                        ));
                    }
                }
                self.diags.push(d);
                self.sources.note_missing(path);
                return None;
            }
        };
        // An included plan file: that, not a page of NEON errors about its JSON keys.
        let head = invalid.as_deref().unwrap_or(text.as_bytes());
        if let Some(d) = plan_guard::plan_bytes_hint(path, head) {
            self.diags.push(d.at(from));
            return None;
        }
        let id = self
            .sources
            .add_path(path.display().to_string(), &canonical, text);
        self.files.push(id);
        let text = &self.sources.get(id).text;
        let kept = match (&invalid, self.kept) {
            (None, Some(store)) => store.get(&canonical, text, id),
            _ => None,
        };
        if invalid.is_none() {
            // The files this one includes are read and decoded while it is decoded.
            let includes = prefetch::scan_includes(text);
            // A deferring loader takes the root's `types:` files in the lighter decode.
            self.prefetch.lighter =
                self.stack.is_empty() && matches!(self.defer, deferred::Defer::Open);
            self.prefetch
                .start(includes, path.parent(), FileId(id.0 + 1), self.kept);
        }
        // Whether the file's tree can hold a `!` marker, read from its text before the text is
        // decoded (a bad encoding's bytes are decoded apart: walked as before).
        let unmarked = invalid.is_none() && merge::unmarked_text(text);
        let fresh = kept.is_none() && invalid.is_none();
        let decoded = match (invalid, ahead, kept) {
            (_, _, Some(value)) => Ok(value),
            (Some(bytes), _, _) => neon::decode_bytes(&bytes, id),
            // Decoded ahead with the id the file got.
            (None, Some((file, result)), _) if file == id => result,
            (None, _, _) => neon::decode(text, id),
        };
        if let (true, Some(store), Ok(_)) = (fresh, self.kept, &decoded) {
            store.keep(&canonical, text, id);
        }
        self.stack.push(canonical);
        let value = match decoded {
            Ok(v) => Some(v),
            Err(d) => {
                self.diags.push(d);
                None
            }
        };
        let result = value.and_then(|v| self.process(v, path.parent(), unmarked));
        self.stack.pop();
        result
    }

    fn load_decoded(&mut self, id: FileId, dir: Option<&Path>) -> Option<Array> {
        let text = &self.sources.get(id).text;
        let unmarked = merge::unmarked_text(text);
        let decoded = neon::decode(text, id);
        match decoded {
            Ok(v) => self.process(v, dir, unmarked),
            Err(d) => {
                self.diags.push(d);
                None
            }
        }
    }

    /// Takes a decoded file: loads its includes, normalises it, and merges it over them.
    /// `unmarked`: its text cannot hold a `!` marker ([`merge::unmarked_text`]), so the merge
    /// does not walk its tree for one.
    fn process(&mut self, value: Value, dir: Option<&Path>, unmarked: bool) -> Option<Array> {
        let mut data = match value.kind {
            Kind::Array(a) if a.is_list() && !a.is_empty() => {
                self.diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        "The configuration file must contain a mapping of sections, not a list.",
                    )
                    .with_primary(value.span, "expected sections such as `services:`"),
                );
                return None;
            }
            Kind::Array(a) => *a,
            Kind::Null => Array::new(),
            _ => {
                self.diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        "The configuration file must contain a mapping of sections.",
                    )
                    .with_primary(value.span, "expected sections such as `services:`"),
                );
                return None;
            }
        };
        if !unmarked {
            self.diags.extend(merge::misplaced_markers(&data));
        }
        let mut merged = Array::new();
        if let Some(entry) = data.entries.shift_remove(&Key::Str("includes".into())) {
            // In the list's order: an item that is no path is reported in its turn.
            for item in self.include_paths(&entry.value) {
                let (path_value, span) = match item {
                    Ok(path) => path,
                    Err(d) => {
                        self.diags.push(d);
                        continue;
                    }
                };
                let target = include_target(dir, &path_value);
                if self.defer_types(&target, &merged, &data) {
                    continue;
                }
                if let Some(included) = self.load_file(&target, Some(span)) {
                    merged = merge::merge_clean(merged, included);
                }
            }
        }
        Some(match unmarked {
            true => merge::merge_unmarked(merged, data),
            false => merge::merge_arrays(merged, data),
        })
    }

    /// The paths of an `includes:` list, each with its span, or the error of an item that is
    /// none, in the list's order.
    fn include_paths(&self, includes: &Value) -> Vec<Result<(String, Span), Diagnostic>> {
        let mut out = Vec::new();
        match &includes.kind {
            Kind::Array(a) if a.is_list() => {
                for v in a.values() {
                    out.push(match v.as_str() {
                        Some("") => Err(Diagnostic::error(
                            Code::InvalidValue,
                            "An include path is empty.",
                        )
                        .with_primary(v.span, "expected a file path")),
                        Some(s) => match placeholders::expand_path(s, self.parameters) {
                            Ok(p) => Ok((p, v.span)),
                            Err(d) => Err(d.with_primary(v.span, "in this include path")),
                        },
                        None => Err(Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "The item 'includes' expects to be a list of file paths, {} given.",
                                v.type_name()
                            ),
                        )
                        .with_primary(v.span, "expected a path")),
                    });
                }
            }
            Kind::Null => {}
            _ => out.push(Err(Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "The item 'includes' expects to be list, {} given.",
                    includes.type_name()
                ),
            )
            .with_primary(includes.span, "expected a list of paths"))),
        }
        out
    }
}
