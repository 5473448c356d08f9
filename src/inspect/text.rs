//! Plan expressions written for people, in the notation of NEON service definitions:
//! `App\Repo(@db, 5)` for a `$new`, `@self::setLogger(@logger)` for a setup call,
//! `App\Factory::create()` for a static call, `%env.DSN%` for a dynamic parameter read.
//!
//! | plan JSON | text |
//! |---|---|
//! | `{"$ref": "db"}` | `@db` |
//! | `{"$new": "C", "args": [1]}` | `C(1)` |
//! | `{"$call": [T, "m"], "args": []}` | `T::m()` (T: a class, `@self`, `@name` or a statement) |
//! | `{"$set": [T, "p"], "value": V}` | `T::$p = V` |
//! | `{"$get": [T, "p"]}` | `T::$p` |
//! | `{"$callable": [T, "m"]}` | `T::m(...)` |
//! | `{"$func": "not", "args": [x]}` | `not(x)` |
//! | `{"$param": "env.X"}` | `%env.X%` |
//! | `{"$concat": [a, b]}` | `concat(a, b)` |
//! | `{"$arg": "x"}`, with `default` | `$x`, `$x = D` |
//!
//! Strings are double-quoted with JSON escapes (valid NEON), lists are `[a, b]`, maps
//! `{key: value}` (keys quoted unless they are plain words).

use wireplan_runtime::plan::{CallTarget, Expr};

/// The readable text of an expression (see the [module docs](self)).
pub fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(e, &mut out);
    out
}

/// The readable text of a list of expressions, comma-separated (an argument list).
pub fn args(items: &[Expr]) -> String {
    let mut out = String::new();
    write_list(items, &mut out);
    out
}

fn write_list(items: &[Expr], out: &mut String) {
    for (i, a) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(a, out);
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '\\'))
        && !matches!(s, "true" | "false" | "null" | "yes" | "no" | "on" | "off")
}

fn write_target(t: &CallTarget, out: &mut String) {
    match t {
        CallTarget::Class(c) => out.push_str(c),
        CallTarget::SelfObject => out.push_str("@self"),
        CallTarget::Expr(e) => write_expr(e, out),
    }
}

fn write_expr(e: &Expr, out: &mut String) {
    match e {
        Expr::Null => out.push_str("null"),
        Expr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Expr::Int(i) => out.push_str(&i.to_string()),
        Expr::Float(f) if f.is_nan() => out.push_str("NAN"),
        Expr::Float(f) if f.is_infinite() => out.push_str(if *f > 0.0 { "INF" } else { "-INF" }),
        Expr::Float(f) => out.push_str(&serde_json::to_string(f).unwrap_or_else(|_| f.to_string())),
        Expr::Str(s) => out.push_str(&quote(s)),
        Expr::List(items) => {
            out.push('[');
            write_list(items, out);
            out.push(']');
        }
        Expr::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if is_word(k) {
                    out.push_str(k);
                } else {
                    out.push_str(&quote(k));
                }
                out.push_str(": ");
                write_expr(v, out);
            }
            out.push('}');
        }
        Expr::Ref(name) => {
            out.push('@');
            out.push_str(name);
        }
        Expr::New { class, args } => {
            out.push_str(class);
            out.push('(');
            write_list(args, out);
            out.push(')');
        }
        Expr::Call {
            target,
            method,
            args,
        } => {
            write_target(target, out);
            out.push_str("::");
            out.push_str(method);
            out.push('(');
            write_list(args, out);
            out.push(')');
        }
        Expr::Set {
            target,
            property,
            value,
        } => {
            write_target(target, out);
            out.push_str("::$");
            out.push_str(property);
            out.push_str(" = ");
            write_expr(value, out);
        }
        Expr::Get { target, property } => {
            write_target(target, out);
            out.push_str("::$");
            out.push_str(property);
        }
        Expr::Callable { target, method } => {
            write_target(target, out);
            out.push_str("::");
            out.push_str(method);
            out.push_str("(...)");
        }
        Expr::Func { name, arg } => {
            out.push_str(name);
            out.push('(');
            write_expr(arg, out);
            out.push(')');
        }
        Expr::Param(name) => {
            out.push('%');
            out.push_str(name);
            out.push('%');
        }
        Expr::Concat(parts) => {
            out.push_str("concat(");
            write_list(parts, out);
            out.push(')');
        }
        Expr::Arg(name) => {
            out.push('$');
            out.push_str(name);
        }
        Expr::ArgOr { name, default } => {
            out.push('$');
            out.push_str(name);
            out.push_str(" = ");
            write_expr(default, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(j: serde_json::Value) -> String {
        expr(&Expr::from_json(&j).expect("valid expression"))
    }

    #[test]
    fn statements_read_like_neon() {
        assert_eq!(
            text(json!({"$new": "App\\Repo", "args": [{"$ref": "db"}, 5, "a\"b"]})),
            "App\\Repo(@db, 5, \"a\\\"b\")"
        );
        assert_eq!(
            text(json!({"$call": ["@self", "setLogger"], "args": [{"$ref": "logger"}]})),
            "@self::setLogger(@logger)"
        );
        assert_eq!(
            text(json!({"$set": [{"$ref": "a"}, "x"], "value": {"$param": "env.X"}})),
            "@a::$x = %env.X%"
        );
        assert_eq!(
            text(json!({"k": [1.5, null], "a b": {"$concat": ["x", {"$arg": "n"}]}})),
            "{k: [1.5, null], \"a b\": concat(\"x\", $n)}"
        );
        assert_eq!(
            text(json!({"$callable": ["App\\F", "make"]})),
            "App\\F::make(...)"
        );
    }
}
