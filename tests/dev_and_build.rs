//! Dev mode (`wireplan::dev::load_or_compile`), the `build.rs` helper, the CLI's binary
//! output, and the blog example from a binary plan and from dev mode.

#[allow(dead_code)]
#[path = "../examples/blog/main.rs"]
mod blog;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use wireplan::dev::{load_or_compile_with, ContainerDevExt, DevError};
use wireplan_runtime::plan::Plan;
use wireplan_runtime::{Container, Registry};

struct Db {
    dsn: String,
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.class::<Db>("App\\Db").constructor(|a| {
        Ok(Db {
            dsn: a.str(0)?.to_string(),
        })
    });
    r
}

fn write_config(dir: &Path, dsn: &str) {
    std::fs::write(
        dir.join("app.neon"),
        "includes:\n\t- types.neon\n\nparameters:\n\tdsn: x\n\nservices:\n\tdb: App\\Db(%dsn%)\n"
            .replace("x", dsn),
    )
    .unwrap();
    std::fs::write(
        dir.join("types.neon"),
        "types:\n\tApp\\Db:\n\t\tconstructor:\n\t\t\tdsn: string\n",
    )
    .unwrap();
}

fn load(config: &Path, cache: &Path, r: &Registry) -> Result<(Container, bool), DevError> {
    let l = load_or_compile_with(config, cache, &Default::default(), Container::builder(r))?;
    Ok((l.container, l.recompiled))
}

/// A plan compiled with other options (a `-p` value, a dynamic parameter) is not taken for
/// current: each set of options has its own cache file (a new user's trial: a parameter made
/// dynamic in one run and given with `-p` in the next reused the first plan, and the
/// container then asked for the dynamic value).
#[test]
fn dev_mode_keeps_one_plan_per_set_of_options() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = dir.path().join("app.neon");
    let r = registry();
    write_config(dir.path(), "files");
    let with = |options: &wireplan::compiler::Options, dsn: Option<&str>| {
        let mut builder = Container::builder(&r);
        if let Some(dsn) = dsn {
            builder = builder.parameter("dsn", dsn);
        }
        let l = load_or_compile_with(&config, &cache, options, builder).unwrap();
        (
            l.container.get::<Db>("db").unwrap().dsn.clone(),
            l.recompiled,
        )
    };
    let dynamic = wireplan::compiler::Options {
        dynamic: vec!["dsn".into()],
        ..Default::default()
    };
    let mut given = wireplan::compiler::Options::default();
    given.parameters.insert("dsn".into(), "from-p".into());
    assert_eq!(with(&dynamic, Some("at-start")), ("at-start".into(), true));
    assert_eq!(with(&given, None), ("from-p".into(), true));
    assert_eq!(with(&Default::default(), None), ("files".into(), true));
    // Each is current for its own options afterwards.
    assert_eq!(with(&dynamic, Some("again")), ("again".into(), false));
    assert_eq!(with(&given, None), ("from-p".into(), false));
    assert_eq!(with(&Default::default(), None), ("files".into(), false));
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 3);
}

/// A recompilation's warnings come back one line each (and `load_or_compile` prints them);
/// a cached plan has none to give (a new user's trial: dev mode said nothing about them).
#[test]
fn dev_mode_gives_the_warnings_of_a_recompilation() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "types:\n\tApp\\Db:\n\t\tconstructor:\n\t\t\tdsn: string\nservices:\n\t- App\\Db(x)\n\t\"01\": App\\Db(y)\n",
    )
    .unwrap();
    let r = registry();
    let load = || {
        load_or_compile_with(&config, &cache, &Default::default(), Container::builder(&r)).unwrap()
    };
    let first = load();
    assert!(first.recompiled);
    assert_eq!(first.warnings.len(), 1, "{:?}", first.warnings);
    let w = &first.warnings[0];
    assert!(
        w.starts_with("warning[modifies-anonymous] ")
            && w.contains("app.neon:7:2: Service '01': this entry modifies the anonymous service"),
        "{w}"
    );
    assert!(!w.contains('\n'), "{w}");
    let again = load();
    assert!(!again.recompiled);
    assert!(again.warnings.is_empty());
}

