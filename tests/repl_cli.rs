//! `wireplan repl` end to end in a pseudo-terminal, as a person would use it: Tab completes a
//! service name, `:phase A` and `:type`, a definition added with Rhai, `:diff`, `:compile`,
//! `:quit`; Ctrl-C stopping a running input; and, through pipes, what only the real binary
//! shows (a missing config as `check` reports it, a deeply nested value not aborting it).
//! Every wait is bounded (rexpect's timeout); the child is killed when the session is dropped,
//! also when an expectation fails.

use rexpect::session::{spawn_with_options, Options};
use std::path::Path;
use std::process::Command;

const TIMEOUT_MS: u64 = 30_000;

/// `wireplan repl` on the example in a pseudo-terminal, with its history under `data_home`;
/// every wait is bounded by `TIMEOUT_MS`, and the child is killed when the session drops.
fn spawn_repl(data_home: &Path) -> rexpect::session::PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wireplan"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "repl",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
        ])
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env("XDG_DATA_HOME", data_home);
    let mut p = spawn_with_options(
        cmd,
        Options::new()
            .timeout_ms(Some(TIMEOUT_MS))
            .strip_ansi_escape_codes(false),
    )
    .expect("spawn wireplan repl");
    p.process_mut().set_kill_timeout(Some(2_000));
    p
}

/// Sends keys and flushes them (rexpect's writer is line-buffered, and Enter is `\r`).
fn key(p: &mut rexpect::session::PtySession, keys: &str) {
    p.send(keys).expect("send keys");
    p.flush().expect("flush keys");
}

#[test]
fn repl_in_a_terminal_completes_steps_phases_and_compiles() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.plan.json");
    let mut p = spawn_repl(dir.path());

    p.exp_string("phase B, 9 services, 0 error(s)")
        .expect("summary");
    p.exp_string("wireplan[B]> ").expect("prompt");

    // Tab completes `art` to `articles`: the answer is the articles service, not an error.
    key(&mut p, ":show art");
    key(&mut p, "\t");
    p.exp_string(":show articles")
        .expect("Tab completed the name");
    key(&mut p, "\r");
    p.exp_string("completed: App\\ArticleRepository(@db, 5)")
        .expect(":show articles after Tab");
    p.exp_string("wireplan[B]> ").expect("prompt");

    key(&mut p, ":phase A\r");
    p.exp_string("phase A, 9 services").expect("phase A");
    p.exp_string("wireplan[A]> ").expect("prompt A");
    key(&mut p, ":type App\\Logger\r");
    p.exp_string("preliminary (phase A)")
        .expect("phase A caveat");
    // (rexpect reads bytes as Latin-1: match the ASCII line of the answer, not the arrow)
    p.exp_string("logger  App\\FileLogger  chosen: the only preferred autowired service")
        .expect("type answer");
    p.exp_string("wireplan[A]> ").expect("prompt A");

    key(
        &mut p,
        "builder.addDefinition(\"extra\").setFactory(\"App\\\\Clock\").setAutowired(false)\r",
    );
    p.exp_string("Definition(extra)").expect("added");
    p.exp_string("wireplan[A]> ").expect("prompt A");

    // :diff names the new service: the session's changes carried through the compilation.
    key(&mut p, ":diff\r");
    p.exp_string("services added (1):").expect(":diff header");
    p.exp_string("+ extra (App\\Clock)")
        .expect(":diff names extra");
    p.exp_string("wireplan[A]> ").expect("prompt A");

    key(&mut p, &format!(":compile {}\r", out.display()));
    p.exp_string("(10 services)").expect("written");
    p.exp_string("wireplan[A]> ").expect("prompt A");
    // An input past the history's limit runs but is not remembered.
    let long = format!(
        "\"{}\".len",
        "b".repeat(wireplan::repl::terminal::HISTORY_ENTRY_MAX)
    );
    key(&mut p, &format!("{long}\r"));
    p.exp_string(&wireplan::repl::terminal::HISTORY_ENTRY_MAX.to_string())
        .expect("the long input ran");
    p.exp_string("wireplan[A]> ").expect("prompt A");
    key(&mut p, ":quit\r");
    p.exp_eof().expect("the REPL ends");

    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("plan written"))
            .expect("json plan");
    assert_eq!(plan["services"]["extra"]["type"], "App\\Clock");
    assert_eq!(plan["services"]["extra"]["autowired"], false);
    // The history went to the data directory given by XDG_DATA_HOME.
    let history = std::fs::read_to_string(dir.path().join("wireplan/history")).expect("history");
    assert!(history.contains(":phase A"), "{history}");
    assert!(
        !history.contains("bbbb"),
        "the long input stayed out of the history"
    );
}

