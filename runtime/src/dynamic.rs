//! Typed dynamic parameters: the plan's `dynamic` section, the conversion of a value given at
//! start-up (by the application or the environment) to a parameter's declared type, and the
//! check [`crate::ContainerBuilder`] runs at load so that every missing or invalid dynamic
//! parameter is reported at once, before any service is created.
//!
//! The section lists each dynamic parameter the plan reads (plan version 3 and later). A plan
//! without it (older plans, hand-written ones) keeps the old behaviour: a missing parameter is
//! found when the first service reading it is created.

use std::collections::HashMap;
use std::fmt;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize};

use crate::plan::{CallTarget, Expr, Plan};
use crate::value::Value;

/// What the plan knows about one dynamic parameter (an entry of the plan's `dynamic` section,
/// written by the compiler from the `dynamicParameters:` section of the configuration and from
/// the catalog types of the arguments the parameter fills).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DynamicParam {
    /// The declared type: `int`, `float`, `bool`, `string` or `mixed`, `?`-prefixed when the
    /// parameter may be `null`. `None`: the value is used as given (a string from the
    /// environment).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// The value used when the parameter is not given; a plain value of the declared type
    /// (`Some(Expr::Null)` is a `null` default, `None` no default).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub default: Option<Expr>,
    /// Whether a missing value (no given value, no default) is an error at load. When false,
    /// a missing nullable parameter is `null`, and any other is reported when a service first
    /// reads it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// Whether the value is secret: messages say "the value is not shown" instead of quoting it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sensitive: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A field that is present is `Some`, also when it is `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Expr>, D::Error> {
    Expr::deserialize(d).map(Some)
}

/// The types a dynamic parameter may declare (each also with a leading `?`).
pub const TYPES: [&str; 5] = ["int", "float", "bool", "string", "mixed"];

/// Splits `?int` into (`int`, nullable). `None` when the type is not one of [`TYPES`].
pub fn parse_type(ty: &str) -> Option<(&'static str, bool)> {
    let (base, nullable) = match ty.strip_prefix('?') {
        Some(rest) => (rest, true),
        None => (ty, false),
    };
    let base = TYPES.iter().find(|t| t.eq_ignore_ascii_case(base))?;
    Some((base, nullable || *base == "mixed"))
}

/// Converts `value` to the declared type `ty` (see [`parse_type`]).
///
/// Rules: `int` reads a decimal integer (`"8080"`, `"-1"`); `float` a finite decimal number
/// (`"0.5"`, `"2"`, an integer); `bool` one of `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`
/// (any case); `string` takes a string, or writes a number or boolean as text; `mixed` keeps
/// the value. For a nullable type, `null` and an empty string are `null` (an empty `?string`
/// stays `""`). Errors describe the expected type, e.g. `expected int`.
pub fn cast(value: &Value, ty: &str) -> Result<Value, String> {
    let Some((base, nullable)) = parse_type(ty) else {
        return Err(format!("unknown type '{ty}'"));
    };
    let fail = || Err(format!("expected {ty}"));
    if nullable && base != "mixed" {
        match value {
            Value::Null => return Ok(Value::Null),
            Value::Str(s) if s.is_empty() && base != "string" => return Ok(Value::Null),
            _ => {}
        }
    }
    Ok(match (base, value) {
        ("mixed", v) => v.clone(),
        ("int", Value::Int(i)) => Value::Int(*i),
        ("int", Value::Str(s)) => match s.parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => return fail(),
        },
        ("float", Value::Float(f)) => Value::Float(*f),
        ("float", Value::Int(i)) => Value::Float(*i as f64),
        ("float", Value::Str(s)) => match s.parse::<f64>() {
            // `parse` also reads `inf` and `NaN`, which no configuration means.
            Ok(f) if f.is_finite() && !s.chars().any(char::is_alphabetic) => Value::Float(f),
            _ => return fail(),
        },
        ("bool", Value::Bool(b)) => Value::Bool(*b),
        ("bool", Value::Int(0)) => Value::Bool(false),
        ("bool", Value::Int(1)) => Value::Bool(true),
        ("bool", Value::Str(s)) => match s.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Value::Bool(true),
            "false" | "0" | "no" | "off" => Value::Bool(false),
            _ => return fail(),
        },
        ("string", Value::Str(s)) => Value::Str(s.clone()),
        ("string", Value::Int(i)) => Value::Str(i.to_string()),
        ("string", Value::Float(f)) => Value::Str(f.to_string()),
        ("string", Value::Bool(b)) => Value::Str(b.to_string()),
        _ => return fail(),
    })
}

