//! Captive dependencies (Clean IoC 2's rule, checked at every compile): a singleton must not
//! hold a scoped service, directly, through transients (each transient is created for its
//! owner, so it lives as long as the owner), or through a lazy handle.
//!
//! A handle (a generated factory, accessor or locator, or a `Provider<T>`) creates nothing
//! when its holder is created, but it is bound to the scope its holder was created in: a
//! singleton is created outside any scope, so each use of its handle resolves in the
//! container, where a scoped service is `ScopeRequired` at run time. So a handle is followed
//! like a transient: what it creates, or the service it hands out, is what the singleton
//! reaches.

use super::{ContainerBuilder, Definition, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use std::collections::HashMap;
use wireplan_runtime::plan::Lifespan;

/// How one service reaches another: a reference, or a `Provider<T>` handle of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edge {
    Ref,
    Provider,
}

/// The first step from each service that passes scopelessness on (a transient, or a
/// generated handle) towards a scoped service: the next service and how it is reached;
/// `None` when it reaches none.
pub(super) type Hops = HashMap<String, Option<(String, Edge)>>;

/// What a service is to the rule.
#[derive(PartialEq)]
enum Role {
    /// Needs a scope itself: a scoped service or scope slot, or a generated handle declared
    /// scoped (created anew in each scope).
    Scoped,
    /// Passes on the scope it is used in: a transient service, or a generated handle.
    PassesOn,
    /// Anything else (singletons resolve in the container whoever asks; imported services
    /// come from the application).
    Other,
}

fn role(d: &Definition) -> Role {
    match (d.kind, d.lifespan) {
        (DefinitionKind::Imported, _) => Role::Other,
        (_, Lifespan::Scoped) => Role::Scoped,
        (DefinitionKind::Service, Lifespan::Transient) => Role::PassesOn,
        (DefinitionKind::Factory | DefinitionKind::Accessor | DefinitionKind::Locator, _) => {
            Role::PassesOn
        }
        _ => Role::Other,
    }
}

fn role_of(b: &ContainerBuilder, name: &str) -> Role {
    b.get_definition(name).map_or(Role::Other, role)
}

/// The services a completed definition reaches in `create`, `setup` and (a locator's)
/// `references`, in order: its references, and the targets of its `Provider<T>` handles.
fn deps(b: &ContainerBuilder, name: &str) -> Vec<(String, Edge)> {
    let mut out = Vec::new();
    if let Some(c) = b.get_definition(name).and_then(|d| d.completed.as_ref()) {
        let all = std::iter::once(&c.create)
            .chain(&c.setup)
            .chain(c.references().values());
        for e in all {
            e.for_each_ref(&mut |n| out.push((n.to_string(), Edge::Ref)));
            e.for_each_provider(&mut |n| out.push((n.to_string(), Edge::Provider)));
        }
    }
    out
}

/// For every service that passes its scope on ([`Role::PassesOn`]): the next step towards a
/// scoped service it reaches through such services only. Found backwards, breadth first, from
/// the services that reach a scoped one directly, so the answer does not depend on the order
/// of the definitions or on cycles through handles (which a handle breaks at run time), and
/// following the steps always ends, at a scoped service, by the shortest way.
pub(super) fn hops(b: &ContainerBuilder) -> Hops {
    let mut hop: Hops = HashMap::new();
    // Which services pass their scope on to each one (target -> (holder, how)).
    let mut held_by: HashMap<String, Vec<(String, Edge)>> = HashMap::new();
    let mut queue: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    for def in b.definitions().filter(|d| role(d) == Role::PassesOn) {
        let mut next = None;
        for (dep, edge) in deps(b, &def.name) {
            match role_of(b, &dep) {
                Role::Scoped if next.is_none() => next = Some((dep, edge)),
                Role::PassesOn => held_by
                    .entry(dep)
                    .or_default()
                    .push((def.name.clone(), edge)),
                _ => {}
            }
        }
        if next.is_some() {
            queue.push_back(def.name.clone());
        }
        hop.insert(def.name.clone(), next);
    }
    while let Some(reached) = queue.pop_front() {
        for (holder, edge) in held_by.get(&reached).into_iter().flatten() {
            if let Some(slot @ None) = hop.get_mut(holder) {
                *slot = Some((reached.clone(), *edge));
                queue.push_back(holder.clone());
            }
        }
    }
    hop
}

