//! Type strings of Nette's `Validators::is()`: `int`, `?string`, `int|string`, `string:1..10`,
//! `int[]`, `list`, class names.

use crate::expr::{Expr, ExprKind};

/// A bound `min..max`; either side may be open.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Range {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Range {
    fn parse(s: &str) -> Result<Range, String> {
        let (a, b) = s
            .split_once("..")
            .ok_or_else(|| format!("Invalid range '{s}' in type, expected 'min..max'."))?;
        let num = |t: &str| -> Result<Option<f64>, String> {
            let t = t.trim();
            if t.is_empty() {
                Ok(None)
            } else {
                t.parse::<f64>()
                    .map(Some)
                    .map_err(|_| format!("Invalid range bound '{t}' in type."))
            }
        };
        Ok(Range {
            min: num(a)?,
            max: num(b)?,
        })
    }

    /// Is `n` inside the bounds?
    pub fn contains(&self, n: f64) -> bool {
        self.min.is_none_or(|m| n >= m) && self.max.is_none_or(|m| n <= m)
    }

    /// `1..10`, `3..`, `..5`, formatted like PHP numbers.
    pub fn describe(&self) -> String {
        let f = |v: Option<f64>| v.map(format_number).unwrap_or_default();
        format!("{}..{}", f(self.min), f(self.max))
    }
}

/// A number as PHP prints it (`3`, `1.5`, `1.0E+20`).
pub(crate) fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format_float(n)
    }
}

/// A float that is not a whole number below 10^15 as PHP prints it: its shortest decimal form,
/// in exponent form (`1.0E+308`, `2.5E-7`) from 10^15 up and below 10^-4, so a huge value
/// does not print as hundreds of digits.
pub(crate) fn format_float(f: f64) -> String {
    let a = f.abs();
    if !f.is_finite() || a == 0.0 || (1e-4..1e15).contains(&a) {
        return f.to_string();
    }
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let dot = if mantissa.contains('.') { "" } else { ".0" };
    let sign = if exp.starts_with('-') { "" } else { "+" };
    format!("{mantissa}{dot}E{sign}{exp}")
}

/// One alternative of a union.
#[derive(Debug, Clone, PartialEq)]
struct Alt {
    /// Lower-cased built-in name, or the class name as written.
    name: String,
    /// `T[]`: an array whose items are all `T`.
    array_of: bool,
    range: Option<Range>,
}

/// A parsed type string.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TypeSpec {
    alts: Vec<Alt>,
}

const BUILTINS: &[&str] = &[
    "bool",
    "boolean",
    "int",
    "integer",
    "float",
    "number",
    "numeric",
    "numericint",
    "string",
    "unicode",
    "scalar",
    "null",
    "array",
    "list",
    "iterable",
    "mixed",
    "callable",
    "object",
    "statement",
    "entity",
    "email",
    "url",
];

impl TypeSpec {
    /// Parses `ty`; a type string that does not parse checks as `mixed`, with the reason
    /// returned (a schema misuse the caller reports).
    pub fn parse_or_mixed(ty: &str) -> (TypeSpec, Option<String>) {
        match TypeSpec::parse(ty) {
            Ok(spec) => (spec, None),
            Err(msg) => (
                TypeSpec {
                    alts: vec![Alt {
                        name: "mixed".into(),
                        array_of: false,
                        range: None,
                    }],
                },
                Some(msg),
            ),
        }
    }

