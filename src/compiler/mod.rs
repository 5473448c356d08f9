//! The compiler: runs the phases in Nette's order and produces the plan.
//!
//! - Phase A (definitions): parameters are expanded once over the whole configuration; the
//!   `extensions:` section registers the Rhai extensions; each extension's
//!   `loadConfiguration()` runs; the `services:` section runs last, so the user has the final
//!   word.
//! - Phase B (resolution): `builder.resolve()`; each extension's `beforeCompile()`;
//!   `builder.complete()`.
//! - Phase C (generation): the plan model is built. It is returned only when no error was
//!   reported.

pub mod builtins;
mod catalog_thread;
pub mod extensions;
mod loading;
pub mod pipeline;
pub mod services;

use extensions::Extensions;
pub use pipeline::{Pipeline, Restartable, Stage};

use crate::builder::ContainerBuilder;
use crate::config::{self, Parameters};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::Expr;
use crate::neon::Value;
use crate::script::Limits;
use crate::source::{FileId, SourceMap};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use wireplan_runtime::plan::Plan;

/// Sections handled by the compiler itself.
pub const BUILTIN_SECTIONS: &[&str] = &[
    "parameters",
    "includes",
    "services",
    "types",
    "extensions",
    "search",
    "decorator",
    "di",
    "inject",
    "wireplan",
    "dynamicParameters",
];

/// Compiler options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Parameter names whose values are only known at run time (besides `env.*`).
    pub dynamic: Vec<String>,
    /// Parameters given from outside (`-p name=value`), overriding the files.
    pub parameters: IndexMap<String, Value>,
    /// Script sandbox limits.
    pub limits: Limits,
    /// Folders searched for extensions given by bare name (`logging: logaware`), before the
    /// extensions shipped with wireplan.
    pub script_paths: Vec<PathBuf>,
    /// Catalogs read besides the `types:` section (`--catalog FILE`, dev mode's registry
    /// catalog), merged with it by [`crate::catalog::Catalog::from_inputs`].
    pub catalogs: Vec<crate::catalog::CatalogInput>,
    /// What earlier compilations kept ([`crate::config::DecodedFiles`]): decoded files, taken
    /// again while their text is unchanged, and the catalog of a `types:` section, taken again
    /// while the section is identical; filled by this compilation. Set by `--watch`, whose
    /// recompilations then decode only what was edited and build the catalog only when its
    /// section changed. `None`: everything is built.
    pub decoded: Option<std::sync::Arc<crate::config::DecodedFiles>>,
}

/// The outcome of a compilation.
pub struct Compilation {
    /// Every file read (configs and scripts), for rendering diagnostics.
    pub sources: SourceMap,
    /// Errors and warnings, in the order found.
    pub diagnostics: Diagnostics,
    /// The plan, when there was no error.
    pub plan: Option<Plan>,
}

/// Compiles the configuration rooted at `path`: phases A and B, then the plan (phase C) with
/// the extensions' `afterCompile(plan)`.
pub fn compile(path: &Path, options: &Options) -> Compilation {
    let mut pipeline = Pipeline::load(path, options);
    // Only the plan is wanted: how each argument was filled (for `explain`) is not kept, and
    // the completed statements move from the builder into the plan.
    pipeline.builder().borrow_mut().record_origins = false;
    pipeline.move_into_plan();
    pipeline.run_to(Stage::C);
    let plan = pipeline.take_plan();
    let (sources, diagnostics) = pipeline.into_report();
    Compilation {
        sources,
        plan: plan.filter(|_| !diagnostics.has_errors()),
        diagnostics,
    }
}

/// The parameters the configuration rooted at `path` declares sensitive (`wireplan:
/// sensitive:`), sorted: for a caller that reports problems of its own with `-p` values
/// (decoded before the configuration is read) and must leave sensitive ones out
/// ([`crate::project::redact_sensitive_overrides`]). Reads the configuration and expands its
/// parameters. `None` when the configuration could not be read whole (a missing file or
/// include, a syntax error): then it cannot tell, and the caller treats every value as
/// sensitive.
pub fn sensitive_parameters(path: &Path, options: &Options) -> Option<Vec<String>> {
    let pipeline = Pipeline::load(path, options);
    if pipeline.halted() {
        return None;
    }
    let mut names: Vec<String> = pipeline.parameters().sensitive.iter().cloned().collect();
    names.sort();
    Some(names)
}

