//! The `wireplan` binary as a user runs it: exit codes, plan files, JSON diagnostics, and the
//! `FILE:LINE:COLUMN` location of NEON syntax errors.

use std::path::Path;
use std::process::Command;

fn wireplan() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wireplan"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    c
}

/// Runs `cmd`, checks that it exits with `code`, and returns what it wrote to stderr.
fn stderr_on_exit(cmd: &mut Command, code: i32) -> String {
    let out = cmd.output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    stderr
}

/// `wireplan compile` of the example with its catalog (output options still to add).
fn compile_example_command() -> Command {
    let mut c = wireplan();
    c.args([
        "compile",
        "examples/blog/config/app.neon",
        "--catalog",
        "examples/blog/catalog.json",
    ]);
    c
}

/// Compiles the example with `extra` options into `dir/app.plan.json` and returns the plan.
fn compile_example(dir: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let plan = dir.join("app.plan.json");
    let out = compile_example_command()
        .args(extra)
        .arg("-o")
        .arg(&plan)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(&plan).expect("plan written")).expect("JSON")
}

#[test]
fn compile_writes_a_plan() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = compile_example(dir.path(), &[]);
    assert_eq!(json["format"], "wireplan-plan");
    assert_eq!(json["version"], wireplan_runtime::plan::VERSION);
    assert_eq!(
        json["services"]["mailer"]["create"]["args"][1],
        "blog@example.com"
    );
    // no temporary file is left behind
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").collect();
    assert_eq!(leftovers.len(), 1);
}

/// `-o -` writes the plan to standard output (it wrote a file named `-` before), the same
/// bytes as a plan file; the summary line stays on standard error. `-o /dev/stdout` is
/// standard output too, also when it is a pipe (it was refused as "a symbolic link to a file
/// that does not exist": the link's target is `pipe:[…]`).
#[test]
fn dash_writes_the_plan_to_standard_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = compile_example(dir.path(), &[]);
    for output in ["-", "/dev/stdout"] {
        let out = compile_example_command()
            .args(["-o", output])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{output}: {stderr}");
        assert!(
            stderr.contains("wrote the plan to standard output"),
            "{output}: {stderr}"
        );
        let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON plan");
        assert_eq!(printed["services"], json["services"]);
    }
    assert!(!std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("-")
        .exists());
}

/// Another descriptor that is a pipe (a link whose target is no path) is refused as what it
/// is, not a regular file.
#[cfg(target_os = "linux")]
#[test]
fn a_pipe_behind_a_link_is_refused_as_not_a_regular_file() {
    // (Standard error is refused before anything is written: see output_safety.rs.)
    let out = compile_example_command()
        .args(["-o", "/proc/self/fd/0"])
        .stdin(std::process::Stdio::piped())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("it is not a regular file"), "{stderr}");
}

#[test]
fn failed_compile_writes_nothing_and_exits_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = dir.path().join("app.plan.json");
    let out = wireplan()
        .args([
            "compile",
            "tests/fixtures/compile/missing-service-span/config.neon",
            "-o",
        ])
        .arg(&plan)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(!plan.exists());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("tests/fixtures/compile/missing-service-span/config.neon:8:8"),
        "{stderr}"
    );
    assert!(stderr.contains("error[missing-service]"), "{stderr}");
}

#[test]
fn check_json_lists_diagnostics() {
    let out = wireplan()
        .args([
            "check",
            "tests/fixtures/compile/class-not-found-span/config.neon",
            "--format",
            "json",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let d = &json[0];
    assert_eq!(d["code"], "class-not-found");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 5);
    assert_eq!(d["column"], 10);
    assert!(d["file"].as_str().unwrap().ends_with("config.neon"));
    assert!(d["message"].as_str().unwrap().contains("App\\Mailr"));
}

#[test]
fn check_passes_on_the_example() {
    let out = wireplan()
        .args([
            "check",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
            "--format",
            "json",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
}

#[test]
fn neon_syntax_error_has_file_line_column() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("bad.neon");
    std::fs::write(&file, "a: 1\nb: [1, 2\n").expect("write");
    let stderr = stderr_on_exit(wireplan().args(["neon", "decode"]).arg(&file), 1);
    let location = format!("{}:3:1", file.display());
    assert!(stderr.contains(&location), "{stderr}");
}

/// `-` reads standard input, for both directions; errors name `<stdin>`.
#[test]
fn neon_decode_and_encode_read_standard_input() {
    use std::io::Write;
    let run = |args: &[&str], input: &str| {
        let mut child = wireplan()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write");
        child.wait_with_output().expect("ends")
    };
    let out = run(&["neon", "decode", "-"], "a: [1, 2]\nb: {c: d}\n");
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json, serde_json::json!({"a": [1, 2], "b": {"c": "d"}}));
    let out = run(&["neon", "encode", "-"], r#"{"a": [1, 2]}"#);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a:\n\t- 1\n\t- 2\n");
    // A byte-order mark before the JSON is skipped (a new user's trial: "Invalid JSON" at
    // 1:1), and an error on the first line is placed after it.
    let out = run(&["neon", "encode", "-"], "\u{feff}{\"a\": [1, 2]}");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a:\n\t- 1\n\t- 2\n");
    let out = run(&["neon", "encode", "-"], "\u{feff}{\"a\" 1}");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("<stdin>:1:6"), "{stderr}");
    let out = run(&["neon", "decode", "-"], "a: 1\nb: [1, 2\n");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("<stdin>:3:1"), "{stderr}");
    // A value NEON cannot hold: standard input is named as such, with the path to the value.
    let out = run(
        &["neon", "encode", "-"],
        r#"{"a": {"b": [1, 18446744073709551615]}}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "Cannot encode <stdin> as NEON: at a\u{a0}›\u{a0}b\u{a0}›\u{a0}1: the integer 18446744073709551615 is beyond"
        ),
        "{stderr}"
    );
}

