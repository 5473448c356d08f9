//! The type catalog: what wireplan knows about the application's classes.
//!
//! Nette learns class shapes from PHP reflection; wireplan reads them from the `types:` section
//! (format in ARCHITECTURE.md, "The type catalog"): classes and interfaces, parents, implemented
//! interfaces, constructor and method signatures, properties and constants. Class names are
//! compared case-insensitively, as PHP does, and a leading `\` is ignored.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprKind};
use crate::neon::Key;
use crate::source::Span;
use indexmap::IndexMap;
use std::collections::HashMap;

mod file;
mod merge;

pub use file::{load_inputs, neon_catalog_to_json, CatalogInput, REGISTRY_CATALOG};

/// Names of built-in (non-class) types.
pub const BUILTIN_TYPES: &[&str] = &[
    "int", "float", "string", "bool", "array", "mixed", "callable", "object", "null", "void",
    "iterable", "false", "true", "never", "self", "static",
];

/// Is `name` a built-in type rather than a class?
pub fn is_builtin(name: &str) -> bool {
    BUILTIN_TYPES.iter().any(|b| b.eq_ignore_ascii_case(name))
}

/// A parsed type string: `int`, `App\Db`, `?App\Db`, `A|B`, `App\Handler[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeRef {
    /// The text as written (without surrounding spaces).
    pub text: String,
    /// `?T` or a union containing `null`.
    pub nullable: bool,
    /// The member types of a union (one item for a simple type), without `null`.
    pub members: Vec<String>,
    /// For `T[]`: the item class.
    pub list_of: Option<String>,
    /// For `Provider<T>`: the target type `T`, a lazy handle's (docs/async.md).
    pub provider_of: Option<String>,
}

impl TypeRef {
    /// Parses a type string. Never fails: unknown names are checked by the caller.
    pub fn parse(text: &str) -> TypeRef {
        let text = text.trim().to_string();
        let mut nullable = false;
        let mut body = text.as_str();
        if let Some(rest) = body.strip_prefix('?') {
            nullable = true;
            body = rest;
        }
        if let Some(item) = body.strip_suffix("[]") {
            return TypeRef {
                text: text.clone(),
                nullable,
                members: vec!["array".into()],
                list_of: Some(normalize_name(item)),
                provider_of: None,
            };
        }
        if let Some(target) = provider_target(body) {
            return TypeRef {
                text: text.clone(),
                nullable,
                members: vec![format!("Provider<{}>", normalize_name(target))],
                list_of: None,
                provider_of: Some(normalize_name(target)),
            };
        }
        let mut members = Vec::with_capacity(body.matches('|').count() + 1);
        for m in body.split('|') {
            let m = m.trim();
            if m.eq_ignore_ascii_case("null") {
                nullable = true;
            } else if !m.is_empty() {
                members.push(normalize_name(m));
            }
        }
        TypeRef {
            text,
            nullable,
            members,
            list_of: None,
            provider_of: None,
        }
    }

    /// The class name when the type is a single class (nullable allowed).
    pub fn class(&self) -> Option<&str> {
        match self.members.as_slice() {
            [one] if !is_builtin(one) && self.list_of.is_none() => Some(one),
            _ => None,
        }
    }

    /// Is it a union or intersection of several types?
    pub fn is_complex(&self) -> bool {
        self.members.len() > 1
    }

    /// What is wrong with the written type, if anything: `Some("…")` for text that is no type,
    /// such as `''`, `'?'`, `'int||string'`, `'?int|string'` or `'App\\'`. [`TypeRef::parse`]
    /// never fails, so the catalog checks each type with this first.
    pub fn syntax_error(text: &str) -> Option<String> {
        let text = text.trim();
        let (nullable, body) = match text.strip_prefix('?') {
            Some(rest) => (true, rest.trim()),
            None => (false, text),
        };
        if body.is_empty() {
            return Some(if nullable {
                "'?' must be followed by a type".into()
            } else {
                "it is empty".into()
            });
        }
        if let Some(item) = body.strip_suffix("[]") {
            return (!is_type_name(item)).then(|| format!("'{item}' is not a class name"));
        }
        if let Some(target) = provider_target(body) {
            return (!is_type_name(target) || is_builtin(target))
                .then(|| format!("'{target}' in Provider<…> is not a class name"));
        }
        let members: Vec<&str> = body.split('|').map(str::trim).collect();
        if nullable && members.len() > 1 {
            return Some("'?' cannot be combined with a union; add |null instead".into());
        }
        if members.iter().any(|m| m.is_empty()) {
            return Some("a union has an empty member".into());
        }
        members
            .iter()
            .find(|m| !is_type_name(m))
            .map(|m| format!("'{m}' is not a type name"))
    }
}

