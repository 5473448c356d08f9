//! Issue #13, problem 3: `-o` never destroys a file the compilation read, and a plan file is
//! either the old plan or the complete new one, however the writer dies.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn wireplan(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wireplan"));
    c.current_dir(dir).env("NO_COLOR", "1");
    c
}

const APP: &str =
    "extensions:\n\treader: reader.rhai\nservices:\n\tclock: App\\Clock\ntypes:\n\tApp\\Clock:\n";

/// A project whose extension reads `data.neon` (`loadFromFile`) or only registers it
/// (`addDependency`).
fn project(call: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("app.neon"), APP).unwrap();
    std::fs::write(dir.path().join("data.neon"), "answer: 42\n").unwrap();
    std::fs::write(
        dir.path().join("reader.rhai"),
        format!("fn loadConfiguration() {{ this.{call}(\"data.neon\"); }}\n"),
    )
    .unwrap();
    dir
}

/// Compiles with `-o out` and asserts it is refused naming data.neon, which stays as it was.
fn assert_refused(dir: &Path, out: &str) {
    let result = wireplan(dir)
        .args(["compile", "app.neon", "-o", out])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "-o {out}: {stderr}");
    assert!(
        stderr.contains("Refusing to write the plan over") && stderr.contains("data.neon"),
        "-o {out}: {stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("data.neon")).unwrap(),
        "answer: 42\n",
        "-o {out} changed data.neon"
    );
}

#[test]
fn output_over_a_file_an_extension_loaded_is_refused() {
    let dir = project("loadFromFile");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert_refused(dir.path(), "data.neon");
    assert_refused(dir.path(), "./sub/../data.neon");
}

#[test]
fn output_over_a_registered_dependency_is_refused() {
    let dir = project("addDependency");
    assert_refused(dir.path(), "data.neon");
}

#[cfg(unix)]
#[test]
fn output_through_a_symlink_or_hard_link_to_an_input_is_refused() {
    let dir = project("loadFromFile");
    std::os::unix::fs::symlink("data.neon", dir.path().join("link.neon")).unwrap();
    std::fs::hard_link(dir.path().join("data.neon"), dir.path().join("hard.neon")).unwrap();
    assert_refused(dir.path(), "link.neon");
    assert_refused(dir.path(), "hard.neon");
    // The configuration itself and the script stay protected.
    for input in ["app.neon", "reader.rhai"] {
        let before = std::fs::read(dir.path().join(input)).unwrap();
        let r = wireplan(dir.path())
            .args(["compile", "app.neon", "-o", input])
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(1));
        assert_eq!(std::fs::read(dir.path().join(input)).unwrap(), before);
    }
}

/// A `.neon` output that the compilation does not read is a configuration all the same: the
/// plan is not written over it (a slip such as `-o services.neon`).
#[test]
fn an_output_named_like_a_configuration_is_refused() {
    let dir = project("loadFromFile");
    std::fs::write(dir.path().join("other.neon"), "services:\n").unwrap();
    for out in ["other.neon", "new.NEON"] {
        let r = wireplan(dir.path())
            .args(["compile", "app.neon", "-o", out])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "error[io-error]: Refusing to write the plan to '{out}': a .neon file is a \
                 configuration, not a plan."
            )),
            "{stderr}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("other.neon")).unwrap(),
        "services:\n"
    );
    assert!(!dir.path().join("new.NEON").exists());
}

/// `-o -` with standard output redirected by the shell to an input (`>> app.neon`, `>
/// data.neon`) is refused like the path would be, and the input keeps its content; redirected
/// to another file, the plan is written there.
#[cfg(unix)]
#[test]
fn standard_output_redirected_to_an_input_is_refused() {
    let dir = project("loadFromFile");
    for (input, text) in [("app.neon", APP), ("data.neon", "answer: 42\n")] {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(input))
            .unwrap();
        let r = wireplan(dir.path())
            .args(["compile", "app.neon", "-o", "-"])
            .stdout(Stdio::from(file))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(1), "{input}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "Refusing to write the plan over '{input}', which this compilation reads."
            )) && stderr.contains("standard output goes to that file; send it elsewhere"),
            "{input}: {stderr}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(input)).unwrap(),
            text,
            "{input} changed"
        );
    }
    let file = std::fs::File::create(dir.path().join("plan.json")).unwrap();
    let r = wireplan(dir.path())
        .args(["compile", "app.neon", "-o", "-"])
        .stdout(Stdio::from(file))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("plan.json")).unwrap()).unwrap();
    assert!(plan["services"]["clock"].is_object());
    // Sent to /dev/null (or closed, which the Rust runtime makes /dev/null), the plan would be
    // reported as written: refused as `-o /dev/null` is (a new user's trial).
    let r = wireplan(dir.path())
        .args(["compile", "app.neon", "-o", "-"])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Refusing to write the plan to standard output, which goes to /dev/null")
            && stderr.contains("run `wireplan check CONFIG`"),
        "{stderr}"
    );
}

