//! Async constructors (`get_async`, `requires_async`) and lazy `Provider<T>` handles.
//!
//! Each test has its own types and counters (constructors are plain `fn`s, so counters are
//! statics), so the tests may run in parallel.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use wireplan_runtime::{register, Container, Error, Provider, Registry};

/// A plan document around `services` (a JSON object's body).
fn plan(services: &str) -> String {
    format!(
        r#"{{"format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0",
            "services": {{{services}}}}}"#
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_time()
        .build()
        .expect("tokio runtime")
}

/// Bounds a test's async part, so a deadlock fails instead of hanging CI.
async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the async part finished within 60 s")
}

// ---------------------------------------------------------------------------------------
// exactly once under 1,000 concurrent tasks

static POOLS_MADE: AtomicUsize = AtomicUsize::new(0);
static REPOS_MADE: AtomicUsize = AtomicUsize::new(0);

struct Pool1 {
    url: String,
}
struct Repo1 {
    pool: Arc<Pool1>,
}

#[test]
fn an_async_singleton_is_created_once_under_1000_concurrent_tasks() {
    let mut reg = Registry::new();
    reg.class::<Pool1>("App\\Pool").async_constructor(|a| {
        let url = a.str(0)?.to_string();
        Ok(Box::pin(async move {
            POOLS_MADE.fetch_add(1, Ordering::SeqCst);
            // Long enough that every task asks while the first creation is in flight.
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(Pool1 { url })
        }))
    });
    reg.class::<Repo1>("App\\Repo").constructor(|a| {
        REPOS_MADE.fetch_add(1, Ordering::SeqCst);
        Ok(Repo1 {
            pool: a.service(0)?,
        })
    });
    let json = plan(
        r#""pool": {"type": "App\\Pool", "requires_async": true,
                    "create": {"$new": "App\\Pool", "args": ["db://main"]}},
           "repo": {"type": "App\\Repo", "requires_async": true,
                    "create": {"$new": "App\\Repo", "args": [{"$ref": "pool"}]}}"#,
    );
    let container = Container::from_json_str(&json, &reg).unwrap();
    let rt = runtime();
    let (pools, repos) = rt.block_on(bounded(async {
        let mut tasks = Vec::new();
        for i in 0..1000 {
            let c = container.clone();
            tasks.push(tokio::spawn(async move {
                if i % 2 == 0 {
                    (Some(c.get_async::<Pool1>("pool").await.unwrap()), None)
                } else {
                    (None, Some(c.get_async::<Repo1>("repo").await.unwrap()))
                }
            }));
        }
        let mut pools = Vec::new();
        let mut repos = Vec::new();
        for t in tasks {
            let (p, r) = t.await.unwrap();
            pools.extend(p);
            repos.extend(r);
        }
        (pools, repos)
    }));
    assert_eq!(POOLS_MADE.load(Ordering::SeqCst), 1);
    assert_eq!(REPOS_MADE.load(Ordering::SeqCst), 1);
    assert_eq!((pools.len(), repos.len()), (500, 500));
    assert!(pools.iter().all(|p| Arc::ptr_eq(p, &pools[0])));
    assert!(repos.iter().all(|r| Arc::ptr_eq(r, &repos[0])));
    assert!(Arc::ptr_eq(&repos[0].pool, &pools[0]));
    assert_eq!(pools[0].url, "db://main");
    // Once created, the sync path returns the same singleton.
    assert!(Arc::ptr_eq(
        &container.get::<Pool1>("pool").unwrap(),
        &pools[0]
    ));
}

// ---------------------------------------------------------------------------------------
// failures: returned to the waiters, retried by the next request

static FLAKY_TRIES: AtomicUsize = AtomicUsize::new(0);

struct Flaky;

