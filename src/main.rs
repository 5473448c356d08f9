//! The `wireplan` command line: thin argument parsing over the library; exit codes 0 (ok),
//! 1 (diagnostics with errors; for `diff`: the plans differ), 2 (usage; for `diff`: an
//! unreadable plan).

mod cli_inspect;
mod cli_neon;

/// Counts what each thread allocates, so the script sandbox can bound it (issue #13).
#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use wireplan::cli::{options, ParamArgs};
use wireplan::diagnostics::{self, Code, Diagnostic};
use wireplan::source::SourceMap;
use wireplan_runtime::Encoding;

#[derive(Parser)]
#[command(
    name = "wireplan",
    version,
    about = "Dependency-injection container compiler: NEON configs + Rhai extensions → plan files",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour the diagnostics: `auto` on a terminal unless `NO_COLOR` is set (not
    /// empty) or `TERM=dumb`; `always` also into a pipe or a CI log; `never`.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
}

/// `--color WHEN` (as cargo reads it).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// The `--color` given, once read.
static COLOR: std::sync::OnceLock<ColorWhen> = std::sync::OnceLock::new();

/// The exit codes, shown after the help of the program and of `compile` and `check`.
const EXIT_CODES: &str = "Exit codes: 0 success; 1 a problem with the input (errors, or \
warnings with --deny-warnings; for `diff`: the plans differ); 2 a usage error; 128 + N when \
ended by signal N (130 for Ctrl-C). See docs/tools.md.";