/// `T` of `Provider<T>` (spaces allowed inside the brackets).
fn provider_target(body: &str) -> Option<&str> {
    let inner = body.strip_prefix("Provider<")?.strip_suffix('>')?;
    Some(inner.trim())
}

/// Does `n` look like a class or built-in type name (`int`, `App\\Db`, `\\App\\Db`)?
fn is_type_name(n: &str) -> bool {
    let n = n.strip_prefix('\\').unwrap_or(n);
    !n.is_empty()
        && n.split('\\').all(|part| {
            !part.is_empty()
                && part.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !part.starts_with(|c: char| c.is_ascii_digit())
        })
}

/// Strips a leading `\` from a class name.
pub fn normalize_name(name: &str) -> String {
    name.trim().trim_start_matches('\\').to_string()
}

/// A parameter of a constructor or method.
#[derive(Debug, Clone)]
pub struct Param {
    /// Name without `$`.
    pub name: String,
    /// Declared type (`mixed` when none).
    pub ty: TypeRef,
    /// The default value, when the parameter is optional.
    pub default: Option<Expr>,
    /// Collects all remaining arguments.
    pub variadic: bool,
}

/// A method signature.
#[derive(Debug, Clone, Default)]
pub struct Method {
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Declared return type, if any.
    pub returns: Option<TypeRef>,
    /// Is it static?
    pub is_static: bool,
}

/// A property.
#[derive(Debug, Clone)]
pub struct Property {
    /// Declared type.
    pub ty: TypeRef,
    /// Filled by the inject extension.
    pub inject: bool,
}

/// One class or interface.
#[derive(Debug, Clone)]
pub struct ClassInfo {
    /// Full name as declared (without leading `\`).
    pub name: String,
    /// Span of the declaration key.
    pub span: Option<Span>,
    /// Is it an interface?
    pub interface: bool,
    /// Is it abstract?
    pub is_abstract: bool,
    /// `async: true`: its constructor is async, so every service whose creation reaches it
    /// requires async (docs/async.md).
    pub is_async: bool,
    /// Parent class (for interfaces: parent interfaces).
    pub extends: Vec<String>,
    /// Implemented interfaces.
    pub implements: Vec<String>,
    /// Constructor parameters (empty when the class has none).
    pub constructor: Vec<Param>,
    /// Methods by name.
    pub methods: IndexMap<String, Method>,
    /// Properties by name.
    pub properties: IndexMap<String, Property>,
    /// Constants by name.
    pub constants: IndexMap<String, Expr>,
}

/// Builds a [`Catalog`] from the entries of a `types:` section one at a time, so a large
/// section never has to exist whole as an expanded tree (see
/// [`crate::config::expand_config_streaming`]). Reports exactly what
/// [`Catalog::from_section`] reports, in the same order: the entries' own problems, then
/// references to unknown types and defaults that do not fit.
#[derive(Debug, Default)]
pub struct CatalogStream {
    cat: Catalog,
    pending: Vec<NullDefault>,
    diags: Diagnostics,
}

impl CatalogStream {
    /// An empty stream.
    pub fn new() -> CatalogStream {
        CatalogStream::default()
    }

    /// Adds the entry `key: value` of the `types:` section (a malformed one is reported when
    /// the stream finishes, the rest of it kept).
    pub fn add(&mut self, key: &Key, value: &Expr) {
        let name = normalize_name(&key.as_string());
        let info = parse_class(&name, value, &mut self.diags, &mut self.pending);
        self.cat.add(info);
    }

    /// The catalog, after the checks across entries; every problem goes to `diags`.
    pub fn finish(mut self, diags: &mut Diagnostics) -> Catalog {
        diags.extend(self.diags.into_vec());
        self.cat.check_references(diags);
        self.cat.check_null_defaults(&self.pending, diags);
        self.cat
    }
}

