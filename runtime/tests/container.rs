//! End-to-end tests of the runtime: hand-written plans, a small registry, and the container.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};

use serde_json::{json, Value as Json};
use wireplan_runtime::{Container, Error, Missing, Registry, Value};

// ---------------------------------------------------------------------------------------
// the application

trait Logger: Send + Sync {
    fn log(&self, msg: &str);
    fn lines(&self) -> Vec<String>;
}

struct FileLogger {
    path: String,
    level: i64,
    lines: Mutex<Vec<String>>,
}

impl Logger for FileLogger {
    fn log(&self, msg: &str) {
        self.lines
            .lock()
            .unwrap()
            .push(format!("{}: {msg}", self.path));
    }
    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

struct Db {
    dsn: String,
}

struct Repository {
    db: Arc<Db>,
    table: String,
}

struct Mailer {
    logger: Option<Arc<dyn Logger>>,
    sent: Mutex<Vec<String>>,
    html: bool,
}

trait Handler: Send + Sync {
    fn name(&self) -> String;
}

struct NamedHandler(String);
impl Handler for NamedHandler {
    fn name(&self) -> String {
        self.0.clone()
    }
}

struct Dispatcher {
    handlers: Vec<Arc<dyn Handler>>,
}

/// A node of a graph that may be cyclic (`a -> b -> a`).
struct Node {
    next: Option<Arc<Node>>,
}

/// Counts constructions, for the threading test.
static SLOW_BUILDS: AtomicUsize = AtomicUsize::new(0);
struct Slow;

/// Fails until `FLAKY_OK` is set, for the "failure is not cached" test.
static FLAKY_OK: AtomicBool = AtomicBool::new(false);
struct Flaky;

fn registry() -> Registry {
    let mut r = Registry::new();
    r.class::<FileLogger>("App\\FileLogger")
        .constructor(|a| {
            Ok(FileLogger {
                path: a.str(0)?.to_string(),
                level: 0,
                lines: Mutex::default(),
            })
        })
        .implements::<dyn Logger>("App\\Logger", |x| x)
        .method_mut("setLevel", |l, a| {
            l.level = a.int(0)?;
            Ok(())
        });
    r.class::<Db>("App\\Db").constructor(|a| {
        Ok(Db {
            dsn: a.str(0)?.to_string(),
        })
    });
    r.class::<Repository>("App\\Repository").constructor(|a| {
        Ok(Repository {
            db: a.service::<Db>(0)?,
            table: a.str(1)?.to_string(),
        })
    });
    r.class::<Mailer>("App\\Mailer")
        .constructor(|_| {
            Ok(Mailer {
                logger: None,
                sent: Mutex::default(),
                html: false,
            })
        })
        .method_mut("setLogger", |m, a| {
            m.logger = Some(a.service::<dyn Logger>(0)?);
            Ok(())
        })
        .property("html", |m, a| {
            m.html = a.bool(0)?;
            Ok(())
        })
        .method("send", |m, a| {
            let to = a.str(0)?.to_string();
            if let Some(l) = &m.logger {
                l.log(&format!("mail to {to}"));
            }
            m.sent.lock().unwrap().push(to);
            Ok(())
        });
    r.class::<NamedHandler>("App\\NamedHandler")
        .constructor(|a| Ok(NamedHandler(a.str(0)?.to_string())))
        .implements::<dyn Handler>("App\\Handler", |x| x);
    r.class::<Dispatcher>("App\\Dispatcher").constructor(|a| {
        Ok(Dispatcher {
            handlers: a.list_of::<dyn Handler>(0)?,
        })
    });
    r.class::<Node>("App\\Node")
        .constructor(|a| {
            Ok(Node {
                next: a.opt_service::<Node>(0)?,
            })
        })
        .method_mut("setNext", |n, a| {
            n.next = Some(a.service::<Node>(0)?);
            Ok(())
        });
    r.class::<Slow>("App\\Slow").constructor(|_| {
        SLOW_BUILDS.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(50));
        Ok(Slow)
    });
    r.class::<Flaky>("App\\Flaky").constructor(|_| {
        if FLAKY_OK.load(Ordering::SeqCst) {
            Ok(Flaky)
        } else {
            Err("database is down".into())
        }
    });
    r
}

// ---------------------------------------------------------------------------------------
// plans

fn plan_with(services: Json, extra: Json) -> String {
    let mut p = json!({
        "format": "wireplan-plan",
        "version": 1,
        "compiler": "wireplan 0.1.0",
        "inputs_hash": "0",
        "services": services,
    });
    if let (Some(p), Json::Object(extra)) = (p.as_object_mut(), extra) {
        p.extend(extra);
    }
    p.to_string()
}

