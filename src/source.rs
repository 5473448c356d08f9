//! Source files and byte spans.
//!
//! Every file wireplan reads (NEON configs, Rhai scripts) is registered in a [`SourceMap`] and
//! gets a [`FileId`]. Positions are kept as byte offsets ([`Span`]); lines and columns are only
//! computed when a diagnostic is rendered. Columns are counted in **bytes**, 1-based, like the
//! reference NEON decoder (nette/neon 3.4) reports them.

use std::ops::Range;
use std::path::{Path, PathBuf};

/// Removes `.` and resolves `..` components lexically (without touching the file system), so
/// `config/../scripts/x.rhai` is shown as `scripts/x.rhai`. A leading `..` that cannot be
/// resolved is kept.
pub fn normalize_path(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                match last {
                    Some(Component::Normal(_)) => {
                        out.pop();
                    }
                    Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                    _ => out.push(".."),
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// The name of the source the REPL registers for its transcript (`<session>:4:9` in
/// diagnostics); [`crate::inspect`] reads it to say a change was made at the prompt.
pub const SESSION_SOURCE: &str = "<session>";

/// The largest input file wireplan reads, in bytes (64 MiB).
pub const MAX_FILE_SIZE: u64 = 64 << 20;

/// Why [`read_input_file`] refuses a pipe, a socket or a device (`/dev/stdin`, a process
/// substitution): it could block or never end.
pub const NOT_A_REGULAR_FILE: &str =
    "it is not a regular file (a pipe or a device, which could block or never end)";

/// For a file not found at `path`: when the path holds a `\\` (written on Windows, where it
/// separates folders) on a system where it is an ordinary character, a note that says to write
/// `/`, naming the path so written when that file is there. `None` on Windows and for paths
/// without a `\\` (a mixed team's trial: `'sub dir\\services.neon'` was only "missing").
pub fn backslash_note(path: &std::path::Path) -> Option<String> {
    if cfg!(windows) {
        return None;
    }
    let written = path.to_str()?;
    if !written.contains('\\') {
        return None;
    }
    let slashed = written.replace('\\', "/");
    Some(if std::path::Path::new(&slashed).exists() {
        format!("`\\` separates folders only on Windows; with `/`, which works on every system, the path names a file that is there: '{slashed}'")
    } else {
        "`\\` separates folders only on Windows; write paths with `/`, which works on every system"
            .to_string()
    })
}

/// Whether `err` is [`read_input_file`]'s refusal of a pipe, a socket or a device.
pub fn is_not_a_regular_file(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::InvalidInput && err.to_string() == NOT_A_REGULAR_FILE
}

/// Why [`read_input_file`] refuses a file of `/proc` or `/sys`.
pub const A_SYSTEM_FILE: &str =
    "it is a file of the operating system (/proc or /sys: the process's environment, memory or \
     settings), not a configuration";

/// Reads an input file: only regular files (a FIFO or a device such as `/dev/zero` would
/// block or never end) of at most [`MAX_FILE_SIZE`] bytes, and on Linux none of `/proc` or
/// `/sys`, which look like regular files but show the process's environment and the system's
/// state (an include of `/proc/self/environ` printed a CI job's secrets in its excerpt; a new
/// user's trial). Errors read like the OS's.
pub fn read_input_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            if meta.is_dir() {
                "it is a directory"
            } else {
                NOT_A_REGULAR_FILE
            },
        ));
    }
    #[cfg(target_os = "linux")]
    if on_system_filesystem(path) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            A_SYSTEM_FILE,
        ));
    }
    if meta.len() > MAX_FILE_SIZE {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is larger than {} MiB", MAX_FILE_SIZE >> 20),
        ));
    }
    std::fs::read(path)
}

/// Whether `path` is on a proc or sysfs file system (`statfs`'s type), where every file is the
/// kernel's view of a process or of the system.
#[cfg(target_os = "linux")]
fn on_system_filesystem(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const PROC_SUPER_MAGIC: i64 = 0x9fa0;
    const SYSFS_MAGIC: i64 = 0x6265_6572;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `statfs` reads the NUL-terminated path and fills the zeroed struct it is given.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c_path.as_ptr(), &mut fs) } != 0 {
        return false;
    }
    #[allow(clippy::unnecessary_cast)]
    let kind = fs.f_type as i64;
    kind == PROC_SUPER_MAGIC || kind == SYSFS_MAGIC
}

/// Identifies one file in a [`SourceMap`]. Ids are dense indexes in registration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` inside one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file the range belongs to.
    pub file: FileId,
    /// Offset of the first byte.
    pub start: u32,
    /// Offset one past the last byte (equal to `start` for an empty span).
    pub end: u32,
}

