//! The example server binary as a user runs it: a plan whose request-scoped service cannot be
//! created answers 500, and the server writes the cause to stderr (no tracing subscriber is
//! installed). The server listens on 127.0.0.1 with an ephemeral port; every step is bounded
//! by a timeout and the server is stopped at the end.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(10);

/// The example's plan as JSON, with the `database` service's dsn argument made `5`.
fn broken_plan() -> String {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/app.neon");
    let compiled = wireplan::compiler::compile(&config, &wireplan::compiler::Options::default());
    let plan = compiled.plan.expect("config/app.neon compiles");
    let mut json: serde_json::Value = serde_json::from_str(&plan.to_json()).unwrap();
    let args = &mut json["services"]["database"]["create"]["args"];
    assert_eq!(args[0], "memory://greetings", "the plan's dsn argument");
    args[0] = serde_json::json!(5);
    json.to_string()
}

/// `GET /hello` from `addr`: the raw response.
fn get_hello(addr: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    stream.set_write_timeout(Some(TIMEOUT)).unwrap();
    stream
        .write_all(
            b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nx-user: ada\r\n\r\n",
        )
        .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("a response in time");
    raw
}

#[test]
fn a_500_writes_its_cause_to_stderr_without_a_subscriber() {
    let plan =
        std::env::temp_dir().join(format!("wireplan-web-broken-{}.json", std::process::id()));
    std::fs::write(&plan, broken_plan()).unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_wireplan-web"))
        .arg(&plan)
        .arg("127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    // Its first line says where it listens.
    let stdout = server.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(TIMEOUT);
    let response = line
        .as_ref()
        .ok()
        .and_then(|l| l.trim().strip_prefix("listening on http://"))
        .map(get_hello);
    // Stop it before any assertion, so a failure leaves no server behind.
    server.kill().expect("the server stops");
    let out = server.wait_with_output().expect("the server is reaped");
    std::fs::remove_file(&plan).ok();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let response = response.unwrap_or_else(|| panic!("no address: {line:?}; stderr: {stderr}"));
    assert!(response.starts_with("HTTP/1.1 500"), "{response}");
    assert!(response.ends_with("internal server error"), "{response}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with(
            "ERROR wireplan_axum: dependency injection: cannot inject \
             wireplan_example_web::Greeter: cannot create service 'database'"
        ),
        "{stderr}"
    );
    assert!(
        lines[0].ends_with("argument at index 0: expected string, found int"),
        "{stderr}"
    );
}
