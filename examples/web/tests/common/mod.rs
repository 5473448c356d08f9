//! What the web example's end-to-end tests share: the example's container compiled from its
//! NEON config, and a server on 127.0.0.1 (an ephemeral port) that real HTTP/1.1 requests go
//! to over TCP, every step bounded by [`TIMEOUT`].

#![allow(dead_code)] // each test binary uses part of it

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use axum::Router;
use serde_json::Value as Json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use wireplan_runtime::Container;

/// Every network step and the server's shutdown are bounded by this.
pub const TIMEOUT: Duration = Duration::from_secs(10);

pub fn container() -> Container {
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
pub struct Server {
    pub addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    pub async fn start(app: Router) -> Server {
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

    pub async fn stop(self) {
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
    pub async fn get(&self, path: &str, headers: &[&str]) -> (u16, String) {
        Server::get_at(self.addr, path, headers).await
    }

    /// `GET path` with `headers` from the server at `addr` (for spawned tasks).
    pub async fn get_at(addr: SocketAddr, path: &str, headers: &[&str]) -> (u16, String) {
        let exchange = async {
            let mut stream = TcpStream::connect(addr).await?;
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

pub fn json(body: &str) -> Json {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}
