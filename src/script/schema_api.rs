//! `Expect` for scripts: the schema an extension returns from `getConfigSchema()`, built with
//! nette/schema's names — `Expect::structure(#{...})`, `Expect::int(10)`,
//! `Expect::anyOf(["a", "b"]).firstIsDefault()`, `.required()`, `.min(1)`, `.assert(|v| ...)`.
//! Callbacks (`assert`, `transform`, `before`) are Rhai closures; they run while the compiler
//! validates the extension's section, inside the same sandbox.
//!
//! Two names differ from nette/schema because Rhai reserves them: `->default(v)` is
//! `defaultValue(v)`, and `Expect::null()` is `Expect::type("null")`.
//!
//! Note: Rhai's `#{...}` maps are sorted by key, so a structure built from one lists its items
//! alphabetically; build it from an `OrderedMap` to keep your own order.

use super::values::{raise, to_dynamic, to_expr, OrderedMap};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::Expr;
use crate::schema::{Choice, Expect};
use rhai::{Array, Dynamic, Engine, EvalAltResult, FnPtr, Map, Module, NativeCallContext, AST};
use std::cell::RefCell;
use std::rc::Rc;

type Res<T> = Result<T, Box<EvalAltResult>>;

/// A schema built in a script.
#[derive(Clone)]
pub struct ScriptExpect(pub Expect);

thread_local! {
    /// The engine and script whose closures a schema calls while it is processed.
    static CURRENT: RefCell<Option<(Rc<Engine>, AST)>> = const { RefCell::new(None) };
    /// Errors raised inside schema closures, reported after processing.
    static FAILURES: RefCell<Vec<EvalAltResult>> = const { RefCell::new(Vec::new()) };
}

/// Takes the errors raised inside schema closures since the last call (each is reported once,
/// where the closure failed; the stage that called it adds no error of its own).
pub fn take_callback_errors() -> Vec<EvalAltResult> {
    FAILURES.with(|f| std::mem::take(&mut *f.borrow_mut()))
}

/// Runs `f` with `engine` and `ast` available to schema callbacks.
pub fn with_callbacks<T>(engine: Rc<Engine>, ast: AST, f: impl FnOnce() -> T) -> T {
    CURRENT.with(|c| *c.borrow_mut() = Some((engine, ast)));
    let out = f();
    CURRENT.with(|c| *c.borrow_mut() = None);
    out
}

fn call(f: &FnPtr, arg: Dynamic) -> Result<Dynamic, String> {
    CURRENT.with(|c| {
        let current = c.borrow();
        let Some((engine, ast)) = current.as_ref() else {
            return Err(
                "schema callbacks run only while the compiler validates the section".into(),
            );
        };
        f.call::<Dynamic>(engine, ast, (arg,)).map_err(|e| {
            let msg = e.to_string();
            FAILURES.with(|f| f.borrow_mut().push(*e));
            msg
        })
    })
}

fn expr(v: &Dynamic, what: &str) -> Res<Expr> {
    to_expr(v).or_else(|m| {
        raise(Diagnostic::error(
            Code::InvalidValue,
            format!("{what}: {m}"),
        ))
    })
}

/// A schema argument: an `Expect`, or (where nette/schema takes `string|Schema`, as
/// `listOf`/`arrayOf` do) a type name such as `"string"`, `"int|null"` or a class, which means
/// `Expect::type(name)`.
fn schema_of(v: &Dynamic, what: &str) -> Res<Expect> {
    if let Some(e) = v.clone().try_cast::<ScriptExpect>() {
        return Ok(e.0);
    }
    if let Some(t) = v.clone().try_cast::<rhai::ImmutableString>() {
        if !t.trim().is_empty() {
            return Ok(Expect::type_(t.trim()));
        }
    }
    raise(Diagnostic::error(
        Code::InvalidValue,
        format!(
            "{what}: expects an Expect schema or a type name, {} given",
            describe(v)
        ),
    ))
}

/// `Expect::anyOf`: each choice a schema (an `Expect`) or a value.
fn any_of(set: &[Dynamic]) -> Result<ScriptExpect, Box<rhai::EvalAltResult>> {
    let mut choices: Vec<Choice> = Vec::new();
    for v in set {
        match v.clone().try_cast::<ScriptExpect>() {
            Some(e) => choices.push(Choice::Schema(Box::new(e.0))),
            None => choices.push(Choice::Value(expr(v, "Expect::anyOf")?)),
        }
    }
    Ok(ScriptExpect(Expect::any_of(choices)))
}

/// A script value as a message shows it: its type, and the text of a string.
fn describe(v: &Dynamic) -> String {
    match v.clone().try_cast::<rhai::ImmutableString>() {
        Some(s) => format!("string '{s}'"),
        None => super::values::script_type_name(v),
    }
}

fn shape(items: Dynamic) -> Res<Vec<(String, Expect)>> {
    let pairs: Vec<(String, Dynamic)> = if let Some(m) = items.clone().try_cast::<OrderedMap>() {
        m.entries.into_iter().collect()
    } else if let Some(m) = items.clone().try_cast::<Map>() {
        m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    } else {
        return raise(Diagnostic::error(
            Code::InvalidValue,
            "Expect::structure: expects a map of name: Expect",
        ));
    };
    pairs
        .into_iter()
        .map(|(k, v)| {
            Ok((
                k.clone(),
                schema_of(&v, &format!("Expect::structure item '{k}'"))?,
            ))
        })
        .collect()
}

