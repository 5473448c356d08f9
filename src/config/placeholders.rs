//! `%name%` placeholders: splitting a string into text and references, and expanding
//! references with parameters that are already known (after phase A, and in `includes:` paths).
//! The configuration's own expansion (with cycles, limits and dynamic parameters) is in
//! [`super::params`].

use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Expr, ExprKind};
use crate::neon::{Kind, Value};
use crate::source::Span;
use indexmap::IndexMap;

/// A piece of a string with `%name%` references.
pub(super) enum Part {
    /// Literal text (`%%` already turned into `%`).
    Text(String),
    /// A reference, `%name%` without the percent signs.
    Ref(String),
}

/// Splits a string into literal text and `%name%` references (`%%` is a literal `%`).
pub(super) fn split(s: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('%') {
        text.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let name_len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '-'))
            .unwrap_or(after.len());
        if after[name_len..].starts_with('%') {
            if name_len == 0 {
                text.push('%');
            } else {
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                parts.push(Part::Ref(after[..name_len].to_string()));
            }
            rest = &after[name_len + 1..];
        } else {
            text.push('%');
            rest = after;
        }
    }
    text.push_str(rest);
    if !text.is_empty() || parts.is_empty() {
        parts.push(Part::Text(text));
    }
    parts
}

/// Expands `%name%` references in `s` with already expanded parameters, for values that
/// reach the compiler after phase A's expansion (maps scripts hand to
/// `loadDefinitionsFromConfig`, `initialization.addBody` statements). The same rules as the
/// configuration's expansion: a reference that is the whole string keeps its value's type,
/// inside a longer string scalars are concatenated (`null` as nothing), `%%` is `%`, and a
/// dynamic parameter (or `%env.NAME%`) makes the string a concatenation done at start-up. A
/// missing parameter (`missing-parameter`, as Nette's `Helpers::expand` throws it) or a list
/// or statement inside a longer string (`invalid-value`) is added to `problems`, at `span`,
/// and its reference stays as written.
pub fn expand_with(
    s: &str,
    params: &IndexMap<String, Expr>,
    span: Option<Span>,
    problems: &mut Vec<Diagnostic>,
) -> Expr {
    let found = |path: &str| -> Option<Expr> {
        let mut segs = path.split('.');
        let mut v = params.get(segs.next()?)?.clone();
        for seg in segs {
            v = v.as_array()?.get(seg)?.clone();
        }
        Some(v)
    };
    // `%env.NAME%` that no parameter gives (no `env` parameter, or `-p env.OTHER=…` only)
    // reads the environment when the container starts.
    let lookup = |path: &str| {
        found(path).or_else(|| {
            (path.starts_with("env.") && path.len() > 4)
                .then(|| Expr::bare(ExprKind::Dynamic(path.to_string())))
        })
    };
    let missing = |name: &str, problems: &mut Vec<Diagnostic>| {
        let d = Diagnostic::error(
            Code::MissingParameter,
            format!("Missing parameter '{name}'."),
        )
        .at(span);
        problems.push(d.with_suggestion(name, params.keys().map(String::as_str)));
    };
    let parts = split(s);
    if let [Part::Ref(name)] = parts.as_slice() {
        match lookup(name) {
            Some(v) => return Expr::new(v.kind, span),
            None => {
                missing(name, problems);
                return Expr::new(ExprKind::Str(s.to_string()), span);
            }
        }
    }
    let mut pieces: Vec<Expr> = Vec::new();
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Text(t) => out.push_str(&t),
            Part::Ref(name) => {
                match lookup(&name).map(|v| join_reference(v.kind, &mut out, &mut pieces)) {
                    Some(true) => {}
                    Some(false) => {
                        problems.push(
                            Diagnostic::error(
                                Code::InvalidValue,
                                format!(
                                    "Unable to concatenate non-scalar parameter '{name}' into '{s}'."
                                ),
                            )
                            .at(span),
                        );
                        out.push_str(&format!("%{name}%"));
                    }
                    None => {
                        missing(&name, problems);
                        out.push_str(&format!("%{name}%"));
                    }
                }
            }
        }
    }
    if pieces.is_empty() {
        return Expr::new(ExprKind::Str(out), span);
    }
    if !out.is_empty() {
        pieces.push(Expr::string(out));
    }
    Expr::new(ExprKind::Concat(pieces), span)
}

