//! `wireplan explain` and `wireplan graph`: thin wrappers that build the configuration
//! (phases A and B), print its diagnostics, and print what [`wireplan::inspect`] answers.
//! Exit codes: 0 answered from a clean configuration, 1 when the configuration had errors
//! (the answer is still printed, from what was built) or the question cannot be answered
//! (unknown service or type, unreadable config); clap exits 2 for usage errors.

use super::{color, emit, no_answer, options, ParamArgs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wireplan::compiler::{Built, Compilation};
use wireplan::diagnostics::{self, Code, Diagnostic};
use wireplan::inspect;
use wireplan::source::SourceMap;

/// The question `explain` answers (exactly one is given).
#[derive(clap::Args)]
#[group(required = true, multiple = false)]
pub struct Question {
    /// The service to explain: origin, type, every argument's source, lifespan.
    #[arg(value_name = "SERVICE")]
    pub service: Option<String>,
    /// Every service providing TYPE, which one getByType() returns, and why not the others.
    #[arg(long = "type", value_name = "TYPE")]
    pub type_: Option<String>,
    /// Every service and extension that depends on NAME, directly and transitively (or who
    /// removed it).
    #[arg(long, value_name = "NAME")]
    pub needed_by: Option<String>,
    /// Every service NAME depends on (see --depth).
    #[arg(long, value_name = "NAME")]
    pub deps: Option<String>,
}

/// Output format of `explain`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum AnswerFormat {
    /// Readable text (`human` is accepted too, as `check` and `show` name it).
    #[value(alias = "human")]
    Text,
    /// Pretty-printed JSON.
    Json,
}

/// Output format of `graph`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum GraphFormat {
    /// Graphviz DOT (`dot -Tsvg`).
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
    /// `{"nodes": [...], "edges": [...]}`.
    Json,
}

/// Builds `config` and prints its diagnostics (and the option problems). When the root file
/// cannot be read or is a plan file there is nothing to answer from: that is reported as
/// [`no_answer`] does (`json`: also on standard output) and `None` returned.
fn build(config: &Path, params: &ParamArgs, json: bool) -> Option<(Compilation, Built, bool)> {
    let mut arg_sources = SourceMap::new();
    let (opts, mut problems) = options(params, &mut arg_sources);
    super::redact_sensitive(config, &opts, &arg_sources, &mut problems);
    diagnostics::render(&arg_sources, &problems, color());
    let unread = match wireplan::source::read_input_file(config) {
        Err(e) => Some(Diagnostic::error(
            Code::FileNotFound,
            format!("Cannot read '{}': {e}", config.display()),
        )),
        // A plan has no definitions to explain: say so, and nothing about an empty build.
        Ok(_) => wireplan::config::plan_file_hint(config),
    };
    if let Some(d) = unread {
        no_answer(&SourceMap::new(), &[d], json);
        return None;
    }
    let (compilation, built) = wireplan::compiler::build(config, &opts);
    diagnostics::render(
        &compilation.sources,
        compilation.diagnostics.items(),
        color(),
    );
    let errors = compilation.diagnostics.has_errors() || problems.iter().any(Diagnostic::is_error);
    if errors {
        super::say(format_args!(
            "note: the configuration has errors; the answer comes from what was built despite them"
        ));
    }
    Some((compilation, built, errors))
}

fn print<T: std::fmt::Display + serde::Serialize>(answer: &T, format: AnswerFormat) {
    match format {
        // Names in the answer come from the configuration and the catalog: shown visibly, so
        // none can act on the terminal (JSON escapes them itself).
        AnswerFormat::Text => emit(&diagnostics::visible_text(&answer.to_string())),
        AnswerFormat::Json => emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(answer).unwrap_or_default()
        )),
    }
}

/// `wireplan explain CONFIG (SERVICE | --type T | --needed-by NAME | --deps NAME)`.
pub fn explain(
    config: PathBuf,
    question: Question,
    depth: Option<usize>,
    format: AnswerFormat,
    params: ParamArgs,
) -> ExitCode {
    let json = matches!(format, AnswerFormat::Json);
    let Some((compilation, mut built, errors)) = build(&config, &params, json) else {
        return ExitCode::from(1);
    };
    let sources = &compilation.sources;
    let b = &mut built.builder;
    let answered = match question {
        Question {
            service: Some(name),
            ..
        } => inspect::explain_service(b, sources, &name).map(|a| print(&a, format)),
        Question {
            type_: Some(ty), ..
        } => inspect::type_candidates(b, &ty).map(|a| print(&a, format)),
        Question {
            needed_by: Some(name),
            ..
        } => inspect::needed_by(b, sources, &name).map(|a| print(&a, format)),
        Question {
            deps: Some(name), ..
        } => inspect::deps(b, sources, &name, depth).map(|a| print(&a, format)),
        // clap requires exactly one question; this is only reached if that rule changes.
        _ => Err(Diagnostic::error(
            Code::InvalidValue,
            "explain needs a SERVICE, --type, --needed-by or --deps",
        )),
    };
    finish(sources, answered, errors, json)
}

