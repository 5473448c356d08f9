//! The workload generator (`examples/gen.rs`, `benches/workload/`): its output compiles, has the
//! shape of `../shared/bench/app-1000`, and is deterministic.

mod common;

#[path = "../benches/workload/mod.rs"]
mod workload;

use wireplan::compiler::{compile, Options};

/// Counts of a `types:` catalog written in the bench layout: classes, interfaces, bases.
fn catalog_counts(types: &str) -> (usize, usize, usize) {
    let entries = |prefix: &str| types.lines().filter(|l| l.starts_with(prefix)).count();
    (
        entries("\tApp\\S"),
        entries("\tApp\\I"),
        entries("\tApp\\Base"),
    )
}

#[test]
fn generated_1000_compiles_with_the_shape_of_the_reference_bench() {
    let dir = tempfile::tempdir().expect("temp dir");
    let summary = workload::generate(1000, dir.path()).expect("generate");
    assert_eq!(summary.services, 1000);
    assert_eq!(summary.interfaces, 50);
    assert_eq!(summary.bases, 20);
    assert_eq!(summary.types(), 1070);

    let result = compile(&dir.path().join("config.neon"), &Options::default());
    let errors: Vec<String> = result
        .diagnostics
        .items()
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("[{}] {}", d.code, d.message))
        .collect();
    assert!(errors.is_empty(), "generated config fails: {errors:?}");
    let plan = result.plan.expect("a plan");
    assert_eq!(plan.services.len(), 1000);
    let not_autowired = plan
        .services
        .values()
        .filter(|s| matches!(s.autowired, wireplan_runtime::plan::Autowired::All(false)))
        .count();
    assert_eq!(not_autowired, summary.not_autowired);

    let types = std::fs::read_to_string(dir.path().join("types.neon")).expect("types.neon");
    assert_eq!(catalog_counts(&types), (1000, 50, 20));

    // Against the reference workload, when the shared folder is there.
    let Some(bench) = common::conformance_dir("../bench/app-1000") else {
        return;
    };
    let reference = std::fs::read_to_string(bench.join("types.neon")).expect("reference types");
    assert_eq!(catalog_counts(&reference), catalog_counts(&types));
    let reference_config =
        std::fs::read_to_string(bench.join("config.neon")).expect("reference config");
    let config = std::fs::read_to_string(dir.path().join("config.neon")).expect("config");
    // The proportions of the reference (≈20% not autowired, ≈9% `%limit%`, ≈10% tagged,
    // ≈7% setups) within a few points.
    for needle in [
        "autowired: false",
        "%limit%",
        "tags: [",
        "setPeer(@",
        "\t\t\td",
    ] {
        let want = reference_config.matches(needle).count() + reference.matches(needle).count();
        let got = config.matches(needle).count() + types.matches(needle).count();
        let diff = want.abs_diff(got);
        assert!(
            diff * 100 <= want * 30,
            "'{needle}': {got} in the generated workload, {want} in the reference"
        );
    }
}

#[test]
fn generation_is_deterministic() {
    let (mut c1, mut t1, mut c2, mut t2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    workload::write(300, &mut c1, &mut t1).expect("first");
    workload::write(300, &mut c2, &mut t2).expect("second");
    assert_eq!(c1, c2);
    assert_eq!(t1, t2);
    // Exactly the services s0 … s{N-1}.
    let text = String::from_utf8(c1).expect("utf-8");
    assert!(text.contains("\ts299"));
    assert!(!text.contains("\ts300"));
}
