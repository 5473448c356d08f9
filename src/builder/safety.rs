//! Build-time safety beyond Nette: constructor cycles and captive dependencies, each reported
//! with the whole path.

use super::ContainerBuilder;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use std::collections::HashMap;
use wireplan_runtime::plan::Expr as P;

/// Construction cycles (`a` needs `b` needs `a`) are compile errors with the whole path; Nette
/// only finds them at run time. A service's setup runs before the service is handed out (in
/// the runtime as in Nette's generated `createServiceX()`), so references in `setup` count
/// as well as those in `create`.
pub(super) fn check_cycles(b: &ContainerBuilder, diags: &mut Diagnostics) {
    // Services by their position among the definitions: each reference is looked up once.
    let defs = &b.definitions;
    let name = |i: usize| defs.get_index(i).map_or("", |(n, _)| n.as_str());
    let edges: Vec<Vec<usize>> = defs
        .values()
        .map(|d| {
            let mut out = Vec::new();
            // Generated services (factories, accessors, locators) resolve lazily: no edges.
            // A reference to no definition has nothing to follow.
            if let Some(c) = d
                .completed
                .as_ref()
                .filter(|_| d.kind == super::DefinitionKind::Service)
            {
                let mut push = |n: &str| out.extend(defs.get_index_of(n));
                c.create.for_each_ref(&mut push);
                c.setup.iter().for_each(|st| st.for_each_ref(&mut push));
            }
            out
        })
        .collect();
    // 0 = unvisited, 1 = on stack, 2 = done
    let mut state: Vec<u8> = vec![0; edges.len()];
    // How many services creating each one needs inside one another (itself included), set
    // when it is done; a reference back onto the stack (a cycle, reported) counts nothing.
    let mut height: Vec<usize> = vec![0; edges.len()];
    let mut reported: Vec<Vec<String>> = Vec::new();
    for start in 0..edges.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = Vec::new();
        while let Some((node, i)) = stack.pop() {
            if i == 0 {
                state[node] = 1;
                path.push(node);
            }
            match edges[node].get(i).copied() {
                Some(n) => {
                    stack.push((node, i + 1));
                    match state[n] {
                        0 => stack.push((n, 0)),
                        1 => {
                            let pos = path.iter().position(|p| *p == n).unwrap_or(0);
                            let mut cycle: Vec<String> =
                                path[pos..].iter().map(|&p| name(p).to_string()).collect();
                            let mut key = cycle.clone();
                            key.sort();
                            if !reported.contains(&key) {
                                reported.push(key);
                                cycle.push(name(n).to_string());
                                let first = b.get_definition(name(n));
                                diags.push(
                                    Diagnostic::error(
                                        Code::CircularReference,
                                        format!(
                                            "Circular reference detected for services: {}.",
                                            cycle[..cycle.len() - 1].join(", ")
                                        ),
                                    )
                                    .at(first.and_then(|d| d.span))
                                    .with_note(format!("path: {}", cycle.join(" -> ")))
                                    .with_note(
                                        "a Provider<T> parameter breaks the cycle: declare one \
                                         of these constructor parameters as Provider<T> (a \
                                         lazy handle) and resolve it when needed",
                                    ),
                                );
                            }
                        }
                        _ => {}
                    }
                }
                None => {
                    state[node] = 2;
                    height[node] = 1 + edges[node].iter().map(|&n| height[n]).max().unwrap_or(0);
                    path.pop();
                }
            }
        }
    }
    // The runtime creates at most MAX_RESOLUTION_DEPTH services inside one another; a longer
    // chain compiles but its first `get` from the top fails (one warning, for the deepest).
    let limit = wireplan_runtime::container::MAX_RESOLUTION_DEPTH;
    if let Some((deepest, &h)) = height.iter().enumerate().max_by_key(|(_, h)| **h) {
        if h > limit {
            let mut chain = vec![name(deepest)];
            let mut at = deepest;
            while let Some(&next) = edges[at].iter().max_by_key(|&&n| height[n]) {
                if height[next] == 0 || chain.len() >= 4 {
                    break;
                }
                chain.push(name(next));
                at = next;
            }
            diags.push(
                Diagnostic::warning(
                    Code::DeepDependencyChain,
                    format!(
                        "Creating service '{}' creates {h} services inside one another; the runtime stops at {limit} (a dependency chain deeper than {limit} services).",
                        name(deepest)
                    ),
                )
                .at(b.get_definition(name(deepest)).and_then(|d| d.span))
                .with_note(format!("the chain starts {} -> …", chain.join(" -> ")))
                .with_note(
                    "getting a service further down the chain first creates it and what it needs, \
                     so the rest starts from there; a Provider<T> parameter or a factory also \
                     breaks the chain",
                ),
            );
        }
    }
}

