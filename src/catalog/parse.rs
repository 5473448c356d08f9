//! Reading one entry of a `types:` section (or of a catalog file) into a [`ClassInfo`]: the
//! keys of a class, parameters, types and defaults, each problem reported with its path
//! (`types › App\Db › constructor › dsn`). Names and types go through the catalog's
//! [`Interner`], so each is stored once.

use super::members::Members;
use super::names::Interner;
use super::node::{Node, View};
use super::types::{is_builtin, is_type_name, normalize_name, Ty, TypeRef};
use super::{ClassInfo, Method, Name, Param, Property};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprKind};
use crate::neon::Key;
use crate::source::Span;
use std::fmt;

/// Where an item sits in a `types:` entry (`App\Db › constructor › dsn`), written out only
/// when a message needs it: reading a large catalog formatted one path per parameter and
/// member, for messages that almost never come.
#[derive(Clone, Copy)]
struct At<'a> {
    up: Option<&'a At<'a>>,
    name: &'a str,
}

impl<'a> At<'a> {
    /// The entry of the class `name`.
    fn root(name: &'a str) -> At<'a> {
        At { up: None, name }
    }

    /// The item `name` inside this one.
    fn at(&'a self, name: &'a str) -> At<'a> {
        At {
            up: Some(self),
            name,
        }
    }
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(up) = self.up {
            write!(f, "{up} › ")?;
        }
        f.write_str(self.name)
    }
}

/// A key as written, borrowed when it is a string (most are: no copy per key read).
pub(super) fn key_text(k: &Key) -> std::borrow::Cow<'_, str> {
    match k {
        Key::Str(s) => std::borrow::Cow::Borrowed(s.as_str()),
        Key::Int(_) => std::borrow::Cow::Owned(k.as_string()),
    }
}

fn bad<N: Node>(diags: &mut Diagnostics, path: &At, expected: &str, v: &N) {
    diags.push(
        Diagnostic::error(
            Code::InvalidValue,
            format!(
                "The item 'types › {path}' expects to be {expected}, {} given.",
                v.describe()
            ),
        )
        .at(v.span()),
    );
}

/// Is `n` a PHP identifier, as a parameter, method, property or constant name must be: a
/// letter, `_` or a non-ASCII character, then letters, digits, `_` or non-ASCII characters?
fn is_identifier(n: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || !c.is_ascii();
    let mut chars = n.chars();
    chars.next().is_some_and(|c| word(c) && !c.is_ascii_digit()) && chars.all(word)
}

/// Reports `name`, the key of an item of `path` (a parameter, method, property or constant:
/// `what`), when it is not an identifier (`0:` or `1.5:` in a `constructor:` map, a list of
/// `constants:`). The item is kept, so its uses do not fail again.
fn check_identifier(
    diags: &mut Diagnostics,
    path: &At,
    what: &str,
    name: &str,
    at: impl FnOnce() -> Option<Span>,
) {
    if is_identifier(name) {
        return;
    }
    diags.push(
        Diagnostic::error(
            Code::InvalidValue,
            format!("The key '{name}' of 'types › {path}' is not a {what} name."),
        )
        .at(at())
        .with_note(format!(
            "a {what} name is a letter or `_`, then letters, digits or `_` (a map of names, \
             not a list)"
        )),
    );
}

/// Whether `name` is a class name; reports it when not. `path` is where it is written: `None`
/// for the key of a `types:` entry, else its `extends:` or `implements:` list. A quoted `'@X'`
/// is shown as written (the reader sees it escaped, `@@X`).
fn check_class_name(
    diags: &mut Diagnostics,
    path: Option<&At>,
    name: &str,
    at: Option<Span>,
) -> bool {
    let why = if !is_type_name(name) {
        "is not a class name"
    } else if is_builtin(name) {
        "is a built-in type, not a class name"
    } else {
        return true;
    };
    let shown = if name.starts_with("@@") {
        &name[1..]
    } else {
        name
    };
    let place = match path {
        Some(path) => format!("'types › {path}'"),
        None => "the `types:` section".to_string(),
    };
    diags.push(
        Diagnostic::error(Code::InvalidValue, format!("'{shown}' in {place} {why}."))
            .at(at)
            .with_note(
                "a class name is one or more words of letters, digits and `_` separated by `\\` \
             (`App\\Mailer`), none starting with a digit",
            ),
    );
    false
}

