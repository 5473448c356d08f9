//! The notes argument errors carry about where a class's signature came from (a catalog file
//! that may be older than the Rust code, a registry's `object` for an unnamed `Arc<T>`) and
//! about a nullable parameter that is still required.

use super::super::complete::Completer;

impl Completer<'_> {
    /// For an argument error of a class read from a catalog file (a registry's catalog, given
    /// with `--catalog` or by a build script) rather than from `types:`: the catalog may be
    /// older than the Rust code, so the note says how it is written again. `None` for a class
    /// of the `types:` section (it has a span there), an unknown one, or when the only catalog
    /// is the registry's read in process by dev mode (it cannot be stale).
    pub(super) fn catalog_file_note(&self, class: &str) -> Option<String> {
        let info = self.b.catalog.get(class)?;
        // The registry's catalog read in process (dev mode) is as current as the Rust code.
        let from_file = self.b.catalog.with_files() && !self.b.catalog.registry_in_process();
        (from_file && info.span.is_none()).then(|| {
            format!(
                "{} is read from a catalog file: if its Rust code changed since the catalog was \
                 written, write it again (WIREPLAN_WRITE_CATALOG=FILE cargo run; docs/catalog.md)",
                info.name
            )
        })
    }
}

/// The note of a missing argument whose parameter is typed `object`.
pub(super) const OBJECT_PARAMETER_NOTE: &str =
    "its catalog type is `object`, which a Rust registry writes \
     for an `Arc<T>` whose T it does not name: if this is a service dependency, register T and \
     write the catalog again (the writer lists such types), or pass the argument here";

/// The note of a missing service for a nullable class parameter `param` (of class `class`)
/// without a default: as in Nette it is still required (Rust's `Option<Arc<T>>` reads as
/// optional, which a new user's trial expected), and how to make it optional.
pub(super) fn nullable_without_default_note(param: &str, class: &str) -> String {
    format!(
        "${param} is nullable but has no default, so it is required, as in Nette; to let it be \
         null when no service fits, give it the default null (`#[default(None)]` on an \
         `Option<Arc<T>>` parameter in Rust, `{{type: ?{class}, default: null}}` in `types:`)"
    )
}
