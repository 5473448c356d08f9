//! Deep dependency graphs: creation continues on new stack segments instead of overflowing
//! a small thread stack, up to a fixed limit that is reported as an error naming the path.

use std::sync::Arc;

use serde_json::{json, Value as Json};
use wireplan_runtime::container::MAX_RESOLUTION_DEPTH;
use wireplan_runtime::{Container, Error, Registry, Value};

/// One link of a chain: `App\Holder([@next])`, as in a user's `sN: App\Holder([@sN+1])`.
#[derive(Debug)]
struct Holder {
    items: Vec<Value>,
}

impl Holder {
    /// How many holders follow this one.
    fn length(&self) -> usize {
        let mut n = 0;
        let mut items = self.items.clone();
        while let Some(Value::Service(next)) = items.first() {
            let next = next.downcast::<Holder>().expect("a Holder");
            items = next.items.clone();
            n += 1;
        }
        n
    }
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.class::<Holder>("App\\Holder").constructor(|a| {
        Ok(Holder {
            items: a.list(0)?.to_vec(),
        })
    });
    r
}

/// `s0 -> s1 -> … -> s{depth-1}`, each `App\Holder([@next])` of `lifespan`.
fn chain(depth: usize, lifespan: &str) -> String {
    let mut services = serde_json::Map::new();
    for i in 0..depth {
        let items: Vec<Json> = if i + 1 < depth {
            vec![json!({"$ref": format!("s{}", i + 1)})]
        } else {
            vec![]
        };
        services.insert(
            format!("s{i}"),
            json!({"type": "App\\Holder", "lifespan": lifespan,
                   "create": {"$new": "App\\Holder", "args": [items]}}),
        );
    }
    json!({"format": "wireplan-plan", "version": 1, "compiler": "test", "inputs_hash": "0",
           "services": services})
    .to_string()
}

/// Runs `f` on a new thread with a 256 KB stack (a 50-deep chain overflowed a 2 MB stack in
/// a debug build before creation grew the stack).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn a_two_thousand_deep_chain_is_created_on_a_256_kb_stack() {
    let plan = chain(2000, "singleton");
    let (length, created) = on_small_stack(move || {
        let c = Container::from_json_str(&plan, &registry()).unwrap();
        let head = c.get::<Holder>("s0").unwrap();
        let created = c.is_created("s1999");
        let length = head.length();
        drop(head);
        drop(c); // releasing 2,000 singletons does not recurse either
        (length, created)
    });
    assert_eq!(length, 1999);
    assert!(created);
}

#[test]
fn a_chain_deeper_than_the_limit_is_an_error_naming_the_path() {
    let depth = MAX_RESOLUTION_DEPTH + 5;
    let plan = chain(depth, "singleton");
    let e = on_small_stack(move || {
        let c = Container::from_json_str(&plan, &registry()).unwrap();
        let e = c.get::<Holder>("s0").unwrap_err();
        // Nothing half-built was cached, and the thread's count is back to zero: a shorter
        // chain from the middle works.
        assert!(!c.is_created("s0"));
        let tail = c.get::<Holder>(&format!("s{}", depth - 100)).unwrap();
        assert_eq!(tail.length(), 99);
        e
    });
    let Error::TooDeep { path, limit } = &e else {
        panic!("expected TooDeep, got {e}");
    };
    assert_eq!(*limit, MAX_RESOLUTION_DEPTH);
    assert_eq!(path.len(), MAX_RESOLUTION_DEPTH + 1);
    assert_eq!(path[..3], ["s0", "s1", "s2"]);
    assert_eq!(path.last().unwrap(), &format!("s{MAX_RESOLUTION_DEPTH}"));
    assert_eq!(
        e.to_string(),
        format!(
            "dependency chain deeper than {MAX_RESOLUTION_DEPTH} services (path: s0 -> s1 -> \
             s2 -> s3 -> … ({} more) … -> s{} -> s{} -> s{} -> s{MAX_RESOLUTION_DEPTH})",
            MAX_RESOLUTION_DEPTH + 1 - 8,
            MAX_RESOLUTION_DEPTH - 3,
            MAX_RESOLUTION_DEPTH - 2,
            MAX_RESOLUTION_DEPTH - 1,
        )
    );
}

#[test]
fn a_factory_whose_product_calls_the_factory_stops_at_the_limit() {
    // The product of `f` is App\Holder([@f::create()]): every create() starts the next one,
    // and no cache can reveal the cycle.
    let plan = json!({"format": "wireplan-plan", "version": 1, "compiler": "test",
        "inputs_hash": "0",
        "services": {"f": {"kind": "factory", "type": "App\\HolderFactory",
            "implement": "App\\HolderFactory",
            "create": {"$new": "App\\Holder",
                       "args": [[{"$call": [{"$ref": "f"}, "create"], "args": []}]]}}}})
    .to_string();
    let e = on_small_stack(move || {
        let c = Container::from_json_str(&plan, &registry()).unwrap();
        let f = c.get::<wireplan_runtime::Factory>("f").unwrap();
        f.create::<Holder>(&[]).map(|_| ()).unwrap_err()
    });
    assert!(
        matches!(&e, Error::TooDeep { path, limit } if path == &["f"] && *limit == MAX_RESOLUTION_DEPTH),
        "{e}"
    );
}

#[test]
fn deep_transient_and_scoped_chains_work_on_a_small_stack_too() {
    // Transients are limited to 256 nested levels (a cycle guard); scoped ones are not.
    let plan = chain(200, "transient");
    let length = on_small_stack(move || {
        let c = Container::from_json_str(&plan, &registry()).unwrap();
        let head = c.get::<Holder>("s0").unwrap();
        head.length()
    });
    assert_eq!(length, 199);
    let plan = chain(1500, "scoped");
    let length = on_small_stack(move || {
        let c = Container::from_json_str(&plan, &registry()).unwrap();
        let s = c.scope();
        let head: Arc<Holder> = s.get("s0").unwrap();
        head.length()
    });
    assert_eq!(length, 1499);
}

/// A panic in a transient's constructor unwinds through the container; the depth it counted
/// is given back, so a thread that caught 300 such panics (more than the transient depth limit
/// of 256) still creates transients.
#[test]
fn a_panicking_transient_constructor_gives_its_depth_back() {
    #[derive(Debug)]
    struct Fragile;
    let mut r = Registry::new();
    r.class::<Fragile>("App\\Fragile")
        .constructor(|a| match a.int(0)? {
            0 => panic!("the constructor gives up"),
            _ => Ok(Fragile),
        });
    let plan = json!({"format": "wireplan-plan", "version": 1, "compiler": "test",
        "inputs_hash": "0", "services": {
            "bad": {"type": "App\\Fragile", "lifespan": "transient",
                    "create": {"$new": "App\\Fragile", "args": [0]}},
            "good": {"type": "App\\Fragile", "lifespan": "transient",
                     "create": {"$new": "App\\Fragile", "args": [1]}}}})
    .to_string();
    let c = Container::from_json_str(&plan, &r).unwrap();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for _ in 0..300 {
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| c.get::<Fragile>("bad")));
        assert!(caught.is_err());
    }
    std::panic::set_hook(hook);
    assert!(c.get::<Fragile>("good").is_ok());
}