/// Every service a completed statement refers to (`$ref`s outside `@self`), in order.
fn references(e: &P, out: &mut Vec<String>) {
    e.for_each_ref(&mut |n| out.push(n.to_string()));
}

/// Captive dependencies (Clean IoC 2's rule, checked at every compile): a singleton must not
/// hold a scoped service, directly or through transients (each transient is created for its
/// owner, so it lives as long as the owner). Generated services (factories, accessors,
/// locators) resolve lazily and are not owners.
pub(super) fn check_captives(b: &ContainerBuilder, diags: &mut Diagnostics) {
    use wireplan_runtime::plan::Lifespan;
    // A captive path ends at a scoped service: without one there is nothing to follow.
    let any_scoped = b.definitions().any(|d| d.lifespan == Lifespan::Scoped);
    let hop = if any_scoped {
        transient_hops(b)
    } else {
        HashMap::new()
    };
    for def in b.definitions() {
        if def.kind == super::DefinitionKind::Slot
            && def.lifespan != wireplan_runtime::plan::Lifespan::Scoped
        {
            diags.push(
                Diagnostic::error(
                    Code::InvalidDefinition,
                    format!(
                        "{}: a scope slot is scoped (the application provides it in each scope), not {}.",
                        def.descriptor(),
                        match def.lifespan {
                            wireplan_runtime::plan::Lifespan::Singleton => "singleton",
                            wireplan_runtime::plan::Lifespan::Transient => "transient",
                            wireplan_runtime::plan::Lifespan::Scoped => "scoped",
                        }
                    ),
                )
                .at(def.span)
                .with_note("Remove `lifespan`, or drop `slot: true` to let the container create the service."),
            );
        }
        if !any_scoped {
            continue;
        }
        for path in captive_paths(b, &hop, &def.name) {
            let scoped = path.last().cloned().unwrap_or_default();
            diags.push(
                Diagnostic::error(
                    Code::CaptiveDependency,
                    format!(
                        "Singleton service '{}' holds scoped service '{scoped}': {}.",
                        def.name,
                        path.join(" -> ")
                    ),
                )
                .at(def.span)
                .with_note(captive_note(b, &def.name, &scoped)),
            );
        }
    }
}

/// The note of a captive dependency of singleton `holder` on `scoped`. A scope slot is filled
/// per scope and can be nothing but scoped, so its note leaves out "make it a singleton".
fn captive_note(b: &ContainerBuilder, holder: &str, scoped: &str) -> String {
    let slot = b
        .get_definition(scoped)
        .is_some_and(|d| d.kind == super::DefinitionKind::Slot);
    if slot {
        format!(
            "A singleton lives as long as the container and would keep the '{scoped}' of the first scope for every scope. Make '{holder}' scoped, or inject an accessor or factory for '{scoped}' (a scope slot is always scoped)."
        )
    } else {
        format!(
            "A singleton lives as long as the container and would keep one '{scoped}' for every scope. Make '{holder}' scoped, make '{scoped}' a singleton, or inject an accessor or factory for '{scoped}'."
        )
    }
}

fn is_service(b: &ContainerBuilder, name: &str) -> bool {
    b.get_definition(name)
        .is_some_and(|d| d.kind == super::DefinitionKind::Service)
}

