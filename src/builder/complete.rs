//! Completion: creators and setups become complete plan statements.
//!
//! Argument rules follow Nette's `Resolver::autowireArguments` (`../shared/reference/nette-di.md`
//! §5.3), with one deliberate difference from the reference's generated code: the plan's
//! arguments are always positional and complete (defaults are filled in, never skipped).

use super::{Completed, ContainerBuilder, DefinitionKind};
use crate::catalog::Param;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use crate::neon::Key;
use crate::source::Span;
use indexmap::IndexMap;
use std::collections::HashMap;
use wireplan_runtime::plan::{CallTarget, Expr as P};

/// Where a statement is completed: which service, and whether `@self` is allowed.
struct Ctx<'a> {
    service: &'a str,
    prefix: String,
    span: Option<Span>,
    in_setup: bool,
}

struct Completer<'a> {
    b: &'a ContainerBuilder,
    diags: &'a mut Diagnostics,
    order: HashMap<&'a str, usize>,
}

pub(super) fn complete_all(b: &mut ContainerBuilder, diags: &mut Diagnostics) {
    let mut results = Vec::new();
    {
        let order = b
            .definitions
            .keys()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut c = Completer { b, diags, order };
        for def in b.definitions.values() {
            if def.kind == DefinitionKind::Imported || def.resolved_type.is_none() {
                results.push(None);
                continue;
            }
            let ctx = Ctx {
                service: &def.name,
                prefix: def.descriptor(),
                span: def.span,
                in_setup: false,
            };
            let create = match &def.creator {
                Some(st) => c.statement(st, &ctx, def.span),
                None => {
                    let ty = def.resolved_type.clone().unwrap_or_default();
                    let st = Statement {
                        callee: Callee::Name(ty),
                        arguments: ExprArray::new(),
                    };
                    c.statement(&st, &ctx, def.span)
                }
            };
            let setup_ctx = Ctx {
                in_setup: true,
                ..ctx
            };
            let setup = def.setup.iter().map(|s| c.setup(s, &setup_ctx)).collect();
            let tags = def
                .tags
                .iter()
                .map(|(k, v)| (k.clone(), c.value(v, &setup_ctx)))
                .collect();
            results.push(Some(Completed {
                create,
                setup,
                tags,
            }));
        }
    }
    for (def, r) in b.definitions.values_mut().zip(results) {
        def.completed = r;
    }
    check_cycles(b, diags);
}

fn is_function_name(n: &str) -> bool {
    !n.contains("::") && !n.starts_with('@') && !n.contains('\\')
}

