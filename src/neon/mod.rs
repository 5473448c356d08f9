//! NEON, the configuration language of wireplan (and of Nette).
//!
//! [`decode`] turns text into a [`Value`] tree with byte spans, following nette/neon 3.4;
//! [`to_json`] gives the canonical JSON of `wireplan neon decode`; [`encode`] writes a value back
//! as block or inline NEON, and [`from_json`] reads canonical JSON (for `wireplan neon encode`).
//! Only this module touches pest.
//!
//! Layout: `grammar/neon.pest` is the lexical grammar (tokens); `lexer` runs it, `parser` builds
//! values from the tokens (block structure by indentation, inline collections, entities),
//! `scalar` and `date` type literals and decode strings, `errors` turns failures into
//! `neon-syntax` diagnostics, `json` writes and reads the canonical JSON, `encode` writes NEON.

mod date;
mod encode;
mod errors;
mod json;
mod lexer;
mod light;
mod parser;
mod scalar;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod token_digests;
mod value;

pub use encode::{
    encode, encode_block, encode_inline, encode_string, quote_string, EncodeError, EncodeOptions,
    Mode,
};
pub use errors::MAX_DEPTH;
pub use json::{from_json, to_json};
pub(crate) use light::{decode_light_streaming, Light, LightEntry, LightMap};
pub use value::{Array, CompactString, Entity, Entries, Entry, Key, Kind, Value};

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span};

const BOM: &str = "\u{feff}";

/// Decodes NEON `text` (already registered as `file`) into a value tree.
///
/// Spans are byte offsets into `text`. A leading UTF-8 BOM is skipped (as nette/neon's
/// `decodeFile` does); every `\r` is ignored, so CRLF files decode like LF files.
///
/// Errors: a `neon-syntax` diagnostic whose primary span is the offending token, with the
/// reference's message (`Unexpected ':'`, `Unexpected end`, `Bad indentation`,
/// `Invalid combination of tabs and spaces`, `Duplicated key 'x'`, `Unacceptable key`,
/// `Invalid escaping sequence \x`, ...). Nesting deeper than [`MAX_DEPTH`] blocks or brackets is
/// an error too.
pub fn decode(text: &str, file: FileId) -> Result<Value, Diagnostic> {
    match text.strip_prefix(BOM) {
        Some(rest) => decode_at(rest, BOM.len(), file),
        None => decode_at(text, 0, file),
    }
}

/// Decodes raw file bytes: skips a leading UTF-8 BOM and reports invalid UTF-8 as a positioned
/// `neon-syntax` error (at the first invalid byte, [`utf8_error`]), then decodes like
/// [`decode`]. Offsets in spans are offsets into `bytes` (so a BOM counts), matching the file
/// registered in the source map.
pub fn decode_bytes(bytes: &[u8], file: FileId) -> Result<Value, Diagnostic> {
    let (body, base) = without_bom(bytes);
    match std::str::from_utf8(body) {
        Ok(text) => decode_at(text, base, file),
        Err(e) => Err(invalid_utf8(bytes, base, e, file)),
    }
}

/// The `neon-syntax` error "Invalid UTF-8 sequence." at the first invalid byte of `bytes`
/// (offsets into `bytes`, a leading BOM included), with a note when the file looks like
/// UTF-16; `None` when `bytes` are UTF-8. What any file read as NEON, or as a catalog,
/// reports for such bytes.
pub fn utf8_error(bytes: &[u8], file: FileId) -> Option<Diagnostic> {
    let (body, base) = without_bom(bytes);
    let e = std::str::from_utf8(body).err()?;
    Some(invalid_utf8(bytes, base, e, file))
}

/// `bytes` without a leading UTF-8 BOM, and where they start in `bytes`.
fn without_bom(bytes: &[u8]) -> (&[u8], usize) {
    match bytes.strip_prefix(BOM.as_bytes()) {
        Some(rest) => (rest, BOM.len()),
        None => (bytes, 0),
    }
}

