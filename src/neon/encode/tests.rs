//! Unit tests of the encoder: layouts, quoting, multi-line strings, entities, errors.

use super::*;
use crate::neon::{decode, from_json, to_json};
use crate::source::{FileId, Span};

fn dec(s: &str) -> Value {
    decode(s, FileId(0)).unwrap_or_else(|d| panic!("{s:?}: {}", d.message))
}

fn canon(v: &Value) -> String {
    serde_json::to_string(&to_json(v)).unwrap()
}

fn block(s: &str) -> String {
    encode_block(&dec(s)).unwrap()
}

fn inline(s: &str) -> String {
    encode_inline(&dec(s)).unwrap()
}

/// `v` survives block (tabs and 4 spaces) and inline encoding.
fn assert_round_trip(v: &Value) {
    for opts in [
        EncodeOptions::block(),
        EncodeOptions::block().with_indent("    "),
        EncodeOptions::inline(),
    ] {
        let text = encode(v, &opts).unwrap_or_else(|e| panic!("{e}: {v:?}"));
        let back = decode(&text, FileId(0))
            .unwrap_or_else(|d| panic!("{}: {text:?} from {v:?}", d.message));
        assert_eq!(canon(&back), canon(v), "{text:?}");
    }
}

fn str_value(s: &str) -> Value {
    Value::new(Kind::Str(s.into()), Span::default())
}

#[test]
fn block_layout() {
    assert_eq!(
        block("a: 1\nb:\n  - x\n  - y: [1, {c: d}]\ne: []\nf: Foo(1, k: v)"),
        "a: 1\nb:\n\t- x\n\t-\n\t\ty:\n\t\t\t- 1\n\t\t\t-\n\t\t\t\tc: d\ne: []\nf: Foo(1, k: v)\n"
    );
    assert_eq!(block("x"), "x\n");
    assert_eq!(block(""), "null\n");
    assert_eq!(block("[]"), "[]\n");
    let four = EncodeOptions::block().with_indent("    ");
    assert_eq!(
        encode(&dec("a: {b: {c: 1}}"), &four).unwrap(),
        "a:\n    b:\n        c: 1\n"
    );
}

#[test]
fn inline_layout() {
    assert_eq!(
        inline("a: 1\nb:\n  - x\n  - y: [1, {c: d}]"),
        "{a: 1, b: [x, {y: [1, {c: d}]}]}"
    );
    // keys the decoder assigns anyway are left out
    assert_eq!(inline("{0: a, b: 1, 1: c}"), "{a, b: 1, c}");
    assert_eq!(inline("{5: a, 6: b, -1: c, 7: d}"), "{5: a, b, -1: c, d}");
    assert_eq!(inline("[]"), "[]");
    assert_eq!(inline("Foo(a, b: 1)::bar()baz"), "Foo(a, b: 1)::bar()baz()");
    assert_eq!(inline("[1, 2](x)"), "[1, 2](x)");
}

#[test]
fn quoting() {
    for (s, want) in [
        ("plain", "plain"),
        ("hello world", "hello world"),
        ("App\\Foo", "App\\Foo"),
        ("@service", "@service"),
        ("%param%", "%param%"),
        ("http://x:8080/p", "http://x:8080/p"),
        ("", "''"),
        ("true", "'true'"),
        ("On", "'On'"),
        ("NULL", "'NULL'"),
        ("123", "'123'"),
        ("-1x", "'-1x'"),
        ("1_000", "'1_000'"),
        ("0x10", "'0x10'"),
        ("2024-01-01", "'2024-01-01'"),
        ("it's", "it's"),
        ("'it'", "'''it'''"),
        ("'", "''''"),
        ("''", "''''''"),
        ("a: b", "'a: b'"),
        ("a:", "'a:'"),
        ("a=b", "'a=b'"),
        ("-", "'-'"),
        ("- x", "'- x'"),
        ("#x", "'#x'"),
        ("x #y", "'x #y'"),
        (" x", "' x'"),
        ("x ", "'x '"),
        ("a, b", "'a, b'"),
        ("f(x)", "'f(x)'"),
        ("[x]", "'[x]'"),
        ("\u{feff}x", "'\u{feff}x'"),
        ("a\rb", "\"a\\rb\""),
        ("bell\u{7}", "\"bell\\u0007\""),
        ("tab\tq\"", "'tab\tq\"'"),
    ] {
        let v = str_value(s);
        assert_eq!(encode_inline(&v).unwrap(), want, "{s:?}");
        assert_round_trip(&v);
    }
}

