//! The catalog as data: [`CatalogDocument`] is what [`Registry::catalog_document`] collects
//! from the registrations, and both written forms come from it — the NEON `types:` section
//! ([`Registry::catalog`]) and the compact JSON form ([`Registry::catalog_json`], shape in
//! docs/catalog.md). The golden check ([`super::golden`]) compares two documents.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::registry::Registry;
use crate::value::Value;

use super::{MethodSig, Param};

/// The `format` of a JSON catalog.
pub const FORMAT: &str = "wireplan-catalog";
/// The `version` of the JSON catalog shape this crate writes and reads.
pub const VERSION: u32 = 1;

/// A whole catalog: `{"format": "wireplan-catalog", "version": 1, "types": {…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogDocument {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// Classes sorted by name, then interfaces no class of the registry is named after.
    pub types: IndexMap<String, TypeEntry>,
}

/// One class or interface, with the keys of the NEON `types:` entry (docs/catalog.md).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeEntry {
    /// An interface (a trait object registered with `implements` or `interface`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub interface: bool,
    /// The parent class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<String>,
    /// Interfaces the class casts to, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub implements: Vec<String>,
    /// The constructor is async (`async: true`): the compiler marks every service whose
    /// creation reaches it `requires_async` (docs/async.md).
    #[serde(default, rename = "async", skip_serializing_if = "is_false")]
    pub is_async: bool,
    /// Constructor parameters in order: name → catalog type (and default); or `private`.
    #[serde(default, skip_serializing_if = "Constructor::is_empty")]
    pub constructor: Constructor,
    /// The class has a constructor registered without a signature (written as a NEON comment;
    /// not part of the JSON form).
    #[serde(skip)]
    pub constructor_unsigned: bool,
    /// Instance methods, then static ones, each sorted by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub methods: IndexMap<String, MethodEntry>,
    /// Written and read properties, sorted: name → catalog type (`mixed` when undeclared) and
    /// whether the inject step fills it.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub properties: IndexMap<String, PropertyEntry>,
    /// Class constants in registration order (services and callables export as `null`).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub constants: IndexMap<String, serde_json::Value>,
}

/// A property of a class entry: its catalog type, and whether Nette's inject step fills it
/// (`inject: true`, registered with [`ClassBuilder::inject_property`](crate::ClassBuilder::inject_property)).
/// Written as the type alone (`"string"`), or, for an injected one, `{"type": T, "inject": true}`
/// — the two forms of a NEON `properties:` entry (docs/catalog.md).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PropertyEntry {
    /// The catalog type (`mixed` when the registry declares none).
    pub ty: String,
    /// Filled by the inject step of a service written `inject: true`.
    pub inject: bool,
}

impl PropertyEntry {
    /// A property of type `ty` that the inject step does not fill.
    pub fn of(ty: impl Into<String>) -> PropertyEntry {
        PropertyEntry {
            ty: ty.into(),
            inject: false,
        }
    }
}

impl std::fmt::Display for PropertyEntry {
    /// The type, and `, inject` for an injected property (for the stale-catalog messages).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.inject {
            write!(f, "{}, inject", self.ty)
        } else {
            f.write_str(&self.ty)
        }
    }
}

impl Serialize for PropertyEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.inject {
            use serde::ser::SerializeMap;
            let mut m = s.serialize_map(Some(2))?;
            m.serialize_entry("type", &self.ty)?;
            m.serialize_entry("inject", &true)?;
            m.end()
        } else {
            s.serialize_str(&self.ty)
        }
    }
}

impl<'de> Deserialize<'de> for PropertyEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PropertyEntry, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Full {
            #[serde(rename = "type")]
            ty: String,
            #[serde(default)]
            inject: bool,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Full(Full),
        }
        Ok(match Raw::deserialize(d)? {
            Raw::Text(ty) => PropertyEntry::of(ty),
            Raw::Full(f) => PropertyEntry {
                ty: f.ty,
                inject: f.inject,
            },
        })
    }
}

/// The `constructor` of a class entry: its parameters in order (name → catalog type and
/// default; none for a constructor that takes nothing, or no constructor entry at all), or,
/// written `private`, no constructor the container may call: a class registered without one
/// (Nette's "Class X has private constructor." when a service's `create` names it; such a
/// class is made by a factory method, or is a scope slot or an imported service).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Constructor {
    /// The parameters (empty when `private`).
    pub params: IndexMap<String, ParamEntry>,
    /// `constructor: private`.
    pub private: bool,
}

