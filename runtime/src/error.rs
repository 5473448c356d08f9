//! The runtime's error type.

use std::fmt;

use crate::value::BoxError;

/// Everything that can go wrong while loading a plan or getting a service.
///
/// Nothing in this crate panics on bad input: a malformed plan, a registry that lacks
/// something, a failing constructor or a cycle all come back as one of these.
///
/// `Debug` prints the same readable text as `Display` (what `main() -> Result<(), Error>`
/// shows when `?` returns an error), not a struct dump.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The plan file could not be read.
    #[error("{origin}: cannot read plan: {cause}")]
    Io {
        /// The file.
        origin: String,
        /// The I/O error.
        #[source]
        cause: std::io::Error,
    },

    /// A file could not be written: a plan ([`crate::plan::Plan::write`]), a catalog
    /// ([`crate::catalog::write_catalog`]) or the folder for one.
    #[error("{origin}: cannot write the {what}: {cause}")]
    Write {
        /// The file or folder.
        origin: String,
        /// What was being written: `plan`, `catalog`, `plan's folder`.
        what: &'static str,
        /// The I/O error.
        #[source]
        cause: std::io::Error,
    },

    /// The plan is malformed or inconsistent (not JSON, not a wireplan plan, a `$ref` to a
    /// service that does not exist, ...). `reason` lists every problem found, one per line.
    #[error("{origin}: invalid plan: {reason}")]
    BadPlan {
        /// The file, or `<string>` / `<plan>` when not loaded from a file.
        origin: String,
        /// What is wrong.
        reason: String,
    },

    /// The plan was written for another plan version than this runtime reads: a newer one
    /// ("made by a newer version of wireplan") or one older than
    /// [`crate::plan::OLDEST_VERSION`].
    #[error("{}", version_message(origin, *found, *expected))]
    VersionMismatch {
        /// The file.
        origin: String,
        /// The plan's `version`.
        found: u64,
        /// [`crate::plan::VERSION`], the newest version this runtime reads.
        expected: u32,
    },

    /// The registry lacks classes, constructors, methods, properties, static methods or
    /// casts the plan needs. All gaps are listed at once, before any service is created.
    ///
    /// The message ends with how to bring plan and registry together again: regenerate the
    /// catalog from the registry and recompile the plan (docs/catalog.md).
    #[error(
        "{origin}: the registry lacks {} thing(s) the plan needs:{}\n{}",
        missing.len(),
        MissingList(missing),
        REGENERATE_HINT
    )]
    MissingRegistrations {
        /// The file.
        origin: String,
        /// Every gap, in plan order (the message writes out the first 50 and counts the rest).
        missing: Vec<Missing>,
    },

    /// The plan was compiled for another application: the registry has classes, but none of
    /// the classes the plan uses. Reported instead of [`Error::MissingRegistrations`] then.
    #[error(
        "{origin}: this plan was compiled for another registry: none of the {used} class(es) it \
         uses is registered (the registry has {registered}); the registry lacks:{}",
        MissingList(missing)
    )]
    ForeignPlan {
        /// The file.
        origin: String,
        /// How many distinct classes the plan uses.
        used: usize,
        /// How many classes the registry has.
        registered: usize,
        /// Every gap, in plan order (the message writes out the first 50 and counts the rest).
        missing: Vec<Missing>,
    },

    /// Dynamic parameters the plan declares (its `dynamic` section) are missing or cannot be
    /// converted to their declared types. Found at load, all at once, before any service is
    /// created; each problem names the parameter, the value (unless sensitive), the expected
    /// type and the services that read it.
    #[error(
        "{origin}: {} dynamic parameter(s) missing or invalid:{}",
        problems.len(),
        problems.iter().map(|p| format!("\n  - {p}")).collect::<String>()
    )]
    DynamicParameters {
        /// The file.
        origin: String,
        /// Every problem, in the order of the plan's `dynamic` section.
        problems: Vec<crate::dynamic::DynamicProblem>,
    },

    /// The imported services supplied with [`crate::ContainerBuilder::import`] do not match
    /// the plan's `imported` services.
    #[error(
        "{origin}: imported services do not match the plan: {}",
        imports_message(missing, unknown)
    )]
    Imports {
        /// The file.
        origin: String,
        /// Imported services of the plan that were not supplied.
        missing: Vec<String>,
        /// Supplied names that are not imported services of the plan.
        unknown: Vec<String>,
    },

    /// More than one kind of problem found at load, each an error of its own, in this order:
    /// the plan's own problems ([`Error::BadPlan`]), the registry's gaps
    /// ([`Error::MissingRegistrations`] or [`Error::ForeignPlan`]), the imported services
    /// ([`Error::Imports`]) and the dynamic parameters ([`Error::DynamicParameters`]). A load
    /// that finds one kind only reports that error itself. [`Error::each`] gives the list
    /// either way.
    #[error(
        "{origin}: the plan cannot be loaded, for {} independent reasons:{}",
        errors.len(),
        numbered(errors)
    )]
    Several {
        /// The file.
        origin: String,
        /// Each kind of problem, as the error a load that found only it would return.
        errors: Vec<Error>,
    },

    /// No service (or alias) of this name. Asked for by the caller (`get`, `get_instance`),
    /// the error carries a hint: the closest service name ("did you mean 'db'?") or, for a
    /// class name, that `get_by_type_name` asks by type.
    #[error("service '{name}' not found{}", hint.as_deref().map(|h| format!("; {h}")).unwrap_or_default())]
    UnknownService {
        /// The requested name.
        name: String,
        /// What the caller may have meant, when something is close.
        hint: Option<String>,
    },

    /// The Rust type asked for in `get_by_type::<T>()` or given to `provide::<T>()` has no
    /// catalog name in the registry.
    #[error(
        "type {rust_type} has no catalog name: register it with Registry::class or \
         ClassBuilder::implements{}",
        by_name.map(|call| format!(", or use {call}")).unwrap_or_default()
    )]
    UnregisteredType {
        /// `std::any::type_name` of the requested type.
        rust_type: &'static str,
        /// The call that names the service or slot instead of the type, when the caller has
        /// one: `get_by_type_name` for a `get_by_type`, `Scope::provide_named` for a
        /// `provide`.
        by_name: Option<&'static str>,
    },

    /// The plan's autowiring index has no service for this type. Services of the type that
    /// are not autowired (`autowired: false`, or autowired for other types only) are named, so
    /// the message says why they were not taken.
    #[error(
        "no service of type {type_name}{}",
        if not_autowired.is_empty() {
            String::new()
        } else {
            format!(
                " is autowired; not autowired for it: {} (get it by name, or make it autowired)",
                not_autowired.join(", ")
            )
        }
    )]
    NoServiceOfType {
        /// The catalog type name.
        type_name: String,
        /// Services of that type that are not autowired for it, in plan order.
        not_autowired: Vec<String>,
    },

    /// The plan's autowiring index has several services for this type.
    #[error("multiple services of type {type_name} found: {}", services.join(", "))]
    AmbiguousType {
        /// The catalog type name.
        type_name: String,
        /// The candidates.
        services: Vec<String>,
    },

    /// The service exists but is not of the requested Rust type (and its class registered no
    /// caster to it).
    #[error(
        "service '{service}' is {class} (Rust type {rust_type}), not the requested {requested}"
    )]
    WrongType {
        /// The service.
        service: String,
        /// Its catalog type from the plan.
        class: String,
        /// Its concrete Rust type.
        rust_type: &'static str,
        /// The requested Rust type.
        requested: &'static str,
    },

    /// The new object a generated factory creates is not of the Rust type asked for in
    /// `Factory::create::<T>()` (and its class registered no caster to it); for a registered
    /// product class this is known, and reported, before the object is made.
    #[error(
        "the object factory '{factory}' creates is {class} (Rust type {rust_type}), not the \
         requested {requested}"
    )]
    WrongProductType {
        /// The generated factory.
        factory: String,
        /// The product's catalog class (the class its `create` constructs, or what the
        /// factory's interface says `create()` returns).
        class: String,
        /// The product's concrete Rust type.
        rust_type: &'static str,
        /// The requested Rust type.
        requested: &'static str,
    },

    /// A service depends on itself.
    #[error("circular reference: {}", path.join(" -> "))]
    CircularReference {
        /// The names from the first occurrence to the repeated one, e.g. `[a, b, a]`.
        path: Vec<String>,
    },

    /// Creating a service failed: a constructor, setup method, static factory or property
    /// writer returned an error, or an expression could not be evaluated. For a generated
    /// factory's new object (`factory_product`) the message says that the factory's
    /// `create()` failed, not the factory itself.
    #[error(
        "{} ({}path: {}): {step}: {cause}",
        Subject(service, *factory_product),
        defined_at.as_ref().map(|d| format!("defined at {d}; ")).unwrap_or_default(),
        path.join(" -> ")
    )]
    ConstructorFailed {
        /// The service being created, or the factory whose new object was being created.
        service: String,
        /// Whether a new object of the generated factory `service` was being created (its
        /// `create()`, from Rust or from the plan), rather than the service itself.
        factory_product: bool,
        /// Where the plan says the service was defined (`file:line:column`), if it says.
        defined_at: Option<String>,
        /// The dependency path from the requested service to this one.
        path: Vec<String>,
        /// What failed, e.g. `constructor of App\Db`, `setup #1: App\Mailer::setLogger()`.
        step: String,
        /// The underlying error (user errors, [`crate::ArgError`], ...).
        cause: BoxError,
    },

    /// Creating a service needed more nested creations than
    /// [`MAX_RESOLUTION_DEPTH`](crate::container::MAX_RESOLUTION_DEPTH): a dependency chain
    /// that long, or a recursion through generated factories that never ends.
    #[error(
        "dependency chain deeper than {limit} services (path: {})",
        PathAbbrev(path)
    )]
    TooDeep {
        /// The services under construction when the limit was reached, outermost first (a
        /// generated factory's `create()` starts a new path).
        path: Vec<String>,
        /// The limit.
        limit: usize,
    },

    /// No static or dynamic parameter of this name.
    #[error("parameter '{name}' not found")]
    UnknownParameter {
        /// The requested name.
        name: String,
    },

    /// A `scoped` service was requested outside a [`crate::Scope`]: from the container
    /// itself, or by a singleton (a captive dependency the compiler should have rejected).
    #[error(
        "scoped service '{}'{} needs a scope: get it from container.scope(), not from the \
         container or a singleton (path: {})",
        path.last().map(String::as_str).unwrap_or("?"),
        defined_at.as_ref().map(|d| format!(" (defined at {d})")).unwrap_or_default(),
        path.join(" -> ")
    )]
    ScopeRequired {
        /// The dependency path from the requested service to the scoped one (the last name).
        path: Vec<String>,
        /// Where the plan says the scoped service was defined (`file:line:column`), if it says.
        defined_at: Option<String>,
    },

    /// A sync `get` reached a service whose creation needs an async constructor (the plan
    /// marks it `requires_async`, Clean IoC 2's rule: sync resolution of an async path is an
    /// error). Create it with `get_async` / `get_by_type_async`; once created, a singleton (or
    /// a scoped service in its scope) is also returned by the sync `get`. A generated
    /// factory's product that needs one is made by
    /// [`Factory::create_async`](crate::Factory::create_async).
    #[error("{}", async_required_text(path, defined_at.as_deref(), *factory))]
    AsyncRequired {
        /// The dependency path from the requested service to the one whose constructor is
        /// async (the last name).
        path: Vec<String>,
        /// Where the plan says that last service was defined (`file:line:column`), if it says.
        defined_at: Option<String>,
        /// Whether the request was a generated factory's `create()` (the path starts at the
        /// factory): its product is made by `create_async`, not `get_async`.
        factory: bool,
    },

    /// A generated factory, accessor or locator was used after its container (or scope) was
    /// dropped.
    #[error("service '{service}': its container or scope was dropped")]
    ContainerDropped {
        /// The generated service.
        service: String,
    },

    /// A generated service was called with arguments it does not take or without one its
    /// `create()` needs (no default in the plan), or its target is not a service.
    #[error("service '{service}': {reason}")]
    BadArguments {
        /// The generated service.
        service: String,
        /// What was wrong.
        reason: String,
    },

    /// The plan uses something this runtime does not implement (kept for plans of newer
    /// compilers that add kinds; not produced by the current runtime).
    #[error("service '{service}': {what} is not supported by this runtime yet")]
    Unsupported {
        /// The service.
        service: String,
        /// The feature.
        what: String,
    },

    /// A service needs a scope slot that was not provided in its scope (or an ancestor scope)
    /// before it was resolved.
    #[error(
        "scope slot '{slot}' ({type_name}) was not provided: {}; call \
         scope.provide(...) for it before resolving",
        match path.len() {
            0 | 1 => "it was requested directly".to_string(),
            _ => format!("service '{}' needs it (path: {})", path[path.len() - 2], path.join(" -> ")),
        }
    )]
    SlotNotProvided {
        /// The slot's service name.
        slot: String,
        /// The slot's catalog type.
        type_name: String,
        /// The dependency path from the requested service to the slot (the last name).
        path: Vec<String>,
    },

    /// [`Scope::provide`](crate::Scope::provide) named a service or type that is not a scope
    /// slot of the plan (`slot: true`).
    #[error(
        "'{requested}' is not a scope slot of the plan (declared slots: {})",
        if declared.is_empty() { "none".to_string() } else { declared.join(", ") }
    )]
    UndeclaredSlot {
        /// The service name, catalog type or Rust type asked for.
        requested: String,
        /// The slots the plan declares, `name (type)`.
        declared: Vec<String>,
    },

    /// A scope slot could not be filled: it was already provided in this scope, or the scope
    /// already created scoped services (which may have read the slot's earlier state), or the
    /// value is not of the slot's type.
    #[error("scope slot '{slot}' cannot be provided: {reason}")]
    SlotProvision {
        /// The slot's service name.
        slot: String,
        /// Why.
        reason: String,
    },
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// One thing a plan needs that the registry does not provide.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Missing {
    /// A class that was never registered.
    Class {
        /// Catalog class name.
        class: String,
        /// Where the plan needs it, e.g. `service 'db' (create)`.
        needed_by: String,
    },
    /// A registered class without a constructor, used by `$new`.
    Constructor {
        /// Catalog class name.
        class: String,
        /// Where the plan needs it.
        needed_by: String,
    },
    /// A method (`method` or `method_mut`) used by a `$call`.
    Method {
        /// Catalog class name.
        class: String,
        /// Method name.
        method: String,
        /// Where the plan needs it.
        needed_by: String,
    },
    /// A static method used by `$call` on a class name.
    StaticMethod {
        /// Catalog class name.
        class: String,
        /// Method name.
        method: String,
        /// Where the plan needs it.
        needed_by: String,
    },
    /// A property writer used by `$set`.
    Property {
        /// Catalog class name.
        class: String,
        /// Property name.
        property: String,
        /// Where the plan needs it.
        needed_by: String,
    },
    /// A property reader used by `$get`.
    Getter {
        /// Catalog class name.
        class: String,
        /// Property name.
        property: String,
        /// Where the plan needs it.
        needed_by: String,
    },
    /// A catalog name the registry was given for two Rust types: the second registration
    /// replaced the first (`r.class::<A>("App\\B")` after `r.class::<B>("App\\B")`).
    /// Reported for every load, whether or not the plan uses the class.
    Reregistered {
        /// Catalog class name.
        class: String,
        /// The Rust type registered first.
        first: String,
        /// The Rust type registered second, which the name now means.
        second: String,
    },
    /// A caster: the plan autowires a service of this class as a registered interface, but
    /// the class did not register `implements` for it.
    Cast {
        /// Catalog class name.
        class: String,
        /// Catalog interface name.
        interface: String,
        /// Where the plan needs it.
        needed_by: String,
    },
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Missing::Class { class, needed_by } => {
                write!(f, "class {class} is not registered (needed by {needed_by})")
            }
            Missing::Constructor { class, needed_by } => {
                // A catalog lists a class registered without a constructor (`no_constructor`)
                // as one whose constructor takes nothing, so the compiler let `create` pass.
                write!(
                    f,
                    "class {class} has no constructor (needed by {needed_by}); if it is \
                     registered without one on purpose, make the service a scope slot \
                     (`slot: true`) or create it with a factory method"
                )
            }
            Missing::Method {
                class,
                method,
                needed_by,
            } => write!(
                f,
                "method {class}::{method}() is not registered (needed by {needed_by})"
            ),
            Missing::StaticMethod {
                class,
                method,
                needed_by,
            } => write!(
                f,
                "static method {class}::{method}() is not registered (needed by {needed_by})"
            ),
            Missing::Property {
                class,
                property,
                needed_by,
            } => write!(
                f,
                "property {class}::${property} has no writer (needed by {needed_by})"
            ),
            Missing::Getter {
                class,
                property,
                needed_by,
            } => write!(
                f,
                "property {class}::${property} has no getter (needed by {needed_by})"
            ),
            Missing::Reregistered {
                class,
                first,
                second,
            } => write!(
                f,
                "class {class} is registered for two Rust types, {first} and then {second} \
                 (the second replaced the first); register each type under its own name"
            ),
            Missing::Cast {
                class,
                interface,
                needed_by,
            } => write!(
                f,
                "class {class} does not register implements {interface} (needed by {needed_by})"
            ),
        }
    }
}