fn with_default(e: Expect, v: Dynamic) -> Res<ScriptExpect> {
    let before = e.misuse.len();
    checked(before, e.default(expr(&v, "default")?))
}

/// `e` as the method's result, or its misuse raised at the call when the method made one
/// (`nullable()` on a structure, a structure's default, `extend()` of a type): PHP's Expect
/// throws at the call, and so the script's line is where the mistake is reported, not the
/// configuration section the schema validates (fifth new user's trial). The words are those
/// "Invalid schema: …" would have used.
fn checked(before: usize, e: Expect) -> Res<ScriptExpect> {
    match e.misuse.get(before) {
        Some(misuse) => raise(Diagnostic::error(
            Code::InvalidValue,
            format!("Invalid schema: {misuse}"),
        )),
        None => Ok(ScriptExpect(e)),
    }
}

/// `r` with the place of the `Expect::…` call that made it when it is an error without one:
/// Rhai gives an error from a function of a module none, and it would point at the whole
/// lifecycle function instead of the line (a new user's trial). Applied to the constructors
/// that check what they are given.
fn at_call<T>(ctx: &NativeCallContext, r: Res<T>) -> Res<T> {
    r.map_err(|mut e| {
        if e.position().is_none() {
            e.set_position(ctx.call_position());
        }
        e
    })
}