/// The catalog of all known types.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    classes: IndexMap<String, ClassInfo>,
    by_lower: HashMap<String, usize>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Reads the `types:` section. Malformed entries and references to unknown parents are
    /// reported to `diags`; the rest is kept.
    pub fn from_section(section: Option<&Expr>, diags: &mut Diagnostics) -> Catalog {
        let cat = Catalog::new();
        let Some(section) = section else {
            return cat;
        };
        let Some(items) = section.as_array() else {
            if !section.is_null() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "The item 'types' expects to be array, {} given.",
                            section.type_name()
                        ),
                    )
                    .at(section.span),
                );
            }
            return cat;
        };
        let mut stream = CatalogStream::new();
        for (key, value) in &items.items {
            stream.add(key, value);
        }
        stream.finish(diags)
    }

    /// `default: null` on a parameter whose type is a class without `?`: an unknown class is
    /// `class-not-found` (the real problem); a known one is a default that does not fit.
    fn check_null_defaults(&self, pending: &[NullDefault], diags: &mut Diagnostics) {
        for p in pending {
            let classes: Vec<&String> = p.ty.members.iter().filter(|m| !is_builtin(m)).collect();
            let unknown: Vec<&&String> = classes.iter().filter(|c| !self.exists(c)).collect();
            if unknown.is_empty() {
                let mut d = Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "The default null of 'types › {} › {}' does not fit its type {}.",
                        p.path, p.param, p.ty.text
                    ),
                )
                .at(p.span);
                if let [one] = classes.as_slice() {
                    d = d.with_note(format!("write the type as ?{one} to allow null"));
                }
                diags.push(d);
                continue;
            }
            for class in unknown {
                let mut d = Diagnostic::error(
                    Code::ClassNotFound,
                    format!(
                        "Class '{class}' not found (the type of 'types › {} › {}').",
                        p.path, p.param
                    ),
                )
                .at(p.span);
                d = match crate::diagnostics::suggest(
                    class,
                    self.classes().map(|c| c.name.as_str()),
                ) {
                    Some(s) => d.with_note(format!("did you mean '{s}'?")),
                    None => d.with_note("Add it to the `types:` section, or pass the catalog your registry writes with `--catalog FILE` (docs/catalog.md)."),
                };
                diags.push(d);
            }
        }
    }

    /// Adds (or replaces) a class.
    pub fn add(&mut self, info: ClassInfo) {
        let lower = info.name.to_ascii_lowercase();
        match self.by_lower.get(&lower) {
            Some(&i) => {
                if let Some((_, slot)) = self.classes.get_index_mut(i) {
                    *slot = info;
                }
            }
            None => {
                self.by_lower.insert(lower, self.classes.len());
                self.classes.insert(info.name.clone(), info);
            }
        }
    }

    fn check_references(&mut self, diags: &mut Diagnostics) {
        let mut cyclic: Vec<String> = Vec::new();
        for c in self.classes.values() {
            let named = c.extends.iter().map(|p| (p, "parent of")).chain(
                c.implements
                    .iter()
                    .map(|i| (i, "an interface implemented by")),
            );
            for (parent, role) in named {
                if self.get(parent).is_none() {
                    diags.push(
                        Diagnostic::error(
                            Code::ClassNotFound,
                            format!("Class '{parent}' not found (named as {role} {}).", c.name),
                        )
                        .at(c.span)
                        .with_note("Add it to the `types:` section, or pass the catalog your registry writes with `--catalog FILE` (docs/catalog.md)."),
                    );
                }
            }
            for i in &c.implements {
                if self.get(i).is_some_and(|p| !p.interface) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("{} implements {i}, which is not an interface.", c.name),
                        )
                        .at(c.span)
                        .with_note(format!("Use `extends: {i}` for a parent class.")),
                    );
                }
            }
            for parent in &c.extends {
                let Some(p) = self.get(parent) else {
                    continue;
                };
                let (msg, note) = match (c.interface, p.interface) {
                    (true, false) => (
                        format!(
                            "Interface {} extends {}, which is a class; an interface may extend only interfaces.",
                            c.name, p.name
                        ),
                        format!("Make {} an interface (interface: true), or leave it out of `extends`.", p.name),
                    ),
                    (false, true) => (
                        format!(
                            "Class {} extends {}, which is an interface.",
                            c.name, p.name
                        ),
                        format!("Use `implements: [{}]` for an interface.", p.name),
                    ),
                    _ => continue,
                };
                diags.push(
                    Diagnostic::error(Code::InvalidValue, msg)
                        .at(c.span)
                        .with_note(note),
                );
            }
            if !c.interface && c.extends.len() > 1 {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "Class {} extends several classes; only interfaces may.",
                            c.name
                        ),
                    )
                    .at(c.span),
                );
            }
            if let Some(path) = self.inheritance_cycle(&c.name) {
                if !path.iter().any(|p| cyclic.contains(p)) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("Inheritance cycle: {}.", path.join(" -> ")),
                        )
                        .at(c.span),
                    );
                }
                cyclic.extend(path);
            }
        }
        // Break the cycles so that later walks terminate.
        for name in cyclic {
            if let Some(i) = self.by_lower.get(&name.to_ascii_lowercase()).copied() {
                if let Some((_, c)) = self.classes.get_index_mut(i) {
                    c.extends.clear();
                    c.implements.clear();
                }
            }
        }
    }

    /// The path `A -> B -> A` when `name` reaches itself through `extends`/`implements`.
    fn inheritance_cycle(&self, name: &str) -> Option<Vec<String>> {
        fn walk(
            cat: &Catalog,
            current: &str,
            path: &mut Vec<String>,
            seen: &mut Vec<String>,
        ) -> bool {
            let Some(c) = cat.get(current) else {
                return false;
            };
            for p in c.extends.iter().chain(&c.implements) {
                let p = cat.canonical(p).to_string();
                if p.eq_ignore_ascii_case(&path[0]) {
                    path.push(p);
                    return true;
                }
                if seen.iter().any(|s| s.eq_ignore_ascii_case(&p)) {
                    continue;
                }
                seen.push(p.clone());
                path.push(p.clone());
                if walk(cat, &p, path, seen) {
                    return true;
                }
                path.pop();
            }
            false
        }
        let mut path = vec![self.canonical(name).to_string()];
        let mut seen = Vec::new();
        walk(self, name, &mut path, &mut seen).then_some(path)
    }

    /// The class named `name` (case-insensitive, leading `\` ignored).
    pub fn get(&self, name: &str) -> Option<&ClassInfo> {
        let name = name.trim().trim_start_matches('\\');
        // The name as declared (the usual case) is found without allocating: a key of
        // `classes` is the spelling first declared, which `by_lower` maps to the same entry.
        if let Some(c) = self.classes.get(name) {
            return Some(c);
        }
        let lower = name.to_ascii_lowercase();
        self.by_lower
            .get(&lower)
            .and_then(|&i| self.classes.get_index(i))
            .map(|(_, c)| c)
    }

    /// Does the catalog know `name`?
    pub fn exists(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// All classes in declaration order.
    pub fn classes(&self) -> impl Iterator<Item = &ClassInfo> {
        self.classes.values()
    }

    /// The canonical spelling of a known class name.
    pub fn canonical<'a>(&'a self, name: &'a str) -> &'a str {
        self.get(name).map(|c| c.name.as_str()).unwrap_or(name)
    }

    /// `name` itself, then all parent classes and all interfaces, transitively, without
    /// duplicates (in that order). Unknown names yield just themselves.
    pub fn ancestors(&self, name: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut todo = vec![self.canonical(name).to_string()];
        while let Some(n) = todo.pop() {
            if out.iter().any(|o| o.eq_ignore_ascii_case(&n)) {
                continue;
            }
            if let Some(c) = self.get(&n) {
                for p in c.implements.iter().rev().chain(c.extends.iter().rev()) {
                    todo.push(self.canonical(p).to_string());
                }
            }
            out.push(n);
        }
        out
    }

    /// Is `sub` the same as, or a subtype of, `sup`?
    pub fn is_subtype(&self, sub: &str, sup: &str) -> bool {
        self.ancestors(sub)
            .iter()
            .any(|a| a.eq_ignore_ascii_case(&normalize_name(sup)))
    }

    /// Is `sub` a proper subtype of `sup` (PHP's `isSubclassOf`: a type is not its own
    /// subclass)?
    pub fn is_subclass(&self, sub: &str, sup: &str) -> bool {
        !self
            .canonical(sub)
            .eq_ignore_ascii_case(self.canonical(&normalize_name(sup)))
            && self.is_subtype(sub, sup)
    }

    /// Finds a method on a class or its ancestors.
    pub fn method(&self, class: &str, method: &str) -> Option<&Method> {
        self.ancestors(class).iter().find_map(|a| {
            self.get(a).and_then(|c| {
                c.methods
                    .iter()
                    .find(|(m, _)| m.eq_ignore_ascii_case(method))
                    .map(|(_, m)| m)
            })
        })
    }

    /// The declared spelling of a method found case-insensitively (PHP method names are
    /// case-insensitive; the runtime's registry is not): `setlogger` → `setLogger`.
    pub fn method_name(&self, class: &str, method: &str) -> Option<&str> {
        self.ancestors(class).iter().find_map(|a| {
            self.get(a).and_then(|c| {
                c.methods
                    .keys()
                    .find(|m| m.eq_ignore_ascii_case(method))
                    .map(String::as_str)
            })
        })
    }

    /// Finds a property on a class or its ancestors.
    pub fn property(&self, class: &str, prop: &str) -> Option<&Property> {
        self.ancestors(class)
            .iter()
            .find_map(|a| self.get(a).and_then(|c| c.properties.get(prop)))
    }

    /// Finds a class constant on a class or its ancestors.
    pub fn constant(&self, class: &str, name: &str) -> Option<&Expr> {
        self.ancestors(class)
            .iter()
            .find_map(|a| self.get(a).and_then(|c| c.constants.get(name)))
    }

    /// The names of the members `pick` lists (`|c| c.properties.keys()`, …) on a class and its
    /// ancestors, for "did you mean" notes.
    pub fn member_names<'a, I>(
        &'a self,
        class: &str,
        pick: impl Fn(&'a ClassInfo) -> I,
    ) -> Vec<&'a str>
    where
        I: Iterator<Item = &'a String>,
    {
        self.ancestors(class)
            .iter()
            .filter_map(|a| self.get(a))
            .flat_map(pick)
            .map(String::as_str)
            .collect()
    }

    /// The constructor parameters of a class, inherited from the nearest parent that declares
    /// one (as in PHP).
    pub fn constructor(&self, class: &str) -> &[Param] {
        let mut current = self.get(class);
        let mut steps = 0;
        while let Some(c) = current {
            steps += 1;
            if steps > self.classes.len() {
                break;
            }
            if !c.constructor.is_empty() {
                return &c.constructor;
            }
            current = c
                .extends
                .first()
                .filter(|_| !c.interface)
                .and_then(|p| self.get(p));
        }
        &[]
    }
}

