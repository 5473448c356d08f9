//! The plan model: the contract between the wireplan compiler (which writes it) and this
//! runtime (which reads it). One definition of the format serves both sides.
//!
//! The JSON form is documented in `docs/plan-format.md`. Values inside `create`/`setup` are
//! [`Expr`]s, written as plain JSON except for the one-key objects `$ref`, `$new`, `$call`,
//! `$set`, `$get`, `$callable`, `$func`, `$param`, `$concat`, `$arg`, `$provider` and `$float`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

mod asynchrony;
mod captives;
mod expr;
pub use asynchrony::{async_class, async_flags, AsyncFlag, AsyncProblem, Constructor};
pub use captives::{captives, slot_problems};
pub use expr::{CallTarget, Expr, MAX_EXPR_DEPTH};

/// The `format` field of every plan.
pub const FORMAT: &str = "wireplan-plan";
/// The plan version the compiler writes and the newest this crate reads. Bumped on any change
/// of the format, including a new expression variant (version 2 added `$arg` with `default`,
/// binary variant `ArgOr`; version 3 the `dynamic` section of typed dynamic parameters,
/// `requires_async` on services, `$provider` and the service kind `slot`, binary kind code 5;
/// version 4 the `signatures` section of the parameter names the plan was compiled for), so an
/// older runtime refuses a newer plan by its version instead of misreading it or calling it
/// corrupt.
pub const VERSION: u32 = 4;
/// The oldest plan version this crate still reads: every version from here to [`VERSION`]
/// only added to the format, so their plans keep their meaning.
pub const OLDEST_VERSION: u32 = 1;

/// A name in the plan model: a service, alias, type or class name, or the target of a
/// reference. It behaves like a `String` (derefs to `str`, compares, hashes and serializes as
/// one) but keeps names of up to 24 bytes inline, so reading a plan allocates no string for
/// most of them and dropping it frees none.
pub type Name = compact_str::CompactString;

/// The hasher of the plan's name-keyed maps ([`NameMap`]): foldhash with a per-process seed.
/// Loading a plan hashes every service and type name once and looks up every reference;
/// SipHash (std's default) made that a visible part of a load, while a seeded fast hash keeps
/// a crafted plan from aiming for collisions all the same.
pub type NameHasher = foldhash::fast::RandomState;

/// A map keyed by plan names, in insertion order: `services`, `aliases` and `types` of a
/// [`Plan`]. Build one with `NameMap::default()`, `with_capacity_and_hasher` or `collect()`.
pub type NameMap<V> = IndexMap<Name, V, NameHasher>;

/// A set of plan names in insertion order, hashed like a [`NameMap`]: a container's service
/// names, where a service's index is its position.
pub type NameSet = indexmap::IndexSet<Name, NameHasher>;

/// The services of one entry of a plan's `types` index (preferred first). Almost every entry
/// lists one service, which is kept inline: loading the index allocates nothing for it and
/// dropping it frees nothing (a `Vec` per entry was ~10,000 allocations for a 10,000-service
/// plan). It reads, writes, derefs and iterates like a `Vec<Name>` (serialized as a sequence).
pub type TypeServices = smallvec::SmallVec<[Name; 1]>;

/// A whole plan document. In JSON, a field the model does not have is refused (a misspelt
/// `lifespan` or `setup` in a hand-edited plan would otherwise fall back to its default); so
/// it is in a service, a dependency and a source location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`OLDEST_VERSION`] to [`VERSION`] for plans this crate can load; the compiler writes
    /// [`VERSION`].
    pub version: u32,
    /// The version of the compiler that wrote the plan, e.g. `"wireplan 0.1.0"`.
    pub compiler: String,
    /// A hash over all input files (hex), for cache checks.
    pub inputs_hash: String,
    /// Every file the compiler read, with its content hash, for dev-mode rebuilds.
    #[serde(default)]
    pub dependencies: Vec<Dependency>,
    /// Static parameters, fully expanded.
    #[serde(default)]
    pub parameters: IndexMap<String, Expr>,
    /// Services by name, in definition order.
    pub services: NameMap<ServicePlan>,
    /// Alias name → service name.
    #[serde(default)]
    pub aliases: NameMap<Name>,
    /// The autowiring index: type → names of the services autowired for it (preferred first).
    #[serde(default)]
    pub types: NameMap<TypeServices>,
    /// Tag index: tag → (service name → tag value).
    #[serde(default)]
    pub tags: IndexMap<String, IndexMap<String, Expr>>,
    /// Statements run by `Container::initialize()`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub initialization: Vec<Expr>,
    /// The dynamic parameters the plan reads (version 3 and later): name → declared type,
    /// default, required, sensitive. The loader resolves and checks them all at once.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub dynamic: IndexMap<String, crate::dynamic::DynamicParam>,
    /// The parameter names the plan was compiled for (version 4 and later), for every
    /// constructor and method with parameters that it calls on a class: `App\Repo` (the
    /// constructor) or `App\Repo::connect` → the names in order, without `$`, joined by
    /// `", "` (`"minItems, maxItems"`). Arguments are positional, so loading compares these
    /// with the parameters the registry declares for them ([`crate::ClassBuilder::signature`],
    /// `method_signature`) and refuses a plan whose names differ: one compiled from a catalog
    /// older than the registry, where two parameters of one type were swapped or one was
    /// renamed, which neither the count nor the types would show.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub signatures: NameMap<Name>,
}

