//! How much heap a read catalog holds per class (issue #13: the catalog was the largest part
//! of a large compilation, ~1.8 KB per class). Counted by wireplan's own allocator, installed
//! here; one test function, so no other test allocates while it counts.

use serde_json::json;
use wireplan::catalog::{load_inputs, Catalog, CatalogInput};
use wireplan::diagnostics::Diagnostics;
use wireplan::source::SourceMap;

mod common;

#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

/// The most heap a catalog may hold per class of the shapes below (names interned, types
/// shared, members boxed). The old representation held about 1,800.
const BOUND: usize = 700;

/// A catalog in the shape of the bench workload: `n` classes, one interface per 20, each class
/// with a constructor of 0–4 class-typed parameters (one nullable with a default), an `int`
/// parameter with a default on every tenth, a setter on every seventh.
fn generated(n: usize) -> String {
    let mut types = serde_json::Map::new();
    for i in 0..n / 20 {
        types.insert(
            format!("App\\Contract\\I{i}"),
            json!({"interface": true, "methods": {"id": {"returns": "string"}}}),
        );
    }
    for i in 0..n {
        let mut ctor = serde_json::Map::new();
        for d in 0..i % 5 {
            let dep = (i * 7 + d * 13) % i.max(1);
            let ty = format!("App\\Service\\S{dep}");
            if d == 3 {
                ctor.insert(
                    format!("dep{d}"),
                    json!({"type": format!("?{ty}"), "default": null}),
                );
            } else {
                ctor.insert(format!("dep{d}"), json!(ty));
            }
        }
        if i % 10 == 0 {
            ctor.insert("limit".into(), json!({"type": "int", "default": 10}));
        }
        let mut class = serde_json::Map::new();
        if i >= 20 {
            class.insert(
                "implements".into(),
                json!([format!("App\\Contract\\I{}", i % (n / 20))]),
            );
        }
        class.insert("constructor".into(), serde_json::Value::Object(ctor));
        if i % 7 == 0 {
            class.insert(
                "methods".into(),
                json!({"setLogger": {"params": {"logger": "App\\Service\\S0"}}}),
            );
        }
        types.insert(
            format!("App\\Service\\S{i}"),
            serde_json::Value::Object(class),
        );
    }
    serde_json::to_string(&json!({"format": "wireplan-catalog", "version": 1, "types": types}))
        .expect("serializable")
}

/// Reads `text` as the catalog file `name`; returns the class count, the heap the catalog
/// holds, and the most heap live while reading (both beyond what was live before).
fn measure(name: &str, text: &str) -> (usize, usize, usize) {
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    let input = CatalogInput::Text {
        name: name.to_string(),
        text: text.to_string(),
    };
    let ids = load_inputs(&[input], &mut sources, &mut diags);
    let before = wireplan::memory::live();
    wireplan::memory::reset_peak();
    let catalog = Catalog::from_inputs(None, &ids, &sources, &mut diags);
    let peak = wireplan::memory::peak().saturating_sub(before);
    let held = wireplan::memory::live().saturating_sub(before);
    assert!(diags.items().is_empty(), "{name}: {:?}", diags.items());
    let classes = catalog.classes().count();
    drop(catalog);
    (classes, held, peak)
}

#[test]
fn a_catalog_holds_little_heap_per_class() {
    let text = generated(4000);
    let (classes, held, peak) = measure("generated.json", &text);
    assert_eq!(classes, 4000 + 200);
    let per_class = held / classes;
    println!(
        "generated JSON catalog: {classes} classes, {per_class} bytes per class held, \
         peak {} KB while reading {} KB",
        peak / 1000,
        text.len() / 1000
    );
    assert!(per_class > 40, "the allocator counts ({held} bytes)");
    assert!(
        per_class <= BOUND,
        "{per_class} bytes per class (bound {BOUND})"
    );
    // Read class by class: besides the catalog itself, reading holds a few bytes per byte of
    // input (the interner, the list of classes read), never a value tree of the whole file
    // (about ten bytes per byte).
    let transient = peak.saturating_sub(held);
    assert!(
        transient < text.len() * 3,
        "{transient} bytes held besides the catalog while reading {} bytes",
        text.len()
    );

    let Some(dir) = common::conformance_dir("../bench/app-10000") else {
        return;
    };
    let neon = std::fs::read_to_string(dir.join("types.neon")).expect("the bench catalog");
    let (classes, held, peak) = measure("types.neon", &neon);
    let per_class = held / classes;
    println!(
        "app-10000 types.neon: {classes} classes, {per_class} bytes per class held, peak {} KB \
         while reading",
        peak / 1000
    );
    assert!(
        per_class <= BOUND,
        "{per_class} bytes per class (bound {BOUND})"
    );
}
