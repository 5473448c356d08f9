//! `wireplan explain` and `wireplan graph` as a user runs them: golden files of every answer
//! (text, JSON, DOT, Mermaid) on the blog example and on two error configurations, the bad-input
//! exit codes, and the README's graph picture being current.
//!
//! Golden files live in `tests/golden/explain/`; each holds the command, the exit code, stdout
//! and stderr. After an intended change, regenerate them with
//! `WIREPLAN_UPDATE_GOLDEN=1 cargo test --test explain` and review the diff.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const BLOG: &str = "examples/blog/config/app.neon";
/// The blog example's catalog, generated from its Rust types; passed whenever BLOG is.
const BLOG_CATALOG: &str = "examples/blog/catalog.json";
const CAPTIVE: &str = "tests/fixtures/explain/captive-ambiguous/config.neon";
const REMOVED: &str = "tests/fixtures/explain/extension-removed/config.neon";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `args` with `--catalog BLOG_CATALOG` appended when they name the blog example.
fn with_catalog<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    if args.contains(&BLOG) {
        all.extend(["--catalog", BLOG_CATALOG]);
    }
    all
}

/// Runs `wireplan ARGS` from the workspace root (relative paths keep the output stable), with
/// the blog example's catalog when ARGS name the example.
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let args = with_catalog(args);
    let out = Command::new(env!("CARGO_BIN_EXE_wireplan"))
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("WIREPLAN_SCRIPTS")
        .args(args)
        .output()
        .expect("wireplan runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn golden_path(name: &str) -> PathBuf {
    root()
        .join("tests/golden/explain")
        .join(format!("{name}.txt"))
}

/// Runs the command and compares everything it printed with the golden file `name`.
fn golden(name: &str, args: &[&str]) -> (Option<i32>, String) {
    let (code, stdout, stderr) = run(args);
    let actual = format!(
        "$ wireplan {}\nexit: {}\n--- stdout\n{stdout}--- stderr\n{stderr}",
        with_catalog(args).join(" "),
        code.map_or("signal".to_string(), |c| c.to_string())
    );
    common::golden(&golden_path(name), &actual);
    (code, stdout)
}