impl Completer<'_> {
    fn error(&mut self, code: Code, ctx: &Ctx, msg: String, span: Option<Span>) -> Diagnostic {
        Diagnostic::error(code, format!("{}: {msg}", ctx.prefix)).at(span.or(ctx.span))
    }

    fn report(&mut self, code: Code, ctx: &Ctx, msg: String, span: Option<Span>) {
        let d = self.error(code, ctx, msg, span);
        self.diags.push(d);
    }

    /// A reference `@name`, `@Type\Name` or `@self` used as a value.
    fn reference(&mut self, target: &str, ctx: &Ctx, span: Option<Span>) -> P {
        if target == "self" && ctx.in_setup {
            return P::Ref("@self".into());
        }
        if target.contains('\\') {
            let ty = crate::catalog::normalize_name(target);
            return match self.by_type(&ty, ctx, span, None) {
                Some(n) => P::Ref(n),
                None => P::Null,
            };
        }
        match self.b.get_definition(target) {
            Some(d) => P::Ref(d.name.clone()),
            None => {
                let mut d = self.error(
                    Code::MissingService,
                    ctx,
                    format!("Reference to missing service '{target}'."),
                    span,
                );
                let names = self.b.definitions.keys().map(String::as_str);
                if let Some(s) = crate::diagnostics::suggest(target, names) {
                    d = d.with_note(format!("did you mean '{s}'?"));
                }
                self.diags.push(d);
                P::Null
            }
        }
    }

    /// getByType for an argument; `param` names the parameter for messages.
    fn by_type(
        &mut self,
        ty: &str,
        ctx: &Ctx,
        span: Option<Span>,
        param: Option<(&str, &str)>,
    ) -> Option<String> {
        let required_by = param
            .map(|(p, f)| format!(" required by ${p} in {f}"))
            .unwrap_or_default();
        if !self.b.catalog.exists(ty) {
            self.report(
                Code::ClassNotFound,
                ctx,
                format!("Class '{ty}'{required_by} not found."),
                span,
            );
            return None;
        }
        let candidates: Vec<String> = self
            .b
            .index
            .high(ty)
            .iter()
            .filter(|n| n.as_str() != ctx.service || ctx.in_setup)
            .cloned()
            .collect();
        match candidates.len() {
            1 => candidates.into_iter().next(),
            0 => None,
            _ => {
                let mut d = super::ambiguous(ty, &candidates);
                d.message = format!("{}: {}", ctx.prefix, d.message);
                if let Some((p, f)) = param {
                    d.message.push_str(&format!(" (required by ${p} in {f})"));
                }
                self.diags.push(d.at(span.or(ctx.span)));
                Some(String::new())
            }
        }
    }

    fn missing_by_type(&mut self, ty: &str, ctx: &Ctx, span: Option<Span>, p: &str, f: &str) {
        let d = self
            .error(
                Code::MissingService,
                ctx,
                format!("Service of type {ty} required by ${p} in {f} not found."),
                span,
            )
            .with_note("Did you add it to configuration file?");
        self.diags.push(d);
    }

    /// Converts a configuration value used as an argument to a plan value.
    fn value(&mut self, v: &Expr, ctx: &Ctx) -> P {
        match &v.kind {
            ExprKind::Null => P::Null,
            ExprKind::Bool(b) => P::Bool(*b),
            ExprKind::Int(i) => P::Int(*i),
            ExprKind::Float(f) => P::Float(*f),
            ExprKind::Str(s) => {
                if let Some(rest) = s.strip_prefix("@@") {
                    P::Str(format!("@{rest}"))
                } else if let Some(target) = s.strip_prefix('@') {
                    if target.contains("::") {
                        let st = Statement {
                            callee: Callee::Name(s.clone()),
                            arguments: ExprArray::new(),
                        };
                        return self.statement(&st, ctx, v.span);
                    }
                    self.reference(target, ctx, v.span)
                } else {
                    P::Str(s.clone())
                }
            }
            ExprKind::Array(a) => {
                if a.is_list() {
                    P::List(a.values().map(|x| self.value(x, ctx)).collect())
                } else {
                    P::Map(
                        a.items
                            .iter()
                            .map(|(k, x)| (k.as_string(), self.value(x, ctx)))
                            .collect(),
                    )
                }
            }
            ExprKind::Statement(st) => self.statement(st, ctx, v.span),
            ExprKind::Dynamic(n) => P::Param(n.clone()),
            ExprKind::Concat(parts) => {
                P::Concat(parts.iter().map(|x| self.value(x, ctx)).collect())
            }
        }
    }

    /// Completes a statement (creator, nested argument, or setup call on another object).
    fn statement(&mut self, st: &Statement, ctx: &Ctx, span: Option<Span>) -> P {
        match &st.callee {
            Callee::Name(n) => {
                if let Some(svc) = n.strip_prefix('@') {
                    if let Some((target, method)) = svc.split_once("::") {
                        let target_ty = self.reference_type(target, ctx);
                        let target = self.reference(target, ctx, span);
                        return self.call(
                            CallTarget::Expr(Box::new(target)),
                            target_ty,
                            method,
                            &st.arguments,
                            ctx,
                            span,
                        );
                    }
                    return self.reference(svc, ctx, span);
                }
                if is_function_name(n) {
                    if let Some(v) = self.function(n, &st.arguments, ctx, span) {
                        return v;
                    }
                }
                if let Some((class, method)) = n.rsplit_once("::") {
                    let class = self.b.catalog.canonical(class).to_string();
                    return self.call(
                        CallTarget::Class(class.clone()),
                        Some(class),
                        method,
                        &st.arguments,
                        ctx,
                        span,
                    );
                }
                self.new_object(n, &st.arguments, ctx, span)
            }
            Callee::Member(target, method) => {
                let (t, ty) = match &target.kind {
                    ExprKind::Statement(inner) => {
                        let ty = self.statement_result_type(inner);
                        (self.statement(inner, ctx, span), ty)
                    }
                    _ => (self.value(target, ctx), None),
                };
                self.call(
                    CallTarget::Expr(Box::new(t)),
                    ty,
                    method,
                    &st.arguments,
                    ctx,
                    span,
                )
            }
        }
    }

    fn reference_type(&self, target: &str, ctx: &Ctx) -> Option<String> {
        if target == "self" {
            return self
                .b
                .get_definition(ctx.service)
                .and_then(|d| d.resolved_type.clone());
        }
        if target.contains('\\') {
            return Some(crate::catalog::normalize_name(target));
        }
        self.b
            .get_definition(target)
            .and_then(|d| d.resolved_type.clone())
    }

    fn statement_result_type(&self, st: &Statement) -> Option<String> {
        match &st.callee {
            Callee::Name(n) if !n.contains("::") && !n.starts_with('@') => {
                Some(self.b.catalog.canonical(n).to_string())
            }
            _ => None,
        }
    }

    fn new_object(&mut self, class: &str, args: &ExprArray, ctx: &Ctx, span: Option<Span>) -> P {
        let Some(info) = self.b.catalog.get(class) else {
            let mut d = self.error(
                Code::ClassNotFound,
                ctx,
                format!("Class '{class}' not found."),
                span,
            );
            let names = self.b.catalog.classes().map(|c| c.name.as_str());
            if let Some(s) = crate::diagnostics::suggest(class, names) {
                d = d.with_note(format!("did you mean '{s}'?"));
            }
            self.diags.push(d);
            return P::Null;
        };
        let class = info.name.clone();
        if info.interface {
            self.report(
                Code::InvalidDefinition,
                ctx,
                format!("Interface {class} can not be used as 'create' or 'factory', did you mean 'implement'?"),
                span,
            );
            return P::Null;
        }
        if info.is_abstract {
            self.report(
                Code::InvalidDefinition,
                ctx,
                format!("Class {class} is abstract."),
                span,
            );
            return P::Null;
        }
        let params = self.b.catalog.constructor(&class).to_vec();
        let f = format!("{class}::__construct()");
        let args = self.arguments(&params, args, ctx, span, &f);
        P::New { class, args }
    }

    fn call(
        &mut self,
        target: CallTarget,
        target_ty: Option<String>,
        method: &str,
        args: &ExprArray,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> P {
        let params = match &target_ty {
            Some(ty) => match self.b.catalog.method(ty, method) {
                Some(m) => m.params.clone(),
                None => {
                    let mut d = self.error(
                        Code::MethodNotFound,
                        ctx,
                        format!("Method {ty}::{method}() is not callable."),
                        span,
                    );
                    if let Some(c) = self.b.catalog.get(ty) {
                        let names: Vec<&str> = c.methods.keys().map(String::as_str).collect();
                        if let Some(s) = crate::diagnostics::suggest(method, names) {
                            d = d.with_note(format!("did you mean '{s}'?"));
                        }
                    }
                    self.diags.push(d);
                    return P::Null;
                }
            },
            None => Vec::new(),
        };
        let f = format!("{}::{method}()", target_ty.as_deref().unwrap_or("?"));
        let args = if target_ty.is_some() {
            self.arguments(&params, args, ctx, span, &f)
        } else {
            args.values().map(|v| self.value(v, ctx)).collect()
        };
        P::Call {
            target,
            method: method.to_string(),
            args,
        }
    }

    /// Built-in functions: `not`, `bool`, `int`, `float`, `string` on constants (evaluated now),
    /// `typed(T, …)` and `tagged(tag, …)` (lists of references). `None` when `name` is not one.
    fn function(
        &mut self,
        name: &str,
        args: &ExprArray,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> Option<P> {
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "not" | "bool" | "int" | "float" | "string" => {
                if args.len() != 1 {
                    self.report(
                        Code::InvalidValue,
                        ctx,
                        format!(
                            "Function {lower}() expects 1 parameter, {} given.",
                            args.len()
                        ),
                        span,
                    );
                    return Some(P::Null);
                }
                let arg = args
                    .values()
                    .next()
                    .map(|v| self.value(v, ctx))
                    .unwrap_or(P::Null);
                Some(match convert(&lower, &arg) {
                    Ok(v) => v,
                    Err(msg) => {
                        self.report(Code::InvalidValue, ctx, msg, span);
                        P::Null
                    }
                })
            }
            "typed" | "tagged" => {
                let mut names: Vec<String> = Vec::new();
                for v in args.values() {
                    let Some(s) = v.as_str() else { continue };
                    let found: Vec<String> = if lower == "typed" {
                        self.b.index.all(s)
                    } else {
                        self.b.find_by_tag(s).into_keys().collect()
                    };
                    for n in found {
                        if n != ctx.service && !names.contains(&n) {
                            names.push(n);
                        }
                    }
                }
                names.sort_by_key(|n| self.order.get(n.as_str()).copied().unwrap_or(usize::MAX));
                Some(P::List(names.into_iter().map(P::Ref).collect()))
            }
            _ => None,
        }
    }

    /// Matches given arguments to a signature (§5.3): explicit by name or position, class types
    /// autowired, `T[]` collected, defaults filled in; reports missing and unknown arguments.
    fn arguments(
        &mut self,
        params: &[Param],
        given: &ExprArray,
        ctx: &Ctx,
        span: Option<Span>,
        f: &str,
    ) -> Vec<P> {
        let mut positional: Vec<&Expr> = Vec::new();
        let mut named: IndexMap<String, &Expr> = IndexMap::new();
        for (k, v) in &given.items {
            match k {
                Key::Int(_) => positional.push(v),
                Key::Str(s) => {
                    named.insert(s.trim_start_matches('$').to_string(), v);
                }
            }
        }
        let mut out = Vec::new();
        for (i, p) in params.iter().enumerate() {
            if p.variadic {
                if let Some(v) = named.shift_remove(&p.name) {
                    match self.value(v, ctx) {
                        P::List(items) => out.extend(items),
                        other => out.push(other),
                    }
                }
                for v in positional.iter().skip(i) {
                    out.push(self.value(v, ctx));
                }
                positional.clear();
                break;
            }
            let explicit = named
                .shift_remove(&p.name)
                .or_else(|| positional.get(i).copied());
            if let Some(v) = explicit {
                out.push(self.value(v, ctx));
                continue;
            }
            if let Some(class) = p.ty.class() {
                match self.by_type(class, ctx, span, Some((&p.name, f))) {
                    Some(n) if !n.is_empty() => out.push(P::Ref(n)),
                    Some(_) => out.push(P::Null),
                    None if !self.b.catalog.exists(class) => out.push(P::Null),
                    None => match &p.default {
                        Some(d) => out.push(self.value(d, ctx)),
                        None => {
                            self.missing_by_type(class, ctx, span, &p.name, f);
                            out.push(P::Null);
                        }
                    },
                }
                continue;
            }
            if let Some(item) = &p.ty.list_of {
                let mut names: Vec<String> = self
                    .b
                    .index
                    .all(item)
                    .into_iter()
                    .filter(|n| n != ctx.service)
                    .collect();
                names.sort_by_key(|n| self.order.get(n.as_str()).copied().unwrap_or(usize::MAX));
                out.push(P::List(names.into_iter().map(P::Ref).collect()));
                continue;
            }
            match &p.default {
                Some(d) => out.push(self.value(d, ctx)),
                None => {
                    let why = if p.ty.is_complex() {
                        "has complex type and no default value"
                    } else {
                        "has no class type or default value"
                    };
                    self.report(
                        Code::MissingArgument,
                        ctx,
                        format!(
                            "Parameter ${} in {f} {why}, so its value must be specified.",
                            p.name
                        ),
                        span,
                    );
                    out.push(P::Null);
                }
            }
        }
        if positional.len() > params.len() {
            for v in &positional[params.len()..] {
                out.push(self.value(v, ctx));
            }
        }
        if !named.is_empty() {
            let unknown: Vec<String> = named.keys().map(|k| format!("${k}")).collect();
            let mut d = self.error(
                Code::UnknownArgument,
                ctx,
                format!("Unable to pass specified arguments to {f}."),
                named.values().next().and_then(|v| v.span).or(span),
            );
            d = d.with_note(format!("no parameter accepts {}", unknown.join(", ")));
            let pnames: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            for k in named.keys() {
                if let Some(s) = crate::diagnostics::suggest(k, pnames.iter().copied()) {
                    d = d.with_note(format!("did you mean '${s}'?"));
                }
            }
            self.diags.push(d);
        }
        out
    }

    /// One setup item: `method(args)`, `$prop = value`, `@svc::method(...)`, `Class::m(...)`.
    fn setup(&mut self, item: &Expr, ctx: &Ctx) -> P {
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
            ExprKind::Statement(st) => match &st.callee {
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
            ExprKind::Array(a) if a.len() == 1 => {
                let Some((k, v)) = a.items.iter().next().map(|(k, v)| (k.as_string(), v)) else {
                    return P::Null;
                };
                match k.strip_prefix('$') {
                    Some(prop) => {
                        if let Some(ty) = &self_ty {
                            if self.b.catalog.property(ty, prop).is_none() {
                                self.report(
                                    Code::InvalidDefinition,
                                    ctx,
                                    format!(
                                        "Property {ty}::${prop} is not declared in the catalog."
                                    ),
                                    item.span,
                                );
                            }
                        }
                        P::Set {
                            target: CallTarget::SelfObject,
                            property: prop.to_string(),
                            value: Box::new(self.value(v, ctx)),
                        }
                    }
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

    fn bad_setup(&mut self, item: &Expr, ctx: &Ctx) {
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
}

/// `Helpers::convertType`-style lossless conversion of a constant.
fn convert(func: &str, v: &P) -> Result<P, String> {
    let text = match v {
        P::Str(s) => Some(s.clone()),
        P::Int(i) => Some(i.to_string()),
        P::Float(f) => Some(f.to_string()),
        P::Bool(b) => Some(if *b { "1".into() } else { "".into() }),
        P::Null => Some(String::new()),
        _ => None,
    };
    let fail = || {
        format!(
            "Cannot convert '{}' to {func}.",
            text.clone().unwrap_or_else(|| "non-scalar".into())
        )
    };
    match func {
        "not" => Ok(P::Bool(!truthy(v).ok_or_else(fail)?)),
        "bool" => Ok(P::Bool(truthy(v).ok_or_else(fail)?)),
        "int" => match v {
            P::Int(i) => Ok(P::Int(*i)),
            P::Bool(b) => Ok(P::Int(i64::from(*b))),
            P::Float(f) if f.fract() == 0.0 => Ok(P::Int(*f as i64)),
            P::Str(s) => s.trim().parse::<i64>().map(P::Int).map_err(|_| fail()),
            _ => Err(fail()),
        },
        "float" => match v {
            P::Int(i) => Ok(P::Float(*i as f64)),
            P::Float(f) => Ok(P::Float(*f)),
            P::Bool(b) => Ok(P::Float(if *b { 1.0 } else { 0.0 })),
            P::Str(s) => s.trim().parse::<f64>().map(P::Float).map_err(|_| fail()),
            _ => Err(fail()),
        },
        _ => match &text {
            Some(t) => Ok(P::Str(t.clone())),
            None => Err(fail()),
        },
    }
}

fn truthy(v: &P) -> Option<bool> {
    Some(match v {
        P::Null => false,
        P::Bool(b) => *b,
        P::Int(i) => *i != 0,
        P::Float(f) => *f != 0.0,
        P::Str(s) => !(s.is_empty() || s == "0"),
        P::List(l) => !l.is_empty(),
        P::Map(m) => !m.is_empty(),
        _ => return None,
    })
}

/// Constructor cycles (`a` needs `b` needs `a`) are compile errors with the whole path; Nette
/// only finds them at run time.
fn check_cycles(b: &ContainerBuilder, diags: &mut Diagnostics) {
    fn refs(e: &P, out: &mut Vec<String>) {
        match e {
            P::Ref(n) if n != "@self" => out.push(n.clone()),
            P::New { args, .. } | P::Call { args, .. } => {
                if let P::Call {
                    target: CallTarget::Expr(t),
                    ..
                } = e
                {
                    refs(t, out);
                }
                args.iter().for_each(|a| refs(a, out));
            }
            P::List(items) | P::Concat(items) => items.iter().for_each(|a| refs(a, out)),
            P::Map(m) => m.values().for_each(|a| refs(a, out)),
            _ => {}
        }
    }
    let mut edges: HashMap<&str, Vec<String>> = HashMap::new();
    for d in b.definitions() {
        let mut out = Vec::new();
        if let Some(c) = &d.completed {
            refs(&c.create, &mut out);
        }
        edges.insert(&d.name, out);
    }
    // 0 = unvisited, 1 = on stack, 2 = done
    let mut state: HashMap<&str, u8> = HashMap::new();
    let mut reported: Vec<Vec<String>> = Vec::new();
    for d in b.definitions() {
        let mut stack: Vec<(&str, usize)> = vec![(&d.name, 0)];
        let mut path: Vec<&str> = Vec::new();
        if state.get(d.name.as_str()).copied().unwrap_or(0) != 0 {
            continue;
        }
        while let Some((node, i)) = stack.pop() {
            if i == 0 {
                state.insert(node, 1);
                path.push(node);
            }
            let next = edges.get(node).and_then(|e| e.get(i));
            match next {
                Some(n) => {
                    stack.push((node, i + 1));
                    let n = n.as_str();
                    match state.get(n).copied().unwrap_or(0) {
                        0 if edges.contains_key(n) => {
                            stack.push((edges.get_key_value(n).map(|(k, _)| *k).unwrap_or(n), 0))
                        }
                        1 => {
                            let pos = path.iter().position(|p| *p == n).unwrap_or(0);
                            let mut cycle: Vec<String> =
                                path[pos..].iter().map(|s| s.to_string()).collect();
                            let mut key = cycle.clone();
                            key.sort();
                            if !reported.contains(&key) {
                                reported.push(key);
                                cycle.push(n.to_string());
                                let first = b.get_definition(n);
                                diags.push(
                                    Diagnostic::error(
                                        Code::CircularReference,
                                        format!(
                                            "Circular reference detected for services: {}.",
                                            cycle[..cycle.len() - 1].join(", ")
                                        ),
                                    )
                                    .at(first.and_then(|d| d.span))
                                    .with_note(format!("path: {}", cycle.join(" -> "))),
                                );
                            }
                        }
                        _ => {}
                    }
                }
                None => {
                    state.insert(node, 2);
                    path.pop();
                }
            }
        }
    }
}
