//! Regression tests for issue #13 (reliability): each test here failed (or aborted the test
//! process) before its fix.

use wireplan::compiler::{compile, Compilation, Options};
use wireplan::diagnostics::{to_json, JsonDiagnostic};

/// Writes `files` (name → text) into a fresh folder and compiles its `app.neon`.
fn compile_files(files: &[(&str, &str)]) -> (tempfile::TempDir, Compilation) {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write fixture");
    }
    let result = compile(&dir.path().join("app.neon"), &Options::default());
    (dir, result)
}

fn diagnostics(c: &Compilation) -> Vec<JsonDiagnostic> {
    to_json(&c.sources, c.diagnostics.items())
}

const DEEP_APP: &str =
    "extensions:\n\tdeep: deep.rhai\nservices:\n\tdb: App\\Db\ntypes:\n\tApp\\Db:\n";

/// Problem 1: a script value nested 2,000 deep used to overflow the stack in the conversion to
/// compiler values (abort, exit 134). Now it is an `invalid-value` error naming the limit, at
/// the script line of the call.
#[test]
fn deeply_nested_script_value_is_an_error_at_the_call() {
    for call in [
        "builder.getDefinition(\"db\").addTag(\"deep\", a);",
        "builder.getDefinition(\"db\").setFactory(\"App\\\\Db\", [a]);",
    ] {
        let script = format!(
            "fn beforeCompile() {{\n\tlet builder = this.getContainerBuilder();\n\tlet a = [];\n\tfor i in 0..2000 {{ a = [a]; }}\n\t{call}\n}}\n"
        );
        let (_dir, c) = compile_files(&[("app.neon", DEEP_APP), ("deep.rhai", &script)]);
        assert!(c.plan.is_none(), "{call}: compiled");
        let diags = diagnostics(&c);
        let d = diags
            .iter()
            .find(|d| d.message.contains("nests deeper than 500 levels"))
            .unwrap_or_else(|| panic!("{call}: no depth error in {diags:?}"));
        assert_eq!(d.code, "invalid-value", "{d:?}");
        assert!(
            d.file.as_deref().is_some_and(|f| f.ends_with("deep.rhai")),
            "{d:?}"
        );
        assert_eq!(d.line, Some(5), "{d:?}");
    }
}

/// A value exactly at the limit still crosses (a tag may nest as deep as NEON allows).
#[test]
fn script_value_at_the_depth_limit_converts() {
    let script = "fn beforeCompile() {\n\tlet a = 1;\n\tfor i in 0..499 { a = [a]; }\n\tlet b = a;\n\tfor i in 0..499 { b = b[0]; }\n\tthis.getContainerBuilder().getDefinition(\"db\").addTag(\"deep\", a);\n}\n";
    let (_dir, c) = compile_files(&[("app.neon", DEEP_APP), ("deep.rhai", script)]);
    let diags = diagnostics(&c);
    assert!(
        !diags.iter().any(|d| d.message.contains("nests deeper")),
        "{diags:?}"
    );
}

#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

/// Compiles on another thread and fails the test if that takes longer than `bound` (a hang
/// guard, not a speed test).
fn compile_within(files: &[(&str, &str)], bound: std::time::Duration) -> Vec<JsonDiagnostic> {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let borrowed: Vec<(&str, &str)> = files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let (_dir, c) = compile_files(&borrowed);
        assert!(c.plan.is_none(), "the hostile script compiled");
        let _ = tx.send(diagnostics(&c));
    });
    rx.recv_timeout(bound)
        .expect("the compile finished within the hang guard")
}

fn sandbox_app(settings: &str) -> String {
    format!("extensions:\n\thostile: hostile.rhai\nwireplan:\n\tsandbox: {settings}\n")
}

/// Compiles an extension whose `loadConfiguration()` pads a megabyte string in an endless loop,
/// under the `wireplan: sandbox:` settings `sandbox` (inline NEON), within a two-minute guard.
fn pad_loop_under(sandbox: &str) -> Vec<JsonDiagnostic> {
    let script = "fn loadConfiguration() {\n\tloop { let s = \"\".pad(1000000, \"x\"); }\n}\n";
    compile_within(
        &[
            ("app.neon", &sandbox_app(sandbox)),
            ("hostile.rhai", script),
        ],
        std::time::Duration::from_secs(120),
    )
}