#[derive(Subcommand)]
enum Command {
    /// Compile a configuration into a plan file (writes nothing when there is an error).
    #[command(after_help = EXIT_CODES)]
    Compile {
        /// The root NEON configuration.
        config: PathBuf,
        /// Where to write the plan (binary when the name ends in `.bin`, JSON otherwise; `-`
        /// for standard output, JSON unless `--format bin`).
        #[arg(short, long, value_name = "PLAN", value_parser = output_path)]
        output: PathBuf,
        /// The plan encoding, overriding the one the file name implies.
        #[arg(long = "format", value_enum, value_name = "ENCODING")]
        encoding: Option<PlanEncoding>,
        /// Keep watching the files the compilation read and recompile when one changes, until
        /// Ctrl-C; a failed compilation keeps the last good plan.
        #[arg(long)]
        watch: bool,
        /// After each compilation, print where its wall time went (a table on standard
        /// error: each stage's milliseconds, page faults and heap; docs/tools.md).
        #[arg(long)]
        timings: bool,
        /// Treat warnings as errors: write no plan and exit 1 when there is any (as `check
        /// --deny-warnings` does, in one run). Not with --watch.
        #[arg(long, conflicts_with = "watch")]
        deny_warnings: bool,
        /// Print only the diagnostics: not the `wrote PLAN (N services)` line (for build
        /// scripts, as cargo's `-q`). Not with --watch, whose lines say what each round did.
        #[arg(short, long, conflicts_with = "watch")]
        quiet: bool,
        #[command(flatten)]
        params: ParamArgs,
    },
    /// Check a configuration and report every diagnostic; writes no plan.
    #[command(after_help = EXIT_CODES)]
    Check {
        /// The root NEON configuration.
        config: PathBuf,
        /// Output format of the diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Fail (exit 1) on warnings too.
        #[arg(long)]
        deny_warnings: bool,
        /// Print where the check's wall time went (a table on standard error: each stage's
        /// milliseconds, page faults and heap; docs/tools.md).
        #[arg(long)]
        timings: bool,
        /// Print only the diagnostics: not the `ok: N services, W warning(s)` line.
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        params: ParamArgs,
    },
    /// Explain a service (origin, type, each argument's source, lifespan), a type (--type),
    /// what needs a service (--needed-by) or what it needs (--deps).
    #[command(
        override_usage = "wireplan explain [OPTIONS] CONFIG (SERVICE | --type TYPE | --needed-by NAME | --deps NAME)"
    )]
    Explain {
        /// The root NEON configuration.
        config: PathBuf,
        #[command(flatten)]
        question: cli_inspect::Question,
        /// With --deps: how many levels to follow, at least 1 (all when absent).
        // `requires = "deps"` alone does not fire with another question: `deps` conflicts with
        // it (one question only), and clap counts a required argument that conflicts with a
        // present one as satisfied. So --depth conflicts with the other questions too.
        #[arg(
            long,
            value_name = "N",
            requires = "deps",
            conflicts_with_all = ["service", "type_", "needed_by"],
            allow_negative_numbers = true,
            value_parser = depth_value
        )]
        depth: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = cli_inspect::AnswerFormat::Text)]
        format: cli_inspect::AnswerFormat,
        #[command(flatten)]
        params: ParamArgs,
    },
    /// Print the service graph (nodes: services; edges: constructor, setup, collection).
    // The usage line as `--help` gives it: clap's own, in the error for `--depth` without
    // `--service`, listed every option given as if it were required.
    #[command(override_usage = "wireplan graph [OPTIONS] <CONFIG|PLAN>")]
    Graph {
        /// The root NEON configuration, or a plan file (`.json`, `.bin`) to draw as it is.
        #[arg(value_name = "CONFIG|PLAN")]
        config: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = cli_inspect::GraphFormat::Dot)]
        format: cli_inspect::GraphFormat,
        /// Only the part around this service.
        #[arg(long, value_name = "NAME")]
        service: Option<String>,
        /// With --service: how many edges away (both directions), at least 1.
        #[arg(
            long,
            value_name = "N",
            default_value_t = 1,
            requires = "service",
            allow_negative_numbers = true,
            value_parser = depth_value
        )]
        depth: usize,
        #[command(flatten)]
        params: ParamArgs,
    },
    /// Show what a plan file (JSON or binary) holds: header, parameters, services; or one
    /// service in full.
    Show {
        /// The plan file.
        plan: PathBuf,
        /// A service (or alias) to show in full.
        service: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
        format: OutputFormat,
    },
    /// Compare two plans (JSON or binary, in any mix) semantically. Exit 0 when they describe
    /// the same container, 1 when they differ, 2 when one cannot be read.
    Diff {
        /// The old plan.
        old: PathBuf,
        /// The new plan.
        new: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
        format: OutputFormat,
    },
    /// Interactive shell over a compilation stopped after a phase (`:help` inside).
    Repl {
        /// The root NEON configuration.
        config: PathBuf,
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
        /// The NEON file (`-`: standard input).
        file: PathBuf,
    },
    /// Encode canonical JSON (what `neon decode` prints) as NEON on standard output.
    Encode {
        /// The JSON file (`-`: standard input).
        file: PathBuf,
        /// One line of inline NEON instead of indented blocks.
        #[arg(long)]
        inline: bool,
        /// Indentation of blocks and of `'''` strings: spaces and tabs, a number of spaces
        /// (`4`, from 1 to 64), or `\t` for a tab (the default).
        #[arg(long, value_name = "STR", default_value = "\\t")]
        indent: String,
    },
}

/// The parser of a `--depth N`: a whole number of levels, at least 1 (0 would be an answer
/// without any edge: `explain --deps` would say the service depends on nothing).
fn depth_value(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("the depth is at least 1 (the direct dependencies)".to_string()),
        Ok(n) => Ok(n),
        Err(_) if s.starts_with('-') => {
            Err("the depth is at least 1 (the direct dependencies), not negative".to_string())
        }
        Err(_) => Err("expected a whole number of levels, at least 1".to_string()),
    }
}

