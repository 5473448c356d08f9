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

pub use atomic::{write_atomic, write_atomic_with, PlanFile, WRITEBACK_STEP, WRITE_BUFFER};
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
            "corrupt binary plan: the payload checksum does not match",
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
mod tests {
    use super::*;

    /// `.bin` in any letter case asks for the binary form; anything else for JSON.
    #[test]
    fn a_bin_name_in_any_case_asks_for_the_binary_form() {
        for (name, enc) in [
            ("app.bin", Encoding::Binary),
            ("app.BIN", Encoding::Binary),
            ("app.Bin", Encoding::Binary),
            ("app.json", Encoding::Json),
            ("app.bin.json", Encoding::Json),
            ("bin", Encoding::Json),
        ] {
            assert_eq!(Encoding::for_path(Path::new(name)), enc, "{name}");
        }
    }

    fn sample() -> Plan {
        Plan::from_json_str(
            r#"{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
                "parameters": {"x": {"$float": "NAN"}, "m": {"$$k": [1, 2.5, null]}},
                "services": {"a": {"type": "A", "lifespan": "scoped", "autowired": ["A"],
                   "create": {"$new": "A", "args": [{"$param": "env.X"}, {"$concat": ["a", "b"]}]},
                   "setup": [{"$set": ["@self", "p"], "value": {"$ref": "@self"}},
                             {"$call": [{"$ref": "a"}, "m"], "args": [{"$arg": "z"}]}],
                   "source": {"file": "f.neon", "line": 1, "column": 2}},
                  "f": {"kind": "factory", "type": "F", "implement": "F", "parameters": ["z"],
                   "autowired": false, "create": {"$call": ["A", "make"], "args": []}}},
                "types": {"A": ["a"]}, "tags": {"t": {"a": true}},
                "initialization": [{"$call": [{"$ref": "a"}, "go"], "args": []}]}"#,
            "<t>",
        )
        .unwrap()
    }

    #[test]
    fn binary_round_trips_the_same_model() {
        let plan = sample();
        let bin = plan.to_binary();
        let back = Plan::from_bytes(&bin, "<bin>").unwrap();
        // NaN != NaN, so compare the JSON forms.
        assert_eq!(back.to_json(), plan.to_json());
        assert_eq!(bin, back.to_binary());
    }

    /// Names are stored inline up to 24 bytes and on the heap beyond: names on both sides of
    /// that boundary (and multi-byte UTF-8 across it) keep their text through both forms and
    /// are found by the look-ups the loader makes (services, aliases, the types index).
    #[test]
    fn names_on_both_sides_of_the_inline_limit_round_trip() {
        let n24 = "s".repeat(24);
        let n25 = "t".repeat(25);
        let long = format!("App\\{}", "Ž".repeat(30));
        let long_json = long.replace('\\', "\\\\");
        let json = format!(
            r#"{{"format": "wireplan-plan", "version": 3, "compiler": "t", "inputs_hash": "0",
                "services": {{
                  "{n24}": {{"type": "{long_json}", "create": {{"$new": "{long_json}", "args": []}}}},
                  "{n25}": {{"type": "A", "create": {{"$new": "A", "args": [{{"$ref": "{n24}"}}]}}}}}},
                "aliases": {{"{n25}x": "{n25}"}},
                "types": {{"{long_json}": ["{n24}"], "A": ["{n25}"]}}}}"#
        );
        let plan = Plan::from_json_str(&json, "<t>").unwrap();
        for p in [
            plan.clone(),
            Plan::from_bytes(&plan.to_binary(), "<bin>").unwrap(),
        ] {
            assert_eq!(p, plan);
            assert_eq!(p.to_json(), plan.to_json());
            assert_eq!(p.services.get_index_of(n24.as_str()), Some(0));
            assert_eq!(
                p.services[n25.as_str()].create.to_json()["args"][0]["$ref"],
                n24
            );
            assert_eq!(p.services[n24.as_str()].type_, long);
            assert_eq!(p.aliases[format!("{n25}x").as_str()], n25);
            assert_eq!(p.types[long.as_str()].as_slice(), [n24.as_str()]);
        }
    }

    /// The payload of a binary plan (no header).
    fn payload(plan: &Plan) -> Vec<u8> {
        plan.to_binary()[BINARY_HEADER_LEN..].to_vec()
    }

    /// A binary plan around `payload` (of a version-1 plan, as the samples here are), with a
    /// correct header and checksum.
    fn wrap(payload: &[u8]) -> Vec<u8> {
        let mut out = BINARY_MAGIC.to_vec();
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&checksum(payload).to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// `payload` with the first occurrence of `from` replaced by `to`.
    fn splice(payload: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
        let at = payload
            .windows(from.len())
            .position(|w| w == from)
            .expect("the marker is in the payload");
        [&payload[..at], to, &payload[at + from.len()..]].concat()
    }

    /// The postcard bytes of a length-prefixed string (lengths below 128 here).
    fn pstr(s: &str) -> Vec<u8> {
        [&[s.len() as u8][..], s.as_bytes()].concat()
    }

    fn one_service(create: &str) -> Plan {
        Plan::from_json_str(
            &format!(
                r#"{{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
                    "services": {{"db": {{"type": "App\\Db", "create": {create}}}}}}}"#
            ),
            "<t>",
        )
        .unwrap()
    }

    fn binary_error(bytes: &[u8]) -> String {
        match Plan::from_bytes(bytes, "p.bin") {
            Err(e @ Error::BadPlan { .. }) => e.to_string(),
            other => panic!("expected BadPlan, got {other:?}"),
        }
    }

    #[test]
    fn deeply_nested_binary_expressions_stop_the_decoder() {
        // {"$new": "App\\Db", "args": [MARK]}, MARK then replaced by [[[…null…]]].
        let base = payload(&one_service(r#"{"$new": "App\\Db", "args": ["MARK"]}"#));
        let mark = [&[4u8][..], &pstr("MARK")].concat(); // BExpr::Str is variant 4
        for depth in [10_000, 1_000_000] {
            let mut deep = [5u8, 1].repeat(depth); // BExpr::List of one item, nested
            deep.push(0); // BExpr::Null
            let bytes = wrap(&splice(&base, &mark, &deep));
            // On a small stack too: the decoder stops at the limit rather than overflowing.
            let e = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || binary_error(&bytes))
                .unwrap()
                .join()
                .unwrap();
            assert_eq!(
                e,
                "p.bin: invalid plan: corrupt binary plan: an expression is nested more than \
                 108 levels deep (plans allow 100)"
            );
        }
        // Within the decoder's slack, the loader's own depth check reports it.
        let mut deep = [5u8, 1].repeat(101);
        deep.push(0);
        let plan = Plan::from_bytes(&wrap(&splice(&base, &mark, &deep)), "p.bin").unwrap();
        assert_eq!(plan.services["db"].create.json_depth(), 103);
        // And a plan decodes again normally afterwards on the same thread.
        assert_eq!(
            Plan::from_bytes(&wrap(&base), "p.bin").unwrap(),
            one_service(r#"{"$new": "App\\Db", "args": ["MARK"]}"#)
        );
    }

    #[test]
    fn unknown_kind_and_lifespan_codes_are_errors() {
        let base = payload(&one_service(r#"{"$ref": "db"}"#));
        // A service is its name, then kind (u8), type, lifespan (u8).
        let name = pstr("db");
        let ty = pstr("App\\Db");
        let ok = [&name[..], &[0], &ty, &[0]].concat();
        for (kind, lifespan, why) in [
            (9, 0, "service 'db': unknown kind 9 (0 service, 1 factory, 2 accessor, 3 locator, 4 imported, 5 slot)"),
            (255, 0, "service 'db': unknown kind 255"),
            (0, 7, "service 'db': unknown lifespan 7 (0 singleton, 1 scoped, 2 transient)"),
        ] {
            let bad = [&name[..], &[kind], &ty, &[lifespan]].concat();
            let e = binary_error(&wrap(&splice(&base, &ok, &bad)));
            assert!(
                e.starts_with(&format!("p.bin: invalid plan: corrupt binary plan: {why}")),
                "{e}"
            );
        }
        // Every known code still loads.
        for (kind, lifespan) in [(1, 1), (2, 2), (3, 0), (4, 0), (5, 1)] {
            let good = [&name[..], &[kind], &ty, &[lifespan]].concat();
            let plan = Plan::from_bytes(&wrap(&splice(&base, &ok, &good)), "p.bin").unwrap();
            let sp = &plan.services["db"];
            assert_eq!(mirror_codes(sp.kind, sp.lifespan), (kind, lifespan));
        }
    }

    fn mirror_codes(kind: crate::plan::ServiceKind, lifespan: crate::plan::Lifespan) -> (u8, u8) {
        use crate::plan::{Lifespan as L, ServiceKind as K};
        let k = match kind {
            K::Service => 0,
            K::Factory => 1,
            K::Accessor => 2,
            K::Locator => 3,
            K::Imported => 4,
            K::Slot => 5,
        };
        let l = match lifespan {
            L::Singleton => 0,
            L::Scoped => 1,
            L::Transient => 2,
        };
        (k, l)
    }

    #[test]
    fn duplicate_names_and_trailing_bytes_are_errors() {
        // Two services, then the second renamed to the first's name ("da" -> "db").
        let two = Plan::from_json_str(
            r#"{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
                "services": {"db": {"type": "A", "create": {"$new": "A", "args": ["x"]}},
                             "da": {"type": "A", "create": {"$new": "A", "args": ["y"]}}},
                "aliases": {"a1": "db", "a2": "da"},
                "types": {"T1": ["db"], "T2": ["da", "db"]}}"#,
            "<t>",
        )
        .unwrap();
        let base = payload(&two);
        let dup = splice(&base, &pstr("da"), &pstr("db"));
        assert_eq!(
            binary_error(&wrap(&dup)),
            "p.bin: invalid plan: corrupt binary plan: service 'db' appears twice"
        );
        let dup = splice(&base, &pstr("a2"), &pstr("a1"));
        assert_eq!(
            binary_error(&wrap(&dup)),
            "p.bin: invalid plan: corrupt binary plan: alias 'a1' appears twice"
        );
        // The types index: an entry of one service and one of two, the second renamed.
        let dup = splice(&base, &pstr("T2"), &pstr("T1"));
        assert_eq!(
            binary_error(&wrap(&dup)),
            "p.bin: invalid plan: corrupt binary plan: type 'T1' appears twice"
        );
        let mut trailing = base.clone();
        trailing.extend_from_slice(b"garbage");
        assert_eq!(
            binary_error(&wrap(&trailing)),
            "p.bin: invalid plan: corrupt binary plan: 7 byte(s) after the end of the plan"
        );
        assert_eq!(Plan::from_bytes(&wrap(&base), "p.bin").unwrap(), two);
    }

    #[test]
    fn strings_are_utf8_checked_ascii_or_not() {
        // ASCII names take the inline check, others the general one: both round-trip.
        let plan = Plan::from_json_str(
            r#"{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
                "services": {"café": {"type": "App\\Db", "create": {"$new": "App\\Db",
                   "args": ["naïve", {"$ref": "db"}]}},
                             "db": {"type": "A", "create": {"$new": "A", "args": []}}}}"#,
            "<t>",
        )
        .unwrap();
        let base = payload(&plan);
        assert_eq!(Plan::from_bytes(&wrap(&base), "p.bin").unwrap(), plan);
        // A name whose bytes are not UTF-8 (an ASCII name with its last byte replaced by a
        // lone continuation byte, and a non-ASCII one cut inside a character) is refused.
        for (from, to) in [
            (pstr("db"), [&[2u8][..], b"d", &[0x80]].concat()),
            (pstr("café"), [&[5u8][..], b"caf", &[0xc3, 0x28]].concat()),
        ] {
            let bad = splice(&base, &from, &to);
            let err = binary_error(&wrap(&bad));
            assert!(
                err.contains("a string that is not UTF-8"),
                "{}: {err}",
                String::from_utf8_lossy(&from)
            );
        }
    }

    /// A plan with every section, every service field and every expression variant.
    fn rich(version: u32) -> Plan {
        let mut plan = Plan::from_json_str(
            r#"{"format": "wireplan-plan", "version": 3, "compiler": "t", "inputs_hash": "ab",
              "dependencies": [{"path": "a.neon", "hash": "01"}],
              "parameters": {"m": {"$$k": [1, -2, 2.5, null, true, "s"]}},
              "services": {
                "a": {"type": "A", "lifespan": "scoped", "autowired": ["A", "I"],
                  "tags": {"t": {"k": 1}},
                  "create": {"$new": "A", "args": [{"$param": "env.X"},
                     {"$concat": ["a", {"$param": "p"}]}, {"$func": "int", "args": [{"$param": "q"}]},
                     {"$get": [{"$ref": "b"}, "dsn"]}, {"$callable": ["A", "now"]},
                     {"$callable": ["@self", "h"]}, {"$provider": "b"}, -9223372036854775808]},
                  "setup": [{"$set": ["@self", "p"], "value": {"$ref": "@self"}},
                            {"$call": [{"$ref": "a"}, "m"], "args": [1]}],
                  "source": {"file": "f.neon", "line": 300, "column": 2}, "requires_async": true},
                "b": {"type": "B", "create": {"$call": ["B", "make"], "args": []}},
                "f": {"kind": "factory", "type": "F", "implement": "F", "parameters": ["z", "lvl"],
                  "autowired": false,
                  "create": {"$new": "A", "args": [{"$arg": "z"}, {"$arg": "lvl", "default": [4]}]}},
                "l": {"kind": "locator", "type": "L", "implement": "L", "create": null,
                  "references": {"x": {"$ref": "a"}}},
                "s": {"kind": "slot", "type": "S", "lifespan": "scoped", "create": null},
                "i": {"kind": "imported", "type": "Imp", "lifespan": "transient", "create": null}},
              "aliases": {"al": "a"}, "types": {"A": ["a"], "I": ["a", "b"]},
              "tags": {"t": {"a": {"k": 1}}},
              "initialization": [{"$call": [{"$ref": "a"}, "go"], "args": []}],
              "dynamic": {"env.X": {"type": "?int", "default": 5, "required": true,
                                    "sensitive": true}, "p": {}}}"#,
            "<t>",
        )
        .unwrap();
        plan.version = version;
        if version < 3 {
            plan.dynamic.clear();
        }
        plan
    }

    #[test]
    fn every_section_and_variant_round_trips_in_every_version() {
        for version in OLDEST_VERSION..=VERSION {
            let plan = rich(version);
            let bin = plan.to_binary();
            assert_eq!(Plan::from_bytes(&bin, "<bin>").unwrap(), plan, "{version}");
            assert_eq!(bin, Plan::from_bytes(&bin, "<bin>").unwrap().to_binary());
        }
        // Version 3 carries what earlier layouts cannot: the dynamic section and the async bit.
        let plan = Plan::from_bytes(&rich(3).to_binary(), "<bin>").unwrap();
        assert_eq!(plan.dynamic.len(), 2);
        assert!(plan.services["a"].requires_async);
        assert_eq!(plan.services["a"].create.json_depth(), 5);
    }

    /// The payload cut after every byte, wrapped in a correct header: always a typed error
    /// (never a panic, never a different plan).
    #[test]
    fn every_cut_of_a_payload_is_an_error() {
        let bin = rich(3).to_binary();
        let body = &bin[BINARY_HEADER_LEN..];
        for cut in 0..body.len() {
            let mut out = bin[..12].to_vec();
            out.extend_from_slice(&(cut as u64).to_le_bytes());
            out.extend_from_slice(&checksum(&body[..cut]).to_le_bytes());
            out.extend_from_slice(&body[..cut]);
            let e = binary_error(&out);
            assert!(
                e.starts_with("p.bin: invalid plan: corrupt binary plan: "),
                "{cut}: {e}"
            );
        }
    }

    #[test]
    fn a_length_prefix_reserves_no_more_than_the_payload_holds() {
        // A plan whose services claim u64::MAX entries: an error, not an allocation failure.
        let base = payload(&one_service(r#"{"$ref": "db"}"#));
        let one = [&[1u8][..], &pstr("db")].concat(); // one service, named "db"
        let many = [
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01][..],
            &pstr("db"),
        ]
        .concat();
        let e = binary_error(&wrap(&splice(&base, &one, &many)));
        assert!(
            e.starts_with("p.bin: invalid plan: corrupt binary plan: "),
            "{e}"
        );
        // A varint longer than ten bytes is refused as such.
        let long = [&[0xffu8; 11][..], &pstr("db")].concat();
        let e = binary_error(&wrap(&splice(&base, &one, &long)));
        assert!(e.contains("overflows 64 bits"), "{e}");
    }

    #[test]
    fn json_that_is_not_an_object_is_not_a_plan() {
        // (new user's trial: `[]` read "invalid length 0, expected struct Plan with 12
        // elements", `[[[]]]` "expected a string")
        for (text, kind) in [
            ("[]", "an array"),
            ("[[[1]]]", "an array"),
            ("5", "a number"),
            ("\"plan\"", "a string"),
            ("true", "a boolean"),
            ("null", "null"),
        ] {
            let e = Plan::from_json_str(text, "p.json").unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "p.json: invalid plan: not a plan: a JSON plan is an object with \
                     \"format\": \"{FORMAT}\", and this document is {kind}"
                ),
                "{text}"
            );
        }
        // An object keeps the header's explanation.
        let e = Plan::from_json_str("{}", "p.json").unwrap_err().to_string();
        assert!(e.contains("no \"format\""), "{e}");
    }

    #[test]
    fn damaged_binary_is_rejected() {
        let bin = sample().to_binary();
        let e = Plan::from_bytes(&bin[..bin.len() - 3], "p.bin").unwrap_err();
        assert!(
            e.to_string().contains("p.bin: invalid plan: truncated"),
            "{e}"
        );
        let mut flipped = bin.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x40;
        let e = Plan::from_bytes(&flipped, "p.bin").unwrap_err();
        assert!(e.to_string().contains("checksum"), "{e}");
        let mut newer = bin;
        let next = VERSION + 1;
        newer[8..12].copy_from_slice(&next.to_le_bytes());
        assert!(matches!(
            Plan::from_bytes(&newer, "p.bin"),
            Err(Error::VersionMismatch { found, .. }) if found == u64::from(next)
        ));
        // A damaged version byte is a corrupt header, not a plan from a newer wireplan (new
        // user's trial: byte 10 flipped read as "plan version 16711683 … newer version").
        let mut damaged = newer;
        damaged[8..12].copy_from_slice(&VERSION.to_le_bytes());
        damaged[10] ^= 0xff;
        let e = Plan::from_bytes(&damaged, "p.bin").unwrap_err();
        assert!(
            e.to_string()
                .contains("corrupt binary plan: the header's version field reads"),
            "{e}"
        );
        assert!(!e.to_string().contains("newer"), "{e}");
    }
}
