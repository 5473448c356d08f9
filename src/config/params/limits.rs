//! The bounds of `%parameter%` expansion (issue #13): how much references may copy, how
//! long a chain of parameters may be, how deep an expanded value may nest.

use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, Expr, ExprKind};
use crate::neon::Key;
use crate::source::Span;

/// The longest string a `%parameter%` expansion may produce, in bytes (1 MiB).
pub const MAX_EXPANDED_LEN: usize = 1 << 20;

/// The most values (scalars, lists, maps, statements: nodes of the value tree) that
/// `%parameter%` references to lists, maps and statements may copy into the configuration in
/// total, over all parameters and sections (64 Ki). Lists of parameters that repeat the
/// previous one grow exponentially (`p1: [%p0%, %p0%, …]`, `p2: [%p1%, …]`); past this, a
/// reference is an `invalid-value` error and expands to `null`. A reference to a single scalar
/// (`%limit%`, `%db.host%`) does not count: each such copy is written in the input, so their
/// number is bounded by its size (their text counts towards [`MAX_EXPANDED_TEXT`]). Every
/// later stage copies and walks what was expanded (checks, the plan's parameters, encoding):
/// at 128 Ki, inputs of half a kilobyte took up to 0.9 s in the fuzz build (issue #13); a real
/// configuration copies few collections (the generated 703,000-service one copies about 62,000
/// scalars and no collection). Nette has no such limit.
pub const MAX_EXPANDED_NODES: usize = 1 << 16;

/// The most bytes of text that `%parameter%` references may copy in total (16 MiB): the same
/// guard for lists of long strings.
pub const MAX_EXPANDED_TEXT: usize = 16 << 20;

/// How deep parameters may be expanded inside one another (`%a%` is `%b%`, which is `%c%`, …)
/// before the chain is refused with one `invalid-value` error: 1,000. Nette has no such limit;
/// a real configuration chains a few, and the bound keeps a generated or hostile chain from
/// exhausting the stack (issue #13).
pub const MAX_PARAMETER_CHAIN: usize = 1000;

/// The size of a value tree, as (nodes, bytes of text), counted until either passes its limit.
pub(super) fn measure(v: &Expr, node_limit: usize, text_limit: usize) -> (usize, usize) {
    let (mut nodes, mut text) = (0usize, 0usize);
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        nodes += 1;
        match &v.kind {
            ExprKind::Str(s) | ExprKind::Dynamic(s) => text += s.len(),
            ExprKind::Array(a) => {
                text += a
                    .items
                    .keys()
                    .filter_map(Key::as_str)
                    .map(str::len)
                    .sum::<usize>();
                todo.extend(a.values());
            }
            ExprKind::Concat(parts) => todo.extend(parts),
            ExprKind::Statement(st) => {
                if let Callee::Name(n) = &st.callee {
                    text += n.len();
                }
                if let Callee::Member(target, m) = &st.callee {
                    text += m.len();
                    todo.push(target);
                }
                todo.extend(st.arguments.values());
            }
            ExprKind::Null | ExprKind::Bool(_) | ExprKind::Int(_) | ExprKind::Float(_) => {}
        }
        if nodes > node_limit || text > text_limit {
            break;
        }
    }
    (nodes, text)
}

/// The one `invalid-value` error for parameters nested deeper than a plan allows
/// (`found`: name, plan depth, where it is written, in the order found): at the first, with a
/// note naming up to five of the others and counting the rest. Usually one cause (a chain of
/// parameters that each wrap the next), so not one error per parameter. `None` for none.
pub(crate) fn nested_too_deep_error<N: AsRef<str>>(
    found: &[(N, usize, Option<Span>)],
) -> Option<Diagnostic> {
    let ((first, depth, span), others) = found.split_first()?;
    let limit = wireplan_runtime::plan::MAX_EXPR_DEPTH;
    let first = first.as_ref();
    let d = Diagnostic::error(
        Code::InvalidValue,
        format!("Parameter '{first}' nests {depth} levels deep; a plan allows at most {limit}."),
    )
    .at(*span);
    if others.is_empty() {
        return Some(d);
    }
    let shown: Vec<String> = others
        .iter()
        .take(5)
        .map(|(n, depth, _)| format!("'{}' ({depth})", n.as_ref()))
        .collect();
    let tail = match others.len() - shown.len() {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    let (count, verb) = match others.len() {
        1 => ("1 other parameter".to_string(), "nests"),
        n => (format!("{n} other parameters"), "nest"),
    };
    Some(d.with_note(format!(
        "{count} {verb} too deep as well: {}{tail}",
        shown.join(", ")
    )))
}

/// How many levels of lists, maps, concatenations and statement arguments `v` nests, as
/// [`nests_deeper_than`] counts them (a scalar is level 1). Recursive: for values whose depth
/// is already bounded (the expander measures one only after it stopped it at a plan's depth).
pub(super) fn nesting_levels(v: &Expr) -> usize {
    fn deepest<'a>(items: impl Iterator<Item = &'a Expr>) -> usize {
        items.map(nesting_levels).max().unwrap_or(0)
    }
    1 + match &v.kind {
        ExprKind::Array(a) => deepest(a.items.values()),
        ExprKind::Concat(parts) => deepest(parts.iter()),
        ExprKind::Statement(st) => deepest(st.arguments.items.values()),
        _ => 0,
    }
}

