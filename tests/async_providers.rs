//! The compiler side of async constructors and `Provider<T>`: `requires_async` in the plan,
//! `sync: true` checks, provider autowiring and its diagnostics, cycles broken by a provider;
//! and one plan compiled here run by the runtime end to end.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use wireplan::compiler::{compile, Compilation, Options};
use wireplan::diagnostics::Code;
use wireplan_runtime::{register, Container, Error, Provider, Registry};

/// The catalog shared by the cases: a pool with an async constructor, services above it, a
/// logger interface with one or two implementations.
const TYPES: &str = "
types:
\tApp\\Config:
\t\tconstructor:
\t\t\turl: string
\tApp\\Pool:
\t\tasync: true
\t\tconstructor:
\t\t\tconfig: App\\Config
\tApp\\Repo:
\t\tconstructor:
\t\t\tpool: App\\Pool
\tApp\\App:
\t\tconstructor:
\t\t\trepo: App\\Repo
\tApp\\Logger: {interface: true}
\tApp\\FileLogger:
\t\timplements: [App\\Logger]
\tApp\\NullLogger:
\t\timplements: [App\\Logger]
\tApp\\Report:
\t\tconstructor:
\t\t\tlogger: 'Provider<App\\Logger>'
\tApp\\Lazy:
\t\tconstructor:
\t\t\tpool: 'Provider<App\\Pool>'
\tApp\\Ghost:
\t\tconstructor:
\t\t\tthing: 'Provider<App\\Nope>'
\tApp\\Left:
\t\tconstructor:
\t\t\tright: App\\Right
\tApp\\Right:
\t\tconstructor:
\t\t\tleft: App\\Left
\tApp\\LazyRight:
\t\textends: App\\Right
\t\tconstructor:
\t\t\tleft: 'Provider<App\\Left>'
";

fn compile_services(services: &str) -> (tempfile::TempDir, Compilation) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("app.neon");
    std::fs::write(&path, format!("{TYPES}\nservices:\n{services}")).expect("write");
    let c = compile(&path, &Options::default());
    (dir, c)
}

/// (code, message, notes) of every error.
fn errors(c: &Compilation) -> Vec<(Code, String, Vec<String>)> {
    c.diagnostics
        .items()
        .iter()
        .filter(|d| d.severity == wireplan::diagnostics::Severity::Error)
        .map(|d| (d.code, d.message.clone(), d.notes.clone()))
        .collect()
}

#[test]
fn requires_async_follows_the_creation_path_and_stops_at_providers() {
    let (_dir, c) = compile_services(
        "\tconfig: App\\Config('db://x')
\tpool: App\\Pool
\trepo: App\\Repo
\tapp: App\\App
\tlazy: App\\Lazy
\tfiles: App\\FileLogger
",
    );
    assert_eq!(errors(&c), []);
    let plan = c.plan.expect("a plan");
    let flags: Vec<(&str, bool)> = plan
        .services
        .iter()
        .map(|(n, s)| (n.as_str(), s.requires_async))
        .collect();
    assert_eq!(
        flags,
        [
            ("config", false),
            ("pool", true),
            ("repo", true),
            ("app", true),
            // A provider defers creation: the handle's holder is created synchronously.
            ("lazy", false),
            ("files", false),
        ]
    );
    // The graph shows the handle as a `provider` edge, not a constructor dependency.
    let graph = wireplan::inspect::Graph::from_plan(&plan);
    let lazy_edges: Vec<(&str, &str)> = graph
        .edges
        .iter()
        .filter(|e| e.from == "lazy")
        .map(|e| (e.to.as_str(), e.kind.as_str()))
        .collect();
    assert_eq!(lazy_edges, [("pool", "provider")]);
    let lazy = plan.services["lazy"].create.to_json();
    assert_eq!(
        lazy,
        serde_json::json!({"$new": "App\\Lazy", "args": [{"$provider": "pool"}]})
    );
    let json = wireplan::plan::to_json(&plan);
    assert!(json.contains("\"requires_async\": true"), "{json}");
    assert!(json.contains("\"version\": 4"), "{json}");
}

#[test]
fn sync_true_on_an_async_path_is_an_error_naming_the_path() {
    let (_dir, c) = compile_services(
        "\tconfig: App\\Config('db://x')
\tpool: App\\Pool
\trepo: App\\Repo
\tapp:
\t\tcreate: App\\App
\t\tsync: true
\tfine:
\t\tcreate: App\\FileLogger
\t\tsync: true
",
    );
    let errs = errors(&c);
    assert_eq!(errs.len(), 1, "{errs:?}");
    let (code, message, notes) = &errs[0];
    assert_eq!(*code, Code::AsyncRequired);
    assert_eq!(code.as_str(), "async-required");
    assert_eq!(
        message,
        "Service 'app' is declared sync: true, but creating it needs the async constructor of \
         App\\Pool (path: app -> repo -> pool)."
    );
    assert!(notes[0].contains("Provider<T>"), "{notes:?}");
    assert!(c.plan.is_none());
}