/// A parameter's default or a constant's value (`what`) as the compiler uses it: a constant
/// value, never a reference. An unquoted `@name` in a NEON catalog, anywhere in the value, is
/// reported: PHP has no service as a default, and taking it as the text would change what
/// was written. A quoted string is text: NEON's quoted `'@x'` is already escaped (`@@x`, as
/// Nette's NeonAdapter does), and a JSON catalog's `"@x"`, quoted by its syntax, is escaped
/// here, so the compiler passes the text `@x` (a registry writes `#[default("@x")]` so).
fn constant_value(diags: &mut Diagnostics, path: &At, what: &str, mut e: Expr) -> Expr {
    fn walk(diags: &mut Diagnostics, path: &At, what: &str, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Str(s) if s.starts_with('@') && !s.starts_with("@@") => {
                // Reported when unquoted, and taken as the text either way, so that the uses
                // of the parameter do not fail again.
                if !e.quoted {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "The {what} of 'types › {path}' is the service reference {s}; \
                                 it must be a constant value."
                            ),
                        )
                        .at(e.span)
                        .with_note(format!(
                            "the compiler fills a {what} in where nothing else is given; \
                             quote it ('{s}') for the text"
                        )),
                    );
                }
                s.insert(0, '@');
            }
            ExprKind::Array(a) => {
                for item in a.items.values_mut() {
                    walk(diags, path, what, item);
                }
            }
            _ => {}
        }
    }
    walk(diags, path, what, &mut e);
    e
}

fn string_list<N: Node>(
    names: &mut Interner,
    diags: &mut Diagnostics,
    path: &At,
    v: &N,
) -> Box<[Name]> {
    match v.view() {
        // A name that is not one is reported and left out (no `class-not-found` after it).
        View::Str(s) if !check_class_name(diags, Some(path), &s, v.span()) => Box::default(),
        View::Str(s) => Box::new([names.name(&normalize_name(&s))]),
        View::Array(a) => N::entries(a)
            .filter_map(|(_, x)| match x.as_text() {
                Some(s) => check_class_name(diags, Some(path), &s, x.span())
                    .then(|| names.name(&normalize_name(&s))),
                None => {
                    bad(diags, path, "class name", x);
                    None
                }
            })
            .collect(),
        View::Null => Box::default(),
        _ => {
            bad(diags, path, "class name or list of class names", v);
            Box::default()
        }
    }
}

/// A `default: null` whose fit depends on the catalog (the type names a class), checked once
/// every class is known.
#[derive(Debug)]
pub(super) struct NullDefault {
    /// `Class › constructor` or `Class › methods › m`.
    pub(super) path: String,
    /// The parameter's name.
    pub(super) param: Name,
    /// Its declared type.
    pub(super) ty: Ty,
    /// The default's position.
    pub(super) span: Option<Span>,
}

