//! Diagnostics as a SARIF 2.1.0 log (`wireplan check --format sarif`), the format GitHub code
//! scanning and editors read.
//!
//! The log has one run. `tool.driver.rules` lists each diagnostic code that occurs (id = the
//! kebab-case code, `shortDescription` = [`Code::description`]), in the order of
//! [`Code::ALL`]. Each diagnostic is one result: `ruleId`/`ruleIndex`, `level` (`error` or
//! `warning`), `message.text` (the message, then the notes on their own lines), the primary
//! label as the physical location and the secondary labels as `relatedLocations`. Every result
//! has a location (GitHub's upload refuses one without): a diagnostic with no position in a
//! file (a bad `-p` value, a missing configuration) points at the root configuration file, as
//! an artifact location without a region. Artifact URIs
//! are relative to the directory given (the current one for the CLI), with forward slashes;
//! files outside it get an absolute `file://` URI. Regions are 1-based; columns count UTF-16
//! code units (SARIF's default `columnKind`, stated in the run), `endColumn` is one past the
//! last character. The same input gives the same output.

use super::{Code, Diagnostic, Severity};
use crate::source::{SourceFile, SourceMap, Span};
use serde_json::{json, Value as Json};
use std::path::{Component, Path};

/// The `$schema` URI written into every log.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log of `groups`: diagnostics with the source map their spans belong to (the CLI
/// has one map for its `-p` values and one for the compilation). `cwd` is the directory URIs
/// are made relative to; `root` the root configuration file (as given, whether or not it
/// exists), the location of results that have no file position of their own.
pub fn to_sarif(groups: &[(&SourceMap, &[Diagnostic])], cwd: &Path, root: &Path) -> Json {
    let used: Vec<Code> = Code::ALL
        .iter()
        .copied()
        .filter(|c| groups.iter().any(|(_, ds)| ds.iter().any(|d| d.code == *c)))
        .collect();
    let rules: Vec<Json> = used
        .iter()
        .map(|c| {
            json!({
                "id": c.as_str(),
                "shortDescription": {"text": c.description()},
            })
        })
        .collect();
    let mut results = Vec::new();
    for (sources, diags) in groups {
        for d in diags.iter() {
            results.push(result(sources, d, &used, cwd, root));
        }
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "wireplan",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "utf16CodeUnits",
            "results": results,
        }],
    })
}

fn result(sources: &SourceMap, d: &Diagnostic, rules: &[Code], cwd: &Path, root: &Path) -> Json {
    let mut text = d.message.clone();
    for n in &d.notes {
        text.push('\n');
        text.push_str(n);
    }
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut out = json!({
        "ruleId": d.code.as_str(),
        "ruleIndex": rules.iter().position(|c| *c == d.code).unwrap_or(0),
        "level": level,
        "message": {"text": text},
    });
    let loc = d
        .primary_span()
        .and_then(|s| physical_location(sources, s, cwd))
        .unwrap_or_else(|| json!({"artifactLocation": {"uri": artifact_uri(root, cwd)}}));
    out["locations"] = json!([{ "physicalLocation": loc }]);
    let related: Vec<Json> = d
        .labels
        .iter()
        .filter(|l| !l.primary)
        .filter_map(|l| {
            let loc = physical_location(sources, l.span, cwd)?;
            Some((loc, l.message.clone()))
        })
        .enumerate()
        .map(|(i, (loc, message))| {
            let mut r = json!({"id": i, "physicalLocation": loc});
            if !message.is_empty() {
                r["message"] = json!({ "text": message });
            }
            r
        })
        .collect();
    if !related.is_empty() {
        out["relatedLocations"] = Json::Array(related);
    }
    out
}

/// The `physicalLocation` of a span, or `None` for text that did not come from a file (a `-p`
/// value).
fn physical_location(sources: &SourceMap, span: Span, cwd: &Path) -> Option<Json> {
    let file = sources.get(span.file);
    let path = file.path.as_deref()?;
    let (start_line, start_column) = utf16_position(file, span.start as usize);
    let (end_line, end_column) = utf16_position(file, span.end as usize);
    Some(json!({
        "artifactLocation": {"uri": artifact_uri(path, cwd)},
        "region": {
            "startLine": start_line,
            "startColumn": start_column,
            "endLine": end_line,
            "endColumn": end_column,
        },
    }))
}

