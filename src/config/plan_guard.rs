//! Recognising a plan file given where a configuration is expected (`wireplan explain
//! app.plan.json blog`), so that the user hears that instead of a page of NEON errors about
//! the plan's JSON keys or its binary bytes.

use crate::diagnostics::{Code, Diagnostic};
use std::io::Read;
use std::path::Path;
use wireplan_runtime::encoding::BINARY_MAGIC;
use wireplan_runtime::plan::FORMAT;

/// How much of the file is read to recognise a plan: the binary magic, or a JSON plan's
/// `"format"` member, which wireplan writes first (a hand-edited plan may move it; 4 KiB leaves
/// room for that).
pub const PREFIX_LEN: usize = 4096;

/// When `path` holds a wireplan plan rather than a configuration, the error to report instead
/// of reading it as NEON: "'X' is a plan file, not a configuration", with a note naming
/// `wireplan show`, `graph` and `diff`, which read plans. `None` when the file is not a plan
/// or cannot be read, or is not a regular file (the loader reports those itself).
///
/// A plan is recognised by content, never by the file name: the binary header's magic bytes
/// (`WIREPLAN`, see `wireplan_runtime::encoding`), or JSON whose top-level object has
/// `"format": "wireplan-plan"` within the first `PREFIX_LEN` bytes. Only that prefix is read.
/// The diagnostic has the code `invalid-value` (a value of the wrong kind for where it is
/// used) and no source location: the file is not shown, as it may be binary.
pub fn plan_file_hint(path: &Path) -> Option<Diagnostic> {
    // Only a regular file is opened: opening a FIFO blocks until a writer comes (the loader
    // then refuses it as "not a regular file").
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    plan_bytes_hint(path, &read_prefix(path)?)
}

/// The first [`PREFIX_LEN`] bytes of the file at `path` (all of a shorter one); `None` when it
/// cannot be opened or read.
fn read_prefix(path: &Path) -> Option<Vec<u8>> {
    let mut prefix = Vec::with_capacity(PREFIX_LEN);
    std::fs::File::open(path)
        .ok()?
        .take(PREFIX_LEN as u64)
        .read_to_end(&mut prefix)
        .ok()?;
    Some(prefix)
}

/// What `path` holds, as far as replacing it with a plan goes: `None` when it is not an
/// existing regular file (nothing to look at: the writer reports what it finds), else
/// `Some(true)` for an empty file (or one of white space only) or a plan (recognised by content as in [`plan_file_hint`],
/// from the first `PREFIX_LEN` bytes), `Some(false)` for anything else, including a file
/// that cannot be read.
pub fn holds_plan_or_nothing(path: &Path) -> Option<bool> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.len() == 0 {
        return Some(true);
    }
    // White space alone (`echo > plan.json`) holds nothing either (a new user's trial).
    Some(read_prefix(path).is_some_and(|prefix| {
        let blank = prefix.len() as u64 == meta.len() && prefix.iter().all(u8::is_ascii_whitespace);
        blank || is_plan_prefix(&prefix)
    }))
}

/// [`plan_file_hint`] for a file already read (`bytes`, its content or a prefix of it): an
/// included file is read whole before it is decoded.
pub fn plan_bytes_hint(path: &Path, bytes: &[u8]) -> Option<Diagnostic> {
    if !is_plan_prefix(&bytes[..bytes.len().min(PREFIX_LEN)]) {
        return None;
    }
    let name = path.display();
    let from = match compiled_from(path) {
        Some(config) => format!(" ('{config}', as the compiler was given it)"),
        None => String::new(),
    };
    Some(
        Diagnostic::error(
            Code::InvalidValue,
            format!("'{name}' is a plan file, not a configuration"),
        )
        .with_note(format!(
            "give the NEON configuration the plan was compiled from{from}; to look at a plan, \
             use `wireplan show PLAN`, `wireplan graph PLAN` or `wireplan diff OLD NEW`"
        )),
    )
}

