//! The load check of a call's arguments against the parameters its registration declares
//! (`ClassBuilder::signature`, `method_signature`, which the derive and `register!` fill in):
//! their count, and literals, dynamic parameters' values and service references the declared
//! types refuse. Each is a plan compiled from another catalog than the registry's, or edited
//! since, reported at load instead of at the service's first creation.

use super::*;

/// The load problem of a call (`what`: `the constructor of App\Db`, `App\Db::connect()`) to
/// which the plan passes `args` arguments where the registration declares `params`: a plan
/// compiled from a catalog other than this registry's, or edited since. `None` when the
/// counts agree.
pub(super) fn arity_problem(
    at: &dyn Display,
    what: &dyn Display,
    params: &[crate::catalog::Param],
    args: usize,
) -> Option<String> {
    if params.len() == args {
        return None;
    }
    let names: Vec<&str> = params.iter().map(|p| p.name).collect();
    let names = if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    };
    Some(format!(
        "{at}: {what} takes {} argument(s) ({names}), the plan passes {args}; {STALE}",
        params.len()
    ))
}

/// The load problem of the entry `key` → `recorded` of a plan's `signatures` (version 4):
/// the registration declares other parameter names for that constructor or method than the
/// plan was compiled for — a catalog older than the registry, where two parameters of one
/// type were swapped or one was renamed; passed by position, each argument would reach
/// another parameter than it was written for. `None` when they agree, when the registration
/// declares no parameters, or when the counts differ (each call's count is reported where it
/// is made, [`arity_problem`]).
pub(crate) fn signature_problem(registry: &Registry, key: &str, recorded: &str) -> Option<String> {
    let (class, method) = crate::plan::signature_key_parts(key);
    let params = registry.declared_params(class, method)?;
    if !names_differ(recorded, params) {
        return None;
    }
    let what = match method {
        Some(m) => format!("{class}::{m}()"),
        None => format!("the constructor of {class}"),
    };
    Some(format!(
        "{what} declares the parameters ({}) in this registry, but the plan was compiled for \
         ({}) and passes its arguments by position, so they would reach other parameters than \
         they were written for; {STALE}",
        crate::plan::dollar_names(params.iter().map(|p| p.name)),
        crate::plan::dollar_names(crate::plan::recorded_names(recorded))
    ))
}

/// Whether `recorded` (names joined by `", "`, a value of a plan's `signatures`) lists as
/// many names as `params` has, and another name somewhere: the case [`signature_problem`]
/// reports. One pass, no allocation (the binary load checks every entry of a plan).
pub(crate) fn names_differ(recorded: &str, params: &[crate::catalog::Param]) -> bool {
    if params.is_empty() || recorded.is_empty() {
        // No names on one side: the same when both have none, else another count.
        return false;
    }
    // Name by name, each up to the next `,` (a `char` search, not a substring search: this
    // runs for every entry of a binary plan's section).
    let mut rest = recorded;
    let mut differ = false;
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            match rest.strip_prefix(", ") {
                Some(r) => rest = r,
                None => return false,
            }
        }
        let end = rest.find(',').unwrap_or(rest.len());
        differ |= rest[..end] != *p.name;
        rest = &rest[end..];
    }
    differ && rest.is_empty()
}

/// How a load problem that a catalog other than the registry's explains ends: the count or a
/// type of a call's arguments differs from what the registration declares.
const STALE: &str = "the plan was compiled from a catalog that does not match this registry \
     (export the registry's catalog and compile again: `WIREPLAN_WRITE_CATALOG=FILE cargo run`, \
     or `WIREPLAN_UPDATE_CATALOG=1 cargo test` with the golden test; docs/catalog.md), or \
     edited after compiling (by hand, or by an extension's `afterCompile()`)";

