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

/// The memory ceiling while decoding NEON: a file whose value tree alone outgrows
/// `--max-memory` stops inside the decoder with a positioned `memory-limit` error (the check
/// after loading came only once the whole tree was built; a 27 MB list reached 2.66 GB first).
#[test]
fn a_list_past_the_ceiling_stops_while_decoding_at_a_position() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.neon");
    // 300,000 list items (2.1 MB of text, well over 16 MB as a value tree)
    let mut text = String::from("parameters:\n\tbig:\n");
    for i in 0..300_000 {
        text.push_str(&format!("\t\t- {}\n", i % 1000));
    }
    text.push_str("services:\n");
    std::fs::write(&config, &text).expect("config written");
    let out = dir.path().join("plan.json");

    let got = compile(dir.path(), &out, "16MB");
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("error[memory-limit]"), "stderr: {stderr}");
    assert!(stderr.contains("ceiling of 16 MB"), "stderr: {stderr}");
    assert!(
        stderr.contains("passed while decoding a NEON file"),
        "stderr: {stderr}"
    );
    assert!(stderr.contains("--max-memory"), "stderr: {stderr}");
    // positioned at an item of the list, past its first lines and before its end
    let line: usize = stderr
        .lines()
        .find_map(|l| {
            let at = l.find("config.neon:")? + "config.neon:".len();
            l[at..].split(':').next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no config.neon:LINE in {stderr}"));
    assert!((4..300_003).contains(&line), "line {line}: {stderr}");
    // the decoder's error is the only one: the pipeline's own check after reading the files
    // adds no second, unpositioned error for the same cause
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error[")).collect();
    assert_eq!(errors.len(), 1, "stderr: {stderr}");
    assert!(
        errors[0].contains("decoding a NEON file"),
        "stderr: {stderr}"
    );
    assert!(!out.exists(), "a plan was written despite the error");

    // the same file under a generous ceiling compiles
    let got = compile(dir.path(), &out, "4GB");
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(0), "stderr: {stderr}");
    assert!(out.exists());
}
