//! Typed dynamic parameters: the `dynamicParameters:` section (type, default, required,
//! nullable, sensitive per dynamic parameter), the types the catalog asks of each parameter
//! where it fills an argument or a property, and the plan's `dynamic` section built from both.
//!
//! ```neon
//! dynamicParameters:
//!     env.PORT: {type: int, default: 8080}
//!     env.DATABASE_URL: {type: string, required: true, sensitive: true}
//!     env.DEBUG: bool                # shorthand for {type: bool}
//! ```
//!
//! The runtime ([`wireplan_runtime::dynamic`]) converts the given values at load and reports
//! every missing or invalid one at once.

use super::Parameters;
use crate::builder::ContainerBuilder;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprKind};
use crate::schema::{self, Expect};
use crate::source::Span;
use indexmap::IndexMap;
use wireplan_runtime::dynamic::{cast, params_read, parse_type, DynamicParam, TYPES};
use wireplan_runtime::plan::{Expr as P, Plan};

/// The name of the section.
pub const SECTION: &str = "dynamicParameters";

/// One entry of `dynamicParameters:`, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicSchema {
    /// The declared type (`int`, `?int`, … one of [`TYPES`]), if given.
    pub type_: Option<String>,
    /// The default, as plan data, if given (`Some(P::Null)` for `default: null`).
    pub default: Option<P>,
    /// `required:` as written.
    pub required: Option<bool>,
    /// Whether `null` is accepted (`nullable: true`, or a `?T` type).
    pub nullable: bool,
    /// Whether the value is secret (`sensitive: true`).
    pub sensitive: bool,
    /// Where the entry's key is.
    pub span: Option<Span>,
}

/// The schema of one entry (a map form; a plain string is the type alone).
fn entry_schema() -> Expect {
    Expect::structure([
        ("type", Expect::string()),
        ("default", Expect::mixed()),
        ("required", Expect::bool()),
        ("nullable", Expect::bool()),
        ("sensitive", Expect::bool()),
    ])
}

