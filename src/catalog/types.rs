//! Type strings of the catalog (`int`, `?App\Db`, `A|B`, `App\Handler[]`, `Provider<T>`,
//! `int<0, max>`): parsing, syntax checks, built-in type names.

use std::sync::Arc;

use super::names::Name;

/// Names of built-in (non-class) types.
pub const BUILTIN_TYPES: &[&str] = &[
    "int", "float", "string", "bool", "array", "mixed", "callable", "object", "null", "void",
    "iterable", "false", "true", "never", "self", "static",
];

/// Is `name` a built-in type rather than a class?
pub fn is_builtin(name: &str) -> bool {
    // The longest built-in name has eight letters, and none has a `\`.
    if name.len() > 8 || name.contains('\\') {
        return false;
    }
    BUILTIN_TYPES.iter().any(|b| b.eq_ignore_ascii_case(name))
}

/// A parsed type string: `int`, `App\Db`, `?App\Db`, `A|B`, `App\Handler[]`. A catalog
/// holds one per distinct type text, shared by every parameter, property and return type
/// written with it ([`Ty`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeRef {
    /// The text as written (without surrounding spaces).
    pub text: Name,
    /// `?T` or a union containing `null`.
    pub nullable: bool,
    /// The member types of a union (one item for a simple type), without `null`.
    pub members: Box<[Name]>,
    /// For `T[]`: the item class.
    pub list_of: Option<Name>,
    /// For `Provider<T>`: the target type `T`, a lazy handle's (docs/async.md).
    pub provider_of: Option<Name>,
    /// For `int<min, max>` (PHPStan's integer range, what the registry declares for `u32`,
    /// `usize` and the other fixed-size integers): the inclusive bounds, `min` and `max`
    /// read as `i64::MIN` and `i64::MAX`. The type's member is `int`; the range only adds
    /// the compile-time check of a written integer ([`TypeRef::int_range_misfit`]).
    pub int_range: Option<(i64, i64)>,
    /// A type written wrong in the catalog: reported there and read as `mixed`, so a use of
    /// it reports nothing more (no "must be specified" for every service of the class).
    pub reported: bool,
    /// Where the autowiring index that last looked this type up keeps its entry, so the next
    /// lookup of the same parameter type skips the hashing and probing (see [`IndexSlot`]).
    pub index_slot: IndexSlot,
}

/// A memo on a [`TypeRef`]: which entry an autowiring index found for the type's class, tagged
/// with that index's generation (a number each finished index gets), in one atomic word so
/// threads completing services at once read a tag and a slot that belong together. Another
/// index (a later compilation, the REPL's next phase) has another generation and looks the
/// type up again. Not part of a type's value: it is ignored by equality and starts empty in a
/// copy. A parameter type is shared by every parameter written with it, so its class is
/// looked up by name once per index. At gen 100000 the lookups by name cost 59 ms of CPU
/// (cache misses in a table of over 100,000 types); with the memo the completion took 114
/// instead of 123 ms (docs/performance.md, "Thirty-first round").
#[derive(Default)]
pub struct IndexSlot(std::sync::atomic::AtomicU64);

impl IndexSlot {
    /// The slot remembered for the index of `generation` (not 0): `Some(None)` when that index
    /// has no entry for the type, `None` when nothing is remembered for it.
    pub fn get(&self, generation: u32) -> Option<Option<u32>> {
        let word = self.0.load(std::sync::atomic::Ordering::Relaxed);
        if generation == 0 || (word >> 32) as u32 != generation {
            return None;
        }
        Some(Some(word as u32).filter(|&at| at != u32::MAX))
    }

