//! Property reads (`$get`) and first-class callables (`$callable`): evaluation, the load-time
//! registry check, the binary form and the catalog export.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value as Json};
use wireplan_runtime::plan::Plan;
use wireplan_runtime::{register, Callable, Container, Error, Registry, Value};

struct Db {
    dsn: String,
}

struct Repo {
    db: Arc<Db>,
    dsn: String,
    label: Mutex<String>,
}

struct Counter {
    total: AtomicI64,
}

struct Pipeline {
    step: Callable,
    sink: Callable,
}

struct MathOps;

fn registry() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Db" => Db {
        new(dsn: String) { Db { dsn } }
        get dsn(&this) -> String { this.dsn.clone() }
    });
    register!(r, "App\\Repo" => Repo {
        new(db: Arc<Db>, dsn: String) { Repo { db, dsn, label: Mutex::default() } }
        get db(&this) -> Arc<Db> { this.db.clone() }
        fn setLabel(&this, l: String) { *this.label.lock().unwrap() = l; }
    });
    register!(r, "App\\Counter" => Counter {
        new() { Counter { total: AtomicI64::new(0) } }
        fn add(&this, n: i64) -> i64 { this.total.fetch_add(n, Ordering::SeqCst) + n }
    });
    register!(r, "App\\Pipeline" => Pipeline {
        new(step: Callable, sink: Callable) { Pipeline { step, sink } }
    });
    register!(r, "App\\Math" => MathOps {
        static fn double(n: i64) -> i64 { n * 2 }
    });
    r
}

fn plan(services: Json) -> String {
    json!({"format": "wireplan-plan", "version": 1, "compiler": "test",
           "inputs_hash": "0", "services": services})
    .to_string()
}

fn app() -> String {
    plan(json!({
        "db": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": ["sqlite:memory"]}},
        "repo": {"type": "App\\Repo", "create": {"$new": "App\\Repo",
            "args": [{"$ref": "db"}, {"$get": [{"$ref": "db"}, "dsn"]}]},
            "setup": [{"$call": ["@self", "setLabel"],
                       "args": [{"$get": [{"$get": ["@self", "db"]}, "dsn"]}]}]},
        "counter": {"type": "App\\Counter", "create": {"$new": "App\\Counter", "args": []}},
        "pipeline": {"type": "App\\Pipeline", "create": {"$new": "App\\Pipeline", "args": [
            {"$callable": ["App\\Math", "double"]},
            {"$callable": [{"$ref": "counter"}, "add"]}]}},
    }))
}

#[test]
fn property_reads_give_the_getters_value() {
    let r = registry();
    let c = Container::from_json_str(&app(), &r).unwrap();
    let repo = c.get::<Repo>("repo").unwrap();
    assert_eq!(repo.dsn, "sqlite:memory");
    // A getter that returns a service gives the same object the container holds.
    assert!(Arc::ptr_eq(&repo.db, &c.get::<Db>("db").unwrap()));
    // `$get` on `@self` in a setup, chained with another `$get`.
    assert_eq!(*repo.label.lock().unwrap(), "sqlite:memory");
}

#[test]
fn callables_are_bound_to_their_target() {
    let r = registry();
    let c = Container::from_json_str(&app(), &r).unwrap();
    let p = c.get::<Pipeline>("pipeline").unwrap();
    assert_eq!(p.step.name(), "App\\Math::double");
    assert_eq!(p.step.call(vec![Value::Int(21)]).unwrap(), Value::Int(42));
    assert_eq!(p.sink.name(), "App\\Counter::add");
    assert_eq!(p.sink.call(vec![Value::Int(5)]).unwrap(), Value::Int(5));
    assert_eq!(p.sink.call(vec![Value::Int(2)]).unwrap(), Value::Int(7));
    // The bound object is the container's singleton.
    let counter = c.get::<Counter>("counter").unwrap();
    assert_eq!(counter.total.load(Ordering::SeqCst), 7);
    // The method's own argument errors come back from call().
    let e = p.sink.call(vec![Value::Str("x".into())]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "argument at index 0: expected int, found string"
    );
}

