//! Lifespans (singleton, scoped, transient), scopes, disposal order and concurrency.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};

use serde_json::{json, Value as Json};
use wireplan_runtime::{Container, Error, Registry};

/// Every construction and disposal, in order, per test (tests run in parallel, so each test
/// uses its own log through a thread-independent key: the `tag` argument).
static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn log(tag: &str, what: &str) {
    LOG.lock().unwrap().push(format!("{tag}:{what}"));
}

fn entries(tag: &str) -> Vec<String> {
    let prefix = format!("{tag}:");
    LOG.lock()
        .unwrap()
        .iter()
        .filter_map(|e| e.strip_prefix(&prefix).map(str::to_string))
        .collect()
}

/// A node that records its construction, its dispose hook and its drop.
#[derive(Debug)]
struct Node {
    tag: String,
    name: String,
    deps: Vec<Arc<Node>>,
}

impl Drop for Node {
    fn drop(&mut self) {
        log(&self.tag, &format!("drop {}", self.name));
    }
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.class::<Node>("App\\Node")
        .constructor(|a| {
            let tag = a.str(0)?.to_string();
            let name = a.str(1)?.to_string();
            let deps = a.list_of::<Node>(2)?;
            log(&tag, &format!("new {name}"));
            Ok(Node { tag, name, deps })
        })
        .on_dispose(|n| log(&n.tag, &format!("dispose {}", n.name)));
    r
}

fn node(tag: &str, name: &str, lifespan: &str, deps: &[&str]) -> Json {
    let deps: Vec<Json> = deps.iter().map(|d| json!({"$ref": d})).collect();
    json!({"type": "App\\Node", "lifespan": lifespan,
           "create": {"$new": "App\\Node", "args": [tag, name, deps]}})
}

fn plan(services: Json) -> String {
    json!({"format": "wireplan-plan", "version": 1, "compiler": "test", "inputs_hash": "0",
           "services": services})
    .to_string()
}

#[test]
fn transients_are_new_per_injection_and_per_request() {
    let t = "transient";
    let c = Container::from_json_str(
        &plan(json!({
            "part": node(t, "part", "transient", &[]),
            "whole": node(t, "whole", "singleton", &["part", "part"]),
        })),
        &registry(),
    )
    .unwrap();
    let whole = c.get::<Node>("whole").unwrap();
    assert!(!Arc::ptr_eq(&whole.deps[0], &whole.deps[1]));
    let (a, b) = (
        c.get::<Node>("part").unwrap(),
        c.get::<Node>("part").unwrap(),
    );
    assert!(!Arc::ptr_eq(&a, &b));
    assert!(!c.is_created("part"));
}

#[test]
fn scoped_services_live_per_scope_and_nested_scopes_inherit() {
    let t = "scoped";
    let c = Container::from_json_str(
        &plan(json!({
            "req": node(t, "req", "scoped", &[]),
            "cfg": node(t, "cfg", "singleton", &[]),
            "handler": node(t, "handler", "scoped", &["req", "cfg"]),
        })),
        &registry(),
    )
    .unwrap();
    let s1 = c.scope();
    let s2 = c.scope();
    let h1 = s1.get::<Node>("handler").unwrap();
    assert!(Arc::ptr_eq(&h1, &s1.get::<Node>("handler").unwrap()));
    let h2 = s2.get::<Node>("handler").unwrap();
    assert!(!Arc::ptr_eq(&h1, &h2));
    // The singleton dependency is shared, the scoped one is not.
    assert!(Arc::ptr_eq(&h1.deps[1], &h2.deps[1]));
    assert!(!Arc::ptr_eq(&h1.deps[0], &h2.deps[0]));

    // A nested scope sees what its parent created and creates the rest itself.
    let s3 = c.scope();
    let req3 = s3.get::<Node>("req").unwrap();
    let inner = s3.scope();
    let h_inner = inner.get::<Node>("handler").unwrap();
    assert!(Arc::ptr_eq(&h_inner.deps[0], &req3));
    assert!(!s3.is_created("handler"));
    assert!(inner.is_created("handler"));
    drop((h_inner, inner));
    assert!(entries(t).contains(&"dispose handler".to_string()));
}

