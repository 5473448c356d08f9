//! Fuzzes the NEON decoder: any bytes must decode or fail with a positioned diagnostic, never
//! panic, overflow the stack or hang; a decoded value must convert to canonical JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wireplan::neon;
use wireplan::source::FileId;

fuzz_target!(|data: &[u8]| {
    match neon::decode_bytes(data, FileId(0)) {
        Ok(v) => {
            let _ = neon::to_json(&v);
        }
        Err(d) => {
            let span = d.primary_span().expect("every NEON error is positioned");
            assert!(span.start as usize <= data.len() && span.end as usize <= data.len());
        }
    }
});
