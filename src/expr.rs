//! The configuration value model after loading: NEON values in which entities have become
//! [`Statement`]s and parameters have been expanded (dynamic ones stay as [`ExprKind::Dynamic`]).
//!
//! This is what Nette's loader produces from NEON (arrays plus `Statement` objects). The
//! `services:` loader later turns `@name` strings into references; everywhere else a string is a
//! string. Every node keeps the span of the NEON text it came from (`None` for values made by
//! scripts or by the compiler).

use crate::neon::{CompactString, Key};
use crate::source::Span;
use indexmap::IndexMap;

/// Up to this many items, [`ExprArray::get`] compares the keys in turn instead of hashing.
const SCAN_AT_MOST: usize = 8;

/// An ordered collection with integer or string keys (PHP array semantics, as in NEON).
#[derive(Clone, Default)]
pub struct ExprArray {
    /// Items in order, hashed with FxHash (as [`crate::neon::Entries`]: several times cheaper
    /// than SipHash on a configuration's short keys; the order does not depend on it).
    pub items: IndexMap<Key, Expr, rustc_hash::FxBuildHasher>,
    /// Where string keys were written, for collections read from a file (see
    /// [`ExprArray::key_span`]). Not part of the value: equality ignores it.
    key_spans: KeySpans,
}

/// Up to this many key spans, [`KeySpans`] finds a key by comparing the keys in turn; past it,
/// through a hash index.
const KEY_SPANS_SCANNED: usize = 16;

/// Where the string keys of one collection were written: a list in the order they were
/// recorded, with a hash index (FxHash) only once the list is longer than
/// [`KEY_SPANS_SCANNED`]. Most collections are small (a definition's or a class's few keys):
/// a list is one block of 40 bytes a key, where a hash table was a block of control bytes and
/// slots twice the keys' number, hashed on every write and read.
///
/// Both parts are one pointer wide (the list's length and capacity sit in its block), so a
/// collection is no larger than with one hash table: every [`Expr`] holds a collection's room,
/// and a larger one is copied whenever an expression moves.
#[derive(Clone, Default)]
struct KeySpans {
    /// Each key once, with its latest span.
    list: thin_vec::ThinVec<(CompactString, Span)>,
    /// Position in `list` by key, made once the list is longer than [`KEY_SPANS_SCANNED`].
    index: Option<Box<rustc_hash::FxHashMap<CompactString, usize>>>,
}

impl KeySpans {
    /// The position of `key` in the list.
    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            None => self.list.iter().position(|(k, _)| k.as_str() == key),
            Some(index) => index.get(key).copied(),
        }
    }

    /// Records `span` for `key` (the latest recording wins, as a map's insert).
    fn set(&mut self, key: &CompactString, span: Span) {
        if let Some(i) = self.position(key) {
            self.list[i].1 = span;
            return;
        }
        self.list.push((key.clone(), span));
        let len = self.list.len();
        match &mut self.index {
            Some(index) => {
                index.insert(key.clone(), len - 1);
            }
            None if len > KEY_SPANS_SCANNED => {
                let mut index = rustc_hash::FxHashMap::default();
                index.reserve(self.list.capacity());
                for (i, (k, _)) in self.list.iter().enumerate() {
                    index.insert(k.clone(), i);
                }
                self.index = Some(Box::new(index));
            }
            None => {}
        }
    }

    /// The span recorded for `key`.
    fn get(&self, key: &str) -> Option<Span> {
        self.position(key).map(|i| self.list[i].1)
    }
}

impl PartialEq for ExprArray {
    fn eq(&self, other: &ExprArray) -> bool {
        self.items == other.items
    }
}

impl std::fmt::Debug for ExprArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExprArray")
            .field("items", &self.items)
            .finish()
    }
}

impl ExprArray {
    /// An empty collection.
    pub fn new() -> ExprArray {
        ExprArray::default()
    }

    /// Where the string key `key` was written, when the collection was read from a file (for
    /// diagnostics about a key rather than its value).
    pub fn key_span(&self, key: &str) -> Option<Span> {
        self.key_spans.get(key)
    }

    /// Makes room for `additional` more string keys' spans (a map about to be filled from a
    /// NEON map of that many entries), so the span table is allocated once at its size.
    pub fn reserve_key_spans(&mut self, additional: usize) {
        self.key_spans.list.reserve(additional);
    }