/// One missing or invalid dynamic parameter found at load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicProblem {
    /// The parameter's name (`env.PORT`, `database.password`).
    pub name: String,
    /// What is wrong.
    pub kind: ProblemKind,
    /// The services whose `create` or `setup` read the parameter, in plan order
    /// (`initialization` when the plan's initialization statements do).
    pub services: Vec<String>,
    /// Where the first of `services` is defined in the configuration (`config/app.neon:16:3`),
    /// when the plan records it: a plan loaded from a cache or deploy folder names that file,
    /// not the configuration (a new user's trial).
    pub defined_at: Option<String>,
}

/// What is wrong with a dynamic parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProblemKind {
    /// Required, but neither given nor defaulted. `expected` is the declared type, if any.
    Missing {
        /// The declared type.
        expected: Option<String>,
        /// A name a value was given for that the plan does not use and that is close to this
        /// one (a likely typo: `prot` for `port`).
        given_as: Option<String>,
    },
    /// A value was given for a static parameter: its value is compiled into the plan and every
    /// service reads that one, so the given value would be ignored (a new user's trial).
    Static,
    /// Given, but not convertible to the declared type.
    Invalid {
        /// The declared type.
        expected: String,
        /// The value as given, quoted; `None` for a sensitive parameter (never shown).
        value: Option<String>,
    },
}

impl fmt::Display for DynamicProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match &self.kind {
            ProblemKind::Missing { expected, given_as } => {
                write!(f, "'{name}'")?;
                if let Some(t) = expected {
                    write!(f, " ({t})")?;
                }
                write!(f, " is missing: ")?;
                match name.strip_prefix("env.") {
                    Some(var) => write!(
                        f,
                        "set the environment variable {var} or pass it to \
                         ContainerBuilder::parameter"
                    )?,
                    None => write!(f, "pass it to ContainerBuilder::parameter")?,
                }
                if let Some(other) = given_as {
                    write!(
                        f,
                        " (a value was given for '{other}', which the plan does not use: did \
                         you mean '{name}'?)"
                    )?;
                }
            }
            ProblemKind::Static => write!(
                f,
                "'{name}' is a static parameter: its value is compiled into the plan, so a \
                 value given at start-up would not be used; compile with `--dynamic {name}` to \
                 read it at start-up"
            )?,
            ProblemKind::Invalid {
                expected,
                value: Some(v),
            } => write!(f, "'{name}' is {v}, which is not a valid {expected}")?,
            ProblemKind::Invalid {
                expected,
                value: None,
            } => write!(
                f,
                "'{name}' cannot be converted to {expected} (the value is not shown: the \
                 parameter is sensitive)"
            )?,
        }
        match self.services.as_slice() {
            [] => return Ok(()),
            [one] => write!(f, "; needed by service '{one}'")?,
            many => write!(f, "; needed by services '{}'", many.join("', '"))?,
        }
        match (&self.defined_at, self.services.len()) {
            (Some(at), 1) => write!(f, " (defined at {at})"),
            (Some(at), _) => write!(f, " (the first defined at {at})"),
            (None, _) => Ok(()),
        }
    }
}

/// A value as a problem quotes it: strings in single quotes (at most 40 characters, control
/// characters escaped), other values as their kind and text.
fn quote(v: &Value) -> String {
    match v {
        Value::Str(s) => {
            let mut text: String = s.chars().take(40).flat_map(char::escape_default).collect();
            if s.chars().count() > 40 {
                text.push_str("...");
            }
            format!("'{text}'")
        }
        Value::Int(i) => format!("the int {i}"),
        Value::Float(x) => format!("the float {x}"),
        Value::Bool(b) => format!("the bool {b}"),
        other => other.kind(),
    }
}

