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
pub mod services;

use crate::builder::ContainerBuilder;
use crate::catalog::Catalog;
use crate::config::{self, Parameters};
use crate::diagnostics::{suggest, Code, Diagnostic, Diagnostics};
use crate::expr::Expr;
use crate::neon::Value;
use crate::script::{self, Extension, Limits};
use crate::source::{FileId, SourceMap, Span};
use indexmap::IndexMap;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
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

/// Compiles the configuration rooted at `path`.
pub fn compile(path: &Path, options: &Options) -> Compilation {
    let (mut compilation, built) = build(path, options);
    if !compilation.diagnostics.has_errors() {
        compilation.plan = Some(built.plan(&compilation.sources));
    }
    compilation
}

/// Runs phases A and B over the configuration rooted at `path` and returns the builder even
/// when there were errors (the REPL inspects it); `Compilation::plan` is left empty.
pub fn build(path: &Path, options: &Options) -> (Compilation, Built) {
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    let raw = config::load(path, &mut sources, &mut diags);
    let built = run(raw, options, &mut sources, &mut diags);
    (
        Compilation {
            sources,
            plan: None,
            diagnostics: diags,
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
}

impl Built {
    /// Phase C: the plan model.
    pub fn plan(&self, sources: &SourceMap) -> Plan {
        let parameters = if self.export.parameters {
            static_parameters(&self.parameters)
        } else {
            IndexMap::new()
        };
        let mut plan = crate::plan::build(&self.builder, parameters, sources, &self.files);
        if let Some(types) = &self.export.types {
            plan.types
                .retain(|t, _| types.iter().any(|x| x.eq_ignore_ascii_case(t)));
        }
        if let Some(tags) = &self.export.tags {
            plan.tags.retain(|t, _| tags.contains(t));
        }
        plan
    }
}

/// The folder of the file `span` is in, as the user named it (so paths in diagnostics stay
/// relative when the user gave a relative path).
fn base_dir(sources: &SourceMap, span: Span) -> PathBuf {
    Path::new(&sources.get(span.file).name)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Runs phases A and B over a loaded configuration.
pub fn run(
    raw: config::RawConfig,
    options: &Options,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Built {
    // Phase A: parameters first, over the whole configuration.
    let (params, sections) =
        config::expand_config(&raw.sections, &options.dynamic, &options.parameters, diags);
    let catalog = Catalog::from_section(sections.get("types").map(|(_, v)| v), diags);
    let mut builder = ContainerBuilder::new(catalog);
    builder.parameters = params.values.clone();
    let builder = Rc::new(RefCell::new(builder));

    // `extensions:` registers the scripts.
    let engine = script::engine(&options.limits);
    let mut extensions: Vec<(Extension, script::api::ExtensionHandle)> = Vec::new();
    let mut script_files: Vec<FileId> = Vec::new();
    if let Some((_, section)) = sections.get("extensions") {
        for (name, path_expr) in extension_entries(section, diags) {
            let Some(path) = path_expr.as_str() else {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "The item 'extensions › {name}' expects to be a script path, {} given.",
                            path_expr.describe()
                        ),
                    )
                    .at(path_expr.span),
                );
                continue;
            };
            let full = match path_expr.span {
                Some(s) => crate::source::normalize_path(&base_dir(sources, s).join(path)),
                None => PathBuf::from(path),
            };
            match Extension::load(&engine, &name, &full, path_expr.span, sources) {
                Ok(ext) => {
                    script_files.push(ext.file);
                    let config = sections
                        .get(&name)
                        .map(|(_, v)| script::api::to_dynamic(v))
                        .unwrap_or(rhai::Dynamic::from_map(rhai::Map::new()));
                    let handle = script::extension_handle(&name, config, builder.clone());
                    extensions.push((ext, handle));
                }
                Err(d) => diags.push(d),
            }
        }
    }

    // Every section needs a handler.
    let handled: Vec<String> = BUILTIN_SECTIONS
        .iter()
        .map(|s| s.to_string())
        .chain(extension_names(sections.get("extensions").map(|(_, v)| v)))
        .collect();
    for (name, (key_span, _)) in &sections {
        if !handled.contains(name) {
            let mut msg = format!(
                "Found section '{name}' in configuration, but corresponding extension is missing"
            );
            match suggest(name, handled.iter().map(String::as_str)) {
                Some(s) => msg.push_str(&format!(", did you mean '{s}'?")),
                None => msg.push('.'),
            }
            diags.push(
                Diagnostic::error(Code::UnknownExtension, msg)
                    .with_primary(*key_span, "no extension handles this section"),
            );
        }
    }

    let export = match sections.get("di") {
        Some((_, section)) => builtins::load_di(section, &mut builder.borrow_mut(), diags),
        None => builtins::Export::default(),
    };
    for (ext, handle) in &mut extensions {
        diags.extend(ext.call(&engine, "loadConfiguration", handle, sources));
    }
    if let Some((_, section)) = sections.get("services") {
        services::load_services(section, &mut builder.borrow_mut(), diags);
    }

    // Phase B.
    builder.borrow_mut().resolve(diags);
    if let Some((_, section)) = sections.get("search") {
        builtins::search(section, &mut builder.borrow_mut(), diags);
        builder.borrow_mut().refresh();
    }
    if let Some((_, section)) = sections.get("decorator") {
        builtins::decorate(section, &mut builder.borrow_mut(), diags);
    }
    for (ext, handle) in &mut extensions {
        diags.extend(ext.call(&engine, "beforeCompile", handle, sources));
    }
    builder.borrow_mut().refresh();
    builtins::inject(&mut builder.borrow_mut());
    builder.borrow_mut().complete(diags);

    drop(extensions);
    let builder = Rc::try_unwrap(builder)
        .map(RefCell::into_inner)
        .unwrap_or_else(|shared| shared.borrow().clone());
    let mut files = raw.files;
    files.extend(script_files);
    Built {
        builder,
        parameters: params,
        files,
        export,
    }
}

fn static_parameters(params: &Parameters) -> IndexMap<String, wireplan_runtime::plan::Expr> {
    params
        .values
        .iter()
        .map(|(k, v)| (k.clone(), plain_value(v)))
        .collect()
}

/// A parameter value as plan data (statements inside parameters are kept as their text).
fn plain_value(v: &Expr) -> wireplan_runtime::plan::Expr {
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

fn extension_entries(section: &Expr, diags: &mut Diagnostics) -> Vec<(String, Expr)> {
    match section.as_array() {
        Some(a) => a
            .items
            .iter()
            .map(|(k, v)| (k.as_string(), v.clone()))
            .collect(),
        None => {
            if !section.is_null() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "The item 'extensions' expects to be a map of name: script path, {} given.",
                            section.describe()
                        ),
                    )
                    .at(section.span),
                );
            }
            Vec::new()
        }
    }
}

fn extension_names(section: Option<&Expr>) -> Vec<String> {
    section
        .and_then(Expr::as_array)
        .map(|a| a.items.keys().map(|k| k.as_string()).collect())
        .unwrap_or_default()
}