/// The key of [`Plan::signatures`] for `method` of `class`, or for its constructor (`None`).
pub fn signature_key(class: &str, method: Option<&str>) -> Name {
    let mut key = Name::from(class);
    if let Some(m) = method {
        key.push_str("::");
        key.push_str(m);
    }
    key
}

/// The class and the method (`None`: the constructor) a key of [`Plan::signatures`] names:
/// the inverse of [`signature_key`].
pub fn signature_key_parts(key: &str) -> (&str, Option<&str>) {
    match key.split_once("::") {
        Some((class, method)) => (class, Some(method)),
        None => (key, None),
    }
}

/// The names a value of [`Plan::signatures`] lists, in order (none for an empty value).
pub fn recorded_names(recorded: &str) -> impl Iterator<Item = &str> {
    (!recorded.is_empty())
        .then(|| recorded.split(", "))
        .into_iter()
        .flatten()
}

/// The parameter names `signatures` records for `class`'s constructor (`method` `None`) or
/// `method`, when it records exactly `count` of them: what the positional arguments of a call
/// with `count` arguments were meant for (`wireplan show` and `diff` name them so).
pub fn signature_names<'s>(
    signatures: &'s NameMap<Name>,
    class: &str,
    method: Option<&str>,
    count: usize,
) -> Option<Vec<&'s str>> {
    let recorded = signatures.get(signature_key(class, method).as_str())?;
    let names: Vec<&str> = recorded_names(recorded).collect();
    (count > 0 && names.len() == count).then_some(names)
}

/// Parameter names as messages show them: `$minItems, $maxItems`.
pub fn dollar_names<'n>(names: impl IntoIterator<Item = &'n str>) -> String {
    names
        .into_iter()
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One file the plan was compiled from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dependency {
    /// The path as the compiler saw it.
    pub path: String,
    /// Hex content hash (FNV-1a 64).
    pub hash: String,
}

/// What kind of definition produced a service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ServiceKind {
    /// An ordinary service created by `create`.
    #[default]
    Service,
    /// A generated factory: `create()` returns a new object built by `create`.
    Factory,
    /// A generated accessor: `get()` returns the service `create` refers to.
    Accessor,
    /// A locator: `get(name)` returns one of `references`.
    Locator,
    /// A service supplied by the application at load time.
    Imported,
    /// A scope slot (`slot: true` in the configuration; Symfony's synthetic services, Clean
    /// IoC 2's `declare_scope_slot`): a `scoped` service the application fills in each scope
    /// with [`Scope::provide`](crate::Scope::provide); nothing creates it (`create` is `null`).
    Slot,
}

/// How long a service instance lives (Clean IoC 2's lifespans).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Lifespan {
    /// One instance per container (Nette's only behaviour).
    #[default]
    Singleton,
    /// One instance per scope.
    Scoped,
    /// A new instance for every request or injection.
    Transient,
}

impl Lifespan {
    /// The name the plan and the configuration write: `singleton`, `scoped`, `transient`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lifespan::Singleton => "singleton",
            Lifespan::Scoped => "scoped",
            Lifespan::Transient => "transient",
        }
    }
}

impl std::fmt::Display for Lifespan {
    /// [`Lifespan::as_str`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `autowired` field: `true`/`false`, or the list of types the service is autowired for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Autowired {
    /// Autowired for every type it has (`true`) or not at all (`false`).
    All(bool),
    /// Autowired only for these types.
    Types(Vec<String>),
}

impl Default for Autowired {
    fn default() -> Autowired {
        Autowired::All(true)
    }
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Where a service was defined, so run-time errors can point back into the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceLocation {
    /// File name as the compiler showed it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
}

/// One service of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServicePlan {
    /// Definition kind.
    #[serde(default, skip_serializing_if = "is_default")]
    pub kind: ServiceKind,
    /// The service's type (class or interface name from the catalog).
    #[serde(rename = "type")]
    pub type_: Name,
    /// Lifespan.
    #[serde(default)]
    pub lifespan: Lifespan,
    /// Autowiring.
    #[serde(default, skip_serializing_if = "is_default")]
    pub autowired: Autowired,
    /// Tags: name → value.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub tags: IndexMap<String, Expr>,
    /// The statement that creates the service (for an accessor: the reference `get()` returns).
    pub create: Expr,
    /// Setup statements, in execution order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<Expr>,
    /// For generated services: the interface wireplan implements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implement: Option<String>,
    /// For factories: the names of the `create()` parameters, in order (`$arg` reads them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<String>,
    /// For locators: name → the service `get(name)` returns.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub references: IndexMap<String, Expr>,
    /// Where the service was defined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
    /// Whether creating the service needs an async constructor: its own, or one of a
    /// dependency's, transitively (Clean IoC 2's compiled `requires_async` flag). Factories,
    /// accessors, locators and `$provider` handles create later and end the path. Such a
    /// service is created by `get_async`; a sync `get` of it (while it is not created yet) is
    /// `Error::AsyncRequired`. Absent (false) in plans before version 3.
    #[serde(default, skip_serializing_if = "is_default")]
    pub requires_async: bool,
}

#[cfg(test)]
mod tests;
