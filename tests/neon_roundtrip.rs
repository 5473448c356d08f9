//! Encoder round trips: `decode(encode(v)) == v`, compared as canonical JSON (key order,
//! integers vs floats and the sign of zero all count).
//!
//! - property tests over generated values, in block mode (tab, four spaces, `" \t"`) and inline
//!   mode, plus the canonical JSON → value → JSON way (`from_json`);
//! - every `ok` case of `../shared/conformance/neon` and `../shared/conformance/real-neon`:
//!   decode, encode (block with a tab, block with four spaces, inline), decode again, compare.
//!   When the corpus folder is absent the test says so and passes, except under `CI=true`;
//! - `wireplan neon encode` on the output of `wireplan neon decode`, in every layout.

mod common;

use proptest::collection::vec;
use proptest::prelude::*;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use wireplan::neon::{self, encode, Array, EncodeError, EncodeOptions, Entity, Key, Kind, Value};
use wireplan::source::{FileId, Span};

fn canon(v: &Value) -> String {
    serde_json::to_string(&neon::to_json(v)).expect("serialisable")
}

fn layouts() -> [EncodeOptions; 4] {
    [
        EncodeOptions::block(),
        EncodeOptions::block().with_indent("    "),
        EncodeOptions::block().with_indent(" \t"),
        EncodeOptions::inline(),
    ]
}

/// Encodes with `opts`, decodes the text, and says what differs (`None` when equal).
fn round_trip(v: &Value, opts: &EncodeOptions) -> Result<(), String> {
    let text = encode(v, opts).map_err(|e| format!("encode failed: {e}"))?;
    let back = neon::decode(&text, FileId(0)).map_err(|d| {
        format!(
            "decoding the encoder's output failed: {}\n{text}",
            d.message
        )
    })?;
    let (want, got) = (canon(v), canon(&back));
    if want != got {
        return Err(format!("changed:\n  want {want}\n  got  {got}\n{text}"));
    }
    Ok(())
}

fn val(kind: Kind) -> Value {
    Value::new(kind, Span::default())
}

// ------------------------------------------------------------------------------- generators

/// Strings that probe the quoting rules: keywords, numbers, dates, punctuation, blanks, quotes,
/// `'''`/`"""` lines, control characters and any Unicode.
fn string() -> impl Strategy<Value = String> {
    let tricky = prop::sample::select(vec![
        "",
        "true",
        "On",
        "off",
        "NULL",
        "yes",
        "1",
        "-1",
        "+1",
        ".5",
        "1e5",
        "0x1F",
        "0o7",
        "0b1",
        "1_000",
        "2024-01-01",
        "2024-01-01 10:00:00",
        "2024-13-45",
        "-",
        "- x",
        "-x",
        "::x",
        ":",
        "a:",
        "a: b",
        "a:b",
        "a=b",
        "#",
        "x #y",
        "x#y",
        "a, b",
        "f(x)",
        "[x]",
        "{x}",
        "'",
        "''",
        "'''",
        "\"\"\"",
        "it's",
        "\"q\"",
        "\\",
        "\u{feff}x",
        "\u{a0}",
        " x",
        "x ",
        "\t",
        "@s",
        "%p%",
        "App\\Foo",
        "a\rb",
        "\u{0}",
        "~",
        "`x`",
    ])
    .prop_map(str::to_string);
    let line = "[a-z '\"\\\\\t#:,=-]{0,8}|'''|\"\"\"| *'''x| *\"\"\"";
    prop_oneof![
        3 => tricky,
        3 => "[a-zA-Z_\\\\@%$.:/ -]{1,12}",
        2 => "\\PC{0,12}",
        2 => any::<String>(),
        2 => vec(line, 1..5).prop_map(|lines| lines.join("\n")),
        1 => vec("[ \tx\r\u{1}]{0,3}", 1..4).prop_map(|lines| lines.join("\n")),
    ]
}

fn date() -> impl Strategy<Value = String> {
    (
        (1000..=9999i32, 1..=12u32, 1..=28u32),
        (
            0..24u32,
            0..60u32,
            0..60u32,
            prop::option::of(1..1_000_000u32),
        ),
        (any::<bool>(), 0..=14u32, 0..60u32),
    )
        .prop_map(|((y, mo, d), (h, mi, s, us), (neg, oh, om))| {
            let frac = us.map(|u| format!(".{u:06}")).unwrap_or_default();
            let sign = if neg && (oh, om) != (0, 0) { '-' } else { '+' };
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{frac}{sign}{oh:02}:{om:02}")
        })
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("NaN has no NEON text", |f| !f.is_nan()),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1.0,
            0.1,
            1e25,
            5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY
        ]),
    ]
}