fn new(class: &str, args: Json) -> Json {
    json!({"$new": class, "args": args})
}

fn app_plan() -> String {
    plan_with(
        json!({
            "logger": {
                "type": "App\\FileLogger",
                "create": new("App\\FileLogger", json!([{"$concat": [{"$param": "logDir"}, "/app.log"]}])),
                "setup": [{"$call": ["@self", "setLevel"], "args": [3]}],
            },
            "db": {"type": "App\\Db", "create": new("App\\Db", json!(["sqlite::memory:"]))},
            "repo": {"type": "App\\Repository",
                     "create": new("App\\Repository", json!([{"$ref": "db"}, "users"]))},
            "mailer": {
                "type": "App\\Mailer",
                "tags": {"mail": true},
                "create": new("App\\Mailer", json!([])),
                "setup": [
                    {"$call": ["@self", "setLogger"], "args": [{"$ref": "logger"}]},
                    {"$set": ["@self", "html"], "value": true},
                    {"$call": ["@self", "send"], "args": ["admin@example.com"]},
                ],
            },
            "h1": {"type": "App\\NamedHandler", "tags": {"handler": {"priority": 10}},
                   "create": new("App\\NamedHandler", json!(["first"]))},
            "h2": {"type": "App\\NamedHandler", "tags": {"handler": {"priority": 20}},
                   "create": new("App\\NamedHandler", json!(["second"]))},
            "dispatcher": {"type": "App\\Dispatcher",
                           "create": new("App\\Dispatcher", json!([[{"$ref": "h1"}, {"$ref": "h2"}]]))},
        }),
        json!({
            "parameters": {"appDir": "/srv/app", "db": {"host": "localhost", "port": 5432}},
            "aliases": {"database": "db"},
            "types": {
                "App\\Logger": ["logger"],
                "App\\FileLogger": ["logger"],
                "App\\Db": ["db"],
                "App\\Repository": ["repo"],
                "App\\Mailer": ["mailer"],
                "App\\Handler": ["h1", "h2"],
                "App\\NamedHandler": ["h1", "h2"],
                "App\\Dispatcher": ["dispatcher"],
            },
            "tags": {
                "mail": {"mailer": true},
                "handler": {"h1": {"priority": 10}, "h2": {"priority": 20}},
            },
        }),
    )
}

fn app(registry: &Registry) -> Container {
    Container::builder(registry)
        .parameter("logDir", "/var/log")
        .from_json_str(&app_plan())
        .expect("the app plan loads")
}

// ---------------------------------------------------------------------------------------
// the graph

#[test]
fn the_graph_is_created_and_singletons_are_shared() {
    let reg = registry();
    let c = app(&reg);
    assert!(!c.is_created("repo"));

    let repo = c.get::<Repository>("repo").unwrap();
    assert_eq!(repo.table, "users");
    assert_eq!(repo.db.dsn, "sqlite::memory:");
    assert!(c.is_created("db"), "the dependency was created first");

    let db = c.get::<Db>("db").unwrap();
    assert!(Arc::ptr_eq(&db, &repo.db));
    assert!(Arc::ptr_eq(&db, &c.get::<Db>("db").unwrap()));
    assert!(Arc::ptr_eq(&db, &c.get::<Db>("database").unwrap()), "alias");
    assert!(Arc::ptr_eq(&db, &c.get_by_type::<Db>().unwrap()));
}

#[test]
fn one_singleton_as_concrete_type_and_as_trait_object() {
    let reg = registry();
    let c = app(&reg);
    let concrete = c.get::<FileLogger>("logger").unwrap();
    let by_name = c.get::<dyn Logger>("logger").unwrap();
    let by_type = c.get_by_type::<dyn Logger>().unwrap();
    let by_type_name = c.get_by_type_name::<dyn Logger>("App\\Logger").unwrap();
    for l in [&by_name, &by_type, &by_type_name] {
        assert!(std::ptr::addr_eq(Arc::as_ptr(l), Arc::as_ptr(&concrete)));
    }
    assert_eq!(concrete.path, "/var/log/app.log", "$concat with a $param");
    // The second lookup answers from the cast the first one kept (`ByType::cast`): the same
    // object, each answer its own reference, in a scope too.
    let again = c.get_by_type::<dyn Logger>().unwrap();
    assert!(std::ptr::addr_eq(
        Arc::as_ptr(&again),
        Arc::as_ptr(&by_type)
    ));
    let count = Arc::strong_count(&again);
    drop(c.get_by_type::<dyn Logger>().unwrap());
    assert_eq!(
        Arc::strong_count(&again),
        count,
        "a returned clone is released"
    );
    let scope = c.scope();
    let scoped = scope.get_by_type::<dyn Logger>().unwrap();
    assert!(std::ptr::addr_eq(
        Arc::as_ptr(&scoped),
        Arc::as_ptr(&by_type)
    ));
    assert!(Arc::ptr_eq(
        &c.get_by_type::<FileLogger>().unwrap(),
        &concrete
    ));
}

