//! Prints the heap the reading of a configuration needs, counted by wireplan's allocator:
//! the peak and the live heap after `config::load` (the NEON trees of every file, merged),
//! and after `Pipeline::load` (phase A). Used for docs/performance.md ("Where the memory
//! goes"). `cargo run --release --example read_memory -- PATH/config.neon`
//!
//! MiB are 2^20 bytes.

#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: read_memory CONFIG.neon");
        std::process::exit(2);
    };
    let path = std::path::PathBuf::from(path);
    {
        let mut sources = wireplan::source::SourceMap::new();
        let mut diags = wireplan::diagnostics::Diagnostics::new();
        let raw = wireplan::config::load(&path, &mut sources, &mut diags);
        println!(
            "config::load: peak {:.1} MiB, live {:.1} MiB ({} sections, {} errors)",
            mib(wireplan::memory::peak()),
            mib(wireplan::memory::live()),
            raw.sections.len(),
            diags.items().len()
        );
    }
    wireplan::memory::reset_peak();
    let options = wireplan::compiler::Options::default();
    let pipeline = wireplan::compiler::Pipeline::load(&path, &options);
    println!(
        "Pipeline::load: peak {:.1} MiB, live {:.1} MiB (halted: {})",
        mib(wireplan::memory::peak()),
        mib(wireplan::memory::live()),
        pipeline.halted()
    );
}