    /// Records where a string key was written (integer keys are not recorded: a list item's
    /// position is its value's).
    pub fn set_key_span(&mut self, key: &Key, span: Span) {
        if let Key::Str(s) = key {
            self.key_spans.set(s, span);
        }
    }

    /// Appends under the next free integer index (one more than the largest, or 0).
    ///
    /// O(n): it looks at every key for the largest index (`items` is public, so no cached
    /// maximum could be trusted). Code that builds a list item by item from nothing inserts
    /// `Key::Int(0)`, `Key::Int(1)`, … itself, as the script value conversion does
    /// (`script::values`), instead of calling this n times.
    pub fn push(&mut self, value: Expr) {
        let next = self
            .items
            .keys()
            .filter_map(|k| match k {
                Key::Int(i) => Some(*i),
                Key::Str(_) => None,
            })
            .max()
            .map(|m| if m < 0 { 0 } else { m + 1 })
            .unwrap_or(0);
        self.items.insert(Key::Int(next), value);
    }

    /// The value under a string key.
    pub fn get(&self, key: &str) -> Option<&Expr> {
        // Most collections looked up by name are small (a definition map has one to four
        // keys, and is asked for each of the twenty keys a definition may have): comparing
        // the few string keys costs less than building and hashing a key. A text that could
        // be an integer key (`0`, `-3`) takes the hashed path, which makes it `Key::Int`.
        if self.items.len() <= SCAN_AT_MOST
            && !key.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        {
            return self.items.iter().find_map(|(k, v)| match k {
                Key::Str(s) if s.as_str() == key => Some(v),
                _ => None,
            });
        }
        // A key of up to 24 bytes is built inline: no allocation per lookup.
        self.items.get(&Key::from_string(key))
    }

    /// Is this a list (keys `0..n` in order)?
    pub fn is_list(&self) -> bool {
        self.items
            .keys()
            .enumerate()
            .all(|(i, k)| *k == Key::Int(i as i64))
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Is it empty?
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Values in order.
    pub fn values(&self) -> impl Iterator<Item = &Expr> {
        self.items.values()
    }
}

/// What a statement calls: a name (`App\Foo`, `App\Foo::create`, `@db::connect`, `not`) or a
/// member of another expression's result (`Foo(1)::bar` → `Member(<Foo(1)>, "bar")`).
#[derive(Debug, Clone, PartialEq)]
pub enum Callee {
    /// A class, function, or `Class::method` / `@service::method` string, as written.
    Name(String),
    /// A method (or constant/property) of the value of an expression.
    Member(Box<Expr>, String),
}

/// A NEON entity as a statement: `App\Foo(1, name: x)`, `@db::connect()`, `not(%debug%)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// What is called.
    pub callee: Callee,
    /// Arguments, positional (integer keys) and named (string keys).
    pub arguments: ExprArray,
}

/// What an [`Expr`] is.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string (dates are kept as their normalised text).
    Str(String),
    /// A collection.
    Array(ExprArray),
    /// An entity.
    Statement(Box<Statement>),
    /// A dynamic parameter (`%env.X%` or declared dynamic), read when the container starts.
    Dynamic(String),
    /// A string assembled at start-up from literal and dynamic parts.
    Concat(Vec<Expr>),
}

/// A configuration value with the span it came from.
#[derive(Debug, Clone)]
pub struct Expr {
    /// The value.
    pub kind: ExprKind,
    /// Where it was written, if it came from a file.
    pub span: Option<Span>,
    /// Written as a quoted NEON string (`'…'`, `"…"`, or a block). Nette's NeonAdapter reads
    /// `Class::CONSTANT` as a constant only in unquoted literals, so a quoted one stays text.
    pub quoted: bool,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        self.kind == other.kind
    }
}

impl Expr {
    /// A value with an optional span.
    pub fn new(kind: ExprKind, span: Option<Span>) -> Expr {
        Expr {
            kind,
            span,
            quoted: false,
        }
    }

