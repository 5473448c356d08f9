//! What an entry of the catalog is read from ([`Node`]): an expanded expression, or the decoded
//! NEON value itself for an entry of a `types:` section that has no `%parameter%` and no
//! entity. Such an entry expands to exactly [`Expr::from_neon`] of it, so reading the value
//! gives the class, and the diagnostics, that reading its expansion gives, without making the
//! expansion: the `types:` section of a plain compilation is read this way on the catalog's
//! thread (issue #15; docs/performance.md, "Eleventh round").

use crate::expr::{escape_quoted_at, Expr, ExprArray, ExprKind};
use crate::neon::{Array, Key, Kind, Light, LightMap, Value};
use crate::source::Span;
use std::borrow::Cow;

/// A node as the catalog's reader sees it.
pub(super) enum View<'a, N: Node + 'a> {
    Null,
    Bool(bool),
    /// A string as the expansion has it: a quoted string that starts with `@` is escaped
    /// (`'@x'` is `@@x`, as in Nette's NeonAdapter), a date is its text.
    Str(Cow<'a, str>),
    Array(&'a N::Map),
    /// A number or a statement.
    Other,
}

/// A tree the catalog reads classes from (see the module's documentation).
pub(super) trait Node: Sized + 'static {
    /// Its collections.
    type Map;

    /// What the node is.
    fn view(&self) -> View<'_, Self>;

    /// Where it is written.
    fn span(&self) -> Option<Span>;

    /// The node as an expression (a parameter's default, a constant's value).
    fn to_expr(&self) -> Expr;

    /// The entries of a collection, in order.
    fn entries(map: &Self::Map) -> impl Iterator<Item = (&Key, &Self)>;

    /// The number of entries of a collection.
    fn len(map: &Self::Map) -> usize;

    /// The entry `key` of a collection.
    fn get<'a>(map: &'a Self::Map, key: &str) -> Option<&'a Self>;

    /// Where the string key `key` of a collection is written (`None` for an integer key,
    /// whose position is its value's, as an expansion records no span for it).
    fn key_span(map: &Self::Map, key: &Key) -> Option<Span>;

    /// How a message names the value (as [`Expr::describe`] names its expansion).
    fn describe(&self) -> String;

    /// The collection, when it is one.
    fn as_map(&self) -> Option<&Self::Map> {
        match self.view() {
            View::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The string, when it is one.
    fn as_text(&self) -> Option<Cow<'_, str>> {
        match self.view() {
            View::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Whether it is `null`.
    fn is_nothing(&self) -> bool {
        matches!(self.view(), View::Null)
    }
}

impl Node for Expr {
    type Map = ExprArray;

    fn view(&self) -> View<'_, Expr> {
        match &self.kind {
            ExprKind::Null => View::Null,
            ExprKind::Bool(b) => View::Bool(*b),
            ExprKind::Str(s) => View::Str(Cow::Borrowed(s)),
            ExprKind::Array(a) => View::Array(a),
            _ => View::Other,
        }
    }

    fn span(&self) -> Option<Span> {
        self.span
    }

    fn to_expr(&self) -> Expr {
        self.clone()
    }

    fn entries(map: &ExprArray) -> impl Iterator<Item = (&Key, &Expr)> {
        map.items.iter()
    }

    fn len(map: &ExprArray) -> usize {
        map.items.len()
    }

    fn get<'a>(map: &'a ExprArray, key: &str) -> Option<&'a Expr> {
        map.get(key)
    }

    fn key_span(map: &ExprArray, key: &Key) -> Option<Span> {
        match key {
            Key::Str(s) => map.key_span(s),
            Key::Int(_) => None,
        }
    }

    fn describe(&self) -> String {
        Expr::describe(self)
    }
}

impl Node for Value {
    type Map = Array;

