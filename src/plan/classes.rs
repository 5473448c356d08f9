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
        let line = format!("{place}: class {class} is not in the catalog");
        if !out.contains(&line) {
            out.push(line);
        }
    };
    for (name, service) in &plan.services {
        let place = |what: &str| format!("services › {name} › {what}");
        if !service.type_.is_empty() && !known(&service.type_) {
            report(&place("type"), &service.type_);
        }
        each_class(&service.create, &mut |c| {
            if !known(c) {
                report(&place("create"), c)
            }
        });
        for (i, stmt) in service.setup.iter().enumerate() {
            each_class(stmt, &mut |c| {
                if !known(c) {
                    report(&place(&format!("setup #{}", i + 1)), c)
                }
            });
        }
    }
    for (i, stmt) in plan.initialization.iter().enumerate() {
        each_class(stmt, &mut |c| {
            if !known(c) {
                report(&format!("initialization #{}", i + 1), c)
            }
        });
    }
    out
}

/// Every `$new` of `plan` whose number of arguments differs from what `params(class)` says the
/// constructor takes (its parameter names; `None`: not checked, e.g. a variadic constructor or
/// a class the catalog lacks, which [`unknown_classes`] reports), as "`place`: …" lines in plan
/// order. The compiler writes every parameter's argument, defaults included, and the runtime
/// refuses a plan whose count differs from the registry's at load.
pub fn wrong_arities(plan: &Plan, params: &dyn Fn(&str) -> Option<Vec<String>>) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |place: &str, e: &Expr| {
        each_new(e, &mut |class, given| {
            let Some(names) = params(class) else {
                return;
            };
            if names.len() != given {
                let takes = if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                };
                let line = format!(
                    "{place}: the constructor of {class} takes {} argument(s) ({takes}), the plan passes {given}",
                    names.len()
                );
                if !out.contains(&line) {
                    out.push(line);
                }
            }
        });
    };
    for (name, service) in &plan.services {
        check(&format!("services › {name} › create"), &service.create);
        for (i, stmt) in service.setup.iter().enumerate() {
            check(&format!("services › {name} › setup #{}", i + 1), stmt);
        }
    }
    for (i, stmt) in plan.initialization.iter().enumerate() {
        check(&format!("initialization #{}", i + 1), stmt);
    }
    out
}

/// Calls `f` with the class and argument count of every `$new` in `e`, nested anywhere in it.
fn each_new(e: &Expr, f: &mut dyn FnMut(&str, usize)) {
    if let Expr::New { class, args } = e {
        f(class, args.len());
    }
    match e {
        Expr::New { args, .. } | Expr::Call { args, .. } => {
            args.iter().for_each(|a| each_new(a, f))
        }
        Expr::Set { value, .. } => each_new(value, f),
        Expr::Func { arg, .. } => each_new(arg, f),
        Expr::ArgOr { default, .. } => each_new(default, f),
        Expr::List(items) | Expr::Concat(items) => items.iter().for_each(|a| each_new(a, f)),
        Expr::Map(m) => m.values().for_each(|a| each_new(a, f)),
        _ => {}
    }
}

/// Calls `f` with every class `e` names: constructed, or the target of a static call or
/// callable, nested anywhere in it.
fn each_class<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a str)) {
    let target = |t: &'a CallTarget, f: &mut dyn FnMut(&'a str)| match t {
        CallTarget::Class(c) => f(c),
        CallTarget::Expr(inner) => each_class(inner, f),
        CallTarget::SelfObject => {}
    };
    match e {
        Expr::New { class, args } => {
            f(class);
            args.iter().for_each(|a| each_class(a, f));
        }
        Expr::Call {
            target: t, args, ..
        } => {
            target(t, f);
            args.iter().for_each(|a| each_class(a, f));
        }
        Expr::Set {
            target: t, value, ..
        } => {
            target(t, f);
            each_class(value, f);
        }
        Expr::Get { target: t, .. } | Expr::Callable { target: t, .. } => target(t, f),
        Expr::Func { arg, .. } => each_class(arg, f),
        Expr::ArgOr { default, .. } => each_class(default, f),
        Expr::List(items) | Expr::Concat(items) => items.iter().for_each(|a| each_class(a, f)),
        Expr::Map(m) => m.values().for_each(|a| each_class(a, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use wireplan_runtime::plan::Plan;

    #[test]
    fn every_place_a_class_is_named_is_checked_once() {
        let plan = Plan::from_json_str(
            r#"{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
                "parameters": {},
                "services": {
                  "a": {"type": "App\\Gone", "create": {"$new": "App\\A", "args": [
                          {"$new": "App\\Inner", "args": []}, {"$new": "App\\Inner", "args": []}]},
                        "setup": [{"$call": ["App\\Util", "init"], "args": []}]},
                  "b": {"type": "App\\A", "create": {"$new": "App\\A", "args": [
                          {"$callable": ["App\\Util", "make"]}]}}
                },
                "initialization": [{"$call": ["App\\Boot", "run"], "args": []}]}"#,
            "<test>",
        )
        .expect("a plan");
        let known = |c: &str| c == "App\\A";
        assert_eq!(
            super::unknown_classes(&plan, &known),
            [
                "services › a › type: class App\\Gone is not in the catalog",
                "services › a › create: class App\\Inner is not in the catalog",
                "services › a › setup #1: class App\\Util is not in the catalog",
                "services › b › create: class App\\Util is not in the catalog",
                "initialization #1: class App\\Boot is not in the catalog",
            ]
        );
    }
}
