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
