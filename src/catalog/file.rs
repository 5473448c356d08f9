//! Catalog files given apart from the configuration (`--catalog FILE`, `build.rs`, dev mode's
//! in-process registry catalog): the compact JSON form a registry writes
//! (`Registry::catalog_json()`, shape in docs/catalog.md) or a NEON file with a `types:`
//! section.
//!
//! JSON is read with serde class by class ([`super::json`], no NEON parse, no tree of the
//! whole file); the entries go through the same checks as the `types:` section. Serde keeps no positions, so when
//! those checks find a problem the file is read once more through the NEON decoder (JSON is
//! NEON's inline syntax) and the problems are reported with their line and column. A catalog
//! file is literal: `%parameters%` are not expanded in it.

use std::fmt;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::source::{FileId, SourceMap, Span};

/// The name under which dev mode's in-process registry catalog is recorded (in diagnostics
/// and among the plan's dependencies, with its content hash).
pub const REGISTRY_CATALOG: &str = "<registry catalog>";

/// A catalog the compilation reads besides the `types:` section.
#[derive(Debug, Clone, PartialEq)]
pub enum CatalogInput {
    /// A file: JSON when its name ends in `.json` or its text starts with `{`, NEON
    /// (`types:` section) otherwise. It becomes a dependency of the plan.
    File(PathBuf),
    /// Text held in memory, e.g. `Registry::catalog_json()` in dev mode; `name` labels it in
    /// diagnostics and in the plan's dependencies.
    Text {
        /// The label ([`REGISTRY_CATALOG`] for dev mode).
        name: String,
        /// The catalog, JSON or NEON as for files.
        text: String,
    },
}

/// Reads every catalog input into `sources` (a missing or unreadable file is `file-not-found`)
/// and returns their file ids in order. A file given twice (the same canonical path, also
/// through a symlink) is read once: it is one catalog, not two declarations of each class.
pub fn load_inputs(
    inputs: &[CatalogInput],
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Vec<FileId> {
    let mut ids = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for input in inputs {
        match input {
            CatalogInput::File(path) => match crate::source::read_input_file(path) {
                Ok(bytes) => {
                    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                    if seen.contains(&canonical) {
                        continue;
                    }
                    seen.push(canonical.clone());
                    // A binary plan is one error saying so, not a NEON syntax error that
                    // shows its bytes (a new user's trial); a JSON plan is recognised when
                    // the document is read.
                    if bytes.starts_with(wireplan_runtime::encoding::BINARY_MAGIC) {
                        diags.push(
                            Diagnostic::error(
                                Code::InvalidValue,
                                format!(
                                    "'{}' is a binary plan (what `wireplan compile` writes), \
                                     not a catalog.",
                                    path.display()
                                ),
                            )
                            .with_note(
                                "give --catalog the catalog the application's registry writes \
                                 (`Registry::catalog_json()`) or a NEON file with `types:`",
                            ),
                        );
                        continue;
                    }
                    // Bytes that are not UTF-8 are reported here as a configuration file's
                    // are; the file is then registered (for the excerpt) but not read.
                    if let Some(mut d) = crate::neon::utf8_error(&bytes, sources.next_id()) {
                        // A JSON catalog's problem is worded as its other syntax errors are,
                        // not as a NEON file's (a new user's trial).
                        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
                            d.code = Code::InvalidValue;
                            d.message =
                                "The catalog is not valid JSON: invalid UTF-8 sequence.".into();
                            for n in &mut d.notes {
                                *n = n.replace("NEON files are UTF-8", "JSON catalogs are UTF-8");
                            }
                        }
                        diags.push(d);
                    }
                    ids.push(sources.add_path_bytes(path.display().to_string(), &canonical, bytes));
                }
                Err(e) => diags.push(
                    crate::config::unreadable_file(path, &e)
                        .with_note("read as a type catalog (`--catalog`, or a build script's or dev mode's catalog file)"),
                ),
            },
            CatalogInput::Text { name, text } => ids.push(sources.add(name.clone(), text.clone())),
        }
    }
    ids
}

