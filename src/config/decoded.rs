//! What one process keeps between its compilations (issue #15, "Rebuilds"): a `--watch`
//! session recompiles after every edit, and what did not change is not built again.
//!
//! - **Decoded files.** A large file that did not change (the usual `types.neon` catalog next
//!   to an edited configuration) is not decoded again. A kept file is used only when its text
//!   is byte for byte the text read now and it gets the same [`FileId`] as when it was kept
//!   (its spans name that id). Only files that decoded without error are kept.
//! - **The catalog of the `types:` section.** When the merged `types:` section is the one an
//!   earlier compilation built its catalog from, value for value, span for span and in the
//!   same order, that catalog is taken again instead of being built. A catalog is kept only
//!   when its section used no `%parameter%` (so it does not depend on the parameters) and
//!   neither its expansion nor the catalog reported anything (so there is nothing to report
//!   again).
//!
//! Anything else is built as usual, so results and diagnostics are those of a compilation
//! without the store. The copies a compilation takes are made beforehand, between
//! compilations ([`DecodedFiles::prepare`]), and what a compilation no longer needs is freed
//! there too, so a recompilation neither copies nor frees the large trees.

use crate::catalog::Catalog;
use crate::neon::{Array, Entity, Kind, Value};
use crate::source::FileId;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Bytes a file must have to be kept: a smaller file decodes in less time than a copy of its
/// tree costs to keep (app-10000's files are 345 KB and 780 KB; app-1000's 37 KB and 76 KB).
pub const KEEP_MIN: usize = 64 * 1024;

/// Trees left to free at most ([`DecodedFiles::discard`]): a compilation leaves one or two.
const LITTER_MAX: usize = 4;

/// Decoded files by canonical path and the catalog of the last `types:` section, shared by
/// the compilations that use it (through [`crate::compiler::Options::decoded`]). Holds each
/// kept file's text and a copy of its decoded tree, up to one spare copy of it, and the raw
/// `types:` section the kept catalog was built from: about two to three times the size of the
/// trees.
#[derive(Default)]
pub struct DecodedFiles {
    files: Mutex<HashMap<PathBuf, Kept>>,
    catalog: Mutex<Option<KeptCatalog>>,
    /// Trees a compilation no longer needs, freed by [`DecodedFiles::prepare`].
    litter: Mutex<Vec<Value>>,
}

/// One kept file.
struct Kept {
    text: String,
    file: FileId,
    /// Its decoded tree: decoded again from `text` by [`DecodedFiles::prepare`] (a copy made
    /// while compiling would cost the compilation that decoded it; and the file most likely to
    /// be decoded again is the one just edited).
    value: Option<Value>,
    /// A copy of `value` made between compilations, handed out instead of a new copy.
    spare: Option<Value>,
}

/// The catalog of the last `types:` section built without parameters or diagnostics.
struct KeptCatalog {
    /// The merged `types:` section as read (before expansion).
    raw: Value,
    catalog: Arc<Catalog>,
}

impl std::fmt::Debug for DecodedFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.files.lock().map_or(0, |m| m.len());
        let catalog = self.catalog.lock().is_ok_and(|c| c.is_some());
        write!(f, "DecodedFiles({count} files, catalog kept: {catalog})")
    }
}

impl DecodedFiles {
    /// An empty store.
    pub fn new() -> DecodedFiles {
        DecodedFiles::default()
    }

    /// A copy of the tree kept for `path` when it was decoded from exactly `text` with spans
    /// in `file` (the spare one when [`DecodedFiles::prepare`] made it). None before `prepare`
    /// decoded it.
    pub(super) fn get(&self, path: &Path, text: &str, file: FileId) -> Option<Value> {
        let mut files = self.files.lock().ok()?;
        let kept = files.get_mut(path)?;
        if kept.file != file || kept.text != text {
            return None;
        }
        kept.spare.take().or_else(|| kept.value.clone())
    }

