//! The plan model: the contract between the wireplan compiler (which writes it) and this
//! runtime (which reads it). One definition of the format serves both sides.
//!
//! The JSON form is documented in `docs/plan-format.md`. Values inside `create`/`setup` are
//! [`Expr`]s, written as plain JSON except for the one-key objects `$ref`, `$new`, `$call`,
//! `$set`, `$get`, `$callable`, `$func`, `$param`, `$concat`, `$arg`, `$provider` and `$float`.

use indexmap::IndexMap;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value as Json};

mod asynchrony;
mod captives;
pub use asynchrony::{async_class, async_flags, AsyncFlag, AsyncProblem, Constructor};
pub use captives::captives;

/// The `format` field of every plan.
pub const FORMAT: &str = "wireplan-plan";
/// The plan version the compiler writes and the newest this crate reads. Bumped on any change
/// of the format, including a new expression variant (version 2 added `$arg` with `default`,
/// binary variant `ArgOr`; version 3 the `dynamic` section of typed dynamic parameters,
/// `requires_async` on services, `$provider` and the service kind `slot`, binary kind code 5),
/// so an
/// older runtime refuses a newer plan by its version instead of misreading it or calling it
/// corrupt.
pub const VERSION: u32 = 3;
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

/// The target of a `$call`.
#[derive(Debug, Clone, PartialEq)]
pub enum CallTarget {
    /// A class name: a static call (`"App\\Factory"`).
    Class(String),
    /// The object being set up (`"@self"`), only inside `setup`.
    SelfObject,
    /// The value of another expression, usually a `$ref`.
    Expr(Box<Expr>),
}

/// A value or statement inside a plan.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A float; infinities and NaN are written `{"$float": "INF" | "-INF" | "NAN"}`.
    Float(f64),
    /// A string.
    Str(String),
    /// A JSON array.
    List(Vec<Expr>),
    /// A JSON object. Keys that start with `$` are escaped on write by doubling the `$`.
    Map(IndexMap<String, Expr>),
    /// `{"$ref": name}`: a service by name; `"@self"` is the object being set up.
    Ref(Name),
    /// `{"$new": class, "args": [...]}`: a constructor call.
    New {
        /// Catalog class name.
        class: Name,
        /// Positional, complete arguments.
        args: Vec<Expr>,
    },
    /// `{"$call": [target, method], "args": [...]}`: a method or static call.
    Call {
        /// What the method is called on.
        target: CallTarget,
        /// Method name.
        method: String,
        /// Positional, complete arguments.
        args: Vec<Expr>,
    },
    /// `{"$set": [target, property], "value": V}`: a property write in a setup.
    Set {
        /// Whose property.
        target: CallTarget,
        /// Property name.
        property: String,
        /// The value written.
        value: Box<Expr>,
    },
    /// `{"$get": [target, property]}`: reads a property of an object (Nette's `@svc::prop`
    /// argument); the runtime calls the getter registered with `ClassBuilder::getter`.
    Get {
        /// Whose property: a `$ref`, `@self` (in a setup) or another expression.
        target: CallTarget,
        /// Property name, without `$`.
        property: String,
    },
    /// `{"$callable": [target, method]}`: a first-class callable (Nette's `Class::method(...)`,
    /// `@svc::method(...)`), evaluated to a `Value::Callable` bound to its target.
    Callable {
        /// A class name (static method), `@self`, or an expression giving the object.
        target: CallTarget,
        /// Method name.
        method: String,
    },
    /// `{"$func": name, "args": [x]}`: one of Nette's conversion functions (`not`, `bool`,
    /// `int`, `float`, `string`) applied at start-up to a value the compiler could not know
    /// (see [`crate::convert`]).
    Func {
        /// The function, one of [`crate::convert::FUNCTIONS`].
        name: String,
        /// Its one argument.
        arg: Box<Expr>,
    },
    /// `{"$param": name}`: a dynamic parameter read at start-up (`env.X` reads the environment).
    Param(String),
    /// `{"$concat": [parts]}`: a string assembled at start-up.
    Concat(Vec<Expr>),
    /// `{"$arg": name}`: inside a factory's `create`, the argument passed to `create()`.
    Arg(String),
    /// `{"$provider": name}`: a lazy handle ([`crate::Provider`]) that resolves the service
    /// `name` when asked, in the scope the handle was made in. Not a dependency of the
    /// service that receives it, so it breaks a construction cycle.
    Provider(String),
    /// `{"$arg": name, "default": V}`: as [`Expr::Arg`] for a `create()` parameter with a
    /// default; `V` is evaluated when the caller does not pass `name` (e.g. from Rust,
    /// `factory.create(&[("path", …)])` without `lvl`).
    ArgOr {
        /// The parameter's name.
        name: String,
        /// Its default value.
        default: Box<Expr>,
    },
}