/// Reads `-o PLAN`: any path but an empty one (clap's own message for it said that no value
/// was given).
fn output_path(s: &str) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err(
            "the path is empty: give a file name (e.g. -o app.plan.json), or - for standard output"
                .to_string(),
        );
    }
    if wireplan::plan::is_standard_error(std::path::Path::new(s)) {
        // A symbolic link to whatever standard error is; written through, the file that
        // collects the messages (`2>>build.log`) would be replaced by the plan.
        return Err(
            "standard error carries wireplan's messages, so the plan is not written there: give a file name, or - for standard output"
                .to_string(),
        );
    }
    Ok(PathBuf::from(s))
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
    /// Rendered diagnostics on standard error (`text` is accepted too, as `explain` names it).
    #[value(alias = "text")]
    Human,
    /// A JSON array of `{code, severity, message, file, line, column, end, notes, labels}` on
    /// standard output.
    Json,
    /// A SARIF 2.1.0 log on standard output (GitHub code scanning, editors).
    Sarif,
}

/// Output formats of `show` and `diff`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum OutputFormat {
    /// Aligned text (`text` is accepted too, as `explain` names it).
    #[value(alias = "text")]
    Human,
    /// JSON.
    Json,
}

fn compile(
    config: PathBuf,
    output: Option<(PathBuf, Encoding)>,
    format: Format,
    deny_warnings: bool,
    quiet: bool,
    params: ParamArgs,
) -> ExitCode {
    // One compilation, then the process ends: its working state is left to the OS.
    wireplan::memory::end_process_after_compiling();
    if output.is_some() {
        #[cfg(unix)]
        remove_unfinished_plan_on_signals(&[
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
        ]);
    }
    let mut arg_sources = SourceMap::new();
    let (opts, mut arg_problems) = options(&params, &mut arg_sources);
    redact_sensitive(&config, &opts, &arg_sources, &mut arg_problems);
    // `-o app.plan.bin --format json`: the file's name says the other form (a scripting
    // user's trial wrote JSON into a `.bin` file without a word).
    if let Some((path, encoding)) = &output {
        arg_problems.extend(name_says_other_form(path, *encoding));
    }
    // A bad option is an error (no plan is written); a missing --scripts folder a warning
    // (which --deny-warnings makes one too).
    let arg_errors = arg_problems.iter().filter(|d| d.is_error()).count();
    let denied_options = deny_warnings && arg_problems.len() > arg_errors;
    let target = output
        .as_ref()
        .filter(|_| arg_errors == 0 && !denied_options)
        .map(|(p, e)| (p.as_path(), *e));
    // (`check` writes no plan: its --deny-warnings only sets the exit code, below.)
    let run = wireplan::watch::compile_once_denying(
        &config,
        &opts,
        target,
        deny_warnings && output.is_some(),
    );
    let errors = run.error_count() + arg_errors;
    let warnings = run.diagnostics.len() - run.error_count() + arg_problems.len() - arg_errors;
    match format {
        Format::Json => {
            let mut json = diagnostics::to_json(&arg_sources, &arg_problems);
            json.extend(diagnostics::to_json(&run.sources, &run.diagnostics));
            emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            ));
        }
        Format::Sarif => {
            // Source paths are canonical, so the directory they are made relative to is too.
            let cwd = std::env::current_dir()
                .and_then(std::fs::canonicalize)
                .unwrap_or_default();
            let log = diagnostics::sarif::to_sarif(
                &[
                    (&arg_sources, &arg_problems),
                    (&run.sources, &run.diagnostics),
                ],
                &cwd,
                &config,
            );
            emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&log).unwrap_or_default()
            ));
        }
        Format::Human => {
            diagnostics::render(&arg_sources, &arg_problems, color());
            diagnostics::render(&run.sources, &run.diagnostics, color());
        }
    }
    say_timings(&run);
    let human = matches!(format, Format::Human);
    let Some(plan) = run.plan.filter(|_| arg_errors == 0) else {
        // The warnings reported beside the errors are counted too (a trial: "4 error(s)"
        // under four errors and a warning).
        let also = match warnings {
            0 => String::new(),
            n => format!(", {n} warning(s)"),
        };
        if errors == 0 && deny_warnings && output.is_some() {
            // `compile --deny-warnings`: the plan was held back for the warnings alone.
            if human {
                say(format_args!(
                    "error: {warnings} warning(s), denied by --deny-warnings; no plan written"
                ));
            }
            return ExitCode::from(1);
        }
        if human && output.is_some() {
            say(format_args!(
                "error: {errors} error(s){also}; no plan written"
            ));
        } else if human {
            // `check` writes no plan in any case.
            say(format_args!("error: {errors} error(s){also}"));
        }
        // A malformed option (`-p` without `NAME=`) is a usage error, as clap's own are; the
        // compilation's diagnostics were still reported beside it.
        let usage = arg_problems.iter().any(|d| d.code == Code::Usage);
        return ExitCode::from(if usage { 2 } else { 1 });
    };
    if deny_warnings && warnings > 0 {
        // Only the error: an "ok" line first would contradict it (`compile`: the plan was
        // not written, as its only warnings were the options').
        let written = if output.is_some() {
            "; no plan written"
        } else {
            ""
        };
        if human {
            say(format_args!(
                "error: {warnings} warning(s), denied by --deny-warnings{written}"
            ));
        }
        return ExitCode::from(1);
    }
    if let Some((out, encoding)) = output {
        let place = if wireplan::plan::is_standard_output(&out) {
            "the plan to standard output".to_string()
        } else {
            out.display().to_string()
        };
        // A name that says neither form (`-o app.yaml`) is told which one it got (a new
        // user's trial expected a word); `.json` and `.bin` say it themselves.
        let named = out
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("bin"));
        let form = match encoding {
            _ if named || wireplan::plan::is_standard_output(&out) => "",
            Encoding::Binary => "the binary form, ",
            _ => "JSON (a name ending in .bin, or --format bin, writes the binary form), ",
        };
        if !quiet {
            say(format_args!(
                "wrote {place} ({form}{})",
                wireplan::diagnostics::services(plan.services.len())
            ));
        }
    } else if human && !quiet {
        say(format_args!(
            "ok: {}, {warnings} warning(s)",
            wireplan::diagnostics::services(plan.services.len())
        ));
    }
    // Written and reported, and the process ends: the operating system reclaims the plan's
    // memory (and the sources') faster than freeing it piece by piece (a few percent of a
    // large compile). The peak is not affected: the plan is streamed into the file.
    std::mem::forget(plan);
    std::mem::forget(run.sources);
    ExitCode::SUCCESS
}