/// Runs phases A and B over the configuration rooted at `path` and returns the builder even
/// when there were errors (the REPL inspects it); `Compilation::plan` is left empty.
pub fn build(path: &Path, options: &Options) -> (Compilation, Built) {
    let mut pipeline = Pipeline::load(path, options);
    pipeline.run_to(Stage::B);
    let (sources, diagnostics, built) = pipeline.finish();
    (
        Compilation {
            sources,
            plan: None,
            diagnostics,
        },
        built,
    )
}

/// The result of phases A and B: the completed builder and what the plan needs besides it.
pub struct Built {
    /// The builder after `complete()`.
    pub builder: ContainerBuilder,
    /// Expanded parameters.
    pub parameters: Parameters,
    /// Every file read (configs, includes, scripts), in load order.
    pub files: Vec<FileId>,
    /// What `di › export` keeps for run-time lookup.
    pub export: builtins::Export,
    /// The loaded extensions, for `afterCompile(plan)`.
    pub extensions: Option<Extensions>,
}

impl Built {
    /// Phase C: the plan model.
    pub fn plan(&self, sources: &SourceMap) -> Plan {
        plan_model(
            &self.builder,
            &self.parameters,
            &self.export,
            sources,
            &self.files,
        )
    }
}

/// The plan model of `builder` (phase C without `afterCompile`), keeping what `di › export`
/// asks for.
fn plan_model(
    builder: &ContainerBuilder,
    parameters: &Parameters,
    export: &builtins::Export,
    sources: &SourceMap,
    files: &[FileId],
) -> Plan {
    let plan = crate::plan::build(builder, exported(parameters, export), sources, files);
    finish_plan(plan, builder, parameters, export)
}

/// [`plan_model`] that moves the completed statements into the plan
/// ([`crate::plan::build_taking`]): the end of a plain compilation.
fn plan_model_taking(
    builder: &mut ContainerBuilder,
    parameters: &Parameters,
    export: &builtins::Export,
    sources: &SourceMap,
    files: &[FileId],
) -> Plan {
    let plan = crate::plan::build_taking(builder, exported(parameters, export), sources, files);
    finish_plan(plan, builder, parameters, export)
}

/// [`plan_model`] for a builder nothing reads afterwards ([`crate::plan::build_releasing`]):
/// the end of a plain compilation without extensions. The builder is left empty.
fn plan_model_releasing(
    builder: &mut ContainerBuilder,
    parameters: &Parameters,
    export: &builtins::Export,
    sources: &SourceMap,
    files: &[FileId],
) -> Plan {
    // The dynamic parameters' types come from the definitions, which the plan build consumes.
    let types = config::dynamic::types(builder, parameters, &mut Diagnostics::new());
    let services_read = builder.reads_dynamic;
    let plan = crate::plan::build_releasing(builder, exported(parameters, export), sources, files);
    let mut plan = filter_exports(plan, export);
    plan.dynamic = config::dynamic::plan_section_typed(&plan, types, parameters, services_read);
    plan
}

/// The static parameters the plan carries: all of them, or none under
/// `di › export › parameters: false`.
fn exported(
    parameters: &Parameters,
    export: &builtins::Export,
) -> IndexMap<String, wireplan_runtime::plan::Expr> {
    if export.parameters {
        static_parameters(parameters)
    } else {
        IndexMap::new()
    }
}

/// What `di › export` keeps of the built plan's type and tag indexes, and its `dynamic`
/// section.
fn finish_plan(
    plan: Plan,
    builder: &ContainerBuilder,
    parameters: &Parameters,
    export: &builtins::Export,
) -> Plan {
    let mut plan = filter_exports(plan, export);
    plan.dynamic = config::dynamic::plan_section(&plan, builder, parameters);
    plan
}

/// What `di › export` keeps of the built plan's type and tag indexes.
fn filter_exports(mut plan: Plan, export: &builtins::Export) -> Plan {
    if let Some(types) = &export.types {
        plan.types
            .retain(|t, _| types.iter().any(|x| x.eq_ignore_ascii_case(t)));
    }
    if let Some(tags) = &export.tags {
        plan.tags.retain(|t, _| tags.contains(t));
    }
    plan
}