/// A cached plan written by another wireplan (or of another plan version) is compiled again,
/// though no input changed (a new user's trial: the cache was keyed by the inputs alone).
#[test]
fn dev_mode_recompiles_a_plan_another_wireplan_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = dir.path().join("app.neon");
    let r = registry();
    write_config(dir.path(), "one");
    assert!(load(&config, &cache, &r).unwrap().1);
    assert!(!load(&config, &cache, &r).unwrap().1);
    let cached = wireplan::dev::cache_path(&config, &cache);
    let mut plan = Plan::read(&cached).unwrap();
    assert_eq!(plan.compiler, wireplan::plan::COMPILER);
    plan.compiler = "wireplan 0.0.1".into();
    plan.write(&cached, wireplan_runtime::Encoding::Binary)
        .unwrap();
    assert!(
        load(&config, &cache, &r).unwrap().1,
        "another compiler's plan"
    );
    let mut plan = Plan::read(&cached).unwrap();
    plan.version -= 1;
    plan.write(&cached, wireplan_runtime::Encoding::Binary)
        .unwrap();
    assert!(
        load(&config, &cache, &r).unwrap().1,
        "an older plan version"
    );
    assert!(!load(&config, &cache, &r).unwrap().1);
}

#[test]
fn dev_mode_recompiles_exactly_when_a_dependency_changes() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = dir.path().join("app.neon");
    let r = registry();
    write_config(dir.path(), "one");

    let (c, recompiled) = load(&config, &cache, &r).unwrap();
    assert!(recompiled);
    assert_eq!(c.get::<Db>("db").unwrap().dsn, "one");
    let (c, recompiled) = load(&config, &cache, &r).unwrap();
    assert!(!recompiled, "nothing changed");
    assert_eq!(
        c.origin(),
        wireplan::dev::cache_path(&config, &cache)
            .display()
            .to_string()
    );

    // Rewriting a file with the same content is not a change (content hashes, not times).
    write_config(dir.path(), "one");
    assert!(!load(&config, &cache, &r).unwrap().1);

    // A change in an included file is.
    std::fs::write(
        dir.path().join("types.neon"),
        "types:\n\tApp\\Db:\n\t\tconstructor:\n\t\t\tdsn: string\n# touched\n",
    )
    .unwrap();
    assert!(load(&config, &cache, &r).unwrap().1);
    assert!(!load(&config, &cache, &r).unwrap().1);

    // And in the root configuration.
    write_config(dir.path(), "two");
    let (c, recompiled) = load(&config, &cache, &r).unwrap();
    assert!(recompiled);
    assert_eq!(c.get::<Db>("db").unwrap().dsn, "two");

    // A damaged cache file is rebuilt, not an error.
    let cached = wireplan::dev::cache_path(&config, &cache);
    std::fs::write(&cached, b"WIREPLAN garbage").unwrap();
    assert!(load(&config, &cache, &r).unwrap().1);

    // Compile errors come back rendered, and the trait form works.
    std::fs::write(&config, "services:\n\tdb: App\\Nope\n").unwrap();
    let e = Container::load_or_compile(&config, &cache, &r).unwrap_err();
    assert!(matches!(e, DevError::Compile { .. }), "{e}");
    assert!(e.to_string().contains("App\\Nope"), "{e}");
    // `main() -> Result<(), Box<dyn Error>>` prints Debug: the same rendered text, no struct dump.
    assert_eq!(format!("{e:?}"), e.to_string());
    assert!(!format!("{e:?}").contains("Compile {"), "{e:?}");
}

#[test]
fn production_loading_never_reads_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = dir.path().join("app.neon");
    write_config(dir.path(), "one");
    let plan_path = wireplan::build::compile_plan(&config, &cache).unwrap();
    assert_eq!(plan_path, cache.join("app.plan.bin"));
    std::fs::remove_file(&config).unwrap();
    std::fs::remove_file(dir.path().join("types.neon")).unwrap();
    let bytes = std::fs::read(&plan_path).unwrap();
    let c = Container::from_bytes(&bytes, &registry()).unwrap();
    assert_eq!(c.get::<Db>("db").unwrap().dsn, "one");
}

#[test]
fn the_build_helper_reports_compile_errors() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.neon");
    std::fs::write(&config, "services:\n\tdb: App\\Nope\n").unwrap();
    let e = wireplan::build::compile_plan(&config, dir.path()).unwrap_err();
    assert!(e.to_string().contains("error(s)"), "{e}");
    assert!(!dir.path().join("bad.plan.bin").exists());
}

