//! Plans from elsewhere are untrusted (issue #13): repeated JSON keys, plans from a newer
//! wireplan and special objects missing what the format requires are refused with a reason.

use wireplan_runtime::plan::{Plan, OLDEST_VERSION, VERSION};
use wireplan_runtime::Error;

fn plan_with(version: u32, services: &str) -> String {
    format!(
        r#"{{"format": "wireplan-plan", "version": {version}, "compiler": "t", "inputs_hash": "0",
            "services": {services}}}"#
    )
}

const ONE: &str = r#"{"a": {"type": "A", "create": {"$new": "A", "args": []}}}"#;

fn bad_plan_reason(text: &str) -> String {
    match Plan::from_json_str(text, "p.json") {
        Err(Error::BadPlan { reason, .. }) => reason,
        other => panic!("expected BadPlan, got {other:?}"),
    }
}

#[test]
fn repeated_json_keys_are_refused_at_every_level() {
    let cases = [
        // Two services of one name.
        plan_with(
            VERSION,
            r#"{"a": {"type": "A", "create": {"$new": "A", "args": []}},
                "a": {"type": "B", "create": {"$new": "B", "args": []}}}"#,
        ),
        // A key repeated inside a user map of an expression.
        plan_with(
            VERSION,
            r#"{"a": {"type": "A", "create": {"$new": "A", "args": [{"k": 1, "k": 2}]}}}"#,
        ),
        // A repeated tag.
        plan_with(
            VERSION,
            r#"{"a": {"type": "A", "tags": {"t": true, "t": false}, "create": {"$new": "A", "args": []}}}"#,
        ),
    ];
    for text in cases {
        let reason = bad_plan_reason(&text);
        assert!(reason.contains("appears twice in one object"), "{reason}");
    }
    // A repeated top-level field.
    let text = plan_with(VERSION, ONE).replacen(
        "\"compiler\": \"t\"",
        "\"compiler\": \"t\", \"compiler\": \"u\"",
        1,
    );
    let reason = bad_plan_reason(&text);
    assert!(
        reason.contains("duplicate field") || reason.contains("twice"),
        "{reason}"
    );
}

#[test]
fn a_plan_from_a_newer_wireplan_says_so_in_both_forms() {
    let newer = VERSION + 1;
    let json = plan_with(newer, ONE);
    let e = Plan::from_json_str(&json, "p.json").unwrap_err();
    assert!(
        matches!(e, Error::VersionMismatch { found, .. } if found == u64::from(newer)),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("made by a newer version of wireplan"),
        "{e}"
    );

    let mut binary = Plan::from_json_str(&plan_with(VERSION, ONE), "p")
        .unwrap()
        .to_binary();
    binary[8..12].copy_from_slice(&newer.to_le_bytes());
    let e = Plan::from_bytes(&binary, "p.bin").unwrap_err();
    assert!(
        e.to_string()
            .contains("made by a newer version of wireplan"),
        "{e}"
    );
    assert!(!e.to_string().contains("corrupt"), "{e}");
}

#[test]
fn older_plans_still_load_and_the_compiler_version_is_written() {
    assert_eq!(
        (OLDEST_VERSION, VERSION),
        (1, 4),
        "version 2 added the ArgOr variant, version 3 the dynamic section, requires_async, \
         $provider and the slot kind, version 4 the signatures section"
    );
    for version in OLDEST_VERSION..=VERSION {
        let plan = Plan::from_json_str(&plan_with(version, ONE), "p.json").unwrap();
        assert_eq!(plan.version, version);
        let again = Plan::from_bytes(&plan.to_binary(), "p.bin").unwrap();
        assert_eq!(again, plan);
    }
    // The signatures section (version 4) survives the binary form.
    let signed = plan_with(VERSION, ONE).replacen(
        "\"services\"",
        r#""signatures": {"A": "x, y", "A::m": "z"}, "services""#,
        1,
    );
    let plan = Plan::from_json_str(&signed, "p.json").unwrap();
    assert_eq!(plan.signatures.len(), 2);
    assert_eq!(plan.signatures["A::m"], "z");
    let again = Plan::from_bytes(&plan.to_binary(), "p.bin").unwrap();
    assert_eq!(again, plan);
    let e = Plan::from_json_str(&plan_with(0, ONE), "p.json").unwrap_err();
    assert!(
        matches!(e, Error::VersionMismatch { found: 0, .. }),
        "{e:?}"
    );
    assert!(!e.to_string().contains("newer"), "{e}");
}

