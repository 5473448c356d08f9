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

/// Whether `bytes` that failed to load as a plan are text that is not JSON at all (a plan's
/// JSON starts with `{`), such as a NEON configuration given where a plan is expected.
fn looks_like_configuration(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let text = text.trim_start_matches('\u{feff}').trim_start();
    !text.is_empty() && !text.starts_with('{') && !text.starts_with('[')
}
