//! The `wireplan` command line: thin argument parsing over the library; exit codes 0 (ok),
//! 1 (diagnostics with errors), 2 (usage).

/// Counts what each thread allocates, so the script sandbox can bound it (issue #13).
#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use wireplan::diagnostics::{self, Code, Diagnostic};
use wireplan::source::SourceMap;
use wireplan_runtime::Encoding;

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
    /// Compile a configuration into a plan file (writes nothing when there is an error).
    Compile {
        /// The root NEON configuration.
        config: PathBuf,
        /// Where to write the plan (binary when the name ends in `.bin`, JSON otherwise).
        #[arg(short, long, value_name = "PLAN")]
        output: PathBuf,
        /// The plan encoding, overriding the one the file name implies.
        #[arg(long = "format", value_enum, value_name = "ENCODING")]
        encoding: Option<PlanEncoding>,
        #[command(flatten)]
        params: ParamArgs,
    },
    /// Check a configuration and report every diagnostic; writes no plan.
    Check {
        /// The root NEON configuration.
        config: PathBuf,
        /// Output format of the diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[command(flatten)]
        params: ParamArgs,
    },
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
    /// Encode canonical JSON (what `neon decode` prints) as NEON on standard output.
    Encode {
        /// The JSON file.
        file: PathBuf,
        /// One line of inline NEON instead of indented blocks.
        #[arg(long)]
        inline: bool,
        /// Indentation of blocks and of `'''` strings: spaces and tabs, a number of spaces
        /// (`4`), or `\t` for a tab (the default).
        #[arg(long, value_name = "STR", default_value = "\\t")]
        indent: String,
    },
}

/// Parameter options shared by `compile` and `check`.
#[derive(clap::Args)]
struct ParamArgs {
    /// Override a parameter: `-p name=value` (the value is decoded as NEON).
    #[arg(short = 'p', long = "parameter", value_name = "NAME=VALUE")]
    parameters: Vec<String>,
    /// Declare a parameter dynamic (read when the container starts, never frozen in the plan).
    #[arg(long = "dynamic", value_name = "NAME")]
    dynamic: Vec<String>,
    /// A folder searched for extensions given by bare name (`logging: logaware`), before the
    /// ones shipped with wireplan. Repeatable; `WIREPLAN_SCRIPTS` (colon-separated) adds more.
    #[arg(long = "scripts", value_name = "DIR")]
    scripts: Vec<PathBuf>,
}

/// Plan encodings for `compile --format`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum PlanEncoding {
    /// Pretty-printed JSON.
    Json,
    /// The binary form (postcard payload behind a checked header).
    Bin,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    /// Rendered diagnostics on standard error.
    Human,
    /// A JSON array of `{code, severity, message, file, line, column}` on standard output.
    Json,
}

/// The compiler options from the command line, and the problems with them. A bad `--dynamic`
/// name or `-p` item is reported and left out, so that the compilation still runs and shows
/// every independent error (a `-p` value that is not valid NEON is as if not given).
fn options(
    args: &ParamArgs,
    sources: &mut SourceMap,
) -> (wireplan::compiler::Options, Vec<Diagnostic>) {
    let mut problems = Vec::new();
    let mut script_paths = args.scripts.clone();
    if let Some(extra) = std::env::var_os("WIREPLAN_SCRIPTS") {
        script_paths.extend(std::env::split_paths(&extra));
    }
    let mut dynamic = Vec::new();
    for d in &args.dynamic {
        if valid_parameter_name(d) {
            dynamic.push(d.clone());
        } else {
            problems.push(Diagnostic::error(
                Code::InvalidValue,
                format!("--dynamic expects a parameter name, '{d}' given."),
            ));
        }
    }
    let mut opts = wireplan::compiler::Options {
        dynamic,
        script_paths,
        ..Default::default()
    };
    for p in &args.parameters {
        let Some((name, value)) = p.split_once('=').filter(|(n, _)| valid_parameter_name(n)) else {
            problems.push(Diagnostic::error(
                Code::InvalidValue,
                format!("-p expects NAME=VALUE (NAME may be dotted: db.host), '{p}' given."),
            ));
            continue;
        };
        let id = sources.add(format!("<-p {name}>"), value.to_string());
        match wireplan::neon::decode(value, id) {
            Ok(v) => {
                opts.parameters.insert(name.to_string(), v);
            }
            Err(d) => problems.push(d.with_note(format!(
                "the value of -p {name} is read as NEON; it is left out, as if not given"
            ))),
        }
    }
    (opts, problems)
}

fn compile(
    config: PathBuf,
    output: Option<(PathBuf, Encoding)>,
    format: Format,
    params: ParamArgs,
) -> ExitCode {
    let mut arg_sources = SourceMap::new();
    let (opts, arg_problems) = options(&params, &mut arg_sources);
    let result = wireplan::compiler::compile(&config, &opts);
    let diags = result.diagnostics.items();
    let errors = result.diagnostics.error_count() + arg_problems.len();
    match format {
        Format::Json => {
            let mut json = diagnostics::to_json(&arg_sources, &arg_problems);
            json.extend(diagnostics::to_json(&result.sources, diags));
            emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            ));
        }
        Format::Human => {
            diagnostics::render(&arg_sources, &arg_problems, color());
            diagnostics::render(&result.sources, diags, color());
        }
    }
    let Some(plan) = result.plan.filter(|_| arg_problems.is_empty()) else {
        if matches!(format, Format::Human) {
            say(format_args!("error: {errors} error(s); no plan written"));
        }
        return ExitCode::from(1);
    };
    if let Some((out, encoding)) = output {
        if let Err(d) = wireplan::plan::check_output(&out, &result.sources, &plan) {
            diagnostics::render(&result.sources, &[d], color());
            return ExitCode::from(1);
        }
        if let Err(e) = wireplan::plan::write_atomic(&out, &plan.encode(encoding)) {
            let d = Diagnostic::error(
                Code::Io,
                format!("Cannot write the plan to '{}': {e}", out.display()),
            );
            diagnostics::render(&result.sources, &[d], color());
            return ExitCode::from(1);
        }
        say(format_args!(
            "wrote {} ({} services)",
            out.display(),
            plan.services.len()
        ));
    } else if matches!(format, Format::Human) {
        let warnings = diags.len() - result.diagnostics.error_count();
        say(format_args!(
            "ok: {} services, {warnings} warning(s)",
            plan.services.len()
        ));
    }
    ExitCode::SUCCESS
}