/// Adds the expanded value of a `%name%` inside a longer string: a scalar's text to `text`
/// (`null` as nothing, `true` as `1`, floats as PHP writes them), a value read at start-up (a
/// dynamic parameter, a concatenation) to `pieces` of a start-up concatenation, after the
/// text so far. `false` for a list or statement, which cannot be joined: the caller reports
/// Nette's "Unable to concatenate non-scalar parameter".
pub(super) fn join_reference(kind: ExprKind, text: &mut String, pieces: &mut Vec<Expr>) -> bool {
    match kind {
        ExprKind::Str(x) => text.push_str(&x),
        ExprKind::Int(x) => text.push_str(&x.to_string()),
        ExprKind::Float(x) => text.push_str(&php_float(x)),
        ExprKind::Bool(x) => text.push_str(if x { "1" } else { "" }),
        ExprKind::Null => {}
        ExprKind::Dynamic(_) | ExprKind::Concat(_) => {
            if !text.is_empty() {
                pieces.push(Expr::string(std::mem::take(text)));
            }
            match kind {
                ExprKind::Concat(items) => pieces.extend(items),
                other => pieces.push(Expr::bare(other)),
            }
        }
        ExprKind::Array(_) | ExprKind::Statement(_) => return false,
    }
    true
}

/// Expands `%name%` in an `includes:` path with the parameters given from outside. Values must
/// be scalars; `%%` is a literal `%`. Errors: `missing-parameter` (with the names that are
/// available), `invalid-value` for a non-scalar value. The caller adds the span.
pub(crate) fn expand_path(
    s: &str,
    parameters: &IndexMap<String, Value>,
) -> Result<String, Diagnostic> {
    let mut out = String::new();
    for part in split(s) {
        match part {
            Part::Text(t) => out.push_str(&t),
            Part::Ref(name) => {
                let mut segments = name.split('.');
                let top = segments.next().unwrap_or_default();
                let mut value = parameters.get(top);
                for seg in segments {
                    value = value.and_then(|v| v.as_array()).and_then(|a| a.get(seg));
                }
                match value.map(|v| &v.kind) {
                    Some(Kind::Str(x)) => out.push_str(x),
                    Some(Kind::Int(i)) => out.push_str(&i.to_string()),
                    Some(Kind::Float(f)) => out.push_str(&php_float(*f)),
                    Some(Kind::Bool(b)) => out.push_str(if *b { "1" } else { "" }),
                    Some(Kind::Null) => {}
                    Some(_) => {
                        return Err(Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "Unable to concatenate non-scalar parameter '{name}' into '{s}'."
                            ),
                        ))
                    }
                    None => {
                        let mut d = Diagnostic::error(
                            Code::MissingParameter,
                            format!("Missing parameter '{name}'."),
                        )
                        .with_note(
                            "include paths can use only parameters given from outside \
                             (-p NAME=VALUE), as in Nette; parameters of the files are not known yet",
                        );
                        if let Some(hint) = crate::diagnostics::suggest(
                            &name,
                            parameters.keys().map(String::as_str),
                        ) {
                            d = d.with_note(format!("did you mean '{hint}'?"));
                        }
                        return Err(d);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// PHP's string form of a float, as used when a float parameter is concatenated.
pub(super) fn php_float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> Vec<String> {
        split(s)
            .into_iter()
            .map(|p| match p {
                Part::Text(t) => format!("T:{t}"),
                Part::Ref(r) => format!("R:{r}"),
            })
            .collect()
    }

    #[test]
    fn splits_references_and_escapes() {
        assert_eq!(parts("%a%%b%"), ["R:a", "R:b"]);
        assert_eq!(parts("100%%"), ["T:100%"]);
        assert_eq!(parts("x/%a.b%/y"), ["T:x/", "R:a.b", "T:/y"]);
        assert_eq!(parts("50% off"), ["T:50% off"]);
        assert_eq!(parts(""), ["T:"]);
    }

    /// What scripts load is expanded like the configuration: values keep their type, a
    /// dynamic part makes a start-up concatenation, `%env.NAME%` that no parameter gives reads
    /// the environment, and a missing parameter is reported (it stayed as text).
    #[test]
    fn expands_what_scripts_load() {
        let mut env = crate::expr::ExprArray::new();
        env.items.insert(
            crate::neon::Key::Str("A".into()),
            Expr::bare(ExprKind::Int(1)),
        );
        let params: IndexMap<String, Expr> = [
            ("port".to_string(), Expr::bare(ExprKind::Int(80))),
            ("env".to_string(), Expr::bare(ExprKind::Array(env))),
        ]
        .into_iter()
        .collect();
        let mut problems = Vec::new();
        let mut expand = |s: &str| expand_with(s, &params, None, &mut problems).kind;
        assert_eq!(expand("%port%"), ExprKind::Int(80));
        assert_eq!(expand("h:%port%"), ExprKind::Str("h:80".into()));
        assert_eq!(expand("%env.A%"), ExprKind::Int(1));
        assert_eq!(
            expand("h:%env.B%"),
            ExprKind::Concat(vec![
                Expr::string("h:".to_string()),
                Expr::bare(ExprKind::Dynamic("env.B".into()))
            ])
        );
        assert_eq!(expand("%nope%"), ExprKind::Str("%nope%".into()));
        let codes: Vec<&str> = problems.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["missing-parameter"]);
        assert_eq!(problems[0].message, "Missing parameter 'nope'.");
    }
}
