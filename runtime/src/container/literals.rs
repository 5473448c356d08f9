//! A plan's literal constructor arguments against the parameter types the registry declares
//! for the constructor (`ClassBuilder::signature`, which `#[wireplan_runtime::class]` and `register!`
//! fill in): a literal the argument conversion would refuse when the service is created (a
//! string where an `i64` is taken, 300 for a `u8`, `null` for a parameter that is not an
//! `Option`) is a load problem, reported with the plan's other problems, instead of an error
//! at the service's first `get`. A compiler checks these against the catalog, so such a plan
//! was compiled from another catalog or edited afterwards.
//!
//! Only the scalar types the runtime converts are checked (`int`, the integer ranges
//! `int<min, max>`, `float`, `bool`, `string`, each optionally `?`-nullable): exactly what
//! their conversions refuse. A service reference is checked against a parameter that takes a
//! service object (`Arc<T>`), as its cast would ([`refuses_object`]). Any other parameter type (a list,
//! `mixed`, `callable`) is left to the conversion when the service is created.

use crate::catalog::Param;
use crate::plan::Expr;
use crate::registry::Registry;
use crate::value::Value;

/// A literal argument of a plan: its kind, and an integer's value (for ranges).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Literal {
    Null,
    Bool,
    Int(i64),
    Float,
    Str,
}

impl Literal {
    /// The literal a plan expression is, if it is one.
    pub(crate) fn of_expr(e: &Expr) -> Option<Literal> {
        Some(match e {
            Expr::Null => Literal::Null,
            Expr::Bool(_) => Literal::Bool,
            Expr::Int(i) => Literal::Int(*i),
            Expr::Float(_) => Literal::Float,
            Expr::Str(_) => Literal::Str,
            _ => return None,
        })
    }

    /// The literal a constant of the compiled program is, if it is a scalar.
    pub(crate) fn of_value(v: &Value) -> Option<Literal> {
        Some(match v {
            Value::Null => Literal::Null,
            Value::Bool(_) => Literal::Bool,
            Value::Int(i) => Literal::Int(*i),
            Value::Float(_) => Literal::Float,
            Value::Str(_) => Literal::Str,
            _ => return None,
        })
    }

    /// How a message names it: `null`, `a bool`, `the int 300`, `a float`, `a string`.
    pub(crate) fn describe(self) -> String {
        match self {
            Literal::Null => "null".into(),
            Literal::Bool => "a bool".into(),
            Literal::Int(i) => format!("the int {i}"),
            Literal::Float => "a float".into(),
            Literal::Str => "a string".into(),
        }
    }
}

/// The declared catalog type of the registered parameter `param` (for messages) when its
/// argument conversion refuses `lit`; `None` when it takes it or the type is not checked.
pub(crate) fn refused_by(param: &Param, registry: &Registry, lit: Literal) -> Option<String> {
    let ty = (param.ty)(registry);
    refuses(&ty, lit).then_some(ty)
}

/// The declared catalog type of the registered parameter `param` when it is an int range
/// (`int<0, max>`) and `lit` an int outside it: the one refusal that says the value is wrong
/// rather than the plan (an int is what the parameter takes, just not this one).
pub(crate) fn out_of_range(param: &Param, registry: &Registry, lit: Literal) -> Option<String> {
    let Literal::Int(v) = lit else {
        return None;
    };
    let ty = (param.ty)(registry);
    match Scalar::of(ty.strip_prefix('?').unwrap_or(&ty)) {
        Some(Scalar::Int(min, max)) if v < min || v > max => Some(ty),
        _ => None,
    }
}

/// Whether the argument conversion of a parameter of catalog type `ty` refuses `lit`. `false`
/// for every type this check does not know (see the module docs).
pub(crate) fn refuses(ty: &str, lit: Literal) -> bool {
    let (nullable, base) = match ty.strip_prefix('?') {
        Some(rest) => (true, rest),
        None => (false, ty),
    };
    let Some(kind) = Scalar::of(base) else {
        return false;
    };
    match lit {
        Literal::Null => !nullable,
        Literal::Int(v) => match kind {
            Scalar::Int(min, max) => v < min || v > max,
            // The `f64` conversion takes an integer.
            Scalar::Float => false,
            Scalar::Bool | Scalar::Str => true,
        },
        Literal::Float => !matches!(kind, Scalar::Float),
        Literal::Bool => !matches!(kind, Scalar::Bool),
        Literal::Str => !matches!(kind, Scalar::Str),
    }
}

