//! The plan tools as a user runs them: `check` (human, JSON, SARIF), `show` and `diff`, on the
//! example and on the error fixtures under `tests/fixtures/tools/`, compared with the golden
//! files under `tests/golden/tools/` (regenerate with `WIREPLAN_UPDATE_GOLDEN=1 cargo test
//! --test tools`, then review the diff). Bad input: a clear message and exit code.

mod common;

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXAMPLE: &str = "examples/blog/config/app.neon";
/// The blog example's catalog, generated from its Rust types; passed whenever EXAMPLE is.
const EXAMPLE_CATALOG: &str = "examples/blog/catalog.json";
const WIRING: &str = "tests/fixtures/tools/wiring/config.neon";
const SYNTAX: &str = "tests/fixtures/tools/syntax/config.neon";

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run in `dir`, without colour.
fn wireplan_in(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wireplan"));
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("WIREPLAN_SCRIPTS");
    c
}

/// Runs the binary in `dir` and returns (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = wireplan_in(dir).args(args).output().expect("wireplan runs");
    (
        out.status.code().expect("exited normally, not by a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `args` with `--catalog EXAMPLE_CATALOG` appended when they name the blog example.
fn with_catalog<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    if args.contains(&EXAMPLE) {
        all.extend(["--catalog", EXAMPLE_CATALOG]);
    }
    all
}

/// Runs the binary in the workspace, with the example's catalog when `args` name the example.
fn run(args: &[&str]) -> (i32, String, String) {
    run_in(manifest_dir(), &with_catalog(args))
}

/// Compares `actual` with `tests/golden/tools/<name>`, or writes it there under
/// `WIREPLAN_UPDATE_GOLDEN=1` (see [`common::golden`]).
fn golden(name: &str, actual: &str) {
    common::golden(
        &manifest_dir().join("tests/golden/tools").join(name),
        actual,
    );
}

/// The transcript of one run: exit code, stdout and stderr.
fn transcript(args: &[&str], (code, stdout, stderr): (i32, String, String)) -> String {
    format!(
        "$ wireplan {}\nexit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}",
        with_catalog(args).join(" ")
    )
}

/// Compiles `config` (relative to the workspace) into `dir/name` and returns its path.
fn compile_into(config: &str, dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let plan = dir.join(name);
    let plan_arg = plan.to_str().expect("UTF-8 temp path");
    let mut args = vec!["compile", config, "-o", plan_arg];
    args.extend_from_slice(extra);
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    plan
}

#[test]
fn check_output_in_every_format() {
    for (name, config, code) in [
        ("example", EXAMPLE, 0),
        ("wiring", WIRING, 1),
        ("syntax", SYNTAX, 1),
    ] {
        for format in ["human", "json", "sarif"] {
            let args = ["check", config, "--format", format];
            let out = run(&args);
            assert_eq!(out.0, code, "{name} {format}: {}", out.2);
            let ext = if format == "human" { "txt" } else { "json" };
            golden(
                &format!("check-{name}-{format}.{ext}"),
                &transcript(&args, out),
            );
        }
    }
}

#[test]
fn check_json_records_have_positions_notes_and_labels() {
    let (code, stdout, _) = run(&["check", WIRING, "--format", "json"]);
    assert_eq!(code, 1);
    let json: Json = serde_json::from_str(&stdout).expect("JSON");
    let missing = json
        .as_array()
        .expect("array")
        .iter()
        .find(|d| d["code"] == "missing-service")
        .expect("missing-service reported");
    assert_eq!(missing["line"], 11);
    assert_eq!(missing["column"], 17);
    assert_eq!(
        missing["end"],
        serde_json::json!({"line": 11, "column": 25})
    );
    assert_eq!(
        missing["notes"],
        serde_json::json!(["did you mean 'database'?"])
    );
    let (_, stdout, _) = run(&["check", SYNTAX, "--format", "json"]);
    let json: Json = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(json[0]["labels"][0]["line"], 4);
    assert_eq!(json[0]["labels"][0]["message"], "first used here");
}

#[test]
fn sarif_output_is_valid_against_the_2_1_0_schema() {
    let schema_text =
        std::fs::read_to_string(manifest_dir().join("tests/schemas/sarif-2.1.0.json"))
            .expect("vendored schema");
    let schema: Json = serde_json::from_str(&schema_text).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    // Results without a file position of their own too: a bad `-p` value, a missing CONFIG.
    let cases: [&[&str]; 5] = [
        &["check", EXAMPLE],
        &["check", WIRING],
        &["check", SYNTAX],
        &["check", WIRING, "-p", "x=["],
        &["check", "tests/fixtures/no-such-config.neon"],
    ];
    for args in cases {
        let mut args = args.to_vec();
        args.extend(["--format", "sarif"]);
        let (_, stdout, _) = run(&args);
        let log: Json = serde_json::from_str(&stdout).expect("SARIF is JSON");
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:#?}");
        // GitHub's upload refuses a result without a location: every result has one, with an
        // artifact URI.
        let results = log["runs"][0]["results"].as_array().expect("results");
        assert!(args[1] == EXAMPLE || !results.is_empty(), "{args:?}: {log}");
        for r in results {
            let uri = &r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
            assert!(uri.is_string(), "{args:?}: no location in {r}");
        }
    }
    // Without a position of its own, a result points at the root configuration (no region).
    let (_, stdout, _) = run(&["check", WIRING, "-p", "x=[", "--format", "sarif"]);
    let log: Json = serde_json::from_str(&stdout).expect("SARIF is JSON");
    let bad_p = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "neon-syntax")
        .unwrap_or_else(|| panic!("a neon-syntax result for -p in {log}"));
    assert_eq!(
        bad_p["locations"][0]["physicalLocation"],
        serde_json::json!({"artifactLocation": {"uri": WIRING}})
    );
    // An invalid log is caught, so the validation above can fail.
    let bad = serde_json::json!({"version": "2.1.0", "runs": [{"results": []}]});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn sarif_results_point_at_the_source() {
    let (_, stdout, _) = run(&["check", WIRING, "--format", "sarif"]);
    let log: Json = serde_json::from_str(&stdout).expect("JSON");
    let run0 = &log["runs"][0];
    let rules: Vec<&str> = run0["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(rules, ["class-not-found", "missing-service"]);
    let result = run0["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "missing-service")
        .expect("missing-service result");
    assert_eq!(result["level"], "error");
    let loc = &result["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], WIRING);
    assert_eq!(loc["region"]["startLine"], 11);
    assert_eq!(loc["region"]["startColumn"], 17);
    assert_eq!(loc["region"]["endColumn"], 25);
    assert!(result["message"]["text"]
        .as_str()
        .expect("text")
        .ends_with("\ndid you mean 'database'?"));
}

#[test]
fn deny_warnings_turns_warnings_into_failure() {
    let config = "tests/fixtures/compile/search-finds-nothing/config.neon";
    let (code, _, stderr) = run(&["check", config]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("warning[empty-search]"), "{stderr}");
    let (code, _, stderr) = run(&["check", config, "--deny-warnings"]);
    assert_eq!(code, 1);
    assert!(
        stderr.ends_with("\nerror: 2 warning(s), denied by --deny-warnings\n"),
        "{stderr}"
    );
    // Only the error: no "ok" line that the failure contradicts.
    assert!(!stderr.contains("ok: "), "{stderr}");
    let (code, _, _) = run(&["check", EXAMPLE, "--deny-warnings"]);
    assert_eq!(code, 0);
    let (code, _, stderr) = run(&["check", EXAMPLE, "--format", "yaml"]);
    assert_eq!(code, 2, "{stderr}");
}

/// A parameter key with NUL, ESC and a line break (a plan is a file anyone can write): `show`
/// prints them escaped, so the terminal is not driven and the table keeps one row per key.
#[test]
fn show_escapes_control_characters_in_table_cells() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("app.neon"),
        "parameters:\n\t\"k\\u0000y\\u001b[31m\\nz\": 1\n",
    )
    .expect("write config");
    let (code, _, err) = run_in(dir.path(), &["compile", "app.neon", "-o", "p.json"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run_in(dir.path(), &["show", "p.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\0') && !out.contains('\u{1b}'), "{out:?}");
    assert!(out.contains("\n  k\\u{0}y\\u{1b}[31m\\nz  1\n"), "{out}");
}

/// Tags with ESC, quotes, HTML and a line break (the configuration is anyone's text), and a
/// class named so in a plan edited by hand (a class of the catalog must be a class name):
/// `explain`, `graph` (DOT and Mermaid) and `show` print no raw control character, keep one
/// line per node, and Mermaid gets the HTML as entity codes.
#[test]
fn inspection_answers_show_control_characters_and_markup_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("app.neon"),
        "types:\n\tApp\\Evil:\nservices:\n\tx:\n\t\tcreate: App\\Evil\n\t\t\
         tags: [\"t\\u001b[2J\", \"line\\nbreak\", \"q\\\"]<br>\"]\n",
    )
    .expect("write config");
    let (code, _, err) = run_in(dir.path(), &["compile", "app.neon", "-o", "p.json"]);
    assert_eq!(code, 0, "{err}");
    for args in [
        &["explain", "app.neon", "x"][..],
        &["graph", "app.neon"],
        &["graph", "app.neon", "--format", "mermaid"],
        &["show", "p.json"],
        &["show", "p.json", "x"],
    ] {
        let (code, out, err) = run_in(dir.path(), args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.contains('\u{1b}'), "{args:?}: {out:?}");
        assert!(out.contains("u{1b}[2J"), "{args:?}: {out}");
    }
    let (_, mermaid, _) = run_in(dir.path(), &["graph", "app.neon", "--format", "mermaid"]);
    assert_eq!(
        mermaid.lines().nth(1),
        Some(
            "  n0[\"x<br/>App\\Evil<br/><i>singleton \
             #t\\u{1b}[2J #line\\nbreak #q#quot;]#lt;br#gt;</i>\"]"
        ),
        "{mermaid}"
    );
    let (_, dot, _) = run_in(dir.path(), &["graph", "app.neon"]);
    assert!(
        dot.contains(
            "[label=\"x\\nApp\\\\Evil\\nsingleton #t\\\\u{1b}[2J #line\\\\nbreak #q\\\"]<br>\""
        ),
        "{dot}"
    );
    // The class as a plan edited by hand may name it.
    let path = dir.path().join("p.json");
    let mut plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    plan["services"]["x"]["type"] = "App\\Ev\u{1b}[31mil\"]<br>".into();
    std::fs::write(&path, serde_json::to_string_pretty(&plan).expect("json")).expect("write");
    for args in [&["show", "p.json"][..], &["show", "p.json", "x"]] {
        let (code, out, err) = run_in(dir.path(), args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.contains('\u{1b}'), "{args:?}: {out:?}");
        assert!(out.contains("u{1b}[31mil"), "{args:?}: {out}");
    }
}

/// A plan edited by hand so that a service refers to a service it does not define and an alias
/// points to nothing: `show` and `graph` still answer, and say first, as `invalid-plan`
/// warnings, what the runtime would refuse. A NEON configuration named `.json` is drawn as a
/// configuration; a file that only starts like a binary plan is not called a configuration.
#[test]
fn show_and_graph_warn_about_what_the_runtime_refuses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plan = compile_into(EXAMPLE, dir.path(), "app.plan.json", &[]);
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&plan).expect("read plan")).expect("JSON plan");
    json["services"]["blog"]["create"]["args"][0] = serde_json::json!({"$ref": "ghost"});
    json["aliases"] = serde_json::json!({"x": "phantom"});
    std::fs::write(dir.path().join("edited.json"), json.to_string()).expect("write");
    for args in [&["show", "edited.json"][..], &["graph", "edited.json"]] {
        let (code, out, err) = run_in(dir.path(), args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.is_empty());
        assert!(
            err.contains(
                "warning[invalid-plan]: Service 'blog' refers to missing service 'ghost'."
            ),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("warning[invalid-plan]: Alias 'x' refers to missing service 'phantom'."),
            "{args:?}: {err}"
        );
        assert_eq!(
            err.matches("the runtime refuses to load this plan").count(),
            2
        );
    }
    let (code, _, err) = run_in(dir.path(), &["show", "app.plan.json"]);
    assert_eq!((code, err.as_str()), (0, ""));

    // `diff` warns too, naming the plan; an older version the runtime reads is no problem.
    let (code, out, err) = run_in(dir.path(), &["diff", "app.plan.json", "edited.json"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("phantom"), "{out}");
    assert!(
        err.contains("warning[invalid-plan]: Alias 'x' refers to missing service 'phantom'.")
            && err.contains("in the plan 'edited.json'")
            && !err.contains("in the plan 'app.plan.json'"),
        "{err}"
    );
    let older = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/runtime/tests/fixtures/a28-setup.plan.json"
    );
    let (code, _, err) = run_in(dir.path(), &["show", older]);
    assert_eq!((code, err.as_str()), (0, ""));

    // A service that needs itself loads, but fails when it is first created: said so.
    json["aliases"] = serde_json::json!({});
    json["services"]["blog"]["create"]["args"][0] = serde_json::json!({"$ref": "blog"});
    std::fs::write(dir.path().join("cycle.json"), json.to_string()).expect("write");
    let (code, _, err) = run_in(dir.path(), &["show", "cycle.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "warning[invalid-plan]: Circular reference detected for services: blog. (path: \
             blog -> blog)."
        ),
        "{err}"
    );
    assert!(
        err.contains("the runtime loads this plan but fails when the service is first created"),
        "{err}"
    );
    assert!(!err.contains("refuses to load"), "{err}");

    // A singleton edited to hold a scoped service: warned of too (the runtime refuses such a
    // plan at load; second and fourth new users' trials).
    json["services"]["blog"]["create"]["args"][0] = serde_json::json!({"$ref": "db"});
    json["services"]["db"]["lifespan"] = serde_json::json!("scoped");
    std::fs::write(dir.path().join("captive.json"), json.to_string()).expect("write");
    let (code, _, err) = run_in(dir.path(), &["show", "captive.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "warning[invalid-plan]: services › blog: the singleton holds scoped service 'db' \
             (path: blog -> db), which lives only inside a scope (captive-dependency)."
        ) && err.contains("the runtime refuses to load this plan"),
        "{err}"
    );

    // A service edited into a slot that is a singleton and has a create: both refused at
    // load, so warned of (a new user's trial edited a slot's lifespan).
    let mut slot = json.clone();
    slot["services"]["db"]["kind"] = serde_json::json!("slot");
    slot["services"]["db"]["lifespan"] = serde_json::json!("singleton");
    std::fs::write(dir.path().join("slot.json"), slot.to_string()).expect("write");
    let (code, _, err) = run_in(dir.path(), &["show", "slot.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning[invalid-plan]: Service 'db': a slot is scoped, not singleton.")
            && err.contains(
                "warning[invalid-plan]: Service 'db': a slot is provided at run time, so it \
                 has no create or setup."
            )
            && err.contains("the runtime refuses to load this plan"),
        "{err}"
    );

    // A service that needs one marked requires_async, unmarked itself (a hand edit): the
    // runtime refuses it at load, so `show` says so.
    json["services"]["db"]["lifespan"] = serde_json::json!("singleton");
    json["services"]["db"]["requires_async"] = serde_json::json!(true);
    std::fs::write(dir.path().join("async.json"), json.to_string()).expect("write");
    let (code, _, err) = run_in(dir.path(), &["show", "async.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "warning[invalid-plan]: Service 'blog' needs 'db', which requires async, but is not \
             marked requires_async itself."
        ) && err.contains("the runtime refuses to load this plan"),
        "{err}"
    );

    std::fs::write(
        dir.path().join("cfg.json"),
        "types:\n\tApp\\A:\nservices:\n\ta: App\\A\n",
    )
    .expect("write");
    let (code, out, err) = run_in(dir.path(), &["graph", "cfg.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"a\" [label=\"a\\nApp\\\\A"), "{out}");

    std::fs::write(dir.path().join("magic.bin"), b"WIREPLAN").expect("write");
    let (code, _, err) = run_in(dir.path(), &["show", "magic.bin"]);
    assert_eq!(code, 1);
    assert!(err.contains("error[invalid-plan]"), "{err}");
    assert!(!err.contains("looks like a configuration"), "{err}");
    // A binary plan cut inside its mark is named so, and is no configuration either.
    std::fs::write(dir.path().join("cut.bin"), b"WIRE").expect("write");
    let (code, _, err) = run_in(dir.path(), &["show", "cut.bin"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("truncated binary plan: 4 byte(s), fewer than its 8-byte WIREPLAN mark"),
        "{err}"
    );
    assert!(!err.contains("looks like a configuration"), "{err}");
}

#[test]
fn show_in_both_encodings_and_formats() {
    let dir = tempfile::tempdir().expect("temp dir");
    compile_into(EXAMPLE, dir.path(), "app.plan.json", &[]);
    compile_into(EXAMPLE, dir.path(), "app.plan.bin", &[]);
    for args in [
        &["show", "app.plan.json"][..],
        &["show", "app.plan.bin"],
        &["show", "app.plan.json", "--format", "json"],
        &["show", "app.plan.bin", "articles"],
        &["show", "app.plan.json", "01", "--format", "json"],
    ] {
        let out = run_in(dir.path(), args);
        assert_eq!(out.0, 0, "{args:?}: {}", out.2);
        let name = args.join("-").replace("--", "").replace('.', "-");
        golden(&format!("{name}.txt"), &transcript(args, out));
    }
    // The two encodings hold the same plan: only the encoding line differs.
    let (_, json, _) = run_in(dir.path(), &["show", "app.plan.json"]);
    let (_, bin, _) = run_in(dir.path(), &["show", "app.plan.bin"]);
    let differing: Vec<(&str, &str)> = json
        .lines()
        .zip(bin.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(
        differing,
        [
            (
                "  plan          app.plan.json",
                "  plan          app.plan.bin"
            ),
            ("  encoding      json", "  encoding      binary"),
        ]
    );
}

#[test]
fn diff_reports_semantic_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    compile_into(
        "tests/fixtures/tools/diff/old.neon",
        dir.path(),
        "old.json",
        &[],
    );
    compile_into(
        "tests/fixtures/tools/diff/new.neon",
        dir.path(),
        "new.bin",
        &[],
    );
    compile_into(EXAMPLE, dir.path(), "app.json", &[]);
    compile_into(EXAMPLE, dir.path(), "app.bin", &[]);
    compile_into(
        EXAMPLE,
        dir.path(),
        "app10.json",
        &["-p", "postsPerPage=10"],
    );
    for (args, code) in [
        (&["diff", "old.json", "new.bin"][..], 1),
        (&["diff", "old.json", "new.bin", "--format", "json"], 1),
        (&["diff", "app.json", "app.bin"], 0),
        (&["diff", "app.bin", "app10.json"], 1),
        (&["diff", "app.json", "app10.json", "--format", "json"], 1),
    ] {
        let out = run_in(dir.path(), args);
        assert_eq!(out.0, code, "{args:?}: {}", out.2);
        let name = args.join("-").replace("--", "").replace('.', "-");
        golden(&format!("{name}.txt"), &transcript(args, out));
    }
    let (_, stdout, _) = run_in(
        dir.path(),
        &["diff", "old.json", "new.bin", "--format", "json"],
    );
    let d: Json = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(d["same"], false);
    assert_eq!(d["renamed"][0]["old"], "01");
    assert_eq!(d["renamed"][0]["new"], "02");
    assert_eq!(d["added"][0]["name"], "01");
    assert_eq!(d["added"][0]["type"], "App\\Other");
    // A plan that cannot be read: exit 2, and the reason in the JSON too.
    let (code, stdout, _) = run_in(
        dir.path(),
        &["diff", "old.json", "missing.json", "--format", "json"],
    );
    assert_eq!(code, 2);
    let d: Json = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(d["errors"][0]["code"], "file-not-found", "{stdout}");
}

#[test]
fn bad_input_gets_a_message_and_an_exit_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    compile_into(EXAMPLE, dir.path(), "app.json", &[]);
    let plan = std::fs::read_to_string(dir.path().join("app.json")).expect("plan");
    let current = format!("\"version\": {},", wireplan_runtime::plan::VERSION);
    assert!(plan.contains(&current), "the plan states its version");
    let newer = plan.replacen(&current, "\"version\": 99,", 1);
    std::fs::write(dir.path().join("newer.json"), newer).expect("write");
    let other = plan.replacen("\"wireplan-plan\"", "\"other-plan\"", 1);
    std::fs::write(dir.path().join("other.json"), other).expect("write");
    std::fs::write(dir.path().join("config.neon"), "services:\n\ta: App\\A\n").expect("write");
    std::fs::write(dir.path().join("garbage.bin"), b"\x00\x01not a plan\xff").expect("write");
    std::fs::write(dir.path().join("cut.json"), &plan[..plan.len() / 2]).expect("write");
    let cases: [(&[&str], i32, &str); 17] = [
        (&["check", "missing.neon"], 1, "error[file-not-found]"),
        // The usage line is the one `--help` gives, not the options given listed as if required.
        (
            &["graph", "config.neon", "--depth", "2", "--format", "dot"],
            2,
            "--service <NAME>\n\nUsage: wireplan graph [OPTIONS] <CONFIG|PLAN>\n",
        ),
        // A negative number is read as the option's value (clap's tip said to write `-- -5`).
        (
            &["check", "config.neon", "--max-memory", "-5"],
            2,
            "'-5' is not a size",
        ),
        (
            &["graph", "config.neon", "--service", "a", "--depth", "-1"],
            2,
            "the depth is at least 1 (the direct dependencies), not negative",
        ),
        (
            &["check", "missing.neon", "--format", "sarif"],
            1,
            "\"ruleId\": \"file-not-found\"",
        ),
        (&["show", "missing.json"], 1, "error[file-not-found]"),
        (&["show", "config.neon"], 1, "error[invalid-plan]"),
        (
            &["show", "newer.json"],
            1,
            "plan version 99 is not supported: the plan was made by a newer version",
        ),
        (&["show", "other.json"], 1, "format is 'other-plan'"),
        (
            &["show", "app.json", "artciles"],
            1,
            "did you mean 'articles'?",
        ),
        (
            &["diff", "app.json", "newer.json"],
            2,
            "plan version 99 is not supported: the plan was made by a newer version",
        ),
        (
            &["diff", "missing.json", "config.neon"],
            2,
            "error[invalid-plan]",
        ),
        // `graph` reads plans as `show` and `diff` do: the same codes and wording.
        (
            &["graph", "missing.json"],
            1,
            "error[file-not-found]: Cannot read the plan 'missing.json'",
        ),
        (&["graph", "garbage.bin"], 1, "error[invalid-plan]"),
        (&["graph", "cut.json"], 1, "error[invalid-plan]"),
        (&["graph", "other.json"], 1, "error[invalid-plan]"),
        (&["show", "garbage.bin"], 1, "error[invalid-plan]"),
    ];
    let mut all = String::new();
    for (args, code, says) in cases {
        let out = run_in(dir.path(), args);
        assert_eq!(out.0, code, "{args:?}: {}", out.2);
        assert!(
            out.1.contains(says) || out.2.contains(says),
            "{args:?} should say {says:?}: {}{}",
            out.1,
            out.2
        );
        assert!(!out.2.contains("panicked"), "{args:?}: {}", out.2);
        all.push_str(&transcript(args, out));
        all.push('\n');
    }
    golden("bad-input.txt", &all);
}

/// The part of a golden transcript after `--- stdout` or `--- stderr`.
fn golden_part(name: &str, part: &str) -> String {
    let path = manifest_dir().join("tests/golden/tools").join(name);
    let text = std::fs::read_to_string(&path).expect("golden file");
    let (_, rest) = text.split_once("--- stdout\n").expect("stdout section");
    let (stdout, stderr) = rest.split_once("--- stderr\n").expect("stderr section");
    if part == "stdout" { stdout } else { stderr }.to_string()
}

#[test]
fn docs_quote_the_real_outputs() {
    let docs =
        std::fs::read_to_string(manifest_dir().join("docs/tools.md")).expect("docs/tools.md");
    for (name, part) in [
        ("check-wiring-human.txt", "stderr"),
        ("check-wiring-json.json", "stdout"),
        ("check-syntax-json.json", "stdout"),
        ("check-wiring-sarif.json", "stdout"),
        ("show-app-plan-json.txt", "stdout"),
        ("show-app-plan-bin-articles.txt", "stdout"),
        ("diff-app-bin-app10-json.txt", "stdout"),
        ("diff-old-json-new-bin.txt", "stdout"),
        ("diff-app-json-app10-json-format-json.txt", "stdout"),
    ] {
        let quoted = golden_part(name, part);
        assert!(
            docs.contains(&quoted),
            "docs/tools.md does not quote the current {part} of {name}:\n{quoted}"
        );
    }
}

#[test]
fn a_plan_given_as_the_configuration_is_named_as_such() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = compile_into(EXAMPLE, dir.path(), "app.plan.json", &[]);
    let bin = compile_into(EXAMPLE, dir.path(), "app.plan.bin", &[]);
    let out = dir.path().join("out.json");
    for plan in [&json, &bin] {
        let plan = plan.to_str().expect("UTF-8 temp path");
        let said = format!("error[invalid-value]: '{plan}' is a plan file, not a configuration");
        for args in [
            &["check", plan][..],
            &["compile", plan, "-o", out.to_str().expect("UTF-8")],
            &["explain", plan, "blog"],
            &["explain", plan, "--deps", "blog"],
        ] {
            let (code, stdout, stderr) = run(args);
            assert_eq!(code, 1, "{args:?}: {stderr}");
            assert!(stdout.is_empty(), "{args:?}: {stdout}");
            assert!(stderr.starts_with(&said), "{args:?}: {stderr}");
            assert!(
                stderr.contains("use `wireplan show PLAN`, `wireplan graph PLAN`"),
                "{args:?}: {stderr}"
            );
            // The note names the configuration the plan records as compiled from.
            assert!(
                stderr.contains(&format!(
                    "the plan was compiled from ('{EXAMPLE}', as the compiler was given it)"
                )),
                "{args:?}: {stderr}"
            );
            // One error, not the plan's keys as unknown options or its bytes as NEON.
            assert_eq!(stderr.matches("error[").count(), 1, "{args:?}: {stderr}");
            assert!(!stderr.contains("WIREPLAN"), "{args:?}: {stderr}");
            assert!(!out.exists());
        }
    }
    // `graph` keeps drawing plans, recognised by content whatever their name.
    let renamed = dir.path().join("app.neon");
    std::fs::copy(&bin, &renamed).expect("copy");
    let (code, dot, stderr) = run(&["graph", renamed.to_str().expect("UTF-8")]);
    assert_eq!(code, 0, "{stderr}");
    let (_, config_dot, _) = run(&["graph", EXAMPLE]);
    assert_eq!(dot, config_dot);
}

