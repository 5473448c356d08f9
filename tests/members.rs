//! Property reads and first-class callables: every mistake is reported, with its code,
//! message and position, in one run (fixtures: `tests/fixtures/compile/members-*` for the
//! plans, `tests/fixtures/members/` for the errors).

use std::path::Path;
use wireplan::compiler::{compile, Options};

/// (code, message with its notes on following lines, line, column) of every diagnostic, in
/// order (0 for a missing position).
fn diagnostics(path: &str) -> Vec<(String, String, usize, usize)> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let result = compile(&file, &Options::default());
    assert!(
        result.plan.is_none(),
        "an erroneous config must not give a plan"
    );
    wireplan::diagnostics::to_json(&result.sources, result.diagnostics.items())
        .into_iter()
        .map(|d| {
            let (line, column) = (d.line.unwrap_or(0), d.column.unwrap_or(0));
            let text = std::iter::once(d.message)
                .chain(d.notes)
                .collect::<Vec<_>>();
            (d.code.to_string(), text.join("\n"), line, column)
        })
        .collect()
}

/// The diagnostics as borrowed tuples, to compare with a list of expectations.
fn located(d: &[(String, String, usize, usize)]) -> Vec<(&str, &str, usize, usize)> {
    d.iter()
        .map(|(c, m, l, col)| (c.as_str(), m.as_str(), *l, *col))
        .collect()
}

#[test]
fn every_member_mistake_is_reported_at_its_position() {
    let got = diagnostics("tests/fixtures/members/errors.neon");
    let want: &[(&str, &str, usize, usize)] = &[
        ("property-not-found", "Service 'a' (type of App\\Sink): Property App\\Config::$dsm is not declared in the catalog.\ndid you mean 'dsn'?", 25, 14),
        ("constant-not-found", "Service 'b' (type of App\\Sink): Constant App\\Config::MODES is not declared in the catalog.\ndid you mean 'MODE'?", 26, 14),
        ("method-not-found", "Service 'c' (type of App\\Sink): Method App\\Math::triple() is not callable.", 27, 14),
        ("invalid-definition", "Service 'd' (type of App\\Sink): Method App\\Math::scale() is not static; a callable of an object's method is written @service::scale(...).", 28, 14),
        ("invalid-definition", "Service 'e' (type of App\\Sink): Cannot create a first-class callable from a constructor (App\\Math(...)); name a static method: App\\Math::method(...).", 29, 14),
        ("invalid-definition", "Service 'f' (type of App\\Sink): Function strlen() doesn't exist; only methods can be first-class callables (Class::method(...), @service::method(...)).", 30, 14),
        ("invalid-definition", "Service 'g' (type of App\\Math): A first-class callable (App\\Math::double(...)) is a closure, not a service object; pass it as an argument instead.", 32, 11),
        ("missing-service", "Service 'h' (type of App\\Sink): Reference to missing service 'nowhere'.", 34, 14),
        ("property-not-found", "Service 'i' (type of App\\Sink): Property App\\Sink::$flg is not declared in the catalog.\ndid you mean 'flag'?", 38, 6),
        ("invalid-definition", "Service 'i' (type of App\\Sink): Writing a property of another object (@config::$dsn(...)) is not supported: services are shared once created. Write it in that service's own setup ($dsn: value), or call a method.", 39, 6),
        ("method-not-found", "Service 'j' (type of App\\Sink): Method App\\Math::tripple() is not callable.", 40, 14),
        ("invalid-value", "Service 'k' (type of App\\Counter): Parameter $n in App\\Counter::__construct() expects int, callable App\\Math::double(...) given.", 41, 17),
    ];
    let got = located(&got);
    assert_eq!(got, want);
}

#[test]
fn property_reads_are_checked_against_the_parameter_type() {
    let got = diagnostics("tests/fixtures/members/property-types.neon");
    let got = located(&got);
    let prefix = "Service 'bad' (type of App\\Repo): Parameter";
    assert_eq!(
        got,
        [
            ("invalid-value", &*format!("{prefix} $a in App\\Repo::__construct() expects int, property App\\Config::$dsn (string) given."), 19, 16),
            ("invalid-value", &*format!("{prefix} $b in App\\Repo::__construct() expects float, property App\\Config::$db (App\\Db) given."), 19, 30),
            ("invalid-value", &*format!("{prefix} $c in App\\Repo::__construct() expects App\\Db, property App\\Config::$port (int) given."), 19, 43),
        ]
    );
}

