//! `wireplan compile --watch`: an edit gives a new plan; a broken file prints the error and
//! keeps the last good plan; the fix gives a new plan; Ctrl-C (SIGINT) ends it with exit 0.
//! A file still being written is compiled only once it holds still; every recompilation says
//! what changed; "kept" is said only of a plan this watch wrote; a plan file that is an input
//! stops the watch. Every wait is bounded, and the child is killed if the test fails half-way.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kills the watcher when the test ends early (a failed assertion).
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Sends the watcher `SIG{sig}` (`INT`, `TERM`) and waits at most 10 s for it to end.
fn signal_and_wait(guard: &mut Guard, sig: &str) -> std::process::ExitStatus {
    let pid = guard.0.id().to_string();
    let sent = Command::new("kill")
        .args([&format!("-{sig}"), &pid])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let start = Instant::now();
    loop {
        if let Some(status) = guard.0.try_wait().expect("wait") {
            return status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the watcher did not stop on SIG{sig}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A configuration with services `s0` … `s{n-1}`.
fn config(n: usize) -> String {
    let mut s = String::from("types:\n\tApp\\Clock:\nservices:\n");
    for i in 0..n {
        s.push_str(&format!("\ts{i}: App\\Clock\n"));
    }
    s
}

/// Replaces the file's content the way editors save: a new file renamed over the old one.
fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).expect("write");
    std::fs::rename(&tmp, path).expect("rename");
}

/// Polls `cond` every 20 ms for at most 30 s.
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The number of services in the plan at `path`, if it is a readable plan.
fn services(path: &Path) -> Option<usize> {
    wireplan_runtime::plan::Plan::read(path)
        .ok()
        .map(|p| p.services.len())
}

/// Options for an in-process watch of `conf` writing `dir/out.json`, debounced for 100 ms.
fn json_watch(conf: &Path, dir: &Path) -> wireplan::watch::WatchOptions {
    wireplan::watch::WatchOptions {
        config: conf.to_path_buf(),
        output: dir.join("out.json"),
        encoding: wireplan_runtime::Encoding::Json,
        options: Default::default(),
        debounce: Duration::from_millis(100),
    }
}

#[cfg(unix)]
#[test]
fn watch_recompiles_on_change_and_keeps_the_last_good_plan() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("app.neon");
    let plan = dir.path().join("app.plan.json");
    let log = dir.path().join("watch.log");
    save(&conf, &config(1));
    let child = Command::new(env!("CARGO_BIN_EXE_wireplan"))
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args(["compile", "app.neon", "-o", "app.plan.json", "--watch"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log file"))
        .spawn()
        .expect("wireplan starts");
    let mut guard = Guard(child);
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();

    wait_for("the first plan", || services(&plan) == Some(1));
    wait_for("the watcher to start", || {
        read_log().contains("watching 1 file(s)")
    });
    assert!(
        read_log().contains("compiled 1 service in "),
        "{}",
        read_log()
    );

    save(&conf, &config(2));
    wait_for("the plan of the edited file", || services(&plan) == Some(2));

    let good = std::fs::read(&plan).expect("plan");
    save(&conf, &format!("{}services: [\n", config(2)));
    wait_for("the error", || {
        read_log().contains("the last good plan app.plan.json is kept")
    });
    let text = read_log();
    assert!(text.contains("error[neon-syntax]"), "{text}");
    assert_eq!(
        std::fs::read(&plan).expect("plan"),
        good,
        "the good plan stays"
    );

    save(&conf, &config(3));
    wait_for("the plan of the fixed file", || services(&plan) == Some(3));
    // (The round reports after the plan is in place: see the emptied-configuration test.)
    wait_for("the round's report", || {
        read_log().contains("compiled 3 services in")
    });

    let status = signal_and_wait(&mut guard, "INT");
    assert_eq!(status.code(), Some(0), "{}", read_log());
}

/// A configuration emptied for a moment (an editor that truncates the file, then writes it)
/// compiles to no service; the watch keeps the plan with services it wrote instead of
/// replacing it with an empty one, says so, and writes again once services are back (found by
/// a new user's trial).
#[cfg(unix)]
#[test]
fn an_emptied_configuration_keeps_the_last_plan_with_services() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("app.neon");
    let plan = dir.path().join("app.plan.json");
    let log = dir.path().join("watch.log");
    save(&conf, &config(2));
    let mut guard = start_watch(
        dir.path(),
        &["compile", "app.neon", "-o", "app.plan.json", "--watch"],
    );
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
    wait_for("the first plan", || services(&plan) == Some(2));
    wait_for("the watcher to start", || {
        read_log().contains("watching 1 file(s)")
    });
    let good = std::fs::read(&plan).expect("plan");
    std::fs::write(&conf, "").expect("truncate");
    wait_for("the held-back plan", || {
        read_log().contains(
            "the configuration defines no service now; the last good plan app.plan.json is kept",
        )
    });
    assert!(
        read_log().contains("warning[empty-configuration]"),
        "{}",
        read_log()
    );
    assert_eq!(std::fs::read(&plan).expect("plan"), good, "the plan stays");
    save(&conf, &config(1));
    wait_for("the plan of the refilled file", || {
        services(&plan) == Some(1)
    });
    // The plan is renamed into place before the round reports it: an interrupt in between
    // ends a round that is still running (exit code 130; a CI run saw it), so the signal
    // waits for the report.
    wait_for("the round's report", || {
        read_log().contains("compiled 1 service in")
    });
    let status = signal_and_wait(&mut guard, "INT");
    assert_eq!(status.code(), Some(0), "{}", read_log());
}

/// `SIGTERM` (a service manager stopping the watch) ends it with exit code 143 and leaves the
/// last plan whole, with no temporary file beside it; `SIGQUIT` likewise with 131.
#[cfg(unix)]
#[test]
fn sigterm_ends_the_watch_with_143_and_no_temporary_file() {
    for (signal, code) in [("TERM", 143), ("QUIT", 131)] {
        let dir = tempfile::tempdir().expect("temp dir");
        let conf = dir.path().join("app.neon");
        let plan = dir.path().join("app.plan.json");
        save(&conf, &config(2));
        let child = Command::new(env!("CARGO_BIN_EXE_wireplan"))
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args(["compile", "app.neon", "-o", "app.plan.json", "--watch"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("wireplan starts");
        let mut guard = Guard(child);
        wait_for("the first plan", || services(&plan) == Some(2));
        let status = signal_and_wait(&mut guard, signal);
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        assert_eq!(services(&plan), Some(2));
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("folder")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "SIG{signal}: {left:?}");
    }
}

#[test]
fn the_watch_loop_reports_each_compilation_and_stops_on_request() {
    use wireplan::watch::{run, Event, Signal, WatchOptions};
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("app.neon");
    save(&conf, &config(2));
    let opts = WatchOptions {
        config: conf.clone(),
        output: dir.path().join("out.bin"),
        encoding: wireplan_runtime::Encoding::Binary,
        options: Default::default(),
        debounce: Duration::from_millis(100),
    };
    let (sender, signals) = std::sync::mpsc::channel();
    sender.send(Signal::Stop).expect("send");
    let mut seen = Vec::new();
    run(&opts, sender, signals, &mut |e| match e {
        Event::Compiled { run: r, kept } => seen.push(format!(
            "compiled {:?} {} {kept}",
            r.plan.as_ref().map(|p| p.services.len()),
            r.summary(&opts.output, kept)
                .starts_with("compiled 2 services in ")
        )),
        Event::Watching(files) => seen.push(format!("watching {}", files.len())),
        Event::Changed(_) => seen.push("changed".into()),
        Event::WatchError(e) => seen.push(format!("error {e}")),
    })
    .expect("the watcher starts");
    assert_eq!(seen, ["compiled Some(2) true false", "watching 1"]);
    assert_eq!(services(&opts.output), Some(2));
}

/// Starts `wireplan ARGS` in `dir` with its standard error going to `dir/watch.log`.
fn start_watch(dir: &Path, args: &[&str]) -> Guard {
    let log = dir.join("watch.log");
    let child = Command::new(env!("CARGO_BIN_EXE_wireplan"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).expect("log file"))
        .spawn()
        .expect("wireplan starts");
    Guard(child)
}

#[test]
fn a_failed_first_compilation_says_no_plan_was_written_yet() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("utf.neon");
    let out = dir.path().join("old.json");
    // A plan that was there before (only a plan or an empty file may be replaced) is not a
    // plan this watch wrote.
    let before = "{\"format\": \"wireplan-plan\"}\n";
    std::fs::write(&out, before).expect("write");
    save(&conf, "services: [\n");
    let _guard = start_watch(
        dir.path(),
        &["compile", "utf.neon", "-o", "old.json", "--watch"],
    );
    let log = dir.path().join("watch.log");
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
    wait_for("the first compilation", || {
        read_log().contains("watching 1 file(s)")
    });
    let text = read_log();
    assert!(text.contains("1 error(s); no plan written yet"), "{text}");
    assert!(!text.contains("is kept"), "{text}");
    assert_eq!(std::fs::read_to_string(&out).expect("old plan"), before);

    save(&conf, &config(1));
    wait_for("the first plan", || services(&out) == Some(1));
    save(&conf, "services: [\n");
    wait_for("the kept plan", || {
        read_log().contains("1 error(s); the last good plan old.json is kept")
    });
}

/// Waits (at most 30 s) until the watcher of `guard` exits by itself, and returns its status.
fn wait_for_exit(guard: &mut Guard) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = guard.0.try_wait().expect("wait") {
            return status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the watcher did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_output_that_is_an_input_stops_the_watch_with_exit_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("cfg")).expect("mkdir");
    let conf = dir.path().join("cfg/app.neon");
    save(&conf, &config(1));
    let mut guard = start_watch(
        dir.path(),
        &["compile", "cfg/app.neon", "-o", "cfg/app.neon", "--watch"],
    );
    let status = wait_for_exit(&mut guard);
    let text = std::fs::read_to_string(dir.path().join("watch.log")).expect("log");
    assert_eq!(status.code(), Some(1), "{text}");
    assert!(
        text.contains("error[io-error]: Refusing to write the plan over"),
        "{text}"
    );
    assert!(
        text.ends_with("error: the plan file cfg/app.neon is one of the inputs; watching stops\n"),
        "{text}"
    );
    assert!(!text.contains("watching 1 file(s)"), "{text}");
    assert_eq!(std::fs::read_to_string(&conf).expect("config"), config(1));
}