#[test]
fn a_failed_async_creation_reaches_the_waiters_and_the_next_request_retries() {
    let mut reg = Registry::new();
    reg.class::<Flaky>("App\\Flaky").async_constructor(|_| {
        Ok(Box::pin(async {
            let n = FLAKY_TRIES.fetch_add(1, Ordering::SeqCst);
            // Long enough (on a loaded machine too) that all 50 tasks wait for this attempt.
            tokio::time::sleep(Duration::from_millis(500)).await;
            if n == 0 {
                return Err("connection refused".into());
            }
            Ok(Flaky)
        }))
    });
    let json = plan(
        r#""flaky": {"type": "App\\Flaky", "requires_async": true,
                     "create": {"$new": "App\\Flaky", "args": []}}"#,
    );
    let container = Container::from_json_str(&json, &reg).unwrap();
    let rt = runtime();
    let errors: Vec<String> = rt.block_on(bounded(async {
        let tasks: Vec<_> = (0..50)
            .map(|_| {
                let c = container.clone();
                tokio::spawn(async move { c.get_async::<Flaky>("flaky").await.map(drop) })
            })
            .collect();
        let mut errors = Vec::new();
        for t in tasks {
            errors.push(t.await.unwrap().unwrap_err().to_string());
        }
        errors
    }));
    // One attempt, its failure returned to all 50 tasks.
    assert_eq!(FLAKY_TRIES.load(Ordering::SeqCst), 1);
    assert!(errors
        .iter()
        .all(|e| e.contains("cannot create service 'flaky'") && e.contains("connection refused")));
    assert!(errors
        .iter()
        .all(|e| e.contains("async constructor of App\\Flaky: connection refused")));
    assert_eq!(
        errors
            .iter()
            .filter(|e| e.contains("waited for another task's creation of it, which failed"))
            .count(),
        49,
        "all but the task that ran the constructor waited: {errors:?}"
    );
    // A waiter's message names the service once, then what failed.
    let waited = errors
        .iter()
        .find(|e| e.contains("waited for another task"))
        .unwrap();
    assert_eq!(
        waited.matches("cannot create service 'flaky'").count(),
        1,
        "{waited}"
    );
    assert!(
        waited.ends_with(
            "waited for another task's creation of it, which failed: async constructor of \
             App\\Flaky: connection refused"
        ),
        "{waited}"
    );
    // The next request tries again and succeeds.
    rt.block_on(bounded(container.get_async::<Flaky>("flaky")))
        .unwrap();
    assert_eq!(FLAKY_TRIES.load(Ordering::SeqCst), 2);
    assert!(container.is_created("flaky"));
}

// ---------------------------------------------------------------------------------------
// sync get of an async path; async and sync depending on each other

#[derive(Debug)]
struct Config3 {
    url: String,
}
#[derive(Debug)]
struct Pool3 {
    url: String,
}
#[derive(Debug)]
struct Repo3 {
    pool: Arc<Pool3>,
}
#[derive(Debug)]
struct App3 {
    repo: Arc<Repo3>,
    config: Arc<Config3>,
}

fn registry3() -> Registry {
    let mut reg = Registry::new();
    register!(reg, "App\\Config" => Config3 {
        new(url: String) { Config3 { url } }
    });
    register!(reg, "App\\Pool" => Pool3 {
        async new(config: Arc<Config3>) {
            tokio::task::yield_now().await;
            Pool3 { url: config.url.clone() }
        }
    });
    register!(reg, "App\\Repo" => Repo3 {
        new(pool: Arc<Pool3>) { Repo3 { pool } }
    });
    register!(reg, "App\\App" => App3 {
        new(repo: Arc<Repo3>, config: Arc<Config3>) { App3 { repo, config } }
    });
    reg
}

const PLAN3: &str = r#""config": {"type": "App\\Config",
                "create": {"$new": "App\\Config", "args": ["db://x"]}},
    "pool": {"type": "App\\Pool", "requires_async": true,
             "create": {"$new": "App\\Pool", "args": [{"$ref": "config"}]}},
    "repo": {"type": "App\\Repo", "requires_async": true,
             "create": {"$new": "App\\Repo", "args": [{"$ref": "pool"}]}},
    "app": {"type": "App\\App", "requires_async": true,
            "create": {"$new": "App\\App", "args": [{"$ref": "repo"}, {"$ref": "config"}]}}"#;

#[test]
fn a_sync_get_of_an_async_path_is_an_error_naming_the_path() {
    let container = Container::from_json_str(&plan(PLAN3), &registry3()).unwrap();
    let err = container.get::<App3>("app").unwrap_err();
    match &err {
        Error::AsyncRequired { path, .. } => assert_eq!(path, &["app", "repo", "pool"]),
        other => panic!("expected AsyncRequired, got {other}"),
    }
    assert_eq!(
        err.to_string(),
        "service 'app' needs async creation: app -> repo -> pool reaches an async \
         constructor; use get_async (or create it with get_async first)"
    );
    // Nothing was created on the way, not even the sync dependency of the async one.
    assert!(!container.is_created("config"));
    assert!(!container.is_created("pool"));
    // Sync services stay reachable the sync way.
    assert_eq!(container.get::<Config3>("config").unwrap().url, "db://x");
    // A sync warm-up leaves the async services to warm_up_async.
    assert_eq!(container.warm_up().unwrap(), 0);
    assert!(!container.is_created("pool"));
    let made = runtime()
        .block_on(bounded(container.warm_up_async()))
        .unwrap();
    assert_eq!(made, 3);
    assert!(container.is_created("app"));
}