    fn view(&self) -> View<'_, Value> {
        match &self.kind {
            Kind::Null => View::Null,
            Kind::Bool(b) => View::Bool(*b),
            Kind::Str(s) => match escape_quoted_at(self) {
                Some(escaped) => View::Str(Cow::Owned(escaped)),
                None => View::Str(Cow::Borrowed(s)),
            },
            Kind::Date(d) => View::Str(Cow::Borrowed(d)),
            Kind::Array(a) => View::Array(&**a),
            Kind::Int(_) | Kind::Float(_) | Kind::Entity(_) | Kind::Chain(_) => View::Other,
        }
    }

    fn span(&self) -> Option<Span> {
        Some(self.span)
    }

    fn to_expr(&self) -> Expr {
        Expr::from_neon(self)
    }

    fn entries(map: &Array) -> impl Iterator<Item = (&Key, &Value)> {
        map.entries.iter().map(|(k, e)| (k, &e.value))
    }

    fn len(map: &Array) -> usize {
        map.entries.len()
    }

    fn get<'a>(map: &'a Array, key: &str) -> Option<&'a Value> {
        map.get(key)
    }

    fn key_span(map: &Array, key: &Key) -> Option<Span> {
        match key {
            Key::Str(_) => map.get_entry(key).map(|e| e.key_span),
            Key::Int(_) => None,
        }
    }

    fn describe(&self) -> String {
        Expr::from_neon(self).describe()
    }
}

/// A node of the lighter decode of a `types:` file: read as the [`Value`] it stands for
/// ([`Light::to_value`]) is read, its scalars being those very values.
impl Node for Light {
    type Map = LightMap;

    fn view(&self) -> View<'_, Light> {
        match self {
            Light::Scalar(v) => match v.view() {
                View::Null => View::Null,
                View::Bool(b) => View::Bool(b),
                View::Str(s) => View::Str(s),
                // (A scalar is never a collection.)
                View::Array(_) | View::Other => View::Other,
            },
            Light::Map(m) => View::Array(m),
        }
    }

    fn span(&self) -> Option<Span> {
        Some(Light::span(self))
    }

    fn to_expr(&self) -> Expr {
        match self {
            Light::Scalar(v) => Expr::from_neon(v),
            Light::Map(_) => Expr::from_neon(&self.to_value()),
        }
    }

    fn entries(map: &LightMap) -> impl Iterator<Item = (&Key, &Light)> {
        map.entries.iter().map(|e| (&e.key, &e.value))
    }

    fn len(map: &LightMap) -> usize {
        map.entries.len()
    }

    fn get<'a>(map: &'a LightMap, key: &str) -> Option<&'a Light> {
        map.get(key).map(|e| &e.value)
    }

    fn key_span(map: &LightMap, key: &Key) -> Option<Span> {
        match key {
            Key::Str(_) => map
                .entries
                .iter()
                .find(|e| e.key == *key)
                .map(|e| e.key_span),
            Key::Int(_) => None,
        }
    }

    fn describe(&self) -> String {
        self.to_expr().describe()
    }
}

/// Whether an entry of a `types:` section can be read as it was decoded (`Node` for
/// [`Value`]): no key or string in it holds a `%` (it names no parameter, and has no `%%`
/// escape either) and it holds no entity (whose expansion checks its callee and may report).
/// Then its expansion is exactly [`Expr::from_neon`] of it and reports nothing.
pub fn reads_as_decoded(key: &Key, value: &Value) -> bool {
    !matches!(key, Key::Str(s) if s.contains('%')) && plain(value)
}