/// Resolves the plan's declared dynamic parameters at load: for each, the given value
/// (`given`, then the environment for `env.X` when `read_env`) converted to its type, else its
/// default, else `null` when nullable. Returns the resolved values (to put over `given`) and
/// every problem, each with the services that read the parameter.
pub(crate) fn resolve(
    plan: &Plan,
    given: &HashMap<String, Value>,
    read_env: bool,
) -> (HashMap<String, Value>, Vec<DynamicProblem>) {
    if plan.dynamic.is_empty() {
        return (HashMap::new(), Vec::new());
    }
    let readers = readers(plan);
    let (values, mut problems) = resolve_declared(&plan.dynamic, given, read_env, |name| {
        readers.get(name).cloned().unwrap_or_default()
    });
    // A plan with the section declares every parameter its services read (the compiler
    // writes them all): one it does not declare (a plan edited since) is still read as given,
    // untyped, but a missing value is reported now, with the others, rather than when the
    // first service that reads it is created.
    // (Walked again, for the order they are read in, only when there is one.)
    let undeclared = match readers.keys().any(|n| !plan.dynamic.contains_key(*n)) {
        true => undeclared_read(plan),
        false => Vec::new(),
    };
    for name in undeclared {
        if !available(name, given, read_env) {
            problems.push(DynamicProblem {
                name: name.to_string(),
                kind: ProblemKind::Missing {
                    expected: None,
                    given_as: None,
                },
                services: readers.get(name).cloned().unwrap_or_default(),
                defined_at: None,
            });
        }
    }
    for p in &mut problems {
        p.defined_at = p.services.first().and_then(|s| defined_at(plan, s));
    }
    (values, problems)
}

/// Where the plan says `service` is defined in the configuration (`config/app.neon:16:3`),
/// as a dynamic-parameter problem names it.
pub(crate) fn defined_at(plan: &Plan, service: &str) -> Option<String> {
    let at = plan.services.get(service)?.source.as_ref()?;
    Some(format!("{}:{}:{}", at.file, at.line, at.column))
}

/// The dynamic parameters the plan's services and initialization read (`$param`) that its
/// `dynamic` section does not declare, in the order they are first read; none for a plan
/// without the section (versions 1 and 2, or written by hand), which declares nothing.
pub(crate) fn undeclared_read(plan: &Plan) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    if plan.dynamic.is_empty() {
        return out;
    }
    let mut names = Vec::new();
    params_read(plan, true, &mut names);
    for n in names {
        if !plan.dynamic.contains_key(n) && !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Appends to `out` every `$param` name that `plan` reads, in plan order, repeats included:
/// its services' `create`, `setup` and `references` (when `services`; the compiler skips them
/// when no statement reads a dynamic parameter), then its initialization statements.
pub fn params_read<'p>(plan: &'p Plan, services: bool, out: &mut Vec<&'p str>) {
    if services {
        for sp in plan.services.values() {
            for e in std::iter::once(&sp.create)
                .chain(&sp.setup)
                .chain(sp.references.values())
            {
                params_in(e, out);
            }
        }
    }
    plan.initialization.iter().for_each(|e| params_in(e, out));
}

/// Whether an undeclared dynamic parameter `name` has a value at this load: given, or for
/// `env.X` (when the environment is read) a variable `X` that is set.
pub(crate) fn available(name: &str, given: &HashMap<String, Value>, read_env: bool) -> bool {
    given.contains_key(name)
        || (read_env
            && name
                .strip_prefix("env.")
                .is_some_and(|var| std::env::var_os(var).is_some()))
}