/// Checks a written type; an invalid one is reported and read as `mixed`, so that each use
/// does not fail again.
fn parse_type<N: Node>(
    names: &mut Interner,
    diags: &mut Diagnostics,
    path: &At,
    v: &N,
    text: &str,
) -> Ty {
    // A text read before passed the syntax check then (only valid texts are kept).
    let ty = match names.known_ty(text) {
        Some(t) => t,
        None => match TypeRef::syntax_error(text) {
            None => names.ty(text),
            Some(why) => {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("The type '{text}' of 'types › {path}' is not a type: {why}."),
                    )
                    .at(v.span()),
                );
                return names.reported_mixed();
            }
        },
    };
    // A built-in type misspelt (`strin`, `integer`) would be read as a class and fail at
    // every use, pointing at the configuration instead of here. A class name is never a
    // lower-case word one typo from a built-in type. Read as `mixed` once reported.
    let misspelt = ty.members.iter().chain(&ty.list_of).find_map(|m| {
        let word = !m.is_empty() && m.bytes().all(|b| b.is_ascii_lowercase());
        (word && !super::types::is_builtin(m))
            .then(|| crate::diagnostics::suggest(m, super::types::BUILTIN_TYPES.iter().copied()))
            .flatten()
            .map(|b| (m.clone(), b))
    });
    let Some((m, builtin)) = misspelt else {
        return ty;
    };
    diags.push(
        Diagnostic::error(
            Code::ClassNotFound,
            if *m == *text.trim() {
                format!(
                    "The type '{m}' of 'types › {path}' is neither a built-in type nor a class."
                )
            } else {
                format!(
                    "The type '{text}' of 'types › {path}' names '{m}', which is neither a \
                     built-in type nor a class."
                )
            },
        )
        .at(v.span())
        .with_note(format!("did you mean '{builtin}'?")),
    );
    names.reported_mixed()
}

/// A `bool` flag of the catalog, reported when it is something else.
fn flag<N: Node>(diags: &mut Diagnostics, path: &At, v: &N) -> bool {
    match v.view() {
        View::Bool(b) => b,
        _ => {
            bad(diags, path, "bool", v);
            false
        }
    }
}

fn parse_params<N: Node>(
    names: &mut Interner,
    diags: &mut Diagnostics,
    path: &At,
    v: &N,
    pending: &mut Vec<NullDefault>,
) -> Box<[Param]> {
    let Some(a) = v.as_map() else {
        if !v.is_nothing() {
            bad(diags, path, "map of parameters", v);
        }
        return Box::default();
    };
    let mut out = Vec::with_capacity(N::len(a));
    let mut mixed = None;
    for (k, pv) in N::entries(a) {
        let name = names.name(key_text(k).trim_start_matches('$'));
        check_identifier(diags, path, "parameter", &name, || {
            N::key_span(a, k).or(pv.span())
        });
        let here = path.at(&name);
        let ty = match pv.view() {
            View::Str(t) => Some(parse_type(names, diags, &here, pv, &t)),
            _ => None,
        };
        let mut param = Param {
            name: name.clone(),
            ty: ty.unwrap_or_else(|| mixed.get_or_insert_with(|| names.ty("mixed")).clone()),
            default: None,
            variadic: false,
        };
        match pv.view() {
            View::Str(_) | View::Null => {}
            View::Array(spec) => {
                for (sk, sv) in N::entries(spec) {
                    match sk {
                        Key::Str(s) if s == "type" => match sv.as_text() {
                            Some(t) => param.ty = parse_type(names, diags, &here, sv, &t),
                            None => bad(diags, &here.at("type"), "string", sv),
                        },
                        Key::Str(s) if s == "default" => {
                            let default = constant_value(diags, &here, "default", sv.to_expr());
                            param.default = Some(Box::new(default))
                        }
                        Key::Str(s) if s == "variadic" => {
                            param.variadic = flag(diags, &here.at("variadic"), sv)
                        }
                        _ => diags.push(
                            Diagnostic::error(
                                Code::UnknownOption,
                                format!("Unexpected item 'types › {path} › {name} › {sk}'."),
                            )
                            .at(N::key_span(spec, sk).or(sv.span()))
                            .with_note("expected 'type', 'default' or 'variadic'"),
                        ),
                    }
                }
            }
            _ => {
                bad(diags, &here, "type string or map", pv);
                // Reported once here; a default keeps it from failing every use again.
                param.default = Some(Box::new(Expr::bare(ExprKind::Null)));
            }
        }
        check_default(diags, path, &param, pv.span(), pending);
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
                .at(v.span()),
            );
        }
    }
    out.into_boxed_slice()
}