/// A plan file in a folder that does not exist: the write fails and no edit of the inputs can
/// fix that, so watching stops with status 1 instead of going on for ever.
#[test]
fn a_plan_in_a_missing_folder_stops_the_watch() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("cfg")).expect("mkdir");
    save(&dir.path().join("cfg/app.neon"), &config(1));
    let mut guard = start_watch(
        dir.path(),
        &[
            "compile",
            "cfg/app.neon",
            "-o",
            "missing/app.json",
            "--watch",
        ],
    );
    let status = wait_for_exit(&mut guard);
    let text = std::fs::read_to_string(dir.path().join("watch.log")).expect("log");
    assert_eq!(status.code(), Some(1), "{text}");
    assert!(text.contains("error[io-error]"), "{text}");
    assert!(
        text.ends_with(
            "error: the folder of the plan file missing/app.json does not exist; watching stops\n"
        ),
        "{text}"
    );
    assert!(!text.contains("watching 1 file(s)"), "{text}");
}

#[test]
fn a_file_being_written_is_compiled_once_it_holds_still() {
    use wireplan::watch::{run, Event, Signal};
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("app.neon");
    save(&conf, &config(1));
    let opts = json_watch(&conf, dir.path());
    let (sender, signals) = std::sync::mpsc::channel();
    let control = sender.clone();
    let mut seen = Vec::new();
    let mut writer = None;
    run(&opts, sender, signals, &mut |e| match e {
        Event::Compiled { run: r, .. } => {
            let services = r.plan.as_ref().map(|p| p.services.len());
            seen.push(format!("compiled {services:?}"));
            if services == Some(1) && writer.is_none() {
                // As `cp` does: the file is emptied, then written a moment later. The change
                // is announced at once, while the file is still empty.
                std::fs::write(&conf, "").expect("truncate");
                let path = conf.clone();
                writer = Some(std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(30));
                    std::fs::write(&path, config(3)).expect("write");
                }));
                control
                    .send(Signal::Changed(vec![conf.clone()]))
                    .expect("send");
            } else {
                control.send(Signal::Stop).expect("send");
            }
        }
        Event::Watching(_) => {}
        Event::Changed(files) => seen.push(format!("changed {}", files.len())),
        Event::WatchError(e) => seen.push(format!("error {e}")),
    })
    .expect("the watcher starts");
    writer.expect("written").join().expect("writer");
    // Never the empty file; and the recompilation says what changed first.
    assert_eq!(seen, ["compiled Some(1)", "changed 1", "compiled Some(3)"]);
    assert_eq!(services(&opts.output), Some(3));
}

