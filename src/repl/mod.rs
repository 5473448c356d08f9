//! The logic of the interactive shell (`wireplan repl CONFIG`): a compilation stopped after a
//! phase ([`Stage`]), whose live builder can be changed with Rhai at the prompt and queried with
//! commands. Every command answers from the builder as it is now (a copy is resolved and
//! completed as needed; nothing is cached across inputs), and `:errors` / `:compile` carry a
//! copy through the rest of the compilation exactly as `wireplan compile` would.
//!
//! The terminal front end ([`terminal`], rustyline) only reads lines and prints what
//! [`Session::eval`] answers; completion and multi-line detection are here ([`complete`]) and
//! tested without a terminal.

pub mod commands;
pub mod complete;
pub mod display;
mod questions;
mod runs;
mod script;
pub mod terminal;

use crate::builder::ContainerBuilder;
use crate::compiler::pipeline::Outcome;
use crate::compiler::{Options, Restartable, Stage};
use crate::diagnostics::{self, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::script::api::{to_dynamic, BuilderHandle};
use crate::source::SourceMap;
use rhai::{Engine, Scope, AST};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use wireplan_runtime::plan::Plan;

/// What stops an input when its interrupt flag is set, carried in Rhai's `ErrorTerminated`
/// value (next to the sandbox's own tokens).
const INTERRUPTED: &str = "wireplan-repl-interrupted";

/// The phase a session starts in: B, where types are resolved and `getByType` answers are
/// final (the seeds' lesson: lookups in phase A see a partial graph).
pub const DEFAULT_STAGE: Stage = Stage::B;

/// One REPL session over one configuration file.
pub struct Session {
    path: PathBuf,
    options: Options,
    pipeline: Restartable,
    engine: Engine,
    scope: Scope<'static>,
    handle: BuilderHandle,
    /// Every function defined at the prompt or by `:run`, later definitions replacing
    /// earlier ones of the same name and arity.
    functions: AST,
    /// Everything evaluated so far (inputs and `:run` scripts), one after the other: the
    /// `<session>` source diagnostics point into. Each input is compiled after as many blank
    /// lines as come before it here, so positions inside functions defined by an earlier
    /// input still name the right line.
    transcript: String,
    /// Where `:run` scripts sit in `transcript` (errors inside one name its file and line).
    runs: runs::Runs,
    /// Inputs and scripts run since the builder was last compiled from the files that
    /// changed it (see [`ContainerBuilder::edits`]).
    changes: usize,
    /// Set (by the terminal's Ctrl-C handler, or any thread) to stop the running input.
    interrupt: Arc<AtomicBool>,
    /// Whether the last input failed (see [`Session::input_failed`]).
    failed: std::cell::Cell<bool>,
}

/// What a line produced.
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// Text to print (diagnostics already rendered).
    Text(String),
    /// The user asked to leave.
    Quit,
}

impl Session {
    /// Compiles `path` up to [`DEFAULT_STAGE`] and opens a session over the result (also when
    /// it has errors: `:errors` shows them).
    pub fn open(path: &Path, options: Options) -> Session {
        Session::open_at(path, options, DEFAULT_STAGE)
    }

    /// Compiles `path` up to `stage` and opens a session over the result.
    pub fn open_at(path: &Path, options: Options, stage: Stage) -> Session {
        let mut pipeline = Restartable::load(path, &options);
        pipeline.run_to(stage);
        let interrupt = Arc::new(AtomicBool::new(false));
        // `bind` below builds the real engine.
        let engine = Engine::new_raw();
        let handle = BuilderHandle::new(pipeline.builder().clone());
        let mut s = Session {
            path: path.to_path_buf(),
            options,
            pipeline,
            engine,
            scope: Scope::new(),
            handle,
            functions: AST::empty(),
            transcript: String::new(),
            runs: runs::Runs::default(),
            changes: 0,
            interrupt,
            failed: std::cell::Cell::new(false),
        };
        s.bind();
        s
    }

