//! Generated services, imported services, parameters, the binary form and its checks, the
//! catalog export and the `register!` macro.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value as Json};
use wireplan_runtime::plan::Plan;
use wireplan_runtime::{
    register, Accessor, Container, Encoding, Error, Factory, Locator, Registry, Value,
};

trait Exporter: Send + Sync {
    fn format(&self) -> String;
}

#[derive(Debug)]
struct Db {
    dsn: String,
}

#[derive(Debug)]
struct Article {
    id: i64,
    title: String,
    db: Arc<Db>,
    tags: Mutex<Vec<String>>,
}

struct Csv;
impl Exporter for Csv {
    fn format(&self) -> String {
        "csv".into()
    }
}
struct Pdf;
impl Exporter for Pdf {
    fn format(&self) -> String {
        "pdf".into()
    }
}

struct Clock(&'static str);

struct Report {
    clock: Arc<Clock>,
    dir: String,
}

fn registry() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Db" => Db {
        new(dsn: String) { Db { dsn } }
    });
    register!(r, "App\\Article" => Article {
        new(id: i64, title: String, db: Arc<Db>) {
            Article { id, title, db, tags: Mutex::default() }
        }
        fn tag(&this, t: String) { this.tags.lock().unwrap().push(t); }
    });
    register!(r, "App\\Csv" => Csv {
        new() { Csv }
        implements "App\\Exporter" => dyn Exporter;
    });
    register!(r, "App\\Pdf" => Pdf {
        new() { Pdf }
        implements "App\\Exporter" => dyn Exporter;
    });
    register!(r, "App\\Clock" => Clock {});
    register!(r, "App\\Report" => Report {
        new(clock: Arc<Clock>, dir: String) { Report { clock, dir } }
    });
    r
}

fn plan(services: Json, extra: Json) -> String {
    let mut p = json!({"format": "wireplan-plan", "version": 1, "compiler": "test",
                       "inputs_hash": "0", "services": services});
    if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    p.to_string()
}

fn app() -> String {
    plan(
        json!({
            "db": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": ["sqlite:"]}},
            "articles": {"kind": "factory", "type": "App\\ArticleFactory",
                "implement": "App\\ArticleFactory", "parameters": ["id", "title"],
                "create": {"$new": "App\\Article",
                           "args": [{"$arg": "id"}, {"$arg": "title"}, {"$ref": "db"}]},
                "setup": [{"$call": ["@self", "tag"], "args": ["new"]}]},
            "dbAccess": {"kind": "accessor", "type": "App\\DbAccessor",
                "implement": "App\\DbAccessor", "create": {"$ref": "db"}},
            "csv": {"type": "App\\Csv", "create": {"$new": "App\\Csv", "args": []}},
            "pdf": {"type": "App\\Pdf", "create": {"$new": "App\\Pdf", "args": []}},
            "exporters": {"kind": "locator", "type": "App\\Exporters",
                "implement": "App\\Exporters",
                "references": {"csv": {"$ref": "csv"}, "pdf": {"$ref": "pdf"}}, "create": null},
            "clock": {"kind": "imported", "type": "App\\Clock", "create": null},
            "report": {"type": "App\\Report", "create": {"$new": "App\\Report",
                "args": [{"$ref": "clock"}, {"$concat": [{"$param": "env.WP_TEST_HOME"}, "/", {"$param": "sub"}]}]}},
        }),
        json!({"types": {"App\\Db": ["db"], "App\\ArticleFactory": ["articles"]},
               "initialization": [{"$ref": "db"}]}),
    )
}

fn load(json: &str, r: &Registry) -> Result<Container, Error> {
    Container::builder(r)
        .import("clock", Arc::new(Clock("today")))
        .parameters([("sub", "reports")])
        .parameter("env.WP_TEST_HOME", "/home/x")
        .from_json_str(json)
}