/// Runs `bin args` with `stdin` piped in (no terminal: the editor reads plain lines) and
/// `env`, and returns (exit code, stdout, stderr). Bounded: killed after 60 s.
fn run_piped(
    bin: &str,
    args: &[&str],
    stdin: impl AsRef<[u8]>,
    env: &[(&str, &str)],
) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut cmd = Command::new(bin);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env_remove("XDG_DATA_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn");
    // A program that refuses to start exits before reading: a closed pipe here is not an error.
    if let Err(e) = child.stdin.take().expect("stdin").write_all(stdin.as_ref()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{bin} did not end within 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `wireplan repl` on the blog example and its catalog, with `stdin` piped in (see
/// [`run_piped`]).
fn repl_on_example(stdin: impl AsRef<[u8]>) -> (i32, String, String) {
    run_piped(
        env!("CARGO_BIN_EXE_wireplan"),
        &[
            "repl",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
        ],
        stdin,
        &[],
    )
}

#[test]
fn the_alias_binary_takes_the_same_options_and_a_bad_home_is_not_an_error() {
    // HOME that does not exist, and an XDG_DATA_HOME below a regular file: no history can be
    // kept, and the session works all the same.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "x").expect("write");
    let xdg = file.join("data");
    let (code, out, err) = run_piped(
        env!("CARGO_BIN_EXE_wireplan-repl"),
        &[
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
            "-p",
            "postsPerPage=7",
        ],
        ":params posts\n:quit\n",
        &[
            ("HOME", "/nonexistent/home"),
            ("XDG_DATA_HOME", xdg.to_str().expect("utf-8 path")),
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("postsPerPage: 7"), "{out}");
    assert_eq!(err, "");
}

/// Issue #11: `wireplan repl nope.neon` says what `wireplan check nope.neon` says, with the
/// same code, text and note.
#[test]
fn a_missing_config_is_refused_with_the_diagnostic_check_prints() {
    // A name close to none of the folder's files, so the message has no "did you mean".
    let config = "examples/blog/config/absent.neon";
    let (code, out, err) = run_piped(env!("CARGO_BIN_EXE_wireplan"), &["repl", config], "", &[]);
    assert_eq!(code, 1, "{out}");
    let (check_code, _, check_err) =
        run_piped(env!("CARGO_BIN_EXE_wireplan"), &["check", config], "", &[]);
    assert_eq!(check_code, 1);
    assert!(
        err.starts_with(&format!(
            "error[file-not-found]: File '{config}' is missing or is not readable.\n = No such file"
        )),
        "{err}"
    );
    // check adds its summary line after the same diagnostic.
    assert!(
        check_err.starts_with(&err),
        "repl:\n{err}\ncheck:\n{check_err}"
    );
    assert_eq!(out, "");
    // A directory is not a configuration either.
    let (code, _, err) = run_piped(
        env!("CARGO_BIN_EXE_wireplan-repl"),
        &["examples/blog/config"],
        "",
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("File 'examples/blog/config' cannot be read: it is a directory."),
        "{err}"
    );
    // With the NEON files it holds (an operator's trial gave the configuration's folder).
    assert!(
        err.contains(
            "give a file, not a folder; it holds examples/blog/config/app.neon, \
             examples/blog/config/services.neon"
        ),
        "{err}"
    );
}

/// Issue #11: a value nested 2,000 levels deep aborted the program (stack overflow, exit
/// 134); the real binary prints it 32 levels deep and goes on.
#[test]
fn a_deep_value_prints_bounded_in_the_real_binary() {
    let (code, out, err) =
        repl_on_example("let v = 1; for i in 0..2000 { v = [v]; } v\n40 + 2\n:quit\n");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains(&format!("\n{}…{}\n", "[".repeat(33), "]".repeat(33))),
        "{out}"
    );
    assert!(out.contains("\n42\n"), "{out}");
}

/// A line that is not UTF-8 is skipped with a message and the session goes on (the piped
/// session then ends with status 1: an input failed); an input that keeps failing to decode
/// ends the session with status 1 instead of looping.
#[test]
fn a_line_that_is_not_utf8_is_skipped_and_the_session_goes_on() {
    let (code, out, err) = repl_on_example(b"20 + 1\n\xff\xfe oops\n40 + 2\n:quit\n");
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.ends_with("error: 1 input(s) failed (at line 2 of the input)\n"),
        "{err}"
    );
    assert!(out.contains("\n21\n") && out.contains("\n42\n"), "{out}");
    assert_eq!(
        err.matches("error: the line is not valid UTF-8 and was skipped")
            .count(),
        1,
        "{err}"
    );

    let (code, _, err) = repl_on_example(b"\xff\n".repeat(200));
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.matches("was skipped").count(), 64, "{err}");
}

/// Piped input that ends inside an unfinished entry (an open bracket, a comment) is reported
/// and the session ends with status 1, instead of the entry being dropped in silence.
#[test]
fn input_that_ends_inside_an_unfinished_entry_is_reported() {
    for input in ["let x = [1,\n2", "40 + 2\n/* open"] {
        let (code, out, err) = repl_on_example(input);
        assert_eq!(code, 1, "{input:?}: {out}\n{err}");
        assert!(
            err.contains("error: the input ended inside an unfinished entry"),
            "{input:?}: {err}"
        );
    }
    // A finished multi-line entry runs, and the session ends normally.
    let (code, out, err) = repl_on_example("let x = [1,\n2]\nx\n");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[1, 2]"), "{out}");
}