/// An edit saved while the first compilation runs, before the file is watched, makes no file
/// event: the watch compares the file with what was compiled once it watches it, and compiles
/// again (a new user's trial: the edit was lost and the plan stayed stale).
#[test]
fn an_edit_during_the_first_compilation_is_not_lost() {
    use wireplan::watch::{run, Event, Signal};
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("app.neon");
    save(&conf, &config(1));
    let opts = json_watch(&conf, dir.path());
    let (sender, signals) = std::sync::mpsc::channel();
    let control = sender.clone();
    let mut seen = Vec::new();
    run(&opts, sender, signals, &mut |e| match e {
        Event::Compiled { run: r, .. } => {
            let services = r.plan.as_ref().map(|p| p.services.len());
            seen.push(format!("compiled {services:?}"));
            if services == Some(1) {
                // Reported before the watch starts watching: no event will say this.
                save(&conf, &config(2));
            } else {
                control.send(Signal::Stop).expect("send");
            }
        }
        Event::Watching(files) => seen.push(format!("watching {}", files.len())),
        Event::Changed(files) => seen.push(format!("changed {}", files.len())),
        Event::WatchError(e) => seen.push(format!("error {e}")),
    })
    .expect("the watcher starts");
    assert_eq!(
        seen,
        [
            "compiled Some(1)",
            "watching 1",
            "changed 1",
            "compiled Some(2)"
        ]
    );
    assert_eq!(services(&opts.output), Some(2));
}