impl<'a> Checker<'a> {
    /// The literal arguments of a call with as many arguments as `params` declares, against
    /// the declared types ([`super::literals`]): one problem per argument the conversion would
    /// refuse when the service is created.
    pub(super) fn check_literals(
        &mut self,
        params: &[crate::catalog::Param],
        args: &[Expr],
        at: &dyn Display,
        what: &dyn Display,
    ) {
        for (i, (p, a)) in params.iter().zip(args).enumerate() {
            if let Expr::Ref(target) = a {
                self.check_reference(p, i, target, at, what);
                continue;
            }
            let (lit, described) = match a {
                Expr::Param(name) => {
                    let Some(lit) = self
                        .dynamic
                        .and_then(|d| d.get(name))
                        .and_then(Literal::of_value)
                    else {
                        continue;
                    };
                    let sensitive = self.plan.dynamic.get(name).is_some_and(|d| d.sensitive);
                    if let Some(ty) = literals::out_of_range(p, self.registry, lit) {
                        // An int the parameter takes, but not this one: the value given at
                        // start-up is wrong, not the plan (`TIMES=-3` for `int<0, max>`).
                        self.value_out_of_range(name, ty, lit, sensitive);
                        continue;
                    }
                    let shown = if sensitive {
                        format!("the dynamic parameter '{name}' (a sensitive value)")
                    } else {
                        format!("the dynamic parameter '{name}' ({})", lit.describe())
                    };
                    (lit, shown)
                }
                _ => match Literal::of_expr(a) {
                    Some(lit) => (lit, format!("{} in the plan", lit.describe())),
                    None => continue,
                },
            };
            if let Some(ty) = literals::refused_by(p, self.registry, lit) {
                self.problems.push(format!(
                    "{at}: argument ${} (index {i}) of {what} is {described}, but the \
                     parameter takes {ty}; {STALE}",
                    p.name,
                ));
            }
        }
    }

    /// Records that the dynamic parameter `name`, read by the service being checked, has a
    /// value (`lit`) the parameter it fills refuses by range alone (`ty`, such as
    /// `int<0, max>`): one [`crate::dynamic::DynamicProblem`] per parameter, naming each service
    /// once.
    fn value_out_of_range(&mut self, name: &str, ty: String, lit: Literal, sensitive: bool) {
        use crate::dynamic::{DynamicProblem, ProblemKind};
        let service = self.service;
        if let Some(known) = self.out_of_range.iter_mut().find(|p| p.name == name) {
            if !known.services.iter().any(|s| s == service) {
                known.services.push(service.to_string());
            }
            return;
        }
        self.out_of_range.push(DynamicProblem {
            name: name.to_string(),
            kind: ProblemKind::Invalid {
                expected: ty,
                value: (!sensitive).then(|| lit.describe()),
            },
            services: vec![service.to_string()],
            defined_at: crate::dynamic::defined_at(self.plan, service),
        });
    }

    /// A `$ref` argument `i` to `target` (a service or an alias) for the registered parameter
    /// `p`: the object the service's `$new` makes must be one the parameter takes
    /// ([`literals::refuses_object`]). Services made otherwise (a factory method, a
    /// generated service, whose `create` is its product's, not its own object) and unknown
    /// names are left to their own checks.
    pub(super) fn check_reference(
        &mut self,
        p: &crate::catalog::Param,
        i: usize,
        target: &str,
        at: &dyn Display,
        what: &dyn Display,
    ) {
        let plan = self.plan;
        let name = plan.aliases.get(target).map_or(target, |t| t.as_str());
        // (A generated factory's `create` is what its `create()` makes: the service passed is
        // the factory handle itself, which a parameter written `object` takes.)
        let Some(Expr::New { class, .. }) = plan
            .services
            .get(name)
            .filter(|s| s.kind == crate::plan::ServiceKind::Service)
            .map(|s| &s.create)
        else {
            return;
        };
        let Some(made) = self.registry.t.classes.get(class.as_str()) else {
            return;
        };
        if let Some(ty) = literals::refuses_object(p, self.registry, made.type_id) {
            self.problems.push(format!(
                "{at}: argument ${} (index {i}) of {what} is service '{name}' ({class}) in the \
                 plan, but the parameter takes {ty}; {STALE}",
                p.name
            ));
        }
    }

    /// A setup call of `method` on `@self` with `args`: when the registration declares the
    /// method's parameters ([`crate::ClassBuilder::method_signature`], which the derive fills
    /// in), the plan must pass exactly that many, and literals the declared types take, as
    /// for a constructor ([`Checker::check_new`]): otherwise the plan was compiled from a
    /// catalog other than this registry's.
    pub(super) fn check_method_arity(
        &mut self,
        class: Option<&str>,
        method: &str,
        args: &[Expr],
        at: &dyn Display,
    ) {
        let Some(class) = class else {
            return;
        };
        let Some(sig) = self.members(class).and_then(|t| t.method_sigs.get(method)) else {
            return;
        };
        let what = format_args!("{class}::{method}()");
        // With the declared count, the literal arguments are checked against the declared
        // types, as a constructor's are (a new user's trial: a setup's were refused only when
        // the service was created).
        match arity_problem(at, &what, &sig.params, args.len()) {
            Some(problem) => self.problems.push(problem),
            None => self.check_literals(&sig.params, args, at, &what),
        }
    }
}
