//! Regression tests for issue #13 (reliability): each test here failed (or aborted the test
//! process) before its fix.

use std::path::Path;
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

const DEEP_APP: &str = "extensions:\n\tdeep: deep.rhai\nservices:\n\tdb: App\\Db\ntypes:\n\tApp\\Db:\n";

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
        assert!(d.file.as_deref().is_some_and(|f| f.ends_with("deep.rhai")), "{d:?}");
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