#[test]
fn special_objects_without_their_required_keys_are_refused() {
    for (create, want) in [
        (r#"{"$new": "A"}"#, "\"$new\" object needs \"args\""),
        (
            r#"{"$call": ["A", "make"]}"#,
            "\"$call\" object needs \"args\"",
        ),
        (r#"{"$func": "int"}"#, "\"$func\" object needs \"args\""),
    ] {
        let text = plan_with(
            VERSION,
            &format!(r#"{{"a": {{"type": "A", "create": {create}}}}}"#),
        );
        let reason = bad_plan_reason(&text);
        assert!(reason.contains(want), "{create}: {reason}");
    }
    let text = plan_with(
        VERSION,
        r#"{"a": {"type": "A", "create": {"$new": "A", "args": []}, "setup": [{"$set": ["@self", "p"]}]}}"#,
    );
    let reason = bad_plan_reason(&text);
    assert!(
        reason.contains("\"$set\" object needs \"value\""),
        "{reason}"
    );
}

/// A conversion of a dynamic parameter that fails names the parameter, never its value.
#[test]
fn a_failed_conversion_does_not_show_a_dynamic_parameters_value() {
    use wireplan_runtime::{Container, Registry};
    struct Port;
    let mut registry = Registry::new();
    registry.class::<Port>("App\\Port").constructor(|a| {
        a.int(0)?;
        Ok(Port)
    });
    let text = plan_with(
        VERSION,
        r#"{"port": {"type": "App\\Port", "create": {"$new": "App\\Port",
            "args": [{"$func": "int", "args": [{"$param": "secret"}]}]}}}"#,
    );
    let container = Container::builder(&registry)
        .parameter("secret", "hunter2")
        .from_json_str(&text)
        .expect("loads");
    let e = container
        .get::<Port>("port")
        .err()
        .expect("int('hunter2') fails");
    let msg = e.to_string();
    assert!(!msg.contains("hunter2"), "{msg}");
    assert!(msg.contains("dynamic parameter 'secret'"), "{msg}");
}

