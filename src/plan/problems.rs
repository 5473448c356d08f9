//! What makes a plan inconsistent, answered once for the compiler and the inspection tools.
//!
//! After extensions edited the plan in `afterCompile(plan)`, the compiler refuses to write a
//! plan with any [`Problem`] ([`validate`]); `wireplan show` and `graph` read a plan file as it
//! is and print its problems as `invalid-plan` warnings (`inspect::plan_file::problems`). Both
//! ask [`problems`]; each only words the answer for its place.

use std::fmt;
use wireplan_runtime::plan::{self, Plan};

/// Where a missing service is named from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A service's `create`, `setup` or `references`.
    Service(String),
    /// The plan's `initialization` statements.
    Initialization,
    /// A plan parameter's value.
    Parameter(String),
}

/// One inconsistency of a plan. [`Problem::refused_at_load`] tells which of them the runtime
/// refuses when it loads the plan (the loader's `BadPlan` rules of docs/plan-format.md) and
/// which it meets only when a service is first created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The plan is not of the format and version this compiler writes.
    Format {
        /// The format string found.
        format: String,
        /// The version found.
        version: u32,
    },
    /// A service named "" (no configuration gives one; the runtime refuses it at load).
    EmptyName,
    /// A service's or factory's `create` is a plain value (null, a scalar, a list or a map):
    /// nothing constructs its object.
    ConstructsNothing {
        /// The service's name.
        service: String,
        /// The value's kind in words: "null", "a bool", "a list", ….
        kind: &'static str,
    },
    /// A reference (`$ref`) or, with `provider`, a provider (`$provider`) names neither a
    /// service nor an alias.
    MissingService {
        /// Where it is named.
        from: Place,
        /// The name that is missing.
        target: String,
        /// Whether it is a provider's target rather than a reference.
        provider: bool,
    },
    /// An alias whose target is no service.
    AliasTarget {
        /// The alias.
        alias: String,
        /// Its target.
        target: String,
        /// Whether the target is itself an alias (an alias must name a service).
        to_alias: bool,
    },
    /// The autowiring index (`types`) lists a name that is no service.
    Autowired {
        /// The type whose entry lists it.
        type_: String,
        /// The listed name.
        service: String,
    },
    /// The autowiring index (`types`) lists a service written `autowired: false`:
    /// `get_by_type` would hand out a service kept out of autowiring.
    NotAutowired {
        /// The type whose entry lists it.
        type_: String,
        /// The listed service.
        service: String,
    },
    /// The tag index lists a name that is no service.
    Tagged {
        /// The tag.
        tag: String,
        /// The listed name.
        service: String,
    },
    /// An expression nested deeper than the runtime reads
    /// ([`wireplan_runtime::plan::MAX_EXPR_DEPTH`] levels of JSON arrays and objects).
    TooDeep {
        /// Where the expression is.
        at: Place,
        /// Its JSON depth.
        depth: usize,
    },
    /// Services whose `create` needs, through other services' `create`, themselves (see
    /// [`create_cycles`]).
    Cycle {
        /// The services of the cycle, from the first met; the path goes back to the first.
        services: Vec<String>,
    },
}

impl Problem {
    /// Whether the runtime refuses to load a plan with this problem. The others (a `create`
    /// that constructs nothing, a construction cycle) fail when the service is first created.
    pub fn refused_at_load(&self) -> bool {
        !matches!(
            self,
            Problem::ConstructsNothing { .. } | Problem::Cycle { .. }
        )
    }
}

