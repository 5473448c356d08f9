//! Workload generator: `cargo run --release --example gen -- N [DIR]` writes `DIR/config.neon`
//! and `DIR/types.neon` (default `DIR`: `target/bench/app-N`), an application of `N` services
//! (1 ≤ N ≤ 1,000,000) in the shape of `../shared/bench/app-*`. Deterministic.

#[path = "../benches/workload/mod.rs"]
mod workload;

use std::path::PathBuf;
use std::process::ExitCode;

/// Largest `N` the generator accepts.
const MAX_SERVICES: usize = 1_000_000;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen N [DIR]   (1 <= N <= 1000000; DIR defaults to target/bench/app-N)";
    let n = match args.first().map(|s| s.replace('_', "").parse::<usize>()) {
        Some(Ok(n)) if (1..=MAX_SERVICES).contains(&n) => n,
        _ => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    if args.len() > 2 {
        eprintln!("{usage}");
        return ExitCode::from(2);
    }
    let dir = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("target/bench/app-{n}")));
    match workload::generate(n, &dir) {
        Ok(s) => {
            println!(
                "{}: {} services, {} interfaces, {} abstract bases, {} dependencies, {} not autowired",
                dir.display(),
                s.services,
                s.interfaces,
                s.bases,
                s.dependencies,
                s.not_autowired
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            // (A file in the folder's place fails with "File exists": say what is there.)
            let what = match std::fs::metadata(&dir) {
                Ok(m) if !m.is_dir() => " (a file is there; DIR is a folder to write into)",
                _ => "",
            };
            eprintln!("error: cannot write {}{what}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}