/// Reads and checks the `dynamicParameters:` section. Errors (all positioned): `unknown-option`
/// for an unknown key, `invalid-value` for an unknown type, a default that is not a plain value
/// of the type, `required: true` together with a default, and a name that is not a dynamic
/// parameter (`env.*`, `--dynamic NAME`, or a sensitive parameter). Entries with errors are left
/// out.
pub fn read_section(
    section: Option<&(Span, Expr)>,
    params: &Parameters,
    diags: &mut Diagnostics,
) -> IndexMap<String, DynamicSchema> {
    let mut out = IndexMap::new();
    let Some((section_span, value)) = section else {
        return out;
    };
    let items = match &value.kind {
        ExprKind::Null => return out,
        ExprKind::Array(a) if !a.is_list() || a.is_empty() => a,
        _ => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "The item '{SECTION}' expects to be array, {} given.",
                        value.describe()
                    ),
                )
                .at(value.span.or(Some(*section_span))),
            );
            return out;
        }
    };
    for (key, entry) in &items.items {
        let name = key.as_string();
        let key_span = items.key_span(&name).or(entry.span);
        let reported = diags.error_count();
        if !params.is_dynamic(&name) {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!("'{name}' in '{SECTION}' is not a dynamic parameter."),
                )
                .at(key_span)
                .with_note(
                    "a dynamic parameter is env.NAME, a name given to --dynamic, or a \
                     parameter listed in 'wireplan › sensitive'",
                ),
            );
        } else if name
            .strip_prefix("env.")
            .is_some_and(|var| var.is_empty() || var.contains(['=', '\0']))
        {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!("'{name}' in '{SECTION}' names no environment variable."),
                )
                .at(key_span)
                .with_note("write env.NAME, with a NAME that is not empty and has no '=' or NUL"),
            );
        }
        let mut decl = DynamicSchema {
            type_: None,
            default: None,
            required: None,
            nullable: false,
            sensitive: false,
            span: key_span,
        };
        let mut type_span = entry.span;
        match &entry.kind {
            ExprKind::Str(t) => decl.type_ = Some(t.clone()),
            ExprKind::Null => {}
            _ => {
                // Its errors are reported; the keys that are right are still checked below
                // (a misspelt `defualt` does not hide an unknown `type`): every reader there
                // takes only a value of the expected kind.
                let _ = schema::validate(&entry_schema(), entry, &[SECTION, &name], diags);
                let Some(map) = entry.as_array() else {
                    continue;
                };
                if let Some(t) = map.get("type").filter(|t| !t.is_null()) {
                    decl.type_ = t.as_str().map(str::to_string);
                    type_span = t.span;
                }
                decl.default = map.get("default").map(|d| plain(d, &name, diags));
                let flag = |k: &str| {
                    map.get(k).and_then(|v| match v.kind {
                        ExprKind::Bool(b) => Some(b),
                        _ => None,
                    })
                };
                decl.required = flag("required");
                decl.nullable = flag("nullable").unwrap_or(false);
                decl.sensitive = flag("sensitive").unwrap_or(false);
                if (decl.sensitive || params.is_sensitive(&name)) && decl.default.is_some() {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "Dynamic parameter '{name}' is sensitive and cannot have a \
                                 default: the plan would hold the value."
                            ),
                        )
                        .at(map.get("default").and_then(|d| d.span).or(key_span)),
                    );
                }
                if decl.required == Some(true) && decl.default.is_some() {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "Dynamic parameter '{name}' is required and has a default; \
                                 a default is only used when the value is not given."
                            ),
                        )
                        .at(map.get("default").and_then(|d| d.span).or(key_span)),
                    );
                }
            }
        }
        if let Some(t) = &decl.type_ {
            match parse_type(t) {
                Some((base, nullable)) => {
                    decl.nullable |= nullable;
                    // One spelling in the plan: `?int`, `mixed`.
                    decl.type_ = Some(if decl.nullable && base != "mixed" {
                        format!("?{base}")
                    } else {
                        base.to_string()
                    });
                }
                None => diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "The type of dynamic parameter '{name}' expects to be one of {} \
                             (with '?' for nullable), '{t}' given.",
                            TYPES.join(", ")
                        ),
                    )
                    .at(type_span.or(key_span)),
                ),
            }
        }
        // A default is checked only against a type that is known (an unknown one is reported
        // above; checking against it would add a second, misleading error).
        if let (Some(t), Some(d)) = (&decl.type_, &decl.default) {
            if parse_type(t).is_some() {
                check_default(&name, t, d, items.get(&name), diags);
            }
        }
        if diags.error_count() == reported {
            out.insert(name, decl);
        }
    }
    out
}

/// A default as plan data; statements and dynamic values are `invalid-value`.
fn plain(d: &Expr, name: &str, diags: &mut Diagnostics) -> P {
    fn conv(e: &Expr) -> Option<P> {
        Some(match &e.kind {
            ExprKind::Null => P::Null,
            ExprKind::Bool(b) => P::Bool(*b),
            ExprKind::Int(i) => P::Int(*i),
            ExprKind::Float(f) => P::Float(*f),
            ExprKind::Str(s) => P::Str(s.clone()),
            _ => return None,
        })
    }
    conv(d).unwrap_or_else(|| {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "The default of dynamic parameter '{name}' expects to be a scalar or null, \
                     {} given.",
                    d.describe()
                ),
            )
            .at(d.span),
        );
        P::Null
    })
}

