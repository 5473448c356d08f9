//! Decoded files kept between the compilations of one process (issue #15, "Rebuilds"): a
//! `--watch` session recompiles after every edit, and a large file that did not change (the
//! usual `types.neon` catalog next to an edited configuration) is not decoded again.
//!
//! A kept file is used only when its text is byte for byte the text read now and it gets the
//! same [`FileId`] as when it was kept (its spans name that id). Anything else is decoded as
//! usual, so results and diagnostics are the same as without the store; only files that
//! decoded without error are kept.

use crate::neon::Value;
use crate::source::FileId;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bytes a file must have to be kept: a smaller file decodes in less time than a copy of its
/// tree costs to keep (app-10000's files are 345 KB and 780 KB; app-1000's 37 KB and 76 KB).
pub const KEEP_MIN: usize = 64 * 1024;

/// Decoded files by canonical path, shared by the compilations that use it (through
/// [`crate::compiler::Options::decoded`]). Holds each kept file's text and a copy of its
/// decoded tree: about the size of the tree again in memory.
#[derive(Default)]
pub struct DecodedFiles {
    files: Mutex<HashMap<PathBuf, Kept>>,
}

/// One kept file.
struct Kept {
    text: String,
    file: FileId,
    value: Value,
}

impl std::fmt::Debug for DecodedFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.files.lock().map_or(0, |m| m.len());
        write!(f, "DecodedFiles({count} files)")
    }
}

impl DecodedFiles {
    /// An empty store.
    pub fn new() -> DecodedFiles {
        DecodedFiles::default()
    }

    /// A copy of the tree kept for `path` when it was decoded from exactly `text` with spans
    /// in `file`.
    pub(super) fn get(&self, path: &Path, text: &str, file: FileId) -> Option<Value> {
        let files = self.files.lock().ok()?;
        let kept = files.get(path)?;
        (kept.file == file && kept.text == text).then(|| kept.value.clone())
    }

    /// Keeps a copy of `value`, decoded from `text` with spans in `file`, for `path`, when the
    /// text is at least [`KEEP_MIN`] bytes (replacing what was kept for it).
    pub(super) fn keep(&self, path: &Path, text: &str, file: FileId, value: &Value) {
        if text.len() < KEEP_MIN {
            return;
        }
        if let Ok(mut files) = self.files.lock() {
            files.insert(
                path.to_path_buf(),
                Kept {
                    text: text.to_string(),
                    file,
                    value: value.clone(),
                },
            );
        }
    }

    /// Forgets the files not in `read` (canonical paths; a compilation's `files`): a file no
    /// longer included is not held for the rest of the session.
    pub fn retain_only(&self, read: &[PathBuf]) {
        if let Ok(mut files) = self.files.lock() {
            files.retain(|path, _| read.contains(path));
        }
    }

    /// Whether something is kept for `path` (an include kept is not decoded ahead: the loader
    /// will most likely take the kept tree).
    pub(super) fn has(&self, path: &Path) -> bool {
        self.files.lock().is_ok_and(|m| m.contains_key(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Diagnostics;
    use crate::source::SourceMap;

    /// A `types.neon` of `n` classes: above [`KEEP_MIN`] from about 2,000.
    fn types(n: usize, marker: &str) -> String {
        let mut text = String::from("types:\n");
        for i in 0..n {
            text.push_str(&format!("\tApp\\{marker}{i}:\n\t\textends: App\\Base\n"));
        }
        text
    }

    /// Loads `root` (with `kept`): the merged configuration, as text, and the diagnostics.
    fn load(root: &Path, kept: Option<&DecodedFiles>) -> (String, usize) {
        let mut sources = SourceMap::new();
        let mut diags = Diagnostics::new();
        let raw =
            super::super::load_keeping(root, &Default::default(), &mut sources, &mut diags, kept);
        (format!("{:?}", raw.sections), diags.len())
    }

    #[test]
    fn an_unchanged_file_is_taken_and_a_changed_one_decoded_again() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("config.neon");
        let include = dir.path().join("types.neon");
        std::fs::write(
            &root,
            "includes:\n\t- types.neon\nservices:\n\ta: App\\C1\n",
        )
        .expect("w");
        std::fs::write(&include, types(3000, "C")).expect("write");
        let canonical = std::fs::canonicalize(&include).expect("canonical");
        let store = DecodedFiles::new();
        let cold = load(&root, Some(&store));
        assert_eq!(cold, load(&root, None));
        assert!(cold.0.contains("App\\\\C2999"), "{}", &cold.0[..200]);
        assert!(store.has(&canonical));
        assert!(!store.has(&std::fs::canonicalize(&root).expect("canonical")));
        // The same text under the same id: what is kept is taken (a stand-in proves it).
        let text = std::fs::read_to_string(&include).expect("read");
        let stand_in = crate::neon::decode(&types(3, "Kept"), FileId(1)).expect("decodes");
        store.keep(&canonical, &text, FileId(1), &stand_in);
        let warm = load(&root, Some(&store));
        assert!(warm.0.contains("App\\\\Kept2") && !warm.0.contains("App\\\\C2999"));
        // The include edited: decoded again, and kept again.
        std::fs::write(&include, types(2500, "D")).expect("write");
        let edited = load(&root, Some(&store));
        assert_eq!(edited, load(&root, None));
        assert!(edited.0.contains("App\\\\D2499") && !edited.0.contains("Kept"));
        assert_eq!(load(&root, Some(&store)), edited);
        // No longer read: forgotten.
        store.retain_only(std::slice::from_ref(&canonical));
        assert!(store.has(&canonical));
        store.retain_only(&[]);
        assert!(!store.has(&canonical));
    }

    #[test]
    fn a_file_with_another_id_is_decoded_again() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("config.neon");
        let include = dir.path().join("types.neon");
        std::fs::write(dir.path().join("small.neon"), "parameters:\n\tp: 1\n").expect("w");
        std::fs::write(&root, "includes:\n\t- types.neon\n").expect("write");
        std::fs::write(&include, types(3000, "C")).expect("write");
        let store = DecodedFiles::new();
        load(&root, Some(&store));
        // Another include first: `types.neon` is file 2 now, its kept spans name file 1.
        std::fs::write(&root, "includes:\n\t- small.neon\n\t- types.neon\n").expect("write");
        let shifted = load(&root, Some(&store));
        assert_eq!(shifted, load(&root, None));
        assert!(
            shifted.0.contains("file: FileId(2)"),
            "{}",
            &shifted.0[..400]
        );
    }

    #[test]
    fn small_files_and_errors_are_not_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("config.neon");
        std::fs::write(&root, "services:\n\ta: App\\C1\n").expect("write");
        let store = DecodedFiles::new();
        load(&root, Some(&store));
        assert!(!store.has(&std::fs::canonicalize(&root).expect("canonical")));
        let mut broken = types(3000, "C");
        broken.push_str("\tx: [\n");
        std::fs::write(&root, &broken).expect("write");
        let (_, errors) = load(&root, Some(&store));
        assert_eq!(errors, 1);
        assert!(!store.has(&std::fs::canonicalize(&root).expect("canonical")));
    }
}