/// What [`Error::ConstructorFailed`] could not create.
struct Subject<'a>(&'a str, bool);

impl fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject(factory, true) => write!(f, "factory '{factory}' cannot create its product"),
            Subject(service, false) => write!(f, "cannot create service '{service}'"),
        }
    }
}

/// A long path shown by its ends: `a -> b -> c -> … (N more) … -> x -> y -> z`.
struct PathAbbrev<'a>(&'a [String]);

impl fmt::Display for PathAbbrev<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const ENDS: usize = 4;
        let p = self.0;
        if p.len() <= 3 * ENDS {
            return f.write_str(&p.join(" -> "));
        }
        write!(
            f,
            "{} -> … ({} more) … -> {}",
            p[..ENDS].join(" -> "),
            p.len() - 2 * ENDS,
            p[p.len() - ENDS..].join(" -> ")
        )
    }
}

/// How to bring a plan and its registry together again, at the end of the loader's
/// registration check.
const REGENERATE_HINT: &str = "register each of them (Registry::class, register!, \
#[wireplan_runtime::class]) under the name the plan uses; if the plan was compiled against another \
catalog than this registry's, regenerate the catalog (WIREPLAN_WRITE_CATALOG=catalog.json, or \
WIREPLAN_UPDATE_CATALOG=1 for the golden test) and recompile the plan with --catalog catalog.json";

