//! Where a value used through a parameter was written: an error about a value that reached a
//! service through `%name%` points at the `%name%`, and the parameter's own line (where the
//! value is fixed) is labelled too (a new user's trial: `perPage: ten` was reported only at
//! `App\Repo(perPage: %perPage%)`).

use crate::diagnostics::{Code, Diagnostics, Label};
use crate::source::{SourceMap, Span};

/// For each diagnostic from index `from` on whose primary span is exactly one `%name%` (the
/// whole value, so the value is the parameter's) naming a parameter the `parameters:`
/// section writes (`written`: dotted names and the spans of their values, sorted by name):
/// a secondary label at that value, "%name% is defined here". Only value errors
/// (`invalid-value`) are labelled: the other errors at a `%name%` are about the reference,
/// not the value. A parameter a `-p` value sets (`by_command_line`) is left to the note that
/// says so.
pub(super) fn label_parameter_values(
    diags: &mut Diagnostics,
    from: usize,
    sources: &SourceMap,
    written: &[(String, Span)],
    by_command_line: &dyn Fn(&str) -> bool,
) {
    if written.is_empty() {
        return;
    }
    for d in diags.since_mut(from) {
        if d.code != Code::InvalidValue {
            continue;
        }
        let Some(span) = d.primary_span() else {
            continue;
        };
        let Some(text) = sources.get(span.file).text.get(span.range()) else {
            continue;
        };
        let Some(name) = whole_reference(text.trim()).filter(|n| !by_command_line(n)) else {
            continue;
        };
        let at = written
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| written[i].1);
        if let Some(at) = at.filter(|at| *at != span) {
            d.labels.push(Label {
                span: at,
                message: format!("%{name}% is defined here"),
                primary: false,
            });
        }
    }
}

/// The name of `text` when it is one parameter reference and nothing else (`%a.b%`).
fn whole_reference(text: &str) -> Option<&str> {
    let name = text.strip_prefix('%')?.strip_suffix('%')?;
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    plain.then_some(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_whole_reference_is_one() {
        assert_eq!(super::whole_reference("%a.b%"), Some("a.b"));
        assert_eq!(super::whole_reference("%a%/x"), None);
        assert_eq!(super::whole_reference("%%"), None);
        assert_eq!(super::whole_reference("x"), None);
    }
}