/// A directory, a device or a FIFO given as the plan file is refused before it is read: reading
/// `/dev/zero` never ends (it grew until the machine ran out of memory), and opening a FIFO
/// blocks.
#[test]
fn a_plan_path_that_is_no_regular_file_is_refused_unread() {
    let dir = std::env::temp_dir().join(format!("wireplan-not-a-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let registry = wireplan_runtime::Registry::new();
    let Err(e) = wireplan_runtime::Container::load(&dir, &registry) else {
        panic!("a directory is refused");
    };
    assert!(
        e.to_string().contains("it is a directory, not a plan file"),
        "{e}"
    );
    let e = Plan::read(&dir).expect_err("a directory is refused");
    assert!(e.to_string().contains("directory"), "{e}");
    #[cfg(unix)]
    {
        let Err(e) = wireplan_runtime::Container::load("/dev/zero", &registry) else {
            panic!("a device is refused");
        };
        assert!(
            e.to_string().contains("/dev/zero") && e.to_string().contains("not a regular file"),
            "{e}"
        );
        let fifo = dir.join("plan.fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.map(|s| s.success()).unwrap_or(false) {
            let e = Plan::read(&fifo).expect_err("a FIFO is refused without blocking");
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// A field the model does not have, at the top, in a service or in its source, is refused with
/// its name and place: a misspelt `lifespan` or `setup` in a hand-edited plan would otherwise
/// fall back silently to a singleton without setup.
#[test]
fn unknown_fields_are_refused_with_their_name() {
    let typo = plan_with(
        VERSION,
        r#"{"a": {"type": "A", "create": {"$new": "A", "args": []}, "lifespam": "scoped"}}"#,
    );
    let reason = bad_plan_reason(&typo);
    assert!(
        reason.contains("unknown field `lifespam`") && reason.contains("`lifespan`"),
        "{reason}"
    );
    let top = plan_with(VERSION, ONE).replacen("\"compiler\"", "\"setpu\": [], \"compiler\"", 1);
    assert!(bad_plan_reason(&top).contains("unknown field `setpu`"));
    let source = plan_with(
        VERSION,
        r#"{"a": {"type": "A", "create": {"$new": "A", "args": []},
                  "source": {"file": "a.neon", "line": 1, "column": 1, "col": 2}}}"#,
    );
    assert!(bad_plan_reason(&source).contains("unknown field `col`"));
    assert!(Plan::from_json_str(&plan_with(VERSION, ONE), "p.json").is_ok());
}

/// A NEON configuration given where its plan belongs is named as such, not as corrupt JSON.
#[test]
fn a_configuration_given_as_the_plan_is_named() {
    let reason = bad_plan_reason("services:\n\tdb: App\\Db\n");
    assert!(
        reason.starts_with(
            "not a plan: a plan is a JSON object or a binary plan, and this text starts with 's'"
        ) && reason.ends_with("a NEON configuration is compiled into a plan first"),
        "{reason}"
    );
    // The JSON parser's message ("expected value at line 1 column 1") is not repeated.
    assert!(!reason.contains("expected"), "{reason}");
    assert!(bad_plan_reason("{\"format\": ").starts_with("truncated JSON plan"));
}

/// An empty file and the first bytes of a binary plan are named as such, not read as JSON
/// (`EOF while parsing`, `this text starts with 'W'`; found by a new user's trial).
#[test]
fn an_empty_file_and_a_binary_plan_cut_in_its_mark_are_named() {
    let reason = |bytes: &[u8]| match Plan::from_bytes(bytes, "p.bin") {
        Err(wireplan_runtime::Error::BadPlan { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        reason(b""),
        "the file is empty (a plan is a JSON object or a binary plan)"
    );
    assert_eq!(
        reason(b" \n\t"),
        "the file holds only white space (a plan is a JSON object or a binary plan)"
    );
    assert_eq!(
        reason(b"WIRE"),
        "truncated binary plan: 4 byte(s), fewer than its 8-byte WIREPLAN mark"
    );
    // A whole mark and nothing after it is the binary reader's case.
    assert!(
        reason(b"WIREPLAN").contains("binary"),
        "{}",
        reason(b"WIREPLAN")
    );
}

/// A `version` that is there but not a whole number says what it found; a missing one says so.
#[test]
fn a_bad_version_value_is_shown() {
    let text = plan_with(VERSION, ONE);
    let negative = text.replacen(&format!("\"version\": {VERSION}"), "\"version\": -1", 1);
    assert_eq!(
        bad_plan_reason(&negative),
        format!("\"version\" must be a whole number from {OLDEST_VERSION} to {VERSION}, found -1")
    );
    let text_version = text.replacen(&format!("\"version\": {VERSION}"), "\"version\": \"3\"", 1);
    assert!(bad_plan_reason(&text_version).ends_with("found \"3\""));
    let missing = text.replacen(&format!("\"version\": {VERSION}, "), "", 1);
    assert_eq!(bad_plan_reason(&missing), "\"version\" is missing");
}

/// A plan compiled from a stale catalog (a constructor parameter added or removed since) is
/// refused at load with every such service named, not when the service is created.
#[test]
fn a_plan_whose_argument_counts_differ_from_the_registry_is_refused_at_load() {
    use wireplan_runtime::catalog::{MethodSig, Param};
    use wireplan_runtime::{Container, Registry, Value};
    struct Mailer;
    let mut reg = Registry::new();
    reg.class::<Mailer>("App\\Mailer")
        .signature(vec![Param::of::<String>("host"), Param::of::<i64>("port")])
        .constructor(|a| {
            a.str(0)?;
            a.int(1)?;
            Ok(Mailer)
        })
        .method_signature(
            "setFrom",
            MethodSig {
                params: vec![Param::of::<String>("from")],
                returns: None,
            },
        )
        .method("setFrom", |_, a| {
            a.str(0)?;
            Ok(Value::Null)
        });
    let services = r#"{
        "short": {"type": "App\\Mailer", "create": {"$new": "App\\Mailer", "args": ["h"]}},
        "good": {"type": "App\\Mailer", "create": {"$new": "App\\Mailer", "args": ["h", 25]},
            "setup": [{"$call": ["@self", "setFrom"], "args": ["me"]}]},
        "long": {"type": "App\\Mailer", "create": {"$new": "App\\Mailer", "args": ["h", 25, true]}},
        "setup": {"type": "App\\Mailer", "create": {"$new": "App\\Mailer", "args": ["h", 25]},
            "setup": [{"$call": ["@self", "setFrom"], "args": []}]}
    }"#;
    let e = Container::from_json_str(&plan_with(VERSION, services), &reg).expect_err("refused");
    let text = e.to_string();
    assert!(text.contains("3 problem(s)"), "{text}");
    assert!(
        text.contains(
            "service 'short' (create): the constructor of App\\Mailer takes 2 argument(s) \
             (host, port), the plan passes 1"
        ),
        "{text}"
    );
    assert!(text.contains("service 'long' (create)"), "{text}");
    assert!(text.contains("the plan passes 3"), "{text}");
    assert!(
        text.contains(
            "service 'setup' (setup #1): App\\Mailer::setFrom() takes 1 argument(s) (from), the \
             plan passes 0"
        ),
        "{text}"
    );
    assert!(!text.contains("'good'"), "{text}");
    // A binary plan, which loads through its own fast path, is refused the same way.
    let binary = Plan::from_json_str(&plan_with(VERSION, services), "p")
        .expect("a valid plan")
        .to_binary();
    let e = Container::from_bytes(&binary, &reg).expect_err("refused");
    assert_eq!(
        e.to_string().replacen("<bytes>", "<string>", 1),
        text,
        "the same problems as the JSON plan's"
    );

    // The same counts load.
    let services = r#"{"good": {"type": "App\\Mailer", "create": {"$new": "App\\Mailer", "args": ["h", 25]},
        "setup": [{"$call": ["@self", "setFrom"], "args": ["me"]}]}}"#;
    let c = Container::from_json_str(&plan_with(VERSION, services), &reg).expect("loads");
    assert!(c.get::<Mailer>("good").is_ok());
}

/// A plan compiled from a catalog older than the registry, where two parameters of one type
/// were swapped (or one renamed), passes the same count of arguments of the same types; its
/// `signatures` section (version 4) names the parameters it was compiled for, so loading
/// refuses it instead of passing `min` to `max` (a Rust developer's trial met it silently).
#[test]
fn a_plan_compiled_for_other_parameter_names_is_refused_at_load() {
    use wireplan_runtime::catalog::{MethodSig, Param};
    use wireplan_runtime::{Container, Registry, Value};
    struct Range(i64, i64);
    let mut reg = Registry::new();
    reg.class::<Range>("App\\Range")
        .signature(vec![
            Param::of::<i64>("minItems"),
            Param::of::<i64>("maxItems"),
        ])
        .constructor(|a| Ok(Range(a.int(0)?, a.int(1)?)))
        .method_signature(
            "clamp",
            MethodSig {
                params: vec![Param::of::<i64>("low"), Param::of::<i64>("high")],
                returns: None,
            },
        )
        .method("clamp", |_, a| {
            a.int(0)?;
            a.int(1)?;
            Ok(Value::Null)
        });
    let services = r#"{"range": {"type": "App\\Range", "create": {"$new": "App\\Range", "args": [1, 9]},
        "setup": [{"$call": ["@self", "clamp"], "args": [0, 5]}]}}"#;
    let with = |signatures: &str| {
        plan_with(VERSION, services).replacen(
            "\"services\"",
            &format!("\"signatures\": {signatures}, \"services\""),
            1,
        )
    };
    // The names the registry declares load, from JSON and from the binary form.
    let same = with(r#"{"App\\Range": "minItems, maxItems", "App\\Range::clamp": "low, high"}"#);
    let c = Container::from_json_str(&same, &reg).expect("loads");
    let range = c.get::<Range>("range").expect("created");
    assert_eq!((range.0, range.1), (1, 9));
    let binary = Plan::from_json_str(&same, "p").expect("valid").to_binary();
    assert!(Container::from_bytes(&binary, &reg).is_ok());

    // Swapped constructor parameters and a renamed method parameter: both named.
    let stale = with(r#"{"App\\Range": "maxItems, minItems", "App\\Range::clamp": "low, top"}"#);
    let text = Container::from_json_str(&stale, &reg)
        .expect_err("refused")
        .to_string();
    assert!(text.contains("2 problem(s)"), "{text}");
    assert!(
        text.contains(
            "the constructor of App\\Range declares the parameters ($minItems, $maxItems) in this \
             registry, but the plan was compiled for ($maxItems, $minItems) and passes its \
             arguments by position"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "App\\Range::clamp() declares the parameters ($low, $high) in this registry, but the \
             plan was compiled for ($low, $top)"
        ),
        "{text}"
    );
    assert!(
        text.contains("export the registry's catalog and compile again"),
        "{text}"
    );
    // The binary form (read by the loader's fast path first) is refused the same way.
    let binary = Plan::from_json_str(&stale, "p").expect("valid").to_binary();
    let e = Container::from_bytes(&binary, &reg).expect_err("refused");
    assert_eq!(e.to_string().replacen("<bytes>", "<string>", 1), text);

    // Another count is the arity problem of the call, not a second report here; a class the
    // registry declares no parameters for, or does not have, is not compared.
    let other = with(r#"{"App\\Range": "minItems", "App\\Other": "a, b"}"#);
    assert!(Container::from_json_str(&other, &reg).is_ok());
    // A version 3 plan has no section, and loads as before.
    assert!(Container::from_json_str(&plan_with(3, services), &reg).is_ok());
}

/// A field of a wrong value or type names where it is (`services › clock › lifespan`), from
/// `Container::load` as from `Plan::from_json_str`, with the line and column kept.
#[test]
fn a_malformed_field_is_named_by_its_path_in_the_plan() {
    let services = r#"{"db": {"type": "A", "create": {"$new": "A", "args": []}},
                       "clock": {"type": "A", "lifespan": "forever", "create": {"$new": "A", "args": []}}}"#;
    let forever = plan_with(VERSION, services);
    let reason = bad_plan_reason(&forever);
    assert!(
        reason.starts_with(
            "malformed plan: services › clock › lifespan: unknown variant `forever`, expected one \
             of `singleton`, `scoped`, `transient` at line 3"
        ),
        "{reason}"
    );
    // A wrong type: tags are a map.
    let tags = plan_with(
        VERSION,
        r#"{"db": {"type": "A", "tags": [1], "create": {"$new": "A", "args": []}}}"#,
    );
    let reason = bad_plan_reason(&tags);
    assert!(
        reason.starts_with(
            "malformed plan: services › db › tags: invalid type: sequence, expected a map at line"
        ),
        "{reason}"
    );
    // A top-level field of the wrong type.
    let compiler = plan_with(VERSION, ONE).replacen("\"compiler\": \"t\"", "\"compiler\": 5", 1);
    assert!(
        bad_plan_reason(&compiler)
            .starts_with("malformed plan: compiler: invalid type: integer `5`, expected a string"),
        "{}",
        bad_plan_reason(&compiler)
    );
    // The same from a file, through Container::load.
    let file = std::env::temp_dir().join(format!("wireplan-forever-{}.json", std::process::id()));
    std::fs::write(&file, &forever).unwrap();
    let loaded = wireplan_runtime::Container::load(&file, &wireplan_runtime::Registry::new());
    std::fs::remove_file(&file).ok();
    let e = loaded.unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: invalid plan: malformed plan: services › clock › lifespan: unknown variant `forever`",
            file.display()
        )),
        "{e}"
    );
}