    /// A value without a span.
    pub fn bare(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: None,
            quoted: false,
        }
    }

    /// A string value without a span.
    pub fn string(s: impl Into<String>) -> Expr {
        Expr::bare(ExprKind::Str(s.into()))
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The collection, when this is one.
    pub fn as_array(&self) -> Option<&ExprArray> {
        match &self.kind {
            ExprKind::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Is this `null`?
    pub fn is_null(&self) -> bool {
        matches!(self.kind, ExprKind::Null)
    }

    /// How deep this value nests once written into a plan as a parameter value: the nesting
    /// of JSON arrays and objects that `wireplan_runtime::plan::Expr::json_depth` counts for
    /// the plan value the compiler makes of it (a scalar or a statement, written as its text,
    /// is 0; a list or map 1 more than its deepest item; a dynamic reference 1; a concatenation
    /// 2 more than its deepest part; a non-finite float 1). Computed on the value itself, so
    /// no plan value is built just to be measured. Recursive: meant for values whose depth is
    /// already bounded (NEON's nesting limit, the parameter expander's plan-depth stop).
    pub fn plain_depth(&self) -> usize {
        fn deepest<'a>(items: impl Iterator<Item = &'a Expr>) -> usize {
            items.map(Expr::plain_depth).max().unwrap_or(0)
        }
        match &self.kind {
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Str(_)
            | ExprKind::Statement(_) => 0,
            ExprKind::Float(f) => usize::from(!f.is_finite()),
            ExprKind::Dynamic(_) => 1,
            ExprKind::Array(a) => 1 + deepest(a.items.values()),
            ExprKind::Concat(parts) => 2 + deepest(parts.iter()),
        }
    }

    /// A short type name for messages.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            ExprKind::Null => "null",
            ExprKind::Bool(_) => "bool",
            ExprKind::Int(_) => "int",
            ExprKind::Float(_) => "float",
            ExprKind::Str(_) | ExprKind::Concat(_) => "string",
            ExprKind::Array(_) => "array",
            ExprKind::Statement(_) => "statement",
            ExprKind::Dynamic(_) => "dynamic parameter",
        }
    }

    /// A short human rendering for messages (`'x'`, `123`, `array`).
    pub fn describe(&self) -> String {
        match &self.kind {
            ExprKind::Null => "null".into(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Int(i) => i.to_string(),
            ExprKind::Float(f) => f.to_string(),
            ExprKind::Str(s) => format!("'{s}'"),
            ExprKind::Array(_) => "array".into(),
            ExprKind::Statement(s) => match &s.callee {
                Callee::Name(n) => format!("{n}(...)"),
                Callee::Member(_, m) => format!("...::{m}(...)"),
            },
            ExprKind::Dynamic(n) => format!("%{n}%"),
            ExprKind::Concat(_) => "string".into(),
        }
    }
}

impl Expr {
    /// Converts a NEON value without expanding parameters (entities become statements, chains
    /// nested member calls, dates their text). Used for files extensions load themselves and
    /// statements they parse. As in Nette's NeonAdapter, a quoted string that starts with `@`
    /// is plain text (see [`escape_quoted_at`]); `_` entity arguments are skipped
    /// ([`is_skipped`]).
    pub fn from_neon(v: &crate::neon::Value) -> Expr {
        Expr::convert_neon(v, true)
    }

    /// [`Expr::from_neon`] that keeps quoted `@` strings as written: for values of the
    /// `parameters:` section, where `'@name'` stays a reference (see `docs/configuration.md`).
    pub(crate) fn from_neon_verbatim(v: &crate::neon::Value) -> Expr {
        Expr::convert_neon(v, false)
    }