#[test]
fn statement_mistakes_are_all_reported() {
    let got = diagnostics("tests/fixtures/members/statements.neon");
    let got = located(&got);
    let want: &[(&str, &str, usize, usize)] = &[
        ("invalid-value", "Service 'a' (type of App\\Any): Tag 't' must have a plain value (null, bool, number, string, list or map), not a service, call or other statement.", 35, 13),
        ("invalid-definition", "Service 'b' (type of App\\Runner): This setup statement is a first-class callable (it is created and dropped, never called), so it has no effect; call a method, e.g. @self::method() or @service::method().", 39, 6),
        ("invalid-value", "Service 'b' (type of App\\Runner): Property App\\Runner::$w expects int, 'abc' given.", 40, 11),
        ("invalid-definition", "Service 'c' (type of App\\Runner): App\\Math::double(...) is a first-class callable, which has no methods or properties; to call the method on its result, write App\\Math::double(args)::other().", 41, 16),
        ("constant-not-found", "Service 'd' (type of App\\Any): Constant App\\Db::NOPE is not declared in the catalog.", 42, 13),
        ("class-not-found", "Service 'e' (type of App\\Any): Class 'App\\Nope' not found (in the constant App\\Nope::X).", 43, 13),
        ("invalid-value", "Service 'f' (type of App\\Var): Cannot skip (_) position 2 of App\\Var::__construct(): it belongs to the variadic parameter $rest, which collects values only.", 44, 5),
        ("invalid-value", "Service 'g' (type of App\\Runner): Parameter $fn in App\\Runner::__construct() expects callable, 5 given.", 45, 20),
        ("invalid-value", "Service 'h' (type of App\\Any): Expected a service name or type after '@'.", 46, 13),
        ("invalid-value", "Service 'i' (type of App\\Any): @self is only available in setup statements, where it is the object being set up.", 47, 13),
        ("method-not-found", "Service 'j' (type of App\\Any): Method App\\Db::dsn() is not callable.\nApp\\Db has a property $dsn: read it without parentheses, @service::dsn.", 48, 13),
        ("property-not-found", "Service 'k' (type of App\\Any): Property App\\Db::$lc is not declared in the catalog.\nApp\\Db has a constant lc, but after :: only names that start with a capital letter are read as constants (Nette's rule); rename it in the catalog to read it.", 49, 13),
        ("constant-not-found", "Service 'l' (type of App\\Any): Constant App\\Db::UP is not declared in the catalog.\nApp\\Db has a property $UP: write @service::$UP (after ::, a name that starts with a capital letter is a constant).", 50, 13),
        ("invalid-value", "Service 'n' (type of App\\Any): Cannot convert an object to int.", 52, 13),
        ("invalid-value", "Service 'm': its create expression nests 124 levels deep in the plan's JSON (a call takes two: the call and its argument list); a plan allows at most 100 (what JSON readers accept).\nSplit it into services that refer to each other.", 51, 5),
    ];
    assert_eq!(got, want);
}

#[test]
fn written_nulls_and_variadic_values_are_type_checked() {
    let got = diagnostics("tests/fixtures/members/arguments.neon");
    let got = located(&got);
    assert_eq!(
        got,
        [
            ("invalid-value", "Service 'bad' (type of App\\Db): Parameter $dsn in App\\Db::__construct() expects string, null given.", 16, 14),
            ("invalid-value", "Service 'v' (type of App\\Var): Parameter $rest in App\\Var::__construct() expects int, 'x' given.", 17, 19),
        ]
    );
}

#[test]
fn a_statement_name_that_fails_to_expand_is_reported_once() {
    let got = diagnostics("tests/fixtures/members/name-missing-param.neon");
    let got = located(&got);
    assert_eq!(
        got,
        [("missing-parameter", "Missing parameter 'nope'.", 5, 5)]
    );
}

#[test]
fn broken_setup_names_are_reported_once_each() {
    let got = diagnostics("tests/fixtures/members/setup-name-errors.neon");
    let got: Vec<(&str, usize, usize)> = got
        .iter()
        .map(|(c, _, l, col)| (c.as_str(), *l, *col))
        .collect();
    assert_eq!(
        got,
        [("invalid-value", 10, 6), ("missing-parameter", 11, 6)]
    );
}

mod end_to_end {
    //! The fixtures' plans, compiled and run against a registry.

    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::{Arc, Mutex};
    use wireplan::compiler::{compile, Options};
    use wireplan_runtime::{register, Callable, Container, Registry, Value};

    fn container(fixture: &str, registry: &Registry) -> Container {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/compile")
            .join(fixture)
            .join("config.neon");
        let plan = compile(&file, &Options::default())
            .plan
            .expect("the fixture compiles");
        Container::builder(registry).from_plan(plan).unwrap()
    }

    struct Db;
    struct Config {
        db: Arc<Db>,
    }
    struct Repo {
        dsn: String,
        db: Arc<Db>,
        mode: i64,
    }
    struct Holder {
        name: String,
        seen: Mutex<Vec<String>>,
        flag: bool,
    }

