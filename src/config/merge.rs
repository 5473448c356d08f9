//! Merging configuration layers, after nette/schema 1.3 `Helpers::merge`.

use crate::diagnostics::{Code, Diagnostic};
use crate::neon::{Array, Key, Kind, Value};

/// Merges a newer value over an older one: two collections merge (key by key, lists appended); a newer
/// `null` over a collection keeps the collection; anything else is replaced by the newer value.
pub fn merge(base: Value, newer: Value) -> Value {
    merge_values(base, newer, Markers::Maybe)
}

/// What a merge knows about the `!` markers of the layer it takes in: where they may be, so
/// that what cannot hold one is not walked to look for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Markers {
    /// Anywhere: every value taken in is walked for them.
    Maybe,
    /// Only inside `services:` sections: the layer is itself a merge's result (see
    /// [`merge_clean`]).
    InServices,
    /// None at all: the layer was decoded from a text that cannot hold one (see
    /// [`unmarked_text`]).
    None,
}

impl Markers {
    /// What is known inside a `services:` section of the layer: markers survive merging
    /// there, so only a layer without any is known to be clean inside.
    fn in_services(self) -> Markers {
        match self {
            Markers::None => Markers::None,
            Markers::Maybe | Markers::InServices => Markers::Maybe,
        }
    }
}

/// [`merge`], knowing where `newer` may carry `!` markers.
fn merge_values(base: Value, newer: Value, markers: Markers) -> Value {
    match (base.kind, newer.kind) {
        (Kind::Array(mut b), Kind::Array(n)) => {
            *b = merge_inner(std::mem::take(&mut *b), *n, false, markers);
            Value::new(Kind::Array(b), newer.span)
        }
        (Kind::Array(b), Kind::Null) => Value::new(Kind::Array(b), base.span),
        (_, kind) => strip(Value::new(kind, newer.span), markers),
    }
}

/// Merges collections: items of `newer` whose integer keys continue the sequence `0, 1, …` are
/// appended to `base`; other keys merge recursively; a key written `name!` replaces `name`
/// instead of merging. Service definitions written in a short form (`s: App\Foo`) are widened
/// to `{create: …}` when another layer defines the same service as a map.
pub fn merge_arrays(base: Array, newer: Array) -> Array {
    merge_inner(base, newer, false, Markers::Maybe)
}

/// [`merge_arrays`] for a `newer` that is itself the result of merging (an included file after
/// its own includes): every merge strips the `!` markers of what it takes in, so outside
/// `services:` sections (which are always merged with markers, see [`merge_services`]) `newer`
/// has none, and its values are not walked again to look for them (the included catalog is
/// most of a large configuration).
pub(crate) fn merge_clean(base: Array, newer: Array) -> Array {
    merge_inner(base, newer, false, Markers::InServices)
}

/// [`merge_arrays`] for a `newer` decoded from a text for which [`unmarked_text`] holds: it
/// has no key with a `!` marker anywhere, `services:` included, so nothing of it is walked to
/// look for one. The result is that of [`merge_arrays`]. app-10000: the walks over the 780 KB
/// catalog's tree and the 10,000 definitions took 1.4 ms of the loader's thread.
pub(crate) fn merge_unmarked(base: Array, newer: Array) -> Array {
    merge_inner(base, newer, false, Markers::None)
}

/// Whether no key decoded from `text` can end with a `!` marker: the text has no `!`, and no
/// `\u0021` escape (the one way a double-quoted string makes a `!` without writing one; the
/// other escapes make other characters). A memchr scan, so a large file is read in
/// microseconds.
pub(crate) fn unmarked_text(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr(b'!', bytes).is_none() && memchr::memmem::find(bytes, b"\\u0021").is_none()
}

/// [`strip_markers`], unless the value is known to carry no markers.
fn strip(value: Value, markers: Markers) -> Value {
    match markers {
        Markers::Maybe => strip_markers(value),
        Markers::InServices | Markers::None => value,
    }
}