/// Problem 2: each `pad` is a few operations, so this loop ran for hours inside the operation
/// budget. The allocation ceiling stops it.
#[test]
fn allocation_in_a_loop_stops_at_the_ceiling() {
    assert!(
        wireplan::script::sandbox::counting(),
        "the counting allocator is installed"
    );
    let diags = pad_loop_under("{maxAllocated: 50000000, timeLimit: 600}");
    let d = diags
        .iter()
        .find(|d| {
            d.message
                .contains("allocated more than the sandbox's ceiling of 50000000 bytes")
        })
        .unwrap_or_else(|| panic!("no allocation error in {diags:?}"));
    assert_eq!(d.code, "script-error");
    assert!(d.notes.iter().any(|n| n.contains("maxAllocated")), "{d:?}");
    assert!(
        d.file
            .as_deref()
            .is_some_and(|f| f.ends_with("hostile.rhai")),
        "{d:?}"
    );
}

/// The same loop against the wall clock, with the allocation ceiling out of the way.
#[test]
fn a_long_lifecycle_call_stops_at_the_time_limit() {
    let started = std::time::Instant::now();
    let diags = pad_loop_under("{maxAllocated: 1000000000000, timeLimit: 0.5}");
    let d = diags
        .iter()
        .find(|d| {
            d.message
                .contains("ran longer than the sandbox's time limit (0.5 s)")
        })
        .unwrap_or_else(|| panic!("no time-limit error in {diags:?}"));
    assert_eq!(d.code, "script-error");
    assert!(started.elapsed() >= std::time::Duration::from_millis(500));
}

/// `a = [a]` 40,000 times took 52 s without reaching any limit (Rhai re-measures the whole
/// value on each assignment). With the default limits it now stops at one of them.
#[test]
fn nesting_arrays_in_a_loop_stops_at_a_limit() {
    let script = "fn loadConfiguration() {\n\tlet a = [];\n\tfor i in 0..40000 { a = [a]; }\n}\n";
    let diags = compile_within(
        &[
            ("app.neon", &sandbox_app("{timeLimit: 2}")),
            ("hostile.rhai", script),
        ],
        std::time::Duration::from_secs(120),
    );
    assert!(
        diags.iter().any(|d| d.code == "script-error"
            && (d.message.contains("time limit") || d.message.contains("ceiling"))),
        "{diags:?}"
    );
}

/// `wireplan: sandbox:` is validated like any section.
#[test]
fn invalid_sandbox_settings_are_reported() {
    let (_dir, c) = compile_files(&[(
        "app.neon",
        "wireplan:\n\tsandbox:\n\t\ttimeLimit: soon\n\t\tmaxOperation: 5\n",
    )]);
    let diags = diagnostics(&c);
    assert!(c.plan.is_none());
    assert!(
        diags.iter().any(|d| d.message.contains("timeLimit")),
        "{diags:?}"
    );
    assert!(
        diags.iter().any(|d| d.message.contains("maxOperation")),
        "{diags:?}"
    );
}

/// A time limit too large for a duration is out of the schema's range, and echoed short
/// (second new user's trial: `1e300` was printed with 301 digits; a later trial: `1e308` was
/// refused without the range other bad values get).
#[test]
fn an_unusable_time_limit_is_echoed_short() {
    let (_dir, c) = compile_files(&[("app.neon", "wireplan:\n\tsandbox:\n\t\ttimeLimit: 1e300\n")]);
    let diags = diagnostics(&c);
    assert!(
        diags.iter().any(|d| d.code == "invalid-value"
            && d.message
                .ends_with("timeLimit' expects to be in range 0.001..1000000000, 1.0E+300 given.")),
        "{diags:?}"
    );
}

