//! Generated services (factories, accessors, locators): their interfaces and references are
//! checked at compile time, and a plan that calls their methods runs (fixtures:
//! `tests/fixtures/generated/`).

use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use wireplan::compiler::{compile, Options};
use wireplan_runtime::{register, Callable, Container, Registry, Value};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/generated")
        .join(name)
}

#[test]
fn every_interface_and_reference_mistake_is_reported() {
    let result = compile(&fixture("errors.neon"), &Options::default());
    assert!(result.plan.is_none());
    let got: Vec<(String, String, usize)> =
        wireplan::diagnostics::to_json(&result.sources, result.diagnostics.items())
            .into_iter()
            .map(|d| {
                let text = std::iter::once(d.message)
                    .chain(d.notes)
                    .collect::<Vec<_>>();
                (d.code.to_string(), text.join("\n"), d.line.unwrap_or(0))
            })
            .collect();
    let rule = "does not meet the requirements: is create($name), get($name), create*() or get*() and is non-static.";
    let want = [
        ("invalid-definition", format!("Service 'bad': Method App\\Bad::find() {rule}"), 27),
        ("invalid-definition", format!("Service 'bad': Method App\\Bad::getAll() {rule}"), 27),
        ("invalid-definition", format!("Service 'bad': Method App\\Bad::createOne() {rule}"), 27),
        ("invalid-definition", "Service 'untyped': Method App\\Untyped::getDb() returns mixed, which names no single class; a locator's getDb() returns a service.".to_string(), 28),
        ("invalid-definition", "Service 'multi' (type of App\\Multi): Method App\\Multi::getCsv() returns App\\Csv, but the reference 'csv' is service 'db' of type App\\Db.".to_string(), 29),
        ("missing-service", "Service 'multi' (type of App\\Multi): Method App\\Multi::createCache() has no service: the locator has no reference 'cache'.\ndid you mean 'cahce'?".to_string(), 29),
    ];
    let got: Vec<(&str, &str, usize)> = got
        .iter()
        .map(|(c, m, l)| (c.as_str(), m.as_str(), *l))
        .collect();
    let want: Vec<(&str, &str, usize)> =
        want.iter().map(|(c, m, l)| (*c, m.as_str(), *l)).collect();
    assert_eq!(got, want);
}

struct Counter(AtomicI64);
struct Csv {
    sep: String,
}
struct Holder {
    counter: Arc<Counter>,
}
struct CsvPair {
    shared: Arc<Csv>,
    fresh: Arc<Csv>,
}
struct Pipeline {
    make: Callable,
    find: Callable,
    fresh: Callable,
}
struct Node(i64);

fn registry() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Counter" => Counter {
        new(start: i64) { Counter(AtomicI64::new(start)) }
        fn add(&this, n: i64) -> i64 { this.0.fetch_add(n, Ordering::SeqCst) + n }
    });
    register!(r, "App\\Csv" => Csv { new(sep: String) { Csv { sep } } });
    register!(r, "App\\Holder" => Holder { new(counter: Arc<Counter>) { Holder { counter } } });
    register!(r, "App\\CsvPair" => CsvPair {
        new(shared: Arc<Csv>, fresh: Arc<Csv>) { CsvPair { shared, fresh } }
    });
    register!(r, "App\\Pipeline" => Pipeline {
        new(make: Callable, find: Callable, fresh: Callable) { Pipeline { make, find, fresh } }
    });
    // `make` is only static: `App\Node::make()::make()` and `@node::make()` call it on an
    // instance, as PHP allows.
    register!(r, "App\\Node" => Node {
        static fn make() -> Arc<Node> {
            static MADE: AtomicI64 = AtomicI64::new(0);
            Arc::new(Node(MADE.fetch_add(1, Ordering::SeqCst)))
        }
    });
    r
}

fn value_int(v: &Value) -> i64 {
    let Value::Service(inst) = v else {
        panic!("a service, got {v:?}")
    };
    inst.downcast::<Counter>()
        .expect("a counter")
        .0
        .load(Ordering::SeqCst)
}