/// A file that exists but is not a configuration file says what it is, not "missing"; `-`
/// says where standard input is read.
#[cfg(unix)]
#[test]
fn a_config_that_is_no_regular_file_says_so() {
    let stderr = stderr_on_exit(wireplan().args(["check", "/dev/null"]), 1);
    assert!(
        stderr.contains(
            "File '/dev/null' cannot be read: it is not a regular file (a pipe or a device, \
             which could block or never end)."
        ),
        "{stderr}"
    );
    // Where standard input is read instead (a user tries /dev/stdin).
    assert!(
        stderr.contains("standard input is read only by `wireplan neon decode -`"),
        "{stderr}"
    );
    let stderr = stderr_on_exit(wireplan().args(["neon", "decode", "/dev/null"]), 1);
    assert!(
        stderr.contains("give `-` to read standard input"),
        "{stderr}"
    );
    let stderr = stderr_on_exit(wireplan().args(["check", "-"]), 1);
    assert!(
        stderr.contains("standard input is read only by"),
        "{stderr}"
    );
}

/// Without a command, the usage error says that, then shows the help (the description is not
/// the error).
#[test]
fn no_command_is_a_usage_error_that_says_so() {
    let stderr = stderr_on_exit(&mut wireplan(), 2);
    assert!(
        stderr.starts_with("error[usage]: no command given\n\nDependency-injection"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Usage: wireplan [OPTIONS] <COMMAND>"),
        "{stderr}"
    );
}

#[test]
fn missing_config_file_is_a_diagnostic() {
    let stderr = stderr_on_exit(wireplan().args(["check", "no/such/file.neon"]), 1);
    assert!(stderr.contains("error[file-not-found]"), "{stderr}");
}

#[test]
fn the_plan_never_overwrites_an_input() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(&config, "types:\n\tApp\\X: {}\nservices:\n\tx: App\\X\n").expect("write");
    let out = wireplan()
        .arg("compile")
        .arg(&config)
        .arg("-o")
        .arg(&config)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Refusing to write the plan over"));
    assert!(std::fs::read_to_string(&config)
        .expect("still there")
        .starts_with("types:"));
}

#[test]
fn dotted_parameter_overrides_set_one_nested_key() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = compile_example(dir.path(), &["-p", "database.dsn=x"]);
    assert_eq!(json["services"]["db"]["create"]["args"][0], "x");
    assert_eq!(json["parameters"]["mail"]["from"], "blog@example.com");
}

/// `-p NAME=` with nothing after `=` sets the parameter to null (NEON's empty value) and says
/// so, instead of leaving a type error at the configuration's `%NAME%` unexplained.
#[test]
fn an_empty_parameter_value_is_null_with_a_warning() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "parameters:\n\tlevel: 1\ntypes:\n\tApp\\X: {}\nservices:\n\tx: App\\X\n",
    )
    .expect("w");
    let out = wireplan()
        .args(["check", config.to_str().expect("utf-8"), "-p", "level="])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("-p level= gives no value: the parameter 'level' is set to null."),
        "{err}"
    );
    let out = wireplan()
        .args(["check", config.to_str().expect("utf-8"), "-p", "level=''"])
        .output()
        .expect("runs");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("set to null"));
}

/// An error about how services depend on each other is reported at a whole definition; a
/// `%name%` inside it that `-p` set is not what the error is about, so it gets no note (it
/// did, found by a new user's trial).
#[test]
fn a_captive_dependency_at_a_definition_with_a_dash_p_parameter_gets_no_parameter_note() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "parameters:\n\tn: x\ntypes:\n\tApp\\R: {}\n\tApp\\S:\n\t\tconstructor: [r: App\\R, name: string]\n\
         services:\n\tr: {type: App\\R, lifespan: scoped}\n\ts: {create: App\\S(name: %n%)}\n",
    )
    .expect("w");
    let err = stderr_on_exit(
        wireplan()
            .args(["check", config.to_str().expect("utf-8")])
            .args(["-p", "n=y"]),
        1,
    );
    assert!(
        err.contains("error[captive-dependency]: Singleton service 's' holds scoped service 'r'"),
        "{err}"
    );
    assert!(!err.contains("comes from the command line"), "{err}");
}

/// An error at a `%name%` that `-p` set says the value came from the command line: the
/// configuration's own value is not what was checked.
#[test]
fn an_error_at_a_parameter_set_by_dash_p_says_where_the_value_came_from() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "parameters:\n\tmaxItems: 5\n\tdb: {port: 1}\ntypes:\n\tApp\\Box:\n\t\tconstructor: [max: int]\n\
         services:\n\tbox: App\\Box(%maxItems%)\n\tother: App\\Box(%db.port%)\n\tthird: App\\Box(%db%)\n",
    )
    .expect("w");
    // Exit 1 and every wanted text in the output; the output for more checks.
    let fails_with = |args: &[&str], wanted: &[&str]| {
        let err = stderr_on_exit(
            wireplan()
                .args(["check", config.to_str().expect("utf-8")])
                .args(args),
            1,
        );
        for w in wanted {
            assert!(err.contains(w), "{w}\n{err}");
        }
        err
    };
    let err = fails_with(
        &["-p", "maxItems=abc", "-p", "db.port=x"],
        &[
            "expects int, 'abc' given",
            "= the value of %maxItems% comes from the command line: -p maxItems=abc",
            "= the value of %db.port% comes from the command line: -p db.port=x",
            "= part of the value of %db% comes from the command line: -p db.port=x",
        ],
    );
    assert_eq!(
        err.matches("comes from the command line").count(),
        3,
        "{err}"
    );
    // A problem inside a -p value names the parameter it was given for.
    fails_with(
        &["-p", "maxItems=%maxItems%"],
        &[
            "error[circular-parameter]",
            "= used in the parameter given with -p maxItems=…",
        ],
    );
    fails_with(
        &["-p", "maxItems=%nope%"],
        &[
            "Missing parameter 'nope'.",
            "= used in the parameter given with -p maxItems=…",
        ],
    );
    // A reference below the parameter the command line replaced.
    fails_with(
        &["-p", "db=5"],
        &["= %db.port% lies in 'db', which the command line sets: -p db=5"],
    );
    // The same error from the file's own value has no such note.
    std::fs::write(
        &config,
        std::fs::read_to_string(&config)
            .expect("r")
            .replace("maxItems: 5", "maxItems: abc"),
    )
    .expect("w");
    let err = fails_with(&[], &["expects int, 'abc' given"]);
    assert!(!err.contains("command line"), "{err}");
}

