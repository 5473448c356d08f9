//! `wireplan neon decode` and `wireplan neon encode`: NEON to JSON and back, for scripts and
//! for checking how a file reads (docs/tools.md).

use super::{color, emit, say};
use std::path::PathBuf;
use std::process::ExitCode;
use wireplan::diagnostics::{self, Code, Diagnostic};
use wireplan::source::SourceMap;

fn read_input(
    path: &std::path::Path,
    sources: &mut SourceMap,
) -> Result<(wireplan::source::FileId, Vec<u8>), Diagnostic> {
    if path.as_os_str() == "-" {
        let bytes = read_standard_input().map_err(|e| {
            Diagnostic::error(
                Code::FileNotFound,
                format!("Cannot read standard input: {e}"),
            )
        })?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let id = sources.add("<stdin>", text);
        return Ok((id, bytes));
    }
    let bytes = wireplan::source::read_input_file(path).map_err(|e| {
        let d = Diagnostic::error(
            Code::FileNotFound,
            format!("Cannot read '{}': {e}", path.display()),
        );
        if wireplan::source::is_not_a_regular_file(&e) {
            d.with_note("give `-` to read standard input")
        } else {
            d
        }
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let id = sources.add_path(path.display().to_string(), path, text);
    Ok((id, bytes))
}

/// Standard input, to its end, at most [`wireplan::source::MAX_FILE_SIZE`] bytes (as a file).
fn read_standard_input() -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let limit = wireplan::source::MAX_FILE_SIZE;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is larger than {} MiB", limit >> 20),
        ));
    }
    Ok(bytes)
}

pub(super) fn neon_decode(file: PathBuf) -> ExitCode {
    let mut sources = SourceMap::new();
    match read_input(&file, &mut sources) {
        Err(d) => {
            diagnostics::render(&sources, &[d], color());
            ExitCode::from(1)
        }
        Ok((id, bytes)) => match wireplan::neon::decode_bytes(&bytes, id) {
            Ok(v) => {
                let json = wireplan::neon::to_json(&v);
                emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&json).unwrap_or_default()
                ));
                ExitCode::SUCCESS
            }
            Err(d) => {
                diagnostics::render(&sources, &[d], color());
                ExitCode::from(1)
            }
        },
    }
}

/// A JSON error: (message, 1-based line, 0-based byte column) and, when known, the byte offset.
type JsonError = ((String, usize, usize), Option<usize>);

/// Parses JSON as deep as NEON values go (the output of `neon decode` nests up to 500 levels,
/// beyond serde_json's default limit of 128): the nesting is measured first and bounded, then
/// parsed without the limit on a thread with a large stack.
fn read_deep_json(bytes: &[u8]) -> Result<serde_json::Value, JsonError> {
    use serde::Deserialize as _;
    const MAX_JSON_DEPTH: usize = 4 * wireplan::neon::MAX_DEPTH + 4;
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'[' | b'{' if !in_string => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    let msg = format!("nested deeper than {MAX_JSON_DEPTH} levels");
                    return Err(((msg, 0, 0), Some(i)));
                }
            }
            b']' | b'}' if !in_string => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let parse = move || {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        de.disable_recursion_limit();
        let v = serde_json::Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
        v.map_err(|e| {
            // serde's own "at line L column C" counts differently from the label below (column
            // 0 at a line's start): the label says where.
            let text = e.to_string();
            let text = match text.rfind(" at line ") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            ((text, e.line(), e.column().saturating_sub(1)), None)
        })
    };
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(64 * 1024 * 1024)
            .spawn_scoped(scope, parse)
            .map_err(|e| ((e.to_string(), 0, 0), Some(0)))?
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The largest `--indent N` (a number of spaces).
const MAX_INDENT: usize = 64;

/// Reads `neon encode --indent`: `\t` (a backslash and `t`, as typed in a shell) is a tab, a
/// whole number `N` from 1 to [`MAX_INDENT`] is `N` spaces, and any other non-empty string of
/// spaces and tabs is used as it is. The error says what was given and what is accepted.
fn indent_value(given: &str) -> Result<String, String> {
    if given == "\\t" {
        return Ok("\t".to_string());
    }
    let number = !given.is_empty() && given.bytes().all(|b| b.is_ascii_digit());
    match given.parse::<usize>() {
        Ok(n @ 1..=MAX_INDENT) if number => return Ok(" ".repeat(n)),
        _ if number => {}
        _ if !given.is_empty() && given.bytes().all(|b| b == b' ' || b == b'\t') => {
            return Ok(given.to_string())
        }
        _ => {}
    }
    Err(format!(
        "{given:?} given; expected one or more spaces or tabs, a number of spaces from 1 to \
         {MAX_INDENT} (`4`), or `\\t` for a tab"
    ))
}

/// `neon encode`: canonical JSON in, NEON out. Exit 1 for unreadable or unencodable input, 2 for
/// a bad `--indent`.
pub(super) fn neon_encode(file: PathBuf, inline: bool, indent: &str) -> ExitCode {
    use wireplan::neon::{self, EncodeError, EncodeOptions};
    // Checked before the input is read: a usage error is reported as one, whatever the file.
    let indent = match indent_value(indent) {
        Ok(i) => i,
        Err(e) => {
            say(format_args!("error[{}]: --indent: {e}", Code::Usage));
            return ExitCode::from(2);
        }
    };
    let opts = if inline {
        EncodeOptions::inline()
    } else {
        EncodeOptions::block()
    }
    .with_indent(indent);
    let mut sources = SourceMap::new();
    let fail = |sources: &SourceMap, d: Diagnostic| {
        diagnostics::render(sources, &[d], color());
        ExitCode::from(1)
    };
    let (id, bytes) = match read_input(&file, &mut sources) {
        Ok(x) => x,
        Err(d) => return fail(&sources, d),
    };
    // A leading UTF-8 byte-order mark is skipped, as it is in NEON files, plans and catalogs
    // (editors on Windows write one); positions still count it.
    let base = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let json = match read_deep_json(&bytes[base..]) {
        Ok(j) => j,
        Err((message, at)) => {
            let at = match at {
                Some(at) => at + base,
                // (The source map's first line starts after the mark.)
                None => sources.get(id).line_start(message.1.saturating_sub(1)) + message.2,
            }
            .min(bytes.len());
            let d = Diagnostic::error(Code::InvalidValue, format!("Invalid JSON: {}", message.0))
                .with_primary(wireplan::source::Span::new(id, at, at), "here");
            return fail(&sources, d);
        }
    };
    match neon::from_json(&json).and_then(|v| neon::encode(&v, &opts)) {
        Ok(text) if inline => {
            emit(&format!("{text}\n"));
            ExitCode::SUCCESS
        }
        Ok(text) => {
            emit(&text);
            ExitCode::SUCCESS
        }
        Err(e @ EncodeError::BadIndent(_)) => {
            say(format_args!("error[{}]: --indent: {e}", Code::Usage));
            ExitCode::from(2)
        }
        Err(e) => fail(
            &sources,
            Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "Cannot encode {} as NEON: {e}",
                    if file.as_os_str() == "-" {
                        "<stdin>".to_string()
                    } else {
                        format!("'{}'", file.display())
                    }
                ),
            ),
        ),
    }
}
