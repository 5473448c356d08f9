//! The plan's `dynamic` section at load: conversions, defaults, required parameters reported
//! all at once, sensitive values, both encodings, and plans without the section (which keep the
//! old first-use behaviour).

use wireplan_runtime::dynamic::{cast, DynamicProblem, ProblemKind};
use wireplan_runtime::plan::{Plan, VERSION};
use wireplan_runtime::{Container, Error, Registry, Value};

struct Port(i64);

fn registry() -> Registry {
    let mut r = Registry::new();
    r.class::<Port>("App\\Port")
        .constructor(|a| Ok(Port(a.int(0)?)));
    r
}

/// A plan with two services reading `env.WP_P` and `key`, and the given `dynamic` section.
fn plan(version: u32, dynamic: &str) -> String {
    format!(
        r#"{{"format": "wireplan-plan", "version": {version}, "compiler": "t", "inputs_hash": "0",
            "services": {{
              "a": {{"type": "App\\Port", "create": {{"$new": "App\\Port", "args": [{{"$param": "env.WP_P"}}]}}}},
              "b": {{"type": "App\\Port", "create": {{"$new": "App\\Port", "args": [{{"$param": "key"}}]}}}}
            }}{dynamic}}}"#
    )
}

const SECTION: &str = r#", "dynamic": {
    "env.WP_P": {"type": "int", "default": 80},
    "key": {"type": "int", "required": true, "sensitive": true}}"#;

fn load(text: &str, given: &[(&str, Value)]) -> Result<Container, Error> {
    Container::builder(&registry())
        .read_environment(false)
        .parameters(given.iter().cloned().map(|(k, v)| (k.to_string(), v)))
        .from_json_str(text)
}

#[test]
fn conversions_follow_the_declared_type() {
    let ok = |v: &str, t: &str| cast(&Value::from(v), t).unwrap();
    assert_eq!(ok("8080", "int"), Value::Int(8080));
    assert_eq!(ok("-1", "?int"), Value::Int(-1));
    assert_eq!(ok("", "?int"), Value::Null);
    assert_eq!(ok("", "?string"), Value::from(""));
    assert_eq!(ok("0.5", "float"), Value::Float(0.5));
    assert_eq!(ok("2", "float"), Value::Float(2.0));
    assert_eq!(ok("ON", "bool"), Value::Bool(true));
    assert_eq!(ok("no", "bool"), Value::Bool(false));
    assert_eq!(ok("x", "mixed"), Value::from("x"));
    assert_eq!(cast(&Value::Int(3), "string").unwrap(), Value::from("3"));
    assert_eq!(cast(&Value::Int(3), "float").unwrap(), Value::Float(3.0));
    for (v, t) in [
        ("abc", "int"),
        ("1.5", "int"),
        ("", "int"),
        ("inf", "float"),
        ("NaN", "float"),
        ("maybe", "bool"),
    ] {
        assert_eq!(
            cast(&Value::from(v), t),
            Err(format!("expected {t}")),
            "{v} as {t}"
        );
    }
    assert_eq!(cast(&Value::Null, "int"), Err("expected int".into()));
    assert_eq!(
        cast(&Value::from("1"), "integer"),
        Err("unknown type 'integer'".into())
    );
}

#[test]
fn defaults_conversions_and_all_problems_at_once() {
    let text = plan(VERSION, SECTION);
    // The default fills env.WP_P; key is given as text and converted.
    let c = load(&text, &[("key", Value::from("7"))]).unwrap();
    assert_eq!(c.get::<Port>("a").unwrap().0, 80);
    assert_eq!(c.get::<Port>("b").unwrap().0, 7);
    assert_eq!(c.parameter("key").unwrap(), Value::Int(7));

    // Both wrong: one error, both problems; the sensitive value is not shown.
    let e = load(
        &text,
        &[
            ("env.WP_P", Value::from("abc")),
            ("key", Value::from("s3cret")),
        ],
    )
    .err()
    .unwrap();
    let Error::DynamicParameters { origin, problems } = &e else {
        panic!("{e}")
    };
    assert_eq!(origin, "<string>");
    assert_eq!(
        problems,
        &[
            DynamicProblem {
                name: "env.WP_P".into(),
                kind: ProblemKind::Invalid {
                    expected: "int".into(),
                    value: Some("'abc'".into())
                },
                services: vec!["a".into()],
                defined_at: None,
            },
            DynamicProblem {
                name: "key".into(),
                kind: ProblemKind::Invalid {
                    expected: "int".into(),
                    value: None
                },
                services: vec!["b".into()],
                defined_at: None,
            },
        ]
    );
    assert!(!e.to_string().contains("s3cret"), "{e}");

    // Missing and required.
    let e = load(&text, &[]).err().unwrap();
    assert_eq!(
        e.to_string(),
        "<string>: 1 dynamic parameter(s) missing or invalid:\n  - 'key' (int) is missing: \
         pass it to ContainerBuilder::parameter; needed by service 'b'"
    );
}

#[test]
fn the_section_survives_the_binary_form_and_version_2_binaries_still_load() {
    let p = Plan::from_json_str(&plan(VERSION, SECTION), "p").unwrap();
    assert_eq!(p.dynamic.len(), 2);
    let again = Plan::from_bytes(&p.to_binary(), "p.bin").unwrap();
    assert_eq!(again, p);
    assert_eq!(
        again.dynamic["env.WP_P"].default,
        Some(p.dynamic["env.WP_P"].default.clone().unwrap())
    );

    // A version-2 plan (no section) in binary, as an older compiler wrote it.
    let old = Plan::from_json_str(&plan(2, ""), "p").unwrap();
    let bytes = old.to_binary();
    assert_eq!(&bytes[8..12], &2u32.to_le_bytes());
    let back = Plan::from_bytes(&bytes, "old.bin").unwrap();
    assert_eq!(back, old);
    // Without the section, a missing parameter is found at first use, as before.
    let c = Container::builder(&registry())
        .read_environment(false)
        .parameter("key", 5_i64)
        .from_plan(back)
        .expect("loads without env.WP_P");
    assert_eq!(c.get::<Port>("b").unwrap().0, 5);
    let e = c.get::<Port>("a").err().unwrap();
    assert!(
        e.to_string().contains("dynamic parameter 'env.WP_P'"),
        "{e}"
    );
}

