//! The `wireplan` command line: thin argument parsing over the library; exit codes 0 (ok),
//! 1 (diagnostics with errors), 2 (usage).

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use wireplan::diagnostics::{self, Code, Diagnostic};
use wireplan::source::SourceMap;

#[derive(Parser)]
#[command(
    name = "wireplan",
    version,
    about = "Dependency-injection container compiler: NEON configs + Rhai extensions → plan files"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// NEON tools.
    Neon {
        #[command(subcommand)]
        command: NeonCommand,
    },
}

#[derive(Subcommand)]
enum NeonCommand {
    /// Decode a NEON file and print its canonical JSON.
    Decode {
        /// The NEON file.
        file: PathBuf,
    },
}

fn color() -> bool {
    std::env::var_os("NO_COLOR").is_none()
}

fn read_input(
    path: &std::path::Path,
    sources: &mut SourceMap,
) -> Result<(wireplan::source::FileId, Vec<u8>), Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostic::error(
            Code::FileNotFound,
            format!("Cannot read '{}': {e}", path.display()),
        )
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let id = sources.add_path(path.display().to_string(), path, text);
    Ok((id, bytes))
}

fn neon_decode(file: PathBuf) -> ExitCode {
    let mut sources = SourceMap::new();
    match read_input(&file, &mut sources) {
        Err(d) => {
            diagnostics::render(&sources, &[d], color());
            ExitCode::from(1)
        }
        Ok((id, bytes)) => match wireplan::neon::decode_bytes(&bytes, id) {
            Ok(v) => {
                let json = wireplan::neon::to_json(&v);
                println!(
                    "{}",
                    serde_json::to_string_pretty(&json).unwrap_or_default()
                );
                ExitCode::SUCCESS
            }
            Err(d) => {
                diagnostics::render(&sources, &[d], color());
                ExitCode::from(1)
            }
        },
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Neon {
            command: NeonCommand::Decode { file },
        } => neon_decode(file),
    }
}