#[test]
fn an_unrelated_output_is_written() {
    let dir = project("loadFromFile");
    let r = wireplan(dir.path())
        .args(["compile", "app.neon", "-o", "app.plan.json"])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("app.plan.json")).unwrap()).unwrap();
    assert!(plan["services"]["clock"].is_object());
}

/// A configuration big enough that writing its plan takes a while (~5,000 services).
fn big_project(services: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut text = String::from("services:\n");
    for i in 0..services {
        text.push_str(&format!(
            "\ts{i}: App\\Node('service number {i} with a longer argument to make the plan bigger')\n"
        ));
    }
    text.push_str("types:\n\tApp\\Node:\n\t\tconstructor: {name: string}\n");
    std::fs::write(dir.path().join("app.neon"), text).unwrap();
    dir
}

/// Whether `bytes` is a complete plan with `services` services.
fn complete_plan(bytes: &[u8], services: usize) -> bool {
    wireplan_runtime::plan::Plan::from_bytes(bytes, "out")
        .is_ok_and(|p| p.services.len() == services)
}

/// A small deterministic generator, so a failing run can be repeated from its seed.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn a_compile_killed_while_writing_leaves_the_old_or_the_new_plan() {
    const N: usize = 5000;
    let dir = big_project(N);
    let old =
        br#"{"format": "wireplan-plan", "version": 1, "compiler": "old", "inputs_hash": "0"}"#;
    // How long one compile takes here, to spread the kills over all of it.
    let started = Instant::now();
    let ok = wireplan(dir.path())
        .args(["compile", "app.neon", "-o", "probe.plan.json"])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let span = started.elapsed().as_micros().max(1000) as u64;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {seed}, one compile takes {span} µs");
    let (mut old_seen, mut new_seen) = (0, 0);
    for round in 0..24 {
        let out = if round % 2 == 0 {
            "app.plan.json"
        } else {
            "app.plan.bin"
        };
        let path = dir.path().join(out);
        std::fs::write(&path, old).unwrap();
        let mut child = wireplan(dir.path())
            .args(["compile", "app.neon", "-o", out])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Anywhere from start-up to a little after the usual end.
        std::thread::sleep(Duration::from_micros(next(&mut seed) % (span + span / 4)));
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        if bytes == old {
            old_seen += 1;
        } else {
            assert!(
                complete_plan(&bytes, N),
                "round {round} (seed {seed}): {out} is neither the old nor a complete new plan ({} bytes)",
                bytes.len()
            );
            new_seen += 1;
        }
    }
    // Temporary files of killed writers may stay behind, but never under the plan's name.
    eprintln!("old plan {old_seen} times, new plan {new_seen} times");
}

