//! Where and how a plan is written: never over a file the compilation read, and never half.
//!
//! The plan file is written with [`write_atomic_with`] (temporary file, fsync, rename), so a
//! crash never leaves half a plan; [`check_output`] makes sure the target is not one of the
//! inputs.

use crate::diagnostics::{Code, Diagnostic};
use crate::source::SourceMap;
use std::path::{Path, PathBuf};
use wireplan_runtime::plan::Plan;

/// One file as the operating system identifies it: its canonical path, and on Unix its device
/// and inode (which also match through hard links).
#[derive(Debug, PartialEq)]
struct Identity {
    canonical: Option<PathBuf>,
    #[cfg(unix)]
    inode: Option<(u64, u64)>,
}

impl Identity {
    fn of(path: &Path) -> Identity {
        // A file that does not exist yet is identified by its canonical folder and name.
        let canonical = std::fs::canonicalize(path).ok().or_else(|| {
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            Some(std::fs::canonicalize(parent).ok()?.join(path.file_name()?))
        });
        Identity {
            canonical,
            #[cfg(unix)]
            inode: {
                use std::os::unix::fs::MetadataExt;
                std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
            },
        }
    }

    fn same_as(&self, other: &Identity) -> bool {
        #[cfg(unix)]
        if self.inode.is_some() && self.inode == other.inode {
            return true;
        }
        self.canonical.is_some() && self.canonical == other.canonical
    }
}

/// Checks that `out` is none of the files this compilation read (configurations, includes,
/// scripts, files loaded with `loadFromFile`) nor any dependency the plan records (including
/// `addDependency` files). Paths are compared canonically, so `./x/../data.neon` and symlinks
/// match, and on Unix by device and inode, so hard links match too.
///
/// Errors: an `io-error` diagnostic naming the input `out` would replace, or saying that a
/// `.neon` name is a configuration's.
pub fn check_output(out: &Path, sources: &SourceMap, plan: &Plan) -> Result<(), Diagnostic> {
    let target = Identity::of(out);
    let read = sources
        .files()
        .filter_map(|(_, f)| Some((f.name.clone(), f.path.clone()?)));
    let recorded = plan
        .dependencies
        .iter()
        .map(|d| (d.path.clone(), PathBuf::from(&d.path)));
    for (name, path) in read.chain(recorded) {
        if Identity::of(&path).same_as(&target) {
            let shown = out.display().to_string();
            // The other spelling is named only when there is one (`./a/../x.json`, a link).
            let note = if shown == name {
                "choose another output path".to_string()
            } else {
                format!("'{shown}' is the same file as '{name}'; choose another output path")
            };
            return Err(Diagnostic::error(
                Code::Io,
                format!("Refusing to write the plan over '{name}', which this compilation reads."),
            )
            .with_note(note));
        }
    }
    // A `.neon` name is a configuration's, one this compilation does not read: a plan written
    // there would replace one without a word (a slip such as `-o services.neon`).
    if out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("neon"))
    {
        return Err(Diagnostic::error(
            Code::Io,
            format!(
                "Refusing to write the plan to '{}': a .neon file is a configuration, not a plan.",
                out.display()
            ),
        )
        .with_note("write the plan to a .json or .bin file"));
    }
    Ok(())
}

/// Checks that writing a plan to `out` replaces nothing but an earlier plan: a regular file
/// that is there already must be empty (or white space only) or a wireplan plan (binary or JSON, recognised by its
/// content, never by its name), so a slip such as `-o catalog.json` or `:compile src/main.rs`
/// cannot replace a catalog, a source file or a script. What is not a regular file is left to
/// the writer, which refuses devices, FIFOs and folders itself.
///
/// Errors: an `io-error` diagnostic naming the file and saying what a plan may replace.
pub fn check_replaceable(out: &Path) -> Result<(), Diagnostic> {
    match crate::config::holds_plan_or_nothing(out) {
        Some(false) => Err(Diagnostic::error(
            Code::Io,
            format!(
                "Refusing to write the plan over '{}', which is not a wireplan plan.",
                out.display()
            ),
        )
        .with_note(
            "a plan replaces only an earlier plan or an empty file; choose another output path, \
             or remove the file first if it is no longer needed",
        )),
        _ => Ok(()),
    }
}

/// The atomic, buffered writer the plan file goes through: the runtime's (one set of target
/// rules for both writers). A plan is encoded into its 128 KiB buffer instead of being built
/// whole in memory (docs/performance.md, "Fifth round: page faults").
pub use wireplan_runtime::encoding::write_atomic_with;

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A writer that fails half-way (a full disk, an encoding error) leaves the old file as it
    /// was and no temporary file behind.
    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("plan.json");
        std::fs::write(&out, "old plan\n").expect("write");
        let failed = write_atomic_with(&out, |w| {
            w.write_all(&vec![b'x'; 3 * wireplan_runtime::encoding::WRITE_BUFFER])?;
            Err(std::io::Error::other("no space left"))
        });
        assert_eq!(failed.expect_err("failed").to_string(), "no space left");
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "old plan\n");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["plan.json"]);
        write_atomic_with(&out, |w| w.write_all(b"new plan\n")).expect("written");
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "new plan\n");
    }

    /// A directory is refused and left alone; a symbolic link keeps pointing at the file,
    /// which is replaced.
    #[test]
    fn targets_are_checked_as_the_runtime_writer_checks_them() {
        let dir = tempfile::tempdir().expect("temp dir");
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).expect("mkdir");
        let refused = write_atomic_with(&sub, |w| w.write_all(b"x")).expect_err("a directory");
        assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
        assert!(sub.is_dir());
        #[cfg(unix)]
        {
            let target = dir.path().join("real.json");
            std::fs::write(&target, "old").expect("write");
            let link = dir.path().join("link.json");
            std::os::unix::fs::symlink(&target, &link).expect("symlink");
            write_atomic_with(&link, |w| w.write_all(b"new")).expect("written");
            assert!(std::fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink());
            assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        }
    }
}
