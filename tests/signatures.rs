//! A plan records the parameter names it was compiled for (plan version 4, `signatures`), and
//! a registry whose Rust code changed since the catalog was exported refuses it at load: the
//! whole loop of a release build from a Rust developer's trial (two `i64` parameters swapped in
//! the Rust code, the catalog not exported again, the plan passing the minimum as the maximum).

mod common;

use std::sync::Arc;

use wireplan_runtime::{register, Container, Registry};

struct Range {
    min: i64,
    max: i64,
    clamp: (i64, i64),
}

impl Range {
    fn make(min: i64, max: i64) -> Arc<Range> {
        Arc::new(Range {
            min,
            max,
            clamp: (0, 0),
        })
    }
}

/// The registry as it was when the catalog was exported (`swapped: false`), or after the Rust
/// constructor took its two `i64`s the other way round and a method parameter was renamed.
fn registry(swapped: bool) -> Registry {
    let mut r = Registry::new();
    if swapped {
        register!(r, "App\\Range" => Range {
            new(max_items: i64, min_items: i64) { Range { min: min_items, max: max_items, clamp: (0, 0) } }
            fn setClamp(&mut this, low: i64, top: i64) { this.clamp = (low, top); }
            fn widen(&this, times: i64, by: i64) -> i64 { this.max + by * times }
            static fn make(max: i64, min: i64) -> Arc<Range> { Range::make(min, max) }
        });
    } else {
        register!(r, "App\\Range" => Range {
            new(min_items: i64, max_items: i64) { Range { min: min_items, max: max_items, clamp: (0, 0) } }
            fn setClamp(&mut this, low: i64, high: i64) { this.clamp = (low, high); }
            fn widen(&this, by: i64, times: i64) -> i64 { this.max + by * times }
            static fn make(min: i64, max: i64) -> Arc<Range> { Range::make(min, max) }
        });
    }
    r
}

const CONFIG: &str = "services:
\trange:
\t\tcreate: App\\Range(min_items: 1, max_items: 9)
\t\tsetup:
\t\t\t- setClamp(high: 5, low: 2)
\tmade: App\\Range::make(max: 7, min: 3)
\tother:
\t\tcreate: App\\Range(0, 1)
\t\tsetup:
\t\t\t- @range::widen(by: 2, times: 3)
";

fn compile(dir: &std::path::Path, out: &str) -> std::path::PathBuf {
    let config = dir.join("app.neon");
    let catalog = dir.join("catalog.json");
    std::fs::write(&config, CONFIG).unwrap();
    wireplan_runtime::catalog::write_catalog(&registry(false), &catalog).unwrap();
    let plan = dir.join(out);
    common::compile_with_catalog(&config, &catalog, &plan);
    plan
}

#[test]
fn the_plan_records_the_names_of_the_constructors_and_methods_it_calls() {
    let dir = tempfile::tempdir().unwrap();
    let plan = compile(dir.path(), "app.plan.json");
    let p: serde_json::Value = serde_json::from_slice(&std::fs::read(&plan).unwrap()).unwrap();
    assert_eq!(p["version"], 4);
    assert_eq!(
        p["signatures"],
        serde_json::json!({
            "App\\Range": "min_items, max_items",
            "App\\Range::setClamp": "low, high",
            "App\\Range::make": "min, max",
            "App\\Range::widen": "by, times",
        })
    );
    // The named arguments reached their parameters, in the catalog's order.
    let c = Container::load(&plan, &registry(false)).unwrap();
    let range = c.get::<Range>("range").unwrap();
    assert_eq!((range.min, range.max, range.clamp), (1, 9, (2, 5)));
    let made = c.get::<Range>("made").unwrap();
    assert_eq!((made.min, made.max), (3, 7));
}

#[test]
fn a_registry_whose_parameter_names_changed_refuses_the_plan_in_both_forms() {
    let dir = tempfile::tempdir().unwrap();
    for out in ["app.plan.json", "app.plan.bin"] {
        let plan = compile(dir.path(), out);
        let e = match Container::load(&plan, &registry(true)) {
            Ok(_) => panic!("{out}: a plan for other parameter names loaded"),
            Err(e) => e,
        };
        let text = e.to_string();
        assert!(text.contains("4 problem(s)"), "{out}: {text}");
        for want in [
            "the constructor of App\\Range declares the parameters ($max_items, $min_items) in \
             this registry, but the plan was compiled for ($min_items, $max_items) and passes \
             its arguments by position",
            "App\\Range::setClamp() declares the parameters ($low, $top) in this registry, but \
             the plan was compiled for ($low, $high)",
            "App\\Range::make() declares the parameters ($max, $min) in this registry, but the \
             plan was compiled for ($min, $max)",
            // A method called on another service's object (a trial's `@mailer::configure(…)`).
            "App\\Range::widen() declares the parameters ($times, $by) in this registry, but \
             the plan was compiled for ($by, $times)",
        ] {
            assert!(text.contains(want), "{out}: {text}");
        }
    }
}
