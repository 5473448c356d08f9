//! Build-time safety beyond Nette: constructor cycles, reported with the whole path (captive
//! dependencies are in `captives`).

use super::ContainerBuilder;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, Expr, ExprKind, Statement};

/// Where `def`'s creator or setup writes a reference to service `target` (`@target`, or a
/// call or member of it: `@target::get()`), if it does: the reference's own span, or for a
/// creator a script set (values from a script have no span of their own), the call that set
/// it (`setFactory()`, `setArguments()`, also at the REPL's prompt). Autowired dependencies
/// are written nowhere.
fn written_reference(def: &super::Definition, target: &str) -> Option<crate::source::Span> {
    type Span = crate::source::Span;
    // `Some(span)` when `e` holds the reference (`span`: `None` for a value without one).
    fn in_expr(e: &Expr, target: &str) -> Option<Option<Span>> {
        match &e.kind {
            ExprKind::Str(s) if !e.quoted && names(s, target) => Some(e.span),
            ExprKind::Array(a) => a.values().find_map(|v| in_expr(v, target)),
            ExprKind::Statement(st) => in_statement(st, target).or_else(|| {
                // `@target::get()`: the callee is the reference.
                matches!(&st.callee, Callee::Name(n) if names(n, target)).then_some(e.span)
            }),
            ExprKind::Concat(parts) => parts.iter().find_map(|v| in_expr(v, target)),
            _ => None,
        }
    }
    fn in_statement(st: &Statement, target: &str) -> Option<Option<Span>> {
        let callee = match &st.callee {
            Callee::Member(of, _) => in_expr(of, target),
            Callee::Name(_) => None,
        };
        callee.or_else(|| st.arguments.values().find_map(|v| in_expr(v, target)))
    }
    // `@target`, or `@target::member`.
    fn names(s: &str, target: &str) -> bool {
        s.strip_prefix('@')
            .and_then(|r| r.strip_prefix(target))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
    }
    // Where the completed definition refers to `target` decides where to look: a written
    // `@target::NAME` that is a constant (substituted when completing) is no reference (a
    // Nette user's trial: the label pointed at a constant read in `create` while the
    // reference was in `setup`).
    let creator_refers = def.completed.as_ref().is_none_or(|c| {
        let mut found = false;
        c.create.for_each_ref(&mut |n: &str| found |= n == target);
        found
    });
    let in_creator = def
        .creator
        .as_ref()
        .filter(|_| creator_refers)
        .and_then(|c| {
            let found = in_statement(c, target).or_else(|| {
                matches!(&c.callee, Callee::Name(n) if names(n, target)).then_some(None)
            })?;
            found.or(def.extras().creator_at).or(def.span)
        });
    in_creator.or_else(|| def.setup.iter().find_map(|e| in_expr(e, target)).flatten())
}