    /// Binds `builder`, `config` and `params` for the current pipeline (variables defined at
    /// the prompt are dropped), with an engine under the pipeline's sandbox limits (the
    /// project's `wireplan: sandbox:` may have changed on `:reload`).
    fn bind(&mut self) {
        self.engine = script::prompt_engine(self.pipeline.limits(), &self.interrupt);
        self.handle = BuilderHandle::new(self.pipeline.builder().clone());
        let mut config = ExprArray::new();
        for (name, (_, value)) in self.pipeline.sections() {
            config
                .items
                .insert(Key::Str(name.as_str().into()), value.clone());
        }
        let mut params = ExprArray::new();
        for (name, value) in &self.pipeline.parameters().values {
            params
                .items
                .insert(Key::Str(name.as_str().into()), value.clone());
        }
        self.scope = Scope::new();
        self.scope.push_constant("builder", self.handle.clone());
        self.scope
            .push_constant("config", to_dynamic(&Expr::bare(ExprKind::Array(config))));
        self.scope
            .push_constant("params", to_dynamic(&Expr::bare(ExprKind::Array(params))));
        self.changes = 0;
    }

    /// The flag that stops the input being evaluated: setting it (from a signal handler or
    /// another thread) ends the input at its next operation with "interrupted", and the
    /// session goes on. [`Session::eval`] clears it before and after each input, so a flag
    /// set while no script runs stops nothing later. The terminal sets it on Ctrl-C.
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// The phase the session stopped after.
    pub fn stage(&self) -> Stage {
        self.pipeline.stage()
    }

    /// The prompt, showing the phase: `wireplan[B]> `; `wireplan[-]> ` while the configuration
    /// did not load (no phase ran, as the summary says).
    pub fn prompt(&self) -> String {
        if self.pipeline.halted() {
            return "wireplan[-]> ".to_string();
        }
        format!("wireplan[{}]> ", self.stage().letter())
    }

    /// The configuration file of the session.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A one-line summary of the compilation up to the current phase. When the configuration
    /// did not load (a missing include, a syntax error: [`Pipeline::halted`](crate::compiler::Pipeline::halted)) it says that no
    /// phase ran.
    pub fn summary(&self) -> String {
        let d = self.pipeline.diagnostics();
        let errors = d.error_count();
        // A configuration that did not load is at no phase (new user's trial: "phase B" and
        // "no phase ran" in one line).
        let phase = match self.pipeline.halted() {
            true => "not loaded".to_string(),
            false => format!("phase {}", self.stage().letter()),
        };
        let mut line = format!(
            "{}: {phase}, {}, {} error(s), {} warning(s)",
            self.path.display(),
            crate::diagnostics::services(self.pipeline.builder().borrow().definitions().count()),
            errors,
            d.items().len() - errors
        );
        if self.pipeline.halted() {
            line.push_str("; the configuration did not load, so no phase ran");
        }
        line
    }

    /// What the session prints when it starts and after `:reload`, `:phase` and `:reset`: the
    /// diagnostics of the compilation up to the current phase, rendered as `wireplan check`
    /// prints them (without colour), then [`Session::summary`]. Without diagnostics it is the
    /// summary alone.
    pub fn status(&self) -> String {
        self.status_after("")
    }

    /// [`Session::status`] with `lead` in front of the summary line.
    fn status_after(&self, lead: &str) -> String {
        let items = self.pipeline.diagnostics().items();
        let summary = format!("{lead}{}", self.summary());
        if items.is_empty() {
            return summary;
        }
        // The configuration's diagnostics: no failure of the input that asked.
        let rendered = diagnostics::render_to_string(&self.pipeline.sources(), items);
        format!("{}\n{summary}", rendered.trim_end())
    }

