//! Links the `wireplan` and `wireplan-repl` executables as position-dependent on Linux (glibc,
//! dynamically linked: the toolchain's default there).
//!
//! A position-independent executable (the toolchain's default) carries about 21,000 relative
//! relocations (vtables and string tables of clap, pest, Rhai and the compiler), which the
//! dynamic loader applies at every start, writing to about 90 pages of the image. Linked with
//! `-no-pie` they are resolved when the executable is linked: `wireplan --version` takes
//! 1.1 ms of CPU and 185 page faults instead of 1.3–1.7 ms and 272, which every `compile`
//! pays once (docs/performance.md, "Build settings"). The price is that the executable's own
//! image loads at a fixed address (no address-space randomisation for it; libraries, heap
//! and stacks keep theirs). Set `WIREPLAN_BUILD_PIE=1` when building to keep the default.
//!
//! Only the binaries change: the library, tests and benchmarks link as before, and a program
//! that uses wireplan as a library or build dependency is not affected.

fn main() {
    println!("cargo:rerun-if-env-changed=WIREPLAN_BUILD_PIE");
    println!("cargo:rerun-if-changed=build.rs");
    let cfg = |key: &str| std::env::var(key).unwrap_or_default();
    // glibc targets linked dynamically only: a static build (musl's default, or
    // `+crt-static`) is linked as a static PIE, which `-no-pie` would contradict.
    let dynamic_glibc = cfg("CARGO_CFG_TARGET_OS") == "linux"
        && cfg("CARGO_CFG_TARGET_ENV") == "gnu"
        && !cfg("CARGO_CFG_TARGET_FEATURE")
            .split(',')
            .any(|f| f == "crt-static");
    let keep_pie = std::env::var_os("WIREPLAN_BUILD_PIE").is_some_and(|v| v != "0");
    if dynamic_glibc && !keep_pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