/// A `wireplan:` section with an error sets no limit: a script stopped by a limit says it ran
/// under the defaults, so the limit it names is not taken for the one the section asked for.
#[test]
fn a_limit_error_after_an_invalid_wireplan_section_says_the_defaults_applied() {
    const SCRIPT: &str = "fn f(n) { f(n + 1) }\nfn loadConfiguration() { f(0) }\n";
    const NOTE: &str = "the `wireplan:` section has an error (reported with it), so the \
                        scripts ran under the default limits, not the ones it sets";
    let limit_error = |section: &str| {
        let app = format!("wireplan:\n\tsandbox:\n{section}extensions:\n\tr: r.rhai\n");
        let (_dir, c) = compile_files(&[("app.neon", &app), ("r.rhai", SCRIPT)]);
        let diags = diagnostics(&c);
        let limit = diags
            .iter()
            .find(|d| d.code == "script-error")
            .unwrap_or_else(|| panic!("{diags:?}"))
            .clone();
        (diags.len(), limit)
    };
    let (count, limit) = limit_error("\t\tmaxCallLevels: [deep]\n");
    assert_eq!(count, 2, "{limit:?}");
    assert!(
        limit.notes.iter().any(|n| n.contains("call depth of 64")),
        "{limit:?}"
    );
    assert!(limit.notes.iter().any(|n| n == NOTE), "{limit:?}");
    // A valid section: the limit it sets, and no such note.
    let (count, limit) = limit_error("\t\tmaxCallLevels: 20\n");
    assert_eq!(count, 1, "{limit:?}");
    assert!(
        limit.notes.iter().any(|n| n.contains("call depth of 20")),
        "{limit:?}"
    );
    assert!(!limit.notes.iter().any(|n| n == NOTE), "{limit:?}");
}

/// A definition a failed script call left unfinished: its own error says it may follow from
/// the script's.
#[test]
fn an_error_about_a_definition_a_failed_script_call_added_says_so() {
    let script = "fn loadConfiguration() {\n\tthis.getContainerBuilder().addDefinition(\"a\").setFactory(5);\n}\n";
    let (_dir, c) = compile_files(&[
        ("app.neon", "extensions:\n\tearly: e.rhai\n"),
        ("e.rhai", script),
    ]);
    let diags = diagnostics(&c);
    assert_eq!(diags.len(), 2, "{diags:?}");
    assert_eq!(diags[0].code, "invalid-value", "{diags:?}");
    assert_eq!(
        diags[1].message,
        "Service 'a': Factory and type are missing in definition of service."
    );
    assert_eq!(
        diags[1].notes,
        [
            "extension 'early' added this service in loadConfiguration(), which reported an error \
          (above) and may have left it unfinished: this may follow from that error"
        ]
    );
    // Without the failed call there is no such note.
    let script =
        "fn loadConfiguration() {\n\tthis.getContainerBuilder().addDefinition(\"a\");\n}\n";
    let (_dir, c) = compile_files(&[
        ("app.neon", "extensions:\n\tearly: e.rhai\n"),
        ("e.rhai", script),
    ]);
    let diags = diagnostics(&c);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(diags[0].notes.is_empty(), "{diags:?}");
}

/// Problem 4: an error on a 5 MB line printed the whole line (10 MB on stderr). Now the line is
/// cut around the label, and the location still names the real line and column.
#[test]
fn an_error_on_a_huge_line_renders_a_short_excerpt() {
    let filler = "x".repeat(5 << 20);
    let app = format!(
        "services:\n\tdb: App\\Db('{filler}', @missing)\ntypes:\n\tApp\\Db:\n\t\tconstructor: {{dsn: string, other: mixed}}\n"
    );
    let (_dir, c) = compile_files(&[("app.neon", &app)]);
    let diags = diagnostics(&c);
    let missing = diags
        .iter()
        .find(|d| d.code == "missing-service")
        .unwrap_or_else(|| panic!("{diags:?}"));
    let column = missing.column.expect("positioned");
    assert!(column > 5 << 20, "{missing:?}");
    let text = wireplan::diagnostics::render_to_string(&c.sources, c.diagnostics.items());
    assert!(text.len() < 4096, "rendered {} bytes", text.len());
    assert!(text.contains('…'), "{text}");
    assert!(text.contains("@missing"), "{text}");
    assert!(text.contains(&format!("app.neon:2:{column}")), "{text}");
}

