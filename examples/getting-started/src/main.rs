use std::process::ExitCode;
use wireplan_runtime::{Container, Registry};

fn main() -> ExitCode {
    let registry = hello::registry();
    // `WIREPLAN_WRITE_CATALOG=catalog.json cargo run` writes the catalog and exits.
    wireplan_runtime::catalog::write_if_requested(&registry);

    match run(&registry) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(registry: &Registry) -> Result<(), Box<dyn std::error::Error>> {
    let container = load(registry)?;
    let app = container.get::<hello::App>("app")?;
    println!("{}", app.run());
    Ok(())
}

/// Debug builds: dev mode compiles the configuration with the registry's catalog when a file
/// or a Rust type changed, and caches the plan in target/wireplan-cache.
#[cfg(debug_assertions)]
fn load(registry: &Registry) -> Result<Container, Box<dyn std::error::Error>> {
    Ok(wireplan::dev::load_or_compile(
        "config/app.neon",
        "target/wireplan-cache",
        registry,
    )?)
}

/// Release builds: the plan build.rs compiled, embedded in the binary.
#[cfg(not(debug_assertions))]
fn load(registry: &Registry) -> Result<Container, Box<dyn std::error::Error>> {
    let plan = include_bytes!(concat!(env!("OUT_DIR"), "/app.plan.bin"));
    // Errors name the plan by this label (`from_bytes` alone calls it `<bytes>`).
    Ok(Container::builder(registry).from_bytes_named(plan, "app.plan.bin (embedded)")?)
}
