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

/// Writes a project whose one extension runs `body` as its `loadConfiguration()`, with every
/// sandbox limit that bounds memory raised to the largest value, and compiles it under a
/// 64 MB ceiling: the ceiling must hold inside the script all the same.
fn compile_script_under_64mb(body: &str) -> (Output, std::path::PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("grow.rhai"),
        format!("fn loadConfiguration() {{ {body} }}\n"),
    )
    .expect("script written");
    std::fs::write(
        dir.path().join("config.neon"),
        "wireplan:\n\tsandbox:\n\t\tmaxAllocated: 9223372036854775807\n\
         \t\tmaxOperations: 9223372036854775807\n\t\ttimeLimit: 100000\n\
         \t\tmaxStringSize: 9223372036854775807\n\t\tmaxArraySize: 9223372036854775807\n\
         extensions:\n\tgrow: grow.rhai\ntypes:\n\tApp\\English: []\n",
    )
    .expect("config written");
    let out = dir.path().join("plan.json");
    let got = compile(dir.path(), &out, "64MB");
    (got, out, dir)
}

/// A script that keeps adding definitions, with the sandbox's allocation limit lifted, stops
/// once the compilation's heap passes `--max-memory`: one `memory-limit` error naming the
/// script, no plan (it used to run on until the operating system killed the process).
#[test]
fn a_script_that_grows_the_heap_stops_at_the_ceiling() {
    let (got, out, _dir) = compile_script_under_64mb(
        "let b = this.getContainerBuilder(); let i = 0; \
         loop { b.addDefinition(`s${i}`).setFactory(\"App\\\\English\"); i += 1; }",
    );
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(1), "stderr: {stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error[")).collect();
    assert_eq!(
        errors,
        ["error[memory-limit]: Extension 'grow': the compilation's heap passed its memory ceiling of 64 MB while the script ran in loadConfiguration()"],
        "stderr: {stderr}"
    );
    assert!(stderr.contains("--max-memory SIZE"), "stderr: {stderr}");
    assert!(!out.exists(), "a plan was written despite the error");
}

/// A value doubled in one operation (`s += s`) is bounded before the heap could pass the
/// ceiling many times over: under a ceiling no value may hold more than a sixteenth of it,
/// whatever `maxStringSize` says, and the note says which limit that was.
#[test]
fn a_doubling_string_stops_at_a_sixteenth_of_the_ceiling() {
    let (got, out, _dir) = compile_script_under_64mb("let s = \"x\"; loop { s += s; }");
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("error[script-error]"), "stderr: {stderr}");
    assert!(
        stderr.contains("exceeds 4194304 bytes of text, the most one value may hold under the memory ceiling of 64 MB"),
        "stderr: {stderr}"
    );
    assert!(!out.exists(), "a plan was written despite the error");
}

/// A large `types:` file the root includes is read beside the rest of the configuration
/// (docs/performance.md, "Thirty-fourth round"); when that read passes the ceiling, the
/// compilation starts over the usual way and stops where the file's decode passed it, at a
/// position in the file: not at its first check, with nothing to point at (a differential
/// trial found "0 file(s) read so far" there).
#[test]
fn a_types_file_past_the_ceiling_stops_at_a_position_in_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut types = String::from("types:\n");
    for i in 0..3000 {
        types.push_str(&format!(
            "\tApp\\C{i}:\n\t\timplements: [App\\I]\n\t\tconstructor:\n\t\t\tlimit: {{type: int, default: {i}}}\n\t\t\tname: {{type: string, default: 'c{i}'}}\n"
        ));
    }
    types.push_str("\tApp\\I: {interface: true}\n");
    std::fs::write(dir.path().join("types.neon"), types).expect("types written");
    std::fs::write(
        dir.path().join("config.neon"),
        "includes:\n\t- types.neon\nservices:\n\ta: App\\C1\n\tb: App\\C2\n",
    )
    .expect("config written");
    let out = dir.path().join("plan.json");
    let got = compile(dir.path(), &out, "2MB");
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("passed while decoding a NEON file"),
        "stderr: {stderr}"
    );
    assert!(stderr.contains("types.neon:"), "stderr: {stderr}");
    assert!(!stderr.contains("0 file(s) read"), "stderr: {stderr}");
    assert!(!out.exists());
    // With room, the same files compile.
    let got = compile(dir.path(), &out, "1GB");
    assert_eq!(
        got.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
}