impl Span {
    /// A span over `start..end` in `file`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The byte range as `usize` offsets.
    pub fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering both `self` and `other` (same file assumed).
    pub fn to(&self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One registered source file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The name shown in diagnostics (the path as the user gave it, or relative to it).
    pub name: String,
    /// The path on disk, when the file came from disk.
    pub path: Option<PathBuf>,
    /// The full text. Invalid UTF-8 input is stored lossily; the NEON decoder reports it.
    pub text: String,
    /// Where each line starts (byte offsets; sources are at most 4 GiB, as spans), worked
    /// out the first time a position is asked for: most files of a compilation that succeeds
    /// never are (app-10000's 780 KB class file has 40,000 lines).
    line_starts: std::sync::OnceLock<Vec<u32>>,
    /// Whether the file was read from bytes that are not UTF-8 ([`SourceMap::add_path_bytes`]):
    /// the text is then their lossy conversion, kept for excerpts, and must not be read as what
    /// the file says.
    pub not_utf8: bool,
}

impl SourceFile {
    fn new(name: String, path: Option<PathBuf>, text: String) -> SourceFile {
        SourceFile {
            name,
            path,
            text,
            line_starts: std::sync::OnceLock::new(),
            not_utf8: false,
        }
    }

    /// Where each line starts, made on first use.
    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            // A UTF-8 byte order mark is not part of line 1: columns count from after it, as
            // nette/neon's do (it strips the mark when it reads a file), and snippets omit it.
            let first = if self.text.starts_with('\u{feff}') {
                3
            } else {
                0
            };
            // memchr finds the line breaks several bytes at a time; counted first, the table
            // is allocated once at its size.
            let bytes = self.text.as_bytes();
            let mut starts = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
            starts.push(first);
            starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| (i + 1) as u32));
            starts
        })
    }

    /// 0-based line index of a byte offset.
    pub fn line_index(&self, byte: usize) -> usize {
        match self
            .line_starts()
            .binary_search(&(byte.min(u32::MAX as usize) as u32))
        {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Byte offset where 0-based line `line` starts (clamped to the end of the text).
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts()
            .get(line)
            .map_or(self.text.len(), |&s| s as usize)
    }

    /// 1-based line and 1-based **byte** column of a byte offset.
    pub fn line_col(&self, byte: usize) -> (usize, usize) {
        let byte = byte.min(self.text.len());
        let line = self.line_index(byte);
        (
            line + 1,
            byte.saturating_sub(self.line_starts()[line] as usize) + 1,
        )
    }

    /// 1-based line and 1-based column in **characters** of byte offset `byte`: where an editor
    /// puts the cursor for `FILE:LINE:COLUMN`, which the rendered diagnostics print (rustc
    /// counts so too; a byte column sent a click on `app.neon:5:70` past the end of a line
    /// of Czech and Japanese text, a new user's trial). [`SourceFile::line_col`] counts bytes,
    /// as the JSON forms and the plan do.
    pub fn line_char_col(&self, byte: usize) -> (usize, usize) {
        let mut byte = byte.min(self.text.len());
        while !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        let line = self.line_index(byte);
        let start = (self.line_starts()[line] as usize).min(byte);
        (line + 1, self.text[start..byte].chars().count() + 1)
    }

    /// Byte offset of 1-based `line` and 1-based **character** column (as Rhai reports them).
    pub fn offset_of_char_pos(&self, line: usize, col: usize) -> usize {
        let start = self.line_start(line.saturating_sub(1));
        let rest = &self.text[start..];
        let line_text = rest.split('\n').next().unwrap_or("");
        let skip = col.saturating_sub(1);
        match line_text.char_indices().nth(skip) {
            Some((i, _)) => start + i,
            None => start + line_text.len(),
        }
    }
}