/// The gaps as a list, one per line; past [`MISSING_SHOWN`] the rest are counted (the whole
/// list stays in the error's `missing` field): a plan of another application would otherwise
/// print one line per class it uses.
struct MissingList<'a>(&'a [Missing]);

/// How many gaps a [`MissingList`] writes out.
const MISSING_SHOWN: usize = 50;

impl fmt::Display for MissingList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in self.0.iter().take(MISSING_SHOWN) {
            write!(f, "\n  - {m}")?;
        }
        if self.0.len() > MISSING_SHOWN {
            write!(
                f,
                "\n  … and {} more (the error's `missing` field lists them all)",
                self.0.len() - MISSING_SHOWN
            )?;
        }
        Ok(())
    }
}

/// The problems of [`Error::Imports`], each with what to do about it.
fn imports_message(missing: &[String], unknown: &[String]) -> String {
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!(
            "not supplied: {} (supply each with Container::builder(&registry).import(name, \
             object) before loading, or remove `imported: true` from its configuration)",
            missing.join(", ")
        ));
    }
    if !unknown.is_empty() {
        parts.push(format!(
            "supplied but not imported by the plan: {} (drop those import() calls, or declare \
             the services `imported: true`)",
            unknown.join(", ")
        ));
    }
    parts.join("; ")
}

