//! The methods of generated services: a locator's `create` and `getX()` / `createX()`, plan
//! calls on factories, accessors and locators, and what the load check says about them.

use std::sync::Arc;

use serde_json::{json, Value as Json};
use wireplan_runtime::{register, Accessor, Container, Error, Factory, Locator, Registry, Value};

#[derive(Debug)]
struct Db;
#[derive(Debug)]
struct Repo(Arc<Db>);

fn registry() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Db" => Db { new() { Db } });
    register!(r, "App\\Repo" => Repo { new(db: Arc<Db>) { Repo(db) } });
    r
}

fn plan(services: Json) -> String {
    json!({"format": "wireplan-plan", "version": 1, "compiler": "test", "inputs_hash": "0",
           "services": services})
    .to_string()
}

fn services() -> Json {
    json!({
        "db": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": []}},
        "f": {"kind": "factory", "type": "App\\DbFactory", "implement": "App\\DbFactory",
              "create": {"$new": "App\\Db", "args": []}},
        "acc": {"kind": "accessor", "type": "App\\DbAccessor", "implement": "App\\DbAccessor",
                "create": {"$ref": "db"}},
        "loc": {"kind": "locator", "type": "App\\Dbs", "implement": "App\\Dbs", "create": null,
                "references": {"main": {"$ref": "db"}, "7": {"$ref": "db"}}},
    })
}

#[test]
fn a_locator_gets_the_shared_service_and_creates_new_ones() {
    let c = Container::from_json_str(&plan(services()), &registry()).unwrap();
    let loc = c.get::<Locator>("loc").unwrap();
    let shared = loc.get::<Db>("main").unwrap();
    assert!(Arc::ptr_eq(&shared, &c.get::<Db>("db").unwrap()));
    let a = loc.create::<Db>("main").unwrap();
    let b = loc.create::<Db>("main").unwrap();
    assert!(!Arc::ptr_eq(&a, &shared) && !Arc::ptr_eq(&a, &b));
    // Methods by name: getX()/createX() carry the key, get/create take it (a string or int).
    let by_name = |m: &str, args: &[Value]| loc.call_method(m, args);
    let main = by_name("getMain", &[]).unwrap().downcast::<Db>().unwrap();
    assert!(Arc::ptr_eq(&main, &shared));
    let seven = by_name("get", &[Value::Int(7)])
        .unwrap()
        .downcast::<Db>()
        .unwrap();
    assert!(Arc::ptr_eq(&seven, &shared));
    let fresh = by_name("createMain", &[])
        .unwrap()
        .downcast::<Db>()
        .unwrap();
    assert!(!Arc::ptr_eq(&fresh, &shared));
    for (m, args, why) in [
        ("getMain", vec![Value::Int(1)], "takes no arguments"),
        ("get", vec![], "takes 1 argument"),
        ("get", vec![Value::Bool(true)], "takes a service key"),
        ("find", vec![], "has no method find()"),
    ] {
        let e = by_name(m, &args).unwrap_err();
        assert!(
            matches!(&e, Error::BadArguments { .. }) && e.to_string().contains(why),
            "{m}: {e}"
        );
    }
    assert!(matches!(
        by_name("getOther", &[]),
        Err(Error::UnknownService { name, .. }) if name == "loc[other]"
    ));
    // An unknown key gets the closest one, or the list of keys (a new user's trial).
    assert_eq!(
        loc.get::<Db>("mian").unwrap_err().to_string(),
        "service 'loc[mian]' not found; did you mean 'main'?"
    );
    assert_eq!(
        loc.create::<Db>("replica").unwrap_err().to_string(),
        "service 'loc[replica]' not found; its keys are main, 7"
    );
}

#[test]
fn plans_call_generated_services_without_registrations() {
    let mut s = services();
    let call = |target: &str, method: &str, args: Json| json!({"$call": [{"$ref": target}, method], "args": args});
    for (name, arg) in [
        ("viaFactory", call("f", "create", json!([]))),
        ("viaAccessor", call("acc", "get", json!([]))),
        ("viaLocator", call("loc", "getMain", json!([]))),
        ("viaCreate", call("loc", "create", json!(["main"]))),
    ] {
        s[name] = json!({"type": "App\\Repo", "create": {"$new": "App\\Repo", "args": [arg]}});
    }
    let c = Container::from_json_str(&plan(s), &registry()).unwrap();
    let db = c.get::<Db>("db").unwrap();
    let repo = |n: &str| c.get::<Repo>(n).unwrap().0.clone();
    assert!(Arc::ptr_eq(&repo("viaAccessor"), &db));
    assert!(Arc::ptr_eq(&repo("viaLocator"), &db));
    assert!(!Arc::ptr_eq(&repo("viaFactory"), &db));
    assert!(!Arc::ptr_eq(&repo("viaCreate"), &db));
}