/// All source files of one compilation, addressable by [`FileId`].
///
/// Implements [`codespan_reporting::files::Files`] so diagnostics render with snippets; the
/// reported column is counted in bytes.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    /// Files the compilation looked for and could not read (see [`SourceMap::note_missing`]).
    missing: Vec<PathBuf>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Records that the compilation tried to read `path` (an include, an extension script, a
    /// file a script loads) and could not: `--watch` watches it, so creating it recompiles.
    pub fn note_missing(&mut self, path: &Path) {
        self.missing.push(path.to_path_buf());
    }

    /// The files the compilation looked for and could not read, in the order it tried them.
    pub fn missing(&self) -> &[PathBuf] {
        &self.missing
    }

    /// The id the next file registered gets (to point diagnostics about a file at it before
    /// the file is added).
    pub fn next_id(&self) -> FileId {
        FileId(self.files.len() as u32)
    }

    /// Registers a text under a display `name` and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files
            .push(SourceFile::new(name.into(), None, text.into()));
        id
    }

    /// Registers the bytes read from `path`, shown under `name`: as [`SourceMap::add_path`]
    /// when they are UTF-8; otherwise their lossy text, marked [`SourceFile::not_utf8`] (the
    /// caller reports them, e.g. with [`crate::neon::utf8_error`]).
    pub fn add_path_bytes(
        &mut self,
        name: impl Into<String>,
        path: &Path,
        bytes: Vec<u8>,
    ) -> FileId {
        match String::from_utf8(bytes) {
            Ok(text) => self.add_path(name, path, text),
            Err(e) => {
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let id = self.add_path(name, path, text);
                if let Some(f) = self.files.get_mut(id.0 as usize) {
                    f.not_utf8 = true;
                }
                id
            }
        }
    }

    /// Registers a text read from `path`, shown under `name`.
    pub fn add_path(&mut self, name: impl Into<String>, path: &Path, text: String) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files
            .push(SourceFile::new(name.into(), Some(path.to_path_buf()), text));
        id
    }

    /// Gives the file `id` its text, registered before it was read (an include whose reading
    /// went on while loading did: `config::DeferredTypes`). An unknown id changes nothing.
    pub fn set_text(&mut self, id: FileId, text: String) {
        if let Some(f) = self.files.get_mut(id.0 as usize) {
            *f = SourceFile::new(std::mem::take(&mut f.name), f.path.take(), text);
        }
    }

    /// The file behind `id`. An id from another map (a programming error) gets an empty file
    /// named `<unknown source>`, so that a misplaced span costs a diagnostic its excerpt,
    /// never the process.
    pub fn get(&self, id: FileId) -> &SourceFile {
        static UNKNOWN: std::sync::OnceLock<SourceFile> = std::sync::OnceLock::new();
        self.files.get(id.0 as usize).unwrap_or_else(|| {
            UNKNOWN.get_or_init(|| SourceFile::new("<unknown source>".into(), None, String::new()))
        })
    }

    /// Finds a file already registered for `path`.
    pub fn find_path(&self, path: &Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path.as_deref() == Some(path))
            .map(|i| FileId(i as u32))
    }

    /// All files in registration order.
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// The text covered by a span.
    pub fn slice(&self, span: Span) -> &str {
        let f = self.get(span.file);
        f.text.get(span.range()).unwrap_or("")
    }
}

impl<'a> codespan_reporting::files::Files<'a> for SourceMap {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, codespan_reporting::files::Error> {
        self.files
            .get(id.0 as usize)
            .map(|f| f.name.as_str())
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, codespan_reporting::files::Error> {
        self.files
            .get(id.0 as usize)
            .map(|f| f.text.as_str())
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }

    fn line_index(
        &'a self,
        id: FileId,
        byte_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        let f = self
            .files
            .get(id.0 as usize)
            .ok_or(codespan_reporting::files::Error::FileMissing)?;
        Ok(f.line_index(byte_index.min(f.text.len())))
    }

    fn line_range(
        &'a self,
        id: FileId,
        line_index: usize,
    ) -> Result<Range<usize>, codespan_reporting::files::Error> {
        let f = self
            .files
            .get(id.0 as usize)
            .ok_or(codespan_reporting::files::Error::FileMissing)?;
        let lines = f.line_starts().len();
        if line_index >= lines {
            return Err(codespan_reporting::files::Error::LineTooLarge {
                given: line_index,
                max: lines - 1,
            });
        }
        Ok(f.line_start(line_index)..f.line_start(line_index + 1))
    }

    fn location(
        &'a self,
        id: FileId,
        byte_index: usize,
    ) -> Result<codespan_reporting::files::Location, codespan_reporting::files::Error> {
        let f = self
            .files
            .get(id.0 as usize)
            .ok_or(codespan_reporting::files::Error::FileMissing)?;
        let (line_number, column_number) = f.line_char_col(byte_index);
        Ok(codespan_reporting::files::Location {
            line_number,
            column_number,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_lexically() {
        assert_eq!(
            normalize_path(Path::new("examples/blog/config/../../../scripts/x.rhai")),
            PathBuf::from("scripts/x.rhai")
        );
        assert_eq!(
            normalize_path(Path::new("../a/./b")),
            PathBuf::from("../a/b")
        );
        assert_eq!(normalize_path(Path::new("/a/../../b")), PathBuf::from("/b"));
    }

    #[test]
    fn char_positions_become_byte_offsets() {
        let mut sm = SourceMap::new();
        let id = sm.add("x", "ab\nčd e\n");
        assert_eq!(sm.get(id).offset_of_char_pos(2, 3), 6);
        assert_eq!(sm.get(id).line_col(6), (2, 4));
    }

    #[test]
    fn a_byte_order_mark_is_not_counted_in_columns() {
        let mut sm = SourceMap::new();
        let id = sm.add("x", "\u{feff}a: b: c\nd\n");
        assert_eq!(sm.get(id).line_col(4), (1, 2));
        assert_eq!(sm.get(id).line_col(11), (2, 1));
    }
}
