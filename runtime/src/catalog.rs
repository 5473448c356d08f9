//! The catalog export: [`Registry::catalog`] writes the `types:` section that describes what
//! the binary really provides, so the compiler can check a configuration against it.
//!
//! Type information comes from signatures: the [`register!`](crate::register) macro records
//! them from the Rust parameter types through [`ArgType`] and [`ReturnType`]; hand-written
//! registrations can add them with [`ClassBuilder::signature`](crate::ClassBuilder::signature)
//! and friends. Members registered without a signature are still exported, marked with a
//! `# signature not registered` comment.

use std::any::Any;
use std::fmt::Write as _;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::registry::Registry;
use crate::value::{ArgError, Args, Callable, Value};

/// Produces a catalog type string (`int`, `?App\Clock`, `App\Handler[]`) with the registry's
/// catalog names at hand.
pub type TypeFn = fn(&Registry) -> String;

/// One declared parameter: its name, catalog type and optional default.
#[derive(Clone, Copy)]
pub struct Param {
    /// Parameter name as the configuration uses it (named arguments).
    pub name: &'static str,
    /// Its catalog type.
    pub ty: TypeFn,
    /// Its catalog default (`{type: int, default: 3}`): the compiler fills it in when the
    /// configuration leaves the argument out. `None`: the argument is required.
    pub default: Option<fn() -> Value>,
}

impl std::fmt::Debug for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Param({})", self.name)
    }
}

impl Param {
    /// A parameter of Rust type `A`, e.g. `Param::of::<Option<Arc<Clock>>>("clock")`.
    pub fn of<A: ArgType>(name: &'static str) -> Param {
        Param {
            name,
            ty: A::catalog_type,
            default: None,
        }
    }

    /// The same parameter with a catalog default, e.g.
    /// `Param::of::<i64>("level").with_default(|| Value::Int(3))`.
    pub fn with_default(self, default: fn() -> Value) -> Param {
        Param {
            default: Some(default),
            ..self
        }
    }

    /// The parameter as the catalog writes it: `int`, or `{type: int, default: 3}`.
    fn neon(&self, registry: &Registry) -> String {
        let ty = neon_str(&(self.ty)(registry));
        match self.default {
            Some(d) => format!("{{type: {ty}, default: {}}}", neon_value(&d())),
            None => ty,
        }
    }
}

/// A declared method signature.
#[derive(Clone, Debug, Default)]
pub struct MethodSig {
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// The return type, if declared.
    pub returns: Option<TypeFn>,
}

/// A Rust type that can be a parameter of a registered constructor or method: how to take it
/// from the [`Args`] and what it is called in the catalog.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a registered constructor or method",
    label = "no catalog conversion for this parameter type",
    note = "accepted: Arc<T>, Arc<dyn Trait>, Vec<Arc<dyn Trait>>, Option<_>, i64, i32, u32, usize, f64, bool, String, Value, Callable, Vec<Value>, IndexMap<String, Value>"
)]
pub trait ArgType: Sized {
    /// The catalog type, e.g. `string`, `?int`, `App\Logger`, `App\Handler[]`.
    fn catalog_type(registry: &Registry) -> String;
    /// Argument `index` as this type. Errors are [`ArgError`]s, never panics.
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError>;
}

/// A Rust type a registered method may return: how it becomes a [`Value`] and what it is
/// called in the catalog.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a registered method",
    label = "no catalog conversion for this return type",
    note = "accepted: (), Arc<T>, i64, i32, f64, bool, String, Value, Callable; wrap lists and maps in a Value"
)]
pub trait ReturnType {
    /// The catalog type (`void` for `()`).
    fn catalog_type(registry: &Registry) -> String;
    /// The value of the `$call` expression.
    fn into_value(self) -> Value;
}

macro_rules! scalar {
    ($t:ty, $name:literal, $get:ident, $conv:expr) => {
        impl ArgType for $t {
            fn catalog_type(_: &Registry) -> String {
                $name.into()
            }
            fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
                args.$get(index).and_then(|v| {
                    let conv: fn(_) -> Option<$t> = $conv;
                    conv(v).ok_or_else(|| ArgError {
                        index,
                        expected: concat!($name, " in range of ", stringify!($t)).into(),
                        found: "an out-of-range value".into(),
                    })
                })
            }
        }
        impl ReturnType for $t {
            fn catalog_type(_: &Registry) -> String {
                $name.into()
            }
            fn into_value(self) -> Value {
                self.into()
            }
        }
    };
}

scalar!(i64, "int", int, Some);
scalar!(i32, "int", int, |v| i32::try_from(v).ok());
scalar!(f64, "float", float, Some);
scalar!(bool, "bool", bool, Some);
scalar!(String, "string", str, |s: &str| Some(s.to_string()));