/// Reports a default that the runtime could not convert to the declared type.
fn check_default(name: &str, ty: &str, d: &P, entry: Option<&Expr>, diags: &mut Diagnostics) {
    let Some(v) = d.plain_value() else { return };
    // A default is written in NEON with its type: only `null` (nullable), the type itself,
    // and an integer for a float are accepted, not text that would convert.
    let exact = matches!(
        (parse_type(ty).map(|(b, _)| b), &v),
        (Some("mixed"), _)
            | (Some("int"), wireplan_runtime::Value::Int(_))
            | (
                Some("float"),
                wireplan_runtime::Value::Int(_) | wireplan_runtime::Value::Float(_)
            )
            | (Some("bool"), wireplan_runtime::Value::Bool(_))
            | (Some("string"), wireplan_runtime::Value::Str(_))
    ) || (v.is_null() && cast(&v, ty).is_ok());
    if !exact {
        let span = entry
            .and_then(Expr::as_array)
            .and_then(|m| m.get("default"))
            .and_then(|e| e.span);
        let given = match d {
            P::Str(s) => format!("'{s}'"),
            P::Null => "null".into(),
            P::Bool(b) => b.to_string(),
            P::Int(i) => i.to_string(),
            P::Float(f) => format!("{f:?}"),
            _ => "a value".into(),
        };
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "The default of dynamic parameter '{name}' expects to be {ty}, {given} given."
                ),
            )
            .at(span),
        );
    }
}

/// One place where a dynamic parameter fills a typed argument or property.
#[derive(Debug, Clone)]
struct Use {
    service: String,
    /// `parameter $port of App\Server::__construct()`.
    what: String,
    /// The scalar type the catalog declares, when it is exactly one of int, float, bool,
    /// string (nullable or not); `None` for `mixed`, classes, arrays and unions.
    scalar: Option<&'static str>,
    /// Whether the catalog type accepts `null` (`?int`, `int|null`).
    nullable: bool,
    /// The declared type as written.
    declared: String,
    span: Option<Span>,
}

/// The scalar a declared catalog type asks for (see [`Use::scalar`]).
fn scalar_of(declared: &str) -> Option<&'static str> {
    let members: Vec<String> = declared
        .trim_start_matches('?')
        .split('|')
        .map(|m| m.trim().to_ascii_lowercase())
        // `int<0, max>` (a range) asks for an int.
        .map(|m| match m.starts_with("int<") {
            true => "int".to_string(),
            false => m,
        })
        .filter(|m| m != "null")
        .collect();
    match members.as_slice() {
        [one] => ["int", "float", "bool", "string"]
            .into_iter()
            .find(|t| t == one),
        _ => None,
    }
}

/// Every direct use of a dynamic parameter as an argument or property value, by parameter.
fn uses(builder: &ContainerBuilder) -> IndexMap<String, Vec<Use>> {
    let mut out: IndexMap<String, Vec<Use>> = IndexMap::new();
    for def in builder.definitions() {
        let Some(done) = &def.completed else { continue };
        for call in done.calls() {
            for arg in &call.arguments {
                let P::Param(name) = &arg.value else { continue };
                let span = match &arg.source {
                    crate::builder::ArgumentSource::Written { span } => *span,
                    _ => None,
                };
                let what = match call.function.split_once("::$") {
                    Some(_) => format!("property {}", call.function),
                    None => format!("parameter ${} of {}", arg.parameter, call.function),
                };
                out.entry(name.clone()).or_default().push(Use {
                    service: def.name.clone(),
                    what,
                    scalar: scalar_of(&arg.declared),
                    nullable: arg.declared.starts_with('?')
                        || arg
                            .declared
                            .split('|')
                            .any(|m| m.trim().eq_ignore_ascii_case("null")),
                    declared: arg.declared.clone(),
                    span: span.or(def.span),
                });
            }
        }
    }
    out
}