#[test]
fn keys() {
    assert_eq!(
        inline("{'true': 1, '05': 2, 1.5: 3, a b: 4, '': 5}"),
        "{'true': 1, '05': 2, '1.5': 3, a b: 4, '': 5}"
    );
    assert_round_trip(&dec(
        "{'true': 1, '05': 2, '1.5': 3, '-': 4, '- x': 5, \"a\\nb\": 6}",
    ));
}

#[test]
fn scalars() {
    assert_eq!(
        inline("[1.0, -0.0, 1e300, 1e-7, 1e999, -1e999, -9223372036854775808]"),
        "[1.0, -0.0, 1e300, 1e-7, 1e999, -1e999, -9223372036854775808]"
    );
    assert_eq!(
        inline("[2024-01-31, 2024-01-31 10:20:30.5 -0530]"),
        "[2024-01-31T00:00:00+00:00, 2024-01-31T10:20:30.500000-05:30]"
    );
    assert_round_trip(&dec(
        "[1.0, -0.0, 0.1, 1e300, 5e-324, 1e999, -1e999, 2024-02-30, null, yes, NO]",
    ));
    let nan = Value::new(Kind::Float(f64::NAN), Span::default());
    assert_eq!(encode_block(&nan), Err(EncodeError::Nan));
    let bad = Value::new(Kind::Date("2024-01-01".into()), Span::default());
    assert!(matches!(
        encode_block(&bad),
        Err(EncodeError::Unrepresentable(_))
    ));
}

#[test]
fn multiline_strings() {
    let v = dec("a:\n  b: '''\n    x\n      y\n    z\n  '''");
    assert_eq!(
        block("a:\n  b: '''\n    x\n      y\n    z\n  '''"),
        "a:\n\tb: '''\n\t\tx\n\t\t  y\n\t\tz\n\t'''\n"
    );
    let four = EncodeOptions::block().with_indent("    ");
    assert_eq!(
        encode(&v, &four).unwrap(),
        "a:\n    b: '''\n        x\n          y\n        z\n    '''\n"
    );
    assert_eq!(inline("- '''\n  x\n  y\n  '''"), "[\"x\\ny\"]");
    for s in [
        "a\nb",
        "a\n",
        "\na",
        "\n",
        "\n\n",
        "a\n\n\nb\n\n",
        "a\n  ",
        "  a\nb",
        "\n \tx\ny",
        "a\n'''\nb",
        "a\n  '''x",
        "x\n\"\"\"\ny\n  \"\"\"\"\"\"",
        "back\\slash\n\\n",
        "cr\r\nlf",
        "ctl\u{1}\nx",
        "\t\nlead tab",
        "trail  \nsp ",
        "it's\n'quoted'",
    ] {
        assert_round_trip(&str_value(s));
        let mut a = Array::new();
        a.insert(Key::Str("k".into()), Span::default(), str_value(s));
        a.push(str_value(s));
        let nested = Value::new(Kind::Array(Box::new(a)), Span::default());
        let mut outer = Array::new();
        outer.push(nested);
        assert_round_trip(&Value::new(Kind::Array(Box::new(outer)), Span::default()));
    }
    assert_eq!(
        encode_block(&str_value("a\n'''")).unwrap(),
        "\"\"\"\n\ta\n\t'''\n\"\"\"\n"
    );
    assert_eq!(
        encode_block(&str_value(" a\nb")).unwrap(),
        "\"\"\"\n\t\\u0020a\n\tb\n\"\"\"\n"
    );
}