/// The largest plan file read whole to name the configuration it was compiled from.
const MAX_PLAN_READ: u64 = 64 << 20;

/// The root configuration a plan file records as its first dependency (the path the compiler
/// was given), when the file reads as a plan; `None` for a plan without dependencies, a damaged
/// one or one larger than [`MAX_PLAN_READ`].
fn compiled_from(path: &Path) -> Option<String> {
    if std::fs::metadata(path).ok()?.len() > MAX_PLAN_READ {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let plan =
        wireplan_runtime::plan::Plan::from_bytes(&bytes, &path.display().to_string()).ok()?;
    plan.dependencies.first().map(|d| d.path.clone())
}

/// Whether `prefix` (the start of a file) is the start of a binary or JSON plan.
fn is_plan_prefix(prefix: &[u8]) -> bool {
    if prefix.starts_with(BINARY_MAGIC) {
        return true;
    }
    let Ok(text) = std::str::from_utf8(prefix).or_else(|e| {
        // The prefix may end inside a multi-byte character.
        std::str::from_utf8(&prefix[..e.valid_up_to()])
    }) else {
        return false;
    };
    let text = text.trim_start_matches('\u{feff}').trim_start();
    let Some(body) = text.strip_prefix('{') else {
        return false;
    };
    top_level_format(body) == Some(FORMAT)
}

/// The string value of the `"format"` member of the top-level JSON object whose text after
/// the opening `{` is `body` (possibly cut short), if it appears before the cut. Members of
/// nested objects are skipped by tracking the nesting depth and strings.
fn top_level_format(body: &str) -> Option<&str> {
    let bytes = body.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i)?;
                if depth == 0 && &body[i..=end] == "\"format\"" {
                    let rest = body[end + 1..].trim_start().strip_prefix(':')?.trim_start();
                    let value = rest.strip_prefix('"')?;
                    let close = string_end(rest.as_bytes(), 0)?;
                    return Some(&value[..close - 1]);
                }
                i = end;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth == 0 => return None,
            b'}' | b']' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote closing the JSON string that opens at `bytes[start]`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_both_plan_encodings_by_content() {
        assert!(is_plan_prefix(b"WIREPLAN\x02\x00\x00\x00"));
        assert!(is_plan_prefix(
            b"{\n  \"format\": \"wireplan-plan\",\n  \"version\": 2,"
        ));
        // Cut short after the member, and with the member after nested values.
        assert!(is_plan_prefix(
            b"{\"meta\": {\"format\": \"x\"}, \"list\": [1, {\"a\": \"}\"}], \"format\":\"wireplan-plan\""
        ));
    }

    #[test]
    fn other_files_are_not_plans() {
        for text in [
            &b"services:\n\tformat: wireplan-plan\n"[..],
            b"{\"format\": \"other-plan\"}",
            b"{\"meta\": {\"format\": \"wireplan-plan\"}}",
            b"[\"format\", \"wireplan-plan\"]",
            b"{\"format\": \"wireplan-pl",
            b"",
            b"\xff\xfe binary",
        ] {
            assert!(!is_plan_prefix(text), "{}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn the_hint_names_the_file_and_the_plan_tools() {
        let dir = tempfile::tempdir().expect("temp dir");
        let plan = dir.path().join("app.plan.json");
        std::fs::write(&plan, "{\"format\": \"wireplan-plan\", \"version\": 2}").expect("write");
        let d = plan_file_hint(&plan).expect("a plan");
        assert_eq!(d.code, Code::InvalidValue);
        assert_eq!(
            d.message,
            format!("'{}' is a plan file, not a configuration", plan.display())
        );
        assert!(d.notes[0].contains("wireplan show PLAN"), "{:?}", d.notes);
        let neon = dir.path().join("app.neon");
        std::fs::write(&neon, "services:\n").expect("write");
        assert_eq!(plan_file_hint(&neon), None);
        assert_eq!(plan_file_hint(&dir.path().join("missing.neon")), None);
    }
}