/// Ctrl-C while the watch compiles ends it at once with exit code 130, says so, and does not
/// write the plan of the compilation it stopped (it used to finish it, write the plan, then
/// exit 0).
#[cfg(unix)]
#[test]
fn ctrl_c_during_a_compilation_stops_the_watch_at_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let args = ["compile", "app.neon", "-o", "app.json", "--watch"];
    let plan = dir.path().join("app.json");
    let text = interrupt_mid_compilation(dir.path(), &args, |text| {
        // A compilation over before the signal wrote its plan: removed for the next size.
        let over = text.contains("compiled ");
        if over {
            let _ = std::fs::remove_file(&plan);
        }
        over
    });
    assert!(!plan.exists(), "{text}");
}

/// Ctrl-C during a one-shot compile ends it with exit code 130 and says so; the plan file
/// that was there stays as it was, with no temporary file beside it (it ended silently).
#[cfg(unix)]
#[test]
fn ctrl_c_during_a_compile_keeps_the_old_plan_and_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = dir.path().join("app.json");
    save(&dir.path().join("app.neon"), &config(1));
    let first = Command::new(env!("CARGO_BIN_EXE_wireplan"))
        .current_dir(dir.path())
        .args(["compile", "app.neon", "-o", "app.json"])
        .output()
        .expect("runs");
    assert!(first.status.success());
    let before = std::fs::read(&plan).expect("the first plan");
    let args = ["compile", "app.neon", "-o", "app.json"];
    let text = interrupt_mid_compilation(dir.path(), &args, |text| {
        // A compilation over before the signal replaced the plan: put the first one back.
        let over = text.contains("wrote app.json");
        if over {
            std::fs::write(&plan, &before).expect("restore");
        }
        over
    });
    assert_eq!(std::fs::read(&plan).expect("the plan"), before, "{text}");
}