    fn convert_neon(v: &crate::neon::Value, literal_at: bool) -> Expr {
        use crate::neon::Kind;
        let span = Some(v.span);
        let array = |a: &crate::neon::Array| {
            let mut out = ExprArray::new();
            for (k, entry) in &a.entries {
                out.items
                    .insert(k.clone(), Expr::convert_neon(&entry.value, literal_at));
                out.set_key_span(k, entry.key_span);
            }
            out
        };
        let entity = |e: &crate::neon::Entity, target: Option<Expr>| {
            let mut arguments = array(&e.attributes);
            arguments.items.retain(|k, _| !is_skipped(&e.attributes, k));
            let callee = match (&e.value.kind, target) {
                // Nette's callable form `[target, method](args)`. Another list has no name; the
                // compiler reports the empty name where the statement is used.
                (Kind::Array(a), None) => {
                    callable_callee(&array(a)).unwrap_or(Callee::Name(String::new()))
                }
                (_, Some(t)) => {
                    let name = e.value.as_str().unwrap_or_default();
                    Callee::Member(Box::new(t), name.trim_start_matches("::").to_string())
                }
                (_, None) => Callee::Name(e.value.as_str().unwrap_or_default().to_string()),
            };
            Statement { callee, arguments }
        };
        let kind = match &v.kind {
            Kind::Null => ExprKind::Null,
            Kind::Bool(b) => ExprKind::Bool(*b),
            Kind::Int(i) => ExprKind::Int(*i),
            Kind::Float(f) => ExprKind::Float(*f),
            Kind::Str(s) => {
                let kind = match escape_quoted_at(v).filter(|_| literal_at) {
                    Some(escaped) => ExprKind::Str(escaped),
                    None => ExprKind::Str(s.to_string()),
                };
                let mut e = Expr::new(kind, span);
                e.quoted = is_quoted_string(v);
                return e;
            }
            Kind::Date(s) => ExprKind::Str(s.clone()),
            Kind::Array(a) => ExprKind::Array(array(a)),
            Kind::Entity(e) => ExprKind::Statement(Box::new(entity(e, None))),
            Kind::Chain(links) => {
                let mut current: Option<Expr> = None;
                for link in links {
                    let st = entity(link, current.take());
                    current = Some(Expr::new(ExprKind::Statement(Box::new(st)), span));
                }
                return current.unwrap_or_else(|| Expr::new(ExprKind::Null, span));
            }
        };
        Expr::new(kind, span)
    }
}

/// The callee of Nette's callable form `[target, method](args)`, an entity whose value is a
/// two-item list: `[App\Foo, create]` calls `App\Foo::create`, `[@db, connect]` and
/// `[@self, setLogger]` call a method of that service, `[App\Foo(1), bar]` one of the
/// statement's result. `Err` says what is wrong with another list.
pub fn callable_callee(items: &ExprArray) -> Result<Callee, String> {
    if !items.is_list() || items.len() != 2 {
        let what = if items.is_list() {
            format!("a list of {} items", items.len())
        } else {
            "a map".to_string()
        };
        return Err(format!(
            "a callable is a list of two items, [class or @service, method], {what} given"
        ));
    }
    let mut it = items.values();
    let (Some(target), Some(method)) = (it.next(), it.next()) else {
        return Err("a callable is a list of two items".into());
    };
    let method = match method.as_str() {
        Some(m) if !m.is_empty() => m.trim_start_matches("::"),
        _ => {
            return Err(format!(
                "the method of a callable must be a method name, {} given",
                method.describe()
            ))
        }
    };
    match &target.kind {
        ExprKind::Str(t) if !t.is_empty() => Ok(Callee::Name(format!("{t}::{method}"))),
        ExprKind::Statement(_) => Ok(Callee::Member(Box::new(target.clone()), method.to_string())),
        _ => Err(format!(
            "the target of a callable must be a class, a @service or a statement, {} given",
            target.describe()
        )),
    }
}

/// Is this NEON value Nette's skip marker: an unquoted `_` as an entity argument, positional
/// (`App\Foo(1, _, 3)`) or named (`App\Foo(host: _)`)? The following arguments keep their
/// explicit positions, so the skipped parameter is autowired or takes its default (Nette's
/// NeonAdapter; a quoted `'_'` is the string, and so is `_` in a plain list or map). A literal
/// is unquoted when its span is exactly as long as its text.
pub fn is_skip_marker(v: &crate::neon::Value) -> bool {
    matches!(&v.kind, crate::neon::Kind::Str(s) if s == "_") && v.span.end - v.span.start == 1
}

/// Was this NEON string written in quotes (`'…'`, `"…"`, or a `'''` / `"""` block) and does
/// its text start with `@`?
///
/// The value tree has no "quoted" flag; the span tells. An unquoted literal that starts with
/// `@` is kept verbatim (it cannot be a number, date, bool or null), so its span is exactly as
/// long as its text. A quoted string's span also covers its quotes, and no escape makes the
/// text longer than what was written (`''` → `'`, `\n` → 1 byte, `\u00e9` → 2 bytes, `\_` → 2
/// bytes; a block drops its indentation), so its span is always longer than its text.
pub fn is_quoted_at_string(v: &crate::neon::Value) -> bool {
    matches!(&v.kind, crate::neon::Kind::Str(s)
        if s.starts_with('@') && (v.span.end - v.span.start) as usize > s.len())
}