/// A `%name%` whose written value uses a parameter that `-p` set (`pp: %per%`, `-p per=…`),
/// directly or through others, is followed to it; a parameter the command line replaces whole
/// is not followed into what its file writes.
#[test]
fn an_error_at_a_parameter_using_one_set_by_dash_p_names_the_command_line_value() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "parameters:\n\tper: 5\n\tpp: %per%\n\tqq: {n: %pp%}\n\tdb: {port: %other%}\n\tother: 1\n\
         types:\n\tApp\\Box:\n\t\tconstructor: [max: int]\n\
         services:\n\ta: App\\Box(%pp%)\n\tb: App\\Box(%qq.n%)\n\tc: App\\Box(%db.port%)\n",
    )
    .expect("w");
    let check = |args: &[&str]| {
        stderr_on_exit(
            wireplan()
                .args(["check", config.to_str().expect("utf-8")])
                .args(args),
            1,
        )
    };
    let err = check(&["-p", "per=[1]"]);
    for wanted in [
        "= %pp% uses %per%, which the command line sets: -p per=[1]",
        "= %qq.n% uses %per%, which the command line sets: -p per=[1]",
    ] {
        assert!(err.contains(wanted), "{wanted}\n{err}");
    }
    assert_eq!(err.matches("error[invalid-value]").count(), 2, "{err}");
    assert_eq!(err.matches("the command line sets").count(), 2, "{err}");
    // `-p pp=…` replaces what the file writes for `pp`: its `%per%` is not followed.
    let err = check(&["-p", "pp=[2]", "-p", "per=x"]);
    assert!(
        err.contains("= %qq.n% uses %pp%, which the command line sets: -p pp=[2]"),
        "{err}"
    );
    assert!(!err.contains("uses %per%"), "{err}");
    // Below a parameter the command line sets.
    let err = check(&["-p", "db=[2]"]);
    assert!(
        err.contains("= %db.port% lies in 'db', which the command line sets: -p db=[2]"),
        "{err}"
    );
}

#[test]
fn check_says_ok_and_bad_parameter_names_are_errors() {
    let out = wireplan()
        .args([
            "check",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "ok: 9 services, 0 warning(s)"
    );
    for bad in [["-p", "=x"], ["--dynamic", ""]] {
        let out = wireplan()
            .args([
                "check",
                "examples/blog/config/app.neon",
                "--catalog",
                "examples/blog/catalog.json",
            ])
            .args(bad)
            .output()
            .expect("runs");
        // A malformed option is a usage error (exit 2), as clap's own are.
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("error[usage]: "),
            "{bad:?}"
        );
    }
}

