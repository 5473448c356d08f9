//! Extension speed: a `beforeCompile()` that adds a setup to each of 10,000 definitions,
//! next to the same work done in Rust on the same builder, measured in the same run.
//!
//! `cargo bench --bench extensions`; the ratio (script / Rust) is printed at the end.

use criterion::{criterion_group, criterion_main, Criterion};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};
use wireplan::builder::ContainerBuilder;
use wireplan::catalog::Catalog;
use wireplan::compiler::extensions::Extensions;
use wireplan::diagnostics::Diagnostics;
use wireplan::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use wireplan::source::SourceMap;

const N: usize = 10_000;

const SCRIPT: &str = r#"
fn beforeCompile() {
	let b = this.getContainerBuilder();
	for name in b.getDefinitions().keys() {
		b.getDefinition(name).addSetup("setLevel", [3]);
	}
}
"#;

fn builder() -> ContainerBuilder {
    let mut b = ContainerBuilder::new(Catalog::new());
    for i in 0..N {
        let d = b
            .add_definition(Some(&format!("s{i}")), None)
            .expect("unique names");
        d.set_creator("App\\Svc", ExprArray::new());
    }
    b
}

fn rust_before_compile(b: &mut ContainerBuilder) {
    let names: Vec<String> = b.definitions().map(|d| d.name.clone()).collect();
    for name in names {
        if let Some(d) = b.get_definition_mut(&name) {
            let mut args = ExprArray::new();
            args.push(Expr::bare(ExprKind::Int(3)));
            d.setup
                .push(Expr::bare(ExprKind::Statement(Box::new(Statement {
                    callee: Callee::Name("setLevel".into()),
                    arguments: args,
                }))));
        }
    }
}

/// Loads the script as an extension over a fresh builder; returns what `beforeCompile` needs.
fn script_extension(dir: &std::path::Path) -> (Extensions, Rc<RefCell<ContainerBuilder>>) {
    let shared = Rc::new(RefCell::new(builder()));
    let sources = Rc::new(RefCell::new(SourceMap::new()));
    let config_id =
        sources
            .borrow_mut()
            .add_path("bench.neon", &dir.join("bench.neon"), String::new());
    let section = Expr::new(
        ExprKind::Array({
            let mut a = ExprArray::new();
            a.items.insert(
                wireplan::neon::Key::Str("bench".into()),
                Expr::new(
                    ExprKind::Str(dir.join("bench.rhai").display().to_string()),
                    Some(wireplan::source::Span::new(config_id, 0, 0)),
                ),
            );
            a
        }),
        None,
    );
    let mut diags = Diagnostics::new();
    let ext = Extensions::load(
        Some(&section),
        &|_| None,
        shared.clone(),
        Default::default(),
        sources,
        dir.to_path_buf(),
        &[],
        &Default::default(),
        &mut diags,
    );
    assert!(!diags.has_errors(), "{:?}", diags.items());
    (ext, shared)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("bench.rhai"), SCRIPT).expect("script");
    let mut group = c.benchmark_group("beforeCompile, 10k definitions");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let mut script_total = Duration::ZERO;
    let mut script_runs = 0u32;
    group.bench_function("rhai script", |bench| {
        bench.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (mut ext, shared) = script_extension(dir.path());
                let mut diags = Diagnostics::new();
                let start = Instant::now();
                ext.call_all("beforeCompile", &mut diags);
                total += start.elapsed();
                assert!(!diags.has_errors(), "{:?}", diags.items());
                assert_eq!(
                    shared
                        .borrow()
                        .get_definition("s9999")
                        .map(|d| d.setup.len()),
                    Some(1)
                );
            }
            script_total += total;
            script_runs += iters as u32;
            total
        })
    });
    let mut rust_total = Duration::ZERO;
    let mut rust_runs = 0u32;
    group.bench_function("rust baseline", |bench| {
        bench.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let mut b = builder();
                let start = Instant::now();
                rust_before_compile(&mut b);
                total += start.elapsed();
            }
            rust_total += total;
            rust_runs += iters as u32;
            total
        })
    });
    group.finish();
    let script = script_total / script_runs.max(1);
    let rust = rust_total / rust_runs.max(1);
    println!(
        "beforeCompile over {N} definitions: script {script:?}, Rust {rust:?}, ratio {:.1}x",
        script.as_secs_f64() / rust.as_secs_f64().max(1e-12)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