/// The deepest JSON nesting (arrays and objects) one expression may have, so that every plan
/// stays readable by JSON parsers with the usual limit of 128 levels (`serde_json`'s): the
/// plan document itself takes up to 4 levels above an expression. The compiler refuses deeper
/// expressions and the loader refuses them in binary plans too, so both forms accept the same
/// plans.
pub const MAX_EXPR_DEPTH: usize = 100;

impl Expr {
    /// Whether this expression holds no other expression: a scalar (`null`, bool, int, float,
    /// string) or a one-key object naming something (`$ref`, `$param`, `$arg`, `$provider`).
    /// Such leaves are most of what a plan holds: the load check needs not measure their depth,
    /// and evaluation handles them without the stack check.
    pub fn is_leaf(&self) -> bool {
        matches!(
            self,
            Expr::Null
                | Expr::Bool(_)
                | Expr::Int(_)
                | Expr::Float(_)
                | Expr::Str(_)
                | Expr::Ref(_)
                | Expr::Param(_)
                | Expr::Arg(_)
                | Expr::Provider(_)
        )
    }

    /// The JSON nesting depth of this expression's JSON form: 0 for a scalar, 1 for `[1]` or
    /// `{"$ref": "x"}`, 2 for `{"$new": "C", "args": [1]}`, and so on.
    pub fn json_depth(&self) -> usize {
        fn target(t: &CallTarget) -> usize {
            match t {
                CallTarget::Expr(e) => e.json_depth(),
                _ => 0,
            }
        }
        fn deepest(items: &[Expr]) -> usize {
            items.iter().map(Expr::json_depth).max().unwrap_or(0)
        }
        match self {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Str(_) => 0,
            Expr::Float(f) => usize::from(!f.is_finite()),
            Expr::Ref(_) | Expr::Param(_) | Expr::Arg(_) | Expr::Provider(_) => 1,
            Expr::List(items) => 1 + deepest(items),
            Expr::Map(m) => 1 + m.values().map(Expr::json_depth).max().unwrap_or(0),
            Expr::Concat(parts) => 2 + deepest(parts),
            Expr::New { args, .. } => 2 + deepest(args),
            Expr::Call {
                target: t, args, ..
            } => 2 + target(t).max(deepest(args)),
            Expr::Set {
                target: t, value, ..
            } => (2 + target(t)).max(1 + value.json_depth()),
            Expr::Get { target: t, .. } | Expr::Callable { target: t, .. } => 2 + target(t),
            Expr::Func { arg, .. } => 2 + arg.json_depth(),
            Expr::ArgOr { default, .. } => 1 + default.json_depth(),
        }
    }