fn bad(diags: &mut Diagnostics, path: &str, expected: &str, v: &Expr) {
    diags.push(
        Diagnostic::error(
            Code::InvalidValue,
            format!(
                "The item 'types › {path}' expects to be {expected}, {} given.",
                v.describe()
            ),
        )
        .at(v.span),
    );
}

fn string_list(diags: &mut Diagnostics, path: &str, v: &Expr) -> Vec<String> {
    match &v.kind {
        ExprKind::Str(s) => vec![normalize_name(s)],
        ExprKind::Array(a) => a
            .values()
            .filter_map(|x| match x.as_str() {
                Some(s) => Some(normalize_name(s)),
                None => {
                    bad(diags, path, "string", x);
                    None
                }
            })
            .collect(),
        ExprKind::Null => Vec::new(),
        _ => {
            bad(diags, path, "list of names", v);
            Vec::new()
        }
    }
}

/// A `default: null` whose fit depends on the catalog (the type names a class), checked once
/// every class is known.
#[derive(Debug)]
struct NullDefault {
    /// `Class › constructor` or `Class › methods › m`.
    path: String,
    /// The parameter's name.
    param: String,
    /// Its declared type.
    ty: TypeRef,
    /// The default's position.
    span: Option<Span>,
}

/// Checks a written type; an invalid one is reported and read as `mixed`, so that each use
/// does not fail again.
fn parse_type(diags: &mut Diagnostics, path: &str, v: &Expr, text: &str) -> TypeRef {
    match TypeRef::syntax_error(text) {
        None => TypeRef::parse(text),
        Some(why) => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!("The type '{text}' of 'types › {path}' is not a type: {why}."),
                )
                .at(v.span),
            );
            TypeRef::parse("mixed")
        }
    }
}

