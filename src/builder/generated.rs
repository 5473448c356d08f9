//! Completion of generated services: accessors (`get()` returns a service) and locators
//! (`get(name)` returns one of several). Factories complete like services (their result
//! definition), with `create()`'s parameters passed through as `$arg`.
//! Follows Nette's `AccessorDefinition` and `LocatorDefinition` (`nette-di.md` §3.4).

use super::complete::{Completer, Ctx};
use super::resolve::{Made, NOT_OBJECT_NOTE};
use super::{Autowired, Completed, ContainerBuilder, Definition, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Expr, ExprKind};
use indexmap::IndexMap;
use wireplan_runtime::plan::Expr as P;

impl ContainerBuilder {
    /// Nette's `LocatorDefinition`: a statement among a locator's `references` (`csv:
    /// App\Csv(';')`, `x: @factory::make()`) becomes an extra anonymous, non-autowired service,
    /// named like every anonymous service (`01`, `02`, … in the order definitions are added),
    /// and the reference points at it (`@01`), so `get('csv')` returns one shared object.
    ///
    /// `locator`: one locator (the `services:` section calls it right after loading it, so the
    /// names follow the configuration's order), or `None` for every locator (at `resolve`, for
    /// references set by extensions). Running it again changes nothing.
    pub(crate) fn add_reference_services(&mut self, locator: Option<&str>) {
        let locators: Vec<String> = match locator {
            // Most definitions are not locators: nothing to allocate for them.
            Some(n) => match self.definitions.get_key_value(self.real_name(n)) {
                Some((name, d)) if d.kind == DefinitionKind::Locator => vec![name.clone()],
                _ => return,
            },
            None => self
                .definitions
                .values()
                .filter(|d| d.kind == DefinitionKind::Locator)
                .map(|d| d.name.clone())
                .collect(),
        };
        for loc in locators {
            let statements: Vec<(String, Expr)> = match self.definitions.get(&loc) {
                Some(d) if d.kind == DefinitionKind::Locator => d
                    .extras()
                    .references
                    .iter()
                    .filter(|(_, e)| matches!(e.kind, ExprKind::Statement(_)))
                    .map(|(k, e)| (k.clone(), e.clone()))
                    .collect(),
                _ => continue,
            };
            for (key, e) in statements {
                let ExprKind::Statement(st) = e.kind else {
                    continue;
                };
                // An anonymous name is never taken, so this cannot fail.
                let Ok(def) = self.add_definition(None, e.span) else {
                    continue;
                };
                def.creator = Some(*st);
                def.autowired = Autowired::All(false);
                let reference = Expr::new(ExprKind::Str(format!("@{}", def.name)), e.span);
                if let Some(d) = self.definitions.get_mut(&loc) {
                    d.extras_mut().references.insert(key, reference);
                }
            }
        }
    }
}