/// Whether `v` nests more than `limit` levels of lists, maps, concatenations and statement
/// arguments (a scalar is level 1). Looks no deeper than `limit + 1`, so it is bounded too.
pub(super) fn nests_deeper_than(v: &Expr, limit: usize) -> bool {
    if limit == 0 {
        return true;
    }
    match &v.kind {
        ExprKind::Array(a) => a.items.values().any(|x| nests_deeper_than(x, limit - 1)),
        ExprKind::Concat(parts) => parts.iter().any(|x| nests_deeper_than(x, limit - 1)),
        ExprKind::Statement(st) => st
            .arguments
            .items
            .values()
            .any(|x| nests_deeper_than(x, limit - 1)),
        _ => false,
    }
}

pub(super) fn clear_spans(v: &mut Expr) {
    v.span = None;
    match &mut v.kind {
        ExprKind::Array(a) => a.items.values_mut().for_each(clear_spans),
        ExprKind::Concat(parts) => parts.iter_mut().for_each(clear_spans),
        ExprKind::Statement(st) => st.arguments.items.values_mut().for_each(clear_spans),
        _ => {}
    }
}

/// The reports of the limits, made while expanding.
impl super::Expander<'_> {
    /// Reports (once) that copying `%path%` at `span` passes the copy limit on nodes (or, when
    /// `nodes` is false, on text), with the chain of parameters being expanded.
    pub(super) fn over_limit(&mut self, path: &str, nodes: bool, span: Span) {
        if std::mem::replace(&mut self.over_limit, true) {
            return;
        }
        let limit = if nodes {
            format!("{MAX_EXPANDED_NODES} values")
        } else {
            format!("{MAX_EXPANDED_TEXT} bytes of text")
        };
        let chain: Vec<String> = self
            .stack
            .iter()
            .map(String::as_str)
            .chain([path])
            .map(|n| format!("%{n}%"))
            .collect();
        let mut d = Diagnostic::error(
            Code::InvalidValue,
            format!(
                "Expanding %{path}% here passes the limit on what parameter references may copy \
                 into the configuration: {limit} in total."
            ),
        )
        .at(self.loc(Some(span)))
        .with_note(format!("expanding: {}", chain.join(" -> ")))
        .with_note(
            "each reference copies the whole value it names, so parameters built from other \
             parameters (repeating them, or wrapping one in the next along a chain) multiply \
             what is copied; later references past the limit expand to null",
        );
        if let Some(note) = self.foreign_note() {
            d = d.with_note(note);
        }
        self.diags.push(d);
    }

    /// Reports (once) that expanding `%name%` at `used_at` would pass [`MAX_PARAMETER_CHAIN`]
    /// parameters expanded inside one another; the parameter expands to null.
    pub(super) fn too_deep(&mut self, name: &str, used_at: Option<Span>) {
        if std::mem::replace(&mut self.too_deep, true) {
            return;
        }
        let first = &self.stack[0];
        let last = &self.stack[self.stack.len() - 1];
        let span = self.loc(used_at.or_else(|| self.raw.get(first).map(|v| v.span)));
        let mut d = Diagnostic::error(
            Code::InvalidValue,
            format!(
                "Expanding %{first}% needs parameters expanded inside one another more than \
                 {MAX_PARAMETER_CHAIN} deep (%{first}% -> ... -> %{last}% -> %{name}%)."
            ),
        )
        .at(span)
        .with_note(format!(
            "a parameter may refer to one that refers to another and so on, at most \
             {MAX_PARAMETER_CHAIN} deep; %{name}% expands to null"
        ));
        if let Some(note) = self.foreign_note() {
            d = d.with_note(note);
        }
        self.diags.push(d);
    }
}
