//! Types of generated services (factories, accessors, locators): the interface named in
//! `implement:`, checked against the shape Nette requires of it, and for a factory the class
//! `create()` returns and how `create()`'s parameters reach that class's constructor. Follows
//! Nette's `FactoryDefinition`, `AccessorDefinition` and `LocatorDefinition` (`nette-di.md`
//! §3.4).

use super::{has_empty_callee, never_object, no_class_return, Resolver};
use crate::builder::{Definition, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, ExprKind};

impl Resolver<'_> {
    /// The type of a generated service (its interface), checking the interface's shape; for a
    /// factory also the class its `create()` returns.
    pub(super) fn generated(&mut self, name: &str) -> Option<String> {
        let def = self.b.definitions.get(name)?.clone();
        let span = def.span;
        let prefix = format!("Service '{name}'");
        let Some(iface) = def.extras().implement.clone() else {
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
        let iface = info.name.to_string();
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
                if let Some(r) = create.returns.as_ref().filter(|r| never_object(r)) {
                    self.invalid(
                        span,
                        format!("{prefix}: Method {iface}::create() returns {}, which is not a class; a factory's create() returns the object it makes.", r.text),
                    );
                    return None;
                }
                let result = if let Some(t) = &def.declared_type {
                    match self.b.catalog.get(t) {
                        Some(c) => Some(c.name.to_string()),
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
                            let why = no_class_return(create.returns.as_deref());
                            self.invalid(
                                span,
                                format!("{prefix}: Method {iface}::create() {why}; specify 'create' or 'type'."),
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
                Some(m) if m.params.is_empty() => {
                    if let Some(r) = m.returns.as_ref().filter(|r| never_object(r)) {
                        self.invalid(
                            span,
                            format!("{prefix}: Method {iface}::get() returns {}, which is not a class; an accessor's get() returns a service.", r.text),
                        );
                        return None;
                    }
                }
                Some(_) => {
                    self.invalid(
                        span,
                        format!("{prefix}: Interface {iface} must have just one method get() without parameters."),
                    );
                    return None;
                }
                // No get() at all: not an accessor interface. Either an interface written where
                // a class was meant (`log: App\Logger`) or one under `implement:` that has
                // neither create() nor get(): one message for both.
                // An interface with create(): a factory's, made an accessor (a script's
                // addAccessorDefinition()): Nette's message, and what it is instead.
                None if self.b.catalog.method(&iface, "create").is_some() => {
                    let d = Diagnostic::error(
                        Code::InvalidDefinition,
                        format!("{prefix}: Interface {iface} must have just one non-static method get()."),
                    )
                    .at(span)
                    .with_note(format!(
                        "{iface} has create(): it is a generated factory's interface \
                         (addFactoryDefinition() in a script; `implement:` in the configuration \
                         makes a factory of it)"
                    ));
                    self.diags.push(d);
                    return None;
                }
                None => {
                    let implementors: Vec<String> = self
                        .b
                        .catalog
                        .classes()
                        .filter(|c| !c.interface && !c.is_abstract)
                        .filter(|c| c.name != iface && self.b.catalog.is_subtype(&c.name, &iface))
                        .map(|c| c.name.to_string())
                        .collect();
                    let mut d = Diagnostic::error(
                        Code::InvalidDefinition,
                        format!("{prefix}: Interface {iface} cannot be instantiated; name a class that implements it. Nor can it be generated under 'implement:': it has no method create() (a generated factory) or get() (an accessor)."),
                    )
                    .at(span);
                    // A Rust trait marked `#[interface]` is exported by name only: its
                    // create() or get() must be declared under `types:` (docs/runtime.md).
                    if self
                        .b
                        .catalog
                        .get(&iface)
                        .is_some_and(|c| c.methods.is_empty())
                    {
                        d = d.with_note(format!(
                            "the catalog declares no methods of {iface}: a Rust trait marked \
                             #[interface] is exported by name only, so declare its create() (a \
                             factory) or get() (an accessor) under `types:` (docs/runtime.md, \
                             generated services)"
                        ));
                    }
                    d = match implementors.as_slice() {
                        [] => d.with_note(format!("no class in the catalog implements {iface}")),
                        [one] => {
                            d.with_note(format!("did you mean '{one}'? (it implements {iface})"))
                        }
                        many => d.with_note(format!(
                            "classes that implement {iface}: {}",
                            many.join(", ")
                        )),
                    };
                    self.diags.push(d);
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
        prefix: &dyn std::fmt::Display,
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
                    methods.push((n.to_string(), m.clone()));
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
                let why = no_class_return(m.returns.as_deref());
                self.invalid(
                    span,
                    format!("{prefix}: Method {iface}::{name}() {why}; a locator's {name}() returns a service."),
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
        def: &Definition,
        iface: &str,
        create: &crate::catalog::Method,
        result: &str,
        prefix: &dyn std::fmt::Display,
    ) {
        let class = match def.creator.as_ref().filter(|c| !has_empty_callee(c)) {
            None => result.to_string(),
            Some(st) => match &st.callee {
                Callee::Name(n) if !n.starts_with('@') && !n.contains("::") => {
                    match self.b.catalog.get(n) {
                        Some(c) => c.name.to_string(),
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

#[cfg(test)]
mod tests {
    use super::type_allows;
    use crate::catalog::{Catalog, TypeRef};

    fn catalog() -> Catalog {
        crate::catalog::from_config_text(
            "types:\n\tApp\\Db: {}\n\tApp\\SqliteDb: {extends: App\\Db}\n",
        )
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