/// Was this NEON string written in quotes? The span tells (see [`is_quoted_at_string`]): an
/// unquoted literal string's span is exactly as long as its text, a quoted one's is longer.
pub fn is_quoted_string(v: &crate::neon::Value) -> bool {
    matches!(&v.kind, crate::neon::Kind::Str(s) if (v.span.end - v.span.start) as usize > s.len())
}

/// Nette's NeonAdapter escaping of quoted `@` strings: `'@corp.example'` becomes the text
/// `@@corp.example`, which the compiler reads as the plain string `@corp.example` wherever an
/// unquoted `@name` would be a reference. A quoted string that already starts with `@@` is
/// left alone (it means the same). `None` when `v` is not a quoted `@` string.
pub fn escape_quoted_at(v: &crate::neon::Value) -> Option<String> {
    let s = v.as_str()?;
    if !is_quoted_at_string(v) {
        return None;
    }
    Some(if s.starts_with("@@") {
        s.to_string()
    } else {
        format!("@{s}")
    })
}

/// Is the entity argument under `key` (positional or named) a [skip marker](is_skip_marker)?
/// Nette's NeonAdapter removes every entity attribute whose value is the bare literal `_`.
pub fn is_skipped(attributes: &crate::neon::Array, key: &Key) -> bool {
    attributes
        .get_entry(key)
        .is_some_and(|e| is_skip_marker(&e.value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neon::{Kind, Value};

    fn decode(text: &str) -> Value {
        let mut sources = crate::source::SourceMap::new();
        let id = sources.add("<test>", text);
        crate::neon::decode(text, id).expect("valid NEON")
    }

    fn item<'a>(v: &'a Value, key: &str) -> &'a Value {
        v.as_array().and_then(|a| a.get(key)).expect("key")
    }

    #[test]
    fn key_spans_are_found_in_short_and_long_collections_and_the_latest_wins() {
        let span = |i: usize| Span::new(crate::source::FileId(1), i, i + 1);
        for count in [1, KEY_SPANS_SCANNED, KEY_SPANS_SCANNED + 1, 40] {
            let mut a = ExprArray::new();
            for i in 0..count {
                a.set_key_span(&Key::Str(format!("k{i}").into()), span(i));
            }
            // Integer keys have no recorded span (a list item's position is its value's).
            a.set_key_span(&Key::Int(3), span(99));
            for i in 0..count {
                assert_eq!(a.key_span(&format!("k{i}")), Some(span(i)), "{count} keys");
            }
            assert_eq!(a.key_span("3"), None);
            assert_eq!(a.key_span(&format!("k{count}")), None);
            // Recording a key again replaces its span, before and after the index is made.
            a.set_key_span(&Key::Str("k0".into()), span(500));
            assert_eq!(a.key_span("k0"), Some(span(500)));
            a.set_key_span(&Key::Str("late".into()), span(600));
            assert_eq!(a.key_span("late"), Some(span(600)));
            let last = count - 1;
            let want = if last == 0 { span(500) } else { span(last) };
            assert_eq!(a.key_span(&format!("k{last}")), Some(want));
            // A copy keeps them; equality does not look at them.
            let b = a.clone();
            assert_eq!(b.key_span("late"), Some(span(600)));
            assert_eq!(b, ExprArray::new());
        }
    }

    #[test]
    fn quoted_at_strings_are_told_from_unquoted_ones_by_their_span() {
        let v = decode(concat!(
            "a: @x\n",
            "b: '@x'\n",
            "c: \"@x\"\n",
            "d: '@@x'\n",
            "e: @x   # comment\n",
            "f: \"\\u0040x\"\n",
            "g: '''\n\t@x\n'''\n",
            "h: 'x@'\n",
            "i: ''\n",
        ));
        let quoted = |k: &str| is_quoted_at_string(item(&v, k));
        assert!(!quoted("a"));
        assert!(quoted("b"));
        assert!(quoted("c"));
        assert!(quoted("d"));
        assert!(!quoted("e"));
        assert!(
            quoted("f"),
            "an escape still leaves the span longer than the text"
        );
        assert!(quoted("g"));
        assert!(!quoted("h"), "only strings that start with @");
        assert!(!quoted("i"));
        assert_eq!(escape_quoted_at(item(&v, "b")).as_deref(), Some("@@x"));
        assert_eq!(escape_quoted_at(item(&v, "d")).as_deref(), Some("@@x"));
        assert_eq!(escape_quoted_at(item(&v, "a")), None);
    }

    #[test]
    fn inside_collections_and_entities_too() {
        let v = decode("a: [@x, '@x', {k: '@y', l: @y}]\nb: Foo(@x, '@x', n: '@x', m: @x)\n");
        let a = item(&v, "a").as_array().expect("list");
        let flags: Vec<bool> = a.values().take(2).map(is_quoted_at_string).collect();
        assert_eq!(flags, [false, true]);
        let map = a.values().nth(2).expect("map");
        assert!(is_quoted_at_string(item(map, "k")));
        assert!(!is_quoted_at_string(item(map, "l")));
        let Kind::Entity(e) = &item(&v, "b").kind else {
            panic!("entity");
        };
        let flags: Vec<bool> = e.attributes.values().map(is_quoted_at_string).collect();
        assert_eq!(flags, [false, true, true, false]);
    }

    #[test]
    fn a_two_item_list_before_parentheses_is_the_callable_form() {
        let v = decode(
            "a: [@self, setLogger](@logger)\nb: [App\\Math, make]()\nc: [App\\F(1), m]()\nd: [a, b, c]()\n",
        );
        let e = Expr::from_neon(&v);
        let callee = |k: &str| match &e.as_array().and_then(|a| a.get(k)).expect(k).kind {
            ExprKind::Statement(st) => st.callee.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(callee("a"), Callee::Name("@self::setLogger".into()));
        assert_eq!(callee("b"), Callee::Name("App\\Math::make".into()));
        assert!(matches!(callee("c"), Callee::Member(t, m)
            if m == "m" && matches!(&t.kind, ExprKind::Statement(_))));
        // Another list has no name; the compiler reports it where the statement is used.
        assert_eq!(callee("d"), Callee::Name(String::new()));
        let list = |items: &[Expr]| {
            let mut a = ExprArray::new();
            items.iter().cloned().for_each(|x| a.push(x));
            a
        };
        let err = callable_callee(&list(&[Expr::string("A"), Expr::bare(ExprKind::Int(1))]));
        assert!(err.unwrap_err().contains("the method of a callable"));
        let err = callable_callee(&list(&[Expr::bare(ExprKind::Null), Expr::string("m")]));
        assert!(err.unwrap_err().contains("the target of a callable"));
    }

    #[test]
    fn from_neon_escapes_quoted_at_strings_and_the_verbatim_form_does_not() {
        let v = decode("a: '@x'\nb: @x\n");
        let e = Expr::from_neon(&v);
        let a = e.as_array().expect("map");
        assert_eq!(a.get("a").and_then(Expr::as_str), Some("@@x"));
        assert_eq!(a.get("b").and_then(Expr::as_str), Some("@x"));
        let e = Expr::from_neon_verbatim(&v);
        assert_eq!(
            e.as_array().and_then(|a| a.get("a")).and_then(Expr::as_str),
            Some("@x")
        );
    }

    #[test]
    fn get_finds_the_same_items_in_small_and_large_collections() {
        // Small collections are scanned, large ones hashed: both find string keys, integer
        // keys written as text, and nothing else.
        for size in [3usize, SCAN_AT_MOST, SCAN_AT_MOST + 5] {
            let mut a = ExprArray::new();
            a.items.insert(Key::Int(0), Expr::bare(ExprKind::Int(-1)));
            a.items.insert(Key::Int(-2), Expr::bare(ExprKind::Int(-2)));
            for i in 0..size - 2 {
                a.items.insert(
                    Key::from_string(format!("k{i}")),
                    Expr::bare(ExprKind::Int(i as i64)),
                );
            }
            assert_eq!(a.len(), size);
            let int = |e: Option<&Expr>| match e.map(|e| &e.kind) {
                Some(ExprKind::Int(i)) => Some(*i),
                _ => None,
            };
            assert_eq!(int(a.get("0")), Some(-1), "size {size}");
            assert_eq!(int(a.get("-2")), Some(-2), "size {size}");
            assert_eq!(int(a.get("k0")), Some(0), "size {size}");
            assert_eq!(int(a.get(&format!("k{}", size - 3))), Some(size as i64 - 3));
            assert_eq!(int(a.get("K0")), None, "size {size}");
            assert_eq!(int(a.get("1")), None, "size {size}");
            assert_eq!(int(a.get("")), None, "size {size}");
        }
    }
}
