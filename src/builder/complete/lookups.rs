//! Completing references and lookups by type: `@name`, `@Type`, `@self`, and the notes of a
//! `missing-service` error (a removed, excluded or misspelt provider), as Nette's
//! `Resolver::normalizeReference` and `getByType` word them.

use super::*;
use wireplan_runtime::plan::Lifespan;

impl Completer<'_> {
    /// A reference `@name`, `@Type\Name` or `@self` used as a value.
    pub(in crate::builder) fn reference(
        &mut self,
        target: &str,
        ctx: &Ctx,
        span: Option<Span>,
    ) -> P {
        if target == "self" && ctx.in_setup {
            return P::Ref("@self".into());
        }
        if target == "self" || target.is_empty() {
            let msg = if target.is_empty() {
                "Expected a service name or type after '@'.".to_string()
            } else {
                "@self is only available in setup statements, where it is the object being set up."
                    .to_string()
            };
            let mut d = self.error(Code::InvalidValue, ctx, msg, span);
            // Only where a script may have built the reference: a service an extension
            // changed, or a value placed in another file than the definition (a script line).
            let from_script = self
                .b
                .get_definition(ctx.service)
                .and_then(crate::builder::Definition::changed_by_scripts_note)
                .is_some()
                || matches!((span, ctx.span), (Some(a), Some(b)) if a.file != b.file);
            if target.is_empty() && from_script {
                d = d.with_note(
                    "if a script built it as \"@\" + name, name was (): what getByType() returns \
                     when no service has the type; check for () before using it",
                );
            }
            self.diags.push(d);
            return P::Null;
        }
        if target.contains('\\') {
            let ty = crate::catalog::normalize_name(target);
            return match self.by_type(&ty, ctx, span, None) {
                Some(n) if n.is_empty() => P::Null,
                Some(n) => P::Ref(n),
                None => {
                    if self.b.catalog.exists(&ty) {
                        let d = self.error(
                            Code::MissingService,
                            ctx,
                            format!("Service of type {ty} not found."),
                            span,
                        );
                        let d = self.missing_note(d, &ty);
                        self.diags.push(d);
                    }
                    P::Null
                }
            };
        }
        match self.b.get_definition(target) {
            // In its own setup, a service named by its name is the object being set up, as in
            // Nette's `Resolver::normalizeReference` (`setPeer(@mailer)` in `mailer`'s setup
            // is `setPeer(@self)`), not a reference that would need the service created first.
            Some(d) if ctx.in_setup && d.name == ctx.service => P::Ref("@self".into()),
            Some(d) => P::Ref(d.name.as_str().into()),
            None => {
                let mut d = self.error(
                    Code::MissingService,
                    ctx,
                    format!("Reference to missing service '{target}'."),
                    span,
                );
                match self.b.removed.get(target) {
                    Some(removal) => d = removal.explain(d, target, removal.type_.as_deref()),
                    // A name the configuration wrote but the builder refused (`my logger`):
                    // this error follows from that one (a new user's trial).
                    None if self.b.refused.contains_key(target) => {
                        d = d.with_note(format!(
                            "a service named '{target}' is written in the configuration, but \
                             that name was refused (invalid-definition): this error follows \
                             from that one"
                        ));
                        if let Some(Some(at)) = self.b.refused.get(target) {
                            d = d.with_secondary(*at, "the service whose name was refused");
                        }
                    }
                    None => {
                        let names = self.b.definitions.keys().map(String::as_str);
                        d = d.with_suggestion(target, names);
                        if let Some(note) = crate::config::predefined::service_note(target)
                            .or_else(|| crate::config::symfony::service_note(target))
                        {
                            d = d.with_note(note);
                        }
                    }
                }
                self.diags.push(d);
                P::Null
            }
        }
    }

    /// getByType for an argument; `param` names the parameter for messages. The service's
    /// name (`@self` for the object being set up; empty after an error, reported here), or
    /// `None` when no service has the type. The name is the autowiring index's own, copied
    /// without an allocation when short (most names).
    pub(in crate::builder) fn by_type(
        &mut self,
        ty: &str,
        ctx: &Ctx,
        span: Option<Span>,
        param: Option<(&str, &dyn std::fmt::Display)>,
    ) -> Option<plan::Name> {
        self.by_type_remembered(ty, None, ctx, span, param)
    }

    /// [`Completer::by_type`] for a parameter's class `ty`, looked up in the autowiring index
    /// through the memo `memo` of the parameter's type when given
    /// ([`crate::catalog::IndexSlot`]).
    pub(in crate::builder) fn by_type_remembered(
        &mut self,
        ty: &str,
        memo: Option<&crate::catalog::IndexSlot>,
        ctx: &Ctx,
        span: Option<Span>,
        param: Option<(&str, &dyn std::fmt::Display)>,
    ) -> Option<plan::Name> {
        // One lookup in the autowiring index answers both whether the class exists (for a
        // type some service has) and which services have it; only the others ask the catalog.
        let indexed = self.b.index.known_high_remembered(ty, memo);
        let known = indexed.as_ref().is_some_and(|(known, _)| *known);
        if !known && !self.b.catalog.exists(ty) {
            let required_by = param
                .map(|(p, f)| format!(" required by ${p} in {f}"))
                .unwrap_or_default();
            let d = self.error(
                Code::ClassNotFound,
                ctx,
                format!("Class '{ty}'{required_by} not found."),
                span,
            );
            let d = self.suggest_type(d, ty);
            self.diags.push(d);
            return None;
        }
        // Nette's Resolver::getByType: in its own setup, a service of the wanted type is the
        // object being set up, autowired or not, before any other candidate.
        if ctx.in_setup
            && ctx
                .self_type
                .as_deref()
                .is_some_and(|t| self.b.catalog.is_subtype(t, ty))
        {
            return Some("@self".into());
        }
        let eligible = |(n, _): &(&plan::Name, u32)| **n != ctx.service || ctx.in_setup;
        let (_, high) = indexed?;
        let mut found = high.clone().filter(eligible);
        match (found.next(), found.next()) {
            (Some((only, place)), None) => {
                self.ref_hints.push((only.clone(), place));
                Some(only.clone())
            }
            (None, _) => None,
            _ => {
                let candidates: Vec<String> =
                    high.filter(eligible).map(|(n, _)| n.to_string()).collect();
                let mut d = super::super::ambiguous(ty, &candidates);
                d.message = format!("{}: {}", ctx.prefix, d.message);
                let mut sorted = candidates.clone();
                sorted.sort();
                let first = sorted.first().map_or("name", String::as_str);
                if let Some((p, f)) = param {
                    d.message.push_str(&format!(" (required by ${p} in {f})"));
                    d = d.with_note(format!(
                        "pass the one to use (`{p}: @{first}`), or leave only one autowired: \
                         `autowired: false` on the others"
                    ));
                } else {
                    d = d.with_note(format!(
                        "name the one to use (`@{first}`), or leave only one autowired: \
                         `autowired: false` on the others"
                    ));
                }
                self.diags.push(d.at(span.or(ctx.span)));
                Some(plan::Name::default())
            }
        }
    }

    /// `d` with "did you mean" the closest of the catalog's classes and the built-in types to
    /// `name`, a type that is neither (a typo in a catalog or a configuration).
    pub(in crate::builder) fn suggest_type(&self, d: Diagnostic, name: &str) -> Diagnostic {
        let names = self.b.catalog.classes().map(|c| c.name.as_str());
        d.with_suggestion(
            name,
            names.chain(crate::catalog::BUILTIN_TYPES.iter().copied()),
        )
    }

    pub(in crate::builder) fn missing_by_type(
        &mut self,
        ty: &str,
        ctx: &Ctx,
        span: Option<Span>,
        p: &str,
        f: &dyn std::fmt::Display,
    ) {
        let d = self.error(
            Code::MissingService,
            ctx,
            format!("Service of type {ty} required by ${p} in {f} not found."),
            span,
        );
        let d = self.missing_note(d, ty);
        // The service itself is the only one of the type: say why it does not count.
        let only_itself = self
            .b
            .index
            .known_high(ty)
            .is_some_and(|(_, mut high)| high.len() > 0 && high.all(|n| *n == ctx.service));
        let d = if only_itself && !ctx.in_setup {
            d.with_note(format!(
                "the only autowired service of type {ty} is '{}' itself, which cannot be passed to its own constructor: give ${p} a value or another service",
                ctx.service
            ))
        } else {
            d
        };
        let d = match self.slot_hint(ty, ctx) {
            Some(hint) => d.with_note(hint),
            None => d,
        };
        self.diags.push(d);
    }

    /// For a scoped service that needs a class no service provides: the per-scope object
    /// given at run time (a request's user, say) is declared as a scope slot. `None` for
    /// other services, for types that are no class of the catalog (interfaces included: a
    /// slot is filled with one object of its type), and when a service of the type exists
    /// but is not autowired for it.
    fn slot_hint(&self, ty: &str, ctx: &Ctx) -> Option<String> {
        let def = self.b.get_definition(ctx.service)?;
        let class = self.b.catalog.get(ty)?;
        // A service of the type that autowiring leaves out (a slot written `autowired:
        // false`, say) is named by the missing-service note: declaring one is not the fix.
        if def.lifespan != Lifespan::Scoped
            || class.interface
            || self.excluded_provider(ty).is_some()
        {
            return None;
        }
        let short = ty.rsplit('\\').next().unwrap_or(ty);
        let mut name: String = short.chars().take(1).flat_map(char::to_lowercase).collect();
        name.push_str(&short[short.chars().next().map_or(0, char::len_utf8)..]);
        Some(format!(
            "'{}' is scoped: if {ty} is an object each scope is given at run time, declare it a \
             scope slot, `{name}: {{type: {ty}, slot: true}}`, and provide it with \
             Scope::provide (docs/async.md, \"Scopes and slots\")",
            ctx.service
        ))
    }

    /// The note of a `missing-service` error for the type `ty`: Nette's "Did you add it to
    /// configuration file?" (followed by the name of a service of the type that autowiring
    /// leaves out for it, when there is one), unless a service whose class was not found
    /// (reported as `class-not-found` at that service) names a class one typo away from `ty`;
    /// then the note names that service, since fixing its class is what gives `ty` a service.
    pub(super) fn missing_note(&self, d: Diagnostic, ty: &str) -> Diagnostic {
        match self.misspelt_provider(ty) {
            Some((service, class)) => d.with_note(format!(
                "Service '{service}' is probably meant to provide it: its class '{class}' was \
                 not found (reported at that service)."
            )),
            None => {
                // A service of the type was removed (by an extension, `name: false`, the REPL):
                // that, not a missing definition, is why there is none, so Nette's question
                // whether it was added is left out.
                if let Some((service, removal)) = self.removed_provider(ty) {
                    return removal.explain(d, service, Some(ty));
                }
                let mut d = d.with_note("Did you add it to configuration file?");
                if let Some(note) = self.unknown_class_note(ty) {
                    d = d.with_note(note);
                }
                if let Some(note) = self.untyped_note(ty) {
                    d = d.with_note(note);
                }
                if let Some(note) = self.b.stopped_extensions_note() {
                    d = d.with_note(note);
                }
                // The service may be there with autowiring leaving it out: Nette's note alone
                // would send the user looking for a missing definition.
                let excluded = self.excluded_provider(ty);
                // A class the container cannot create with `new` (a registry's class
                // registered without a constructor): the definition to add is a slot, an
                // import or a factory method, not `name: Class` (unless there is one).
                if let Some(note) = self.uncreatable_note(ty).filter(|_| excluded.is_none()) {
                    d = d.with_note(note);
                }
                match excluded {
                    Some(service) => d.with_note(format!(
                        "Service '{service}' is of type {ty} but is not autowired for it: pass \
                         @{service} explicitly, or change its `autowired:`"
                    )),
                    None => d,
                }
            }
        }
    }

    /// For a class with a private constructor (how a registry exports a class registered
    /// without one): how a service of it is declared, since `name: Class` would be refused.
    fn uncreatable_note(&self, ty: &str) -> Option<String> {
        let info = self.b.catalog.get(ty)?;
        if !info.private_constructor || info.interface || info.is_abstract {
            return None;
        }
        let name = {
            let short = ty.rsplit('\\').next().unwrap_or(ty);
            let mut c = short.chars();
            c.next()
                .map(|f| f.to_lowercase().chain(c).collect::<String>())
                .unwrap_or_default()
        };
        Some(format!(
            "{ty} has no public constructor (what a Rust registry exports for a class registered \
             without one): declare its service as a scope slot, `{name}: {{type: {ty}, slot: true}}`, \
             an imported service (`imported: true`), or one a static factory method creates"
        ))
    }

    /// The first removed service (in removal order) whose type was `ty` or a subtype, and how
    /// it was removed.
    pub(super) fn removed_provider(&self, ty: &str) -> Option<(&str, &super::super::Removal)> {
        self.b.removed.iter().find_map(|(name, r)| {
            r.type_
                .as_deref()
                .filter(|t| self.b.catalog.is_subtype(t, ty))
                .map(|_| (name.as_str(), r))
        })
    }

    /// The first service of type `ty` (or a subtype) that autowiring leaves out for `ty`,
    /// among [`excluded_services`].
    pub(super) fn excluded_provider(&self, ty: &str) -> Option<&str> {
        let excluded = self.excluded.get_or_init(|| excluded_services(self.b));
        excluded
            .iter()
            .find(|(_, t)| self.b.catalog.is_subtype(t, ty))
            .map(|(name, _)| name.as_str())
    }

    /// The first definition (in definition order) whose type is unresolved because its
    /// creator names a class the catalog lacks, where the class that name is a typo of (the
    /// "did you mean" of its `class-not-found` error, [`crate::diagnostics::suggest`]) is `ty`
    /// or a subtype of it: its name and written class.
    pub(super) fn misspelt_provider(&self, ty: &str) -> Option<(&str, &str)> {
        let misspelt = self.misspelt.get_or_init(|| misspelt_classes(self.b));
        misspelt.iter().find_map(|(name, class, meant)| {
            let meant = meant.as_deref()?;
            let provides = meant.eq_ignore_ascii_case(ty) || self.b.catalog.is_subtype(meant, ty);
            provides.then_some((name.as_str(), class.as_str()))
        })
    }

    /// When some autowired services have no type because their creator failed otherwise than
    /// by naming an unknown class (a method or service that does not exist, an empty
    /// `create`; each reported at its service): a note that one of them may be the service
    /// meant to provide `ty`, so the user fixes it rather than adding the "missing" service
    /// (a new user's trial: `greeter: App\English::create()` with no such method left `app`
    /// asking only whether a service of the type had been added).
    fn untyped_note(&self, ty: &str) -> Option<String> {
        let all = self.misspelt.get_or_init(|| misspelt_classes(self.b));
        let untyped: Vec<String> = all
            .iter()
            .filter(|(_, class, _)| class.is_empty())
            .map(|(name, _, _)| format!("'{name}'"))
            .collect();
        match untyped.as_slice() {
            [] => None,
            [name] => Some(format!(
                "Service {name} has no type: what creates it failed (reported at that \
                 service). If it is meant to provide {ty}, fix its `create` rather than adding \
                 another service."
            )),
            several => Some(format!(
                "Services that have no type because what creates them failed (reported at \
                 them): {}. If one of them is meant to provide {ty}, fix its `create` rather \
                 than adding another service.",
                first_few(several)
            )),
        }
    }

    /// When some services' classes were not found (each reported at its service) and none is
    /// a typo of a class of type `ty` ([`Completer::misspelt_provider`]): a note that one of
    /// them may be the service meant to provide `ty`, so the "missing" service is not added a
    /// second time. `None` when every service's class was found, or each is a typo of a
    /// known class that does not provide `ty` (`App\Clok` for `App\Clock` cannot be the
    /// missing logger: a new user's trial found the note misleading there).
    fn unknown_class_note(&self, ty: &str) -> Option<String> {
        let all = self.misspelt.get_or_init(|| misspelt_classes(self.b));
        let misspelt: Vec<&(String, String, Option<String>)> = all
            .iter()
            .filter(|(_, class, meant)| meant.is_none() && !class.is_empty())
            .collect();
        match misspelt.as_slice() {
            [] => None,
            [(name, class, _)] => Some(format!(
                "Service '{name}' has the class '{class}', which was not found (reported at \
                 that service): if it is meant to provide {ty}, fix its class rather than \
                 adding another service."
            )),
            several => {
                let items: Vec<String> = several
                    .iter()
                    .map(|(name, class, _)| format!("'{name}' (class '{class}')"))
                    .collect();
                Some(format!(
                    "Services whose class was not found (reported at them): {}. If one of \
                     them is meant to provide {ty}, fix its class rather than adding another \
                     service.",
                    first_few(&items)
                ))
            }
        }
    }
}

/// The first three of `items`, joined with commas, then "and N more" for the rest: how the
/// missing-service notes name the services that may be meant.
fn first_few(items: &[String]) -> String {
    const SHOWN: usize = 3;
    let shown = items
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    match items.len().saturating_sub(SHOWN) {
        0 => shown,
        n => format!("{shown} and {n} more"),
    }
}
