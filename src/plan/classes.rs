//! The classes a plan names, checked against the catalog after extensions edited the plan in
//! `afterCompile(plan)`: a `$new`, a static call or callable, or a service `type` naming a
//! class the catalog does not know, or a `$new` passing another number of arguments than the
//! constructor takes, would pass the plan's own checks and fail only when the application
//! loads the plan (the registry has no such class, or refuses the call's arity).

use wireplan_runtime::plan::{CallTarget, Expr, Plan};

/// Every class `plan` names that `known` rejects, as "`place`: class `X` is not in the
/// catalog" lines, in plan order (each class once per place). Places: `services › NAME ›
/// type`, `… › create`, `… › setup #N`, `initialization #N`.
pub fn unknown_classes(plan: &Plan, known: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut report = |place: &str, class: &str| {
        if !known(class) {
            push_once(
                &mut out,
                format!("{place}: class {class} is not in the catalog"),
            );
        }
    };
    for_each_statement(plan, &mut |place, typed, stmt| {
        if let Some((name, class)) = typed.filter(|(_, c)| !c.is_empty()) {
            report(&format!("services › {name} › type"), class);
        }
        each_part(stmt, &mut |e| classes_of(e, &mut |c| report(place, c)));
    });
    out
}

/// Every `$new` of `plan` whose number of arguments differs from what `params(class)` says the
/// constructor takes (its parameter names; `None`: not checked, e.g. a variadic constructor or
/// a class the catalog lacks, which [`unknown_classes`] reports), as "`place`: …" lines in plan
/// order. The compiler writes every parameter's argument, defaults included, and the runtime
/// refuses a plan whose count differs from the registry's at load.
pub fn wrong_arities(plan: &Plan, params: &dyn Fn(&str) -> Option<Vec<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for_each_statement(plan, &mut |place, _, stmt| {
        each_part(stmt, &mut |e| {
            let Expr::New { class, args } = e else {
                return;
            };
            let Some(names) = params(class) else {
                return;
            };
            if names.len() != args.len() {
                let takes = if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                };
                push_once(
                    &mut out,
                    format!(
                        "{place}: the constructor of {class} takes {} argument(s) ({takes}), the plan passes {}",
                        names.len(),
                        args.len()
                    ),
                );
            }
        });
    });
    out
}

/// Adds `line` to `out` unless it is there.
fn push_once(out: &mut Vec<String>, line: String) {
    if !out.contains(&line) {
        out.push(line);
    }
}

/// What [`for_each_statement`] calls: the place, the service's name and `type` (for a
/// `create`), the statement.
type StatementVisitor<'f> = dyn FnMut(&str, Option<(&str, &str)>, &Expr) + 'f;

/// Calls `f` with each statement of `plan` and its place, in plan order: a service's `create`
/// (`services › NAME › create`, with the service's name and `type`) and setup statements
/// (`… › setup #N`), then `initialization #N`.
fn for_each_statement(plan: &Plan, f: &mut StatementVisitor<'_>) {
    for (name, service) in &plan.services {
        f(
            &format!("services › {name} › create"),
            Some((name.as_str(), service.type_.as_str())),
            &service.create,
        );
        for (i, stmt) in service.setup.iter().enumerate() {
            f(&format!("services › {name} › setup #{}", i + 1), None, stmt);
        }
    }
    for (i, stmt) in plan.initialization.iter().enumerate() {
        f(&format!("initialization #{}", i + 1), None, stmt);
    }
}

/// Calls `f` with `e` and every expression nested anywhere in it (arguments, targets, values,
/// items), outer first.
fn each_part<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    let target = |t: &'a CallTarget, f: &mut dyn FnMut(&'a Expr)| {
        if let CallTarget::Expr(inner) = t {
            each_part(inner, f);
        }
    };
    match e {
        Expr::New { args, .. } => args.iter().for_each(|a| each_part(a, f)),
        Expr::Call {
            target: t, args, ..
        } => {
            target(t, f);
            args.iter().for_each(|a| each_part(a, f));
        }
        Expr::Set {
            target: t, value, ..
        } => {
            target(t, f);
            each_part(value, f);
        }
        Expr::Get { target: t, .. } | Expr::Callable { target: t, .. } => target(t, f),
        Expr::Func { arg, .. } => each_part(arg, f),
        Expr::ArgOr { default, .. } => each_part(default, f),
        Expr::List(items) | Expr::Concat(items) => items.iter().for_each(|a| each_part(a, f)),
        Expr::Map(m) => m.values().for_each(|a| each_part(a, f)),
        _ => {}
    }
}

/// Calls `f` with the class `e` itself names (not its parts): constructed, or the class
/// target of a static call, property access or callable.
fn classes_of<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a str)) {
    match e {
        Expr::New { class, .. } => f(class),
        Expr::Call { target, .. }
        | Expr::Set { target, .. }
        | Expr::Get { target, .. }
        | Expr::Callable { target, .. } => {
            if let CallTarget::Class(c) = target {
                f(c)
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{unknown_classes, wrong_arities};
    use wireplan_runtime::plan::Plan;

    fn plan() -> Plan {
        let json = serde_json::json!({
            "format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0",
            "services": {
                "a": {"type": "App\\Gone", "create": {"$new": "App\\A", "args": [
                    {"$new": "App\\Nested", "args": [1, 2]}]},
                      "setup": [{"$call": ["App\\Util", "run"], "args": [
                          {"$new": "App\\A", "args": []}]}]},
                "b": {"type": "App\\A", "create": {"$new": "App\\A", "args": [1]}}
            },
            "initialization": [{"$call": ["App\\Boot", "go"], "args": []}]
        });
        Plan::from_json_str(&json.to_string(), "<test>").expect("a plan")
    }

    /// Each place of a plan is looked at: a service's `type`, its `create` and what is nested
    /// in it, its setup (a static call's class), the initialization.
    #[test]
    fn unknown_classes_are_found_at_every_place() {
        let known = |c: &str| c == "App\\A";
        assert_eq!(
            unknown_classes(&plan(), &known),
            [
                "services › a › type: class App\\Gone is not in the catalog",
                "services › a › create: class App\\Nested is not in the catalog",
                "services › a › setup #1: class App\\Util is not in the catalog",
                "initialization #1: class App\\Boot is not in the catalog",
            ]
        );
    }

    /// Every `$new`, nested ones too, is compared with its constructor's parameters; one that
    /// is not checked (`None`) is left alone.
    #[test]
    fn wrong_arities_are_found_in_every_new() {
        let params = |c: &str| (c == "App\\A").then(|| vec!["x".to_string()]);
        assert_eq!(
            wrong_arities(&plan(), &params),
            [
                "services › a › setup #1: the constructor of App\\A takes 1 argument(s) (x), the plan passes 0",
            ]
        );
        let params = |c: &str| (c == "App\\Nested").then(Vec::new);
        assert_eq!(
            wrong_arities(&plan(), &params),
            [
                "services › a › create: the constructor of App\\Nested takes 0 argument(s) (none), the plan passes 2",
            ]
        );
    }
}
