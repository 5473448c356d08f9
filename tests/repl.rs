//! The REPL's logic without a terminal: completion, multi-line detection, phase stepping,
//! `:compile`, `:reset`, `:run`, the "one truth" bugs (every view answers from the builder as
//! it is now), error rendering and the sandbox stopping a runaway input.

use std::path::{Path, PathBuf};
use wireplan::compiler::{Options, Stage};
use wireplan::repl::complete::{self, candidates, is_incomplete};
use wireplan::repl::{Reply, Session};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/blog/config/app.neon")
}

/// Options reading the blog example's generated catalog (`examples/blog/catalog.json`).
fn example_options() -> Options {
    Options {
        catalogs: vec![wireplan::catalog::CatalogInput::File(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/blog/catalog.json"),
        )],
        ..Options::default()
    }
}

fn session() -> Session {
    Session::open(&example(), example_options())
}

/// Evaluates `input` and returns the printed text.
fn ask(s: &mut Session, input: &str) -> String {
    match s.eval(input) {
        Reply::Text(t) => t,
        Reply::Quit => panic!("unexpected quit after {input:?}"),
    }
}

fn words(s: &Session, line: &str) -> Vec<String> {
    candidates(s, line, line.len()).words
}

#[test]
fn completion_offers_commands_services_types_tags_and_methods() {
    let s = session();
    assert_eq!(words(&s, ":sh"), vec![":show"]);
    assert_eq!(words(&s, ":re"), vec![":reload", ":reset"]);
    let c = candidates(&s, ":show ar", 8);
    assert_eq!((c.start, c.words), (6, vec!["articles".to_string()]));
    assert_eq!(words(&s, ":explain co"), vec!["comments"]);
    assert_eq!(words(&s, ":needed-by lo"), vec!["logger"]);
    assert_eq!(words(&s, ":deps bl"), vec!["blog"]);
    assert_eq!(words(&s, ":di"), vec![":diff"]);
    assert_eq!(words(&s, ":ne"), vec![":needed-by"]);
    assert_eq!(
        words(&s, ":type App\\Lo"),
        vec!["App\\LogNotifier", "App\\Logger"]
    );
    assert_eq!(words(&s, ":tag log"), vec!["logaware"]);
    assert_eq!(words(&s, ":params database"), vec!["database.dsn"]);
    assert_eq!(words(&s, ":phase "), vec!["A", "B", "C"]);
    assert!(candidates(&s, ":run exa", 8).path);
    // Inside a Rhai string: service names and (escaped) types.
    let line = r#"builder.getDefinition("ma"#;
    let c = candidates(&s, line, line.len());
    assert_eq!((c.start, c.words), (23, vec!["mailer".to_string()]));
    assert_eq!(
        words(&s, r#"builder.getByType("App\\Cl"#),
        vec![r"App\\Clock"]
    );
    assert_eq!(words(&s, r#"builder.findByTag(""#), vec!["logaware"]);
    // Methods come from the engine's registered functions.
    assert_eq!(words(&s, "builder.addDef"), vec!["addDefinition"]);
    assert_eq!(
        words(&s, r#"builder.getDefinition("db").setLif"#),
        vec!["setLifespan"]
    );
    assert!(words(&s, "builder.").contains(&"getByType".to_string()));
    assert!(!words(&s, "builder.").contains(&"setLifespan".to_string()));
    assert!(complete::definition_methods(s.engine()).contains(&"addSetup".to_string()));
    // Variables in scope.
    assert_eq!(words(&s, "bui"), vec!["builder"]);
}

#[test]
fn hints_show_the_rest_of_a_command_and_its_arguments() {
    assert_eq!(complete::hint(":sho").as_deref(), Some("w NAME"));
    assert_eq!(complete::hint(":show ").as_deref(), Some("NAME"));
    assert_eq!(complete::hint(":errors "), None);
    assert_eq!(complete::hint("builder"), None);
}

#[test]
fn multi_line_input_waits_for_closing_brackets_strings_and_comments() {
    assert!(is_incomplete("fn twice(x) {"));
    assert!(is_incomplete("builder.getDefinition(\"db\")\n  .addTag("));
    // A `"` string cannot span lines: Enter runs it and Rhai reports the open string
    // (issue #11), also inside brackets; `\` at the end continues it.
    assert!(!is_incomplete("let s = \"abc"));
    assert!(!is_incomplete("builder.getDefinition(\"db"));
    assert!(!is_incomplete("let c = '("));
    assert!(is_incomplete("let s = \"abc\\"));
    assert!(!is_incomplete("let s = \"abc\\\ndef\";"));
    assert!(is_incomplete("fn f() {\n  let s = \"a\\\n  b\";"));
    assert!(is_incomplete("let s = `multi\nline"));
    assert!(is_incomplete("/* note ("));
    assert!(is_incomplete("[1, 2,"));
    assert!(!is_incomplete("fn twice(x) {\n  x * 2\n}"));
    assert!(!is_incomplete("let s = \"a { ( [\";"));
    assert!(!is_incomplete("let c = '(';"));
    assert!(!is_incomplete("1 + 1 // (unclosed in a comment"));
    assert!(!is_incomplete(":show ("));
    assert!(!is_incomplete("x)"));
}

#[test]
fn phases_step_and_type_answers_say_when_they_are_not_reliable() {
    let mut s = Session::open_at(&example(), example_options(), Stage::A);
    assert_eq!(s.prompt(), "wireplan[A]> ");
    let a = ask(&mut s, ":type App\\Logger");
    assert!(
        a.starts_with("type App\\Logger\npreliminary (phase A)"),
        "{a}"
    );
    assert!(a.contains("getByType(App\\Logger) → logger\n"), "{a}");
    // Arguments are completed at the end of phase B: explain says so instead of guessing.
    let e = ask(&mut s, ":explain blog");
    assert!(
        e.ends_with("arguments: not known yet (completed at the end of phase B)"),
        "{e}"
    );
    let d = ask(&mut s, ":deps blog");
    assert!(d.contains("\npreliminary: "), "{d}");
    // blog autowires everything it needs: before phase B none of it is known, and the
    // answer does not claim there is nothing.
    assert!(
        d.ends_with("\n  it names no service (what it autowires is known after phase B)"),
        "{d}"
    );
    assert!(!d.contains("depends on no service"), "{d}");
    // beforeCompile() (the logaware extension) has not run: no setLogger setup yet.
    assert!(!ask(&mut s, ":show articles").contains("setLogger"));
    // The creator as the configuration writes it: a class without arguments bare
    // (`create: App\CommentRepository`), one with arguments as an entity.
    let c = ask(&mut s, ":show comments");
    assert!(c.contains("\n  create:    App\\CommentRepository\n"), "{c}");
    let a = ask(&mut s, ":show articles");
    assert!(
        a.contains("\n  create:    App\\ArticleRepository(perPage: 5)\n"),
        "{a}"
    );

    let b = ask(&mut s, ":phase B");
    assert!(b.contains("phase B, 9 services, 0 error(s)"), "{b}");
    let d = ask(&mut s, ":deps blog 1");
    assert!(d.contains("\n  articles "), "{d}");
    assert!(!d.contains("names no service"), "{d}");
    assert_eq!(s.prompt(), "wireplan[B]> ");
    let t = ask(&mut s, ":type App\\Logger");
    assert_eq!(
        t,
        "type App\\Logger\n\
         getByType(App\\Logger) → logger\n\
         providers (1):\n  \
         logger  App\\FileLogger  chosen: the only preferred autowired service\n\
         collections (App\\Logger[], typed()) receive: logger"
    );
    assert!(ask(&mut s, ":show articles").contains("@self::setLogger(@logger)"));

    ask(&mut s, ":phase C");
    assert_eq!(s.stage(), Stage::C);
    assert_eq!(
        ask(&mut s, ":phase D"),
        "usage: :phase A|B|C ('D' is not a phase)"
    );
}

#[test]
fn compile_writes_the_changed_builder_with_the_same_checks_as_the_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = session();
    // Unchanged, the session writes what `wireplan compile` writes.
    let same = dir.path().join("same.plan.json");
    assert!(ask(&mut s, &format!(":compile {}", same.display())).starts_with("wrote "));
    let plan = wireplan::compiler::compile(&example(), &example_options())
        .plan
        .expect("the example compiles");
    assert_eq!(
        std::fs::read_to_string(&same).expect("written"),
        wireplan::plan::to_json(&plan)
    );

    let r = ask(
        &mut s,
        r#"builder.addDefinition("extra").setFactory("App\\Clock").setAutowired(false)"#,
    );
    assert_eq!(r, "Definition(extra)");
    let out = dir.path().join("out.plan.json");
    let r = ask(&mut s, &format!(":compile {}", out.display()));
    assert_eq!(r, format!("wrote {} (10 services)", out.display()));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("json");
    assert_eq!(json["services"]["extra"]["type"], "App\\Clock");

    // An input file is never overwritten.
    let before = std::fs::read_to_string(example()).expect("read");
    let r = ask(&mut s, &format!(":compile {}", example().display()));
    assert!(
        r.contains("error[io-error]: Refusing to write the plan over"),
        "{r}"
    );
    assert_eq!(std::fs::read_to_string(example()).expect("read"), before);

    // `/dev/null`, to only check: the session's way to do that, not the command line's.
    #[cfg(unix)]
    {
        let r = ask(&mut s, ":compile /dev/null");
        assert!(
            r.contains("error[io-error]: Cannot write the plan to '/dev/null'"),
            "{r}"
        );
        assert!(
            r.contains("to check the configuration without writing a plan, use `:errors`"),
            "{r}"
        );
        assert!(!r.contains("wireplan check"), "{r}");
    }

    // With an error nothing is written.
    ask(&mut s, r#"builder.removeDefinition("db")"#);
    let broken = dir.path().join("broken.plan.json");
    let r = ask(&mut s, &format!(":compile {}", broken.display()));
    assert!(r.ends_with("error: 2 error(s); no plan written"), "{r}");
    assert!(!broken.exists());
}

/// `:compile` writes the plan of the files as the session read them; when one changed on disk
/// since, a note says so and how to read it again (a trial took the plan for its edit's).
#[test]
fn compile_notes_files_changed_since_they_were_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("app.neon");
    let text = "parameters:\n\tn: 5\ntypes:\n\tApp\\X: {}\nservices:\n\tx: App\\X\n";
    std::fs::write(&config, text).expect("write");
    let mut s = Session::open(&config, Options::default());
    let out = dir.path().join("a.plan.json");
    let r = ask(&mut s, &format!(":compile {}", out.display()));
    assert_eq!(r, format!("wrote {} (1 service)", out.display()));
    std::fs::write(&config, text.replace("n: 5", "n: 42")).expect("edit");
    let r = ask(&mut s, &format!(":compile {}", out.display()));
    assert_eq!(
        r,
        format!(
            "wrote {} (1 service)\nnote: {} changed on disk since this session read it; the plan is of the files as read (:reload reads them again)",
            out.display(),
            std::fs::canonicalize(&config).expect("there").display()
        )
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("json");
    assert_eq!(json["parameters"]["n"], 5, "{json}");
    ask(&mut s, ":reload");
    let r = ask(&mut s, &format!(":compile {}", out.display()));
    assert_eq!(r, format!("wrote {} (1 service)", out.display()));
}

#[test]
fn compile_from_phase_a_runs_before_compile_on_the_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = Session::open_at(&example(), example_options(), Stage::A);
    ask(
        &mut s,
        r#"builder.addDefinition("audit").setFactory("App\\CommentRepository").setAutowired(false).addTag("logaware")"#,
    );
    let out = dir.path().join("a.plan.json");
    assert!(ask(&mut s, &format!(":compile {}", out.display())).starts_with("wrote "));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("json");
    // The logaware extension's beforeCompile() saw the new service and gave it a logger.
    assert_eq!(
        json["services"]["audit"]["setup"][0]["$call"][1], "setLogger",
        "{json}"
    );
    // The session itself is still in phase A, unchanged by the compile.
    assert_eq!(s.stage(), Stage::A);
    assert!(!ask(&mut s, ":show audit").contains("setLogger"));
}

#[test]
fn reset_drops_changes_and_keeps_functions() {
    let mut s = session();
    assert_eq!(ask(&mut s, "fn twice(x) { x * 2 }"), "defined twice/1");
    ask(
        &mut s,
        r#"builder.addDefinition("extra").setFactory("App\\Clock")"#,
    );
    ask(&mut s, "let kept = 1;");
    assert_eq!(ask(&mut s, r#"builder.hasDefinition("extra")"#), "true");
    let r = ask(&mut s, ":reset");
    // Only the input that added a definition changed the builder.
    assert!(r.starts_with("changes dropped (1 input(s))"), "{r}");
    assert_eq!(ask(&mut s, r#"builder.hasDefinition("extra")"#), "false");
    assert_eq!(ask(&mut s, "twice(21)"), "42");
    assert!(ask(&mut s, "kept").contains("Variable not found: kept"));
}

#[test]
fn definitions_made_by_a_function_point_at_the_function() {
    let mut s = session();
    ask(&mut s, "1 + 1");
    let f = "fn add_clock(b, name) {\n  b.addDefinition(name).setFactory(\"App\\\\Clock\")\n}";
    assert_eq!(ask(&mut s, f), "defined add_clock/2");
    ask(&mut s, "add_clock(builder, \"clock2\").setAutowired(false)");
    // Line 3 of the session: the function's body, not the line that called it.
    assert!(
        ask(&mut s, ":show clock2").contains("defined:   <session>:3:5"),
        "{}",
        ask(&mut s, ":show clock2")
    );
}

#[test]
fn run_executes_a_script_against_the_builder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("try.rhai");
    std::fs::write(
        &script,
        "fn label(n) { \"svc-\" + n }\n\
         for name in builder.findByTag(\"logaware\").keys() {\n\
         \tbuilder.getDefinition(name).addTag(\"audited\");\n\
         }\n\
         builder.addDefinition(\"ran\").setFactory(\"App\\\\Clock\").setAutowired(false);\n",
    )
    .expect("write");
    let mut s = session();
    let r = ask(&mut s, &format!(":run {}", script.display()));
    assert_eq!(r, "Definition(ran)");
    assert_eq!(
        ask(&mut s, ":tag audited"),
        "articles: true\ncomments: true"
    );
    // Where the script put it, as errors name it (a new user's trial saw only `<session>`).
    let shown = ask(&mut s, ":show ran");
    assert!(
        shown.ends_with(&format!("(in {}:5:9, which :run read)", script.display())),
        "{shown}"
    );
    assert_eq!(ask(&mut s, "label(\"x\")"), "svc-x");
    // An extension's file defines its lifecycle functions, which need `this`: said how to run
    // them (fifth new user's trial).
    let ext = dir.path().join("ext.rhai");
    std::fs::write(
        &ext,
        "fn beforeCompile() {\n\tthis.getContainerBuilder();\n}\n",
    )
    .expect("write");
    let r = ask(&mut s, &format!(":run {}", ext.display()));
    assert!(r.starts_with("defined beforeCompile/0\nnote: these are an extension's lifecycle functions, which need `this`"), "{r}");
    // Saved with a byte order mark and CRLF line ends, as some Windows editors save.
    let bom = dir.path().join("bom.rhai");
    std::fs::write(
        &bom,
        "\u{feff}// a Windows editor's file\r\nbuilder.getDefinition(\"ran\").addTag(\"bom\");\r\n",
    )
    .expect("write");
    let r = ask(&mut s, &format!(":run {}", bom.display()));
    assert_eq!(r, "Definition(ran)");
    assert_eq!(ask(&mut s, ":tag bom"), "ran: true");
    let missing = ask(&mut s, ":run nope.rhai");
    assert!(missing.starts_with("error[file-not-found]: Cannot read 'nope.rhai'"));
    // A configuration is no script: said before Rhai reads its first line (new user's trial).
    let config = ask(&mut s, ":run config/app.neon");
    assert!(
        config.starts_with(
            "error[usage]: :run runs a Rhai script; 'config/app.neon' is a NEON configuration."
        ) && config.contains("start the REPL with it (`wireplan repl CONFIG`)"),
        "{config}"
    );
    // A pattern with brackets says how patterns are read.
    assert_eq!(
        ask(&mut s, ":services [a-z]*"),
        "no service matches '[a-z]*' (a pattern knows * and ? only; [ ] is taken as written)"
    );
    // An error inside a script also names the script's file and line.
    let failing = dir.path().join("fail.rhai");
    std::fs::write(&failing, "let a = 1;\nbuilder.getDefinition(\"nope\");\n").expect("write");
    let r = ask(&mut s, &format!(":run {}", failing.display()));
    assert!(r.contains("error[missing-service]"), "{r}");
    assert!(
        r.contains(&format!("= in {}:2:9, which :run read", failing.display())),
        "{r}"
    );
    // A script that ends inside a statement: the error is at the end of its last line, and
    // names the file there (it pointed at an empty `<session>` line: a new user's trial).
    let open = dir.path().join("open.rhai");
    std::fs::write(&open, "let a = 1;\nlet x = [1, 2\n").expect("write");
    let r = ask(&mut s, &format!(":run {}", open.display()));
    assert!(
        r.starts_with("error[script-error]: syntax error: Expecting ']'"),
        "{r}"
    );
    assert!(
        r.contains("│ let x = [1, 2\n"),
        "the script's last line is shown: {r}"
    );
    assert!(
        r.contains(&format!(
            "= at the end of {}:2:14, which :run read: the script ends inside a statement",
            open.display()
        )),
        "{r}"
    );
    // The session goes on, and a later input's errors are its own.
    let later = ask(&mut s, "let y = ;");
    assert!(
        later.contains("Unexpected ';'") && !later.contains(":run read"),
        "{later}"
    );
}

/// `setAutowired(true)` on a second candidate: `:type` and `builder.getByType` agree.
#[test]
fn one_truth_type_follows_autowiring_changes() {
    let mut s = session();
    ask(
        &mut s,
        r#"builder.addDefinition("log2").setFactory("App\\FileLogger", ["/tmp/x.log"]).setAutowired(false)"#,
    );
    let t = ask(&mut s, ":type App\\Logger");
    assert!(t.contains("getByType(App\\Logger) → logger\n"), "{t}");
    assert!(
        t.contains("log2    App\\FileLogger  not chosen: autowired: false"),
        "{t}"
    );
    ask(
        &mut s,
        r#"builder.getDefinition("log2").setAutowired(true)"#,
    );
    let t = ask(&mut s, ":type App\\Logger");
    assert!(
        t.contains("getByType(App\\Logger) → error ambiguous-service: log2, logger"),
        "{t}"
    );
    assert!(t.contains("log2    App\\FileLogger  ambiguous: "), "{t}");
    let g = ask(&mut s, r#"builder.getByType("App\\Logger")"#);
    assert!(g.contains("error[ambiguous-service]"), "{g}");
    // The same names in the same order as the error.
    assert!(g.contains("found: log2, logger"), "{g}");
    // Only log2 autowired: both answer log2.
    ask(
        &mut s,
        r#"builder.getDefinition("logger").setAutowired(false)"#,
    );
    let t = ask(&mut s, ":type App\\Logger");
    assert!(t.contains("getByType(App\\Logger) → log2\n"), "{t}");
    let g = ask(&mut s, r#"builder.getByType("App\\Logger")"#);
    assert!(g.contains("log2"), "{g}");
}

/// `:show` reflects a changed lifespan and an added tag.
#[test]
fn one_truth_show_follows_definition_changes() {
    let mut s = session();
    assert!(ask(&mut s, ":show db").contains("lifespan:  singleton"));
    ask(
        &mut s,
        r#"builder.getDefinition("db").setLifespan("transient").addTag("audited")"#,
    );
    let shown = ask(&mut s, ":show db");
    assert!(shown.contains("lifespan:  transient"), "{shown}");
    assert!(shown.contains("tags:      [audited]"), "{shown}");
    assert!(ask(&mut s, ":services db").contains("[transient]"));
}

/// A cycle made at the prompt is labelled where the prompt made it, not only at the
/// configuration's definition (found by a new user's trial).
#[test]
fn a_cycle_made_at_the_prompt_is_labelled_there() {
    let mut s = session();
    ask(
        &mut s,
        r#"builder.getDefinition("db").setArguments(["@articles"])"#,
    );
    let e = ask(&mut s, ":errors");
    assert!(
        e.contains(
            "error[circular-reference]: Circular reference detected for services: db, articles."
        ),
        "{e}"
    );
    let cycle = &e[e.find("error[circular-reference]").expect("the cycle")..];
    assert!(cycle.contains("┌─ <session>:"), "{cycle}");
    assert!(cycle.contains("- 'db' needs 'articles' here"), "{cycle}");
}

/// After `removeDefinition("db")`, `:errors` says who needs it.
#[test]
fn one_truth_errors_follow_a_removed_service() {
    let mut s = session();
    assert_eq!(ask(&mut s, ":errors"), "no errors");
    ask(&mut s, r#"builder.removeDefinition("db")"#);
    let e = ask(&mut s, ":errors");
    assert!(
        e.contains("error[missing-service]: Service 'articles'"),
        "{e}"
    );
    assert!(e.contains("App\\Database required by $db"), "{e}");
    // The removal is shown where it happened (Nette's "Did you add it…?" alone pointed the
    // other way).
    assert!(
        e.contains("- service 'db' of type App\\Database was removed"),
        "{e}"
    );
    assert!(e.ends_with("2 error(s), 0 warning(s)"), "{e}");
    // Removed at the prompt, not by the configuration.
    let n = ask(&mut s, ":needed-by db");
    assert!(
        n.starts_with("service db was removed in this REPL session at <session>:"),
        "{n}"
    );
}

/// A service added at the prompt shows its type, and `:errors` agrees with what is shown.
#[test]
fn one_truth_new_services_are_resolved_and_errors_agree() {
    let mut s = session();
    ask(
        &mut s,
        r#"builder.addDefinition("extra").setFactory("App\\Clock").setAutowired(false)"#,
    );
    assert!(ask(&mut s, ":services extra").contains("extra  App\\Clock"));
    assert!(ask(&mut s, ":show extra").contains("type:      App\\Clock"));
    assert_eq!(ask(&mut s, ":errors"), "no errors");
    // A service that cannot be resolved is shown so, and :errors says why.
    ask(
        &mut s,
        r#"builder.addDefinition("bad").setFactory("App\\Nope")"#,
    );
    assert!(ask(&mut s, ":services bad").contains("(type not resolved)"));
    // `:explain` says where it was defined and why its arguments are not known (it said "in
    // the configuration" and "completed at the end of phase B"; fourth new user's trial).
    let x = ask(&mut s, ":explain bad");
    assert!(
        x.contains("defined    at the REPL's prompt at <session>:"),
        "{x}"
    );
    assert!(
        x.contains("arguments: not known (the type is not resolved, so its statements cannot be completed: see the errors)"),
        "{x}"
    );
    let e = ask(&mut s, ":errors");
    assert!(e.contains("App\\Nope"), "{e}");
    assert!(e.contains("error["), "{e}");
}

#[test]
fn errors_render_as_check_prints_them_and_the_session_goes_on() {
    let mut s = session();
    let e = ask(&mut s, r#"builder.getDefinition("dbx")"#);
    assert!(
        e.starts_with("error[missing-service]: Service 'dbx' not found."),
        "{e}"
    );
    assert!(e.contains("┌─ <session>:1:9"), "{e}");
    assert!(e.contains("did you mean 'db'?"), "{e}");
    let e = ask(&mut s, "let x = (1 +;");
    assert!(e.starts_with("error[script-error]: syntax error"), "{e}");
    assert!(e.contains("┌─ <session>:2:"), "{e}");
    assert!(ask(&mut s, ":show dbx").contains("did you mean 'db'?"));
    assert!(ask(&mut s, ":type App\\Logr").contains("did you mean 'App\\Logger'?"));
    assert_eq!(
        ask(&mut s, ":servces"),
        "unknown command :servces; did you mean :services? (:help lists them)"
    );
    // The start of a command names it (`:sh` had no suggestion), or the ones it starts.
    assert_eq!(
        ask(&mut s, ":sh"),
        "unknown command :sh; did you mean :show? (:help lists them)"
    );
    assert_eq!(
        ask(&mut s, ":re"),
        "unknown command :re; did you mean one of :reset, :reload? (:help lists them)"
    );
    assert!(ask(&mut s, ":help type").starts_with(":type TYPE\n"));
    assert_eq!(ask(&mut s, "1 + 1"), "2");
}

#[test]
fn a_runaway_input_is_stopped_by_the_sandbox() {
    let mut options = example_options();
    options.limits.max_operations = 200_000;
    let mut s = Session::open(&example(), options);
    let r = ask(&mut s, "loop {}");
    assert!(
        r.starts_with("error[script-error]: Stopped: the input ran more than 200000 operations"),
        "{r}"
    );
    // It names the setting that raises the limit.
    assert!(
        r.contains(
            "raise it with `wireplan: sandbox: maxOperations:` in the configuration, then :reload"
        ),
        "{r}"
    );
    assert_eq!(ask(&mut s, "40 + 2"), "42");
}

#[test]
fn values_print_readably() {
    let mut s = session();
    assert_eq!(
        ask(&mut s, r#"builder.getDefinition("db").getFactory()"#),
        "App\\Database('sqlite::memory:')"
    );
    assert_eq!(
        ask(&mut s, r#"builder.findByTag("logaware")"#),
        "{articles: true, comments: true}"
    );
    assert_eq!(ask(&mut s, r#"[1, "a", ()]"#), r#"[1, "a", ()]"#);
    assert_eq!(ask(&mut s, "params.database.dsn"), "sqlite::memory:");
    assert_eq!(ask(&mut s, "config.logging.tag"), "logaware");
}

#[test]
fn dynamic_parameters_never_show_their_value() {
    let options = Options {
        dynamic: vec!["logDir".into()],
        ..example_options()
    };
    let mut s = Session::open(&example(), options);
    let p = ask(&mut s, ":params");
    assert!(p.contains("logDir: (dynamic)"), "{p}");
    assert!(!p.contains("/var/log"), "{p}");
    assert_eq!(
        ask(&mut s, ":params dsn"),
        "database.dsn: 'sqlite::memory:'"
    );
    assert_eq!(ask(&mut s, ":params nope"), "no parameter matches 'nope'");
}

#[test]
fn quit_and_the_baseline_plan() {
    let mut s = session();
    ask(&mut s, r#"builder.removeDefinition("blog")"#);
    let base = s.baseline_plan().expect("the example compiles");
    assert!(base.services.contains_key("blog"));
    let now = s.finish();
    assert!(!now
        .plan
        .expect("still compiles")
        .services
        .contains_key("blog"));
    assert_eq!(s.eval(":quit"), Reply::Quit);
}

/// `:explain` prints exactly what `wireplan explain CONFIG NAME` prints, and answers from the
/// builder as it is now: after autowiring changes at the prompt, the argument's origin follows.
#[test]
fn explain_names_where_each_argument_came_from() {
    let mut s = session();
    let e = ask(&mut s, ":explain blog");
    let (compilation, mut built) = wireplan::compiler::build(&example(), &example_options());
    let cli = wireplan::inspect::explain_service(&mut built.builder, &compilation.sources, "blog")
        .expect("blog is explained")
        .to_string();
    assert_eq!(e, cli.trim_end());
    assert!(
        e.contains(
            "  $articles   App\\ArticleRepository = @articles\n              \
             autowired: getByType(App\\ArticleRepository) → articles; chosen: the only \
             preferred autowired service"
        ),
        "{e}"
    );
    // Another repository takes over autowiring: the completed copy says so (the live builder's
    // recorded origins would still name `articles`).
    ask(
        &mut s,
        r#"builder.getDefinition("articles").setAutowired(false)"#,
    );
    ask(
        &mut s,
        r#"builder.addDefinition("articles2").setFactory("App\\ArticleRepository")"#,
    );
    let e = ask(&mut s, ":explain blog");
    assert!(
        e.contains("$articles   App\\ArticleRepository = @articles2\n"),
        "{e}"
    );
    assert!(
        e.contains("also of this type:\n                articles (not chosen: autowired: false)"),
        "{e}"
    );
    assert!(
        ask(&mut s, ":explain blgo").contains("did you mean 'blog'?"),
        "unknown service"
    );
    assert_eq!(ask(&mut s, ":explain"), "usage: :explain NAME");
}

/// `:deps` and `:needed-by` list the edges of the builder as it is now.
#[test]
fn deps_and_needed_by_follow_the_builder() {
    let mut s = session();
    assert_eq!(
        ask(&mut s, ":deps blog 1"),
        "dependencies of blog (up to 1 level):\n  \
         articles  constructor  direct\n  \
         comments  constructor  direct\n  \
         01        collection   direct\n  \
         02        collection   direct\n  \
         clock     constructor  direct"
    );
    let n = ask(&mut s, ":needed-by logger");
    assert!(
        n.starts_with("needed by logger (directly and transitively):\n"),
        "{n}"
    );
    assert!(n.contains("  mailer    constructor  direct\n"), "{n}");
    assert!(
        n.contains("  blog      constructor  via blog -> articles -> logger\n"),
        "{n}"
    );
    assert!(
        n.ends_with("extension logging in beforeCompile() (phase B): changed articles, comments"),
        "{n}"
    );
    assert!(!n.contains("mailer2"), "{n}");
    ask(
        &mut s,
        r#"builder.addDefinition("mailer2").setFactory("App\\Mailer").setAutowired(false)"#,
    );
    let n = ask(&mut s, ":needed-by logger");
    assert!(n.contains("  mailer2   constructor  direct\n"), "{n}");
    assert_eq!(
        ask(&mut s, ":deps mailer2"),
        "dependencies of mailer2 (directly and transitively):\n  logger  constructor  direct"
    );
    // A depth past every graph's is all levels, as none.
    assert_eq!(
        ask(&mut s, ":deps blog 99999999999999999999"),
        ask(&mut s, ":deps blog")
    );
    assert_eq!(
        ask(&mut s, ":deps blog x"),
        "usage: :deps NAME [DEPTH] ('x' is not a number of levels)"
    );
    // As `explain --depth 0`: refused, not answered with nothing.
    assert_eq!(
        ask(&mut s, ":deps blog 0"),
        "usage: :deps NAME [DEPTH] (the depth is at least 1, the direct dependencies)"
    );
}

/// `:diff` compares the plan without the session's changes with the plan of the builder now.
#[test]
fn diff_lists_what_the_session_changed() {
    let mut s = session();
    assert_eq!(ask(&mut s, ":diff"), "no changes");
    ask(
        &mut s,
        r#"builder.addDefinition("extra").setFactory("App\\Clock").setAutowired(false)"#,
    );
    let d = ask(&mut s, ":diff");
    assert!(
        d.starts_with("services added (1):\n  + extra (App\\Clock)"),
        "{d}"
    );
    let base = s.baseline_plan().expect("the example compiles");
    let now = s.finish().plan.expect("still compiles");
    assert_eq!(
        d,
        wireplan::inspect::diff::diff_plans(&base, &now)
            .to_text()
            .trim_end()
    );
    ask(&mut s, ":reset");
    assert_eq!(ask(&mut s, ":diff"), "no changes");
    assert_eq!(
        ask(&mut s, ":diff x"),
        "usage: :diff (it takes no argument)"
    );
    // A change that breaks the compilation: its errors, no diff.
    ask(&mut s, r#"builder.removeDefinition("db")"#);
    let d = ask(&mut s, ":diff");
    assert!(d.contains("error[missing-service]"), "{d}");
    assert!(
        d.ends_with("no diff: the builder as it is now does not compile (2 error(s))"),
        "{d}"
    );
}

/// In phase A `:diff` carries the changes through beforeCompile(), as `:compile` does.
#[test]
fn diff_from_phase_a_includes_before_compile() {
    let mut s = Session::open_at(&example(), example_options(), Stage::A);
    assert_eq!(ask(&mut s, ":diff"), "no changes");
    ask(
        &mut s,
        r#"builder.getDefinition("db").setLifespan("transient")"#,
    );
    let d = ask(&mut s, ":diff");
    assert!(d.contains("service db:"), "{d}");
    assert!(d.contains("transient"), "{d}");
}

/// Issue #11: a value nested 2,000 levels deep overflowed the stack and aborted the REPL.
/// Collections print 32 levels deep, 100 items each and 2,000 items in all.
#[test]
fn deep_and_wide_values_print_bounded() {
    use wireplan::repl::display::{MAX_DISPLAY_DEPTH, MAX_DISPLAY_ITEMS};
    let mut s = session();
    let open = MAX_DISPLAY_DEPTH + 1;
    let deep = ask(&mut s, "let v = 1; for i in 0..2000 { v = [v]; } v");
    assert_eq!(deep, format!("{}…{}", "[".repeat(open), "]".repeat(open)));
    // Exactly as deep as shown: the innermost value prints.
    let shallow = ask(&mut s, "let v = 1; for i in 0..32 { v = [v]; } v");
    assert_eq!(shallow, format!("{}1{}", "[".repeat(32), "]".repeat(32)));
    let map = ask(&mut s, "let m = #{}; for i in 0..200 { m = #{a: m}; } m");
    assert_eq!(
        map,
        format!(
            "{}#{{…}}{}",
            "#{a: ".repeat(MAX_DISPLAY_DEPTH),
            "}".repeat(MAX_DISPLAY_DEPTH)
        )
    );
    let wide = ask(&mut s, "let w = []; for i in 0..300 { w.push(i); } w");
    assert!(wide.starts_with("[0, 1, 2, "), "{wide}");
    assert!(
        wide.ends_with(&format!(", {}, … 200 more]", MAX_DISPLAY_ITEMS - 1)),
        "{wide}"
    );
    // 100 lists of 100: 19 lists print whole, the 20th in part, 80 are counted.
    let grid = ask(
        &mut s,
        "let g = []; for i in 0..100 { let r = []; for j in 0..100 { r.push(j); } g.push(r); } g",
    );
    assert!(grid.ends_with(", 79, … 20 more], … 80 more]"), "{grid}");
    assert_eq!(grid.matches('[').count(), 21);
    // A thrown value prints the same way, not through Rhai's own (unbounded) `to_string`.
    let thrown = ask(&mut s, "let v = 1; for i in 0..2000 { v = [v]; } throw v");
    assert!(
        thrown.starts_with(&format!(
            "error[script-error]: Runtime error: {}…{}",
            "[".repeat(open),
            "]".repeat(open)
        )),
        "{thrown}"
    );
    assert_eq!(ask(&mut s, "[[], #{}]"), "[[], #{}]");
    assert_eq!(ask(&mut s, "40 + 2"), "42");
}

/// Issue #11: Ctrl-C while an input ran killed the REPL. The terminal's handler sets the
/// session's interrupt flag; here another thread sets it, as the handler's thread would.
#[test]
fn setting_the_interrupt_flag_stops_the_input_and_the_session_goes_on() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let mut options = example_options();
    options.limits.time_limit = std::time::Duration::from_secs(120);
    options.limits.max_operations = 0; // unlimited: only the flag can stop `loop`
    let mut s = Session::open(&example(), options);
    let flag = s.interrupt_flag();
    let done = Arc::new(AtomicBool::new(false));
    let setter = {
        let (flag, done) = (flag.clone(), done.clone());
        std::thread::spawn(move || {
            // Keeps setting it until the input returns (the first set may come before the
            // input starts, which clears the flag).
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while !done.load(Ordering::Relaxed) && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(50));
                flag.store(true, Ordering::Relaxed);
            }
        })
    };
    let started = std::time::Instant::now();
    let r = ask(
        &mut s,
        "builder.addDefinition(\"half\").setFactory(\"App\\\\Clock\");\nloop { builder.findByType(\"App\\\\Logger\"); }",
    );
    done.store(true, Ordering::Relaxed);
    setter.join().expect("setter thread");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "hang guard"
    );
    assert_eq!(
        r,
        "interrupted (Ctrl-C): the input stopped; the changes it made so far stay (:reset drops them)"
    );
    assert_eq!(ask(&mut s, "40 + 2"), "42");
    assert_eq!(ask(&mut s, "builder.hasDefinition(\"half\")"), "true");
    // A flag set while nothing runs stops nothing later.
    flag.store(true, Ordering::Relaxed);
    assert_eq!(
        ask(&mut s, "let n = 0; for i in 0..1000 { n += i; } n"),
        "499500"
    );
}

/// Issue #11: the prompt's input gets the sandbox's wall-clock limit, as an extension's call.
#[test]
fn a_slow_input_is_stopped_by_the_time_limit() {
    let mut options = example_options();
    options.limits.time_limit = std::time::Duration::from_millis(300);
    options.limits.max_operations = 0;
    let mut s = Session::open(&example(), options);
    let started = std::time::Instant::now();
    let r = ask(&mut s, "loop { builder.findByType(\"App\\\\Logger\"); }");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "hang guard"
    );
    assert!(
        r.starts_with(
            "error[script-error]: Stopped: the script ran longer than the sandbox's time limit \
             (0.3 s); the session goes on."
        ),
        "{r}"
    );
    assert!(
        r.contains("raise it with `wireplan: sandbox: timeLimit:`"),
        "{r}"
    );
    assert_eq!(ask(&mut s, "40 + 2"), "42");
}

/// The prompt runs under the project's `wireplan: sandbox:` limits, as its extensions do: the
/// time limit the message says to raise is the one in force.
#[test]
fn the_project_sandbox_settings_apply_at_the_prompt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "wireplan:\n\tsandbox:\n\t\ttimeLimit: 0.2\n\t\tmaxOperations: 4000000000\n\
         types:\n\tApp\\Clock:\nservices:\n\tclock: App\\Clock\n",
    )
    .expect("write");
    let mut s = Session::open(&config, Options::default());
    assert_eq!(ask(&mut s, ":errors"), "no errors");
    let r = ask(&mut s, "loop {}");
    assert!(
        r.starts_with(
            "error[script-error]: Stopped: the script ran longer than the sandbox's time limit \
             (0.2 s); the session goes on."
        ),
        "{r}"
    );
    // After :reload too.
    assert!(ask(&mut s, ":reload").contains("0 error(s)"));
    assert!(ask(&mut s, "loop {}").contains("(0.2 s)"));
}

/// Issue #11: `:phase` said the changes of a failed input were dropped.
#[test]
fn only_inputs_that_changed_the_builder_count_as_dropped_changes() {
    let mut s = session();
    assert!(ask(&mut s, "builder.nope()").starts_with("error[script-error]"));
    ask(&mut s, "builder.findByType(\"App\\\\Logger\")");
    ask(&mut s, "let x = 1;");
    let r = ask(&mut s, ":phase C");
    assert_eq!(
        r,
        format!(
            "{}: phase C, 9 services, 0 error(s), 0 warning(s)",
            example().display()
        )
    );
    ask(&mut s, "builder.getDefinition(\"db\").setLazy(true)");
    // Fails after changing the builder: it counts.
    ask(
        &mut s,
        "builder.removeDefinition(\"mailer\"); throw \"stop\"",
    );
    let r = ask(&mut s, ":phase B");
    assert!(
        r.ends_with(
            "\nthe changes of 2 input(s) were dropped (the phases ran again from the files)"
        ),
        "{r}"
    );
    assert!(ask(&mut s, ":reset").starts_with("changes dropped (0 input(s))"));
    // `:reload` says so too (it said nothing).
    ask(&mut s, "builder.getDefinition(\"db\").setLazy(true)");
    let r = ask(&mut s, ":reload");
    assert!(
        r.ends_with(
            "\nthe changes of 1 input(s) were dropped (the phases ran again from the files)"
        ),
        "{r}"
    );
    assert!(!ask(&mut s, ":reload").contains("dropped"));
}

/// Issue #11: an open `"` string runs (it cannot span lines) and Rhai reports it.
#[test]
fn an_unterminated_string_is_reported_by_rhai() {
    let mut s = session();
    let r = ask(&mut s, "let s = \"abc");
    assert!(r.starts_with("error[script-error]: syntax error: "), "{r}");
    assert!(r.to_lowercase().contains("string"), "{r}");
}

/// Issue #11: `:run` of a file that is not UTF-8 said `file-not-found`.
#[test]
fn run_reports_invalid_utf8_at_its_byte_and_a_missing_file_as_not_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("badutf.rhai");
    std::fs::write(&bad, b"let a = 1;\nlet b = \"\xff\xfe\";\n").expect("write");
    let mut s = session();
    let r = ask(&mut s, &format!(":run {}", bad.display()));
    assert!(
        r.starts_with(&format!(
            "error[script-error]: '{}' is not valid UTF-8: invalid byte sequence at byte 20.",
            bad.display()
        )),
        "{r}"
    );
    assert!(r.contains(&format!("{}:2:10", bad.display())), "{r}");
    assert!(r.contains("not UTF-8"), "{r}");
    let missing = dir.path().join("missing.rhai");
    let r = ask(&mut s, &format!(":run {}", missing.display()));
    assert!(
        r.starts_with(&format!(
            "error[file-not-found]: Cannot read '{}': No such file",
            missing.display()
        )),
        "{r}"
    );
    assert_eq!(ask(&mut s, "40 + 2"), "42");
}

/// Issue #11: docs/repl.md's `:compile` worked only where `/tmp/h3doc` existed, and
/// docs/tools.md quoted half of the phase A note. The docs quote what the REPL prints, and
/// the `:compile` path works from the repository root.
#[test]
fn the_docs_quote_the_phase_a_note_and_a_compile_path_that_works() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut s = Session::open_at(&example(), example_options(), Stage::A);
    let answer = ask(&mut s, ":type App\\Logger");
    let note = answer
        .lines()
        .find(|l| l.starts_with("preliminary (phase A)"))
        .unwrap_or_else(|| panic!("no phase A note in {answer}"));
    for doc in ["docs/repl.md", "docs/tools.md"] {
        let text = std::fs::read_to_string(root.join(doc)).expect("doc");
        let quoted: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("preliminary (phase A)"))
            .collect();
        assert!(!quoted.is_empty(), "{doc} quotes no phase A note");
        for q in quoted {
            assert_eq!(q.trim().trim_matches('"'), note, "{doc}");
        }
    }
    let repl_md = std::fs::read_to_string(root.join("docs/repl.md")).expect("docs/repl.md");
    let paths: Vec<&str> = repl_md
        .lines()
        .filter_map(|l| l.strip_prefix("wireplan[B]> :compile "))
        .collect();
    assert!(!paths.is_empty(), "docs/repl.md shows no :compile");
    for p in paths {
        let path = Path::new(p);
        assert!(path.is_relative(), "{p}: not from the repository root");
        let dir = path.parent().expect("a file name");
        // `target/` is where any cargo build from the root writes.
        assert!(
            dir == Path::new("target") || root.join(dir).is_dir(),
            "{p}: the folder does not exist"
        );
    }
}

/// H13: with a broken include the session started with "phase B, 2 services, 3 error(s)" and
/// nothing else, while docs/repl.md says configuration errors are printed as `wireplan check`
/// prints them. The start, `:phase` and `:reload` print the diagnostics, then the summary.
#[test]
fn the_start_phase_and_reload_print_the_configuration_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let app = dir.path().join("app.neon");
    std::fs::write(
        dir.path().join("types.neon"),
        "types:\n\tApp\\Clock:\n\tApp\\Main:\n\t\tconstructor:\n\t\t\tclock: App\\Clock\n",
    )
    .expect("write");
    let broken = "includes:\n\t- typo.neon\n\nservices:\n\t- App\\Clock\n\tmain: App\\Main\n";
    std::fs::write(&app, broken).expect("write");
    let mut s = Session::open(&app, Options::default());
    let missing = format!(
        "error[file-not-found]: File '{}' is missing or is not readable.",
        dir.path().join("typo.neon").display()
    );
    let summary = format!(
        "{}: not loaded, 0 services, 1 error(s), 0 warning(s); the configuration did not load, so no phase ran",
        app.display()
    );
    let status = s.status();
    assert!(status.starts_with(&missing), "{status}");
    // The prompt shows no phase either (second new user's trial: it said [B]).
    assert_eq!(s.prompt(), "wireplan[-]> ");
    assert!(status.contains("2 │     - typo.neon\n"), "{status}");
    assert!(status.contains("= did you mean 'types.neon'?"), "{status}");
    assert!(status.ends_with(&format!("\n{summary}")), "{status}");
    // Only the independent error: no follow-up `class-not-found` for App\Clock or App\Main.
    assert_eq!(status.matches("error[").count(), 1, "{status}");
    // A lookup by type on the empty builder says why it sees nothing, not "in phase A" (a new
    // user's trial: no phase had run).
    let lookup = ask(&mut s, r#"builder.getByType("App\\Clock")"#);
    assert!(
        lookup.contains(
            "warning[partial-graph]: getByType('App\\Clock') sees no service: the builder holds \
             none (when the configuration did not load, no phase has run; fix its errors and \
             :reload)."
        ) && !lookup.contains("phase A"),
        "{lookup}"
    );
    let phase_a = ask(&mut s, ":phase A");
    assert!(phase_a.starts_with(&missing), "{phase_a}");
    assert!(
        phase_a.ends_with(&summary.replace("phase B", "phase A")),
        "{phase_a}"
    );
    // Fixed on disk, `:reload` reads the files again: nothing but the summary.
    std::fs::write(&app, broken.replace("typo.neon", "types.neon")).expect("write");
    assert_eq!(
        ask(&mut s, ":reload"),
        format!(
            "{}: phase A, 2 services, 0 error(s), 0 warning(s)",
            app.display()
        )
    );
    assert_eq!(s.prompt(), "wireplan[A]> ");
}

/// H13: docs/tools.md said the graph is "preliminary" in the REPL's `:phase A`, but the REPL
/// has no graph command. What it does have: `:deps` and `:needed-by` in phase A print the
/// graph's preliminary note, which docs/tools.md now quotes exactly; in phase B they do not.
#[test]
fn tools_md_quotes_the_preliminary_note_of_deps_in_phase_a() {
    let mut s = session();
    let in_b = ask(&mut s, ":deps blog");
    assert!(!in_b.contains("preliminary"), "{in_b}");
    ask(&mut s, ":phase A");
    let in_a = ask(&mut s, ":deps blog");
    let note = in_a
        .lines()
        .find(|l| l.starts_with("preliminary: "))
        .unwrap_or_else(|| panic!("no preliminary note in phase A: {in_a}"));
    let needed = ask(&mut s, ":needed-by db");
    assert!(needed.lines().any(|l| l == note), "{needed}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tools = std::fs::read_to_string(root.join("docs/tools.md")).expect("docs/tools.md");
    let tools = tools.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        tools.contains(&format!("\"{note}\"")),
        "docs/tools.md does not quote: {note}"
    );
    assert!(tools.contains("The REPL has no graph command"));
}

/// H13: docs/repl.md's transcript hard-wrapped the notes of `:errors` mid-word ("scope\nd").
/// Its `:errors` block is the real answer for the input before it (lines compared without
/// trailing blanks, which editors strip).
#[test]
fn repl_md_quotes_the_real_errors_answer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/repl.md")).expect("docs/repl.md");
    let input = r#"builder.getDefinition("db").setLifespan("scoped")"#;
    assert!(
        doc.contains(&format!("wireplan[B]> {input}\n")),
        "the input is quoted"
    );
    let (_, rest) = doc
        .split_once("wireplan[B]> :errors\n")
        .expect("the transcript shows :errors");
    let (quoted, _) = rest.split_once("wireplan[B]> ").expect("a prompt follows");
    let mut s = session();
    ask(&mut s, input);
    // The transcript was recorded from the repository root; the session here has the
    // example's absolute path.
    let real = ask(&mut s, ":errors").replace(&format!("{}/", root.display()), "");
    let trim = |t: &str| t.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
    assert_eq!(trim(quoted), trim(&real));
}

/// A handle passed where a configuration value belongs is named as scripts know it
/// (`ContainerBuilder`), not by wireplan's Rust module path.
#[test]
fn a_handle_used_as_a_value_is_named_by_its_script_type() {
    let mut s = session();
    let out = ask(
        &mut s,
        r#"builder.getDefinition("articles").addSetup("setX", [builder])"#,
    );
    assert!(
        out.contains("addSetup: a ContainerBuilder cannot be used as a value here"),
        "{out}"
    );
    assert!(!out.contains("wireplan::"), "{out}");
    let out = ask(
        &mut s,
        r#"builder.getDefinition("articles").addSetup("setX", [|x| x])"#,
    );
    assert!(
        out.contains("addSetup: a Fn cannot be used as a value here"),
        "{out}"
    );
}

/// The REPL's answers show a class name's control characters escaped, as `show` does.
#[test]
fn answers_show_control_characters_in_names_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "types:\n\t\"App\\\\Ev\\u001b[31mil\":\nservices:\n\tx: \"App\\\\Ev\\u001b[31mil\"\n",
    )
    .expect("write config");
    let mut s = Session::open(&config, Options::default());
    for input in [
        ":show x",
        ":services",
        r#"builder.getDefinition("x").getType()"#,
    ] {
        let out = ask(&mut s, input);
        assert!(!out.contains('\u{1b}'), "{input}: {out:?}");
        assert!(out.contains(r"App\Ev\u{1b}[31mil"), "{input}: {out}");
    }
}

/// A lookup by type at the prompt in phase A warns about phase A, without claiming it ran in
/// an extension's loadConfiguration().
#[test]
fn a_lookup_by_type_at_the_prompt_in_phase_a_warns_about_the_phase() {
    let mut s = session();
    ask(&mut s, ":phase A");
    let out = ask(&mut s, r#"builder.getByType("App\\Mailer")"#);
    assert!(
        out.contains(
            "warning[partial-graph]: getByType('App\\Mailer') in phase A (loadConfiguration()) \
             sees only the services registered so far; in beforeCompile() (phase B) it sees \
             them all."
        ),
        "{out}"
    );
    assert!(out.contains("<session>:1:"), "{out}");
}

/// nette/schema's variadic `Expect::anyOf('a', 'b')` works, a schema prints by its script type,
/// and a call that matches nothing names a string argument `string`, not Rhai's Rust spellings.
#[test]
fn schemas_print_by_script_type_and_signatures_name_strings() {
    let mut s = session();
    assert_eq!(
        ask(&mut s, r#"Expect::anyOf("a", "b", Expect::int())"#),
        "Expect"
    );
    let out = ask(&mut s, r#"builder.getDefinition("articles", "x")"#);
    assert!(
        out.contains("getDefinition (ContainerBuilder, string, string)"),
        "{out}"
    );
    assert!(!out.contains("ImmutableString"), "{out}");
}

/// A setup whose method does not exist is shown by `:show` as written, marked not completed,
/// not as the `null` that stands for it in the completed definition.
#[test]
fn a_setup_that_did_not_complete_is_shown_as_written() {
    let mut s = session();
    ask(
        &mut s,
        r#"builder.getDefinition("articles").addSetup("nope", [1]);"#,
    );
    let shown = ask(&mut s, ":show articles");
    assert!(shown.contains("    - nope(1) (not completed)"), "{shown}");
    assert!(!shown.contains("- null"), "{shown}");
}

/// After a creator is changed to a class that does not exist, the error names the service
/// without the type it had before (new user's trial: "Service 'cache' (type of
/// App\MemoryCache): Class 'App\Nope' not found.").
#[test]
fn an_error_after_a_changed_creator_does_not_name_the_old_type() {
    let mut s = session();
    ask(
        &mut s,
        r#"builder.getDefinition("logger").setFactory("App\\Nope")"#,
    );
    let errors = ask(&mut s, ":errors");
    assert!(
        errors.contains("Service 'logger': Class 'App\\Nope' not found."),
        "{errors}"
    );
    assert!(!errors.contains("(type of App\\FileLogger)"), "{errors}");
}

/// At the prompt in phase A the `services:` section is loaded, so a name that is not there
/// gets the suggestion, not the note for an extension's loadConfiguration() (new user's trial).
#[test]
fn a_missing_definition_at_the_prompt_in_phase_a_gets_a_suggestion_not_the_phase_note() {
    let mut s = session();
    ask(&mut s, ":phase A");
    let out = ask(&mut s, r#"builder.getDefinition("articels")"#);
    assert!(out.contains("Service 'articels' not found."), "{out}");
    assert!(out.contains("did you mean 'articles'?"), "{out}");
    assert!(!out.contains("is not loaded yet"), "{out}");
}

/// `:explain` after inputs changed the builder says that `:errors` checks the changes: the
/// answer's "see the errors" had no errors to point at (a new user's trial set an unknown
/// factory and found none).
#[test]
fn explain_after_changes_at_the_prompt_points_at_errors() {
    let mut s = session();
    let before = ask(&mut s, ":explain blog");
    assert!(!before.contains("changed the builder"), "{before}");
    ask(
        &mut s,
        r#"builder.getDefinition("blog").setFactory("App\\Nope")"#,
    );
    let after = ask(&mut s, ":explain blog");
    assert!(
        after.ends_with(
            "note: 1 input(s) at the prompt changed the builder since its phase ran; :errors \
             checks it as it is now"
        ),
        "{after}"
    );
    assert!(
        ask(&mut s, ":errors").contains("Class 'App\\Nope' not found"),
        "the change is reported by :errors"
    );
}

/// A captive dependency made at the prompt points at the prompt's changes of lifespan, not
/// only at the definitions in the configuration (fourth new user's trial).
#[test]
fn a_captive_made_at_the_prompt_points_at_the_prompt() {
    let mut s = session();
    ask(
        &mut s,
        r#"builder.getDefinition("db").setLifespan("scoped")"#,
    );
    ask(
        &mut s,
        r#"builder.getDefinition("articles").setLifespan("singleton")"#,
    );
    let e = ask(&mut s, ":errors");
    assert!(
        e.contains(
            "error[captive-dependency]: Singleton service 'articles' holds scoped service 'db'"
        ),
        "{e}"
    );
    assert!(e.contains("'db' made scoped here"), "{e}");
    assert!(e.contains("'articles' made a singleton here"), "{e}");
    assert!(e.contains("<session>:1:"), "{e}");
    assert!(e.contains("<session>:2:"), "{e}");
}

/// Strings in the configuration's maps print as NEON writes them, as the statements beside
/// them do; a Rhai array or map typed at the prompt keeps Rhai's string literals; a float
/// that is not finite is spelt alike in `create` and `completed` (a new user's trial saw
/// `clock: "App\\Clock"` beside `App\FileLogger(…)`, and `NaN` beside `NAN`).
#[test]
fn values_print_strings_as_their_context_writes_them() {
    let mut s = session();
    let config = ask(&mut s, "config");
    assert!(config.contains("clock: App\\Clock,"), "{config}");
    assert!(config.contains("tags: [logaware]"), "{config}");
    assert!(
        config.contains("logger: App\\FileLogger(/var/log/blog/blog.log)"),
        "{config}"
    );
    assert!(!config.contains("\\\\"), "no doubled backslash: {config}");
    assert_eq!(
        ask(&mut s, r#"[1, "a\\b", #{x: "two words"}]"#),
        r#"[1, "a\\b", #{x: "two words"}]"#
    );
    ask(
        &mut s,
        r#"builder.getDefinition("db").setArguments([0.0/0.0, -1.0/0.0])"#,
    );
    let show = ask(&mut s, ":show db");
    assert!(
        show.contains("create:    App\\Database(NAN, -INF)"),
        "{show}"
    );
    assert!(!show.contains("NaN") && !show.contains("inf"), "{show}");
}