/// A `bool` flag of the catalog, reported when it is something else.
fn flag(diags: &mut Diagnostics, path: &str, v: &Expr) -> bool {
    match v.kind {
        ExprKind::Bool(b) => b,
        _ => {
            bad(diags, path, "bool", v);
            false
        }
    }
}

fn parse_params(
    diags: &mut Diagnostics,
    path: &str,
    v: &Expr,
    pending: &mut Vec<NullDefault>,
) -> Vec<Param> {
    let mut out = Vec::with_capacity(v.as_array().map_or(0, |a| a.items.len()));
    let Some(a) = v.as_array() else {
        if !v.is_null() {
            bad(diags, path, "map of parameters", v);
        }
        return out;
    };
    for (k, pv) in &a.items {
        let name = k.as_string().trim_start_matches('$').to_string();
        let mut param = Param {
            name: name.clone(),
            ty: TypeRef::parse("mixed"),
            default: None,
            variadic: false,
        };
        let here = format!("{path} › {name}");
        match &pv.kind {
            ExprKind::Str(t) => param.ty = parse_type(diags, &here, pv, t),
            ExprKind::Null => {}
            ExprKind::Array(spec) => {
                for (sk, sv) in &spec.items {
                    match sk {
                        Key::Str(s) if s == "type" => match sv.as_str() {
                            Some(t) => param.ty = parse_type(diags, &here, sv, t),
                            None => bad(diags, &format!("{here} › type"), "string", sv),
                        },
                        Key::Str(s) if s == "default" => param.default = Some(sv.clone()),
                        Key::Str(s) if s == "variadic" => {
                            param.variadic = flag(diags, &format!("{here} › variadic"), sv)
                        }
                        _ => diags.push(
                            Diagnostic::error(
                                Code::UnknownOption,
                                format!("Unexpected item 'types › {path} › {name} › {sk}'."),
                            )
                            .at(sv.span)
                            .with_note("expected 'type', 'default' or 'variadic'"),
                        ),
                    }
                }
            }
            _ => {
                bad(diags, &format!("{path} › {name}"), "type string or map", pv);
                // Reported once here; a default keeps it from failing every use again.
                param.default = Some(Expr::bare(ExprKind::Null));
            }
        }
        check_default(diags, path, &param, pv, pending);
        out.push(param);
    }
    if let Some(pos) = out.iter().position(|p| p.variadic) {
        if pos + 1 != out.len() {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "The variadic parameter ${} of 'types › {path}' must be the last one.",
                        out[pos].name
                    ),
                )
                .at(v.span),
            );
        }
    }
    out
}