/// `name` or `a.b.c` made of letters, digits, `_` and `-`.
fn valid_parameter_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        })
}

/// Colour only for a terminal, and never with `NO_COLOR` set.
fn color() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

fn read_input(
    path: &std::path::Path,
    sources: &mut SourceMap,
) -> Result<(wireplan::source::FileId, Vec<u8>), Diagnostic> {
    let bytes = wireplan::source::read_input_file(path).map_err(|e| {
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
                emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&json).unwrap_or_default()
                ));
                ExitCode::SUCCESS
            }
            Err(d) => {
                diagnostics::render(&sources, &[d], color());
                ExitCode::from(1)
            }
        },
    }
}

/// A JSON error: (message, 1-based line, 0-based byte column) and, when known, the byte offset.
type JsonError = ((String, usize, usize), Option<usize>);

/// Parses JSON as deep as NEON values go (the output of `neon decode` nests up to 500 levels,
/// beyond serde_json's default limit of 128): the nesting is measured first and bounded, then
/// parsed without the limit on a thread with a large stack.
fn read_deep_json(bytes: &[u8]) -> Result<serde_json::Value, JsonError> {
    use serde::Deserialize as _;
    const MAX_JSON_DEPTH: usize = 4 * wireplan::neon::MAX_DEPTH + 4;
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'[' | b'{' if !in_string => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    let msg = format!("nested deeper than {MAX_JSON_DEPTH} levels");
                    return Err(((msg, 0, 0), Some(i)));
                }
            }
            b']' | b'}' if !in_string => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let parse = move || {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        de.disable_recursion_limit();
        let v = serde_json::Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
        v.map_err(|e| {
            (
                (e.to_string(), e.line(), e.column().saturating_sub(1)),
                None,
            )
        })
    };
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(64 * 1024 * 1024)
            .spawn_scoped(scope, parse)
            .map_err(|e| ((e.to_string(), 0, 0), Some(0)))?
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// `neon encode`: canonical JSON in, NEON out. Exit 1 for unreadable or unencodable input, 2 for
/// a bad `--indent`.
fn neon_encode(file: PathBuf, inline: bool, indent: &str) -> ExitCode {
    use wireplan::neon::{self, EncodeError, EncodeOptions};
    let indent = match indent {
        "\\t" => "\t".to_string(),
        n if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            " ".repeat(n.parse::<usize>().unwrap_or(0).min(64))
        }
        s => s.to_string(),
    };
    let opts = if inline {
        EncodeOptions::inline()
    } else {
        EncodeOptions::block()
    }
    .with_indent(indent);
    let mut sources = SourceMap::new();
    let fail = |sources: &SourceMap, d: Diagnostic| {
        diagnostics::render(sources, &[d], color());
        ExitCode::from(1)
    };
    let (id, bytes) = match read_input(&file, &mut sources) {
        Ok(x) => x,
        Err(d) => return fail(&sources, d),
    };
    let json = match read_deep_json(&bytes) {
        Ok(j) => j,
        Err((message, at)) => {
            let at = match at {
                Some(at) => at,
                None => sources.get(id).line_start(message.1.saturating_sub(1)) + message.2,
            }
            .min(bytes.len());
            let d = Diagnostic::error(Code::InvalidValue, format!("Invalid JSON: {}", message.0))
                .with_primary(wireplan::source::Span::new(id, at, at), "here");
            return fail(&sources, d);
        }
    };
    match neon::from_json(&json).and_then(|v| neon::encode(&v, &opts)) {
        Ok(text) if inline => {
            emit(&format!("{text}\n"));
            ExitCode::SUCCESS
        }
        Ok(text) => {
            emit(&text);
            ExitCode::SUCCESS
        }
        Err(e @ EncodeError::BadIndent(_)) => {
            say(format_args!("error: --indent: {e}"));
            ExitCode::from(2)
        }
        Err(e) => fail(
            &sources,
            Diagnostic::error(
                Code::InvalidValue,
                format!("Cannot encode '{}' as NEON: {e}", file.display()),
            ),
        ),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Compile {
            config,
            output,
            encoding,
            params,
        } => {
            let encoding = match encoding {
                Some(PlanEncoding::Json) => Encoding::Json,
                Some(PlanEncoding::Bin) => Encoding::Binary,
                None => Encoding::for_path(&output),
            };
            compile(config, Some((output, encoding)), Format::Human, params)
        }
        Command::Check {
            config,
            format,
            params,
        } => compile(config, None, format, params),
        Command::Neon {
            command: NeonCommand::Decode { file },
        } => neon_decode(file),
        Command::Neon {
            command:
                NeonCommand::Encode {
                    file,
                    inline,
                    indent,
                },
        } => neon_encode(file, inline, &indent),
    }
}

/// Writes command output to stdout. A reader that went away (`wireplan ... | head`) is not an
/// error worth a panic: the rest of the output is dropped.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Writes one line to standard error. As [`emit`] for stdout: a closed stream
/// (`wireplan check … 2>&1 | head`) drops the line instead of panicking.
fn say(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