/// A default must fit the declared type (the type's syntax was checked by [`parse_type`]). A
/// `null` default of a class type waits in `pending` until every class is known. `spec_span`:
/// where the parameter's entry is written.
fn check_default(
    diags: &mut Diagnostics,
    path: &At,
    p: &Param,
    spec_span: Option<Span>,
    pending: &mut Vec<NullDefault>,
) {
    let Some(default) = &p.default else {
        return;
    };
    let names: Vec<&str> =
        p.ty.members
            .iter()
            .map(Name::as_str)
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
            span: default.span.or(spec_span),
        });
        return;
    }
    // An integer default outside `int<min, max>` (sixth new user's trial: frozen into plans).
    let out_of_range = match default.kind {
        ExprKind::Int(n) => p.ty.int_range_misfit(n),
        _ => None,
    };
    if !names.iter().any(|n| fits(n)) || !null_ok || out_of_range.is_some() {
        let d = Diagnostic::error(
            Code::InvalidValue,
            format!(
                "The default {} of 'types › {path} › {}' does not fit its type {}.",
                default.describe(),
                p.name,
                p.ty.text
            ),
        )
        .at(default.span.or(spec_span));
        diags.push(match (out_of_range, &default.kind) {
            (Some(why), ExprKind::Int(n)) => d.with_note(format!("{n} is {why}")),
            _ => d,
        });
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

pub(super) fn parse_class<N: Node>(
    names: &mut Interner,
    name: &str,
    key_span: Option<Span>,
    v: &N,
    diags: &mut Diagnostics,
    pending: &mut Vec<NullDefault>,
) -> ClassInfo {
    check_class_name(diags, None, name, key_span.or(v.span()));
    let mut info = ClassInfo {
        name: names.name(name),
        span: v.span(),
        interface: false,
        is_abstract: false,
        is_async: false,
        private_constructor: false,
        extends: Box::default(),
        implements: Box::default(),
        constructor: Box::default(),
        methods: Members::default(),
        properties: Members::default(),
        constants: Members::default(),
    };
    let Some(spec) = v.as_map() else {
        if !v.is_nothing() {
            bad(diags, &At::root(name), "map", v);
        }
        return info;
    };
    for (k, value) in N::entries(spec) {
        let key = key_text(k);
        let root = At::root(name);
        let path = root.at(&key);
        match &*key {
            "interface" | "abstract" | "async" => {
                let flag = match value.view() {
                    View::Bool(b) => b,
                    _ => {
                        bad(diags, &path, "bool", value);
                        false
                    }
                };
                match &*key {
                    "interface" => info.interface = flag,
                    "abstract" => info.is_abstract = flag,
                    _ => info.is_async = flag,
                }
            }
            "extends" => info.extends = string_list(names, diags, &path, value),
            "implements" => info.implements = string_list(names, diags, &path, value),
            "constructor" if value.as_text().as_deref() == Some("private") => {
                info.private_constructor = true;
            }
            "constructor" if value.as_map().is_none() && !value.is_nothing() => {
                bad(diags, &path, "map of parameters or 'private'", value);
            }
            "constructor" => {
                info.constructor = parse_params(names, diags, &path, value, pending);
                if N::get(spec, "interface").is_some_and(|i| matches!(i.view(), View::Bool(true))) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("Interface {name} cannot have a constructor."),
                        )
                        .at(value.span()),
                    );
                }
            }
            "methods" => {
                if let Some(ms) = value.as_map() {
                    let mut methods = Vec::with_capacity(N::len(ms));
                    for (mk, mv) in N::entries(ms) {
                        let mname = key_text(mk);
                        check_identifier(diags, &path, "method", &mname, || {
                            N::key_span(ms, mk).or(mv.span())
                        });
                        let mut m = Method::default();
                        let here = path.at(&mname);
                        if let Some(ma) = mv.as_map() {
                            for (fk, fv) in N::entries(ma) {
                                match &*key_text(fk) {
                                    "params" => m.params = parse_params(names, diags, &here, fv, pending),
                                    "returns" => match fv.as_text() {
                                        Some(t) => {
                                            let at = here.at("returns");
                                            m.returns = Some(parse_type(names, diags, &at, fv, &t));
                                        }
                                        None if fv.is_nothing() => {}
                                        None => bad(diags, &here.at("returns"), "type string", fv),
                                    },
                                    "static" => {
                                        m.is_static = flag(diags, &here.at("static"), fv)
                                    }
                                    other => diags.push(
                                        Diagnostic::error(
                                            Code::UnknownOption,
                                            format!("Unexpected item 'types › {path} › {mname} › {other}'."),
                                        )
                                        .at(N::key_span(ma, fk).or(fv.span()))
                                        .with_note("expected 'params', 'returns' or 'static'"),
                                    ),
                                }
                            }
                        } else if !mv.is_nothing() {
                            bad(diags, &here, "map", mv);
                        }
                        methods.push((names.name(&mname), m));
                    }
                    info.methods = Members::from_vec(methods);
                } else if !value.is_nothing() {
                    bad(diags, &path, "map", value);
                }
            }
            "properties" => {
                if let Some(ps) = value.as_map() {
                    let mut properties = Vec::with_capacity(N::len(ps));
                    for (pk, pv) in N::entries(ps) {
                        let pname = names.name(key_text(pk).trim_start_matches('$'));
                        check_identifier(diags, &path, "property", &pname, || {
                            N::key_span(ps, pk).or(pv.span())
                        });
                        let here = path.at(&pname);
                        let property = parse_property(names, name, &pname, &here, pv, diags);
                        properties.push((pname, property));
                    }
                    info.properties = Members::from_vec(properties);
                } else if !value.is_nothing() {
                    bad(diags, &path, "map", value);
                }
            }
            "constants" => {
                if let Some(cs) = value.as_map() {
                    let constants = N::entries(cs)
                        .map(|(ck, cv)| {
                            let cname = key_text(ck);
                            check_identifier(diags, &path, "constant", &cname, || {
                                N::key_span(cs, ck).or(cv.span())
                            });
                            let value =
                                constant_value(diags, &path.at(&cname), "value", cv.to_expr());
                            (names.name(&cname), value)
                        })
                        .collect();
                    info.constants = Members::from_vec(constants);
                } else if !value.is_nothing() {
                    bad(diags, &path, "map", value);
                }
            }
            other => {
                let mut d = Diagnostic::error(
                    Code::UnknownOption,
                    format!("Unexpected item 'types › {name} › {other}'."),
                )
                .at(N::key_span(spec, k).or(value.span()));
                d = d.with_suggestion(other, CLASS_KEYS.iter().copied());
                diags.push(d);
            }
        }
    }
    info
}