#[test]
fn a_bad_parameter_option_does_not_hide_the_other_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(&config, "services:\n\ts: App\\Missing(%x%)\n").expect("write");
    let stderr = stderr_on_exit(
        wireplan().arg("check").arg(&config).args([
            "-p",
            "x=[a",
            "-p",
            "nonsense",
            "--dynamic",
            "a b",
        ]),
        2,
    );
    for want in [
        "error[neon-syntax]",
        "<-p x>:1:3",
        "-p expects NAME=VALUE",
        "--dynamic expects a parameter name",
        // The bad -p is left out: %x% is missing, and the rest is still checked.
        "Missing parameter 'x'.",
        "Class 'App\\Missing' not found.",
    ] {
        assert!(stderr.contains(want), "{want}: {stderr}");
    }
    // `check` writes no plan in any case, so its summary does not say so.
    assert_eq!(stderr.lines().last(), Some("error: 5 error(s)"), "{stderr}");
    // The JSON form lists them all too, and `compile` writes no plan.
    let out = wireplan()
        .arg("check")
        .arg(&config)
        .args(["-p", "x=[a", "--format", "json"])
        .output()
        .expect("runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let codes: Vec<&str> = json
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(
        codes,
        ["neon-syntax", "missing-parameter", "class-not-found"]
    );
    let ok = dir.path().join("ok.neon");
    std::fs::write(&ok, "parameters:\n\tx: 1\n").expect("write");
    let plan = dir.path().join("ok.plan.json");
    let out = wireplan()
        .arg("compile")
        .arg(&ok)
        .arg("-o")
        .arg(&plan)
        .args(["-p", "x=[a"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(!plan.exists());
}

/// `wireplan check … 2>&1 | head`: the reader goes away while diagnostics are still being
/// written. That ends the output, never in a panic (exit code 101).
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("many.neon");
    // Far more output than a pipe buffers, so the writer must meet the closed end.
    let services: String = (0..3000)
        .map(|i| format!("\ts{i}: App\\Missing{i}\n"))
        .collect();
    std::fs::write(&config, format!("services:\n{services}")).expect("write");
    for json in [false, true] {
        let mut cmd = wireplan();
        cmd.arg("check").arg(&config);
        if json {
            cmd.args(["--format", "json"]).stdout(Stdio::piped());
        } else {
            cmd.stderr(Stdio::piped());
        }
        let mut child = cmd.spawn().expect("runs");
        let mut head = [0u8; 100];
        {
            let reader: &mut dyn Read = if json {
                child.stdout.as_mut().expect("stdout")
            } else {
                child.stderr.as_mut().expect("stderr")
            };
            reader.read_exact(&mut head).expect("some output");
        }
        drop(child.stdout.take());
        drop(child.stderr.take());
        let status = child.wait().expect("exits");
        assert_eq!(status.code(), Some(1), "json: {json}");
    }
}

#[test]
fn the_repl_alias_prints_usage_errors_with_their_code() {
    let stderr = stderr_on_exit(
        Command::new(env!("CARGO_BIN_EXE_wireplan-repl"))
            .args(["examples/blog/config/app.neon", "--frobnicate"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1"),
        2,
    );
    assert!(
        stderr.starts_with("error[usage]: unexpected argument '--frobnicate'"),
        "{stderr}"
    );
}

/// `check --watch` says where watching is instead of clap's tip to pass `--watch` as a value
/// (a trial); other unknown options keep clap's text.
#[test]
fn watch_on_check_points_to_compile() {
    let stderr = stderr_on_exit(
        wireplan().args(["check", "examples/blog/config/app.neon", "--watch"]),
        2,
    );
    assert!(
        stderr.starts_with(
            "error[usage]: unexpected argument '--watch' found\n  note: `compile` watches: \
             wireplan compile CONFIG -o PLAN --watch"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("tip:"), "{stderr}");
    assert!(stderr.contains("\nUsage: wireplan check"), "{stderr}");
    let stderr = stderr_on_exit(wireplan().args(["check", "x.neon", "--bogus"]), 2);
    assert!(stderr.contains("tip: to pass '--bogus'"), "{stderr}");
}

/// `-o ''` is a usage error that says the path is empty (clap's own message said no value was
/// given), and nothing is written.
#[test]
fn an_empty_output_path_is_named_as_such() {
    let out = wireplan()
        .args(["compile", "examples/blog/config/app.neon", "-o", ""])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .starts_with("error[usage]: invalid value '' for '--output <PLAN>': the path is empty"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// An output path in a folder that does not exist, or ending in `/`, says so: the system's own
/// words were "Not a directory (os error 20)" for `-o newdir/`.
#[test]
fn an_output_path_in_a_missing_folder_says_what_is_wrong() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run =
        |out: &std::path::Path| stderr_on_exit(compile_example_command().arg("-o").arg(out), 1);
    let folder = format!("{}/newdir/", dir.path().display());
    let err = run(std::path::Path::new(&folder));
    assert!(
        err.contains("error[io-error]: Cannot write the plan to"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "= the path ends with '/', so it names a folder; a plan needs a file name, such as \
             {folder}app.plan.json"
        )),
        "{err}"
    );
    let err = run(&dir.path().join("missing").join("app.plan.json"));
    assert!(
        err.contains(&format!(
            "= the folder '{}' does not exist; the plan's folder is not created",
            dir.path().join("missing").display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 0);
}

/// A type catalog given as the configuration: its `format` and `version` are reported as
/// sections no extension handles, with a note that says to pass the file with `--catalog`.
#[test]
fn a_catalog_given_as_the_configuration_gets_a_hint() {
    let stderr = stderr_on_exit(
        wireplan().args(["check", "examples/getting-started/catalog.json"]),
        1,
    );
    assert!(stderr.contains("Found section 'format'"), "{stderr}");
    assert!(
        stderr.contains("looks like a type catalog (format, version, types): give it to the compiler with --catalog FILE"),
        "{stderr}"
    );
}

/// Refusing to write the plan over an input written the same way as `-o`: the note does not
/// name the file twice ("'x' is the same file as 'x'"); another spelling of it is named.
#[test]
fn the_output_refusal_names_another_spelling_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/getting-started");
    std::fs::copy(root.join("catalog.json"), dir.path().join("catalog.json")).expect("copy");
    std::fs::copy(root.join("config/app.neon"), dir.path().join("app.neon")).expect("copy");
    let before = std::fs::read(dir.path().join("catalog.json")).expect("read");
    for (out, note) in [
        ("catalog.json", "= choose another output path"),
        (
            "./x/../catalog.json",
            "= './x/../catalog.json' is the same file as 'catalog.json'; choose another output path",
        ),
    ] {
        std::fs::create_dir_all(dir.path().join("x")).expect("dir");
        let run = wireplan()
            .current_dir(dir.path())
            .args(["compile", "app.neon", "--catalog", "catalog.json", "-o", out])
            .output()
            .expect("runs");
        assert_eq!(run.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("Refusing to write the plan over 'catalog.json'"), "{stderr}");
        assert!(stderr.contains(note), "{out}: {stderr}");
        assert_eq!(std::fs::read(dir.path().join("catalog.json")).expect("read"), before);
    }
}

/// A missing extension script named by a relative path: the error names the path tried and
/// says it was resolved against the configuration's folder (a copied example showed a path
/// other than the one written, with no word on why).
#[test]
fn a_missing_relative_script_says_how_its_path_was_resolved() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("cfg")).expect("dir");
    std::fs::write(
        dir.path().join("cfg/app.neon"),
        "extensions:\n\tlogging: ../scripts/missing.rhai\n",
    )
    .expect("write");
    let stderr = stderr_on_exit(
        wireplan()
            .current_dir(dir.path())
            .args(["check", "cfg/app.neon"]),
        1,
    );
    assert!(stderr.contains("Extension script '"), "{stderr}");
    assert!(
        stderr.contains("missing.rhai' is missing or is not readable."),
        "{stderr}"
    );
    assert!(
        stderr.contains("resolved against the folder of the configuration file that names it"),
        "{stderr}"
    );
    assert!(stderr.contains("cfg/app.neon:2:11"), "{stderr}");
    // The note names the absolute path it looked at (fifth new user's trial).
    let looked_at = std::path::absolute(dir.path().join("scripts/missing.rhai")).expect("a path");
    assert!(
        stderr.contains(&format!("(here: {})", looked_at.display())),
        "{stderr}"
    );
    // A folder where the script should be is said to be one, not missing (a new user's trial).
    std::fs::create_dir_all(dir.path().join("scripts/missing.rhai")).expect("dir");
    let stderr = stderr_on_exit(
        wireplan()
            .current_dir(dir.path())
            .args(["check", "cfg/app.neon"]),
        1,
    );
    assert!(
        stderr.contains("missing.rhai' cannot be read: it is a directory."),
        "{stderr}"
    );
    assert!(
        stderr.contains("give the script file (`NAME.rhai`), not a folder"),
        "{stderr}"
    );
    assert!(!stderr.contains("resolved against"), "{stderr}");
}

/// A script error reported after other errors says it may follow from them; one with no
/// error before it does not.
#[test]
fn a_script_error_after_other_errors_says_it_may_follow_from_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("ext.rhai"),
        "fn beforeCompile() {\n    throw \"no logger\";\n}\n",
    )
    .expect("write");
    let run = |service: &str| {
        std::fs::write(
            dir.path().join("app.neon"),
            format!(
                "extensions:\n\tx: ext.rhai\ntypes:\n\tApp\\Logger: {{}}\nservices:\n\tlog: {service}\n"
            ),
        )
        .expect("write");
        let out = wireplan()
            .current_dir(dir.path())
            .args(["check", "app.neon"])
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let note = "reported after 1 earlier error(s) of this compilation, which it may follow from";
    let after = run("App\\Loger");
    assert!(after.contains("error[class-not-found]"), "{after}");
    assert!(after.contains("error[script-error]"), "{after}");
    assert!(after.contains(note), "{after}");
    let alone = run("App\\Logger");
    assert!(alone.contains("error[script-error]"), "{alone}");
    assert!(!alone.contains("earlier error"), "{alone}");
}

/// An extension script saved with a UTF-8 byte order mark and CRLF line ends (as some
/// Windows editors save) runs like one without; an error on its first line is placed where
/// an editor shows it, counted from after the mark.
#[test]
fn an_extension_script_with_a_byte_order_mark_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config =
        "extensions:\n\tx: ext.rhai\ntypes:\n\tApp\\Logger: {}\nservices:\n\tlog: App\\Logger\n";
    std::fs::write(dir.path().join("app.neon"), config).expect("write");
    let check = |script: &str| {
        std::fs::write(dir.path().join("ext.rhai"), script).expect("write");
        let out = wireplan()
            .current_dir(dir.path())
            .args(["check", "app.neon"])
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = check("\u{feff}// tags the logger\r\nfn beforeCompile() {\r\n    this.getContainerBuilder().getDefinition(\"log\").addTag(\"kept\");\r\n}\r\n");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    let (code, stderr) = check("\u{feff}let x = ;\r\n");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("ext.rhai:1:9"), "{stderr}");
    assert!(!stderr.contains('\u{feff}'), "{stderr}");
}

/// A path written with Windows' `\\` between folders is not found elsewhere: the error says
/// to write `/`, and names the file when the path so written finds it.
#[test]
#[cfg(unix)]
fn a_path_with_backslashes_says_to_write_slashes() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("sub dir")).expect("dir");
    std::fs::create_dir_all(dir.path().join("ext")).expect("dir");
    std::fs::write(
        dir.path().join("sub dir/s.neon"),
        "services:\n\tx: stdClass\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("ext/e.rhai"), "fn beforeCompile() {}\n").expect("write");
    let check = |config: &str| {
        std::fs::write(dir.path().join("app.neon"), config).expect("write");
        let out = wireplan()
            .arg("check")
            .arg(dir.path().join("app.neon"))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let there = "`\\` separates folders only on Windows; with `/`, which works on every system, the path names a file that is there: '";
    let stderr = check("includes:\n\t- 'sub dir\\s.neon'\n\t- 'other\\t.neon'\n");
    assert!(
        stderr.contains(&format!(
            "{there}{}'",
            dir.path().join("sub dir/s.neon").display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("`\\` separates folders only on Windows; write paths with `/`, which works on every system"), "{stderr}");
    let stderr = check("extensions:\n\te: 'ext\\e.rhai'\n");
    assert!(
        stderr.contains(&format!(
            "{there}{}'",
            dir.path().join("ext/e.rhai").display()
        )),
        "{stderr}"
    );
    // Not for a path without one.
    let stderr = check("includes:\n\t- nope.neon\n");
    assert!(!stderr.contains("separates folders"), "{stderr}");
}

/// `--color always` colours the diagnostics into a pipe (a CI log), even with `NO_COLOR`;
/// `--color never` and the default into a pipe do not.
#[test]
fn color_always_colours_into_a_pipe() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(&config, "services:\n\tx: App\\Nope\n").expect("write");
    let stderr = |args: &[&str], no_color: bool| {
        let mut cmd = wireplan();
        cmd.arg("check").arg(&config).args(args);
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        let out = cmd.output().expect("runs");
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(stderr(&["--color", "always"], true).contains("\u{1b}["));
    assert!(!stderr(&["--color", "never"], false).contains('\u{1b}'));
    let plain = stderr(&[], false);
    assert!(!plain.contains('\u{1b}'), "{plain}");
    assert!(plain.starts_with("error[class-not-found]"), "{plain}");
}

/// `compile -q` and `check -q` print only the diagnostics: no `wrote` or `ok:` line, and the
/// warnings and errors as without it.
#[test]
fn quiet_leaves_out_the_success_line_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    let plan = dir.path().join("app.plan.json");
    std::fs::write(&config, "types:\n\tApp\\X: {}\nservices:\n\tx: App\\X\n").expect("write");
    let run = |args: &[&str]| {
        let out = wireplan().args(args).output().expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (config_arg, plan_arg) = (
        config.to_str().expect("utf-8"),
        plan.to_str().expect("utf-8"),
    );
    assert_eq!(
        run(&["compile", config_arg, "-o", plan_arg, "-q"]),
        (Some(0), String::new())
    );
    assert!(plan.is_file());
    assert_eq!(
        run(&["check", config_arg, "--quiet"]),
        (Some(0), String::new())
    );
    let (code, loud) = run(&["check", config_arg]);
    assert_eq!(
        (code, loud.as_str()),
        (Some(0), "ok: 1 service, 0 warning(s)\n")
    );
    // Diagnostics still print.
    std::fs::write(&config, "services:\n\tx: App\\Nope\n").expect("write");
    let (code, stderr) = run(&["compile", config_arg, "-o", plan_arg, "-q"]);
    assert_eq!(code, Some(1));
    assert!(stderr.starts_with("error[class-not-found]"), "{stderr}");
}

/// `graph` of a plan file with options that only a configuration takes (`--catalog`, `-p`):
/// a warning names them as ignored, and the graph is still printed.
#[test]
fn graph_of_a_plan_names_the_options_it_ignores() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/getting-started");
    let plan = dir.path().join("app.plan.json");
    let compiled = wireplan()
        .arg("compile")
        .arg(root.join("config/app.neon"))
        .arg("--catalog")
        .arg(root.join("catalog.json"))
        .arg("-o")
        .arg(&plan)
        .output()
        .expect("runs");
    assert!(compiled.status.success(), "{compiled:?}");
    let out = wireplan()
        .arg("graph")
        .arg(&plan)
        .arg("--catalog")
        .arg(root.join("catalog.json"))
        .args(["-p", "name=x"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("warning: --catalog, -p ignored: '"),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("digraph"),
        "{out:?}"
    );
}

/// An include cycle's chain names the files relative to the working folder, as the other
/// diagnostics do (it named them by absolute path).
#[test]
fn an_include_cycle_names_its_files_relative_to_the_working_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("cfg")).expect("dir");
    std::fs::write(dir.path().join("cfg/a.neon"), "includes:\n\t- b.neon\n").expect("write");
    std::fs::write(dir.path().join("cfg/b.neon"), "includes:\n\t- a.neon\n").expect("write");
    let out = wireplan()
        .current_dir(dir.path())
        .args(["check", "cfg/a.neon"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("include chain: cfg/a.neon -> cfg/b.neon -> cfg/a.neon"),
        "{stderr}"
    );
}

/// `graph` and `show` of a type catalog: not a plan, and the note says what the file is and
/// how it is used (it said only that the format was not a plan's).
#[test]
fn a_catalog_read_as_a_plan_is_named_as_a_catalog() {
    for command in ["graph", "show"] {
        let out = wireplan()
            .args([command, "examples/getting-started/catalog.json"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("error[invalid-plan]"),
            "{command}: {stderr}"
        );
        assert!(
            stderr.contains("is a type catalog: it describes the Rust types"),
            "{command}: {stderr}"
        );
    }
}

/// `--timings` prints, after the compilation, a table of the stages in the order they ran,
/// each with a time, and a total; the plan is written as without it. Without the flag there
/// is no table. `check --timings` prints one too.
#[test]
fn timings_show_each_stage_of_a_compilation() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = dir.path().join("app.plan.json");
    let out = compile_example_command()
        .args(["--timings", "-o"])
        .arg(&plan)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let untimed = dir.path().join("untimed.json");
    let plain = compile_example_command()
        .arg("-o")
        .arg(&untimed)
        .output()
        .expect("runs");
    assert_eq!(
        std::fs::read(&plan).expect("plan"),
        std::fs::read(&untimed).expect("plan")
    );
    assert!(!String::from_utf8_lossy(&plain.stderr).contains("timings:"));

    let table: Vec<&str> = stderr
        .lines()
        .skip_while(|l| *l != "timings:")
        .skip(1)
        .take_while(|l| !l.starts_with("wrote "))
        .collect();
    assert!(
        table[0].starts_with("stage") && table[0].contains("took ms"),
        "{stderr}"
    );
    let stages: Vec<&str> = table[1..]
        .iter()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("peak resident"))
        .map(|l| l.split("  ").next().unwrap_or_default())
        .collect();
    assert_eq!(
        stages,
        [
            "reading the configuration",
            "expanding the configuration",
            "loading the services",
            "resolving the services",
            "completing the services",
            "building the plan",
            "encoding the plan",
            "writing the plan",
            "the rest",
            "total",
        ],
        "{stderr}"
    );
    // Each stage's time and when it ended; the ends grow, the total is the last.
    let mut last_end = 0.0;
    for line in &table[1..table.len() - 2] {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let numbers: Vec<f64> = cols.iter().filter_map(|c| c.parse().ok()).collect();
        let (took, end) = (numbers[0], numbers[1]);
        assert!(took >= 0.0 && end >= last_end, "{line}");
        last_end = end;
    }
    let total: f64 = table[table.len() - 2]
        .split_whitespace()
        .nth(1)
        .and_then(|t| t.parse().ok())
        .expect("a total");
    assert!(total >= last_end, "{stderr}");
    assert!(
        stderr.contains("peak resident set of the process: "),
        "{stderr}"
    );

    let check = wireplan()
        .args([
            "check",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
            "--timings",
        ])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{stderr}");
    assert!(stderr.contains("\ncompleting the services "), "{stderr}");
    // `check` writes no plan: no encoding or writing rows.
    assert!(!stderr.contains("writing the plan"), "{stderr}");
}

/// A binary plan is not written to a terminal (raw bytes would garble it); redirected, it is.
/// The terminal is made with util-linux `script`; without it the test says it was skipped.
#[test]
fn a_binary_plan_is_not_written_to_a_terminal() {
    let compile = format!(
        "{} compile examples/blog/config/app.neon --catalog examples/blog/catalog.json -o - --format bin; echo rc=$?",
        env!("CARGO_BIN_EXE_wireplan")
    );
    let Ok(out) = Command::new("script")
        .args(["-qec", &compile, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
    else {
        eprintln!("skipped: no `script` to make a terminal");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a binary plan is not written to a terminal") && text.contains("rc=2"),
        "{text}"
    );
    let piped = wireplan()
        .args([
            "compile",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
            "-o",
            "-",
            "--format",
            "bin",
        ])
        .output()
        .expect("runs");
    assert!(piped.status.success());
    assert!(
        piped.stdout.starts_with(b"WIREPLAN"),
        "binary plan on a pipe"
    );
}

/// A service a script changed (a setup it added) whose constructor asks for a service that
/// does not exist: the error does not blame the script, which wrote no such value (new user's
/// trial). When the script set the creator, the error points at that call.
#[test]
fn a_missing_autowired_service_does_not_blame_a_script_that_added_a_setup() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |script: &str| {
        std::fs::write(dir.path().join("ext.rhai"), script).expect("write");
        std::fs::write(
            dir.path().join("app.neon"),
            "extensions:\n\tx: ext.rhai\ntypes:\n\tApp\\Cache: {interface: true}\n\tApp\\Repo:\n\t\tconstructor:\n\t\t\tcache: App\\Cache\n\t\tmethods:\n\t\t\tsetDebug: {params: {on: bool}}\nservices:\n\trepo: App\\Repo\n",
        )
        .expect("write");
        let out = wireplan()
            .current_dir(dir.path())
            .args(["check", "app.neon"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let setup = run(
        "fn beforeCompile() {\n\tthis.getContainerBuilder().getDefinition(\"repo\").addSetup(\"setDebug\", [true]);\n}\n",
    );
    assert!(setup.contains("error[missing-service]"), "{setup}");
    assert!(!setup.contains("may come from there"), "{setup}");
    let creator = run(
        "fn beforeCompile() {\n\tthis.getContainerBuilder().getDefinition(\"repo\").setFactory(\"App\\\\Repo\");\n}\n",
    );
    assert!(creator.contains("error[missing-service]"), "{creator}");
    assert!(creator.contains("ext.rhai:2:51"), "{creator}");
    assert!(
        creator.contains("service 'repo' is defined here"),
        "{creator}"
    );
}

/// The shipped `logaware` extension: without a logger it fails only when a service is tagged,
/// its error names the tagged service and the `loggerType:` option, and, as its script is not
/// the user's to edit, it also points at the line that registers the extension.
#[test]
fn a_shipped_extension_error_points_at_its_registration_too() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    let write = |tag: &str| {
        std::fs::write(
            &config,
            format!(
                "extensions:\n\tlogging: logaware\ntypes:\n\tApp\\Mailer:\n\t\tmethods:\n\t\t\t\
                 setLogger: {{params: {{l: App\\Logger}}}}\n\tApp\\Logger:\n\t\tinterface: true\n\
                 services:\n\tm:\n\t\tcreate: App\\Mailer\n\t\ttags: [{tag}]\n"
            ),
        )
        .expect("w")
    };
    write("logaware");
    let err = stderr_on_exit(
        wireplan().args(["check", config.to_str().expect("utf-8")]),
        1,
    );
    for wanted in [
        "no service of type App\\Logger to attach to the services tagged 'logaware' ('m'); add one, or name your logger's type with 'loggerType:'",
        "┌─ shipped extension 'logaware':",
        "app.neon:2:11",
        "extension 'logging' is registered here; its script is shipped with wireplan",
    ] {
        assert!(err.contains(wanted), "{wanted}\n{err}");
    }
    // Nothing tagged: nothing to attach, no logger needed.
    write("other");
    let err = stderr_on_exit(
        wireplan().args(["check", config.to_str().expect("utf-8")]),
        0,
    );
    assert!(err.contains("ok: 1 service"), "{err}");
}

/// Problems with the order of extensions do not hide each other: a name ordered relative to
/// itself is reported even in an entry that does not load (an unknown key), and an unknown
/// name does not hide a cycle among the others.
#[test]
fn every_extension_order_problem_is_reported_in_one_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("n.rhai"), "fn loadConfiguration() {}\n").expect("w");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "extensions:\n\ta: {script: n.rhai, after: b}\n\tb: {script: n.rhai, after: a}\n\
         \tc: {script: n.rhai, before: nope}\n\td: {script: n.rhai, before: d, wat: 1}\n",
    )
    .expect("w");
    let err = stderr_on_exit(
        wireplan().args(["check", config.to_str().expect("utf-8")]),
        1,
    );
    for wanted in [
        "error[extension-order]: The before:/after: order of extensions a, b cannot be met",
        "error[extension-order]: Extension 'c' is to run before 'nope', but no extension is registered",
        "error[extension-order]: Extension 'd' cannot be ordered relative to itself.",
        "error[unknown-option]: Unexpected item 'extensions\u{a0}›\u{a0}d\u{a0}›\u{a0}wat'.",
        "error: 4 error(s)",
    ] {
        assert!(err.contains(wanted), "{wanted}\n{err}");
    }
}

/// `show` lines the dynamic parameters up as a table, as the other sections are.
#[test]
fn show_aligns_the_dynamic_parameters() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "parameters:\n\tdb:\n\t\tpassword: secret\nwireplan:\n\tsensitive: [db.password]\n\
         types:\n\tApp\\X:\n\t\tconstructor: {p: string}\n\
         services:\n\tx: App\\X(%db.password%)\n\ty: App\\X(%env.HOME%)\n",
    )
    .expect("w");
    let plan = dir.path().join("plan.json");
    stderr_on_exit(
        wireplan().args([
            "compile",
            config.to_str().expect("utf-8"),
            "-o",
            plan.to_str().expect("utf-8"),
        ]),
        0,
    );
    let out = wireplan()
        .args(["show", plan.to_str().expect("utf-8")])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "dynamic parameters, read at start-up (2):\n  db.password  string, required, sensitive\n  env.HOME     string, required\n"
        ),
        "{stdout}"
    );
}

