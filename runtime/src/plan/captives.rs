//! Captive dependencies in a plan: the compiler's `captive-dependency` check runs on its
//! builder, so a lifespan or reference changed in the plan afterwards (by an extension's
//! `afterCompile(plan)`, or by hand) is found here: the compiler refuses such an edit, the
//! loader such a plan, and `wireplan show` warns of it. So are slots an edit made other than
//! scoped and empty ([`slot_problems`]).

use crate::plan::{Lifespan, Plan, ServiceKind};

/// Every singleton of `plan` that holds a scoped service, as "`services › NAME`: …" lines in
/// plan order, each with the path: directly (a `$ref` or `$provider` in its `create` or
/// setup), or through transient services created with it (their own references are followed,
/// each transient once per singleton). A singleton lives outside every scope, so it cannot
/// hold what lives in one (Clean IoC's captive dependency, as `captive-dependency` words it).
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
/// created with it).
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
    for stmt in std::iter::once(&service.create).chain(&service.setup) {
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
        match t.lifespan {
            Lifespan::Scoped => {
                let line = format!(
                    "services › {}: the singleton holds scoped service '{target}' (path: {}), \
                     which lives only inside a scope (captive-dependency)",
                    path[0],
                    path.join(" -> ")
                );
                if !out.contains(&line) {
                    out.push(line);
                }
            }
            Lifespan::Transient => walk(plan, target, path, seen, out),
            Lifespan::Singleton => {}
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
}