/// A plan nested past the JSON reader's recursion limit names where, by the two ends of the
/// path with the count of the segments between (it had listed all 128).
#[test]
fn a_plan_nested_too_deep_names_the_ends_of_its_path() {
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let text = plan_with(VERSION, ONE).replacen(
        "\"services\"",
        &format!("\"parameters\": {{\"dsn\": {deep}}}, \"services\""),
        1,
    );
    let reason = bad_plan_reason(&text);
    assert!(
        reason.contains("parameters › dsn › 0 › 0 › 0 › … ") && reason.contains(" more … › 0"),
        "{reason}"
    );
    assert!(reason.contains("recursion limit exceeded"), "{reason}");
    assert!(reason.matches(" › ").count() <= 11, "{reason}");
}

/// A literal constructor argument the registered parameter type refuses (a string for an
/// `i64`, 300 for a `u8`, `null` for a parameter that is no `Option`) is a load problem, in
/// the JSON and the binary form alike and all of them at once; what the conversions take (an
/// int for an `f64`, `null` for an `Option`, anything for `Value`) loads. Found by a new
/// user's trial: such a hand-edited plan loaded and failed at the service's first `get`.
#[test]
fn a_literal_argument_the_declared_type_refuses_is_a_load_problem() {
    use std::sync::Arc;
    use wireplan_runtime::{register, Registry, Value};
    #[allow(dead_code)]
    struct Pool(i64, u8, f64, Option<String>, Value);
    #[allow(dead_code)]
    struct Clock;
    #[allow(dead_code)]
    struct Holder(Arc<Clock>, Option<i64>);
    let mut r = Registry::new();
    register!(r, "App\\Pool" => Pool {
        new(size: i64, level: u8, ratio: f64, name: Option<String>, extra: Value) {
            Pool(size, level, ratio, name, extra)
        }
    });
    register!(r, "App\\Clock" => Clock { new() { Clock } });
    register!(r, "App\\Holder" => Holder {
        new(clock: Arc<Clock>, n: Option<i64>) { Holder(clock, n) }
    });
    let services = |pool: &str, holder: &str| {
        format!(
            r#"{{"clock": {{"type": "App\\Clock", "create": {{"$new": "App\\Clock", "args": []}}}},
                "pool": {{"type": "App\\Pool", "create": {{"$new": "App\\Pool", "args": {pool}}}}},
                "holder": {{"type": "App\\Holder", "create": {{"$new": "App\\Holder", "args": {holder}}}}}}}"#
        )
    };
    let load_both = |text: &str| load_json_and_binary(text, &r);
    let good = plan_with(
        VERSION,
        &services(
            r#"[4, 255, 2, null, "anything"]"#,
            r#"[{"$ref": "clock"}, null]"#,
        ),
    );
    for loaded in load_both(&good) {
        let c = loaded.expect("the conversions take these");
        assert!(c.get::<Pool>("pool").is_ok());
    }
    let bad = plan_with(
        VERSION,
        &services(
            r#"["four", 300, "x", 5, null]"#,
            r#"[{"$ref": "clock"}, "n"]"#,
        ),
    );
    for loaded in load_both(&bad) {
        let e = loaded.expect_err("refused").to_string();
        assert_mentions(
            &e,
            &[
                "service 'pool' (create): argument $size (index 0) of the constructor of App\\Pool is a string in the plan, but the parameter takes int;",
                "argument $level (index 1) of the constructor of App\\Pool is the int 300 in the plan, but the parameter takes int<0, 255>;",
                "argument $ratio (index 2) of the constructor of App\\Pool is a string in the plan, but the parameter takes float;",
                "argument $name (index 3) of the constructor of App\\Pool is the int 5 in the plan, but the parameter takes ?string;",
                "service 'holder' (create): argument $n (index 1) of the constructor of App\\Holder is a string in the plan, but the parameter takes ?int;",
            ],
        );
        // `Value` takes null; a `$ref` is left to creation.
        assert!(!e.contains("$extra") && !e.contains("$clock"), "{e}");
    }
    // `null` for a parameter that is no `Option`.
    let null = plan_with(
        VERSION,
        &services(r#"[null, 1, 1, null, 1]"#, r#"[{"$ref": "clock"}, null]"#),
    );
    for loaded in load_both(&null) {
        let e = loaded.expect_err("refused").to_string();
        assert!(
            e.contains("argument $size (index 0) of the constructor of App\\Pool is null in the plan, but the parameter takes int;"),
            "{e}"
        );
    }
}