#[test]
fn provider_targets_are_autowired_with_nettes_diagnostics() {
    // None of the type.
    let (_dir, c) = compile_services("\treport: App\\Report\n");
    assert_eq!(
        errors(&c),
        [(
            Code::MissingService,
            "Service 'report' (type of App\\Report): Service of type App\\Logger required by \
             $logger in App\\Report::__construct() not found."
                .to_string(),
            vec!["Did you add it to configuration file?".to_string()]
        )]
    );
    // Two candidates.
    let (_dir, c) = compile_services(
        "\tfiles: App\\FileLogger\n\tnothing: App\\NullLogger\n\treport: App\\Report\n",
    );
    let errs = errors(&c);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, Code::AmbiguousService);
    assert_eq!(
        errs[0].1,
        "Service 'report' (type of App\\Report): Multiple services of type App\\Logger found: \
         files, nothing (required by $logger in App\\Report::__construct())"
    );
    // An unknown target class.
    let (_dir, c) = compile_services("\tghost: App\\Ghost\n");
    let errs = errors(&c);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, Code::ClassNotFound);
    assert_eq!(
        errs[0].1,
        "Service 'ghost' (type of App\\Ghost): Class 'App\\Nope' required by $thing in \
         App\\Ghost::__construct() not found."
    );
    // Exactly one: a handle on it; an explicit reference works too.
    let (_dir, c) = compile_services(
        "\tfiles: App\\FileLogger\n\treport: App\\Report\n\tother: App\\Report(@files)\n",
    );
    assert_eq!(errors(&c), []);
    let plan = c.plan.expect("a plan");
    for name in ["report", "other"] {
        assert_eq!(
            plan.services[name].create.to_json(),
            serde_json::json!({"$new": "App\\Report", "args": [{"$provider": "files"}]})
        );
    }
    // An explicit value that is no service reference.
    let (_dir, c) = compile_services("\tfiles: App\\FileLogger\n\treport: App\\Report(5)\n");
    let errs = errors(&c);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, Code::InvalidValue);
    assert!(
        errs[0].1.contains(
            "Parameter $logger in App\\Report::__construct() expects Provider<App\\Logger>"
        ),
        "{errs:?}"
    );
}

#[test]
fn a_singleton_cannot_take_a_provider_of_a_scoped_service() {
    let (_dir, c) = compile_services(
        "\tfiles:\n\t\tcreate: App\\FileLogger\n\t\tlifespan: scoped\n\treport: App\\Report\n\tscopedReport:\n\t\tcreate: App\\Report\n\t\tlifespan: scoped\n",
    );
    let errs = errors(&c);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, Code::CaptiveDependency);
    assert_eq!(
        errs[0].1,
        "Service 'report' is a singleton and takes a Provider of scoped service 'files', which \
         it could never resolve: a singleton's provider is made outside any scope."
    );
    assert_eq!(errs[0].2[0], "path: report -> provider -> files");
}

#[test]
fn a_cycle_says_a_provider_breaks_it_and_one_does() {
    let (_dir, c) = compile_services("\tleft: App\\Left\n\tright: App\\Right\n");
    let errs = errors(&c);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, Code::CircularReference);
    assert_eq!(
        errs[0].1,
        "Circular reference detected for services: left, right."
    );
    assert!(
        errs[0]
            .2
            .iter()
            .any(|n| n.starts_with("a Provider<T> parameter breaks the cycle")),
        "{errs:?}"
    );
    let (_dir, c) = compile_services("\tleft: App\\Left\n\tright: App\\LazyRight\n");
    assert_eq!(errors(&c), []);
    assert!(c.plan.is_some());
}

// ---------------------------------------------------------------------------------------
// end to end: a compiled plan in the runtime

/// Polls `f` to completion on this thread. The futures here never wait for anything outside
/// (no timers, no I/O), so polling again is always progress; bounded so it cannot hang.
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..100_000 {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
    panic!("the future did not finish");
}

#[derive(Debug)]
struct Config {
    url: String,
}
#[derive(Debug)]
struct Pool {
    url: String,
}
#[derive(Debug)]
struct Repo {
    pool: Arc<Pool>,
}
#[derive(Debug)]
struct App {
    repo: Arc<Repo>,
}
struct Lazy {
    pool: Provider<Pool>,
}

#[test]
fn a_compiled_async_plan_runs_in_the_runtime() {
    let (_dir, c) = compile_services(
        "\tconfig: App\\Config('db://main')
\tpool: App\\Pool
\trepo: App\\Repo
\tapp: App\\App
\tlazy: App\\Lazy
",
    );
    assert_eq!(errors(&c), []);
    let plan = c.plan.expect("a plan");
    let mut reg = Registry::new();
    register!(reg, "App\\Config" => Config { new(url: String) { Config { url } } });
    register!(reg, "App\\Pool" => Pool {
        async new(config: Arc<Config>) {
            std::future::ready(()).await;
            Pool { url: config.url.clone() }
        }
    });
    register!(reg, "App\\Repo" => Repo { new(pool: Arc<Pool>) { Repo { pool } } });
    register!(reg, "App\\App" => App { new(repo: Arc<Repo>) { App { repo } } });
    register!(reg, "App\\Lazy" => Lazy { new(pool: Provider<Pool>) { Lazy { pool } } });
    // The registry's catalog says what the NEON catalog above says.
    let catalog = reg.catalog();
    assert!(
        catalog.contains(
            "\tApp\\Pool:\n\t\tasync: true\n\t\tconstructor:\n\t\t\tconfig: App\\Config\n"
        ),
        "{catalog}"
    );
    assert!(catalog.contains("pool: 'Provider<App\\Pool>'"), "{catalog}");

    let container = Container::from_plan(plan, &reg).unwrap();
    let err = container.get::<App>("app").unwrap_err();
    assert!(
        matches!(&err, Error::AsyncRequired { path, .. } if path == &["app", "repo", "pool"]),
        "{err}"
    );
    // The provider's holder is sync; the provider reaches the async pool with get_async.
    let lazy = container.get::<Lazy>("lazy").unwrap();
    assert!(matches!(lazy.pool.get(), Err(Error::AsyncRequired { .. })));
    let pool = block_on(lazy.pool.get_async()).unwrap();
    assert_eq!(pool.url, "db://main");
    let app = block_on(container.get_async::<App>("app")).unwrap();
    assert!(Arc::ptr_eq(&app.repo.pool, &pool));
    assert!(Path::new(container.origin()).to_str().is_some());
}