#[test]
fn a_parameter_that_the_configuration_does_not_have_is_a_warning() {
    let (code, _, stderr) = run(&["check", EXAMPLE, "-p", "postPerPage=10"]);
    assert_eq!(code, 0, "Nette lets you add parameters: {stderr}");
    assert!(
        stderr.contains(
            "warning[unknown-parameter]: -p postPerPage: the configuration has no parameter 'postPerPage'"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean 'postsPerPage'?"), "{stderr}");
    assert!(stderr.contains("1 warning(s)"), "{stderr}");
    let (code, _, stderr) = run(&["check", EXAMPLE, "-p", "postPerPage=10", "--deny-warnings"]);
    assert_eq!(code, 1, "{stderr}");
    let (code, _, stderr) = run(&["check", EXAMPLE, "-p", "postsPerPage=10"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "ok: 9 services, 0 warning(s)\n");

    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("nonexistent");
    let missing = missing.to_str().expect("UTF-8 temp path");
    let (code, _, stderr) = run(&["check", EXAMPLE, "--scripts", missing]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning[file-not-found]: --scripts: '{missing}' does not exist."
        )),
        "{stderr}"
    );
    assert!(stderr.contains("ok: 9 services, 1 warning(s)"), "{stderr}");
    let plan = compile_into(EXAMPLE, dir.path(), "app.json", &["--scripts", missing]);
    assert!(plan.is_file());
    // The same for a folder named by WIREPLAN_SCRIPTS (an empty entry names none).
    let out = wireplan_in(manifest_dir())
        .args(with_catalog(&["check", EXAMPLE]))
        .env("WIREPLAN_SCRIPTS", format!("{missing}::"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning[file-not-found]: WIREPLAN_SCRIPTS: '{missing}' does not exist."
        )),
        "{stderr}"
    );
    assert!(stderr.contains("ok: 9 services, 1 warning(s)"), "{stderr}");
}