/// The same for a setup call on `@self` of a method registered with its parameters: a literal
/// its declared type refuses is a load problem, JSON and binary alike (a new user's trial: it
/// failed only when the service was first created).
#[test]
fn a_setup_literal_the_declared_type_refuses_is_a_load_problem() {
    use wireplan_runtime::{register, Registry};
    #[allow(dead_code)]
    struct Mailer {
        level: u8,
        html: bool,
    }
    let mut r = Registry::new();
    register!(r, "App\\Mailer" => Mailer {
        new() { Mailer { level: 0, html: false } }
        fn setLevel(&mut this, level: u8) { this.level = level; }
        fn setHtml(&mut this, on: bool) { this.html = on; }
    });
    let plan = |level: &str, html: &str| {
        plan_with(
            VERSION,
            &format!(
                r#"{{"mailer": {{"type": "App\\Mailer", "create": {{"$new": "App\\Mailer", "args": []}},
                    "setup": [{{"$call": ["@self", "setLevel"], "args": [{level}]}},
                              {{"$call": ["@self", "setHtml"], "args": [{html}]}}]}}}}"#
            ),
        )
    };
    let load_both = |text: &str| load_json_and_binary(text, &r);
    for loaded in load_both(&plan("3", "true")) {
        let c = loaded.expect("the conversions take these");
        let m = c.get::<Mailer>("mailer").expect("created");
        assert_eq!((m.level, m.html), (3, true));
    }
    for loaded in load_both(&plan("300", r#""yes""#)) {
        let e = loaded.expect_err("refused").to_string();
        assert_mentions(
            &e,
            &[
                "service 'mailer' (setup #1): argument $level (index 0) of App\\Mailer::setLevel() is the int 300 in the plan, but the parameter takes int<0, 255>;",
                "service 'mailer' (setup #2): argument $on (index 0) of App\\Mailer::setHtml() is a string in the plan, but the parameter takes bool;",
            ],
        );
    }
}