fn scalar() -> impl Strategy<Value = Kind> {
    prop_oneof![
        1 => Just(Kind::Null),
        1 => any::<bool>().prop_map(Kind::Bool),
        1 => any::<i64>().prop_map(Kind::Int),
        1 => (-3..20i64).prop_map(Kind::Int),
        1 => float().prop_map(Kind::Float),
        4 => string().prop_map(|s| Kind::Str(s.into())),
        1 => date().prop_map(Kind::Date),
    ]
}

fn key() -> BoxedStrategy<Key> {
    prop_oneof![
        1 => (-2..6i64).prop_map(Key::Int),
        1 => any::<i64>().prop_map(Key::Int),
        3 => string().prop_map(Key::from_string),
    ]
    .boxed()
}

/// A link after the first in a chain: what a literal can be.
fn link_name() -> impl Strategy<Value = Kind> {
    prop_oneof![
        // a bare name, never a word NEON reads as a literal (`NO`, `null`): a chain link
        // cannot be quoted, so the encoder rightly refuses those
        2 => "(::)?[a-zA-Z_][a-zA-Z0-9_]{0,6}"
            .prop_filter("a NEON literal word", |s| !is_literal_word(s.trim_start_matches("::")))
            .prop_map(|s| Kind::Str(s.into())),
        // literal characters that plain strings would quote (found by fuzzing)
        1 => "[&\\x00\u{feff}x-z][&`\\x00\u{feff}x-z]{0,3}".prop_map(|s| Kind::Str(s.into())),
        1 => any::<i64>().prop_map(Kind::Int),
        1 => any::<bool>().prop_map(Kind::Bool),
        1 => Just(Kind::Null),
        1 => date().prop_map(Kind::Date),
    ]
}

/// `true`, `no`, `NULL`…: words the decoder reads as booleans or null, in any case.
fn is_literal_word(s: &str) -> bool {
    ["true", "false", "yes", "no", "on", "off", "null"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(s))
}

fn array(items: Vec<(Option<Key>, Value)>) -> Array {
    let mut a = Array::new();
    for (k, v) in items {
        match k {
            Some(k) => a.insert(k, Span::default(), v),
            None => a.push(v),
        }
    }
    a
}

/// Values NEON can write: nested lists, maps (mixing explicit and implicit keys), entities
/// and chains.
fn value() -> impl Strategy<Value = Value> {
    scalar().prop_map(val).prop_recursive(5, 96, 6, |inner| {
        let items = vec((prop::option::weighted(0.6, key()), inner.clone()), 0..6).boxed();
        // an entity's value may be anything but an entity
        let entity_value = inner.clone().prop_map(|v| match v.kind {
            Kind::Entity(_) | Kind::Chain(_) => val(Kind::Str("Foo".into())),
            _ => v,
        });
        let entity = (entity_value, items.clone()).prop_map(|(value, attrs)| Entity {
            value,
            attributes: array(attrs),
        })
        .boxed();
        let link = (link_name(), items.clone()).prop_map(|(name, attrs)| Entity {
            value: val(name),
            attributes: array(attrs),
        });
        prop_oneof![
            3 => items.prop_map(|i| val(Kind::Array(Box::new(array(i))))),
            2 => vec(inner, 0..6).prop_map(|l| val(Kind::Array(Box::new(array(l.into_iter().map(|v| (None, v)).collect()))))),
            1 => entity.clone().prop_map(|e| val(Kind::Entity(Box::new(e)))),
            1 => (entity, vec(link, 1..4)).prop_map(|(first, rest)| {
                let mut links = vec![first];
                links.extend(rest);
                val(Kind::Chain(links))
            }),
        ]
    })
}

