//! Fuzzes the encoder through the decoder: whatever decodes must encode (block with a tab,
//! block with four spaces, inline) to text that decodes to the same canonical JSON. Only inline
//! mode may refuse, for nesting at the decoder's depth limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wireplan::neon::{self, EncodeOptions};
use wireplan::source::FileId;

fuzz_target!(|data: &[u8]| {
    let Ok(v) = neon::decode_bytes(data, FileId(0)) else {
        return;
    };
    let want = serde_json::to_string(&neon::to_json(&v)).expect("serialisable");
    for opts in [
        EncodeOptions::block(),
        EncodeOptions::block().with_indent("    "),
        EncodeOptions::inline(),
    ] {
        let text = match neon::encode(&v, &opts) {
            Ok(t) => t,
            // inline needs a bracket per level where a block document can hold one more
            Err(neon::EncodeError::TooDeep) if opts.mode == neon::Mode::Inline => continue,
            Err(e) => panic!("a decoded value does not encode: {e}"),
        };
        let back = match neon::decode(&text, FileId(0)) {
            Ok(b) => b,
            Err(d) => panic!(
                "the encoder's output does not decode: {}\n{text}",
                d.message
            ),
        };
        let got = serde_json::to_string(&neon::to_json(&back)).expect("serialisable");
        assert_eq!(want, got, "{:?} changed the value:\n{text}", opts.mode);
    }
});