fn plain(v: &Value) -> bool {
    match &v.kind {
        Kind::Str(s) => !s.contains('%'),
        Kind::Array(a) => a.entries.iter().all(|(k, e)| {
            !matches!(k, Key::Str(s) if s.contains('%'))
                && stacker::maybe_grow(64 * 1024, 1024 * 1024, || plain(&e.value))
        }),
        Kind::Entity(_) | Kind::Chain(_) => false,
        Kind::Null | Kind::Bool(_) | Kind::Int(_) | Kind::Float(_) | Kind::Date(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, CatalogStream};
    use crate::config::StreamedValue;
    use crate::diagnostics::Diagnostics;
    use crate::source::FileId;

    /// A `types:` section with every kind of value the reader looks at, right and wrong:
    /// quoted `@` strings, dates, numbers, nested maps and lists, constants, bad flags, types
    /// and keys, and entries that name a parameter or hold an entity (read from their
    /// expansion).
    const TYPES: &str = r#"parameters:
	base: App\Base
types:
	App\Base: {}
	App\Iface: {interface: true, constructor: {a: int}}
	App\Db:
		extends: App\Base
		implements: [App\Iface, '@App\Quoted', 5]
		async: yes
		constructor:
			dsn: string
			port: {type: int, default: 5432}
			when: {type: string, default: 2024-01-02}
			ratio: {type: float, default: 1.5}
			tags: {type: array, default: [a, b: {c: 1}]}
			quoted: {type: string, default: '@literal'}
			rest: {type: 'string', variadic: true}
			after: mixed
			odd: {type: int, default: 'text', colour: red}
			bad: 12
		methods:
			find: {params: {id: int}, returns: ?App\Db, static: 1}
			broken: [1, 2]
			other: {returns: [x], when: now}
		properties:
			$logger: {type: App\Logger, inject: true}
			count: {type: int, inject: true}
			name: string
			weird: 3.5
		constants:
			LIMIT: 10
			NAMES: [a, b]
			AT: '@x'
	App\Logger: {abstract: maybe}
	App\Typed:
		constructor: {x: 'int|', y: {type: App\Missing}}
	App\Param:
		extends: %base%
	App\Entity:
		constructor: {x: {type: App\Base, default: App\Base()}}
	App\Nulls:
		constructor: {x: {type: App\Base, default: null}}
	App\Unknown: {colour: blue}
	App\Scalar: 5
	7: {}
	App\Empty:
"#;

    fn section() -> crate::neon::Array {
        match crate::neon::decode(TYPES, FileId(0)).expect("decodes").kind {
            Kind::Array(a) => *a,
            _ => panic!("not a map"),
        }
    }

    #[test]
    fn a_decoded_entry_reads_as_its_expansion() {
        // Every entry expanded, then read.
        let mut expanded_diags = Diagnostics::new();
        let (_, sections) =
            crate::config::expand_config(&section(), &[], &Default::default(), &mut expanded_diags);
        let expanded =
            Catalog::from_section(sections.get("types").map(|(_, v)| v), &mut expanded_diags);
        // Streamed: the entries without parameters or entities read as decoded.
        let mut diags = Diagnostics::new();
        let mut stream = CatalogStream::new();
        let mut decoded = Vec::new();
        crate::config::expand_config_streaming(
            section(),
            &[],
            &Default::default(),
            &mut diags,
            "types",
            &mut |(key, span, value)| match value {
                StreamedValue::Decoded(v) => {
                    decoded.push(key.as_string());
                    stream.add_decoded(&key, Some(span), &v)
                }
                StreamedValue::Expanded(e) => stream.add(&key, Some(span), &e),
            },
        );
        let streamed = stream.finish(&mut diags);
        assert_eq!(format!("{streamed:?}"), format!("{expanded:?}"));
        let messages = |d: &Diagnostics| format!("{:?}", d.items());
        assert_eq!(messages(&diags), messages(&expanded_diags));
        assert_eq!(
            decoded,
            [
                "App\\Base",
                "App\\Iface",
                "App\\Db",
                "App\\Logger",
                "App\\Typed",
                "App\\Nulls",
                "App\\Unknown",
                "App\\Scalar",
                "7",
                "App\\Empty"
            ]
        );
        // The problems are there to compare: wrong flags, types, keys, names and values.
        assert_eq!(diags.len(), 20, "{}", messages(&diags));
        let text = messages(&diags);
        for part in [
            "implements' expects to be class name, 5 given",
            "abstract' expects to be bool, 'maybe' given",
            "'@App\\\\Quoted' in 'types › App\\\\Db › implements' is not a class name",
            "'7' in the `types:` section is not a class name",
            "properties › weird' expects to be type string or map, 3.5 given",
            "The default null of 'types › App\\\\Nulls › constructor › x' does not fit",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
        // A quoted `@` string reads escaped, as its expansion has it.
        let quoted = crate::neon::decode("'@x'", FileId(0)).expect("decodes");
        assert!(matches!(quoted.view(), View::Str(s) if s == "@@x"));
        assert_eq!(Node::to_expr(&quoted).as_str(), Some("@@x"));
    }

    #[test]
    fn only_entries_without_parameters_and_entities_read_as_decoded() {
        let value = |text: &str| crate::neon::decode(text, FileId(0)).expect("decodes");
        let key = Key::Str("App\\A".into());
        assert!(reads_as_decoded(
            &key,
            &value("{a: [1, 'x', 2024-01-01, {b: null}]}")
        ));
        assert!(!reads_as_decoded(&key, &value("{a: [1, {b: '%p%'}]}")));
        assert!(!reads_as_decoded(&key, &value("{a: '100%%'}")));
        assert!(!reads_as_decoded(&key, &value("{'%k%': 1}")));
        assert!(!reads_as_decoded(
            &Key::Str("App\\%p%".into()),
            &value("{}")
        ));
        assert!(!reads_as_decoded(&key, &value("{a: {b: Foo(1)}}")));
        assert!(!reads_as_decoded(&key, &value("{a: Foo()::bar()}")));
    }
}