    /// The run-time value of a plain expression (see [`Expr::is_plain`]); `None` when it holds
    /// a reference, call, parameter or other statement.
    pub fn plain_value(&self) -> Option<crate::value::Value> {
        use crate::value::Value;
        Some(match self {
            Expr::Null => Value::Null,
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Int(i) => Value::Int(*i),
            Expr::Float(f) => Value::Float(*f),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::List(items) => {
                Value::List(items.iter().map(Expr::plain_value).collect::<Option<_>>()?)
            }
            Expr::Map(m) => Value::Map(
                m.iter()
                    .map(|(k, v)| Some((k.clone(), v.plain_value()?)))
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    /// Whether this is plain data (null, booleans, numbers, strings, lists and maps of plain
    /// data), the only values a tag may have.
    pub fn is_plain(&self) -> bool {
        match self {
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Float(_) | Expr::Str(_) => true,
            Expr::List(items) => items.iter().all(Expr::is_plain),
            Expr::Map(m) => m.values().all(Expr::is_plain),
            _ => false,
        }
    }

    /// Calls `f` with the name of every service this expression refers to (`$ref`s, also
    /// nested in arguments, call targets, property values, lists, maps and concatenations),
    /// except `@self`, in order of appearance.
    pub fn for_each_ref<'a>(&'a self, f: &mut dyn FnMut(&'a str)) {
        let target = |t: &'a CallTarget, f: &mut dyn FnMut(&'a str)| {
            if let CallTarget::Expr(e) = t {
                e.for_each_ref(f);
            }
        };
        match self {
            Expr::Ref(n) if n != "@self" => f(n),
            Expr::New { args, .. } => args.iter().for_each(|a| a.for_each_ref(f)),
            Expr::Call {
                target: t, args, ..
            } => {
                target(t, f);
                args.iter().for_each(|a| a.for_each_ref(f));
            }
            Expr::Set {
                target: t, value, ..
            } => {
                target(t, f);
                value.for_each_ref(f);
            }
            Expr::Get { target: t, .. } | Expr::Callable { target: t, .. } => target(t, f),
            Expr::Func { arg, .. } => arg.for_each_ref(f),
            Expr::ArgOr { default, .. } => default.for_each_ref(f),
            Expr::List(items) | Expr::Concat(items) => items.iter().for_each(|a| a.for_each_ref(f)),
            Expr::Map(m) => m.values().for_each(|a| a.for_each_ref(f)),
            _ => {}
        }
    }

    /// Calls `f` with the target of every `$provider` handle in this expression (nested too),
    /// in order of appearance. These are not dependencies ([`Expr::for_each_ref`] skips
    /// them): the handle resolves its target later.
    pub fn for_each_provider<'a>(&'a self, f: &mut dyn FnMut(&'a str)) {
        let target = |t: &'a CallTarget, f: &mut dyn FnMut(&'a str)| {
            if let CallTarget::Expr(e) = t {
                e.for_each_provider(f);
            }
        };
        match self {
            Expr::Provider(n) => f(n),
            Expr::New { args, .. } => args.iter().for_each(|a| a.for_each_provider(f)),
            Expr::Call {
                target: t, args, ..
            } => {
                target(t, f);
                args.iter().for_each(|a| a.for_each_provider(f));
            }
            Expr::Set {
                target: t, value, ..
            } => {
                target(t, f);
                value.for_each_provider(f);
            }
            Expr::Get { target: t, .. } | Expr::Callable { target: t, .. } => target(t, f),
            Expr::Func { arg, .. } => arg.for_each_provider(f),
            Expr::ArgOr { default, .. } => default.for_each_provider(f),
            Expr::List(items) | Expr::Concat(items) => {
                items.iter().for_each(|a| a.for_each_provider(f))
            }
            Expr::Map(m) => m.values().for_each(|a| a.for_each_provider(f)),
            _ => {}
        }
    }

    /// The JSON form of this expression.
    pub fn to_json(&self) -> Json {
        match self {
            Expr::Null => Json::Null,
            Expr::Bool(b) => Json::Bool(*b),
            Expr::Int(i) => json!(i),
            Expr::Float(f) => {
                if f.is_nan() {
                    json!({"$float": "NAN"})
                } else if f.is_infinite() {
                    json!({"$float": if *f > 0.0 { "INF" } else { "-INF" }})
                } else {
                    json!(f)
                }
            }
            Expr::Str(s) => Json::String(s.clone()),
            Expr::List(items) => Json::Array(items.iter().map(Expr::to_json).collect()),
            Expr::Map(m) => {
                let mut out = Map::new();
                for (k, v) in m {
                    let key = if k.starts_with('$') {
                        format!("${k}")
                    } else {
                        k.clone()
                    };
                    out.insert(key, v.to_json());
                }
                Json::Object(out)
            }
            Expr::Ref(name) => json!({ "$ref": name }),
            Expr::New { class, args } => json!({ "$new": class, "args": list(args) }),
            Expr::Call {
                target,
                method,
                args,
            } => json!({ "$call": [target_json(target), method], "args": list(args) }),
            Expr::Set {
                target,
                property,
                value,
            } => json!({ "$set": [target_json(target), property], "value": value.to_json() }),
            Expr::Get { target, property } => json!({ "$get": [target_json(target), property] }),
            Expr::Callable { target, method } => {
                json!({ "$callable": [target_json(target), method] })
            }
            Expr::Func { name, arg } => json!({ "$func": name, "args": [arg.to_json()] }),
            Expr::Param(name) => json!({ "$param": name }),
            Expr::Provider(name) => json!({ "$provider": name }),
            Expr::Concat(parts) => json!({ "$concat": list(parts) }),
            Expr::Arg(name) => json!({ "$arg": name }),
            Expr::ArgOr { name, default } => {
                json!({ "$arg": name, "default": default.to_json() })
            }
        }
    }

    /// Reads an expression from its JSON form. Errors name what was malformed.
    pub fn from_json(v: &Json) -> Result<Expr, String> {
        Ok(match v {
            Json::Null => Expr::Null,
            Json::Bool(b) => Expr::Bool(*b),
            Json::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Expr::Int(i)
                } else if let Some(f) = n.as_f64() {
                    Expr::Float(f)
                } else {
                    return Err(format!("number {n} is out of range"));
                }
            }
            Json::String(s) => Expr::Str(s.clone()),
            Json::Array(items) => Expr::List(
                items
                    .iter()
                    .map(Expr::from_json)
                    .collect::<Result<_, _>>()?,
            ),
            Json::Object(o) => return object_from_json(o),
        })
    }
}

