//! Completion: creators and setups become complete plan statements.
//!
//! Argument rules follow Nette's `Resolver::autowireArguments` (`../shared/reference/nette-di.md`
//! §5.3), with one deliberate difference from the reference's generated code: the plan's
//! arguments are always positional and complete (defaults are filled in, never skipped).

use super::origins::CallOrigin;
use super::{Completed, ContainerBuilder, Definition, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use crate::source::Span;
use indexmap::IndexMap;
use wireplan_runtime::plan::{self, CallTarget, Expr as P};

mod lookups;

/// What messages about a statement start with: a definition's descriptor (Nette's
/// `Service 'x' (type of T)`, written out only when a message needs it) or a fixed text.
#[derive(Clone)]
pub(super) enum Prefix<'a> {
    /// The descriptor of this definition.
    Of(&'a Definition),
    /// This text.
    Text(String),
}

impl std::fmt::Display for Prefix<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prefix::Of(def) => f.write_str(&def.descriptor()),
            Prefix::Text(text) => f.write_str(text),
        }
    }
}

/// A called function as messages name it (`App\Mailer::__construct()`), written out only when
/// a message (or an argument's recorded origin) needs it.
pub(super) struct Function<'a> {
    /// The class (`?` when unknown).
    pub(super) class: &'a str,
    /// The method.
    pub(super) method: &'a str,
}

impl Function<'_> {
    /// The name as text, allocated at its length (kept in each call's recorded origin).
    pub(super) fn text(&self) -> String {
        let mut s = String::with_capacity(self.class.len() + self.method.len() + 4);
        s.push_str(self.class);
        s.push_str("::");
        s.push_str(self.method);
        s.push_str("()");
        s
    }
}

impl std::fmt::Display for Function<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}::{}()", self.class, self.method)
    }
}

/// Where a statement is completed: which service, and whether `@self` is allowed.
pub(super) struct Ctx<'a> {
    pub(super) service: &'a str,
    pub(super) prefix: Prefix<'a>,
    pub(super) span: Option<Span>,
    pub(super) in_setup: bool,
    /// The type of `@self` (the service, or a factory's result).
    pub(super) self_type: Option<String>,
    /// Factories: the names of `create()`'s parameters, passed through as `$arg`.
    pub(super) factory_params: Vec<String>,
}

pub(super) struct Completer<'a> {
    pub(super) b: &'a ContainerBuilder,
    pub(super) diags: &'a mut Diagnostics,
    /// Whether collections of services are listed in definition order (service statements;
    /// initialization keeps the order found).
    pub(super) in_definition_order: bool,
    /// How the arguments of the calls completed so far were filled (taken per definition).
    pub(super) trace: Vec<CallOrigin>,
    /// The definitions whose class was not found, with the class meant
    /// ([`misspelt_classes`]); found once, on the way to the first `missing-service` error.
    pub(super) misspelt: std::cell::OnceCell<Vec<(String, String, Option<String>)>>,
    /// The definitions kept out of autowiring (`autowired: false`, or autowired for other
    /// types only), at most [`EXCLUDED_MAX`], with their types ([`excluded_services`]); found
    /// once, on the way to the first `missing-service` error.
    pub(super) excluded: std::cell::OnceCell<Vec<(String, String)>>,
    /// The parameter names of every constructor and method with parameters completed so far
    /// (repeats included), for the plan's `signatures` section ([`Completer::sign`]).
    pub(super) signatures: Signatures,
    /// Whether a statement completed so far reads a dynamic parameter (a `%name%` of one
    /// became `P::Param`, the only place one is made).
    pub(super) reads_dynamic: bool,
    /// The services autowiring chose for the definition being completed, each with its place
    /// from the autowiring index (position among the definitions, [`super::autowiring::LAZY`]
    /// for an accessor or a factory): the completion's graph takes a reference's target from
    /// here rather than looking its name up among the definitions, which at gen 100000 cost
    /// 42 ms of CPU in cache misses ([`super::completing`]). Cleared per definition; the
    /// initialization's completer ([`complete_all`]) leaves them unread.
    pub(super) ref_hints: Vec<(plan::Name, u32)>,
}

/// What [`Completer::sign`] collects: (`App\Repo` or `App\Repo::connect`, the parameter
/// names joined by `", "`), in the order completed, with repeats (the plan keeps the first).
pub type Signatures = Vec<(plan::Name, plan::Name)>;