#[test]
fn missing_getters_and_callable_methods_are_listed_at_load() {
    let mut r = Registry::new();
    register!(r, "App\\Db" => Db { new(dsn: String) { Db { dsn } } });
    register!(r, "App\\Repo" => Repo {
        new(db: Arc<Db>, dsn: String) { Repo { db, dsn, label: Mutex::default() } }
    });
    register!(r, "App\\Counter" => Counter { new() { Counter { total: AtomicI64::new(0) } } });
    register!(r, "App\\Pipeline" => Pipeline {
        new(step: Callable, sink: Callable) { Pipeline { step, sink } }
    });
    register!(r, "App\\Math" => MathOps {});
    let e = Container::from_json_str(&app(), &r).unwrap_err();
    let Error::MissingRegistrations { ref missing, .. } = e else {
        panic!("expected MissingRegistrations, got {e:?}");
    };
    let lines: Vec<String> = missing.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "property App\\Db::$dsn has no getter (needed by service 'repo' (create))",
            "method App\\Repo::setLabel() is not registered (needed by service 'repo' (setup #1))",
            "property App\\Repo::$db has no getter (needed by service 'repo' (setup #1))",
            "static method App\\Math::double() is not registered (needed by service 'pipeline' (create))",
            "method App\\Counter::add() is not registered (needed by service 'pipeline' (create))",
        ]
    );
}

#[test]
fn members_survive_the_binary_form() {
    let r = registry();
    let plan = Plan::from_json_str(&app(), "<app>").unwrap();
    let back = Plan::from_bytes(&plan.to_binary(), "<bytes>").unwrap();
    assert_eq!(back, plan);
    let c = Container::from_bytes(&plan.to_binary(), &r).unwrap();
    let p = c.get::<Pipeline>("pipeline").unwrap();
    assert_eq!(p.step.call(vec![Value::Int(3)]).unwrap(), Value::Int(6));
}

#[test]
fn getters_are_exported_as_catalog_properties() {
    let catalog = registry().catalog();
    assert!(
        catalog.contains("\t\tproperties:\n\t\t\tdsn: string\n"),
        "{catalog}"
    );
    assert!(catalog.contains("\t\t\tdb: App\\Db\n"), "{catalog}");
    assert!(
        catalog.contains("constructor:\n\t\t\tstep: callable\n\t\t\tsink: callable\n"),
        "{catalog}"
    );
}

#[test]
fn expressions_deeper_than_json_allows_are_refused_in_binary_plans_too() {
    use wireplan_runtime::plan::{CallTarget, Expr, MAX_EXPR_DEPTH};
    let mut plan = Plan::from_json_str(&app(), "<app>").unwrap();
    let mut deep = Expr::Ref("db".into());
    for _ in 0..MAX_EXPR_DEPTH {
        deep = Expr::Get {
            target: CallTarget::Expr(Box::new(deep)),
            property: "dsn".into(),
        };
    }
    plan.services["repo"].create = deep;
    let e = Container::from_bytes(&plan.to_binary(), &registry()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("service 'repo' (create): expression nested 201 levels deep (at most 100)"),
        "{text}"
    );
}

#[test]
fn a_setup_only_method_called_elsewhere_is_named_as_such_at_load() {
    let mut r = registry();
    r.class::<Counter>("App\\Counter")
        .method_mut("reset", |c, _| {
            c.total.store(0, Ordering::SeqCst);
            Ok(())
        });
    let json = plan(json!({
        "counter": {"type": "App\\Counter", "create": {"$new": "App\\Counter", "args": []}},
        "user": {"type": "App\\Counter", "create": {"$new": "App\\Counter", "args": []},
                 "setup": [{"$call": [{"$ref": "counter"}, "reset"], "args": []}]},
    }));
    let e = Container::from_json_str(&json, &r).unwrap_err().to_string();
    assert!(
        e.contains(
            "service 'user' (setup #1): App\\Counter::reset() is registered with method_mut"
        ),
        "{e}"
    );
}
