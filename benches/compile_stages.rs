//! Compile time and memory per stage at 1,000 and 10,000 services (the generated workload of
//! `benches/workload/`, the shape of `../shared/bench`): decode, load + merge + expand, phase
//! A, resolve + complete (phase B), plan build, encode, and the whole compilation. The decode
//! group has a baseline from the same run: serde_json parsing the same data written as JSON.
//!
//! `cargo bench --bench compile_stages`. Before the timings, the peak live heap of each stage
//! (counted by wireplan's allocator, see `src/memory.rs`) is printed once per size.

#[path = "workload/mod.rs"]
mod workload;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;
use wireplan::compiler::{compile, Options, Pipeline, Stage};
use wireplan::diagnostics::Diagnostics;
use wireplan::source::{FileId, SourceMap};
use wireplan_runtime::Encoding;

#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

const SIZES: [usize; 2] = [1_000, 10_000];

/// A generated application in a temporary folder.
struct App {
    _dir: tempfile::TempDir,
    config: PathBuf,
    texts: Vec<String>,
    json: Vec<String>,
}

fn app(n: usize) -> App {
    let dir = tempfile::tempdir().expect("temp dir");
    workload::generate(n, dir.path()).expect("generate");
    let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).expect("read");
    let texts = vec![read("config.neon"), read("types.neon")];
    let json = texts
        .iter()
        .map(|t| {
            let v = wireplan::neon::decode(t, FileId(0)).expect("decodes");
            serde_json::to_string(&wireplan::neon::to_json(&v)).expect("json")
        })
        .collect();
    App {
        config: dir.path().join("config.neon"),
        _dir: dir,
        texts,
        json,
    }
}

fn phase_a(config: &Path) -> Pipeline {
    Pipeline::load(config, &Options::default())
}

fn phase_b(config: &Path) -> Pipeline {
    let mut p = phase_a(config);
    p.run_to(Stage::B);
    p
}

/// Peak live heap of `f` above what was live before it, in MB.
fn peak_mb<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let before = wireplan::memory::live();
    wireplan::memory::reset_peak();
    let out = f();
    let peak = wireplan::memory::peak().saturating_sub(before);
    (out, peak as f64 / (1 << 20) as f64)
}

fn print_memory(n: usize, a: &App) {
    let (_, decode) = peak_mb(|| {
        a.texts
            .iter()
            .filter(|t| wireplan::neon::decode(t, FileId(0)).is_ok())
            .count()
    });
    let (pipeline, load) = peak_mb(|| phase_a(&a.config));
    drop(pipeline);
    let mut p = phase_a(&a.config);
    let (_, resolve) = peak_mb(|| p.run_to(Stage::B));
    let (plan, build) = peak_mb(|| p.plan_model());
    drop(p);
    let (_, encode) = peak_mb(|| plan.encode(Encoding::Json).len());
    drop(plan);
    let (_, whole) = peak_mb(|| compile(&a.config, &Options::default()).plan.is_some());
    println!(
        "peak heap, {n} services: decode {decode:.1} MB; load+expand+phase A {load:.1} MB; \
         resolve+complete +{resolve:.1} MB; plan build +{build:.1} MB; encode +{encode:.1} MB; \
         whole compile {whole:.1} MB"
    );
}

