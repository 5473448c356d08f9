//! `#[constructor] async fn` in `#[class]`: the same registration as `register!`'s `async new`
//! (the catalog marks the class `async: true`), created through `get_async` on tokio, with a
//! failing async constructor reported like any constructor failure.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use wireplan_runtime::{register, Container, Error, Registry};

/// The URLs [`Pool::connect`] connected to in this test binary (each test uses its own URL,
/// so the tests may run in parallel).
static CONNECTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn connects_to(url: &str) -> usize {
    let connects = CONNECTS.lock().unwrap_or_else(|p| p.into_inner());
    connects.iter().filter(|u| *u == url).count()
}

pub struct Pool {
    pub url: String,
}

#[wireplan_runtime::class("App\\Pool")]
impl Pool {
    #[constructor]
    pub async fn connect(url: String) -> Self {
        // Long enough that concurrent tasks ask while the first creation is in flight.
        tokio::time::sleep(Duration::from_millis(30)).await;
        let mut connects = CONNECTS.lock().unwrap_or_else(|p| p.into_inner());
        connects.push(url.clone());
        Pool { url }
    }
}

pub struct Client {
    pub pool: Arc<Pool>,
    pub retries: i64,
}

#[wireplan_runtime::class("App\\Client")]
impl Client {
    #[constructor]
    pub async fn new(pool: Arc<Pool>, #[default(3)] retries: i64) -> Result<Self, String> {
        tokio::task::yield_now().await;
        if retries < 0 {
            return Err(format!("retries must not be negative, got {retries}"));
        }
        Ok(Client { pool, retries })
    }
}

fn derived() -> Registry {
    let mut r = Registry::new();
    r.register::<Pool>().register::<Client>();
    r
}

fn manual() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Pool" => Pool {
        async new(url: String) { Pool::connect(url).await }
    });
    r.class::<Client>("App\\Client")
        .signature(vec![
            wireplan_runtime::catalog::Param::of::<Arc<Pool>>("pool"),
            wireplan_runtime::catalog::Param::of::<i64>("retries").with_default(|| 3.into()),
        ])
        .async_constructor(|a| {
            let (pool, retries) = (a.service::<Pool>(0)?, a.int(1)?);
            Ok(Box::pin(
                async move { Ok(Client::new(pool, retries).await?) },
            ))
        });
    r
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("tokio runtime")
}

fn container(url: &str, retries: i64) -> Container {
    let json = format!(
        r#"{{"format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0",
            "services": {{
              "pool": {{"type": "App\\Pool", "requires_async": true,
                        "create": {{"$new": "App\\Pool", "args": ["{url}"]}}}},
              "client": {{"type": "App\\Client", "requires_async": true,
                          "create": {{"$new": "App\\Client", "args": [{{"$ref": "pool"}}, {retries}]}}}}}}}}"#
    );
    Container::from_json_str(&json, &derived())
        .expect("the plan loads against the derived registry")
}

#[test]
fn a_derived_async_constructor_is_in_the_catalog_as_register_makes_it() {
    let catalog = derived().catalog();
    assert_eq!(catalog, manual().catalog());
    assert!(
        catalog.contains("\tApp\\Pool:\n\t\tasync: true\n\t\tconstructor:\n\t\t\turl: string\n"),
        "{catalog}"
    );
    assert!(
        catalog.contains(
            "\tApp\\Client:\n\t\tasync: true\n\t\tconstructor:\n\t\t\tpool: App\\Pool\n\t\t\tretries: {type: int, default: 3}\n"
        ),
        "{catalog}"
    );
}

#[test]
fn a_derived_async_class_is_created_once_through_get_async() {
    let c = container("db://main", 5);
    // The sync path refuses: the constructor is async.
    assert!(matches!(
        c.get::<Client>("client"),
        Err(Error::AsyncRequired { .. })
    ));
    let clients = runtime().block_on(async {
        let tasks: Vec<_> = (0..50)
            .map(|_| {
                let c = c.clone();
                tokio::spawn(async move { c.get_async::<Client>("client").await })
            })
            .collect();
        let mut clients = Vec::new();
        for t in tasks {
            let made = tokio::time::timeout(Duration::from_secs(30), t).await;
            clients.push(
                made.expect("created in time")
                    .expect("task")
                    .expect("created"),
            );
        }
        clients
    });
    assert_eq!(connects_to("db://main"), 1);
    assert!(clients.iter().all(|x| Arc::ptr_eq(x, &clients[0])));
    assert_eq!(clients[0].retries, 5);
    assert_eq!(clients[0].pool.url, "db://main");
    assert!(Arc::ptr_eq(
        &clients[0].pool,
        &c.get::<Pool>("pool").unwrap()
    ));
}

#[test]
fn a_failing_derived_async_constructor_is_a_constructor_error() {
    let c = container("db://other", -1);
    let e = runtime()
        .block_on(c.get_async::<Client>("client"))
        .err()
        .expect("a negative retry count fails");
    let text = e.to_string();
    assert!(
        matches!(e, Error::ConstructorFailed { .. }),
        "a constructor failure: {text}"
    );
    assert!(
        text.contains("retries must not be negative, got -1"),
        "the constructor's message: {text}"
    );
}

/// A wrong argument of an async constructor names its parameter, as a sync one does: both
/// the derive and `register!` declare the names. A value known only at start-up (a dynamic
/// parameter) is converted when the service is created; a literal in the plan that the
/// declared type refuses is a load problem already.
#[test]
fn a_wrong_argument_of_an_async_constructor_names_its_parameter() {
    let plan = |arg: &str| {
        format!(
            r#"{{"format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0",
            "services": {{"pool": {{"type": "App\\Pool", "requires_async": true,
                              "create": {{"$new": "App\\Pool", "args": [{arg}]}}}}}}}}"#
        )
    };
    for registry in [derived(), manual()] {
        let refused = Container::from_json_str(&plan("5"), &registry)
            .expect_err("a literal int for a String parameter");
        assert!(
            refused.to_string().contains(
                "service 'pool' (create): argument $url (index 0) of the constructor of \
                 App\\Pool is the int 5 in the plan, but the parameter takes string"
            ),
            "{refused}"
        );
        let c = Container::builder(&registry)
            .parameter("url", 5)
            .from_json_str(&plan(r#"{"$param": "url"}"#))
            .expect("the plan loads");
        let e = runtime()
            .block_on(c.get_async::<Pool>("pool"))
            .err()
            .expect("an int is no URL");
        assert_eq!(
            e.to_string(),
            "cannot create service 'pool' (path: pool): async constructor of App\\Pool: \
             argument $url (index 0): expected string, found int"
        );
    }
}
