//! `wireplan explain CONFIG SERVICE` and the REPL's `:explain`: where a service came from, how
//! its type was decided, where every argument's value came from, and why its lifespan is
//! allowed. The arguments come from what `complete` recorded
//! ([`Completed::calls`](crate::builder::Completed::calls)), not from a second derivation.

use super::graph::{kind_name, unknown_service};
use super::text;
use super::types::{type_candidates, Candidate, CandidateStatus};
use super::values::{
    collector_written_at, parameters_written_at, reads_dynamic, ActorInfo, Location,
};
use crate::builder::{
    ArgumentSource, Autowired, CaptivePath, ContainerBuilder, Definition, DefinitionKind, Phase,
};
use crate::diagnostics::Diagnostic;
use crate::expr::Callee;
use crate::source::SourceMap;
use indexmap::IndexMap;
use serde::Serialize;
use std::fmt;
use wireplan_runtime::plan::Lifespan;

/// Where a definition came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServiceOrigin {
    /// The extension (or built-in step: `search`) that added it; `None` when the
    /// configuration's `services:` section did (or code outside any extension).
    pub by: Option<ActorInfo>,
    /// The NEON entry, or the script line of the `addDefinition` call.
    pub location: Option<Location>,
}

/// How the service's type was decided (Nette's resolution order: generated services by their
/// interface, then `type:`, then the creator).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum TypeDecision {
    /// The declared `type:`.
    Declared {
        /// The declared type.
        declared: String,
    },
    /// The class the creator constructs.
    Creator {
        /// The class.
        class: String,
    },
    /// The declared return type of the creator's method (`Class::create()`, `@svc::get()`).
    MethodReturn {
        /// The method as written.
        method: String,
    },
    /// The creator is another service (`@name`): its type.
    Service {
        /// The referenced service.
        service: String,
    },
    /// A generated service (factory, accessor, locator) has the interface it implements.
    Implement {
        /// The interface.
        interface: String,
        /// Factories: the class `create()` returns.
        result: Option<String>,
    },
    /// Not resolved (the errors say why).
    Unresolved,
}

/// One argument and where its value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgumentExplanation {
    /// The parameter's name (without `$`).
    pub parameter: String,
    /// The parameter's declared type.
    pub declared: String,
    /// The value as the plan holds it, as text (`@name` for a service, `%name%` for a dynamic
    /// parameter: a dynamic parameter's value is never shown).
    pub value: String,
    /// Where it came from.
    #[serde(flatten)]
    pub source: ValueSource,
}

/// Where an argument's value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
pub enum ValueSource {
    /// Written in the configuration or a script.
    Written {
        /// Where it is written.
        location: Option<Location>,
        /// Static parameters (`%name%`) the written text used.
        parameters: Vec<String>,
        /// Dynamic parameters the value reads at start-up.
        dynamic: Vec<String>,
        /// The collecting call the list was written as (`tagged(mail.filter)`,
        /// `typed(App\Filter)`), if it was one.
        #[serde(skip_serializing_if = "Option::is_none")]
        collects: Option<String>,
    },
    /// Autowired by type.
    Autowired {
        /// The parameter's class.
        #[serde(rename = "type")]
        type_: String,
        /// The chosen service.
        service: String,
        /// Every service of that type that was considered, and why it is or is not the one.
        candidates: Vec<Candidate>,
    },
    /// A `T[]` collection.
    Collection {
        /// The item type.
        #[serde(rename = "type")]
        type_: String,
        /// The collected services, in definition order.
        services: Vec<String>,
    },
    /// The declared default.
    Default {
        /// The class autowiring looked for first (no autowired service of it exists).
        tried: Option<String>,
    },
    /// A factory's `create()` parameter, passed through.
    FactoryParameter,
    /// Could not be filled: an error was reported.
    Unfilled {
        /// The class autowiring looked for, if the parameter has one.
        tried: Option<String>,
        /// The services of that class, and why none of them could be chosen.
        candidates: Vec<Candidate>,
    },
}