impl ArgType for u32 {
    fn catalog_type(_: &Registry) -> String {
        "int".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        let v = args.int(index)?;
        u32::try_from(v).map_err(|_| ArgError {
            index,
            expected: "int in range of u32".into(),
            found: v.to_string(),
        })
    }
}

impl ArgType for usize {
    fn catalog_type(_: &Registry) -> String {
        "int".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        let v = args.int(index)?;
        usize::try_from(v).map_err(|_| ArgError {
            index,
            expected: "int in range of usize".into(),
            found: v.to_string(),
        })
    }
}

impl ArgType for Value {
    fn catalog_type(_: &Registry) -> String {
        "mixed".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.value(index).cloned()
    }
}

impl ReturnType for Value {
    fn catalog_type(_: &Registry) -> String {
        "mixed".into()
    }
    fn into_value(self) -> Value {
        self
    }
}

impl ReturnType for () {
    fn catalog_type(_: &Registry) -> String {
        "void".into()
    }
    fn into_value(self) -> Value {
        Value::Null
    }
}

impl ArgType for Callable {
    fn catalog_type(_: &Registry) -> String {
        "callable".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.callable(index).cloned()
    }
}

impl ReturnType for Callable {
    fn catalog_type(_: &Registry) -> String {
        "callable".into()
    }
    fn into_value(self) -> Value {
        Value::Callable(self)
    }
}

impl ArgType for Vec<Value> {
    fn catalog_type(_: &Registry) -> String {
        "array".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.list(index).map(<[Value]>::to_vec)
    }
}

impl ArgType for IndexMap<String, Value> {
    fn catalog_type(_: &Registry) -> String {
        "array".into()
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.map(index).cloned()
    }
}

impl<A: ArgType> ArgType for Option<A> {
    fn catalog_type(registry: &Registry) -> String {
        format!("?{}", A::catalog_type(registry))
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        if args.is_null(index) {
            Ok(None)
        } else {
            A::from_arg(args, index).map(Some)
        }
    }
}

fn service_name<T: ?Sized + 'static>(registry: &Registry) -> String {
    registry
        .catalog_name_of::<T>()
        .map(str::to_string)
        .unwrap_or_else(|| std::any::type_name::<T>().to_string())
}

impl<T: ?Sized + 'static> ArgType for Arc<T> {
    fn catalog_type(registry: &Registry) -> String {
        service_name::<T>(registry)
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.service::<T>(index)
    }
}

/// `Provider<T>`: a lazy handle on the service autowired for `T`; in the catalog
/// `Provider<App\Logger>` (docs/async.md, "Providers").
impl<T: ?Sized + 'static> ArgType for crate::provider::Provider<T> {
    fn catalog_type(registry: &Registry) -> String {
        format!("Provider<{}>", service_name::<T>(registry))
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.provider::<T>(index)
    }
}

impl<T: ?Sized + 'static> ArgType for Vec<Arc<T>> {
    fn catalog_type(registry: &Registry) -> String {
        format!("{}[]", service_name::<T>(registry))
    }
    fn from_arg(args: &Args<'_>, index: usize) -> Result<Self, ArgError> {
        args.list_of::<T>(index)
    }
}

impl<T: Any + Send + Sync> ReturnType for Arc<T> {
    fn catalog_type(registry: &Registry) -> String {
        service_name::<T>(registry)
    }
    fn into_value(self) -> Value {
        Value::from(self)
    }
}

// --------------------------------------------------------------------------------------
// the export

/// A NEON scalar: bare when it is a plain (possibly nullable) name, quoted otherwise.
fn neon_str(s: &str) -> String {
    let body = s.strip_prefix('?').unwrap_or(s);
    let plain = !body.is_empty()
        && body
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '\\')
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\\')
        && !matches!(
            body,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off"
        );
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

fn neon_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_finite() => {
            let s = f.to_string();
            if s.contains('.') || s.contains('e') {
                s
            } else {
                format!("{s}.0")
            }
        }
        Value::Float(_) => "null".into(),
        Value::Str(s) => format!("'{}'", s.replace('\'', "''")),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(neon_value).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", neon_str(k), neon_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Service(_) | Value::Callable(_) => "null".into(),
    }
}

