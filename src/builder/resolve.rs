//! Type resolution: every definition's type from its declared `type:`, its creator class, the
//! return type of its factory method (from the catalog), or the service it refers to.

use super::{ContainerBuilder, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, ExprKind, Statement};
use std::collections::HashMap;

enum State {
    Busy,
    Done(Option<String>),
}

struct Resolver<'a> {
    b: &'a ContainerBuilder,
    state: HashMap<String, State>,
    stack: Vec<String>,
    diags: &'a mut Diagnostics,
    /// Factories: name → the class `create()` returns.
    results: HashMap<String, String>,
}

impl ContainerBuilder {
    /// Resolves the type of every definition; see the module docs.
    pub(super) fn resolve_types(&mut self, diags: &mut Diagnostics) {
        let names: Vec<String> = self.definitions.keys().cloned().collect();
        let mut r = Resolver {
            b: self,
            state: HashMap::new(),
            stack: Vec::new(),
            diags,
            results: HashMap::new(),
        };
        let mut results = Vec::new();
        for n in &names {
            results.push(r.service_type(n));
        }
        let factory_results = std::mem::take(&mut r.results);
        for (n, t) in names.iter().zip(results) {
            if let Some(d) = self.definitions.get_mut(n) {
                d.resolved_type = t;
                d.result_type = factory_results.get(n).cloned();
            }
        }
        self.check_declared_types(diags);
    }

    /// `type:` against the creator (beyond Nette, which never compares them): when the
    /// creator's class is known, a declared type it is not a subtype of is an error, since
    /// autowiring and casts would trust a type the object does not have.
    ///
    /// A constructor makes exactly its class. A method's declared return class, a property's
    /// class or another service's type may stand for a subtype, so there `type:` may also
    /// narrow it (a parent or interface returned, the class declared). A creator whose type
    /// is unknown (`mixed`, `object`, no return type, a function) is not compared.
    fn check_declared_types(&self, diags: &mut Diagnostics) {
        for d in self.definitions.values() {
            if !matches!(d.kind, DefinitionKind::Service | DefinitionKind::Factory) {
                continue;
            }
            let Some(declared) = d.declared_type.as_deref().and_then(|t| self.catalog.get(t))
            else {
                continue; // an unknown type is reported by the resolution
            };
            let Some(creator) = d.creator.as_ref().filter(|c| !has_empty_callee(c)) else {
                continue;
            };
            let Some((made, exact)) = self.creator_class(creator, 0) else {
                continue;
            };
            let declared = &declared.name;
            let fits = self.catalog.is_subtype(&made, declared)
                || (!exact && self.catalog.is_subtype(declared, &made));
            if fits {
                continue;
            }
            let note = if exact {
                format!("'type' must be {made} or one of its parents or interfaces; or leave 'type' out.")
            } else {
                format!("'type' must be related to {made}: one of its parents or interfaces, or a class that extends it; or leave 'type' out.")
            };
            diags.push(
                Diagnostic::error(
                    Code::InvalidDefinition,
                    format!(
                        "Service '{}': creator returns {made}, which is not {declared}.",
                        d.name
                    ),
                )
                .at(d.span)
                .with_note(note),
            );
        }
    }

    /// The class a creator is known to give, reporting nothing: `(class, exact)`, exact for a
    /// constructor. `None` when it is not known.
    fn creator_class(&self, st: &Statement, depth: usize) -> Option<(String, bool)> {
        if depth > 64 || super::members::is_first_class_callable(st) {
            return None;
        }
        let known = |c: &str| self.catalog.get(c).map(|i| i.name.clone());
        let service = |target: &str| -> Option<String> {
            if target.contains('\\') {
                return known(target); // by type: the autowired service is a subtype
            }
            self.get_definition(target)?.resolved_type.clone()
        };
        let returns = |class: &str, method: &str| -> Option<String> {
            known(
                self.catalog
                    .method(class, method)?
                    .returns
                    .as_ref()?
                    .class()?,
            )
        };
        match &st.callee {
            Callee::Name(n) => {
                if let Some(svc) = n.strip_prefix('@') {
                    let Some((target, member)) = svc.split_once("::") else {
                        return Some((service(svc)?, false));
                    };
                    let class = service(target)?;
                    let made = match member.strip_prefix('$') {
                        Some(prop) => known(self.catalog.property(&class, prop)?.ty.class()?)?,
                        None => returns(&class, member)?,
                    };
                    return Some((made, false));
                }
                if let Some((class, method)) = n.rsplit_once("::") {
                    return Some((returns(class, method)?, false));
                }
                Some((known(n)?, true))
            }
            Callee::Member(target, method) => {
                let class = match &target.kind {
                    ExprKind::Statement(inner) => self.creator_class(inner, depth + 1)?.0,
                    ExprKind::Str(s) => service(s.strip_prefix('@')?)?,
                    _ => return None,
                };
                Some((returns(&class, method)?, false))
            }
        }
    }
}

