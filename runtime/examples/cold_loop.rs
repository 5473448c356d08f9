#[path = "../benches/peers/mod.rs"]
mod peers;
use peers::{wireplan_container, wireplan_plan, wireplan_registry, Named, S49};
use std::hint::black_box;
use std::sync::Arc;
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let mode = std::env::args().nth(2).unwrap_or_default();
    let plan = wireplan_plan();
    let registry = wireplan_registry();
    let c = wireplan_container(&plan, &registry);
    c.warm_up().unwrap();
    let start = std::time::Instant::now();
    for _ in 0..n {
        match mode.as_str() {
            "reg" => {
                black_box(wireplan_registry());
            }
            "load" => {
                black_box(wireplan_container(&plan, &registry));
            }
            "warm" => {
                let c = wireplan_container(&plan, &registry);
                c.warm_up().unwrap();
                black_box(c);
            }
            "dyn" => {
                let x: Arc<dyn Named> = c.get_by_type::<dyn Named>().unwrap();
                black_box(x);
            }
            _ => {
                let x: Arc<S49> = c.get_by_type::<S49>().unwrap();
                black_box(x);
            }
        }
    }
    println!(
        "{} {:.2} ns",
        mode,
        start.elapsed().as_secs_f64() * 1e9 / n as f64
    );
}