/// A service passed to a registered parameter that does not take its object (constructor
/// parameters reordered since the plan was compiled) is a load problem, JSON and binary alike;
/// the right order loads (a new user's trial found it only at the first `get`).
#[test]
fn a_reference_the_declared_parameter_does_not_take_is_a_load_problem() {
    use std::sync::Arc;
    use wireplan_runtime::{register, Registry};
    #[allow(dead_code)]
    struct Db;
    #[allow(dead_code)]
    struct Cache;
    #[allow(dead_code)]
    struct Repo(Arc<Db>, Arc<Cache>);
    let mut r = Registry::new();
    register!(r, "App\\Db" => Db { new() { Db } });
    register!(r, "App\\Cache" => Cache { new() { Cache } });
    register!(r, "App\\Repo" => Repo {
        new(db: Arc<Db>, cache: Arc<Cache>) { Repo(db, cache) }
    });
    let plan = |args: &str| {
        plan_with(
            VERSION,
            &format!(
                r#"{{"db": {{"type": "App\\Db", "create": {{"$new": "App\\Db", "args": []}}}},
                    "cache": {{"type": "App\\Cache", "create": {{"$new": "App\\Cache", "args": []}}}},
                    "repo": {{"type": "App\\Repo", "create": {{"$new": "App\\Repo", "args": {args}}}}}}}"#
            ),
        )
    };
    let load_both = |text: &str| load_json_and_binary(text, &r);
    for loaded in load_both(&plan(r#"[{"$ref": "db"}, {"$ref": "cache"}]"#)) {
        assert!(loaded.expect("loads").get::<Repo>("repo").is_ok());
    }
    for loaded in load_both(&plan(r#"[{"$ref": "cache"}, {"$ref": "db"}]"#)) {
        let e = loaded.expect_err("refused").to_string();
        assert_mentions(
            &e,
            &[
                "service 'repo' (create): argument $db (index 0) of the constructor of App\\Repo is service 'cache' (App\\Cache) in the plan, but the parameter takes App\\Db;",
                "argument $cache (index 1) of the constructor of App\\Repo is service 'db' (App\\Db) in the plan, but the parameter takes App\\Cache;",
            ],
        );
    }

    // A trait object whose trait the registry no longer names (its only `implements` was
    // removed since compiling): "takes object" says what that means.
    trait Notifier: Send + Sync {}
    #[allow(dead_code)]
    struct Console;
    #[allow(dead_code)]
    struct Alerts(Arc<dyn Notifier>);
    let mut r = Registry::new();
    register!(r, "App\\Console" => Console { new() { Console } });
    register!(r, "App\\Alerts" => Alerts { new(notifier: Arc<dyn Notifier>) { Alerts(notifier) } });
    let text = plan_with(
        VERSION,
        r#"{"console": {"type": "App\\Console", "create": {"$new": "App\\Console", "args": []}},
            "alerts": {"type": "App\\Alerts", "create": {"$new": "App\\Alerts", "args": [{"$ref": "console"}]}}}"#,
    );
    for loaded in load_json_and_binary(&text, &r) {
        let e = loaded.expect_err("refused").to_string();
        assert_mentions(
            &e,
            &[
                "service 'alerts' (create): argument $notifier (index 0) of the constructor of \
               App\\Alerts is service 'console' (App\\Console) in the plan, but the parameter \
               takes object (a Rust type this registry has no class or interface name for: was \
               its registration, or the `implements` that named it, removed since compiling?)",
            ],
        );
    }
}