/// One call of the service (its constructor, a setup call, a nested statement).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallExplanation {
    /// The function (`App\Mailer::__construct()`).
    pub function: String,
    /// Part of the setup?
    pub setup: bool,
    /// Its arguments, in signature order.
    pub arguments: Vec<ArgumentExplanation>,
}

/// The lifespan and why it is allowed (Clean IoC 2's captive-dependency rule, checked by
/// `complete`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LifespanExplanation {
    /// `singleton`, `scoped` or `transient`.
    pub lifespan: &'static str,
    /// Does it pass the captive-dependency rule? (`None` before `complete`.)
    pub allowed: Option<bool>,
    /// Why.
    pub reason: String,
    /// The captive paths (`name -> … -> scoped`) when not allowed.
    pub captive_paths: Vec<Vec<String>>,
}

/// Why a service's creation needs async (Clean IoC 2's compiled per-node flag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AsyncExplanation {
    /// The services from this one down to the one that calls the async constructor (this one
    /// first).
    pub path: Vec<String>,
    /// The class whose constructor is async (`async: true` in the catalog).
    pub class: String,
}

/// Everything `explain` says about one service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServiceExplanation {
    /// The service's name (an alias asked for is followed).
    pub service: String,
    /// The alias that was asked for, if any.
    pub alias: Option<String>,
    /// `service`, `factory`, `accessor`, `locator` or `imported`.
    pub kind: &'static str,
    /// Where it came from.
    pub origin: ServiceOrigin,
    /// The resolved type.
    #[serde(rename = "type")]
    pub type_: Option<String>,
    /// How the type was decided.
    pub type_decision: TypeDecision,
    /// `autowired:` as configured: `true`, `false`, or the types.
    pub autowired: serde_json::Value,
    /// The lifespan and why it is allowed.
    pub lifespan: LifespanExplanation,
    /// Why its creation needs async (the plan marks it `requires_async`: a sync `get` of it is
    /// an `AsyncRequired` error, `get_async` creates it), when it does; `None` otherwise and
    /// before `complete`.
    pub requires_async: Option<AsyncExplanation>,
    /// For a generated factory: why its product needs async (its `create()` is
    /// `AsyncRequired`, `create_async` makes it), when it does; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product_requires_async: Option<AsyncExplanation>,
    /// Tag names.
    pub tags: Vec<String>,
    /// Every call with its arguments (empty before `complete`).
    pub calls: Vec<CallExplanation>,
    /// Accessors: `get` → the service `get()` returns; locators: each name → the service
    /// `get(name)` returns (empty for other kinds, and before `complete`).
    pub returns: IndexMap<String, String>,
    /// Have the statements been completed (phase B)? Before, arguments are not known.
    pub completed: bool,
    /// Extensions (or built-in steps) that changed it after it was added.
    pub changed_by: Vec<ActorInfo>,
}