fn merge_inner(mut base: Array, newer: Array, services: bool, markers: Markers) -> Array {
    if base.is_empty() && adoptable(&newer) {
        return adopt(newer, services, markers);
    }
    let mut index = 0i64;
    for (key, entry) in newer.entries {
        if key == Key::Int(index) {
            index += 1;
            let value = strip(entry.value, markers);
            // Past key i64::MAX there is no next index; the item is dropped, as PHP does.
            if let Some(next) = base.checked_next_index() {
                base.insert(Key::Int(next), entry.key_span, value);
            }
            continue;
        }
        if let Key::Str(s) = &key {
            if let Some(name) = s.strip_suffix('!') {
                let name = Key::from_string(name.to_string());
                let value = if services {
                    // `name!:` resets the service, also one an extension registered.
                    let value = add_reset(mark_part_resets(widen(entry.value)), "all");
                    if base.entries.contains_key(&name) {
                        drop_alteration(value)
                    } else {
                        value
                    }
                } else {
                    strip(entry.value, markers)
                };
                base.insert(name, entry.key_span, value);
                continue;
            }
        }
        let is_services = key == Key::Str("services".into());
        let entry_value = if services && markers != Markers::None {
            mark_part_resets(entry.value)
        } else {
            entry.value
        };
        let entry = crate::neon::Entry {
            key_span: entry.key_span,
            value: entry_value,
        };
        if is_services && !base.entries.contains_key(&key) {
            let merged =
                merge_services(Value::new(Kind::Null, entry.key_span), entry.value, markers);
            base.insert(key, entry.key_span, merged);
            continue;
        }
        match base.entries.get_mut(&key) {
            Some(old) => {
                let old_value =
                    std::mem::replace(&mut old.value, Value::new(Kind::Null, old.key_span));
                old.value = if services {
                    merge_definition(old_value, drop_alteration(entry.value))
                } else if is_services {
                    merge_services(old_value, entry.value, markers)
                } else {
                    merge_values(old_value, entry.value, markers)
                };
            }
            None => base.insert(key, entry.key_span, strip(entry.value, markers)),
        }
    }
    base
}

/// Can [`adopt`] take `newer` over an empty base? When none of its own keys has a `!` marker
/// and its integer keys run `0, 1, 2, …` in order (so appending them gives the same keys), the
/// merge keeps every key where it is and only rewrites values.
fn adoptable(newer: &Array) -> bool {
    let mut index = 0i64;
    newer.entries.keys().all(|k| match k {
        Key::Int(i) if *i == index => {
            index += 1;
            true
        }
        Key::Int(_) => false,
        Key::Str(s) => !s.ends_with('!'),
    })
}

/// [`merge_inner`] over an empty base for an [`adoptable`] collection: the same values, in
/// place, without rebuilding the map (a layer's `services:` section holds every definition).
fn adopt(mut newer: Array, services: bool, markers: Markers) -> Array {
    for (key, entry) in newer.entries.iter_mut() {
        let span = entry.key_span;
        let value = std::mem::replace(&mut entry.value, Value::new(Kind::Null, span));
        entry.value = match key {
            Key::Int(_) => strip(value, markers),
            Key::Str(name) => {
                let value = if services && markers != Markers::None {
                    mark_part_resets(value)
                } else {
                    value
                };
                if name == "services" {
                    merge_services(Value::new(Kind::Null, span), value, markers)
                } else {
                    strip(value, markers)
                }
            }
        };
    }
    newer
}

/// Merges a `services:` section of a layer whose markers are `markers`. With markers: a
/// definition reset with `name!:` keeps its part markers (`arguments!`) inside, so a merged
/// tree is clean only outside `services:` ([`Markers::in_services`]).
fn merge_services(base: Value, newer: Value, markers: Markers) -> Value {
    let inside = markers.in_services();
    match (base.kind, newer.kind) {
        (Kind::Array(mut b), Kind::Array(n)) => {
            *b = merge_inner(std::mem::take(&mut *b), *n, true, inside);
            Value::new(Kind::Array(b), newer.span)
        }
        (Kind::Null, Kind::Array(mut n)) => {
            *n = merge_inner(Array::new(), std::mem::take(&mut *n), true, inside);
            Value::new(Kind::Array(n), newer.span)
        }
        (Kind::Array(b), Kind::Null) => Value::new(Kind::Array(b), base.span),
        (_, kind) => strip(Value::new(kind, newer.span), inside),
    }
}

/// One service definition over another: `false` removes, a map merges over the (widened) older
/// definition, a short form over a map sets its `create`.
fn merge_definition(base: Value, newer: Value) -> Value {
    let removal = |v: &Value| matches!(v.kind, Kind::Bool(false));
    if removal(&newer) || removal(&base) || newer.is_null() && !base.is_null() {
        return if newer.is_null() { base } else { newer };
    }
    merge(widen(base), widen(newer))
}

