//! The decoded NEON value tree.
//!
//! NEON has one collection type with ordered keys that are integers or strings (PHP array
//! semantics); [`Array`] keeps that order and the span of every key. Every [`Value`] carries the
//! byte [`Span`] of its source text. Spans do not take part in equality: two trees decoded from
//! differently formatted text compare equal when their values are equal.

use crate::source::Span;
pub use compact_str::CompactString;
use indexmap::IndexMap;

/// A key of a NEON collection, normalised as PHP normalises array keys (`'5'` is `Int(5)`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// An integer key (also implicit list indexes).
    Int(i64),
    /// Any other key. A [`CompactString`] keeps keys of up to 24 bytes inline (most keys of a
    /// configuration: section, field, parameter, service and class names), with no heap block.
    Str(CompactString),
}

impl Key {
    /// The key as text (`Int(5)` → `"5"`).
    pub fn as_string(&self) -> String {
        match self {
            Key::Int(i) => i.to_string(),
            Key::Str(s) => s.to_string(),
        }
    }

    /// The string key, or `None` for an integer key.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Key::Str(s) => Some(s),
            Key::Int(_) => None,
        }
    }

    /// Normalises a string key: a canonical decimal integer (`"5"`, `"-3"`, not `"05"`) becomes
    /// an integer key, anything else stays a string.
    pub fn from_string(s: impl AsRef<str> + Into<CompactString>) -> Key {
        let text = s.as_ref();
        let canonical = {
            let digits = text.strip_prefix('-').unwrap_or(text);
            !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits == "0" || !digits.starts_with('0'))
                && text != "-0"
        };
        if canonical {
            if let Ok(i) = text.parse::<i64>() {
                return Key::Int(i);
            }
        }
        Key::Str(s.into())
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Int(i) => write!(f, "{i}"),
            Key::Str(s) => f.write_str(s),
        }
    }
}

/// One item of an [`Array`]: the value plus where its key was written.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Span of the key text; for an implicit index (`- item`, inline list item) the span of the
    /// item itself.
    pub key_span: Span,
    /// The value.
    pub value: Value,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        self.value == other.value
    }
}

/// The map behind an [`Array`]: insertion-ordered, hashed with FxHash (`rustc-hash`), which is
/// several times cheaper than SipHash on the short keys of configurations; the order (and so
/// every output) does not depend on the hasher.
pub type Entries = IndexMap<Key, Entry, rustc_hash::FxBuildHasher>;

/// An ordered NEON collection (mapping, list or entity attributes).
///
/// Equality compares the entries only (like [`IndexMap`], regardless of order).
#[derive(Debug, Clone, Default)]
pub struct Array {
    /// Items in source order.
    pub entries: Entries,
    /// The largest integer key, valid while `entries` has the length recorded with it, so
    /// [`Array::push`] is O(1). Code that edits `entries` directly changes the length (or only
    /// replaces values), which makes the next call recompute it.
    max_int: MaxInt,
}

/// The largest integer key of an [`Array`] together with the length it was recorded at, in 16
/// bytes (an `Array` is then 72 bytes, which a boxed collection rounds to 80 with the
/// allocator's header instead of 96).
#[derive(Debug, Clone, Copy, Default)]
struct MaxInt {
    /// The number of entries when it was recorded.
    len: u32,
    /// 0: nothing recorded; 1: no integer key; 2: `max` is the largest integer key.
    state: u8,
    max: i64,
}

impl MaxInt {
    /// A record for a collection of `len` entries (nothing recorded past `u32::MAX` entries).
    fn new(len: usize, max: Option<i64>) -> MaxInt {
        match (u32::try_from(len), max) {
            (Ok(len), Some(max)) => MaxInt { len, state: 2, max },
            (Ok(len), None) => MaxInt {
                len,
                state: 1,
                max: 0,
            },
            (Err(_), _) => MaxInt::default(),
        }
    }

    /// The recorded answer, when it was recorded at length `len`.
    fn at(self, len: usize) -> Option<Option<i64>> {
        if self.state == 0 || self.len as usize != len {
            return None;
        }
        Some((self.state == 2).then_some(self.max))
    }
}

impl PartialEq for Array {
    fn eq(&self, other: &Array) -> bool {
        self.entries == other.entries
    }
}

impl Array {
    /// An empty collection.
    pub fn new() -> Array {
        Array::default()
    }

    /// Is this a list (keys exactly `0..n` in order)?
    pub fn is_list(&self) -> bool {
        self.entries
            .keys()
            .enumerate()
            .all(|(i, k)| *k == Key::Int(i as i64))
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Is it empty?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under a string key (normalised like any key).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .get(&Key::from_string(key.to_string()))
            .map(|e| &e.value)
    }

