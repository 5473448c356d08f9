//! Fuzzes an extension script against the builder API: a fixed configuration loads the fuzzed
//! script as an extension; whatever the script does must end in a plan or diagnostics, never a
//! panic, a stack overflow or a hang. The sandbox limits are lowered so an endless script stops
//! well within libFuzzer's `-timeout=1`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;
use wireplan::compiler::{compile, Options};

#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

const CONFIG: &str = "extensions:
\tfuzz: fuzz.rhai
fuzz:
\tlevel: 3
\tnames: [a, b]
parameters:
\tdsn: 'sqlite::memory:'
services:
\tdb: App\\Db(%dsn%)
\tlogger: {create: App\\FileLogger(/tmp/log), tags: [logaware]}
types:
\tApp\\Logger: {interface: true}
\tApp\\FileLogger:
\t\timplements: [App\\Logger]
\t\tconstructor: {path: string}
\t\tmethods:
\t\t\tsetLevel: {params: {level: int}}
\tApp\\Db:
\t\tconstructor: {dsn: string, logger: App\\Logger}
";

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("wireplan-fuzz-script-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("app.neon"), CONFIG).expect("config");
        std::fs::write(dir.join("data.neon"), "answer: 42\n").expect("data");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = dir();
    std::fs::write(dir.join("fuzz.rhai"), data).expect("script");
    let mut options = Options::default();
    options.limits.time_limit = std::time::Duration::from_millis(200);
    options.limits.max_operations = 200_000;
    options.limits.max_allocated = 64 << 20;
    let result = compile(&dir.join("app.neon"), &options);
    if let Some(plan) = result.plan {
        let json = wireplan::plan::to_json(&plan);
        wireplan_runtime::plan::Plan::from_json_str(&json, "fuzz").expect("a compiled plan loads");
    }
});
