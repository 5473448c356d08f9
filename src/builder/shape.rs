//! What a completed value may be where it is used: tags hold plain data, setup and
//! initialization statements must do something, and no expression may nest deeper than a plan
//! can carry ([`MAX_EXPR_DEPTH`], what JSON readers accept). Each rule keeps the compiler from
//! writing a plan that the runtime would refuse at load or that would silently do nothing.

use super::complete::{Completer, Ctx};
use super::{Completed, ContainerBuilder, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::source::Span;
use wireplan_runtime::plan::{Expr as P, MAX_EXPR_DEPTH};

/// A short description of a statement that has no effect where it stands, or `None` when it
/// does something (creates, calls or writes).
fn without_effect(p: &P) -> Option<&'static str> {
    match p {
        P::Callable { .. } => {
            Some("a first-class callable (it is created and dropped, never called)")
        }
        P::Get { .. } => Some("a property read (its value is dropped)"),
        _ if p.is_plain() => Some("a plain value"),
        P::Param(_) | P::Concat(_) | P::Arg(_) | P::ArgOr { .. } | P::Func { .. } => {
            Some("a computed value")
        }
        _ => None,
    }
}

impl Completer<'_> {
    /// Reports a setup or initialization statement that would do nothing.
    pub(super) fn require_effect(&mut self, p: &P, ctx: &Ctx, span: Option<Span>, place: &str) {
        if let Some(what) = without_effect(p) {
            if matches!(p, P::Null) {
                return; // an earlier error already replaced the statement by null
            }
            self.report(
                Code::InvalidDefinition,
                ctx,
                format!("This {place} statement is {what}, so it has no effect; call a method, e.g. @self::method() or @service::method()."),
                span,
            );
        }
    }

    /// Reports a tag value that is not plain data (the runtime's tag index holds data only).
    pub(super) fn require_plain_tag(&mut self, tag: &str, p: &P, ctx: &Ctx, span: Option<Span>) {
        if !p.is_plain() {
            self.report(
                Code::InvalidValue,
                ctx,
                format!("Tag '{tag}' must have a plain value (null, bool, number, string, list or map), not a service, call or other statement."),
                span,
            );
        }
    }
}

/// The first of `c`'s expressions (its `create`, then `setup`, `tags` and `references`)
/// nested deeper than a plan can carry: its place and its depth.
pub(super) fn too_deep(c: &Completed) -> Option<(&'static str, usize)> {
    std::iter::once(("create", &c.create))
        .chain(c.setup.iter().map(|e| ("setup", e)))
        .chain(c.tags().values().map(|e| ("tags", e)))
        .chain(c.references().values().map(|e| ("references", e)))
        .map(|(place, e)| (place, e.json_depth()))
        .find(|&(_, depth)| depth > MAX_EXPR_DEPTH)
}

/// Reports every completed expression nested deeper than a plan can carry, at its definition:
/// `deep` holds each such definition's position, the expression's place and its depth, in
/// definition order ([`too_deep`], found while completing), then the initialization.
pub(super) fn check_depth(
    b: &ContainerBuilder,
    diags: &mut Diagnostics,
    deep: &[(usize, &'static str, usize)],
) {
    for &(position, place, depth) in deep {
        let def = &b.definitions[position];
        let kind = if def.kind == DefinitionKind::Service {
            "Service"
        } else {
            "Definition"
        };
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "{kind} '{}': its {place} expression nests {depth} levels deep in the plan's JSON (a call takes two: the call and its argument list); a plan allows at most {MAX_EXPR_DEPTH} (what JSON readers accept).",
                    def.name
                ),
            )
            .at(def.span)
            .with_note("Split it into services that refer to each other."),
        );
    }
    for (i, e) in b.initialization_completed.iter().enumerate() {
        let depth = e.json_depth();
        if depth > MAX_EXPR_DEPTH {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!("Initialization statement #{}: nests {depth} levels deep in the plan's JSON (a call takes two: the call and its argument list); a plan allows at most {MAX_EXPR_DEPTH}.", i + 1),
                )
                .at(b.initialization.get(i).and_then(|x| x.span)),
            );
        }
    }
}
