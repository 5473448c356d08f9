//! Reading and writing plans: the JSON form and the binary form, with the checks that make a
//! wrong file a clear error instead of a confusing one.
//!
//! Both forms hold the same [`Plan`] model. The binary form is
//!
//! ```text
//! offset  size  field
//!      0     8  magic: the bytes "WIREPLAN"
//!      8     4  plan version, u32 little-endian (OLDEST_VERSION..=VERSION)
//!     12     8  payload length in bytes, u64 little-endian
//!     20     8  payload checksum (see `checksum`), u64 little-endian
//!     28     n  payload: the plan in postcard encoding (a mirror of the model, every field
//!               present, in declaration order)
//! ```
//!
//! so a file from another version is recognised before its payload is decoded, and a
//! truncated or damaged file is caught by the length and checksum. Loading picks the form by
//! content (the magic), not by file name.

use std::path::Path;

use crate::error::Error;
use crate::plan::{Plan, FORMAT, OLDEST_VERSION, VERSION};

mod atomic;
pub(crate) mod decode;
mod json_path;
mod mirror;
mod unique;

pub use atomic::{
    files_put_in_place, remove_unfinished_files, write_atomic, write_atomic_with, PlanFile,
    WRITEBACK_STEP, WRITE_BUFFER,
};
#[doc(hidden)]
pub use json_path::plan_format_error;

/// The first eight bytes of every binary plan.
pub const BINARY_MAGIC: &[u8; 8] = b"WIREPLAN";
/// Size of the binary header in bytes (magic, version, length, checksum).
pub const BINARY_HEADER_LEN: usize = 28;

/// Which form a plan file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Pretty-printed JSON with a final newline: readable, diffable.
    #[default]
    Json,
    /// The binary form described in the [module docs](self): smaller and faster to load.
    Binary,
}

impl Encoding {
    /// The encoding a file name asks for: [`Encoding::Binary`] for names ending in `.bin`
    /// (any letter case: `app.BIN` too), [`Encoding::Json`] otherwise.
    pub fn for_path(path: &Path) -> Encoding {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("bin") => Encoding::Binary,
            _ => Encoding::Json,
        }
    }
}

/// The checksum of the binary payload: over 8-byte little-endian words `w` (the last one
/// zero-padded), `h = (h.rotate_left(5) ^ w) * 0x51_7c_c1_b7_27_22_0a_95` (wrapping), starting
/// from `h = payload length`. Cheap enough to check on every load.
pub fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    h
}