#[test]
fn the_load_check_reports_methods_generated_services_lack() {
    let mut s = services();
    let call = |target: &str, method: &str, args: Json| json!({"$call": [{"$ref": target}, method], "args": args});
    s["bad"] = json!({"type": "App\\Repo", "create": {"$new": "App\\Repo", "args": [
        call("f", "build", json!([])),
        call("f", "create", json!([1])),
        call("acc", "get", json!([1])),
        call("loc", "getOther", json!([])),
        call("loc", "find", json!(["main"])),
        {"$callable": [{"$ref": "acc"}, "fetch"]},
    ]}});
    let e = Container::from_json_str(&plan(s), &registry()).unwrap_err();
    let Error::BadPlan { reason, .. } = &e else {
        panic!("a bad plan: {e}")
    };
    let at = "service 'bad' (create)";
    for problem in [
        format!("{at}: factory 'f' has no method build() (a generated factory has create())"),
        format!("{at}: create() of factory 'f' takes 0 argument(s), 1 given"),
        format!("{at}: get() of accessor 'acc' takes 0 argument(s), 1 given"),
        format!("{at}: locator 'loc' has no reference 'other' for getOther()"),
        format!("{at}: locator 'loc' has no method find() (a locator has get($name), create($name), getX() and createX())"),
        format!("{at}: accessor 'acc' has no method fetch() (a generated accessor has get())"),
    ] {
        assert!(reason.contains(&problem), "missing «{problem}» in:\n{reason}");
    }
}

#[test]
fn a_static_method_may_be_called_on_an_instance() {
    struct Node(i64);
    let mut r = Registry::new();
    register!(r, "App\\Node" => Node {
        new() { Node(0) }
        static fn make() -> Arc<Node> { Arc::new(Node(1)) }
    });
    let s = json!({
        "node": {"type": "App\\Node", "create": {"$new": "App\\Node", "args": []}},
        "made": {"type": "App\\Node", "create": {"$call": [{"$ref": "node"}, "make"], "args": []}},
        "cb": {"type": "App\\Node", "create": {"$new": "App\\Node", "args": []},
               "setup": [{"$callable": [{"$ref": "node"}, "make"]}]},
    });
    let c = Container::from_json_str(&plan(s), &r).expect("static methods count at load");
    assert_eq!(c.get::<Node>("made").unwrap().0, 1);
    assert_eq!(c.get::<Node>("cb").unwrap().0, 0);
}

/// A logger made by factories whose `create(path, lvl = 4)` has a default.
#[derive(Debug)]
struct Logger {
    path: String,
    level: i64,
}

fn logger_registry() -> Registry {
    let mut r = registry();
    register!(r, "App\\Logger" => Logger {
        new(path: String, level: i64) {
            if path.is_empty() {
                return Err("empty path".into());
            }
            Logger { path, level }
        }
    });
    r
}

fn logger_factories() -> Json {
    let arg = |name: &str| json!({"$arg": name});
    let lvl = json!({"$arg": "lvl", "default": 4});
    json!({
        "db": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": []}},
        "lf": {"kind": "factory", "type": "App\\LoggerFactory", "implement": "App\\LoggerFactory",
               "parameters": ["path", "lvl"],
               "create": {"$new": "App\\Logger", "args": [arg("path"), lvl]},
               "source": {"file": "app.neon", "line": 3, "column": 2}},
        // A default that is evaluated only when needed: a service reference.
        "lazy": {"kind": "factory", "type": "App\\RepoFactory", "implement": "App\\RepoFactory",
                 "parameters": ["db"],
                 "create": {"$new": "App\\Repo", "args": [{"$arg": "db", "default": {"$ref": "db"}}]}},
    })
}

