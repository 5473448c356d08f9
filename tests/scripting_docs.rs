//! `docs/scripting-api.md`: every registered function is documented, the file is current
//! (regenerate with `WIREPLAN_UPDATE_DOCS=1 cargo test --test scripting_docs`), and every
//! example runs against a small application.

use std::path::Path;
use wireplan::compiler::{compile, Options};
use wireplan::script::docs::{registered_names, render, Hook, API};

const CONFIG: &str = "types:
\tApp\\Db: {}
\tApp\\Repo:
\t\tconstructor:
\t\t\tdb: App\\Db
\t\tmethods:
\t\t\tsetLevel: {params: {level: int}}
\tApp\\Logger: {interface: true}
\tApp\\FileLogger: {implements: [App\\Logger]}
\tApp\\DbAccessor:
\t\tinterface: true
\t\tmethods:
\t\t\tget: {returns: App\\Db}
\tApp\\RepoFactory:
\t\tinterface: true
\t\tmethods:
\t\t\tcreate: {returns: App\\Repo}
\tApp\\Repos:
\t\tinterface: true
\t\tmethods:
\t\t\tget: {params: {name: string}, returns: App\\Repo}

parameters:
\tlevel: 3
\tport: %env.PORT%

extensions:
\tdemo: ext.rhai

demo:
\tlevel: 5
\tnames: [a, b]

services:
\tdb: App\\Db
\tlog:
\t\tcreate: App\\FileLogger
\t\ttags: [logger: main]
\trepo:
\t\tcreate: App\\Repo
\t\ttags: [repository]
";

#[test]
fn every_registered_function_is_documented() {
    let engine = wireplan::script::engine(&Default::default());
    let documented: Vec<&str> = API.iter().map(|d| d.name).collect();
    let missing: Vec<String> = registered_names(&engine)
        .into_iter()
        .filter(|n| !documented.contains(&n.as_str()))
        .collect();
    assert!(missing.is_empty(), "undocumented: {missing:?}");
}

#[test]
fn scripting_api_md_is_current() {
    let engine = wireplan::script::engine(&Default::default());
    let want = render(&engine);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scripting-api.md");
    if std::env::var_os("WIREPLAN_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).expect("write docs/scripting-api.md");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/scripting-api.md is out of date; run WIREPLAN_UPDATE_DOCS=1 cargo test --test scripting_docs"
    );
}

#[test]
fn every_example_runs() {
    let mut failures = Vec::new();
    for doc in API {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("config.neon"), CONFIG).expect("config");
        std::fs::write(dir.path().join("data.neon"), "extra: App\\Db\n").expect("data");
        let body = |hook: Hook| if doc.hook == hook { doc.example } else { "" };
        let script = format!(
            "fn ok(c) {{ if !c {{ throw \"example failed\"; }} }}\n\
             fn loadConfiguration() {{\n{}\n}}\n\
             fn beforeCompile() {{\n{}\n}}\n\
             fn afterCompile(plan) {{\n{}\n}}\n",
            body(Hook::Load),
            body(Hook::Before),
            body(Hook::After)
        );
        std::fs::write(dir.path().join("ext.rhai"), script).expect("script");
        let result = compile(&dir.path().join("config.neon"), &Options::default());
        let errors: Vec<String> = result
            .diagnostics
            .items()
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect();
        if !errors.is_empty() || result.plan.is_none() {
            failures.push(format!("{}.{}: {}", doc.on, doc.name, errors.join(" | ")));
        }
    }
    assert!(
        failures.is_empty(),
        "examples failed:\n{}",
        failures.join("\n")
    );
}