/// Is `path` a plan file rather than a NEON configuration? By content (a plan under any name),
/// or by name: `.bin`, and `.json` unless the file is text that is not a JSON object (a NEON
/// configuration named `app.json`, which `check` and `compile` read). A damaged or missing
/// plan named so still gets the plan reader's `invalid-plan` or `file-not-found`.
fn is_plan(path: &Path) -> bool {
    if wireplan_runtime::Encoding::for_path(path) == wireplan_runtime::Encoding::Binary {
        return true;
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("json") => !starts_as_non_object_text(path),
        _ => wireplan::config::plan_file_hint(path).is_some(),
    }
}

/// Whether the regular file at `path` reads as text that is not JSON
/// ([`inspect::plan_file::looks_like_configuration`] of its first 4 KiB); `false` when it is
/// not a regular file or cannot be read.
fn starts_as_non_object_text(path: &Path) -> bool {
    use std::io::Read;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut prefix = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(4096).read_to_end(&mut prefix))
        .is_ok()
        && inspect::plan_file::looks_like_configuration(&prefix)
}

/// `wireplan graph (CONFIG | PLAN) --format dot|mermaid|json [--service NAME --depth N]`.
/// A plan file (`.json`, `.bin`, or a plan by content) is drawn as it is, without the
/// configuration.
pub fn graph(
    config: PathBuf,
    format: GraphFormat,
    service: Option<String>,
    depth: usize,
    params: ParamArgs,
) -> ExitCode {
    let json = matches!(format, GraphFormat::Json);
    let (sources, mut graph, errors) = if is_plan(&config) {
        // A plan is compiled already: what builds a configuration does not apply to it.
        let unused: Vec<&str> = [
            ("--catalog", !params.catalogs.is_empty()),
            ("-p", !params.parameters.is_empty()),
            ("--dynamic", !params.dynamic.is_empty()),
            ("--scripts", !params.scripts.is_empty()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect();
        if !unused.is_empty() {
            crate::say(format_args!(
                "warning: {} ignored: '{}' is a plan, which is compiled already (they apply to a configuration)",
                unused.join(", "),
                config.display()
            ));
        }
        // The same reader as `show` and `diff`: one code and one wording per problem.
        match inspect::plan_file::read_plan(&config) {
            Ok(file) => {
                let problems = inspect::plan_file::problems(&file.plan);
                if !problems.is_empty() {
                    diagnostics::render(&SourceMap::new(), &problems, color());
                }
                (
                    SourceMap::new(),
                    inspect::Graph::from_plan(&file.plan),
                    false,
                )
            }
            Err(d) => {
                no_answer(&SourceMap::new(), &[d], json);
                return ExitCode::from(1);
            }
        }
    } else {
        let Some((compilation, built, errors)) = build(&config, &params, json) else {
            return ExitCode::from(1);
        };
        let graph = inspect::Graph::from_builder(&built.builder);
        (compilation.sources, graph, errors)
    };
    let focused = match &service {
        Some(name) => graph.focus(name, depth).map(|g| graph = g),
        None => Ok(()),
    };
    let answered = focused.map(|()| {
        emit(&match format {
            GraphFormat::Dot => graph.to_dot(),
            GraphFormat::Mermaid => graph.to_mermaid(),
            GraphFormat::Json => graph.to_json(),
        })
    });
    finish(&sources, answered, errors, json)
}

/// The exit code of an answer: 1 when there is none (its reason reported as [`no_answer`]
/// does) or when the configuration had errors.
fn finish(
    sources: &SourceMap,
    answered: Result<(), Diagnostic>,
    errors: bool,
    json: bool,
) -> ExitCode {
    match answered {
        Err(d) => {
            no_answer(sources, &[d], json);
            ExitCode::from(1)
        }
        Ok(()) if errors => ExitCode::from(1),
        Ok(()) => ExitCode::SUCCESS,
    }
}