/// Long messages (a 1 MB service name) are shortened too.
#[test]
fn a_huge_message_is_shortened() {
    let name = "n".repeat(1 << 20);
    let app = format!(
        "services:\n\tdb: App\\Db(@{name})\ntypes:\n\tApp\\Db:\n\t\tconstructor: {{x: mixed}}\n"
    );
    let (_dir, c) = compile_files(&[("app.neon", &app)]);
    assert!(c.plan.is_none());
    let text = wireplan::diagnostics::render_to_string(&c.sources, c.diagnostics.items());
    assert!(text.len() < 8192, "rendered {} bytes", text.len());
    assert!(
        text.contains("more bytes)"),
        "{}",
        &text[..text.len().min(3000)]
    );
}

/// At most 50 diagnostics of one code are printed, then a count.
#[test]
fn many_diagnostics_of_one_code_end_in_a_count() {
    let mut app = String::from("services:\n");
    for i in 0..200 {
        app.push_str(&format!("\ts{i}: App\\Db(@missing{i})\n"));
    }
    app.push_str("\tother: App\\Nowhere\ntypes:\n\tApp\\Db:\n\t\tconstructor: {x: mixed}\n");
    let (_dir, c) = compile_files(&[("app.neon", &app)]);
    let all = diagnostics(&c);
    assert_eq!(
        all.iter().filter(|d| d.code == "missing-service").count(),
        200
    );
    let text = wireplan::diagnostics::render_to_string(&c.sources, c.diagnostics.items());
    assert_eq!(text.matches("error[missing-service]").count(), 50, "{text}");
    assert!(text.contains("… and 150 more [missing-service]"), "{text}");
    // Other codes are not crowded out.
    assert!(text.contains("App\\Nowhere"), "{text}");
}

/// Secrets: a parameter listed under `wireplan › sensitive` is never written into the plan (it
/// is read at start-up like a dynamic parameter), and no diagnostic message repeats it.
#[test]
fn sensitive_parameters_stay_out_of_the_plan_and_the_messages() {
    let app = "wireplan:\n\tsensitive: [dbPassword]\nparameters:\n\tdbPassword: hunter2\n\tdsn: 'mysql:host=db;password=%dbPassword%'\nservices:\n\tdb: App\\Db(%dsn%, %dbPassword%)\ntypes:\n\tApp\\Db:\n\t\tconstructor: {dsn: string, password: string}\n";
    let (_dir, c) = compile_files(&[("app.neon", app)]);
    let plan = c
        .plan
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", diagnostics(&c)));
    let json = wireplan::plan::to_json(plan);
    assert!(!json.contains("hunter2"), "{json}");
    assert!(!plan.parameters.contains_key("dbPassword"));
    let args = serde_json::to_value(&plan.services["db"].create).unwrap()["args"].clone();
    assert_eq!(args[1], serde_json::json!({"$param": "dbPassword"}));
    assert_eq!(
        args[0],
        serde_json::json!({"$concat": ["mysql:host=db;password=", {"$param": "dbPassword"}]})
    );
    let binary = plan.to_binary();
    assert!(!binary.windows(7).any(|w| w == b"hunter2"));

    // Errors about the service that uses it do not repeat its value, which they do for a
    // parameter that is not sensitive ("expects int, 'hunter2' given").
    let broken = app
        .replace("password: string", "password: int")
        .replace("%dbPassword%)", "%dbPassword%, 7)");
    let (_dir, c) = compile_files(&[("app.neon", &broken)]);
    let diags = diagnostics(&c);
    assert!(
        diags.iter().any(|d| d.code == "unknown-argument"),
        "{diags:?}"
    );
    assert!(
        diags.iter().all(|d| !d.message.contains("hunter2")),
        "{diags:?}"
    );
    let plain = broken.replace("sensitive: [dbPassword]", "sensitive: []");
    let (_dir, c) = compile_files(&[("app.neon", &plain)]);
    assert!(diagnostics(&c)
        .iter()
        .any(|d| d.message.contains("hunter2")));
}

