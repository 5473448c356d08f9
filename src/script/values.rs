//! Values crossing between wireplan and Rhai.
//!
//! Rhai's object maps keep keys sorted, but order is meaning in NEON (setups, arguments,
//! handlers). Configuration and other ordered collections therefore reach scripts as an
//! [`OrderedMap`]: a map that keeps insertion order, indexable as `m["key"]` or `m.key`
//! (a missing key reads as `()`), with `keys()`, `values()`, `len()` and `contains()`.
//! `Statement(entity, args)` and `Reference(name)` build complex arguments as in Nette.

use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use crate::neon::Key;
use indexmap::IndexMap;
use rhai::{Array, Dynamic, Engine, EvalAltResult, ImmutableString, Map, Position};

/// An insertion-ordered map for scripts (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct OrderedMap {
    /// Entries in order.
    pub entries: IndexMap<String, Dynamic>,
}

/// A statement built in a script: `Statement("App\\Foo", [1, "@db"])`.
#[derive(Debug, Clone)]
pub struct ScriptStatement(pub Statement);

/// A value only known when the container starts (`%env.X%`, a dynamic parameter, or a string
/// built from one), as scripts see it: it passes through unchanged to where it is used, so
/// the plan reads it at start-up instead of freezing its text.
#[derive(Debug, Clone)]
pub struct ScriptDynamic(pub Expr);

