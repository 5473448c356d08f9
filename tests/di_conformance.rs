//! The DI conformance cases of `../shared/conformance/di`, compared under the rule of its
//! README: every case must pass.

mod common;

#[test]
fn di_conformance() {
    let Some(dir) = common::conformance_dir("di") else {
        return;
    };
    let (passed, failed) = common::run_cases(&dir, None);
    assert!(failed.is_empty(), "failures:\n{}", failed.join("\n"));
    assert_eq!(passed.len(), 41, "expected all 41 cases to run: {passed:?}");
}