/// `explain --type int` says that a built-in type is not autowired; a `.json` catalog holding
/// NEON says that the name decides how it is read.
#[test]
fn a_built_in_type_and_a_neon_catalog_under_a_json_name_are_explained() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(&config, "services:\n\tx: App\\X\n").expect("w");
    let catalog = dir.path().join("types.json");
    std::fs::write(&catalog, "App\\X: {}\n").expect("w");
    let (config, catalog) = (
        config.to_str().expect("utf-8"),
        catalog.to_str().expect("utf-8"),
    );
    let err = stderr_on_exit(wireplan().args(["check", config, "--catalog", catalog]), 1);
    assert!(
        err.contains("The catalog is not valid JSON")
            && err.contains("= a catalog named *.json is read as JSON; this text reads as NEON: name the file *.neon"),
        "{err}"
    );
    std::fs::write(dir.path().join("types.json"), "{\"App\\\\X\": {}}\n").expect("w");
    let out = wireplan()
        .args(["explain", config, "--catalog", catalog, "--type", "int"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "= 'int' is a built-in type: autowiring answers for classes and interfaces only"
        ),
        "{err}"
    );
}

/// A `-p` value is decoded before the configuration says which parameters are sensitive: a
/// syntax error in a sensitive one (or in a map holding one) is reported without the value,
/// on every command that takes `-p`, and a non-sensitive value still shows where it broke
/// (new user's trial: `check -p 'dbPassword=[hunter3'` printed `[hunter3`).
#[test]
fn a_syntax_error_in_a_sensitive_dash_p_value_does_not_show_the_value() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "parameters:\n\tdbPassword: hunter2\n\tdb: {pass: s3cr3t, host: x}\n\tdsn: plain\n\
         wireplan:\n\tsensitive: [dbPassword, db.pass]\n",
    )
    .expect("w");
    let config = config.to_str().expect("utf-8");
    for (command, value) in [
        (vec!["check", config], "dbPassword=[hunter3"),
        (vec!["check", config], "db={pass: [hunter3"),
        (
            vec!["explain", config, "--type", "App\\X"],
            "dbPassword=[hunter3",
        ),
    ] {
        let out = wireplan()
            .args(&command)
            .args(["-p", value])
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        let name = value.split('=').next().expect("name");
        assert!(!err.contains("hunter3"), "{command:?} -p {value}:\n{err}");
        assert!(
            err.contains(&format!("the value of -p {name} is not shown")),
            "{command:?} -p {value}:\n{err}"
        );
    }
    let err = stderr_on_exit(wireplan().args(["check", config, "-p", "dsn=[plain2"]), 1);
    assert!(err.contains("[plain2"), "{err}");
    assert!(!err.contains("is not shown"), "{err}");
    // The message may quote the value (`Unexpected ''hunter3'`), and a note on a parameter
    // inside a sensitive map names the `-p` value (second trial).
    for value in ["dbPassword='hunter3", "db={pass: 1, pass: hunter3}"] {
        let err = stderr_on_exit(wireplan().args(["check", config, "-p", value]), 1);
        assert!(!err.contains("hunter3"), "-p {value}:\n{err}");
        assert!(err.contains("is not valid NEON"), "-p {value}:\n{err}");
    }
    std::fs::write(
        dir.path().join("uses.neon"),
        "includes: [app.neon]\ntypes:\n\tApp\\X:\n\t\tconstructor: {h: string}\n\
         services:\n\tx: App\\X(%db.host%)\n",
    )
    .expect("w");
    let uses = dir.path().join("uses.neon");
    let err = stderr_on_exit(
        wireplan().args(["check", uses.to_str().expect("utf-8"), "-p", "db=hunter3"]),
        1,
    );
    assert!(!err.contains("hunter3"), "{err}");
    assert!(
        err.contains("-p db=… (a sensitive value, not shown)"),
        "{err}"
    );
    // A configuration that cannot be read whole cannot say what is sensitive: nothing shown.
    let broken = dir.path().join("broken.neon");
    std::fs::write(&broken, "includes: [missing.neon]\nparameters:\n\tdsn: x\n").expect("w");
    let err = stderr_on_exit(
        wireplan().args([
            "check",
            broken.to_str().expect("utf-8"),
            "-p",
            "dsn=[hunter3",
        ]),
        1,
    );
    assert!(!err.contains("hunter3"), "{err}");
}

