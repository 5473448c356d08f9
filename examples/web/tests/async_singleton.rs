//! The web example's async singleton end to end: many concurrent requests whose services need
//! the database (an async constructor that waits like a network round trip) all get the same
//! instance, and it connects exactly once. Its own test binary, so the process-wide
//! connection count is this test's alone.

mod common;

use std::collections::BTreeSet;

use common::{container, json, Server};
use serde_json::Value as Json;

/// Requests in flight at the same time, all asking for the not-yet-connected database.
const REQUESTS: usize = 32;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_async_database_connects_once_across_concurrent_requests() {
    let c = container();
    // The plan marks every service on the database's creation path as requiring async.
    let sync = c.scope().get::<wireplan_example_web::Greeter>("greeter");
    let sync = sync.expect_err("a sync get of an async path is an error");
    assert_eq!(sync.code(), "async-required");
    let text = sync.to_string();
    assert!(
        text.starts_with(
            "service 'greeter' needs async creation: greeter -> database reaches an async \
             constructor ('database', defined at "
        ) && text.ends_with(
            "examples/web/config/app.neon:30:12); use get_async (or create it with get_async \
             first)"
        ),
        "{text}"
    );
    assert_eq!(wireplan_example_web::connections(), 0);

    let server = Server::start(wireplan_example_web::app(c).unwrap()).await;
    let users: Vec<String> = (0..REQUESTS).map(|i| format!("user{i}")).collect();
    let headers: Vec<String> = users.iter().map(|u| format!("x-user: {u}")).collect();
    let responses = whoami_all(&server, &headers).await;
    server.stop().await;

    assert_eq!(wireplan_example_web::connections(), 1);
    let mut db_instances = BTreeSet::new();
    let mut greeters = BTreeSet::new();
    for (user, (status, body)) in users.iter().zip(&responses) {
        assert_eq!(*status, 200, "{user}: {body}");
        let body = json(body);
        assert_eq!(body["user"], Json::from(user.as_str()));
        db_instances.insert(body["db_instance"].as_u64().expect("a db instance number"));
        greeters.insert(body["greeter_instance"].as_u64().expect("a greeter number"));
    }
    assert_eq!(db_instances.len(), 1, "one database: {db_instances:?}");
    assert_eq!(
        greeters.len(),
        REQUESTS,
        "a greeter per request: {greeters:?}"
    );
}

/// `GET /whoami` once per header line, all at the same time; the responses in order.
async fn whoami_all(server: &Server, headers: &[String]) -> Vec<(u16, String)> {
    let mut set = tokio::task::JoinSet::new();
    let addr = server.addr;
    for (i, h) in headers.iter().enumerate() {
        let h = h.clone();
        set.spawn(async move { (i, Server::get_at(addr, "/whoami", &[h.as_str()]).await) });
    }
    let mut out = vec![(0, String::new()); headers.len()];
    while let Some(done) = set.join_next().await {
        let (i, response) = done.expect("a request task");
        out[i] = response;
    }
    out
}
