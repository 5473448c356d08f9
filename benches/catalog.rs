//! Reading the type catalog of `../shared/bench/app-10000/` (780 KB of NEON `types:`) as NEON
//! and as the compact JSON form (`Registry::catalog_json()`'s shape, converted from the same
//! NEON), through the same entry point the compiler uses for `--catalog FILE`
//! (`Catalog::from_inputs`), in the same run. A plain `serde_json::Value` parse of the JSON is
//! the baseline of what serde alone costs.
//!
//! `cargo bench --bench catalog`; the per-run times and the ratios are printed at the end.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};
use wireplan::catalog::{load_inputs, neon_catalog_to_json, Catalog, CatalogInput};
use wireplan::diagnostics::Diagnostics;
use wireplan::source::{FileId, SourceMap};

// The allocator the `wireplan` binary installs (one atomic add per allocation), so the times
// are the binary's and the catalog's heap can be reported.
#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

/// The catalog text `text`, named `name`, loaded as the compiler loads its inputs.
fn load(name: &str, text: &str, diags: &mut Diagnostics) -> (SourceMap, Vec<FileId>) {
    let mut sources = SourceMap::new();
    let input = CatalogInput::Text {
        name: name.to_string(),
        text: text.to_string(),
    };
    let ids = load_inputs(&[input], &mut sources, diags);
    (sources, ids)
}

/// The heap a catalog read from `text` holds, in bytes per class.
fn held_per_class(name: &str, text: &str) -> usize {
    let mut diags = Diagnostics::new();
    let (sources, ids) = load(name, text, &mut diags);
    let before = wireplan::memory::live();
    let catalog = Catalog::from_inputs(None, &ids, &sources, &mut diags);
    let held = wireplan::memory::live().saturating_sub(before);
    held / catalog.classes().count().max(1)
}

/// Reads one catalog text as the compiler does and returns the number of classes.
fn read(name: &str, text: &str) -> usize {
    let mut diags = Diagnostics::new();
    let (sources, ids) = load(name, text, &mut diags);
    let catalog = Catalog::from_inputs(None, &ids, &sources, &mut diags);
    assert!(diags.items().is_empty(), "{name}: {:?}", diags.items());
    catalog.classes().count()
}

fn timed(total: &mut Duration, runs: &mut u64, iters: u64, f: impl Fn()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    let t = start.elapsed();
    *total += t;
    *runs += iters;
    t
}

fn bench(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/app-10000/types.neon");
    let Ok(neon) = std::fs::read_to_string(&path) else {
        println!("{} not found; nothing to measure", path.display());
        return;
    };
    let json = neon_catalog_to_json(&neon).expect("the bench catalog converts to JSON");
    assert_eq!(read("types.neon", &neon), read("types.json", &json));

    let mut group = c.benchmark_group("catalog app-10000");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    let mut totals = [(Duration::ZERO, 0u64); 3];
    let [neon_t, json_t, base_t] = &mut totals;
    group.bench_function("NEON types.neon", |b| {
        b.iter_custom(|iters| {
            timed(&mut neon_t.0, &mut neon_t.1, iters, || {
                black_box(read("types.neon", black_box(&neon)));
            })
        })
    });
    group.bench_function("JSON catalog", |b| {
        b.iter_custom(|iters| {
            timed(&mut json_t.0, &mut json_t.1, iters, || {
                black_box(read("types.json", black_box(&json)));
            })
        })
    });
    group.bench_function("serde_json::Value baseline", |b| {
        b.iter_custom(|iters| {
            timed(&mut base_t.0, &mut base_t.1, iters, || {
                let v: Result<serde_json::Value, _> = serde_json::from_str(black_box(&json));
                black_box(v.is_ok());
            })
        })
    });
    group.finish();
    println!(
        "catalog app-10000 holds {} bytes per class read from NEON, {} from JSON",
        held_per_class("types.neon", &neon),
        held_per_class("types.json", &json)
    );
    let each = |(t, n): (Duration, u64)| t / n.max(1) as u32;
    let (n, j, b) = (each(totals[0]), each(totals[1]), each(totals[2]));
    println!(
        "catalog app-10000: NEON {} KB read in {n:?}; JSON {} KB read in {j:?}; serde_json::Value \
         parse alone {b:?}. NEON takes {:.1}x the time of JSON; JSON reading is {:.1}x a bare \
         serde_json parse",
        neon.len() / 1000,
        json.len() / 1000,
        n.as_secs_f64() / j.as_secs_f64().max(1e-12),
        j.as_secs_f64() / b.as_secs_f64().max(1e-12)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
