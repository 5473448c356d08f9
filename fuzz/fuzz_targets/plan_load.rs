//! Fuzzes the plan loader: any bytes, read as a binary plan and (when UTF-8) as a JSON plan,
//! must load or fail with an error, never panic, overflow the stack or hang. A plan that loads
//! must survive a round trip through both encodings.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wireplan_runtime::plan::Plan;

fuzz_target!(|data: &[u8]| {
    if let Ok(plan) = Plan::from_bytes(data, "fuzz") {
        let json = serde_json::to_string(&plan).expect("a loaded plan serialises");
        Plan::from_json_str(&json, "again").expect("a loaded plan reloads from JSON");
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Plan::from_json_str(text, "fuzz");
    }
});
