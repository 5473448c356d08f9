//! Contract tests: plans written by the wireplan compiler (from the conformance cases in
//! `/work/shared/conformance/di`, compiled with `wireplan compile`) load and run here.

use std::sync::{Arc, OnceLock};

use wireplan_runtime::{Container, Error, Registry};

struct Db;

/// A28: `setDb(@db)`, `$flag = true`, `attach(@self)`. `attach` keeps a clone of the object,
/// so it is a shared-access method and stores through interior mutability.
struct Svc {
    db: Option<Arc<Db>>,
    flag: bool,
    attached: OnceLock<Arc<Svc>>,
}

struct Cfg {
    cache_dir: String,
}

#[test]
fn a28_setup_calls_property_write_and_self_argument() {
    let mut reg = Registry::new();
    reg.class::<Db>("App\\Db").constructor(|_| Ok(Db));
    reg.class::<Svc>("App\\Svc")
        .constructor(|_| {
            Ok(Svc {
                db: None,
                flag: false,
                attached: OnceLock::new(),
            })
        })
        .method_mut("setDb", |s, a| {
            s.db = Some(a.service::<Db>(0)?);
            Ok(())
        })
        .property("flag", |s, a| {
            s.flag = a.bool(0)?;
            Ok(())
        })
        .method("attach", |s, a| {
            s.attached
                .set(a.service::<Svc>(0)?)
                .map_err(|_| "attached twice")?;
            Ok(())
        });
    let json = Container::load("tests/fixtures/a28-setup.plan.json", &reg).unwrap();
    // The same plan in the binary form, which the loader reads straight into the container's
    // tables: the same services, and the same model when asked for it.
    let binary = Container::from_bytes(&json.plan().to_binary(), &reg).unwrap();
    for c in [&json, &binary] {
        let svc = c.get::<Svc>("svc").unwrap();
        assert!(svc.flag);
        assert!(Arc::ptr_eq(
            svc.db.as_ref().unwrap(),
            &c.get::<Db>("db").unwrap()
        ));
        assert!(Arc::ptr_eq(svc.attached.get().unwrap(), &svc));
    }
    assert_eq!(binary.plan(), json.plan());
    // Read from a file, the loader keeps the file's bytes for the model instead of a copy of
    // the payload: the same model.
    let path = std::env::temp_dir().join(format!("wp-a28-{}.plan.bin", std::process::id()));
    std::fs::write(&path, json.plan().to_binary()).unwrap();
    let from_file = Container::load(&path, &reg).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(from_file.get::<Svc>("svc").unwrap().flag);
    assert_eq!(from_file.plan(), json.plan());
}

#[test]
fn a51_concat_with_an_environment_parameter() {
    let mut reg = Registry::new();
    reg.class::<Cfg>("App\\Cfg").constructor(|a| {
        Ok(Cfg {
            cache_dir: a.str(0)?.to_string(),
        })
    });
    let c = Container::builder(&reg)
        .parameter("env.TEMP_DIR", "/tmp/x")
        .load("tests/fixtures/a51-concat-env.plan.json")
        .unwrap();
    assert_eq!(c.get::<Cfg>("cfg").unwrap().cache_dir, "/tmp/x/cache");

    // Without the parameter, the error points back into the NEON file.
    let c = Container::builder(&reg)
        .read_environment(false)
        .load("tests/fixtures/a51-concat-env.plan.json")
        .unwrap();
    let e = c.get::<Cfg>("cfg").err().unwrap();
    assert!(matches!(e, Error::ConstructorFailed { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("defined at /work/shared/conformance/di/A51/config.neon:7:7"),
        "{msg}"
    );
    assert!(msg.contains("dynamic parameter 'env.TEMP_DIR'"), "{msg}");
}

#[test]
fn a28_with_an_empty_registry_lists_every_gap() {
    let e = Container::load("tests/fixtures/a28-setup.plan.json", &Registry::new())
        .err()
        .unwrap();
    let Error::MissingRegistrations { origin, missing } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(origin, "tests/fixtures/a28-setup.plan.json");
    // Both classes; members of unknown classes are not guessed at.
    assert_eq!(missing.len(), 2, "{e}");
}
