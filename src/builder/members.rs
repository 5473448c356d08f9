//! Property reads and first-class callables: the members of a service that are neither
//! created nor called while the container is built.
//!
//! * `@svc::prop` (an argument string; Nette's `Resolver::completeArguments` turns it into a
//!   property getter, `../shared/reference/nette-di.md` §4) and the explicit `@svc::$prop`
//!   become `{"$get": [{"$ref": "svc"}, "prop"]}`. `@svc::NAME` (a capital letter first) stays
//!   a class constant, as in Nette.
//! * An entity whose only argument is `...` (`Class::method(...)`, `@svc::method(...)`,
//!   `Foo()::bar(...)`; `../shared/reference/neon-language.md` §17) is a first-class callable,
//!   `{"$callable": [target, "method"]}`. Nette has no callable for constructors (`Class(...)`)
//!   or, in wireplan, for global functions: the catalog has none.

use super::complete::{is_function_name, Completer, Ctx};
use crate::diagnostics::Code;
use crate::expr::{Callee, Expr, ExprKind, Statement};
use crate::source::Span;
use wireplan_runtime::plan::{CallTarget, Expr as P};

/// Is this statement Nette's first-class-callable form: exactly one argument, the literal `...`?
pub(super) fn is_first_class_callable(st: &Statement) -> bool {
    st.arguments.len() == 1 && st.arguments.get("0").and_then(|e| e.as_str()) == Some("...")
}

/// The error for a first-class callable used as a service's `create`: a callable is a
/// closure, not an object the container could hand out.
pub(super) fn callable_creator_message(st: &Statement) -> String {
    let callee = match &st.callee {
        Callee::Name(n) => n.clone(),
        Callee::Member(_, m) => format!("...::{m}"),
    };
    format!("A first-class callable ({callee}(...)) is a closure, not a service object; pass it as an argument instead.")
}

