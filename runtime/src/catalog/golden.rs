//! The catalog for deployment: writing it from the application ([`write_if_requested`],
//! [`write_catalog`]) and the golden test that keeps a checked-in catalog equal to the
//! registry ([`assert_current`], [`check_current`]), with a structured diff ([`Change`]).
//!
//! ```no_run
//! # let registry = wireplan_runtime::Registry::new();
//! // main.rs, right after the registry is filled:
//! wireplan_runtime::catalog::write_if_requested(&registry);
//! // a test of the application:
//! wireplan_runtime::catalog::assert_current(&registry, "config/catalog.json");
//! ```

use std::fmt;
use std::path::Path;

use indexmap::IndexMap;

use super::model::{CatalogDocument, MethodEntry, ParamEntry, TypeEntry};
use crate::registry::Registry;

/// The environment variable [`write_if_requested`] reads: the path to write the catalog to.
pub const WRITE_VAR: &str = "WIREPLAN_WRITE_CATALOG";
/// The environment variable that makes [`assert_current`] and [`check_current`] rewrite the
/// checked-in catalog instead of comparing (`1`, or any value but `0` and empty).
pub const UPDATE_VAR: &str = "WIREPLAN_UPDATE_CATALOG";

/// Writes the registry's catalog to `path`: the JSON form when `path` ends in `.json`,
/// otherwise the NEON `types:` section. Atomic (a temporary file next to it, then a rename), so
/// a reader never sees half a catalog.
///
/// An existing file is replaced only when it is a catalog itself (empty, or what this function
/// writes: JSON whose `format` is `wireplan-catalog`, or NEON whose only top-level key is
/// `types:`), so a mistyped path never overwrites a configuration or a source file.
///
/// Errors: [`crate::Error::Write`] naming the file: it cannot be written, or it exists and is
/// not a catalog (`InvalidInput`).
pub fn write_catalog(registry: &Registry, path: impl AsRef<Path>) -> Result<(), crate::Error> {
    let path = path.as_ref();
    let json = is_json(path);
    let written = replaces_only_a_catalog(path, json).and_then(|()| {
        let text = if json {
            registry.catalog_json()
        } else {
            registry.catalog()
        };
        crate::encoding::write_atomic(path, text.as_bytes())
    });
    written.map_err(|cause| crate::Error::Write {
        origin: path.display().to_string(),
        what: "catalog",
        cause,
    })
}

/// `Ok` when writing a catalog to `path` replaces nothing but a catalog: no file there (or one
/// that cannot be read, which the write then reports), an empty one, or a catalog of the form
/// `json` says. Anything else is refused with `InvalidInput`.
fn replaces_only_a_catalog(path: &Path, json: bool) -> std::io::Result<()> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(&bytes);
    if text.trim().is_empty() || is_catalog_text(&text, json) {
        return Ok(());
    }
    let form = if json {
        "a JSON catalog (\"format\": \"wireplan-catalog\")"
    } else {
        "a NEON catalog (a `types:` section and nothing else)"
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "it exists and is not {form}, so it is not replaced; choose another path (a new \
             file, or the catalog written before), or remove the file first"
        ),
    ))
}

/// Whether `text` is a catalog in the JSON form (`json`) or the NEON form.
fn is_catalog_text(text: &str, json: bool) -> bool {
    if json {
        return serde_json::from_str::<serde_json::Value>(text)
            .is_ok_and(|v| v.get("format").and_then(|f| f.as_str()) == Some("wireplan-catalog"));
    }
    // Top-level lines: those that start with neither a blank nor a comment.
    let mut top = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with([' ', '\t', '#']));
    top.all(|l| l.trim_end() == "types:" || l.trim_end().starts_with("types: "))
}

fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// For deployment: when the environment variable `WIREPLAN_WRITE_CATALOG` holds a path, writes
/// the registry's catalog there ([`write_catalog`]), says so on stderr and exits the process
/// (status 0; 1 with the error on stderr when the file cannot be written). Without the
/// variable it returns and the application runs as usual. Call it right after the registry is
/// filled: `WIREPLAN_WRITE_CATALOG=config/catalog.json cargo run` then produces the file that
/// `wireplan compile --catalog config/catalog.json` reads.
pub fn write_if_requested(registry: &Registry) {
    let Some(path) = std::env::var_os(WRITE_VAR).filter(|p| !p.is_empty()) else {
        return;
    };
    let path = Path::new(&path);
    match write_catalog(registry, path) {
        Ok(()) => {
            eprintln!("wireplan: wrote the catalog to {}", path.display());
            let unregistered = registry.unregistered_types();
            if !unregistered.is_empty() {
                eprintln!("{}", unregistered_warning(&unregistered));
            }
            std::process::exit(0);
        }
        Err(e) => {
            eprintln!("wireplan: {WRITE_VAR}: {e}");
            std::process::exit(1);
        }
    }
}

/// The warning [`write_if_requested`] prints after writing a catalog in which some Rust types
/// are `object` because the registry names no class or interface for them
/// ([`Registry::unregistered_types`]).
pub fn unregistered_warning(unregistered: &[super::UnregisteredType]) -> String {
    let list: String = unregistered.iter().map(|u| format!("\n  - {u}")).collect();
    format!(
        "wireplan: warning: {} type(s) in the catalog are `object` (or `array` for a list): the \
         registry names no class or interface for their Rust type, so the compiler autowires \
         nothing for them:{list}\n  register each such type (`registry.register::<T>()` for a \
         `#[wireplan_runtime::class]` or `#[wireplan_runtime::interface]`, or \
         `registry.class::<T>(..)`) and write the catalog again, or pass those arguments in \
         the configuration",
        unregistered.len()
    )
}

/// One difference between a checked-in catalog and the registry's, worded from the checked-in
/// file's point of view: `class App\Mailer: constructor parameter `from` was removed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The class or interface (`None` for the document itself).
    pub class: Option<String>,
    /// What changed, e.g. "constructor parameter `from` was removed".
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.class {
            Some(c) => write!(f, "class {c}: {}", self.what),
            None => f.write_str(&self.what),
        }
    }
}

/// Every difference from `old` (the checked-in catalog) to `new` (the registry's), class by
/// class in `new`'s order then the removed classes: added and removed classes, the interface
/// flag, `extends`, `implements`, constructor parameters (added, removed, type changed,
/// reordered), methods (added, removed, parameters, return type, static), properties and
/// constants. Empty when the two are equal.
pub fn diff(old: &CatalogDocument, new: &CatalogDocument) -> Vec<Change> {
    let mut out = Vec::new();
    if (old.format.as_str(), old.version) != (new.format.as_str(), new.version) {
        out.push(Change {
            class: None,
            what: format!(
                "the format changed from {} {} to {} {}",
                old.format, old.version, new.format, new.version
            ),
        });
    }
    for (name, n) in &new.types {
        let mut push = |what: String| {
            out.push(Change {
                class: Some(name.clone()),
                what,
            })
        };
        match old.types.get(name) {
            None => push("was added".into()),
            Some(o) => diff_entry(o, n, &mut push),
        }
    }
    for name in old.types.keys().filter(|k| !new.types.contains_key(*k)) {
        out.push(Change {
            class: Some(name.clone()),
            what: "was removed".into(),
        });
    }
    out
}