impl fmt::Display for Problem {
    /// Lower-case words, as they follow "the plan edited by …:" in the compiler's error; a
    /// cycle is worded as the compiler's own cycle error (Nette's `Circular reference detected
    /// for services: a, b.`) with its path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Format { format, version } => write!(
                f,
                "the plan must stay format '{}' version {} (found '{format}' version {version})",
                plan::FORMAT,
                plan::VERSION
            ),
            Problem::EmptyName => {
                f.write_str("a service has an empty name (\"\"), which no configuration gives")
            }
            Problem::ConstructsNothing { service, kind } => write!(
                f,
                "service '{service}' has a 'create' that constructs nothing ({kind}); it must \
                 be a constructor call ($new) or a method call ($call)"
            ),
            Problem::MissingService {
                from,
                target,
                provider,
            } => {
                match from {
                    Place::Service(name) => write!(f, "service '{name}'")?,
                    Place::Initialization => f.write_str("the initialization")?,
                    Place::Parameter(name) => write!(f, "parameter '{name}'")?,
                }
                let what = if *provider {
                    "asks for a provider of"
                } else {
                    "refers to"
                };
                write!(f, " {what} missing service '{target}'")
            }
            Problem::AliasTarget {
                alias,
                target,
                to_alias: false,
            } => write!(f, "alias '{alias}' refers to missing service '{target}'"),
            Problem::AliasTarget {
                alias,
                target,
                to_alias: true,
            } => write!(
                f,
                "alias '{alias}' refers to '{target}', which is an alias (an alias must name a \
                 service)"
            ),
            Problem::Autowired { type_, service } => write!(
                f,
                "the autowiring index lists missing service '{service}' for {type_}"
            ),
            Problem::NotAutowired { type_, service } => write!(
                f,
                "the autowiring index lists service '{service}' for {type_}, but it is not \
                 autowired (autowired: false)"
            ),
            Problem::Tagged { tag, service } => {
                write!(f, "tag '{tag}' lists missing service '{service}'")
            }
            Problem::TooDeep { at, depth } => {
                match at {
                    Place::Service(name) => write!(f, "service '{name}' has")?,
                    Place::Initialization => f.write_str("the initialization has")?,
                    Place::Parameter(name) => write!(f, "parameter '{name}' has")?,
                }
                write!(
                    f,
                    " an expression nested {depth} levels deep (at most {})",
                    plan::MAX_EXPR_DEPTH
                )
            }
            Problem::Cycle { services } => {
                let first = services.first().map_or("", String::as_str);
                write!(
                    f,
                    "Circular reference detected for services: {}. (path: {} -> {first})",
                    services.join(", "),
                    services.join(" -> ")
                )
            }
        }
    }
}

/// Every inconsistency of a plan, in this order: the format and version; a service named "";
/// per service, a `create` that constructs nothing (see [`constructs`]), then each reference
/// and provider naming neither a service nor an alias; the same in `initialization` and in
/// parameters; aliases without a service; names of the autowiring and tag indexes that are
/// no service; construction cycles ([`create_cycles`]). After each place's missing names
/// comes its first expression nested deeper than the runtime reads, if any. A name missing
/// twice is reported twice, once where each use is.
pub fn problems(plan: &Plan) -> Vec<Problem> {
    let mut out = Vec::new();
    if plan.format != plan::FORMAT || plan.version != plan::VERSION {
        out.push(Problem::Format {
            format: plan.format.clone(),
            version: plan.version,
        });
    }
    let exists = |n: &str| plan.services.contains_key(n) || plan.aliases.contains_key(n);
    let missing = |from: &Place, exprs: &mut dyn Iterator<Item = &plan::Expr>| {
        let mut refs = Vec::new();
        let mut providers = Vec::new();
        for e in exprs {
            e.for_each_ref(&mut |n| refs.push(n));
            e.for_each_provider(&mut |n| providers.push(n));
        }
        let found: Vec<Problem> = refs
            .into_iter()
            .map(|n| (n, false))
            .chain(providers.into_iter().map(|n| (n, true)))
            .filter(|(n, _)| !exists(n))
            .map(|(n, provider)| Problem::MissingService {
                from: from.clone(),
                target: n.to_owned(),
                provider,
            })
            .collect();
        found
    };
    if plan.services.contains_key("") {
        out.push(Problem::EmptyName);
    }
    for (name, s) in &plan.services {
        let built = matches!(
            s.kind,
            plan::ServiceKind::Service | plan::ServiceKind::Factory
        );
        if built && !constructs(&s.create) {
            out.push(Problem::ConstructsNothing {
                service: name.to_string(),
                kind: value_kind(&s.create),
            });
        }
        let mut exprs = std::iter::once(&s.create)
            .chain(s.setup.iter())
            .chain(s.references.values());
        out.extend(missing(&Place::Service(name.to_string()), &mut exprs));
        let exprs = std::iter::once(&s.create)
            .chain(s.setup.iter())
            .chain(s.references.values())
            .chain(s.tags.values());
        out.extend(too_deep(&Place::Service(name.to_string()), exprs));
    }
    out.extend(missing(
        &Place::Initialization,
        &mut plan.initialization.iter(),
    ));
    out.extend(too_deep(&Place::Initialization, plan.initialization.iter()));
    for (name, e) in &plan.parameters {
        out.extend(missing(
            &Place::Parameter(name.clone()),
            &mut std::iter::once(e),
        ));
        out.extend(too_deep(
            &Place::Parameter(name.clone()),
            std::iter::once(e),
        ));
    }
    for (alias, target) in &plan.aliases {
        if !plan.services.contains_key(target) {
            out.push(Problem::AliasTarget {
                alias: alias.to_string(),
                target: target.to_string(),
                to_alias: plan.aliases.contains_key(target),
            });
        }
    }
    for (ty, names) in &plan.types {
        for n in names {
            let problem = match plan.services.get(n.as_str()) {
                None => Problem::Autowired {
                    type_: ty.to_string(),
                    service: n.to_string(),
                },
                Some(s) if s.autowired == wireplan_runtime::plan::Autowired::All(false) => {
                    Problem::NotAutowired {
                        type_: ty.to_string(),
                        service: n.to_string(),
                    }
                }
                Some(_) => continue,
            };
            out.push(problem);
        }
    }
    for (tag, names) in &plan.tags {
        for n in names
            .keys()
            .filter(|n| !plan.services.contains_key(n.as_str()))
        {
            out.push(Problem::Tagged {
                tag: tag.clone(),
                service: n.clone(),
            });
        }
    }
    out.extend(
        create_cycles(plan)
            .into_iter()
            .map(|services| Problem::Cycle { services }),
    );
    out
}