/// One captive dependency of a singleton: the services on the way (`holder`, …, the scoped
/// one), each with how it was reached from the one before (the first with `Edge::Ref`).
pub struct CaptivePath(Vec<(String, Edge)>);

impl CaptivePath {
    /// The path as `explain` and the error show it: names, with `provider` before a service
    /// reached through a `Provider<T>` handle (`report -> provider -> files`).
    pub fn words(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, edge) in &self.0 {
            if *edge == Edge::Provider {
                out.push("provider".to_string());
            }
            out.push(name.clone());
        }
        out
    }

    fn scoped(&self) -> &str {
        self.0.last().map_or("", |(n, _)| n.as_str())
    }

    /// Whether the path passes a handle (a `Provider<T>` or a generated service before its
    /// end): then using the handle fails (`ScopeRequired`) rather than keeping a scoped
    /// service.
    pub fn through_handle(&self, b: &ContainerBuilder) -> bool {
        self.first_handle(b).is_some()
    }

    /// The first handle on the way: a generated service's name and kind, or the target of a
    /// `Provider<T>`.
    fn first_handle(&self, b: &ContainerBuilder) -> Option<String> {
        let last = self.0.len() - 1;
        self.0
            .iter()
            .enumerate()
            .skip(1)
            .find_map(|(i, (name, edge))| {
                if *edge == Edge::Provider {
                    return Some(format!("a Provider of '{name}'"));
                }
                // The scoped service at the end may be a handle declared scoped: that one is held
                // as a scoped service, not passed through.
                if i == last {
                    return None;
                }
                let kind = match b.get_definition(name)?.kind {
                    DefinitionKind::Factory => "factory",
                    DefinitionKind::Accessor => "accessor",
                    DefinitionKind::Locator => "locator",
                    _ => return None,
                };
                Some(format!("'{name}' ({kind})"))
            })
    }
}

/// The steps [`hops`] gives from `from` towards a scoped service, in order: each service and
/// how it is reached; the last one is scoped. Empty when `from` reaches none.
fn steps<'h>(hop: &'h Hops, from: &str) -> impl Iterator<Item = &'h (String, Edge)> {
    std::iter::successors(hop.get(from).and_then(Option::as_ref), |(next, _)| {
        hop.get(next).and_then(Option::as_ref)
    })
}

/// The captive-dependency paths of the service `name`, one per scoped service it reaches;
/// empty when `name` is not a singleton service or reaches none. `hop` comes from [`hops`].
pub(super) fn captive_paths(b: &ContainerBuilder, hop: &Hops, name: &str) -> Vec<CaptivePath> {
    let mut found = Vec::new();
    let Some(def) = b.get_definition(name) else {
        return found;
    };
    if def.lifespan != Lifespan::Singleton || def.kind != DefinitionKind::Service {
        return found;
    }
    let mut reported: Vec<String> = Vec::new();
    for (dep, edge) in deps(b, &def.name) {
        let mut path = vec![(def.name.clone(), Edge::Ref), (dep.clone(), edge)];
        match role_of(b, &dep) {
            Role::Scoped => {}
            Role::PassesOn if matches!(hop.get(&dep), Some(Some(_))) => {
                path.extend(steps(hop, &dep).map(|(next, edge)| (next.clone(), *edge)));
            }
            _ => continue,
        }
        let path = CaptivePath(path);
        if reported.iter().any(|s| s == path.scoped()) {
            continue;
        }
        reported.push(path.scoped().to_string());
        found.push(path);
    }
    found
}