#[test]
fn scoped_services_need_a_scope_and_singletons_cannot_capture_them() {
    let t = "captive";
    let c = Container::from_json_str(
        &plan(json!({
            "req": node(t, "req", "scoped", &[]),
        })),
        &registry(),
    )
    .unwrap();
    let e = c.get::<Node>("req").unwrap_err();
    assert!(
        matches!(&e, Error::ScopeRequired { path, .. } if path == &["req"]),
        "{e}"
    );
    // A singleton resolves its dependencies at container level, outside any scope: a plan
    // whose singleton holds a scoped service (directly or through a transient) is refused
    // at load, as the compiler refuses to write it, in either encoding (the binary one is
    // read by another reader).
    let captive = plan(json!({
        "req": node(t, "req", "scoped", &[]),
        "part": node(t, "part", "transient", &["req"]),
        "holder": node(t, "holder", "singleton", &["part"]),
    }));
    let binary = wireplan_runtime::plan::Plan::from_json_str(&captive, "captive")
        .unwrap()
        .to_binary();
    for e in [
        Container::from_json_str(&captive, &registry()).err(),
        Container::from_bytes(&binary, &registry()).err(),
    ] {
        let e = e.expect("refused").to_string();
        assert!(
            e.contains(
                "services › holder: the singleton holds scoped service 'req' (path: holder -> \
                 part -> req), which lives only inside a scope (captive-dependency)"
            ),
            "{e}"
        );
    }
}

#[test]
fn a_scope_releases_its_instances_in_reverse_creation_order() {
    let t = "scope-drop";
    let c = Container::from_json_str(
        &plan(json!({
            "a": node(t, "a", "scoped", &[]),
            "b": node(t, "b", "scoped", &["a"]),
            "c": node(t, "c", "scoped", &["b"]),
        })),
        &registry(),
    )
    .unwrap();
    {
        let s = c.scope();
        s.get::<Node>("c").unwrap();
    }
    assert_eq!(
        entries(t),
        [
            "new a",
            "new b",
            "new c",
            "dispose c",
            "drop c",
            "dispose b",
            "drop b",
            "dispose a",
            "drop a"
        ]
    );
}

#[test]
fn the_container_disposes_singletons_in_reverse_creation_order() {
    let t = "container-drop";
    let c = Container::from_json_str(
        &plan(json!({
            "db": node(t, "db", "singleton", &[]),
            "repo": node(t, "repo", "singleton", &["db"]),
            "unused": node(t, "unused", "singleton", &[]),
            "mailer": node(t, "mailer", "singleton", &[]),
        })),
        &registry(),
    )
    .unwrap();
    c.get::<Node>("repo").unwrap();
    let mailer = c.get::<Node>("mailer").unwrap();
    let scope = c.scope(); // keeps the container alive
    drop(c);
    assert!(!entries(t).iter().any(|e| e.starts_with("dispose")));
    drop(scope);
    // The hook runs for every singleton; `mailer` is still held here, so it is not dropped.
    assert_eq!(
        entries(t),
        [
            "new db",
            "new repo",
            "new mailer",
            "dispose mailer",
            "dispose repo",
            "drop repo",
            "dispose db",
            "drop db"
        ]
    );
    drop(mailer);
    assert_eq!(entries(t).last().unwrap(), "drop mailer");
}

/// A service whose `create` is only a reference (an alias service such as `t8: @db`).
fn alias_of(target: &str, lifespan: &str) -> Json {
    json!({"type": "App\\Node", "lifespan": lifespan, "create": {"$ref": target}})
}

#[test]
fn an_object_several_services_share_is_disposed_once() {
    let t = "dispose-shared";
    let c = Container::from_json_str(
        &plan(json!({
            "db": node(t, "db", "singleton", &[]),
            "t8": alias_of("db", "singleton"),
            "repo": node(t, "repo", "singleton", &["db"]),
            "db4": alias_of("t8", "singleton"),
        })),
        &registry(),
    )
    .unwrap();
    let t8 = c.get::<Node>("t8").unwrap();
    c.get::<Node>("repo").unwrap();
    let db4 = c.get::<Node>("db4").unwrap();
    assert!(Arc::ptr_eq(&t8, &db4));
    assert!(Arc::ptr_eq(&t8, &c.get::<Node>("db").unwrap()));
    drop((t8, db4));
    drop(c);
    // Once per object, in reverse order of first creation: db was created before repo, so
    // repo (which holds db) goes first, although t8 and db4 were published after repo.
    assert_eq!(
        entries(t),
        [
            "new db",
            "new repo",
            "dispose repo",
            "drop repo",
            "dispose db",
            "drop db"
        ]
    );
}

