//! Asks the peers graph's wireplan container for its transient tree in a loop, for profilers
//! (the peers table of `benches/runtime.rs` times the same request; see docs/performance.md,
//! "The transient tree"):
//!
//! ```sh
//! cargo build --release -p wireplan-runtime --example transient_loop
//! valgrind --tool=callgrind target/release/examples/transient_loop 200000
//! ```
//!
//! Prints the mean wall time per request in nanoseconds. Argument: how many requests
//! (default 20,000,000). Instructions per request are the difference of two callgrind runs
//! with different counts divided by the difference of the counts (the setup cancels out).

#[path = "../benches/peers/mod.rs"]
mod peers;

use std::hint::black_box;
use std::sync::Arc;

use peers::{wireplan_container, wireplan_plan, wireplan_registry, TRoot};

fn main() {
    let requests: usize = match std::env::args().nth(1) {
        Some(n) => n.parse().unwrap_or_else(|_| {
            eprintln!("usage: transient_loop [REQUESTS]  (a count, got '{n}')");
            std::process::exit(2)
        }),
        None => 20_000_000,
    };
    let plan = wireplan_plan();
    let registry = wireplan_registry();
    let container = wireplan_container(&plan, &registry);
    container.warm_up().expect("the peers graph creates");
    let start = std::time::Instant::now();
    for _ in 0..requests {
        let tree: Arc<TRoot> = container.get_by_type::<TRoot>().expect("a transient tree");
        black_box(tree);
    }
    let per = start.elapsed().as_nanos() as f64 / requests.max(1) as f64;
    println!("{per:.1} ns per transient tree ({requests} requests)");
}