impl Plan {
    /// The JSON form: pretty-printed, keys in model order, with a final newline. The same
    /// plan always gives the same text.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The binary form (header and postcard payload, see the [module docs](self)). The same
    /// plan always gives the same bytes. A plan whose `version` is older than 3 is written in
    /// that version's layout, without the `dynamic` section (which such a plan cannot carry).
    pub fn to_binary(&self) -> Vec<u8> {
        let payload = mirror::encode(self);
        let mut out = Vec::with_capacity(BINARY_HEADER_LEN + payload.len());
        out.extend_from_slice(BINARY_MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&checksum(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// The plan in the given encoding.
    pub fn encode(&self, encoding: Encoding) -> Vec<u8> {
        match encoding {
            Encoding::Json => self.to_json().into_bytes(),
            Encoding::Binary => self.to_binary(),
        }
    }

    /// Reads a plan from bytes in either form (binary when they start with
    /// [`BINARY_MAGIC`], JSON otherwise). `origin` names the source in errors.
    ///
    /// Errors: [`Error::VersionMismatch`] for a plan of another version;
    /// [`Error::BadPlan`] for anything that is not a whole, intact wireplan plan (wrong
    /// format, truncated, checksum mismatch, malformed JSON or payload), with the reason.
    pub fn from_bytes(bytes: &[u8], origin: &str) -> Result<Plan, Error> {
        if bytes.starts_with(BINARY_MAGIC) {
            return Plan::from_binary(bytes, origin);
        }
        // An empty file, or the first bytes of a binary plan cut short, is named as such
        // rather than read as JSON (`EOF while parsing`, `this text starts with 'W'`).
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(bad(
                origin,
                if bytes.is_empty() {
                    "the file is empty (a plan is a JSON object or a binary plan)".to_string()
                } else {
                    "the file holds only white space (a plan is a JSON object or a binary plan)"
                        .to_string()
                },
            ));
        }
        if BINARY_MAGIC.starts_with(bytes) {
            return Err(bad(
                origin,
                format!(
                    "truncated binary plan: {} byte(s), fewer than its {}-byte WIREPLAN mark",
                    bytes.len(),
                    BINARY_MAGIC.len()
                ),
            ));
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Plan::from_json_str(text, origin),
            Err(e) => Err(bad(
                origin,
                format!(
                    "neither a binary plan (no WIREPLAN magic) nor UTF-8 JSON (invalid byte at \
                     offset {})",
                    e.valid_up_to()
                ),
            )),
        }
    }

    /// Reads a plan file in either form. Errors as [`Plan::from_bytes`], plus [`Error::Io`];
    /// all name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Plan, Error> {
        let (bytes, origin) = read_plan_file(path.as_ref())?;
        Plan::from_bytes(&bytes, &origin)
    }

    /// Reads the JSON form. Errors as [`Plan::from_bytes`].
    pub fn from_json_str(json: &str, origin: &str) -> Result<Plan, Error> {
        // Editors sometimes save a UTF-8 byte order mark; it is not part of the JSON.
        let json = json.strip_prefix('\u{feff}').unwrap_or(json);
        match serde_json::from_str::<Plan>(json) {
            Ok(plan) => {
                check_header(&plan.format, u64::from(plan.version), origin)?;
                if let Err(e) = serde_json::from_str::<unique::UniqueKeys>(json) {
                    return Err(bad(origin, format!("malformed plan: {e}")));
                }
                Ok(plan)
            }
            Err(full) => {
                // JSON that is not an object (`[]`, `5`, `"x"`) is no plan at all: say so,
                // rather than serde's words about the fields of a struct.
                if let Ok(value) = serde_json::from_str::<serde_json::Value>(json) {
                    if let Some(kind) = json_kind(&value) {
                        return Err(bad(
                            origin,
                            format!(
                                "not a plan: a JSON plan is an object with \"format\": \
                                 \"{FORMAT}\", and this document is {kind}"
                            ),
                        ));
                    }
                }
                // Explain a foreign or old file by its header rather than by a field error.
                #[derive(serde::Deserialize)]
                struct Header {
                    format: Option<serde_json::Value>,
                    version: Option<serde_json::Value>,
                }
                if let Ok(h) = serde_json::from_str::<Header>(json) {
                    let format = h.format.as_ref().and_then(|f| f.as_str());
                    let version = h.version.as_ref().and_then(|v| v.as_u64());
                    match (format, version) {
                        (Some(f), Some(v)) => check_header(f, v, origin)?,
                        (None, _) => {
                            return Err(bad(
                                origin,
                                format!("no \"format\": \"{FORMAT}\" field (not a wireplan plan)"),
                            ))
                        }
                        (Some(f), None) => {
                            check_header(f, u64::from(VERSION), origin)?;
                            let reason = match &h.version {
                                None => "\"version\" is missing".to_string(),
                                Some(v) => format!(
                                    "\"version\" must be a whole number from \
                                     {OLDEST_VERSION} to {VERSION}, found {v}"
                                ),
                            };
                            return Err(bad(origin, reason));
                        }
                    }
                }
                // Text that does not start like JSON is most likely the configuration itself
                // (NEON), given where its compiled plan belongs. The JSON parser's own words
                // ("expected ident at line 1 column 2") say nothing more to its reader.
                if let Some(first) = non_json_start(json).filter(|_| full.is_syntax()) {
                    return Err(bad(
                        origin,
                        format!(
                            "not a plan: a plan is a JSON object or a binary plan, and this text \
                             starts with {first:?}; a NEON configuration is compiled into a plan \
                             first"
                        ),
                    ));
                }
                let what = if full.is_eof() {
                    "truncated JSON plan"
                } else if full.is_syntax() {
                    "corrupt JSON plan"
                } else {
                    "malformed plan"
                };
                // Where it went wrong (`services › clock › lifespan`), from a second decode
                // that tracks the path: the fast one above does not, and a truncated plan's
                // path is only where the text ends.
                let located = (!full.is_eof())
                    .then(|| json_path::located_error(json))
                    .flatten();
                let why = located.unwrap_or_else(|| full.to_string());
                Err(bad(origin, format!("{what}: {why}")))
            }
        }
    }

    /// Reads the binary form. Errors as [`Plan::from_bytes`].
    pub fn from_binary(bytes: &[u8], origin: &str) -> Result<Plan, Error> {
        let (payload, version) = binary_payload(bytes, origin)?;
        let plan = decode::decode(payload, version)
            .map_err(|e| bad(origin, format!("corrupt binary plan: {e}")))?;
        check_header(&plan.format, u64::from(plan.version), origin)?;
        Ok(plan)
    }

    /// Writes the plan to `path` in `encoding`, atomically (a temporary file in the same
    /// folder, synced, then renamed over the target): a reader sees the old or the new plan,
    /// never half of one. Errors: [`Error::Write`] naming the file.
    pub fn write(&self, path: impl AsRef<Path>, encoding: Encoding) -> Result<(), Error> {
        let path = path.as_ref();
        write_atomic(path, &self.encode(encoding)).map_err(|cause| Error::Write {
            origin: path.display().to_string(),
            what: "plan",
            cause,
        })
    }
}

/// The payload of a binary plan and the version its header announces, once the header,
/// length and checksum are checked (errors as [`Plan::from_binary`] words them).
pub(crate) fn binary_payload<'b>(bytes: &'b [u8], origin: &str) -> Result<(&'b [u8], u64), Error> {
    if !bytes.starts_with(BINARY_MAGIC) {
        return Err(bad(
            origin,
            "not a binary wireplan plan (no WIREPLAN magic)",
        ));
    }
    if bytes.len() < BINARY_HEADER_LEN {
        return Err(bad(
            origin,
            format!(
                "truncated binary plan: {} bytes, shorter than the {BINARY_HEADER_LEN}-byte \
                 header",
                bytes.len()
            ),
        ));
    }
    let word = |at: usize, n: usize| {
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(&bytes[at..at + n]);
        u64::from_le_bytes(w)
    };
    let version = word(8, 4);
    if version > u64::from(VERSION) + MAX_VERSION_STEP {
        // No wireplan writes such a number: a damaged header, not a plan from the future.
        return Err(bad(
            origin,
            format!(
                "corrupt binary plan: the header's version field reads {version}, which no \
                 wireplan writes"
            ),
        ));
    }
    if !readable(version) {
        return Err(Error::VersionMismatch {
            origin: origin.to_string(),
            found: version,
            expected: VERSION,
        });
    }
    let len = word(12, 8);
    let sum = word(20, 8);
    let payload = &bytes[BINARY_HEADER_LEN..];
    if payload.len() as u64 != len {
        let what = if (payload.len() as u64) < len {
            "truncated"
        } else {
            "corrupt"
        };
        return Err(bad(
            origin,
            format!(
                "{what} binary plan: the header announces {len} payload bytes, the file has \
                 {}",
                payload.len()
            ),
        ));
    }
    if checksum(payload) != sum {
        return Err(bad(
            origin,
            "corrupt binary plan: the payload checksum does not match (the file was changed \
             or damaged after it was written: copy it again, or compile the plan again)",
        ));
    }
    Ok((payload, version))
}

