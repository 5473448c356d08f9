//! Whether a plan's `requires_async` flags agree with the constructors it calls: the loader
//! checks a plan against its registry, and the compiler an `afterCompile(plan)` edit against
//! its catalog (the flags are computed on the builder, before the plan exists).

use std::collections::HashSet;

use crate::plan::{CallTarget, Expr, Plan, ServiceKind};

/// What a class's constructor is, as far as `requires_async` goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constructor {
    /// `async_constructor` / `async new` in a registry, `async: true` in a catalog.
    Async,
    /// A constructor that returns the object.
    Sync,
}

/// One service whose `requires_async` flag disagrees with what it calls ([`async_flags`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncProblem {
    /// The service's name.
    pub service: String,
    /// What is wrong.
    pub kind: AsyncFlag,
}

/// The ways a `requires_async` flag can be wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsyncFlag {
    /// Marked, but its class's constructor is sync and nothing else it needs is async.
    MarkedButSync {
        /// The class its `create` calls.
        class: String,
    },
    /// Not marked, but it calls the async constructor of `class` with `$new`.
    AsyncConstructor {
        /// The class.
        class: String,
    },
    /// Not marked, but it needs `dependency`, which requires async.
    NeedsAsync {
        /// The service needed.
        dependency: String,
    },
}

impl std::fmt::Display for AsyncProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = &self.service;
        match &self.kind {
            AsyncFlag::MarkedButSync { class } => write!(
                f,
                "service '{name}' is marked requires_async, but {class} has a sync constructor \
                 and nothing else it needs is async"
            ),
            AsyncFlag::AsyncConstructor { class } => write!(
                f,
                "service '{name}': {class} has an async constructor but the service is not \
                 marked requires_async"
            ),
            AsyncFlag::NeedsAsync { dependency } => write!(
                f,
                "service '{name}' needs '{dependency}', which requires async, but is not marked \
                 requires_async itself"
            ),
        }
    }
}

/// Every service of `plan` whose `requires_async` flag disagrees with the constructors it
/// calls, in plan order, one problem per service. `ctor` says what the constructor of a class
/// is (`None`: unknown, or no constructor to call). A service that calls an async constructor
/// with `$new` (a `$provider` defers its target, so it does not count), or needs a service
/// that requires async, must be marked itself; a marked service whose class's constructor is
/// sync must need something async. Generated handles (factories, accessors, locators) and
/// slots are not judged.
pub fn async_flags<'p>(
    plan: &'p Plan,
    ctor: &dyn Fn(&str) -> Option<Constructor>,
) -> Vec<AsyncProblem> {
    let mut problems = Vec::new();
    // The service a reference names (an alias is followed).
    let real = |n: &'p str| plan.aliases.get(n).map_or(n, |r| r.as_str());
    let needs_async = |n: &'p str| {
        let real = real(n);
        plan.services
            .get(real)
            .is_some_and(|d| d.requires_async && d.kind == ServiceKind::Service)
            .then_some(real)
    };
    let async_class = |e: &'p Expr| async_class(e, ctor);
    // Unmarked services that reach an async constructor (directly, or through a marked or
    // another such service): reported as unmarked below, and counted as async where a marked
    // service's need for async is judged, so a missing flag is not also blamed on the marked
    // services that need it.
    let mut unmarked_async: HashSet<&'p str> = HashSet::new();
    loop {
        let before = unmarked_async.len();
        for (name, sp) in &plan.services {
            if sp.kind != ServiceKind::Service
                || sp.requires_async
                || unmarked_async.contains(name.as_str())
            {
                continue;
            }
            let exprs = || std::iter::once(&sp.create).chain(&sp.setup);
            let mut reaches = exprs().any(|e| async_class(e).is_some());
            for e in exprs() {
                e.for_each_ref(&mut |n| {
                    reaches |= needs_async(n).is_some() || unmarked_async.contains(real(n));
                });
            }
            if reaches {
                unmarked_async.insert(name.as_str());
            }
        }
        if unmarked_async.len() == before {
            break;
        }
    }
    for (name, sp) in &plan.services {
        if sp.kind != ServiceKind::Service {
            continue;
        }
        let exprs = || std::iter::once(&sp.create).chain(&sp.setup);
        let problem = |kind| AsyncProblem {
            service: name.to_string(),
            kind,
        };
        if sp.requires_async {
            // The other way round: marked, but its class's constructor is sync and nothing it
            // needs is async (a constructor made sync since the plan was compiled, a
            // reference changed by an edit; `get` would ask for `get_async` for no reason).
            let sync_class = match &sp.create {
                Expr::New { class, .. } if ctor(class) == Some(Constructor::Sync) => Some(class),
                _ => None,
            };
            if let Some(class) = sync_class {
                let mut via = false;
                for e in exprs() {
                    e.for_each_ref(&mut |n| {
                        via |= needs_async(n).is_some() || unmarked_async.contains(real(n));
                    });
                }
                if !via && exprs().all(|e| async_class(e).is_none()) {
                    problems.push(problem(AsyncFlag::MarkedButSync {
                        class: class.to_string(),
                    }));
                }
            }
            continue;
        }
        if let Some(class) = exprs().find_map(async_class) {
            problems.push(problem(AsyncFlag::AsyncConstructor {
                class: class.to_string(),
            }));
            continue;
        }
        let mut needs = None;
        for e in exprs() {
            e.for_each_ref(&mut |n| {
                if needs.is_none() {
                    needs = needs_async(n);
                }
            });
        }
        if let Some(dependency) = needs {
            problems.push(problem(AsyncFlag::NeedsAsync {
                dependency: dependency.to_string(),
            }));
        }
    }
    problems
}

/// The first class with an async constructor (as `ctor` says) that `e` calls with `$new`,
/// nested calls included, `$provider` handles excepted: the class as the plan writes it. What
/// makes a service require async, for the loader's check and the compiler's flags alike.
pub fn async_class<'a>(e: &'a Expr, ctor: &dyn Fn(&str) -> Option<Constructor>) -> Option<&'a str> {
    let target = |t: &'a CallTarget| match t {
        CallTarget::Expr(x) => async_class(x, ctor),
        _ => None,
    };
    let many = |items: &'a [Expr]| items.iter().find_map(|x| async_class(x, ctor));
    match e {
        Expr::New { class, args } => (ctor(class) == Some(Constructor::Async))
            .then_some(class.as_str())
            .or_else(|| many(args)),
        Expr::Call {
            target: t, args, ..
        } => target(t).or_else(|| many(args)),
        Expr::Set {
            target: t, value, ..
        } => target(t).or_else(|| async_class(value, ctor)),
        Expr::Get { target: t, .. } | Expr::Callable { target: t, .. } => target(t),
        Expr::Func { arg, .. } => async_class(arg, ctor),
        Expr::ArgOr { default, .. } => async_class(default, ctor),
        Expr::List(items) | Expr::Concat(items) => many(items),
        Expr::Map(m) => m.values().find_map(|x| async_class(x, ctor)),
        _ => None,
    }
}