/// A definition merged over one from an earlier layer loses its `alteration: true`: as in
/// Nette's `DefinitionSchema::merge`, alteration only counts in the first layer that defines
/// the service (a later layer modifies an existing definition by construction). Other values
/// stay, so `false` still merges and a wrong type is still reported by the schema.
fn drop_alteration(mut def: Value) -> Value {
    if let Kind::Array(a) = &mut def.kind {
        let key = Key::Str("alteration".into());
        if matches!(
            a.entries.get(&key).map(|e| &e.value.kind),
            Some(Kind::Bool(true))
        ) {
            a.entries.shift_remove(&key);
        }
    }
    def
}

/// A definition in short form (`App\Foo`) as a map (`{create: App\Foo}`).
fn widen(v: Value) -> Value {
    match v.kind {
        Kind::Array(_) | Kind::Bool(false) | Kind::Null => v,
        _ => {
            let span = v.span;
            let mut a = Array::new();
            a.insert(Key::Str("create".into()), span, v);
            Value::new(Kind::Array(Box::new(a)), span)
        }
    }
}

/// Adds `part` to a definition map's `reset` list (Nette turns `!` markers into reset flags).
/// A `reset` written as one name (`reset: setup`) becomes a list that keeps it.
fn add_reset(mut def: Value, part: &str) -> Value {
    let span = def.span;
    if let Kind::Array(a) = &mut def.kind {
        let key = Key::Str("reset".into());
        if let Some(entry) = a.entries.get_mut(&key) {
            if let Kind::Str(_) = entry.value.kind {
                let name = entry.value.clone();
                let mut list = Array::new();
                list.push(name);
                entry.value = Value::new(Kind::Array(Box::new(list)), entry.value.span);
            }
        }
        if !matches!(
            a.entries.get(&key).map(|e| &e.value.kind),
            Some(Kind::Array(_))
        ) {
            a.insert(
                key.clone(),
                span,
                Value::new(Kind::Array(Box::default()), span),
            );
        }
        if let Some(Kind::Array(list)) = a.entries.get_mut(&key).map(|e| &mut e.value.kind) {
            list.push(Value::new(Kind::Str(part.into()), span));
        }
    }
    def
}

/// `arguments!`, `setup!` and `tags!` inside a definition: the key loses its marker and the
/// part is listed under `reset`, so it also replaces what an extension defined.
fn mark_part_resets(def: Value) -> Value {
    let parts: Vec<String> = match &def.kind {
        Kind::Array(a) => a
            .entries
            .keys()
            .filter_map(|k| match k {
                Key::Str(s) if s.ends_with('!') => Some(s.trim_end_matches('!').to_string()),
                _ => None,
            })
            .filter(|p| matches!(p.as_str(), "arguments" | "setup" | "tags"))
            .collect(),
        _ => return def,
    };
    parts.iter().fold(def, |d, p| add_reset(d, p))
}

/// The `invalid-value` errors of `key!:` markers on values that are no map or list, as Nette's
/// `NeonAdapter` reports them ("Replacing operator is available only for arrays, item 'k!' is
/// not array"), in the order of the keys: a `null` (an empty map to Nette) is allowed, and so
/// is a string that names a parameter (`bar!: %list%` replaces `bar` with what the parameter
/// expands to; docs/configuration.md, "Merging"). Called on each file's tree before it is
/// merged; a file whose text holds no marker ([`unmarked_text`]) need not be walked. Also a
/// warning for a marker written after a space (`x !:`), which leaves the space in the key.
pub(crate) fn misplaced_markers(data: &Array) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    misplaced_in(data, Level::Top, &mut found);
    found
}

/// Where a map walked by [`misplaced_in`] is: a file's top level, its `services:` section
/// (whose keys name definitions), or anywhere else.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Top,
    Services,
    Inner,
}