/// How far past [`VERSION`] a binary plan's version may be and still be read as a newer
/// plan ("made by a newer version of wireplan"); a larger number is a damaged header (one
/// flipped bit of its four bytes makes a version in the thousands or millions).
const MAX_VERSION_STEP: u64 = 1000;

/// Whether this runtime reads plan version `version` ([`OLDEST_VERSION`] to [`VERSION`]).
pub(crate) fn readable(version: u64) -> bool {
    (u64::from(OLDEST_VERSION)..=u64::from(VERSION)).contains(&version)
}

fn bad(origin: &str, reason: impl Into<String>) -> Error {
    Error::BadPlan {
        origin: origin.to_string(),
        reason: reason.into(),
    }
}

fn check_header(format: &str, version: u64, origin: &str) -> Result<(), Error> {
    if format != FORMAT {
        return Err(bad(
            origin,
            format!("format is '{format}', expected '{FORMAT}' (not a wireplan plan)"),
        ));
    }
    if !readable(version) {
        return Err(Error::VersionMismatch {
            origin: origin.to_string(),
            found: version,
            expected: VERSION,
        });
    }
    Ok(())
}

/// What a JSON document that is not an object is (`an array`, `a number`, ...); `None` for an
/// object.
fn json_kind(value: &serde_json::Value) -> Option<&'static str> {
    Some(match value {
        serde_json::Value::Object(_) => return None,
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Null => "null",
    })
}

/// The first character of `text` (after a byte order mark and blanks) when it cannot begin
/// JSON (`{`, or `[`): text such as a NEON configuration given where a plan belongs. `None` for
/// empty text and for text that starts like JSON. The one rule for "this text is not a plan"
/// (the compiler's tools ask it too).
pub fn non_json_start(text: &str) -> Option<char> {
    let first = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .chars()
        .next()?;
    (first != '{' && first != '[').then_some(first)
}

/// The bytes of a plan file and the name errors use for it. Errors: [`Error::Io`] naming the
/// file, also when it is a directory, device, FIFO or socket (never read).
pub(crate) fn read_plan_file(path: &Path) -> Result<(Vec<u8>, String), Error> {
    let origin = path.display().to_string();
    // A device (`/dev/zero`), FIFO or socket would be read without end or block; a directory
    // cannot be read. Asked before opening, since opening a FIFO already blocks.
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            let what = if meta.is_dir() {
                "it is a directory, not a plan file"
            } else {
                "it is not a regular file (a device, FIFO or socket), which is never read as a plan"
            };
            return Err(Error::Io {
                origin,
                cause: std::io::Error::new(std::io::ErrorKind::InvalidInput, what),
            });
        }
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok((bytes, origin)),
        Err(cause) => Err(Error::Io { origin, cause }),
    }
}

#[cfg(test)]
mod tests;