/// How many services kept out of autowiring a `missing-service` error looks through for one
/// of the missing type (each error scans them: a bound keeps many errors over many such
/// services linear).
const EXCLUDED_MAX: usize = 256;

/// The first [`EXCLUDED_MAX`] definitions (in definition order) with a resolved type that
/// autowiring leaves out for some types (`autowired: false` or a list of types): each one's
/// name and type.
fn excluded_services(b: &ContainerBuilder) -> Vec<(String, String)> {
    b.definitions()
        .filter(|d| !matches!(d.autowired, super::Autowired::All(true)))
        .filter_map(|d| Some((d.name.clone(), d.resolved_type.clone()?)))
        .take(EXCLUDED_MAX)
        .collect()
}

/// The definitions (in definition order) whose type is unresolved: each one's name, the
/// class its creator names when the catalog lacks that class (else an empty string: its
/// creator failed otherwise, a method or service that does not exist, say, reported at it)
/// and, when that name is a typo of a catalog class, the class meant. Services autowiring
/// leaves out entirely are not listed (they could not be the missing service). Only asked on
/// the way to an error, so the scan costs a valid compilation nothing.
fn misspelt_classes(b: &ContainerBuilder) -> Vec<(String, String, Option<String>)> {
    let mut found = Vec::new();
    let mut names: Option<Vec<&str>> = None;
    for def in b.definitions.values() {
        if def.resolved_type.is_some() || matches!(def.autowired, super::Autowired::All(false)) {
            continue;
        }
        let unknown_class = match def.creator.as_ref().map(|c| &c.callee) {
            Some(Callee::Name(class)) => {
                let class = class.strip_prefix('\\').unwrap_or(class);
                (!class.is_empty() && !class.contains("::") && !b.catalog.exists(class))
                    .then_some(class)
            }
            _ => None,
        };
        let Some(class) = unknown_class else {
            if def.kind == super::DefinitionKind::Service {
                found.push((def.name.clone(), String::new(), None));
            }
            continue;
        };
        let names =
            names.get_or_insert_with(|| b.catalog.classes().map(|c| c.name.as_str()).collect());
        let meant = crate::diagnostics::suggest(class, names.iter().copied());
        found.push((
            def.name.as_str().to_owned(),
            class.to_owned(),
            meant.map(str::to_owned),
        ));
    }
    found
}

pub(super) fn complete_all(b: &mut ContainerBuilder, diags: &mut Diagnostics) {
    let (results, mut signatures, graph) = super::completing::complete_definitions(b, diags);
    let init = {
        let mut c = Completer {
            b,
            diags,
            in_definition_order: false,
            trace: Vec::new(),
            misspelt: Default::default(),
            excluded: Default::default(),
            signatures: Vec::new(),
            reads_dynamic: false,
            ref_hints: Vec::new(),
        };
        let ctx = Ctx {
            service: "",
            prefix: Prefix::Text("Initialization".to_string()),
            span: None,
            in_setup: false,
            self_type: None,
            factory_params: Vec::new(),
        };
        let init: Vec<P> = b
            .initialization
            .iter()
            .map(|e| {
                let p = match &e.kind {
                    ExprKind::Statement(st) => c.statement(st, &ctx, e.span),
                    _ => c.value(e, &ctx),
                };
                c.require_effect(&p, &ctx, e.span, "initialization");
                p
            })
            .collect();
        signatures.append(&mut c.signatures);
        (init, c.reads_dynamic)
    };
    let (init, init_reads_dynamic) = init;
    b.reads_dynamic = graph.reads_dynamic || init_reads_dynamic;
    b.initialization_completed = init;
    b.signatures = signatures;
    for (def, r) in b.definitions.values_mut().zip(results) {
        def.completed = r;
    }
    super::shape::check_depth(b, diags, &graph.deep);
    super::safety::check_cycles(b, diags, &graph);
    super::captives::check_captives(b, diags);
    super::asynchrony::check_sync(b, diags);
}

pub(super) fn is_function_name(n: &str) -> bool {
    !has_member_separator(n) && !n.starts_with('@') && !n.contains('\\')
}

/// Does `n` contain `::`? Most names (class names) have no colon at all: a byte search rules
/// them out without setting up a substring search (several hundred instructions a name).
pub(super) fn has_member_separator(n: &str) -> bool {
    n.as_bytes().contains(&b':') && n.contains("::")
}

