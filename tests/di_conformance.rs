//! The DI conformance cases of `../shared/conformance/di`, compared under the rule of its
//! README. The cases listed in `SUPPORTED` must pass; the rest are reported (they belong to
//! later work on the DI compiler) so progress is visible in the test output.

mod common;

/// Cases that use only what is built so far. Every one of them must pass.
const SUPPORTED: &[&str] = &[
    "A01", "A02", "A03", "A04", "A05", "A07", "A08", "A09", "A11", "A12", "A14", "A15", "A17",
    "A18", "A20", "A21", "A22", "A24", "A26", "A27", "A28", "A29", "A32b", "A34", "A35", "A36",
    "A37", "A38", "A40", "A42", "A45", "A46", "A51", "A52", "A54", "A55",
];

#[test]
fn di_conformance() {
    let Some(dir) = common::conformance_dir("di") else {
        return;
    };
    let (passed, failed) = common::run_cases(&dir, None);
    let supported_failures: Vec<&String> = failed
        .iter()
        .filter(|f| SUPPORTED.iter().any(|s| f.starts_with(&format!("{s}:"))))
        .collect();
    let others: Vec<&String> = failed
        .iter()
        .filter(|f| !supported_failures.contains(f))
        .collect();
    eprintln!(
        "di conformance: {} passed; not yet supported:",
        passed.len()
    );
    for f in &others {
        eprintln!("  {f}");
    }
    assert!(
        supported_failures.is_empty(),
        "supported cases failed:\n{}",
        supported_failures
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for s in SUPPORTED {
        assert!(passed.iter().any(|p| p == s), "case {s} did not run");
    }
}