/// Explains the service `name` (an alias is followed) from the builder's current state.
/// Arguments are known once the builder is completed (phase B); in phase A the answer has the
/// origin, the type as far as it resolves, and the lifespan.
///
/// Errors: `missing-service` with a "did you mean", and a note naming who removed it when an
/// extension or the configuration did.
pub fn explain_service(
    b: &mut ContainerBuilder,
    sources: &SourceMap,
    name: &str,
) -> Result<ServiceExplanation, Diagnostic> {
    if b.phase() != Phase::Completed {
        b.refresh();
    }
    let Some(def) = b.get_definition(name).cloned() else {
        let names: Vec<String> = b.definitions().map(|d| d.name.clone()).collect();
        let mut d = unknown_service(name, names.iter().map(String::as_str));
        if let Some(r) = b.removed().get(name) {
            let by = match &r.actor {
                Some(a) => format!("{} removed it", ActorInfo::from(a)),
                None => "the configuration removed it".to_string(),
            };
            let at = Location::of_opt(sources, r.span)
                .map(|l| format!(" at {l}"))
                .unwrap_or_default();
            d = d.with_note(format!("{by}{at}"));
        }
        return Err(d);
    };
    let calls = match &def.completed {
        Some(c) => c
            .calls()
            .iter()
            .map(|call| CallExplanation {
                function: call.function.clone(),
                setup: call.in_setup,
                arguments: call
                    .arguments
                    .iter()
                    .map(|a| ArgumentExplanation {
                        parameter: a.parameter.clone(),
                        declared: a.declared.clone(),
                        value: text::short(&a.value),
                        // In the constructor, the service itself is no candidate.
                        source: value_source(
                            b,
                            sources,
                            &a.source,
                            &a.value,
                            (!call.in_setup).then_some(&def),
                            call.at,
                        ),
                    })
                    .collect(),
            })
            .collect(),
        None => Vec::new(),
    };
    let returns = match (&def.completed, def.kind) {
        (Some(c), DefinitionKind::Accessor) => {
            IndexMap::from([("get".to_string(), text::short(&c.create))])
        }
        (Some(c), DefinitionKind::Locator) => c
            .references()
            .iter()
            .map(|(k, v)| (k.clone(), text::short(v)))
            .collect(),
        _ => IndexMap::new(),
    };
    let origin = ServiceOrigin {
        by: def.extras().origin.as_ref().map(ActorInfo::from),
        location: Location::of_opt(sources, def.span),
    };
    Ok(ServiceExplanation {
        alias: (def.name != name).then(|| name.to_string()),
        kind: kind_name(def.kind.plan_kind()),
        origin,
        type_: def.resolved_type.clone(),
        type_decision: type_decision(&def),
        autowired: match &def.autowired {
            Autowired::All(x) => serde_json::Value::Bool(*x),
            Autowired::Types(ts) => ts
                .iter()
                .map(|t| serde_json::Value::from(t.as_str()))
                .collect(),
        },
        lifespan: lifespan(b, &def),
        requires_async: def
            .completed
            .as_ref()
            .and_then(|_| b.async_path(&def.name))
            .map(|(path, class)| AsyncExplanation { path, class }),
        product_requires_async: def
            .completed
            .as_ref()
            .and_then(|_| b.product_async_path(&def.name))
            .map(|(path, class)| AsyncExplanation { path, class }),
        tags: def.tags.keys().cloned().collect(),
        completed: def.completed.is_some(),
        calls,
        returns,
        changed_by: def
            .extras()
            .modified_by
            .iter()
            .map(ActorInfo::from)
            .collect(),
        service: def.name,
    })
}

/// Where an argument's value came from. `creator`: the definition whose constructor takes it,
/// for an argument of its creator: the service is not a candidate for its own constructor's
/// parameters, and where an extension script set the creator is the place of its values that
/// have none of their own. `call`: where the call is written, the place of such values in a
/// setup (a script's `addSetup()` call).
fn value_source(
    b: &mut ContainerBuilder,
    sources: &SourceMap,
    source: &ArgumentSource,
    value: &wireplan_runtime::plan::Expr,
    creator: Option<&Definition>,
    call: Option<crate::source::Span>,
) -> ValueSource {
    match source {
        ArgumentSource::Written { span } => {
            let dynamic = reads_dynamic(value);
            let parameters = parameters_written_at(sources, *span)
                .into_iter()
                .filter(|p| !dynamic.contains(p))
                .collect();
            ValueSource::Written {
                location: Location::of_opt(
                    sources,
                    span.or(creator.and_then(|d| d.extras().creator_at))
                        .or(call.filter(|_| creator.is_none())),
                ),
                parameters,
                dynamic,
                collects: collector_written_at(sources, *span),
            }
        }
        ArgumentSource::Autowired { ty, service } => ValueSource::Autowired {
            candidates: type_candidates(b, ty)
                .map(|t| t.candidates)
                .unwrap_or_default(),
            type_: ty.clone(),
            service: service.clone(),
        },
        ArgumentSource::Collection { ty, services } => ValueSource::Collection {
            type_: ty.clone(),
            services: services.clone(),
        },
        ArgumentSource::Default { tried } => ValueSource::Default {
            tried: tried.clone(),
        },
        ArgumentSource::FactoryParameter => ValueSource::FactoryParameter,
        ArgumentSource::Unfilled { tried } => ValueSource::Unfilled {
            candidates: tried
                .as_deref()
                .and_then(|t| type_candidates(b, t).ok())
                .map(|t| t.candidates)
                .unwrap_or_default()
                .into_iter()
                .map(|mut c| {
                    if creator.is_some_and(|d| d.name == c.service) {
                        c.status = CandidateStatus::Itself;
                    }
                    c
                })
                .collect(),
            tried: tried.clone(),
        },
    }
}

