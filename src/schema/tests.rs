use super::*;
use crate::diagnostics::Diagnostics;
use crate::expr::{Callee, ExprArray, ExprKind, Statement};
use crate::neon::Key;
use crate::neon::{self, Kind, Value};
use crate::source::{SourceMap, Span};

/// A NEON text as a configuration value (no parameter expansion).
fn v(text: &str) -> Expr {
    let mut sm = SourceMap::new();
    let id = sm.add("t.neon", text);
    to_expr(&neon::decode(text, id).expect("valid NEON"))
}

fn to_expr(v: &Value) -> Expr {
    let kind = match &v.kind {
        Kind::Null => ExprKind::Null,
        Kind::Bool(b) => ExprKind::Bool(*b),
        Kind::Int(i) => ExprKind::Int(*i),
        Kind::Float(f) => ExprKind::Float(*f),
        Kind::Str(s) => ExprKind::Str(s.to_string()),
        Kind::Date(s) => ExprKind::Str(s.clone()),
        Kind::Array(a) => {
            let mut out = ExprArray::new();
            for (k, x) in a.iter() {
                out.items.insert(k.clone(), to_expr(x));
            }
            ExprKind::Array(out)
        }
        Kind::Entity(e) => {
            let mut args = ExprArray::new();
            for (k, x) in e.attributes.iter() {
                args.items.insert(k.clone(), to_expr(x));
            }
            ExprKind::Statement(Box::new(Statement {
                callee: Callee::Name(e.value.as_str().unwrap_or_default().to_string()),
                arguments: args,
            }))
        }
        Kind::Chain(_) => ExprKind::Null,
    };
    Expr::new(kind, Some(v.span))
}

fn ok(schema: &Expect, text: &str) -> Expr {
    match Processor::new().process(schema, v(text)) {
        Ok(x) => x,
        Err(e) => panic!("unexpected errors for {text}: {e:?}"),
    }
}

/// The messages of all errors, with the path prefixed by `blog`.
fn errs(schema: &Expect, text: &str) -> Vec<String> {
    match Processor::new().at_path(["blog"]).process(schema, v(text)) {
        Ok(x) => panic!("expected errors for {text}, got {x:?}"),
        Err(e) => e.into_iter().map(|d| d.message).collect(),
    }
}

fn s(text: &str) -> String {
    text.replace(" › ", PATH_SEP)
}

const PATH_SEP: &str = "\u{a0}›\u{a0}";

#[test]
fn scalar_types_and_messages() {
    let schema = Expect::structure([("postsPerPage", Expect::int())]);
    assert_eq!(
        errs(&schema, "postsPerPage: x"),
        [s(
            "The item 'blog › postsPerPage' expects to be int, 'x' given."
        )]
    );
    assert_eq!(ok(&Expect::int(), "5"), v("5"));
    assert_eq!(ok(&Expect::float(), "5"), Expr::bare(ExprKind::Float(5.0)));
    assert_eq!(ok(&Expect::bool(), "true"), v("true"));
    assert_eq!(ok(&Expect::scalar(), "1.5"), v("1.5"));
    assert_eq!(ok(&Expect::null(), "null"), v("null"));
    let e = Processor::new()
        .process(&Expect::int(), v("x"))
        .unwrap_err();
    assert_eq!(e[0].message, "The item expects to be int, 'x' given.");
    assert_eq!(e[0].code, crate::diagnostics::Code::InvalidValue);
    assert!(e[0].primary_span().is_some());
}

/// A whole number past the 64-bit range is text in NEON; the error about it says so (the
/// quoted, shortened value looked like a string the user wrote; a new user's trial).
#[test]
fn a_whole_number_past_the_range_is_said_to_be_text() {
    let e = Processor::new()
        .process(&Expect::int(), v("99999999999999999999"))
        .unwrap_err();
    assert_eq!(
        e[0].message,
        "The item expects to be int, '999999999999...' given."
    );
    assert_eq!(
        e[0].notes,
        [
            "99999999999999999999 is past the range of a whole number (-9223372036854775808 to \
          9223372036854775807), so NEON reads it as text"
        ]
    );
    // Other text gets no such note.
    let e = Processor::new()
        .process(&Expect::int(), v("x"))
        .unwrap_err();
    assert!(e[0].notes.is_empty(), "{:?}", e[0].notes);
}