/// A default must fit the declared type (the type's syntax was checked by [`parse_type`]). A
/// `null` default of a class type waits in `pending` until every class is known.
fn check_default(
    diags: &mut Diagnostics,
    path: &str,
    p: &Param,
    spec: &Expr,
    pending: &mut Vec<NullDefault>,
) {
    let Some(default) = &p.default else {
        return;
    };
    let names: Vec<&str> =
        p.ty.members
            .iter()
            .map(String::as_str)
            .chain(p.ty.list_of.as_deref())
            .collect();
    let fits = |t: &str| -> bool {
        match (t.to_ascii_lowercase().as_str(), &default.kind) {
            (_, ExprKind::Null) => true,
            ("mixed", _) => true,
            ("int", ExprKind::Int(_)) => true,
            ("float", ExprKind::Int(_) | ExprKind::Float(_)) => true,
            ("string", ExprKind::Str(_)) => true,
            ("bool", ExprKind::Bool(_)) => true,
            ("array" | "iterable", ExprKind::Array(_)) => true,
            (t, _) if !is_builtin(t) => true,
            _ => false,
        }
    };
    let null_ok = !matches!(default.kind, ExprKind::Null)
        || p.ty.nullable
        || names.iter().any(|n| n.eq_ignore_ascii_case("mixed"));
    if !null_ok && p.ty.list_of.is_none() && names.iter().any(|n| !is_builtin(n)) {
        pending.push(NullDefault {
            path: path.to_string(),
            param: p.name.clone(),
            ty: p.ty.clone(),
            span: default.span.or(spec.span),
        });
        return;
    }
    if !names.iter().any(|n| fits(n)) || !null_ok {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "The default {} of 'types › {path} › {}' does not fit its type {}.",
                    default.describe(),
                    p.name,
                    p.ty.text
                ),
            )
            .at(default.span.or(spec.span)),
        );
    }
}