/// Makes the `signals` (for `wireplan compile`: Ctrl-C's `SIGINT`, `SIGTERM` and `SIGHUP`;
/// for `--watch`, whose Ctrl-C has a handler of its own: the other two) remove the
/// temporary file of a plan being written before the process ends (exit code 128 + the
/// signal's number: 130, 143, 129) and say so, so an interrupted compile leaves the old plan,
/// or none, and nothing beside it ([`wireplan_runtime::encoding::remove_unfinished_files`]). The
/// signals are blocked in every thread (called before any other thread starts, so the
/// compiler's helpers and the Ctrl-C handler's thread inherit the mask) and taken by one
/// thread of their own with `sigwait`, where removing files is safe.
#[cfg(unix)]
fn remove_unfinished_plan_on_signals(signals: &[libc::c_int]) {
    // SAFETY: `sigemptyset`/`sigaddset` fill a zeroed set owned here; `pthread_sigmask` only
    // changes this thread's mask (no other thread runs yet, so every later one inherits it);
    // `sigwait` waits on the set moved into the thread.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for &sig in signals {
            libc::sigaddset(&mut set, sig);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        let waiting = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut sig: libc::c_int = 0;
                if libc::sigwait(&set, &mut sig) == 0 {
                    interrupted(sig);
                }
            });
        if waiting.is_err() {
            // No thread to take them: let the signals end the process as before.
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

/// Ends the process stopped by signal `sig` (exit code 128 + its number) after removing the
/// temporary file of a plan being written, saying so: the plan file is then as it was.
#[cfg(unix)]
fn interrupted(sig: libc::c_int) -> ! {
    stopped_by(sig, wireplan_runtime::encoding::remove_unfinished_files())
}

/// [`interrupted`] once the unfinished files are removed (`removed` of them).
#[cfg(unix)]
fn stopped_by(sig: libc::c_int, removed: usize) -> ! {
    let name = match sig {
        libc::SIGINT => "Ctrl-C",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        libc::SIGQUIT => "SIGQUIT",
        _ => "a signal",
    };
    if removed > 0 {
        say(format_args!(
            "interrupted ({name}) while writing the plan: the unfinished file was removed, the \
             plan file is as it was"
        ));
    } else {
        say(format_args!("interrupted ({name})"));
    }
    std::process::exit(128 + sig)
}

/// The `--timings` table of a compilation, when it was asked for.
fn say_timings(run: &wireplan::watch::CompileRun) {
    if let Some(timings) = &run.timings {
        say(format_args!("timings:\n{}", timings.render().trim_end()));
    }
}

/// The warning for a plan written in the form the file's name does not say (`-o app.plan.bin
/// --format json`); `None` when they agree or the plan goes to standard output.
fn name_says_other_form(path: &std::path::Path, encoding: Encoding) -> Option<Diagnostic> {
    let named = Encoding::for_path(path);
    if wireplan::plan::is_standard_output(path) || named == encoding {
        return None;
    }
    let form = |e: Encoding| match e {
        Encoding::Binary => "binary",
        Encoding::Json => "JSON",
    };
    Some(
        Diagnostic::warning(
            Code::Usage,
            format!(
                "The plan is written as {} to '{}', whose name says {}.",
                form(encoding),
                path.display(),
                form(named)
            ),
        )
        .with_note(
            "--format decides the form; the runtime reads either by its content, but a name \
             that says the other form misleads whoever looks at the file (binary plans end in \
             .bin)",
        ),
    )
}

/// Leaves the text of sensitive `-p` values out of the command line's own problems (a `-p`
/// value is decoded before the configuration says which parameters are sensitive, so the
/// configuration is read for that, only when a problem points into a `-p` value).
fn redact_sensitive(
    config: &std::path::Path,
    opts: &wireplan::compiler::Options,
    sources: &SourceMap,
    problems: &mut [Diagnostic],
) {
    let in_value = problems.iter().any(|d| {
        d.labels
            .iter()
            .any(|l| wireplan::project::dash_p_parameter(&sources.get(l.span.file).name).is_some())
    });
    if in_value {
        // `None` (the configuration cannot be read whole) leaves every `-p` value out.
        let sensitive = wireplan::compiler::sensitive_parameters(config, opts);
        wireplan::project::redact_sensitive_overrides(problems, sources, sensitive.as_deref());
    }
}

/// `compile --watch`: compiles, then recompiles on every change until Ctrl-C (exit 0).
fn watch(config: PathBuf, output: PathBuf, encoding: Encoding, params: ParamArgs) -> ExitCode {
    use wireplan::watch::{self, Event, Signal, WatchOptions};
    // First, before any thread starts (the Ctrl-C handler's, the compiler's helpers): see
    // `remove_unfinished_plan_on_signals`. Ctrl-C itself stops the watch between compilations.
    #[cfg(unix)]
    remove_unfinished_plan_on_signals(&[libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT]);
    let mut arg_sources = SourceMap::new();
    let (opts, mut arg_problems) = options(&params, &mut arg_sources);
    redact_sensitive(&config, &opts, &arg_sources, &mut arg_problems);
    arg_problems.extend(name_says_other_form(&output, encoding));
    diagnostics::render(&arg_sources, &arg_problems, color());
    if arg_problems.iter().any(Diagnostic::is_error) {
        return ExitCode::from(2);
    }
    let (sender, signals) = std::sync::mpsc::channel();
    let stop = sender.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        // During a compilation, stop at once as a one-shot compile does (the unfinished plan
        // removed, the plan file as it was) instead of finishing it and writing the plan
        // after Ctrl-C (a new user's trial); between compilations, end the watch.
        // Asked again once no plan can go into place any more: a plan renamed into place
        // meanwhile ends the round, and the watch stops after reporting it.
        #[cfg(unix)]
        if watch::compiling() {
            let removed = wireplan_runtime::encoding::remove_unfinished_files();
            if watch::compiling() {
                stopped_by(libc::SIGINT, removed);
            }
        }
        let _ = stop.send(Signal::Stop);
    }) {
        say(format_args!("error: cannot handle Ctrl-C: {e}"));
        return ExitCode::from(1);
    }
    let wopts = WatchOptions {
        config,
        output: output.clone(),
        encoding,
        options: opts,
        debounce: wireplan::watch::DEBOUNCE,
    };
    let mut report = |event: Event<'_>| match event {
        Event::Compiled { run, kept } => {
            diagnostics::render(&run.sources, &run.diagnostics, color());
            say_timings(run);
            say(format_args!("{}", run.summary(&output, kept)));
        }
        Event::Watching(files) => say(format_args!(
            "watching {} file(s); Ctrl-C stops",
            files.len()
        )),
        Event::Changed(files) => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let names: Vec<String> = files
                .iter()
                .map(|f| f.strip_prefix(&cwd).unwrap_or(f).display().to_string())
                .collect();
            say(format_args!("changed: {}", names.join(", ")));
        }
        Event::WatchError(e) => say(format_args!("warning: {e}")),
    };
    match watch::run(&wopts, sender, signals, &mut report) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say(format_args!("error: {e}"));
            ExitCode::from(1)
        }
    }
}

