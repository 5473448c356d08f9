//! Configuration cases that need compiler options (`-p name=value`, `--dynamic NAME`), and
//! the check that one run reports every independent configuration error. The fixtures live in
//! `tests/fixtures/compile/cfg-*` (where `compile.rs` also runs them with default options) and
//! `tests/fixtures/config/`.

mod common;

use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use wireplan::compiler::{compile, Options};
use wireplan::source::SourceMap;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

/// Options with `-p` values (decoded as NEON, like the CLI) and `--dynamic` names.
fn options(params: &[(&str, &str)], dynamic: &[&str]) -> Options {
    let mut sources = SourceMap::new();
    let mut opts = Options {
        dynamic: dynamic.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    for (name, text) in params {
        let id = sources.add(format!("<-p {name}>"), text.to_string());
        let v = wireplan::neon::decode(text, id).expect("valid NEON");
        opts.parameters.insert(name.to_string(), v);
    }
    opts
}

/// Compiles and returns the plan as JSON, failing with the diagnostics when there is none.
fn plan(path: &str, opts: &Options) -> Json {
    let result = compile(&fixture(path), opts);
    match result.plan {
        Some(p) => serde_json::to_value(&p).expect("plan serialises"),
        None => panic!(
            "expected a plan, got: {:?}",
            wireplan::diagnostics::to_json(&result.sources, result.diagnostics.items())
                .iter()
                .map(|d| format!("[{}] {}", d.code, d.message))
                .collect::<Vec<_>>()
        ),
    }
}

fn args(plan: &Json, service: &str) -> Json {
    plan["services"][service]["create"]["args"].clone()
}

#[test]
fn include_paths_use_parameters_given_from_outside() {
    let p = plan(
        "compile/cfg-include-param/config.neon",
        &options(&[("stage", "prod")], &[]),
    );
    assert_eq!(args(&p, "cfg"), json!(["production"]));
}

#[test]
fn command_line_parameters_override_files_and_are_neon() {
    let p = plan(
        "compile/cfg-dynamic-option/config.neon",
        &options(&[("tempDir", "/var"), ("debug", "true")], &[]),
    );
    assert_eq!(args(&p, "cfg"), json!(["/var/cache", "/var", true]));
    assert_eq!(p["parameters"]["cacheDir"], json!("/var/cache"));
}

#[test]
fn dynamic_names_are_never_frozen() {
    let p = plan(
        "compile/cfg-dynamic-option/config.neon",
        &options(&[], &["tempDir"]),
    );
    assert_eq!(
        args(&p, "cfg"),
        json!([
            {"$concat": [{"$param": "tempDir"}, "/cache"]},
            {"$param": "tempDir"},
            false
        ])
    );
    assert!(
        p["parameters"].get("tempDir").is_none(),
        "{}",
        p["parameters"]
    );
    assert_eq!(
        p["parameters"]["cacheDir"],
        json!({"$concat": [{"$param": "tempDir"}, "/cache"]})
    );
}

#[test]
fn check_reports_every_independent_configuration_error() {
    let got = common::codes_and_lines(&fixture("config/many-errors.neon"));
    let expected = [
        ("circular-parameter", 8),
        ("unknown-option", 11),
        ("invalid-value", 15),
        ("unknown-option", 20),
        ("unknown-extension", 22),
        ("missing-parameter", 26),
    ];
    for (code, line) in expected {
        assert!(
            got.contains(&(code.to_string(), line)),
            "missing {code} at line {line}; got {got:?}"
        );
    }
}

/// A missing include or a syntax error in an included file leaves the configuration
/// incomplete: every loading error is reported, none of the phases runs, so there are no
/// follow-up errors (`class-not-found` for the classes of the missing `types:`, the unknown
/// `@nope`), as Nette stops at a missing include.
#[test]
fn loading_errors_stop_the_compilation_before_the_phases() {
    let result = compile(
        &fixture("config/broken-includes/app.neon"),
        &Options::default(),
    );
    assert!(result.plan.is_none());
    let diags = wireplan::diagnostics::to_json(&result.sources, result.diagnostics.items());
    let got: Vec<(String, String, usize)> = diags
        .iter()
        .map(|d| {
            let file = d.file.as_deref().unwrap_or("");
            let name = file.rsplit(['/', '\\']).next().unwrap_or("").to_string();
            (d.code.to_string(), name, d.line.unwrap_or(0))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("file-not-found".to_string(), "app.neon".to_string(), 2),
            ("neon-syntax".to_string(), "broken.neon".to_string(), 3),
            ("file-not-found".to_string(), "app.neon".to_string(), 4),
        ]
    );
    // The typo gets a suggestion from the files of the including file's folder; the missing
    // folder has none to offer.
    assert!(
        diags[0]
            .message
            .ends_with("typo.neon' is missing or is not readable."),
        "{}",
        diags[0].message
    );
    assert_eq!(diags[0].notes[0], "did you mean 'types.neon'?");
    assert!(
        diags[2]
            .message
            .ends_with("other.neon' is missing or is not readable."),
        "{}",
        diags[2].message
    );
}

#[test]
fn errors_inside_command_line_values_have_no_file_location() {
    let result = compile(
        &fixture("compile/cfg-dynamic-option/config.neon"),
        &options(&[("tempDir", "%nope%/x")], &[]),
    );
    let diags = wireplan::diagnostics::to_json(&result.sources, result.diagnostics.items());
    let d = diags
        .iter()
        .find(|d| d.code == "missing-parameter")
        .expect("missing-parameter reported");
    let text = std::iter::once(d.message.clone())
        .chain(d.notes.iter().cloned())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("'nope'") && text.contains("-p"), "{text}");
    assert_eq!(d.line, None, "a -p value has no place in config.neon");
}

