//! Repeats one operation of the peers table on the peers graph's wireplan container, for
//! profilers and for alternating wall-time runs of two builds (docs/performance.md, "Tenth
//! pass"):
//!
//! ```sh
//! cargo build --release -p wireplan-runtime --example peers_loop
//! target/release/examples/peers_loop dyn 20000000
//! valgrind --tool=callgrind target/release/examples/peers_loop concrete 1000000
//! ```
//!
//! Operations: `dyn` (a cached `get_by_type::<dyn Named>()`), `concrete` (a cached
//! `get_by_type::<S49>()`), `registry` (build the registry), `load` (load the 55-service binary
//! plan), `cold` (load it and create the 50 singletons), `transient` (a `get_by_type::<TRoot>()`:
//! the 4-object transient tree), `ferrunix-transient` (the same tree through ferrunix),
//! `cold-row` (the peers row "new container + 50-singleton graph": build the registry, load
//! the plan, create the singletons, drop) and `ferrunix-cold` (that row through ferrunix). Prints the mean wall time per
//! operation in nanoseconds. Instructions per operation are the difference of two callgrind
//! runs with different counts divided by the difference of the counts.

#[path = "../benches/peers/mod.rs"]
mod peers;

use std::hint::black_box;
use std::sync::Arc;

use peers::{wireplan_container, wireplan_plan, wireplan_registry, Named, TRoot, S49};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || -> ! {
        eprintln!("usage: peers_loop dyn|concrete|transient|ferrunix-transient|registry|load|cold|cold-row|ferrunix-cold [COUNT]");
        std::process::exit(2)
    };
    let op = args.first().cloned().unwrap_or_else(|| usage());
    let count: usize = match args.get(1) {
        Some(n) => n.parse().unwrap_or_else(|_| usage()),
        None => 1_000_000,
    };
    let plan = wireplan_plan();
    let registry = wireplan_registry();
    let container = wireplan_container(&plan, &registry);
    container.warm_up().expect("the peers graph creates");
    let start = std::time::Instant::now();
    match op.as_str() {
        "dyn" => (0..count).for_each(|_| {
            let x: Arc<dyn Named> = container.get_by_type::<dyn Named>().unwrap();
            black_box(x);
        }),
        "concrete" => (0..count).for_each(|_| {
            black_box(container.get_by_type::<S49>().unwrap());
        }),
        "registry" => (0..count).for_each(|_| {
            black_box(wireplan_registry());
        }),
        "load" => (0..count).for_each(|_| {
            black_box(wireplan_container(&plan, &registry));
        }),
        "transient" => (0..count).for_each(|_| {
            black_box(container.get_by_type::<TRoot>().unwrap());
        }),
        "ferrunix-transient" => {
            let fx = peers::ferrunix_registry();
            (0..count).for_each(|_| {
                black_box(fx.transient::<Arc<TRoot>>().unwrap());
            })
        }
        "ferrunix-cold" => (0..count).for_each(|_| {
            let r = peers::ferrunix_registry();
            peers::ferrunix_create_all(&r);
            black_box(r);
        }),
        "cold-row" => (0..count).for_each(|_| {
            let c = wireplan_container(&plan, &wireplan_registry());
            c.warm_up().unwrap();
            black_box(c);
        }),
        "cold" => (0..count).for_each(|_| {
            let c = wireplan_container(&plan, &registry);
            c.warm_up().unwrap();
            black_box(c);
        }),
        _ => usage(),
    }
    let per = start.elapsed().as_nanos() as f64 / count.max(1) as f64;
    println!("{per:.2} ns per {op} ({count} times)");
}
