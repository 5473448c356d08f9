//! Where a plan may be written: never over a file the compilation read.
//!
//! The plan is written with [`super::write_atomic`] (temporary file, fsync, rename), so a
//! crash never leaves half a plan; this module makes sure the target is not one of the inputs.

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
/// Errors: an `io-error` diagnostic naming the input `out` would replace.
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
            return Err(Diagnostic::error(
                Code::Io,
                format!("Refusing to write the plan over '{name}', which this compilation reads."),
            )
            .with_note(format!(
                "'{}' is the same file as '{name}'; choose another output path",
                out.display()
            )));
        }
    }
    Ok(())
}
