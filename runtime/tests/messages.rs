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
            "the object factory 'f' created is App\\Db (Rust type {}), not the requested {}",
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