#[test]
fn a_scope_disposes_only_the_objects_it_owns() {
    let t = "dispose-scope-shared";
    let c = Container::from_json_str(
        &plan(json!({
            "cfg": node(t, "cfg", "singleton", &[]),
            "cfgView": alias_of("cfg", "scoped"),
            "req": node(t, "req", "scoped", &[]),
            "reqView": alias_of("req", "scoped"),
        })),
        &registry(),
    )
    .unwrap();
    let outer = c.scope();
    let req = outer.get::<Node>("req").unwrap();
    {
        // A nested scope: reqView is the outer scope's req, cfgView the container's cfg.
        let inner = outer.scope();
        assert!(Arc::ptr_eq(&inner.get::<Node>("reqView").unwrap(), &req));
        inner.get::<Node>("cfgView").unwrap();
    }
    assert_eq!(entries(t), ["new req", "new cfg"]);
    {
        // The same scope: req and reqView are one object, disposed once.
        let s = c.scope();
        let a = s.get::<Node>("reqView").unwrap();
        assert!(Arc::ptr_eq(&a, &s.get::<Node>("req").unwrap()));
    }
    assert_eq!(entries(t)[2..], ["new req", "dispose req", "drop req"]);
    drop(req);
    drop(outer);
    assert_eq!(entries(t)[5..], ["dispose req", "drop req"]);
    drop(c);
    assert_eq!(entries(t)[7..], ["dispose cfg", "drop cfg"]);
}

/// Counts constructions of each of 8 services across 16 threads.
static BUILDS: [AtomicUsize; 8] = [const { AtomicUsize::new(0) }; 8];
static SCOPED_BUILDS: AtomicUsize = AtomicUsize::new(0);
/// Fails the first two constructions, to test retries under contention.
static FLAKY_CALLS: AtomicUsize = AtomicUsize::new(0);

struct Counted(usize);
struct ScopedCounted;
struct Flaky;

#[test]
fn sixteen_threads_construct_each_fresh_singleton_exactly_once() {
    let mut r = Registry::new();
    r.class::<Counted>("App\\Counted").constructor(|a| {
        let i = a.int(0)? as usize;
        BUILDS[i].fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(2));
        Ok(Counted(i))
    });
    r.class::<ScopedCounted>("App\\ScopedCounted")
        .constructor(|_| {
            SCOPED_BUILDS.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(2));
            Ok(ScopedCounted)
        });
    r.class::<Flaky>("App\\Flaky").constructor(|_| {
        if FLAKY_CALLS.fetch_add(1, Ordering::SeqCst) < 2 {
            return Err("not yet".into());
        }
        Ok(Flaky)
    });
    let mut services = serde_json::Map::new();
    for i in 0..8 {
        // s{i} depends on s{i-1}, so threads also meet inside dependency chains.
        let args = if i == 0 {
            json!([i])
        } else {
            json!([i, {"$ref": format!("s{}", i - 1)}])
        };
        services.insert(
            format!("s{i}"),
            json!({"type": "App\\Counted", "create": {"$new": "App\\Counted", "args": args}}),
        );
    }
    services.insert(
        "scoped".into(),
        json!({"type": "App\\ScopedCounted", "lifespan": "scoped",
               "create": {"$new": "App\\ScopedCounted", "args": []}}),
    );
    services.insert(
        "flaky".into(),
        json!({"type": "App\\Flaky", "create": {"$new": "App\\Flaky", "args": []}}),
    );
    let c = Container::from_json_str(&plan(Json::Object(services)), &r).unwrap();
    let scope = c.scope();

    const THREADS: usize = 16;
    let barrier = Barrier::new(THREADS);
    let results: Vec<(Vec<Arc<Counted>>, Arc<ScopedCounted>, bool)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (c, scope, barrier) = (&c, &scope, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    // Half the threads walk up the chain, half down.
                    let order: Vec<usize> = if t % 2 == 0 {
                        (0..8).collect()
                    } else {
                        (0..8).rev().collect()
                    };
                    let mut got: Vec<Arc<Counted>> = Vec::new();
                    for i in order {
                        got.push(c.get::<Counted>(&format!("s{i}")).unwrap());
                    }
                    got.sort_by_key(|x| x.0);
                    let scoped = scope.get::<ScopedCounted>("scoped").unwrap();
                    let flaky_ok = (0..5).any(|_| c.get::<Flaky>("flaky").is_ok());
                    (got, scoped, flaky_ok)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, b) in BUILDS.iter().enumerate() {
        assert_eq!(
            b.load(Ordering::SeqCst),
            1,
            "s{i} constructed more than once"
        );
    }
    assert_eq!(SCOPED_BUILDS.load(Ordering::SeqCst), 1);
    // Two failures, then one success that every later request shares.
    assert_eq!(FLAKY_CALLS.load(Ordering::SeqCst), 3);
    let (first, scoped0, _) = &results[0];
    for (got, scoped, flaky_ok) in &results {
        assert!(flaky_ok);
        assert!(Arc::ptr_eq(scoped, scoped0));
        for (a, b) in got.iter().zip(first) {
            assert!(Arc::ptr_eq(a, b));
        }
    }
}