/// `show PLAN [SERVICE]`: exit 1 for an unreadable plan or an unknown service.
fn show(plan: PathBuf, service: Option<String>, format: OutputFormat) -> ExitCode {
    use wireplan::inspect::{plan_file, show};
    let json = matches!(format, OutputFormat::Json);
    let file = match plan_file::read_plan(&plan) {
        Ok(f) => f,
        Err(d) => {
            no_answer(&SourceMap::new(), &[d], json);
            return ExitCode::from(1);
        }
    };
    let problems = plan_file::problems(&file.plan);
    if !problems.is_empty() {
        diagnostics::render(&SourceMap::new(), &problems, color());
    }
    let text = match service {
        None => {
            let summary = show::summary(&file);
            match format {
                OutputFormat::Human => summary.to_text(),
                OutputFormat::Json => json_text(&summary),
            }
        }
        Some(name) => match show::service(&file.plan, &file.name, &name) {
            Ok(entry) => match format {
                OutputFormat::Human => entry.to_text(),
                OutputFormat::Json => json_text(&entry),
            },
            Err(d) => {
                no_answer(&SourceMap::new(), &[d], json);
                return ExitCode::from(1);
            }
        },
    };
    // A plan's names and values are shown visibly: a plan file cannot act on the terminal.
    emit(&diagnostics::visible_text(&text));
    ExitCode::SUCCESS
}