fn version_message(origin: &str, found: u64, newest: u32) -> String {
    let oldest = crate::plan::OLDEST_VERSION;
    if found > u64::from(newest) {
        format!(
            "{origin}: plan version {found} is not supported: the plan was made by a newer \
             version of wireplan; this runtime reads versions {oldest} to {newest} (update \
             wireplan-runtime, or recompile the plan with the wireplan that matches it)"
        )
    } else {
        format!(
            "{origin}: plan version {found} is not supported: this runtime reads versions \
             {oldest} to {newest} (recompile the plan with a matching wireplan)"
        )
    }
}

/// Every runtime error code ([`Error::code`]) with what it means, in the order of [`Error`]'s
/// variants (docs/errors.md, "Runtime errors", is generated from it).
pub const CODES: &[(&str, &str)] = &[
    ("plan-unreadable", "The plan file could not be read (missing, not a regular file, no permission)."),
    ("write-failed", "A plan or catalog file (or its folder) could not be written."),
    ("bad-plan", "The plan is malformed or inconsistent: not JSON or a binary plan, truncated or corrupt, references to services it does not define, expressions too deep. Every problem is listed."),
    ("version-mismatch", "The plan was written for a plan version this runtime does not read."),
    ("missing-registrations", "The registry lacks classes, constructors, methods, properties, static methods or casts the plan needs. Every gap is listed, before any service is created."),
    ("foreign-plan", "The registry has classes, but none of those the plan uses: the plan was compiled for another application."),
    ("dynamic-parameters", "Dynamic parameters the plan declares are missing or cannot be converted to their declared types. Every problem is listed."),
    ("imports", "The imported services given to the builder do not match the plan's `imported` services."),
    ("several", "A load found problems of more than one of the kinds above; each is reported as its own error (`Error::each`)."),
    ("missing-service", "No service or alias of the requested name (with the closest name, when one is close); the compiler's code for a reference to a missing service, Nette's MissingServiceException."),
    ("unregistered-type", "`get_by_type::<T>()` for a Rust type the registry names no class or interface for."),
    ("no-service-of-type", "No autowired service of the requested type (the compiler reports a dependency of a type no service has as missing-service)."),
    ("ambiguous-service", "More than one autowired service of the requested type; the compiler's code for ambiguous autowiring."),
    ("wrong-type", "The service exists but is not of the requested Rust type, and no registered cast makes it one. An accessor's `get` and a locator's `get`/`create` name the service the object belongs to (`db`, `loc[main]`) and its class."),
    ("wrong-product-type", "The new object of a generated factory's `create` is not of the requested Rust type (the factory and the product's class are named)."),
    ("circular-reference", "Services that need each other to be created (the path is named)."),
    ("constructor-failed", "A constructor, setup method, static factory or property writer returned an error while creating a service (the service, where it was defined, the path and the failing step are named)."),
    ("too-deep", "Creating a service needed more nested creations than the runtime allows (4,096)."),
    ("missing-parameter", "No static or dynamic parameter of the requested name; the compiler's code for a reference to a missing parameter."),
    ("scope-required", "A scoped service was requested outside a scope (from the container, or by a singleton)."),
    ("async-required", "A sync `get` reached a service whose creation needs an async constructor; create it with `get_async`."),
    ("container-dropped", "A generated factory, accessor or locator was used after its container or scope was dropped."),
    ("bad-arguments", "A generated service was called with arguments it does not take, or without one its `create()` needs (no default in the plan)."),
    ("unsupported", "The plan uses a kind this runtime does not implement (a plan of a newer compiler)."),
    ("slot-not-provided", "A service needs a scope slot that was not provided in the scope or its ancestors."),
    ("undeclared-slot", "`Scope::provide` named a service or type that is not a scope slot of the plan."),
    ("slot-provision", "A scope slot cannot be filled: already provided in this scope, the scope already created scoped services, or the value is not of the slot's type."),
];