/// A dynamic parameter's value the declared parameter type refuses is a load problem, as a
/// literal's is, JSON and binary alike; a sensitive value is not shown (a new user's trial:
/// a constructor parameter changed from `i64` to `String` since the plan was compiled failed
/// at the first `get`).
#[test]
fn a_dynamic_value_the_declared_type_refuses_is_a_load_problem() {
    use wireplan_runtime::{register, Container, Registry, Value};
    #[allow(dead_code)]
    struct Server(String, String);
    let mut r = Registry::new();
    register!(r, "App\\Server" => Server {
        new(port: String, key: String) { Server(port, key) }
    });
    let text = plan_with(
        VERSION,
        r#"{"server": {"type": "App\\Server", "create": {"$new": "App\\Server",
              "args": [{"$param": "port"}, {"$param": "key"}]}}}"#,
    )
    .replace(
        r#""services""#,
        r#""dynamic": {"port": {"type": "int", "required": true},
                       "key": {"type": "int", "required": true, "sensitive": true}},
           "services""#,
    );
    let binary = Plan::from_json_str(&text, "p.json")
        .expect("a plan")
        .to_binary();
    let load_both = || -> [Result<Container, Error>; 2] {
        let builder = || {
            Container::builder(&r)
                .read_environment(false)
                .parameter("port", Value::Int(8080))
                .parameter("key", Value::Int(1234))
        };
        [
            builder().from_json_str(&text),
            builder().from_bytes(&binary),
        ]
    };
    for loaded in load_both() {
        let e = loaded.expect_err("refused").to_string();
        assert_mentions(
            &e,
            &[
                "service 'server' (create): argument $port (index 0) of the constructor of App\\Server is the dynamic parameter 'port' (the int 8080), but the parameter takes string;",
                "argument $key (index 1) of the constructor of App\\Server is the dynamic parameter 'key' (a sensitive value), but the parameter takes string;",
            ],
        );
        assert!(!e.contains("1234"), "{e}");
    }
}

/// A dynamic parameter's int outside the range of the parameter it fills (`TIMES=-3` for a
/// `usize`) is the value's fault, not the plan's: a `dynamic-parameters` error naming the
/// value, the range and the services, as for a value that is no int at all; never the
/// stale-catalog `bad-plan` (a new user's trial followed that hint for nothing). A sensitive
/// value is not shown; a type other than the value's is still a stale plan.
#[test]
fn a_dynamic_int_outside_the_parameters_range_is_a_dynamic_parameter_error() {
    use wireplan_runtime::{register, Container, Registry, Value};
    #[allow(dead_code)]
    struct Pirate(usize, u8, String);
    let mut r = Registry::new();
    register!(r, "App\\Pirate" => Pirate {
        new(times: usize, level: u8, name: String) { Pirate(times, level, name) }
    });
    let services = r#"{"a": {"type": "App\\Pirate", "create": {"$new": "App\\Pirate",
              "args": [{"$param": "env.TIMES"}, {"$param": "level"}, "x"]},
              "source": {"file": "env.neon", "line": 2, "column": 11}},
           "b": {"type": "App\\Pirate", "create": {"$new": "App\\Pirate",
              "args": [{"$param": "env.TIMES"}, 3, {"$param": "name"}]}}}"#;
    let text = plan_with(VERSION, services).replace(
        r#""services""#,
        r#""dynamic": {"env.TIMES": {"type": "int", "required": true},
                       "level": {"type": "int", "required": true, "sensitive": true},
                       "name": {"type": "int", "required": true}},
           "services""#,
    );
    let binary = Plan::from_json_str(&text, "p.json")
        .expect("a plan")
        .to_binary();
    let load = |times: i64, level: i64| -> [Result<Container, Error>; 2] {
        let builder = || {
            Container::builder(&r)
                .read_environment(false)
                .parameter("env.TIMES", Value::Int(times))
                .parameter("level", Value::Int(level))
                .parameter("name", Value::Int(5))
        };
        [
            builder().from_json_str(&text),
            builder().from_bytes(&binary),
        ]
    };
    for loaded in load(-3, 300) {
        let e = loaded.expect_err("refused");
        let Error::Several { errors, .. } = &e else {
            panic!("expected a bad plan (name) and dynamic-parameter errors, got {e}")
        };
        let text = e.to_string();
        assert_eq!(errors.len(), 2, "{text}");
        // `name` (an int for a `String`) is still the plan's fault.
        assert!(matches!(errors[0], Error::BadPlan { .. }), "{text}");
        assert!(
            text.contains(
                "the dynamic parameter 'name' (the int 5), but the parameter takes string"
            ),
            "{text}"
        );
        let Error::DynamicParameters { problems, .. } = &errors[1] else {
            panic!("expected dynamic-parameter problems: {text}")
        };
        let shown: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            shown,
            [
                "'env.TIMES' is the int -3, which is not a valid int<0, max>; needed by \
                 services 'a', 'b' (the first defined at env.neon:2:11)",
                "'level' cannot be converted to int<0, 255> (the value is not shown: the \
                 parameter is sensitive); needed by service 'a' (defined at env.neon:2:11)",
            ]
        );
        assert!(!text.contains("300"), "{text}");
        assert!(!text.contains("-3, but the parameter takes"), "{text}");
    }
    // In range: only `name` is left.
    for loaded in load(2, 7) {
        let e = loaded.expect_err("refused").to_string();
        assert!(!e.contains("env.TIMES") && !e.contains("'level'"), "{e}");
    }
}

