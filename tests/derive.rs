//! `#[class]` / `#[interface]` (wireplan-derive) against `register!`: the same catalog for 23
//! classes and 4 interfaces covering every kind of item, the same argument errors, and a plan
//! compiled against the derived catalog that creates every service.

mod derive_app;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use derive_app::manual::manual_registry;
use derive_app::*;
use wireplan_runtime::{Container, Registry, Value};

#[test]
fn the_derived_catalog_equals_the_register_macro_catalog() {
    let derived = derived_registry().catalog();
    let manual = manual_registry().catalog();
    assert_eq!(derived, manual);
    // Real content, not two empty catalogs.
    let classes = derived_registry().classes().len();
    assert_eq!(classes, 23);
    for line in [
        "\tApp\\FileLogger:\n\t\timplements: [App\\Logger]\n\t\tconstructor:\n\t\t\tpath: string\n\t\t\tlevel: {type: int, default: 3}\n",
        "\t\t\tsetLevel: {params: {level: int}, returns: void}\n",
        "\t\t\tlineCount: {params: {}, returns: int}\n",
        "\t\tproperties:\n\t\t\tpath: string\n\t\t\tverbose: bool\n",
        "\t\tconstants:\n\t\t\tMAX_LEVEL: 9\n",
        "\tNullLogger:\n\t\timplements: [App\\Logger]\n",
        "\t\t\tstorage: Storage\n\t\t\tttl: {type: ?int, default: null}\n",
        "\t\t\tnotifiers: 'App\\Notifier[]'\n",
        "\t\t\tfallback: ?App\\Handler\n",
        "\tApp\\ApiHandler:\n\t\textends: App\\BaseHandler\n",
        "\t\t\tversion: {type: float, default: 1.5}\n",
        "\t\t\tcreate: {params: {version: float}, returns: App\\BaseHandler, static: true}\n",
        "\t\t\tAPI: 'base'\n",
        "\t\t\tdefaultLevel: {params: {}, returns: int, static: true}\n",
        "\t\t\taddJob: {params: {name: string}, returns: void}\n",
        "\t\t\tjob: callable\n",
        "\t\t\trecord: {params: {name: string, amount: {type: int, default: 1}}, returns: int}\n",
        "\t\t\tbroadcast: {params: {message: string}, returns: mixed}\n",
        "\t\t\tcheck: {params: {limit: int}, returns: void}\n",
        "\t\t\treset: {params: {}, returns: void}\n",
        "\t\t\tclock: {type: App\\Clock, inject: true}\n\t\t\tpayload: mixed\n\t\t\tuser: string\n",
        "\t\t\tmaxRatio: {type: float, default: 0.5}\n\t\t\tname: {type: string, default: 'app'}\n",
        "\t\t\tDEFAULT_NAME: 'app'\n\t\t\tENABLED: true\n",
        "\t\t\tvalues: array\n\t\t\tlist: array\n",
        "\t\t\tquota: 'int<0, 4294967295>'\n",
        "\tStorage: {interface: true}\n",
        "\tApp\\LoggerFactory:\n\t\tconstructor: private\n\t\tmethods:\n\t\t\tcreate: {params: {path: string}, returns: App\\FileLogger, static: true}\n",
    ] {
        assert!(derived.contains(line), "missing {line:?} in\n{derived}");
    }
}

const CONFIG: &str = "includes:
	- catalog.neon

services:
	clock: App\\Clock
	logger:
		create: App\\FileLogger(/var/log/app.log)
		setup:
			- setLevel(App\\FileLogger::MAX_LEVEL)
			- $verbose = true
	nullLogger:
		create: NullLogger
		autowired: false
	db: App\\Database('sqlite::memory:')
	config: App\\Config([a: 1, b: 2], [x, y, z])
	memory: App\\MemoryStorage(@db::query('SELECT 1'))
	disk:
		create: App\\DiskStorage(/srv/data, 500)
		autowired: false
	cache: App\\Cache
	mailer: App\\Mailer
	email:
		create: App\\EmailNotifier
		setup:
			- @mailer::send('bob@example.com')
	logNotifier: App\\LogNotifier
	sms: App\\SmsNotifier('+420 123')
	hub: App\\NotifierHub
	home: App\\HomeHandler
	api: App\\ApiHandler
	base: App\\BaseHandler::create(2.5)
	router: App\\Router(fallback: @home)
	factoryLogger:
		create: App\\LoggerFactory::create(/tmp/factory.log)
		autowired: false
	metrics: App\\Metrics
	scheduler:
		create: App\\Scheduler(job: @metrics::record(...))
		setup:
			- addJob(cleanup)
			- addJob(report)
	session:
		create: App\\Session(App\\Kernel::version())
		inject: true
		setup:
			- $user = alice
			- $payload = [theme: dark]
	settings: App\\Settings(name: @logger::path, maxRatio: 0.25)
	kernel: App\\Kernel
