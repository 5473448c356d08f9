//! Command-line options shared by the `wireplan` subcommands and the `wireplan-repl` alias
//! binary (clap derive types), and their conversion to compiler [`Options`].

use crate::compiler::Options;
use crate::diagnostics::{Code, Diagnostic};
use crate::source::SourceMap;
use std::path::PathBuf;

/// Parameter options shared by `compile`, `check` and `repl`.
#[derive(clap::Args)]
pub struct ParamArgs {
    /// Override a parameter: `-p name=value` (the value is decoded as NEON).
    #[arg(short = 'p', long = "parameter", value_name = "NAME=VALUE")]
    pub parameters: Vec<String>,
    /// Declare a parameter dynamic (read when the container starts, never frozen in the plan).
    #[arg(long = "dynamic", value_name = "NAME")]
    pub dynamic: Vec<String>,
    /// A folder searched for extensions given by bare name (`logging: logaware`), before the
    /// ones shipped with wireplan. Repeatable; `WIREPLAN_SCRIPTS` (colon-separated) adds more.
    #[arg(long = "scripts", value_name = "DIR")]
    pub scripts: Vec<PathBuf>,
    /// A catalog of the application's types besides the `types:` section: the JSON a registry
    /// writes (`Registry::catalog_json()`) or a NEON file with `types:`. Repeatable; a class
    /// may be declared only once across them (docs/catalog.md).
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalogs: Vec<PathBuf>,
    /// Stop with a `memory-limit` error when the compiler's heap grows past SIZE (bytes, or
    /// with a unit: 512MB, 2GB; powers of 1024). Default: 3/4 of the machine's memory.
    #[arg(
        long = "max-memory",
        value_name = "SIZE",
        allow_negative_numbers = true,
        value_parser = crate::memory::parse_size
    )]
    pub max_memory: Option<u64>,
}

/// The compiler options from the command line, and the problems with them. A `--scripts` folder
/// that does not exist is a `file-not-found` warning. A bad `--dynamic` name or `-p` item is an
/// error, reported and left out, so that the compilation still runs and shows
/// every independent error (a `-p` value that is not valid NEON is as if not given).
///
/// Also sets the process's memory ceiling ([`crate::memory::set_ceiling`]) from
/// `--max-memory`, or to [`crate::memory::default_ceiling`].
pub fn options(args: &ParamArgs, sources: &mut SourceMap) -> (Options, Vec<Diagnostic>) {
    crate::memory::set_ceiling(Some(
        args.max_memory
            .unwrap_or_else(crate::memory::default_ceiling),
    ));
    let mut problems = Vec::new();
    let mut script_paths = args.scripts.clone();
    let given = script_paths.len();
    if let Some(extra) = std::env::var_os("WIREPLAN_SCRIPTS") {
        // (An empty entry, as a trailing `:` leaves, names no folder.)
        script_paths.extend(std::env::split_paths(&extra).filter(|p| !p.as_os_str().is_empty()));
    }
    // A folder that is not there is said once, whether given by --scripts or by the
    // environment (a new user's trial found a WIREPLAN_SCRIPTS typo passed over in silence).
    for (k, dir) in script_paths.iter().enumerate().filter(|(_, d)| !d.is_dir()) {
        let what = if dir.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        let from = if k < given {
            "--scripts"
        } else {
            "WIREPLAN_SCRIPTS"
        };
        problems.push(
            Diagnostic::warning(
                Code::FileNotFound,
                format!("{from}: '{}' {what}.", dir.display()),
            )
            .with_note("no extension is searched for there"),
        );
    }
    let mut dynamic = Vec::new();
    for d in &args.dynamic {
        if let Some(problem) = too_many_segments("--dynamic", d) {
            problems.push(problem);
        } else if valid_parameter_name(d) {
            dynamic.push(d.clone());
        } else {
            problems.push(Diagnostic::error(
                Code::Usage,
                format!("--dynamic expects a parameter name, '{d}' given."),
            ));
        }
    }
    let mut opts = Options {
        dynamic,
        script_paths,
        catalogs: args
            .catalogs
            .iter()
            .map(|p| crate::catalog::CatalogInput::File(p.clone()))
            .collect(),
        ..Default::default()
    };
    for p in &args.parameters {
        let Some((name, value)) = p.split_once('=').filter(|(n, _)| valid_parameter_name(n)) else {
            problems.push(Diagnostic::error(
                Code::Usage,
                format!("-p expects NAME=VALUE (NAME may be dotted: db.host), '{p}' given."),
            ));
            continue;
        };
        if let Some(problem) = too_many_segments("-p", name) {
            problems.push(problem);
            continue;
        }
        let id = sources.add(crate::project::dash_p_source(name), value.to_string());
        if value.trim().is_empty() {
            // NEON reads nothing as null: say so, as a type error about it would only show
            // the configuration's `%name%`.
            problems.push(
                Diagnostic::warning(
                    Code::InvalidValue,
                    format!("-p {name}= gives no value: the parameter '{name}' is set to null."),
                )
                .with_note(format!(
                    "an empty NEON value is null; for an empty string write -p {name}=\"''\""
                )),
            );
        }
        match crate::neon::decode(value, id) {
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

/// `name` or `a.b.c` made of letters, digits, `_` and `-`.
/// At most this many dot-separated parts in a parameter name given on the command line
/// (`-p a.b.c=1` has 3): each part is one more level of nesting in the parameters, and the
/// configuration's own nesting is bounded too (NEON's `MAX_DEPTH`).
pub const MAX_NAME_PARTS: usize = 64;

/// The error for a `-p`/`--dynamic` name with more than [`MAX_NAME_PARTS`] parts.
fn too_many_segments(flag: &str, name: &str) -> Option<Diagnostic> {
    let parts = name.split('.').count();
    (parts > MAX_NAME_PARTS).then(|| {
        let shown: String = name.chars().take(60).collect();
        Diagnostic::error(
            Code::Usage,
            format!(
                "{flag}: the parameter name '{shown}…' has {parts} dot-separated parts; at most {MAX_NAME_PARTS} are allowed."
            ),
        )
        .with_note("it is left out, as if not given")
    })
}

fn valid_parameter_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        })
}

