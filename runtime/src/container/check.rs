//! Load-time checks: the whole plan against itself and against the registry, every problem
//! and every gap collected so they can be reported at once.

use std::collections::HashSet;
use std::fmt::Display;

use indexmap::IndexMap;

use super::literals::{self, Literal};
use crate::error::Missing;
use crate::plan::{Autowired, CallTarget, Expr, Plan, ServiceKind, ServicePlan, MAX_EXPR_DEPTH};
use crate::registry::{ClassEntry, Registry};
use crate::value::Value;

#[path = "check_args.rs"]
mod args;
use args::arity_problem;
pub(crate) use args::{names_differ, signature_problem};

/// Walks the whole plan once, collecting every inconsistency (`problems`) and every missing
/// registration (`missing`), so both can be reported at once.
pub(crate) struct Checker<'a> {
    plan: &'a Plan,
    registry: &'a Registry,
    /// The declared dynamic parameters' values at this load (given, from the environment, or
    /// their defaults, converted to their declared types), for the arguments that read them.
    dynamic: Option<&'a std::collections::HashMap<String, Value>>,
    pub(crate) problems: Vec<String>,
    pub(crate) missing: Vec<Missing>,
    /// Distinct classes the plan uses and how many of them the registry has; exact only when
    /// none is registered (the case that matters: a plan for another registry).
    pub(crate) used: (usize, usize),
    seen: HashSet<String>,
    /// Classes used by the plan that the registry lacks (few; collected only for those).
    unknown_used: HashSet<&'a str>,
    /// Whether the plan uses at least one registered class.
    known_used: bool,
    /// Per service index `i`: the types the plan autowires it for are
    /// `autowired_for[autowired_at[i]..autowired_at[i + 1]]`, in the order of `plan.types`.
    autowired_at: Vec<u32>,
    autowired_for: Vec<&'a str>,
    /// For every argument of the current service's top-level `$new`: the index of the
    /// service it references when it is a `$ref` found by name ([`NO_REF`] otherwise), handed
    /// to the program compiler with the service (see [`Checker::run`]) so it does not look the
    /// same name up again. Reused from service to service.
    arg_refs: Vec<u32>,
    /// The service being checked (for the problems a dynamic parameter's value causes).
    service: &'a str,
    /// Dynamic parameters whose value at this load is an int outside the range the parameter
    /// reading it takes (`int<0, max>`): the value is wrong, not the plan, so these are
    /// reported as [`Error::DynamicParameters`], one per parameter with every service whose
    /// argument refuses it.
    pub(crate) out_of_range: Vec<crate::dynamic::DynamicProblem>,
}

