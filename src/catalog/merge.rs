//! Merging the `types:` section with catalog files (`--catalog`, dev mode's registry catalog):
//! [`Catalog::from_inputs`]. Each class is declared once across them (`duplicate-class`).

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;

use super::file::Unread;
use super::names::{Caseless, ClassKey, Interner};
use super::{file, normalize_name, parse_class, Catalog, ClassInfo, NullDefault};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::Expr;
use crate::source::Span;

impl Catalog {
    /// The catalog of the `types:` section and the catalog files `files` (read with
    /// [`load_inputs`](super::file::load_inputs); JSON or NEON, see docs/catalog.md), merged. A class declared in two
    /// places (the section and a file, or two files) is a `duplicate-class` error naming both
    /// positions: a generated catalog and a hand-written entry must not silently override each
    /// other. Parents, interfaces and defaults are checked over the merged catalog.
    pub fn from_inputs(
        section: Option<&Expr>,
        files: &[crate::source::FileId],
        sources: &crate::source::SourceMap,
        diags: &mut Diagnostics,
    ) -> Catalog {
        Catalog::read_inputs(section, files, sources, diags).0
    }

    /// [`Catalog::from_inputs`], and whether every catalog file read as a catalog: false when
    /// one is not a catalog at all (a JSON or NEON syntax error). That is a loading error, as a
    /// configuration file's syntax error is: the compilation stops before the phases, which
    /// would only report the classes it lacks.
    pub fn read_inputs(
        section: Option<&Expr>,
        files: &[crate::source::FileId],
        sources: &crate::source::SourceMap,
        diags: &mut Diagnostics,
    ) -> (Catalog, bool) {
        let mut readable = true;
        let mut cat = Catalog::new();
        cat.with_files = !files.is_empty();
        cat.registry_in_process = cat.with_files
            && files
                .iter()
                .all(|f| sources.get(*f).name == super::REGISTRY_CATALOG);
        let mut names = Interner::default();
        let mut pending = Vec::new();
        let mut origin: IndexMap<ClassKey, Origin, FxBuildHasher> = IndexMap::default();
        let section = section.filter(|s| {
            if s.as_array().is_none() && !s.is_null() {
                // Reported (with the same words) by `from_section`.
                let _ = Catalog::from_section(Some(s), diags);
                return false;
            }
            true
        });
        if let Some(items) = section.and_then(Expr::as_array) {
            for (key, value) in &items.items {
                let name = normalize_name(&key.as_string());
                let at = items.key_span(&key.as_string());
                let info = parse_class(&mut names, &name, at, value, diags, &mut pending);
                let at = at.or(value.span);
                if let Some(first) = cat.get(&info.name) {
                    // Every class so far is the section's, each with its key's position.
                    let first_at = origin
                        .get(&Caseless(&first.name))
                        .map_or(first.span, |o| o.span(sources, &first.name));
                    diags.push(super::declared_twice(
                        "the `types:` section",
                        &first.name,
                        first_at,
                        &key.as_string(),
                        at,
                    ));
                    continue;
                }
                origin.insert(ClassKey(info.name.clone()), Origin::At(at));
                cat.add(info);
            }
        }
        for &id in files {
            let mut local = Diagnostics::new();
            let mut local_pending = Vec::new();
            let classes = read_file_classes(
                &mut names,
                id,
                sources,
                false,
                &mut local,
                &mut local_pending,
            );
            let classes = match classes {
                read if local.items().is_empty() => read.unwrap_or_default(),
                // Not JSON or NEON at all: the parser's position is the one.
                Err(Unread::Syntax) => {
                    readable = false;
                    Vec::new()
                }
                read => {
                    // Problems found without positions (the JSON fast path): read again with
                    // them. A file that is no catalog document (no `types`, or not a map)
                    // stops the compilation here as a syntax error does: its classes would
                    // all be missing.
                    readable &= read.is_ok();
                    let mut again = Diagnostics::new();
                    local_pending.clear();
                    let c = read_file_classes(
                        &mut names,
                        id,
                        sources,
                        true,
                        &mut again,
                        &mut local_pending,
                    );
                    if !again.items().is_empty() {
                        local = again;
                    }
                    c.unwrap_or_default()
                }
            };
            for d in local.items() {
                diags.push(d.clone());
            }
            pending.extend(local_pending);
            let file = sources.get(id);
            for (info, key_span) in classes {
                // Read with positions (NEON, or JSON read again): the key; from the fast
                // JSON path: the key found in the text, searched only for a duplicate.
                let known = key_span.or(info.span);
                let locate = |name: &str| {
                    known
                        .or_else(|| file::json_key_span(id, &file.text, name))
                        .or(Some(Span::new(id, 0, 0)))
                };
                if let Some(first) = origin.get(&Caseless(&info.name)) {
                    // The first declaration's own spelling finds its key (a JSON key is
                    // searched for as written).
                    let first_name = cat
                        .get(&info.name)
                        .map_or_else(|| info.name.clone(), |c| c.name.clone());
                    let (first_file, first) = (first.file(), first.span(sources, &first_name));
                    // The registry knows an interface only by name: a bare `{interface: true}`
                    // and a declaration of the same interface with members merge (the fuller
                    // one is kept).
                    let earlier_bare = cat
                        .get(&info.name)
                        .filter(|e| e.interface && info.interface)
                        .map(is_bare);
                    match earlier_bare {
                        Some(_) if is_bare(&info) => continue,
                        Some(true) => {
                            cat.add(info);
                            continue;
                        }
                        _ => {}
                    }
                    // Twice in this file (under two spellings: one spelling twice is a JSON
                    // duplicate key, reported as such), or here and in an earlier input.
                    if first_file == Some(id) {
                        diags.push(super::declared_twice(
                            &format!("the catalog '{}'", file.name),
                            &first_name,
                            first,
                            &info.name,
                            locate(&info.name),
                        ));
                        continue;
                    }
                    let (message, note) = match first_file.filter(|f| files.contains(f)) {
                        Some(other) => (
                            format!(
                                "Class {} is declared in two catalogs: '{}' and '{}'.",
                                info.name,
                                sources.get(other).name,
                                file.name
                            ),
                            "declare each class in one catalog (two files with the same classes \
                             are one catalog passed twice: pass it once)",
                        ),
                        None => (
                            match first.map(|at| &sources.get(at.file).name) {
                                Some(config) => format!(
                                    "Class {} is declared twice: in the catalog '{}' and in \
                                     `types:` of '{config}'.",
                                    info.name, file.name
                                ),
                                None => format!(
                                    "Class {} is declared twice: in the catalog '{}' and before \
                                     it.",
                                    info.name, file.name
                                ),
                            },
                            "declare each class once: drop the hand-written entry from \
                             `types:` when the registry's catalog provides it (or register it \
                             in Rust)",
                        ),
                    };
                    let mut d =
                        Diagnostic::error(Code::DuplicateClass, message).at(locate(&info.name));
                    if let Some(first) = first {
                        d = d.with_secondary(first, "first declared here");
                    }
                    diags.push(d.with_note(note));
                    // A catalog file against `types:`: the file is what the registry exports
                    // from the Rust code, so the services are checked against its entry
                    // (checked against the hand-written one, they got errors the code does
                    // not have, e.g. "has no constructor" for a class that has one).
                    if first_file.is_none_or(|f| !files.contains(&f)) {
                        cat.add(info);
                    }
                    continue;
                }
                let at = match known {
                    Some(span) => Origin::At(Some(span)),
                    None => Origin::JsonKey(id),
                };
                origin.insert(ClassKey(info.name.clone()), at);
                cat.add(info);
            }
        }
        // Without a file's classes, its parents and defaults' classes would all be reported
        // missing: checked only over complete inputs.
        if readable {
            // A class read from a JSON file's fast path has no position: its problems are
            // placed at its key, looked up only for a class that has one.
            let locate = |name: &str| origin.get(&Caseless(name))?.span(sources, name);
            // A parent a JSON class names: its string inside the class's object.
            let locate_in = |name: &str, parent: &str| {
                let Origin::JsonKey(fid) = origin.get(&Caseless(name))? else {
                    return None;
                };
                let text = &sources.get(*fid).text;
                let key = file::json_key_span(*fid, text, name)?;
                file::json_string_in_value(*fid, text, key.end as usize, parent)
            };
            cat.check_references_locating(diags, &locate, &locate_in);
            cat.check_null_defaults(&pending, diags);
        }
        cat.seal();
        (cat, readable)
    }
}