/// [`utf8_error`] for the error `e` of the text that starts at `base` of `bytes`.
fn invalid_utf8(bytes: &[u8], base: usize, e: std::str::Utf8Error, file: FileId) -> Diagnostic {
    let at = base + e.valid_up_to();
    let len = e.error_len().unwrap_or(bytes.len() - at).max(1);
    let d = Diagnostic::error(Code::NeonSyntax, "Invalid UTF-8 sequence.").with_primary(
        Span::new(file, at, (at + len).min(bytes.len())),
        "not UTF-8",
    );
    let byte = bytes.get(at).copied().unwrap_or(0);
    if looks_like_utf16(bytes) {
        d.with_note(
            "the file looks like UTF-16 (a UTF-16 byte-order mark, or a zero byte in \
             every other place); NEON files are UTF-8: save it as UTF-8",
        )
    } else if e.error_len() == Some(1) && byte >= 0xA0 {
        // One stray byte of a letter: the file is most likely Latin-1 or Windows-1252, the
        // encodings older Windows editors save in (a new user's trial).
        d.with_note(format!(
            "byte 0x{byte:02X} is '{}' in Latin-1 (ISO 8859-1) and Windows-1252, the encodings \
             some editors save in; NEON files are UTF-8: save the file as UTF-8",
            char::from(byte)
        ))
    } else {
        d
    }
}

/// Whether `bytes` look like UTF-16 text: a UTF-16 byte-order mark, or ASCII text with a zero
/// byte in every other place of the first four bytes (either byte order).
fn looks_like_utf16(bytes: &[u8]) -> bool {
    match bytes {
        [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => true,
        [a, 0, b, 0, ..] | [0, a, 0, b, ..] => *a != 0 && *b != 0,
        _ => false,
    }
}

/// Decodes `text`, which starts at byte `base` of the registered file.
fn decode_at(text: &str, base: usize, file: FileId) -> Result<Value, Diagnostic> {
    let _decoding = Decoding::start();
    let text = lexer::Text::new(text, base);
    let (tokens, end) = lexer::tokenize(&text.src);
    if end < text.src.len() {
        return Err(errors::lexer_error(&text, end, file));
    }
    // Parse on the caller's stack while little of it is needed. Deeply nested input (up to
    // MAX_DEPTH levels, ~5 KiB each in a debug build) could overflow a small thread stack, so
    // then parse again on a thread of our own with a known, large stack.
    let first =
        parser::Parser::new(&text, &tokens, file, Some(CALLER_STACK_BUDGET)).parse_document();
    let result = match first {
        Err(e) if e.needs_stack() => {
            let deep = || parser::Parser::new(&text, &tokens, file, None).parse_document();
            std::thread::scope(|scope| {
                match std::thread::Builder::new()
                    .stack_size(DEEP_STACK)
                    .spawn_scoped(scope, deep)
                {
                    Ok(handle) => handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    Err(_) => Err(e),
                }
            })
        }
        other => other,
    };
    result.map_err(|e| e.into_diagnostic(&text, &tokens, file))
}

/// How many decodes are running in this process (on any thread).
static DECODING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts one running decode in [`DECODING`] while it lives. `config::prefetch` takes one
/// for a file it is about to decode ahead before it starts the thread that decodes it: the
/// loader decodes the including file at once, and it must see the other decode coming, or it
/// splits over the cores the file decoded ahead needs (the thread counted only once it had
/// read its file, after the loader had split).
pub(crate) struct Decoding;

impl Decoding {
    /// One more decode counted, until the value is dropped.
    pub(crate) fn start() -> Decoding {
        DECODING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Decoding
    }
}

impl Drop for Decoding {
    fn drop(&mut self) {
        DECODING.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether the calling decode may take the other cores (lexing in lanes, parsing in parts):
/// when it is the only one running, or when it decodes an included file ahead of the loader
/// ([`decoding_ahead`]). While a configuration decodes on the loader's thread and its
/// catalog ahead on another, the configuration keeps to its thread: with helpers for both,
/// app-10000 on 2 cores took 5–8 ms more CPU and no less wall time; with helpers for the
/// catalog only, which the loader waits for, about 4 ms less wall time. A decode that finds
/// itself alone later (the other one finished) splits from then on.
pub(crate) fn decoding_alone() -> bool {
    AHEAD.with(std::cell::Cell::get) || DECODING.load(std::sync::atomic::Ordering::Relaxed) <= 1
}

thread_local! {
    /// Set on a thread that decodes a file ahead of the loader ([`decoding_ahead`]).
    static AHEAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as one that decodes an included file ahead of the loader
/// (`config::prefetch`): the loader waits for that file, so its decode may split even while
/// the including file decodes on the loader's thread (which then keeps to one thread).
pub(crate) fn decoding_ahead() {
    AHEAD.with(|a| a.set(true));
}

/// How much of the caller's stack the parser may use before it moves to its own thread.
const CALLER_STACK_BUDGET: usize = 64 * 1024;

/// Stack for parsing deeply nested documents: room for [`MAX_DEPTH`] levels with a wide margin.
const DEEP_STACK: usize = 16 * 1024 * 1024;