impl Completer<'_> {
    fn generated_ctx<'d>(&self, def: &'d Definition) -> Ctx<'d> {
        Ctx {
            service: &def.name,
            prefix: super::complete::Prefix::Of(def),
            span: def.span,
            in_setup: false,
            self_type: def.resolved_type.clone(),
            factory_params: Vec::new(),
        }
    }

    /// An imported service (supplied by the application when the container is loaded) or a
    /// scope slot (supplied in each scope): nothing to create, only tags.
    pub(super) fn imported(&mut self, def: &Definition) -> Completed {
        let ctx = self.generated_ctx(def);
        let tags = self.tags(def, &ctx);
        Completed::new(P::Null, Vec::new(), tags, IndexMap::new(), Vec::new())
    }

    /// An accessor: `create` is the reference `get()` returns — the creator's `@service`, or the
    /// service autowired for the declared type or `get()`'s return type.
    pub(super) fn accessor(&mut self, def: &Definition) -> Completed {
        let ctx = self.generated_ctx(def);
        let iface = def.resolved_type.clone().unwrap_or_default();
        let create = match &def.creator {
            Some(st) => self.statement(st, &ctx, def.span),
            None => {
                let target = def.declared_type.clone().or_else(|| {
                    self.b
                        .catalog
                        .method(&iface, "get")
                        .and_then(|m| m.returns.as_ref())
                        .and_then(|r| r.class().map(str::to_string))
                });
                match target {
                    Some(t) => {
                        let f = format!("{iface}::get()");
                        match self.by_type(&t, &ctx, def.span, None) {
                            Some(n) if !n.is_empty() => P::Ref(n),
                            Some(_) => P::Null,
                            None => {
                                self.missing_by_type(&t, &ctx, def.span, "return", &f);
                                P::Null
                            }
                        }
                    }
                    None => {
                        let returns = self
                            .b
                            .catalog
                            .method(&iface, "get")
                            .and_then(|m| m.returns.as_deref());
                        let why = super::resolve::no_class_return(returns);
                        self.report(
                            Code::InvalidDefinition,
                            &ctx,
                            format!("Method {iface}::get() {why}; specify 'create' or 'type'."),
                            def.span,
                        );
                        P::Null
                    }
                }
            }
        };
        self.accessor_target(def, &ctx, &iface, &create);
        let tags = self.tags(def, &ctx);
        Completed::new(create, Vec::new(), tags, IndexMap::new(), Vec::new())
    }

    /// The service an accessor's `get()` returns must be of `get()`'s declared return class
    /// (stricter than Nette, whose generated `get(): T` fails only when called). Checked when
    /// both are known: the target service's resolved type (or, for a creator that is not a
    /// reference, the class it makes, as `type:` is checked against a creator), and a return
    /// class in the catalog.
    fn accessor_target(&mut self, def: &Definition, ctx: &Ctx, iface: &str, create: &P) {
        let Some(ret) = self
            .b
            .catalog
            .method(iface, "get")
            .and_then(|m| m.returns.as_ref())
            .and_then(|r| r.class())
            .and_then(|c| self.b.catalog.get(c))
            .map(|c| c.name.clone())
        else {
            return;
        };
        let (fits, how) = if let P::Ref(service) = create {
            let Some(ty) = self
                .b
                .get_definition(service)
                .and_then(|d| d.resolved_type.clone())
            else {
                return;
            };
            let how = match (&def.creator, &def.declared_type) {
                (None, Some(t)) => format!("its 'type' {t} gives service '{service}' of type {ty}"),
                _ => format!("its target is service '{service}' of type {ty}"),
            };
            (self.b.catalog.is_subtype(&ty, &ret), how)
        } else {
            let Some(st) = &def.creator else {
                return;
            };
            match self.b.creator_made(st, 0) {
                None => return,
                Some(Made::NotObject { what, ty }) => {
                    let d = self
                        .error(
                            Code::InvalidDefinition,
                            ctx,
                            format!("Method {iface}::get() returns {ret}, but its creator {what} {ty}, which is not a class."),
                            def.span,
                        )
                        .with_note(NOT_OBJECT_NOTE);
                    self.diags.push(d);
                    return;
                }
                Some(Made::Class(ty, exact)) => {
                    // A method's declared class may stand for a subtype of it.
                    let fits = self.b.catalog.is_subtype(&ty, &ret)
                        || (!exact && self.b.catalog.is_subtype(&ret, &ty));
                    (fits, format!("its creator makes {ty}"))
                }
            }
        };
        if fits {
            return;
        }
        let d = self
            .error(
                Code::InvalidDefinition,
                ctx,
                format!("Method {iface}::get() returns {ret}, but {how}."),
                def.span,
            )
            .with_note(format!(
                "An accessor's get() returns its target, so the target must be {ret} or a class that extends or implements it."
            ));
        self.diags.push(d);
    }

    /// A locator: `references` from the configuration (`name: @service` or `name: Type`), or
    /// from the values of the tag `tagged` (the tag value is the name).
    pub(super) fn locator(&mut self, def: &Definition) -> Completed {
        let ctx = self.generated_ctx(def);
        let mut references = IndexMap::new();
        for (name, target) in &def.extras().references {
            let v = match &target.kind {
                ExprKind::Str(s) if s.starts_with('@') => self.value(target, &ctx),
                ExprKind::Str(s) => match self.by_type(s, &ctx, target.span, None) {
                    Some(n) if !n.is_empty() => P::Ref(n),
                    Some(_) => P::Null,
                    None => {
                        self.report(
                            Code::MissingService,
                            &ctx,
                            format!("Service of type {s} not found."),
                            target.span,
                        );
                        P::Null
                    }
                },
                _ => {
                    self.report(
                        Code::InvalidValue,
                        &ctx,
                        format!(
                            "The reference '{name}' expects to be @service or a type, {} given.",
                            target.describe()
                        ),
                        target.span,
                    );
                    P::Null
                }
            };
            references.insert(name.clone(), v);
        }
        if let Some(tag) = &def.extras().tagged {
            self.tagged_references(def, tag, &ctx, &mut references);
        }
        self.locator_methods(def, &ctx, &references);
        let tags = self.tags(def, &ctx);
        Completed::new(P::Null, Vec::new(), tags, references, Vec::new())
    }

    /// The references of `tagged: tag`: each service carrying the tag under its value used as a
    /// PHP array key (an int as its decimal string, `true` — the `[tag]` form — as `1`, `false`
    /// as `0`; a list or map under the service's name), a `null` value left out. As in Nette,
    /// where a later service overwrites the key, the last service with a value wins, with a
    /// warning naming both. A key the configuration's own `references` already has keeps that
    /// reference (an explicit entry outranks a tag; Nette, which ignores `references` when
    /// `tagged` is set, has no such case), also with a warning.
    fn tagged_references(
        &mut self,
        def: &Definition,
        tag: &str,
        ctx: &Ctx,
        references: &mut IndexMap<String, P>,
    ) {
        // key → (service, span of its tag value) for the keys taken from the tag so far.
        let mut from_tag: IndexMap<String, (String, Option<crate::source::Span>)> = IndexMap::new();
        for (service, value) in self.b.find_by_tag(tag) {
            if service == def.name {
                continue;
            }
            // PHP array keys: `true` (the `[tag]` form) is 1, `false` 0, a float its integer.
            let key = match &value.kind {
                ExprKind::Str(s) => s.clone(),
                ExprKind::Int(i) => i.to_string(),
                ExprKind::Bool(b) => i64::from(*b).to_string(),
                ExprKind::Float(f) => (f.trunc() as i64).to_string(),
                _ => service.clone(),
            };
            let here = value
                .span
                .or_else(|| self.b.get_definition(&service).and_then(|d| d.span));
            let warning = |code: Code, msg: String| {
                Diagnostic::warning(code, format!("{}: {msg}", ctx.prefix)).at(def.span)
            };
            if let Some((first, first_span)) = from_tag.get(&key) {
                let mut d = warning(
                    Code::DuplicateTagValue,
                    format!("Duplicated tag '{tag}' with value '{key}'."),
                );
                if let Some(s) = *first_span {
                    d = d.with_secondary(s, format!("'{first}' has it first"));
                }
                if let Some(s) = here {
                    d = d.with_secondary(s, format!("'{service}' has it too"));
                }
                self.diags.push(d.with_note(format!(
                    "The locator's '{key}' is '{service}', the last service with this value (as in Nette); give the services different values of '{tag}'."
                )));
            } else if references.contains_key(&key) {
                let mut d = warning(Code::InvalidValue, format!(
                    "Reference '{key}' is both in 'references' and a value of tag '{tag}' (on service '{service}')."
                ));
                if let Some(s) = here {
                    d = d.with_secondary(s, format!("'{service}' has it"));
                }
                self.diags.push(d.with_note(
                    "The entry in 'references' is kept; rename it or change the tag value.",
                ));
                continue;
            }
            from_tag.insert(key.clone(), (service.clone(), here));
            references.insert(key, P::Ref(service.into()));
        }
    }

    /// A locator's `getX()` / `createX()` methods: each needs the reference `x` (Nette's
    /// generated method would throw "Service is not defined." at run time; here it is a compile
    /// error), holding a service of the method's return type.
    fn locator_methods(&mut self, def: &Definition, ctx: &Ctx, references: &IndexMap<String, P>) {
        let iface = def.resolved_type.clone().unwrap_or_default();
        let mut seen: Vec<String> = Vec::new();
        for a in self.b.catalog.ancestors(&iface) {
            let Some(class) = self.b.catalog.get(&a) else {
                continue;
            };
            for (name, m) in &class.methods {
                if seen.iter().any(|s| s.eq_ignore_ascii_case(name)) {
                    continue;
                }
                seen.push(name.to_string());
                let Some(key) =
                    wireplan_runtime::generated::locator_method(name).and_then(|l| l.key)
                else {
                    continue;
                };
                let returns = m
                    .returns
                    .as_ref()
                    .and_then(|r| r.class())
                    .map(str::to_string);
                match references.get(&key) {
                    None => {
                        let mut d = self.error(
                            Code::MissingService,
                            ctx,
                            format!("Method {iface}::{name}() has no service: the locator has no reference '{key}'."),
                            def.span,
                        );
                        let keys = references.keys().map(String::as_str);
                        if let Some(s) = crate::diagnostics::suggest(&key, keys) {
                            d = d.with_note(format!("did you mean '{s}'?"));
                        } else {
                            d = d.with_note(format!("Add '{key}: @service' to its references."));
                        }
                        self.diags.push(d);
                    }
                    Some(P::Ref(service)) => {
                        let ty = self
                            .b
                            .get_definition(service)
                            .and_then(|d| d.resolved_type.clone());
                        if let (Some(ty), Some(ret)) = (ty, returns) {
                            if !self.b.catalog.is_subtype(&ty, &ret) {
                                self.report(
                                    Code::InvalidDefinition,
                                    ctx,
                                    format!("Method {iface}::{name}() returns {ret}, but the reference '{key}' is service '{service}' of type {ty}."),
                                    def.span,
                                );
                            }
                        }
                    }
                    Some(_) => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Autowired, ContainerBuilder, DefinitionKind};
    use crate::catalog::Catalog;
    use crate::diagnostics::Diagnostics;
    use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};

    fn catalog() -> Catalog {
        crate::catalog::from_config_text("types:\n\tApp\\Csv: {}\n\tApp\\Exporters:\n\t\tinterface: true\n\t\tmethods:\n\t\t\tget: {params: {name: string}, returns: object}\n")
    }

    #[test]
    fn statements_set_by_extensions_become_services_at_resolve() {
        let mut b = ContainerBuilder::new(catalog());
        let loc = b.add_definition(Some("loc"), None).expect("added");
        loc.kind = DefinitionKind::Locator;
        loc.extras_mut().implement = Some("App\\Exporters".into());
        let st = Statement {
            callee: Callee::Name("App\\Csv".into()),
            arguments: ExprArray::new(),
        };
        loc.extras_mut()
            .references
            .insert("csv".into(), Expr::bare(ExprKind::Statement(Box::new(st))));
        let mut diags = Diagnostics::new();
        b.resolve(&mut diags);
        b.resolve(&mut diags);
        assert!(diags.items().is_empty(), "{:?}", diags.items());
        let anon = b.get_definition("01").expect("the statement's service");
        assert_eq!(anon.autowired, Autowired::All(false));
        assert_eq!(anon.resolved_type.as_deref(), Some("App\\Csv"));
        assert!(b.get_definition("02").is_none(), "added once");
        let r = &b
            .get_definition("loc")
            .expect("locator")
            .extras()
            .references["csv"];
        assert_eq!(r.as_str(), Some("@01"));
    }
}