/// `check` and `show` call their readable output `human`, `explain` calls it `text`: each
/// takes the other's name too (a new user's trial tried `explain --format human`).
#[test]
fn human_and_text_name_the_same_output_on_every_command() {
    let blog = [
        "examples/blog/config/app.neon",
        "--catalog",
        "examples/blog/catalog.json",
    ];
    let out = wireplan()
        .arg("check")
        .args(blog)
        .args(["--format", "text"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "ok: 9 services, 0 warning(s)"
    );
    let out = wireplan()
        .arg("explain")
        .args(blog)
        .args(["--format", "human", "blog"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("service blog\n"),
        "{out:?}"
    );
}

/// On a terminal, diagnostics are coloured unless `NO_COLOR` is set to a non-empty value
/// (<https://no-color.org>: set but empty asks for nothing; a new user's trial found an empty
/// one turning colour off). The terminal is `script`'s pseudo-terminal; without `script` the
/// test says it was skipped.
#[cfg(unix)]
#[test]
fn no_color_counts_only_when_not_empty() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed");
        return;
    }
    let escapes = |no_color: Option<&str>| -> usize {
        let inner = format!(
            "{} check tests/fixtures/tools/syntax/config.neon",
            env!("CARGO_BIN_EXE_wireplan")
        );
        let mut c = Command::new("script");
        c.args(["-qec", &inner, "/dev/null"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("NO_COLOR");
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        let out = c.output().expect("script runs");
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        out.stdout.iter().filter(|&&b| b == 0x1b).count()
    };
    assert!(escapes(None) > 0, "coloured on a terminal");
    assert!(escapes(Some("")) > 0, "an empty NO_COLOR asks for nothing");
    assert_eq!(escapes(Some("1")), 0);
}

/// The help of the program, `compile` and `check` ends with the exit codes (a scripting user
/// found them only in `diff --help`).
#[test]
fn help_lists_the_exit_codes() {
    for args in [&["--help"][..], &["compile", "--help"], &["check", "-h"]] {
        let out = wireplan().args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(0));
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            help.contains("Exit codes: 0 success; 1 a problem with the input")
                && help.contains("2 a usage error; 128 + N when ended by signal N"),
            "{args:?}: {help}"
        );
    }
}

/// A plan written in the form its file's name does not say gets a usage warning (a scripting
/// user's trial wrote JSON into a `.bin` file without a word), and `--deny-warnings` writes
/// nothing then.
#[test]
fn a_plan_named_for_the_other_form_is_warned_about() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = dir.path().join("app.plan.bin");
    let stderr = stderr_on_exit(
        compile_example_command()
            .arg("-o")
            .arg(&plan)
            .args(["--format", "json"]),
        0,
    );
    assert!(
        stderr.contains("warning[usage]: The plan is written as JSON to")
            && stderr.contains("whose name says binary."),
        "{stderr}"
    );
    assert!(plan.is_file());
    let denied = dir.path().join("denied.bin");
    stderr_on_exit(
        compile_example_command().arg("-o").arg(&denied).args([
            "--format",
            "json",
            "--deny-warnings",
        ]),
        1,
    );
    assert!(!denied.exists());
    // The name and the form agree: no warning.
    let quiet = stderr_on_exit(
        compile_example_command()
            .arg("-o")
            .arg(dir.path().join("ok.bin")),
        0,
    );
    assert!(!quiet.contains("warning"), "{quiet}");
}
