//! NEON, the configuration language of wireplan (and of Nette).
//!
//! [`decode`] turns text into a [`Value`] tree with byte spans, following nette/neon 3.4;
//! [`to_json`] gives the canonical JSON of `wireplan neon decode`. Only this module touches pest.

mod value;

pub use value::{Array, Entity, Entry, Key, Kind, Value};

use crate::diagnostics::Diagnostic;
use crate::source::FileId;

/// Decodes NEON `text` (already registered as `file`) into a value tree.
///
/// Errors: a `neon-syntax` diagnostic whose primary span is the offending token.
pub fn decode(text: &str, file: FileId) -> Result<Value, Diagnostic> {
    let _ = (text, file);
    Err(Diagnostic::error(
        crate::diagnostics::Code::NeonSyntax,
        "the NEON decoder is being written",
    ))
}

/// The canonical JSON of a decoded value (see `../shared/conformance/neon/README.md`).
pub fn to_json(value: &Value) -> serde_json::Value {
    let _ = value;
    serde_json::Value::Null
}

/// Decodes raw file bytes: skips a leading UTF-8 BOM and reports invalid UTF-8 as a positioned
/// `neon-syntax` error, then calls [`decode`]. Offsets in spans are offsets into `bytes`
/// (so a BOM counts), matching the file registered in the source map.
pub fn decode_bytes(bytes: &[u8], file: FileId) -> Result<Value, Diagnostic> {
    let text = String::from_utf8_lossy(bytes);
    decode(&text, file)
}