/// Runs phases A and B over a loaded configuration.
pub fn run(
    raw: config::RawConfig,
    options: &Options,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Built {
    let mut pipeline =
        Pipeline::start(raw, options, std::mem::take(sources), std::mem::take(diags));
    pipeline.run_to(Stage::B);
    let (s, d, built) = pipeline.finish();
    *sources = s;
    *diags = d;
    built
}

fn static_parameters(params: &Parameters) -> IndexMap<String, wireplan_runtime::plan::Expr> {
    params
        .values
        .iter()
        .map(|(k, v)| (k.clone(), plain_value(v)))
        .collect()
}

/// Whether `e` is Symfony's `%env(NAME)%` written unquoted, which NEON reads as a chain of
/// calls on a class `%env`.
fn symfony_env(e: &Expr) -> bool {
    let mut e = e;
    loop {
        match &e.kind {
            crate::expr::ExprKind::Statement(st) => match &st.callee {
                crate::expr::Callee::Member(of, _) => e = of,
                crate::expr::Callee::Name(n) => return n.starts_with("%env"),
            },
            _ => return false,
        }
    }
}

/// Parameters written into the plan must be plain values: a statement (`App\Counter(5)`,
/// `not(%debug%)`, `App\Math::double(...)`) would be computed at run time in Nette (a dynamic
/// parameter), and the plan cannot hold computed parameters. Each statement is an
/// `invalid-value` error at its span, instead of being flattened into its text. `%st%` written in
/// a service still works (the statement is used there, as in Nette), so the error only applies
/// while `di › export › parameters` keeps parameters in the plan.
fn check_plain_parameters(params: &Parameters, diags: &mut Diagnostics) {
    /// Reports the statements inside `v`; `path` holds the keys from the parameter down to
    /// `v`, joined into a dotted name only for an error (a parameter may hold many values).
    fn walk<'v>(path: &mut Vec<&'v dyn std::fmt::Display>, v: &'v Expr, diags: &mut Diagnostics) {
        use crate::expr::ExprKind as K;
        match &v.kind {
            K::Statement(_) => {
                let path = path
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(".");
                let d = Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "Parameter '{path}' holds a statement ({}); parameters must be plain \
                         values (Nette computes such a parameter at run time, and the plan \
                         cannot hold computed parameters).",
                        v.describe()
                    ),
                );
                let mut d = if symfony_env(v) {
                    d.with_note(crate::config::symfony::SYMFONY_ENV_NOTE)
                } else {
                    d.with_note(
                        "for an object, define a service with this statement under services: \
                         and refer to it as @name",
                    )
                    .with_note(format!(
                        "%{path}% in a service argument works (the statement is used there, as \
                         in Nette); to keep the parameter only for that, leave parameters out of \
                         the plan with `di: export: parameters: false`"
                    ))
                };
                d = match v.span {
                    Some(span) => d.with_primary(span, "a statement, not a plain value"),
                    None => d.with_note("the value was given with -p"),
                };
                diags.push(d);
            }
            K::Array(a) => {
                for (k, x) in &a.items {
                    path.push(k);
                    walk(path, x, diags);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    // Parameters nested too deep for a plan: usually one cause (a chain of parameters that
    // each wrap the next), so one error at the first, naming the others.
    let mut too_deep: Vec<(&str, usize, Option<crate::source::Span>)> = Vec::new();
    for (name, v) in &params.values {
        walk(&mut vec![name as &dyn std::fmt::Display], v, diags);
        // What the plan can carry (JSON readers stop at 128 levels).
        let depth = v.plain_depth();
        if depth > wireplan_runtime::plan::MAX_EXPR_DEPTH {
            too_deep.push((name, depth, v.span));
        }
    }
    if let Some(d) = crate::config::nested_too_deep_error(&too_deep) {
        diags.push(d);
    }
}

/// A parameter value as plan data. Statements never reach it while parameters are exported
/// ([`check_plain_parameters`] reports them); elsewhere (the REPL's plan of a failed build) they
/// show as their text.
pub(crate) fn plain_value(v: &Expr) -> wireplan_runtime::plan::Expr {
    use crate::expr::ExprKind as K;
    use wireplan_runtime::plan::Expr as P;
    match &v.kind {
        K::Null => P::Null,
        K::Bool(b) => P::Bool(*b),
        K::Int(i) => P::Int(*i),
        K::Float(f) => P::Float(*f),
        K::Str(s) => P::Str(s.clone()),
        K::Array(a) if a.is_list() => P::List(a.values().map(plain_value).collect()),
        K::Array(a) => P::Map(
            a.items
                .iter()
                .map(|(k, x)| (k.as_string(), plain_value(x)))
                .collect(),
        ),
        K::Dynamic(n) => P::Param(n.clone()),
        K::Concat(parts) => P::Concat(parts.iter().map(plain_value).collect()),
        K::Statement(_) => P::Str(v.describe()),
    }
}

fn extension_names(section: Option<&Expr>) -> Vec<String> {
    section
        .and_then(Expr::as_array)
        .map(|a| a.items.keys().map(|k| k.as_string()).collect())
        .unwrap_or_default()
}