#[test]
fn the_cli_writes_binary_plans_by_extension_or_flag() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let config = root.join("examples/blog/config/app.neon");
    let exe = env!("CARGO_BIN_EXE_wireplan");
    let bin = dir.path().join("app.plan.bin");
    let forced = dir.path().join("app.plan");
    let json = dir.path().join("app.plan.json");
    for (out, extra) in [(&bin, None), (&forced, Some("bin")), (&json, None)] {
        let mut cmd = Command::new(exe);
        cmd.arg("compile")
            .arg(&config)
            .arg("--catalog")
            .arg(root.join("examples/blog/catalog.json"))
            .arg("-o")
            .arg(out);
        if let Some(f) = extra {
            cmd.args(["--format", f]);
        }
        let status = cmd.status().unwrap();
        assert!(status.success());
    }
    let (b, f, j) = (
        std::fs::read(&bin).unwrap(),
        std::fs::read(&forced).unwrap(),
        std::fs::read(&json).unwrap(),
    );
    assert!(b.starts_with(b"WIREPLAN"));
    assert_eq!(b, f);
    let from_bin = Plan::from_bytes(&b, "bin").unwrap();
    let from_json = Plan::from_bytes(&j, "json").unwrap();
    assert_eq!(from_bin, from_json);

    // The blog example runs from the binary plan.
    let outcome = blog::run(bin.to_str().unwrap()).unwrap();
    assert_eq!(outcome.published, 5);
    assert!(outcome.logger_shared && outcome.blog_shared);
}

#[test]
fn the_blog_example_runs_in_dev_mode() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let config = root.join("examples/blog/config/app.neon");
    let (cfg, cache) = (config.to_str().unwrap(), dir.path().to_str().unwrap());
    let (first, recompiled) = blog::run_dev(cfg, cache).unwrap();
    assert!(recompiled);
    let (second, recompiled) = blog::run_dev(cfg, cache).unwrap();
    assert!(!recompiled);
    assert_eq!(first.log_lines, second.log_lines);
    assert_eq!(first.published, 5);
}

/// H13: `blog --dev CONFIG /etc/passwd` said "cannot read plan: File exists (os error 17)".
/// A cache directory that is a file is named as such, before anything is compiled; one that
/// cannot be created says why.
#[test]
fn a_cache_directory_that_is_a_file_is_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cache");
    std::fs::write(&file, "not a directory").unwrap();
    let config = root.join("examples/blog/config/app.neon");
    let message =
        |cache: &Path| match blog::run_dev(config.to_str().unwrap(), cache.to_str().unwrap()) {
            Ok(_) => panic!("{} accepted as the cache directory", cache.display()),
            Err(e) => e.to_string(),
        };
    assert_eq!(
        message(&file),
        format!(
            "the cache directory '{}' exists and is not a directory; give a directory (it is created when missing)",
            file.display()
        )
    );
    let below = file.join("sub");
    let e = message(&below);
    assert!(
        e.starts_with(&format!(
            "cannot create the cache directory '{}': ",
            below.display()
        )),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
    // The library error says the same, as its own variant.
    let Err(e) = load(&config, &file, &registry()) else {
        panic!("a file accepted as the cache directory")
    };
    assert!(matches!(e, DevError::CacheDir { is_file: true, .. }), "{e}");
}

trait Logger: Send + Sync {
    fn path(&self) -> String;
}

struct FileLogger {
    path: String,
    level: i64,
}

impl Logger for FileLogger {
    fn path(&self) -> String {
        self.path.clone()
    }
}

struct Mailer {
    logger: Arc<dyn Logger>,
    from: Option<String>,
}

