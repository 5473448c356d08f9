//! Plan expressions: the values and statements inside `create`, `setup` and `initialization`
//! ([`Expr`], [`CallTarget`]) and their JSON form (plain JSON, except for the one-key objects
//! `$ref`, `$new`, `$call`, `$set`, `$get`, `$callable`, `$func`, `$param`, `$concat`, `$arg`,
//! `$provider` and `$float`; docs/plan-format.md).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value as Json};

use super::Name;
use indexmap::IndexMap;

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

    /// Calls `f` with each expression directly inside this one, in order of appearance: a
    /// call's, property's or callable's target (when it is an expression), then arguments,
    /// an assigned value, a conversion's argument, a default, list and concatenation items,
    /// map values. The walks below ([`Expr::for_each_ref`], [`Expr::for_each_called`],
    /// [`Expr::for_each_provider`]) go down through it.
    pub fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        let target = |t: &'a CallTarget, f: &mut dyn FnMut(&'a Expr)| {
            if let CallTarget::Expr(e) = t {
                f(e);
            }
        };
        match self {
            Expr::New { args, .. } => args.iter().for_each(f),
            Expr::Call {
                target: t, args, ..
            } => {
                target(t, f);
                args.iter().for_each(f);
            }
            Expr::Set {
                target: t, value, ..
            } => {
                target(t, f);
                f(value);
            }
            Expr::Get { target: t, .. } | Expr::Callable { target: t, .. } => target(t, f),
            Expr::Func { arg, .. } => f(arg),
            Expr::ArgOr { default, .. } => f(default),
            Expr::List(items) | Expr::Concat(items) => items.iter().for_each(f),
            Expr::Map(m) => m.values().for_each(f),
            _ => {}
        }
    }

    /// Calls `f` with the name of every service this expression refers to (`$ref`s, also
    /// nested in arguments, call targets, property values, lists, maps and concatenations),
    /// except `@self`, in order of appearance.
    pub fn for_each_ref<'a>(&'a self, f: &mut dyn FnMut(&'a str)) {
        match self {
            Expr::Ref(n) if n != "@self" => f(n),
            _ => self.for_each_child(&mut |e| e.for_each_ref(f)),
        }
    }

    /// Calls `f` with the name of every service this expression calls a method of directly
    /// (`{"$call": [{"$ref": "acc"}, "get"]}`: a call whose target is a `$ref`), nested
    /// anywhere, in order of appearance. For a generated accessor or factory such a call
    /// creates what its own `create` refers to, where a `$ref` alone is only the lazy object.
    pub fn for_each_called<'a>(&'a self, f: &mut dyn FnMut(&'a str)) {
        if let Expr::Call {
            target: CallTarget::Expr(e),
            ..
        } = self
        {
            if let Expr::Ref(n) = &**e {
                f(n);
            }
        }
        self.for_each_child(&mut |e| e.for_each_called(f));
    }

    /// Calls `f` with the target of every `$provider` handle in this expression (nested too),
    /// in order of appearance. These are not dependencies ([`Expr::for_each_ref`] skips
    /// them): the handle resolves its target later.
    pub fn for_each_provider<'a>(&'a self, f: &mut dyn FnMut(&'a str)) {
        match self {
            Expr::Provider(n) => f(n),
            _ => self.for_each_child(&mut |e| e.for_each_provider(f)),
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