/// Runs `wireplan ARGS` in `dir` on `app.neon` of growing sizes and sends Ctrl-C while it
/// compiles: a configuration large enough that its compilation is still running when the
/// signal comes (`over(log)` says a run finished first; the next size is tried then). Asserts
/// that the run ended with exit code 130, said so, and left no temporary file; returns its log.
#[cfg(unix)]
fn interrupt_mid_compilation(
    dir: &Path,
    args: &[&str],
    mut over: impl FnMut(&str) -> bool,
) -> String {
    for n in [20_000, 80_000, 320_000] {
        save(&dir.join("app.neon"), &config(n));
        let mut guard = start_watch(dir, args);
        // Long enough for the signal handling to be in place, far shorter than the compilation.
        std::thread::sleep(Duration::from_millis(200));
        let status = signal_and_wait(&mut guard, "INT");
        let text = std::fs::read_to_string(dir.join("watch.log")).expect("log");
        if over(&text) {
            continue;
        }
        assert_eq!(status.code(), Some(130), "{text}");
        assert!(text.starts_with("interrupted (Ctrl-C)"), "{text}");
        let left: Vec<_> = std::fs::read_dir(dir)
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        return text;
    }
    panic!("every compilation ended before Ctrl-C reached it");
}

/// A folder holding a watched file renamed away is the file gone (the recompilation reports
/// it missing); renamed back, the file is there again, and later edits to it are seen. The
/// watch used to keep following the moved folder and never noticed either.
#[test]
fn a_folder_renamed_away_and_back_is_seen_both_times() {
    use wireplan::watch::{run, Event, Signal};
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("app.neon");
    let ext = dir.path().join("ext");
    std::fs::create_dir(&ext).expect("folder");
    save(&ext.join("demo.rhai"), "fn loadConfiguration() {}\n");
    save(
        &conf,
        &format!("extensions:\n\tdemo: ext/demo.rhai\n{}", config(1)),
    );
    let opts = json_watch(&conf, dir.path());
    let (sender, signals) = std::sync::mpsc::channel();
    let control = sender.clone();
    // Stops the watch if a step is never seen, so the test fails instead of hanging.
    let watchdog = sender.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(30));
        let _ = watchdog.send(Signal::Stop);
    });
    // Each step acts a moment after a compilation, once the watch watches again.
    let (steps, step_done) = std::sync::mpsc::channel::<usize>();
    let (root, folder) = (dir.path().to_path_buf(), ext.clone());
    let actor = std::thread::spawn(move || {
        while let Ok(step) = step_done.recv() {
            std::thread::sleep(Duration::from_millis(300));
            match step {
                1 => std::fs::rename(&folder, root.join("ext2")).expect("rename away"),
                2 => std::fs::rename(root.join("ext2"), &folder).expect("rename back"),
                3 => save(
                    &folder.join("demo.rhai"),
                    "fn loadConfiguration() { let x = 1; }\n",
                ),
                _ => {
                    control.send(Signal::Stop).expect("send");
                    break;
                }
            }
        }
    });
    let mut seen = Vec::new();
    let mut step = 0;
    run(&opts, sender, signals, &mut |e| match e {
        Event::Compiled { run: r, .. } => {
            let missing = r
                .diagnostics
                .iter()
                .any(|d| d.message.contains("ext/demo.rhai"));
            seen.push(format!("compiled {} missing={missing}", r.plan.is_some()));
            step += 1;
            steps.send(step).expect("actor");
        }
        Event::Watching(_) => {}
        Event::Changed(files) => seen.push(format!("changed {}", files.len())),
        Event::WatchError(e) => seen.push(format!("error {e}")),
    })
    .expect("the watcher starts");
    drop(steps);
    actor.join().expect("actor");
    assert_eq!(
        seen,
        [
            "compiled true missing=false",
            "changed 1",
            "compiled false missing=true",
            "changed 1",
            "compiled true missing=false",
            "changed 1",
            "compiled true missing=false",
        ]
    );
}

/// Bytes the process `pid` has read so far (`rchar` of `/proc/PID/io`).
#[cfg(target_os = "linux")]
fn bytes_read(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).expect("/proc/PID/io");
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("rchar")
}