#[test]
fn factories_create_new_objects_from_arguments() {
    let r = registry();
    let c = load(&app(), &r).unwrap();
    let f = c
        .get_by_type_name::<Factory>("App\\ArticleFactory")
        .unwrap();
    assert_eq!(f.parameters(), ["id", "title"]);
    let a = f
        .create::<Article>(&[("id", Value::Int(1)), ("title", "Hello".into())])
        .unwrap();
    let b = f
        .create_positional::<Article>(vec![Value::Int(2), "World".into()])
        .unwrap();
    assert_eq!((a.id, a.title.as_str(), b.id), (1, "Hello", 2));
    assert_eq!(a.db.dsn, "sqlite:");
    assert!(Arc::ptr_eq(&a.db, &b.db));
    assert_eq!(*a.tags.lock().unwrap(), ["new"]);
    let e = f.create::<Article>(&[("nope", Value::Null)]).unwrap_err();
    assert!(matches!(e, Error::BadArguments { .. }), "{e}");
    let e = f.create::<Article>(&[("id", Value::Int(1))]).unwrap_err();
    assert!(matches!(e, Error::BadArguments { .. }), "{e}");
    assert!(
        e.to_string().ends_with(
            "create(): parameter 'title' was not passed, and the plan gives no default for it"
        ),
        "{e}"
    );
}

#[test]
fn accessors_and_locators_resolve_lazily() {
    let r = registry();
    let c = load(&app(), &r).unwrap();
    let acc = c.get::<Accessor>("dbAccess").unwrap();
    assert!(!c.is_created("db"));
    assert_eq!(acc.get::<Db>().unwrap().dsn, "sqlite:");
    assert!(c.is_created("db"));
    let loc = c.get::<Locator>("exporters").unwrap();
    assert_eq!(loc.keys(), ["csv", "pdf"]);
    assert!(loc.has("pdf") && !loc.has("doc"));
    assert_eq!(loc.get::<dyn Exporter>("pdf").unwrap().format(), "pdf");
    assert!(matches!(
        loc.get::<dyn Exporter>("doc"),
        Err(Error::UnknownService { .. })
    ));
    // A generated object outliving its container fails cleanly.
    drop(c);
    assert!(matches!(
        acc.get::<Db>(),
        Err(Error::ContainerDropped { .. })
    ));
}

#[test]
fn imported_services_and_dynamic_parameters() {
    let r = registry();
    let c = load(&app(), &r).unwrap();
    let report = c.get::<Report>("report").unwrap();
    assert_eq!(report.clock.0, "today");
    assert_eq!(report.dir, "/home/x/reports");
    assert_eq!(c.parameter("sub").unwrap(), Value::from("reports"));

    let e = Container::from_json_str(&app(), &r).unwrap_err();
    assert_eq!(
        e.to_string(),
        "<string>: imported services do not match the plan: not supplied: clock (supply each \
         with Container::builder(&registry).import(name, object) before loading, or remove \
         `imported: true` from its configuration)"
    );
    let e = Container::builder(&r)
        .import("clock", Arc::new(Clock("x")))
        .import("clok", Arc::new(Clock("y")))
        .from_json_str(&app())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "<string>: imported services do not match the plan: supplied but not imported by the \
         plan: clok (drop those import() calls, or declare the services `imported: true`)"
    );
}

#[test]
fn environment_parameters_are_read_at_start_up() {
    let r = registry();
    // SAFETY-free: a variable only this test uses.
    std::env::set_var("WP_TEST_ENV_ONLY", "/env");
    let p = app().replace("WP_TEST_HOME", "WP_TEST_ENV_ONLY");
    let c = Container::builder(&r)
        .import("clock", Arc::new(Clock("x")))
        .parameter("sub", "s")
        .from_json_str(&p)
        .unwrap();
    assert_eq!(c.get::<Report>("report").unwrap().dir, "/env/s");
    let c = Container::builder(&r)
        .import("clock", Arc::new(Clock("x")))
        .parameter("sub", "s")
        .read_environment(false)
        .from_json_str(&p)
        .unwrap();
    assert!(c.get::<Report>("report").is_err());
}

#[test]
fn initialize_runs_the_initialization_statements() {
    let r = registry();
    let c = load(&app(), &r).unwrap();
    assert!(!c.is_created("db"));
    c.initialize().unwrap();
    assert!(c.is_created("db"));
    assert_eq!(c.warm_up().unwrap(), 3); // csv, pdf, report (db already exists)
}