/// A plan with a `dynamic` section declares every parameter its services read (the compiler
/// writes them all); a `$param` it does not declare (a plan edited since) is read as given,
/// but a missing value is reported at load with the other dynamic-parameter problems, JSON
/// and binary alike, rather than at the first `get` (a new user's trial). A plan without the
/// section keeps the earlier behaviour (docs/plan-format.md).
#[test]
fn an_undeclared_dynamic_parameter_without_a_value_is_reported_at_load() {
    use wireplan_runtime::{register, Container, Registry, Value};
    #[allow(dead_code)]
    #[derive(Debug)]
    struct Db(String, String);
    let mut r = Registry::new();
    register!(r, "App\\Db" => Db {
        new(dsn: String, user: String) { Db(dsn, user) }
    });
    let services = r#"{"db": {"type": "App\\Db", "create": {"$new": "App\\Db",
              "args": [{"$param": "dsn"}, {"$param": "missing"}]},
              "source": {"file": "app.neon", "line": 3, "column": 6}}}"#;
    let bare = plan_with(VERSION, services);
    let declared = bare.replace(
        r#""services""#,
        r#""dynamic": {"dsn": {"type": "string", "required": true}}, "services""#,
    );
    let load = |text: &str, given: &[(&str, &str)]| -> [Result<Container, Error>; 2] {
        let binary = Plan::from_json_str(text, "p.json")
            .expect("a plan")
            .to_binary();
        let builder = || {
            let mut b = Container::builder(&r).read_environment(false);
            for (k, v) in given {
                b = b.parameter(k, Value::Str(v.to_string()));
            }
            b
        };
        [builder().from_json_str(text), builder().from_bytes(&binary)]
    };
    for loaded in load(&declared, &[("dsn", "sqlite:")]) {
        let e = loaded.expect_err("refused");
        let Error::DynamicParameters { problems, .. } = &e else {
            panic!("expected dynamic-parameter problems, got {e}")
        };
        let shown: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            shown,
            [
                "'missing' is missing: pass it to ContainerBuilder::parameter; needed by service \
              'db' (defined at app.neon:3:6)"
            ]
        );
    }
    // Given, it is read as given; so is everything in a plan without the section, where a
    // missing value fails only when the service is created.
    for loaded in load(&declared, &[("dsn", "sqlite:"), ("missing", "u")]) {
        let c = loaded.expect("loads");
        assert!(c.get::<Db>("db").is_ok());
    }
    for loaded in load(&bare, &[("dsn", "sqlite:")]) {
        let c = loaded.expect("a plan without the section loads");
        let e = c.get::<Db>("db").expect_err("no value").to_string();
        assert!(e.contains("dynamic parameter 'missing'"), "{e}");
    }
}

/// The plan `text` loaded with `r` as JSON and as the binary form of the same plan (the
/// container's fast path): the load checks must answer alike.
fn load_json_and_binary(
    text: &str,
    r: &wireplan_runtime::Registry,
) -> [Result<wireplan_runtime::Container, Error>; 2] {
    let plan = Plan::from_json_str(text, "p.json").expect("a well-formed plan");
    [
        wireplan_runtime::Container::from_json_str(text, r),
        wireplan_runtime::Container::from_bytes(&plan.to_binary(), r),
    ]
}

/// Asserts that the message `e` holds every one of `expected`.
fn assert_mentions(e: &str, expected: &[&str]) {
    for expected in expected {
        assert!(e.contains(expected), "missing '{expected}' in: {e}");
    }
}

/// A service named "" (no configuration gives one; a hand-edited plan did, and loaded and ran:
/// a new user's trial) is refused at load, in the JSON and the binary form alike.
#[test]
fn a_service_with_an_empty_name_is_refused_at_load() {
    use wireplan_runtime::{Container, Registry};
    struct A;
    let mut reg = Registry::new();
    reg.class::<A>("App\\A").constructor(|_| Ok(A));
    let services = r#"{
        "a": {"type": "App\\A", "create": {"$new": "App\\A", "args": []}},
        "": {"type": "App\\A", "create": {"$new": "App\\A", "args": []}}
    }"#;
    let e = Container::from_json_str(&plan_with(VERSION, services), &reg).expect_err("refused");
    let text = e.to_string();
    assert!(text.contains("1 problem(s)"), "{text}");
    assert!(
        text.contains("a service has an empty name (\"\"), which no configuration gives"),
        "{text}"
    );
    let binary = Plan::from_json_str(&plan_with(VERSION, services), "p")
        .expect("the plan reads")
        .to_binary();
    let e = Container::from_bytes(&binary, &reg).expect_err("refused");
    assert_eq!(e.to_string().replacen("<bytes>", "<string>", 1), text);
    // Without it, the plan loads.
    let one = r#"{"a": {"type": "App\\A", "create": {"$new": "App\\A", "args": []}}}"#;
    assert!(Container::from_json_str(&plan_with(VERSION, one), &reg).is_ok());
}