#[test]
fn type_strings() {
    let t = Expect::type_("int|string");
    assert_eq!(ok(&t, "x"), v("x"));
    let e = Processor::new().process(&t, v("[1]")).unwrap_err();
    assert_eq!(
        e[0].message,
        "The item expects to be int or string, array given."
    );
    assert_eq!(ok(&Expect::type_("string[]"), "[a, b]"), v("[a, b]"));
    assert!(Processor::new()
        .process(&Expect::type_("string[]"), v("[a, 1]"))
        .is_err());
    assert!(Processor::new()
        .process(&Expect::type_("int:1..10"), v("11"))
        .is_err());
    assert_eq!(ok(&Expect::type_("?int"), "null"), v("null"));
    assert_eq!(
        ok(&Expect::type_("App\\Foo"), "App\\Foo(1)"),
        v("App\\Foo(1)")
    );
    assert_eq!(ok(&Expect::email(), "a@b.cz"), v("a@b.cz"));
    assert!(Processor::new()
        .process(&Expect::email(), v("ab.cz"))
        .is_err());
    let bad = Processor::new()
        .process(&Expect::type_("int|"), v("1"))
        .unwrap_err();
    assert!(bad[0].message.contains("Invalid schema"));
}

#[test]
fn long_strings_are_truncated_in_messages() {
    let e = Processor::new()
        .process(&Expect::int(), v("'a very long string indeed'"))
        .unwrap_err();
    assert_eq!(
        e[0].message,
        "The item expects to be int, 'a very long...' given."
    );
}

#[test]
fn nullable_and_defaults() {
    assert_eq!(ok(&Expect::int().nullable(), "null"), v("null"));
    let e = Processor::new()
        .process(&Expect::int().nullable(), v("x"))
        .unwrap_err();
    assert_eq!(
        e[0].message,
        "The item expects to be null or int, 'x' given."
    );
    let schema = Expect::structure([
        ("a", Expect::int().default(v("3"))),
        ("b", Expect::string()),
        ("c", Expect::list()),
    ]);
    assert_eq!(ok(&schema, "{}"), v("{a: 3, b: null, c: []}"));
    assert_eq!(ok(&schema, "null"), v("{a: 3, b: null, c: []}"));
}

#[test]
fn required_items() {
    let schema = Expect::structure([("title", Expect::string().required(true))]);
    assert_eq!(
        errs(&schema, "{}"),
        [s("The mandatory item 'blog › title' is missing.")]
    );
}

#[test]
fn unexpected_items_suggest() {
    let schema = Expect::structure([("title", Expect::string()), ("limit", Expect::int())]);
    let e = Processor::new()
        .at_path(["blog"])
        .process(&schema, v("{titel: x, zzz: 1}"))
        .unwrap_err();
    assert_eq!(e.len(), 2, "all independent errors: {e:?}");
    assert_eq!(e[0].code, crate::diagnostics::Code::UnknownOption);
    assert_eq!(
        e[0].message,
        s("Unexpected item 'blog › titel', did you mean 'title'?")
    );
    assert_eq!(e[1].message, s("Unexpected item 'blog › zzz'."));
}

#[test]
fn other_items_and_skip_defaults() {
    let schema = Expect::structure([("a", Expect::int())]).other_items(Expect::string());
    assert_eq!(ok(&schema, "{x: y}"), v("{a: null, x: y}"));
    assert!(Processor::new().process(&schema, v("{x: 1}")).is_err());
    let skip = Expect::structure([("a", Expect::int().default(v("1")))]).skip_defaults();
    assert_eq!(ok(&skip, "{}"), v("{}"));
    let mut p = Processor::new().skip_defaults();
    let schema = Expect::structure([("a", Expect::int().default(v("1")))]);
    assert_eq!(p.process(&schema, v("{}")).unwrap(), v("{}"));
}

#[test]
fn ranges_and_lengths() {
    let schema = Expect::structure([
        ("postsPerPage", Expect::int().min(1.0).max(100.0)),
        ("name", Expect::string().min(3.0)),
        ("tags", Expect::list().max(1.0)),
        ("u", Expect::unicode().max(2.0)),
    ]);
    let e = errs(
        &schema,
        "{postsPerPage: 500, name: ab, tags: [a, b], u: žžž}",
    );
    assert_eq!(
        e,
        [
            s("The item 'blog › postsPerPage' expects to be in range 1..100, 500 given."),
            s("The length of item 'blog › name' expects to be in range 3.., 2 bytes given."),
            s("The length of item 'blog › tags' expects to be in range ..1, 2 items given."),
            s("The length of item 'blog › u' expects to be in range ..2, 3 characters given."),
        ]
    );
}