#[test]
fn two_compiles_to_the_same_output_both_leave_a_valid_plan() {
    const N: usize = 2000;
    let dir = big_project(N);
    for encoding_out in ["app.plan.json", "app.plan.bin"] {
        let children: Vec<_> = (0..2)
            .map(|_| {
                wireplan(dir.path())
                    .args(["compile", "app.neon", "-o", encoding_out])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let bytes = std::fs::read(dir.path().join(encoding_out)).unwrap();
        assert!(
            complete_plan(&bytes, N),
            "{encoding_out} is not a complete plan"
        );
        let leftovers: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    }
}

/// A device, FIFO or directory at the output path is never replaced by the plan (as root,
/// `-o /dev/null` replaced the system's device with a plain file); a symlink is written
/// through, keeping the link; a read-only file is refused; a replaced file keeps its mode.
#[cfg(unix)]
#[test]
fn only_regular_files_are_replaced() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = project("addDependency");
    let compile = |out: &str| {
        let r = wireplan(dir.path())
            .args(["compile", "app.neon", "-o", out])
            .output()
            .expect("runs");
        (
            r.status.code(),
            String::from_utf8_lossy(&r.stderr).into_owned(),
        )
    };
    // A FIFO (creating a device node would need root): refused, still a FIFO.
    let made = Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let (code, stderr) = compile("pipe");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    let meta = std::fs::symlink_metadata(dir.path().join("pipe")).unwrap();
    assert!(meta.file_type().is_fifo());

    // `/dev/null` (a habit for "only check"): refused, naming the command that only checks.
    let (code, stderr) = compile("/dev/null");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("not a regular file")
            && stderr.contains(
                "to check a configuration without writing a plan, run `wireplan check CONFIG`"
            ),
        "{stderr}"
    );

    // A directory: refused, untouched.
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let (code, stderr) = compile("out");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("it is a directory"), "{stderr}");
    // With what to give instead (an operator's trial).
    assert!(
        stderr.contains("a plan needs a file name, such as out/app.plan.json"),
        "{stderr}"
    );
    assert!(dir.path().join("out").is_dir());

    // A symlink to a plan: the plan it points to is written, the link stays a link.
    // (An earlier plan: only a plan or an empty file is replaced.)
    let old = "{\"format\": \"wireplan-plan\"}\n";
    std::fs::write(dir.path().join("real.json"), old).unwrap();
    std::os::unix::fs::symlink("real.json", dir.path().join("link.json")).unwrap();
    let (code, stderr) = compile("link.json");
    assert_eq!(code, Some(0), "{stderr}");
    let link = std::fs::symlink_metadata(dir.path().join("link.json")).unwrap();
    assert!(link.file_type().is_symlink());
    let written = std::fs::read_to_string(dir.path().join("real.json")).unwrap();
    assert!(written.contains("\"wireplan-plan\""), "{written}");

    // A file with mode 0640 keeps it; a read-only one is refused and unchanged.
    let kept = dir.path().join("kept.json");
    std::fs::write(&kept, old).unwrap();
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert_eq!(compile("kept.json").0, Some(0));
    let mode = std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let locked = dir.path().join("locked.json");
    std::fs::write(&locked, old).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, stderr) = compile("locked.json");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("read-only"), "{stderr}");
    assert!(
        stderr.contains("write the plan elsewhere, or make the file writable first"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), old);
}

/// `-o /dev/stderr` (or `/dev/fd/2`, `/proc/self/fd/2`) is refused as a usage error: those are
/// links to whatever standard error is, and written through, the log a user collects the
/// messages in (`2>>build.log`) was replaced by the plan (new user's trial).
#[test]
fn an_output_to_standard_error_is_refused_and_its_file_kept() {
    let dir = project("addDependency");
    for out in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"] {
        let log = dir.path().join("build.log");
        std::fs::write(&log, "an earlier line\n").unwrap();
        let result = wireplan(dir.path())
            .args(["compile", "app.neon", "-o", out])
            .stderr(std::fs::OpenOptions::new().append(true).open(&log).unwrap())
            .output()
            .expect("runs");
        let logged = std::fs::read_to_string(&log).unwrap();
        assert_eq!(result.status.code(), Some(2), "-o {out}: {logged}");
        assert!(
            logged.starts_with("an earlier line\n"),
            "-o {out}: {logged}"
        );
        assert!(
            logged.contains("standard error carries wireplan's messages"),
            "-o {out}: {logged}"
        );
        assert!(!logged.contains("wireplan-plan"), "-o {out}: {logged}");
    }
}