/// Whether the catalog `name`/`text` is the JSON form.
pub(super) fn is_json(name: &str, text: &str) -> bool {
    Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        || after_bom(text).trim_start().starts_with('{')
}

/// `text` after a leading UTF-8 byte-order mark, which a catalog file may start with (Windows
/// editors write one) and which JSON readers refuse.
pub(super) fn after_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Why a catalog file gave no classes (after reporting it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unread {
    /// Not JSON or NEON at all: the parser's error, at its position.
    Syntax,
    /// Well-formed, but no catalog document: no `types` key, or not a map.
    Document,
}

/// The `types` map of catalog file `id` (JSON or NEON) as the catalog's value tree, read with
/// positions through the NEON decoder (JSON is NEON's inline syntax), or why there is none,
/// after reporting it.
pub(super) fn types_of(
    id: FileId,
    sources: &SourceMap,
    diags: &mut Diagnostics,
) -> Result<Expr, Unread> {
    let file = sources.get(id);
    let value = match crate::neon::decode(&file.text, id) {
        Ok(v) => v,
        Err(d) => {
            diags.push(d);
            return Err(Unread::Syntax);
        }
    };
    let root = Expr::from_neon(&value);
    document_types(&root, Some(Span::new(id, 0, 0)), &file.name, diags).ok_or(Unread::Document)
}

/// A JSON syntax error of catalog file `id`, at serde's line and column.
pub(super) fn json_syntax_error(id: FileId, text: &str, e: &serde_json::Error) -> Diagnostic {
    // serde read the text after a leading byte-order mark ([`after_bom`]): its first line's
    // columns start after the mark.
    let bom = if e.line() <= 1 {
        text.len() - after_bom(text).len()
    } else {
        0
    };
    let offset = (bom + byte_offset(text, e.line(), e.column())).min(text.len());
    // The position is the diagnostic's, not the message's (serde counts columns from 0 at a
    // line's start, where the diagnostic says 1).
    let shown = e.to_string();
    let what = shown
        .rsplit_once(" at line ")
        .map_or(shown.as_str(), |(m, _)| m);
    if !e.is_data() {
        if what.starts_with("control character") {
            if let Some(d) = control_in_string(id, text, offset) {
                return d;
            }
        }
        let message = format!("The catalog is not valid JSON: {what}.");
        let d =
            Diagnostic::error(Code::InvalidValue, message).at(Some(Span::new(id, offset, offset)));
        // A NEON catalog under a `.json` name (the name decides how a catalog file is read).
        let looks_neon = crate::neon::decode(text, id)
            .is_ok_and(|v| matches!(v.kind, crate::neon::Kind::Array(_)));
        return if looks_neon {
            d.with_note(
                "a catalog named *.json is read as JSON; this text reads as NEON: name the file *.neon",
            )
        } else {
            d
        };
    }
    // Well-formed JSON that no catalog may be: a key written twice in one object, where serde
    // stands at the second key's closing quote. The error is at that key, and points at the
    // nearest earlier writing of it.
    let message = format!("The catalog is not valid: {what}.");
    let Some(open) = key_start(text, offset) else {
        return Diagnostic::error(Code::InvalidValue, message)
            .at(Some(Span::new(id, offset, offset)));
    };
    let key = &text[open..=offset.min(text.len().saturating_sub(1))];
    let mut d = Diagnostic::error(Code::InvalidValue, message)
        .with_primary(Span::new(id, open, open + key.len()), "written again here");
    if let Some(first) = text[..open]
        .rmatch_indices(key)
        .map(|(at, _)| at)
        .find(|&at| text[at + key.len()..].trim_start().starts_with(':'))
    {
        d = d.with_secondary(
            Span::new(id, first, first + key.len()),
            "first written here",
        );
    }
    d
}

/// serde's "control character (\\u0000-\\u001F) found while parsing a string" at `offset`,
/// in the words of what the reader sees: a string left open at the end of its line (a
/// half-saved catalog, a missing closing quote), pointed at where it opened; or a raw tab or
/// other control character inside a string, pointed at. `None` when the string or the
/// character cannot be found (then serde's own words are used).
fn control_in_string(id: FileId, text: &str, offset: usize) -> Option<Diagnostic> {
    let bytes = text.as_bytes();
    // The string open at `offset`: serde read everything before it as JSON, so a scan of the
    // quotes (and the escapes inside strings) from the start finds where it opened.
    let (mut open, mut escaped) = (None, false);
    for (i, &b) in bytes.iter().enumerate().take(offset) {
        match (open, b) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), b'\\') => escaped = true,
            (Some(_), b'"') => open = None,
            (Some(_), b) if b < 0x20 => break,
            (None, b'"') => open = Some(i),
            _ => {}
        }
    }
    let open = open?;
    let (at, &b) = bytes
        .iter()
        .enumerate()
        .skip(open + 1)
        .find(|(_, &b)| b < 0x20)?;
    let d = if b == b'\n' || b == b'\r' {
        Diagnostic::error(
            Code::InvalidValue,
            "The catalog is not valid JSON: a string is not closed before the end of its line.",
        )
        .with_primary(Span::new(id, open, at), "this string is never closed")
        .with_note(
            "a JSON string ends with `\"` on the line it starts on (a line break inside one is \
             written \\n); a file saved halfway ends like this",
        )
    } else {
        let name = match b {
            b'\t' => "a tab".to_string(),
            other => format!("the control character U+{other:04X}"),
        };
        Diagnostic::error(
            Code::InvalidValue,
            format!(
                "The catalog is not valid JSON: a string holds {name}, which JSON does not allow."
            ),
        )
        .with_primary(Span::new(id, at, at + 1), "here")
        .with_secondary(
            Span::new(id, open, open + 1),
            "in the string that starts here",
        )
        .with_note("write it escaped: \\t for a tab, \\u00XX for another control character")
    };
    Some(d)
}