#[test]
fn async_depends_on_sync_and_sync_on_async_through_get_async() {
    let container = Container::from_json_str(&plan(PLAN3), &registry3()).unwrap();
    let rt = runtime();
    let app = rt
        .block_on(bounded(container.get_async::<App3>("app")))
        .unwrap();
    assert_eq!(app.repo.pool.url, "db://x");
    let config = container.get::<Config3>("config").unwrap();
    assert!(Arc::ptr_eq(&app.config, &config));
    // Sync services are reachable from async code too.
    let again = rt
        .block_on(bounded(container.get_async::<Config3>("config")))
        .unwrap();
    assert!(Arc::ptr_eq(&again, &config));
    // The created singletons are returned by the sync path as well.
    assert!(Arc::ptr_eq(
        &container.get::<Pool3>("pool").unwrap(),
        &app.repo.pool
    ));
}

// ---------------------------------------------------------------------------------------
// scoped and transient async services, by type

static CONNS_MADE: AtomicUsize = AtomicUsize::new(0);

#[derive(Debug)]
struct Conn4 {
    id: usize,
}
struct Handler4 {
    a: Arc<Conn4>,
    b: Arc<Conn4>,
}
#[derive(Debug)]
struct Session4 {
    conn: Arc<Conn4>,
}

#[test]
fn scoped_and_transient_async_services() {
    let mut reg = Registry::new();
    register!(reg, "App\\Conn" => Conn4 {
        async new() {
            tokio::task::yield_now().await;
            Conn4 { id: CONNS_MADE.fetch_add(1, Ordering::SeqCst) }
        }
    });
    register!(reg, "App\\Handler" => Handler4 {
        new(a: Arc<Conn4>, b: Arc<Conn4>) { Handler4 { a, b } }
    });
    register!(reg, "App\\Session" => Session4 {
        new(conn: Arc<Conn4>) { Session4 { conn } }
    });
    let json = r#"{"format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0",
            "services": {
              "conn": {"type": "App\\Conn", "lifespan": "transient", "requires_async": true,
                        "create": {"$new": "App\\Conn", "args": []}},
              "handler": {"type": "App\\Handler", "lifespan": "transient", "requires_async": true,
                        "create": {"$new": "App\\Handler",
                                    "args": [{"$ref": "conn"}, {"$ref": "conn"}]}},
              "session": {"type": "App\\Session", "lifespan": "scoped", "requires_async": true,
                        "create": {"$new": "App\\Session", "args": [{"$ref": "conn"}]}}},
            "types": {"App\\Session": ["session"], "App\\Handler": ["handler"]}}"#;
    let container = Container::from_json_str(json, &reg).unwrap();
    let rt = runtime();
    rt.block_on(bounded(async {
        // A transient with two references to an async transient gets two new objects.
        let h = container.get_by_type_async::<Handler4>().await.unwrap();
        assert_ne!(h.a.id, h.b.id);
        let h2 = container.get_async::<Handler4>("handler").await.unwrap();
        assert!(!Arc::ptr_eq(&h.a, &h2.a));
        assert_eq!(CONNS_MADE.load(Ordering::SeqCst), 4);

        // Scoped: one per scope, none from the container.
        let err = container
            .get_async::<Session4>("session")
            .await
            .unwrap_err();
        assert!(matches!(&err, Error::ScopeRequired { path, .. } if path == &["session"]));
        let s1 = container.scope();
        let s2 = container.scope();
        let a = s1.get_by_type_async::<Session4>().await.unwrap();
        let b = s1.get_async::<Session4>("session").await.unwrap();
        let c = s2.get_async::<Session4>("session").await.unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_ne!(a.conn.id, c.conn.id);
        // Created in the scope, the sync path of that scope returns it too.
        assert!(Arc::ptr_eq(&s1.get::<Session4>("session").unwrap(), &a));
        assert!(matches!(
            container.scope().get::<Session4>("session"),
            Err(Error::AsyncRequired { .. })
        ));
    }));
}

// ---------------------------------------------------------------------------------------
// plans whose flags disagree with the registry

struct Pool5;

#[test]
fn a_plan_that_does_not_mark_an_async_constructor_is_refused_at_load() {
    let mut reg = Registry::new();
    register!(reg, "App\\Pool" => Pool5 { async new() { Pool5 } });
    let json =
        plan(r#""pool": {"type": "App\\Pool", "create": {"$new": "App\\Pool", "args": []}}"#);
    let err = Container::from_json_str(&json, &reg)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("service 'pool': App\\Pool has an async constructor but the service is not marked requires_async"),
        "{err}"
    );
    assert!(
        reg.catalog().contains("\tApp\\Pool:\n\t\tasync: true\n"),
        "{}",
        reg.catalog()
    );
}

