//! Completion of generated services: accessors (`get()` returns a service) and locators
//! (`get(name)` returns one of several). Factories complete like services (their result
//! definition), with `create()`'s parameters passed through as `$arg`.
//! Follows Nette's `AccessorDefinition` and `LocatorDefinition` (`nette-di.md` §3.4).

use super::complete::{Completer, Ctx};
use super::{Completed, Definition};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, ExprKind};
use indexmap::IndexMap;
use wireplan_runtime::plan::Expr as P;

impl Completer<'_> {
    fn generated_ctx<'d>(&self, def: &'d Definition) -> Ctx<'d> {
        Ctx {
            service: &def.name,
            prefix: def.descriptor(),
            span: def.span,
            in_setup: false,
            self_type: def.resolved_type.clone(),
            factory_params: Vec::new(),
        }
    }

    /// An imported service: supplied by the application when the container is loaded.
    pub(super) fn imported(&mut self, def: &Definition) -> Completed {
        let ctx = self.generated_ctx(def);
        let tags = self.tags(def, &ctx);
        Completed {
            create: P::Null,
            setup: Vec::new(),
            tags,
            references: IndexMap::new(),
            parameters: Vec::new(),
        }
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
                        self.report(
                            Code::InvalidDefinition,
                            &ctx,
                            format!("Method {iface}::get() has no class return type; specify 'create' or 'type'."),
                            def.span,
                        );
                        P::Null
                    }
                }
            }
        };
        let tags = self.tags(def, &ctx);
        Completed {
            create,
            setup: Vec::new(),
            tags,
            references: IndexMap::new(),
            parameters: Vec::new(),
        }
    }

    /// A locator: `references` from the configuration (`name: @service` or `name: Type`), or
    /// from the values of the tag `tagged` (the tag value is the name).
    pub(super) fn locator(&mut self, def: &Definition) -> Completed {
        let ctx = self.generated_ctx(def);
        let mut references = IndexMap::new();
        for (name, target) in &def.references {
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
                ExprKind::Statement(st) if matches!(&st.callee, Callee::Name(n) if n.starts_with('@')) => {
                    self.value(target, &ctx)
                }
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
        if let Some(tag) = &def.tagged {
            for (service, value) in self.b.find_by_tag(tag) {
                if service == def.name {
                    continue;
                }
                let key = match &value.kind {
                    ExprKind::Str(s) => s.clone(),
                    ExprKind::Int(i) => i.to_string(),
                    _ => service.clone(),
                };
                if references.contains_key(&key) {
                    self.diags.push(
                        Diagnostic::warning(
                            Code::InvalidValue,
                            format!("Duplicated tag '{tag}' with value '{key}'."),
                        )
                        .at(def.span),
                    );
                    continue;
                }
                references.insert(key, P::Ref(service));
            }
        }
        let tags = self.tags(def, &ctx);
        Completed {
            create: P::Null,
            setup: Vec::new(),
            tags,
            references,
            parameters: Vec::new(),
        }
    }
}
