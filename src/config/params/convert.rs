//! Converting decoded NEON values into expressions while expanding `%parameter%`
//! references in them: strings, keys, lists and maps, entities (statements).

use super::super::placeholders::{join_reference, split, Part};
use super::{Expander, MAX_EXPANDED_LEN};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use crate::neon::{Array, Entity, Key, Kind, Value};
use crate::source::Span;

impl Expander<'_> {
    /// Symfony's `%env(DATABASE_URL)%` (also with a processor: `%env(int:PORT)%`) is no
    /// reference in Nette or here, so it stays text: a warning names the reference that reads
    /// the variable, `%env.DATABASE_URL%`, instead of letting the text reach the service.
    fn symfony_env(&mut self, s: &str, span: Span) {
        let Some(start) = s.find("%env(") else {
            return;
        };
        let inner = &s[start + "%env(".len()..];
        let Some(end) = inner.find(")%") else {
            return;
        };
        let variable = inner[..end].rsplit(':').next().unwrap_or_default();
        if variable.is_empty()
            || !variable
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return;
        }
        let written = &s[start..start + "%env(".len() + end + 2];
        self.diags.push(
            Diagnostic::warning(
                Code::MissingParameter,
                format!(
                    "'{written}' is text, not a reference: wireplan reads the environment variable {variable} as %env.{variable}%."
                ),
            )
            .at(Some(span))
            .with_note("Symfony's %env(...)% and its processors are not Nette syntax; Nette leaves the text as written, and so does wireplan"),
        );
    }

    fn expand_string(&mut self, s: &str, span: Span) -> Expr {
        if !s.contains('%') {
            return Expr::new(ExprKind::Str(s.to_string()), Some(span));
        }
        self.symfony_env(s, span);
        let parts = split(s);
        if let [Part::Ref(name)] = parts.as_slice() {
            return self.reference(name, span);
        }
        let mut out: Vec<Expr> = Vec::new();
        let mut text = String::new();
        // Where the string's own text starts in the file, when its bytes are written there as
        // they read (a literal, or quotes around text without escapes): then a reference's
        // problems point at `%name%` itself, not at the whole string.
        let text_at = match (span.end - span.start) as usize {
            n if n == s.len() => Some(span.start),
            n if n == s.len() + 2 => Some(span.start + 1),
            _ => None,
        };
        let mut cursor = 0;
        for part in parts {
            match part {
                Part::Text(t) => text.push_str(&t),
                Part::Ref(name) => {
                    let needle = format!("%{name}%");
                    let at = match (text_at, s[cursor..].find(&needle)) {
                        (Some(base), Some(i)) => {
                            let from = base as usize + cursor + i;
                            cursor += i + needle.len();
                            Span::new(span.file, from, from + needle.len())
                        }
                        _ => span,
                    };
                    let v = self.reference(&name, at);
                    if !join_reference(v.kind, &mut text, &mut out) {
                        self.diags.push(
                            Diagnostic::error(
                                Code::InvalidValue,
                                format!(
                                    "Unable to concatenate non-scalar parameter '{name}' into '{s}'."
                                ),
                            )
                            .at(self.loc(Some(span))),
                        );
                    }
                }
            }
        }
        if text.len() > MAX_EXPANDED_LEN {
            // Parameters that embed each other twice per level grow exponentially.
            self.diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "Expanding '{s}' gives a string of {} bytes; the limit is {MAX_EXPANDED_LEN}.",
                        text.len()
                    ),
                )
                .at(self.loc(Some(span))),
            );
            return Expr::new(ExprKind::Null, Some(span));
        }
        if out.is_empty() {
            return Expr::new(ExprKind::Str(text), Some(span));
        }
        if !text.is_empty() {
            out.push(Expr::string(text));
        }
        Expr::new(ExprKind::Concat(out), Some(span))
    }

    fn convert_array(&mut self, a: &Array) -> ExprArray {
        let mut out = ExprArray::new();
        out.items.reserve(a.len());
        // A map with string keys (a section, a service's options) has a span per key.
        if matches!(a.entries.first(), Some((Key::Str(_), _))) {
            out.reserve_key_spans(a.len());
        }
        for (key, entry) in &a.entries {
            let key = self.expand_key(key, entry.key_span);
            let v = self.convert(&entry.value);
            out.set_key_span(&key, entry.key_span);
            out.items.insert(key, v);
        }
        out
    }

    /// [`Expander::convert_array`] over a collection it consumes: keys and values move.
    fn convert_array_owned(&mut self, a: Array) -> ExprArray {
        let mut out = ExprArray::new();
        out.items.reserve(a.len());
        // A map with string keys (a section, a service's options) has a span per key.
        if matches!(a.entries.first(), Some((Key::Str(_), _))) {
            out.reserve_key_spans(a.len());
        }
        for (key, entry) in a.entries {
            let key = self.expand_key_owned(key, entry.key_span);
            let v = self.convert_owned(entry.value);
            out.set_key_span(&key, entry.key_span);
            out.items.insert(key, v);
        }
        out
    }

    /// [`Expander::expand_key`] for a key it consumes: a key without `%` moves unchanged.
    pub(super) fn expand_key_owned(&mut self, key: Key, key_span: Span) -> Key {
        match key {
            Key::Str(s) if s.contains('%') => self.expand_key(&Key::Str(s), key_span),
            other => other,
        }
    }

    /// A map key (written at `key_span`) with its `%parameter%` references expanded.
    pub(super) fn expand_key(&mut self, key: &Key, key_span: Span) -> Key {
        match key {
            Key::Str(s) if s.contains('%') => match self.expand_string(s, key_span).kind {
                ExprKind::Str(x) => Key::from_string(x),
                ExprKind::Int(i) => Key::Int(i),
                _ => {
                    self.diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("The key '{s}' must expand to a string."),
                        )
                        .at(self.loc(Some(key_span))),
                    );
                    key.clone()
                }
            },
            _ => key.clone(),
        }
    }

    fn convert_entity(&mut self, e: &Entity, target: Option<Expr>) -> Statement {
        let callee = self.entity_callee(&e.value, target);
        let mut arguments = self.convert_array(&e.attributes);
        arguments
            .items
            .retain(|k, _| !crate::expr::is_skipped(&e.attributes, k));
        Statement { callee, arguments }
    }

    /// What an entity calls: its name with parameters expanded (`%cls%(x)`, `@db::%m%()`, as
    /// Nette expands a statement's entity), or Nette's callable form `[target, method]`.
    /// Problems are reported here; the callee is then empty.
    fn entity_callee(&mut self, value: &Value, target: Option<Expr>) -> Callee {
        let with_target = |name: String, target: Option<Expr>| match target {
            Some(t) => Callee::Member(Box::new(t), name.trim_start_matches("::").to_string()),
            None => Callee::Name(name),
        };
        let (problem, written) = match &value.kind {
            Kind::Str(s) if !s.contains('%') => return with_target(s.to_string(), target),
            Kind::Str(s) => {
                let reported = self.diags.items().len();
                let expanded = self.expand_string(s, value.span);
                match expanded.kind {
                    ExprKind::Str(name) => return with_target(name, target),
                    // `%callable%(x)` with `callable: [App\Foo, create]`.
                    ExprKind::Array(items) if target.is_none() => {
                        match crate::expr::callable_callee(&items) {
                            Ok(c) => return c,
                            Err(why) => (why, format!("'{s}'")),
                        }
                    }
                    // A missing parameter or an oversized expansion, reported already.
                    ExprKind::Null if self.diags.items().len() > reported => {
                        return Callee::Name(String::new())
                    }
                    ExprKind::Dynamic(_) | ExprKind::Concat(_) => (
                        "the name of a statement is needed now, and a dynamic parameter is only \
                         known at run time"
                            .to_string(),
                        format!("'{s}'"),
                    ),
                    _ => (
                        format!(
                            "expected a name, {} given",
                            Expr::bare(expanded.kind).describe()
                        ),
                        format!("'{s}'"),
                    ),
                }
            }
            Kind::Array(a) if target.is_none() => {
                let items = self.convert_array(a);
                match crate::expr::callable_callee(&items) {
                    Ok(c) => return c,
                    Err(why) => (why, "the list".to_string()),
                }
            }
            _ => (
                format!("expected a name, {} given", value.type_name()),
                "it".to_string(),
            ),
        };
        self.diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("Invalid name before '(': {problem}."),
            )
            .at(self.loc(Some(value.span)))
            .with_note(format!(
                "{written} must be a class, a function, Class::method, @service::method, or \
                 the callable [Class or @service, method]"
            )),
        );
        Callee::Name(String::new())
    }

    /// [`Expander::convert`] over a value it consumes, for values whose expansion is used up
    /// soon (the streamed section's entries, which the catalog reads and drops; a parameter's
    /// own copy): strings, dates and keys move into the expression instead of being copied.
    /// Entities and chains, which are rare, take the borrowing path. Same rules, same
    /// diagnostics in the same order.
    pub(super) fn convert_owned(&mut self, v: Value) -> Expr {
        let quoted = crate::expr::is_quoted_string(&v);
        let escaped = crate::expr::escape_quoted_at(&v).filter(|_| self.literal_at);
        let span = v.span;
        let kind = match v.kind {
            Kind::Str(s) => {
                let mut e = match escaped {
                    Some(escaped) => self.expand_string(&escaped, span),
                    None if !s.contains('%') => {
                        Expr::new(ExprKind::Str(s.into_string()), Some(span))
                    }
                    None => self.expand_string(&s, span),
                };
                e.quoted = quoted;
                return e;
            }
            Kind::Null => ExprKind::Null,
            Kind::Bool(b) => ExprKind::Bool(b),
            Kind::Int(i) => ExprKind::Int(i),
            Kind::Float(f) => ExprKind::Float(f),
            Kind::Date(d) => ExprKind::Str(d),
            Kind::Array(a) => ExprKind::Array(self.convert_array_owned(*a)),
            kind @ (Kind::Entity(_) | Kind::Chain(_)) => {
                return self.convert(&Value::new(kind, span))
            }
        };
        Expr::new(kind, Some(span))
    }

    /// Converts a NEON value to an [`Expr`], expanding parameters.
    pub(super) fn convert(&mut self, v: &Value) -> Expr {
        let span = Some(v.span);
        let kind = match &v.kind {
            Kind::Null => ExprKind::Null,
            Kind::Bool(b) => ExprKind::Bool(*b),
            Kind::Int(i) => ExprKind::Int(*i),
            Kind::Float(f) => ExprKind::Float(*f),
            Kind::Date(d) => ExprKind::Str(d.clone()),
            Kind::Str(s) => {
                let mut e = match crate::expr::escape_quoted_at(v).filter(|_| self.literal_at) {
                    Some(escaped) => self.expand_string(&escaped, v.span),
                    None => self.expand_string(s, v.span),
                };
                e.quoted = crate::expr::is_quoted_string(v);
                return e;
            }
            Kind::Array(a) => ExprKind::Array(self.convert_array(a)),
            Kind::Entity(e) => ExprKind::Statement(Box::new(self.convert_entity(e, None))),
            Kind::Chain(links) => {
                let mut current: Option<Expr> = None;
                for link in links {
                    let st = self.convert_entity(link, current.take());
                    current = Some(Expr::new(ExprKind::Statement(Box::new(st)), span));
                }
                return current.unwrap_or_else(|| Expr::new(ExprKind::Null, span));
            }
        };
        Expr::new(kind, span)
    }
}