    /// Parses `?A|B:1..2|C[]`. Errors describe the bad part.
    pub fn parse(ty: &str) -> Result<TypeSpec, String> {
        let (nullable, body) = match ty.strip_prefix('?') {
            Some(rest) => (true, rest),
            None => (false, ty),
        };
        let mut alts = Vec::new();
        if nullable {
            alts.push(Alt {
                name: "null".into(),
                array_of: false,
                range: None,
            });
        }
        for part in body.split('|') {
            let part = part.trim();
            let (name, range) = match part.split_once(':') {
                Some((n, r)) => (n, Some(Range::parse(r)?)),
                None => (part, None),
            };
            let (name, array_of) = match name.strip_suffix("[]") {
                Some(n) => (n, true),
                None => (name, false),
            };
            if name.is_empty() {
                return Err(format!("Invalid type '{ty}'."));
            }
            let lower = name.to_ascii_lowercase();
            let name = if BUILTINS.contains(&lower.as_str()) {
                lower
            } else {
                name.to_string()
            };
            alts.push(Alt {
                name,
                array_of,
                range,
            });
        }
        Ok(TypeSpec { alts })
    }

    /// Does `v` satisfy the type (including ranges)?
    pub fn matches(&self, v: &Expr) -> bool {
        self.alts.iter().any(|a| alt_matches(a, v))
    }

    /// Is this the `unicode` type (lengths in characters)?
    pub fn is_unicode(&self) -> bool {
        self.alts.iter().any(|a| a.name == "unicode")
    }
}

fn alt_matches(a: &Alt, v: &Expr) -> bool {
    if a.array_of {
        let one = Alt {
            array_of: false,
            range: None,
            ..a.clone()
        };
        return match &v.kind {
            ExprKind::Array(arr) => {
                arr.values().all(|x| alt_matches(&one, x))
                    && a.range.is_none_or(|r| r.contains(arr.len() as f64))
            }
            _ => false,
        };
    }
    let ok = match a.name.as_str() {
        "mixed" => true,
        "bool" | "boolean" => matches!(v.kind, ExprKind::Bool(_)),
        "int" | "integer" => matches!(v.kind, ExprKind::Int(_)),
        "float" | "number" => matches!(v.kind, ExprKind::Int(_) | ExprKind::Float(_)),
        "numeric" => match &v.kind {
            ExprKind::Int(_) | ExprKind::Float(_) => true,
            ExprKind::Str(s) => s.trim().parse::<f64>().is_ok(),
            _ => false,
        },
        "numericint" => match &v.kind {
            ExprKind::Int(_) => true,
            ExprKind::Str(s) => s.trim().parse::<i64>().is_ok(),
            _ => false,
        },
        "string" | "unicode" => matches!(v.kind, ExprKind::Str(_)),
        "scalar" => matches!(
            v.kind,
            ExprKind::Bool(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_)
        ),
        "null" => v.is_null(),
        "array" | "iterable" => matches!(v.kind, ExprKind::Array(_)),
        "list" => matches!(&v.kind, ExprKind::Array(a) if a.is_list()),
        "callable" => match &v.kind {
            ExprKind::Str(s) => !s.is_empty(),
            ExprKind::Statement(_) => true,
            ExprKind::Array(a) => a.len() == 2 && a.is_list(),
            _ => false,
        },
        "email" => v.as_str().is_some_and(is_email),
        "url" => v.as_str().is_some_and(|s| {
            s.split_once("://")
                .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty())
        }),
        // `object`, `statement`, `entity` and class names: a NEON entity.
        _ => matches!(v.kind, ExprKind::Statement(_)),
    };
    if !ok {
        return false;
    }
    match a.range {
        None => true,
        Some(r) => match &v.kind {
            ExprKind::Int(i) => r.contains(*i as f64),
            ExprKind::Float(f) => r.contains(*f),
            ExprKind::Str(s) if a.name == "unicode" => r.contains(s.chars().count() as f64),
            ExprKind::Str(s) => r.contains(s.len() as f64),
            ExprKind::Array(arr) => r.contains(arr.len() as f64),
            _ => true,
        },
    }
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && !local.contains(char::is_whitespace)
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains(char::is_whitespace)
}

/// The type as messages write it: `int or string`, `string in range 1..10`.
pub(crate) fn describe(ty: &str) -> String {
    ty.replace('|', " or ").replace(':', " in range ")
}