/// The type each dynamic parameter gets in the plan: the declared one, else the one scalar the
/// catalog asks for at every typed use. Reports (`invalid-value`, at the use) a use whose
/// catalog type does not accept the declared type, and uses that ask for different scalars
/// when no type is declared.
///
/// When no completed statement reads a dynamic parameter
/// ([`ContainerBuilder::reads_dynamic`] false) there is no use to look for, and the
/// definitions are not walked: a compilation asks twice (after completing, for the
/// diagnostics, and for the plan), and at gen 100000 each walk took 2.2 ms on one core with
/// the other idle.
pub fn types(
    builder: &ContainerBuilder,
    params: &Parameters,
    diags: &mut Diagnostics,
) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    if !builder.reads_dynamic {
        return out;
    }
    for (name, uses) in uses(builder) {
        let declared = params
            .dynamic_schema
            .get(&name)
            .and_then(|s| s.type_.clone());
        if let Some(t) = declared {
            let (base, nullable) = parse_type(&t).unwrap_or(("mixed", true));
            for u in &uses {
                // A class, array or union type (no single scalar) is left to the registry's
                // conversion, which reports a misfit when the service is created.
                let accepts = base == "mixed"
                    || u.scalar.is_none()
                    || (u.scalar == Some(base) || u.scalar == Some("float") && base == "int")
                        && (u.nullable || !nullable);
                if !accepts {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "Dynamic parameter '{name}' is declared {t} in '{SECTION}', but \
                                 {} expects {} (service '{}').",
                                u.what, u.declared, u.service
                            ),
                        )
                        .at(u.span),
                    );
                }
            }
            out.insert(name, t);
            continue;
        }
        let typed: Vec<&Use> = uses.iter().filter(|u| u.scalar.is_some()).collect();
        let Some(first) = typed.first() else { continue };
        match typed.iter().find(|u| u.scalar != first.scalar) {
            // Nullable when every typed use accepts null (then a missing value is null).
            None => {
                let scalar = first.scalar.unwrap_or("mixed");
                let t = match typed.iter().all(|u| u.nullable) {
                    true => format!("?{scalar}"),
                    false => scalar.to_string(),
                };
                out.insert(name, t);
            }
            Some(other) => diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "Dynamic parameter '{name}' fills {} (service '{}'), which expects {}, \
                         and {} (service '{}'), which expects {}.",
                        first.what,
                        first.service,
                        first.declared,
                        other.what,
                        other.service,
                        other.declared
                    ),
                )
                .at(other.span)
                .with_note(format!(
                    "declare its type under '{SECTION}' (e.g. {name}: {{type: string}}), or \
                     convert it where it is used (int(%{name}%))"
                )),
            ),
        }
    }
    out
}

/// The plan's `dynamic` section: every declared dynamic parameter, then every other one the
/// plan reads, with its type (declared or from the catalog), default, whether a missing value
/// is an error at load, and whether it is sensitive.
pub fn plan_section(
    plan: &Plan,
    builder: &ContainerBuilder,
    params: &Parameters,
) -> IndexMap<String, DynamicParam> {
    plan_section_typed(
        plan,
        types(builder, params, &mut Diagnostics::new()),
        params,
        // Always walked here: this path serves builders that extensions or the REPL worked
        // on; the flag's saving is the plain compilation's (`plan_model_releasing`).
        true,
    )
}

/// [`plan_section`] with the parameters' [`types`] computed beforehand (from a builder that
/// is gone by the time the plan exists). `services_read`: whether a service's statement may
/// read a dynamic parameter ([`crate::builder::ContainerBuilder::reads_dynamic`]); when not,
/// the services' statements are not walked (gen 100000: 7 ms).
pub fn plan_section_typed(
    plan: &Plan,
    types: IndexMap<String, String>,
    params: &Parameters,
    services_read: bool,
) -> IndexMap<String, DynamicParam> {
    let mut read = Vec::new();
    params_read(plan, services_read, &mut read);
    let mut names: Vec<&str> = params.dynamic_schema.keys().map(String::as_str).collect();
    for n in read {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let schema = params.dynamic_schema.get(name);
            let type_ = types
                .get(name)
                .cloned()
                .or_else(|| schema.and_then(|s| s.type_.clone()));
            let default = schema.and_then(|s| s.default.clone());
            let nullable = schema.is_some_and(|s| s.nullable)
                || type_
                    .as_deref()
                    .and_then(parse_type)
                    .is_some_and(|(_, n)| n);
            let required = schema
                .and_then(|s| s.required)
                .unwrap_or(default.is_none() && !nullable);
            let sensitive = schema.is_some_and(|s| s.sensitive) || params.is_sensitive(name);
            let decl = DynamicParam {
                type_,
                default,
                required,
                sensitive,
            };
            (name.to_string(), decl)
        })
        .collect()
}
