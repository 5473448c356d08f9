//! Prints the heap the reading of a configuration needs, counted by wireplan's allocator:
//! with `read` after the path, the peak and the live heap after `config::load` (the NEON trees
//! of every file, merged); without it, after `Pipeline::load` (reading and phase A). Used for docs/performance.md ("Where the memory
//! goes"), then the peak of phases B and C as `wireplan compile` runs them (moving the
//! completed statements into the plan, no argument origins), each with the process's peak RSS so far.
//! `cargo run --release --example read_memory -- PATH/config.neon [read]`
//!
//! MiB are 2^20 bytes.

#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The process's peak resident memory so far (`VmHWM` of `/proc/self/status`, Linux), in MiB.
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!("{:.1} MiB", kb / 1024.0))
        })
        .unwrap_or_else(|| "n/a".to_string())
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: read_memory CONFIG.neon");
        std::process::exit(2);
    };
    let path = std::path::PathBuf::from(path);
    if std::env::args().nth(2).as_deref() == Some("read") {
        let mut sources = wireplan::source::SourceMap::new();
        let mut diags = wireplan::diagnostics::Diagnostics::new();
        let raw = wireplan::config::load(&path, &mut sources, &mut diags);
        println!(
            "config::load: peak {:.1} MiB, live {:.1} MiB, peak RSS {} ({} sections, {} errors)",
            mib(wireplan::memory::peak()),
            mib(wireplan::memory::live()),
            peak_rss(),
            raw.sections.len(),
            diags.items().len()
        );
        return;
    }
    let options = wireplan::compiler::Options::default();
    let mut pipeline = wireplan::compiler::Pipeline::load(&path, &options);
    println!(
        "Pipeline::load: peak {:.1} MiB, live {:.1} MiB, peak RSS {} (halted: {})",
        mib(wireplan::memory::peak()),
        mib(wireplan::memory::live()),
        peak_rss(),
        pipeline.halted()
    );
    pipeline.builder().borrow_mut().record_origins = false;
    pipeline.move_into_plan();
    for (stage, name) in [
        (wireplan::compiler::Stage::B, "phase B"),
        (wireplan::compiler::Stage::C, "phase C"),
    ] {
        wireplan::memory::reset_peak();
        pipeline.run_to(stage);
        println!(
            "{name}: peak {:.1} MiB, live {:.1} MiB, peak RSS {}",
            mib(wireplan::memory::peak()),
            mib(wireplan::memory::live()),
            peak_rss()
        );
    }
}