fn diff_entry(o: &TypeEntry, n: &TypeEntry, push: &mut dyn FnMut(String)) {
    if o.interface != n.interface {
        let kind = |i: bool| if i { "an interface" } else { "a class" };
        push(format!(
            "changed from {} to {}",
            kind(o.interface),
            kind(n.interface)
        ));
    }
    if o.extends != n.extends {
        let show = |e: &Option<String>| e.clone().unwrap_or_else(|| "nothing".into());
        push(format!(
            "extends changed from {} to {}",
            show(&o.extends),
            show(&n.extends)
        ));
    }
    if o.is_async != n.is_async {
        let now = if n.is_async {
            "async"
        } else {
            "no longer async"
        };
        push(format!("the constructor is now {now}"));
    }
    for i in n.implements.iter().filter(|i| !o.implements.contains(i)) {
        push(format!("now implements {i}"));
    }
    for i in o.implements.iter().filter(|i| !n.implements.contains(i)) {
        push(format!("no longer implements {i}"));
    }
    if o.constructor.private != n.constructor.private {
        push(if n.constructor.private {
            "the constructor is now private (registered without one)".to_string()
        } else {
            "the constructor is no longer private".to_string()
        });
    }
    diff_params(
        "constructor parameter",
        &o.constructor.params,
        &n.constructor.params,
        push,
    );
    for (m, nm) in &n.methods {
        match o.methods.get(m) {
            None => push(format!("method `{m}` was added")),
            Some(om) => diff_method(m, om, nm, push),
        }
    }
    for m in o.methods.keys().filter(|m| !n.methods.contains_key(*m)) {
        push(format!("method `{m}` was removed"));
    }
    diff_map("property", &o.properties, &n.properties, push);
    let show = |v: &serde_json::Value| v.to_string();
    let old_c: IndexMap<String, String> = o
        .constants
        .iter()
        .map(|(k, v)| (k.clone(), show(v)))
        .collect();
    let new_c: IndexMap<String, String> = n
        .constants
        .iter()
        .map(|(k, v)| (k.clone(), show(v)))
        .collect();
    diff_map("constant", &old_c, &new_c, push);
}

fn diff_method(m: &str, o: &MethodEntry, n: &MethodEntry, push: &mut dyn FnMut(String)) {
    match (&o.params, &n.params) {
        (Some(op), Some(np)) => {
            diff_params(&format!("method `{m}`: parameter"), op, np, push);
        }
        (None, Some(_)) => push(format!("method `{m}` now has a registered signature")),
        (Some(_), None) => push(format!("method `{m}` lost its registered signature")),
        (None, None) => {}
    }
    if o.returns != n.returns {
        let show = |r: &Option<String>| r.clone().unwrap_or_else(|| "nothing declared".into());
        push(format!(
            "method `{m}`: return type changed from {} to {}",
            show(&o.returns),
            show(&n.returns)
        ));
    }
    if o.is_static != n.is_static {
        let word = if n.is_static {
            "static"
        } else {
            "an instance method"
        };
        push(format!("method `{m}` is now {word}"));
    }
}

/// Parameters: removed, added, type or default changed, and — when the same names remain — a
/// new order.
fn diff_params(
    what: &str,
    o: &IndexMap<String, ParamEntry>,
    n: &IndexMap<String, ParamEntry>,
    push: &mut dyn FnMut(String),
) {
    let shown = |m: &IndexMap<String, ParamEntry>| -> IndexMap<String, String> {
        m.iter().map(|(k, v)| (k.clone(), v.to_string())).collect()
    };
    let (o, n) = (&shown(o), &shown(n));
    diff_map(what, o, n, push);
    let same_names = o.len() == n.len() && o.keys().all(|k| n.contains_key(k));
    if same_names && !o.keys().eq(n.keys()) {
        let list = |m: &IndexMap<String, String>| {
            m.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
        };
        // Arguments the configuration passes by position now reach other parameters, and
        // nothing else says so once the catalog is written again (a new user's trial).
        push(format!(
            "{what}s were reordered from ({}) to ({}): arguments the configuration passes by \
             position now go to other parameters; pass them by name (`{}: …`)",
            list(o),
            list(n),
            n.keys().next().map_or("", String::as_str)
        ));
    }
}

fn diff_map<V: PartialEq + std::fmt::Display>(
    what: &str,
    o: &IndexMap<String, V>,
    n: &IndexMap<String, V>,
    push: &mut dyn FnMut(String),
) {
    for (k, v) in o {
        match n.get(k) {
            None => push(format!("{what} `{k}` was removed")),
            Some(nv) if nv != v => push(format!("{what} `{k}` changed from `{v}` to `{nv}`")),
            Some(_) => {}
        }
    }
    for (k, v) in n {
        if !o.contains_key(k) {
            push(format!("{what} `{k}` was added (`{v}`)"));
        }
    }
}