/// Floats far from 1 are written as PHP writes them, in exponent form, not as hundreds of
/// digits (a `timeLimit: 1e308` once printed 309 of them).
#[test]
fn huge_and_tiny_floats_are_written_in_exponent_form() {
    let schema = Expect::structure([
        ("t", Expect::type_("int|float").min(0.001).max(1e9)),
        ("u", Expect::type_("float").min(0.5)),
    ]);
    assert_eq!(
        errs(&schema, "{t: 1e308, u: 0.00002}"),
        [
            s("The item 'blog › t' expects to be in range 0.001..1000000000, 1.0E+308 given."),
            s("The item 'blog › u' expects to be in range 0.5.., 2.0E-5 given."),
        ]
    );
    assert_eq!(super::types::format_float(2.5e20), "2.5E+20");
    assert_eq!(super::types::format_float(-1.25), "-1.25");
    assert_eq!(super::types::format_number(1e20), "1.0E+20");
}

#[test]
fn patterns() {
    let schema = Expect::structure([("slug", Expect::string().pattern("[a-z-]+"))]);
    assert_eq!(
        errs(&schema, "slug: 'A B'"),
        [s(
            "The item 'blog › slug' expects to match pattern '[a-z-]+', 'A B' given."
        )]
    );
    assert_eq!(ok(&schema, "slug: a-b"), v("{slug: a-b}"));
    let bad = Processor::new()
        .process(&Expect::string().pattern("("), v("x"))
        .unwrap_err();
    assert_eq!(
        bad[0].message,
        "Invalid schema: Invalid pattern '(': unclosed group"
    );
}

#[test]
fn assertions_and_transforms() {
    let even = |x: &Expr| matches!(x.kind, ExprKind::Int(i) if i % 2 == 0);
    let schema = Expect::structure([("limit", Expect::int().assert(even, Some("Even")))]);
    assert_eq!(
        errs(&schema, "limit: 3"),
        [s(
            "Failed assertion 'Even' for item 'blog › limit' with value 3."
        )]
    );
    let anon = Expect::int().assert(even, None);
    let e = Processor::new().process(&anon, v("3")).unwrap_err();
    assert_eq!(e[0].message, "Failed assertion #0 for item with value 3.");
    let double = Expect::int().transform(|x, _| match x.kind {
        ExprKind::Int(i) => Expr::bare(ExprKind::Int(i * 2)),
        other => Expr::bare(other),
    });
    assert_eq!(ok(&double, "4"), v("8"));
    let failing = Expect::int().transform(|x, ctx| {
        ctx.add_error("nope");
        x
    });
    assert_eq!(
        Processor::new().process(&failing, v("4")).unwrap_err()[0].message,
        "nope"
    );
}

#[test]
fn cast_to_and_before() {
    assert_eq!(ok(&Expect::scalar().cast_to("int"), "'12abc'"), v("12"));
    assert_eq!(ok(&Expect::scalar().cast_to("string"), "12"), v("'12'"));
    assert_eq!(ok(&Expect::mixed().cast_to("bool"), "'0'"), v("false"));
    assert_eq!(ok(&Expect::mixed().cast_to("array"), "x"), v("[x]"));
    assert_eq!(
        ok(&Expect::array().cast_to("App\\Point"), "{x: 1}"),
        v("App\\Point(x: 1)")
    );
    let split = Expect::list_of(Expect::string()).before(|x| match x.as_str() {
        Some(s) => {
            let mut a = ExprArray::new();
            for part in s.split(',') {
                a.push(Expr::string(part.trim()));
            }
            Expr::bare(ExprKind::Array(a))
        }
        None => x,
    });
    assert_eq!(ok(&split, "'a, b'"), v("[a, b]"));
}

#[test]
fn array_of_list_of_and_keys() {
    let schema = Expect::structure([(
        "map",
        Expect::array_of_keyed(Expect::int(), Expect::string()),
    )]);
    assert_eq!(
        errs(&schema, "map: {a: 1, 1: 2}"),
        [s(
            "The key of item 'blog › map › 1' expects to be string, 1 given."
        )]
    );
    let list = Expect::structure([("l", Expect::list_of(Expect::string()))]);
    assert_eq!(
        errs(&list, "l: [a, 2]"),
        [s("The item 'blog › l › 1' expects to be string, 2 given.")]
    );
    assert_eq!(
        errs(&list, "l: {a: b}"),
        [s("The item 'blog › l' expects to be list, array given.")]
    );
}