#[test]
fn a_cycle_through_a_generated_accessor_is_reported_not_recursed() {
    #[derive(Debug)]
    struct Loop;
    let mut r = Registry::new();
    r.class::<Loop>("App\\Loop").constructor(|a| {
        // The constructor asks the accessor for the very service being built.
        let acc = a.service::<wireplan_runtime::Accessor>(0)?;
        acc.get::<Loop>()?;
        Ok(Loop)
    });
    let c = Container::from_json_str(
        &plan(json!({
            "loop": {"type": "App\\Loop", "create": {"$new": "App\\Loop", "args": [{"$ref": "acc"}]}},
            "acc": {"kind": "accessor", "type": "App\\LoopAccessor", "create": {"$ref": "loop"}},
        })),
        &r,
    )
    .unwrap();
    let e = c.get::<Loop>("loop").unwrap_err();
    assert!(
        e.to_string().contains("circular reference: loop -> loop"),
        "{e}"
    );
}

#[test]
fn generated_services_asked_for_inside_a_scope_reach_scoped_services() {
    let t = "generated-scope";
    let mut services = json!({
        "req": node(t, "req", "scoped", &[]),
    });
    services["acc"] = json!({"kind": "accessor", "type": "App\\Node", "create": {"$ref": "req"}});
    let c = Container::from_json_str(&plan(services), &registry()).unwrap();
    // Outside a scope the accessor cannot reach a scoped service.
    let root = c.get::<wireplan_runtime::Accessor>("acc").unwrap();
    assert!(matches!(
        root.get::<Node>(),
        Err(Error::ScopeRequired { .. })
    ));
    // Asked for inside a scope, it resolves in that scope: the same instance the scope has.
    let scope = c.scope();
    let acc = scope.get::<wireplan_runtime::Accessor>("acc").unwrap();
    let req = acc.get::<Node>().unwrap();
    assert!(Arc::ptr_eq(&req, &scope.get::<Node>("req").unwrap()));
}

/// As [`registry`], without a dispose hook (the container then skips grouping references by
/// object when it is dropped).
fn registry_without_hooks() -> Registry {
    let mut r = Registry::new();
    r.class::<Node>("App\\Node").constructor(|a| {
        let tag = a.str(0)?.to_string();
        let name = a.str(1)?.to_string();
        let deps = a.list_of::<Node>(2)?;
        log(&tag, &format!("new {name}"));
        Ok(Node { tag, name, deps })
    });
    r
}