/// What [`Checker::run`] hands on for each service it checked without a problem: its index,
/// its plan, the registration of its top-level `$new` class with its index in the registry's
/// class table (`None` for another `create` or an unregistered class) and the services that `$new`'s arguments reference ([`NO_REF`] for an
/// argument that is not a `$ref` found by name).
pub(crate) type Checked<'c, 'a> = (
    usize,
    &'a ServicePlan,
    Option<(u32, &'a ClassEntry)>,
    &'c [u32],
);

/// Whether `e` is a scalar, a one-key object (`$ref`, `$param`, …) or a `$new` whose arguments
/// are such: JSON depth at most 3, so [`Checker::too_deep`] need not measure it (the common
/// `create`, a `$new` of references and numbers, is one).
fn shallow(e: &Expr) -> bool {
    match e {
        Expr::New { args, .. } => args.iter().all(Expr::is_leaf),
        other => other.is_leaf(),
    }
}

/// In [`Checker::arg_refs`]: no service resolved by name.
pub(crate) const NO_REF: u32 = u32::MAX;

impl<'a> Checker<'a> {
    pub(crate) fn new(plan: &'a Plan, registry: &'a Registry) -> Checker<'a> {
        Checker {
            plan,
            registry,
            dynamic: None,
            problems: Vec::new(),
            missing: Vec::new(),
            used: (0, 0),
            seen: HashSet::new(),
            unknown_used: HashSet::new(),
            known_used: false,
            autowired_at: Vec::new(),
            autowired_for: Vec::new(),
            arg_refs: Vec::new(),
            service: "",
            out_of_range: Vec::new(),
        }
    }

    /// The checker with the dynamic parameters' values at this load: a literal argument that
    /// reads one (`$param`) is checked as the value it has (a catalog type changed since the
    /// plan was compiled; a new user's trial met it only at the first `get`).
    pub(crate) fn with_dynamic(
        mut self,
        dynamic: &'a std::collections::HashMap<String, Value>,
    ) -> Checker<'a> {
        self.dynamic = Some(dynamic);
        self
    }

    /// The index of the service `name` (aliases not followed): one lookup in the plan's
    /// own service map (a seeded fast hash, see [`crate::plan::NameHasher`]).
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.plan.services.get_index_of(name)
    }

    /// Records that the plan uses `class` and returns its registration, if any, with its
    /// index in the registry's class table.
    fn use_class(&mut self, class: &'a str) -> Option<(u32, &'a ClassEntry)> {
        let entry = self
            .registry
            .t
            .classes
            .get_full(class)
            .map(|(i, _, c)| (i as u32, c));
        if entry.is_some() {
            self.known_used = true;
        } else {
            self.unknown_used.insert(class);
        }
        entry
    }

    /// A `$new` of `class` with `args` arguments: the class and its constructor must be
    /// registered, and when the registration declares the constructor's parameters
    /// ([`crate::ClassBuilder::signature`], which `#[wireplan_runtime::class]` and `register!` fill in),
    /// the plan must pass exactly that many (a plan's arguments are positional and complete:
    /// the compiler filled in the defaults). A different count means the plan was compiled
    /// from a catalog other than this registry's; it is reported here, at load, instead of as
    /// a wrong or missing argument when the service is created. Returns the registration, if
    /// any.
    fn check_new(
        &mut self,
        class: &'a str,
        args: &[Expr],
        at: &dyn Display,
    ) -> Option<(u32, &'a ClassEntry)> {
        let entry = self.use_class(class);
        if let Some(params) = entry.and_then(|(_, c)| c.more().ctor_sig.as_ref()) {
            let what = format_args!("the constructor of {class}");
            match arity_problem(at, &what, params, args.len()) {
                Some(problem) => self.problems.push(problem),
                None => self.check_literals(params, args, at, &what),
            }
        }
        match entry {
            None => self.miss(Missing::Class {
                class: class.to_string(),
                needed_by: at.to_string(),
            }),
            Some((_, c)) if c.ctor.is_none() && c.async_ctor.is_none() => {
                self.miss(Missing::Constructor {
                    class: class.to_string(),
                    needed_by: at.to_string(),
                })
            }
            Some(_) => {}
        }
        entry
    }

    fn miss(&mut self, m: Missing) {
        if self.seen.insert(m.to_string()) {
            self.missing.push(m);
        }
    }

    fn exists(&self, name: &str) -> bool {
        self.plan.services.contains_key(name) || self.plan.aliases.contains_key(name)
    }

    /// The registered class the object of the service `name` will have, when the plan says
    /// so statically.
    fn static_class(&self, name: &str) -> Option<&'a str> {
        let i = self.index_of(name)?;
        self.static_class_of(&self.plan.services[i])
    }

    /// As [`Checker::static_class`], for a service's plan at hand.
    fn static_class_of(&self, sp: &'a ServicePlan) -> Option<&'a str> {
        match &sp.create {
            Expr::New { class, .. } => Some(class.as_str()),
            _ if self.registry.has_class(&sp.type_) => Some(sp.type_.as_str()),
            _ => None,
        }
    }

    /// Fills `autowired_at`/`autowired_for` from `plan.types` (one pass, no map per
    /// service) and returns the problems of the types index, reported after the aliases'.
    fn index_types(&mut self) -> Vec<String> {
        let plan = self.plan;
        let mut problems = Vec::new();
        let mut at = vec![0u32; plan.services.len() + 1];
        let mut entries: Vec<(u32, &'a str)> = Vec::with_capacity(plan.types.len());
        for (ty, names) in &plan.types {
            for n in names {
                match self.index_of(n) {
                    // `get_by_type` would hand out a service written `autowired: false` (a
                    // plan edited by hand; a new user's trial).
                    Some(i)
                        if plan.services.get_index(i).map(|(_, s)| &s.autowired)
                            == Some(&Autowired::All(false)) =>
                    {
                        problems.push(format!(
                            "types index: {ty} lists service '{n}', which is not autowired (autowired: false)"
                        ))
                    }
                    Some(i) => {
                        let i = i as u32;
                        at[i as usize + 1] += 1;
                        entries.push((i, ty.as_str()));
                    }
                    None => problems.push(format!("types index: {ty} lists unknown service '{n}'")),
                }
            }
        }
        for i in 1..at.len() {
            at[i] += at[i - 1];
        }
        let mut next = at.clone();
        let mut list = vec![""; entries.len()];
        for (i, ty) in entries {
            let slot = &mut next[i as usize];
            list[*slot as usize] = ty;
            *slot += 1;
        }
        self.autowired_at = at;
        self.autowired_for = list;
        problems
    }

    /// Checks the whole plan. Each service is handed to `checked` right after its own checks
    /// (while its plan is still in cache), as long as no problem was found so far: the
    /// container compiles it there, in the same pass (a plan with a problem is refused, so
    /// what was compiled of it is dropped; nothing is compiled after a problem, in particular
    /// no expression nested too deeply to walk).
    pub(crate) fn run(&mut self, mut checked: impl FnMut(Checked<'_, 'a>)) {
        let plan = self.plan;
        for (class, first, second) in &self.registry.t.conflicts {
            self.miss(Missing::Reregistered {
                class: class.to_string(),
                first: first.to_string(),
                second: second.to_string(),
            });
        }
        let types_problems = self.index_types();
        let mut requires_async = false;
        for (i, (name, sp)) in plan.services.iter().enumerate() {
            self.arg_refs.clear();
            self.service = name;
            // The compiler never names a service "": a plan edited by hand (a new user's
            // trial loaded one and ran it).
            if name.is_empty() {
                self.problems.push(
                    "a service has an empty name (\"\"), which no configuration gives".into(),
                );
            }
            // Locations are formatted only when something is reported.
            let factory = sp.kind == ServiceKind::Factory;
            requires_async |= sp.requires_async;
            let at = format_args!("service '{name}' (create)");
            // The class of the service's object and its registration, each looked up once.
            let (class, entry) = match &sp.create {
                Expr::New { class, args } => {
                    let mut entry = None;
                    if !self.too_deep(&sp.create, &at) {
                        entry = self.check_new(class, args, &at);
                        for a in args {
                            // A `$ref` by name (the common argument) is looked up once, here.
                            if let Expr::Ref(r) = a {
                                match self.index_of(r) {
                                    Some(i) if r != "@self" => {
                                        self.arg_refs.push(i as u32);
                                        continue;
                                    }
                                    _ => {}
                                }
                            }
                            self.arg_refs.push(NO_REF);
                            self.walk_checked(a, &at, None, factory);
                        }
                    }
                    (Some(class.as_str()), entry)
                }
                other => {
                    self.walk(other, &at, None, factory);
                    let entry = self
                        .registry
                        .t
                        .classes
                        .get_full(sp.type_.as_str())
                        .map(|(i, _, c)| (i as u32, c));
                    (entry.map(|_| sp.type_.as_str()), entry)
                }
            };
            let new_class = entry.filter(|_| matches!(sp.create, Expr::New { .. }));
            for (n, stmt) in sp.setup.iter().enumerate() {
                let n = n + 1;
                let at = format_args!("service '{name}' (setup #{n})");
                if self.too_deep(stmt, &at) {
                    continue;
                }
                match stmt {
                    Expr::Call {
                        target: CallTarget::SelfObject,
                        method,
                        args,
                    } => {
                        self.check_method(class, method, true, &at);
                        self.check_method_arity(class, method, args, &at);
                        for a in args {
                            self.walk(a, &at, Some(class), factory);
                        }
                    }
                    Expr::Set {
                        target: CallTarget::SelfObject,
                        property,
                        value,
                    } => {
                        self.check_property(class, property, &at);
                        self.walk(value, &at, Some(class), factory);
                    }
                    other => self.walk(other, &at, Some(class), factory),
                }
            }
            for r in sp.references.values() {
                self.walk(
                    r,
                    &format_args!("service '{name}' (references)"),
                    None,
                    false,
                );
            }
            // A generated factory, accessor or locator is handed out as its handle (`Factory`,
            // …), not as the object `create` makes: its interface is not the product's to
            // implement.
            let generated = matches!(
                sp.kind,
                ServiceKind::Factory | ServiceKind::Accessor | ServiceKind::Locator
            );
            if let (Some(class), Some(entry), false) = (class, entry, generated) {
                self.check_casts(i, name, sp, class, entry.1);
            }
            if self.problems.is_empty() {
                checked((i, sp, new_class, &self.arg_refs));
            }
        }
        // Nothing to find unless the registry has an async constructor or a service
        // requires async.
        if requires_async || self.registry.t.async_classes {
            self.problems
                .extend(super::async_resolve::plan_problems(plan, self.registry));
        }
        for (alias, target) in &plan.aliases {
            if plan.aliases.contains_key(target.as_str()) {
                self.problems.push(format!(
                    "alias '{alias}' points to '{target}', which is an alias (an alias must \
                     name a service)"
                ));
            } else if !plan.services.contains_key(target.as_str()) {
                self.problems.push(format!(
                    "alias '{alias}' points to unknown service '{target}'"
                ));
            }
        }
        self.problems.extend(types_problems);
        for (i, e) in plan.initialization.iter().enumerate() {
            self.walk(e, &format_args!("initialization #{}", i + 1), None, false);
        }
        for (p, e) in &plan.parameters {
            self.walk(e, &format_args!("parameter '{p}'"), None, false);
        }
        for (key, recorded) in &plan.signatures {
            if let Some(problem) = args::signature_problem(self.registry, key, recorded) {
                self.problems.push(problem);
            }
        }
        // (distinct classes used, how many of them are registered); exact when none is.
        self.used = if self.known_used {
            (self.unknown_used.len() + 1, 1)
        } else {
            (self.unknown_used.len(), 0)
        };
    }

    /// Records an expression nested deeper than [`MAX_EXPR_DEPTH`] (a binary plan can hold one
    /// that JSON could not); such an expression is not walked or evaluated.
    fn too_deep(&mut self, e: &Expr, at: &dyn Display) -> bool {
        if shallow(e) {
            return false;
        }
        let depth = e.json_depth();
        if depth > MAX_EXPR_DEPTH {
            self.problems.push(format!(
                "{at}: expression nested {depth} levels deep (at most {MAX_EXPR_DEPTH})"
            ));
            return true;
        }
        false
    }

    /// `this`: `None` outside setups (`@self` is an error); `Some(class)` inside.
    fn walk(
        &mut self,
        e: &'a Expr,
        at: &dyn Display,
        this: Option<Option<&'a str>>,
        factory: bool,
    ) {
        if self.too_deep(e, at) {
            return;
        }
        self.walk_checked(e, at, this, factory);
    }

    fn walk_checked(
        &mut self,
        e: &'a Expr,
        at: &dyn Display,
        this: Option<Option<&'a str>>,
        factory: bool,
    ) {
        match e {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Float(_) | Expr::Str(_) => {}
            Expr::Param(_) => {}
            Expr::Func { name, arg } => {
                if !crate::convert::FUNCTIONS.contains(&name.as_str()) {
                    self.problems
                        .push(format!("{at}: unknown function '{name}' in $func"));
                }
                self.walk_checked(arg, at, this, factory);
            }
            Expr::List(items) | Expr::Concat(items) => {
                for x in items {
                    self.walk_checked(x, at, this, factory);
                }
            }
            Expr::Map(m) => {
                for x in m.values() {
                    self.walk_checked(x, at, this, factory);
                }
            }
            Expr::Ref(name) if name == "@self" => {
                if this.is_none() {
                    self.problems.push(format!("{at}: @self outside setup"));
                }
            }
            Expr::Ref(name) => {
                if !self.exists(name) {
                    self.problems
                        .push(format!("{at}: reference to unknown service '{name}'"));
                }
            }
            Expr::Provider(name) => {
                if !self.exists(name) {
                    self.problems
                        .push(format!("{at}: provider of unknown service '{name}'"));
                }
            }
            Expr::Arg(name) => {
                if !factory {
                    self.problems
                        .push(format!("{at}: $arg '{name}' outside a factory"));
                }
            }
            Expr::ArgOr { name, default } => {
                if !factory {
                    self.problems
                        .push(format!("{at}: $arg '{name}' outside a factory"));
                }
                self.walk_checked(default, at, this, factory);
            }
            Expr::New { class, args } => {
                self.check_new(class, args, at);
                for a in args {
                    self.walk_checked(a, at, this, factory);
                }
            }
            Expr::Call {
                target,
                method,
                args,
            } => {
                self.check_call(target, method, Some(args.len()), at, this, factory);
                for a in args {
                    self.walk_checked(a, at, this, factory);
                }
            }
            Expr::Get { target, property } => match target {
                CallTarget::Class(class) => self.problems.push(format!(
                    "{at}: static property {class}::${property} is not supported"
                )),
                CallTarget::SelfObject => match this {
                    None => self.problems.push(format!("{at}: @self outside setup")),
                    Some(class) => self.check_getter(class, property, at),
                },
                CallTarget::Expr(inner) => {
                    self.walk_checked(inner, at, this, factory);
                    let class = self.ref_class(inner);
                    self.check_getter(class, property, at);
                }
            },
            Expr::Callable { target, method } => {
                self.check_call(target, method, None, at, this, factory)
            }
            Expr::Set {
                target,
                property,
                value,
            } => {
                match target {
                    CallTarget::SelfObject if this.is_some() => {
                        self.check_property(this.flatten(), property, at)
                    }
                    _ => self.problems.push(format!(
                        "{at}: property write ${property} is only supported as a setup \
                         statement on @self"
                    )),
                }
                self.walk_checked(value, at, this, factory);
            }
        }
    }

    /// The target and method of a `$call` (`args`: its argument count) or a `$callable`
    /// (`None`): a registered static method, a method of `@self`'s class, or a method of the
    /// object another expression gives (a generated service's own methods included).
    fn check_call(
        &mut self,
        target: &'a CallTarget,
        method: &str,
        args: Option<usize>,
        at: &dyn Display,
        this: Option<Option<&'a str>>,
        factory: bool,
    ) {
        match target {
            CallTarget::Class(class) => self.check_static(class, method, at),
            CallTarget::SelfObject => match this {
                None => self.problems.push(format!("{at}: @self outside setup")),
                Some(class) => self.check_method(class, method, false, at),
            },
            CallTarget::Expr(inner) => {
                self.walk_checked(inner, at, this, factory);
                self.check_generated(inner, method, args, at);
                let class = self.ref_class(inner);
                self.check_method(class, method, false, at);
            }
        }
    }

    /// The registered class of a `$ref` target (not `@self`), when the plan says so statically.
    /// None for a generated service: the runtime answers its methods (`check_generated`).
    fn ref_class(&self, target: &Expr) -> Option<&'a str> {
        match target {
            Expr::Ref(s) if s != "@self" && self.generated(s).is_none() => self.static_class(s),
            _ => None,
        }
    }

    /// The plan of `name` (aliases followed) when it is a generated factory, accessor or
    /// locator.
    fn generated(&self, name: &str) -> Option<(&'a str, &'a ServicePlan)> {
        let plan = self.plan;
        let name = plan.aliases.get(name).map_or(name, |n| n.as_str());
        let (name, sp) = plan.services.get_key_value(name)?;
        matches!(
            sp.kind,
            ServiceKind::Factory | ServiceKind::Accessor | ServiceKind::Locator
        )
        .then_some((name.as_str(), sp))
    }

    /// A `$call` (`args`: its argument count) or `$callable` (`None`) on a generated service:
    /// a method it does not have is a problem of the plan (the registry is not asked).
    fn check_generated(
        &mut self,
        target: &Expr,
        method: &str,
        args: Option<usize>,
        at: &dyn Display,
    ) {
        let Expr::Ref(r) = target else { return };
        if let Some((name, sp)) = self.generated(r) {
            if let Some(p) = crate::generated::member_problem(name, sp, method, args) {
                self.problems.push(format!("{at}: {p}"));
            }
        }
    }

    fn check_static(&mut self, class: &'a str, method: &str, at: &dyn Display) {
        match self.use_class(class) {
            None => self.miss(Missing::Class {
                class: class.to_string(),
                needed_by: at.to_string(),
            }),
            Some((_, c)) if !c.more().statics.contains_key(method) => {
                self.miss(Missing::StaticMethod {
                    class: class.to_string(),
                    method: method.to_string(),
                    needed_by: at.to_string(),
                })
            }
            Some(_) => {}
        }
    }

    fn check_getter(&mut self, class: Option<&str>, property: &str, at: &dyn Display) {
        self.check_accessor(class, property, at, true);
    }

    fn check_property(&mut self, class: Option<&str>, property: &str, at: &dyn Display) {
        self.check_accessor(class, property, at, false);
    }

    /// A property reader (`getter`) or writer the plan uses on a registered class.
    fn check_accessor(
        &mut self,
        class: Option<&str>,
        property: &str,
        at: &dyn Display,
        read: bool,
    ) {
        let Some(class) = class.filter(|c| self.registry.has_class(c)) else {
            return;
        };
        let found = self.members(class).is_some_and(|t| {
            if read {
                t.getters.contains_key(property)
            } else {
                t.properties.contains_key(property)
            }
        });
        if found {
            return;
        }
        let (class, property, needed_by) =
            (class.to_string(), property.to_string(), at.to_string());
        self.miss(if read {
            Missing::Getter {
                class,
                property,
                needed_by,
            }
        } else {
            Missing::Property {
                class,
                property,
                needed_by,
            }
        });
    }

    fn members(&self, class: &str) -> Option<&'a crate::registry::TypeEntry> {
        let c = self.registry.t.classes.get(class)?;
        self.registry.type_entry(c.type_id)
    }

    fn check_method(
        &mut self,
        class: Option<&str>,
        method: &str,
        allow_mut: bool,
        at: &dyn Display,
    ) {
        let Some(class) = class.filter(|c| self.registry.has_class(c)) else {
            return; // unknown class: reported where it is created, or checked at run time
        };
        let ok = self.members(class).is_some_and(|t| {
            t.methods.contains_key(method) || (allow_mut && t.methods_mut.contains_key(method))
        }) || self.is_static(class, method);
        if ok {
            return;
        }
        if self
            .members(class)
            .is_some_and(|t| t.methods_mut.contains_key(method))
        {
            // Registered, but for setups on `@self` only: a plan problem, not a gap.
            self.problems.push(format!(
                "{at}: {class}::{method}() is registered with method_mut (needs &mut), which only \
                 setup calls on @self can use; register it with method() (&self) to call it here"
            ));
            return;
        }
        self.miss(Missing::Method {
            class: class.to_string(),
            method: method.to_string(),
            needed_by: at.to_string(),
        });
    }

    /// A static method may be called on an instance, as in PHP (the runtime falls back to it).
    fn is_static(&self, class: &str, method: &str) -> bool {
        self.registry
            .t
            .classes
            .get(class)
            .is_some_and(|c| c.more().statics.contains_key(method))
    }

    /// Every registered interface the plan autowires this service (index `i`) as, or declares
    /// as its type, needs a caster from its class. Type names the registry does not know as
    /// interfaces are not checked: Rust code cannot ask for them. One class lookup per
    /// service, one interface lookup per autowired type.
    fn check_casts(
        &mut self,
        i: usize,
        name: &str,
        sp: &ServicePlan,
        class: &str,
        entry: &ClassEntry,
    ) {
        let registry = self.registry;
        let (from, to) = (
            self.autowired_at[i] as usize,
            self.autowired_at[i + 1] as usize,
        );
        let list = std::mem::take(&mut self.autowired_for);
        let autowired = &list[from..to];
        let declared = (!autowired.contains(&sp.type_.as_str())).then_some(sp.type_.as_str());
        for iface in autowired.iter().copied().chain(declared) {
            if iface == class {
                continue;
            }
            let Some((iface_id, _)) = registry.t.interfaces.get(iface) else {
                continue;
            };
            if !registry.t.casters.contains_key(&(entry.type_id, *iface_id)) {
                self.miss(Missing::Cast {
                    class: class.to_string(),
                    interface: iface.to_string(),
                    needed_by: format!("service '{name}'"),
                });
            }
        }
        self.autowired_for = list;
    }

    /// The tag index with plain values; anything else is a problem.
    pub(crate) fn tag_values(&mut self) -> IndexMap<String, Vec<(String, Value)>> {
        let plan = self.plan;
        let mut out = IndexMap::new();
        for (tag, entries) in &plan.tags {
            let mut list = Vec::new();
            for (service, e) in entries {
                if !plan.services.contains_key(service.as_str()) {
                    self.problems
                        .push(format!("tag '{tag}' lists unknown service '{service}'"));
                    continue;
                }
                if self.too_deep(e, &format_args!("tag '{tag}' of service '{service}'")) {
                    continue;
                }
                match e.plain_value() {
                    Some(v) => list.push((service.clone(), v)),
                    None => self.problems.push(format!(
                        "tag '{tag}' of service '{service}': the value must be plain data"
                    )),
                }
            }
            out.insert(tag.clone(), list);
        }
        out
    }
}