#[test]
fn list_default_is_replaced_not_merged() {
    let schema = Expect::list_of(Expect::string()).default(v("[a, b]"));
    assert_eq!(ok(&schema, "[a, b]"), v("[a, b]"));
    assert_eq!(ok(&schema, "[c]"), v("[c]"));
    let full = Expect::array_of(Expect::int())
        .default(v("[1, 2]"))
        .merge_defaults(true);
    assert_eq!(ok(&full, "[3]"), v("[1, 2, 3]"));
    let maps = Expect::array().default(v("{a: 1}"));
    assert_eq!(ok(&maps, "{b: 2}"), v("{a: 1, b: 2}"));
    let off = Expect::array().default(v("{a: 1}")).merge_defaults(false);
    assert_eq!(ok(&off, "{b: 2}"), v("{b: 2}"));
}

#[test]
fn any_of() {
    let schema = Expect::structure([("mode", Expect::any_of(["a", "b"]).first_is_default())]);
    assert_eq!(ok(&schema, "{}"), v("{mode: a}"));
    assert_eq!(
        errs(&schema, "mode: c"),
        [s(
            "The item 'blog › mode' expects to be 'a'|'b', 'c' given."
        )]
    );
    let mixed = Expect::any_of([
        Choice::from(Expect::int()),
        Expect::list_of(Expect::string()).into(),
    ]);
    let e = Processor::new().process(&mixed, v("str")).unwrap_err();
    assert_eq!(
        e[0].message,
        "The item expects to be int|list, 'str' given."
    );
    // A deeper error is reported as it is.
    let e = Processor::new().process(&mixed, v("[1]")).unwrap_err();
    assert_eq!(
        e[0].message,
        s("The item '0' expects to be string, 1 given.")
    );
    assert_eq!(ok(&Expect::any_of(["a"]).nullable(), "null"), v("null"));
}

#[test]
fn deprecated_gives_warning() {
    let schema = Expect::structure([("old", Expect::int().deprecated(None))]);
    let mut p = Processor::new().at_path(["blog"]);
    p.process(&schema, v("old: 1")).unwrap();
    assert_eq!(p.warnings().len(), 1);
    assert_eq!(
        p.warnings()[0].message,
        s("The item 'blog › old' is deprecated.")
    );
    assert!(!p.warnings()[0].is_error());
    p.take_warnings();
    p.process(&schema, v("{}")).unwrap();
    assert!(p.warnings().is_empty());
}

#[test]
fn dynamic_values() {
    let dynamic = Expr::bare(ExprKind::Dynamic("env.PORT".into()));
    let e = Processor::new()
        .process(&Expect::int(), dynamic.clone())
        .unwrap_err();
    assert_eq!(e[0].message, "The item expects to be int, dynamic given.");
    assert!(
        e[0].notes[0].contains("says `.dynamic()`"),
        "{:?}",
        e[0].notes
    );
    let mut p = Processor::new();
    assert_eq!(
        p.process(&Expect::int().dynamic(), dynamic.clone())
            .unwrap(),
        dynamic
    );
    assert_eq!(p.dynamics().len(), 1);
    assert_eq!(p.dynamics()[0].expected, "int");
    assert_eq!(ok(&Expect::mixed(), "x"), v("x"));
}

#[test]
fn layers_merge_like_nette() {
    let schema = Expect::structure([
        ("list", Expect::list()),
        ("map", Expect::array()),
        ("n", Expect::int()),
    ]);
    let mut p = Processor::new();
    let out = p
        .process_multiple(
            &schema,
            [
                v("{list: [a], map: {x: 1, y: 2}, n: 1}"),
                v("{list: [b], map: {y: 3}, n: 2}"),
            ],
        )
        .unwrap();
    assert_eq!(out, v("{list: [a, b], map: {x: 1, y: 3}, n: 2}"));
    let out = p
        .process_multiple(&schema, [v("{list: [a]}"), v("{list!: [b]}")])
        .unwrap();
    assert_eq!(out, v("{list: [b], map: [], n: null}"));
}

#[test]
fn misuse_is_reported_not_panicking() {
    let e = Processor::new()
        .process(&Expect::int().other_items(Expect::int()), v("1"))
        .unwrap_err();
    assert!(e[0].message.contains("otherItems"));
    let e = Processor::new()
        .process(
            &Expect::structure([("a", Expect::int())]).default(v("1")),
            v("{}"),
        )
        .unwrap_err();
    assert!(e[0].message.contains("no default"));
}