/// `--dynamic database.password` reads that one value at start-up; the value in the files
/// reaches neither the arguments nor the plan's `parameters` (it used to be frozen in both).
#[test]
fn a_dotted_dynamic_name_makes_the_nested_value_dynamic() {
    let p = plan(
        "config/dynamic-dotted.neon",
        &options(&[], &["database.password"]),
    );
    let read = json!({"$param": "database.password"});
    assert_eq!(
        args(&p, "cfg"),
        json!([read, {"password": read, "host": "db"}])
    );
    assert_eq!(
        p["parameters"]["database"],
        json!({"password": read, "host": "db"})
    );
    assert!(!p.to_string().contains("hunter2"), "{p}");
}

/// An included plan file (JSON or binary) is said to be one, at its `includes:` line: one
/// error instead of the NEON errors its JSON keys would give as sections. As a loading error
/// it stops the compilation.
#[test]
fn an_included_plan_file_is_said_to_be_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("app.plan.json"),
        "{\n  \"format\": \"wireplan-plan\",\n  \"version\": 3,\n  \"services\": {}\n}\n",
    )
    .expect("write");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "services:\n\ta: App\\A\nincludes:\n\t- app.plan.json\n",
    )
    .expect("write");
    let result = compile(&config, &Options::default());
    assert!(result.plan.is_none());
    let diags = wireplan::diagnostics::to_json(&result.sources, result.diagnostics.items());
    let got: Vec<(String, usize, &str)> = diags
        .iter()
        .map(|d| (d.code.to_string(), d.line.unwrap_or(0), d.message.as_str()))
        .collect();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1),
        ("invalid-value", 4),
        "{got:?}"
    );
    assert!(
        got[0]
            .2
            .ends_with("app.plan.json' is a plan file, not a configuration"),
        "{got:?}"
    );
}

/// The errors of an `includes:` list come in the list's order: an item that is no path (empty,
/// not a string) is reported in its turn among the files that cannot be read or decoded (it
/// was reported before all of them).
#[test]
fn include_errors_come_in_the_lists_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("bad.neon"), "services:\n\t- App\\X(\n").expect("write");
    let config = dir.path().join("config.neon");
    std::fs::write(
        &config,
        "includes:\n\t- missing1.neon\n\t- ''\n\t- bad.neon\n\t- 5\n\t- missing2.neon\n",
    )
    .expect("write");
    let result = compile(&config, &Options::default());
    let lines: Vec<String> =
        wireplan::diagnostics::to_json(&result.sources, result.diagnostics.items())
            .iter()
            .map(|d| {
                format!(
                    "{}:{} {}",
                    d.file
                        .as_deref()
                        .unwrap_or("?")
                        .rsplit('/')
                        .next()
                        .unwrap_or(""),
                    d.line.unwrap_or(0),
                    d.code
                )
            })
            .collect();
    assert_eq!(
        lines,
        [
            "config.neon:2 file-not-found",
            "config.neon:3 invalid-value",
            "bad.neon:3 neon-syntax",
            "config.neon:5 invalid-value",
            "config.neon:6 file-not-found",
        ]
    );
}

