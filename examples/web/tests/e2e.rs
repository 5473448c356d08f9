//! The web example end to end: its NEON config compiled by the wireplan compiler, the server
//! on 127.0.0.1 (an ephemeral port), real HTTP/1.1 requests over TCP with timeouts, and the
//! server shut down at the end of each test.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use serde_json::Value as Json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use wireplan_axum::Inject;
use wireplan_runtime::Container;

/// Every network step and the server's shutdown are bounded by this.
const TIMEOUT: Duration = Duration::from_secs(10);

fn container() -> Container {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/app.neon");
    let compiled = wireplan::compiler::compile(&config, &wireplan::compiler::Options::default());
    let plan = compiled.plan.unwrap_or_else(|| {
        panic!(
            "config/app.neon does not compile: {:?}",
            compiled.diagnostics.items()
        )
    });
    Container::from_plan(plan, &wireplan_example_web::registry()).expect("the plan loads")
}

/// A running server; [`Server::stop`] shuts it down and waits for it.
struct Server {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    async fn start(app: Router) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        Server { addr, stop, task }
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        let abort = self.task.abort_handle();
        match tokio::time::timeout(TIMEOUT, self.task).await {
            Ok(joined) => joined.expect("server task").expect("server ran"),
            Err(_) => {
                abort.abort();
                panic!("the server did not stop within {TIMEOUT:?}");
            }
        }
    }

    /// `GET path` with `headers` (raw lines): (status, body).
    async fn get(&self, path: &str, headers: &[&str]) -> (u16, String) {
        let exchange = async {
            let mut stream = TcpStream::connect(self.addr).await?;
            let mut request =
                format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
            for h in headers {
                request.push_str(h);
                request.push_str("\r\n");
            }
            request.push_str("\r\n");
            stream.write_all(request.as_bytes()).await?;
            let mut raw = Vec::new();
            stream.read_to_end(&mut raw).await?;
            Ok::<_, std::io::Error>(raw)
        };
        let raw = tokio::time::timeout(TIMEOUT, exchange)
            .await
            .expect("the request finished in time")
            .expect("the request succeeded");
        let text = String::from_utf8(raw).expect("a UTF-8 response");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status line");
        (status, body.to_string())
    }
}

fn json(body: &str) -> Json {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

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
    let unregistered = server.get("/unregistered", &["x-user: ada"]).await;
    let unlayered = server.get("/unlayered", &["x-user: ada"]).await;
    let still_fine = server.get("/hello", &["x-user: ada"]).await;
    server.stop().await;
    assert_eq!(bad_header, (400, "bad x-user header".to_string()));
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