impl Constructor {
    /// Neither parameters nor `private`: the entry writes no `constructor` key.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty() && !self.private
    }
}

impl Serialize for Constructor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.private {
            s.serialize_str("private")
        } else {
            self.params.serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for Constructor {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Constructor, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Params(IndexMap<String, ParamEntry>),
        }
        match Raw::deserialize(d)? {
            Raw::Text(t) if t == "private" => Ok(Constructor {
                params: IndexMap::new(),
                private: true,
            }),
            Raw::Text(t) => Err(serde::de::Error::custom(format!(
                "a constructor is a map of parameters or `private`, not '{t}'"
            ))),
            Raw::Params(params) => Ok(Constructor {
                params,
                private: false,
            }),
        }
    }
}

/// A method: `{"params": {…}, "returns": "T", "static": true}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodEntry {
    /// Parameters in order; `None` when the method was registered without a signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<IndexMap<String, ParamEntry>>,
    /// The return type, when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<String>,
    /// A static method (`Class::method()`).
    #[serde(default, rename = "static", skip_serializing_if = "is_false")]
    pub is_static: bool,
}

/// A parameter: `"int"`, or `{"type": "int", "default": 3}` when it has a catalog default
/// (`#[default(3)]` in the derive, `level: i64 = 3` in `register!`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamEntry {
    /// The catalog type alone.
    Type(String),
    /// The catalog type and the default the compiler fills in when the configuration leaves
    /// the argument out.
    WithDefault {
        /// The catalog type.
        #[serde(rename = "type")]
        ty: String,
        /// The default, as JSON.
        default: serde_json::Value,
    },
}

impl ParamEntry {
    /// The catalog type.
    pub fn ty(&self) -> &str {
        match self {
            ParamEntry::Type(t) | ParamEntry::WithDefault { ty: t, .. } => t,
        }
    }

    /// As the NEON catalog writes it: `int`, or `{type: int, default: 3}`.
    fn neon(&self) -> String {
        match self {
            ParamEntry::Type(t) => neon_str(t),
            ParamEntry::WithDefault { ty, default } => {
                format!(
                    "{{type: {}, default: {}}}",
                    neon_str(ty),
                    neon_json(default)
                )
            }
        }
    }
}

impl From<&str> for ParamEntry {
    /// A parameter without a default.
    fn from(ty: &str) -> ParamEntry {
        ParamEntry::Type(ty.to_string())
    }
}