/// Opening and reading a watched file is an event too. The watch used to count those: after
/// a recompilation, its own reads (and the reads that checked whether anything changed)
/// started another round of reading, forever, about every 0.2 s.
#[cfg(target_os = "linux")]
#[test]
fn the_watch_reads_nothing_while_nothing_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("app.neon");
    let out = dir.path().join("out.json");
    save(&conf, &config(2000));
    let size = std::fs::metadata(&conf).expect("config").len();
    let guard = start_watch(
        dir.path(),
        &["compile", "app.neon", "-o", "out.json", "--watch"],
    );
    wait_for("the first plan", || services(&out) == Some(2000));
    save(&conf, &config(2001));
    wait_for("the recompiled plan", || services(&out) == Some(2001));
    // The recompilation's own reads are over well within this.
    std::thread::sleep(Duration::from_millis(400));
    let before = bytes_read(guard.0.id());
    std::thread::sleep(Duration::from_millis(1500));
    let read = bytes_read(guard.0.id()) - before;
    assert!(
        read < size,
        "the watch read {read} bytes in 1.5 s while nothing changed ({size} bytes a read of the configuration)"
    );
}

/// `--max-memory` limits each compilation of a watch as it limits a cold one: what the watch
/// keeps for later compilations (the decoded `types.neon`, the catalog and the section it was
/// read from) is not counted. At a ceiling where a cold compilation passes (with a tenth more
/// for the run-to-run spread of the lexer's threads), the watch's first compilation and its
/// recompilation after an edit pass too. (Counted, they needed about 1.9 times the cold
/// ceiling.) The `types.neon` here has a `%` in a comment, so the cold compilation reads it
/// as the watch does, into a value tree: a plain one it would read with the lighter decode
/// (docs/performance.md, "Thirty-fourth round"), which needs less memory than a watch, which
/// keeps the tree for later compilations.
#[cfg(unix)]
#[test]
fn a_ceiling_a_cold_compilation_passes_holds_for_the_watch() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut types = String::from("types:\n\t# 100% of the classes\n");
    for i in 0..2500 {
        types.push_str(&format!(
            "\tApp\\C{i}:\n\t\tconstructor: {{limit: {{type: int, default: {i}}}}}\n"
        ));
    }
    assert!(types.len() > 64 * 1024, "kept by the watch");
    std::fs::write(dir.path().join("types.neon"), &types).expect("write");
    let conf = dir.path().join("config.neon");
    let app = |n: usize| {
        let mut s = String::from("includes:\n\t- types.neon\nservices:\n");
        for i in 0..n {
            s.push_str(&format!("\ts{i}: App\\C{i}\n"));
        }
        s
    };
    save(&conf, &app(300));
    let cold = |ceiling: u64| {
        Command::new(env!("CARGO_BIN_EXE_wireplan"))
            .current_dir(dir.path())
            .args([
                "compile",
                "config.neon",
                "-o",
                "cold.plan.json",
                "--max-memory",
            ])
            .arg(ceiling.to_string())
            .output()
            .expect("wireplan runs")
            .status
            .success()
    };
    // The least ceiling a cold compilation passes, to 8 KiB.
    let (mut low, mut high) = (64 * 1024u64, 256 << 20);
    assert!(!cold(low) && cold(high));
    while high - low > 8 * 1024 {
        let mid = (low + high) / 2;
        if cold(mid) {
            high = mid;
        } else {
            low = mid;
        }
    }
    let ceiling = high + high / 10;
    let plan = dir.path().join("app.plan.json");
    let log = dir.path().join("watch.log");
    let ceiling = ceiling.to_string();
    let _guard = start_watch(
        dir.path(),
        &[
            "compile",
            "config.neon",
            "-o",
            "app.plan.json",
            "--watch",
            "--max-memory",
            &ceiling,
        ],
    );
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
    wait_for("the first compilation", || read_log().contains("watching"));
    assert_eq!(services(&plan), Some(300), "{}", read_log());
    save(&conf, &app(301));
    wait_for("the recompilation", || {
        services(&plan) == Some(301) || read_log().contains("memory-limit")
    });
    assert!(!read_log().contains("memory-limit"), "{}", read_log());
}