/// A `-p` value refused because it names a key below a parameter that is not a map is not
/// applied: the refusal is the only error (the parameter became a map all the same, and the
/// service that takes it as a string failed too).
#[test]
fn a_refused_override_is_not_applied() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "parameters:\n\tprefix: app\nservices:\n\ts: App\\S(%prefix%)\n\
         types:\n\tApp\\S:\n\t\tconstructor: {prefix: string}\n",
    )
    .expect("write");
    let result = compile(&config, &options(&[("prefix.sub", "x")], &[]));
    let messages: Vec<&str> = result
        .diagnostics
        .items()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        messages,
        ["-p prefix.sub: the parameter 'prefix' is a string, not a map, so it has no key 'sub'."]
    );
}

/// A missing file's "did you mean" names a file with the same extension and a name of about
/// the same length, never a one-letter file for `-`, `p.neon` or `bom.neon` for `nope.neon`
/// (new users' trials: names are compared without their extension); a real typo still gets
/// its suggestion.
#[test]
fn a_missing_file_is_offered_only_a_plausible_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    for f in ["e", "p.neon", "bom.neon", "services.neon", "app.json"] {
        std::fs::write(dir.path().join(f), "").unwrap();
    }
    // The message, then the notes (the close name is the first note).
    let message = |name: &str| {
        let err = std::io::Error::from(std::io::ErrorKind::NotFound);
        let d = wireplan::config::unreadable_file(&dir.path().join(name), &err);
        std::iter::once(d.message)
            .chain(d.notes)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(!message("-").contains("did you mean"), "{}", message("-"));
    assert!(!message("nope.neon").contains("did you mean"));
    assert!(message("servcies.neon").contains("not readable. did you mean 'services.neon'?"));
    // Another extension is not offered, however close the name.
    assert!(!message("app.neon").contains("did you mean"));
    assert!(message("appp.json").contains("not readable. did you mean 'app.json'?"));
}

/// A missing parameter inside a longer string points at its `%name%`, in an unquoted literal
/// and in quotes without escapes, the second of two uses at the second; a string with an
/// escape (whose text is not its bytes in the file) keeps the whole string (new user's trial:
/// `"%logdir%/blog.log"` was underlined whole).
#[test]
fn a_missing_parameter_in_a_string_points_at_its_reference() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    let text = "parameters:\n\tdir: /var\nservices:\n\
                \ta: App\\L(%logdir%/a.log)\n\
                \tb: App\\L('x-%dir%-%nope%')\n\
                \tc: App\\L(\"%logdir%\\t.log\")\n\
                types:\n\tApp\\L:\n\t\tconstructor: {p: string}\n";
    std::fs::write(&config, text).unwrap();
    let result = compile(&config, &Options::default());
    let at: Vec<(String, &str)> = result
        .diagnostics
        .items()
        .iter()
        .map(|d| {
            let s = d.primary_span().expect("a position");
            (d.message.clone(), &text[s.start as usize..s.end as usize])
        })
        .collect();
    assert_eq!(
        at,
        [
            ("Missing parameter 'logdir'.".to_string(), "%logdir%"),
            ("Missing parameter 'nope'.".to_string(), "%nope%"),
            (
                "Missing parameter 'logdir'.".to_string(),
                "\"%logdir%\\t.log\""
            ),
        ]
    );
}

/// A missing include whose name differs from a file beside it only in letter case, in the
/// order of its extension's letters, or by one letter of its extension, gets that file suggested, however short its name; an
/// unrelated short name gets none.
#[test]
fn includes_in_other_case_or_with_a_mixed_up_extension_are_suggested() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.neon"), "parameters:\n\tx: 1\n").unwrap();
    for other in ["part21.neon", "part12-renamed.neon"] {
        std::fs::write(dir.path().join(other), "parameters:\n\tx: 1\n").unwrap();
    }
    for (written, suggested) in [
        ("Ok.neon", Some("ok.neon")),
        ("ok.noen", Some("ok.neon")),
        ("OK.NEON", Some("ok.neon")),
        ("ok.nen", Some("ok.neon")),
        ("ok.neonn", Some("ok.neon")),
        ("ok.nein", Some("ok.neon")),
        ("ok.n", None),
        ("no.neon", None),
        ("part12.neon", Some("part12-renamed.neon")),
    ] {
        let path = dir.path().join(written);
        let err = std::fs::read(&path).unwrap_err();
        let d = wireplan::config::unreadable_file(&path, &err);
        assert!(
            d.message.ends_with("is not readable."),
            "{written}: {}",
            d.message
        );
        let close = d.notes.iter().find(|n| n.starts_with("did you mean"));
        assert_eq!(
            close.map(String::as_str),
            suggested.map(|s| format!("did you mean '{s}'?")).as_deref(),
            "{written}: {:?}",
            d.notes
        );
    }
}