impl Resolver<'_> {
    fn service_type(&mut self, name: &str) -> Option<String> {
        let name = self.b.real_name(name).to_string();
        match self.state.get(&name) {
            Some(State::Done(t)) => return t.clone(),
            Some(State::Busy) => {
                let pos = self.stack.iter().position(|n| *n == name).unwrap_or(0);
                let cycle = &self.stack[pos..];
                // The whole path, as constructor cycles report it (safety::check_cycles).
                let path = format!("{} -> {name}", cycle.join(" -> "));
                let span = self.b.definitions.get(&name).and_then(|d| d.span);
                self.diags.push(
                    Diagnostic::error(
                        Code::CircularReference,
                        format!(
                            "Circular reference detected for services: {}.",
                            cycle.join(", ")
                        ),
                    )
                    .at(span)
                    .with_note(format!("path: {path}"))
                    .with_note("The types of these services depend on each other (through their creators); declare a 'type' on one of them."),
                );
                return None;
            }
            None => {}
        }
        self.state.insert(name.clone(), State::Busy);
        self.stack.push(name.clone());
        let t = self.compute(&name);
        self.stack.pop();
        self.state.insert(name, State::Done(t.clone()));
        t
    }

    fn compute(&mut self, name: &str) -> Option<String> {
        let def = self.b.definitions.get(name)?;
        let span = def.span;
        let prefix = def.descriptor();
        if matches!(
            def.kind,
            DefinitionKind::Factory | DefinitionKind::Accessor | DefinitionKind::Locator
        ) {
            return self.generated(name);
        }
        if let Some(t) = &def.declared_type {
            return match self.b.catalog.get(t) {
                Some(c) => Some(c.name.clone()),
                None => {
                    let names = self.b.catalog.classes().map(|c| c.name.as_str());
                    let note = match crate::diagnostics::suggest(t, names) {
                        Some(s) => format!("did you mean '{s}'?"),
                        None => "Add it to the `types:` section.".to_string(),
                    };
                    self.diags.push(
                        Diagnostic::error(
                            Code::ClassNotFound,
                            format!("{prefix}: Class or interface '{t}' not found."),
                        )
                        .at(span)
                        .with_note(note),
                    );
                    None
                }
            };
        }
        if def.kind == DefinitionKind::Imported {
            self.diags.push(
                Diagnostic::error(
                    Code::InvalidDefinition,
                    format!("{prefix}: an imported service needs a 'type'."),
                )
                .at(span),
            );
            return None;
        }
        let Some(creator) = def.creator.clone().filter(|c| !has_empty_callee(c)) else {
            self.diags.push(
                Diagnostic::error(
                    Code::InvalidDefinition,
                    format!("{prefix}: Factory and type are missing in definition of service."),
                )
                .at(span),
            );
            return None;
        };
        self.statement_type(&creator, span, &prefix)
    }

    fn invalid(&mut self, span: Option<crate::source::Span>, msg: String) {
        self.diags
            .push(Diagnostic::error(Code::InvalidDefinition, msg).at(span));
    }

    /// The type of a generated service (its interface), checking the interface's shape; for a
    /// factory also the class its `create()` returns.
    fn generated(&mut self, name: &str) -> Option<String> {
        let def = self.b.definitions.get(name)?.clone();
        let span = def.span;
        let prefix = format!("Service '{name}'");
        let Some(iface) = def.implement.clone() else {
            self.invalid(
                span,
                format!("{prefix}: a generated service needs 'implement'."),
            );
            return None;
        };
        let Some(info) = self.b.catalog.get(&iface) else {
            self.class_not_found(&iface, span, &prefix);
            return None;
        };
        let iface = info.name.clone();
        if !info.interface {
            self.invalid(
                span,
                format!("{prefix}: '{iface}' is not an interface; 'implement' needs an interface."),
            );
            return None;
        }
        match def.kind {
            DefinitionKind::Factory => {
                let Some(create) = self.b.catalog.method(&iface, "create").cloned() else {
                    self.invalid(
                        span,
                        format!("{prefix}: Interface {iface} must have just one non-static method create()."),
                    );
                    return None;
                };
                let result = if let Some(t) = &def.declared_type {
                    match self.b.catalog.get(t) {
                        Some(c) => Some(c.name.clone()),
                        None => {
                            self.class_not_found(t, span, &prefix);
                            None
                        }
                    }
                } else if let Some(cr) = def.creator.as_ref().filter(|c| !has_empty_callee(c)) {
                    self.statement_type(cr, span, &prefix)
                } else {
                    match create.returns.as_ref().and_then(|r| r.class()) {
                        Some(c) if self.b.catalog.exists(c) => {
                            Some(self.b.catalog.canonical(c).to_string())
                        }
                        Some(c) => {
                            self.class_not_found(c, span, &prefix);
                            None
                        }
                        None => {
                            self.invalid(
                                span,
                                format!("{prefix}: Method {iface}::create() has no class return type; specify 'create' or 'type'."),
                            );
                            None
                        }
                    }
                };
                let result = result?;
                self.factory_parameters(&def, &iface, &create, &result, &prefix);
                if let Some(ret) = create.returns.as_ref().and_then(|r| r.class()) {
                    if !self.b.catalog.is_subtype(&result, ret) {
                        self.invalid(
                            span,
                            format!("{prefix}: Factory for {iface} cannot create incompatible {result} type."),
                        );
                    }
                }
                self.results.insert(name.to_string(), result);
            }
            DefinitionKind::Accessor => match self.b.catalog.method(&iface, "get") {
                Some(m) if m.params.is_empty() => {}
                _ => {
                    self.invalid(
                        span,
                        format!("{prefix}: Interface {iface} must have just one method get() without parameters."),
                    );
                    return None;
                }
            },
            _ => {
                if !self.locator_interface(&iface, span, &prefix) {
                    return None;
                }
            }
        }
        Some(iface)
    }

    /// Nette's `LocatorDefinition::setImplement`: every method of the interface (inherited ones
    /// too) is a non-static `get($name)` / `create($name)` with one parameter, or a `getX()` /
    /// `createX()` without parameters returning a class (the service under the key `x`).
    fn locator_interface(
        &mut self,
        iface: &str,
        span: Option<crate::source::Span>,
        prefix: &str,
    ) -> bool {
        let mut methods: Vec<(String, crate::catalog::Method)> = Vec::new();
        for a in self.b.catalog.ancestors(iface) {
            for (n, m) in self
                .b
                .catalog
                .get(&a)
                .map(|c| &c.methods)
                .into_iter()
                .flatten()
            {
                if !methods.iter().any(|(seen, _)| seen.eq_ignore_ascii_case(n)) {
                    methods.push((n.clone(), m.clone()));
                }
            }
        }
        if methods.is_empty() {
            self.invalid(
                span,
                format!("{prefix}: Interface {iface} must have at least one method."),
            );
            return false;
        }
        let mut ok = true;
        for (name, m) in &methods {
            let key = wireplan_runtime::generated::locator_method(name).map(|l| l.key);
            let fits = !m.is_static
                && match &key {
                    Some(None) => m.params.len() == 1,
                    Some(Some(_)) => m.params.is_empty(),
                    None => false,
                };
            if !fits {
                self.diags.push(
                    Diagnostic::error(
                        Code::InvalidDefinition,
                        format!("{prefix}: Method {iface}::{name}() does not meet the requirements: is create($name), get($name), create*() or get*() and is non-static."),
                    )
                    .at(span),
                );
                ok = false;
                continue;
            }
            if matches!(key, Some(Some(_))) && m.returns.as_ref().and_then(|r| r.class()).is_none()
            {
                self.invalid(
                    span,
                    format!("{prefix}: Method {iface}::{name}() has no class return type; a locator's {name}() returns a service."),
                );
                ok = false;
            }
        }
        ok
    }

    /// Nette's `FactoryDefinition::completeParameters`: each `create()` parameter is passed to
    /// the result constructor's parameter of the same name, whose type must accept it; one that
    /// matches none is an error when the result has no setup (which could use it).
    ///
    /// Checked only when the result is made by a constructor (a class creator, or none). Unlike
    /// Nette, a parameter the configuration passes explicitly (`arguments: [title: $titel]`) is
    /// used, not unmatched, and a constructor parameter given an explicit argument does not
    /// receive the `create()` parameter, so its type is not compared.
    fn factory_parameters(
        &mut self,
        def: &super::Definition,
        iface: &str,
        create: &crate::catalog::Method,
        result: &str,
        prefix: &str,
    ) {
        let class = match def.creator.as_ref().filter(|c| !has_empty_callee(c)) {
            None => result.to_string(),
            Some(st) => match &st.callee {
                Callee::Name(n) if !n.starts_with('@') && !n.contains("::") => {
                    match self.b.catalog.get(n) {
                        Some(c) => c.name.clone(),
                        None => return, // reported by statement_type
                    }
                }
                _ => return,
            },
        };
        let ctor = self.b.catalog.constructor(&class).to_vec();
        let args = def.creator.as_ref().map(|c| &c.arguments);
        let explicit_value =
            |name: &str| args.is_some_and(|a| a.values().any(|v| uses_parameter(v, name, 0)));
        let explicit_param = |pos: usize, name: &str| {
            args.is_some_and(|a| {
                a.items.keys().any(|k| match k {
                    crate::neon::Key::Int(i) => usize::try_from(*i).ok() == Some(pos),
                    crate::neon::Key::Str(s) => s.trim_start_matches('$') == name,
                })
            })
        };
        for p in &create.params {
            match ctor.iter().position(|c| c.name == p.name) {
                Some(pos) => {
                    let c = &ctor[pos];
                    if !explicit_param(pos, &c.name) && !type_allows(&self.b.catalog, &c.ty, &p.ty)
                    {
                        self.diags.push(
                            Diagnostic::error(
                                Code::InvalidDefinition,
                                format!(
                                    "{prefix}: Type of ${} in {iface}::create() doesn't match type in {class} constructor.",
                                    p.name
                                ),
                            )
                            .at(def.span)
                            .with_note(format!(
                                "create() declares ${}: {}, the constructor ${}: {}.",
                                p.name, p.ty.text, c.name, c.ty.text
                            )),
                        );
                    }
                }
                None if def.setup.is_empty() && !explicit_value(&p.name) => {
                    let list = |names: Vec<&str>| {
                        names
                            .iter()
                            .map(|n| format!("${n}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    let ctor_names: Vec<&str> = ctor.iter().map(|c| c.name.as_str()).collect();
                    let mut msg = format!(
                        "{prefix}: Cannot implement {iface}::create(): factory method parameters ({}) are not matching {class}::__construct() parameters ({}).",
                        list(create.params.iter().map(|p| p.name.as_str()).collect()),
                        list(ctor_names.clone()),
                    );
                    if let Some(hint) = crate::diagnostics::suggest(&p.name, ctor_names) {
                        msg.push_str(&format!(
                            " Did you mean to use '${hint}' in factory method?"
                        ));
                    }
                    self.diags.push(
                        Diagnostic::error(Code::InvalidDefinition, msg)
                            .at(def.span)
                            .with_note(format!(
                                "${} matches no constructor parameter by name, and the result has no setup that could use it.",
                                p.name
                            )),
                    );
                    // Nette stops at the first unmatched parameter.
                    return;
                }
                None => {}
            }
        }
    }

    /// The type a statement produces, reporting what makes it unknown.
    fn statement_type(
        &mut self,
        st: &Statement,
        span: Option<crate::source::Span>,
        prefix: &str,
    ) -> Option<String> {
        if super::members::is_first_class_callable(st) {
            self.invalid(
                span,
                format!("{prefix}: {}", super::members::callable_creator_message(st)),
            );
            return None;
        }
        match &st.callee {
            Callee::Name(n) => {
                if let Some(svc) = n.strip_prefix('@') {
                    if let Some((target, method)) = svc.split_once("::") {
                        let t = self.reference_type(target, span, prefix)?;
                        if let Some(prop) = method.strip_prefix('$') {
                            return self.property_type(&t, prop, span, prefix);
                        }
                        return self.method_return(&t, method, span, prefix);
                    }
                    return self.reference_type(svc, span, prefix);
                }
                if let Some((class, method)) = n.rsplit_once("::") {
                    if class.is_empty() {
                        return self.unknown_type(span, prefix);
                    }
                    if !self.b.catalog.exists(class) {
                        self.class_not_found(class, span, prefix);
                        return None;
                    }
                    return self.method_return(class, method, span, prefix);
                }
                match self.b.catalog.get(n) {
                    Some(c) => Some(c.name.clone()),
                    None => {
                        self.class_not_found(n, span, prefix);
                        None
                    }
                }
            }
            Callee::Member(target, method) => {
                let t = match &target.kind {
                    ExprKind::Statement(inner) => self.statement_type(inner, span, prefix)?,
                    ExprKind::Str(s) if s.starts_with('@') => {
                        self.reference_type(&s[1..], span, prefix)?
                    }
                    ExprKind::Str(s) => s.clone(),
                    _ => return self.unknown_type(span, prefix),
                };
                self.method_return(&t, method, span, prefix)
            }
        }
    }

    fn reference_type(
        &mut self,
        target: &str,
        span: Option<crate::source::Span>,
        prefix: &str,
    ) -> Option<String> {
        if target.contains('\\') {
            return Some(crate::catalog::normalize_name(target));
        }
        if !self.b.has_definition(target) {
            self.diags.push(
                Diagnostic::error(
                    Code::MissingService,
                    format!("{prefix}: Reference to missing service '{target}'."),
                )
                .at(span),
            );
            return None;
        }
        self.service_type(target)
    }

    /// The class a property read (`@svc::$prop` as a creator) gives, from the catalog.
    fn property_type(
        &mut self,
        class: &str,
        prop: &str,
        span: Option<crate::source::Span>,
        prefix: &str,
    ) -> Option<String> {
        let Some(p) = self.b.catalog.property(class, prop) else {
            self.diags.push(
                Diagnostic::error(
                    Code::PropertyNotFound,
                    format!("{prefix}: Property {class}::${prop} is not declared in the catalog."),
                )
                .at(span),
            );
            return None;
        };
        match p.ty.class() {
            Some(c) if self.b.catalog.exists(c) => Some(self.b.catalog.canonical(c).to_string()),
            Some(c) => {
                let c = c.to_string();
                self.class_not_found(&c, span, prefix);
                None
            }
            None => self.unknown_type(span, prefix),
        }
    }

    fn method_return(
        &mut self,
        class: &str,
        method: &str,
        span: Option<crate::source::Span>,
        prefix: &str,
    ) -> Option<String> {
        match self.b.catalog.method(class, method) {
            None => {
                self.diags.push(
                    Diagnostic::error(
                        Code::MethodNotFound,
                        format!("{prefix}: Method {class}::{method}() is not callable."),
                    )
                    .at(span)
                    .with_note(format!(
                        "The catalog lists no method '{method}' for {class}."
                    )),
                );
                None
            }
            Some(m) => match m.returns.as_ref().and_then(|r| r.class()) {
                Some(c) if self.b.catalog.exists(c) => {
                    Some(self.b.catalog.canonical(c).to_string())
                }
                Some(c) => {
                    self.class_not_found(c, span, prefix);
                    None
                }
                None => {
                    self.diags.push(
                        Diagnostic::error(
                            Code::InvalidDefinition,
                            format!(
                                "{prefix}: Unknown service type, specify it or declare return type of factory method {class}::{method}()."
                            ),
                        )
                        .at(span)
                        .with_note(format!("Add `returns:` to {class} › methods › {method} in the catalog, or give the service a `type:`.")),
                    );
                    None
                }
            },
        }
    }

    fn unknown_type(&mut self, span: Option<crate::source::Span>, prefix: &str) -> Option<String> {
        self.diags.push(
            Diagnostic::error(
                Code::InvalidDefinition,
                format!(
                    "{prefix}: Unknown service type, specify it or declare return type of factory method."
                ),
            )
            .at(span),
        );
        None
    }

    fn class_not_found(&mut self, class: &str, span: Option<crate::source::Span>, prefix: &str) {
        let mut d = Diagnostic::error(
            Code::ClassNotFound,
            format!("{prefix}: Class '{class}' not found."),
        )
        .at(span);
        let names: Vec<&str> = self.b.catalog.classes().map(|c| c.name.as_str()).collect();
        if let Some(s) = crate::diagnostics::suggest(class, names) {
            d = d.with_note(format!("did you mean '{s}'?"));
        } else {
            d = d.with_note("Add it to the `types:` section.");
        }
        self.diags.push(d);
    }
}

/// Does `v` pass the factory parameter `name` (`$name`), also inside nested statements, lists
/// and maps?
fn uses_parameter(v: &crate::expr::Expr, name: &str, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    match &v.kind {
        ExprKind::Str(s) => s.strip_prefix('$') == Some(name),
        ExprKind::Array(a) => a.values().any(|x| uses_parameter(x, name, depth + 1)),
        ExprKind::Statement(st) => {
            let target = match &st.callee {
                Callee::Member(t, _) => uses_parameter(t, name, depth + 1),
                Callee::Name(_) => false,
            };
            target
                || st
                    .arguments
                    .values()
                    .any(|x| uses_parameter(x, name, depth + 1))
        }
        ExprKind::Concat(parts) => parts.iter().any(|x| uses_parameter(x, name, depth + 1)),
        _ => false,
    }
}

/// Does a parameter declared `target` accept every value of `given` (Nette's `Type::allows`)?
/// Built-in types match by name, classes by subtyping; `mixed` accepts everything, and a
/// `given` of `mixed` (also what an undeclared type reads as) is not known, so it is accepted.
fn type_allows(
    catalog: &crate::catalog::Catalog,
    target: &crate::catalog::TypeRef,
    given: &crate::catalog::TypeRef,
) -> bool {
    let mixed =
        |t: &crate::catalog::TypeRef| t.members.iter().any(|m| m.eq_ignore_ascii_case("mixed"));
    if mixed(target) || mixed(given) {
        return true;
    }
    if given.nullable && !target.nullable {
        return false;
    }
    if given.list_of.is_some() || target.list_of.is_some() {
        return given.text.eq_ignore_ascii_case(&target.text)
            || target
                .members
                .iter()
                .any(|m| m.eq_ignore_ascii_case("array"))
                && given
                    .members
                    .iter()
                    .all(|m| m.eq_ignore_ascii_case("array"));
    }
    given.members.iter().all(|g| {
        target.members.iter().any(|t| {
            if crate::catalog::is_builtin(t) || crate::catalog::is_builtin(g) {
                t.eq_ignore_ascii_case(g)
            } else {
                catalog.is_subtype(g, t)
            }
        })
    })
}

/// A creator made only to carry `arguments:` (no class given): the class comes from the type.
pub(super) fn has_empty_callee(st: &Statement) -> bool {
    matches!(&st.callee, Callee::Name(n) if n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::type_allows;
    use crate::catalog::{Catalog, TypeRef};
    use crate::diagnostics::Diagnostics;

    fn catalog() -> Catalog {
        let mut diags = Diagnostics::new();
        let mut sources = crate::source::SourceMap::new();
        let raw = crate::config::load_str(
            "t.neon",
            "types:\n\tApp\\Db: {}\n\tApp\\SqliteDb: {extends: App\\Db}\n",
            &mut sources,
            &mut diags,
        );
        let (_, sections) = crate::config::expand_config(
            &raw.sections,
            &[],
            &indexmap::IndexMap::new(),
            &mut diags,
        );
        Catalog::from_section(sections.get("types").map(|(_, v)| v), &mut diags)
    }

    #[test]
    fn factory_parameter_types_follow_nettes_allows() {
        let c = catalog();
        let allows = |target: &str, given: &str| {
            type_allows(&c, &TypeRef::parse(target), &TypeRef::parse(given))
        };
        assert!(allows("App\\Db", "App\\SqliteDb"));
        assert!(!allows("App\\SqliteDb", "App\\Db"));
        assert!(allows("?string", "string"));
        assert!(!allows("string", "?string"));
        assert!(!allows("int", "string"));
        assert!(
            !allows("float", "int"),
            "Nette compares built-in types by name"
        );
        assert!(allows("int|string", "int"));
        assert!(!allows("int", "int|string"));
        assert!(allows("mixed", "App\\Db"));
        assert!(allows("int", "mixed"), "an undeclared type is not known");
        assert!(allows("array", "App\\Db[]"));
        assert!(!allows("App\\Db", "App\\Db[]"));
    }
}