#[test]
fn usage_errors_have_a_code_and_help_is_unchanged() {
    let (code, stdout, stderr) = run(&["compil", EXAMPLE]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr.starts_with("error[usage]: unrecognized subcommand 'compil'"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a similar subcommand exists: 'compile'"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["check", EXAMPLE, "--deny-warning"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error[usage]: unexpected argument '--deny-warning'"),
        "{stderr}"
    );
    assert!(stderr.contains("--deny-warnings"), "{stderr}");
    let (code, stdout, stderr) = run(&["--help"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("Dependency-injection container compiler"),
        "{stdout}"
    );
    assert!(stderr.is_empty(), "{stderr}");
    let (code, stdout, _) = run(&["check", "--help"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("--deny-warnings"), "{stdout}");
    let (code, stdout, _) = run(&["--version"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, format!("wireplan {}\n", env!("CARGO_PKG_VERSION")));
}

/// A hand-edited plan whose field has a wrong value or type: `show` names the field by its
/// path in the plan (`services › … › lifespan`), as the runtime's loader does.
#[test]
fn show_names_the_path_of_a_malformed_plan_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = compile_into(EXAMPLE, dir.path(), "app.json", &[]);
    let plan: Json = serde_json::from_str(&std::fs::read_to_string(&path).expect("plan"))
        .expect("the plan is JSON");
    let service = plan["services"]
        .as_object()
        .and_then(|s| s.keys().next())
        .expect("the example has services")
        .clone();
    let mut forever = plan.clone();
    forever["services"][&service]["lifespan"] = Json::from("forever");
    let mut tags = plan;
    tags["services"][&service]["tags"] = serde_json::json!(["x"]);
    for (name, edited, says) in [
        (
            "forever.json",
            forever,
            format!("services › {service} › lifespan: unknown variant `forever`, expected one of"),
        ),
        (
            "tags.json",
            tags,
            format!("services › {service} › tags: invalid type: sequence, expected a map"),
        ),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, serde_json::to_string_pretty(&edited).expect("JSON")).expect("write");
        let (code, _, stderr) = run_in(dir.path(), &["show", name]);
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.contains("error[invalid-plan]"), "{stderr}");
        assert!(
            stderr.contains(&format!("malformed plan: {says}")),
            "{stderr}"
        );
    }
}