/// Construction cycles (`a` needs `b` needs `a`) are compile errors with the whole path; Nette
/// only finds them at run time. A service's setup runs before the service is handed out (in
/// the runtime as in Nette's generated `createServiceX()`), so references in `setup` count
/// as well as those in `create`.
///
/// `graph` holds each definition's references as positions among the definitions, gathered
/// while completing ([`super::completing::Graph`]).
pub(super) fn check_cycles(
    b: &ContainerBuilder,
    diags: &mut Diagnostics,
    graph: &super::completing::Graph,
) {
    let defs = &b.definitions;
    let name = |i: usize| defs.get_index(i).map_or("", |(n, _)| n.as_str());
    let edges = |i: usize| graph.edges(i);
    // 0 = unvisited, 1 = on stack, 2 = done
    let mut state: Vec<u8> = vec![0; graph.len()];
    // How many services creating each one needs inside one another (itself included), set
    // when it is done; a reference back onto the stack (a cycle, reported) counts nothing.
    let mut height: Vec<usize> = vec![0; graph.len()];
    let mut reported: Vec<Vec<String>> = Vec::new();
    // One walk's stack and path, both empty again when it ends: most definitions start a walk
    // of their own (references point at definitions already walked), so two vectors per
    // definition took about 40 % of app-10000's check (0.39-0.45 ms before, 0.24-0.25 after).
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut path: Vec<usize> = Vec::new();
    for start in 0..graph.len() {
        if state[start] != 0 {
            continue;
        }
        stack.push((start, 0));
        while let Some((node, i)) = stack.pop() {
            if i == 0 {
                state[node] = 1;
                path.push(node);
            }
            match edges(node).get(i).map(|&n| n as usize) {
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
                                // How many services it has (the first is named again at the
                                // end of the path).
                                let services = format!("{} services", cycle.len() - 1);
                                let first = b.get_definition(name(n));
                                // The first service's own step, in words, where it is
                                // autowired (a written one gets its label below).
                                let first_step = match first
                                    .and_then(|def| written_reference(def, &cycle[1]))
                                {
                                    Some(_) => String::new(),
                                    None => {
                                        format!("'{}' needs '{}' (autowired)", cycle[0], cycle[1])
                                    }
                                };
                                let mut d = Diagnostic::error(
                                    Code::CircularReference,
                                    format!(
                                        "Circular reference detected for services: {}.",
                                        shortened(&cycle[..cycle.len() - 1], ", ", &services)
                                    ),
                                );
                                if let Some(at) = first.and_then(|d| d.span) {
                                    d = d.with_primary(at, first_step);
                                }
                                // Each step the configuration or a script wrote as a reference
                                // is labelled where it is written (a step made at the REPL's
                                // prompt points there, not only at the definition).
                                // A step autowired is labelled at its service's definition
                                // (a new user's trial saw only the first service).
                                let primary = first.and_then(|d| d.span);
                                for pair in cycle.windows(2).take(labelled(cycle.len() - 1)) {
                                    let def = b.get_definition(&pair[0]);
                                    let written =
                                        def.and_then(|def| written_reference(def, &pair[1]));
                                    match written {
                                        Some(at) => {
                                            d = d.with_secondary(
                                                at,
                                                format!("'{}' needs '{}' here", pair[0], pair[1]),
                                            );
                                        }
                                        None => {
                                            let at = def.and_then(|def| def.span);
                                            if let Some(at) = at.filter(|at| Some(*at) != primary) {
                                                d = d.with_secondary(
                                                    at,
                                                    format!(
                                                        "'{}' needs '{}' (autowired)",
                                                        pair[0], pair[1]
                                                    ),
                                                );
                                            }
                                        }
                                    }
                                }
                                let note = provider_note(b, &cycle);
                                diags.push(
                                    d.with_note(format!(
                                        "path: {}",
                                        shortened(&cycle, " -> ", &services)
                                    ))
                                    .with_note(note),
                                );
                            }
                        }
                        _ => {}
                    }
                }
                None => {
                    state[node] = 2;
                    height[node] = 1 + edges(node)
                        .iter()
                        .map(|&n| height[n as usize])
                        .max()
                        .unwrap_or(0);
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
            while let Some(next) = edges(at)
                .iter()
                .map(|&n| n as usize)
                .max_by_key(|&n| height[n])
            {
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

/// Cycles of more services than this are named in part ([`shortened`], [`labelled`]): a ring of
/// 1,000 services printed every name twice and a label per step, 2,010 lines (a new user's
/// trial); the deep-chain warning shortens its path the same way.
const CYCLE_NAMED_IN_FULL: usize = 12;

/// The services (or steps) a long cycle's message names before the ellipsis.
const CYCLE_NAMED_FIRST: usize = 8;

/// `names` joined with `sep`; past [`CYCLE_NAMED_IN_FULL`] the first [`CYCLE_NAMED_FIRST`],
/// an ellipsis and the last one, then `count` in brackets (`13 services`).
fn shortened(names: &[String], sep: &str, count: &str) -> String {
    if names.len() <= CYCLE_NAMED_IN_FULL {
        return names.join(sep);
    }
    format!(
        "{}{sep}…{sep}{} ({count})",
        names[..CYCLE_NAMED_FIRST].join(sep),
        names[names.len() - 1],
    )
}

/// How many steps of a cycle of `services` services get a label of their own: all of a short
/// cycle's, the first [`CYCLE_NAMED_FIRST`] of a long one's.
fn labelled(services: usize) -> usize {
    if services <= CYCLE_NAMED_IN_FULL {
        services
    } else {
        CYCLE_NAMED_FIRST
    }
}

/// The note of a `circular-reference` error on how to break the cycle `cycle` (its names, the
/// first repeated at the end): a `Provider<T>` parameter on the path. When a step goes
/// through a setup call rather than the constructor, the note says which step is which
/// (fourth new user's trial: the constructor-only wording sent them to the wrong place).
fn provider_note(b: &ContainerBuilder, cycle: &[String]) -> String {
    let steps: Vec<(&str, &str, bool)> = cycle
        .windows(2)
        .map(|pair| {
            let in_create = b
                .get_definition(&pair[0])
                .and_then(|d| d.completed.as_ref())
                .is_some_and(|c| {
                    let mut hit = false;
                    c.create.for_each_ref(&mut |n| hit |= n == pair[1]);
                    hit
                });
            (pair[0].as_str(), pair[1].as_str(), in_create)
        })
        .collect();
    if steps.iter().all(|&(_, _, in_create)| in_create) {
        return "a Provider<T> parameter breaks the cycle: declare one of these constructor \
                parameters as Provider<T> (a lazy handle) and resolve it when needed"
            .into();
    }
    let list: Vec<String> = steps
        .iter()
        .map(|&(from, to, in_create)| {
            let place = if in_create { "constructor" } else { "setup" };
            format!("'{from}' needs '{to}' in its {place}")
        })
        .collect();
    format!(
        "a Provider<T> parameter breaks the cycle: declare the parameter of one of these steps \
         as Provider<T> (a lazy handle) and resolve it when needed: {}",
        shortened(&list, ", ", &format!("{} steps", list.len()))
    )
}
