//! What a new user reads when something is wrong: `Error`'s `Debug` text, the wrong-type error
//! of a factory's product, and `get_by_type` when only non-autowired services have the type.

use serde_json::{json, Value as Json};
use wireplan_runtime::{register, Container, Error, Factory, Registry};

#[derive(Debug)]
struct Db;
#[derive(Debug)]
struct Cache;

fn registry() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Db" => Db { new() { Db } });
    register!(r, "App\\Cache" => Cache { new() { Cache } });
    r
}

fn container(services: Json) -> Container {
    let plan = json!({"format": "wireplan-plan", "version": 1, "compiler": "test",
                      "inputs_hash": "0", "services": services})
    .to_string();
    Container::from_json_str(&plan, &registry()).expect("the plan loads")
}

#[test]
fn debug_prints_the_same_text_as_display() {
    let c =
        container(json!({"db": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": []}}}));
    let e = c.get::<Db>("dbb").unwrap_err();
    assert_eq!(
        format!("{e:?}"),
        "service 'dbb' not found; did you mean 'db'?"
    );
    assert_eq!(format!("{e:?}"), e.to_string());
}

#[test]
fn a_factory_product_of_the_wrong_type_names_the_product() {
    let c = container(json!({
        "f": {"kind": "factory", "type": "App\\DbFactory", "implement": "App\\DbFactory",
              "create": {"$new": "App\\Db", "args": []}}
    }));
    let f = c.get::<Factory>("f").unwrap();
    let e = f.create::<Cache>(&[]).unwrap_err();
    assert!(
        matches!(&e, Error::WrongProductType { factory, class, .. } if factory == "f" && class == "App\\Db"),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "the object factory 'f' creates is App\\Db (Rust type {}), not the requested {}",
            std::any::type_name::<Db>(),
            std::any::type_name::<Cache>()
        )
    );
}

#[test]
fn get_by_type_says_which_services_are_not_autowired() {
    let c = container(json!({
        "db": {"type": "App\\Db", "autowired": false, "create": {"$new": "App\\Db", "args": []}},
        "cache": {"type": "App\\Cache", "create": {"$new": "App\\Cache", "args": []}}
    }));
    let e = c.get_by_type::<Db>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "no service of type App\\Db is autowired; not autowired for it: db (get it by name, or make it autowired)"
    );
    // With no service of the type at all, the message stays short.
    let c = container(json!({}));
    assert_eq!(
        c.get_by_type::<Db>().unwrap_err().to_string(),
        "no service of type App\\Db"
    );
}

#[derive(Debug)]
struct Loans {
    limit: i64,
}

impl Loans {
    fn limit(&self) -> i64 {
        self.limit
    }
}

#[allow(non_snake_case)] // the parameter's catalog name, as the configuration writes it
fn loans_registry() -> Registry {
    let mut r = Registry::new();
    register!(r, "Lib\\Loans" => Loans {
        new(name: String, maxLoans: i64) { let _ = name; Loans { limit: maxLoans } }
        fn setLimit(&mut this, limit: i64) { this.limit = limit; }
        fn allows(&this, count: i64) -> bool { count < this.limit() }
    });
    // Registered without a signature: the argument keeps its index only.
    r.class::<Db>("App\\Db")
        .constructor(|a| a.int(0).map(|_| Db).map_err(Into::into));
    r
}

fn loans(services: Json) -> Container {
    let plan = json!({"format": "wireplan-plan", "version": 1, "compiler": "test",
                      "inputs_hash": "0", "services": services})
    .to_string();
    Container::builder(&loans_registry())
        .parameter("max", "three")
        .from_json_str(&plan)
        .expect("the plan loads")
}

/// A wrong argument of a constructor or method whose parameters the registry declares (the
/// derive and `register!` do) names the parameter, not only its index.
#[test]
fn a_wrong_argument_names_its_declared_parameter() {
    let c = loans(json!({
        // Values known at start-up only (a literal the declared type refuses is a load
        // problem, for a constructor and a setup call alike: tests/untrusted_plans.rs).
        "loans": {"type": "Lib\\Loans", "create": {"$new": "Lib\\Loans", "args": ["x", {"$param": "max"}]}},
        "setup": {"type": "Lib\\Loans", "create": {"$new": "Lib\\Loans", "args": ["x", 3]},
                  "setup": [{"$call": ["@self", "setLimit"], "args": [{"$param": "max"}]}]},
        "called": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": [
            {"$call": [{"$ref": "setup2"}, "allows"], "args": [true]}]}},
        "setup2": {"type": "Lib\\Loans", "create": {"$new": "Lib\\Loans", "args": ["x", 3]}},
        "db": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": ["one"]}}
    }));
    let e = c.get::<Loans>("loans").unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot create service 'loans' (path: loans): constructor of Lib\\Loans: \
         argument $maxLoans (index 1): expected int, found string"
    );
    let Error::ConstructorFailed { cause, .. } = &e else {
        panic!("{e:?}")
    };
    let named = cause
        .downcast_ref::<wireplan_runtime::ParamError>()
        .unwrap();
    assert_eq!((named.param.as_str(), named.error.index), ("maxLoans", 1));
    assert_eq!(
        c.get::<Loans>("setup").unwrap_err().to_string(),
        "cannot create service 'setup' (path: setup): setup #1: Lib\\Loans::setLimit(): \
         argument $limit (index 0): expected int, found string"
    );
    assert_eq!(
        c.get::<Db>("called").unwrap_err().to_string(),
        "cannot create service 'called' (path: called): Lib\\Loans::allows(): \
         argument $count (index 0): expected int, found bool"
    );
    // No declared signature: the index alone, and the cause stays an ArgError.
    let e = c.get::<Db>("db").unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot create service 'db' (path: db): constructor of App\\Db: \
         argument at index 0: expected int, found string"
    );
    let Error::ConstructorFailed { cause, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(cause.downcast_ref::<wireplan_runtime::ArgError>().is_some());
}

/// A catalog or plan that cannot be written says so: the write used to be worded as a read
/// ("cannot read plan") when the folder was missing or the target a directory.
#[test]
fn a_failed_write_says_what_was_being_written() {
    let dir = std::env::temp_dir().join(format!("wireplan-write-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let missing = dir.join("no/such/folder/catalog.json");
    let e = wireplan_runtime::catalog::write_catalog(&wireplan_runtime::Registry::new(), &missing)
        .expect_err("no folder");
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!(
            "{}: cannot write the catalog: ",
            missing.display()
        )),
        "{shown}"
    );
    let plan: wireplan_runtime::plan::Plan =
        serde_json::from_str(r#"{"format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0", "services": {}}"#)
            .expect("a plan");
    let e = plan
        .write(&dir, wireplan_runtime::Encoding::Json)
        .expect_err("a directory");
    assert!(e.to_string().contains(": cannot write the plan: "), "{e}");
    std::fs::remove_dir_all(&dir).expect("cleaned up");
}