#[test]
fn a_config_compiles_against_the_catalog_the_registry_exports() {
    let mut r = Registry::new();
    wireplan_runtime::register!(r, "App\\FileLogger" => FileLogger {
        new(path: String) { FileLogger { path, level: 0 } }
        implements "App\\Logger" => dyn Logger;
        fn setLevel(&mut this, level: i64) { this.level = level; }
    });
    wireplan_runtime::register!(r, "App\\Mailer" => Mailer {
        new(logger: Arc<dyn Logger>, from: Option<String>) { Mailer { logger, from } }
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("catalog.neon"), r.catalog()).unwrap();
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "includes:\n\t- catalog.neon\n\nservices:\n\tlogger:\n\t\tcreate: App\\FileLogger(/var/log/app.log)\n\t\tsetup:\n\t\t\t- setLevel(3)\n\tmailer: App\\Mailer(from: null)\n",
    )
    .unwrap();
    let path = wireplan::build::compile_plan(&config, dir.path()).unwrap();
    let c = Container::load(&path, &r).unwrap();
    let mailer = c.get::<Mailer>("mailer").unwrap();
    assert_eq!(mailer.logger.path(), "/var/log/app.log");
    assert_eq!(mailer.from, None);
    assert_eq!(c.get::<FileLogger>("logger").unwrap().level, 3);

    // A config that asks for something the binary does not provide fails at compile time.
    std::fs::write(
        &config,
        "includes:\n\t- catalog.neon\n\nservices:\n\tlogger: App\\FileLogger(/x)\n\tdb: App\\Db\n",
    )
    .unwrap();
    let e = wireplan::build::compile_plan(&config, dir.path()).unwrap_err();
    assert!(e.to_string().contains("App\\Db"), "{e}");
}

#[test]
fn dev_mode_reuses_its_cache_with_a_shipped_extension() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "types:\n\tApp\\Db:\n\t\tconstructor:\n\t\t\tdsn: string\n\nextensions:\n\tenv: envswitch\n\nenv:\n\tenvironment: dev\n\tservices:\n\t\tdb:\n\t\t\tdefault: App\\Db(shipped)\n",
    )
    .unwrap();
    let r = registry();
    let (c, recompiled) = load(&config, &cache, &r).unwrap();
    assert!(recompiled);
    assert_eq!(c.get::<Db>("db").unwrap().dsn, "shipped");
    // The shipped script is a dependency under its own name, hashed from wireplan's copy.
    let plan = wireplan::compiler::compile(&config, &Default::default())
        .plan
        .expect("compiles");
    assert!(plan
        .dependencies
        .iter()
        .any(|d| d.path == "shipped extension 'envswitch'"));
    assert!(wireplan::dev::is_current(&plan));
    let (_, recompiled) = load(&config, &cache, &r).unwrap();
    assert!(!recompiled, "nothing changed, the cache is reused");
}

/// A configuration that does not exist is an error and leaves no cache directory behind
/// (dev mode created `target/wireplan-cache` before reading the configuration).
#[test]
fn a_missing_configuration_creates_no_cache_directory() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("target/wireplan-cache");
    let missing = dir.path().join("config/app.neon");
    let e = match blog::run_dev(missing.to_str().unwrap(), cache.to_str().unwrap()) {
        Ok(_) => panic!("a missing configuration compiled"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("app.neon"), "{e}");
    assert!(!dir.path().join("target").exists());
}

/// A dev-mode compile error lists the registry's unregistered types, naming each Rust type: a
/// parameter of one is `object` in the registry's catalog, so the diagnostics themselves can
/// only say it has no class type (a new user's trial had to run the catalog writer to learn
/// which type was missing).
#[test]
fn a_dev_mode_compile_error_names_the_unregistered_rust_types() {
    #[allow(dead_code)]
    struct Unregistered;
    #[allow(dead_code)]
    struct Alerts(Arc<Unregistered>);
    let mut r = Registry::new();
    wireplan_runtime::register!(r, "App\\Alerts" => Alerts {
        new(sink: Arc<Unregistered>) { Alerts(sink) }
    });
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    std::fs::write(&config, "services:\n\talerts: App\\Alerts\n").unwrap();
    let e = Container::load_or_compile(&config, dir.path().join("cache"), &r).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("[missing-argument]"), "{text}");
    let listed = text
        .split_once("register each one (#[class] or #[interface], or register!):\n")
        .map(|(_, list)| list)
        .unwrap_or_else(|| panic!("no list of unregistered types: {text}"));
    assert!(
        listed.starts_with("  - App\\Alerts::__construct($sink): ")
            && listed.lines().next().unwrap().ends_with("Unregistered"),
        "{listed}"
    );
}