/// As [`resolve`], for the declared parameters `dynamic`; `services_of` names the services
/// that read a parameter (for its problems).
pub(crate) fn resolve_declared(
    dynamic: &IndexMap<String, DynamicParam>,
    given: &HashMap<String, Value>,
    read_env: bool,
    services_of: impl Fn(&str) -> Vec<String>,
) -> (HashMap<String, Value>, Vec<DynamicProblem>) {
    let mut resolved = HashMap::new();
    let mut problems = Vec::new();
    for (name, decl) in dynamic {
        let services = || services_of(name.as_str());
        let value = match given.get(name) {
            Some(v) => Some(v.clone()),
            None => match name.strip_prefix("env.").filter(|_| read_env) {
                Some(var) => match std::env::var(var) {
                    Ok(text) => Some(Value::Str(text)),
                    Err(std::env::VarError::NotPresent) => None,
                    // Set, but not text: an error naming it, not "missing".
                    Err(std::env::VarError::NotUnicode(raw)) => {
                        problems.push(DynamicProblem {
                            name: name.clone(),
                            kind: ProblemKind::Invalid {
                                expected:
                                    "UTF-8 text (the environment variable is set to other bytes)"
                                        .to_string(),
                                value: (!decl.sensitive)
                                    .then(|| format!("{:?}", raw.to_string_lossy())),
                            },
                            services: services(),
                            defined_at: None,
                        });
                        continue;
                    }
                },
                None => None,
            },
        };
        let ty = decl.type_.as_deref();
        match (value, &decl.default) {
            (Some(v), _) => match ty.map(|t| cast(&v, t)) {
                None => {
                    resolved.insert(name.clone(), v);
                }
                Some(Ok(converted)) => {
                    resolved.insert(name.clone(), converted);
                }
                Some(Err(_)) => problems.push(DynamicProblem {
                    name: name.clone(),
                    kind: ProblemKind::Invalid {
                        expected: ty.unwrap_or_default().to_string(),
                        value: (!decl.sensitive).then(|| quote(&v)),
                    },
                    services: services(),
                    defined_at: None,
                }),
            },
            (None, Some(default)) => {
                let v = default.plain_value().unwrap_or(Value::Null);
                let v = ty.and_then(|t| cast(&v, t).ok()).unwrap_or(v);
                resolved.insert(name.clone(), v);
            }
            (None, None) if decl.required => problems.push(DynamicProblem {
                name: name.clone(),
                kind: ProblemKind::Missing {
                    expected: decl.type_.clone(),
                    // Only a name no declared parameter has is a likely typo of this one.
                    given_as: crate::suggest::suggest(
                        name,
                        given
                            .keys()
                            .map(String::as_str)
                            .filter(|g| !dynamic.contains_key(*g)),
                    )
                    .map(str::to_string),
                },
                services: services(),
                defined_at: None,
            }),
            (None, None) => {
                if ty
                    .and_then(parse_type)
                    .is_some_and(|(_, nullable)| nullable)
                {
                    resolved.insert(name.clone(), Value::Null);
                }
            }
        }
    }
    (resolved, problems)
}

/// A problem for each value in `given` for a static parameter of a plan that declares its
/// dynamic ones (`dynamic`, plan version 3): a name of `parameters`, or a dotted name into
/// one, that `dynamic` does not declare. Names of neither kind are not checked (a map of
/// values may be passed whole, [`crate::ContainerBuilder::parameters`]).
pub(crate) fn static_given(
    parameters: &IndexMap<String, Expr>,
    dynamic: &IndexMap<String, DynamicParam>,
    given: &HashMap<String, Value>,
) -> Vec<DynamicProblem> {
    let mut names: Vec<&String> = given
        .keys()
        .filter(|g| !dynamic.contains_key(g.as_str()) && !g.starts_with("env."))
        .filter(|g| {
            let top = g.split('.').next().unwrap_or(g);
            parameters.contains_key(top)
                && !dynamic.keys().any(|d| d.split('.').next() == Some(top))
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| DynamicProblem {
            name: name.clone(),
            kind: ProblemKind::Static,
            services: Vec::new(),
            defined_at: None,
        })
        .collect()
}

/// Dynamic parameter → the services (and `initialization`) whose expressions read it, in plan
/// order, each once.
fn readers(plan: &Plan) -> HashMap<&str, Vec<String>> {
    let mut out: HashMap<&str, Vec<String>> = HashMap::new();
    for (service, sp) in &plan.services {
        let mut names = Vec::new();
        for e in std::iter::once(&sp.create)
            .chain(&sp.setup)
            .chain(sp.references.values())
        {
            params_in(e, &mut names);
        }
        for n in names {
            let list = out.entry(n).or_default();
            if !list.iter().any(|s| s == service) {
                list.push(service.to_string());
            }
        }
    }
    let mut names = Vec::new();
    plan.initialization
        .iter()
        .for_each(|e| params_in(e, &mut names));
    for n in names {
        let list = out.entry(n).or_default();
        if !list.iter().any(|s| s == "initialization") {
            list.push("initialization".to_string());
        }
    }
    out
}

/// Every `$param` name read inside `e`, in the order they appear (iteratively: plans nest up
/// to 100 levels).
pub fn params_in<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    // The expressions still to visit, the next one last: children are pushed in reverse.
    // Allocated only for an expression with children (most service arguments are references).
    let mut todo: Vec<&'e Expr> = Vec::new();
    let mut next = Some(e);
    while let Some(e) = next.take().or_else(|| todo.pop()) {
        let target = |t: &'e CallTarget, todo: &mut Vec<&'e Expr>| {
            if let CallTarget::Expr(inner) = t {
                todo.push(inner);
            }
        };
        match e {
            Expr::Param(name) => out.push(name),
            Expr::List(items) | Expr::Concat(items) => todo.extend(items.iter().rev()),
            Expr::Map(m) => todo.extend(m.values().rev()),
            Expr::New { args, .. } => todo.extend(args.iter().rev()),
            Expr::Call {
                target: t, args, ..
            } => {
                todo.extend(args.iter().rev());
                target(t, &mut todo);
            }
            Expr::Set {
                target: t, value, ..
            } => {
                todo.push(value);
                target(t, &mut todo);
            }
            Expr::Get { target: t, .. } | Expr::Callable { target: t, .. } => target(t, &mut todo),
            Expr::Func { arg, .. } => todo.push(arg),
            Expr::ArgOr { default, .. } => todo.push(default),
            Expr::Null
            | Expr::Bool(_)
            | Expr::Int(_)
            | Expr::Float(_)
            | Expr::Str(_)
            | Expr::Ref(_)
            | Expr::Provider(_)
            | Expr::Arg(_) => {}
        }
    }
}

