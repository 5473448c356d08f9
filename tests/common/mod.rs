//! Shared helpers for the data-driven tests: locating `../shared/conformance`, and checking a
//! compilation against an `expected.json` in the format of `../shared/conformance/di/README.md`.

#![allow(dead_code)]

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use wireplan::compiler::{compile, Options};
use wireplan::diagnostics::to_json;

/// Whether this is a CI run: `CI` set to anything but empty, `0` or `false` (CI services set
/// `true` or `1`). There a missing conformance folder fails instead of being skipped.
pub fn in_ci() -> bool {
    std::env::var("CI")
        .is_ok_and(|v| !matches!(v.to_ascii_lowercase().as_str(), "" | "0" | "false"))
}

/// `../shared/conformance/<sub>` relative to the workspace, or `None` when absent. In a CI run
/// ([`in_ci`]), absence is a failure (panics).
pub fn conformance_dir(sub: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance")
        .join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    if in_ci() {
        panic!(
            "conformance folder {} is missing, and CI=true makes that a failure",
            dir.display()
        );
    }
    skipped(&format!("conformance folder {} is absent", dir.display()));
    None
}

/// Says that a test skipped `what`, straight to the process's standard error: the harness
/// captures `println!` and `eprintln!` of a passing test, so the skip would go unseen.
pub fn skipped(what: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped: {what}");
}