/// The errors of [`Error::Several`], numbered, each line after an error's first indented.
fn numbered(errors: &[Error]) -> String {
    errors
        .iter()
        .enumerate()
        .map(|(i, e)| format!("\n{}. {}", i + 1, e.to_string().replace('\n', "\n   ")))
        .collect()
}

impl Error {
    /// A stable code for the kind of error, for logs, metrics and tests that should not
    /// depend on the message's wording: `missing-service`, `scope-required`,
    /// `async-required`, `constructor-failed`, … (docs/errors.md, "Runtime errors", lists
    /// them all). Where a compile-time diagnostic reports the same problem it has the same
    /// code (`circular-reference`, `async-required`).
    pub fn code(&self) -> &'static str {
        CODES[self.kind()].0
    }

    /// The row of [`CODES`] for this error.
    fn kind(&self) -> usize {
        match self {
            Error::Io { .. } => 0,
            Error::Write { .. } => 1,
            Error::BadPlan { .. } => 2,
            Error::VersionMismatch { .. } => 3,
            Error::MissingRegistrations { .. } => 4,
            Error::ForeignPlan { .. } => 5,
            Error::DynamicParameters { .. } => 6,
            Error::Imports { .. } => 7,
            Error::Several { .. } => 8,
            Error::UnknownService { .. } => 9,
            Error::UnregisteredType { .. } => 10,
            Error::NoServiceOfType { .. } => 11,
            Error::AmbiguousType { .. } => 12,
            Error::WrongType { .. } => 13,
            Error::WrongProductType { .. } => 14,
            Error::CircularReference { .. } => 15,
            Error::ConstructorFailed { .. } => 16,
            Error::TooDeep { .. } => 17,
            Error::UnknownParameter { .. } => 18,
            Error::ScopeRequired { .. } => 19,
            Error::AsyncRequired { .. } => 20,
            Error::ContainerDropped { .. } => 21,
            Error::BadArguments { .. } => 22,
            Error::Unsupported { .. } => 23,
            Error::SlotNotProvided { .. } => 24,
            Error::UndeclaredSlot { .. } => 25,
            Error::SlotProvision { .. } => 26,
        }
    }

    /// The errors this one stands for: the list of an [`Error::Several`], else this error
    /// alone. For code that looks for one kind (`Error::MissingRegistrations`, say) whether or
    /// not the load found others too.
    pub fn each(&self) -> &[Error] {
        match self {
            Error::Several { errors, .. } => errors,
            other => std::slice::from_ref(other),
        }
    }
}