/// A flag removed from a service in the middle of an async path (a hand-edited plan) is
/// reported at that service only: the marked service above it, which needs it, is not also
/// said to need nothing async (found by a new user's trial).
#[test]
fn a_flag_missing_in_the_middle_of_a_path_is_reported_once() {
    let edited = PLAN3.replacen(
        r#""repo": {"type": "App\\Repo", "requires_async": true,"#,
        r#""repo": {"type": "App\\Repo","#,
        1,
    );
    assert_ne!(edited, PLAN3);
    let err = Container::from_json_str(&plan(&edited), &registry3())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "service 'repo' needs 'pool', which requires async, but is not marked requires_async itself"
        ),
        "{err}"
    );
    assert!(!err.contains("service 'app' is marked"), "{err}");
}

/// The other way round: a plan that marks a service `requires_async` whose class's constructor
/// is sync in the registry (made sync since the plan was compiled) is refused at load, instead
/// of every `get` asking for `get_async` (a new user's trial).
#[test]
fn a_plan_that_marks_a_sync_constructor_async_is_refused_at_load() {
    let mut reg = Registry::new();
    register!(reg, "App\\Pool" => Pool5 { new() { Pool5 } });
    let json = plan(
        r#""pool": {"type": "App\\Pool", "create": {"$new": "App\\Pool", "args": []},
                    "requires_async": true}"#,
    );
    let err = Container::from_json_str(&json, &reg)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "service 'pool' is marked requires_async, but App\\Pool has a sync constructor and \
             nothing else it needs is async: the plan was compiled for another registry, or \
             edited since (a reference changed, say); recompile it with the registry's catalog"
        ),
        "{err}"
    );
    // Marked because it needs an async service: accepted.
    let mut reg = Registry::new();
    register!(reg, "App\\Pool" => Pool5 { async new() { Pool5 } });
    reg.class::<Pool5b>("App\\User").constructor(|a| {
        a.service::<Pool5>(0)?;
        Ok(Pool5b)
    });
    let json = plan(
        r#""pool": {"type": "App\\Pool", "create": {"$new": "App\\Pool", "args": []},
                    "requires_async": true},
           "user": {"type": "App\\User",
                    "create": {"$new": "App\\User", "args": [{"$ref": "pool"}]},
                    "requires_async": true}"#,
    );
    if let Err(e) = Container::from_json_str(&json, &reg) {
        panic!("{e}");
    }
}

struct Pool5b;

// ---------------------------------------------------------------------------------------
// providers

trait Clock6: Send + Sync {
    fn now(&self) -> i64;
}
struct FixedClock6;
impl Clock6 for FixedClock6 {
    fn now(&self) -> i64 {
        42
    }
}
#[derive(Debug)]
struct Request6;
struct Report6 {
    clock: Provider<dyn Clock6>,
    request: Provider<Request6>,
}
struct Job6 {
    _request: Provider<Request6>,
}

fn registry6() -> Registry {
    let mut reg = Registry::new();
    register!(reg, "App\\FixedClock" => FixedClock6 {
        new() { FixedClock6 }
        implements "App\\Clock" => dyn Clock6;
    });
    register!(reg, "App\\Request" => Request6 { new() { Request6 } });
    register!(reg, "App\\Report" => Report6 {
        new(clock: Provider<dyn Clock6>, request: Provider<Request6>) { Report6 { clock, request } }
    });
    register!(reg, "App\\Job" => Job6 {
        new(request: Provider<Request6>) { Job6 { _request: request } }
    });
    reg
}

const PLAN6: &str = r#""clock": {"type": "App\\FixedClock",
             "create": {"$new": "App\\FixedClock", "args": []}},
    "request": {"type": "App\\Request", "lifespan": "scoped",
             "create": {"$new": "App\\Request", "args": []}},
    "report": {"type": "App\\Report", "lifespan": "scoped",
             "create": {"$new": "App\\Report",
                        "args": [{"$provider": "clock"}, {"$provider": "request"}]}}"#;

/// A singleton holding a provider of the scoped `request` (the compiler refuses it as a
/// captive dependency: the provider is made outside any scope).
const JOB6: &str = r#",
    "job": {"type": "App\\Job",
             "create": {"$new": "App\\Job", "args": [{"$provider": "request"}]}}"#;

