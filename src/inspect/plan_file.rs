//! Reading a plan file for inspection: either encoding, recognised by content, and every way
//! it can fail as one diagnostic.

use crate::diagnostics::{Code, Diagnostic};
use std::path::Path;
use wireplan_runtime::encoding::BINARY_MAGIC;
use wireplan_runtime::plan::Plan;
use wireplan_runtime::Encoding;

/// A plan read from a file, with the encoding it had.
#[derive(Debug, Clone)]
pub struct PlanFile {
    /// The path as given, for display.
    pub name: String,
    /// JSON or binary (recognised by the binary magic, not by the file name).
    pub encoding: Encoding,
    /// The plan.
    pub plan: Plan,
}

/// The word for an encoding in tool output: `"json"` or `"binary"`.
pub fn encoding_name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Json => "json",
        Encoding::Binary => "binary",
    }
}

/// Whether `bytes` are a JSON document whose `format` is a type catalog's.
fn is_catalog(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        format: Option<String>,
    }
    serde_json::from_slice::<Head>(bytes)
        .is_ok_and(|h| h.format.as_deref() == Some(wireplan_runtime::catalog::FORMAT))
}

/// Reads the plan file at `path`.
///
/// Errors (one diagnostic, without a source location): `file-not-found` when the file cannot
/// be read (missing, a directory, too large); `invalid-plan` when it is not a wireplan plan
/// (another format, damaged or truncated) or a plan of another version, with the runtime's
/// reason.
pub fn read_plan(path: &Path) -> Result<PlanFile, Diagnostic> {
    let name = path.display().to_string();
    let bytes = crate::source::read_input_file(path).map_err(|e| {
        Diagnostic::error(
            Code::FileNotFound,
            format!("Cannot read the plan '{name}': {e}"),
        )
    })?;
    let encoding = if bytes.starts_with(BINARY_MAGIC) {
        Encoding::Binary
    } else {
        Encoding::Json
    };
    match Plan::from_bytes(&bytes, &name) {
        Ok(plan) => Ok(PlanFile {
            name,
            encoding,
            plan,
        }),
        Err(e) => {
            let d = Diagnostic::error(Code::InvalidPlan, e.to_string());
            // A type catalog (what a registry writes, `--catalog`): no plan, no configuration.
            if encoding == Encoding::Json && is_catalog(&bytes) {
                return Err(d.with_note(format!(
                    "'{name}' is a type catalog: it describes the Rust types, and a \
                     configuration is compiled with it (`wireplan compile CONFIG --catalog \
                     {name} -o app.plan.json`)"
                )));
            }
            Err(if looks_like_configuration(&bytes) {
                d.with_note(format!(
                    "'{name}' looks like a configuration, not a plan: compile it first \
                     (`wireplan compile {name} -o app.plan.json`), or ask `wireplan explain` or \
                     `wireplan repl`, which read configurations"
                ))
            } else {
                d
            })
        }
    }
}

/// Whether `bytes` (a file, or its first bytes) are text that is not JSON at all (a plan's
/// JSON starts with `{`), such as a NEON configuration given where a plan is expected. A
/// character cut off at the end of a prefix does not count against it.
pub fn looks_like_configuration(bytes: &[u8]) -> bool {
    // A binary plan, or the first bytes of its mark (a plan cut short), is no configuration.
    if bytes.starts_with(BINARY_MAGIC) || (!bytes.is_empty() && BINARY_MAGIC.starts_with(bytes)) {
        return false;
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    // (a JSON document such as `5` or `"x"` is not a configuration either)
    wireplan_runtime::encoding::non_json_start(text).is_some()
        && serde_json::from_str::<serde_json::Value>(text).is_err()
}

/// How many [`problems`] are listed one by one; the rest are counted in one more warning.
pub const MAX_PROBLEMS: usize = 20;

/// What is wrong with a readable plan ([`crate::plan::problems`]), as `invalid-plan` warnings:
/// `show`, `graph` and `diff` still show such a plan (edited by hand or by a tool) and print
/// these first, so that it cannot look sound. Each says when it fails: what the runtime refuses at
/// load (a reference, provider, alias, autowiring or tag entry naming no service; another
/// format or version; a singleton that holds a scoped service, [`crate::plan::captives`]; a
/// service that needs one marked `requires_async` without the mark itself,
/// [`wireplan_runtime::plan::async_flags`]), or when the service is first created (a `create`
/// that constructs nothing, a construction cycle). At most [`MAX_PROBLEMS`] are listed, then
/// one warning counts the rest.
pub fn problems(plan: &Plan) -> Vec<Diagnostic> {
    // A plan that read is of a version the runtime reads (older ones too): the compiler's
    // "must stay version N" rule is for plans edited in `afterCompile()`, not for files.
    let found: Vec<crate::plan::Problem> = crate::plan::problems(plan)
        .into_iter()
        .filter(|p| !matches!(p, crate::plan::Problem::Format { .. }))
        .collect();
    const AT_CREATION: &str =
        "the runtime loads this plan but fails when the service is first created";
    let mut listed: Vec<(String, &str)> = found
        .iter()
        .map(|p| {
            let note = if p.refused_at_load() {
                "the runtime refuses to load this plan"
            } else {
                AT_CREATION
            };
            (p.to_string(), note)
        })
        .collect();
    // A singleton that holds a scoped service (a plan edited after compiling: the compiler
    // refuses to write one): the runtime refuses the plan at load.
    const AT_LOAD: &str = "the runtime refuses to load this plan";
    listed.extend(
        crate::plan::captives(plan)
            .into_iter()
            .chain(wireplan_runtime::plan::slot_problems(plan))
            .map(|line| (line, AT_LOAD)),
    );
    // A service that needs one marked requires_async, unmarked itself (no registry here:
    // which constructors are async is not known, so only the flags' agreement is checked).
    listed.extend(
        wireplan_runtime::plan::async_flags(plan, &|_| None)
            .iter()
            .map(|p| (p.to_string(), AT_LOAD)),
    );
    let more = listed.len().saturating_sub(MAX_PROBLEMS);
    let mut out: Vec<Diagnostic> = listed
        .into_iter()
        .take(MAX_PROBLEMS)
        .map(|(words, note)| {
            let mut first = words.chars();
            let message = match first.next() {
                // A place in the plan (`services › blog: …`) is written as the loader writes
                // it; a sentence starts with a capital.
                Some(_) if words.starts_with("services › ") => format!("{words}."),
                Some(c) => format!("{}{}.", c.to_uppercase(), first.as_str()),
                None => words.clone(),
            };
            Diagnostic::warning(Code::InvalidPlan, message).with_note(note)
        })
        .collect();
    if more > 0 {
        out.push(Diagnostic::warning(
            Code::InvalidPlan,
            format!("… and {more} more such problem(s) in the plan."),
        ));
    }
    out
}