    #[test]
    fn property_reads_run() {
        let mut r = Registry::new();
        register!(r, "App\\Db" => Db { new() { Db } });
        register!(r, "App\\Config" => Config {
            new() { Config { db: Arc::new(Db) } }
            get dsn(&this) -> String { "sqlite:app".to_string() }
            get db(&this) -> Arc<Db> { this.db.clone() }
        });
        register!(r, "App\\Repo" => Repo {
            new(dsn: String, db: Arc<Db>, mode: i64) { Repo { dsn, db, mode } }
        });
        register!(r, "App\\Holder" => Holder {
            new() { Holder { name: "h1".into(), seen: Mutex::default(), flag: false } }
            get name(&this) -> String { this.name.clone() }
            fn setDsn(&this, dsn: String) { this.seen.lock().unwrap().push(dsn); }
            property flag(&mut this, on: bool) { this.flag = on; }
        });
        let c = container("members-property-read", &r);
        let repo = c.get::<Repo>("repo").unwrap();
        let config = c.get::<Config>("config").unwrap();
        assert_eq!((repo.dsn.as_str(), repo.mode), ("sqlite:app", 2));
        assert!(Arc::ptr_eq(&repo.db, &config.db));
        // A service created by a property read is the object the getter returns.
        assert!(Arc::ptr_eq(&c.get::<Db>("mainDb").unwrap(), &config.db));
        let holder = c.get::<Holder>("holder").unwrap();
        assert_eq!(*holder.seen.lock().unwrap(), ["sqlite:app", "h1"]);
        assert!(holder.flag);
    }

    struct MathOps;
    struct Counter(AtomicI64);
    struct Builder;
    struct Handlers;
    static REGISTERED: Mutex<Vec<Callable>> = Mutex::new(Vec::new());
    struct Pipeline {
        step: Callable,
        sink: Callable,
        extra: Value,
    }

    #[test]
    fn callables_run() {
        let mut r = Registry::new();
        register!(r, "App\\Math" => MathOps { static fn double(n: i64) -> i64 { n * 2 } });
        register!(r, "App\\Counter" => Counter {
            new() { Counter(AtomicI64::new(0)) }
            fn add(&this, n: i64) -> i64 { this.0.fetch_add(n, Ordering::SeqCst) + n }
        });
        register!(r, "App\\Builder" => Builder {
            static fn make() -> Arc<Counter> { Arc::new(Counter(AtomicI64::new(100))) }
        });
        register!(r, "App\\Registry" => Handlers {
            static fn register(handler: Callable) { REGISTERED.lock().unwrap().push(handler); }
        });
        register!(r, "App\\Pipeline" => Pipeline {
            new(step: Callable, sink: Callable, extra: Value) { Pipeline { step, sink, extra } }
        });
        let c = container("members-callable", &r);
        let p = c.get::<Pipeline>("pipeline").unwrap();
        assert_eq!(p.step.call(vec![Value::Int(4)]).unwrap(), Value::Int(8));
        assert_eq!(p.sink.call(vec![Value::Int(3)]).unwrap(), Value::Int(3));
        // The setup registered a callable bound to the same singleton.
        let registered = REGISTERED.lock().unwrap().clone();
        assert_eq!(registered.len(), 1);
        assert_eq!(registered[0].name(), "App\\Counter::add");
        assert_eq!(
            registered[0].call(vec![Value::Int(4)]).unwrap(),
            Value::Int(7)
        );
        assert_eq!(
            c.get::<Counter>("counter")
                .unwrap()
                .0
                .load(Ordering::SeqCst),
            7
        );
        // The chained target is its own object, created by App\Builder::make().
        let chained = p.extra.as_callable().expect("a callable");
        assert_eq!(chained.call(vec![Value::Int(1)]).unwrap(), Value::Int(101));
    }

    struct Server {
        debug: bool,
        port: i64,
        ratio: f64,
        name: String,
    }

    #[test]
    fn conversions_of_dynamic_parameters_run_at_start_up() {
        let mut r = Registry::new();
        register!(r, "App\\Server" => Server {
            new(debug: bool, port: i64, ratio: f64, name: String) { Server { debug, port, ratio, name } }
        });
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/compile/functions-dynamic/config.neon");
        let plan = compile(&file, &Options::default()).plan.expect("compiles");
        let load = |port: &str| {
            Container::builder(&r)
                .read_environment(false)
                .parameters([("env.QUIET", ""), ("env.PORT", port), ("env.HOST", "web1")])
                .from_plan(plan.clone())
                .unwrap()
        };
        let s = load("8080").get::<Server>("server").unwrap();
        assert_eq!(
            (s.debug, s.port, s.ratio, s.name.as_str()),
            (true, 8080, 0.5, "web1")
        );
        let e = match load("80x").get::<Server>("server") {
            Ok(_) => panic!("80x is not an int"),
            Err(e) => e.to_string(),
        };
        // The value of a dynamic parameter is never shown (it may be a secret).
        assert!(
            e.contains("cannot convert the value of dynamic parameter 'env.PORT' to int"),
            "{e}"
        );
        assert!(!e.contains("80x"), "{e}");
    }
}