/// A plan replaces only an earlier plan (JSON or binary) or an empty file (or one of white
/// space only): a slip such as
/// `-o catalog.json` or `-o src/main.rs` leaves the file as it was (found by a new user's
/// trial, who lost a catalog that way).
#[test]
fn output_over_a_file_that_is_not_a_plan_is_refused() {
    let dir = project("addDependency");
    let d = dir.path();
    let catalog = "{\n  \"format\": \"wireplan-catalog\",\n  \"version\": 1,\n  \"types\": {}\n}\n";
    std::fs::write(d.join("catalog.json"), catalog).unwrap();
    std::fs::write(d.join("main.rs"), "fn main() {}\n").unwrap();
    for (name, before) in [("catalog.json", catalog), ("main.rs", "fn main() {}\n")] {
        let result = wireplan(d)
            .args(["compile", "app.neon", "-o", name])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "-o {name}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "Refusing to write the plan over '{name}', which is not a wireplan plan."
            )) && stderr.contains("a plan replaces only an earlier plan or an empty file"),
            "-o {name}: {stderr}"
        );
        assert_eq!(std::fs::read_to_string(d.join(name)).unwrap(), before);
    }
    // An empty file, one of white space only (`echo > plan.bin`), then the plans written
    // there: each is replaced.
    std::fs::write(d.join("plan.json"), "").unwrap();
    std::fs::write(d.join("plan.bin"), " \n\t\n").unwrap();
    for out in ["plan.json", "plan.json", "plan.bin", "plan.bin"] {
        let result = wireplan(d)
            .args(["compile", "app.neon", "-o", out])
            .output()
            .expect("runs");
        assert!(
            result.status.success(),
            "-o {out}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
    }
    let json = std::fs::read_to_string(d.join("plan.json")).unwrap();
    assert!(
        json.starts_with("{\n  \"format\": \"wireplan-plan\""),
        "{json}"
    );
    assert!(std::fs::read(d.join("plan.bin"))
        .unwrap()
        .starts_with(b"WIREPLAN"));
}

/// What an extension may read does not grow with the folder wireplan runs in: run from `/`,
/// the project was the whole file system, and `loadFromFile("/etc/hostname")` was read (its
/// text quoted in the NEON error; found by a new user's trial). Without a project marker the
/// project is then the configuration's folder; with a `Cargo.toml` above it, that folder.
#[test]
fn the_project_of_a_script_is_not_the_file_system_root() {
    let dir = tempfile::tempdir().expect("temp dir");
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join("config")).unwrap();
    std::fs::write(proj.join("data.neon"), "extra:\n\tcreate: App\\Clock\n").unwrap();
    std::fs::write(
        proj.join("config/app.neon"),
        "extensions:\n\treader: reader.rhai\nservices:\n\tclock: App\\Clock\ntypes:\n\tApp\\Clock:\n",
    )
    .unwrap();
    let script = |call: &str| {
        std::fs::write(
            proj.join("config/reader.rhai"),
            format!("fn loadConfiguration() {{ this.loadFromFile(\"{call}\"); }}\n"),
        )
        .unwrap()
    };
    let check = |cwd: &Path| {
        let r = wireplan(cwd)
            .args(["check"])
            .arg(proj.join("config/app.neon"))
            .output()
            .expect("runs");
        (
            r.status.code(),
            String::from_utf8_lossy(&r.stderr).into_owned(),
        )
    };
    let root = Path::new("/");
    script("/etc/hostname");
    let (code, stderr) = check(root);
    assert_eq!(code, Some(1), "{stderr}");
    let config_dir = std::fs::canonicalize(proj.join("config")).unwrap();
    assert!(
        stderr.contains(&format!(
            "Access to '/etc/hostname' refused: extensions may only read files inside the project ({}).",
            config_dir.display()
        )) && stderr.contains("outermost folder above the configuration with a Cargo.toml or .git"),
        "{stderr}"
    );
    // Named relatively, as written.
    script("../data.neon");
    let (code, stderr) = check(root);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("Access to '../data.neon' refused"),
        "{stderr}"
    );
    // From the project's folder, or from anywhere once a Cargo.toml marks the project.
    let (code, stderr) = check(&proj);
    assert_eq!(code, Some(0), "{stderr}");
    std::fs::write(proj.join("Cargo.toml"), "").unwrap();
    let (code, stderr) = check(root);
    assert_eq!(code, Some(0), "{stderr}");
    // A workspace: the outermost marked folder is the project, run from there.
    std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
    std::fs::write(dir.path().join("shared.neon"), "x: 1\n").unwrap();
    script("../../shared.neon");
    let (code, stderr) = check(dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    std::fs::remove_file(dir.path().join("Cargo.toml")).unwrap();
    // The marked project is the limit, even run from a folder above it.
    script("../../outside.neon");
    std::fs::write(dir.path().join("outside.neon"), "x: 1\n").unwrap();
    let (code, stderr) = check(dir.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("Access to '../../outside.neon' refused")
            && stderr.contains(&std::fs::canonicalize(&proj).unwrap().display().to_string()),
        "{stderr}"
    );
}
