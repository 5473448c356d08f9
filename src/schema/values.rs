//! Value helpers of the schema processor, after nette/schema's `Helpers`: merging layers,
//! formatting values for messages, "did you mean" suggestions, and `castTo` conversions.

use super::process::Context;
use super::types::format_number;
use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use crate::neon::Key;

fn is_dynamic(v: &Expr) -> bool {
    matches!(v.kind, ExprKind::Dynamic(_) | ExprKind::Concat(_))
}

/// Nette's `Helpers::getSuggestion`; one rule for the whole compiler.
pub use crate::diagnostics::suggest;

/// Nette's `Helpers::formatValue`: strings quoted and cut to 15 characters, scalars as PHP
/// prints them, `array`, `object Class`, `dynamic`.
pub fn format_value(v: &Expr) -> String {
    match &v.kind {
        ExprKind::Null => "null".into(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Int(i) => i.to_string(),
        ExprKind::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}"),
        ExprKind::Float(f) => super::types::format_float(*f),
        ExprKind::Str(s) => format!("'{}'", truncate(s)),
        ExprKind::Array(_) => "array".into(),
        ExprKind::Statement(st) => match &st.callee {
            Callee::Name(n) => format!("object {}", n.split("::").next().unwrap_or(n)),
            Callee::Member(..) => "object Statement".into(),
        },
        ExprKind::Dynamic(_) | ExprKind::Concat(_) => "dynamic".into(),
    }
}

/// `Strings::truncate($s, 15, '...')`: cut at a word boundary within 12 characters if there is
/// one.
fn truncate(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= 15 {
        return s.to_string();
    }
    let separator = |c: char| c.is_whitespace() || (c.is_ascii() && !c.is_ascii_alphanumeric());
    let cut = (1..=12).rev().find(|&n| separator(chars[n])).unwrap_or(12);
    format!("{}...", chars[..cut].iter().collect::<String>())
}

/// Nette's `Helpers::merge`: merges `value` (newer) over `base`. Two arrays merge: items of
/// `value` whose integer keys continue `0, 1, …` are appended, other keys merge recursively, a
/// key written `name!` replaces `name`; `null` over an array keeps the array; otherwise the newer
/// value wins.
pub fn merge(value: Expr, base: Expr) -> Expr {
    merge_with(value, base, false)
}

/// `lists_replace`: a list over a list replaces it (the default merge of `default()` values).
pub(crate) fn merge_with(value: Expr, base: Expr, lists_replace: bool) -> Expr {
    match (value.kind, base.kind) {
        (ExprKind::Array(v), ExprKind::Array(b))
            if !(lists_replace && v.is_list() && b.is_list()) =>
        {
            let mut b = b;
            // Where the value's string keys were written: kept for the merged collection, so
            // an error about a key (an unknown named argument) still points at it.
            let spans: Vec<(Key, crate::source::Span)> = v
                .items
                .keys()
                .filter_map(|k| Some((k.clone(), v.key_span(k.as_str()?)?)))
                .collect();
            let mut index = 0i64;
            for (k, x) in v.items {
                if k == Key::Int(index) {
                    index += 1;
                    b.push(x);
                    continue;
                }
                if let Key::Str(s) = &k {
                    if let Some(name) = s.strip_suffix('!') {
                        b.items.insert(Key::from_string(name.to_string()), x);
                        continue;
                    }
                }
                match b.items.get_mut(&k) {
                    Some(slot) => {
                        let old = std::mem::replace(slot, Expr::bare(ExprKind::Null));
                        *slot = merge_with(x, old, lists_replace);
                    }
                    None => {
                        b.items.insert(k, x);
                    }
                }
            }
            for (k, span) in &spans {
                b.set_key_span(k, *span);
            }
            Expr::new(ExprKind::Array(b), value.span.or(base.span))
        }
        (ExprKind::Null, ExprKind::Array(b)) => Expr::new(ExprKind::Array(b), base.span),
        (kind, _) => Expr::new(kind, value.span),
    }
}

/// PHP truthiness.
fn truthy(v: &Expr) -> bool {
    match &v.kind {
        ExprKind::Null => false,
        ExprKind::Bool(b) => *b,
        ExprKind::Int(i) => *i != 0,
        ExprKind::Float(f) => *f != 0.0,
        ExprKind::Str(s) => !(s.is_empty() || s == "0"),
        ExprKind::Array(a) => !a.is_empty(),
        _ => true,
    }
}

/// The leading number of a string, as PHP's `(int)` / `(float)` read it.
fn leading_number(s: &str) -> f64 {
    let t = s.trim_start();
    let mut end = 0;
    for (i, c) in t.char_indices() {
        let ok = c.is_ascii_digit()
            || (i == 0 && (c == '-' || c == '+'))
            || c == '.'
            || c == 'e'
            || c == 'E';
        if !ok {
            break;
        }
        end = i + c.len_utf8();
    }
    (0..=end)
        .rev()
        .find_map(|e| t[..e].parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// `castTo(ty)`: PHP `settype` for built-in types, a statement `ty(…)` for class names.
pub(crate) fn cast(ty: &str, value: Expr, ctx: &mut Context) -> Expr {
    if is_dynamic(&value) {
        return value;
    }
    let span = value.span;
    let kind = match ty.to_ascii_lowercase().as_str() {
        "int" | "integer" => ExprKind::Int(match &value.kind {
            ExprKind::Int(i) => *i,
            ExprKind::Float(f) => f.trunc() as i64,
            ExprKind::Str(s) => leading_number(s).trunc() as i64,
            other => i64::from(truthy(&Expr::bare(other.clone()))),
        }),
        "float" | "double" => ExprKind::Float(match &value.kind {
            ExprKind::Int(i) => *i as f64,
            ExprKind::Float(f) => *f,
            ExprKind::Str(s) => leading_number(s),
            other => f64::from(u8::from(truthy(&Expr::bare(other.clone())))),
        }),
        "bool" | "boolean" => ExprKind::Bool(truthy(&value)),
        "string" => match &value.kind {
            ExprKind::Str(s) => ExprKind::Str(s.clone()),
            ExprKind::Int(i) => ExprKind::Str(i.to_string()),
            ExprKind::Float(f) => ExprKind::Str(format_number(*f)),
            ExprKind::Bool(b) => ExprKind::Str(if *b { "1".into() } else { String::new() }),
            ExprKind::Null => ExprKind::Str(String::new()),
            _ => {
                ctx.add_error(format!(
                    "The {} cannot be cast to string, {} given.",
                    ctx.subject(),
                    format_value(&value)
                ));
                return value;
            }
        },
        "array" => match value.kind {
            ExprKind::Array(a) => ExprKind::Array(a),
            ExprKind::Null => ExprKind::Array(ExprArray::new()),
            other => {
                let mut a = ExprArray::new();
                a.push(Expr::new(other, span));
                ExprKind::Array(a)
            }
        },
        _ => {
            let arguments = match value.kind {
                ExprKind::Array(a) => a,
                other => {
                    let mut a = ExprArray::new();
                    a.push(Expr::new(other, span));
                    a
                }
            };
            ExprKind::Statement(Box::new(Statement {
                callee: Callee::Name(ty.to_string()),
                arguments,
            }))
        }
    };
    Expr::new(kind, span)
}