    /// Every file read so far (configs, scripts, inputs), for rendering diagnostics.
    pub fn sources(&self) -> std::cell::Ref<'_, SourceMap> {
        self.pipeline.sources()
    }

    /// The builder as it is now, brought up to date for questions: in phase A types are
    /// resolved silently as a lookup by type would (the graph is partial); in B and C a copy
    /// is resolved and completed again, so a changed service shows its new type, arguments
    /// and errors. (`:explain`, `:deps` and `:needed-by` answer from this.)
    pub fn current_builder(&self) -> ContainerBuilder {
        let mut b = self.pipeline.builder().borrow().clone();
        if self.stage() == Stage::A {
            b.refresh();
        } else {
            let mut ignored = Diagnostics::new();
            b.resolve(&mut ignored);
            b.complete(&mut ignored);
        }
        b
    }

    /// The builder exactly as the prompt's `builder` sees it (not refreshed), as a copy.
    pub fn live_builder(&self) -> ContainerBuilder {
        self.pipeline.builder().borrow().clone()
    }

    /// The rest of the compilation run on a copy of the current state: what
    /// `wireplan compile` would report and write (see [`Restartable::finish_copy`]). `:errors`
    /// and `:compile` answer from it; `:diff` compares its plan with [`Session::baseline_plan`].
    pub fn finish(&mut self) -> Outcome {
        self.pipeline.finish_copy()
    }

    /// The plan of the configuration without the session's changes (`None` when it has
    /// errors): the left side of `:diff`.
    pub fn baseline_plan(&self) -> Option<Plan> {
        let mut p = self.pipeline.restart();
        p.run_to(Stage::C);
        p.take_plan()
    }

    /// Handles one input: a `:command` or Rhai code (possibly several lines). Rhai code runs
    /// within the sandbox's limits per input (operations, wall-clock time, allocation) and
    /// stops when [`Session::interrupt_flag`] is set; either way the session goes on.
    pub fn eval(&mut self, input: &str) -> Reply {
        self.interrupt.store(false, Ordering::Relaxed);
        self.failed.set(false);
        let reply = self.eval_input(input);
        self.interrupt.store(false, Ordering::Relaxed);
        reply
    }

    fn eval_input(&mut self, input: &str) -> Reply {
        let line = input.trim();
        if line.is_empty() {
            return Reply::Text(String::new());
        }
        let Some((cmd, arg)) = commands::split(line) else {
            return Reply::Text(diagnostics::visible_text(&self.rhai(input)));
        };
        let text = match cmd {
            "quit" | "q" | "exit" => return Reply::Quit,
            "help" | "h" => commands::help(arg).unwrap_or_else(|e| e),
            "services" => self.services(arg),
            "show" | "type" | "tag" | "compile" | "run" | "explain" | "deps" | "needed-by"
                if arg.is_empty() =>
            {
                commands::usage(cmd)
            }
            "show" | "type" | "tag" | "explain" | "needed-by" => {
                match commands::one_word(cmd, arg) {
                    Err(usage) => usage,
                    Ok(word) => match cmd {
                        "show" => self.show(word),
                        "type" => self.type_answer(word),
                        "explain" => self.explain(word),
                        "needed-by" => self.needed_by(word),
                        _ => self.tag(word),
                    },
                }
            }
            "deps" => self.deps(arg),
            "diff" if !arg.is_empty() => "usage: :diff (it takes no argument)".into(),
            "diff" => self.diff(),
            "params" => self.params(arg),
            "errors" => self.errors(),
            "phase" => self.phase(arg),
            "compile" => match commands::path_arg(cmd, arg) {
                Ok(path) => self.compile(path),
                Err(usage) => usage,
            },
            "reset" => {
                let (dropped, stage) = (self.changes, self.stage());
                self.pipeline = self.pipeline.restart();
                self.pipeline.run_to(stage);
                self.bind();
                self.status_after(&format!("changes dropped ({dropped} input(s)); "))
            }
            "reload" => {
                let (dropped, stage) = (self.changes, self.stage());
                self.pipeline = Restartable::load(&self.path, &self.options);
                self.pipeline.run_to(stage);
                self.bind();
                let mut out = self.status();
                out.push_str(&dropped_note(dropped));
                out
            }
            "run" => match commands::path_arg(cmd, arg) {
                Ok(path) => self.run_file(path),
                Err(usage) => usage,
            },
            other => commands::unknown(other),
        };
        // A command written wrong did not run.
        if text.starts_with("usage:") || text.starts_with("unknown command") {
            self.failed.set(true);
        }
        // Answers name what the configuration and the catalog name, rendered without colour:
        // shown visibly, so no name can act on the terminal.
        Reply::Text(diagnostics::visible_text(&text))
    }

    /// Whether the last [`Session::eval`] failed: its answer reported an error (a script
    /// error, a service that does not exist, a `:run` file that cannot be read), a command
    /// was written wrong (a usage line, an unknown command), `:compile` wrote no plan, or the
    /// input was interrupted. Answers that list the configuration's own errors (`:errors`,
    /// `:reload`) do not count. `wireplan repl` reading from a pipe exits with status 1 when
    /// any input failed, as a script interpreter does.
    pub fn input_failed(&self) -> bool {
        self.failed.get()
    }

    /// Renders diagnostics of the input being answered as `wireplan check` prints them
    /// (without colour); an error among them makes the input one that failed.
    fn render(&self, diags: &[Diagnostic]) -> String {
        if diags.iter().any(Diagnostic::is_error) {
            self.failed.set(true);
        }
        diagnostics::render_to_string(&self.pipeline.sources(), diags)
            .trim_end()
            .to_string()
    }

    fn services(&self, pattern: &str) -> String {
        let b = self.current_builder();
        let rows: Vec<(String, String)> = b
            .definitions()
            .filter(|d| commands::matches(pattern, &d.name))
            .map(|d| {
                let mut extra = d
                    .resolved_type
                    .clone()
                    .unwrap_or_else(|| "(type not resolved)".into());
                if d.lifespan != wireplan_runtime::plan::Lifespan::Singleton {
                    extra.push_str(&format!("  [{}]", d.lifespan.as_str()));
                }
                if matches!(d.autowired, crate::builder::Autowired::All(false)) {
                    extra.push_str("  [not autowired]");
                }
                (d.name.clone(), extra)
            })
            .collect();
        if rows.is_empty() {
            return if pattern.is_empty() {
                "no services".into()
            } else if pattern.contains('[') {
                // A glob knows `*` and `?` only (docs/repl.md).
                format!(
                    "no service matches '{pattern}' (a pattern knows * and ? only; [ ] is taken as written)"
                )
            } else {
                format!("no service matches '{pattern}'")
            };
        }
        let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        rows.iter()
            .map(|(n, t)| format!("{n:<width$}  {t}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn missing_service(&self, name: &str, b: &ContainerBuilder) -> String {
        let names = b.definitions().map(|d| d.name.as_str());
        self.render(&[crate::inspect::graph::unknown_service(name, names)])
    }

    fn show(&self, name: &str) -> String {
        let b = self.current_builder();
        match b.get_definition(name) {
            Some(d) => {
                let sources = self.pipeline.sources();
                let mut text = display::definition(d, &sources);
                // Added by a script `:run` read: its own file and line, as errors name them.
                if let Some(place) = d.span.and_then(|s| self.runs.place(&sources, s)) {
                    text.push_str(&format!(" (in {place}, which :run read)"));
                }
                text
            }
            None => self.missing_service(name, &b),
        }
    }

    fn tag(&self, tag: &str) -> String {
        let b = self.current_builder();
        let found = b.find_by_tag(tag);
        if found.is_empty() {
            let mut tags: Vec<&str> = b
                .definitions()
                .flat_map(|d| d.tags.keys().map(String::as_str))
                .collect();
            tags.sort();
            tags.dedup();
            return match diagnostics::suggest(tag, tags) {
                Some(s) => format!("no service carries tag '{tag}'; did you mean '{s}'?"),
                None => format!("no service carries tag '{tag}'"),
            };
        }
        found
            .iter()
            .map(|(n, v)| format!("{n}: {}", display::neon(v)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn params(&self, pattern: &str) -> String {
        let p = self.pipeline.parameters();
        let mut rows = Vec::new();
        for (name, value) in &p.values {
            flatten(name, value, &p.dynamic, &mut rows);
        }
        let mut declared: Vec<&String> = p.dynamic.iter().collect();
        declared.sort();
        for name in declared {
            if !rows.iter().any(|(n, _)| n == name) {
                rows.push((name.clone(), "(dynamic)".into()));
            }
        }
        let rows: Vec<String> = rows
            .into_iter()
            .filter(|(n, _)| commands::matches(pattern, n))
            .map(|(n, v)| format!("{n}: {v}"))
            .collect();
        if rows.is_empty() {
            return format!("no parameter matches '{pattern}'");
        }
        rows.join("\n")
    }

    fn errors(&mut self) -> String {
        let outcome = self.finish();
        let items = outcome.diagnostics.items();
        if items.is_empty() {
            return "no errors".into();
        }
        let text = diagnostics::render_to_string(&outcome.sources, items)
            .trim_end()
            .to_string();
        let errors = outcome.diagnostics.error_count();
        if errors == 0 {
            format!("{text}\nno errors, {} warning(s)", items.len())
        } else {
            format!(
                "{text}\n{errors} error(s), {} warning(s)",
                items.len() - errors
            )
        }
    }

    fn phase(&mut self, arg: &str) -> String {
        if arg.is_empty() {
            return format!(
                "phase {} (:phase A|B|C compiles again up to that phase)",
                self.stage().letter()
            );
        }
        let Some(stage) = Stage::parse(arg) else {
            return format!("usage: :phase A|B|C ('{arg}' is not a phase)");
        };
        let dropped = self.changes;
        self.pipeline = self.pipeline.restart();
        self.pipeline.run_to(stage);
        self.bind();
        let mut out = self.status();
        out.push_str(&dropped_note(dropped));
        out
    }

    fn compile(&mut self, out: PathBuf) -> String {
        let outcome = self.finish();
        let errors = outcome.diagnostics.error_count();
        let rendered = diagnostics::render_to_string(&outcome.sources, outcome.diagnostics.items());
        let rendered = rendered.trim_end();
        let Some(plan) = outcome.plan.filter(|_| errors == 0) else {
            self.failed.set(true);
            return format!("{rendered}\nerror: {errors} error(s); no plan written");
        };
        let encoding = wireplan_runtime::Encoding::for_path(&out);
        let mut text = String::new();
        if !rendered.is_empty() {
            text.push_str(rendered);
            text.push('\n');
        }
        match crate::plan::write_checked(&outcome.sources, &out, &plan, encoding) {
            Ok(()) => {
                text.push_str(&format!(
                    "wrote {} ({})",
                    out.display(),
                    crate::diagnostics::services(plan.services.len())
                ));
                if let Some(note) = changed_since_read(&plan, &self.options.catalogs) {
                    text.push('\n');
                    text.push_str(&note);
                }
                text
            }
            Err(mut d) => {
                // The command-line advice for checking without a plan, in this session's
                // terms (a new user's trial: `:compile /dev/null`).
                for n in &mut d.notes {
                    if n.contains("run `wireplan check CONFIG`") {
                        *n = "to check the configuration without writing a plan, use `:errors`"
                            .into();
                    }
                }
                text.push_str(&self.render(&[d]));
                text
            }
        }
    }

    /// Service names, for completion.
    pub fn service_names(&self) -> Vec<String> {
        let b = self.pipeline.builder().borrow();
        let mut names: Vec<String> = b.definitions().map(|d| d.name.clone()).collect();
        names.extend(b.aliases().keys().cloned());
        names
    }

    /// Type names of the catalog, for completion.
    pub fn type_names(&self) -> Vec<String> {
        let b = self.pipeline.builder().borrow();
        b.catalog.classes().map(|c| c.name.to_string()).collect()
    }

    /// Tags carried by any service, for completion.
    pub fn tag_names(&self) -> Vec<String> {
        let b = self.pipeline.builder().borrow();
        let mut tags: Vec<String> = b
            .definitions()
            .flat_map(|d| d.tags.keys().cloned())
            .collect();
        tags.sort();
        tags.dedup();
        tags
    }

    /// Parameter names (nested ones dotted: `database.dsn`), for completion.
    pub fn parameter_names(&self) -> Vec<String> {
        let p = self.pipeline.parameters();
        let mut rows = Vec::new();
        for (name, value) in &p.values {
            flatten(name, value, &p.dynamic, &mut rows);
        }
        rows.into_iter().map(|(n, _)| n).collect()
    }

    /// Variables in scope and functions defined at the prompt, for completion.
    pub fn variable_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .scope
            .iter_raw()
            .map(|(n, _, _)| n.to_string())
            .collect();
        names.extend(self.functions.iter_functions().map(|f| f.name.to_string()));
        names
    }

    /// The engine, for the names of its registered functions.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }
}

/// Parameters as `(dotted name, shown value)`; nested maps are flattened, and a dynamic value
/// (declared dynamic, `env.*`, or containing a `%dynamic%` read) shows as `(dynamic)`.
fn flatten(
    name: &str,
    value: &Expr,
    dynamic: &std::collections::HashSet<String>,
    out: &mut Vec<(String, String)>,
) {
    let is_dynamic = dynamic.contains(name) || name.starts_with("env.") || holds_dynamic(value);
    match &value.kind {
        _ if is_dynamic && !matches!(&value.kind, ExprKind::Array(a) if !a.is_list()) => {
            out.push((name.to_string(), "(dynamic)".into()))
        }
        ExprKind::Array(a) if !a.is_list() && !a.is_empty() => {
            for (k, v) in &a.items {
                flatten(&format!("{name}.{}", k.as_string()), v, dynamic, out);
            }
        }
        _ => out.push((name.to_string(), display::neon(value))),
    }
}

fn holds_dynamic(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Dynamic(_) => true,
        ExprKind::Concat(parts) => parts.iter().any(holds_dynamic),
        ExprKind::Array(a) => a.values().any(holds_dynamic),
        ExprKind::Statement(s) => s.arguments.values().any(holds_dynamic),
        _ => false,
    }
}

/// Can the configuration file be read, and is it a configuration? The REPL refuses to start
/// without one: the error is the `file-not-found` diagnostic `wireplan check` reports for it, or
/// [`crate::config::plan_file_hint`]'s error for a plan file given in its place.
pub fn check_config(path: &Path) -> Result<(), Diagnostic> {
    crate::source::read_input_file(path)
        .map(drop)
        .map_err(|e| crate::config::unreadable_file(path, &e))?;
    // A plan is not a configuration: a session over it would only list its keys as errors.
    match crate::config::plan_file_hint(path) {
        Some(d) => Err(d),
        None => Ok(()),
    }
}

/// The line `:phase` and `:reload` add when they dropped the changes of `dropped` inputs
/// (nothing when there were none).
fn dropped_note(dropped: usize) -> String {
    if dropped == 0 {
        return String::new();
    }
    format!(
        "\nthe changes of {dropped} input(s) were dropped (the phases ran again from the files)"
    )
}

/// A note when files the plan was compiled from differ on disk from what the session read
/// (edited, or removed, since; [`crate::dev::dependency_changed`], with the session's in-memory
/// `catalogs`): `:compile` writes the plan of the files as read, which a user who edited a
/// file and ran `:compile` took for the plan of the edit (a trial). `None` when every file is
/// as it was read.
fn changed_since_read(
    plan: &wireplan_runtime::plan::Plan,
    catalogs: &[crate::catalog::CatalogInput],
) -> Option<String> {
    let changed: Vec<&str> = plan
        .dependencies
        .iter()
        .filter(|d| crate::dev::dependency_changed(d, catalogs))
        .map(|d| d.path.as_str())
        .collect();
    let named = match changed.as_slice() {
        [] => return None,
        [one] => format!("{one} changed"),
        [one, rest @ ..] => format!("{one} and {} more files changed", rest.len()),
    };
    Some(format!(
        "note: {named} on disk since this session read it; the plan is of the files as read (:reload reads them again)"
    ))
}