/// The first expression of `exprs` nested deeper than the runtime reads, as a problem at `at`
/// (the loader refuses it: "expression nested 122 levels deep (at most 100)").
fn too_deep<'e>(at: &Place, exprs: impl Iterator<Item = &'e plan::Expr>) -> Option<Problem> {
    exprs
        .filter(|e| !e.is_leaf())
        .map(plan::Expr::json_depth)
        .find(|&depth| depth > plan::MAX_EXPR_DEPTH)
        .map(|depth| Problem::TooDeep {
            at: at.clone(),
            depth,
        })
}

/// The [`problems`] of a plan in the compiler's words (their `Display`). Used after
/// extensions edited the plan in `afterCompile(plan)`: any of them refuses the plan.
pub fn validate(plan: &Plan) -> Vec<String> {
    problems(plan).iter().map(ToString::to_string).collect()
}

/// Whether a `create` expression makes the service's object: anything but a plain value
/// (null, a scalar, a list or a map), which the runtime could only refuse when the service is
/// first asked for.
pub fn constructs(create: &plan::Expr) -> bool {
    use plan::Expr as E;
    !matches!(
        create,
        E::Null | E::Bool(_) | E::Int(_) | E::Float(_) | E::Str(_) | E::List(_) | E::Map(_)
    )
}

/// The plain value's kind, for messages.
fn value_kind(e: &plan::Expr) -> &'static str {
    use plan::Expr as E;
    match e {
        E::Null => "null",
        E::Bool(_) => "a bool",
        E::Int(_) => "an int",
        E::Float(_) => "a float",
        E::Str(_) => "a string",
        E::List(_) => "a list",
        E::Map(_) => "a map",
        _ => "an expression",
    }
}

