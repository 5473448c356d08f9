//! What the macro can tell from a type's syntax: parameter types with no conversion, and the
//! shape of return types (`Self`, `Arc<Self>`, `Result<_, E>`).

use syn::{GenericArgument, PathArguments, Type};

/// Rejects a parameter type that can never have an `ArgType` conversion, with the reason.
/// Path types (`i64`, `Arc<dyn Logger>`, `MyType`) pass here; an unsupported one then fails the
/// `ArgType` bound, with the error pointing at the parameter.
pub(crate) fn check_param_type(ty: &Type) -> syn::Result<()> {
    match ty {
        Type::Reference(_) => Err(syn::Error::new_spanned(
            ty,
            "a reference parameter cannot be registered: the container passes owned values; \
             take `String` instead of `&str`, `Arc<T>` instead of `&T`",
        )),
        Type::ImplTrait(_) => Err(syn::Error::new_spanned(
            ty,
            "an `impl Trait` parameter is generic and cannot be registered; take `Arc<dyn Trait>`",
        )),
        Type::Paren(p) => check_param_type(&p.elem),
        Type::Group(g) => check_param_type(&g.elem),
        Type::Path(p) => {
            if p.qself.is_some() {
                return Ok(());
            }
            for seg in &p.path.segments {
                if let PathArguments::AngleBracketed(args) = &seg.arguments {
                    for arg in &args.args {
                        if let GenericArgument::Type(inner) = arg {
                            check_nested(inner)?;
                        }
                    }
                }
            }
            Ok(())
        }
        Type::Macro(_) => Ok(()),
        Type::Tuple(t) if t.elems.is_empty() => Err(syn::Error::new_spanned(
            ty,
            "a `()` parameter has no catalog type; remove it",
        )),
        _ => Err(syn::Error::new_spanned(
            ty,
            "this parameter type has no catalog conversion; accepted: `Arc<T>`, `Arc<dyn Trait>`, \
             `Vec<Arc<dyn Trait>>`, `Provider<T>`, `Option<_>`, `i64`, `i32`, `i16`, `i8`, \
             `u64`, `u32`, `u16`, `u8`, `usize`, `f64`, `bool`, `String`, `Value`, `Callable`, \
             `Vec<Value>`, `IndexMap<String, Value>`",
        )),
    }
}

/// Inside `Option<..>`, `Arc<..>`, `Vec<..>`: references are still references; trait objects
/// are fine (`Arc<dyn Logger>`).
fn check_nested(ty: &Type) -> syn::Result<()> {
    match ty {
        Type::TraitObject(_) => Ok(()),
        Type::Reference(_) | Type::ImplTrait(_) => check_param_type(ty),
        Type::Path(_) | Type::Paren(_) | Type::Group(_) => check_param_type(ty),
        _ => Ok(()),
    }
}

/// The first generic type argument of the last path segment, when `matches` accepts the
/// segment's name (`Arc<T>` → `T` for `|n| n == "Arc"`).
fn last_segment_arg(ty: &Type, matches: impl Fn(&str) -> bool) -> Option<&Type> {
    let Type::Path(p) = strip(ty) else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let seg = p.path.segments.last()?;
    if !matches(&seg.ident.to_string()) {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Paren(p) => strip(&p.elem),
        Type::Group(g) => strip(&g.elem),
        other => other,
    }
}

/// `Result<T, E>`, `io::Result<T>`, `CallResult<T>`, `anyhow::Result<T>` → `Some(T)`: any path
/// whose last segment is named `Result` or ends in `Result` is taken as fallible, and its error
/// must convert into `BoxError` (the generated code uses `?`).
pub(crate) fn fallible(ty: &Type) -> Option<&Type> {
    last_segment_arg(ty, |n| n.ends_with("Result"))
}

/// `Arc<T>` → `Some(T)`.
pub(crate) fn arc_of(ty: &Type) -> Option<&Type> {
    last_segment_arg(ty, |n| n == "Arc")
}