impl std::fmt::Display for ParamEntry {
    /// `int`, or `int = 3` with a default (the golden check's wording).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamEntry::Type(t) => f.write_str(t),
            ParamEntry::WithDefault { ty, default } => write!(f, "{ty} = {default}"),
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl CatalogDocument {
    /// Reads the JSON form. Errors: serde's message with line and column.
    pub fn from_json(text: &str) -> Result<CatalogDocument, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The JSON form: pretty-printed with two-space indentation and a final newline, so a
    /// checked-in catalog diffs line by line. Deterministic.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The NEON `types:` section, tab-indented, one line per member; members registered
    /// without a signature carry a `# … signature not registered` comment.
    pub fn to_neon(&self) -> String {
        let mut out = String::from("types:\n");
        for (name, t) in &self.types {
            out.push_str(&format!("\t{}:", neon_str(name)));
            let mut body = String::new();
            if t.interface {
                out.push_str(" {interface: true}\n");
                continue;
            }
            if let Some(p) = &t.extends {
                body.push_str(&format!("\t\textends: {}\n", neon_str(p)));
            }
            if !t.implements.is_empty() {
                let list: Vec<String> = t.implements.iter().map(|i| neon_str(i)).collect();
                body.push_str(&format!("\t\timplements: [{}]\n", list.join(", ")));
            }
            if t.is_async {
                body.push_str("\t\tasync: true\n");
            }
            if t.constructor.private {
                body.push_str("\t\tconstructor: private\n");
            } else if !t.constructor.params.is_empty() {
                body.push_str("\t\tconstructor:\n");
                for (p, ty) in &t.constructor.params {
                    body.push_str(&format!("\t\t\t{p}: {}\n", ty.neon()));
                }
            } else if t.constructor_unsigned {
                body.push_str("\t\t# constructor signature not registered\n");
            }
            if !t.methods.is_empty() {
                body.push_str("\t\tmethods:\n");
                for (m, sig) in &t.methods {
                    body.push_str(&format!("\t\t\t{}: {}\n", neon_str(m), method_neon(sig)));
                }
            }
            if !t.properties.is_empty() {
                body.push_str("\t\tproperties:\n");
                for (p, prop) in &t.properties {
                    if prop.inject {
                        body.push_str(&format!(
                            "\t\t\t{}: {{type: {}, inject: true}}\n",
                            neon_str(p),
                            neon_str(&prop.ty)
                        ));
                    } else {
                        body.push_str(&format!("\t\t\t{}: {}\n", neon_str(p), neon_str(&prop.ty)));
                    }
                }
            }
            if !t.constants.is_empty() {
                body.push_str("\t\tconstants:\n");
                for (k, v) in &t.constants {
                    body.push_str(&format!("\t\t\t{}: {}\n", neon_str(k), neon_json(v)));
                }
            }
            if body.trim().is_empty() {
                // `App\Clock: {}`: a class with nothing to declare.
                out.push_str(" {}\n");
            } else {
                out.push('\n');
            }
            out.push_str(&body);
        }
        out
    }
}

fn method_neon(sig: &MethodEntry) -> String {
    let mut parts = Vec::new();
    if let Some(params) = &sig.params {
        let list: Vec<String> = params
            .iter()
            .map(|(p, ty)| format!("{p}: {}", ty.neon()))
            .collect();
        parts.push(format!("params: {{{}}}", list.join(", ")));
    }
    if let Some(r) = &sig.returns {
        parts.push(format!("returns: {}", neon_str(r)));
    }
    if sig.is_static {
        parts.push("static: true".into());
    }
    let mut s = format!("{{{}}}", parts.join(", "));
    if sig.params.is_none() {
        s.push_str("  # signature not registered");
    }
    s
}

/// A NEON scalar: bare when it is a plain (possibly nullable) name, quoted otherwise.
fn neon_str(s: &str) -> String {
    let body = s.strip_prefix('?').unwrap_or(s);
    let plain = body
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

fn neon_json(v: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match v {
        J::Null => "null".into(),
        J::Bool(b) => b.to_string(),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => {
                let s = f.to_string();
                if s.contains('.') || s.contains('e') {
                    s
                } else {
                    format!("{s}.0")
                }
            }
            _ => n.to_string(),
        },
        J::String(s) => format!("'{}'", s.replace('\'', "''")),
        J::Array(items) => format!(
            "[{}]",
            items.iter().map(neon_json).collect::<Vec<_>>().join(", ")
        ),
        J::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", neon_str(k), neon_json(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A constant's value as JSON: services and callables have no literal form (`null`), nor do
/// non-finite floats.
fn constant_json(v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::Null | Value::Service(_) | Value::Callable(_) => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        Value::Str(s) => J::String(s.clone()),
        Value::List(items) => J::Array(items.iter().map(constant_json).collect()),
        Value::Map(m) => J::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), constant_json(v)))
                .collect(),
        ),
    }
}

fn params_of(registry: &Registry, params: &[Param]) -> IndexMap<String, ParamEntry> {
    params
        .iter()
        .map(|p| {
            let ty = (p.ty)(registry);
            let entry = match p.default {
                Some(d) => ParamEntry::WithDefault {
                    ty,
                    default: constant_json(&d()),
                },
                None => ParamEntry::Type(ty),
            };
            (p.name.to_string(), entry)
        })
        .collect()
}

fn method_of(registry: &Registry, sig: Option<&MethodSig>, is_static: bool) -> MethodEntry {
    MethodEntry {
        params: sig.map(|s| params_of(registry, &s.params)),
        returns: sig.and_then(|s| s.returns).map(|r| r(registry)),
        is_static,
    }
}

