//! Warnings of argument matching: values that compile but most likely are not what was
//! meant ([`super`]).

use super::super::complete::{Completer, Ctx};
use crate::catalog::Param;
use crate::diagnostics::Code;
use crate::expr::Expr;
use crate::source::Span;

impl Completer<'_> {
    /// The warning for a parameter given both by name and at its position in one file
    /// (`arguments: [prefix: x, y]`): the named value wins and the positional one is dropped,
    /// as in Nette, which lets a named argument override a positional one so that a later
    /// configuration file can replace an argument by name. Written together in one file
    /// (PHP itself refuses a positional argument after a named one), the dropped value is
    /// most likely a mistake.
    pub(super) fn overridden_position(
        &mut self,
        p: &Param,
        i: usize,
        named: &Expr,
        dropped: &Expr,
        ctx: &Ctx,
    ) {
        let (Some(n), Some(d)) = (named.span, dropped.span) else {
            return;
        };
        if n.file != d.file {
            return;
        }
        let mut w = self.error(
            Code::UnknownArgument,
            ctx,
            format!(
                "The positional argument for parameter #{} (${}) is dropped: ${} is given by name too.",
                i + 1,
                p.name,
                p.name
            ),
            Some(d),
        );
        w.severity = crate::diagnostics::Severity::Warning;
        w = w
            .with_secondary(n, format!("${} is given here", p.name))
            .with_note(
                "as in Nette, a named argument replaces a positional one for the same parameter \
             (so a later file can override it by name); remove one of the two, or name the \
             value meant for another parameter",
            );
        self.diags.push(w);
    }

    /// The warning for `tagged(tag)` where no service has `tag` but one has a close name (a
    /// tag nobody uses yet is no mistake: an application may add its services later).
    pub(super) fn unknown_tag(&mut self, tag: &str, ctx: &Ctx, span: Option<Span>) {
        let tags: std::collections::BTreeSet<&str> = self
            .b
            .definitions()
            .flat_map(|d| d.tags.keys().map(String::as_str))
            .collect();
        let Some(close) = crate::diagnostics::suggest(tag, tags.iter().copied()) else {
            return;
        };
        let mut d = self.error(
            Code::UnknownTag,
            ctx,
            format!("No service has tag '{tag}', so tagged() gives an empty list here."),
            span,
        );
        d.severity = crate::diagnostics::Severity::Warning;
        self.diags
            .push(d.with_note(format!("did you mean '{close}'?")));
    }
}