#[test]
fn extend_and_shape() {
    let base = Expect::structure([("a", Expect::int())]);
    let more = base.extend([("b", Expect::string())]);
    let keys: Vec<&str> = more.get_shape().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["a", "b"]);
    assert_eq!(more.expected(), "array");
}

#[test]
fn validate_pushes_into_sink() {
    let mut diags = crate::diagnostics::Diagnostics::new();
    let schema = Expect::structure([("a", Expect::int())]);
    assert!(validate(&schema, &v("a: x"), &["sec"], &mut diags).is_none());
    assert_eq!(diags.error_count(), 1);
    assert!(validate(&schema, &v("a: 1"), &["sec"], &mut diags).is_some());
}

#[test]
fn section_schemas_accept_their_documented_shapes() {
    use super::sections;
    assert!(Processor::new()
        .process(
            &sections::di(),
            v("{excluded: [App\\X], export: {tags: [a], types: false}}")
        )
        .is_ok());
    assert!(Processor::new()
        .process(
            &sections::search_batch(),
            v("{in: App, classes: '*Repo', exclude: {classes: [X]}}")
        )
        .is_ok());
    assert!(Processor::new()
        .process(
            &sections::decorator_entry(),
            v("{setup: [init()], tags: [a], inject: true}")
        )
        .is_ok());
    let types = v("{App\\A: null, App\\B: {implements: [App\\A], constructor: {x: int, y: {type: int, default: 1}}, methods: {m: {params: {a: string}, returns: int}}, properties: {p: {type: App\\A, inject: true}}}}");
    assert!(Processor::new().process(&sections::types(), types).is_ok());
    let def =
        v("{create: App\\A(1), setup: [init(), {'$x': 1}], lifespan: scoped, autowired: self}");
    assert!(Processor::new()
        .process(&sections::definition(), def)
        .is_ok());
    let e = Processor::new()
        .at_path(["services", "s"])
        .process(
            &sections::definition(),
            v("{lifespan: forever, inject: maybe}"),
        )
        .unwrap_err();
    assert_eq!(e.len(), 2);
    assert_eq!(
        e[1].message,
        s("The item 'services › s › inject' expects to be bool, 'maybe' given.")
    );
    assert_eq!(
        e[0].message,
        s("The item 'services › s › lifespan' expects to be 'singleton'|'scoped'|'transient', 'forever' given.")
    );
}