#[test]
fn binary_and_json_plans_load_the_same_container() {
    let r = registry();
    let dir = std::env::temp_dir().join(format!("wp-bin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plan = Plan::from_json_str(&app(), "<app>").unwrap();
    let (json_path, bin_path) = (dir.join("app.plan.json"), dir.join("app.plan.bin"));
    plan.write(&json_path, Encoding::for_path(&json_path))
        .unwrap();
    plan.write(&bin_path, Encoding::for_path(&bin_path))
        .unwrap();
    let bin = std::fs::read(&bin_path).unwrap();
    assert!(bin.starts_with(b"WIREPLAN"));
    assert!(bin.len() < std::fs::metadata(&json_path).unwrap().len() as usize);
    // Deterministic: writing again gives the same bytes.
    assert_eq!(plan.to_binary(), bin);
    for path in [&json_path, &bin_path] {
        let c = Container::builder(&r)
            .import("clock", Arc::new(Clock("x")))
            .parameters([("sub", "s"), ("env.WP_TEST_HOME", "/h")])
            .load(path)
            .unwrap();
        assert_eq!(c.plan(), &plan);
        assert_eq!(c.get::<Report>("report").unwrap().dir, "/h/s");
    }

    // Damaged files are clear errors naming the file.
    let cut = dir.join("cut.plan.bin");
    std::fs::write(&cut, &bin[..bin.len() / 2]).unwrap();
    let e = Container::load(&cut, &r).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: invalid plan: truncated binary plan",
            cut.display()
        )),
        "{e}"
    );
    let cut_json = dir.join("cut.plan.json");
    let text = plan.to_json();
    std::fs::write(&cut_json, &text[..text.len() / 2]).unwrap();
    let e = Container::load(&cut_json, &r).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: invalid plan: truncated JSON plan",
            cut_json.display()
        )),
        "{e}"
    );
    let garbage = dir.join("garbage.plan");
    std::fs::write(&garbage, [0xff, 0xfe, 0x00, 0x01]).unwrap();
    let e = Container::load(&garbage, &r).unwrap_err().to_string();
    assert!(
        e.contains("garbage.plan: invalid plan: neither a binary plan"),
        "{e}"
    );
    let v9 = dir.join("v9.plan.json");
    std::fs::write(&v9, text.replace("\"version\": 1", "\"version\": 9")).unwrap();
    let e = Container::load(&v9, &r).unwrap_err();
    assert!(matches!(e, Error::VersionMismatch { found: 9, .. }), "{e}");
    assert!(e.to_string().starts_with(&v9.display().to_string()), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_plan_for_another_registry_says_so() {
    let mut other = Registry::new();
    other.class::<Csv>("Other\\Thing").constructor(|_| Ok(Csv));
    let e = Container::builder(&other)
        .import("clock", Arc::new(Clock("x")))
        .from_json_str_named(&app(), "app.plan.json")
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::ForeignPlan {
                used: 5,
                registered: 1,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .starts_with("app.plan.json: this plan was compiled for another registry"),
        "{e}"
    );
}

#[test]
fn get_by_type_uses_the_precomputed_index() {
    let r = registry();
    let c = load(&app(), &r).unwrap();
    let a = c.get_by_type::<Db>().unwrap();
    assert!(Arc::ptr_eq(&a, &c.get::<Db>("db").unwrap()));
    assert!(matches!(
        c.get_by_type::<Csv>(),
        Err(Error::NoServiceOfType { .. })
    ));
    let e = c.get_by_type::<String>().unwrap_err();
    assert!(matches!(e, Error::UnregisteredType { .. }), "{e:?}");
    assert!(e.to_string().ends_with(", or use get_by_type_name"), "{e}");
}

#[test]
fn the_catalog_describes_the_registry_in_neon() {
    let mut r = registry();
    r.class::<Db>("App\\Db")
        .constant("DRIVER", "sqlite")
        .extends("App\\Storage")
        .static_method("open", |a| {
            Ok(Value::service(Db {
                dsn: a.str(0)?.into(),
            }))
        });
    r.interface::<dyn Send>("App\\Marker");
    let cat = r.catalog();
    assert_eq!(cat, r.catalog(), "deterministic");
    let expected = "types:
\tApp\\Article:
\t\tconstructor:
\t\t\tid: int
\t\t\ttitle: string
\t\t\tdb: App\\Db
\t\tmethods:
\t\t\ttag: {params: {t: string}, returns: void}
\tApp\\Clock:
\t\tconstructor: private
\tApp\\Csv:
\t\timplements: [App\\Exporter]
\tApp\\Db:
\t\textends: App\\Storage
\t\tconstructor:
\t\t\tdsn: string
\t\tmethods:
\t\t\topen: {static: true}  # signature not registered
\t\tconstants:
\t\t\tDRIVER: 'sqlite'
\tApp\\Pdf:
\t\timplements: [App\\Exporter]
\tApp\\Report:
\t\tconstructor:
\t\t\tclock: App\\Clock
\t\t\tdir: string
\tApp\\Exporter: {interface: true}
\tApp\\Marker: {interface: true}
";
    assert_eq!(cat, expected);
}

/// A dependency whose Rust type was never registered is `object` in the catalog (the
/// compiler cannot autowire it); `unregistered_types` names each such place and type, and the
/// catalog writer's warning lists them. The generated handles, `object` on purpose, are not
/// listed, nor are registered types.
#[test]
fn unregistered_dependency_types_are_listed() {
    struct Cache;
    struct Mailer;
    trait Handler: Send + Sync {}
    let mut r = registry();
    register!(r, "App\\Mailer" => Mailer {
        new(cache: Arc<Cache>, db: Arc<Db>, handlers: Vec<Arc<dyn Handler>>, make: Arc<wireplan_runtime::Factory>) {
            let _ = (cache, db, handlers, make);
            Mailer
        }
        fn warm(&this, cache: Option<Arc<Cache>>) { let _ = cache; }
    });
    let found: Vec<String> = r
        .unregistered_types()
        .iter()
        .map(ToString::to_string)
        .collect();
    let cache = std::any::type_name::<Cache>();
    let handler = std::any::type_name::<dyn Handler>();
    assert_eq!(
        found,
        [
            format!("App\\Mailer::__construct($cache): {cache}"),
            format!("App\\Mailer::__construct($handlers): {handler}"),
            format!("App\\Mailer::warm($cache): {cache}"),
        ]
    );
    assert!(r.catalog().contains("\t\t\tcache: object\n"));
    let warning = wireplan_runtime::catalog::unregistered_warning(&r.unregistered_types());
    assert!(
        warning.starts_with("wireplan: warning: 3 type(s) in the catalog are `object`"),
        "{warning}"
    );
    assert!(
        warning.contains(&format!("\n  - App\\Mailer::warm($cache): {cache}")),
        "{warning}"
    );
    assert!(warning.contains("registry.register::<T>()"), "{warning}");
    // A registry whose dependencies are all registered has nothing to list.
    assert_eq!(registry().unregistered_types(), []);
}

/// A literal the declared parameter type refuses is a load problem; a value known only at
/// start-up (a dynamic parameter) is converted, and refused, when the service is created.
#[test]
fn macro_registrations_convert_arguments_and_report_mismatches() {
    let r = registry();
    let literal = plan(
        json!({"db": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": [42]}}}),
        json!({}),
    );
    let refused = Container::from_json_str(&literal, &r).expect_err("refused");
    assert!(
        refused.to_string().contains(
            "argument $dsn (index 0) of the constructor of App\\Db is the int 42 in the plan, \
             but the parameter takes string"
        ),
        "{refused}"
    );
    let p = plan(
        json!({"db": {"type": "App\\Db", "create": {"$new": "App\\Db", "args": [{"$param": "dsn"}]}}}),
        json!({}),
    );
    let c = Container::builder(&r)
        .parameter("dsn", 42)
        .from_json_str(&p)
        .unwrap();
    let e = c.get::<Db>("db").unwrap_err().to_string();
    assert!(
        e.contains("argument $dsn (index 0): expected string, found int"),
        "{e}"
    );
}