/// A property or method name as Nette accepts it after `::` (an identifier).
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// `NAME` after `@svc::` is a class constant when it starts with a capital letter (Nette's
/// `[A-Z][a-zA-Z0-9_]*`).
pub(super) fn is_constant_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Completer<'_> {
    /// `@target::member` written as an argument string (no parentheses): a class constant
    /// (`NAME`) or a property read (`prop`, `$prop`).
    pub(super) fn service_member(
        &mut self,
        target: &str,
        member: &str,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> P {
        if is_constant_name(member) {
            // Found constants were substituted before; this one is not in the catalog.
            let class = self.reference_type(target, ctx);
            let target_value = self.reference(target, ctx, span);
            if let (Some(class), false) = (class, matches!(target_value, P::Null)) {
                self.missing_constant(&class, member, ctx, span);
            }
            return P::Null;
        }
        let prop = member.strip_prefix('$').unwrap_or(member);
        self.property_read(target, prop, ctx, span)
    }

    /// `App\Class::NAME` (an unquoted argument string, Nette's constant pattern) that the
    /// catalog does not resolve: reported, because Nette would emit the constant and fail.
    /// `None` when the string is not of that form.
    pub(super) fn unknown_class_constant(
        &mut self,
        s: &str,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> Option<P> {
        let (class, name) = s.rsplit_once("::")?;
        let class_ok = !class.is_empty()
            && !class.starts_with('@')
            && class
                .trim_start_matches('\\')
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '\\');
        if !class_ok || !is_constant_name(name) {
            return None;
        }
        let Some(info) = self.b.catalog.get(class) else {
            self.class_not_found(class, &format!(" (in the constant {s})"), ctx, span);
            return Some(P::Null);
        };
        let class = info.name.clone();
        self.missing_constant(&class, name, ctx, span);
        Some(P::Null)
    }

    /// Reports a constant the catalog does not list for `class`, with "did you mean" and a hint
    /// when a property of that name exists.
    fn missing_constant(&mut self, class: &str, name: &str, ctx: &Ctx, span: Option<Span>) {
        let mut d = self.error(
            Code::ConstantNotFound,
            ctx,
            format!("Constant {class}::{name} is not declared in the catalog."),
            span,
        );
        let names = self.b.catalog.member_names(class, |c| c.constants.keys());
        d = d.with_suggestion(name, names);
        let properties = self.b.catalog.member_names(class, |c| c.properties.keys());
        if let Some(p) = properties.iter().find(|p| p.eq_ignore_ascii_case(name)) {
            d = d.with_note(format!("{class} has a property ${p}: write @service::${p} (after ::, a name that starts with a capital letter is a constant)."));
        }
        self.diags.push(d);
    }

    /// `@target::$prop` → `$get`, checked against the catalog's `properties`.
    pub(super) fn property_read(
        &mut self,
        target: &str,
        prop: &str,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> P {
        if !is_identifier(prop) {
            self.report(
                Code::InvalidValue,
                ctx,
                format!("Expected function, method or property name, '{prop}' given."),
                span,
            );
            return P::Null;
        }
        let ty = self.reference_type(target, ctx);
        let Some(target) = self.reference_target(target, ctx, span) else {
            return P::Null; // reported by `reference`
        };
        if let Some(ty) = ty {
            self.check_property(&ty, prop, ctx, span);
        }
        P::Get {
            target,
            property: prop.to_string(),
        }
    }

    /// Reports a property the catalog does not declare for `ty` (with a "did you mean").
    pub(super) fn check_property(&mut self, ty: &str, prop: &str, ctx: &Ctx, span: Option<Span>) {
        if self.b.catalog.get(ty).is_none() || self.b.catalog.property(ty, prop).is_some() {
            return;
        }
        let mut d = self.error(
            Code::PropertyNotFound,
            ctx,
            format!("Property {ty}::${prop} is not declared in the catalog."),
            span,
        );
        if let Some(list) = prop.strip_suffix("[]") {
            // Nette's `$list[] = value` appends to an array property.
            d = d.with_note(format!(
                "appending to a property (`${list}[] = value`) is not supported: write the whole \
                 list (`${list} = [...]`), or call a method that adds the item"
            ));
        }
        let names = self.b.catalog.member_names(ty, |c| c.properties.keys());
        d = d.with_suggestion(prop, names);
        let constants = self.b.catalog.member_names(ty, |c| c.constants.keys());
        if let Some(c) = constants.iter().find(|c| c.eq_ignore_ascii_case(prop)) {
            d = d.with_note(if is_constant_name(c) {
                format!("{ty} has a constant {c}: write @service::{c} (after ::, a name that starts with a capital letter is a constant, any other name or $name a property).")
            } else {
                format!("{ty} has a constant {c}, but after :: only names that start with a capital letter are read as constants (Nette's rule); rename it in the catalog to read it.")
            });
        }
        self.diags.push(d);
    }

    /// A first-class callable (`X::m(...)`, `@svc::m(...)`, `Foo()::m(...)`) → `$callable`.
    pub(super) fn callable(&mut self, st: &Statement, ctx: &Ctx, span: Option<Span>) -> P {
        let (target, ty, method) = match &st.callee {
            Callee::Name(n) => {
                if let Some(svc) = n.strip_prefix('@') {
                    let Some((svc, method)) = svc.split_once("::") else {
                        return self.not_callable(n, ctx, span);
                    };
                    let ty = self.reference_type(svc, ctx);
                    let Some(target) = self.reference_target(svc, ctx, span) else {
                        return P::Null;
                    };
                    (target, ty, method.to_string())
                } else if let Some((class, method)) = n.rsplit_once("::") {
                    if class.is_empty() {
                        self.report(
                            Code::MethodNotFound,
                            ctx,
                            format!("Function {method}() doesn't exist."),
                            span,
                        );
                        return P::Null;
                    }
                    let Some(info) = self.b.catalog.get(class) else {
                        self.class_not_found(class, "", ctx, span);
                        return P::Null;
                    };
                    let class = info.name.to_string();
                    if let Some(m) = self.b.catalog.method(&class, method) {
                        if !m.is_static {
                            self.report(
                                Code::InvalidDefinition,
                                ctx,
                                format!("Method {class}::{method}() is not static; a callable of an object's method is written @service::{method}(...)."),
                                span,
                            );
                            return P::Null;
                        }
                    }
                    (
                        CallTarget::Class(class.clone()),
                        Some(class),
                        method.to_string(),
                    )
                } else {
                    return self.not_callable(n, ctx, span);
                }
            }
            Callee::Member(target, method) => {
                let Some((t, ty)) = self.member_target(target, ctx, span) else {
                    return P::Null;
                };
                (CallTarget::Expr(Box::new(t)), ty, method.clone())
            }
        };
        if let Some(ty) = &ty {
            if self.b.catalog.get(ty).is_some() && self.b.catalog.method(ty, &method).is_none() {
                self.method_not_found(ty, &method, ctx, span);
                return P::Null;
            }
        }
        let method = ty
            .as_deref()
            .and_then(|ty| self.b.catalog.method_name(ty, &method))
            .map_or(method.clone(), str::to_string);
        P::Callable { target, method }
    }

    /// The object a chain link (`Foo()::bar()`) works on, completed, with its class when the
    /// catalog says. `None` (reported) when it is a first-class callable, which has no members.
    pub(super) fn member_target(
        &mut self,
        target: &Expr,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> Option<(P, Option<String>)> {
        match &target.kind {
            ExprKind::Statement(inner) if is_first_class_callable(inner) => {
                let callee = match &inner.callee {
                    Callee::Name(n) => n.clone(),
                    Callee::Member(_, m) => format!("...::{m}"),
                };
                self.report(
                    Code::InvalidDefinition,
                    ctx,
                    format!("{callee}(...) is a first-class callable, which has no methods or properties; to call the method on its result, write {callee}(args)::other()."),
                    span,
                );
                None
            }
            ExprKind::Statement(inner) => {
                let ty = self.statement_result_type(inner);
                Some((self.statement(inner, ctx, span), ty))
            }
            _ => Some((self.value(target, ctx), None)),
        }
    }

    /// `Class(...)`, `not(...)`, `func(...)`: forms that have no first-class callable here.
    fn not_callable(&mut self, name: &str, ctx: &Ctx, span: Option<Span>) -> P {
        let msg = if is_function_name(name) {
            format!("Function {name}() doesn't exist; only methods can be first-class callables (Class::method(...), @service::method(...)).")
        } else if name.starts_with('@') {
            format!("A service ({name}) is not callable; name its method: {name}::method(...).")
        } else {
            format!("Cannot create a first-class callable from a constructor ({name}(...)); name a static method: {name}::method(...).")
        };
        self.report(Code::InvalidDefinition, ctx, msg, span);
        P::Null
    }
}