#[test]
fn setups_run_in_order_with_mut_and_shared_methods() {
    let reg = registry();
    let c = app(&reg);
    let mailer = c.get::<Mailer>("mailer").unwrap();
    let logger = c.get::<dyn Logger>("logger").unwrap();
    assert!(mailer.html, "$set ran");
    assert_eq!(*mailer.sent.lock().unwrap(), ["admin@example.com"]);
    assert_eq!(
        logger.lines(),
        ["/var/log/app.log: mail to admin@example.com"]
    );
    let injected = mailer.logger.clone().unwrap();
    assert!(Arc::ptr_eq(&injected, &logger));
    assert_eq!(c.get::<FileLogger>("logger").unwrap().level, 3);
}

#[test]
fn lists_of_trait_objects_tags_and_type_index() {
    let reg = registry();
    let c = app(&reg);
    let d = c.get::<Dispatcher>("dispatcher").unwrap();
    let names: Vec<_> = d.handlers.iter().map(|h| h.name()).collect();
    assert_eq!(names, ["first", "second"]);
    assert!(Arc::ptr_eq(
        &d.handlers[0],
        &c.get::<dyn Handler>("h1").unwrap()
    ));

    let tagged = c.find_by_tag("handler");
    assert_eq!(tagged.len(), 2);
    assert_eq!(tagged[0].0, "h1");
    assert_eq!(tagged[1].1.as_map().unwrap()["priority"], Value::Int(20));
    assert!(c.find_by_tag("nothing").is_empty());
    assert_eq!(c.find_by_type("App\\Handler"), ["h1", "h2"]);

    match c.get_by_type::<dyn Handler>().err() {
        Some(Error::AmbiguousType { services, .. }) => assert_eq!(services, ["h1", "h2"]),
        other => panic!("expected AmbiguousType, got {other:?}"),
    }
    assert!(matches!(
        c.get_by_type_name::<Db>("App\\Nope"),
        Err(Error::NoServiceOfType { .. })
    ));
}

#[test]
fn parameters_static_dotted_dynamic_and_env() {
    let reg = registry();
    let c = Container::builder(&reg)
        .parameter("logDir", "/tmp")
        .parameter("env.WIREPLAN_TEST_OVERRIDE", "from map")
        .from_json_str(&app_plan())
        .unwrap();
    assert_eq!(c.parameter("appDir").unwrap(), Value::from("/srv/app"));
    assert_eq!(c.parameter("db.port").unwrap(), Value::Int(5432));
    assert_eq!(c.parameter("logDir").unwrap(), Value::from("/tmp"));
    assert_eq!(
        c.parameter("env.WIREPLAN_TEST_OVERRIDE").unwrap(),
        Value::from("from map")
    );
    // PATH is set in every test environment.
    assert!(c.parameter("env.PATH").unwrap().as_str().is_some());
    assert!(matches!(
        c.parameter("db.user"),
        Err(Error::UnknownParameter { .. })
    ));
    assert!(c.has("db") && c.has("database") && !c.has("nope"));
}

#[test]
fn static_factories_and_calls_on_other_services() {
    struct Factory;
    struct Conn(String);
    let mut reg = registry();
    reg.class::<Factory>("App\\ConnFactory")
        .static_method("create", |a| {
            Ok(Value::service(Conn(a.str(0)?.to_string())))
        });
    reg.class::<Db>("App\\Db")
        .method("connect", |db, _| Ok(Value::service(Conn(db.dsn.clone()))));
    let plan = plan_with(
        json!({
            "db": {"type": "App\\Db", "create": new("App\\Db", json!(["pg://x"]))},
            "a": {"type": "App\\Conn", "create": {"$call": ["App\\ConnFactory", "create"], "args": ["static"]}},
            "b": {"type": "App\\Conn", "create": {"$call": [{"$ref": "db"}, "connect"], "args": []}},
        }),
        json!({}),
    );
    let c = Container::from_json_str(&plan, &reg).unwrap();
    assert_eq!(c.get::<Conn>("a").unwrap().0, "static");
    assert_eq!(c.get::<Conn>("b").unwrap().0, "pg://x");
}

