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

/// The cases of `../shared/conformance/di-nette`, re-created from nette/di's own test suite
/// (same contract as `di/`): every case must pass.
#[test]
fn di_nette_conformance() {
    let Some(dir) = common::conformance_dir("di-nette") else {
        return;
    };
    let (passed, failed) = common::run_cases(&dir, None);
    assert!(failed.is_empty(), "failures:\n{}", failed.join("\n"));
    assert_eq!(passed.len(), 47, "expected all 47 cases to run: {passed:?}");
}