fn bench(c: &mut Criterion) {
    for n in SIZES {
        let a = app(n);
        print_memory(n, &a);
        let mut g = c.benchmark_group(format!("compile {n}"));
        g.sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        g.bench_function("decode (config + catalog)", |b| {
            b.iter(|| {
                for t in &a.texts {
                    black_box(wireplan::neon::decode(black_box(t), FileId(0)).is_ok());
                }
            })
        });
        g.bench_function("decode baseline: serde_json on the same data", |b| {
            b.iter(|| {
                for t in &a.json {
                    let v: Result<serde_json::Value, _> = serde_json::from_str(black_box(t));
                    black_box(v.is_ok());
                }
            })
        });
        g.bench_function("load + merge + expand", |b| {
            b.iter(|| {
                let mut sources = SourceMap::new();
                let mut diags = Diagnostics::new();
                let raw = wireplan::config::load_with(
                    &a.config,
                    &Default::default(),
                    &mut sources,
                    &mut diags,
                );
                black_box(wireplan::config::expand_config(
                    &raw.sections,
                    &[],
                    &Default::default(),
                    &mut diags,
                ))
            })
        });
        g.bench_function("phase A (load, catalog, services)", |b| {
            b.iter(|| black_box(phase_a(&a.config)))
        });
        g.bench_function("resolve + complete", |b| {
            b.iter_batched(
                || phase_a(&a.config),
                |mut p| {
                    p.run_to(Stage::B);
                    p
                },
                BatchSize::PerIteration,
            )
        });
        let at_b = phase_b(&a.config);
        g.bench_function("plan build", |b| b.iter(|| black_box(at_b.plan_model())));
        let plan = at_b.plan_model();
        drop(at_b);
        g.bench_function("encode JSON", |b| {
            b.iter(|| black_box(plan.encode(Encoding::Json)))
        });
        // serde_json's pretty writer and wireplan's own formatter (what `wireplan compile`
        // writes the plan file with: the same bytes), both into a buffer reused between runs,
        // as the plan file's write buffer is.
        let mut out = Vec::with_capacity(2 * plan.encode(Encoding::Json).len());
        g.bench_function("encode JSON into a buffer: serde_json", |b| {
            b.iter(|| {
                out.clear();
                serde_json::to_writer_pretty(&mut out, &plan).expect("encoded");
                black_box(out.len())
            })
        });
        g.bench_function("encode JSON into a buffer: as compile writes it", |b| {
            b.iter(|| {
                out.clear();
                wireplan::plan::write_json(&mut out, &plan).expect("encoded");
                black_box(out.len())
            })
        });
        g.bench_function("encode binary", |b| {
            b.iter(|| black_box(plan.encode(Encoding::Binary)))
        });
        g.bench_function("whole compile (no write)", |b| {
            b.iter(|| black_box(compile(&a.config, &Options::default()).plan.is_some()))
        });
        // A `--watch` session's recompilation after an edit of `config.neon`: each run writes
        // the other of two versions of it (with a comment line at the top or without, so every
        // span of the file moves), then compiles everything cold, or as `--watch` does, with
        // what earlier compilations kept (`Options::decoded`: `types.neon` and the catalog of
        // its unchanged `types:` section are taken, the edited file decoded again), after the
        // copies `--watch` makes between compilations (`DecodedFiles::prepare`, timed apart).
        let edits = {
            let text = &a.texts[0];
            [text.clone(), format!("# edited\n{text}")]
        };
        let edit = std::cell::Cell::new(0usize);
        let edited = || {
            edit.set(edit.get() + 1);
            std::fs::write(&a.config, &edits[edit.get() % 2]).expect("write");
        };
        // What a kept file costs instead of its decode: a copy of its tree.
        let types = wireplan::neon::decode(&a.texts[1], FileId(1)).expect("decodes");
        g.bench_function("types.neon: decode", |b| {
            b.iter(|| black_box(wireplan::neon::decode(black_box(&a.texts[1]), FileId(1))))
        });
        g.bench_function("types.neon: copy of the decoded tree", |b| {
            b.iter(|| black_box(types.clone()))
        });
        drop(types);
        g.bench_function("recompile after an edit (cold)", |b| {
            b.iter(|| {
                edited();
                black_box(compile(&a.config, &Options::default()).plan.is_some())
            })
        });
        let store = std::sync::Arc::new(wireplan::config::DecodedFiles::new());
        let watching = Options {
            decoded: Some(store.clone()),
            ..Options::default()
        };
        g.bench_function("recompile after an edit (kept, as --watch)", |b| {
            b.iter_batched(
                || {
                    edited();
                    store.prepare();
                },
                |()| black_box(compile(&a.config, &watching).plan.is_some()),
                BatchSize::PerIteration,
            )
        });
        g.bench_function("between recompilations (DecodedFiles::prepare)", |b| {
            b.iter_batched(
                || {
                    edited();
                    compile(&a.config, &watching).plan.is_some()
                },
                |_| store.prepare(),
                BatchSize::PerIteration,
            )
        });
        std::fs::write(&a.config, &edits[0]).expect("write");
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