/// `n.rsplit_once("::")`, with [`has_member_separator`]'s quick refusal of names that have
/// no colon.
pub(super) fn split_member(n: &str) -> Option<(&str, &str)> {
    if !n.as_bytes().contains(&b':') {
        return None;
    }
    n.rsplit_once("::")
}

/// A PHP identifier: a method name after `::` (not `$prop`, not empty).
pub(super) fn is_identifier(n: &str) -> bool {
    !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_')
}

impl Completer<'_> {
    /// Records the names of `params`, the parameters of `class`'s constructor (`method`
    /// `None`) or of its `method`, for the plan's `signatures` section (plan version 4): the
    /// runtime compares them with the registry's at load, since the plan passes arguments by
    /// position. Collected here, where the parameters were just read (on every thread the
    /// completion runs on), rather than by looking every class up again when the plan is
    /// built. A call without parameters has nothing to compare.
    fn sign(&mut self, class: &str, method: Option<&str>, params: &[crate::catalog::Param]) {
        if params.is_empty() {
            return;
        }
        let mut names = String::with_capacity(params.len() * 8);
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                names.push_str(", ");
            }
            names.push_str(p.name.as_str());
        }
        self.signatures
            .push((plan::signature_key(class, method), plan::Name::from(names)));
    }

    /// Where the service `name` stands when collections are sorted: its position among the
    /// definitions, or last (keeping the order found) when not sorting or not a definition.
    pub(super) fn position(&self, name: &str) -> usize {
        if !self.in_definition_order {
            return usize::MAX;
        }
        self.b.definitions.get_index_of(name).unwrap_or(usize::MAX)
    }

    /// A service or a factory's result: creator, setup, tags.
    pub(super) fn service(&mut self, def: &Definition) -> Completed {
        let factory = def.kind == DefinitionKind::Factory;
        let self_type = if factory {
            def.extras().result_type.clone()
        } else {
            def.resolved_type.clone()
        };
        let factory_params: Vec<String> = if factory {
            let iface = def.resolved_type.as_deref().unwrap_or_default();
            self.b
                .catalog
                .method(iface, "create")
                .map(|m| m.params.iter().map(|p| p.name.to_string()).collect())
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let ctx = Ctx {
            service: &def.name,
            prefix: Prefix::Of(def),
            span: def.span,
            in_setup: false,
            self_type: self_type.clone(),
            factory_params: factory_params.clone(),
        };
        // An extension's `setFactory()` has a place of its own in the script.
        let creator_span = def.extras().creator_at.or(def.span);
        let reported = self.diags.len();
        let create = match &def.creator {
            Some(st) if super::members::is_first_class_callable(st) => {
                let msg = super::members::callable_creator_message(st);
                self.report(Code::InvalidDefinition, &ctx, msg, def.span);
                P::Null
            }
            Some(st) if !super::resolve::has_empty_callee(st) => {
                self.statement(st, &ctx, creator_span)
            }
            other => {
                let st = Statement {
                    callee: Callee::Name(self_type.unwrap_or_default()),
                    arguments: other
                        .as_ref()
                        .map(|c| c.arguments.clone())
                        .unwrap_or_default(),
                };
                self.statement(&st, &ctx, creator_span)
            }
        };
        super::focus_on_creator(def, self.diags, reported);
        let setup_ctx = Ctx {
            in_setup: true,
            ..ctx
        };
        let setup = def
            .setup
            .iter()
            .map(|s| self.setup(s, &setup_ctx))
            .collect();
        let tags = self.tags(def, &setup_ctx);
        Completed::new(create, setup, tags, IndexMap::new(), factory_params)
    }

    /// The factory parameter `name` (one of `ctx.factory_params`) as a plan value: `$arg`,
    /// carrying the default that the interface's `create()` declares for it, so a caller that
    /// leaves it out (Rust code calling `Factory::create`) gets that default.
    pub(super) fn factory_arg(&mut self, name: &str, ctx: &Ctx) -> P {
        let default = self
            .b
            .get_definition(ctx.service)
            .and_then(|d| d.resolved_type.as_deref())
            .and_then(|iface| self.b.catalog.method(iface, "create"))
            .and_then(|m| m.params.iter().find(|p| p.name == name))
            .and_then(|p| p.default.as_ref());
        let Some(default) = default else {
            return P::Arg(name.to_string());
        };
        // The default is a constant of the catalog: no `$arg` inside it.
        let plain = Ctx {
            service: ctx.service,
            prefix: ctx.prefix.clone(),
            span: ctx.span,
            in_setup: false,
            self_type: None,
            factory_params: Vec::new(),
        };
        P::ArgOr {
            name: name.to_string(),
            default: Box::new(self.value(default, &plain)),
        }
    }

    /// `App\Foo::BAR` or `@service::BAR` naming a constant in the catalog: its value.
    fn constant(&mut self, s: &str) -> Option<P> {
        let (target, name) = s.rsplit_once("::")?;
        if !name.starts_with(|c: char| c.is_ascii_uppercase())
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return None;
        }
        let class = match target.strip_prefix('@') {
            Some(svc) if svc.contains('\\') => crate::catalog::normalize_name(svc),
            Some(svc) => self.b.get_definition(svc)?.resolved_type.clone()?,
            None => target.to_string(),
        };
        let value = self.b.catalog.constant(&class, name)?.clone();
        let ctx = Ctx {
            service: "",
            prefix: Prefix::Text(String::new()),
            span: None,
            in_setup: false,
            self_type: None,
            factory_params: Vec::new(),
        };
        Some(self.value(&value, &ctx))
    }

    pub(super) fn tags(&mut self, def: &Definition, ctx: &Ctx) -> IndexMap<String, P> {
        def.tags
            .iter()
            .map(|(k, v)| {
                let p = self.value(v, ctx);
                self.require_plain_tag(k, &p, ctx, v.span.or(ctx.span));
                (k.clone(), p)
            })
            .collect()
    }

    pub(super) fn error(
        &mut self,
        code: Code,
        ctx: &Ctx,
        msg: String,
        span: Option<Span>,
    ) -> Diagnostic {
        let mut d = Diagnostic::error(code, format!("{}: {msg}", ctx.prefix)).at(span.or(ctx.span));
        // An error shown at the definition itself, in a service an extension changed (say with
        // `setFactory` or `setArguments`, whose values have no place of their own), may well
        // come from that script, not from the definition: name the scripts that changed it.
        // Not for what autowiring could not find, unless a script set the creator (whose
        // class asks for it): no script wrote that value (new user's trial).
        if span.is_none() || span == ctx.span {
            let def = self.b.get_definition(ctx.service);
            let autowired = matches!(code, Code::MissingService | Code::AmbiguousService)
                && def.is_some_and(|d| d.extras().creator_at.is_none());
            if let Some(note) = def
                .filter(|_| !autowired)
                .and_then(Definition::changed_by_scripts_note)
            {
                d = d.with_note(note);
            }
        }
        // What an extension script added (a setup) is reported at the script line; the
        // service's own definition is a second label.
        match (span, ctx.span) {
            (Some(at), Some(def)) if at.file != def.file => {
                d.with_secondary(def, format!("service '{}' is defined here", ctx.service))
            }
            _ => d,
        }
    }

    pub(super) fn report(&mut self, code: Code, ctx: &Ctx, msg: String, span: Option<Span>) {
        let d = self.error(code, ctx, msg, span);
        self.diags.push(d);
    }

    /// Converts a configuration value used as an argument to a plan value.
    pub(super) fn value(&mut self, v: &Expr, ctx: &Ctx) -> P {
        match &v.kind {
            ExprKind::Null => P::Null,
            ExprKind::Bool(b) => P::Bool(*b),
            ExprKind::Int(i) => P::Int(*i),
            ExprKind::Float(f) => P::Float(*f),
            ExprKind::Str(s) => {
                if let Some(name) = s.strip_prefix('$') {
                    if ctx.factory_params.iter().any(|p| p == name) {
                        return self.factory_arg(name, ctx);
                    }
                }
                // Nette reads `Class::CONSTANT` only in an unquoted literal.
                if !v.quoted {
                    if let Some(v) = self.constant(s) {
                        return v;
                    }
                    if let Some(v) = self.unknown_class_constant(s, ctx, v.span) {
                        return v;
                    }
                }
                if let Some(rest) = s.strip_prefix("@@") {
                    P::Str(format!("@{rest}"))
                } else if let Some(target) = s.strip_prefix('@') {
                    if let Some((svc, member)) = target.split_once("::") {
                        return self.service_member(svc, member, ctx, v.span);
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
            ExprKind::Dynamic(n) => {
                self.reads_dynamic = true;
                P::Param(n.clone())
            }
            ExprKind::Concat(parts) => {
                P::Concat(parts.iter().map(|x| self.value(x, ctx)).collect())
            }
        }
    }

    /// Completes a statement (creator, nested argument, or setup call on another object).
    pub(super) fn statement(&mut self, st: &Statement, ctx: &Ctx, span: Option<Span>) -> P {
        if super::members::is_first_class_callable(st) {
            return self.callable(st, ctx, span);
        }
        match &st.callee {
            Callee::Name(n) => {
                if let Some(svc) = n.strip_prefix('@') {
                    if let Some((target, method)) = svc.split_once("::") {
                        if let Some(prop) = method.strip_prefix('$') {
                            if st.arguments.is_empty() {
                                return self.property_read(target, prop, ctx, span);
                            }
                            self.report(
                                Code::InvalidDefinition,
                                ctx,
                                format!(
                                    "Writing a property of another object (@{target}::${prop}(...)) is not supported: services are shared once created. Write it in that service's own setup (${prop}: value), or call a method."
                                ),
                                span,
                            );
                            return P::Null;
                        }
                        let target_ty = self.reference_type(target, ctx);
                        let target = self
                            .reference_target(target, ctx, span)
                            .unwrap_or_else(|| CallTarget::Expr(Box::new(P::Null)));
                        return self.call(target, target_ty, method, &st.arguments, ctx, span);
                    }
                    return self.reference(svc, ctx, span);
                }
                if is_function_name(n) {
                    if let Some(v) = self.function(n, &st.arguments, ctx, span) {
                        return v;
                    }
                    if !self.b.catalog.exists(n) && n.starts_with(|c: char| c.is_lowercase()) {
                        self.report(
                            Code::MethodNotFound,
                            ctx,
                            format!("Function {n}() doesn't exist."),
                            span,
                        );
                        return P::Null;
                    }
                }
                if let Some((class, method)) = split_member(n) {
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
                let Some((t, ty)) = self.member_target(target, ctx, span) else {
                    return P::Null;
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

    /// `@target` as what a call, property read or callable works on (`@self` is the object
    /// being set up); `None` when the reference was reported as missing.
    pub(super) fn reference_target(
        &mut self,
        target: &str,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> Option<CallTarget> {
        match self.reference(target, ctx, span) {
            P::Ref(r) if r == "@self" => Some(CallTarget::SelfObject),
            P::Null => None,
            r => Some(CallTarget::Expr(Box::new(r))),
        }
    }

    pub(super) fn reference_type(&self, target: &str, ctx: &Ctx) -> Option<String> {
        if target == "self" {
            return ctx.self_type.clone();
        }
        if target.contains('\\') {
            return Some(crate::catalog::normalize_name(target));
        }
        self.b
            .get_definition(target)
            .and_then(|d| d.resolved_type.clone())
    }

    /// The class a statement's result has, when the catalog says: a constructor's class, or
    /// the declared return class of `Class::method()` / `@service::method()`.
    pub(super) fn statement_result_type(&self, st: &Statement) -> Option<String> {
        let returns = |class: &str, method: &str| {
            let r = self.b.catalog.method(class, method)?.returns.clone()?;
            let c = r.class()?;
            self.b
                .catalog
                .exists(c)
                .then(|| self.b.catalog.canonical(c).to_string())
        };
        match &st.callee {
            Callee::Name(n) if !n.contains("::") && !n.starts_with('@') => {
                Some(self.b.catalog.canonical(n).to_string())
            }
            Callee::Name(n) => match n.strip_prefix('@') {
                Some(svc) => {
                    let (svc, method) = svc.split_once("::")?;
                    if method.starts_with('$') {
                        return None;
                    }
                    let class = self
                        .b
                        .get_definition(svc)
                        .and_then(|d| d.resolved_type.clone())?;
                    returns(&class, method)
                }
                None => {
                    let (class, method) = n.rsplit_once("::")?;
                    returns(class, method)
                }
            },
            Callee::Member(..) => None,
        }
    }

    /// Reports a class the catalog lacks (Nette's `Class 'X' not found.`, with `context` such
    /// as ` (in the constant X::Y)` before the period) and a "did you mean" note.
    pub(super) fn class_not_found(
        &mut self,
        class: &str,
        context: &str,
        ctx: &Ctx,
        span: Option<Span>,
    ) {
        let mut d = self
            .error(
                Code::ClassNotFound,
                ctx,
                format!("Class '{class}' not found{context}."),
                span,
            )
            .with_focus(class);
        let names = self.b.catalog.classes().map(|c| c.name.as_str());
        d = d.with_suggestion(class, names);
        if class.starts_with("%env") {
            d = d.with_note(crate::config::symfony::SYMFONY_ENV_NOTE);
        }
        self.diags.push(d);
    }

    /// Reports a method the catalog does not list for `ty` (Nette's `Method X::m() is not
    /// callable.`), with a "did you mean" and a hint when it is a property.
    pub(super) fn method_not_found(
        &mut self,
        ty: &str,
        method: &str,
        ctx: &Ctx,
        span: Option<Span>,
    ) {
        if ty.is_empty() {
            let d = self.error(
                Code::MethodNotFound,
                ctx,
                format!("Global function {method}() is not callable."),
                span,
            );
            self.diags
                .push(d.with_note(crate::config::predefined::GLOBAL_FUNCTION_NOTE));
            return;
        }
        let mut d = self.error(
            Code::MethodNotFound,
            ctx,
            format!("Method {ty}::{method}() is not callable."),
            span,
        );
        let names = self.b.catalog.member_names(ty, |c| c.methods.keys());
        d = d.with_suggestion(method, names);
        if self.b.catalog.property(ty, method).is_some() {
            d = d.with_note(format!(
                "{ty} has a property ${method}: read it without parentheses, @service::{method}."
            ));
        }
        // Nette 2's setup placeholders (`?->setLevel(?)`, `$service->method(...)`), which
        // ported extensions still write: wireplan's setup names the method and passes the
        // arguments as a list.
        if method.contains("->") || method.contains('?') {
            d = d.with_note(
                "Nette's placeholder form ('?->method(?)', '$service->method()') is not \
                 supported: write addSetup(\"method\", [arguments]), or \"$property\" for a \
                 property write",
            );
        }
        self.diags.push(d);
    }

    pub(super) fn new_object(
        &mut self,
        class: &str,
        args: &ExprArray,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> P {
        // The builder outlives this completer: the class and its parameters need no copy.
        let b = self.b;
        let Some(info) = b.catalog.get(class) else {
            self.class_not_found(class, "", ctx, span);
            return P::Null;
        };
        let class = info.name.as_str();
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
        if let Some(owner) = b.catalog.private_constructor_of(info) {
            let owner = owner.name.as_str();
            let whose = if owner == class {
                format!("{class}'s catalog entry says `constructor: private`")
            } else {
                format!("{class} inherits the private constructor of {owner}")
            };
            let d = self
                .error(
                    Code::InvalidDefinition,
                    ctx,
                    format!("Class {class} has private constructor."),
                    span,
                )
                .with_note(format!(
                    "{whose}, which is how a Rust registry exports a class registered without a \
                     constructor: create the service with a static factory method (`create: \
                     {owner}::make()`), or declare it a scope slot (`slot: true`) or an \
                     imported service (`imported: true`)"
                ));
            self.diags.push(d);
            return P::Null;
        }
        let params = b.catalog.constructor_of(info);
        self.sign(class, None, params);
        let f = Function {
            class,
            method: "__construct",
        };
        let args = self.arguments(params, args, ctx, span, &f);
        P::New {
            class: class.into(),
            args,
        }
    }

    pub(super) fn call(
        &mut self,
        target: CallTarget,
        target_ty: Option<String>,
        method: &str,
        args: &ExprArray,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> P {
        let b = self.b;
        let params: &[crate::catalog::Param] = match &target_ty {
            Some(ty) => match b.catalog.method(ty, method) {
                Some(m) => &m.params,
                // A class the catalog lacks was reported not found where it was named; its
                // methods are not one more error each (as for a first-class callable), e.g.
                // Symfony's `%env(NAME)%` unquoted, read as `%env(NAME)::%()`.
                None if !ty.is_empty() && b.catalog.get(ty).is_none() => return P::Null,
                None => {
                    self.method_not_found(ty, method, ctx, span);
                    return P::Null;
                }
            },
            None => &[],
        };
        let f = Function {
            class: target_ty.as_deref().unwrap_or("?"),
            method,
        };
        let args = if target_ty.is_some() {
            self.arguments(params, args, ctx, span, &f)
        } else {
            args.values().map(|v| self.value(v, ctx)).collect()
        };
        // The registry knows the declared spelling only; PHP methods are case-insensitive.
        let method = target_ty
            .as_deref()
            .and_then(|ty| self.b.catalog.method_name(ty, method))
            .unwrap_or(method)
            .to_string();
        if let Some(ty) = &target_ty {
            self.sign(ty, Some(&method), params);
        }
        P::Call {
            target,
            method,
            args,
        }
    }
}