/// Why [`check_current`] failed.
#[derive(Debug, thiserror::Error)]
pub enum CatalogMismatch {
    /// The checked-in catalog cannot be read (missing, unreadable).
    #[error("{path}: cannot read the catalog: {cause}\n{}", regenerate_hint(path))]
    Unreadable {
        /// The file.
        path: String,
        /// The I/O error.
        cause: std::io::Error,
    },
    /// The checked-in catalog is not a catalog this crate reads (JSON or NEON `types:`).
    #[error("{path}: not a wireplan catalog: {reason}\n{}", regenerate_hint(path))]
    Malformed {
        /// The file.
        path: String,
        /// serde's message with line and column.
        reason: String,
    },
    /// The catalog differs from the registry's.
    #[error(
        "{path} is not the registry's catalog ({} change(s)):{}\n{}",
        changes.len(),
        changes.iter().map(|c| format!("\n  - {c}")).collect::<String>(),
        regenerate_hint(path)
    )]
    Changed {
        /// The file.
        path: String,
        /// Every difference, as [`diff`] lists them.
        changes: Vec<Change>,
    },
    /// `WIREPLAN_UPDATE_CATALOG` was set and the file could not be written.
    #[error("{path}: cannot write the catalog: {cause}")]
    Write {
        /// The file.
        path: String,
        /// The error.
        cause: Box<crate::Error>,
    },
}

fn regenerate_hint(path: &str) -> String {
    format!("regenerate it with {UPDATE_VAR}=1 (e.g. `{UPDATE_VAR}=1 cargo test`), review the change to {path}, and recompile the plan")
}

/// Whether `WIREPLAN_UPDATE_CATALOG` asks to rewrite the catalog.
fn update_requested() -> bool {
    std::env::var_os(UPDATE_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The golden check without panicking: `Ok` when the JSON catalog at `path` equals the
/// registry's ([`Registry::catalog_document`]); with `WIREPLAN_UPDATE_CATALOG=1` it writes the
/// registry's catalog there instead (atomically) and returns `Ok`. The file must be the JSON
/// form ([`Registry::catalog_json`]).
///
/// Errors: [`CatalogMismatch`] — unreadable, malformed, or every [`Change`] found.
pub fn check_current(registry: &Registry, path: impl AsRef<Path>) -> Result<(), CatalogMismatch> {
    let path = path.as_ref();
    let shown = path.display().to_string();
    if update_requested() {
        return write_catalog(registry, path).map_err(|cause| CatalogMismatch::Write {
            path: shown,
            cause: Box::new(cause),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|cause| CatalogMismatch::Unreadable {
        path: shown.clone(),
        cause,
    })?;
    let old = CatalogDocument::from_json(&text).map_err(|e| CatalogMismatch::Malformed {
        path: shown.clone(),
        reason: e.to_string(),
    })?;
    let changes = diff(&old, &registry.catalog_document());
    if changes.is_empty() {
        Ok(())
    } else {
        Err(CatalogMismatch::Changed {
            path: shown,
            changes,
        })
    }
}

/// The golden test an application puts in its test suite: panics with [`check_current`]'s
/// message (every change, class by class, and the variable that regenerates the file) when
/// the checked-in JSON catalog at `path` is not the registry's.
///
/// ```no_run
/// #[test]
/// fn catalog_is_current() {
///     let registry = my_app::registry();
///     wireplan_runtime::catalog::assert_current(&registry, "config/catalog.json");
/// }
/// # mod my_app { pub fn registry() -> wireplan_runtime::Registry { Default::default() } }
/// ```
#[track_caller]
pub fn assert_current(registry: &Registry, path: impl AsRef<Path>) {
    if let Err(e) = check_current(registry, path) {
        panic!("{e}");
    }
}