/// `diff OLD NEW`: exit 0 same, 1 different, 2 unreadable input (like `diff`).
fn diff(old: PathBuf, new: PathBuf, format: OutputFormat) -> ExitCode {
    use wireplan::inspect::{diff, plan_file};
    let (a, b) = (plan_file::read_plan(&old), plan_file::read_plan(&new));
    let problems: Vec<Diagnostic> = [&a, &b]
        .into_iter()
        .filter_map(|r| r.as_ref().err().cloned())
        .collect();
    let (Ok(a), Ok(b)) = (a, b) else {
        no_answer(
            &SourceMap::new(),
            &problems,
            matches!(format, OutputFormat::Json),
        );
        return ExitCode::from(2);
    };
    // What the runtime would refuse in either plan, as `show` and `graph` warn, naming the file.
    let warnings: Vec<Diagnostic> = [(&old, &a.plan), (&new, &b.plan)]
        .into_iter()
        .flat_map(|(path, plan)| {
            plan_file::problems(plan)
                .into_iter()
                .map(move |w| w.with_note(format!("in the plan '{}'", path.display())))
        })
        .collect();
    if !warnings.is_empty() {
        diagnostics::render(&SourceMap::new(), &warnings, color());
    }
    let d = diff::diff_plans(&a.plan, &b.plan);
    emit(&match format {
        OutputFormat::Human => diagnostics::visible_text(&d.to_text()),
        OutputFormat::Json => json_text(&d.to_json()),
    });
    if d.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Reports why a command has no answer: the diagnostics on standard error and, for `--format
/// json`, `{"errors": [...]}` on standard output in the form of `check --format json`, so a
/// script that parses the output gets the reason there too instead of an empty document (new
/// users' trials: `diff`, then `show`, `explain` and `graph`).
fn no_answer(sources: &SourceMap, problems: &[Diagnostic], json: bool) {
    diagnostics::render(sources, problems, color());
    if json {
        let errors = diagnostics::to_json(sources, problems);
        emit(&json_text(&serde_json::json!({ "errors": errors })));
    }
}

/// Pretty JSON with a final newline.
fn json_text<T: serde::Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// `wireplan repl`: problems with the options are shown, then the session starts.
fn repl(config: &std::path::Path, params: &ParamArgs) -> ExitCode {
    let mut arg_sources = SourceMap::new();
    let (opts, mut problems) = options(params, &mut arg_sources);
    redact_sensitive(config, &opts, &arg_sources, &mut problems);
    wireplan::repl::terminal::start(config, opts, &arg_sources, &problems, color())
}

/// Colour only for a terminal whose environment allows it ([`diagnostics::colour_allowed`]).
fn color() -> bool {
    use std::io::IsTerminal;
    match COLOR.get().copied().unwrap_or(ColorWhen::Auto) {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => diagnostics::colour_allowed() && std::io::stderr().is_terminal(),
    }
}

fn main() -> ExitCode {
    wireplan::script::sandbox::raise_stack_limit();
    let cli: Cli = wireplan::cli::parse_or_exit();
    let _ = COLOR.set(cli.color);
    match cli.command {
        Command::Compile {
            config,
            output,
            encoding,
            watch: watching,
            timings,
            deny_warnings,
            quiet,
            params,
        } => {
            wireplan::timings::want(timings);
            let encoding = match encoding {
                Some(PlanEncoding::Json) => Encoding::Json,
                Some(PlanEncoding::Bin) => Encoding::Binary,
                None => Encoding::for_path(&output),
            };
            if watching && wireplan::plan::is_standard_output(&output) {
                say(format_args!(
                    "error[usage]: --watch writes a plan file each time; give a file name with -o, not standard output"
                ));
                ExitCode::from(2)
            } else if encoding == Encoding::Binary
                && wireplan::plan::is_standard_output(&output)
                && std::io::IsTerminal::is_terminal(&std::io::stdout())
            {
                // Raw bytes would garble the terminal (and could drive it).
                say(format_args!(
                    "error[usage]: a binary plan is not written to a terminal; redirect standard output (-o - > app.plan.bin) or give a file name with -o"
                ));
                ExitCode::from(2)
            } else if watching {
                watch(config, output, encoding, params)
            } else {
                compile(
                    config,
                    Some((output, encoding)),
                    Format::Human,
                    deny_warnings,
                    quiet,
                    params,
                )
            }
        }
        Command::Check {
            config,
            format,
            deny_warnings,
            timings,
            quiet,
            params,
        } => {
            wireplan::timings::want(timings);
            compile(config, None, format, deny_warnings, quiet, params)
        }
        Command::Explain {
            config,
            question,
            depth,
            format,
            params,
        } => cli_inspect::explain(config, question, depth, format, params),
        Command::Graph {
            config,
            format,
            service,
            depth,
            params,
        } => cli_inspect::graph(config, format, service, depth, params),
        Command::Show {
            plan,
            service,
            format,
        } => show(plan, service, format),
        Command::Diff { old, new, format } => diff(old, new, format),
        Command::Repl { config, params } => repl(&config, &params),
        Command::Neon {
            command: NeonCommand::Decode { file },
        } => cli_neon::neon_decode(file),
        Command::Neon {
            command:
                NeonCommand::Encode {
                    file,
                    inline,
                    indent,
                },
        } => cli_neon::neon_encode(file, inline, &indent),
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