/// The scalar parameter types the runtime converts.
enum Scalar {
    /// `int` (the whole `i64` range) or `int<min, max>`.
    Int(i64, i64),
    Float,
    Bool,
    Str,
}

impl Scalar {
    fn of(base: &str) -> Option<Scalar> {
        Some(match base {
            "int" => Scalar::Int(i64::MIN, i64::MAX),
            "float" => Scalar::Float,
            "bool" => Scalar::Bool,
            "string" => Scalar::Str,
            _ => {
                let range = base.strip_prefix("int<")?.strip_suffix('>')?;
                let (min, max) = range.split_once(',')?;
                let bound = |s: &str, open: i64| match s.trim() {
                    "min" if open == i64::MIN => Some(open),
                    "max" if open == i64::MAX => Some(open),
                    n => n.parse::<i64>().ok(),
                };
                Scalar::Int(bound(min, i64::MIN)?, bound(max, i64::MAX)?)
            }
        })
    }
}

/// The declared catalog type of the registered parameter `param` when it refuses an object of
/// the Rust type `made` (the class a referenced service's `$new` makes): the parameter takes a
/// service object of another Rust type (`Arc<T>`, [`Param::object`]) that the registry does
/// not cast `made` to, exactly as [`Registry::cast`] refuses it when the service is created.
/// `None` when it takes it, and for a parameter that takes no service object. The catalog
/// type is built only for a refusal (it is the message's; `object`, for a Rust type the
/// registry has no name for, says what that means). A plan whose constructor
/// parameters were reordered since it was compiled passes its services to the wrong
/// parameters (a new user's trial found that only at the first `get`).
pub(crate) fn refuses_object(
    param: &Param,
    registry: &Registry,
    made: std::any::TypeId,
) -> Option<String> {
    let want = (param.object)()?;
    if want == made || registry.t.casters.contains_key(&(made, want)) {
        return None;
    }
    let ty = (param.ty)(registry);
    // `object`: the registry names no class or interface for the Rust type the parameter
    // takes, which a bare "takes object" did not explain (a new user's trial had removed the
    // `implements` of the trait, and with it the trait's only registration).
    if ty.trim_start_matches('?') == "object" {
        return Some(format!(
            "{ty} (a Rust type this registry has no class or interface name for: was its \
             registration, or the `implements` that named it, removed since compiling?)"
        ));
    }
    Some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_refuse_what_their_conversions_refuse() {
        use Literal::*;
        // (type, literal, refused)
        let cases = [
            ("int", Int(4), false),
            ("int", Str, true),
            ("int", Float, true),
            ("int", Bool, true),
            ("int", Null, true),
            ("?int", Null, false),
            ("?int", Str, true),
            ("int<0, 255>", Int(255), false),
            ("int<0, 255>", Int(256), true),
            ("int<0, 255>", Int(-1), true),
            ("int<-128, 127>", Int(-128), false),
            ("int<0, max>", Int(i64::MAX), false),
            ("int<0, max>", Int(-1), true),
            ("float", Int(3), false),
            ("float", Float, false),
            ("float", Str, true),
            ("bool", Bool, false),
            ("bool", Int(1), true),
            ("string", Str, false),
            ("string", Int(42), true),
            ("?string", Null, false),
            // Not checked here: left to the conversion when the service is created.
            ("mixed", Str, false),
            ("App\\Clock", Int(1), false),
            ("?App\\Clock", Null, false),
            ("App\\Handler[]", Str, false),
            ("array", Int(1), false),
            ("callable", Null, false),
            ("int<zero, 3>", Int(9), false),
        ];
        for (ty, lit, refused) in cases {
            assert_eq!(refuses(ty, lit), refused, "{ty} with {lit:?}");
        }
    }

    #[test]
    fn literals_are_named_for_messages() {
        assert_eq!(Literal::Int(300).describe(), "the int 300");
        assert_eq!(Literal::of_expr(&Expr::Str("x".into())), Some(Literal::Str));
        assert_eq!(Literal::of_expr(&Expr::Ref("db".into())), None);
        assert_eq!(Literal::of_value(&Value::Float(1.5)), Some(Literal::Float));
    }
}