#[test]
fn entities_and_chains() {
    for s in [
        "Foo(a, b: 1)",
        "Foo()",
        "[1, 2](x)",
        "42(x)",
        "'a b'(x)",
        "null(x)",
        "Foo(a)::bar(b)::baz",
        "a(1)b(2)",
        "a(1)true(2)",
        "a(1)b c",
        "x: Foo(bar: Baz(1), q: [1, 2])",
        "- Foo('''\n  multi\n  line\n  ''')",
    ] {
        assert_round_trip(&dec(s));
    }
    let link = |value: Kind| Entity {
        value: Value::new(value, Span::default()),
        attributes: Array::new(),
    };
    let chain = |second: Kind| {
        Value::new(
            Kind::Chain(vec![link(Kind::Str("Foo".into())), link(second)]),
            Span::default(),
        )
    };
    assert!(encode_inline(&chain(Kind::Str("needs quotes".into()))).is_ok());
    assert!(matches!(
        encode_inline(&chain(Kind::Str("a, b".into()))),
        Err(EncodeError::Unrepresentable(_))
    ));
    assert!(matches!(
        encode_inline(&chain(Kind::Array(Box::default()))),
        Err(EncodeError::Unrepresentable(_))
    ));
    let one = Value::new(Kind::Chain(vec![link(Kind::Null)]), Span::default());
    assert!(matches!(
        encode_inline(&one),
        Err(EncodeError::Unrepresentable(_))
    ));
    let nested = Value::new(
        Kind::Entity(Box::new(Entity {
            value: Value::new(Kind::Entity(Box::new(link(Kind::Null))), Span::default()),
            attributes: Array::new(),
        })),
        Span::default(),
    );
    assert!(matches!(
        encode_inline(&nested),
        Err(EncodeError::Unrepresentable(_))
    ));
}

#[test]
fn indentation_is_checked() {
    let v = dec("a: 1");
    for bad in ["", "x", " \n", "\u{a0}"] {
        let opts = EncodeOptions::block().with_indent(bad);
        assert_eq!(encode(&v, &opts), Err(EncodeError::BadIndent(bad.into())));
    }
    let opts = EncodeOptions::block().with_indent(" \t");
    assert_round_trip(&v);
    assert!(encode(&dec("a: {b: {c: 1}}"), &opts).is_ok());
}

/// Lists nested `n` deep around a scalar.
fn nested_lists(n: usize) -> Value {
    let mut v = Value::new(Kind::Int(1), Span::default());
    for _ in 0..n {
        let mut a = Array::new();
        a.push(v);
        v = Value::new(Kind::Array(Box::new(a)), Span::default());
    }
    v
}

/// Maps `{a: {a: ...}}` nested `n` deep around a scalar.
fn nested_maps(n: usize) -> Value {
    let mut v = Value::new(Kind::Int(1), Span::default());
    for _ in 0..n {
        let mut a = Array::new();
        a.insert(Key::Str("a".into()), Span::default(), v);
        v = Value::new(Kind::Array(Box::new(a)), Span::default());
    }
    v
}

fn decodes_back(v: &Value, opts: &EncodeOptions) -> Result<(), EncodeError> {
    let text = encode(v, opts)?;
    let back = decode(&text, FileId(0)).unwrap_or_else(|d| panic!("{}", d.message));
    assert_eq!(canon(&back), canon(v));
    Ok(())
}

#[test]
fn depth_limit_matches_the_decoder() {
    // The decoder allows MAX_DEPTH open blocks and brackets, the document's block included.
    // Inline: the document plus one bracket per level.
    let inline = EncodeOptions::inline();
    assert_eq!(decodes_back(&nested_lists(MAX_DEPTH - 1), &inline), Ok(()));
    assert_eq!(
        decodes_back(&nested_lists(MAX_DEPTH), &inline),
        Err(EncodeError::TooDeep)
    );
    // Block: one block per level; what follows `- ` is one more, so the deepest list item is
    // written with its key instead.
    for opts in [
        EncodeOptions::block(),
        EncodeOptions::block().with_indent("  "),
    ] {
        assert_eq!(decodes_back(&nested_lists(MAX_DEPTH), &opts), Ok(()));
        assert_eq!(decodes_back(&nested_maps(MAX_DEPTH), &opts), Ok(()));
        assert_eq!(
            decodes_back(&nested_lists(MAX_DEPTH + 1), &opts),
            Err(EncodeError::TooDeep)
        );
        assert_eq!(
            decodes_back(&nested_maps(MAX_DEPTH + 1), &opts),
            Err(EncodeError::TooDeep)
        );
    }
    let text = encode_block(&nested_lists(3)).unwrap();
    assert_eq!(text, "-\n\t-\n\t\t- 1\n");
    // entity arguments are a bracket, like the decoder's: document, `(`, 498 `[`
    let mut a = Array::new();
    a.push(nested_lists(MAX_DEPTH - 2));
    let e = Value::new(
        Kind::Entity(Box::new(Entity {
            value: str_value("Foo"),
            attributes: a,
        })),
        Span::default(),
    );
    assert_eq!(decodes_back(&e, &inline), Ok(()));
    let mut a = Array::new();
    a.push(nested_lists(MAX_DEPTH - 1));
    let e = Value::new(
        Kind::Entity(Box::new(Entity {
            value: str_value("Foo"),
            attributes: a,
        })),
        Span::default(),
    );
    assert_eq!(decodes_back(&e, &inline), Err(EncodeError::TooDeep));
}