thread_local! {
    /// The `%name%` texts that a dynamic parameter's `to_string()` (string interpolation,
    /// `print`) gave on this thread ([`frozen_in`]).
    static FROZEN: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Forgets the texts [`frozen_in`] looks for (a new compilation's engine starts clean).
pub(crate) fn forget_frozen() {
    FROZEN.with(|f| f.borrow_mut().clear());
}

/// The first `%name%` text in `s` that a dynamic parameter's `to_string()` gave: a string
/// built with `${p.port}` holds the parameter's name, not its value, which only the
/// container's start knows (fifth new user's trial: it went into the plan as text).
pub(crate) fn frozen_in(s: &str) -> Option<String> {
    if !s.contains('%') {
        return None;
    }
    FROZEN.with(|f| f.borrow().iter().find(|t| s.contains(t.as_str())).cloned())
}

/// `parts` joined at start-up: a `Concat` of their pieces, nested concatenations flattened,
/// adjacent texts merged and empty ones dropped.
fn joined(parts: Vec<Expr>) -> ScriptDynamic {
    let mut pieces: Vec<Expr> = Vec::new();
    let mut push = |e: Expr| match (&e.kind, pieces.last_mut().map(|l| &mut l.kind)) {
        (ExprKind::Str(s), _) if s.is_empty() => {}
        (ExprKind::Str(s), Some(ExprKind::Str(last))) => last.push_str(s),
        _ => pieces.push(e),
    };
    for part in parts {
        match part.kind {
            ExprKind::Concat(inner) => inner.into_iter().for_each(&mut push),
            _ => push(part),
        }
    }
    ScriptDynamic(Expr::bare(ExprKind::Concat(pieces)))
}

/// A reference built in a script: `Reference("db")` (same as the string `"@db"`).
#[derive(Debug, Clone)]
pub struct ScriptReference(pub String);

type Res<T> = Result<T, Box<EvalAltResult>>;

/// Raises a diagnostic as a script error; it is reported at the calling line.
pub fn raise<T>(d: Diagnostic) -> Res<T> {
    Err(Box::new(EvalAltResult::ErrorRuntime(
        Dynamic::from(d),
        Position::NONE,
    )))
}

/// How deep a value may nest when it crosses between Rhai and the compiler: the same bound as
/// a NEON document ([`crate::neon::MAX_DEPTH`]), so whatever a script hands over the compiler
/// could also have read from a file. Statements and arrays count one level each. Deeper values
/// are an `invalid-value` error at the calling script line, never a stack overflow.
pub const MAX_VALUE_DEPTH: usize = crate::neon::MAX_DEPTH;

fn too_deep() -> String {
    format!("the value nests deeper than {MAX_VALUE_DEPTH} levels, the limit for values passed between scripts and the compiler")
}

/// How deep `e` nests (statements and arrays count one level), stopping at `limit + 1`.
fn expr_depth(e: &Expr, limit: usize) -> usize {
    fn array(a: &ExprArray, limit: usize) -> usize {
        let mut deepest = 0;
        for v in a.values() {
            deepest = deepest.max(expr_depth(v, limit.saturating_sub(1)));
            if deepest >= limit {
                break;
            }
        }
        1 + deepest
    }
    if limit == 0 {
        return 1;
    }
    match &e.kind {
        ExprKind::Array(a) => array(a, limit),
        ExprKind::Statement(st) => {
            let callee = match &st.callee {
                Callee::Member(inner, _) => expr_depth(inner, limit - 1),
                Callee::Name(_) => 0,
            };
            (1 + callee).max(array(&st.arguments, limit))
        }
        ExprKind::Concat(parts) => {
            1 + parts
                .iter()
                .map(|p| expr_depth(p, limit - 1))
                .max()
                .unwrap_or(0)
        }
        _ => 0,
    }
}

fn convert_array<'a>(
    items: impl IntoIterator<Item = (Option<String>, &'a Dynamic)>,
    depth: usize,
) -> Result<ExprArray, String> {
    let mut out = ExprArray::new();
    // The items of an array (no keys) take the indexes 0, 1, … in order: what
    // `ExprArray::push` gives a list built from nothing, without its search for the largest
    // index, which made converting an array of n items take time in n² (60,000 items given
    // to `addTag` took 32 s: a new user's trial).
    let mut next = 0;
    for (k, v) in items {
        let e = to_expr_at(v, depth + 1)?;
        match k {
            Some(k) => {
                out.items.insert(Key::from_string(k), e);
            }
            None => {
                out.items.insert(Key::Int(next), e);
                next += 1;
            }
        }
    }
    Ok(out)
}

/// Converts a Rhai value to a configuration value. Errors name the unsupported type, or the
/// depth limit ([`MAX_VALUE_DEPTH`]) when the value nests deeper.
pub fn to_expr(v: &Dynamic) -> Result<Expr, String> {
    to_expr_at(v, 0)
}

/// [`to_expr`] for a value `depth` levels down. Collections are read in place (never cloned
/// whole), so a deep value costs no more than its size.
fn to_expr_at(v: &Dynamic, depth: usize) -> Result<Expr, String> {
    // A debug build needs a few KiB per level: grow the stack instead of overflowing it.
    stacker::maybe_grow(32 * 1024, 1024 * 1024, || to_expr_in_place(v, depth))
}

fn to_expr_in_place(v: &Dynamic, depth: usize) -> Result<Expr, String> {
    if depth >= MAX_VALUE_DEPTH {
        return Err(too_deep());
    }
    // Values built in Rust (statements, dynamic parameters) carry their own depth.
    let embedded = |e: &Expr| -> Result<(), String> {
        if depth + expr_depth(e, MAX_VALUE_DEPTH - depth) > MAX_VALUE_DEPTH {
            Err(too_deep())
        } else {
            Ok(())
        }
    };
    let kind = if v.is_unit() {
        ExprKind::Null
    } else if let Ok(b) = v.as_bool() {
        ExprKind::Bool(b)
    } else if let Ok(i) = v.as_int() {
        ExprKind::Int(i)
    } else if let Ok(f) = v.as_float() {
        ExprKind::Float(f)
    } else if v.is_string() {
        let text = v.clone().into_string().unwrap_or_default();
        if let Some(param) = frozen_in(&text) {
            return Err(format!(
                "the string '{text}' holds the text {param} of a dynamic parameter, which only \
                 the container's start gives a value: join the parameter with + (\"a\" + p, a \
                 DynamicParameter read at start-up), not with ${{…}} or to_string()"
            ));
        }
        ExprKind::Str(text)
    } else if let Ok(a) = v.as_array_ref() {
        ExprKind::Array(convert_array(a.iter().map(|x| (None, x)), depth)?)
    } else if let Ok(m) = v.as_map_ref() {
        ExprKind::Array(convert_array(
            m.iter().map(|(k, x)| (Some(k.to_string()), x)),
            depth,
        )?)
    } else if let Some(m) = v.read_lock::<OrderedMap>() {
        ExprKind::Array(convert_array(
            m.entries.iter().map(|(k, x)| (Some(k.clone()), x)),
            depth,
        )?)
    } else if let Some(s) = v.read_lock::<ScriptStatement>() {
        let e = Expr::bare(ExprKind::Statement(Box::new(s.0.clone())));
        embedded(&e)?;
        return Ok(e);
    } else if let Some(d) = v.read_lock::<ScriptDynamic>() {
        embedded(&d.0)?;
        return Ok(d.0.clone());
    } else if let Some(r) = v.read_lock::<ScriptReference>() {
        ExprKind::Str(format!("@{}", r.0))
    } else if let Some(d) = v.read_lock::<super::builder_api::DefinitionHandle>() {
        ExprKind::Str(format!("@{}", d.name()))
    } else {
        return Err(format!(
            "a {} cannot be used as a value here (a value is a string, number, boolean, (), \
             array, map, statement, reference or definition)",
            script_type_name(v)
        ));
    };
    Ok(Expr::bare(kind))
}

/// The name a script knows `v`'s type by: the registered name of the API's handles (as
/// their `register_type_with_name` calls name them: `ContainerBuilder`, `Definition`,
/// `Extension`, `Compiler`, `Initialization`, `Types`, `Plan`, `Expect`, …), Rhai's own name
/// for its types (`string`, `i64`, `Fn`), the last path segment of any other Rust type; never a
/// module path of wireplan's internals.
pub(crate) fn script_type_name(v: &Dynamic) -> String {
    use super::builder_api::{BuilderHandle, DefinitionHandle};
    use super::extension_api::{
        CompilerHandle, ExtensionHandle, InitializationHandle, TypesHandle,
    };
    let known = [
        (v.is::<BuilderHandle>(), "ContainerBuilder"),
        (v.is::<DefinitionHandle>(), "Definition"),
        (v.is::<ExtensionHandle>(), "Extension"),
        (v.is::<CompilerHandle>(), "Compiler"),
        (v.is::<InitializationHandle>(), "Initialization"),
        (v.is::<TypesHandle>(), "Types"),
        (v.is::<super::plan_api::PlanDocument>(), "Plan"),
        (v.is::<super::schema_api::ScriptExpect>(), "Expect"),
        (v.is::<ScriptStatement>(), "Statement"),
        (v.is::<ScriptReference>(), "Reference"),
        (v.is::<ScriptDynamic>(), "DynamicParameter"),
        (v.is::<OrderedMap>(), "OrderedMap"),
        (v.is::<Diagnostic>(), "Diagnostic"),
    ];
    if let Some((_, name)) = known.iter().find(|(is, _)| *is) {
        return (*name).to_string();
    }
    let full = v.type_name();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// Converts a configuration value to Rhai: lists become arrays, maps [`OrderedMap`]s,
/// statements [`ScriptStatement`]s, dynamic parameters their `%name%` text.
pub fn to_dynamic(e: &Expr) -> Dynamic {
    // Configuration values nest up to NEON's depth limit; grow the stack rather than overflow.
    stacker::maybe_grow(32 * 1024, 1024 * 1024, || to_dynamic_in_place(e))
}

fn to_dynamic_in_place(e: &Expr) -> Dynamic {
    match &e.kind {
        ExprKind::Null => Dynamic::UNIT,
        ExprKind::Bool(b) => Dynamic::from(*b),
        ExprKind::Int(i) => Dynamic::from(*i),
        ExprKind::Float(f) => Dynamic::from(*f),
        ExprKind::Str(s) => Dynamic::from(s.clone()),
        ExprKind::Array(a) if a.is_list() => {
            Dynamic::from_array(a.values().map(to_dynamic).collect())
        }
        ExprKind::Array(a) => Dynamic::from(OrderedMap {
            entries: a
                .items
                .iter()
                .map(|(k, v)| (k.as_string(), to_dynamic(v)))
                .collect(),
        }),
        ExprKind::Statement(st) => Dynamic::from(ScriptStatement((**st).clone())),
        ExprKind::Dynamic(_) | ExprKind::Concat(_) => Dynamic::from(ScriptDynamic(e.clone())),
    }
}

/// Converts a script array of arguments, naming the function in errors.
pub fn args_array(args: &Array, what: &str) -> Res<ExprArray> {
    let mut out = ExprArray::new();
    for (i, a) in args.iter().enumerate() {
        match to_expr(a) {
            // Index `i`, as `push` would give it, without its search (see `convert_array`).
            Ok(e) => {
                out.items.insert(Key::Int(i as i64), e);
            }
            Err(msg) => {
                return raise(Diagnostic::error(
                    Code::InvalidValue,
                    format!("{what}: argument at index {i}: {msg}"),
                ))
            }
        }
    }
    Ok(out)
}

/// Converts any script value used as arguments: an array (positional), a map or ordered map
/// (named), or `()` (none).
pub fn arguments(v: &Dynamic, what: &str) -> Res<ExprArray> {
    if v.is_unit() {
        return Ok(ExprArray::new());
    }
    match to_expr(v) {
        Ok(Expr {
            kind: ExprKind::Array(a),
            ..
        }) => Ok(a),
        Ok(_) => raise(Diagnostic::error(
            Code::InvalidValue,
            format!(
                "{what}: arguments must be an array or a map, {} given",
                script_type_name(v)
            ),
        )),
        Err(msg) => raise(Diagnostic::error(
            Code::InvalidValue,
            format!("{what}: {msg}"),
        )),
    }
}

fn show(v: &Dynamic) -> String {
    if let Some(m) = v.clone().try_cast::<OrderedMap>() {
        return show_map(&m);
    }
    if let Some(s) = v.clone().try_cast::<ScriptStatement>() {
        return Expr::bare(ExprKind::Statement(Box::new(s.0))).describe();
    }
    if let Some(a) = v.clone().try_cast::<Array>() {
        return format!("[{}]", a.iter().map(show).collect::<Vec<_>>().join(", "));
    }
    if v.is_string() {
        return format!("{:?}", v.to_string());
    }
    v.to_string()
}

fn show_map(m: &OrderedMap) -> String {
    let items: Vec<String> = m
        .entries
        .iter()
        .map(|(k, v)| format!("{k}: {}", show(v)))
        .collect();
    format!("#{{{}}}", items.join(", "))
}

/// Registers [`OrderedMap`], `Statement(...)` and `Reference(...)`.
pub fn register(engine: &mut Engine) {
    engine.register_type_with_name::<OrderedMap>("OrderedMap");
    engine.register_indexer_get(|m: &mut OrderedMap, key: &str| {
        m.entries.get(key).cloned().unwrap_or(Dynamic::UNIT)
    });
    engine.register_indexer_set(|m: &mut OrderedMap, key: &str, v: Dynamic| {
        m.entries.insert(key.to_string(), v);
    });
    // Rhai gives every value a built-in `tag` property; a key named `tag` must win.
    engine.register_get_set(
        "tag",
        |m: &mut OrderedMap| m.entries.get("tag").cloned().unwrap_or(Dynamic::UNIT),
        |m: &mut OrderedMap, v: Dynamic| {
            m.entries.insert("tag".to_string(), v);
        },
    );
    engine.register_fn("keys", |m: &mut OrderedMap| -> Array {
        m.entries.keys().map(|k| Dynamic::from(k.clone())).collect()
    });
    engine.register_fn("values", |m: &mut OrderedMap| -> Array {
        m.entries.values().cloned().collect()
    });
    engine.register_fn("len", |m: &mut OrderedMap| m.entries.len() as i64);
    engine.register_fn("contains", |m: &mut OrderedMap, key: &str| {
        m.entries.contains_key(key)
    });
    engine.register_fn("remove", |m: &mut OrderedMap, key: &str| {
        m.entries.shift_remove(key).unwrap_or(Dynamic::UNIT)
    });
    engine.register_fn("to_map", |m: &mut OrderedMap| -> Map {
        m.entries
            .iter()
            .map(|(k, v)| (k.as_str().into(), v.clone()))
            .collect()
    });
    engine.register_fn("to_string", |m: &mut OrderedMap| show_map(m));
    engine.register_fn("to_debug", |m: &mut OrderedMap| show_map(m));
    // Errors raised by the API, as seen by `try { … } catch (e) { … }`.
    engine.register_type_with_name::<Diagnostic>("Diagnostic");
    engine.register_get("code", |d: &mut Diagnostic| d.code.as_str().to_string());
    engine.register_get("message", |d: &mut Diagnostic| d.message.clone());
    engine.register_fn("to_string", |d: &mut Diagnostic| {
        format!("[{}] {}", d.code, d.message)
    });
    engine.register_fn("to_debug", |d: &mut Diagnostic| {
        format!("[{}] {}", d.code, d.message)
    });
    engine.register_fn("OrderedMap", OrderedMap::default);

    engine.register_type_with_name::<ScriptDynamic>("DynamicParameter");
    // The text of a value known only at start-up: its parameters as `%name%`, each recorded
    // as frozen so that a string holding one is refused where it becomes a value.
    let text = |d: &mut ScriptDynamic| {
        let frozen = |n: &str| {
            let t = format!("%{n}%");
            FROZEN.with(|f| {
                let mut f = f.borrow_mut();
                if !f.contains(&t) {
                    f.push(t.clone());
                }
            });
            t
        };
        match &d.0.kind {
            ExprKind::Dynamic(n) => frozen(n),
            ExprKind::Concat(parts) => parts
                .iter()
                .map(|p| match &p.kind {
                    ExprKind::Dynamic(n) => frozen(n),
                    ExprKind::Str(s) => s.clone(),
                    _ => p.describe(),
                })
                .collect(),
            _ => d.0.describe(),
        }
    };
    engine.register_fn("to_string", text);
    engine.register_fn("to_debug", text);
    // `"dsn=" + params.port`: the text joined at start-up (`$concat`), as `%x%` inside a longer
    // string of the configuration is; joined as the value's text it froze `%env.PORT%` into
    // the plan (fifth new user's trial).
    engine.register_fn("+", |a: ImmutableString, d: ScriptDynamic| {
        joined(vec![Expr::string(a.to_string()), d.0])
    });
    engine.register_fn("+", |d: ScriptDynamic, b: ImmutableString| {
        joined(vec![d.0, Expr::string(b.to_string())])
    });
    engine.register_fn("+", |d: ScriptDynamic, e: ScriptDynamic| {
        joined(vec![d.0, e.0])
    });
    engine.register_type_with_name::<ScriptStatement>("Statement");
    engine.register_type_with_name::<ScriptReference>("Reference");
    fn statement(entity: &str, args: Dynamic) -> Res<ScriptStatement> {
        Ok(ScriptStatement(Statement {
            callee: Callee::Name(entity.to_string()),
            arguments: arguments(&args, "Statement")?,
        }))
    }
    engine.register_fn("Statement", statement);
    engine.register_fn("Statement", |entity: &str| statement(entity, Dynamic::UNIT));
    engine.register_fn("Reference", |name: &str| {
        ScriptReference(name.trim_start_matches('@').to_string())
    });
    engine.register_fn("to_debug", |s: &mut ScriptStatement| {
        Expr::bare(ExprKind::Statement(Box::new(s.0.clone()))).describe()
    });
    engine.register_fn("to_string", |s: &mut ScriptStatement| {
        Expr::bare(ExprKind::Statement(Box::new(s.0.clone()))).describe()
    });
    engine.register_fn("to_string", |r: &mut ScriptReference| format!("@{}", r.0));
}

#[cfg(test)]
mod tests {
    use super::{args_array, to_expr};
    use crate::expr::ExprKind;
    use crate::neon::Key;
    use rhai::{Array, Dynamic, Map};

    /// An array's items take the indexes 0, 1, … in order, nested ones too, and a map keeps
    /// its keys (an integer-like key of a map is an integer key, as elsewhere).
    #[test]
    fn array_items_are_indexed_in_order_and_maps_keep_their_keys() {
        let inner: Array = vec![Dynamic::from(7_i64), Dynamic::from("x")];
        let mut map = Map::new();
        map.insert("a".into(), Dynamic::from(1_i64));
        map.insert("5".into(), Dynamic::from(2_i64));
        let outer: Array = (0..1000_i64)
            .map(Dynamic::from)
            .chain([Dynamic::from(inner), Dynamic::from(map)])
            .collect();
        let e = to_expr(&Dynamic::from(outer.clone())).expect("converts");
        let ExprKind::Array(a) = &e.kind else {
            panic!("{e:?}")
        };
        let keys: Vec<&Key> = a.items.keys().collect();
        assert_eq!(keys.len(), 1002);
        assert!(keys
            .iter()
            .enumerate()
            .all(|(i, k)| **k == Key::Int(i as i64)));
        assert!(matches!(a.items[&Key::Int(999)].kind, ExprKind::Int(999)));
        let ExprKind::Array(nested) = &a.items[&Key::Int(1000)].kind else {
            panic!("nested")
        };
        assert_eq!(
            nested.items.keys().collect::<Vec<_>>(),
            [&Key::Int(0), &Key::Int(1)]
        );
        let ExprKind::Array(m) = &a.items[&Key::Int(1001)].kind else {
            panic!("map")
        };
        assert_eq!(
            m.items.keys().collect::<Vec<_>>(),
            // Rhai's map is ordered by key.
            [&Key::Int(5), &Key::Str("a".into())]
        );
        // Function arguments are indexed the same way.
        let args = args_array(&outer[..3].to_vec(), "f").expect("arguments");
        assert_eq!(
            args.items.keys().collect::<Vec<_>>(),
            [&Key::Int(0), &Key::Int(1), &Key::Int(2)]
        );
    }
}
