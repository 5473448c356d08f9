//! Helpers shared by the inspection answers: source locations, who changed the builder, the
//! parameters a value reads, and the names of services referred to by a written statement.

use crate::builder::Actor;
use crate::source::{SourceMap, Span};
use serde::Serialize;
use std::fmt;
use wireplan_runtime::plan::Expr as P;

/// A place in a source file: the file's display name, 1-based line and byte column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file's name as the compilation shows it (the path as given, or `<-p name>`).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
}

impl Location {
    /// The location of `span`'s start in `sources`.
    pub fn of(sources: &SourceMap, span: Span) -> Location {
        let f = sources.get(span.file);
        let (line, column) = f.line_col(span.start as usize);
        Location {
            file: f.name.clone(),
            line,
            column,
        }
    }

    /// [`Location::of`] for an optional span.
    pub fn of_opt(sources: &SourceMap, span: Option<Span>) -> Option<Location> {
        span.map(|s| Location::of(sources, s))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Who changed the builder: an extension's lifecycle method, or a built-in step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActorInfo {
    /// The extension's name (its key under `extensions:`), or the built-in step (`search`,
    /// `decorator`, `inject`).
    pub extension: String,
    /// The lifecycle method that ran (`loadConfiguration`, `beforeCompile`).
    pub method: String,
    /// The compiler phase of that method (`A`, `B`).
    pub phase: char,
    /// A built-in step of the compiler rather than a script.
    pub builtin: bool,
}

impl From<&Actor> for ActorInfo {
    fn from(a: &Actor) -> ActorInfo {
        ActorInfo {
            extension: a.extension.clone(),
            method: a.method.clone(),
            phase: a.phase(),
            builtin: a.builtin,
        }
    }
}

impl fmt::Display for ActorInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.builtin {
            write!(
                f,
                "the built-in {} step (phase {})",
                self.extension, self.phase
            )
        } else {
            write!(
                f,
                "extension {} in {}() (phase {})",
                self.extension, self.method, self.phase
            )
        }
    }
}

/// The text at `span` when it is a call of a built-in function that collects services
/// (`tagged(mail.filter)`, `typed(App\Filter)`): what `explain` names as the source of a
/// list of references, which were written as that call, not one by one.
pub(crate) fn collector_written_at(sources: &SourceMap, span: Option<Span>) -> Option<String> {
    let span = span?;
    let text = sources
        .get(span.file)
        .text
        .get(span.start as usize..span.end as usize)?
        .trim();
    ["tagged(", "typed("]
        .iter()
        .any(|f| text.starts_with(f) && text.ends_with(')') && !text.contains('\n'))
        .then(|| text.to_string())
}

/// The names of the `%name%` placeholders written in the source text of `span` (what a value
/// was expanded from); empty for spans outside the source map's text.
pub(crate) fn parameters_written_at(sources: &SourceMap, span: Option<Span>) -> Vec<String> {
    let Some(span) = span else {
        return Vec::new();
    };
    let f = sources.get(span.file);
    let Some(text) = f.text.get(span.start as usize..span.end as usize) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('%') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('%') else { break };
        let name = &after[..end];
        if name.is_empty() {
            rest = &after[end + 1..]; // `%%`, a literal percent sign
            continue;
        }
        if name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
            rest = &after[end + 1..];
        } else {
            rest = after;
        }
    }
    out
}

/// The dynamic parameters the value reads (anywhere inside), each once, in order.
pub(crate) fn reads_dynamic(v: &P) -> Vec<String> {
    fn walk(v: &P, out: &mut Vec<String>) {
        match v {
            P::Param(n) if !out.contains(n) => out.push(n.clone()),
            P::List(items) | P::Concat(items) => items.iter().for_each(|x| walk(x, out)),
            P::Map(m) => m.values().for_each(|x| walk(x, out)),
            P::New { args, .. } | P::Call { args, .. } => args.iter().for_each(|x| walk(x, out)),
            P::Func { arg, .. } => walk(arg, out),
            P::Set { value, .. } => walk(value, out),
            P::ArgOr { default, .. } => walk(default, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

/// The services a definition refers to by name as written (`@name`, `@name::method()`,
/// `@name::$prop`), before `complete` turned them into references: the creator's callee and
/// arguments give `Constructor`, setup statements `Setup`, a locator's references `Locator`;
/// a reference inside a list is a `Collection` item. References by type (`@App\\Logger`) and
/// `@self` are left out. In order, each (name, kind) once.
pub(crate) fn written_references(
    d: &crate::builder::Definition,
    out: &mut Vec<(String, super::EdgeKind)>,
) {
    use super::EdgeKind;
    use crate::expr::{Callee, Expr, ExprKind as K, Statement};
    fn name(text: &str) -> Option<&str> {
        let t = text.strip_prefix('@')?;
        let t = t.split("::").next().unwrap_or(t);
        (!t.is_empty() && t != "self" && !t.contains('\\')).then_some(t)
    }
    fn push(n: &str, kind: EdgeKind, out: &mut Vec<(String, EdgeKind)>) {
        if !out.iter().any(|(m, k)| m == n && *k == kind) {
            out.push((n.to_string(), kind));
        }
    }
    fn statement(st: &Statement, kind: EdgeKind, out: &mut Vec<(String, EdgeKind)>) {
        match &st.callee {
            Callee::Name(n) => {
                if let Some(n) = name(n) {
                    push(n, kind, out);
                }
            }
            Callee::Member(target, _) => expr(target, kind, out),
        }
        st.arguments.values().for_each(|v| expr(v, kind, out));
    }
    fn expr(e: &Expr, kind: EdgeKind, out: &mut Vec<(String, EdgeKind)>) {
        match &e.kind {
            K::Str(s) => {
                if let Some(n) = name(s) {
                    push(n, kind, out);
                }
            }
            K::Array(a) => {
                let item = if a.is_list() {
                    EdgeKind::Collection
                } else {
                    kind
                };
                for v in a.values() {
                    match &v.kind {
                        K::Str(_) => expr(v, item, out),
                        _ => expr(v, kind, out),
                    }
                }
            }
            K::Statement(st) => statement(st, kind, out),
            K::Concat(parts) => parts.iter().for_each(|v| expr(v, kind, out)),
            _ => {}
        }
    }
    if let Some(st) = &d.creator {
        statement(st, EdgeKind::Constructor, out);
    }
    d.setup.iter().for_each(|e| expr(e, EdgeKind::Setup, out));
    d.extras()
        .references
        .values()
        .for_each(|e| expr(e, EdgeKind::Locator, out));
}
