//! Fuzzes the whole compilation (phases A, B and the plan) of a configuration given as text,
//! against a fixed type catalog: any input must end in a plan or diagnostics, never a panic,
//! a stack overflow or a hang (`-timeout=1`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use wireplan::compiler::{self, Options};
use wireplan::diagnostics::Diagnostics;
use wireplan::source::SourceMap;

/// The catalog every input compiles against (used when the input has no `types:` of its own).
const CATALOG: &str = "types:
\tApp\\Logger: {interface: true}
\tApp\\FileLogger:
\t\timplements: [App\\Logger]
\t\tconstructor:
\t\t\tpath: string
\t\t\tclock: {type: ?App\\Clock, default: null}
\t\tmethods:
\t\t\tsetLevel: {params: {level: int}}
\tApp\\Clock:
\tApp\\Db:
\t\tconstructor: {dsn: string, logger: App\\Logger}
\tApp\\LoggerFactory:
\t\tmethods:
\t\t\tcreate: {static: true, returns: App\\Logger}
";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    let mut raw = wireplan::config::load_str("fuzz.neon", text, &mut sources, &mut diags);
    let catalog = wireplan::config::load_str("catalog.neon", CATALOG, &mut sources, &mut diags);
    if !raw.sections.entries.keys().any(|k| k.as_string() == "types") {
        for (k, v) in catalog.sections.entries {
            raw.sections.entries.insert(k, v);
        }
    }
    let mut options = Options::default();
    options.limits.time_limit = std::time::Duration::from_millis(200);
    options.limits.max_operations = 200_000;
    let built = compiler::run(raw, &options, &mut sources, &mut diags);
    if !diags.has_errors() {
        let plan = built.plan(&sources);
        let json = wireplan::plan::to_json(&plan);
        // What the compiler writes, the runtime reads.
        wireplan_runtime::plan::Plan::from_json_str(&json, "fuzz").expect("a compiled plan loads");
    }
});