const CLASS_KEYS: &[&str] = &[
    "interface",
    "abstract",
    "async",
    "extends",
    "implements",
    "constructor",
    "methods",
    "properties",
    "constants",
];

fn parse_class(
    name: &str,
    v: &Expr,
    diags: &mut Diagnostics,
    pending: &mut Vec<NullDefault>,
) -> ClassInfo {
    let mut info = ClassInfo {
        name: name.to_string(),
        span: v.span,
        interface: false,
        is_abstract: false,
        is_async: false,
        extends: Vec::new(),
        implements: Vec::new(),
        constructor: Vec::new(),
        methods: IndexMap::new(),
        properties: IndexMap::new(),
        constants: IndexMap::new(),
    };
    let Some(spec) = v.as_array() else {
        if !v.is_null() {
            bad(diags, name, "map", v);
        }
        return info;
    };
    for (k, value) in &spec.items {
        let key = k.as_string();
        let path = format!("{name} › {key}");
        match key.as_str() {
            "interface" | "abstract" | "async" => {
                let flag = match value.kind {
                    ExprKind::Bool(b) => b,
                    _ => {
                        bad(diags, &path, "bool", value);
                        false
                    }
                };
                match key.as_str() {
                    "interface" => info.interface = flag,
                    "abstract" => info.is_abstract = flag,
                    _ => info.is_async = flag,
                }
            }
            "extends" => info.extends = string_list(diags, &path, value),
            "implements" => info.implements = string_list(diags, &path, value),
            "constructor" => {
                info.constructor = parse_params(diags, &path, value, pending);
                if spec
                    .get("interface")
                    .is_some_and(|i| matches!(i.kind, ExprKind::Bool(true)))
                {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("Interface {name} cannot have a constructor."),
                        )
                        .at(value.span),
                    );
                }
            }
            "methods" => {
                if let Some(ms) = value.as_array() {
                    for (mk, mv) in &ms.items {
                        let mname = mk.as_string();
                        let mut m = Method::default();
                        if let Some(ma) = mv.as_array() {
                            let here = format!("{path} › {mname}");
                            for (fk, fv) in &ma.items {
                                match fk.as_string().as_str() {
                                    "params" => m.params = parse_params(diags, &here, fv, pending),
                                    "returns" => match fv.as_str() {
                                        Some(t) => {
                                            let at = format!("{here} › returns");
                                            m.returns = Some(parse_type(diags, &at, fv, t));
                                        }
                                        None if fv.is_null() => {}
                                        None => bad(diags, &format!("{here} › returns"), "type string", fv),
                                    },
                                    "static" => {
                                        m.is_static = flag(diags, &format!("{here} › static"), fv)
                                    }
                                    other => diags.push(
                                        Diagnostic::error(
                                            Code::UnknownOption,
                                            format!("Unexpected item 'types › {path} › {mname} › {other}'."),
                                        )
                                        .at(fv.span)
                                        .with_note("expected 'params', 'returns' or 'static'"),
                                    ),
                                }
                            }
                        } else if !mv.is_null() {
                            bad(diags, &format!("{path} › {mname}"), "map", mv);
                        }
                        info.methods.insert(mname, m);
                    }
                } else if !value.is_null() {
                    bad(diags, &path, "map", value);
                }
            }
            "properties" => {
                if let Some(ps) = value.as_array() {
                    for (pk, pv) in &ps.items {
                        let pname = pk.as_string().trim_start_matches('$').to_string();
                        let here = format!("{path} › {pname}");
                        let property = parse_property(name, &pname, &here, pv, diags);
                        info.properties.insert(pname, property);
                    }
                } else if !value.is_null() {
                    bad(diags, &path, "map", value);
                }
            }
            "constants" => {
                if let Some(cs) = value.as_array() {
                    for (ck, cv) in &cs.items {
                        info.constants.insert(ck.as_string(), cv.clone());
                    }
                } else if !value.is_null() {
                    bad(diags, &path, "map", value);
                }
            }
            other => {
                let mut d = Diagnostic::error(
                    Code::UnknownOption,
                    format!("Unexpected item 'types › {name} › {other}'."),
                )
                .at(value.span);
                d = d.with_suggestion(other, CLASS_KEYS.iter().copied());
                diags.push(d);
            }
        }
    }
    info
}