fn type_decision(def: &Definition) -> TypeDecision {
    let Some(resolved) = def.resolved_type.clone() else {
        return TypeDecision::Unresolved;
    };
    if matches!(
        def.kind,
        DefinitionKind::Factory | DefinitionKind::Accessor | DefinitionKind::Locator
    ) {
        return TypeDecision::Implement {
            interface: resolved,
            result: def.extras().result_type.clone(),
        };
    }
    if let Some(t) = &def.declared_type {
        return TypeDecision::Declared {
            declared: t.clone(),
        };
    }
    match def.creator.as_ref().map(|c| &c.callee) {
        Some(Callee::Name(n)) => match n.strip_prefix('@') {
            Some(svc) if svc.contains("::") => TypeDecision::MethodReturn { method: n.clone() },
            Some(svc) => TypeDecision::Service {
                service: svc.to_string(),
            },
            None if n.contains("::") => TypeDecision::MethodReturn { method: n.clone() },
            None => TypeDecision::Creator { class: resolved },
        },
        Some(Callee::Member(_, m)) => TypeDecision::MethodReturn {
            method: format!("…::{m}()"),
        },
        None => TypeDecision::Creator { class: resolved },
    }
}

fn lifespan(b: &ContainerBuilder, def: &Definition) -> LifespanExplanation {
    let name = def.lifespan.as_str();
    let explain = |allowed: Option<bool>, reason: &str| LifespanExplanation {
        lifespan: name,
        allowed,
        reason: reason.to_string(),
        captive_paths: Vec::new(),
    };
    if def.kind == DefinitionKind::Slot {
        return explain(
            Some(def.lifespan == Lifespan::Scoped),
            "a scope slot is scoped: the application provides its value in each scope (scope.provide), and singletons may not hold it",
        );
    }
    if def.kind != DefinitionKind::Service {
        return explain(
            Some(true),
            "generated and imported services hold nothing when created (they resolve lazily), so any lifespan is allowed; a singleton that holds a generated one is checked through it (its handle has no scope)",
        );
    }
    if def.completed.is_none() {
        return explain(
            None,
            "checked when the statements are completed (end of phase B)",
        );
    }
    match def.lifespan {
        Lifespan::Singleton => {
            let paths = b.captive_paths(&def.name);
            if paths.is_empty() {
                explain(
                    Some(true),
                    "it holds no scoped service, directly, through transients or through handles",
                )
            } else {
                // A path through a handle fails at run time rather than keeping a scoped
                // service.
                let reason = if paths.iter().any(|p| p.through_handle(b)) {
                    "captive-dependency: a singleton's handles have no scope, so one would fail \
                     (ScopeRequired) to reach a scoped service"
                } else {
                    "captive-dependency: a singleton would keep one scoped service for every scope"
                };
                LifespanExplanation {
                    captive_paths: paths.iter().map(CaptivePath::words).collect(),
                    ..explain(Some(false), reason)
                }
            }
        }
        Lifespan::Scoped => explain(
            Some(true),
            "a scoped service may hold singletons, transients and services of its own scope",
        ),
        Lifespan::Transient => explain(
            Some(true),
            "a transient lives as long as whoever holds it; the singletons that hold it are checked through it",
        ),
    }
}