/// Reports every captive dependency, and every scope slot declared with a lifespan other
/// than `scoped`.
pub(super) fn check_captives(b: &ContainerBuilder, diags: &mut Diagnostics) {
    // A captive path ends at a service that needs a scope: without one there is nothing to
    // follow.
    let any_scoped = b.definitions().any(|d| role(d) == Role::Scoped);
    let hop = if any_scoped { hops(b) } else { HashMap::new() };
    for def in b.definitions() {
        if def.kind == DefinitionKind::Slot && def.lifespan != Lifespan::Scoped {
            let mut d = Diagnostic::error(
                Code::InvalidDefinition,
                format!(
                    "{}: a scope slot is scoped (the application provides it in each scope), not {}.",
                    def.descriptor(),
                    match def.lifespan {
                        Lifespan::Singleton => "singleton",
                        Lifespan::Transient => "transient",
                        Lifespan::Scoped => "scoped",
                    }
                ),
            )
            .at(def.span);
            // A `setLifespan` in a script has no place of its own: say which script changed it.
            if let Some(note) = def.changed_by_scripts_note() {
                d = d.with_note(note);
            }
            diags.push(d.with_note(
                "Remove `lifespan`, or drop `slot: true` to let the container create the service.",
            ));
        }
        // A script's `setFactory` or `addSetup` on a slot (the configuration's `create:` and
        // `setup:` are refused as it is read): the plan's slot would drop them without a word.
        if def.kind == DefinitionKind::Slot && (def.creator.is_some() || !def.setup.is_empty()) {
            let what = match (def.creator.is_some(), def.setup.is_empty()) {
                (true, true) => "a factory",
                (false, _) => "setup calls",
                (true, false) => "a factory and setup calls",
            };
            let mut d = Diagnostic::error(
                Code::InvalidDefinition,
                format!(
                    "{}: a scope slot is provided by the application in each scope \
                     (scope.provide), so nothing creates or sets it up; this one has {what}.",
                    def.descriptor()
                ),
            )
            .at(def.span);
            if let Some(note) = def.changed_by_scripts_note() {
                d = d.with_note(note);
            }
            diags.push(d.with_note(
                "Drop the factory and the setup calls, or add an ordinary service \
                 (addDefinition) to let the container create it.",
            ));
        }
        // Its lifespan was written wrong (reported there): whether it may hold a scoped
        // service depends on what was meant.
        if !any_scoped || def.extras().lifespan_invalid {
            continue;
        }
        for path in captive_paths(b, &hop, &def.name) {
            diags.push(captive_error(b, &hop, def, &path));
        }
    }
}

/// The `captive-dependency` error of singleton `def` for `path`; for an anonymous holder
/// (`01`, written inline or as a `- Class` item) a note on where its lifespan is set.
fn captive_error(
    b: &ContainerBuilder,
    hop: &Hops,
    def: &Definition,
    path: &CaptivePath,
) -> Diagnostic {
    let d = captive_diagnostic(b, hop, def, path);
    if def.is_anonymous() {
        return d.with_note(format!(
            "'{}' is an anonymous service: to make it scoped, write it as a map with \
             `lifespan: scoped` (`- {{create: …, lifespan: scoped}}`), or as a named service",
            def.name
        ));
    }
    d
}

