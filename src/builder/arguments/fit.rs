//! Whether a completed value fits a declared type (Nette's `Helpers::isType`-style checks made
//! at compile time), and the conversion functions' compile-time results: the pure parts of
//! argument matching ([`super`]).

use crate::catalog::Param;
use crate::expr::Expr;
use wireplan_runtime::plan::{CallTarget, Expr as P};

/// Does a completed value fit a declared type? `None` when it cannot be known at compile time.
pub(super) fn fits(b: &super::super::ContainerBuilder, ty: &str, value: &P) -> Option<bool> {
    let t = ty.to_ascii_lowercase();
    Some(match (t.as_str(), value) {
        (_, P::Get { target, property }) => return property_fits(b, ty, target, property),
        (_, P::Func { name, .. }) => {
            let sample = match name.as_str() {
                "int" => P::Int(0),
                "float" => P::Float(0.0),
                "string" => P::Str(String::new()),
                _ => P::Bool(false),
            };
            return fits(b, ty, &sample);
        }
        (_, P::Param(_) | P::Arg(_) | P::ArgOr { .. } | P::Call { .. }) => return None,
        ("callable" | "closure" | "mixed", P::Callable { .. }) => true,
        ("object", P::Callable { .. }) => return None,
        (_, P::Callable { .. }) => false,
        ("mixed", _) => true,
        (_, P::Null) => false,
        ("int", v) => matches!(v, P::Int(_)),
        ("float", v) => matches!(v, P::Int(_) | P::Float(_)),
        ("string", v) => matches!(v, P::Str(_) | P::Concat(_)),
        ("bool", v) => matches!(v, P::Bool(_)),
        ("array" | "iterable", v) => matches!(v, P::List(_) | P::Map(_)),
        // PHP accepts a Closure object as a callable: a service whose type is `Closure` (or a
        // subclass) in the catalog. The runtime hands a `callable` parameter first-class
        // callables and services whose object is a `Callable`.
        ("callable", P::Ref(name)) => b
            .get_definition(name)?
            .resolved_type
            .as_deref()
            .is_some_and(|t| b.catalog.is_subtype(t, "Closure")),
        ("callable", _) => false,
        ("object", _) => return None,
        (_, P::Ref(name)) => {
            let svc_ty = b.get_definition(name)?.resolved_type.clone()?;
            if crate::catalog::is_builtin(ty) {
                false
            } else {
                b.catalog.is_subtype(&svc_ty, ty)
            }
        }
        (_, P::New { class, .. }) => {
            !crate::catalog::is_builtin(ty) && b.catalog.is_subtype(class, ty)
        }
        (_, _) => false,
    })
}

/// Whether a written `null` may fill the parameter: a nullable or `mixed` type, or a `null`
/// default (PHP makes `T $x = null` nullable).
pub(super) fn accepts_null(p: &Param) -> bool {
    p.ty.nullable
        || p.ty.members.is_empty()
        || p.ty
            .members
            .iter()
            .any(|m| m.eq_ignore_ascii_case("mixed") || m.eq_ignore_ascii_case("null"))
        || p.default.as_deref().is_some_and(Expr::is_null)
}

/// Does the declared type of a property read from a service fit `ty`? `None` when the owner or
/// the property's type is not known (`@self`, `mixed`, a read from a call's result).
fn property_fits(
    b: &super::super::ContainerBuilder,
    ty: &str,
    target: &CallTarget,
    property: &str,
) -> Option<bool> {
    let CallTarget::Expr(e) = target else {
        return None;
    };
    let P::Ref(owner) = &**e else { return None };
    let owner_ty = b.get_definition(owner)?.resolved_type.clone()?;
    let declared = &b.catalog.property(&owner_ty, property)?.ty;
    let mut verdicts = declared.members.iter().map(|m| {
        let (have, want) = (m.to_ascii_lowercase(), ty.to_ascii_lowercase());
        match (have.as_str(), want.as_str()) {
            ("mixed", _) => None,
            (_, "mixed") => Some(true),
            (h, w) if h == w => Some(true),
            ("int", "float") => Some(true),
            ("object", _) | (_, "object") => None,
            _ if crate::catalog::is_builtin(m) || crate::catalog::is_builtin(ty) => Some(false),
            _ => Some(b.catalog.is_subtype(m, ty)),
        }
    });
    // A union fits when one of its members may fit.
    verdicts.try_fold(false, |any, v| v.map(|v| any || v))
}

/// `Helpers::convertType`-style lossless conversion of a constant.
/// A conversion function (`not`, `bool`, `int`, `float`, `string`) on a completed argument:
/// computed now when the argument is a constant (with the runtime's rules, so both agree),
/// left to start-up as `$func` when it is known only then (a dynamic parameter, a property, a
/// call). A service or callable cannot convert to a scalar: an error now rather than at start-up.
pub(super) fn convert(func: &str, v: &P) -> Result<P, String> {
    use wireplan_runtime::convert as rt;
    if let Some(value) = v.plain_value() {
        return rt::convert(func, &value).map(|r| plan_value(&r));
    }
    match v {
        P::Ref(_) | P::New { .. } | P::Callable { .. } if func != "not" => {
            Err(format!("Cannot convert an object to {func}."))
        }
        P::Ref(_) | P::New { .. } | P::Callable { .. } => Ok(P::Bool(false)),
        _ => Ok(P::Func {
            name: func.to_string(),
            arg: Box::new(v.clone()),
        }),
    }
}

/// A scalar result of a conversion back as a plan value.
pub(super) fn plan_value(v: &wireplan_runtime::Value) -> P {
    use wireplan_runtime::Value as V;
    match v {
        V::Bool(b) => P::Bool(*b),
        V::Int(i) => P::Int(*i),
        V::Float(f) => P::Float(*f),
        V::Str(s) => P::Str(s.clone()),
        _ => P::Null,
    }
}