/// Checks the section itself (for the loader's "invalid plan" list): known types, defaults
/// that are plain values of the type.
pub(crate) fn section_problems(dynamic: &IndexMap<String, DynamicParam>) -> Vec<String> {
    let mut out = Vec::new();
    for (name, decl) in dynamic {
        if let Some(t) = &decl.type_ {
            if parse_type(t).is_none() {
                out.push(format!(
                    "dynamic parameter '{name}': unknown type '{t}' (expected one of {}, \
                     optionally with '?')",
                    TYPES.join(", ")
                ));
                continue;
            }
        }
        if let Some(d) = &decl.default {
            match (d.plain_value(), &decl.type_) {
                (None, _) => out.push(format!(
                    "dynamic parameter '{name}': the default is not a plain value"
                )),
                (Some(v), Some(t)) if cast(&v, t).is_err() => out.push(format!(
                    "dynamic parameter '{name}': the default is not a valid {t}"
                )),
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod params_in_tests {
    use super::*;

    fn p(name: &str) -> Expr {
        Expr::Param(name.into())
    }

    fn target(e: Expr) -> CallTarget {
        CallTarget::Expr(Box::new(e))
    }

    /// Every kind of expression with children, nested: the names come in the order they are
    /// written (a call's target before its arguments, a map's values in key order).
    #[test]
    fn parameters_are_found_in_written_order() {
        let map: IndexMap<String, Expr> = [("z".to_string(), p("d")), ("a".to_string(), p("e"))]
            .into_iter()
            .collect();
        let e = Expr::Call {
            target: target(Expr::Get {
                target: target(p("a")),
                property: "x".into(),
            }),
            method: "m".into(),
            args: vec![
                p("b"),
                Expr::List(vec![Expr::Ref("s".into()), p("c"), Expr::Map(map)]),
                Expr::Set {
                    target: target(p("f")),
                    property: "y".into(),
                    value: Box::new(Expr::Concat(vec![Expr::Str("-".into()), p("g")])),
                },
                Expr::New {
                    class: "C".into(),
                    args: vec![
                        Expr::Func {
                            name: "not".into(),
                            arg: Box::new(p("h")),
                        },
                        Expr::ArgOr {
                            name: "n".into(),
                            default: Box::new(p("i")),
                        },
                        Expr::Callable {
                            target: target(p("j")),
                            method: "k".into(),
                        },
                    ],
                },
                p("b"),
            ],
        };
        let mut out = Vec::new();
        params_in(&e, &mut out);
        assert_eq!(out, ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "b"]);
        let leaf = Expr::Ref("s".into());
        let mut none = Vec::new();
        params_in(&leaf, &mut none);
        assert!(none.is_empty());
    }
}