/// Secrets in a map: `sensitive: [database.password]` makes that one value dynamic (it used to
/// be ignored, and the plan held the password). The map keeps its key as a start-up read, and
/// the runtime reads it by the dotted name; without a value it reports the parameter unset
/// rather than recursing.
#[test]
fn a_dotted_sensitive_name_keeps_the_nested_value_out_of_the_plan() {
    let app = "wireplan:\n\tsensitive: [database.password]\nparameters:\n\tdatabase:\n\t\tpassword: hunter2\n\t\thost: db\nservices:\n\tx: A(%database.password%, %database%)\ntypes:\n\tA:\n\t\tconstructor: {a: string, b: array}\n";
    let (_dir, c) = compile_files(&[("app.neon", app)]);
    let plan = c
        .plan
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", diagnostics(&c)));
    let json = wireplan::plan::to_json(plan);
    assert!(!json.contains("hunter2"), "{json}");
    let read = serde_json::json!({"$param": "database.password"});
    let args = serde_json::to_value(&plan.services["x"].create).unwrap()["args"].clone();
    assert_eq!(args[0], read);
    assert_eq!(args[1], serde_json::json!({"password": read, "host": "db"}));
    let params: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        params["parameters"]["database"],
        serde_json::json!({"password": read, "host": "db"})
    );

    // The runtime part needs only the parameters (no class is registered).
    let mut without_services = params.clone();
    without_services["services"] = serde_json::json!({});
    without_services["types"] = serde_json::json!({});
    let json = without_services.to_string();
    let registry = wireplan_runtime::Registry::new();
    let given = wireplan_runtime::Container::builder(&registry)
        .parameter("database.password", "s3cret")
        .from_json_str(&json)
        .expect("plan loads");
    assert_eq!(
        given.parameter("database.password").unwrap(),
        wireplan_runtime::Value::Str("s3cret".into())
    );
    assert_eq!(
        given.parameter("database.host").unwrap(),
        wireplan_runtime::Value::Str("db".into())
    );
    // The plan's `dynamic` section makes the missing value an error at load, without the value.
    let err = wireplan_runtime::Container::builder(&registry)
        .from_json_str(&json)
        .expect_err("a required dynamic parameter is missing")
        .to_string();
    assert!(
        err.ends_with(
            "1 dynamic parameter(s) missing or invalid:\n  - 'database.password' (string) is \
             missing: pass it to ContainerBuilder::parameter"
        ),
        "{err}"
    );
    // Without the section (a plan by hand, or an older one), the read reports it unset.
    without_services
        .as_object_mut()
        .expect("a plan is an object")
        .remove("dynamic");
    let unset = wireplan_runtime::Container::builder(&registry)
        .from_json_str(&without_services.to_string())
        .expect("plan loads");
    let err = unset.parameter("database").unwrap_err().to_string();
    assert!(err.contains("database.password"), "{err}");
}

/// A sensitive name that matches no declared parameter protects nothing: it is an
/// `invalid-value` error at its list item (it used to be ignored silently, exit 0).
#[test]
fn an_undeclared_sensitive_name_is_an_error_at_its_item() {
    let app = "wireplan:\n\tsensitive: [database.password, nosuch, database.nokey]\nparameters:\n\tdatabase:\n\t\tpassword: hunter2\nservices:\n\tx: A(%database.password%)\ntypes:\n\tA:\n\t\tconstructor: {a: string}\n";
    let (_dir, c) = compile_files(&[("app.neon", app)]);
    assert!(c.plan.is_none());
    let diags = diagnostics(&c);
    let bad: Vec<_> = diags
        .iter()
        .filter(|d| d.code == "invalid-value")
        .map(|d| (d.message.clone(), d.line, d.column))
        .collect();
    assert_eq!(bad.len(), 2, "{diags:?}");
    assert!(bad[0].0.contains("'nosuch'"), "{bad:?}");
    assert_eq!((bad[0].1, bad[0].2), (Some(2), Some(33)), "{bad:?}");
    assert!(bad[1].0.contains("'database.nokey'"), "{bad:?}");
    assert_eq!((bad[1].1, bad[1].2), (Some(2), Some(41)), "{bad:?}");
    assert!(diags.iter().all(|d| !d.message.contains("hunter2")));
}