/// The offset of the opening quote of the JSON string whose closing quote is at `close`.
fn key_start(text: &str, close: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(close) != Some(&b'"') {
        return None;
    }
    let mut at = close;
    while at > 0 {
        at -= 1;
        if bytes[at] == b'"' {
            // A quote behind an odd number of backslashes is escaped.
            let slashes = bytes[..at]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if slashes % 2 == 0 {
                return Some(at);
            }
        }
    }
    None
}

/// Reports a catalog file's `types` that is not a map of classes (`null` is an empty one):
/// then [`Unread::Document`].
pub(super) fn check_class_map(
    types: &Expr,
    id: FileId,
    diags: &mut Diagnostics,
) -> Result<(), Unread> {
    let list = types
        .as_array()
        .is_some_and(|a| !a.is_empty() && a.is_list());
    if list || (types.as_array().is_none() && !types.is_null()) {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "The catalog's 'types' expects to be a map of classes, {} given.",
                    if list {
                        "a list".to_string()
                    } else {
                        types.describe()
                    }
                ),
            )
            .at(types.span.or(Some(Span::new(id, 0, 0)))),
        );
        return Err(Unread::Document);
    }
    Ok(())
}

/// The byte offset of 1-based `line` and `column` (serde's positions), clamped to the text.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
}