/// A file the compilation looked for and could not read (an include not written yet) is
/// watched: creating it recompiles, as a cold compilation would then succeed. So is one in a
/// folder that does not exist yet (two levels here): making the folders and then the file
/// recompiles (such a folder could not be watched, so nothing came of it before).
#[cfg(unix)]
#[test]
fn a_missing_include_is_watched_until_it_appears() {
    for include in ["inc.neon", "sub/deeper/inc.neon"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let conf = dir.path().join("cfg.neon");
        save(
            &conf,
            &format!("includes:\n\t- {include}\nservices:\n\ta: App\\A\n"),
        );
        let plan = dir.path().join("p.json");
        let log = dir.path().join("watch.log");
        let _guard = start_watch(
            dir.path(),
            &["compile", "cfg.neon", "-o", "p.json", "--watch"],
        );
        let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
        wait_for("the first compilation", || read_log().contains("watching"));
        let text = read_log();
        assert!(
            text.contains("file-not-found") && text.contains("watching 2 file(s)"),
            "{include}: {text}"
        );
        let file = dir.path().join(include);
        std::fs::create_dir_all(file.parent().expect("a folder")).expect("mkdir");
        save(&file, "types:\n\tApp\\A:\n");
        wait_for("the plan once the include exists", || {
            services(&plan) == Some(1)
        });
    }
}

/// After a failed compilation, "the last good plan is kept" only while that file is there:
/// removed (or replaced by a folder) since this watch wrote it, the summary says so (second
/// new user's trial).
#[test]
fn a_removed_plan_is_not_said_to_be_kept() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("p.json");
    let failed = wireplan::watch::CompileRun {
        sources: Default::default(),
        diagnostics: vec![wireplan::diagnostics::Diagnostic::error(
            wireplan::diagnostics::Code::InvalidValue,
            "broken",
        )],
        plan: None,
        elapsed: Duration::from_millis(5),
        files: Vec::new(),
        output_is_input: false,
        held_back: false,
        timings: None,
        output_replaced: false,
    };
    let plan = format!(
        "{{\n  \"format\": \"{}\",\n  \"version\": 4\n}}",
        wireplan_runtime::plan::FORMAT
    );
    std::fs::write(&out, &plan).expect("write");
    assert_eq!(
        failed.summary(&out, true),
        format!("1 error(s); the last good plan {} is kept", out.display())
    );
    // Another compilation replaced it with a plan of its own (a trial was told it was kept).
    let replaced = wireplan::watch::CompileRun {
        output_replaced: true,
        sources: Default::default(),
        ..failed
    };
    assert_eq!(
        replaced.summary(&out, true),
        format!(
            "1 error(s); {} no longer holds the plan this watch wrote (another file replaced it)",
            out.display()
        )
    );
    let failed = wireplan::watch::CompileRun {
        output_replaced: false,
        ..replaced
    };
    // Something else written over it since (a new user's trial was told it was kept).
    std::fs::write(&out, "not a plan at all").expect("write");
    assert_eq!(
        failed.summary(&out, true),
        format!(
            "1 error(s); {} no longer holds the plan this watch wrote",
            out.display()
        )
    );
    std::fs::remove_file(&out).expect("remove");
    assert_eq!(
        failed.summary(&out, true),
        format!(
            "1 error(s); the plan {} this watch wrote is no longer there",
            out.display()
        )
    );
    std::fs::create_dir(&out).expect("a folder in its place");
    assert!(failed.summary(&out, true).ends_with("is no longer there"));
    assert_eq!(
        failed.summary(&out, false),
        "1 error(s); no plan written yet"
    );
    // An input that is empty now (an editor's save that truncated an include) is named after
    // the count (a new user's trial got 292 errors and no word of it).
    let mut sources = wireplan::source::SourceMap::default();
    let at = dir.path().join("a.neon");
    sources.add_path("a.neon", &at, "services:\n\t- App\\A\n".into());
    sources.add_path("part30.neon", &dir.path().join("part30.neon"), " \n".into());
    let truncated = wireplan::watch::CompileRun { sources, ..failed };
    assert_eq!(
        truncated.summary(&out, false),
        "1 error(s); no plan written yet (part30.neon is empty)"
    );
}