#[test]
fn a_factory_argument_left_out_takes_the_default_the_plan_carries() {
    let c = Container::from_json_str(&plan(logger_factories()), &logger_registry()).unwrap();
    let lf = c.get::<wireplan_runtime::Factory>("lf").unwrap();
    let made = lf.create::<Logger>(&[("path", "/a".into())]).unwrap();
    assert_eq!((made.path.as_str(), made.level), ("/a", 4));
    let made = lf
        .create::<Logger>(&[("path", "/b".into()), ("lvl", Value::Int(9))])
        .unwrap();
    assert_eq!((made.path.as_str(), made.level), ("/b", 9));
    let made = lf.create_positional::<Logger>(vec!["/c".into()]).unwrap();
    assert_eq!((made.path.as_str(), made.level), ("/c", 4));
    // A name given twice is refused, not settled by the first value (a new user's trial).
    let e = lf
        .create::<Logger>(&[("path", "/a".into()), ("path", "/b".into())])
        .unwrap_err();
    assert_eq!(e.code(), "bad-arguments");
    assert!(
        e.to_string()
            .ends_with("argument(s) path given more than once"),
        "{e}"
    );
    let three = [("lvl", Value::Int(1)), ("path", "/a".into())];
    let args: Vec<(&str, Value)> = three.iter().chain(&three).chain(&three).cloned().collect();
    let e = lf.create::<Logger>(&args).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("argument(s) lvl, path given more than once"),
        "{e}"
    );

    let lazy = c.get::<wireplan_runtime::Factory>("lazy").unwrap();
    assert!(!c.is_created("db"));
    let repo = lazy.create::<Repo>(&[]).unwrap();
    assert!(Arc::ptr_eq(&repo.0, &c.get::<Db>("db").unwrap()));
    let other = Arc::new(Db);
    let repo = lazy
        .create::<Repo>(&[(
            "db",
            Value::Service(wireplan_runtime::Instance::new(other.clone())),
        )])
        .unwrap();
    assert!(Arc::ptr_eq(&repo.0, &other));

    // The default survives both plan forms.
    let p = c.plan();
    assert_eq!(
        p.services["lf"].create.to_json()["args"][1],
        json!({"$arg": "lvl", "default": 4})
    );
    let back = wireplan_runtime::plan::Plan::from_bytes(&p.to_binary(), "<bin>").unwrap();
    assert_eq!(&back, p);
}

#[test]
fn a_failing_product_names_the_factory_not_a_broken_service() {
    let c = Container::from_json_str(&plan(logger_factories()), &logger_registry()).unwrap();
    let lf = c.get::<wireplan_runtime::Factory>("lf").unwrap();
    let e = lf.create::<Logger>(&[("path", "".into())]).unwrap_err();
    assert!(
        matches!(&e, Error::ConstructorFailed { service, factory_product: true, .. } if service == "lf"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "factory 'lf' cannot create its product (defined at app.neon:3:2; path: lf): \
         constructor of App\\Logger: empty path"
    );
    // A required argument (no default in the plan) left out: the caller's arguments are
    // wrong (`bad-arguments`, as for an unknown or extra one), not the product's creation.
    let e = lf.create::<Logger>(&[("lvl", Value::Int(1))]).unwrap_err();
    assert!(matches!(&e, Error::BadArguments { .. }), "{e:?}");
    assert_eq!(e.code(), "bad-arguments");
    assert_eq!(
        e.to_string(),
        "service 'lf': create(): parameter 'path' was not passed, and the plan gives no \
         default for it"
    );
    // A dependency of the product that fails is still that service's failure.
    let mut s = logger_factories();
    s["db"]["create"] = json!({"$new": "App\\Logger", "args": ["", 1]});
    s["db"]["type"] = json!("App\\Logger");
    let c = Container::from_json_str(&plan(s), &logger_registry()).unwrap();
    let e = c
        .get::<wireplan_runtime::Factory>("lazy")
        .unwrap()
        .create::<Repo>(&[])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot create service 'db' (path: lazy -> db): constructor of App\\Logger: empty path"
    );
}

#[test]
fn an_argument_default_is_checked_at_load_like_any_expression() {
    let mut s = logger_factories();
    s["lf"]["create"]["args"][1] = json!({"$arg": "lvl", "default": {"$ref": "nope"}});
    s["notFactory"] = json!({"type": "App\\Db",
        "create": {"$new": "App\\Db", "args": [{"$arg": "x", "default": 1}]}});
    let e = Container::from_json_str(&plan(s), &logger_registry()).unwrap_err();
    let Error::BadPlan { reason, .. } = &e else {
        panic!("a bad plan: {e}")
    };
    assert!(
        reason.contains("service 'lf' (create): reference to unknown service 'nope'"),
        "{reason}"
    );
    assert!(
        reason.contains("service 'notFactory' (create): $arg 'x' outside a factory"),
        "{reason}"
    );
    let bad = json!({"$arg": "x", "default": 1, "args": []});
    let e = wireplan_runtime::plan::Expr::from_json(&bad).unwrap_err();
    assert_eq!(e, "unexpected key \"args\" in a \"$arg\" object");
}