/// Whether holding `name` holds an object of its lifespan: a service, or a scope slot (whose
/// value lives in its scope).
fn is_held(b: &ContainerBuilder, name: &str) -> bool {
    b.get_definition(name).is_some_and(|d| {
        matches!(
            d.kind,
            super::DefinitionKind::Service | super::DefinitionKind::Slot
        )
    })
}

/// The services a completed definition refers to in `create` and `setup`, in order.
fn deps(b: &ContainerBuilder, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = b.get_definition(name).and_then(|d| d.completed.as_ref()) {
        references(&c.create, &mut out);
        c.setup.iter().for_each(|s| references(s, &mut out));
    }
    out
}

/// For every transient service: the next step towards a scoped service it holds through
/// transients only (`None`: it holds none).
pub(super) fn transient_hops(b: &ContainerBuilder) -> HashMap<String, Option<String>> {
    use wireplan_runtime::plan::Lifespan;
    let service = |name: &str| b.get_definition(name).filter(|_| is_held(b, name));
    let deps = |name: &str| deps(b, name);
    // Computed once per service, depth-first with an explicit stack, so long chains cost
    // linear time and no call stack.
    let mut hop: HashMap<String, Option<String>> = HashMap::new();
    for def in b.definitions() {
        if def.lifespan != Lifespan::Transient || hop.contains_key(&def.name) {
            continue;
        }
        let mut stack: Vec<(String, Vec<String>, usize)> =
            vec![(def.name.clone(), deps(&def.name), 0)];
        let mut on_stack: std::collections::HashSet<String> =
            std::iter::once(def.name.clone()).collect();
        while let Some(top) = stack.len().checked_sub(1) {
            let (node, ds, i) = &stack[top];
            let Some(dep) = ds.get(*i).cloned() else {
                let node = node.clone();
                hop.entry(node.clone()).or_insert(None);
                on_stack.remove(&node);
                stack.pop();
                continue;
            };
            let found = match service(&dep).map(|d| d.lifespan) {
                Some(Lifespan::Scoped) => true,
                Some(Lifespan::Transient) => match hop.get(&dep) {
                    Some(h) => h.is_some(),
                    None if on_stack.contains(&dep) => false, // a cycle: reported elsewhere
                    None => {
                        let child = (dep.clone(), deps(&dep), 0);
                        on_stack.insert(dep);
                        stack.push(child);
                        continue;
                    }
                },
                _ => false,
            };
            if found {
                let node = node.clone();
                hop.insert(node.clone(), Some(dep));
                on_stack.remove(&node);
                stack.pop();
            } else {
                stack[top].2 += 1;
            }
        }
    }
    hop
}

/// The captive-dependency paths of the service `name` (`name -> … -> scoped`), one per scoped
/// service it holds, directly or through transients; empty when `name` is not a singleton
/// service or holds none. `hop` comes from [`transient_hops`].
pub(super) fn captive_paths(
    b: &ContainerBuilder,
    hop: &HashMap<String, Option<String>>,
    name: &str,
) -> Vec<Vec<String>> {
    use wireplan_runtime::plan::Lifespan;
    let mut found = Vec::new();
    let Some(def) = b.get_definition(name) else {
        return found;
    };
    if def.lifespan != Lifespan::Singleton || !is_service(b, name) {
        return found;
    }
    {
        let mut reported: Vec<String> = Vec::new();
        for dep in deps(b, &def.name) {
            let Some(d) = b.get_definition(&dep).filter(|_| is_held(b, &dep)) else {
                continue;
            };
            let mut path = vec![def.name.clone(), dep.clone()];
            match d.lifespan {
                Lifespan::Scoped => {}
                Lifespan::Transient if matches!(hop.get(&dep), Some(Some(_))) => {
                    let mut cur = dep.clone();
                    while let Some(Some(next)) = hop.get(&cur) {
                        path.push(next.clone());
                        cur = next.clone();
                    }
                }
                _ => continue,
            }
            let scoped = path.last().cloned().unwrap_or_default();
            if reported.contains(&scoped) {
                continue;
            }
            reported.push(scoped);
            found.push(path);
        }
    }
    found
}
