//! The `wireplan:` section: settings for the compiler itself rather than for the container —
//! the script sandbox's limits ([`crate::script::sandbox::project_limits`]) and the parameters
//! that are sensitive (docs/configuration.md).

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::neon::{Array, Kind, Value};
use crate::schema::Expect;
use crate::source::Span;
use indexmap::IndexMap;

/// The schema of `wireplan:`; every key is optional: `sandbox:` (a map of limits, see
/// [`crate::script::Limits`]) and `sensitive:` (a list of parameter names).
pub fn schema() -> Expect {
    let count = || Expect::int().min(1.0);
    Expect::structure([
        (
            "sandbox",
            Expect::structure([
                ("timeLimit", Expect::type_("int|float").min(0.001).max(1e9)),
                ("maxAllocated", count()),
                ("maxOperations", count()),
                ("maxCallLevels", count().max(1000.0)),
                ("maxStringSize", count()),
                ("maxArraySize", count()),
                ("maxMapSize", count()),
                ("maxVariables", count()),
            ]),
        ),
        ("sensitive", Expect::list_of(Expect::string())),
    ])
    .skip_defaults()
}

/// The parameter names listed under `wireplan › sensitive`, each with the span of its list
/// item, read from the loaded (not yet expanded) sections, because they decide how parameters
/// expand. A name is a top-level parameter (`dbPassword`) or a dotted path to a value inside
/// one (`database.password`). A sensitive parameter is treated as dynamic: never frozen into
/// the plan, read at start-up, so its value appears in no plan, diagnostic or display. A
/// malformed list is reported by [`schema`] when the section is validated; here only its
/// string items count.
pub fn sensitive_parameters(sections: &Array) -> Vec<(String, Span)> {
    let Some(Kind::Array(section)) = sections.get("wireplan").map(|v| &v.kind) else {
        return Vec::new();
    };
    let Some(Kind::Array(list)) = section.get("sensitive").map(|v| &v.kind) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|(_, v)| match &v.kind {
            Kind::Str(s) => Some((s.to_string(), v.span)),
            _ => None,
        })
        .collect()
}

/// The name under which the text of `-p name=value` is a source (`<-p name>`): diagnostics
/// about the value point into it.
pub fn dash_p_source(name: &str) -> String {
    format!("<-p {name}>")
}

/// The parameter whose `-p` value the source named `file` holds ([`dash_p_source`]'s
/// inverse), or `None` for any other source.
pub fn dash_p_parameter(file: &str) -> Option<&str> {
    file.strip_prefix("<-p ")?.strip_suffix('>')
}

/// Whether the value of parameter `name` (dotted: `db.password`) is, holds or lies inside a
/// parameter of `sensitive`, so it must not be shown.
pub fn covers_sensitive(sensitive: &[String], name: &str) -> bool {
    sensitive.iter().any(|s| {
        s == name
            || s.strip_prefix(name).is_some_and(|r| r.starts_with('.'))
            || name
                .strip_prefix(s.as_str())
                .is_some_and(|r| r.starts_with('.'))
    })
}

/// Leaves the text of sensitive `-p` values out of the diagnostics about them. A `-p` value is
/// decoded before the configuration says which parameters are sensitive, so an error in it
/// (a NEON syntax error, say) points into the value; for a parameter that is sensitive, that
/// holds a key that is, or lies inside one that is, the labels into the value are dropped and
/// a note says why, as `wireplan: sensitive:` promises no diagnostic shows such a value.
/// `sensitive` is `None` when the configuration could not tell (it could not be read whole):
/// then every `-p` value is left out.
pub fn redact_sensitive_overrides(
    diags: &mut [Diagnostic],
    sources: &crate::source::SourceMap,
    sensitive: Option<&[String]>,
) {
    if sensitive.is_some_and(<[String]>::is_empty) {
        return;
    }
    let covered = |name: &str| sensitive.is_none_or(|s| covers_sensitive(s, name));
    for d in diags {
        let mut redacted: Option<String> = None;
        d.labels.retain(|l| {
            let file = &sources.get(l.span.file).name;
            match dash_p_parameter(file).filter(|n| covered(n)) {
                Some(name) => {
                    redacted = Some(name.to_string());
                    false
                }
                None => true,
            }
        });
        if let Some(name) = redacted {
            // The message and notes may quote the value's text (`Unexpected 'hunter2'`).
            d.message = format!("The value given with -p {name} is not valid NEON.");
            d.notes = vec![format!(
                "the value of -p {name} is not shown: it is, or holds, a parameter listed under \
                 `wireplan: sensitive:` (or the configuration could not be read to tell); it is \
                 left out, as if not given"
            )];
        }
    }
}

/// Checks that every sensitive name (from [`sensitive_parameters`]) names a parameter the
/// configuration declares (in `parameters:` or by `-p`): a name that matches none would
/// protect nothing, so it is an `invalid-value` error at its list item rather than ignored.
pub fn check_sensitive(
    sections: &Array,
    overrides: &IndexMap<String, Value>,
    names: &[(String, Span)],
    diags: &mut Diagnostics,
) {
    for (name, span) in names {
        if !crate::config::declares_parameter(sections, overrides, name) {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "Sensitive parameter '{name}' is not declared: no such parameter in \
                         'parameters:'."
                    ),
                )
                .at(Some(*span))
                .with_note(
                    "declare the top-level parameter under `parameters:` (a dotted name such as \
                     `database.password` names a key inside a declared map)",
                ),
            );
        }
    }
}