/// [`misplaced_markers`] in `a`, at `level` (in a `services:` section the note differs).
fn misplaced_in(a: &Array, level: Level, found: &mut Vec<Diagnostic>) {
    for (key, entry) in &a.entries {
        let marked = key.as_str().and_then(|n| Some((n, n.strip_suffix('!')?)));
        if let Some((name, bare)) = marked {
            // `x !: 3`: the key is `x ` with its space, which no `%x%` finds (a new user's
            // trial).
            if bare.ends_with([' ', '\t']) {
                found.push(
                    Diagnostic::warning(
                        Code::InvalidValue,
                        format!(
                            "The key '{name}' has a space before its '!': the key is '{bare}', space included."
                        ),
                    )
                    .with_primary(entry.key_span, "a space before the `!`")
                    .with_note(format!("write `{}!:`", bare.trim_end())),
                );
            }
            if !replaceable(&entry.value) {
                let note = if level == Level::Services {
                    format!(
                        "`{name}:` replaces the whole definition an earlier layer or an extension made; write it as a map, the class under `create:` (`{name}:` then `create: …` on the next line, indented), or drop the `!` to merge"
                    )
                } else {
                    format!(
                        "`{name}:` replaces the map or list an earlier layer gave instead of merging into it; a single value replaces without it: write `{bare}:`"
                    )
                };
                found.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "Replacing operator is available only for arrays, item '{name}' is not array."
                        ),
                    )
                    .with_primary(entry.key_span, "`!` replaces a map or list")
                    .with_secondary(
                        entry.value.span,
                        format!("a value of type {}", entry.value.type_name()),
                    )
                    .with_note(note),
                );
            }
        }
        if let Kind::Array(inner) = &entry.value.kind {
            let services = matches!(key, Key::Str(k) if k == "services" || k == "services!");
            let next = match level {
                Level::Top if services => Level::Services,
                _ => Level::Inner,
            };
            stacker::maybe_grow(64 * 1024, 1024 * 1024, || misplaced_in(inner, next, found));
        }
    }
}

/// Whether a value may follow a `key!:` marker: a map or list, `null`, or a string that names
/// a parameter (which may expand to a map or list).
fn replaceable(value: &Value) -> bool {
    match &value.kind {
        Kind::Array(_) | Kind::Null => true,
        Kind::Str(s) => s.contains('%'),
        _ => false,
    }
}

/// Removes `!` markers from keys of a value that is inserted without a base to merge with.
pub(crate) fn strip_markers(mut value: Value) -> Value {
    strip_markers_in(&mut value);
    value
}