";

fn compile(registry: &Registry, config: &str) -> Result<Container, String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("catalog.neon"), registry.catalog()).unwrap();
    let path = dir.path().join("app.neon");
    std::fs::write(&path, config).unwrap();
    let result = wireplan::compiler::compile(&path, &Default::default());
    let Some(plan) = result.plan else {
        return Err(wireplan::diagnostics::render_to_string(
            &result.sources,
            result.diagnostics.items(),
        ));
    };
    Container::from_plan(plan, registry).map_err(|e| e.to_string())
}

#[test]
fn a_plan_compiled_from_the_derived_catalog_creates_every_service() {
    let registry = derived_registry();
    let c = compile(&registry, CONFIG).unwrap_or_else(|e| panic!("{e}"));

    let logger = c.get::<FileLogger>("logger").unwrap();
    assert_eq!(
        (logger.path.as_str(), logger.level, logger.verbose),
        ("/var/log/app.log", 9, true)
    );
    assert!(Arc::ptr_eq(
        &c.get::<FileLogger>("logger").unwrap(),
        &logger
    ));
    assert_eq!(c.get::<dyn Logger>("nullLogger").unwrap().name(), "null");
    assert_eq!(c.get::<Database>("db").unwrap().dsn, "sqlite::memory:");
    let config = c.get::<Config>("config").unwrap();
    assert_eq!(config.values.get("b"), Some(&Value::Int(2)));
    assert_eq!(
        config.list,
        vec![Value::from("x"), Value::from("y"), Value::from("z")]
    );
    // `query('SELECT 1')` returned 8, the length of the query.
    assert_eq!(c.get::<MemoryStorage>("memory").unwrap().capacity, 8);
    let disk = c.get::<DiskStorage>("disk").unwrap();
    assert_eq!((disk.root.as_str(), disk.quota), ("/srv/data", 500));
    let cache = c.get::<Cache>("cache").unwrap();
    assert_eq!((cache.storage.capacity(), cache.ttl), (8, None));

    let mailer = c.get::<Mailer>("mailer").unwrap();
    assert_eq!(mailer.from, "noreply@example.com");
    assert_eq!(mailer.logger.name(), "/var/log/app.log");
    let hub = c.get::<NotifierHub>("hub").unwrap();
    let mut sent: Vec<String> = hub.notifiers.iter().map(|n| n.notify("hi")).collect();
    sent.sort();
    assert_eq!(
        sent,
        [
            "email from noreply@example.com: hi",
            "log /var/log/app.log: hi",
            "sms +420 123 (x2): hi"
        ]
    );
    // The email notifier's setup sent one mail through the logger.
    assert_eq!(
        *logger.lines.lock().unwrap(),
        ["mail from noreply@example.com to bob@example.com"]
    );

    let router = c.get::<Router>("router").unwrap();
    let mut paths: Vec<String> = router.handlers.iter().map(|h| h.path()).collect();
    paths.sort();
    assert_eq!(paths, ["/", "/api/v1.5", "/base/2.5"]);
    assert_eq!(router.fallback.as_ref().unwrap().path(), "/");
    assert_eq!(c.get::<dyn Handler>("base").unwrap().path(), "/base/2.5");
    let factory = c.get::<FileLogger>("factoryLogger").unwrap();
    assert_eq!(
        (factory.path.as_str(), factory.verbose),
        ("/tmp/factory.log", true)
    );

    let scheduler = c.get::<Scheduler>("scheduler").unwrap();
    assert_eq!(scheduler.jobs, ["cleanup", "report"]);
    assert_eq!(scheduler.clock.now, 1_700_000_000);
    let metrics = c.get::<Metrics>("metrics").unwrap();
    assert_eq!(scheduler.fire(5).unwrap(), Value::Int(5));
    assert_eq!(scheduler.fire(2).unwrap(), Value::Int(7));
    assert_eq!(metrics.total.load(Ordering::SeqCst), 7);

    let session = c.get::<Session>("session").unwrap();
    assert_eq!(session.user.as_deref(), Some("alice"));
    // `#[property(inject)]` with `inject: true`: the inject step wrote the autowired clock.
    assert!(Arc::ptr_eq(
        session
            .clock
            .as_ref()
            .expect("the inject step wrote $clock"),
        &c.get::<Clock>("clock").unwrap()
    ));
    assert!(!session.admin);
    assert_eq!(
        session.data.as_map().and_then(|m| m.get("theme")),
        Some(&Value::from("dark"))
    );
    let settings = c.get::<Settings>("settings").unwrap();
    assert_eq!(
        (settings.max_ratio, settings.name.as_str()),
        (0.25, "/var/log/app.log")
    );

    let kernel = c.get::<AppKernel>("kernel").unwrap();
    assert!(Arc::ptr_eq(&kernel.metrics, &metrics));
    assert!(Arc::ptr_eq(&kernel.router, &router));
    assert_eq!(kernel.cache.ttl, None);
    assert_eq!(c.service_names().count(), 23);
    assert_eq!(c.warm_up().unwrap(), 0, "every service was already created");

    // The dispose hook runs for both FileLogger singletons when the container goes.
    let before = FILE_LOGGERS_CLOSED.load(Ordering::SeqCst);
    drop(c);
    assert_eq!(FILE_LOGGERS_CLOSED.load(Ordering::SeqCst) - before, 2);
}