/// What a script prints reaches the terminal visibly: a BEL or ESC in it is shown escaped.
#[test]
fn printed_control_characters_are_shown_escaped() {
    let (code, out, err) = repl_on_example("print(\"a\\u0007b\\x1b[31m\");\n");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("script: a\\u{7}b\\u{1b}[31m"), "{err:?}");
    assert!(!err.contains('\u{7}') && !err.contains('\u{1b}'), "{err:?}");
}

/// Issue #11: Ctrl-C while an input runs stops the input, not the REPL.
#[test]
fn ctrl_c_in_a_terminal_stops_the_running_input_and_the_session_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = spawn_repl(dir.path());
    p.exp_string("wireplan[B]> ").expect("prompt");
    key(&mut p, "loop { builder.findByType(\"App\\\\Logger\"); }\r");
    // Give the line editor time to hand the terminal back (Ctrl-C is then a signal, not a key).
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    key(&mut p, "\x03");
    p.exp_string("interrupted (Ctrl-C): the input stopped")
        .expect("the input was interrupted");
    p.exp_string("wireplan[B]> ").expect("prompt after Ctrl-C");
    key(&mut p, "40 + 2\r");
    p.exp_string("42").expect("the session goes on");
    p.exp_string("wireplan[B]> ").expect("prompt");
    key(&mut p, ":quit\r");
    p.exp_eof().expect("the REPL ends");
}

#[test]
fn a_plan_file_given_as_the_configuration_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = dir.path().join("app.plan.json");
    let (code, _, err) = run_piped(
        env!("CARGO_BIN_EXE_wireplan"),
        &[
            "compile",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
            "-o",
            plan.to_str().expect("utf-8 path"),
        ],
        "",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    // The session would start over a plan's keys as configuration errors; it does not start.
    let (code, out, err) = run_piped(
        env!("CARGO_BIN_EXE_wireplan"),
        &["repl", plan.to_str().expect("utf-8 path")],
        ":quit\n",
        &[],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("is a plan file, not a configuration"), "{err}");
    assert_eq!(out, "", "no session was opened");
}

/// A `-p` problem printed when the REPL starts is not the session's: the REPL says the
/// session's counts leave it out, rather than reporting 0 errors unexplained (second trial).
#[test]
fn a_command_line_error_at_start_is_said_to_be_outside_the_session() {
    let (code, out, err) = run_piped(
        env!("CARGO_BIN_EXE_wireplan"),
        &[
            "repl",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
            "-p",
            "postsPerPage=[7",
        ],
        ":quit\n",
        &[],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("error[neon-syntax]"), "{err}");
    assert!(
        err.contains("note: the 1 command-line error(s) above are not counted below"),
        "{err}"
    );
}

/// Read from a pipe, the session runs every line and then exits with status 1 when any
/// input failed (a script error, an unknown service, a command written wrong, a `:compile`
/// that wrote no plan), as a script interpreter does; inputs that only answer, `:errors`
/// included, leave it 0.
#[test]
fn a_piped_session_with_a_failed_input_exits_with_status_1_after_every_line() {
    let (code, out, err) =
        repl_on_example(":services blog\n:errors\n:params posts\n40 + 2\n:quit\n");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!err.contains("failed"), "{err}");
    for failing in [
        "1 +\n",
        ":show nope\n",
        ":phase D\n",
        ":servics\n",
        "builder.getDefinition(\"nope\")\n",
        ":compile /nonexistent-dir/plan.json\n",
    ] {
        let (code, out, err) = repl_on_example(format!("{failing}40 + 2\n:quit\n"));
        assert_eq!(code, 1, "{failing:?}: {out}\n{err}");
        // The lines after the failed one ran.
        assert!(out.contains("\n42\n"), "{failing:?}: {out}");
        assert!(
            err.ends_with("error: 1 input(s) failed (at line 1 of the input)\n"),
            "{failing:?}: {err}"
        );
    }
    // Each failed input is named by the line it started on; a multi-line input counts its
    // lines, and a byte-order mark before the first line is no part of it.
    let (code, _, err) =
        repl_on_example("\u{feff}:services blog\n1 +\nfn f() {\n  1\n}\n:show nope\n40 + 2\n");
    assert_eq!(code, 1);
    assert!(
        err.ends_with("error: 2 input(s) failed (at lines 2, 6 of the input)\n"),
        "{err}"
    );
}

/// A reader that stops early (`wireplan repl … < checks.txt | head -1`) ends the session
/// quietly: no panic on the closed pipe (it was exit status 101: a new user's trial).
#[test]
fn a_piped_session_whose_reader_stops_ends_quietly() {
    use std::io::{BufRead, Write};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_wireplan"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "repl",
            "examples/blog/config/app.neon",
            "--catalog",
            "examples/blog/catalog.json",
        ])
        .env("XDG_DATA_HOME", "/nonexistent/xdg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        for _ in 0..5_000 {
            if stdin.write_all(b":services\n").is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("the first line");
    assert!(first.contains("phase B"), "{first}");
    // The reader is dropped here: the pipe is closed.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the session did not end"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    writer.join().expect("writer");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