/// Anything, including what NEON cannot write: NaN, quoted or collection chain links,
/// entities as entity values, dates that are not dates, one-link chains.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        scalar(),
        Just(Kind::Float(f64::NAN)),
        string().prop_map(Kind::Date),
    ];
    leaf.prop_map(val).prop_recursive(4, 48, 5, |inner| {
        let items = vec((prop::option::of(key()), inner.clone()), 0..5).boxed();
        let entity = (inner, items.clone())
            .prop_map(|(value, attrs)| Entity {
                value,
                attributes: array(attrs),
            })
            .boxed();
        prop_oneof![
            items.prop_map(|i| val(Kind::Array(Box::new(array(i))))),
            entity.clone().prop_map(|e| val(Kind::Entity(Box::new(e)))),
            vec(entity, 0..4).prop_map(|links| val(Kind::Chain(links))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn encoded_values_decode_to_themselves(v in value()) {
        for opts in layouts() {
            if let Err(why) = round_trip(&v, &opts) {
                prop_assert!(false, "{:?} mode, indent {:?}: {}", opts.mode, opts.indent, why);
            }
        }
        let back = neon::from_json(&neon::to_json(&v)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(canon(&back), canon(&v));
    }

    #[test]
    fn encoding_anything_never_panics(v in any_value()) {
        for opts in layouts() {
            match encode(&v, &opts) {
                // what the encoder accepts must still round-trip
                Ok(_) => {
                    if let Err(why) = round_trip(&v, &opts) {
                        prop_assert!(false, "{:?}: {}", opts.mode, why);
                    }
                }
                Err(EncodeError::Nan | EncodeError::Unrepresentable(_)) => {}
                Err(e) => prop_assert!(false, "unexpected error {}", e),
            }
        }
    }
}

// ---------------------------------------------------------------------------------- corpora

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance")
}

/// The `ok` inputs of a corpus folder: from `index.tsv` where there is one, else every `.neon`.
fn ok_inputs(dir: &Path) -> Vec<PathBuf> {
    if let Ok(index) = std::fs::read_to_string(dir.join("index.tsv")) {
        return index
            .lines()
            .skip(1)
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .filter(|cols| cols.get(2) == Some(&"ok"))
            .map(|cols| dir.join(format!("{}.neon", cols[0])))
            .collect();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("corpus folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "neon"))
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_values_survive_encoding() {
    let root = corpus_root();
    let ci = common::in_ci();
    let mut failures = Vec::new();
    for name in ["neon", "real-neon"] {
        let dir = root.join(name);
        if !dir.is_dir() {
            let msg = format!("{name}: corpus {} not found", dir.display());
            assert!(!ci, "{msg} (CI=true requires it)");
            // Straight to standard error: the harness hides a passing test's `println!`.
            let _ = writeln!(std::io::stderr(), "{msg}; skipped");
            continue;
        }
        let inputs = ok_inputs(&dir);
        assert!(!inputs.is_empty(), "{name}: no ok cases");
        let mut passed = 0;
        for input in &inputs {
            let case = input.file_name().unwrap_or_default().to_string_lossy();
            let bytes = std::fs::read(input).expect("readable case");
            let v = match neon::decode_bytes(&bytes, FileId(0)) {
                Ok(v) => v,
                Err(d) => {
                    failures.push(format!("{name}/{case}: does not decode: {}", d.message));
                    continue;
                }
            };
            let mut ok = true;
            for opts in layouts() {
                if let Err(why) = round_trip(&v, &opts) {
                    failures.push(format!(
                        "{name}/{case} ({:?}, {:?}): {why}",
                        opts.mode, opts.indent
                    ));
                    ok = false;
                }
            }
            match neon::from_json(&neon::to_json(&v)) {
                Ok(back) if canon(&back) == canon(&v) => {}
                Ok(_) => {
                    failures.push(format!("{name}/{case}: from_json(to_json(v)) differs"));
                    ok = false;
                }
                Err(e) => {
                    failures.push(format!("{name}/{case}: from_json failed: {e}"));
                    ok = false;
                }
            }
            passed += usize::from(ok);
        }
        println!(
            "{name}: {passed} of {} ok cases round-trip in every layout",
            inputs.len()
        );
    }
    assert!(
        failures.is_empty(),
        "round-trip failures:\n{}",
        failures.join("\n")
    );
}

// -------------------------------------------------------------------------------------- CLI

/// Runs `wireplan neon ARGS...`; returns (exit code, stdout, stderr).
fn wireplan(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wireplan"))
        .arg("neon")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("wireplan runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_encode_inverts_decode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let neon_in = dir.path().join("in.neon");
    std::fs::write(
        &neon_in,
        "services:\n\t- App\\Foo\n\tbar: App\\Bar(@foo, limit: 5)::setup()\n\
         text: '''\n\tline one\n\t  line two\n'''\nwhen: 2024-01-31 10:20:30.5 +0100\n\
         floats: [1.0, -0.0, 1e999]\nquoted: ['true', '123', 'a: b']\n",
    )
    .expect("write");
    let (code, json, err) = wireplan(&["decode", neon_in.to_str().expect("utf-8 path")]);
    assert_eq!(code, 0, "{err}");
    let json_file = dir.path().join("in.json");
    std::fs::write(&json_file, &json).expect("write");
    let json_path = json_file.to_str().expect("utf-8 path");
    for args in [
        vec!["encode", json_path],
        vec!["encode", json_path, "--inline"],
        vec!["encode", json_path, "--indent", "4"],
        vec!["encode", json_path, "--indent", "  "],
    ] {
        let (code, text, err) = wireplan(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        if args.contains(&"--inline") {
            assert_eq!(text.lines().count(), 1, "{text}");
        }
        if args.contains(&"4") {
            assert!(text.contains("\n    - App\\Foo\n"), "{text}");
            assert!(
                text.contains("text: '''\n    line one\n      line two\n'''"),
                "{text}"
            );
        }
        let out = dir.path().join("out.neon");
        std::fs::write(&out, &text).expect("write");
        let (code, again, err) = wireplan(&["decode", out.to_str().expect("utf-8 path")]);
        assert_eq!(code, 0, "{args:?}: {err}\n{text}");
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&json).expect("json"),
            serde_json::from_str(&again).expect("json"),
        );
        assert_eq!(a.to_string(), b.to_string(), "{args:?}:\n{text}");
    }
    // deeper than serde_json's default limit of 128, up to the decoder's 500 levels
    let mut deep_neon = String::from("a:\n");
    for level in 1..450 {
        deep_neon.push_str(&"\t".repeat(level));
        deep_neon.push_str(if level < 449 { "a:\n" } else { "a: x\n" });
    }
    std::fs::write(&neon_in, &deep_neon).expect("write");
    let (code, deep_json, err) = wireplan(&["decode", neon_in.to_str().expect("utf-8 path")]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(&json_file, &deep_json).expect("write");
    let (code, text, err) = wireplan(&["encode", json_path, "--indent", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text == deep_neon.replace('\t', " "),
        "449 nested maps changed"
    );
    let too_deep = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
    std::fs::write(&json_file, too_deep).expect("write");
    let (code, _, err) = wireplan(&["encode", json_path]);
    assert_eq!(code, 1);
    assert!(err.contains("nested deeper than"), "{err}");
    // usage and input errors
    std::fs::write(&json_file, "[1]").expect("write");
    let (code, _, err) = wireplan(&["encode", json_path, "--indent", "x"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error[usage]: --indent: "), "{err}");
    // H13: `--indent 0` said `"" given` (the zero spaces it became); the error names what was
    // typed and what is accepted, and 65 is refused rather than silently cut to 64.
    let accepted = "given; expected one or more spaces or tabs, a number of spaces from 1 to 64 \
                    (`4`), or `\\t` for a tab\n";
    for given in ["0", "65", "x"] {
        let (code, out, err) = wireplan(&["encode", json_path, "--indent", given]);
        assert_eq!((code, out.as_str()), (2, ""), "{given}");
        assert_eq!(
            err,
            format!("error[usage]: --indent: \"{given}\" {accepted}")
        );
    }
    let (code, text, err) = wireplan(&["encode", json_path, "--indent", "64"]);
    assert_eq!((code, text.as_str()), (0, "- 1\n"), "{err}");
    std::fs::write(&json_file, "{\"a\": [1,").expect("write");
    let (code, _, err) = wireplan(&["encode", json_path]);
    assert_eq!(code, 1);
    assert!(err.contains("Invalid JSON"), "{err}");
    // serde's own "at line 1 column 9" is not in the message: the label gives the place.
    assert!(
        err.starts_with("error[invalid-value]: Invalid JSON: EOF while parsing a value\n"),
        "{err}"
    );
    assert!(err.contains(":1:9"), "{err}");
    std::fs::write(&json_file, "{\"$float\": \"NAN\"}").expect("write");
    let (code, _, err) = wireplan(&["encode", json_path]);
    assert_eq!(code, 1);
    assert!(err.contains("NAN cannot be encoded"), "{err}");
}