/// Checks the document around the classes: `{format: wireplan-catalog, version: 1, types:
/// {…}}`, or a NEON file whose only section is `types:`.
pub(super) fn document_types(
    root: &Expr,
    at: Option<Span>,
    name: &str,
    diags: &mut Diagnostics,
) -> Option<Expr> {
    // A list (`[1, 2, 3]`) is one error, not one per item (a new user's trial).
    let Some(items) = root.as_array().filter(|a| a.is_empty() || !a.is_list()) else {
        let given = match root.as_array() {
            Some(_) => "a list".to_string(),
            None => root.type_name().to_string(),
        };
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("A catalog must be a map with a 'types' key, {given} given."),
            )
            .at(root.span.or(at)),
        );
        return None;
    };
    // A plan given as a catalog: one error at its format, not one per plan key.
    if let Some(format) = items
        .get("format")
        .filter(|f| f.as_str() == Some(wireplan_runtime::plan::FORMAT))
    {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "This catalog{} has format '{}': it is a plan (what `wireplan compile` writes), not a catalog.",
                    describe(name),
                    wireplan_runtime::plan::FORMAT
                ),
            )
            .at(format.span.or(at))
            .with_note(
                "give --catalog the catalog the application's registry writes \
                 (`Registry::catalog_json()`) or a NEON file with `types:`",
            ),
        );
        return None;
    }
    let mut types = None;
    // A key that is a typo of `types` is the one error about the missing `types`.
    let mut types_misspelt = false;
    for (k, v) in &items.items {
        match k.as_string().as_str() {
            "types" => types = Some(v.clone()),
            "format" if v.as_str() == Some(wireplan_runtime::catalog::FORMAT) => {}
            "version" if v.kind == ExprKind::Int(i64::from(wireplan_runtime::catalog::VERSION)) => {
            }
            key @ ("format" | "version") => diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "This catalog has {key} {}; wireplan reads format '{}' version {}.",
                        v.describe(),
                        wireplan_runtime::catalog::FORMAT,
                        wireplan_runtime::catalog::VERSION
                    ),
                )
                .at(v.span.or(at))
                .with_note("regenerate it with the wireplan-runtime this compiler matches"),
            ),
            other => {
                let meant = crate::diagnostics::suggest(other, ["types", "format", "version"]);
                types_misspelt |= meant == Some("types");
                let message = match meant {
                    Some(s) => format!(
                        "Unexpected item '{other}' in the catalog{}, did you mean '{s}'?",
                        describe(name)
                    ),
                    None => format!(
                        "Unexpected item '{other}' in the catalog{}.",
                        describe(name)
                    ),
                };
                diags.push(
                    Diagnostic::error(Code::UnknownOption, message)
                        .at(items.key_span(other).or(v.span).or(at))
                        .with_note(
                            "a catalog holds 'types' (and, in JSON, 'format' and 'version')",
                        ),
                );
            }
        }
    }
    if types.is_none() && !types_misspelt {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("The catalog{} has no 'types' key.", describe(name)),
            )
            .at(at.or(root.span)),
        );
    }
    types
}

fn describe(name: &str) -> String {
    if name.is_empty() {
        String::new()
    } else {
        format!(" '{name}'")
    }
}

/// Where the class key `name` is written in JSON `text`: the first `"name"` followed by `:`.
/// Used only to place a diagnostic about a whole class read on the fast path.
pub(super) fn json_key_span(id: FileId, text: &str, name: &str) -> Option<Span> {
    let quoted = serde_json::to_string(name).ok()?;
    let mut from = 0;
    while let Some(pos) = text[from..].find(&quoted) {
        let start = from + pos;
        let end = start + quoted.len();
        if text[end..].trim_start().starts_with(':') {
            return Some(Span::new(id, start, end));
        }
        from = end;
    }
    None
}