#[test]
fn a_bad_section_is_an_invalid_plan() {
    let text = plan(
        VERSION,
        r#", "dynamic": {"env.WP_P": {"type": "port"}, "key": {"type": "int", "default": "x"}}"#,
    );
    let e = load(&text, &[]).err().unwrap();
    let msg = e.to_string();
    assert!(matches!(e, Error::BadPlan { .. }), "{msg}");
    assert!(
        msg.contains("dynamic parameter 'env.WP_P': unknown type 'port'"),
        "{msg}"
    );
    assert!(
        msg.contains("dynamic parameter 'key': the default is not a valid int"),
        "{msg}"
    );
}

#[test]
fn a_nullable_parameter_without_a_value_is_null() {
    let text = plan(
        VERSION,
        r#", "dynamic": {"env.WP_P": {"type": "?int"}, "key": {}}"#,
    );
    let c = load(&text, &[]).expect("neither is required");
    assert_eq!(c.parameter("env.WP_P").unwrap(), Value::Null);
    // `key` is not required and has no type: found missing at first use.
    assert!(c.get::<Port>("b").is_err());
}

#[test]
fn environment_values_are_converted_too() {
    // A variable only this test uses, so no other test sees or changes it.
    std::env::set_var("WP_DYNAMIC_TEST_ONLY_PORT", "8081");
    let text = plan(VERSION, SECTION).replace("env.WP_P", "env.WP_DYNAMIC_TEST_ONLY_PORT");
    let c = Container::builder(&registry())
        .parameter("key", "1")
        .from_json_str(&text)
        .expect("loads");
    assert_eq!(c.get::<Port>("a").unwrap().0, 8081);
    assert_eq!(
        c.parameter("env.WP_DYNAMIC_TEST_ONLY_PORT").unwrap(),
        Value::Int(8081)
    );
}

/// An environment variable set to bytes that are not UTF-8 is reported as such, naming the
/// parameter, not as missing (a new user's trial saw "missing").
#[cfg(unix)]
#[test]
fn an_environment_variable_that_is_not_text_is_an_error_not_missing() {
    use std::os::unix::ffi::OsStrExt;
    std::env::set_var(
        "WP_DYNAMIC_TEST_ONLY_BYTES",
        std::ffi::OsStr::from_bytes(b"80\xff81"),
    );
    let text = plan(VERSION, SECTION).replace("env.WP_P", "env.WP_DYNAMIC_TEST_ONLY_BYTES");
    let err = Container::builder(&registry())
        .parameter("key", "1")
        .from_json_str(&text)
        .expect_err("not text");
    let message = err.to_string();
    assert!(
        message.contains(
            "'env.WP_DYNAMIC_TEST_ONLY_BYTES' is \"80\u{fffd}81\", which is not a valid UTF-8 text"
        ),
        "{message}"
    );
    assert!(!message.contains("BYTES' is missing"), "{message}");
}

/// A value given for a static parameter is a load problem (JSON and binary alike): the plan's
/// value is what every service reads, and `Container::parameter` answered with the given one
/// (a new user's trial). A required parameter that is missing names a close given name that
/// the plan does not use (`kye` for `key`); names of neither kind are not checked.
#[test]
fn a_value_for_a_static_parameter_is_refused_and_a_close_name_is_suggested() {
    let with_static = plan(VERSION, SECTION).replace(
        r#""inputs_hash": "0","#,
        r#""inputs_hash": "0", "parameters": {"prefix": "[app] ", "db": {"host": "h"}},"#,
    );
    let binary = Plan::from_json_str(&with_static, "<t>")
        .unwrap()
        .to_binary();
    let r = registry();
    let load_both = |given: &[(&str, Value)]| -> [Result<Container, Error>; 2] {
        let builder = || {
            Container::builder(&r)
                .read_environment(false)
                .parameters(given.iter().cloned().map(|(k, v)| (k.to_string(), v)))
        };
        [
            builder().from_json_str(&with_static),
            builder().from_bytes(&binary),
        ]
    };
    // Unknown names alone are not checked; the static value is the plan's.
    for loaded in load_both(&[("key", Value::Int(1)), ("unrelated", Value::Int(2))]) {
        let c = loaded.expect("loads");
        assert_eq!(c.parameter("prefix").unwrap(), Value::from("[app] "));
    }
    for loaded in load_both(&[
        ("key", Value::Int(1)),
        ("prefix", Value::from("OVERRIDE")),
        ("db.host", Value::from("x")),
    ]) {
        let e = loaded.expect_err("refused").to_string();
        for expected in [
            "'db.host' is a static parameter: its value is compiled into the plan, so a value \
             given at start-up would not be used; compile with `--dynamic db.host` to read it \
             at start-up",
            "'prefix' is a static parameter",
        ] {
            assert!(e.contains(expected), "missing '{expected}' in: {e}");
        }
    }
    for loaded in load_both(&[("kye", Value::Int(1))]) {
        let e = loaded.expect_err("refused").to_string();
        assert!(
            e.contains(
                "'key' (int) is missing: pass it to ContainerBuilder::parameter (a value was \
                 given for 'kye', which the plan does not use: did you mean 'key'?)"
            ),
            "{e}"
        );
    }
}
