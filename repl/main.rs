//! `wireplan-repl CONFIG [OPTIONS]`: the same as `wireplan repl CONFIG [OPTIONS]` (kept as an
//! alias binary). Type `:help` inside.

/// Counts what each thread allocates, so the script sandbox can bound it (issue #13).
#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use wireplan::cli::{options, ParamArgs};

/// Interactive shell over a compilation stopped after a phase.
#[derive(Parser)]
#[command(name = "wireplan-repl", version)]
struct Args {
    /// The root NEON configuration.
    config: PathBuf,
    #[command(flatten)]
    params: ParamArgs,
}

fn main() -> ExitCode {
    wireplan::script::sandbox::raise_stack_limit();
    let args: Args = wireplan::cli::parse_or_exit();
    let mut sources = wireplan::source::SourceMap::new();
    let (opts, problems) = options(&args.params, &mut sources);
    let color = {
        use std::io::IsTerminal;
        wireplan::diagnostics::colour_allowed() && std::io::stderr().is_terminal()
    };
    wireplan::repl::terminal::start(&args.config, opts, &sources, &problems, color)
}