/// A line break in a message or note (a script's `this.warn` or `throw`, a quoted name read
/// from a file) is shown as `\n`: a diagnostic cannot print a line of its own that reads as
/// another message, an `ok:` line or a CI runner's command (a new user's trial).
#[test]
fn a_line_break_in_a_message_stays_inside_it() {
    let script = "fn loadConfiguration() {\n    this.warn(\"one\\n::error file=app.neon,line=1::forged\\nok: 9 services\");\n}\n";
    let app = "extensions:\n\tw: w.rhai\ntypes:\n\tApp\\A: {}\nservices:\n\t\"a\\n::warning ::forged\": App\\A\n\tb: @nothing\n";
    let (_dir, c) = compile_files(&[("app.neon", app), ("w.rhai", script)]);
    let text = wireplan::diagnostics::render_to_string(&c.sources, c.diagnostics.items());
    assert!(
        text.contains("Extension 'w': one\\n::error file=app.neon,line=1::forged\\nok: 9 services"),
        "{text}"
    );
    for line in text.lines() {
        assert!(!line.trim_start().starts_with("::"), "{line:?} in {text}");
        assert!(!line.starts_with("ok:"), "{line:?} in {text}");
    }
    // The JSON form keeps the text as it was.
    let json = wireplan::diagnostics::to_json(&c.sources, c.diagnostics.items());
    assert!(
        json.iter().any(|d| d.message.contains("one\n::error")),
        "{json:?}"
    );
}

/// Files of `/proc` and `/sys` are refused wherever a file is read (an include, an extension
/// script, a catalog): they look like regular files, and `/proc/self/environ` in an include
/// printed the CI job's environment in the error's excerpt (a new user's trial).
#[cfg(target_os = "linux")]
#[test]
fn system_files_are_not_read_as_inputs() {
    for app in [
        "includes:\n\t- /proc/self/environ\nservices:\n",
        "extensions:\n\tx: /proc/self/environ\nservices:\n",
    ] {
        let (_dir, c) = compile_files(&[("app.neon", app)]);
        let diags = diagnostics(&c);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(
            diags[0].message.contains(wireplan::source::A_SYSTEM_FILE),
            "{diags:?}"
        );
        assert_eq!(diags[0].code, "file-not-found");
        assert_eq!(diags[0].line, Some(2));
        let text = wireplan::diagnostics::render_to_string(&c.sources, c.diagnostics.items());
        assert!(!text.contains("CARGO_PKG_NAME="), "{text}");
    }
    let catalog = wireplan::catalog::CatalogInput::File("/proc/self/environ".into());
    let mut sources = wireplan::source::SourceMap::new();
    let mut found = wireplan::diagnostics::Diagnostics::new();
    let ids = wireplan::catalog::load_inputs(&[catalog], &mut sources, &mut found);
    assert!(ids.is_empty());
    assert!(
        found.items()[0]
            .message
            .contains(wireplan::source::A_SYSTEM_FILE),
        "{:?}",
        found.items()
    );
}

/// A missing include says where it was looked for: the absolute path, resolved against the
/// including file's folder (a new user's trial saw only the name as written).
#[test]
fn a_missing_include_names_where_it_was_looked_for() {
    let (dir, c) = compile_files(&[("app.neon", "includes:\n\t- sub/nothere.neon\nservices:\n")]);
    let diags = diagnostics(&c);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].code, "file-not-found");
    let looked = std::path::absolute(dir.path().join("sub/nothere.neon")).expect("a path");
    assert!(
        diags[0].notes.contains(&format!(
            "looked for {} (an include is relative to the folder of the file that includes it)",
            looked.display()
        )),
        "{:?}",
        diags[0].notes
    );
}