#[test]
fn a_provider_resolves_later_in_the_scope_it_was_made_in() {
    let reg = registry6();
    assert!(
        reg.catalog().contains("request: 'Provider<App\\Request>'"),
        "{}",
        reg.catalog()
    );
    let container = Container::from_json_str(&plan(PLAN6), &reg).unwrap();
    let scope = container.scope();
    let report = scope.get::<Report6>("report").unwrap();
    // Nothing behind the handles is created until asked.
    assert!(!container.is_created("clock"));
    assert!(!scope.is_created("request"));
    assert_eq!(report.clock.get().unwrap().now(), 42);
    assert_eq!(report.clock.service(), "clock");
    assert!(container.is_created("clock"));
    // In the scope it was made in: the scope's own instance.
    let req = report.request.get().unwrap();
    assert!(Arc::ptr_eq(
        &req,
        &scope.get::<Request6>("request").unwrap()
    ));
    let other = container.scope();
    assert!(!Arc::ptr_eq(
        &req,
        &other.get::<Request6>("request").unwrap()
    ));
    // The async way resolves the same.
    let rt = runtime();
    let via_async = rt.block_on(bounded(report.request.get_async())).unwrap();
    assert!(Arc::ptr_eq(&req, &via_async));

    // A singleton's provider is made outside any scope, where a scoped target cannot be
    // made: a plan with one is refused at load, as the compiler refuses to write it.
    let Err(err) = Container::from_json_str(&plan(&format!("{PLAN6}{JOB6}")), &reg) else {
        panic!("a singleton holding a provider of a scoped service loaded");
    };
    let err = err.to_string();
    assert!(
        err.contains(
            "services › job: the singleton holds scoped service 'request' (path: job -> \
             request), which lives only inside a scope (captive-dependency)"
        ),
        "{err}"
    );

    // The handle does not keep its scope alive.
    let provider = report.request.clone();
    drop(report);
    drop(scope);
    assert!(matches!(
        provider.get(),
        Err(Error::ContainerDropped { service }) if service == "request"
    ));
}

struct Left7 {
    right: Arc<Right7>,
}
struct Right7 {
    left: Provider<Left7>,
}

#[test]
fn a_provider_breaks_a_constructor_cycle() {
    let mut reg = Registry::new();
    register!(reg, "App\\Left" => Left7 { new(right: Arc<Right7>) { Left7 { right } } });
    register!(reg, "App\\Right" => Right7 { new(left: Provider<Left7>) { Right7 { left } } });
    let json = plan(
        r#""left": {"type": "App\\Left", "create": {"$new": "App\\Left", "args": [{"$ref": "right"}]}},
           "right": {"type": "App\\Right", "create": {"$new": "App\\Right", "args": [{"$provider": "left"}]}}"#,
    );
    let container = Container::from_json_str(&json, &reg).unwrap();
    let left = container.get::<Left7>("left").unwrap();
    let back = left.right.left.get().unwrap();
    assert!(Arc::ptr_eq(&left, &back));
    // Starting from the other end works the same.
    let container = Container::from_json_str(&json, &reg).unwrap();
    let right = container.get::<Right7>("right").unwrap();
    let left = right.left.get().unwrap();
    assert!(Arc::ptr_eq(&left.right, &right));
}

#[test]
fn a_provider_of_an_unknown_service_is_refused_at_load() {
    let mut reg = Registry::new();
    register!(reg, "App\\Right" => Right7 { new(left: Provider<Left7>) { Right7 { left } } });
    let json = plan(
        r#""right": {"type": "App\\Right", "create": {"$new": "App\\Right", "args": [{"$provider": "nope"}]}}"#,
    );
    let err = Container::from_json_str(&json, &reg)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("service 'right' (create): provider of unknown service 'nope'"),
        "{err}"
    );
}

#[test]
fn requires_async_and_providers_survive_the_binary_form() {
    use wireplan_runtime::plan::{Expr, Plan};
    let json = plan(
        r#""clock": {"type": "App\\Clock", "requires_async": true, "lifespan": "scoped",
                     "create": {"$new": "App\\Clock", "args": []}},
           "job": {"type": "App\\Job", "kind": "factory",
                   "create": {"$new": "App\\Job", "args": [{"$provider": "clock"}]}}"#,
    );
    let plan = Plan::from_json_str(&json, "p.json").unwrap();
    assert!(plan.services["clock"].requires_async);
    assert!(!plan.services["job"].requires_async);
    let again = Plan::from_bytes(&plan.to_binary(), "p.bin").unwrap();
    assert_eq!(again, plan);
    assert_eq!(
        again.services["job"].create,
        Expr::New {
            class: "App\\Job".into(),
            args: vec![Expr::Provider("clock".into())]
        }
    );
    let mut refs = Vec::new();
    again.services["job"]
        .create
        .for_each_ref(&mut |r| refs.push(r.to_string()));
    assert!(refs.is_empty(), "a provider is not a reference: {refs:?}");
}

static SCOPED_MADE: AtomicUsize = AtomicUsize::new(0);

struct Tenant9;