#[test]
fn json_round_trip() {
    let src = "a: [1, 1.0, -0.0, 1e999, x]\nd: 2024-01-31 10:20\nw: 2024-01-31 10:20:00 Z\n\
               e: Foo(1, k: v)::bar(2)\nm: {'5': x, '$date': 'nope', $float: 1}\nn: -1e999\n";
    let v = dec(src);
    let json = to_json(&v);
    let back = from_json(&json).unwrap();
    assert_eq!(canon(&back), canon(&v));
    let nan: serde_json::Value = serde_json::json!({"$float": "NAN"});
    assert!(matches!(from_json(&nan).unwrap().kind, Kind::Float(f) if f.is_nan()));
    let big: serde_json::Value = serde_json::from_str("18446744073709551615").unwrap();
    assert!(matches!(from_json(&big), Err(EncodeError::Json(_))));
    let date = serde_json::json!({"$date": "2024-02-30"});
    assert_eq!(
        from_json(&date).unwrap().kind,
        Kind::Date("2024-03-01T00:00:00+00:00".into())
    );
    let not_entity = serde_json::json!({"$entity": "Foo", "attributes": 1});
    assert!(matches!(
        from_json(&not_entity).unwrap().kind,
        Kind::Array(_)
    ));
}

#[test]
fn dates_rolled_over_past_four_digit_years() {
    for (src, literal) in [
        ("9999-12-31 24:00:00", "9999-12-31T24:00:00+00:00"),
        (
            "9999-12-31 24:59:60.5 +0100",
            "9999-12-31T24:59:60.500000+01:00",
        ),
        ("0000-00-05", "0000-00-05T00:00:00+00:00"),
        ("0000-00-00", "0000-00-00T00:00:00+00:00"),
    ] {
        let v = dec(src);
        assert!(matches!(v.kind, Kind::Date(_)), "{src}");
        assert_eq!(encode_inline(&v).unwrap(), literal);
        assert_round_trip(&v);
    }
    let v = Value::new(
        Kind::Date("10000-01-02T00:00:00+00:00".into()),
        Span::default(),
    );
    assert!(matches!(
        encode_inline(&v),
        Err(EncodeError::Unrepresentable(_))
    ));
}

#[test]
fn chain_links_with_control_characters_or_a_bom() {
    // found by the round-trip fuzzer: a link may hold control characters, and cannot be quoted
    let v = decode("second() &`\u{0}\u{0}\u{0} ", FileId(0)).unwrap();
    assert_eq!(encode_inline(&v).unwrap(), "second()&`\u{0}\u{0}\u{0}()");
    assert_round_trip(&v);
    // and a BOM, which only a document's first token loses
    let v = decode("s() \u{feff}x", FileId(0)).unwrap();
    assert_eq!(encode_inline(&v).unwrap(), "s()\u{feff}x()");
    assert_round_trip(&v);
    // a link is always followed by `(`, so it may end in `:` (`+:(` is one literal)
    let v = decode("+\u{15}(+:()+\u{15})+:()", FileId(0)).unwrap();
    assert_round_trip(&v);
    let v = decode("a()b:()", FileId(0)).unwrap();
    assert_eq!(encode_inline(&v).unwrap(), "a()b:()");
    assert_round_trip(&v);
    // a plain string with them is quoted with escapes
    assert_eq!(
        encode_inline(&str_value("&`\u{0}")).unwrap(),
        "\"&`\\u0000\""
    );
}
