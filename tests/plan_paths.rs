//! A plain compilation without extensions builds its plan from the released builder, emptying
//! it as it goes (`wireplan::plan::build_releasing`, to keep the memory peak low); `explain`,
//! the REPL and `Built::plan` copy from a builder that stays whole. Both must give the same
//! plan, byte for byte: checked on every compile fixture and DI conformance case that compiles.

mod common;

use std::path::{Path, PathBuf};
use wireplan::compiler::{build, compile, Options};

/// Every case folder (one holding a `config.neon`) under `dir`, sorted.
fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("case folder is readable")
        .filter_map(|e| e.ok().map(|e| e.path().join("config.neon")))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
}

/// The JSON plan of each path for `config`; `None` when the compilation fails or loads an
/// extension (then the plain compilation takes the builder's statements without emptying it,
/// and `afterCompile` may edit the plan, which `Built::plan` does not run).
fn both_plans(config: &Path) -> Option<(String, String)> {
    let plain = compile(config, &Options::default()).plan?;
    let (compilation, built) = build(config, &Options::default());
    if built.extensions.as_ref().is_some_and(|e| !e.is_empty()) {
        return None;
    }
    let copied = built.plan(&compilation.sources);
    Some((
        wireplan::plan::to_json(&plain),
        wireplan::plan::to_json(&copied),
    ))
}

#[test]
fn a_plain_compile_writes_the_plan_the_copying_path_builds() {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compile")];
    dirs.extend(common::conformance_dir("di"));
    dirs.extend(common::conformance_dir("di-nette"));
    let mut compared = Vec::new();
    let mut differ = Vec::new();
    for config in dirs.iter().flat_map(|d| cases(d)) {
        let Some((plain, copied)) = both_plans(&config) else {
            continue;
        };
        if plain != copied {
            differ.push(config.display().to_string());
        }
        compared.push(config);
    }
    assert!(
        differ.is_empty(),
        "plans differ for:\n{}",
        differ.join("\n")
    );
    // The fixtures alone hold well over 50 cases that compile without extensions.
    assert!(
        compared.len() >= 50,
        "only {} cases compiled",
        compared.len()
    );
}

#[test]
fn the_released_plan_keeps_dynamic_parameter_types_and_indexes() {
    // A case that exercises what the releasing path computes before it empties the builder:
    // the dynamic section's types (from the completed calls), the type index (from the
    // autowiring index), the tag index and the completed statements.
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.neon");
    std::fs::write(
        &config,
        "types:\n\
         \x20   App\\Mailer:\n\
         \x20       constructor: {port: int, host: string}\n\
         \x20   App\\Sender:\n\
         \x20       constructor: {mailer: App\\Mailer}\n\
         services:\n\
         \x20   mailer: App\\Mailer(%env.PORT%, %env.HOST%)\n\
         \x20   sender:\n\
         \x20       create: App\\Sender\n\
         \x20       tags: [queue: 3]\n",
    )
    .expect("config written");
    let (plain, copied) = both_plans(&config).expect("the case compiles");
    assert_eq!(plain, copied);
    let plan: serde_json::Value = serde_json::from_str(&plain).expect("plan is JSON");
    assert_eq!(plan["dynamic"]["env.PORT"]["type"], "int");
    assert_eq!(plan["dynamic"]["env.HOST"]["type"], "string");
    assert_eq!(plan["types"]["App\\Mailer"], serde_json::json!(["mailer"]));
    assert_eq!(plan["tags"]["queue"]["sender"], 3);
    assert_eq!(
        plan["services"]["sender"]["create"],
        serde_json::json!({"$new": "App\\Sender", "args": [{"$ref": "mailer"}]})
    );
}

/// Runs a plain compilation's pipeline on `config` and answers (services in the plan,
/// definitions and catalog classes left in the builder afterwards).
fn left_in_builder(config: &Path) -> (usize, usize, usize) {
    use wireplan::compiler::{Pipeline, Stage};
    let mut pipeline = Pipeline::load(config, &Options::default());
    pipeline.builder().borrow_mut().record_origins = false;
    pipeline.move_into_plan();
    pipeline.run_to(Stage::C);
    let services = pipeline.plan().expect("the case compiles").services.len();
    let b = pipeline.builder().borrow();
    (
        b.definitions().count(),
        b.catalog.classes().count(),
        services,
    )
}

#[test]
fn without_extensions_the_plan_build_empties_the_builder() {
    // What keeps the memory peak low: once the plan is built, the definitions and the catalog
    // are gone from the builder (freed before or while the plan model was allocated).
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compile");
    let (definitions, classes, services) =
        left_in_builder(&fixtures.join("accessor-short-autowired/config.neon"));
    assert!(services >= 2, "{services} services");
    assert_eq!((definitions, classes), (0, 0));
    // An extension's `afterCompile` may still read the builder: it keeps everything.
    let (definitions, classes, services) =
        left_in_builder(&fixtures.join("alteration-extension/config.neon"));
    assert!(services >= 1, "{services} services");
    assert_eq!(definitions, services);
    assert!(classes >= 1, "{classes} classes");
}

/// A large plan (5,000 services: the releasing path hashes its inputs on another thread
/// meanwhile, `plan::entries`; that thread makes service entries too only in a process that
/// ends after compiling, whose test is `entries_made_beside_are_one_threads_in_order`) is the
/// copying path's, byte for byte, services in definition order (a mix of
/// plain, tagged, set-up, factory-made, unnamed and non-autowired services).
#[test]
fn a_large_plan_is_the_copying_paths_plan() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.neon");
    let mut text = String::from("types:\n\tApp\\Base: {}\n");
    for i in 0..5000 {
        text.push_str(&format!(
            "\tApp\\S{i}:\n\t\textends: App\\Base\n\t\tconstructor: {{limit: {{type: int, default: {i}}}}}\n\t\tmethods:\n\t\t\tsetPeer: {{params: {{peer: App\\Base}}}}\n\t\t\tmake: {{static: true, returns: App\\S{i}}}\n"
        ));
    }
    text.push_str("services:\n");
    for i in 0..5000 {
        match i % 5 {
            0 => text.push_str(&format!("\ts{i}: App\\S{i}\n")),
            1 => text.push_str(&format!(
                "\ts{i}:\n\t\tcreate: App\\S{i}\n\t\ttags: [t{}, priority: {i}]\n",
                i % 7
            )),
            2 => text.push_str(&format!(
                "\ts{i}:\n\t\tcreate: App\\S{i}\n\t\tsetup:\n\t\t\t- setPeer(@s{})\n\t\tautowired: false\n",
                i - 2
            )),
            3 => text.push_str(&format!("\ts{i}: App\\S{i}::make()\n")),
            _ => text.push_str(&format!("\t- App\\S{i}(limit: {})\n", i * 2)),
        }
    }
    std::fs::write(&config, text).expect("write config");
    let (plain, copied) = both_plans(&config).expect("the case compiles");
    assert!(plain.contains("\"s4995\""), "{}", &plain[..200]);
    let first = plain.find("\"s0\"").expect("s0");
    let last = plain.find("\"s4995\"").expect("s4995");
    assert!(first < last, "services in definition order");
    assert!(plain == copied, "the two paths' plans differ");
}