/// Where a class of a merged catalog was declared: a known position, or a key of a JSON file
/// read on the fast path, looked up only when a duplicate needs it.
enum Origin {
    At(Option<Span>),
    JsonKey(crate::source::FileId),
}

impl Origin {
    /// Where class `name` was declared: the known position, or its key looked up in the JSON
    /// file (as written there).
    fn span(&self, sources: &crate::source::SourceMap, name: &str) -> Option<Span> {
        match self {
            Origin::At(span) => *span,
            Origin::JsonKey(fid) => file::json_key_span(*fid, &sources.get(*fid).text, name),
        }
    }

    /// The file the class was declared in, when known.
    fn file(&self) -> Option<crate::source::FileId> {
        match self {
            Origin::At(span) => span.map(|s| s.file),
            Origin::JsonKey(fid) => Some(*fid),
        }
    }
}

/// An interface declared by name only (`{interface: true}`), as a registry exports it.
fn is_bare(c: &ClassInfo) -> bool {
    c.extends.is_empty()
        && c.implements.is_empty()
        && c.methods.is_empty()
        && c.properties.is_empty()
        && c.constants.is_empty()
}

/// The classes of catalog file `id`, each with the span of its key when read with positions:
/// a JSON file on the fast path (`precise` false) class by class without positions, else
/// through the NEON decoder.
fn read_file_classes(
    names: &mut Interner,
    id: crate::source::FileId,
    sources: &crate::source::SourceMap,
    precise: bool,
    diags: &mut Diagnostics,
    pending: &mut Vec<NullDefault>,
) -> Result<Vec<(ClassInfo, Option<Span>)>, Unread> {
    let f = sources.get(id);
    if f.not_utf8 {
        // Reported when the file was read ([`super::load_inputs`]).
        return Err(Unread::Syntax);
    }
    if !precise && file::is_json(&f.name, &f.text) {
        let classes = super::json::classes(id, &f.text, names, diags, pending)?;
        return Ok(classes.into_iter().map(|c| (c, None)).collect());
    }
    let types = file::types_of(id, sources, diags)?;
    file::check_class_map(&types, id, diags)?;
    let Some(items) = types.as_array() else {
        return Ok(Vec::new());
    };
    let classes = items
        .items
        .iter()
        .map(|(key, value)| {
            let name = normalize_name(&key.as_string());
            let at = items.key_span(&key.as_string());
            let info = parse_class(names, &name, at, value, diags, pending);
            (info, at)
        })
        .collect();
    Ok(classes)
}