// ---------------------------------------------------------------------------------------
// errors

#[test]
fn unknown_service_and_wrong_type() {
    let reg = registry();
    let c = app(&reg);
    let e = c.get::<Db>("nope").err().unwrap();
    assert!(matches!(&e, Error::UnknownService { name, .. } if name == "nope"));
    assert_eq!(e.to_string(), "service 'nope' not found");
    // A near miss gets the closest name; a class name is pointed to the lookup by type.
    let e = c.get::<Db>("Dbb").err().unwrap();
    assert_eq!(e.to_string(), "service 'Dbb' not found; did you mean 'db'?");
    let e = c.get_instance("App\\Db").err().unwrap();
    assert_eq!(
        e.to_string(),
        "service 'App\\Db' not found; 'App\\Db' is a class name: get_by_type_name(\"App\\Db\") \
         asks for the service of a type"
    );

    let e = c.get::<Repository>("db").err().unwrap();
    assert!(matches!(e, Error::WrongType { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("service 'db' is App\\Db"), "{msg}");
    assert!(msg.contains("Repository"), "{msg}");

    // A trait object the class does not implement.
    let e = c.get::<dyn Logger>("db").err().unwrap();
    assert!(e.to_string().contains("dyn container::Logger"), "{e}");
}

#[test]
fn all_missing_registrations_are_listed_before_anything_is_created() {
    let mut reg = Registry::new();
    reg.class::<Mailer>("App\\Mailer").constructor(|_| {
        Ok(Mailer {
            logger: None,
            sent: Mutex::default(),
            html: false,
        })
    });
    reg.class::<Db>("App\\Db"); // no constructor
    reg.interface::<dyn Logger>("App\\Logger");
    let plan = plan_with(
        json!({
            "logger": {"type": "App\\FileLogger", "create": new("App\\FileLogger", json!(["x"]))},
            "db": {"type": "App\\Db", "create": new("App\\Db", json!(["dsn"]))},
            "mailer": {
                "type": "App\\Mailer",
                "create": new("App\\Mailer", json!([])),
                "setup": [
                    {"$call": ["@self", "setLogger"], "args": [{"$ref": "logger"}]},
                    {"$set": ["@self", "html"], "value": true},
                ],
            },
            "conn": {"type": "App\\Conn", "create": {"$call": ["App\\Mailer", "make"], "args": []}},
        }),
        json!({"types": {"App\\Logger": ["logger", "mailer"]}}),
    );
    let e = Container::from_json_str(&plan, &reg).err().unwrap();
    let Error::MissingRegistrations { origin, missing } = &e else {
        panic!("expected MissingRegistrations, got {e:?}");
    };
    assert_eq!(origin, "<string>");
    assert_eq!(missing.len(), 6, "{e}");
    assert!(matches!(&missing[0], Missing::Class { class, .. } if class == "App\\FileLogger"));
    assert!(matches!(&missing[1], Missing::Constructor { class, .. } if class == "App\\Db"));
    assert!(
        matches!(&missing[2], Missing::Method { class, method, .. } if class == "App\\Mailer" && method == "setLogger")
    );
    assert!(matches!(&missing[3], Missing::Property { property, .. } if property == "html"));
    assert!(
        matches!(&missing[4], Missing::Cast { class, interface, .. } if class == "App\\Mailer" && interface == "App\\Logger")
    );
    assert!(matches!(&missing[5], Missing::StaticMethod { method, .. } if method == "make"));
    let msg = e.to_string();
    assert!(msg.contains("the registry lacks 6 thing(s)"), "{msg}");
    // It ends with what to register, and how to regenerate the catalog and recompile.
    assert!(
        msg.contains(
            "register each of them (Registry::class, register!, #[wireplan_runtime::class])"
        ),
        "{msg}"
    );
    assert!(
        msg.ends_with("recompile the plan with --catalog catalog.json")
            && msg.contains("WIREPLAN_WRITE_CATALOG=catalog.json"),
        "{msg}"
    );
    assert!(
        msg.contains("method App\\Mailer::setLogger() is not registered (needed by service 'mailer' (setup #1))"),
        "{msg}"
    );
    // A class registered without a constructor (its catalog says `constructor: private`, so
    // the compiler refuses a `new` of it; a plan compiled from an older catalog still can
    // have one): the line says what else creates such a service.
    assert!(
        msg.contains(
            "class App\\Db has no constructor (needed by service 'db' (create)); if it is \
             registered without one on purpose, make the service a scope slot (`slot: true`) \
             or create it with a factory method"
        ),
        "{msg}"
    );
}

/// A plan that uses many classes the registry lacks: the message writes out the first 50 and
/// counts the rest; the error's `missing` field keeps them all.
#[test]
fn a_long_list_of_gaps_is_cut_in_the_message_only() {
    let reg = registry();
    let services: serde_json::Map<String, Json> = (0..60)
        .map(|i| {
            let class = format!("App\\Gone{i}");
            (
                format!("s{i}"),
                json!({"type": class, "create": new(&class, json!([]))}),
            )
        })
        .chain([(
            "db".to_string(),
            json!({"type": "App\\Db", "create": new("App\\Db", json!(["dsn"]))}),
        )])
        .collect();
    let e = Container::from_json_str(&plan_with(Json::Object(services), json!({})), &reg)
        .err()
        .unwrap();
    let Error::MissingRegistrations { missing, .. } = &e else {
        panic!("expected MissingRegistrations, got {e:?}");
    };
    assert_eq!(missing.len(), 60);
    let msg = e.to_string();
    assert!(msg.contains("the registry lacks 60 thing(s)"), "{msg}");
    assert_eq!(msg.matches("\n  - class App\\Gone").count(), 50, "{msg}");
    assert!(msg.contains("App\\Gone49 is not registered"), "{msg}");
    assert!(!msg.contains("App\\Gone50 "), "{msg}");
    assert!(
        msg.contains("\n  … and 10 more (the error's `missing` field lists them all)"),
        "{msg}"
    );
}

#[test]
fn inconsistent_plans_are_rejected_with_every_problem() {
    let reg = registry();
    let plan = plan_with(
        json!({
            "repo": {"type": "App\\Repository", "create": new("App\\Repository", json!([{"$ref": "ghost"}, {"$ref": "@self"}]))},
        }),
        json!({"aliases": {"x": "nobody", "y": "x"}, "types": {"App\\Db": ["gone"]}}),
    );
    let e = Container::from_json_str(&plan, &reg).err().unwrap();
    let msg = e.to_string();
    assert!(matches!(e, Error::BadPlan { .. }), "{e:?}");
    for needle in [
        "5 problem(s)",
        "alias 'y' points to 'x', which is an alias (an alias must name a service)",
        "service 'repo' (create): reference to unknown service 'ghost'",
        "@self outside setup",
        "alias 'x' points to unknown service 'nobody'",
        "lists unknown service 'gone'",
    ] {
        assert!(msg.contains(needle), "{needle:?} not in {msg}");
    }
}

/// The `types` index listing a service written `autowired: false` is a load problem, in a
/// JSON plan and in a binary one (read by the container's fast path otherwise): `get_by_type`
/// would hand out a service the configuration kept out of autowiring (a plan edited by hand;
/// a new user's trial).
#[test]
fn a_types_entry_for_a_service_that_is_not_autowired_is_refused() {
    let reg = registry();
    let services = json!({
        "cache": {"type": "App\\Mailer", "create": new("App\\Mailer", json!([]))},
        "other": {"type": "App\\Mailer", "autowired": false, "create": new("App\\Mailer", json!([]))},
    });
    let good = plan_with(
        services.clone(),
        json!({"types": {"App\\Mailer": ["cache"]}}),
    );
    let bad = plan_with(services, json!({"types": {"App\\Mailer": ["other"]}}));
    let binary = |text: &str| {
        wireplan_runtime::plan::Plan::from_json_str(text, "<t>")
            .unwrap()
            .to_binary()
    };
    assert!(Container::from_json_str(&good, &reg).is_ok());
    assert!(Container::from_bytes(&binary(&good), &reg).is_ok());
    for e in [
        Container::from_json_str(&bad, &reg).err().unwrap(),
        Container::from_bytes(&binary(&bad), &reg).err().unwrap(),
    ] {
        assert!(matches!(e, Error::BadPlan { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains(
                "types index: App\\Mailer lists service 'other', which is not autowired (autowired: false)"
            ),
            "{msg}"
        );
    }
}

/// A load that finds problems of several kinds reports every kind at once (an inconsistent
/// plan, a class the registry lacks, an import not supplied, a required dynamic parameter
/// not given), each as the error a load that found only it would return.
#[test]
fn every_kind_of_load_problem_is_reported_in_one_run() {
    let reg = registry();
    let plan = plan_with(
        json!({
            "repo": {"type": "App\\Repository", "create": new("App\\Repository", json!([{"$ref": "ghost"}]))},
            "cache": {"type": "App\\Cache", "create": new("App\\Cache", json!([]))},
            "clock": {"kind": "imported", "type": "App\\Clock", "create": null},
            "port": {"type": "App\\Db", "create": new("App\\Db", json!([{"$param": "port"}]))},
        }),
        json!({"version": 2, "dynamic": {"port": {"type": "string", "required": true}}}),
    );
    let e = Container::builder(&reg)
        .read_environment(false)
        .from_json_str(&plan)
        .err()
        .unwrap();
    let Error::Several { origin, errors } = &e else {
        panic!("expected Several, got {e:?}");
    };
    assert_eq!(origin, "<string>");
    assert_eq!(errors.len(), 4, "{e}");
    assert!(
        matches!(&errors[0], Error::BadPlan { reason, .. } if reason.contains("reference to unknown service 'ghost'")),
        "{e}"
    );
    assert!(
        matches!(&errors[1], Error::MissingRegistrations { missing, .. }
            if matches!(&missing[..], [Missing::Class { class, .. }] if class == "App\\Cache")),
        "{e}"
    );
    assert!(
        matches!(&errors[2], Error::Imports { missing, .. } if missing == &["clock"]),
        "{e}"
    );
    assert!(
        matches!(&errors[3], Error::DynamicParameters { problems, .. } if problems.len() == 1 && problems[0].name == "port"),
        "{e}"
    );
    assert_eq!(e.each().len(), 4);
    let msg = e.to_string();
    assert!(
        msg.starts_with("<string>: the plan cannot be loaded, for 4 independent reasons:\n1. <string>: invalid plan: 1 problem(s):\n     - service 'repo'"),
        "{msg}"
    );
    assert!(
        msg.contains("\n2. <string>: the registry lacks 1 thing(s)"),
        "{msg}"
    );
    assert!(
        msg.contains("\n3. <string>: imported services do not match the plan"),
        "{msg}"
    );
    assert!(
        msg.contains("\n4. <string>: 1 dynamic parameter(s) missing or invalid"),
        "{msg}"
    );

    // One kind alone is that error itself, and `each` lists it.
    let e = Container::from_json_str(
        &plan_with(
            json!({
                "cache": {"type": "App\\Cache", "create": new("App\\Cache", json!([]))},
                "db": {"type": "App\\Db", "create": new("App\\Db", json!(["dsn"]))},
            }),
            json!({}),
        ),
        &reg,
    )
    .err()
    .unwrap();
    assert!(matches!(&e, Error::MissingRegistrations { .. }), "{e:?}");
    assert!(matches!(e.each(), [Error::MissingRegistrations { .. }]));
}

#[test]
fn format_and_version_are_checked_and_name_the_file() {
    let reg = registry();
    let dir = std::env::temp_dir().join(format!("wireplan-runtime-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // A version newer than this runtime reads.
    let newer = dir.join("v5.plan.json");
    let text = app_plan().replace("\"version\":1", "\"version\":5");
    std::fs::write(&newer, text).unwrap();
    let e = Container::load(&newer, &reg).err().unwrap();
    assert!(
        matches!(
            &e,
            Error::VersionMismatch {
                found: 5,
                expected: 4,
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(msg.starts_with(&newer.display().to_string()), "{msg}");
    assert!(msg.contains("plan version 5 is not supported"), "{msg}");
    assert!(msg.contains("made by a newer version of wireplan"), "{msg}");

    let foreign = dir.join("foreign.json");
    std::fs::write(&foreign, r#"{"format": "something-else", "version": 1}"#).unwrap();
    let e = Container::load(&foreign, &reg).err().unwrap();
    assert!(matches!(e, Error::BadPlan { .. }));
    assert!(e.to_string().contains("not a wireplan plan"), "{e}");

    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\"format\": ").unwrap();
    let e = Container::load(&broken, &reg).err().unwrap();
    assert!(e.to_string().contains("broken.json: invalid plan"), "{e}");

    let e = Container::load(dir.join("missing.json"), &reg)
        .err()
        .unwrap();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");

    let ok = dir.join("ok.plan.json");
    std::fs::write(&ok, app_plan()).unwrap();
    let c = Container::builder(&reg)
        .parameter("logDir", "/l")
        .load(&ok)
        .unwrap();
    assert_eq!(c.origin(), ok.display().to_string());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn constructor_errors_carry_service_step_and_path() {
    let reg = registry();
    let plan = plan_with(
        json!({
            "db": {"type": "App\\Db", "create": new("App\\Db", json!([42]))},
            "repo": {"type": "App\\Repository", "create": new("App\\Repository", json!([{"$ref": "db"}, "t"]))},
        }),
        json!({}),
    );
    let c = Container::from_json_str(&plan, &reg).unwrap();
    let e = c.get::<Repository>("repo").err().unwrap();
    let Error::ConstructorFailed {
        service,
        path,
        step,
        cause,
        ..
    } = &e
    else {
        panic!("expected ConstructorFailed, got {e:?}");
    };
    assert_eq!(service, "db");
    assert_eq!(path, &["repo", "db"]);
    assert_eq!(step, "constructor of App\\Db");
    assert!(cause.downcast_ref::<wireplan_runtime::ArgError>().is_some());
    assert_eq!(
        e.to_string(),
        "cannot create service 'db' (path: repo -> db): constructor of App\\Db: \
         argument at index 0: expected string, found int"
    );
    assert!(!c.is_created("db") && !c.is_created("repo"));
}

#[test]
fn a_missing_dynamic_parameter_is_an_error_not_a_panic() {
    let reg = registry();
    let c = Container::builder(&reg)
        .read_environment(false)
        .from_json_str(&app_plan())
        .unwrap();
    let e = c.get::<FileLogger>("logger").err().unwrap();
    assert!(e.to_string().contains("dynamic parameter 'logDir'"), "{e}");
    assert!(
        e.to_string()
            .contains("not set (pass it to ContainerBuilder::parameter)"),
        "{e}"
    );
    assert!(!e.to_string().contains("environment"), "{e}");
    // An `env.NAME` parameter names its variable (the message said "env.X" for every name).
    let plan = app_plan().replace("\"logDir\"", "\"env.WIREPLAN_TEST_NOT_SET\"");
    let c = Container::builder(&reg)
        .read_environment(false)
        .from_json_str(&plan)
        .unwrap();
    let e = c.get::<FileLogger>("logger").err().unwrap();
    assert!(
        e.to_string().contains(
            "not set (set the environment variable WIREPLAN_TEST_NOT_SET, or pass it to \
             ContainerBuilder::parameter)"
        ),
        "{e}"
    );
}

#[test]
fn failed_construction_is_not_cached() {
    let reg = registry();
    let plan = plan_with(
        json!({"flaky": {"type": "App\\Flaky", "create": new("App\\Flaky", json!([]))}}),
        json!({}),
    );
    let c = Container::from_json_str(&plan, &reg).unwrap();
    let e = c.get::<Flaky>("flaky").err().unwrap();
    assert!(e.to_string().contains("database is down"), "{e}");
    FLAKY_OK.store(true, Ordering::SeqCst);
    assert!(c.get::<Flaky>("flaky").is_ok());
}

#[test]
fn circular_references_report_the_path() {
    let reg = registry();
    let plan = plan_with(
        json!({
            "start": {"type": "App\\Node", "create": new("App\\Node", json!([{"$ref": "a"}]))},
            "a": {"type": "App\\Node", "create": new("App\\Node", json!([{"$ref": "b"}]))},
            "b": {"type": "App\\Node", "create": new("App\\Node", json!([{"$ref": "a"}]))},
            // through a setup: the object is not published before its setup finished
            "s": {"type": "App\\Node", "create": new("App\\Node", json!([null])),
                  "setup": [{"$call": ["@self", "setNext"], "args": [{"$ref": "t"}]}]},
            "t": {"type": "App\\Node", "create": new("App\\Node", json!([{"$ref": "s"}]))},
        }),
        json!({}),
    );
    let c = Container::from_json_str(&plan, &reg).unwrap();
    let e = c.get::<Node>("start").err().unwrap();
    assert_eq!(e.to_string(), "circular reference: a -> b -> a");
    assert!(matches!(e, Error::CircularReference { .. }));
    let e = c.get::<Node>("s").err().unwrap();
    assert_eq!(e.to_string(), "circular reference: s -> t -> s");
    // The container is still usable afterwards.
    let e = c.get::<Node>("b").err().unwrap();
    assert_eq!(e.to_string(), "circular reference: b -> a -> b");
}

#[test]
fn mut_setups_refuse_a_shared_self() {
    let reg = registry();
    let plan = plan_with(
        json!({
            "n": {"type": "App\\Node", "create": new("App\\Node", json!([null])),
                  "setup": [{"$call": ["@self", "setNext"], "args": [{"$ref": "@self"}]}]},
        }),
        json!({}),
    );
    let c = Container::from_json_str(&plan, &reg).unwrap();
    let e = c.get::<Node>("n").err().unwrap();
    assert!(
        e.to_string().contains("needs exclusive access (&mut)"),
        "{e}"
    );
}

#[test]
fn transients_and_factories_that_were_unsupported_now_work() {
    let reg = registry();
    let plan = plan_with(
        json!({
            "t": {"type": "App\\Db", "lifespan": "transient", "create": new("App\\Db", json!(["x"]))},
            "f": {"kind": "factory", "type": "App\\DbFactory", "implement": "App\\DbFactory",
                  "parameters": ["dsn"], "create": new("App\\Db", json!([{"$arg": "dsn"}]))},
        }),
        json!({}),
    );
    let c = Container::from_json_str(&plan, &reg).unwrap();
    let (a, b) = (c.get::<Db>("t").unwrap(), c.get::<Db>("t").unwrap());
    assert!(!Arc::ptr_eq(&a, &b));
    let f = c.get::<wireplan_runtime::Factory>("f").unwrap();
    let db = f.create::<Db>(&[("dsn", Value::from("sqlite:"))]).unwrap();
    assert_eq!(db.dsn, "sqlite:");
}

/// A factory's interface registered in Rust (`#[interface]`, as the catalog export asks) does
/// not make the load require the product's class to implement it: the factory is handed out
/// as its `Factory` handle, not as the product (found by a new user's trial: "class App\Db
/// does not register implements App\DbFactory").
#[test]
fn a_registered_factory_interface_is_not_asked_of_the_product() {
    trait DbFactory: Send + Sync {}
    let mut reg = registry();
    reg.interface::<dyn DbFactory>("App\\DbFactory");
    let plan = plan_with(
        json!({
            "f": {"kind": "factory", "type": "App\\DbFactory", "implement": "App\\DbFactory",
                  "parameters": ["dsn"], "create": new("App\\Db", json!([{"$arg": "dsn"}]))},
        }),
        json!({"types": {"App\\DbFactory": ["f"]}}),
    );
    let c = Container::from_json_str(&plan, &reg).expect("the plan loads");
    let f = c.get::<wireplan_runtime::Factory>("f").unwrap();
    let db = f.create::<Db>(&[("dsn", Value::from("pg:"))]).unwrap();
    assert_eq!(db.dsn, "pg:");
}

// ---------------------------------------------------------------------------------------
// threads

#[test]
fn container_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + 'static>() {}
    assert_send_sync::<Container>();
    assert_send_sync::<Registry>();
}

#[test]
fn many_threads_construct_one_singleton_once() {
    let reg = registry();
    let plan = plan_with(
        json!({"slow": {"type": "App\\Slow", "create": new("App\\Slow", json!([]))}}),
        json!({}),
    );
    let c = Container::from_json_str(&plan, &reg).unwrap();
    const THREADS: usize = 12;
    let barrier = Barrier::new(THREADS);
    let got: Vec<Arc<Slow>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    c.get::<Slow>("slow").unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(SLOW_BUILDS.load(Ordering::SeqCst), 1);
    assert!(got.iter().all(|s| Arc::ptr_eq(s, &got[0])));
}

/// One catalog name registered for two Rust types: the second replaces the first, and every
/// load says so (JSON and binary alike), whether or not the plan uses the class (a new user's
/// trial met it only as a wrong type at the first `get`).
#[test]
fn a_name_registered_for_two_rust_types_refuses_every_load() {
    struct First;
    struct Second;
    let mut r = Registry::new();
    r.class::<First>("App\\Thing").constructor(|_| Ok(First));
    r.class::<Second>("App\\Thing").constructor(|_| Ok(Second));
    // The same type again continues its registration: no conflict.
    r.class::<Second>("App\\Thing").constructor(|_| Ok(Second));
    r.class::<Mailer>("App\\Mailer").constructor(|_| {
        Ok(Mailer {
            logger: None,
            sent: Mutex::default(),
            html: false,
        })
    });
    let text = plan_with(
        json!({"mailer": {"type": "App\\Mailer", "create": new("App\\Mailer", json!([]))}}),
        json!({}),
    );
    let binary = wireplan_runtime::plan::Plan::from_json_str(&text, "<t>")
        .unwrap()
        .to_binary();
    for e in [
        Container::from_json_str(&text, &r).err().unwrap(),
        Container::from_bytes(&binary, &r).err().unwrap(),
    ] {
        let msg = e.to_string();
        assert!(matches!(e, Error::MissingRegistrations { .. }), "{e:?}");
        assert_eq!(
            msg.matches("registered for two Rust types").count(),
            1,
            "{msg}"
        );
        assert!(
            msg.contains("class App\\Thing is registered for two Rust types, ")
                && msg.contains("First and then ")
                && msg.contains("Second (the second replaced the first)"),
            "{msg}"
        );
    }
}
