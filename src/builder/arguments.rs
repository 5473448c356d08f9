//! Argument matching and the built-in functions, after Nette's `Resolver::autowireArguments`
//! (`../shared/reference/nette-di.md` §5.3) and `Statement::complete()` (§4).

use super::complete::{Completer, Ctx, Function};
use super::origins::{ArgumentOrigin, ArgumentSource as Src, CallOrigin};
use crate::catalog::Param;
use crate::diagnostics::Code;
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::source::Span;
use indexmap::IndexMap;
use wireplan_runtime::plan::{CallTarget, Expr as P};

mod fit;
mod notes;
mod warnings;
use fit::{accepts_null, convert, fits};
use notes::{nullable_without_default_note, OBJECT_PARAMETER_NOTE};

impl Completer<'_> {
    /// Autowires a `Provider<T>` parameter like a `T` one (exactly one autowired candidate,
    /// Nette's wording for none and for several) and pushes `{"$provider": name}` — a lazy
    /// handle, not a dependency, so it breaks construction cycles.
    fn autowire_provider(
        &mut self,
        p: &Param,
        target: &str,
        ctx: &Ctx,
        span: Option<Span>,
        f: &dyn std::fmt::Display,
        out: &mut Vec<P>,
    ) -> Src {
        let tried = Some(self.origin_type(target));
        match self.by_type(target, ctx, span, Some((&p.name, f))) {
            Some(n) if !n.is_empty() => {
                // In its own setup, the object being set up: a handle on this very service.
                let service = if n == "@self" {
                    ctx.service.to_string()
                } else {
                    n.to_string()
                };
                out.push(P::Provider(service.clone()));
                Src::Autowired {
                    ty: self.origin_type(target),
                    service,
                }
            }
            // Several candidates (reported by `by_type`), or an unknown class (reported too).
            Some(_) => {
                out.push(P::Null);
                Src::Unfilled { tried }
            }
            None if !self.b.catalog.exists(target) => {
                out.push(P::Null);
                Src::Unfilled { tried: None }
            }
            None => {
                self.missing_by_type(target, ctx, span, &p.name, f);
                out.push(P::Null);
                Src::Unfilled { tried }
            }
        }
    }

    /// An explicit value for a `Provider<T>` parameter: a service reference (`@logger`,
    /// `@App\Logger`) of a type that fits `T` becomes a handle on that service; anything
    /// else is an `invalid-value` error.
    fn provider_value(
        &mut self,
        p: &Param,
        target: &str,
        v: &Expr,
        ctx: &Ctx,
        span: Option<Span>,
        f: &dyn std::fmt::Display,
    ) -> P {
        let value = self.value(v, ctx);
        if let P::Ref(name) = &value {
            let ty = self
                .b
                .get_definition(name)
                .and_then(|d| d.resolved_type.clone());
            if ty
                .as_deref()
                .is_none_or(|t| self.b.catalog.is_subtype(t, target))
            {
                return P::Provider(name.to_string());
            }
        }
        let reported = self.diags.has_error_within(v.span);
        if !reported {
            let msg = format!(
                "Parameter ${} in {f} expects {}: a reference to a service of type {target}, {} given.",
                p.name,
                p.ty.text,
                self.describe(&value)
            );
            self.report(Code::InvalidValue, ctx, msg, v.span.or(span));
        }
        value
    }

    /// The canonical spelling of a parameter's class, for an argument's origin; empty when
    /// origins are not recorded (a plain compile keeps only arguments that read a dynamic
    /// parameter, whose origin's class nothing reads).
    fn origin_type(&self, class: &str) -> String {
        if self.b.record_origins {
            self.b.catalog.canonical(class).to_string()
        } else {
            String::new()
        }
    }

    /// Where an explicitly given value came from: a written `@Type` reference was autowired
    /// (`getByType`), anything else is written as it stands.
    fn given_source(&self, v: &Expr, value: &P) -> Src {
        match (&v.kind, value) {
            (ExprKind::Str(s), P::Ref(service))
                if self.b.record_origins && s.starts_with('@') && s.contains('\\') =>
            {
                Src::Autowired {
                    ty: self
                        .b
                        .catalog
                        .canonical(&crate::catalog::normalize_name(&s[1..]))
                        .to_string(),
                    service: service.to_string(),
                }
            }
            _ => Src::Written { span: v.span },
        }
    }

    /// Records a property written by a setup (`$prop: value`, and the inject step's
    /// `$prop: @Type`) as a one-argument call, for `explain`; `at`: the setup item's place.
    pub(super) fn record_property(
        &mut self,
        class: Option<&str>,
        prop: &str,
        v: &Expr,
        value: &P,
        ctx: &Ctx,
        at: Option<Span>,
    ) {
        if !self.b.record_origins && !matches!(value, P::Param(_)) {
            // A plain compile keeps only what reads a dynamic parameter (see `arguments`).
            return;
        }
        let declared = class
            .and_then(|c| self.b.catalog.property(c, prop))
            .map(|p| p.ty.text.to_string())
            .unwrap_or_else(|| "mixed".to_string());
        let source = self.given_source(v, value);
        self.trace.push(CallOrigin {
            function: format!("{}::${prop}", class.unwrap_or("?")),
            in_setup: ctx.in_setup,
            at,
            arguments: vec![ArgumentOrigin {
                parameter: prop.to_string(),
                declared,
                source,
                value: value.clone(),
            }],
        });
    }

    /// Reports an explicit argument whose value cannot fit the parameter's declared type.
    fn check_type(
        &mut self,
        p: &Param,
        value: &P,
        ctx: &Ctx,
        span: Option<Span>,
        f: &dyn std::fmt::Display,
    ) {
        // A type that is one name the catalog lacks and no built-in type (a catalog's typo,
        // `dsn: strin`) is that problem, as for an autowired parameter, not a misfit of the
        // value: "expects strin, 'x' given" said nothing about the cause.
        if let [name] = &p.ty.members[..] {
            if p.ty.list_of.is_none()
                && p.ty.provider_of.is_none()
                && !crate::catalog::is_builtin(name)
                && !self.b.catalog.exists(name)
            {
                let d = self.error(
                    Code::ClassNotFound,
                    ctx,
                    format!("Class '{name}' required by ${} in {f} not found.", p.name),
                    span,
                );
                let d = self.suggest_type(d, name);
                self.diags.push(d);
                return;
            }
        }
        if let Some(given) = self.misfit(&p.ty, value) {
            let msg = format!(
                "Parameter ${} in {f} expects {}, {given} given.",
                p.name, p.ty.text
            );
            let mut d = self.error(Code::InvalidValue, ctx, msg, span);
            if let P::Str(text) = value {
                // `'@repo'` quoted (Symfony's and Nette 2's way to write a reference) is the
                // text `@repo` in Nette 3, where a reference is written unquoted.
                let target = text.trim_start_matches('@');
                if text.starts_with('@')
                    && p.ty.members.iter().any(|m| !crate::catalog::is_builtin(m))
                    && !target.is_empty()
                {
                    d = d.with_note(crate::config::symfony::quoted_reference_note(target, None));
                } else if p.ty.members.iter().any(|m| !crate::catalog::is_builtin(m))
                    && self.b.get_definition(text).is_some()
                {
                    // The name of a service where one is expected (`logger: l`): a reference
                    // is written with `@` (a new user's trial).
                    d = d.with_note(format!(
                        "did you mean `@{text}`? '{text}' is a service; a reference to it is written with `@`"
                    ));
                }
            }
            if let Some(note) = match value {
                P::Str(text) => crate::config::symfony::tagged_value_note(text),
                _ => None,
            } {
                d = d.with_note(note);
            }
            if let P::Int(n) = value {
                if let Some(why) = p.ty.int_range_misfit(*n) {
                    d = d.with_note(format!("{n} is {why}"));
                }
            }
            if let P::Str(text) = value {
                if let Some(note) =
                    p.ty.members
                        .iter()
                        .any(|m| m.eq_ignore_ascii_case("int"))
                        .then(|| crate::diagnostics::past_int_range_note(text))
                        .flatten()
                {
                    d = d.with_note(note);
                }
            }
            self.diags.push(d);
        }
    }

    /// Reports a value written to a property (`$prop = value` in a setup) that cannot fit the
    /// property's declared type.
    pub(super) fn check_property_value(
        &mut self,
        class: &str,
        property: &str,
        value: &P,
        ctx: &Ctx,
        span: Option<Span>,
    ) {
        let Some(decl) = self.b.catalog.property(class, property) else {
            return;
        };
        let ty = decl.ty.clone();
        if let Some(given) = self.misfit(&ty, value) {
            let msg = format!(
                "Property {class}::${property} expects {}, {given} given.",
                ty.text
            );
            let mut d = self.error(Code::InvalidValue, ctx, msg, span);
            if let Some(why) = match value {
                P::Int(n) => ty.int_range_misfit(*n),
                _ => None,
            } {
                d = d.with_note(format!("{given} is {why}"));
            }
            self.diags.push(d);
        }
    }

    /// A description of `value` when it cannot fit `ty`; `None` when it fits or cannot be known.
    fn misfit(&self, ty: &crate::catalog::TypeRef, value: &P) -> Option<String> {
        // `null` is not checked: it is also what a failed reference or parameter became, and
        // that failure was reported already.
        if matches!(value, P::Null) {
            return None;
        }
        // `T[]`: a list whose every item is a `T` service (written, `typed()`, `tagged()`); a
        // scalar or a list with another item was accepted here and refused by the runtime
        // when the service was created. A value known only then, or a map, is left to it.
        if let Some(item) = ty.list_of.as_deref() {
            return match value {
                P::List(items) => items.iter().enumerate().find_map(|(k, it)| {
                    (!matches!(it, P::Null) && fits(self.b, item, it) == Some(false))
                        .then(|| format!("a list whose item #{k} is {}", self.describe(it)))
                }),
                P::Str(_) | P::Int(_) | P::Float(_) | P::Bool(_) | P::Concat(_) => {
                    Some(self.describe(value))
                }
                _ => None,
            };
        }
        if ty
            .members
            .iter()
            .any(|m| fits(self.b, m, value) != Some(false))
        {
            // `int<min, max>`: a written integer must lie in the range as well.
            return match value {
                P::Int(n) if ty.int_range_misfit(*n).is_some() => Some(n.to_string()),
                _ => None,
            };
        }
        Some(self.describe(value))
    }

    /// A completed value as a message shows it.
    fn describe(&self, value: &P) -> String {
        let target_text = |t: &CallTarget| match t {
            CallTarget::Class(c) => c.clone(),
            CallTarget::SelfObject => "@self".into(),
            CallTarget::Expr(e) => match &**e {
                P::Ref(n) if n == "@self" => "@self".into(),
                P::Ref(n) => format!("@{n}"),
                _ => "...".into(),
            },
        };
        match value {
            P::Ref(n) => format!(
                "service '{n}' ({})",
                self.b
                    .get_definition(n)
                    .and_then(|d| d.resolved_type.clone())
                    .unwrap_or_default()
            ),
            P::Str(s) => format!("'{s}'"),
            P::Int(i) => i.to_string(),
            P::Float(x) => format!("{x:?}"),
            P::Bool(b) => b.to_string(),
            P::Null => "null".into(),
            P::List(_) | P::Map(_) => "array".into(),
            P::New { class, .. } => format!("new {class}"),
            P::Get { target, property } => {
                let owner = match target {
                    CallTarget::Expr(e) => match &**e {
                        P::Ref(n) => self
                            .b
                            .get_definition(n)
                            .and_then(|d| d.resolved_type.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                match owner
                    .as_deref()
                    .and_then(|o| Some((o, self.b.catalog.property(o, property)?)))
                {
                    Some((o, decl)) => format!("property {o}::${property} ({})", decl.ty.text),
                    None => format!("property ${property}"),
                }
            }
            P::Callable { target, method } => {
                format!("callable {}::{method}(...)", target_text(target))
            }
            P::Func { name, .. } => format!("{name}(...)"),
            _ => "a value".into(),
        }
    }

    /// Built-in functions: `not`, `bool`, `int`, `float`, `string` on constants (evaluated now),
    /// `typed(T, …)` and `tagged(tag, …)` (lists of references). `None` when `name` is not one.
    pub(super) fn function(
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
                    // Nette: more than one argument is an argument no parameter accepts; none
                    // at all leaves the one parameter without a value.
                    let code = if args.is_empty() {
                        Code::MissingArgument
                    } else {
                        Code::UnknownArgument
                    };
                    self.report(
                        code,
                        ctx,
                        format!(
                            "Function {lower}() expects exactly 1 parameter, {} given.",
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
                if args.is_empty() {
                    self.report(
                        Code::InvalidValue,
                        ctx,
                        format!("Function {lower}() expects at least 1 parameter, 0 given."),
                        span,
                    );
                }
                for v in args.values() {
                    let Some(s) = v.as_str() else {
                        self.report(
                            Code::InvalidValue,
                            ctx,
                            format!(
                                "Function {lower}() expects {} names, {} given.",
                                if lower == "typed" { "type" } else { "tag" },
                                v.describe()
                            ),
                            v.span.or(span),
                        );
                        continue;
                    };
                    if lower == "typed" && !self.b.catalog.exists(s) {
                        self.report(
                            Code::ClassNotFound,
                            ctx,
                            format!("Class '{s}' not found (used in typed())."),
                            v.span.or(span),
                        );
                        continue;
                    }
                    let found: Vec<String> = if lower == "typed" {
                        self.b.index.all(s)
                    } else {
                        self.b.find_by_tag(s).into_keys().collect()
                    };
                    if lower == "tagged" && found.is_empty() {
                        self.unknown_tag(s, ctx, v.span.or(span));
                    }
                    // Nette lists the services of each argument in turn, each in definition
                    // order; a service already listed keeps its first place.
                    let mut found: Vec<String> = found
                        .into_iter()
                        .filter(|n| *n != ctx.service && !names.contains(n))
                        .collect();
                    found.sort_by_key(|n| self.position(n));
                    names.extend(found);
                }
                Some(P::List(
                    names.into_iter().map(|n| P::Ref(n.into())).collect(),
                ))
            }
            _ => None,
        }
    }

    /// Matches given arguments to a signature (§5.3): explicit by name or position, class types
    /// autowired, `T[]` collected, defaults filled in; reports missing and unknown arguments.
    pub(super) fn arguments(
        &mut self,
        params: &[Param],
        given: &ExprArray,
        ctx: &Ctx,
        span: Option<Span>,
        f: &Function,
    ) -> Vec<P> {
        // By position: a skipped position (`_`) leaves a gap, autowired or defaulted below.
        let mut positional: Vec<Option<&Expr>> = Vec::new();
        let mut named: IndexMap<String, &Expr> = IndexMap::new();
        for (k, v) in &given.items {
            match k {
                Key::Int(i) => {
                    // Positions past every parameter are extra arguments, reported below.
                    let i = usize::try_from(*i).unwrap_or(usize::MAX);
                    if i < params.len() + given.len() {
                        if i >= positional.len() {
                            positional.resize(i + 1, None);
                        }
                        positional[i] = Some(v);
                    } else {
                        positional.push(Some(v));
                    }
                }
                Key::Str(s) => {
                    named.insert(s.trim_start_matches('$').to_string(), v);
                }
            }
        }
        // What each name no parameter has was probably meant to be: a parameter no argument
        // fills yet, by `suggest`'s rule. That parameter's own missing-argument error would
        // only restate the unknown name's, so it is left to the unknown-argument error below.
        let unknown: Vec<&String> = named
            .keys()
            .filter(|k| !params.iter().any(|p| p.name == k.as_str()))
            .collect();
        let meant: Vec<(String, &str)> = if unknown.is_empty() {
            Vec::new()
        } else {
            let filled = |i: usize, name: &str| {
                positional.get(i).is_some_and(Option::is_some)
                    || given.items.contains_key(&Key::Str(name.into()))
                    || given
                        .items
                        .contains_key(&Key::Str(format!("${name}").into()))
            };
            let open: Vec<&str> = params
                .iter()
                .enumerate()
                .filter(|(i, p)| !filled(*i, &p.name))
                .map(|(_, p)| p.name.as_str())
                .collect();
            unknown
                .into_iter()
                .filter_map(|k| {
                    let s = crate::diagnostics::suggest(k, open.iter().copied())?;
                    Some((k.clone(), s))
                })
                .collect()
        };
        let meant_for = |name: &str| meant.iter().any(|(_, s)| *s == name);
        // One value per parameter (a variadic one may add more).
        let mut out = Vec::with_capacity(params.len());
        // The call's record comes before those of statements nested in its arguments.
        // A plain compile (no `explain`) keeps only the arguments that read a dynamic
        // parameter (see `complete_all`): the others' origins are not built.
        let record = self.b.record_origins;
        let slot = self.trace.len();
        self.trace.push(CallOrigin {
            function: if record { f.text() } else { String::new() },
            in_setup: ctx.in_setup,
            at: span,
            arguments: Vec::new(),
        });
        let mut origins: Vec<(usize, &Param, Src)> = Vec::new();
        for (i, p) in params.iter().enumerate() {
            if p.variadic {
                // Given by name, a variadic parameter takes an array of values (Nette:
                // "Parameter $args must be array").
                if let Some(v) = named.shift_remove(p.name.as_str()) {
                    let from = out.len();
                    match self.value(v, ctx) {
                        P::List(items) => out.extend(items),
                        map @ P::Map(_) => out.push(map),
                        other => {
                            let msg = format!(
                                "Parameter ${} in {f} is variadic: given by name it must be array, {} given.",
                                p.name,
                                self.describe(&other)
                            );
                            self.report(Code::InvalidValue, ctx, msg, v.span.or(span));
                        }
                    }
                    for k in from..out.len() {
                        origins.push((k, p, Src::Written { span: v.span }));
                    }
                }
                let rest: Vec<Option<&Expr>> = positional.iter().skip(i).copied().collect();
                if let Some(k) = rest.iter().position(Option::is_none) {
                    if rest[k..].iter().any(Option::is_some) {
                        let msg = format!(
                            "Cannot skip (_) position {} of {f}: it belongs to the variadic parameter ${}, which collects values only.",
                            i + k + 1,
                            p.name
                        );
                        self.report(Code::InvalidValue, ctx, msg, span);
                    }
                }
                for v in rest.into_iter().flatten() {
                    let value = self.value(v, ctx);
                    self.check_type(p, &value, ctx, v.span.or(span), f);
                    origins.push((out.len(), p, self.given_source(v, &value)));
                    out.push(value);
                }
                positional.clear();
                break;
            }
            let by_name = named.shift_remove(p.name.as_str());
            let at_position = positional.get(i).copied().flatten();
            if let (Some(n), Some(v)) = (by_name, at_position) {
                self.overridden_position(p, i, n, v, ctx);
            }
            let explicit = by_name.or(at_position);
            if let (Some(v), Some(target)) = (explicit, p.ty.provider_of.as_deref()) {
                let value = self.provider_value(p, target, v, ctx, span, f);
                origins.push((out.len(), p, self.given_source(v, &value)));
                out.push(value);
                continue;
            }
            if let Some(v) = explicit {
                let value = self.value(v, ctx);
                // A `null` that stands for a value already reported (a missing parameter) is
                // not a second error.
                let reported = self.diags.has_error_within(v.span);
                if matches!(v.kind, ExprKind::Null) && !accepts_null(p) && !reported {
                    let msg = format!(
                        "Parameter ${} in {f} expects {}, null given.",
                        p.name, p.ty.text
                    );
                    self.report(Code::InvalidValue, ctx, msg, v.span.or(span));
                }
                self.check_type(p, &value, ctx, v.span.or(span), f);
                origins.push((out.len(), p, self.given_source(v, &value)));
                out.push(value);
                continue;
            }
            if ctx.factory_params.iter().any(|f| p.name == *f) {
                origins.push((out.len(), p, Src::FactoryParameter));
                out.push(self.factory_arg(&p.name, ctx));
                continue;
            }
            if let Some(target) = p.ty.provider_of.as_deref() {
                let source = self.autowire_provider(p, target, ctx, span, f, &mut out);
                origins.push((out.len() - 1, p, source));
                continue;
            }
            if let Some(class) = p.ty.class() {
                let mark = self.diags.len();
                let memo = Some(&p.ty.index_slot);
                let source =
                    match self.by_type_remembered(class, memo, ctx, span, Some((&p.name, f))) {
                        Some(n) if !n.is_empty() => {
                            // A plain compilation keeps no autowired origin (only those of
                            // dynamic parameters): the name is not copied for it.
                            let service = if record { n.to_string() } else { String::new() };
                            out.push(P::Ref(n));
                            Src::Autowired {
                                ty: self.origin_type(class),
                                service,
                            }
                        }
                        Some(_) => {
                            out.push(P::Null);
                            Src::Unfilled {
                                tried: Some(self.origin_type(class)),
                            }
                        }
                        None if !self.b.catalog.exists(class) => {
                            // The parameter's type came from a catalog file the Rust code may have
                            // moved on from: said, as for the other argument errors (a new user's
                            // trial saw only the service's line).
                            if let Some(note) = self.catalog_file_note(f.class) {
                                for d in self.diags.since_mut(mark) {
                                    if d.code == Code::ClassNotFound {
                                        d.notes.push(note.clone());
                                    }
                                }
                            }
                            out.push(P::Null);
                            Src::Unfilled { tried: None }
                        }
                        None => match &p.default {
                            Some(d) => {
                                out.push(self.value(d, ctx));
                                Src::Default {
                                    tried: Some(self.origin_type(class)),
                                }
                            }
                            None => {
                                if !meant_for(&p.name) {
                                    let mark = self.diags.len();
                                    self.missing_by_type(class, ctx, span, &p.name, f);
                                    if p.ty.nullable {
                                        for d in self.diags.since_mut(mark) {
                                            d.notes.push(nullable_without_default_note(
                                                &p.name, class,
                                            ));
                                        }
                                    }
                                }
                                out.push(P::Null);
                                Src::Unfilled {
                                    tried: Some(self.origin_type(class)),
                                }
                            }
                        },
                    };
                origins.push((out.len() - 1, p, source));
                continue;
            }
            // `T[]` of a class collects services; `string[]` and other built-ins are plain
            // arrays that take their default (Nette autowires only class-typed items).
            if let Some(item) =
                p.ty.list_of
                    .as_ref()
                    .filter(|i| !crate::catalog::is_builtin(i))
            {
                let mut names: Vec<String> = self
                    .b
                    .index
                    .all(item)
                    .into_iter()
                    .filter(|n| n != ctx.service)
                    .collect();
                // One definition lookup per name, not per comparison.
                names.sort_by_cached_key(|n| self.position(n));
                let services = if record { names.clone() } else { Vec::new() };
                origins.push((
                    out.len(),
                    p,
                    Src::Collection {
                        ty: self.origin_type(item),
                        services,
                    },
                ));
                out.push(P::List(
                    names.into_iter().map(|n| P::Ref(n.into())).collect(),
                ));
                continue;
            }
            match &p.default {
                Some(d) => {
                    origins.push((out.len(), p, Src::Default { tried: None }));
                    out.push(self.value(d, ctx));
                }
                // A type the catalog wrote wrong was reported there: nothing to add.
                None if p.ty.reported || meant_for(&p.name) => {
                    origins.push((out.len(), p, Src::Unfilled { tried: None }));
                    out.push(P::Null);
                }
                None => {
                    let why = if p.ty.is_complex() {
                        "has complex type and no default value"
                    } else {
                        "has no class type or default value"
                    };
                    let mut d = self.error(
                        Code::MissingArgument,
                        ctx,
                        format!(
                            "Parameter ${} in {f} {why}, so its value must be specified.",
                            p.name
                        ),
                        span,
                    );
                    if p.ty.text.trim_start_matches('?') == "object" {
                        // A Rust registry's catalog says `object` for an `Arc<T>` whose T it
                        // does not name (`Registry::unregistered_types`).
                        d = d.with_note(OBJECT_PARAMETER_NOTE);
                    }
                    if let Some(note) = self.catalog_file_note(f.class) {
                        d = d.with_note(note);
                    }
                    self.diags.push(d);
                    origins.push((out.len(), p, Src::Unfilled { tried: None }));
                    out.push(P::Null);
                }
            }
        }
        if !record {
            origins.retain(|(k, _, _)| matches!(out.get(*k), Some(P::Param(_))));
        }
        // Collected from an exact-size iterator: a call's list is allocated at its length (a
        // filter here left room for four or more origins of about 160 bytes in every call's).
        self.trace[slot].arguments = origins
            .into_iter()
            .map(|(k, p, source)| ArgumentOrigin {
                parameter: p.name.to_string(),
                declared: p.ty.text.to_string(),
                source,
                value: out.get(k).cloned().unwrap_or(P::Null),
            })
            .collect();
        if !record && !self.trace[slot].arguments.is_empty() {
            self.trace[slot].function = f.text();
        }
        let extra: Vec<&Expr> = positional
            .iter()
            .skip(params.len())
            .flatten()
            .copied()
            .collect();
        if !extra.is_empty() {
            // Deliberately stricter than Nette (which appends extra arguments): the plan
            // holds exactly one value per parameter.
            let msg = if params.is_empty() && f.method == "__construct" {
                format!(
                    "Unable to pass arguments, class {} has no constructor.",
                    f.class
                )
            } else {
                format!(
                    "Too many arguments for {f}: it takes {}, {} given.",
                    params.len(),
                    params.len() + extra.len()
                )
            };
            let mut d = self.error(Code::UnknownArgument, ctx, msg, extra[0].span.or(span));
            if let Some(note) = self.catalog_file_note(f.class) {
                d = d.with_note(note);
            }
            self.diags.push(d);
            // What the extra values hold is checked all the same: a missing service or
            // parameter in one is an error of its own, not a consequence of this one.
            for v in extra {
                self.value(v, ctx);
            }
        }
        if !named.is_empty() {
            let unknown: Vec<String> = named.keys().map(|k| format!("${k}")).collect();
            // The caret goes on the first unknown name (written with or without `$`), where
            // the mistake is, else on its value.
            let (first, value) = named.first().map(|(k, v)| (k.as_str(), *v)).unzip();
            let at = first
                .and_then(|k| {
                    given
                        .key_span(k)
                        .or_else(|| given.key_span(&format!("${k}")))
                })
                .or(value.and_then(|v| v.span))
                .or(span);
            let mut d = self.error(
                Code::UnknownArgument,
                ctx,
                format!("Unable to pass specified arguments to {f}."),
                at,
            );
            d = d.with_note(format!("no parameter accepts {}", unknown.join(", ")));
            // Suggested only among the parameters no argument fills yet (`meant`).
            let mut suggested = false;
            for k in named.keys() {
                if let Some((_, s)) = meant.iter().find(|(m, _)| m == k) {
                    d = d.with_note(format!("did you mean '${s}'?"));
                    suggested = true;
                }
            }
            // No close name (a parameter renamed since: `$name` → `$who`, a new user's
            // trial): the parameters there are.
            if !suggested {
                let list: Vec<String> = params.iter().map(|p| format!("${}", p.name)).collect();
                d = d.with_note(if list.is_empty() {
                    format!("{f} takes no parameters")
                } else {
                    format!("{f} takes ({})", list.join(", "))
                });
            }
            // A name close to a parameter's is a typo far more often than a catalog older
            // than the Rust code (a new user's trial found the note noise there).
            if let Some(note) = self.catalog_file_note(f.class).filter(|_| !suggested) {
                d = d.with_note(note);
            }
            self.diags.push(d);
            // As for extra positional values: what they hold is checked all the same.
            for v in named.values() {
                self.value(v, ctx);
            }
        }
        out
    }
}