/// Runs a one-service JSON plan against both registries and returns both errors.
fn errors_of(create: &str, setup: &str) -> (String, String) {
    let plan = format!(
        r#"{{"format": "wireplan-plan", "version": 1, "compiler": "wireplan 0.1.0", "inputs_hash": "0",
            "services": {{"s": {{"type": "X", "create": {create}, "setup": [{setup}]}}}}}}"#
    );
    let run = |r: &Registry| {
        let c = Container::from_json_str(&plan, r).map_err(|e| e.to_string())?;
        c.get_instance("s").map(|_| ()).map_err(|e| e.to_string())
    };
    (
        run(&derived_registry()).expect_err("derived registry accepted it"),
        run(&manual_registry()).expect_err("register! registry accepted it"),
    )
}

#[test]
fn argument_and_constructor_errors_are_those_of_register() {
    let cases = [
        // A wrong argument type (ArgError).
        (
            r#"{"$new": "App\\FileLogger", "args": [5, 3]}"#,
            "",
            "string",
        ),
        // Out of the Rust type's range: a literal is refused at load, by the range the
        // registration exports for the Rust type.
        (
            r#"{"$new": "App\\MemoryStorage", "args": [-1]}"#,
            "",
            "is the int -1 in the plan, but the parameter takes int<0, max>",
        ),
        (
            r#"{"$new": "App\\DiskStorage", "args": ["/x", -4]}"#,
            "",
            "is the int -4 in the plan, but the parameter takes int<0, 4294967295>",
        ),
        // The constructor's own error (Result::Err).
        (
            r#"{"$new": "App\\Database", "args": [""]}"#,
            "",
            "the DSN is empty",
        ),
        // A setup method's own error.
        (
            r#"{"$new": "App\\Scheduler", "args": [{"$new": "App\\Clock", "args": []}, {"$callable": ["App\\Kernel", "version"]}]}"#,
            r#"{"$call": ["@self", "addJob"], "args": ["a"]}, {"$call": ["@self", "addJob"], "args": ["a"]}"#,
            "job 'a' is already scheduled",
        ),
        // A `&self` method's `Result` error.
        (
            r#"{"$new": "App\\Metrics", "args": []}"#,
            r#"{"$call": ["@self", "check"], "args": [-1]}"#,
            "total 0 is over -1",
        ),
        // A setup method's argument.
        (
            r#"{"$new": "App\\FileLogger", "args": ["/l", 1]}"#,
            r#"{"$call": ["@self", "setLevel"], "args": ["high"]}"#,
            "int",
        ),
    ];
    for (create, setup, needle) in cases {
        let (derived, manual) = errors_of(create, setup);
        assert_eq!(derived, manual, "{create} {setup}");
        assert!(derived.contains(needle), "{derived:?} lacks {needle:?}");
    }
    // A fallible method's error reaches the caller with its message.
    let (derived, _) = errors_of(
        r#"{"$call": [{"$new": "App\\Database", "args": ["db"]}, "query"], "args": ["DROP x"]}"#,
        "",
    );
    assert!(derived.contains("not a query: DROP x"), "{derived}");
}

#[test]
fn a_shared_constructor_and_a_fallible_one_create_services() {
    let plan = r#"{"format": "wireplan-plan", "version": 1, "compiler": "wireplan 0.1.0", "inputs_hash": "0",
        "services": {
            "null": {"type": "NullLogger", "create": {"$new": "NullLogger", "args": []}},
            "disk": {"type": "App\\DiskStorage", "create": {"$new": "App\\DiskStorage", "args": ["relative", 1]}}
        }}"#;
    let c = Container::from_json_str(plan, &derived_registry()).unwrap();
    assert_eq!(c.get::<dyn Logger>("null").unwrap().name(), "null");
    let e = c
        .get::<DiskStorage>("disk")
        .err()
        .expect("a relative root fails");
    assert!(
        e.to_string().contains("'relative' is not an absolute path"),
        "{e}"
    );
}
