//! Captive dependencies in a plan: the compiler's `captive-dependency` check runs on its
//! builder, so a lifespan or reference changed in the plan afterwards (by an extension's
//! `afterCompile(plan)`, or by hand) is found here: the compiler refuses such an edit, the
//! loader such a plan, and `wireplan show` warns of it. So are slots an edit made other than
//! scoped and empty ([`slot_problems`]).

use crate::plan::{Lifespan, Plan, ServiceKind};

/// Every singleton of `plan` that holds a scoped service, as "`services › NAME`: …" lines in
/// plan order, each with the path: directly (a `$ref` or `$provider` in its `create` or
/// setup), or through what passes its scope on: transient services created with it and the
/// generated handles (factories, accessors, locators) it holds, whose `create`, setup and
/// (a locator's) `references` are followed in turn, each once per singleton. A singleton
/// lives outside every scope, so it cannot hold what lives in one, nor a handle that would
/// resolve it in the container (Clean IoC's captive dependency, as `captive-dependency` words
/// it). The rule is the compiler's, so the loader accepts every plan the compiler writes and
/// refuses the edits (an extension's `afterCompile()`, a hand) that the compiler would have
/// refused: a handle declared scoped counts as scoped, an imported service as neither.
pub fn captives(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for (name, service) in &plan.services {
        // A generated handle (factory, accessor, locator) holds nothing: what its `create`
        // names is made when the handle is used, in the scope it is asked for in.
        if service.lifespan != Lifespan::Singleton || service.kind != ServiceKind::Service {
            continue;
        }
        let mut path = vec![name.as_str()];
        let mut seen = vec![name.as_str()];
        walk(plan, name, &mut path, &mut seen, &mut out);
    }
    out
}

/// Follows the references of the service at the end of `path` (a singleton, or a transient
/// or generated handle reached from it).
fn walk<'p>(
    plan: &'p Plan,
    holder: &'p str,
    path: &mut Vec<&'p str>,
    seen: &mut Vec<&'p str>,
    out: &mut Vec<String>,
) {
    let Some(service) = plan.services.get(holder) else {
        return;
    };
    let mut targets: Vec<&'p str> = Vec::new();
    let statements = std::iter::once(&service.create)
        .chain(&service.setup)
        .chain(service.references.values());
    for stmt in statements {
        stmt.for_each_ref(&mut |n| targets.push(n));
        stmt.for_each_provider(&mut |n| targets.push(n));
    }
    for target in targets {
        let target = plan.aliases.get(target).map_or(target, |a| a.as_str());
        if seen.contains(&target) {
            continue;
        }
        let Some(t) = plan.services.get(target) else {
            continue;
        };
        seen.push(target);
        path.push(target);
        match (t.kind, t.lifespan) {
            (ServiceKind::Imported, _) => {}
            (_, Lifespan::Scoped) => {
                let through_handle = path[1..path.len() - 1].iter().any(|n| {
                    plan.services
                        .get(*n)
                        .is_some_and(|s| s.kind != ServiceKind::Service)
                });
                let holds = match through_handle {
                    true => "a handle that could never reach ",
                    false => "",
                };
                let line = format!(
                    "services › {}: the singleton holds {holds}scoped service '{target}' \
                     (path: {}), which lives only inside a scope (captive-dependency)",
                    path[0],
                    path.join(" -> ")
                );
                if !out.contains(&line) {
                    out.push(line);
                }
            }
            (ServiceKind::Service, Lifespan::Transient)
            | (ServiceKind::Factory | ServiceKind::Accessor | ServiceKind::Locator, _) => {
                walk(plan, target, path, seen, out)
            }
            _ => {}
        }
        path.pop();
    }
}

