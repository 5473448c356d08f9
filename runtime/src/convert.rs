//! Nette's built-in conversion functions of the configuration: `not(x)`, `bool(x)`, `int(x)`,
//! `float(x)` and `string(x)` (`../shared/reference/nette-di.md` §4).
//!
//! `not` is PHP's `!x`. The other four follow Nette's `Helpers::convertType`: a conversion is
//! allowed only when it loses nothing, that is when the value, written as text, reads back the
//! same after the conversion (`int('42')` is `42`, `int('4x')` and `int(1.5)` fail,
//! `bool(1)` is `true`, `bool('yes')` fails), and only scalars convert (`int(null)` fails).
//! The compiler applies them to constant values; the runtime to values known only at start-up
//! (`{"$func": "int", "args": [{"$param": "env.PORT"}]}`), with the same rules and messages.

use crate::value::Value;

/// The names a `$func` may have.
pub const FUNCTIONS: [&str; 5] = ["not", "bool", "int", "float", "string"];

/// Applies the function `name` (one of [`FUNCTIONS`]) to `value`.
///
/// Errors are Nette's message, e.g. `Cannot convert '4x' to int.`, or `unknown function 'x'`.
pub fn convert(name: &str, value: &Value) -> Result<Value, String> {
    if name == "not" {
        return Ok(Value::Bool(!truthy(value)));
    }
    if !FUNCTIONS.contains(&name) {
        return Err(format!("unknown function '{name}'"));
    }
    let fail = |shown: &str| format!("Cannot convert {shown} to {name}.");
    let text = match value {
        Value::Bool(false) => "0".to_string(),
        Value::Bool(true) => "1".to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float_text(*f),
        Value::Str(s) => s.clone(),
        other => return Err(fail(&other.kind())),
    };
    let shown = format!("'{text}'");
    match name {
        "string" => Ok(Value::Str(text)),
        "int" => match text.parse::<i64>() {
            Ok(i) if i.to_string() == text => Ok(Value::Int(i)),
            _ => Err(fail(&shown)),
        },
        "float" => {
            let norm = strip_zero_fraction(&text);
            match norm.parse::<f64>() {
                Ok(f) if f.is_finite() && float_text(f) == norm => Ok(Value::Float(f)),
                _ => Err(fail(&shown)),
            }
        }
        _ => match text.as_str() {
            "1" => Ok(Value::Bool(true)),
            "0" => Ok(Value::Bool(false)),
            _ => Err(fail(&shown)),
        },
    }
}

/// PHP's truthiness: `null`, `false`, `0`, `0.0`, `''`, `'0'` and empty arrays are false;
/// everything else (including objects and callables) is true.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !(s.is_empty() || s == "0"),
        Value::List(l) => !l.is_empty(),
        Value::Map(m) => !m.is_empty(),
        Value::Service(_) | Value::Callable(_) => true,
    }
}

/// A float as PHP writes it for these conversions: no `.0` on whole numbers (`2`), shortest
/// round-trip digits otherwise (`1.5`).
fn float_text(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

/// Nette strips a fraction of only zeros before a float conversion (`'2.0'` → `'2'`).
fn strip_zero_fraction(s: &str) -> String {
    match s.rsplit_once('.') {
        Some((whole, frac)) if frac.chars().all(|c| c == '0') => whole.to_string(),
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn lossless_conversions_succeed() {
        assert_eq!(convert("int", &s("42")), Ok(Value::Int(42)));
        assert_eq!(convert("int", &s("-7")), Ok(Value::Int(-7)));
        assert_eq!(convert("int", &Value::Float(3.0)), Ok(Value::Int(3)));
        assert_eq!(convert("int", &Value::Bool(true)), Ok(Value::Int(1)));
        assert_eq!(convert("float", &s("1.5")), Ok(Value::Float(1.5)));
        assert_eq!(convert("float", &s("2.0")), Ok(Value::Float(2.0)));
        assert_eq!(convert("float", &Value::Int(3)), Ok(Value::Float(3.0)));
        assert_eq!(convert("bool", &Value::Int(1)), Ok(Value::Bool(true)));
        assert_eq!(convert("bool", &s("0")), Ok(Value::Bool(false)));
        assert_eq!(convert("bool", &Value::Bool(false)), Ok(Value::Bool(false)));
        assert_eq!(convert("string", &Value::Int(7)), Ok(s("7")));
        assert_eq!(convert("string", &Value::Bool(false)), Ok(s("0")));
        assert_eq!(convert("string", &Value::Float(1.5)), Ok(s("1.5")));
    }

    #[test]
    fn lossy_conversions_fail_with_nettes_message() {
        let cases = [
            ("int", s("4x"), "Cannot convert '4x' to int."),
            ("int", s(" 42"), "Cannot convert ' 42' to int."),
            ("int", s("042"), "Cannot convert '042' to int."),
            ("int", Value::Float(1.5), "Cannot convert '1.5' to int."),
            ("float", s("1.50"), "Cannot convert '1.50' to float."),
            ("float", s("abc"), "Cannot convert 'abc' to float."),
            ("bool", s("yes"), "Cannot convert 'yes' to bool."),
            ("bool", Value::Int(2), "Cannot convert '2' to bool."),
            ("int", Value::Null, "Cannot convert null to int."),
            (
                "string",
                Value::List(vec![]),
                "Cannot convert list to string.",
            ),
        ];
        for (f, v, msg) in cases {
            assert_eq!(convert(f, &v), Err(msg.to_string()), "{f}({v:?})");
        }
        assert_eq!(
            convert("len", &s("x")),
            Err("unknown function 'len'".into())
        );
    }

    #[test]
    fn not_is_php_negation() {
        for (v, want) in [
            (Value::Null, true),
            (s(""), true),
            (s("0"), true),
            (s("0.0"), false),
            (Value::List(vec![]), true),
            (Value::Int(3), false),
            (Value::Float(0.0), true),
        ] {
            assert_eq!(convert("not", &v), Ok(Value::Bool(want)), "{v:?}");
        }
    }
}