/// [`strip_markers`] in place: a map is rebuilt only when one of its own keys has a marker
/// (renaming a key needs a new entry); otherwise its values are visited where they are.
fn strip_markers_in(value: &mut Value) {
    let Kind::Array(a) = &mut value.kind else {
        return;
    };
    let needs = a
        .entries
        .keys()
        .any(|k| matches!(k, Key::Str(s) if s.ends_with('!')));
    if !needs {
        for e in a.entries.values_mut() {
            strip_markers_in(&mut e.value);
        }
        return;
    }
    let entries = std::mem::take(&mut a.entries);
    for (k, mut e) in entries {
        strip_markers_in(&mut e.value);
        let k = match k {
            Key::Str(s) if s.ends_with('!') => {
                Key::from_string(s.trim_end_matches('!').to_string())
            }
            other => other,
        };
        a.entries.insert(k, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn array(text: &str) -> Array {
        match crate::neon::decode(text, FileId(0))
            .expect("valid NEON")
            .kind
        {
            Kind::Array(a) => *a,
            other => panic!("not a map: {other:?}"),
        }
    }

    /// Keys (as text) and values of `a`, in order, with nested maps shown by `to_json`.
    fn shown(a: &Array) -> Vec<(String, String)> {
        a.entries
            .iter()
            .map(|(k, e)| (k.to_string(), crate::neon::to_json(&e.value).to_string()))
            .collect()
    }

    const LAYER: &str = "\
services:
\ts!:
\t\tcreate: App\\S
\t\targuments!: [1]
\tt: {setup!: [a()], tags: [x]}
\t- App\\Anonymous
list: [a, b, {c!: 1}]
x!: {y!: 1, z: [1, 2]}
nested: {services: {u!: App\\U}, keep: {k!: v}}
";

    #[test]
    fn a_layer_over_nothing_merges_as_over_an_unrelated_key() {
        for text in [
            LAYER,
            "0: a\nfoo: b\n1: c\n",
            "0: a\n5: b\n1: c\n",
            "a: 1\n0: x\n",
        ] {
            let adopted = merge_arrays(Array::new(), array(text));
            let mut base = Array::new();
            base.insert(
                Key::Str("zzz".into()),
                crate::source::Span::new(FileId(0), 0, 0),
                Value::new(Kind::Int(1), crate::source::Span::new(FileId(0), 0, 0)),
            );
            let mut general = merge_arrays(base, array(text));
            general.entries.shift_remove(&Key::Str("zzz".into()));
            // the general path numbers appended items after the base's largest integer key
            // (none here), so both must agree item for item
            assert_eq!(shown(&adopted), shown(&general), "{text}");
        }
    }

    #[test]
    fn a_merged_layer_merges_the_same_without_a_second_walk_for_markers() {
        let base_text = "services:\n\ts: {create: App\\Old, setup: [b()]}\nlist: [z]\nx: {w: 1}\n";
        // An included file arrives merged already (its markers stripped outside `services:`).
        let layer = merge_arrays(Array::new(), array(LAYER));
        let slow = merge_arrays(array(base_text), layer.clone());
        let fast = merge_clean(array(base_text), layer.clone());
        assert_eq!(shown(&slow), shown(&fast));
        // and over nothing
        let slow = merge_arrays(Array::new(), layer.clone());
        let fast = merge_clean(Array::new(), layer);
        assert_eq!(shown(&slow), shown(&fast));
        assert!(shown(&fast).iter().all(|(k, _)| !k.ends_with('!')));
    }

    #[test]
    fn a_layer_without_markers_merges_the_same_without_walking_it() {
        let bases = [
            "",
            "services:\n\ts: {create: App\\Old, setup: [b()]}\n\tt: App\\T\nlist: [z]\nx: {w: 1}\n",
            "services: null\nlist: {0: q, k: v}\n",
        ];
        let layers = [
            "services:\n\ts: {arguments: [1], tags: [x]}\n\tt: {setup: [a()]}\n\t- App\\Anonymous\nlist: [a, b]\nx: {y: 1, z: [1, 2]}\n",
            "services:\n\tu: App\\U\nnested: {services: {v: App\\V}}\n",
            "0: a\nfoo: b\n1: c\n",
        ];
        for base in bases {
            for layer in layers {
                assert!(unmarked_text(layer));
                let base = || match base {
                    "" => Array::new(),
                    text => array(text),
                };
                let walked = merge_arrays(base(), array(layer));
                let unwalked = merge_unmarked(base(), array(layer));
                assert_eq!(shown(&walked), shown(&unwalked), "{layer:?}");
            }
        }
    }

    #[test]
    fn markers_on_scalars_and_after_a_space_are_reported() {
        let data = array(
            "parameters:\n\tl!: [1]\n\tp!: '%l%'\n\tn!:\n\tc!: 3\n\tx !: [1]\nservices:\n\ts!: App\\S\n",
        );
        let found: Vec<(crate::diagnostics::Severity, String)> = misplaced_markers(&data)
            .into_iter()
            .map(|d| (d.severity, d.message))
            .collect();
        use crate::diagnostics::Severity::{Error, Warning};
        assert_eq!(
            found,
            [
                (
                    Error,
                    "Replacing operator is available only for arrays, item 'c!' is not array."
                        .to_string()
                ),
                (
                    Warning,
                    "The key 'x !' has a space before its '!': the key is 'x ', space included."
                        .to_string()
                ),
                (
                    Error,
                    "Replacing operator is available only for arrays, item 's!' is not array."
                        .to_string()
                ),
            ]
        );
    }

    #[test]
    fn a_text_with_a_marker_or_its_escape_is_not_unmarked() {
        assert!(unmarked_text("services:\n\ts: App\\S\n"));
        assert!(!unmarked_text("services:\n\ts!: App\\S\n"));
        assert!(!unmarked_text("x: 'not a marker!'\n"));
        // "s\u0021" decodes to the key `s!`: a marker written as an escape
        let escaped = "services:\n\t\"s\\u0021\": App\\S\n";
        assert!(!unmarked_text(escaped));
        let key = shown(
            &array(escaped)
                .get("services")
                .map(|v| match &v.kind {
                    Kind::Array(a) => (**a).clone(),
                    _ => Array::new(),
                })
                .unwrap_or_default(),
        );
        assert_eq!(key[0].0, "s!");
    }
}