/// Registers the `Expect` module and the schema methods.
pub fn register(engine: &mut Engine) {
    engine.register_type_with_name::<ScriptExpect>("Expect");
    let mut m = Module::new();
    macro_rules! simple {
        ($name:literal, $ctor:expr) => {
            m.set_native_fn($name, || Ok(ScriptExpect($ctor)));
            m.set_native_fn($name, |ctx: NativeCallContext, v: Dynamic| {
                at_call(&ctx, with_default($ctor, v))
            });
        };
    }
    simple!("string", Expect::string());
    simple!("int", Expect::int());
    simple!("float", Expect::float());
    simple!("bool", Expect::bool());
    simple!("scalar", Expect::scalar());
    simple!("mixed", Expect::mixed());
    simple!("email", Expect::email());
    simple!("unicode", Expect::unicode());
    simple!("list", Expect::list());
    simple!("array", Expect::array());
    m.set_native_fn("type", |t: &str| Ok(ScriptExpect(Expect::type_(t))));
    m.set_native_fn("arrayOf", |ctx: NativeCallContext, v: Dynamic| {
        at_call(
            &ctx,
            schema_of(&v, "Expect::arrayOf").map(|v| ScriptExpect(Expect::array_of(v))),
        )
    });
    m.set_native_fn(
        "arrayOf",
        |ctx: NativeCallContext, v: Dynamic, k: Dynamic| {
            let keyed = || -> Res<ScriptExpect> {
                Ok(ScriptExpect(Expect::array_of_keyed(
                    schema_of(&v, "Expect::arrayOf")?,
                    schema_of(&k, "Expect::arrayOf keys")?,
                )))
            };
            at_call(&ctx, keyed())
        },
    );
    m.set_native_fn("listOf", |ctx: NativeCallContext, v: Dynamic| {
        at_call(
            &ctx,
            schema_of(&v, "Expect::listOf").map(|v| ScriptExpect(Expect::list_of(v))),
        )
    });
    m.set_native_fn("structure", |ctx: NativeCallContext, items: Dynamic| {
        at_call(
            &ctx,
            shape(items).map(|items| ScriptExpect(Expect::structure(items))),
        )
    });
    m.set_native_fn("anyOf", |ctx: NativeCallContext, set: Array| {
        at_call(&ctx, any_of(&set))
    });
    // nette/schema's `Expect::anyOf('a', 'b', ...)` is variadic: the same with 2 to 8 choices
    // given one by one (Rhai has no variadic functions).
    m.set_native_fn("anyOf", |ctx: NativeCallContext, a: Dynamic, b: Dynamic| {
        at_call(&ctx, any_of(&[a, b]))
    });
    m.set_native_fn("anyOf", |a: Dynamic, b: Dynamic, c: Dynamic| {
        any_of(&[a, b, c])
    });
    m.set_native_fn("anyOf", |a: Dynamic, b: Dynamic, c: Dynamic, d: Dynamic| {
        any_of(&[a, b, c, d])
    });
    m.set_native_fn(
        "anyOf",
        |a: Dynamic, b: Dynamic, c: Dynamic, d: Dynamic, e: Dynamic| any_of(&[a, b, c, d, e]),
    );
    m.set_native_fn(
        "anyOf",
        |a: Dynamic, b: Dynamic, c: Dynamic, d: Dynamic, e: Dynamic, f: Dynamic| {
            any_of(&[a, b, c, d, e, f])
        },
    );
    m.set_native_fn(
        "anyOf",
        |a: Dynamic, b: Dynamic, c: Dynamic, d: Dynamic, e: Dynamic, f: Dynamic, g: Dynamic| {
            any_of(&[a, b, c, d, e, f, g])
        },
    );
    m.set_native_fn(
        "anyOf",
        |a: Dynamic,
         b: Dynamic,
         c: Dynamic,
         d: Dynamic,
         e: Dynamic,
         f: Dynamic,
         g: Dynamic,
         h: Dynamic| { any_of(&[a, b, c, d, e, f, g, h]) },
    );
    engine.register_static_module("Expect", m.into());

    use ScriptExpect as E;
    // `default` is a reserved word in Rhai, so Nette's `->default(v)` is `defaultValue(v)`.
    engine.register_fn("defaultValue", |e: &mut E, v: Dynamic| {
        with_default(e.0.clone(), v)
    });
    engine.register_fn("required", |e: &mut E| E(e.0.clone().required(true)));
    engine.register_fn("required", |e: &mut E, on: bool| {
        E(e.0.clone().required(on))
    });
    engine.register_fn("nullable", |e: &mut E| -> Res<E> {
        checked(e.0.misuse.len(), e.0.clone().nullable())
    });
    for (name, f) in [
        ("min", Expect::min as fn(Expect, f64) -> Expect),
        ("max", Expect::max),
    ] {
        engine.register_fn(name, move |e: &mut E, n: i64| E(f(e.0.clone(), n as f64)));
        engine.register_fn(name, move |e: &mut E, n: f64| E(f(e.0.clone(), n)));
    }
    // A pattern that does not parse is the script's mistake: reported at the call, not at the
    // configuration value the schema checks (a new user's trial).
    engine.register_fn("pattern", |e: &mut E, p: &str| -> Res<E> {
        let out = e.0.clone().pattern(p);
        match &out.pattern {
            Some(Err(reason)) => raise(Diagnostic::error(
                Code::InvalidValue,
                format!("Invalid schema: {reason}"),
            )),
            _ => Ok(E(out)),
        }
    });
    engine.register_fn("castTo", |e: &mut E, t: &str| E(e.0.clone().cast_to(t)));
    engine.register_fn("dynamic", |e: &mut E| E(e.0.clone().dynamic()));
    engine.register_fn("deprecated", |e: &mut E| E(e.0.clone().deprecated(None)));
    engine.register_fn("deprecated", |e: &mut E, msg: &str| {
        E(e.0.clone().deprecated(Some(msg)))
    });
    engine.register_fn("otherItems", |e: &mut E, v: Dynamic| -> Res<E> {
        Ok(E(e.0.clone().other_items(schema_of(&v, "otherItems")?)))
    });
    engine.register_fn("otherItems", |e: &mut E| {
        E(e.0.clone().other_items(Expect::mixed()))
    });
    engine.register_fn("skipDefaults", |e: &mut E| E(e.0.clone().skip_defaults()));
    engine.register_fn("mergeDefaults", |e: &mut E| {
        E(e.0.clone().merge_defaults(true))
    });
    engine.register_fn("mergeDefaults", |e: &mut E, on: bool| {
        E(e.0.clone().merge_defaults(on))
    });
    engine.register_fn("firstIsDefault", |e: &mut E| {
        E(e.0.clone().first_is_default())
    });
    engine.register_fn("extend", |e: &mut E, items: Dynamic| -> Res<E> {
        checked(e.0.misuse.len(), e.0.clone().extend(shape(items)?))
    });
    fn assert(e: &mut E, f: FnPtr, description: Option<String>) -> E {
        E(e.0.clone().assert(
            // A closure that failed (an error, a sandbox limit) did not decide: its failure is
            // reported where it happened, not as a failed assertion.
            move |v: &Expr| match call(&f, to_dynamic(v)) {
                Ok(r) => r.as_bool().unwrap_or(false),
                Err(_) => true,
            },
            description.as_deref(),
        ))
    }
    engine.register_fn("assert", |e: &mut E, f: FnPtr| assert(e, f, None));
    engine.register_fn("assert", |e: &mut E, f: FnPtr, d: &str| {
        assert(e, f, Some(d.to_string()))
    });
    engine.register_fn("transform", |e: &mut E, f: FnPtr| {
        E(e.0
            .clone()
            .transform(move |v: Expr, ctx: &mut crate::schema::Context| {
                // A closure that failed is reported where it failed; what it returned and
                // cannot be a configuration value is this item's error.
                match call(&f, to_dynamic(&v)).map(|r| to_expr(&r)) {
                    Ok(Ok(x)) => x,
                    Ok(Err(msg)) => {
                        ctx.add_error(msg);
                        v
                    }
                    Err(_) => v,
                }
            }))
    });
    engine.register_fn("before", |e: &mut E, f: FnPtr| {
        E(e.0.clone().before(move |v: Expr| {
            // On failure the value stays as it was; the failure itself is reported.
            call(&f, to_dynamic(&v))
                .and_then(|r| to_expr(&r))
                .unwrap_or(v)
        }))
    });
    engine.register_fn("to_string", |e: &mut E| e.0.expected());
}