    /// Keeps `text`, decoded without error with spans in `file`, for `path`, when it is at
    /// least [`KEEP_MIN`] bytes (replacing what was kept for it). Its tree is made by
    /// [`DecodedFiles::prepare`].
    pub(super) fn keep(&self, path: &Path, text: &str, file: FileId) {
        if text.len() < KEEP_MIN {
            return;
        }
        if let Ok(mut files) = self.files.lock() {
            // Held for later compilations, not needed by this one.
            crate::memory::allow(text.len());
            let old = files.insert(
                path.to_path_buf(),
                Kept {
                    text: text.to_string(),
                    file,
                    value: None,
                    spare: None,
                },
            );
            self.discard(old.into_iter().flat_map(|k| [k.value, k.spare]).flatten());
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
        self.files
            .lock()
            .is_ok_and(|m| m.get(path).is_some_and(|k| k.value.is_some()))
    }

    /// The work a recompilation would otherwise do, done between compilations (`--watch` calls
    /// it after reporting a result): the tree of every file kept since, a spare copy of every
    /// kept tree that lacks one, and the trees the last compilation left here freed. Without
    /// it, files kept since the last call are decoded again, and a kept tree is copied when
    /// it is taken.
    pub fn prepare(&self) {
        if let Ok(mut litter) = self.litter.lock() {
            litter.clear();
        }
        if let Ok(mut files) = self.files.lock() {
            for kept in files.values_mut() {
                if kept.value.is_none() {
                    // It decoded without error when it was kept.
                    kept.value = crate::neon::decode(&kept.text, kept.file).ok();
                }
                if let (None, Some(value)) = (&kept.spare, &kept.value) {
                    kept.spare = Some(value.clone());
                }
            }
        }
    }

    /// The kept catalog when `raw`, a merged `types:` section as read, is identical to the one
    /// it was built from ([`identical`]).
    pub(crate) fn catalog_for(&self, raw: &Value) -> Option<Arc<Catalog>> {
        let kept = self.catalog.lock().ok()?;
        let kept = kept.as_ref()?;
        identical(&kept.raw, raw).then(|| Arc::clone(&kept.catalog))
    }

    /// Keeps `catalog`, built from `raw` (a merged `types:` section as read) without reading
    /// a parameter and without a diagnostic, for the next compilation (replacing what was
    /// kept).
    pub(crate) fn keep_catalog(&self, raw: Value, catalog: Arc<Catalog>) {
        if let Ok(mut kept) = self.catalog.lock() {
            let old = kept.replace(KeptCatalog { raw, catalog });
            drop(kept);
            self.discard(old.map(|k| k.raw));
        }
    }

    /// Forgets the kept catalog (its `types:` section changed, or it reported something).
    pub(crate) fn forget_catalog(&self) {
        if let Ok(mut kept) = self.catalog.lock() {
            let old = kept.take();
            drop(kept);
            self.discard(old.map(|k| k.raw));
        }
    }

    /// Leaves `trees` to be freed by [`DecodedFiles::prepare`] (a compilation that no longer
    /// needs a large tree does not spend its time freeing it). For a user that never calls
    /// `prepare`, what is left is freed here once it holds [`LITTER_MAX`] trees.
    pub(crate) fn discard(&self, trees: impl IntoIterator<Item = Value>) {
        let Ok(mut litter) = self.litter.lock() else {
            return;
        };
        let full = if litter.len() >= LITTER_MAX {
            std::mem::take(&mut *litter)
        } else {
            Vec::new()
        };
        litter.extend(trees);
        drop(litter);
        drop(full);
    }
}

/// Whether two trees are the same, value for value, span for span, key for key and in the same
/// order (`Value`'s `==` ignores spans and order).
fn identical(a: &Value, b: &Value) -> bool {
    a.span == b.span
        && stacker::maybe_grow(64 * 1024, 1024 * 1024, || match (&a.kind, &b.kind) {
            (Kind::Null, Kind::Null) => true,
            (Kind::Bool(x), Kind::Bool(y)) => x == y,
            (Kind::Int(x), Kind::Int(y)) => x == y,
            (Kind::Float(x), Kind::Float(y)) => x.to_bits() == y.to_bits(),
            (Kind::Str(x), Kind::Str(y)) => x == y,
            (Kind::Date(x), Kind::Date(y)) => x == y,
            (Kind::Array(x), Kind::Array(y)) => identical_arrays(x, y),
            (Kind::Entity(x), Kind::Entity(y)) => identical_entities(x, y),
            (Kind::Chain(x), Kind::Chain(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| identical_entities(x, y))
            }
            _ => false,
        })
}

fn identical_arrays(a: &Array, b: &Array) -> bool {
    a.entries.len() == b.entries.len()
        && a.entries
            .iter()
            .zip(&b.entries)
            .all(|((ka, ea), (kb, eb))| {
                ka == kb && ea.key_span == eb.key_span && identical(&ea.value, &eb.value)
            })
}

fn identical_entities(a: &Entity, b: &Entity) -> bool {
    identical(&a.value, &b.value) && identical_arrays(&a.attributes, &b.attributes)
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
        // Its text is kept; its tree is made between compilations.
        assert!(!store.has(&canonical));
        store.prepare();
        assert!(store.has(&canonical));
        // Taken twice: the spare copy, then a copy made on the spot.
        assert_eq!(load(&root, Some(&store)), cold);
        assert_eq!(load(&root, Some(&store)), cold);
        assert!(!store.has(&std::fs::canonicalize(&root).expect("canonical")));
        // The same text under the same id: what is kept is taken (a stand-in proves it).
        let text = std::fs::read_to_string(&include).expect("read");
        let stand_in = crate::neon::decode(&types(3, "Kept"), FileId(1)).expect("decodes");
        store.keep(&canonical, &text, FileId(1));
        store.prepare();
        if let Some(kept) = store.files.lock().expect("lock").get_mut(&canonical) {
            (kept.value, kept.spare) = (Some(stand_in.clone()), Some(stand_in));
        }
        let warm = load(&root, Some(&store));
        assert!(warm.0.contains("App\\\\Kept2") && !warm.0.contains("App\\\\C2999"));
        // The include edited: decoded again, and kept again.
        std::fs::write(&include, types(2500, "D")).expect("write");
        let edited = load(&root, Some(&store));
        assert_eq!(edited, load(&root, None));
        assert!(edited.0.contains("App\\\\D2499") && !edited.0.contains("Kept"));
        assert_eq!(load(&root, Some(&store)), edited);
        // No longer read: forgotten.
        store.prepare();
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
        store.prepare();
        assert!(store.has(&std::fs::canonicalize(&include).expect("canonical")));
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
        store.prepare();
        assert!(!store.has(&std::fs::canonicalize(&root).expect("canonical")));
        let mut broken = types(3000, "C");
        broken.push_str("\tx: [\n");
        std::fs::write(&root, &broken).expect("write");
        let (_, errors) = load(&root, Some(&store));
        assert_eq!(errors, 1);
        store.prepare();
        assert!(!store.has(&std::fs::canonicalize(&root).expect("canonical")));
    }
}