/// `show`, `explain` and `graph` with `--format json` give `{"errors": [...]}` on standard
/// output when they have no answer, as `diff` does, so a script parsing the output sees why
/// (a new user's trial found standard output empty); the human diagnostic stays on standard
/// error and the exit code is 1.
#[test]
fn json_answers_that_cannot_be_given_say_why_in_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = compile_into(EXAMPLE, dir.path(), "app.json", &[]);
    let plan = plan.to_str().expect("UTF-8");
    let missing = dir.path().join("missing.json");
    let missing = missing.to_str().expect("UTF-8");
    let cases: [(&[&str], &str); 7] = [
        (
            &["show", plan, "nosuch", "--format", "json"],
            "missing-service",
        ),
        (&["show", missing, "--format", "json"], "file-not-found"),
        (
            &["explain", EXAMPLE, "nosuch", "--format", "json"],
            "missing-service",
        ),
        (
            &["explain", "nosuch.neon", "nosuch", "--format", "json"],
            "file-not-found",
        ),
        (
            &["explain", plan, "nosuch", "--format", "json"],
            "invalid-value",
        ),
        (&["graph", missing, "--format", "json"], "file-not-found"),
        (
            &["graph", EXAMPLE, "--service", "nosuch", "--format", "json"],
            "missing-service",
        ),
    ];
    for (args, code) in cases {
        let (exit, stdout, stderr) = run(args);
        assert_eq!(exit, 1, "{args:?}: {stderr}");
        let d: Json =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout:?}"));
        assert_eq!(d["errors"][0]["code"], code, "{args:?}: {stdout}");
        assert_eq!(
            d["errors"].as_array().map(Vec::len),
            Some(1),
            "{args:?}: {stdout}"
        );
        assert!(
            stderr.contains(&format!("error[{code}]")),
            "{args:?}: {stderr}"
        );
    }
    // Text answers keep standard output empty.
    let (exit, stdout, _) = run(&["show", plan, "nosuch"]);
    assert_eq!((exit, stdout.as_str()), (1, ""));
}