#[test]
fn explain_on_the_blog_example() {
    let (code, out) = golden("blog-service-blog", &["explain", BLOG, "blog"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("$notifiers  App\\Notifier[] = [@01, @02]"),
        "{out}"
    );
    golden("blog-service-mailer", &["explain", BLOG, "mailer"]);
    golden("blog-service-articles", &["explain", BLOG, "articles"]);
    golden(
        "blog-type-logger",
        &["explain", BLOG, "--type", "App\\Logger"],
    );
    golden(
        "blog-type-notifier",
        &["explain", BLOG, "--type", "App\\Notifier"],
    );
    golden(
        "blog-needed-by-logger",
        &["explain", BLOG, "--needed-by", "logger"],
    );
    golden(
        "blog-deps-blog",
        &["explain", BLOG, "--deps", "blog", "--depth", "1"],
    );
}

#[test]
fn explain_answers_in_json_too() {
    for (name, args) in [
        ("blog-service-mailer-json", &["explain", BLOG, "mailer"][..]),
        (
            "blog-type-logger-json",
            &["explain", BLOG, "--type", "App\\Logger"],
        ),
        (
            "blog-needed-by-logger-json",
            &["explain", BLOG, "--needed-by", "logger"],
        ),
    ] {
        let args: Vec<&str> = args.iter().copied().chain(["--format", "json"]).collect();
        let (code, out) = golden(name, &args);
        assert_eq!(code, Some(0), "{name}");
        let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert!(json.is_object(), "{name}");
    }
    let (_, out, _) = run(&["explain", BLOG, "mailer", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let args = &json["calls"][0]["arguments"];
    assert_eq!(args[0]["from"], "autowired");
    assert_eq!(args[0]["service"], "logger");
    assert_eq!(args[1]["from"], "written");
    assert_eq!(args[1]["parameters"][0], "mail.from");
}

#[test]
fn explain_on_an_ambiguous_and_captive_configuration() {
    let (code, out) = golden("captive-service-mailer", &["explain", CAPTIVE, "mailer"]);
    // The configuration has errors: they are printed, the answer still comes, exit 1.
    assert_eq!(code, Some(1));
    assert!(out.contains("path mailer -> session -> request"), "{out}");
    golden("captive-service-report", &["explain", CAPTIVE, "report"]);
    golden(
        "captive-type-logger",
        &["explain", CAPTIVE, "--type", "App\\Logger"],
    );
    golden(
        "captive-needed-by-request",
        &["explain", CAPTIVE, "--needed-by", "request"],
    );
}

#[test]
fn explain_on_a_configuration_whose_extension_removed_a_needed_service() {
    let (code, out) = golden(
        "removed-service-auditlog",
        &["explain", REMOVED, "auditLog"],
    );
    assert_eq!(code, Some(1));
    assert!(
        out.contains("by extension audit in loadConfiguration() (phase A) at tests/fixtures/explain/extension-removed/audit.rhai:4:10"),
        "{out}"
    );
    golden("removed-service-db", &["explain", REMOVED, "db"]);
    golden("removed-service-users", &["explain", REMOVED, "users"]);
    golden("removed-service-cache", &["explain", REMOVED, "cache"]);
    let (_, out) = golden(
        "removed-needed-by-cache",
        &["explain", REMOVED, "--needed-by", "cache"],
    );
    assert!(out.contains("still asked for by"), "{out}");
    golden(
        "removed-type-cache",
        &["explain", REMOVED, "--type", "App\\Cache"],
    );
}

#[test]
fn graph_in_every_format() {
    for (prefix, config) in [("blog", BLOG), ("captive", CAPTIVE), ("removed", REMOVED)] {
        for format in ["dot", "mermaid", "json"] {
            let (code, out) = golden(
                &format!("{prefix}-graph-{format}"),
                &["graph", config, "--format", format],
            );
            assert_eq!(
                code,
                Some(if prefix == "blog" { 0 } else { 1 }),
                "{prefix} {format}"
            );
            if format == "json" {
                let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
                assert!(json["nodes"].as_array().is_some_and(|n| !n.is_empty()));
            }
        }
    }
    golden(
        "blog-graph-focus-mailer",
        &["graph", BLOG, "--service", "mailer", "--depth", "1"],
    );
}

#[test]
fn graphs_never_show_parameter_values() {
    for config in [BLOG, CAPTIVE, REMOVED] {
        for format in ["dot", "mermaid", "json"] {
            let (_, out, _) = run(&["graph", config, "--format", format]);
            for value in [
                "/var/log/blog",
                "sqlite::memory:",
                "blog@example.com",
                "Weekly report",
            ] {
                assert!(!out.contains(value), "{config} {format} shows {value}");
            }
        }
    }
}

#[test]
fn bad_input_gets_a_clear_message_and_exit_code() {
    let (code, _) = golden(
        "bad-missing-config",
        &["explain", "tests/fixtures/explain/nope.neon", "blog"],
    );
    assert_eq!(code, Some(1));
    let (code, _) = golden("bad-unknown-service", &["explain", BLOG, "blgo"]);
    assert_eq!(code, Some(1));
    let (code, _) = golden(
        "bad-unknown-type",
        &["explain", BLOG, "--type", "App\\Loger"],
    );
    assert_eq!(code, Some(1));
    let (code, _) = golden(
        "bad-graph-unknown-service",
        &["graph", BLOG, "--service", "mailr"],
    );
    assert_eq!(code, Some(1));
    let (code, _, err) = run(&["explain", BLOG]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = run(&["explain", BLOG, "blog", "--type", "App\\Logger"]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = run(&["graph", BLOG, "--format", "png"]);
    assert_eq!(code, Some(2), "{err}");
    // --depth counts levels from 1, and only --deps has levels.
    let (code, _) = golden(
        "bad-deps-depth-0",
        &["explain", BLOG, "--deps", "blog", "--depth", "0"],
    );
    assert_eq!(code, Some(2));
    let (code, _) = golden(
        "bad-depth-without-deps",
        &["explain", BLOG, "--type", "App\\Logger", "--depth", "2"],
    );
    assert_eq!(code, Some(2));
    for args in [
        &["explain", BLOG, "blog", "--depth", "2"][..],
        &["explain", BLOG, "--needed-by", "blog", "--depth", "1"],
        &["graph", BLOG, "--service", "blog", "--depth", "0"],
        &["graph", BLOG, "--depth", "2"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("error[usage]: "), "{args:?}: {err}");
    }
    let (code, out, err) = run(&["explain", BLOG, "--deps", "blog", "--depth", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.contains("no service"), "{out}");
    let (code, _, err) = run(&["explain", "tests/fixtures/explain", "blog"]);
    assert_eq!(code, Some(1), "a folder is not a config: {err}");
    assert!(err.contains("file-not-found"), "{err}");
}

/// The README's picture is rendered from `docs/images/blog-graph.dot` by
/// `scripts/render-graph.sh`; CI has no Graphviz, so this checks the DOT is what `wireplan graph`
/// prints now, and that the SVG shows every service and edge of it.
#[test]
fn the_committed_graph_picture_is_current() {
    let (code, dot, err) = run(&["graph", BLOG, "--format", "dot"]);
    assert_eq!(code, Some(0), "{err}");
    let committed = std::fs::read_to_string(root().join("docs/images/blog-graph.dot"))
        .expect("docs/images/blog-graph.dot");
    assert_eq!(
        committed, dot,
        "docs/images/blog-graph.dot is stale: run scripts/render-graph.sh and commit the result"
    );
    let svg = std::fs::read_to_string(root().join("docs/images/blog-graph.svg"))
        .expect("docs/images/blog-graph.svg");
    let (_, json, _) = run(&["graph", BLOG, "--format", "json"]);
    let graph: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    for node in graph["nodes"].as_array().expect("nodes") {
        let name = node["name"].as_str().expect("name");
        assert!(
            svg.contains(&format!("<title>{name}</title>")),
            "the SVG lacks service {name}: run scripts/render-graph.sh"
        );
    }
    for edge in graph["edges"].as_array().expect("edges") {
        let title = format!(
            "<title>{}&#45;&gt;{}</title>",
            edge["from"].as_str().expect("from"),
            edge["to"].as_str().expect("to")
        );
        assert!(svg.contains(&title), "the SVG lacks edge {title}");
    }
}

/// The examples in docs/tools.md's `## wireplan explain` and `## wireplan graph` sections are
/// real: each ```text block that starts with `$ wireplan ...` shows what that command prints
/// on standard output now.
#[test]
fn the_examples_in_docs_tools_md_are_real_output() {
    let doc = std::fs::read_to_string(root().join("docs/tools.md")).expect("docs/tools.md");
    let mut section = String::new();
    let mut checked = 0;
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if let Some(title) = line.strip_prefix("## ") {
            section = title.to_string();
        }
        if line != "```text" || !matches!(section.as_str(), "wireplan explain" | "wireplan graph") {
            continue;
        }
        let block: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        let Some(command) = block.first().and_then(|c| c.strip_prefix("$ wireplan ")) else {
            continue;
        };
        let args: Vec<&str> = command
            .split_whitespace()
            .map(|a| a.trim_matches('\''))
            .collect();
        let (_, stdout, _) = run(&args);
        let shown: String = block[1..].iter().map(|l| format!("{l}\n")).collect();
        assert_eq!(
            shown, stdout,
            "docs/tools.md shows other output for `{command}`"
        );
        checked += 1;
    }
    assert!(
        checked >= 7,
        "only {checked} examples found in docs/tools.md"
    );
}

#[test]
fn generated_services_say_what_they_return_and_where_an_extension_added_them() {
    const API: &str = "tests/fixtures/compile/ext-builder-api/config.neon";
    let (code, out, err) = run(&["explain", API, "caches", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(json["kind"], "locator");
    assert_eq!(json["returns"]["main"], "@cache");
    assert_eq!(json["returns"]["fast"], "@fast");
    assert_eq!(json["origin"]["by"]["extension"], "api");
    assert_eq!(json["origin"]["by"]["phase"], "A");
    assert_eq!(json["origin"]["location"]["line"], 27);
    assert_eq!(json["type_decision"]["by"], "implement");

    let (_, out, _) = run(&["explain", API, "repos"]);
    assert!(out.contains("create() returns App\\Repo"), "{out}");
    let (_, out, _) = run(&["explain", API, "database"]);
    assert!(
        out.starts_with("service db (asked as alias database)"),
        "{out}"
    );
    let (_, out, _) = run(&["explain", API, "--needed-by", "db"]);
    assert!(out.contains("aliases: database"), "{out}");
}

#[test]
fn needed_by_names_the_initialization() {
    let (code, out, err) = run(&[
        "explain",
        "tests/fixtures/compile/ext-after-compile/config.neon",
        "--needed-by",
        "session",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("the container's initialization uses it at start-up"),
        "{out}"
    );
}

#[test]
fn property_setups_are_explained_and_type_references_count_as_autowired() {
    const PROPS: &str = "tests/fixtures/explain/properties/config.neon";
    let (code, out, err) = run(&["explain", PROPS, "page", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let calls = json["calls"].as_array().expect("calls");
    let functions: Vec<&str> = calls
        .iter()
        .filter_map(|c| c["function"].as_str())
        .collect();
    assert_eq!(
        functions,
        [
            "App\\Page::__construct()",
            "App\\Page::$logger",
            "App\\Page::$title"
        ]
    );
    assert_eq!(calls[1]["arguments"][0]["from"], "autowired");
    assert_eq!(calls[1]["arguments"][0]["service"], "log");
    assert_eq!(calls[2]["arguments"][0]["from"], "written");
    assert_eq!(calls[2]["arguments"][0]["value"], "'Home'");
    assert_eq!(json["changed_by"][0]["extension"], "inject");
    assert_eq!(json["changed_by"][0]["builtin"], true);

    // Nette's entity form of a property write is explained like the `$prop: value` form.
    let (code, out, err) = run(&["explain", PROPS, "titled", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let calls = json["calls"].as_array().expect("calls");
    assert_eq!(calls[1]["function"], "App\\Page::$title", "{out}");
    assert_eq!(calls[1]["arguments"][0]["from"], "written");
    assert_eq!(calls[1]["arguments"][0]["value"], "'About'");

    let (_, out, _) = run(&["explain", PROPS, "other"]);
    assert!(
        out.contains("autowired: getByType(App\\Logger) → log"),
        "{out}"
    );
}

#[test]
fn graph_draws_a_plan_file_like_its_configuration() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, config_dot, _) = run(&["graph", BLOG]);
    for name in ["app.plan.json", "app.plan.bin"] {
        let plan = dir.path().join(name);
        let plan = plan.to_str().expect("UTF-8 path");
        let (code, _, err) = run(&["compile", BLOG, "-o", plan]);
        assert_eq!(code, Some(0), "{err}");
        let (code, dot, err) = run(&["graph", plan]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(dot, config_dot, "{name}");
    }
    let bad = dir.path().join("other.json");
    std::fs::write(&bad, "{\"format\": \"something-else\"}").expect("written");
    let (code, out, err) = run(&["graph", bad.to_str().expect("UTF-8 path")]);
    assert_eq!(code, Some(1));
    assert!(out.is_empty());
    assert!(err.contains("error[invalid-plan]"), "{err}");
    let (code, _, err) = run(&["graph", "tests/fixtures/explain/none.plan.json"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains(
            "error[file-not-found]: Cannot read the plan 'tests/fixtures/explain/none.plan.json'"
        ),
        "{err}"
    );
}

/// A service whose constructor asks for its own type: `check` explains why the only service of
/// the type does not count, and `explain` lists that candidate as the service being created,
/// not as chosen.
#[test]
fn a_service_is_no_candidate_for_its_own_constructor() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "types:\n\tApp\\S:\n\t\tconstructor:\n\t\t\ts: App\\S\nservices:\n\ts: App\\S\n",
    )
    .expect("write");
    let path = config.to_str().expect("utf-8");
    let (code, _, err) = run(&["check", path]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("the only autowired service of type App\\S is 's' itself"),
        "{err}"
    );
    let (_, out, _) = run(&["explain", path, "s"]);
    assert!(
        out.contains("s (not chosen: the service being created"),
        "{out}"
    );
    assert!(!out.contains("chosen: the only preferred"), "{out}");
}

/// `explain CONFIG SERVICE` of a fixture whose extension script wrote values (which have no
/// place of their own): exit 0, and no "no source location" (the script's call is named).
fn explained_script_values(config: &str, service: &str) -> String {
    let (code, out, err) = run(&["explain", config, service]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.contains("no source location"), "{out}");
    out
}

/// A creator argument an extension set with `setFactory()` has no place of its own: explain
/// names the script's call instead of "no source location".
#[test]
fn a_value_a_script_set_in_the_creator_is_placed_at_its_call() {
    let out = explained_script_values(
        "tests/fixtures/compile/ext-nette-blog-defaults/config.neon",
        "blog.articles",
    );
    assert!(
        out.contains("$postsPerPage  int = 10")
            && out.contains("written at shipped extension 'blog':"),
        "{out}"
    );
}

/// A setup value an extension added with `addSetup()` has no place of its own: explain names
/// the script's call (the shipped `logaware` extension's) instead of "no source location".
#[test]
fn a_value_in_a_setup_a_script_added_is_placed_at_its_call() {
    let out = explained_script_values("tests/fixtures/compile/ext-bare-name/config.neon", "repo");
    assert!(
        out.contains("setup App\\Repo::setLogger()")
            && out.contains("written at shipped extension 'logaware':40:"),
        "{out}"
    );
}

/// A list written as `tagged(…)` or `typed(…)` is explained as collected by that call, in text
/// and JSON, not as references written one by one (new user's trial: `$filters … written at`).
#[test]
fn a_collected_list_names_the_call_that_collected_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "types:\n\tApp\\Filter: {interface: true}\n\tApp\\Spam: {implements: [App\\Filter]}\n\
         \tApp\\Length: {implements: [App\\Filter]}\n\
         \tApp\\Queue:\n\t\tconstructor:\n\t\t\tfilters: 'App\\Filter[]'\n\t\t\tall: 'App\\Filter[]'\n\
         services:\n\t- {create: App\\Spam, tags: [mail.filter]}\n\
         \tlength: {create: App\\Length, tags: [mail.filter]}\n\
         \tqueue: App\\Queue(filters: tagged(mail.filter), all: typed(App\\Filter))\n",
    )
    .expect("write");
    let path = config.to_str().expect("utf-8");
    let (code, out, err) = run(&["explain", path, "queue"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("collected by tagged(mail.filter), written at"),
        "{out}"
    );
    assert!(
        out.contains("collected by typed(App\\Filter), written at"),
        "{out}"
    );
    let (_, json, _) = run(&["explain", path, "queue", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let args = &v["calls"][0]["arguments"];
    assert_eq!(args[0]["collects"], "tagged(mail.filter)", "{json}");
    assert_eq!(args[1]["collects"], "typed(App\\Filter)", "{json}");
}

/// A singleton's lifespan refused for a path through a handle says why that fails (the handle
/// has no scope), not that a scoped service would be kept (second trial).
#[test]
fn a_captive_path_through_a_handle_is_explained_as_such() {
    // The configuration has the error, so explain exits 1 and answers from what was built.
    let (code, out, err) = run(&[
        "explain",
        "tests/fixtures/compile/captive-through-factory/config.neon",
        "holder",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains("NOT allowed: captive-dependency: a singleton's handles have no scope"),
        "{out}"
    );
    assert!(out.contains("path holder -> gf -> user"), "{out}");
    let (_, out, _) = run(&[
        "explain",
        "tests/fixtures/compile/captive-transient/config.neon",
        "mailer",
    ]);
    assert!(
        out.contains("a singleton would keep one scoped service"),
        "{out}"
    );
}

/// A service whose creation reaches an async constructor says so, with the path (the plan
/// marks it `requires_async`, so its sync `get` is `AsyncRequired`); one that does not says
/// nothing about async.
#[test]
fn explain_says_why_a_service_needs_async() {
    const ASYNC: &str = "tests/fixtures/explain/async/config.neon";
    let (code, out) = golden("async-service-api", &["explain", ASYNC, "api"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains(
            "  async      required: creating it reaches the async constructor of App\\Pool"
        ) && out.contains("             path api -> repo -> pool\n"),
        "{out}"
    );
    let (_, out, _) = run(&["explain", ASYNC, "pool"]);
    assert!(
        out.contains("async constructor of App\\Pool") && !out.contains("path pool"),
        "{out}"
    );
    let (_, out, _) = run(&["explain", ASYNC, "clock"]);
    assert!(!out.contains("  async "), "{out}");
    let (_, out, _) = run(&["explain", ASYNC, "api", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        json["requires_async"],
        serde_json::json!({"path": ["api", "repo", "pool"], "class": "App\\Pool"})
    );
    let (_, out, _) = run(&["explain", ASYNC, "clock", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(json["requires_async"].is_null(), "{json}");
    assert!(json.get("product_requires_async").is_none(), "{json}");

    // A factory whose product needs async: its own async constructor, or one down the path
    // (the product is made by the factory itself, so the path goes from it to what the
    // product needs)
    // (its `create()` is AsyncRequired, `create_async` makes it; a new user's trial found
    // nothing said so before run time). A factory of a sync product says nothing.
    let (_, out, _) = run(&["explain", ASYNC, "conns"]);
    assert!(
        out.contains(
            "  async      its product needs async: creating it reaches the async constructor of \
             App\\Conn, so make it with create_async() (create() is AsyncRequired)\n"
        ) && !out.contains("path conns"),
        "{out}"
    );
    let (_, out, _) = run(&["explain", ASYNC, "apis", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        json["product_requires_async"],
        serde_json::json!({"path": ["apis", "repo", "pool"], "class": "App\\Pool"})
    );
    assert!(json["requires_async"].is_null(), "{json}");
    let (_, out, _) = run(&["explain", ASYNC, "clocks"]);
    assert!(!out.contains("  async "), "{out}");
}