impl fmt::Display for TypeDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeDecision::Declared { declared } => write!(f, "declared (type: {declared})"),
            TypeDecision::Creator { class } => write!(f, "the creator's class ({class})"),
            TypeDecision::MethodReturn { method } => {
                write!(f, "the return type of the creator {method}")
            }
            TypeDecision::Service { service } => {
                write!(f, "the type of service @{service}, its creator")
            }
            TypeDecision::Implement { interface, result } => {
                write!(f, "the interface it implements (implement: {interface})")?;
                match result {
                    Some(r) => write!(f, "; create() returns {r}"),
                    None => Ok(()),
                }
            }
            TypeDecision::Unresolved => write!(f, "not resolved (see the errors)"),
        }
    }
}

fn candidates_text(service: &str, candidates: &[Candidate]) -> Option<String> {
    let others: Vec<String> = candidates
        .iter()
        .filter(|c| c.service != service)
        .map(|c| format!("{} ({})", c.service, c.status))
        .collect();
    (!others.is_empty()).then(|| format!("also of this type:\n  {}", others.join("\n  ")))
}

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueSource::Written {
                location,
                parameters,
                dynamic,
                collects,
            } => {
                match (location, collects) {
                    (Some(l), Some(call)) => write!(
                        f,
                        "collected by {call}, written at {l} (the services it finds, in \
                         definition order)"
                    )?,
                    (Some(l), None) => write!(f, "written at {l}")?,
                    (None, _) => write!(f, "written by a script (no source location)")?,
                }
                if !parameters.is_empty() {
                    let ps: Vec<String> = parameters.iter().map(|p| format!("%{p}%")).collect();
                    write!(f, ", from parameter {}", ps.join(", "))?;
                }
                if !dynamic.is_empty() {
                    let ps: Vec<String> = dynamic.iter().map(|p| format!("%{p}%")).collect();
                    write!(
                        f,
                        ", dynamic parameter {} (read at start-up; its value is not shown)",
                        ps.join(", ")
                    )?;
                }
                Ok(())
            }
            ValueSource::Autowired {
                type_,
                service,
                candidates,
            } => {
                let why = candidates
                    .iter()
                    .find(|c| c.service == *service)
                    .map(|c| c.status.to_string())
                    .unwrap_or_else(|| CandidateStatus::Chosen.to_string());
                write!(f, "autowired: getByType({type_}) → {service}; {why}")?;
                if let Some(others) = candidates_text(service, candidates) {
                    write!(f, "\n{others}")?;
                }
                Ok(())
            }
            ValueSource::Collection { type_, services } => write!(
                f,
                "collection: every autowired {type_} ({}), in definition order",
                services.len()
            ),
            ValueSource::Default { tried: Some(t) } => write!(
                f,
                "default: nothing written, and no autowired service of {t}"
            ),
            ValueSource::Default { tried: None } => write!(f, "default: nothing written"),
            ValueSource::FactoryParameter => {
                write!(f, "factory parameter: passed to create() by the caller")
            }
            ValueSource::Unfilled { tried: None, .. } => {
                write!(f, "not filled (an error was reported)")
            }
            ValueSource::Unfilled {
                tried: Some(t),
                candidates,
            } => {
                write!(
                    f,
                    "not filled (an error was reported): getByType({t}) found no single service"
                )?;
                if !candidates.is_empty() {
                    let list: Vec<String> = candidates
                        .iter()
                        .map(|c| format!("{} ({})", c.service, c.status))
                        .collect();
                    write!(f, "\ncandidates:\n  {}", list.join("\n  "))?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for ServiceExplanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "service {}", self.service)?;
        if let Some(a) = &self.alias {
            write!(f, " (asked as alias {a})")?;
        }
        if self.kind != "service" {
            write!(f, " [{}]", self.kind)?;
        }
        writeln!(f)?;
        let o = &self.origin;
        let at = o
            .location
            .as_ref()
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        match &o.by {
            Some(by) => writeln!(f, "  defined    by {by}{at}")?,
            _ if o
                .location
                .as_ref()
                .is_some_and(|l| l.file == crate::source::SESSION_SOURCE) =>
            {
                writeln!(f, "  defined    at the REPL's prompt{at}")?
            }
            _ if o.location.is_some() => writeln!(f, "  defined    in the configuration{at}")?,
            _ => writeln!(f, "  defined    outside any file (the REPL or a built-in)")?,
        }
        match &self.type_ {
            Some(t) => writeln!(f, "  type       {t}: {}", self.type_decision)?,
            None => writeln!(f, "  type       unknown: {}", self.type_decision)?,
        }
        let autowired = match &self.autowired {
            serde_json::Value::Bool(true) => "yes".to_string(),
            serde_json::Value::Bool(false) => "no (autowired: false)".to_string(),
            other => format!("only for {other}"),
        };
        writeln!(f, "  autowired  {autowired}")?;
        let l = &self.lifespan;
        let verdict = match l.allowed {
            Some(true) => "allowed: ",
            Some(false) => "NOT allowed: ",
            None => "",
        };
        writeln!(f, "  lifespan   {}, {verdict}{}", l.lifespan, l.reason)?;
        for p in &l.captive_paths {
            writeln!(f, "             path {}", p.join(" -> "))?;
        }
        if let Some(a) = &self.requires_async {
            writeln!(
                f,
                "  async      required: creating it reaches the async constructor of {}, so get it \
                 with get_async() (a sync get is AsyncRequired)",
                a.class
            )?;
            if a.path.len() > 1 {
                writeln!(f, "             path {}", a.path.join(" -> "))?;
            }
        }
        if let Some(a) = &self.product_requires_async {
            writeln!(
                f,
                "  async      its product needs async: creating it reaches the async constructor \
                 of {}, so make it with create_async() (create() is AsyncRequired)",
                a.class
            )?;
            if a.path.len() > 1 {
                writeln!(f, "             path {}", a.path.join(" -> "))?;
            }
        }
        if !self.tags.is_empty() {
            writeln!(f, "  tags       {}", self.tags.join(", "))?;
        }
        for by in &self.changed_by {
            writeln!(f, "  changed    by {by}")?;
        }
        for (key, service) in &self.returns {
            match self.kind {
                "accessor" => writeln!(f, "  returns    get() → {service}")?,
                _ => writeln!(f, "  returns    get('{key}') → {service}")?,
            }
        }
        if !self.completed && self.type_.is_none() {
            writeln!(
                f,
                "arguments: not known (the type is not resolved, so its statements cannot be \
                 completed: see the errors)"
            )?;
        } else if !self.completed {
            writeln!(
                f,
                "arguments: not known yet (completed at the end of phase B)"
            )?;
        }
        for call in &self.calls {
            let what = if call.setup { "setup" } else { "create" };
            if call.arguments.is_empty() {
                writeln!(f, "{what} {} (no arguments)", call.function)?;
                continue;
            }
            writeln!(f, "{what} {}", call.function)?;
            let w = call
                .arguments
                .iter()
                .map(|a| a.parameter.len() + 1)
                .max()
                .unwrap_or(0);
            for a in &call.arguments {
                let head = format!("${}", a.parameter);
                writeln!(f, "  {head:w$}  {} = {}", a.declared, a.value)?;
                for line in a.source.to_string().lines() {
                    writeln!(f, "  {:w$}  {line}", "")?;
                }
            }
        }
        Ok(())
    }
}