#[test]
fn modifiers_that_do_not_fit_their_node_are_misuse() {
    for (schema, what) in [
        (
            Expect::bool().pattern("[01]"),
            "pattern() applies to strings",
        ),
        (Expect::bool().min(1.0), "min()/max() apply"),
        (
            Expect::int().skip_defaults(),
            "skipDefaults() applies to structures",
        ),
        (
            Expect::structure([("a", Expect::int())]).merge_defaults(true),
            "mergeDefaults() applies to array types",
        ),
    ] {
        let e = Processor::new().process(&schema, v("1")).unwrap_err();
        assert!(
            e.iter().any(|d| d.message.contains(what)),
            "{what}: {:?}",
            e.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
    // Where they fit, nothing is reported.
    assert!(Processor::new()
        .process(&Expect::string().pattern("[a-z]+").min(1.0), v("abc"))
        .is_ok());
    assert!(Processor::new()
        .process(
            &Expect::structure([("a", Expect::int())]).max(2.0),
            v("{a: 1}")
        )
        .is_ok());
}

#[test]
fn misuse_lists_what_process_reports_and_checked_validation_agrees() {
    // `misuse` finds what `process` reports as "Invalid schema: …".
    let bad = Expect::structure([("a", Expect::int().other_items(Expect::int()))]);
    let found = misuse(&bad);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("otherItems"), "{found:?}");
    let e = Processor::new().process(&bad, v("{a: 1}")).unwrap_err();
    assert_eq!(e[0].message, format!("Invalid schema: {}", found[0]));
    // A bad type string is misuse, and such a node then takes any value.
    let odd = Expect::type_("int|");
    assert_eq!(misuse(&odd).len(), 1);
    assert!(Processor::new()
        .schema_checked()
        .process(&odd, v("abc"))
        .is_ok());
    // The definition schema has none, so `validate_checked` gives what `validate` gives.
    let schema = sections::definition();
    assert!(misuse(&schema).is_empty());
    for text in [
        "{create: App\\Foo, tags: [a, priority: 2]}",
        "{create: App\\Foo, autowired: 3}",
        "{crate: App\\Foo}",
    ] {
        let mut plain = crate::diagnostics::Diagnostics::new();
        let mut checked = crate::diagnostics::Diagnostics::new();
        let a = validate(&schema, &v(text), &["services", "s"], &mut plain);
        let b = validate_checked(&schema, &v(text), &["services", "s"], &mut checked);
        assert_eq!(a, b, "{text}");
        let messages = |d: &crate::diagnostics::Diagnostics| {
            d.items()
                .iter()
                .map(|x| x.message.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(messages(&plain), messages(&checked), "{text}");
    }
}

#[test]
fn nullable_type_keeps_its_parsed_form_in_step() {
    // `nullable()` rewrites the type string; the parsed form used for checks follows it.
    let s = Expect::int().nullable();
    assert!(Processor::new().process(&s, v("null")).is_ok());
    assert!(Processor::new().process(&s, v("3")).is_ok());
    let e = Processor::new().process(&s, v("abc")).unwrap_err();
    assert!(
        e[0].message.contains("expects to be null or int"),
        "{}",
        e[0].message
    );
}

/// `validate_items` completes a definition map item by item, without copies; it must give what
/// the general route gives (the whole map validated, then each item alone): the same map, the
/// same verdict and the same diagnostics, for valid maps and for maps with every kind of
/// mistake, with `before` normalisers on items and with a schema the fast route does not take.
#[test]
fn validate_items_agrees_with_the_general_route() {
    let definition = sections::definition();
    assert!(process::completes_item_by_item(&definition));
    let with_before = Expect::structure([
        (
            "names",
            Expect::list_of(Expect::string()).before(|v: Expr| match v.kind {
                ExprKind::Str(s) => {
                    let mut a = ExprArray::new();
                    a.push(Expr::bare(ExprKind::Str(s)));
                    Expr::new(ExprKind::Array(a), v.span)
                }
                other => Expr::new(other, v.span),
            }),
        ),
        ("count", Expect::int()),
    ])
    .skip_defaults();
    assert!(process::completes_item_by_item(&with_before));
    // `required` makes an absent item matter: the general route only.
    let not_by_item = Expect::structure([("a", Expect::int().required(true))]).skip_defaults();
    assert!(!process::completes_item_by_item(&not_by_item));
    let cases: &[(&Expect, &str)] = &[
        (
            &definition,
            "{create: App\\Foo, tags: [a, priority: 2], autowired: false}",
        ),
        (
            &definition,
            "{create: App\\Foo(1, x: @bar), setup: ['setX(1)'], lifespan: transient}",
        ),
        (
            &definition,
            "{crate: App\\Foo, autowired: 5, setup: 3, reset: setup}",
        ),
        (
            &definition,
            "{lazy: maybe, unknown: 1, create: 5, references: 2, reset: [setup, 7]}",
        ),
        (
            &definition,
            "{setup: [a(), 5, b()], type: 7, sync: true, inject: yes}",
        ),
        (&definition, "{}"),
        (&with_before, "{names: one, count: 2}"),
        (&with_before, "{names: [one, 2], count: x, other: 1}"),
        (&not_by_item, "{b: 1}"),
        (&not_by_item, "{a: 1}"),
    ];
    let render = |d: &Diagnostics| -> Vec<String> {
        d.items()
            .iter()
            .map(|x| format!("{:?} {} {:?}", x.code, x.message, x.primary_span()))
            .collect()
    };
    for (schema, text) in cases {
        let Expr {
            kind: ExprKind::Array(map),
            span,
            ..
        } = v(text)
        else {
            panic!("{text} is a map");
        };
        let given = || -> Vec<(Key, Expr, Option<Span>)> {
            map.items
                .iter()
                .map(|(k, x)| (k.clone(), x.clone(), map.key_span(&k.as_string())))
                .collect()
        };
        let (mut fast_diags, mut general_diags) = (Diagnostics::new(), Diagnostics::new());
        let fast = validate_items(
            schema,
            true,
            given(),
            span,
            &["services", "s"],
            &mut fast_diags,
        );
        let general = process::validate_items_generally(
            schema,
            true,
            given(),
            span,
            &["services", "s"],
            &mut general_diags,
        );
        assert_eq!(fast.0, general.0, "{text}");
        assert_eq!(fast.1, general.1, "{text}");
        assert_eq!(render(&fast_diags), render(&general_diags), "{text}");
    }
}
