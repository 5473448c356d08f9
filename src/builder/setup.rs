//! Setup statements of a service being completed: `method(args)`, `$prop = value`,
//! `$prop(value)`, `@svc::method(...)`, `Class::method`, and the callable form
//! `[target, method](args)` (Nette's `Resolver::completeStatement` for setups).

use super::complete::{is_function_name, is_identifier, Completer, Ctx};
use crate::diagnostics::Code;
use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use wireplan_runtime::plan::{CallTarget, Expr as P};

impl Completer<'_> {
    /// One setup item: `method(args)`, `$prop = value`, `@svc::method(...)`, `Class::m(...)`.
    pub(super) fn setup(&mut self, item: &Expr, ctx: &Ctx) -> P {
        if let ExprKind::Statement(st) = &item.kind {
            if super::resolve::has_empty_callee(st) && self.diags.has_error_within(item.span) {
                return P::Null; // a name that failed to expand, reported where it was written
            }
        }
        let p = self.setup_item(item, ctx);
        self.require_effect(&p, ctx, item.span, "setup");
        p
    }

    fn setup_item(&mut self, item: &Expr, ctx: &Ctx) -> P {
        let self_ty = self.reference_type("self", ctx);
        match &item.kind {
            ExprKind::Str(s) if is_function_name(s) && !s.starts_with('$') => self.call(
                CallTarget::SelfObject,
                self_ty,
                s,
                &ExprArray::new(),
                ctx,
                item.span,
            ),
            // `Class::method` and `@service::method` without parentheses: Nette's loader turns
            // a setup string into a statement, so they are calls with no arguments.
            ExprKind::Str(s)
                if s.rsplit_once("::")
                    .is_some_and(|(t, m)| !t.is_empty() && is_identifier(m)) =>
            {
                let st = Statement {
                    callee: Callee::Name(s.clone()),
                    arguments: ExprArray::new(),
                };
                self.statement(&st, ctx, item.span)
            }
            ExprKind::Statement(st) => match &st.callee {
                // `$prop(value)`: Nette's entity form of a property write.
                Callee::Name(n)
                    if n.strip_prefix('$').is_some_and(is_identifier)
                        && st.arguments.len() == 1 =>
                {
                    let prop = &n[1..];
                    let v = st
                        .arguments
                        .values()
                        .next()
                        .cloned()
                        .unwrap_or_else(|| Expr::bare(ExprKind::Null));
                    self.property_write(self_ty.as_deref(), prop, &v, item, ctx)
                }
                // `$prop()` or `$prop(1, 2)`: a property write with the wrong number of values
                // (it was looked up as a class named `$prop`).
                Callee::Name(n) if n.strip_prefix('$').is_some_and(is_identifier) => {
                    self.report(
                        Code::InvalidValue,
                        ctx,
                        format!(
                            "Property write {n}(…) takes exactly one value, {} given.",
                            st.arguments.len()
                        ),
                        item.span,
                    );
                    P::Null
                }
                Callee::Name(n) if is_function_name(n) && !n.starts_with('$') => self.call(
                    CallTarget::SelfObject,
                    self_ty,
                    n,
                    &st.arguments,
                    ctx,
                    item.span,
                ),
                _ => self.statement(st, ctx, item.span),
            },
            // The callable form `[@self, method]`, `[@service, method]`, `[Class, method]`.
            ExprKind::Array(a) if a.len() == 2 && a.is_list() => {
                let mut it = a.values();
                let (Some(target), Some(method)) = (it.next(), it.next().and_then(Expr::as_str))
                else {
                    self.bad_setup(item, ctx);
                    return P::Null;
                };
                match target.as_str() {
                    Some("@self") => self.call(
                        CallTarget::SelfObject,
                        self_ty,
                        method,
                        &ExprArray::new(),
                        ctx,
                        item.span,
                    ),
                    Some(t) => {
                        let st = Statement {
                            callee: Callee::Name(format!("{t}::{method}")),
                            arguments: ExprArray::new(),
                        };
                        self.statement(&st, ctx, item.span)
                    }
                    None => {
                        self.bad_setup(item, ctx);
                        P::Null
                    }
                }
            }
            ExprKind::Array(a) if a.len() == 1 => {
                let Some((k, v)) = a.items.iter().next().map(|(k, v)| (k.as_string(), v)) else {
                    return P::Null;
                };
                // `$prop: value`, or Nette's long form `@self::$prop: value`.
                let prop = k.strip_prefix('$').or_else(|| k.strip_prefix("@self::$"));
                if prop.is_none() && k.starts_with('@') && k.contains("::$") {
                    self.report(
                        Code::InvalidDefinition,
                        ctx,
                        format!("Writing a property of another object ({k}) is not supported: services are shared once created. Write it in that service's own setup, or call a method."),
                        item.span,
                    );
                    return P::Null;
                }
                match prop {
                    Some(prop) => self.property_write(self_ty.as_deref(), prop, v, item, ctx),
                    None => {
                        self.bad_setup(item, ctx);
                        P::Null
                    }
                }
            }
            _ => {
                self.bad_setup(item, ctx);
                P::Null
            }
        }
    }

    pub(super) fn bad_setup(&mut self, item: &Expr, ctx: &Ctx) {
        self.report(
            Code::InvalidValue,
            ctx,
            format!(
                "Expected function, method or property name, {} given.",
                item.describe()
            ),
            item.span,
        );
    }

    /// A property write in a setup (`$prop: value`, `@self::$prop: value` or `$prop(value)`):
    /// the value completed, its origin recorded for `explain`, and, when the service's class is
    /// known, the property and the value's type checked against the catalog.
    fn property_write(
        &mut self,
        self_ty: Option<&str>,
        prop: &str,
        v: &Expr,
        item: &Expr,
        ctx: &Ctx,
    ) -> P {
        let value = self.value(v, ctx);
        self.record_property(self_ty, prop, v, &value, ctx, item.span);
        if let Some(ty) = self_ty {
            self.check_property(ty, prop, ctx, item.span);
            self.check_property_value(ty, prop, &value, ctx, v.span.or(item.span));
        }
        P::Set {
            target: CallTarget::SelfObject,
            property: prop.to_string(),
            value: Box::new(value),
        }
    }
}
