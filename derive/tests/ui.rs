//! Compile errors of `#[class]` and `#[interface]`, each with its expected message
//! (`tests/ui/*.stderr`). Regenerate after an intended change with `TRYBUILD=overwrite`.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