/// One entry of `properties:`: `name: type` or `name: {type, inject}`. `inject: true` needs a
/// class type: the inject step fills the property with the service of that type.
fn parse_property(
    class: &str,
    name: &str,
    path: &str,
    v: &Expr,
    diags: &mut Diagnostics,
) -> Property {
    let mut property = Property {
        ty: TypeRef::parse("mixed"),
        inject: false,
    };
    match &v.kind {
        ExprKind::Str(t) => property.ty = parse_type(diags, path, v, t),
        ExprKind::Null => {}
        ExprKind::Array(a) => {
            for (k, x) in &a.items {
                match k.as_string().as_str() {
                    "type" => match x.as_str() {
                        Some(t) => property.ty = parse_type(diags, path, x, t),
                        None => bad(diags, &format!("{path} › type"), "string", x),
                    },
                    "inject" => property.inject = flag(diags, &format!("{path} › inject"), x),
                    other => diags.push(
                        Diagnostic::error(
                            Code::UnknownOption,
                            format!("Unexpected item 'types › {path} › {other}'."),
                        )
                        .at(x.span)
                        .with_note("expected 'type' or 'inject'"),
                    ),
                }
            }
            if property.inject && property.ty.class().is_none() {
                let at = a.get("inject").and_then(|e| e.span).or(v.span);
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "Property {class}::${name} has inject: true, but its type {} is not \
                             a class or interface.",
                            property.ty.text
                        ),
                    )
                    .at(at)
                    .with_note(
                        "the inject step fills a property with the one service of its class; \
                         give the property a class type, or drop inject",
                    ),
                );
                property.inject = false;
            }
        }
        _ => bad(diags, path, "type string or map", v),
    }
    property
}

/// A catalog from the text of a configuration with a `types:` section, for unit tests.
#[cfg(test)]
pub(crate) fn from_config_text(text: &str) -> Catalog {
    let mut diags = crate::diagnostics::Diagnostics::new();
    let mut sources = crate::source::SourceMap::new();
    let raw = crate::config::load_str("t.neon", text, &mut sources, &mut diags);
    let (_, sections) =
        crate::config::expand_config(&raw.sections, &[], &indexmap::IndexMap::new(), &mut diags);
    assert!(!diags.has_errors(), "test catalog: {diags:?}");
    Catalog::from_section(sections.get("types").map(|(_, v)| v), &mut diags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_strings_parse() {
        let t = TypeRef::parse("?App\\Db");
        assert!(t.nullable);
        assert_eq!(t.class(), Some("App\\Db"));
        let u = TypeRef::parse("int|string");
        assert!(u.is_complex());
        assert_eq!(u.class(), None);
        let l = TypeRef::parse("App\\Handler[]");
        assert_eq!(l.list_of.as_deref(), Some("App\\Handler"));
        assert_eq!(TypeRef::parse("\\App\\X").class(), Some("App\\X"));
    }

    #[test]
    fn type_syntax_is_checked() {
        for ok in [
            "int",
            "?App\\Db",
            "\\App\\Db",
            "int|string|null",
            "App\\H[]",
            "mixed",
        ] {
            assert_eq!(TypeRef::syntax_error(ok), None, "{ok}");
        }
        for bad in [
            "",
            "?",
            "int||string",
            "int|",
            "|int",
            "?int|string",
            "App\\",
            "1x",
            "[]",
            "a b",
        ] {
            assert!(TypeRef::syntax_error(bad).is_some(), "{bad}");
        }
    }
}