/// `compile --deny-warnings` writes no plan when there is a warning (from the configuration or
/// from the options) and exits 1, so a CI job compiles once (a new user's trial ran `check
/// --deny-warnings` and then `compile`); without warnings it writes the plan as usual. Not
/// with `--watch`.
#[test]
fn compile_can_deny_warnings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("app.json");
    let out = out.to_str().expect("UTF-8");
    let missing = dir.path().join("nonexistent");
    let missing = missing.to_str().expect("UTF-8");
    for extra in [&["-p", "postPerPage=10"][..], &["--scripts", missing][..]] {
        let mut args = vec!["compile", EXAMPLE, "-o", out, "--deny-warnings"];
        args.extend(extra);
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 1, "{extra:?}: {stderr}");
        assert!(
            stderr.ends_with("error: 1 warning(s), denied by --deny-warnings; no plan written\n"),
            "{extra:?}: {stderr}"
        );
        assert!(!Path::new(out).exists(), "{extra:?}");
    }
    let (code, _, stderr) = run(&["compile", EXAMPLE, "-o", out, "--deny-warnings"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(Path::new(out).is_file());
    let (code, _, stderr) = run(&["compile", EXAMPLE, "-o", out, "--deny-warnings", "--watch"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot be used with '--watch'"), "{stderr}");
}