fn params_neon(registry: &Registry, params: &[Param]) -> String {
    params
        .iter()
        .map(|p| format!("{}: {}", p.name, p.neon(registry)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn method_neon(registry: &Registry, sig: Option<&MethodSig>, is_static: bool) -> String {
    let mut parts = Vec::new();
    if let Some(sig) = sig {
        parts.push(format!(
            "params: {{{}}}",
            params_neon(registry, &sig.params)
        ));
        if let Some(r) = sig.returns {
            parts.push(format!("returns: {}", neon_str(&r(registry))));
        }
    }
    if is_static {
        parts.push("static: true".into());
    }
    let mut s = format!("{{{}}}", parts.join(", "));
    if sig.is_none() {
        s.push_str("  # signature not registered");
    }
    s
}

impl Registry {
    /// The catalog of everything registered, as the NEON `types:` section the compiler reads
    /// (see the architecture document): classes sorted by name with `extends`, `implements`,
    /// `constructor`, `methods` (instance and static), `properties` and `constants`; then the
    /// interfaces as `{interface: true}`. Deterministic: the same registry gives the same text.
    ///
    /// Write it to a file and `includes:` it from the configuration, so the compiler checks the
    /// configuration against what this binary provides.
    pub fn catalog(&self) -> String {
        let mut out = String::from("types:\n");
        let mut names: Vec<&String> = self.classes.keys().collect();
        names.sort();
        for name in names {
            let c = &self.classes[name];
            let t = self.type_entry(c.type_id);
            let _ = writeln!(out, "\t{}:", neon_str(name));
            let mut body = String::new();
            if let Some(p) = &c.extends {
                let _ = writeln!(body, "\t\textends: {}", neon_str(p));
            }
            let mut ifaces: Vec<&String> = self
                .interfaces
                .iter()
                .filter(|(_, (tid, _))| self.casters.contains_key(&(c.type_id, *tid)))
                .map(|(n, _)| n)
                .collect();
            ifaces.sort();
            if !ifaces.is_empty() {
                let list: Vec<String> = ifaces.iter().map(|i| neon_str(i)).collect();
                let _ = writeln!(body, "\t\timplements: [{}]", list.join(", "));
            }
            if c.async_ctor.is_some() {
                // The compiler marks every service whose creation reaches this class
                // `requires_async` (docs/async.md).
                let _ = writeln!(body, "\t\tasync: true");
            }
            let ctor = c
                .ctor
                .as_ref()
                .map(|_| ())
                .or(c.async_ctor.as_ref().map(|_| ()));
            match (ctor, &c.ctor_sig) {
                (Some(_), Some(params)) if !params.is_empty() => {
                    let _ = writeln!(body, "\t\tconstructor:");
                    for p in params {
                        let _ = writeln!(body, "\t\t\t{}: {}", p.name, p.neon(self));
                    }
                }
                (Some(_), None) => {
                    let _ = writeln!(body, "\t\t# constructor signature not registered");
                }
                _ => {}
            }
            let mut methods: Vec<(String, String)> = Vec::new();
            if let Some(t) = t {
                let mut ms: Vec<&String> = t.methods.keys().chain(t.methods_mut.keys()).collect();
                ms.sort();
                ms.dedup();
                for m in ms {
                    methods.push((m.clone(), method_neon(self, t.method_sigs.get(m), false)));
                }
            }
            let mut statics: Vec<&String> = c.statics.keys().collect();
            statics.sort();
            for m in statics {
                methods.push((m.clone(), method_neon(self, c.static_sigs.get(m), true)));
            }
            if !methods.is_empty() {
                let _ = writeln!(body, "\t\tmethods:");
                for (m, sig) in methods {
                    let _ = writeln!(body, "\t\t\t{}: {sig}", neon_str(&m));
                }
            }
            if let Some(t) = t.filter(|t| !t.properties.is_empty() || !t.getters.is_empty()) {
                let _ = writeln!(body, "\t\tproperties:");
                // Written (`property`) and read (`getter`) properties, each once.
                let mut ps: Vec<&String> = t.properties.keys().chain(t.getters.keys()).collect();
                ps.sort();
                ps.dedup();
                for p in ps {
                    let ty = t
                        .property_types
                        .get(p)
                        .map_or_else(|| "mixed".to_string(), |f| f(self));
                    let _ = writeln!(body, "\t\t\t{}: {}", neon_str(p), neon_str(&ty));
                }
            }
            if !c.constants.is_empty() {
                let _ = writeln!(body, "\t\tconstants:");
                for (k, v) in &c.constants {
                    let _ = writeln!(body, "\t\t\t{}: {}", neon_str(k), neon_value(v));
                }
            }
            if body.trim().is_empty() {
                // `App\Clock: {}`: a class with nothing to declare.
                out.truncate(out.len() - 1);
                out.push_str(" {}\n");
                out.push_str(&body);
            } else {
                out.push_str(&body);
            }
        }
        let mut ifaces: Vec<&String> = self.interfaces.keys().collect();
        ifaces.sort();
        for i in ifaces {
            if !self.classes.contains_key(i) {
                let _ = writeln!(out, "\t{}: {{interface: true}}", neon_str(i));
            }
        }
        out
    }
}