#[test]
fn an_async_scoped_service_is_created_once_per_scope_under_concurrent_tasks() {
    let mut reg = Registry::new();
    register!(reg, "App\\Tenant" => Tenant9 {
        async new() {
            SCOPED_MADE.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(20)).await;
            Tenant9
        }
    });
    let json = plan(
        r#""tenant": {"type": "App\\Tenant", "lifespan": "scoped", "requires_async": true,
                      "create": {"$new": "App\\Tenant", "args": []}}"#,
    );
    let container = Container::from_json_str(&json, &reg).unwrap();
    let rt = runtime();
    let (a, b) = rt.block_on(bounded(async {
        let (s1, s2) = (container.scope(), container.scope());
        let tasks: Vec<_> = (0..200)
            .map(|i| {
                let s = if i % 2 == 0 { s1.clone() } else { s2.clone() };
                tokio::spawn(async move { s.get_async::<Tenant9>("tenant").await.unwrap() })
            })
            .collect();
        let mut got = Vec::new();
        for t in tasks {
            got.push(t.await.unwrap());
        }
        let a: Vec<_> = got.iter().step_by(2).cloned().collect();
        let b: Vec<_> = got.iter().skip(1).step_by(2).cloned().collect();
        (a, b)
    }));
    assert_eq!(SCOPED_MADE.load(Ordering::SeqCst), 2, "one per scope");
    assert!(a.iter().all(|t| Arc::ptr_eq(t, &a[0])));
    assert!(b.iter().all(|t| Arc::ptr_eq(t, &b[0])));
    assert!(!Arc::ptr_eq(&a[0], &b[0]));
}

struct Link10 {
    _next: Option<Arc<Link10>>,
}
struct End10;

/// A chain `s0 -> s1 -> … -> s(n-1) -> end` whose last link has an async constructor, so
/// every link requires async.
fn chain_plan(n: usize) -> String {
    let mut services = Vec::new();
    for i in 0..n {
        let next = if i + 1 == n {
            "end".to_string()
        } else {
            format!("s{}", i + 1)
        };
        services.push(format!(
            r#""s{i}": {{"type": "App\\Link", "requires_async": true,
                "create": {{"$new": "App\\Link", "args": [{{"$ref": "{next}"}}]}}}}"#
        ));
    }
    services.push(
        r#""end": {"type": "App\\End", "requires_async": true,
                   "create": {"$new": "App\\End", "args": []}}"#
            .to_string(),
    );
    plan(&services.join(",\n"))
}

#[test]
fn a_deep_async_chain_resolves_on_a_worker_thread_and_too_deep_is_an_error() {
    let mut reg = Registry::new();
    reg.class::<Link10>("App\\Link").constructor(|a| {
        Ok(Link10 {
            _next: a.service::<Link10>(0).ok(),
        })
    });
    register!(reg, "App\\End" => End10 {
        async new() { tokio::task::yield_now().await; End10 }
    });
    let limit = wireplan_runtime::container::MAX_ASYNC_DEPTH;
    let rt = runtime();
    // The longest chain allowed: `limit` services deep in all (`end` included).
    let container = Container::from_json_str(&chain_plan(limit - 1), &reg).unwrap();
    let c = container.clone();
    rt.block_on(bounded(async move {
        tokio::spawn(async move { c.get_instance_async("s0").await.map(drop) })
            .await
            .unwrap()
    }))
    .unwrap();
    assert!(container.is_created("s0") && container.is_created("end"));
    // One more is TooDeep, naming the path.
    let container = Container::from_json_str(&chain_plan(limit), &reg).unwrap();
    let err = rt
        .block_on(bounded(container.get_instance_async("s0")))
        .unwrap_err();
    match err {
        Error::TooDeep { path, limit: l } => {
            assert_eq!(l, limit);
            assert_eq!(path.len(), limit + 1);
            assert_eq!(path.first().map(String::as_str), Some("s0"));
            assert_eq!(path.last().map(String::as_str), Some("end"));
        }
        other => panic!("expected TooDeep, got {other}"),
    }
}

struct Left8 {
    _right: Arc<Right8>,
}
struct Right8 {
    _left: Arc<Left8>,
}

