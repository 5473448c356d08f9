//! The web example end to end: its NEON config compiled by the wireplan compiler, the server
//! on 127.0.0.1 (an ephemeral port), real HTTP/1.1 requests over TCP with timeouts, and the
//! server shut down at the end of each test.

mod common;

use axum::routing::get;
use common::{container, json, Server};
use serde_json::Value as Json;
use wireplan_axum::Inject;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_see_their_own_slot_and_share_singletons() {
    let server = Server::start(wireplan_example_web::app(container()).unwrap()).await;
    // Both wait 300 ms inside the handler, so they are in flight at the same time.
    let (ada, bob) = tokio::join!(
        server.get("/whoami?wait=300", &["x-user: ada"]),
        server.get("/whoami?wait=300", &["x-user: bob"]),
    );
    let anonymous = server.get("/whoami", &[]).await;
    server.stop().await;

    let (ada, bob, anonymous) = (json(&ada.1), json(&bob.1), json(&anonymous.1));
    assert_eq!(
        (&ada["user"], &ada["user_after_wait"]),
        (&Json::from("ada"), &Json::from("ada"))
    );
    assert_eq!(
        (&bob["user"], &bob["user_after_wait"]),
        (&Json::from("bob"), &Json::from("bob"))
    );
    assert_eq!(anonymous["user"], "anonymous");
    // Each request's log holds only its own entry.
    assert_eq!(ada["log"], serde_json::json!(["ada: whoami"]));
    assert_eq!(bob["log"], serde_json::json!(["bob: whoami"]));
    // One database for all requests; one greeter per request, shared within it.
    assert_eq!(ada["db_instance"], bob["db_instance"]);
    assert_eq!(ada["db_instance"], anonymous["db_instance"]);
    assert_ne!(ada["greeter_instance"], bob["greeter_instance"]);
    assert_ne!(ada["greeter_instance"], anonymous["greeter_instance"]);
    assert_eq!(
        (&ada["same_greeter"], &bob["same_greeter"]),
        (&Json::Bool(true), &Json::Bool(true))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shared_database_counts_visits_across_requests() {
    let server = Server::start(wireplan_example_web::app(container()).unwrap()).await;
    let first = server.get("/hello", &["x-user: ada"]).await;
    let other = server.get("/hello", &["x-user: bob"]).await;
    let second = server.get("/hello", &["x-user: ada"]).await;
    server.stop().await;
    assert_eq!(first, (200, "hello, ada (visit #1)".to_string()));
    assert_eq!(other, (200, "hello, bob (visit #1)".to_string()));
    assert_eq!(second, (200, "hello, ada (visit #2)".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejections_are_http_errors_not_panics() {
    async fn unregistered(Inject(s): Inject<String>) -> String {
        s.to_string()
    }
    async fn greeter(Inject(g): Inject<wireplan_example_web::Greeter>) -> String {
        g.user.0.clone()
    }
    let c = container();
    let app = wireplan_example_web::routes()
        .route("/unregistered", get(unregistered))
        .layer(wireplan_example_web::layer(c.clone()).unwrap())
        // Added after the layer: these requests get no scope.
        .route("/unlayered", get(greeter));
    let server = Server::start(app).await;
    let bad_header = server.get("/hello", &["x-user: "]).await;
    let two_users = server.get("/hello", &["x-user: ada", "x-user: bob"]).await;
    let bad_wait = server.get("/whoami?wait=abc", &["x-user: ada"]).await;
    let unregistered = server.get("/unregistered", &["x-user: ada"]).await;
    let unlayered = server.get("/unlayered", &["x-user: ada"]).await;
    let still_fine = server.get("/hello", &["x-user: ada"]).await;
    server.stop().await;
    assert_eq!(bad_header, (400, "bad x-user header".to_string()));
    assert_eq!(
        two_users,
        (400, "x-user header given more than once".to_string())
    );
    assert_eq!(
        bad_wait,
        (
            400,
            "wait=abc: expected a whole number of milliseconds (0 to 5000)".to_string()
        )
    );
    assert_eq!(unregistered, (500, "internal server error".to_string()));
    assert_eq!(unlayered, (500, "internal server error".to_string()));
    assert_eq!(still_fine, (200, "hello, ada (visit #1)".to_string()));
}

#[test]
fn a_layer_for_a_type_without_a_slot_is_refused_when_built() {
    let e = wireplan_axum::WireplanLayer::new(container())
        .slot(|_: &axum::http::request::Parts| {
            Ok::<_, axum::http::StatusCode>(wireplan_example_web::Database::new("x"))
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "'App\\Database' is not a scope slot of the plan (declared slots: currentUser \
         (App\\CurrentUser))"
    );
}

/// A second filler for the same slot would fail every request (a scope takes each slot once):
/// refused when the layer is built (a new user's trial got a 500 on every request).
#[test]
fn a_second_filler_for_one_slot_is_refused_when_built() {
    let e = wireplan_example_web::layer(container())
        .expect("the example's layer")
        .slot(|_: &axum::http::request::Parts| {
            Ok::<_, axum::http::StatusCode>(wireplan_example_web::CurrentUser("ada".into()))
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "scope slot 'currentUser' cannot be provided: this layer already fills it (a scope \
         takes each slot once per request; give one filler per slot)"
    );
}

/// A handler that extracts only `Inject<T>` (not `RequestScope`) still has its request's scope
/// while it runs: axum drops the request's extensions before the handler's body runs, and the
/// scoped greeter was disposed while the handler used it (found by a new user's trial). The
/// scope ends with the response: the greeter is disposed once the response is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scope_lives_while_the_handler_runs_and_ends_with_the_response() {
    async fn held(Inject(g): Inject<wireplan_example_web::Greeter>) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        format!(
            "{} {}",
            g.instance,
            wireplan_example_web::greeter_disposed(g.instance)
        )
    }
    let c = container();
    let app = wireplan_example_web::routes()
        .route("/held", get(held))
        .layer(wireplan_example_web::layer(c).unwrap());
    let server = Server::start(app).await;
    let (status, body) = server.get("/held", &["x-user: ada"]).await;
    server.stop().await;
    assert_eq!(status, 200, "{body}");
    let (instance, during) = body.split_once(' ').expect("instance and flag");
    assert_eq!(during, "false", "disposed while the handler ran: {body}");
    let instance: u64 = instance.parse().expect("instance number");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !wireplan_example_web::greeter_disposed(instance) {
        assert!(
            std::time::Instant::now() < deadline,
            "greeter {instance} not disposed after its response"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