/// The span of the JSON string `needle` (as a value, not a key) inside the object or list
/// that follows the key ending at `key_end` (`"App\\X": {…}`): where a class of a JSON
/// catalog names a parent or interface. `None` when the value is no object or list, or does
/// not hold the string. Strings are skipped whole, so braces inside them do not count.
pub(super) fn json_string_in_value(
    id: FileId,
    text: &str,
    key_end: usize,
    needle: &str,
) -> Option<Span> {
    let quoted = serde_json::to_string(needle).ok()?;
    let bytes = text.as_bytes();
    let mut i = key_end + text.get(key_end..)?.find(':')? + 1;
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if !matches!(bytes.get(i), Some(b'{' | b'[')) {
        return None;
    }
    let mut depth = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return None;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let end = (i + 1).min(bytes.len());
                let is_key = text[end..].trim_start().starts_with(':');
                if !is_key && text.get(start..end) == Some(quoted.as_str()) {
                    return Some(Span::new(id, start, end));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Deserializes any JSON value straight into an [`Expr`] (no intermediate `serde_json::Value`).
pub(super) struct ExprSeed;

impl<'de> DeserializeSeed<'de> for ExprSeed {
    type Value = Expr;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Expr, D::Error> {
        d.deserialize_any(ExprVisitor)
    }
}

/// A JSON string as an expression: quoted.
fn json_text(s: String) -> Expr {
    let mut e = Expr::bare(ExprKind::Str(s));
    e.quoted = true;
    e
}

/// The visitor of [`ExprSeed`].
pub(super) struct ExprVisitor;

impl<'de> Visitor<'de> for ExprVisitor {
    type Value = Expr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Expr, E> {
        Ok(Expr::bare(ExprKind::Null))
    }

    fn visit_bool<E>(self, b: bool) -> Result<Expr, E> {
        Ok(Expr::bare(ExprKind::Bool(b)))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Expr, E> {
        Ok(Expr::bare(ExprKind::Int(i)))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Expr, E> {
        // As NEON keeps an integer too large for 64 bits: as a float.
        Ok(Expr::bare(match i64::try_from(u) {
            Ok(i) => ExprKind::Int(i),
            Err(_) => ExprKind::Float(u as f64),
        }))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Expr, E> {
        Ok(Expr::bare(ExprKind::Float(f)))
    }

    // A JSON string is quoted by its syntax: text, as a quoted NEON string is (a default
    // `"@x"` is the text `@x`, never a reference; see `parse::constant_value`).
    fn visit_str<E>(self, s: &str) -> Result<Expr, E> {
        Ok(json_text(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Expr, E> {
        Ok(json_text(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Expr, A::Error> {
        let mut items = IndexMap::default();
        let mut i = 0i64;
        while let Some(v) = seq.next_element_seed(ExprSeed)? {
            items.insert(Key::Int(i), v);
            i += 1;
        }
        Ok(array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Expr, A::Error> {
        let mut items = IndexMap::with_capacity_and_hasher(
            map.size_hint().unwrap_or(0),
            rustc_hash::FxBuildHasher,
        );
        while let Some(k) = map.next_key::<String>()? {
            let key = Key::from_string(k);
            if items.contains_key(&key) {
                return Err(duplicate_key(&key.as_string()));
            }
            let v = map.next_value_seed(ExprSeed)?;
            items.insert(key, v);
        }
        Ok(array(items))
    }
}

/// A key written twice in one JSON object of a catalog: an error where the second one is read
/// (as NEON's "Duplicated key"), never one of the two values dropped in silence.
pub(super) fn duplicate_key<E: serde::de::Error>(key: &str) -> E {
    E::custom(format_args!(
        "the key '{key}' is written twice in one object"
    ))
}

fn array(items: IndexMap<Key, Expr, rustc_hash::FxBuildHasher>) -> Expr {
    let mut a = ExprArray::new();
    a.items = items;
    Expr::bare(ExprKind::Array(a))
}

/// Converts a NEON catalog (a document with a `types:` section, as `Registry::catalog()` or a
/// hand-written `types.neon`) to the JSON form, with `format` and `version` — for moving a
/// hand-written catalog to JSON, and for the benchmark that compares the two readers.
///
/// Errors: the NEON syntax error, or "no `types:` section".
pub fn neon_catalog_to_json(text: &str) -> Result<String, String> {
    let mut sources = SourceMap::new();
    let id = sources.add("<catalog>", text);
    let value = crate::neon::decode(text, id).map_err(|d| d.message)?;
    let mut json = crate::neon::to_json(&value);
    let types = json
        .as_object_mut()
        .and_then(|m| m.shift_remove("types"))
        .ok_or_else(|| "the NEON catalog has no `types:` section".to_string())?;
    let mut doc = serde_json::Map::new();
    doc.insert("format".into(), wireplan_runtime::catalog::FORMAT.into());
    doc.insert("version".into(), wireplan_runtime::catalog::VERSION.into());
    doc.insert("types".into(), types);
    serde_json::to_string_pretty(&serde_json::Value::Object(doc)).map_err(|e| e.to_string())
}