/// A provider resolved inside the constructor of a transient that its target needs makes the
/// cycle again at run time (the compiler accepts it: the provider breaks the cycle of the
/// plan). It ends as a `circular-reference` error with the cycle's names, not as 128
/// `constructor-failed` messages nested in one another (a new user's trial: 12.5 KB of text).
#[test]
fn a_provider_resolved_in_a_transient_s_constructor_reports_the_cycle_once() {
    let mut reg = Registry::new();
    reg.class::<Left8>("App\\Left").constructor(|a| {
        let right = a.provider::<Right8>(0)?;
        Ok(Left8 {
            _right: right.get()?,
        })
    });
    register!(reg, "App\\Right" => Right8 { new(left: Arc<Left8>) { Right8 { _left: left } } });
    let json = plan(
        r#""left": {"type": "App\\Left", "lifespan": "transient",
                    "create": {"$new": "App\\Left", "args": [{"$provider": "right"}]}},
           "right": {"type": "App\\Right", "lifespan": "transient",
                     "create": {"$new": "App\\Right", "args": [{"$ref": "left"}]}}"#,
    );
    let container = Container::from_json_str(&json, &reg).unwrap();
    let Err(e) = container.get::<Left8>("left") else {
        panic!("a cycle")
    };
    assert_eq!(e.code(), "circular-reference", "{e}");
    assert!(
        matches!(&e, Error::CircularReference { path } if path.contains(&"left".to_string())
            && path.contains(&"right".to_string())),
        "{e:?}"
    );
    assert!(e.to_string().len() < 200, "{e}");

    // A singleton meets itself at once.
    let json = json.replace(
        r#""lifespan": "transient",
                    "create": {"$new": "App\\Left""#,
        r#""create": {"$new": "App\\Left""#,
    );
    assert!(
        !json.contains(r#""type": "App\\Left", "lifespan""#),
        "{json}"
    );
    let container = Container::from_json_str(&json, &reg).unwrap();
    let Err(e) = container.get::<Left8>("left") else {
        panic!("a cycle")
    };
    // (The provider's `get` starts a path of its own, so the cycle is named from there.)
    assert_eq!(e.to_string(), "circular reference: left -> left");
}

// ---------------------------------------------------------------------------------------
// a cycle through `Provider::get_async` inside an async constructor

#[allow(dead_code)]
struct X9 {
    y: Arc<Y9>,
}
#[allow(dead_code)]
struct Y9 {
    x: Arc<X9>,
}
static X9_MADE: AtomicUsize = AtomicUsize::new(0);

fn registry9() -> Registry {
    let mut reg = Registry::new();
    register!(reg, "App\\X" => X9 {
        async new(p: Provider<Y9>) {
            X9_MADE.fetch_add(1, Ordering::SeqCst);
            X9 { y: p.get_async().await? }
        }
    });
    register!(reg, "App\\Y" => Y9 { new(x: Arc<X9>) { Y9 { x } } });
    reg
}

/// `x`'s async constructor awaits a provider of `y`, which needs `x`: the request inside the
/// constructor is nested in `x`'s creation, so the cycle is a `circular-reference` error at
/// once for every lifespan, as the sync path reports it. (A new user's trial: singletons and
/// scoped services waited for their own gate forever, transients made new objects until the
/// process ran out of memory.)
#[test]
fn a_cycle_through_a_provider_awaited_in_an_async_constructor_is_reported() {
    let reg = registry9();
    let rt = runtime();
    for lifespan in ["singleton", "scoped", "transient"] {
        let json = plan(&format!(
            r#""x": {{"type": "App\\X", "lifespan": "{lifespan}", "requires_async": true,
                     "create": {{"$new": "App\\X", "args": [{{"$provider": "y"}}]}}}},
               "y": {{"type": "App\\Y", "lifespan": "{lifespan}", "requires_async": true,
                     "create": {{"$new": "App\\Y", "args": [{{"$ref": "x"}}]}}}}"#
        ));
        let container = Container::from_json_str(&json, &reg).unwrap();
        let before = X9_MADE.load(Ordering::SeqCst);
        let e = rt.block_on(bounded(async {
            match lifespan {
                "scoped" => container.scope().get_async::<X9>("x").await.err(),
                _ => container.get_async::<X9>("x").await.err(),
            }
        }));
        let e = e.expect("a cycle, not an object");
        assert_eq!(e.code(), "circular-reference", "{lifespan}: {e}");
        assert!(e.to_string().contains("x -> y -> x"), "{lifespan}: {e}");
        // The constructor ran once: the nested request stopped at `x`, made no second one.
        assert_eq!(X9_MADE.load(Ordering::SeqCst) - before, 1, "{lifespan}");
    }
}

// ---------------------------------------------------------------------------------------
// a generated factory whose product has an async constructor

static FACTORY_CONNS_MADE: AtomicUsize = AtomicUsize::new(0);

struct Conn10 {
    dsn: String,
    pool: Arc<Pool3>,
}

fn registry10() -> Registry {
    let mut reg = registry3();
    reg.class::<Conn10>("App\\Conn").async_constructor(|a| {
        let dsn = a.str(0)?.to_string();
        let pool: Arc<Pool3> = a.service(1)?;
        Ok(Box::pin(async move {
            tokio::task::yield_now().await;
            FACTORY_CONNS_MADE.fetch_add(1, Ordering::SeqCst);
            Ok(Conn10 { dsn, pool })
        }))
    });
    reg
}