#[test]
fn without_dispose_hooks_the_container_drops_singletons_newest_first() {
    let t = "drop-no-hooks";
    let c = Container::from_json_str(
        &plan(json!({
            "db": node(t, "db", "singleton", &[]),
            "repo": node(t, "repo", "singleton", &["db"]),
            "t8": alias_of("db", "singleton"),
            "unused": node(t, "unused", "singleton", &[]),
            "mailer": node(t, "mailer", "singleton", &[]),
        })),
        &registry_without_hooks(),
    )
    .unwrap();
    c.get::<Node>("repo").unwrap();
    // `t8` publishes the object of `db` a second time, after `repo`.
    let db = c.get::<Node>("db").unwrap();
    assert!(Arc::ptr_eq(&db, &c.get::<Node>("t8").unwrap()));
    drop(db);
    c.get::<Node>("mailer").unwrap();
    drop(c);
    // Newest first; `db` goes last (its last reference is at its first publication, before
    // `repo`, which holds it too).
    assert_eq!(
        entries(t),
        [
            "new db",
            "new repo",
            "new mailer",
            "drop mailer",
            "drop repo",
            "drop db"
        ]
    );
}

/// A singleton that `get_by_type` returned (and whose cast the by-type table keeps) is still
/// released in its place, newest first: the kept cast goes before the slots are released.
#[test]
fn a_singleton_found_by_type_is_still_dropped_newest_first() {
    let t = "drop-by-type";
    let services = json!({
        "db": node(t, "db", "singleton", &[]),
        "mailer": node(t, "mailer", "singleton", &[]),
    });
    let plan = json!({"format": "wireplan-plan", "version": 1, "compiler": "test",
                      "inputs_hash": "0", "services": services,
                      "types": {"App\\Node": ["mailer"]}})
    .to_string();
    let c = Container::from_json_str(&plan, &registry_without_hooks()).unwrap();
    c.get::<Node>("db").unwrap();
    let mailer = c.get_by_type::<Node>().unwrap();
    assert_eq!(mailer.name, "mailer");
    assert_eq!(c.get_by_type::<Node>().unwrap().name, "mailer");
    drop(mailer);
    drop(c);
    assert_eq!(
        entries(t),
        ["new db", "new mailer", "drop mailer", "drop db"]
    );
}

struct Leaf;
struct Holder {
    _leaf: Arc<Leaf>,
}

/// The binary reader that loads ordinary plans straight into tables (arguments that are plain
/// references) refuses a captive dependency too: it leaves such a plan to the model's checks,
/// which name it. (A hand-edited plan: it loaded, then every request failed; second new
/// user's trial.)
#[test]
fn a_binary_plan_with_a_captive_dependency_is_refused_at_load() {
    let mut r = Registry::new();
    r.class::<Leaf>("App\\Leaf").constructor(|_| Ok(Leaf));
    r.class::<Holder>("App\\Holder").constructor(|a| {
        Ok(Holder {
            _leaf: a.service::<Leaf>(0)?,
        })
    });
    let service = |class: &str, lifespan: &str, args: Json| json!({"type": class, "lifespan": lifespan, "create": {"$new": class, "args": args}});
    let binary = |holder: &str, part: &str| {
        let text = plan(json!({
            "leaf": service("App\\Leaf", "scoped", json!([])),
            "part": service("App\\Holder", part, json!([{"$ref": "leaf"}])),
            "holder": service("App\\Holder", holder, json!([{"$ref": "part"}])),
        }));
        wireplan_runtime::plan::Plan::from_json_str(&text, "p")
            .unwrap()
            .to_binary()
    };
    // Scoped throughout, or a scoped holder of a transient: loads.
    Container::from_bytes(&binary("scoped", "scoped"), &r).expect("loads");
    Container::from_bytes(&binary("scoped", "transient"), &r).expect("loads");
    // A singleton holding the scoped leaf through a transient, or the scoped part directly.
    for (part, path) in [
        ("transient", "holder -> part -> leaf"),
        ("scoped", "holder -> part"),
    ] {
        let Err(e) = Container::from_bytes(&binary("singleton", part), &r) else {
            panic!("{part}: loaded");
        };
        let e = e.to_string();
        assert!(e.contains(&format!("(path: {path})")), "{part}: {e}");
    }
}