/// Construction cycles: services (kind `service`, any lifespan) whose `create` refers, through
/// other services' `create`, back to themselves — the runtime would fail with "circular
/// reference" when the first of them is created. Aliases are followed; locators, and
/// factories and accessors that are only passed on, resolve lazily and end a path; an
/// accessor's `get()` or a factory's `create()` called in a `create` goes on through the
/// accessor or factory's own `create` (as the compiler's cycle check). Each cycle is returned
/// once, as its services from the first met (the path goes on back to the first).
pub fn create_cycles(plan: &Plan) -> Vec<Vec<String>> {
    use plan::ServiceKind as K;
    let index = |n: &str| {
        let real = plan.aliases.get(n).map_or(n, |r| r.as_str());
        plan.services.get_index_of(real)
    };
    let edges: Vec<Vec<usize>> = plan
        .services
        .values()
        .map(|s| {
            let mut out = Vec::new();
            if matches!(s.kind, K::Service | K::Accessor | K::Factory) {
                let mut called = Vec::new();
                s.create.for_each_called(&mut |n| called.push(n));
                s.create.for_each_ref(&mut |n| {
                    let Some(i) = index(n) else { return };
                    match plan.services[i].kind {
                        K::Service => out.push(i),
                        K::Accessor | K::Factory if called.contains(&n) => out.push(i),
                        _ => {}
                    }
                });
            }
            out
        })
        .collect();
    // 0 = unvisited, 1 = on the path, 2 = done; iterative, so a long chain cannot overflow.
    let mut state = vec![0u8; edges.len()];
    let mut reported: std::collections::HashSet<Vec<usize>> = Default::default();
    let mut cycles = Vec::new();
    let name = |i: usize| plan.services.get_index(i).map_or("", |(n, _)| n.as_str());
    for start in 0..edges.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        let mut path = vec![start];
        state[start] = 1;
        while let Some((node, i)) = stack.pop() {
            let Some(&next) = edges[node].get(i) else {
                state[node] = 2;
                path.pop();
                continue;
            };
            stack.push((node, i + 1));
            match state[next] {
                0 => {
                    state[next] = 1;
                    path.push(next);
                    stack.push((next, 0));
                }
                1 => {
                    let pos = path.iter().position(|&p| p == next).unwrap_or(0);
                    let cycle = &path[pos..];
                    let mut key = cycle.to_vec();
                    key.sort_unstable();
                    if reported.insert(key) {
                        cycles.push(cycle.iter().map(|&i| name(i).to_owned()).collect());
                    }
                }
                _ => {}
            }
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::super::tests::{new, plan};
    use super::*;
    use serde_json::json;

    fn cycle_messages(p: &Plan) -> Vec<String> {
        create_cycles(p)
            .into_iter()
            .map(|services| Problem::Cycle { services }.to_string())
            .collect()
    }

    /// A service named "" is one problem, refused at load, listed before the per-service
    /// problems (a hand-edited plan loaded and ran with one: a new user's trial).
    #[test]
    fn an_empty_service_name_is_a_problem() {
        let p = plan(
            json!({"a": new(json!([])), "": new(json!([{"$ref": "gone"}]))}),
            json!({}),
        );
        let found = problems(&p);
        assert_eq!(
            found.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "a service has an empty name (\"\"), which no configuration gives",
                "service '' refers to missing service 'gone'",
            ]
        );
        assert!(found[0].refused_at_load());
        let fine = plan(json!({"a": new(json!([]))}), json!({}));
        assert!(problems(&fine).is_empty());
    }

    #[test]
    fn cycles_follow_aliases_and_stop_at_generated_services() {
        let p = plan(
            json!({
                "a": new(json!([{"$ref": "b"}])),
                "b": new(json!([{"$call": [{"$ref": "c"}, "make"], "args": []}])),
                "c": new(json!([{"$ref": "toA"}])),
                "self": new(json!([[{"$ref": "self"}]])),
                "f": {"kind": "factory", "type": "A",
                      "create": {"$new": "A", "args": [{"$ref": "g"}]}},
                "g": new(json!([{"$ref": "f"}])),
            }),
            json!({"toA": "a"}),
        );
        assert_eq!(
            cycle_messages(&p),
            vec![
                "Circular reference detected for services: a, b, c. (path: a -> b -> c -> a)",
                "Circular reference detected for services: self. (path: self -> self)",
            ]
        );
    }

    #[test]
    fn a_called_accessor_or_factory_goes_on_through_its_create() {
        let p = plan(
            json!({
                "w": new(json!([{"$ref": "p"}])),
                "p": new(json!([{"$call": [{"$ref": "acc"}, "get"], "args": []}])),
                "acc": {"kind": "accessor", "type": "A", "create": {"$ref": "w"}},
                "x": new(json!([{"$call": [{"$ref": "fac"}, "create"], "args": []}])),
                "fac": {"kind": "factory", "type": "A",
                        "create": {"$new": "A", "args": [{"$ref": "x"}]}},
                // Passed on, not called: a lazy handle, no cycle.
                "h": new(json!([{"$ref": "acc2"}])),
                "acc2": {"kind": "accessor", "type": "A", "create": {"$ref": "h"}},
            }),
            json!({}),
        );
        assert_eq!(
            cycle_messages(&p),
            vec![
                "Circular reference detected for services: w, p, acc. (path: w -> p -> acc -> w)",
                "Circular reference detected for services: x, fac. (path: x -> fac -> x)",
            ]
        );
    }

    #[test]
    fn a_long_chain_is_checked_without_deep_recursion() {
        let n = 20_000;
        let services: serde_json::Map<String, serde_json::Value> = (0..n)
            .map(|i| {
                let args = if i + 1 < n {
                    json!([{"$ref": format!("s{}", i + 1)}])
                } else {
                    json!([{"$ref": "s0"}])
                };
                (format!("s{i}"), new(args))
            })
            .collect();
        let problems = cycle_messages(&plan(services.into(), json!({})));
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].ends_with("s19999 -> s0)"),
            "{}",
            &problems[0][..80]
        );
    }

    /// Every kind of problem, each where it is, in the documented order; which of them the
    /// runtime refuses at load.
    #[test]
    fn every_problem_is_found_where_it_is() {
        let mut p: Plan = serde_json::from_value(json!({
            "format": plan::FORMAT, "version": plan::VERSION, "compiler": "t",
            "inputs_hash": "0",
            "services": {
                "a": {"type": "A", "create": {"$new": "A", "args": [
                    {"$ref": "ghost"}, {"$provider": "phantom"}, {"$ref": "toB"}]}},
                "b": {"type": "A", "create": null},
                "loop": new(json!([{"$ref": "loop"}])),
                "hidden": {"type": "A", "autowired": false, "create": {"$new": "A", "args": []}},
            },
            "aliases": {"toB": "b", "stray": "nowhere", "twice": "toB"},
            "types": {"A": ["a", "gone", "hidden"]},
            "tags": {"audited": {"a": true, "lost": true}},
            "initialization": [{"$call": [{"$ref": "late"}, "boot"], "args": []}],
            "parameters": {"dsn": {"$ref": "db"}},
        }))
        .expect("a plan");
        p.version = plan::VERSION + 1;
        let found = problems(&p);
        let words: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            words,
            vec![
                format!(
                    "the plan must stay format '{}' version {} (found '{}' version {})",
                    plan::FORMAT,
                    plan::VERSION,
                    plan::FORMAT,
                    plan::VERSION + 1
                ),
                "service 'a' refers to missing service 'ghost'".to_string(),
                "service 'a' asks for a provider of missing service 'phantom'".into(),
                "service 'b' has a 'create' that constructs nothing (null); it must be a \
                 constructor call ($new) or a method call ($call)"
                    .into(),
                "the initialization refers to missing service 'late'".into(),
                "parameter 'dsn' refers to missing service 'db'".into(),
                "alias 'stray' refers to missing service 'nowhere'".into(),
                "alias 'twice' refers to 'toB', which is an alias (an alias must name a service)"
                    .into(),
                "the autowiring index lists missing service 'gone' for A".into(),
                "the autowiring index lists service 'hidden' for A, but it is not autowired \
                 (autowired: false)"
                    .into(),
                "tag 'audited' lists missing service 'lost'".into(),
                "Circular reference detected for services: loop. (path: loop -> loop)".into(),
            ]
        );
        let at_load: Vec<bool> = found.iter().map(Problem::refused_at_load).collect();
        assert_eq!(
            at_load,
            [true, true, true, false, true, true, true, true, true, true, true, false]
        );
        p.version = plan::VERSION;
        assert_eq!(validate(&p).len(), 11);

        // An expression deeper than the runtime reads (`show` said nothing of it while the
        // loader refused it; an operator's trial), in a setup and in a parameter.
        let mut deep = json!(1);
        for _ in 0..121 {
            deep = json!([deep]);
        }
        let p: Plan = serde_json::from_value(json!({
            "format": plan::FORMAT, "version": plan::VERSION, "compiler": "t",
            "inputs_hash": "0",
            "services": {"a": {"type": "A", "create": {"$new": "A", "args": []},
                "setup": [{"$call": ["@self", "m"], "args": [deep.clone()]}]}},
            "parameters": {"p": deep},
        }))
        .expect("a plan");
        let found = problems(&p);
        let words: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            words,
            [
                "service 'a' has an expression nested 123 levels deep (at most 100)",
                "parameter 'p' has an expression nested 121 levels deep (at most 100)",
            ]
        );
        assert!(found.iter().all(Problem::refused_at_load));
    }
}