/// One entry of `properties:`: `name: type` or `name: {type, inject}`. `inject: true` needs a
/// class type: the inject step fills the property with the service of that type.
fn parse_property<N: Node>(
    names: &mut Interner,
    class: &str,
    name: &str,
    path: &At,
    v: &N,
    diags: &mut Diagnostics,
) -> Property {
    let mut property = Property {
        ty: names.ty("mixed"),
        inject: false,
    };
    match v.view() {
        View::Str(t) => property.ty = parse_type(names, diags, path, v, &t),
        View::Null => {}
        View::Array(a) => {
            for (k, x) in N::entries(a) {
                match k.as_string().as_str() {
                    "type" => match x.as_text() {
                        Some(t) => property.ty = parse_type(names, diags, path, x, &t),
                        None => bad(diags, &path.at("type"), "string", x),
                    },
                    "inject" => property.inject = flag(diags, &path.at("inject"), x),
                    other => diags.push(
                        Diagnostic::error(
                            Code::UnknownOption,
                            format!("Unexpected item 'types › {path} › {other}'."),
                        )
                        .at(x.span())
                        .with_note("expected 'type' or 'inject'"),
                    ),
                }
            }
            if property.inject && property.ty.class().is_none() {
                let at = N::get(a, "inject").and_then(|e| e.span()).or(v.span());
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