#[test]
fn calls_on_generated_services_run() {
    let plan = compile(&fixture("calls.neon"), &Options::default())
        .plan
        .expect("the fixture compiles");
    // The load check does not ask the registry for the members of generated services
    // (App\Counter::create(), App\Counter::get(), App\Tools::getCounter()).
    let c = Container::from_plan(plan, &registry()).expect("loads");
    let shared = c.get::<Counter>("shared").unwrap();

    // A factory's create(5) builds a new object with the argument.
    let from_factory = c.get::<Holder>("fromFactory").unwrap();
    assert_eq!(from_factory.counter.0.load(Ordering::SeqCst), 5);
    assert!(!Arc::ptr_eq(&from_factory.counter, &shared));
    // An accessor's get() and a locator's getCounter() give the shared service.
    assert!(Arc::ptr_eq(
        &c.get::<Holder>("fromAccessor").unwrap().counter,
        &shared
    ));
    assert!(Arc::ptr_eq(
        &c.get::<Holder>("fromLocator").unwrap().counter,
        &shared
    ));

    // get('csv') is the shared anonymous service; createCsv() a new object of it.
    let csvs = c.get::<CsvPair>("csvs").unwrap();
    assert!(Arc::ptr_eq(&csvs.shared, &c.get::<Csv>("01").unwrap()));
    assert!(!Arc::ptr_eq(&csvs.shared, &csvs.fresh));
    assert_eq!(
        (csvs.shared.sep.as_str(), csvs.fresh.sep.as_str()),
        (";", ";")
    );

    // First-class callables of the same methods.
    let p = c.get::<Pipeline>("pipeline").unwrap();
    assert_eq!(p.make.name(), "App\\CounterFactory::create");
    assert_eq!(value_int(&p.make.call(vec![Value::Int(7)]).unwrap()), 7);
    assert_eq!(
        value_int(&p.find.call(vec!["counter".into()]).unwrap()),
        100
    );
    let Value::Service(fresh) = p.fresh.call(vec![]).unwrap() else {
        panic!("a service")
    };
    assert!(!Arc::ptr_eq(
        &fresh.downcast::<Csv>().unwrap(),
        &csvs.shared
    ));
    let err = p.find.call(vec!["nope".into()]).unwrap_err();
    assert!(err.to_string().contains("tools[nope]"), "{err}");

    // A static method called on an instance (a chain, and @node::make()).
    let node = c.get::<Node>("node").unwrap();
    let again = c.get::<Node>("again").unwrap();
    assert!(again.0 > node.0, "{} {}", node.0, again.0);
}

#[derive(Debug)]
struct Logger {
    path: String,
    level: i64,
}

#[test]
fn factory_defaults_reach_the_plan_and_rust_callers() {
    use wireplan_runtime::plan::{CallTarget, Expr as P};
    let plan = compile(&fixture("defaults.neon"), &Options::default())
        .plan
        .expect("the fixture compiles");
    let arg = |name: &str| P::Arg(name.into());
    let arg_or = |name: &str, default: i64| P::ArgOr {
        name: name.into(),
        default: Box::new(P::Int(default)),
    };
    // An explicit $lvl, a $lvl in a setup, and a constructor parameter named like one of
    // create()'s (level): each carries create()'s default, not the constructor's.
    assert_eq!(
        plan.services["explicit"].create,
        P::New {
            class: "App\\Logger".into(),
            args: vec![arg("path"), arg_or("lvl", 4)],
        }
    );
    assert_eq!(
        plan.services["viaSetup"].setup,
        [P::Call {
            target: CallTarget::SelfObject,
            method: "setLevel".into(),
            args: vec![arg_or("lvl", 4)],
        }]
    );
    assert_eq!(
        plan.services["implicit"].create,
        P::New {
            class: "App\\Logger".into(),
            args: vec![arg("path"), arg_or("level", 7)],
        }
    );

    let mut r = Registry::new();
    register!(r, "App\\Logger" => Logger {
        new(path: String, level: i64) { Logger { path, level } }
        fn setLevel(&mut this, level: i64) { this.level = level; }
    });
    let c = Container::from_plan(plan, &r).expect("loads");
    let factory = |n: &str| c.get::<wireplan_runtime::Factory>(n).unwrap();
    let only_path = [("path", Value::from("/r"))];
    let made = factory("explicit").create::<Logger>(&only_path).unwrap();
    assert_eq!((made.path.as_str(), made.level), ("/r", 4));
    let made = factory("viaSetup").create::<Logger>(&only_path).unwrap();
    assert_eq!(made.level, 4);
    let made = factory("implicit").create::<Logger>(&only_path).unwrap();
    assert_eq!(made.level, 7);
    let made = factory("explicit")
        .create::<Logger>(&[("path", "/s".into()), ("lvl", Value::Int(1))])
        .unwrap();
    assert_eq!(made.level, 1);
    // The configuration's own call had the default filled in at compile time.
    assert_eq!(c.get::<Logger>("fromConfig").unwrap().level, 4);
}