fn captive_diagnostic(
    b: &ContainerBuilder,
    hop: &Hops,
    def: &Definition,
    path: &CaptivePath,
) -> Diagnostic {
    let scoped = path.scoped();
    let words = path.words().join(" -> ");
    let handle = path.first_handle(b);
    // A Provider<T> of the scoped service itself: the wording since providers were added.
    if path.0.len() == 2 && path.0[1].1 == Edge::Provider {
        return Diagnostic::error(
            Code::CaptiveDependency,
            format!(
                "Service '{}' is a singleton and takes a Provider of scoped service \
                 '{scoped}', which it could never resolve: a singleton's provider is made \
                 outside any scope.",
                def.name
            ),
        )
        .at(def.span)
        .with_note(format!("path: {words}"))
        .with_note(
            "Make the service scoped (or transient, created in a scope), or get the scoped \
             service from the scope where it is needed.",
        );
    }
    let d = match &handle {
        None => Diagnostic::error(
            Code::CaptiveDependency,
            format!(
                "Singleton service '{}' holds scoped service '{scoped}': {words}.",
                def.name
            ),
        )
        .at(def.span)
        .with_note(captive_note(b, hop, &def.name, scoped)),
        Some(handle) => Diagnostic::error(
            Code::CaptiveDependency,
            format!(
                "Singleton service '{}' holds a handle that could never reach scoped service \
                 '{scoped}': {words}.",
                def.name
            ),
        )
        .at(def.span)
        .with_note(format!(
            "A singleton is created outside any scope, and so is every handle it holds: \
             {handle} would resolve '{scoped}' in the container, which fails at run time \
             (ScopeRequired)."
        ))
        .with_note(format!(
            "Make '{}' scoped (the handles it gets in a scope are bound to that scope), or \
             get '{scoped}' from the scope where it is needed.",
            def.name
        )),
    };
    // Lifespans a script or the prompt set: the changes, not only the definition.
    let mut d = d;
    if let Some(at) = def.extras().lifespan_at {
        d = d.with_secondary(at, format!("'{}' made a singleton here", def.name));
    }
    match b
        .get_definition(scoped)
        .and_then(|s| s.extras().lifespan_at)
    {
        Some(at) => d.with_secondary(at, format!("'{scoped}' made scoped here")),
        None => d,
    }
}

/// A scoped service that `name` holds, directly or through services that pass their scope on
/// ([`hops`]), other than `name` itself; `None` when it holds none.
fn reaches_scoped(b: &ContainerBuilder, hop: &Hops, name: &str) -> Option<String> {
    for (dep, _) in deps(b, name) {
        match role_of(b, &dep) {
            Role::Scoped if dep != name => return Some(dep),
            Role::PassesOn => {
                if let Some((end, _)) = steps(hop, &dep).last().filter(|(end, _)| end != name) {
                    return Some(end.clone());
                }
            }
            _ => {}
        }
    }
    None
}

/// The note of a captive dependency of singleton `holder` on `scoped`. A scope slot is filled
/// per scope and can be nothing but scoped, so its note leaves out "make it a singleton".
/// (Injecting an accessor or factory instead is no way out: a singleton's handle has no
/// scope either.)
fn captive_note(b: &ContainerBuilder, hop: &Hops, holder: &str, scoped: &str) -> String {
    let slot = b
        .get_definition(scoped)
        .is_some_and(|d| d.kind == DefinitionKind::Slot);
    // A scoped service that holds a scoped one itself would be a captive holder as a
    // singleton: "make it a singleton" is no way out (a new user's trial).
    if let Some(inner) = (!slot).then(|| reaches_scoped(b, hop, scoped)).flatten() {
        return format!(
            "A singleton lives as long as the container and would keep one '{scoped}' for every scope. Make '{holder}' scoped, or get '{scoped}' from the scope where it is needed ('{scoped}' cannot be a singleton: it holds scoped service '{inner}')."
        );
    }
    if slot {
        format!(
            "A singleton lives as long as the container and would keep the '{scoped}' of the first scope for every scope. Make '{holder}' scoped (a scope slot is always scoped), or get '{scoped}' from the scope where it is needed."
        )
    } else {
        format!(
            "A singleton lives as long as the container and would keep one '{scoped}' for every scope. Make '{holder}' scoped, or make '{scoped}' a singleton."
        )
    }
}
