fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // Debug builds use dev mode; only a release build compiles and embeds the plan. It reads
    // catalog.json, so write that first (`WIREPLAN_WRITE_CATALOG=catalog.json cargo run`).
    if std::env::var("PROFILE").as_deref() != Ok("release") {
        return;
    }
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    if let Err(e) =
        wireplan::build::compile_plan_with_catalog("config/app.neon", "catalog.json", out_dir)
    {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