/// The text of [`Error::AsyncRequired`]: the path to the async constructor and where the
/// plan defined its service. A factory's own product (the path is the factory alone) is said
/// to be the product's, not the factory's: a factory has no constructor of its own (a new
/// user's trial read "conns reaches an async constructor ('conns', …)").
fn async_required_text(path: &[String], defined_at: Option<&str>, factory: bool) -> String {
    let first = path.first().map(String::as_str).unwrap_or("?");
    if factory && path.len() == 1 {
        return format!(
            "service '{first}' needs async creation: the product of the factory has an async \
             constructor; use the factory's create_async"
        );
    }
    let at = match (path.last(), defined_at) {
        (Some(last), Some(d)) => format!(" ('{last}', defined at {d})"),
        _ => String::new(),
    };
    let advice = match factory {
        true => "use the factory's create_async",
        false => "use get_async (or create it with get_async first)",
    };
    format!(
        "service '{first}' needs async creation: {} reaches an async constructor{at}; {advice}",
        path.join(" -> ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case_and_described() {
        let mut seen = std::collections::HashSet::new();
        for (code, description) in CODES {
            assert!(seen.insert(*code), "{code} twice");
            assert!(
                code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{code}"
            );
            assert!(description.ends_with('.'), "{code}: {description}");
        }
    }

    #[test]
    fn each_error_reports_its_own_code() {
        let scope = Error::ScopeRequired {
            path: vec!["app".into(), "request".into()],
            defined_at: Some("app.neon:4:2".into()),
        };
        assert_eq!(scope.code(), "scope-required");
        assert_eq!(
            scope.to_string(),
            "scoped service 'request' (defined at app.neon:4:2) needs a scope: get it from \
             container.scope(), not from the container or a singleton (path: app -> request)"
        );
        let asynchronous = Error::AsyncRequired {
            path: vec!["api".into(), "pool".into()],
            defined_at: Some("app.neon:9:2".into()),
            factory: false,
        };
        assert_eq!(asynchronous.code(), "async-required");
        assert_eq!(
            asynchronous.to_string(),
            "service 'api' needs async creation: api -> pool reaches an async constructor \
             ('pool', defined at app.neon:9:2); use get_async (or create it with get_async first)"
        );
        let missing = Error::UnknownService {
            name: "x".into(),
            hint: None,
        };
        assert_eq!(missing.code(), "missing-service");
        assert_eq!(
            Error::CircularReference { path: vec![] }.code(),
            "circular-reference"
        );
        let several = Error::Several {
            origin: "p".into(),
            errors: vec![missing],
        };
        assert_eq!(several.code(), "several");
        assert_eq!(several.each()[0].code(), "missing-service");
    }
}