    /// The entry under a key.
    pub fn get_entry(&self, key: &Key) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// Values in order.
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.entries.values().map(|e| &e.value)
    }

    /// (key, value) pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Value)> {
        self.entries.iter().map(|(k, e)| (k, &e.value))
    }

    /// The next implicit index: one more than the largest integer key, or 0 when there is none
    /// or the largest is negative (nette/neon 3.4 behaviour). When the largest key is
    /// `i64::MAX` there is no next index (PHP refuses to append); this then returns `i64::MAX`,
    /// and [`Array::checked_next_index`] says `None`.
    pub fn next_index(&self) -> i64 {
        self.checked_next_index().unwrap_or(i64::MAX)
    }

    /// The next implicit index, or `None` when the largest integer key is `i64::MAX`.
    pub fn checked_next_index(&self) -> Option<i64> {
        let max = match self.max_int.at(self.entries.len()) {
            Some(max) => max,
            None => self.scan_max_int(),
        };
        match max {
            None => Some(0),
            Some(m) if m < 0 => Some(0),
            Some(m) => m.checked_add(1),
        }
    }

    /// The largest integer key, by looking at every key.
    fn scan_max_int(&self) -> Option<i64> {
        self.entries
            .keys()
            .filter_map(|k| match k {
                Key::Int(i) => Some(*i),
                Key::Str(_) => None,
            })
            .max()
    }

    /// The largest integer key, from the record when it is current (else recorded anew).
    fn current_max_int(&mut self) -> Option<i64> {
        match self.max_int.at(self.entries.len()) {
            Some(max) => max,
            None => {
                let max = self.scan_max_int();
                self.max_int = MaxInt::new(self.entries.len(), max);
                max
            }
        }
    }

    /// Inserts (or overwrites) an item.
    pub fn insert(&mut self, key: Key, key_span: Span, value: Value) {
        let max = self.current_max_int();
        let max = match key {
            Key::Int(i) if max.is_none_or(|m| i > m) => Some(i),
            _ => max,
        };
        self.entries.insert(key, Entry { key_span, value });
        self.max_int = MaxInt::new(self.entries.len(), max);
    }

    /// Appends an item under the next implicit index (amortised O(1)). PHP cannot append after
    /// key `i64::MAX`: the item is then dropped, as the decoder drops it; use
    /// [`Array::try_push`] to get it back instead.
    pub fn push(&mut self, value: Value) {
        let _ = self.try_push(value);
    }

    /// Appends an item under the next implicit index, or gives it back when there is none (the
    /// largest integer key is `i64::MAX`).
    pub fn try_push(&mut self, value: Value) -> Result<(), Value> {
        let next = match self.current_max_int() {
            Some(m) if m >= 0 => m.checked_add(1),
            _ => Some(0),
        };
        match next {
            Some(i) => {
                let span = value.span;
                self.insert(Key::Int(i), span, value);
                Ok(())
            }
            None => Err(value),
        }
    }
}

/// An entity `Name(attr, key: value)`. `value` is usually a string (the name) but may be any
/// value, as in the reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    /// The entity's value (its name).
    pub value: Value,
    /// Its attributes.
    pub attributes: Array,
}

/// What a [`Value`] is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `null`, `NULL`, or nothing after a colon.
    Null,
    /// `true`/`false`/`yes`/`no` in their accepted cases.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A float, including infinities and NaN.
    Float(f64),
    /// A string (also integers too large for 64 bits, kept as text); up to 24 bytes inline (see
    /// [`Key::Str`]).
    Str(CompactString),
    /// A date or date-time, normalised to `YYYY-MM-DDTHH:MM:SS[.ffffff]±HH:MM`.
    Date(String),
    /// A collection, boxed so that a `Value` stays small (48 bytes: every map entry holds one,
    /// and most values are scalars).
    Array(Box<Array>),
    /// An entity.
    Entity(Box<Entity>),
    /// A chain of entities `A(1)::b(2)`; link names are kept as written (`::b`).
    Chain(Vec<Entity>),
}

/// A decoded NEON value with its source span.
#[derive(Debug, Clone)]
pub struct Value {
    /// The value.
    pub kind: Kind,
    /// Where it was written.
    pub span: Span,
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.kind == other.kind
    }
}

/// Values made in Rust (no place in a file, [`Span::default`]), e.g. `-p` values given in
/// code through [`crate::compiler::Options::parameters`]: `options.parameters.insert("port".into(),
/// 8080.into())` (a new user's trial found `Value::new(Kind::Int(8080), Default::default())`
/// the only way).
macro_rules! value_from {
    ($($t:ty => |$v:ident| $kind:expr),* $(,)?) => {
        $(impl From<$t> for Value {
            fn from($v: $t) -> Value {
                Value::new($kind, Span::default())
            }
        })*
    };
}

value_from! {
    i64 => |v| Kind::Int(v),
    f64 => |v| Kind::Float(v),
    bool => |v| Kind::Bool(v),
    &str => |v| Kind::Str(v.into()),
    String => |v| Kind::Str(v.into()),
}

impl Value {
    /// A value with a span.
    pub fn new(kind: Kind, span: Span) -> Value {
        Value { kind, span }
    }

    /// The string, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The collection, when this is one.
    pub fn as_array(&self) -> Option<&Array> {
        match &self.kind {
            Kind::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The collection, mutably.
    pub fn as_array_mut(&mut self) -> Option<&mut Array> {
        match &mut self.kind {
            Kind::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Is this `null`?
    pub fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null)
    }

    /// A short name of the kind for messages: `string`, `int`, `array`, ...
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "bool",
            Kind::Int(_) => "int",
            Kind::Float(_) => "float",
            Kind::Str(_) => "string",
            Kind::Date(_) => "date",
            Kind::Array(_) => "array",
            Kind::Entity(_) | Kind::Chain(_) => "entity",
        }
    }
}