impl Registry {
    /// Every catalog type function of the registered classes, in catalog order, with the
    /// class and the place it types (`__construct($db)`, `make()` for a return type, `$cache`
    /// for a property): what [`Registry::unregistered_types`] calls.
    pub(crate) fn type_fns(&self) -> Vec<(&str, String, super::TypeFn)> {
        let mut out = Vec::new();
        let mut names: Vec<&crate::plan::Name> = self.t.classes.keys().collect();
        names.sort();
        for name in names {
            let c = &self.t.classes[name];
            let class = name.as_str();
            let mut sig = |method: &str, sig: &MethodSig| {
                for p in &sig.params {
                    out.push((class, format!("{method}(${})", p.name), p.ty));
                }
                if let Some(r) = sig.returns {
                    out.push((class, format!("{method}()"), r));
                }
            };
            if let Some(params) = &c.more().ctor_sig {
                let ctor = MethodSig {
                    params: params.clone(),
                    returns: None,
                };
                sig("__construct", &ctor);
            }
            if let Some(t) = self.type_entry(c.type_id) {
                let mut ms: Vec<(&String, &MethodSig)> = t.method_sigs.iter().collect();
                ms.sort_by_key(|(m, _)| *m);
                for (m, s) in ms {
                    sig(m, s);
                }
            }
            let mut statics: Vec<(&String, &MethodSig)> = c.more().static_sigs.iter().collect();
            statics.sort_by_key(|(m, _)| *m);
            for (m, s) in statics {
                sig(m, s);
            }
            if let Some(t) = self.type_entry(c.type_id) {
                let mut ps: Vec<(&String, &super::TypeFn)> = t.property_types.iter().collect();
                ps.sort_by_key(|(p, _)| *p);
                for (p, f) in ps {
                    out.push((class, format!("${p}"), *f));
                }
            }
        }
        out
    }

    /// The catalog of everything registered, as data (see [`CatalogDocument`]): classes sorted
    /// by name with `extends`, `implements`, `constructor`, `methods` (instance, then static),
    /// `properties` and `constants`; then the interfaces that are not also class names.
    /// Deterministic: the same registrations give the same document.
    pub fn catalog_document(&self) -> CatalogDocument {
        let mut types = IndexMap::new();
        let mut names: Vec<&crate::plan::Name> = self.t.classes.keys().collect();
        names.sort();
        for name in names {
            let c = &self.t.classes[name];
            let t = self.type_entry(c.type_id);
            let mut entry = TypeEntry {
                extends: c.more().extends.clone(),
                ..TypeEntry::default()
            };
            let mut ifaces: Vec<String> = self
                .t
                .interfaces
                .iter()
                .filter(|(_, (tid, _))| self.t.casters.contains_key(&(c.type_id, *tid)))
                .map(|(n, _)| n.clone())
                .collect();
            ifaces.sort();
            entry.implements = ifaces;
            entry.is_async = c.async_ctor.is_some();
            let ctor = c
                .ctor
                .as_ref()
                .map(|_| ())
                .or(c.async_ctor.as_ref().map(|_| ()));
            match (ctor, &c.more().ctor_sig) {
                (Some(_), Some(params)) => entry.constructor.params = params_of(self, params),
                (Some(_), None) => entry.constructor_unsigned = true,
                (None, _) => entry.constructor.private = true,
            }
            if let Some(t) = t {
                let mut ms: Vec<&String> = t.methods.keys().chain(t.methods_mut.keys()).collect();
                ms.sort();
                ms.dedup();
                for m in ms {
                    let sig = method_of(self, t.method_sigs.get(m), false);
                    entry.methods.insert(m.clone(), sig);
                }
                // Written (`property`) and read (`getter`) properties, each once.
                let mut ps: Vec<&String> = t.properties.keys().chain(t.getters.keys()).collect();
                ps.sort();
                ps.dedup();
                for p in ps {
                    let ty = t
                        .property_types
                        .get(p)
                        .map_or_else(|| "mixed".to_string(), |f| f(self));
                    let inject = t.injected.contains(p);
                    entry
                        .properties
                        .insert(p.clone(), PropertyEntry { ty, inject });
                }
            }
            let mut statics: Vec<&String> = c.more().statics.keys().collect();
            statics.sort();
            for m in statics {
                let sig = method_of(self, c.more().static_sigs.get(m), true);
                entry.methods.insert(m.clone(), sig);
            }
            for (k, v) in &c.more().constants {
                entry.constants.insert(k.clone(), constant_json(v));
            }
            types.insert(name.to_string(), entry);
        }
        let mut ifaces: Vec<&String> = self.t.interfaces.keys().collect();
        ifaces.sort();
        for i in ifaces {
            if !self.t.classes.contains_key(i.as_str()) {
                let entry = TypeEntry {
                    interface: true,
                    ..TypeEntry::default()
                };
                types.insert(i.clone(), entry);
            }
        }
        CatalogDocument {
            format: FORMAT.to_string(),
            version: VERSION,
            types,
        }
    }

    /// The catalog in its compact JSON form ([`CatalogDocument::to_json`]; shape in
    /// docs/catalog.md), which `wireplan --catalog FILE` reads faster than NEON. Holds the
    /// same classes and types as [`Registry::catalog`].
    pub fn catalog_json(&self) -> String {
        self.catalog_document().to_json()
    }
}