/// A generated factory and accessor passed to a constructor that takes the handles
/// (`Arc<Factory>`, `Arc<Accessor>`: `object` in the catalog) load and arrive as the handles.
/// A factory's `create` is its product's: the load check compared that class with the
/// parameter and refused the plan as if its catalog were stale (a new user's trial).
#[test]
fn generated_handles_passed_to_a_constructor_load() {
    struct Holder(Arc<Factory>, Arc<Accessor>);
    let mut r = registry();
    register!(r, "App\\Holder" => Holder {
        new(f: Arc<Factory>, acc: Arc<Accessor>) { Holder(f, acc) }
    });
    let mut s = services();
    s["holder"] = json!({"type": "App\\Holder",
        "create": {"$new": "App\\Holder", "args": [{"$ref": "f"}, {"$ref": "acc"}]}});
    let c = Container::from_json_str(&plan(s), &r).expect("the plan loads");
    let holder = c.get::<Holder>("holder").unwrap();
    let made = holder.0.create::<Db>(&[]).unwrap();
    let shared = holder.1.get::<Db>().unwrap();
    assert!(Arc::ptr_eq(&shared, &c.get::<Db>("db").unwrap()));
    assert!(!Arc::ptr_eq(&made, &shared), "the factory makes a new Db");

    // A service that is not a handle is still refused for such a parameter.
    let mut s = services();
    s["holder"] = json!({"type": "App\\Holder",
        "create": {"$new": "App\\Holder", "args": [{"$ref": "db"}, {"$ref": "acc"}]}});
    let e = Container::from_json_str(&plan(s), &r)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("argument $f (index 0) of the constructor of App\\Holder is service 'db'"),
        "{e}"
    );
}

/// Asking an accessor or a locator for the wrong Rust type names the service the object
/// belongs to and its class (a new user's trial: the locator's message had an empty class,
/// "is  (Rust type ..)", and the accessor's named itself and its interface beside its
/// target's Rust type).
#[test]
fn wrong_types_from_accessors_and_locators_name_the_object_s_service_and_class() {
    let c = Container::from_json_str(&plan(services()), &registry()).unwrap();
    let db = std::any::type_name::<Db>();
    let repo = std::any::type_name::<Repo>();
    let acc = c.get::<Accessor>("acc").unwrap();
    let e = acc.get::<Repo>().unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("service 'db' is App\\Db (Rust type {db}), not the requested {repo}")
    );
    let loc = c.get::<Locator>("loc").unwrap();
    for e in [
        loc.get::<Repo>("main").unwrap_err(),
        loc.create::<Repo>("7").unwrap_err(),
    ] {
        let key = if e.to_string().contains("[main]") {
            "main"
        } else {
            "7"
        };
        assert_eq!(
            e.to_string(),
            format!("service 'loc[{key}]' is App\\Db (Rust type {db}), not the requested {repo}")
        );
        assert_eq!(e.code(), "wrong-type");
    }
}

/// A factory asked for a Rust type its product's class does not cast to says so before it
/// makes anything: the product's constructor and its side effects do not run (a new user's
/// trial).
#[test]
fn a_factory_refuses_a_wrong_type_before_making_the_product() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let mut r = registry();
    r.class::<Db>("App\\Db").constructor(|_| {
        MADE.fetch_add(1, Ordering::SeqCst);
        Ok(Db)
    });
    let c = Container::from_json_str(&plan(services()), &r).unwrap();
    let f = c.get::<Factory>("f").unwrap();
    let e = f.create::<Repo>(&[]).unwrap_err();
    assert_eq!(e.code(), "wrong-product-type");
    assert_eq!(
        e.to_string(),
        format!(
            "the object factory 'f' creates is App\\Db (Rust type {}), not the requested {}",
            std::any::type_name::<Db>(),
            std::any::type_name::<Repo>()
        )
    );
    assert!(f.create_positional::<Repo>(vec![]).is_err());
    assert_eq!(MADE.load(Ordering::SeqCst), 0, "nothing was made");
    f.create::<Db>(&[]).unwrap();
    assert_eq!(MADE.load(Ordering::SeqCst), 1);
}