/// A factory's `create()` of a product whose constructor is async is `AsyncRequired` with
/// the factory's advice; `create_async` awaits it (and the async singleton it needs, once),
/// a new product per call, with the arguments' checks of `create`.
#[test]
fn a_factory_creates_a_product_with_an_async_constructor_through_create_async() {
    let json = plan(&format!(
        r#"{PLAN3},
        "conns": {{"kind": "factory", "type": "App\\ConnFactory",
                   "implement": "App\\ConnFactory", "parameters": ["dsn"],
                   "create": {{"$new": "App\\Conn", "args": [{{"$arg": "dsn"}}, {{"$ref": "pool"}}]}}}}"#
    ));
    let container = Container::from_json_str(&json, &registry10()).unwrap();
    let factory = container.get::<wireplan_runtime::Factory>("conns").unwrap();
    let dsn = |s: &str| [("dsn", wireplan_runtime::Value::Str(s.into()))];

    let Err(err) = factory.create::<Conn10>(&dsn("a")) else {
        panic!("a sync create of an async product succeeded")
    };
    match &err {
        Error::AsyncRequired { path, factory, .. } => {
            assert_eq!(path, &["conns"]);
            assert!(*factory);
        }
        other => panic!("expected AsyncRequired, got {other}"),
    }
    assert_eq!(
        err.to_string(),
        "service 'conns' needs async creation: the product of the factory has an async \
         constructor; use the factory's create_async"
    );
    assert_eq!(FACTORY_CONNS_MADE.load(Ordering::SeqCst), 0);

    let rt = runtime();
    // A parameter not passed is refused before anything is made (the pool's constructor
    // would have run first: a new user's trial).
    let missing = rt.block_on(bounded(factory.create_async::<Conn10>(&[])));
    match &missing {
        Err(Error::BadArguments { reason, .. }) => assert_eq!(
            reason,
            "create(): parameter 'dsn' was not passed, and the plan gives no default for it"
        ),
        Err(other) => panic!("expected BadArguments, got {other}"),
        Ok(_) => panic!("made without its argument"),
    }
    assert!(!container.is_created("pool"));
    assert_eq!(FACTORY_CONNS_MADE.load(Ordering::SeqCst), 0);
    let (a, b) = rt.block_on(bounded(async {
        let a = factory
            .create_async::<Conn10>(&dsn("db://a"))
            .await
            .unwrap();
        let b = factory
            .create_async::<Conn10>(&dsn("db://b"))
            .await
            .unwrap();
        (a, b)
    }));
    assert_eq!((a.dsn.as_str(), b.dsn.as_str()), ("db://a", "db://b"));
    assert_eq!(FACTORY_CONNS_MADE.load(Ordering::SeqCst), 2);
    // The future owns its arguments: spawned, and joined with temporary arguments.
    let (c, d) = rt.block_on(bounded(async {
        let spawned = tokio::spawn(factory.create_async::<Conn10>(&dsn("db://c")));
        let (d, _) = tokio::join!(
            factory
                .create_async::<Conn10>(&[("dsn", wireplan_runtime::Value::Str("db://d".into()))]),
            async {}
        );
        (spawned.await.expect("the task ran").unwrap(), d.unwrap())
    }));
    assert_eq!((c.dsn.as_str(), d.dsn.as_str()), ("db://c", "db://d"));
    assert_eq!(FACTORY_CONNS_MADE.load(Ordering::SeqCst), 4);
    // Positionally, as `create_positional`; one argument too many is refused.
    let e = rt
        .block_on(bounded(factory.create_positional_async::<Conn10>(vec![
            wireplan_runtime::Value::Str("db://e".into()),
        ])))
        .unwrap();
    assert_eq!(e.dsn, "db://e");
    let two = rt.block_on(bounded(factory.create_positional_async::<Conn10>(vec![
        wireplan_runtime::Value::Str("x".into()),
        wireplan_runtime::Value::Str("y".into()),
    ])));
    assert!(
        matches!(&two, Err(Error::BadArguments { reason, .. }) if reason == "2 arguments given, create() takes 1"),
        "{}",
        two.err().map(|e| e.to_string()).unwrap_or_default()
    );
    assert_eq!(FACTORY_CONNS_MADE.load(Ordering::SeqCst), 5);
    // The singleton pool was made once and is shared; the pool's own sync dependency came
    // from the plan.
    assert!(Arc::ptr_eq(&a.pool, &b.pool));
    assert_eq!(a.pool.url, "db://x");
    assert!(container.is_created("pool"));

    // The argument checks of `create` hold for `create_async` too.
    let bad = rt.block_on(bounded(
        factory.create_async::<Conn10>(&[("url", wireplan_runtime::Value::Str("x".into()))]),
    ));
    assert!(
        matches!(&bad, Err(Error::BadArguments { reason, .. }) if reason.contains("unknown argument(s) url")),
        "{}",
        bad.err().map(|e| e.to_string()).unwrap_or_default()
    );
    assert_eq!(FACTORY_CONNS_MADE.load(Ordering::SeqCst), 5);
}