/// 1-based line and 1-based UTF-16 column of byte offset `at`.
fn utf16_position(file: &SourceFile, at: usize) -> (usize, usize) {
    let text = &file.text;
    let at = at.min(text.len());
    let line = file.line_index(at);
    let start = file.line_start(line);
    let column = match text.get(start..at) {
        Some(prefix) => prefix.encode_utf16().count(),
        // Not on a character boundary (never produced by the compiler): count bytes.
        None => at - start,
    };
    (line + 1, column + 1)
}

/// `path` as a URI reference: relative to `cwd` with forward slashes when it lies inside it,
/// an absolute `file://` URI otherwise. Characters outside RFC 3986's unreserved set and `/`
/// are percent-encoded.
pub fn artifact_uri(path: &Path, cwd: &Path) -> String {
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let path = crate::source::normalize_path(&path);
    let cwd = crate::source::normalize_path(cwd);
    match path.strip_prefix(&cwd) {
        Ok(rel) => encode_components(rel),
        Err(_) => format!("file://{}", encode_components(&path)),
    }
}

fn encode_components(path: &Path) -> String {
    let mut out = String::new();
    for c in path.components() {
        match c {
            Component::RootDir => {}
            Component::Prefix(p) => {
                out.push('/');
                out.push_str(&percent_encode(&p.as_os_str().to_string_lossy()));
                continue;
            }
            other => {
                if !out.is_empty() || path.has_root() {
                    out.push('/');
                }
                out.push_str(&percent_encode(&other.as_os_str().to_string_lossy()));
            }
        }
    }
    out
}

fn percent_encode(part: &str) -> String {
    let mut out = String::new();
    for b in part.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn uris_are_relative_with_forward_slashes_and_encoded() {
        let cwd = PathBuf::from("/work/app");
        assert_eq!(
            artifact_uri(Path::new("/work/app/config/a b.neon"), &cwd),
            "config/a%20b.neon"
        );
        assert_eq!(artifact_uri(Path::new("config/../x.neon"), &cwd), "x.neon");
        assert_eq!(
            artifact_uri(Path::new("/etc/x.neon"), &cwd),
            "file:///etc/x.neon"
        );
    }

    #[test]
    fn columns_count_utf16_units_and_rules_follow_codes() {
        let mut sm = SourceMap::new();
        let text = "a: 'é𝄞'\nb: x\n";
        let f = sm.add_path("c.neon", Path::new("/w/c.neon"), text.to_string());
        let at = text.find('\n').unwrap();
        let d = Diagnostic::error(Code::InvalidValue, "bad")
            .with_primary(Span::new(f, 3, at), "here")
            .with_secondary(Span::new(f, at + 1, at + 2), "there")
            .with_note("did you mean 'c'?");
        let w = Diagnostic::warning(Code::PartialGraph, "partial");
        let log = to_sarif(&[(&sm, &[w, d])], Path::new("/w"), Path::new("/w/app.neon"));
        let run = &log["runs"][0];
        let rules: Vec<&str> = run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        assert_eq!(rules, ["invalid-value", "partial-graph"]);
        let r = &run["results"][1];
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["message"]["text"], "bad\ndid you mean 'c'?");
        let region = &r["locations"][0]["physicalLocation"]["region"];
        // `'é𝄞'` starts at column 4 and is 5 UTF-16 units long (𝄞 takes two).
        assert_eq!(region["startColumn"], 4);
        assert_eq!(region["endColumn"], 4 + 1 + 2 + 2);
        assert_eq!(
            r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
            2
        );
        assert_eq!(run["results"][0]["level"], "warning");
        // A result with no position of its own points at the root configuration, no region.
        assert_eq!(
            run["results"][0]["locations"],
            serde_json::json!([{"physicalLocation": {"artifactLocation": {"uri": "app.neon"}}}])
        );
    }
}