/// The `"mentions"` strings of an expected diagnostic (none when absent).
fn mentions_of(expected: &Json) -> Vec<&str> {
    expected["mentions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .collect()
}

/// Compiles `config` and compares with `expected` (conformance format). Returns a list of
/// mismatch descriptions (empty when the case passes).
pub fn check_case(config: &Path, expected: &Json) -> Vec<String> {
    let result = compile(config, &Options::default());
    let mut problems = Vec::new();
    let diags = to_json(&result.sources, result.diagnostics.items());
    // Project fixtures may require warnings: `"warnings": [{"code": .., "line": ..}]`, each
    // optionally with `"mentions"`: texts its message, a note or a label (with the label's
    // file name, `"c.rhai: text"`) must hold.
    for w in expected["warnings"].as_array().into_iter().flatten() {
        let code = w["code"].as_str().unwrap_or_default();
        let line = w.get("line").and_then(Json::as_u64).map(|n| n as usize);
        let mentions = mentions_of(w);
        let hit = diags.iter().any(|d| {
            d.code == code
                && d.severity == wireplan::diagnostics::Severity::Warning
                && (line.is_none() || d.line == line)
                && mentions.iter().all(|m| {
                    d.message.contains(m)
                        || d.notes.iter().any(|n| n.contains(m))
                        || d.labels.iter().any(|l| {
                            let file = std::path::Path::new(&l.file)
                                .file_name()
                                .map_or(l.file.clone(), |f| f.to_string_lossy().into_owned());
                            format!("{file}:{}: {}", l.line, l.message).contains(m)
                        })
                })
        });
        if !hit {
            problems.push(format!("expected warning {w}"));
        }
    }
    match expected["status"].as_str() {
        Some("ok") => {
            let Some(plan) = result.plan else {
                let msgs: Vec<String> = diags
                    .iter()
                    .map(|d| format!("[{}] {}", d.code, d.message))
                    .collect();
                problems.push(format!("expected a plan, got errors: {}", msgs.join(" | ")));
                return problems;
            };
            let plan = serde_json::to_value(&plan).expect("plan serialises");
            let services = &plan["services"];
            if let Some(exp) = expected["services"].as_object() {
                for (name, fields) in exp {
                    let Some(actual) = services.get(name) else {
                        problems.push(format!("service '{name}' missing from plan"));
                        continue;
                    };
                    for (field, want) in fields.as_object().into_iter().flatten() {
                        let got =
                            actual
                                .get(field)
                                .cloned()
                                .unwrap_or_else(|| match field.as_str() {
                                    "autowired" => Json::Bool(true),
                                    "tags" => Json::Object(Default::default()),
                                    "setup" => Json::Array(vec![]),
                                    _ => Json::Null,
                                });
                        if !json_equal(&got, want) {
                            problems.push(format!(
                                "service '{name}' field '{field}': expected {want}, got {got}"
                            ));
                        }
                    }
                }
            }
            // Project fixtures may also pin the plan's indexes.
            for key in ["types", "tags", "parameters", "initialization", "aliases"] {
                if let Some(want) = expected.get(key) {
                    if !json_equal(&plan[key], want) {
                        problems.push(format!("plan '{key}': expected {want}, got {}", plan[key]));
                    }
                }
            }
            for absent in expected["absent"].as_array().into_iter().flatten() {
                if let Some(n) = absent.as_str() {
                    if services.get(n).is_some() {
                        problems.push(format!("service '{n}' should be absent"));
                    }
                }
            }
        }
        Some("error") => {
            if result.plan.is_some() {
                problems.push("expected an error, but a plan was produced".into());
            }
            let code = expected["code"].as_str().unwrap_or_default();
            let mentions = mentions_of(expected);
            let hit = diags.iter().any(|d| {
                d.code == code
                    && d.severity == wireplan::diagnostics::Severity::Error
                    && mentions.iter().all(|m| {
                        d.message.contains(m)
                            || d.notes.iter().any(|n| n.contains(m))
                            || d.labels.iter().any(|l| l.message.contains(m))
                    })
            });
            if !hit {
                let msgs: Vec<String> = diags
                    .iter()
                    .map(|d| {
                        let labels: Vec<&str> =
                            d.labels.iter().map(|l| l.message.as_str()).collect();
                        format!("[{}] {} {:?} {labels:?}", d.code, d.message, d.notes)
                    })
                    .collect();
                problems.push(format!(
                    "expected [{code}] mentioning {mentions:?}; got: {}",
                    msgs.join(" | ")
                ));
            }
            // Optional: how many errors in all (one cause reported once, not twice).
            if let Some(want) = expected.get("errors").and_then(Json::as_u64) {
                let got = diags
                    .iter()
                    .filter(|d| d.severity == wireplan::diagnostics::Severity::Error)
                    .count();
                if got as u64 != want {
                    let msgs: Vec<String> = diags
                        .iter()
                        .map(|d| format!("[{}] {}", d.code, d.message))
                        .collect();
                    problems.push(format!(
                        "expected {want} error(s), got {got}: {}",
                        msgs.join(" | ")
                    ));
                }
            }
            // Optional position checks (used by the project's own fixtures).
            let line = expected
                .get("line")
                .and_then(Json::as_u64)
                .map(|n| n as usize);
            let column = expected
                .get("column")
                .and_then(Json::as_u64)
                .map(|n| n as usize);
            let file = expected.get("file").and_then(Json::as_str);
            if line.is_some() || column.is_some() || file.is_some() {
                let ok = diags.iter().any(|d| {
                    d.code == code
                        && (line.is_none() || d.line == line)
                        && (column.is_none() || d.column == column)
                        && file.is_none_or(|f| d.file.as_deref().is_some_and(|n| n.ends_with(f)))
                });
                if !ok {
                    let got: Vec<String> = diags
                        .iter()
                        .map(|d| format!("[{}] {:?}:{:?}:{:?}", d.code, d.file, d.line, d.column))
                        .collect();
                    problems.push(format!(
                        "expected [{code}] at {file:?}:{line:?}:{column:?}; got {}",
                        got.join(", ")
                    ));
                }
            }
        }
        other => problems.push(format!("bad expected status {other:?}")),
    }
    problems
}

/// JSON equality where integers and floats differ and object key order does not matter.
pub fn json_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            x.is_f64() == y.is_f64() && x.as_f64() == y.as_f64() && x.as_i64() == y.as_i64()
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Runs every case folder under `dir` (each with `config.neon` + `expected.json`), optionally
/// only those in `only`. Returns (passed ids, failures as "id: problem").
pub fn run_cases(dir: &Path, only: Option<&[&str]>) -> (Vec<String>, Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("case folder is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    entries.sort();
    let mut passed = Vec::new();
    let mut failed = Vec::new();
    for case in entries {
        let id = case.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(list) = only {
            if !list.contains(&id.as_str()) {
                continue;
            }
        }
        let text = std::fs::read_to_string(case.join("expected.json")).expect("expected.json");
        let expected: Json = serde_json::from_str(&text).expect("expected.json is JSON");
        let problems = check_case(&case.join("config.neon"), &expected);
        if problems.is_empty() {
            passed.push(id);
        } else {
            for p in problems {
                failed.push(format!("{id}: {p}"));
            }
        }
    }
    (passed, failed)
}

/// Compiles `config` (which must fail) and lists its diagnostics as (code, line).
pub fn codes_and_lines(config: &Path) -> Vec<(String, usize)> {
    let result = compile(config, &Options::default());
    assert!(result.plan.is_none(), "{} compiled", config.display());
    to_json(&result.sources, result.diagnostics.items())
        .into_iter()
        .map(|d| (d.code.to_string(), d.line.unwrap_or(0)))
        .collect()
}

/// The environment variable that makes [`golden`] write the golden files instead of comparing
/// (`WIREPLAN_UPDATE_GOLDEN=1 cargo test --test explain --test tools`; review the diff).
pub const UPDATE_GOLDEN: &str = "WIREPLAN_UPDATE_GOLDEN";

/// Compares `actual` with the golden file `path` (panicking with the first differing line and
/// both texts), or writes it there when [`UPDATE_GOLDEN`] is set.
pub fn golden(path: &Path, actual: &str) {
    if std::env::var_os(UPDATE_GOLDEN).is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("golden dir");
        std::fs::write(path, actual).expect("golden file written");
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; create it with {UPDATE_GOLDEN}=1 and review it",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the output, first at line {} ({UPDATE_GOLDEN}=1 regenerates it):\n\
             --- expected\n{expected}\n--- actual\n{actual}",
            path.display(),
            line + 1
        );
    }
}

/// Runs `wireplan compile CONFIG --catalog CATALOG -o OUT` (paths as given, relative to the
/// test's working directory unless absolute) without colours and asserts that it succeeded,
/// showing its error output otherwise: the set-up of the tests that compile against a
/// registry's catalog file.
pub fn compile_with_catalog(config: &Path, catalog: &Path, out: &Path) {
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_wireplan"))
        .env("NO_COLOR", "1")
        .arg("compile")
        .arg(config)
        .arg("--catalog")
        .arg(catalog)
        .arg("-o")
        .arg(out)
        .output()
        .expect("wireplan runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}