fn list(items: &[Expr]) -> Json {
    Json::Array(items.iter().map(Expr::to_json).collect())
}

fn target_json(t: &CallTarget) -> Json {
    match t {
        CallTarget::Class(c) => Json::String(c.clone()),
        CallTarget::SelfObject => Json::String("@self".into()),
        CallTarget::Expr(e) => e.to_json(),
    }
}

fn target_from_json(v: &Json) -> Result<CallTarget, String> {
    Ok(match v {
        Json::String(s) if s == "@self" => CallTarget::SelfObject,
        Json::String(s) => CallTarget::Class(s.clone()),
        Json::Object(_) => CallTarget::Expr(Box::new(Expr::from_json(v)?)),
        other => {
            return Err(format!(
                "a target must be a class name, \"@self\" or an expression object, not {other}"
            ))
        }
    })
}

/// The keys a special object may have besides its `$` key.
fn allowed_keys(special: &str) -> &'static [&'static str] {
    match special {
        "$new" | "$call" | "$func" => &["args"],
        "$set" => &["value"],
        "$arg" => &["default"],
        _ => &[],
    }
}

/// The `args` of a `$new`, `$call` or `$func` object (`special` names it in errors). The format
/// requires the key (`[]` when there are none), so a missing one is an error, not no arguments.
fn args_from_json(o: &Map<String, Json>, special: &str) -> Result<Vec<Expr>, String> {
    match o.get("args") {
        Some(Json::Array(a)) => a.iter().map(Expr::from_json).collect(),
        Some(_) => Err("\"args\" must be an array".into()),
        None => Err(format!(
            "a \"{special}\" object needs \"args\" (an array, [] when there are none)"
        )),
    }
}

fn str_field<'a>(o: &'a Map<String, Json>, key: &str) -> Result<&'a str, String> {
    o.get(key)
        .and_then(Json::as_str)
        .ok_or_else(|| format!("\"{key}\" must be a string"))
}

fn pair<'a>(o: &'a Map<String, Json>, key: &str) -> Result<(&'a Json, &'a str), String> {
    match o.get(key) {
        Some(Json::Array(a)) if a.len() == 2 && a[1].is_string() => {
            Ok((&a[0], a[1].as_str().unwrap_or_default()))
        }
        _ => Err(format!("\"{key}\" must be [target, name]")),
    }
}

fn object_from_json(o: &Map<String, Json>) -> Result<Expr, String> {
    let special = o
        .keys()
        .find(|k| k.starts_with('$') && !k.starts_with("$$"));
    if let Some(sp) = special {
        let allowed = allowed_keys(sp);
        if let Some(extra) = o
            .keys()
            .find(|k| *k != sp && !allowed.contains(&k.as_str()))
        {
            return Err(format!("unexpected key \"{extra}\" in a \"{sp}\" object"));
        }
    }
    Ok(match special.map(String::as_str) {
        None => {
            let mut m = IndexMap::new();
            for (k, v) in o {
                let key = k.strip_prefix('$').filter(|_| k.starts_with("$$"));
                m.insert(
                    key.map(str::to_string).unwrap_or_else(|| k.clone()),
                    Expr::from_json(v)?,
                );
            }
            Expr::Map(m)
        }
        Some("$ref") => Expr::Ref(str_field(o, "$ref")?.into()),
        Some("$param") => Expr::Param(str_field(o, "$param")?.to_string()),
        Some("$provider") => Expr::Provider(str_field(o, "$provider")?.to_string()),
        Some("$arg") => {
            let name = str_field(o, "$arg")?.to_string();
            match o.get("default") {
                Some(d) => Expr::ArgOr {
                    name,
                    default: Box::new(Expr::from_json(d)?),
                },
                None => Expr::Arg(name),
            }
        }
        Some("$new") => Expr::New {
            class: str_field(o, "$new")?.into(),
            args: args_from_json(o, "$new")?,
        },
        Some("$call") => {
            let (t, m) = pair(o, "$call")?;
            Expr::Call {
                target: target_from_json(t)?,
                method: m.to_string(),
                args: args_from_json(o, "$call")?,
            }
        }
        Some("$set") => {
            let (t, p) = pair(o, "$set")?;
            Expr::Set {
                target: target_from_json(t)?,
                property: p.to_string(),
                value: Box::new(Expr::from_json(
                    o.get("value").ok_or("a \"$set\" object needs \"value\"")?,
                )?),
            }
        }
        Some("$get") => {
            let (t, p) = pair(o, "$get")?;
            Expr::Get {
                target: target_from_json(t)?,
                property: p.to_string(),
            }
        }
        Some("$callable") => {
            let (t, m) = pair(o, "$callable")?;
            Expr::Callable {
                target: target_from_json(t)?,
                method: m.to_string(),
            }
        }
        Some("$func") => {
            let name = str_field(o, "$func")?.to_string();
            let mut args = args_from_json(o, "$func")?;
            if args.len() != 1 {
                return Err(format!(
                    "\"$func\" takes one argument, {} given",
                    args.len()
                ));
            }
            Expr::Func {
                name,
                arg: Box::new(args.remove(0)),
            }
        }
        Some("$concat") => match o.get("$concat") {
            Some(Json::Array(a)) => {
                Expr::Concat(a.iter().map(Expr::from_json).collect::<Result<_, _>>()?)
            }
            _ => return Err("\"$concat\" must be an array".into()),
        },
        Some("$float") => match str_field(o, "$float")? {
            "INF" => Expr::Float(f64::INFINITY),
            "-INF" => Expr::Float(f64::NEG_INFINITY),
            "NAN" => Expr::Float(f64::NAN),
            other => return Err(format!("unknown $float value '{other}'")),
        },
        Some(other) => return Err(format!("unknown special key '{other}'")),
    })
}