    /// Remembers `slot` (`None`: no entry; a slot must be below `u32::MAX`) for the index of
    /// `generation` (0 remembers nothing).
    pub fn set(&self, generation: u32, slot: Option<u32>) {
        if generation != 0 {
            let word = (u64::from(generation) << 32) | u64::from(slot.unwrap_or(u32::MAX));
            self.0.store(word, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Clone for IndexSlot {
    fn clone(&self) -> IndexSlot {
        IndexSlot::default()
    }
}

impl PartialEq for IndexSlot {
    fn eq(&self, _: &IndexSlot) -> bool {
        true
    }
}

impl std::fmt::Debug for IndexSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IndexSlot")
    }
}

/// A shared [`TypeRef`]: the catalog parses each distinct type text once.
pub type Ty = Arc<TypeRef>;

/// A class name without the surrounding spaces and the leading `\` (how the catalog, the
/// autowiring index and the definitions compare names). A name that starts with an ASCII
/// character other than a space or `\` and ends with an ASCII one other than a space, as
/// almost every name does, is returned without the Unicode whitespace scans of `trim`.
pub(crate) fn bare_name(name: &str) -> &str {
    let plain = |b: u8| b.is_ascii() && !b.is_ascii_whitespace();
    match name.as_bytes() {
        [first, .., last] if plain(*first) && *first != b'\\' && plain(*last) => name,
        [only] if plain(*only) && *only != b'\\' => name,
        _ => name.trim().trim_start_matches('\\'),
    }
}

impl TypeRef {
    /// Parses a type string. Never fails: unknown names are checked by the caller.
    pub fn parse(text: &str) -> TypeRef {
        TypeRef::parse_in(text, &mut |s| Name::from(s))
    }

    /// [`TypeRef::parse`], taking each name (the text, members, item and target class) from
    /// `name` — the catalog's interner.
    pub(super) fn parse_in(text: &str, name: &mut dyn FnMut(&str) -> Name) -> TypeRef {
        let text = text.trim();
        // The commonest type: one class or built-in name (what the general path below makes of
        // it, without splitting it as a union).
        if is_type_name(text) && !text.eq_ignore_ascii_case("null") {
            let written = name(text);
            let member = match text.strip_prefix('\\') {
                Some(bare) => name(bare),
                None => written.clone(),
            };
            return TypeRef {
                text: written,
                nullable: false,
                members: Box::new([member]),
                list_of: None,
                provider_of: None,
                int_range: None,
                reported: false,
                index_slot: IndexSlot::default(),
            };
        }
        let mut nullable = false;
        let mut body = text;
        if let Some(rest) = body.strip_prefix('?') {
            nullable = true;
            body = rest;
        }
        if let Some(item) = body.strip_suffix("[]") {
            return TypeRef {
                text: name(text),
                nullable,
                members: Box::new([name("array")]),
                list_of: Some(name(bare_name(item))),
                provider_of: None,
                int_range: None,
                reported: false,
                index_slot: IndexSlot::default(),
            };
        }
        if let Some(target) = provider_target(body) {
            let target = bare_name(target);
            return TypeRef {
                text: name(text),
                nullable,
                members: Box::new([name(&format!("Provider<{target}>"))]),
                list_of: None,
                provider_of: Some(name(target)),
                int_range: None,
                reported: false,
                index_slot: IndexSlot::default(),
            };
        }
        if let Some(Ok(range)) = int_range(body) {
            return TypeRef {
                text: name(text),
                nullable,
                members: Box::new([name("int")]),
                list_of: None,
                provider_of: None,
                int_range: Some(range),
                reported: false,
                index_slot: IndexSlot::default(),
            };
        }
        let mut members = Vec::with_capacity(body.matches('|').count() + 1);
        for m in body.split('|') {
            let m = m.trim();
            if m.eq_ignore_ascii_case("null") {
                nullable = true;
            } else if !m.is_empty() {
                members.push(name(bare_name(m)));
            }
        }
        TypeRef {
            text: name(text),
            nullable,
            members: members.into_boxed_slice(),
            list_of: None,
            provider_of: None,
            int_range: None,
            reported: false,
            index_slot: IndexSlot::default(),
        }
    }

    /// The class name when the type is a single class (nullable allowed).
    pub fn class(&self) -> Option<&str> {
        match &*self.members {
            [one] if !is_builtin(one) && self.list_of.is_none() => Some(one.as_str()),
            _ => None,
        }
    }

    /// For an `int<min, max>` type and an integer outside its bounds: the bound it passes,
    /// as the message's note words it (`"below its minimum 0"`). `None` for any other type
    /// or value.
    pub fn int_range_misfit(&self, value: i64) -> Option<String> {
        let (lo, hi) = self.int_range?;
        if value < lo {
            Some(format!("below its minimum {lo}"))
        } else if value > hi {
            Some(format!("above its maximum {hi}"))
        } else {
            None
        }
    }

    /// Is it a union or intersection of several types?
    pub fn is_complex(&self) -> bool {
        self.members.len() > 1
    }

    /// What is wrong with the written type, if anything: `Some("…")` for text that is no type,
    /// such as `''`, `'?'`, `'int||string'`, `'?int|string'` or `'App\\'`. [`TypeRef::parse`]
    /// never fails, so the catalog checks each type with this first.
    pub fn syntax_error(text: &str) -> Option<String> {
        let text = text.trim();
        // The commonest type by far: one class or built-in name (no `?`, `|`, `[]`, `<>`).
        if is_type_name(text) {
            return None;
        }
        let (nullable, body) = match text.strip_prefix('?') {
            Some(rest) => (true, rest.trim()),
            None => (false, text),
        };
        if body.is_empty() {
            return Some(if nullable {
                "'?' must be followed by a type".into()
            } else {
                "it is empty".into()
            });
        }
        if let Some(item) = body.strip_suffix("[]") {
            return (!is_type_name(item)).then(|| format!("'{item}' is not a class name"));
        }
        if let Some(target) = provider_target(body) {
            return (!is_type_name(target) || is_builtin(target))
                .then(|| format!("'{target}' in Provider<…> is not a class name"));
        }
        if body.contains('|') && body.to_ascii_lowercase().contains("int<") {
            return Some(
                "an integer range int<…> cannot be part of a union; write ?int<min, max> for a \
                 nullable one"
                    .into(),
            );
        }
        if let Some(range) = int_range(body) {
            return range.err();
        }
        let members: Vec<&str> = body.split('|').map(str::trim).collect();
        if nullable && members.len() > 1 {
            return Some("'?' cannot be combined with a union; add |null instead".into());
        }
        if members.iter().any(|m| m.is_empty()) {
            return Some("a union has an empty member".into());
        }
        members
            .iter()
            .find(|m| !is_type_name(m))
            .map(|m| format!("'{m}' is not a type name"))
    }
}

/// The bounds of an integer range `int<min, max>` (PHPStan's syntax: each bound an integer or
/// the word `min` / `max`, spaces allowed), `None` when `body` is no `int<…>` at all, and
/// `Some(Err(why))` when it is one written wrong (not two bounds, a bound that is no integer,
/// the minimum above the maximum).
pub fn int_range(body: &str) -> Option<Result<(i64, i64), String>> {
    let head = body.get(..4)?;
    if !head.eq_ignore_ascii_case("int<") {
        return None;
    }
    let Some(inner) = body[4..].strip_suffix('>') else {
        return Some(Err(
            "'int<' must end with '>' (in NEON quote the whole range, 'int<0, max>': a `,` \
             ends an unquoted value)"
                .into(),
        ));
    };
    let bounds: Vec<&str> = inner.split(',').map(str::trim).collect();
    let [lo, hi] = bounds[..] else {
        return Some(Err(format!(
            "int<{inner}> must give two bounds: int<min, max>, e.g. int<0, max>"
        )));
    };
    let bound = |text: &str, word: &str, at: i64| -> Result<i64, String> {
        if text.eq_ignore_ascii_case(word) {
            return Ok(at);
        }
        text.parse::<i64>()
            .map_err(|_| format!("'{text}' in int<…> is no integer (write a number or '{word}')"))
    };
    Some((|| {
        let (lo, hi) = (bound(lo, "min", i64::MIN)?, bound(hi, "max", i64::MAX)?);
        if lo > hi {
            return Err(format!("int<{lo}, {hi}> has its minimum above its maximum"));
        }
        Ok((lo, hi))
    })())
}

/// `T` of `Provider<T>` (spaces allowed inside the brackets).
fn provider_target(body: &str) -> Option<&str> {
    let inner = body.strip_prefix("Provider<")?.strip_suffix('>')?;
    Some(inner.trim())
}

/// Does `n` look like a class or built-in type name (`int`, `App\\Db`, `\\App\\Db`)?
pub(super) fn is_type_name(n: &str) -> bool {
    let n = n.strip_prefix('\\').unwrap_or(n);
    if n.is_ascii() {
        // Byte by byte (every name of a large catalog comes through here): words of ASCII
        // letters, digits and `_`, none empty or starting with a digit.
        let mut word_start = true;
        for &b in n.as_bytes() {
            if b == b'\\' {
                if word_start {
                    return false;
                }
                word_start = true;
            } else if b.is_ascii_alphabetic() || b == b'_' || (b.is_ascii_digit() && !word_start) {
                word_start = false;
            } else {
                return false;
            }
        }
        return !word_start;
    }
    !n.is_empty()
        && n.split('\\').all(|part| {
            !part.is_empty()
                && part.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !part.starts_with(|c: char| c.is_ascii_digit())
        })
}

/// Strips a leading `\` from a class name.
pub fn normalize_name(name: &str) -> String {
    bare_name(name).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte reading of ASCII names answers as the rule over characters does.
    #[test]
    fn type_names_read_by_bytes_as_by_characters() {
        let by_chars = |n: &str| {
            let n = n.strip_prefix('\\').unwrap_or(n);
            !n.is_empty()
                && n.split('\\').all(|part| {
                    !part.is_empty()
                        && part.chars().all(|c| c.is_alphanumeric() || c == '_')
                        && !part.starts_with(|c: char| c.is_ascii_digit())
                })
        };
        let cases = [
            ("App\\Db", true),
            ("\\App\\Db", true),
            ("int", true),
            ("_x\\y_1", true),
            ("App\\S1234", true),
            ("", false),
            ("\\", false),
            ("App\\", false),
            ("App\\\\Db", false),
            ("\\\\App", false),
            ("1App", false),
            ("App\\1x", false),
            ("App Db", false),
            ("a-b", false),
            ("@App", false),
            ("Ápp\\Dé", true),
            ("App\\Dé x", false),
        ];
        for (name, expected) in cases {
            assert_eq!(is_type_name(name), expected, "{name:?}");
            assert_eq!(by_chars(name), expected, "{name:?}");
        }
        assert!(is_builtin("iterable") && is_builtin("INT") && !is_builtin("App\\int"));
        assert!(!is_builtin("integers") && !is_builtin("callables"));
    }

    /// `int<min, max>`: an `int` with bounds (words for the ends of `i64`), checked values, and
    /// the ways to write one wrong.
    #[test]
    fn integer_ranges() {
        let t = TypeRef::parse("?int<0, max>");
        assert_eq!(
            (t.nullable, &*t.members[0], t.int_range),
            (true, "int", Some((0, i64::MAX)))
        );
        assert_eq!(
            TypeRef::parse("INT< min ,-3 >").int_range,
            Some((i64::MIN, -3))
        );
        let byte = TypeRef::parse("int<0, 255>");
        assert_eq!(
            byte.int_range_misfit(-1).as_deref(),
            Some("below its minimum 0")
        );
        assert_eq!(
            byte.int_range_misfit(256).as_deref(),
            Some("above its maximum 255")
        );
        assert_eq!(
            (byte.int_range_misfit(0), byte.int_range_misfit(255)),
            (None, None)
        );
        assert_eq!(TypeRef::parse("int").int_range_misfit(-1), None);
        assert_eq!(TypeRef::syntax_error("int<0, max>"), None);
        for (text, why) in [
            ("int<2, 1>", "int<2, 1> has its minimum above its maximum"),
            (
                "int<1>",
                "int<1> must give two bounds: int<min, max>, e.g. int<0, max>",
            ),
            (
                "int<1, 2, 3>",
                "int<1, 2, 3> must give two bounds: int<min, max>, e.g. int<0, max>",
            ),
            (
                "int<x, 2>",
                "'x' in int<…> is no integer (write a number or 'min')",
            ),
            (
                "int<0, 1e3>",
                "'1e3' in int<…> is no integer (write a number or 'max')",
            ),
            ("int<0, max", "'int<' must end with '>' (in NEON quote the whole range, 'int<0, max>': a `,` ends an unquoted value)"),
            ("?int<0, max>|null", "an integer range int<…> cannot be part of a union; write ?int<min, max> for a nullable one"),
            ("null|int<0, 1>", "an integer range int<…> cannot be part of a union; write ?int<min, max> for a nullable one"),
        ] {
            assert_eq!(TypeRef::syntax_error(text).as_deref(), Some(why), "{text}");
        }
    }

    /// A type that is one name parses on its short path as on the general one (a union of one).
    #[test]
    fn one_name_parses_as_a_union_of_one() {
        for text in ["App\\Db", " \\App\\Db ", "int", "Provider", "App\\S1"] {
            let short = TypeRef::parse(text);
            let mut general = TypeRef::parse(&format!("{text}|null"));
            general.nullable = false;
            general.text = short.text.clone();
            assert_eq!(short, general, "{text:?}");
            assert_eq!(&*short.text, text.trim());
        }
        assert!(TypeRef::parse("null").nullable && TypeRef::parse("null").members.is_empty());
    }
}