/// Problems of a plan's slots, for the loader's check and the compiler's check of a plan an
/// extension edited in `afterCompile()`: a slot is `scoped` and has no `create` (`null`) and
/// no `setup`. Each problem is one sentence naming the service.
pub fn slot_problems(plan: &Plan) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, sp) in plan
        .services
        .iter()
        .filter(|(_, sp)| sp.kind == ServiceKind::Slot)
    {
        if sp.lifespan != Lifespan::Scoped {
            problems.push(format!(
                "service '{name}': a slot is scoped, not {}",
                sp.lifespan
            ));
        }
        if sp.create != crate::plan::Expr::Null || !sp.setup.is_empty() {
            problems.push(format!(
                "service '{name}': a slot is provided at run time, so it has no create or setup"
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::captives;
    use crate::plan::Plan;

    fn plan(services: &str) -> Plan {
        Plan::from_json_str(
            &format!(
                r#"{{"format": "wireplan-plan", "version": 3, "compiler": "t", "inputs_hash": "0",
                    "services": {services}}}"#
            ),
            "p.json",
        )
        .expect("plan")
    }

    /// A singleton holding a scoped service directly, through a transient, or through a
    /// provider is reported with its path; transients and scoped holders, and singletons
    /// holding singletons, are not.
    #[test]
    fn captives_are_found_with_their_paths() {
        let p = plan(
            r#"{
            "app": {"type": "A", "create": {"$new": "A", "args": [{"$ref": "req"}]}},
            "via": {"type": "V", "create": {"$new": "V", "args": [{"$ref": "t"}]}},
            "lazy": {"type": "L", "create": {"$new": "L", "args": [{"$provider": "req"}]}},
            "ok": {"type": "O", "create": {"$new": "O", "args": [{"$ref": "app"}]}},
            "t": {"type": "T", "lifespan": "transient",
                  "create": {"$new": "T", "args": [{"$ref": "req"}]}},
            "s": {"type": "S", "lifespan": "scoped",
                  "create": {"$new": "S", "args": [{"$ref": "req"}]}},
            "req": {"type": "R", "lifespan": "scoped", "create": {"$new": "R", "args": []}}
        }"#,
        );
        assert_eq!(
            captives(&p),
            [
                "services › app: the singleton holds scoped service 'req' (path: app -> req), which lives only inside a scope (captive-dependency)",
                "services › via: the singleton holds scoped service 'req' (path: via -> t -> req), which lives only inside a scope (captive-dependency)",
                "services › lazy: the singleton holds scoped service 'req' (path: lazy -> req), which lives only inside a scope (captive-dependency)",
            ]
        );
    }

    /// Handles pass their holder's scope on, as the compiler's rule has it: a singleton
    /// holding an accessor, factory or locator (through a locator's `references` too) that
    /// reaches a scoped service is reported; a handle declared scoped is itself the scoped
    /// service held; a scoped service that is imported, and a handle's own lifespan, are not.
    #[test]
    fn handles_pass_the_scope_on_as_the_compiler_has_it() {
        let p = plan(
            r#"{
            "viaAccessor": {"type": "A", "create": {"$new": "A", "args": [{"$ref": "acc"}]}},
            "viaFactory": {"type": "B", "create": {"$new": "B", "args": [{"$ref": "fx"}]}},
            "viaLocator": {"type": "C", "create": {"$new": "C", "args": [{"$ref": "loc"}]}},
            "scopedHandle": {"type": "D", "create": {"$new": "D", "args": [{"$ref": "sfx"}]}},
            "imports": {"type": "E", "create": {"$new": "E", "args": [{"$ref": "imp"}]}},
            "acc": {"kind": "accessor", "type": "AccR", "create": {"$ref": "req"}},
            "fx": {"kind": "factory", "type": "FxR",
                   "create": {"$new": "T", "args": [{"$ref": "req"}]}},
            "loc": {"kind": "locator", "type": "Loc", "create": null,
                    "references": {"r": {"$ref": "req"}}},
            "sfx": {"kind": "factory", "type": "FxO", "lifespan": "scoped",
                    "create": {"$new": "O", "args": []}},
            "imp": {"kind": "imported", "type": "I", "lifespan": "scoped", "create": null},
            "req": {"type": "R", "lifespan": "scoped", "create": {"$new": "R", "args": []}}
        }"#,
        );
        assert_eq!(
            captives(&p),
            [
                "services › viaAccessor: the singleton holds a handle that could never reach scoped service 'req' (path: viaAccessor -> acc -> req), which lives only inside a scope (captive-dependency)",
                "services › viaFactory: the singleton holds a handle that could never reach scoped service 'req' (path: viaFactory -> fx -> req), which lives only inside a scope (captive-dependency)",
                "services › viaLocator: the singleton holds a handle that could never reach scoped service 'req' (path: viaLocator -> loc -> req), which lives only inside a scope (captive-dependency)",
                "services › scopedHandle: the singleton holds scoped service 'sfx' (path: scopedHandle -> sfx), which lives only inside a scope (captive-dependency)",
            ]
        );
    }
}