/// Whether `ty` is `Self` or a path whose last segment is `own` (the registered type's name).
pub(crate) fn is_self(ty: &Type, own: &str) -> bool {
    match strip(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|s| {
            (s.ident == "Self" || s.ident == own) && matches!(s.arguments, PathArguments::None)
        }),
        _ => false,
    }
}

/// Whether `ty` is `()`.
pub(crate) fn is_unit(ty: &Type) -> bool {
    matches!(strip(ty), Type::Tuple(t) if t.elems.is_empty())
}

/// A scalar parameter type as the default check reads it from the syntax.
#[derive(Clone, Copy, PartialEq)]
enum Scalar {
    Int(i128, i128),
    Float,
    Bool,
    Str,
}

/// The scalar kind of `ty` and whether it is an `Option`; `None` for every other type (not
/// checked).
fn scalar_of(ty: &Type) -> Option<(Scalar, bool)> {
    let Type::Path(tp) = ty else { return None };
    let seg = tp.path.segments.last()?;
    if seg.ident == "Option" {
        let PathArguments::AngleBracketed(a) = &seg.arguments else {
            return None;
        };
        let Some(GenericArgument::Type(inner)) = a.args.first() else {
            return None;
        };
        return scalar_of(inner).map(|(k, _)| (k, true));
    }
    if !seg.arguments.is_empty() {
        return None;
    }
    let kind = match seg.ident.to_string().as_str() {
        "i64" => Scalar::Int(i64::MIN.into(), i64::MAX.into()),
        "i32" => Scalar::Int(i32::MIN.into(), i32::MAX.into()),
        "i16" => Scalar::Int(i16::MIN.into(), i16::MAX.into()),
        "i8" => Scalar::Int(i8::MIN.into(), i8::MAX.into()),
        "u64" | "usize" => Scalar::Int(0, i64::MAX.into()),
        "u32" => Scalar::Int(0, u32::MAX.into()),
        "u16" => Scalar::Int(0, u16::MAX.into()),
        "u8" => Scalar::Int(0, u8::MAX.into()),
        "f64" => Scalar::Float,
        "bool" => Scalar::Bool,
        "String" => Scalar::Str,
        _ => return None,
    };
    Some((kind, false))
}

/// Why the `#[default(..)]` literal `d` does not suit a parameter of type `ty` (a string for an
/// `i64`, 300 for a `u8`, `None` for a type that is no `Option`, …), read from the syntax: the
/// catalog would carry a default the compiler refuses, pointing into the generated catalog.
/// `None` when it suits, and for every default or type this cannot read.
pub(crate) fn default_problem(ty: &Type, d: &syn::Expr) -> Option<String> {
    use syn::{Expr, Lit, UnOp};
    let (kind, nullable) = scalar_of(ty)?;
    let (lit, negative) = match d {
        Expr::Lit(l) => (&l.lit, false),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(l) => (&l.lit, true),
            _ => return None,
        },
        Expr::Path(p) if p.qself.is_none() && p.path.is_ident("None") => {
            return (!nullable).then(|| {
                "`None` is the default of an `Option` parameter only; this one is no `Option`"
                    .to_string()
            });
        }
        _ => return None,
    };
    let given = match lit {
        Lit::Int(i) => {
            let v: i128 = i.base10_parse().ok()?;
            let v = if negative { -v } else { v };
            match kind {
                Scalar::Int(min, max) if v < min || v > max => {
                    return Some(format!(
                        "the default {v} is out of the parameter type's range ({min}..={max})"
                    ))
                }
                Scalar::Int(..) | Scalar::Float => return None,
                _ => "an integer",
            }
        }
        Lit::Float(_) if kind == Scalar::Float => return None,
        Lit::Float(_) => "a float",
        Lit::Str(_) if kind == Scalar::Str => return None,
        Lit::Str(_) => "a string",
        Lit::Bool(_) if kind == Scalar::Bool => return None,
        Lit::Bool(_) => "a bool",
        _ => return None,
    };
    let takes = match kind {
        Scalar::Int(..) => "an integer",
        Scalar::Float => "a number",
        Scalar::Bool => "a bool",
        Scalar::Str => "a string",
    };
    Some(format!(
        "the default is {given}, but the parameter takes {takes}"
    ))
}