/// Writes the JSON form of [`Expr::to_json`] straight to the serializer, without building the
/// `serde_json::Value` tree first (the same text: same keys, key order and numbers).
impl Serialize for Expr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        /// `{k: v}`.
        fn one<S: Serializer, V: Serialize + ?Sized>(
            s: S,
            k: &str,
            v: &V,
        ) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry(k, v)?;
            m.end()
        }
        /// `{k1: v1, k2: v2}`.
        fn two<S: Serializer, V1: Serialize + ?Sized, V2: Serialize + ?Sized>(
            s: S,
            (k1, v1): (&str, &V1),
            (k2, v2): (&str, &V2),
        ) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(2))?;
            m.serialize_entry(k1, v1)?;
            m.serialize_entry(k2, v2)?;
            m.end()
        }
        match self {
            Expr::Null => s.serialize_unit(),
            Expr::Bool(b) => s.serialize_bool(*b),
            Expr::Int(i) => s.serialize_i64(*i),
            Expr::Float(f) if f.is_nan() => one(s, "$float", &"NAN"),
            Expr::Float(f) if f.is_infinite() => {
                let v = if *f > 0.0 { "INF" } else { "-INF" };
                one(s, "$float", &v)
            }
            Expr::Float(f) => s.serialize_f64(*f),
            Expr::Str(x) => s.serialize_str(x),
            Expr::List(items) => items.serialize(s),
            Expr::Map(entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    if k.starts_with('$') {
                        m.serialize_entry(&format!("${k}"), v)?;
                    } else {
                        m.serialize_entry(k, v)?;
                    }
                }
                m.end()
            }
            Expr::Ref(name) => one(s, "$ref", name),
            Expr::New { class, args } => two(s, ("$new", class), ("args", args)),
            Expr::Call {
                target,
                method,
                args,
            } => two(s, ("$call", &(Target(target), method)), ("args", args)),
            Expr::Set {
                target,
                property,
                value,
            } => two(s, ("$set", &(Target(target), property)), ("value", value)),
            Expr::Get { target, property } => one(s, "$get", &(Target(target), property)),
            Expr::Callable { target, method } => one(s, "$callable", &(Target(target), method)),
            Expr::Func { name, arg } => two(
                s,
                ("$func", name),
                ("args", std::slice::from_ref(arg.as_ref())),
            ),
            Expr::Param(name) => one(s, "$param", name),
            Expr::Provider(name) => one(s, "$provider", name),
            Expr::Concat(parts) => one(s, "$concat", parts),
            Expr::Arg(name) => one(s, "$arg", name),
            Expr::ArgOr { name, default } => two(s, ("$arg", name), ("default", default)),
        }
    }
}

/// A call target as JSON: the class name, `"@self"`, or the expression.
struct Target<'a>(&'a CallTarget);

impl Serialize for Target<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            CallTarget::Class(c) => s.serialize_str(c),
            CallTarget::SelfObject => s.serialize_str("@self"),
            CallTarget::Expr(e) => e.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Expr, D::Error> {
        let v = Json::deserialize(d)?;
        Expr::from_json(&v).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests;
