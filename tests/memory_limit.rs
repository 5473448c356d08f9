//! The memory ceiling (`--max-memory`, `src/memory.rs`): a compilation whose heap grows past
//! it stops with `error[memory-limit]`, exit code 1 and no plan file; under a generous ceiling
//! the same input compiles.

#[path = "../benches/workload/mod.rs"]
mod workload;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `wireplan` with `args`, killing it if it runs longer than a generous bound.
fn run(args: &[&std::ffi::OsStr]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wireplan"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wireplan starts");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("wireplan did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn compile(dir: &Path, out: &Path, ceiling: &str) -> Output {
    run(&[
        "compile".as_ref(),
        dir.join("config.neon").as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--max-memory".as_ref(),
        ceiling.as_ref(),
    ])
}

#[test]
fn a_compilation_past_the_ceiling_stops_with_memory_limit_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    workload::generate(5000, dir.path()).expect("generate");
    let out = dir.path().join("app.plan.json");

    let small = compile(dir.path(), &out, "4MB");
    let stderr = String::from_utf8_lossy(&small.stderr);
    assert_eq!(small.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("error[memory-limit]"), "stderr: {stderr}");
    assert!(stderr.contains("ceiling of 4 MB"), "stderr: {stderr}");
    assert!(stderr.contains("--max-memory"), "stderr: {stderr}");
    assert!(!out.exists(), "a plan was written despite the error");

    let generous = compile(dir.path(), &out, "4GB");
    let stderr = String::from_utf8_lossy(&generous.stderr);
    assert_eq!(generous.status.code(), Some(0), "stderr: {stderr}");
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("plan written")).expect("JSON plan");
    assert_eq!(plan["services"].as_object().map(|s| s.len()), Some(5000));
}

#[test]
fn a_bad_size_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    workload::generate(10, dir.path()).expect("generate");
    let got = compile(dir.path(), &dir.path().join("x.json"), "lots");
    assert_eq!(got.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(stderr.contains("'lots' is not a size"), "stderr: {stderr}");
}
