//! The compiled form of a plan (`container/program.rs`): what the loader resolves once (refs
//! through aliases, constants, lists of services, resolved dynamic parameters, setup
//! members) reaches constructors and setups exactly as the plan says, for few and many
//! arguments, and the paths that stay uncompiled still work.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value as Json};
use wireplan_runtime::{Args, CallResult, Container, Registry, Value};

/// Describes every argument it was given, in order.
struct Recorder {
    seen: Vec<String>,
}

/// A plain service to refer to.
struct Part(i64);

/// A service set up by a setup call on `@self`.
struct Tuned {
    level: Mutex<i64>,
    parts: Vec<Arc<Part>>,
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Int(i) => format!("{i}"),
        Value::Str(s) => format!("{s:?}"),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(describe).collect::<Vec<_>>().join(", ")
        ),
        Value::Service(inst) => match inst.downcast::<Part>() {
            Some(p) => format!("Part({})", p.0),
            None => inst.type_name().to_string(),
        },
        other => other.kind(),
    }
}

fn record(a: &Args<'_>) -> CallResult<Recorder> {
    Ok(Recorder {
        seen: a.values().iter().map(describe).collect(),
    })
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.class::<Recorder>("App\\Recorder").constructor(record);
    r.class::<Part>("App\\Part")
        .constructor(|a| Ok(Part(a.int(0)?)))
        .static_method("make", |a| Ok(Value::service(Part(a.int(0)?))));
    r.class::<Tuned>("App\\Tuned")
        .constructor(|a| {
            Ok(Tuned {
                level: Mutex::new(0),
                parts: a.list_of::<Part>(0)?,
            })
        })
        .static_method("make", |_| {
            Ok(Value::service(Tuned {
                level: Mutex::new(0),
                parts: Vec::new(),
            }))
        })
        .method_mut("setLevel", |t, a| {
            *t.level.get_mut().expect("not poisoned") = a.int(0)?;
            Ok(())
        })
        .method("fail", |_, _| Err::<(), _>("no tuning today".into()))
        .method("bump", |t, a| {
            *t.level.lock().expect("not poisoned") += a.int(0)?;
            Ok(())
        });
    r
}

fn plan(services: Json) -> String {
    json!({
        "format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0",
        "services": services,
        "aliases": {"first": "p1"},
        "dynamic": {"region": {"type": "string"}},
    })
    .to_string()
}

fn part(id: i64, lifespan: &str) -> Json {
    json!({"type": "App\\Part", "lifespan": lifespan,
           "create": {"$new": "App\\Part", "args": [id]}})
}

fn recorder(args: Json, lifespan: &str) -> Json {
    json!({"type": "App\\Recorder", "lifespan": lifespan,
           "create": {"$new": "App\\Recorder", "args": args}})
}

fn container(services: Json) -> Container {
    Container::builder(&registry())
        .parameter("region", "eu-west")
        .from_json_str(&plan(services))
        .expect("the plan loads")
}

#[test]
fn few_arguments_reach_the_constructor_as_the_plan_says() {
    let c = container(json!({
        "p1": part(1, "singleton"),
        "r": recorder(json!([7, "x", {"$ref": "first"}, {"$param": "region"}]), "singleton"),
    }));
    let r = c.get::<Recorder>("r").unwrap();
    assert_eq!(r.seen, ["7", "\"x\"", "Part(1)", "\"eu-west\""]);
}

#[test]
fn many_arguments_lists_and_nested_constructors_reach_the_constructor() {
    let c = container(json!({
        "p1": part(1, "singleton"),
        "p2": part(2, "transient"),
        "r": recorder(json!([
            null,
            [1, 2],
            [{"$ref": "p1"}, {"$ref": "p2"}],
            {"$new": "App\\Part", "args": [9]},
            {"$call": ["App\\Part", "make"], "args": [5]},
            "last",
        ]), "singleton"),
    }));
    let r = c.get::<Recorder>("r").unwrap();
    assert_eq!(
        r.seen,
        [
            "null",
            "[1, 2]",
            "[Part(1), Part(2)]",
            "Part(9)",
            "Part(5)",
            "\"last\""
        ]
    );
}

#[test]
fn a_transient_in_a_list_is_new_for_each_creation_and_a_singleton_is_shared() {
    let c = container(json!({
        "p1": part(1, "singleton"),
        "p2": part(2, "transient"),
        "t": {"type": "App\\Tuned", "lifespan": "transient",
              "create": {"$new": "App\\Tuned", "args": [[{"$ref": "first"}, {"$ref": "p2"}]]}},
    }));
    let (a, b) = (c.get::<Tuned>("t").unwrap(), c.get::<Tuned>("t").unwrap());
    assert!(!Arc::ptr_eq(&a, &b));
    assert!(Arc::ptr_eq(&a.parts[0], &b.parts[0]));
    assert!(!Arc::ptr_eq(&a.parts[1], &b.parts[1]));
    assert_eq!((a.parts[0].0, a.parts[1].0), (1, 2));
}

#[test]
fn setups_run_on_constructed_and_factory_made_objects() {
    let setup = json!([
        {"$call": ["@self", "setLevel"], "args": [3]},
        {"$call": ["@self", "bump"], "args": [4]},
    ]);
    let c = container(json!({
        "p1": part(1, "singleton"),
        // Setup members resolved at load for the class the `$new` makes ...
        "built": {"type": "App\\Tuned", "create": {"$new": "App\\Tuned", "args": [[]]},
                  "setup": setup},
        // ... and looked up by the object's type when a static factory makes it.
        "made": {"type": "App\\Tuned", "create": {"$call": ["App\\Tuned", "make"], "args": []},
                 "setup": setup},
    }));
    for name in ["built", "made"] {
        let t = c.get::<Tuned>(name).unwrap();
        assert_eq!(*t.level.lock().unwrap(), 7, "{name}");
    }
}

#[test]
fn a_failing_setup_method_is_named_in_the_error() {
    let c = container(json!({
        "p1": part(1, "singleton"),
        "built": {"type": "App\\Tuned", "create": {"$new": "App\\Tuned", "args": [[]]},
                  "setup": [{"$call": ["@self", "bump"], "args": [1]},
                            {"$call": ["@self", "fail"], "args": []}]},
    }));
    let e = c.get::<Tuned>("built").err().unwrap().to_string();
    assert!(
        e.contains("setup #2: App\\Tuned::fail()") && e.contains("no tuning today"),
        "{e}"
    );
}