/// Parses the command line of a wireplan binary like clap's `Parser::parse`, except that a
/// usage error (unknown option, missing argument, value out of range, ...) is printed as
/// `error[usage]: …` with clap's text and suggestions, so that every error wireplan prints has
/// a code ([`Code::Usage`]); exit code 2 as before. `--help` and `--version` are printed and
/// exit 0 unchanged.
pub fn parse_or_exit<P: clap::Parser>() -> P {
    P::try_parse().unwrap_or_else(|e| exit_on(e))
}

/// Prints `e` (see [`parse_or_exit`]) and exits: 0 for help and version, 2 for usage errors.
fn exit_on(e: clap::Error) -> ! {
    if !e.use_stderr() {
        e.exit();
    }
    if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // clap renders the help alone: the error line would read the program's description.
        eprint!(
            "error[{}]: no command given\n\n{}",
            Code::Usage.as_str(),
            e.render()
        );
    } else {
        eprint!(
            "{}",
            watch_elsewhere(&e, usage_text(&e.render().to_string()))
        );
    }
    std::process::exit(2)
}

/// `--watch` given to a command other than `compile` (a trial: `check --watch` got clap's tip
/// to pass it as a value): the tip gives way to where watching is.
fn watch_elsewhere(e: &clap::Error, text: String) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let watch = e.kind() == ErrorKind::UnknownArgument
        && matches!(e.get(ContextKind::InvalidArg), Some(ContextValue::String(a)) if a == "--watch");
    if !watch {
        return text;
    }
    // The error line, the note, then clap's usage and help lines (the tip left out).
    let first = text.lines().next().unwrap_or_default();
    let rest = text.find("\nUsage:").map_or("", |at| &text[at..]);
    format!(
        "{first}\n  note: `compile` watches: wireplan compile CONFIG -o PLAN --watch reports \
         the diagnostics and writes the plan on every change (docs/tools.md)\n{rest}"
    )
}

/// clap's rendered error with its leading `error:` replaced by `error[usage]:`.
pub fn usage_text(rendered: &str) -> String {
    match rendered.strip_prefix("error:") {
        Some(rest) => format!("error[{}]:{rest}", Code::Usage.as_str()),
        None => format!("error[{}]: {rendered}", Code::Usage.as_str()),
    }
}
