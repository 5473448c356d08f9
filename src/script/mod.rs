//! Rhai extensions: the engine with its sandbox, loading scripts, calling their lifecycle
//! functions with `this` bound, and turning script errors into diagnostics.
//!
//! An extension script defines any of `loadConfiguration()`, `beforeCompile()` and
//! `afterCompile(plan)` (Nette's `CompilerExtension` hooks). Each script is compiled once; its
//! top-level statements are not run per call. Functions are called method-style so `this` is
//! the extension ([`extension_api::ExtensionHandle`]).

mod brackets;
pub mod builder_api;
mod definition_api;
pub mod docs;
pub mod extension_api;
pub mod plan_api;
pub mod sandbox;
mod syntax_hints;
pub(crate) use sandbox::limit_note;
pub mod schema_api;
pub mod values;

/// The scripted API in one place, for callers outside this module.
pub mod api {
    pub use super::builder_api::{BuilderHandle, DefinitionHandle, SharedBuilder};
    pub use super::extension_api::{ExtensionHandle, Host};
    pub use super::plan_api::PlanDocument;
    pub use super::values::{to_dynamic, to_expr, OrderedMap};
}

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, SourceMap, Span};
use rhai::{CallFnOptions, Dynamic, Engine, EvalAltResult, ParseError, Position, Scope, AST};
use std::cell::RefCell;
use std::path::Path;

/// Sandbox limits, identical in debug and release builds. A project changes them in its
/// `wireplan: sandbox:` section ([`sandbox::project_limits`], docs/scripting-api.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Wall-clock time per lifecycle call (and per top-level run of a script).
    pub time_limit: std::time::Duration,
    /// Bytes allocated per lifecycle call, freed or not (enforced where
    /// [`sandbox::CountingAllocator`] is the global allocator).
    pub max_allocated: u64,
    /// Maximum operations per lifecycle call.
    pub max_operations: u64,
    /// Maximum call depth.
    pub max_call_levels: usize,
    /// Maximum expression nesting (global, inside functions).
    pub max_expr_depths: (usize, usize),
    /// Maximum string length in bytes.
    pub max_string_size: usize,
    /// Maximum array length.
    pub max_array_size: usize,
    /// Maximum map size.
    pub max_map_size: usize,
    /// Maximum number of variables in scope.
    pub max_variables: usize,
    /// Whether the `wireplan:` section meant to set these limits had an error, so the limits
    /// are the defaults (or the caller's): a script stopped by one then says so, as the limit
    /// it names is not the one the section asked for.
    pub section_failed: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time_limit: std::time::Duration::from_secs(10),
            max_allocated: 512 << 20,
            max_operations: 20_000_000,
            max_call_levels: 64,
            max_expr_depths: (64, 32),
            max_string_size: 1 << 20,
            max_array_size: 100_000,
            max_map_size: 100_000,
            max_variables: 1_000,
            section_failed: false,
        }
    }
}

/// Per-run state shared with registered functions: where the current call is, and the
/// warnings scripts caused.
#[derive(Debug, Default)]
pub struct ScriptState {
    /// The file of the script being run.
    pub file: Option<FileId>,
    /// Its text, to turn call positions into spans (shared, not copied per call).
    pub(crate) source: Option<std::rc::Rc<crate::source::SourceFile>>,
    /// Warnings raised by registered functions, with the script position of the call.
    pub(crate) warnings: Vec<(Position, Diagnostic)>,
    /// Lookups by tag or type the script made (`findByTag`, `findByType`, `getByType`, …),
    /// with where; the compiler checks them against what later extensions add.
    pub lookups: Vec<Lookup>,
}

/// One lookup an extension made through the builder.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookup {
    /// The call as written (`findByTag('route')`), for messages.
    pub call: String,
    /// What it looked for.
    pub by: LookupBy,
    /// Where the call is in the script.
    pub span: Option<Span>,
}

/// What a [`Lookup`] looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookupBy {
    /// Services carrying this tag.
    Tag(String),
    /// Services of this type (or a subtype).
    Type(String),
}

impl ScriptState {
    pub(crate) fn warn_at(&mut self, pos: Position, d: Diagnostic) {
        self.warnings.push((pos, d));
    }

    /// Records a lookup made at `pos` (see [`ScriptState::lookups`]).
    pub(crate) fn record_lookup(&mut self, pos: Position, call: String, by: LookupBy) {
        let span = self.span_at(pos);
        self.lookups.push(Lookup { call, by, span });
    }

    /// The span of a script position in the running script, if known.
    pub(crate) fn span_at(&self, pos: Position) -> Option<Span> {
        let (file, source) = (self.file?, self.source.as_ref()?);
        let start = source.offset_of_char_pos(pos.line()?, pos.position().unwrap_or(1));
        Some(Span::new(file, start, start + 1))
    }
}

thread_local! {
    /// The top-level constants of the extension whose lifecycle function is running.
    static TOP_LEVEL_CONSTANTS: RefCell<std::rc::Rc<Vec<(String, Dynamic)>>> =
        RefCell::new(std::rc::Rc::new(Vec::new()));
}

/// Builds the sandboxed engine with the scripted API registered.
pub fn engine(limits: &Limits) -> Engine {
    // A new compilation's scripts start with no dynamic parameter's text given out.
    values::forget_frozen();
    let mut e = Engine::new();
    e.set_max_operations(limits.max_operations);
    e.set_max_call_levels(limits.max_call_levels);
    e.set_max_expr_depths(limits.max_expr_depths.0, limits.max_expr_depths.1);
    // The sandbox's value sizes, lowered under a memory ceiling (see `ValueSizes` for why).
    let sizes = sandbox::ValueSizes::of(limits);
    e.set_max_string_size(sizes.strings.0);
    e.set_max_array_size(sizes.arrays.0);
    e.set_max_map_size(sizes.maps.0);
    e.set_max_variables(limits.max_variables);
    e.on_progress(sandbox::progress(limits));
    // The limits ride along with the engine, so each extension can name them in errors.
    *e.default_tag_mut() = Dynamic::from(*limits);
    e.disable_symbol("eval");
    e.set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
    // Script output goes to standard error, so it never mixes with JSON on standard output.
    // A script prints text it may have read from anywhere: shown visibly, so it cannot act
    // on the terminal (as every other answer and message is).
    e.on_print(|s| eprintln!("script: {}", crate::diagnostics::visible_text(s)));
    e.on_debug(|s, src, pos| match pos.line() {
        Some(line) => eprintln!("{}:{line}: debug: {s}", src.unwrap_or("script")),
        None => eprintln!("{}: debug: {s}", src.unwrap_or("script")),
    });
    // A script's top-level constants, by bare name, in every function of its lifecycle calls
    // (Rhai functions do not see the top level): a local of the same name wins.
    #[allow(deprecated)] // Rhai marks `on_var` volatile, not deprecated.
    e.on_var(|name, _, ctx| {
        let found = TOP_LEVEL_CONSTANTS.with(|c| {
            c.borrow()
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone().into_read_only())
        });
        // Only a name that is a top-level constant and not a local of the function.
        Ok(found.filter(|_| !ctx.scope().contains(name)))
    });
    values::register(&mut e);
    builder_api::register(&mut e);
    extension_api::register(&mut e);
    plan_api::register(&mut e);
    schema_api::register(&mut e);
    e
}

/// The lifecycle functions the compiler calls on an extension, with their numbers of
/// parameters, in the order it calls them (Nette's `CompilerExtension` methods; `afterCompile`
/// gets the plan document instead of Nette's generated class).
pub const LIFECYCLE: &[(&str, usize)] = &[
    ("getConfigSchema", 0),
    ("loadConfiguration", 0),
    ("beforeCompile", 0),
    ("afterCompile", 1),
];

/// A loaded extension script.
pub struct Extension {
    /// Its name (the key under `extensions:`).
    pub name: String,
    /// The script's file.
    pub file: FileId,
    ast: AST,
    limits: Limits,
    source: std::rc::Rc<crate::source::SourceFile>,
    /// The script's top-level `const` values, as the top level left them: every lifecycle
    /// call sees them as constants (by bare name, also in helper functions).
    constants: std::rc::Rc<Vec<(String, Dynamic)>>,
    /// Does the script read `global::NAME`? Then the top level runs again before each
    /// lifecycle call, which is how Rhai fills its `global` namespace.
    uses_global: bool,
}

/// Converts a 1-based Rhai position in `file` to a span (one character wide).
pub(crate) fn span_of(sources: &SourceMap, file: FileId, pos: Position) -> Option<Span> {
    let line = pos.line()?;
    let col = pos.position().unwrap_or(1);
    let f = sources.get(file);
    let start = f.offset_of_char_pos(line, col);
    let end = f.text[start..]
        .chars()
        .next()
        .map(|c| start + c.len_utf8())
        .unwrap_or(start);
    Some(Span::new(file, start, end))
}

pub(crate) fn strip_position(msg: &str) -> String {
    let msg = match msg.rfind(" (line ") {
        Some(i) if msg.ends_with(')') => &msg[..i],
        _ => msg,
    };
    readable_types(msg)
}

/// `text` (a Rhai message, e.g. a function signature that matched nothing) with Rhai's
/// spelling of a string argument, `&str | ImmutableString | String`, written `string`, as the
/// scripting API's documentation names it.
pub(crate) fn readable_types(text: &str) -> String {
    text.replace("&str | ImmutableString | String", "string")
        .replace("ImmutableString", "string")
}

impl Extension {
    /// Reads and compiles the script at `path`. Errors: `file-not-found` (at `from`, the
    /// `extensions:` entry) or `script-error` (at the syntax error).
    pub fn load(
        engine: &Engine,
        name: &str,
        path: &Path,
        from: Option<Span>,
        sources: &mut SourceMap,
    ) -> Result<Extension, Diagnostic> {
        let bytes = crate::source::read_input_file(path).map_err(|e| {
            sources.note_missing(path);
            // A file that is there but refused (a folder, a device, past the size limit) says
            // so, as a configuration file does, rather than "missing" (a new user's trial).
            if e.kind() == std::io::ErrorKind::InvalidInput {
                let d = Diagnostic::error(
                    Code::FileNotFound,
                    format!("Extension script '{}' cannot be read: {e}.", path.display()),
                )
                .at(from);
                return if path.is_dir() {
                    d.with_note("give the script file (`NAME.rhai`), not a folder")
                } else {
                    d
                };
            }
            let d = Diagnostic::error(
                Code::FileNotFound,
                format!(
                    "Extension script '{}' is missing or is not readable.",
                    path.display()
                ),
            )
            .at(from);
            let d = match crate::source::backslash_note(path) {
                Some(note) if e.kind() == std::io::ErrorKind::NotFound => d.with_note(note),
                _ => d,
            };
            d.with_note(e.to_string()).with_note(format!(
                "a relative script path is resolved against the folder of the configuration \
                 file that names it (here: {}); a bare name such as `logaware` is looked up on \
                 the script search path",
                std::path::absolute(path)
                    .unwrap_or_else(|_| path.to_path_buf())
                    .display()
            ))
        })?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Diagnostic::error(
                Code::ScriptError,
                format!("Extension script '{}' is not valid UTF-8.", path.display()),
            )
            .at(from)
        })?;
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let file = sources.add_path(path.display().to_string(), &canonical, text);
        Self::compile(engine, name, file, sources)
    }

    /// Compiles a script already registered as `file`.
    pub fn compile(
        engine: &Engine,
        name: &str,
        file: FileId,
        sources: &SourceMap,
    ) -> Result<Extension, Diagnostic> {
        let text = &sources.get(file).text;
        // A UTF-8 byte order mark (some Windows editors write one) is not Rhai. The source
        // map counts line 1's columns from after it, as Rhai does without it, so the
        // positions of errors stay right.
        let mut ast = engine
            .compile(text.strip_prefix('\u{feff}').unwrap_or(text))
            .map_err(|e| parse_error(sources, file, name, &e))?;
        ast.set_source(sources.get(file).name.clone());
        let limits = engine
            .default_tag()
            .read_lock::<Limits>()
            .map(|l| *l)
            .unwrap_or_default();
        let mut ext = Extension {
            name: name.to_string(),
            file,
            ast,
            limits,
            source: std::rc::Rc::new(sources.get(file).clone()),
            constants: std::rc::Rc::new(Vec::new()),
            uses_global: text.contains("global::"),
        };
        // Top-level statements run here (they cannot see `this`); their errors count. The
        // constants they declare are kept for the lifecycle functions.
        let mut top = Scope::new();
        let run = sandbox::begin();
        let result = engine.run_ast_with_scope(&mut top, &ext.ast);
        drop(run);
        if let Err(e) = result {
            return Err(ext.runtime_error(sources, "<top level>", &e, &ext.limits));
        }
        ext.constants = std::rc::Rc::new(
            top.iter()
                .filter(|(_, constant, _)| *constant)
                .map(|(n, _, v)| (n.to_string(), v))
                .collect(),
        );
        Ok(ext)
    }

    /// Warnings (`lifecycle-signature`) for functions the compiler will never call although
    /// they look meant to be lifecycle functions ([`LIFECYCLE`]): the right name with another
    /// number of parameters, or the name in another letter case (`beforecompile`), when the
    /// script has no function of the right shape. Each points at the function's `fn`.
    pub fn lifecycle_warnings(&self, sources: &SourceMap) -> Vec<Diagnostic> {
        let text = &sources.get(self.file).text;
        let mut out = Vec::new();
        for f in self.ast.iter_functions() {
            for &(name, arity) in LIFECYCLE {
                if self.has_arity(name, arity) {
                    continue;
                }
                let expected = match arity {
                    0 => "no parameters".to_string(),
                    1 => "one parameter".to_string(),
                    n => format!("{n} parameters"),
                };
                let message = if f.name == name && f.params.len() != arity {
                    let params = if arity == 1 { "plan" } else { "" };
                    format!(
                        "Extension '{}': {name}() takes {expected} (fn {name}({params})), this \
                         one takes {}, so the compiler never calls it.",
                        self.name,
                        f.params.len()
                    )
                } else if f.name != name && f.name.eq_ignore_ascii_case(name) {
                    format!(
                        "Extension '{}': '{}' is not a lifecycle function, so the compiler never \
                         calls it; did you mean '{name}'?",
                        self.name, f.name
                    )
                } else {
                    continue;
                };
                let mut d = Diagnostic::warning(Code::LifecycleSignature, message);
                if let Some(at) = text.find(&format!("fn {}", f.name)) {
                    d = d.with_primary(Span::new(self.file, at, at + 3 + f.name.len()), "here");
                }
                out.push(d);
            }
        }
        // In the order of the script's text (the compiled functions come in no set order).
        out.sort_by_key(|d| d.primary_span().map(|s| s.start));
        out
    }

    /// Does the script define a function `name` without parameters?
    pub fn has(&self, name: &str) -> bool {
        self.has_arity(name, 0)
    }

    /// Does the script define a function `name` with `arity` parameters?
    pub fn has_arity(&self, name: &str, arity: usize) -> bool {
        self.ast
            .iter_functions()
            .any(|f| f.name == name && f.params.len() == arity)
    }

    /// Calls lifecycle function `func` with `this` bound to `this`. Returns the diagnostics the
    /// call produced (warnings, and the error if it failed).
    pub fn call(
        &self,
        engine: &Engine,
        func: &str,
        this: &mut api::ExtensionHandle,
        sources: &RefCell<SourceMap>,
    ) -> Vec<Diagnostic> {
        self.call_with(engine, func, this, sources, Vec::new())
    }

    /// Calls `func` with positional `args` (for `afterCompile(plan)`); see [`Extension::call`].
    pub fn call_with(
        &self,
        engine: &Engine,
        func: &str,
        this: &mut api::ExtensionHandle,
        sources: &RefCell<SourceMap>,
        args: Vec<Dynamic>,
    ) -> Vec<Diagnostic> {
        self.call_returning(engine, func, this, sources, args).1
    }

    /// Like [`Extension::call_with`], also returning what the function returned (`None` when
    /// it is not defined or failed).
    pub fn call_returning(
        &self,
        engine: &Engine,
        func: &str,
        this: &mut api::ExtensionHandle,
        sources: &RefCell<SourceMap>,
        args: Vec<Dynamic>,
    ) -> (Option<Dynamic>, Vec<Diagnostic>) {
        if !self.has_arity(func, args.len()) {
            return (None, Vec::new());
        }
        {
            let mut state = this.state.borrow_mut();
            state.file = Some(self.file);
            state.source = Some(self.source.clone());
        }
        let mut bound = Dynamic::from(this.clone());
        let mut scope = Scope::new();
        let options = CallFnOptions::new()
            .eval_ast(self.uses_global)
            .rewind_scope(true)
            .bind_this_ptr(&mut bound);
        let outer = TOP_LEVEL_CONSTANTS.with(|c| c.replace(self.constants.clone()));
        let run = sandbox::begin();
        let result =
            engine.call_fn_with_options::<Dynamic>(options, &mut scope, &self.ast, func, args);
        drop(run);
        TOP_LEVEL_CONSTANTS.with(|c| c.replace(outer));
        if let Some(updated) = bound.try_cast::<api::ExtensionHandle>() {
            this.config = updated.config;
        }
        let sources = sources.borrow();
        let sources = &*sources;
        let mut out: Vec<Diagnostic> = this
            .state
            .borrow_mut()
            .warnings
            .drain(..)
            .map(|(pos, d)| {
                let span = span_of(sources, self.file, pos);
                d.at(span)
            })
            .collect();
        match result {
            Ok(v) => (Some(v), out),
            Err(e) => {
                out.push(self.runtime_error(sources, func, &e, &self.limits));
                (None, out)
            }
        }
    }

    /// A `script-error` about this extension, pointing at its function `func`.
    pub fn error_at_function(
        &self,
        func: &str,
        sources: &SourceMap,
        message: String,
    ) -> Diagnostic {
        let mut d = Diagnostic::error(
            Code::ScriptError,
            format!("Extension '{}': {}", self.name, strip_position(&message)),
        );
        if let Some(span) = self.function_span(sources, func) {
            d = d.with_primary(span, "in this function");
        }
        d
    }

    /// Where `fn func` is written in the script (the first such text), if it is.
    fn function_span(&self, sources: &SourceMap, func: &str) -> Option<Span> {
        let at = sources.get(self.file).text.find(&format!("fn {func}"))?;
        Some(Span::new(self.file, at, at + 3 + func.len()))
    }

    /// The compiled script (for calling function pointers it handed out).
    pub fn ast(&self) -> &AST {
        &self.ast
    }

    /// The error of a schema closure (`assert`, `transform`, `before`) that failed while the
    /// compiler validated this extension's section, at the closure's line, with the sandbox
    /// limit it hit if it hit one.
    pub fn closure_error(&self, sources: &SourceMap, err: &EvalAltResult) -> Diagnostic {
        let mut d = self.runtime_error(
            sources,
            "a schema closure of getConfigSchema()",
            err,
            &self.limits,
        );
        // A sandbox limit carries no position: point at the function that built the schema.
        if d.primary_span().is_none() {
            if let Some(span) = self.function_span(sources, "getConfigSchema") {
                d = d.with_primary(span, "a closure of the schema this function returns");
            }
        }
        d
    }

    fn runtime_error(
        &self,
        sources: &SourceMap,
        func: &str,
        err: &EvalAltResult,
        limits: &Limits,
    ) -> Diagnostic {
        let mut frames: Vec<(String, Position)> = Vec::new();
        let mut inner = err;
        while let EvalAltResult::ErrorInFunctionCall(fname, _src, next, pos) = inner {
            frames.push((fname.clone(), *pos));
            inner = next;
        }
        let pos = inner.position();
        let mut d = match inner {
            EvalAltResult::ErrorRuntime(value, _) if value.is::<Diagnostic>() => {
                value.clone().cast::<Diagnostic>().with_note(format!(
                    "raised in extension '{}', {}",
                    self.name,
                    where_(func)
                ))
            }
            EvalAltResult::ErrorRuntime(value, _) => {
                // A script that names itself in its message is not named twice.
                let text = value.to_string();
                let own = format!("extension '{}': ", self.name);
                let text = match text.get(..own.len()) {
                    Some(head) if head.eq_ignore_ascii_case(&own) => text[own.len()..].to_string(),
                    _ => text,
                };
                Diagnostic::error(
                    Code::ScriptError,
                    format!(
                        "Extension '{}': {text} (thrown in {})",
                        self.name,
                        where_(func)
                    ),
                )
            }
            EvalAltResult::ErrorTerminated(value, _)
                if sandbox::termination_message(value, limits).is_some() =>
            {
                let (message, note) =
                    sandbox::termination_message(value, limits).unwrap_or_default();
                // Past the memory ceiling, the compilation's own check would report the
                // same cause again; as `memory-limit` here, this is the one report.
                let code = if sandbox::is_memory_limit(value) {
                    Code::MemoryLimit
                } else {
                    Code::ScriptError
                };
                Diagnostic::error(
                    code,
                    format!("Extension '{}': {message} in {}", self.name, where_(func)),
                )
                .with_note(note)
            }
            // A closure (`|v| …`, `anon$…` inside Rhai) called with another number of values
            // than it takes.
            EvalAltResult::ErrorFunctionNotFound(sig, _) if sig.starts_with("anon$") => {
                let given = sig
                    .split_once(" (")
                    .and_then(|(_, a)| a.strip_suffix(')'))
                    .map_or(0, |a| a.split(", ").filter(|x| !x.is_empty()).count());
                let d = Diagnostic::error(
                    Code::ScriptError,
                    format!(
                        "Extension '{}': a closure is called with {given} value(s) but takes a \
                         different number of parameters, in {}",
                        self.name,
                        where_(func)
                    ),
                );
                if func.starts_with("a schema closure") {
                    d.with_note(
                        "schema closures (assert, transform, before) take one parameter, the \
                         value: |v| …",
                    )
                } else {
                    d
                }
            }
            EvalAltResult::ErrorFunctionNotFound(sig, _) => {
                let d = Diagnostic::error(
                    Code::ScriptError,
                    format!(
                        "Extension '{}': no function matches {} in {}",
                        self.name,
                        readable_types(sig),
                        where_(func)
                    ),
                );
                // A misspelt name of the API (`setFactroy`) gets the name it is closest to;
                // a known name called with other argument types gets none.
                let called = sig.split(" (").next().unwrap_or(sig);
                let d = if docs::API.iter().any(|a| a.name == called) {
                    d
                } else {
                    d.with_suggestion(called, docs::API.iter().map(|a| a.name))
                };
                // An operand or argument of type `()` is most often a map key that is not
                // there (`this.config.nosuch` reads as `()`), not a wrong function.
                d.with_note(no_function_note(sig))
            }
            other => Diagnostic::error(
                Code::ScriptError,
                format!(
                    "Extension '{}': {} in {}",
                    self.name,
                    strip_position(&other.to_string()),
                    where_(func)
                ),
            ),
        };
        // A diagnostic that already points somewhere (a NEON error in a file the script
        // loaded) keeps its place; the script line becomes a secondary label below. One that
        // does not keeps its secondary labels (where a service it misses was removed).
        let keep = d.primary_span().is_some();
        if !keep {
            d.labels.retain(|l| !l.primary);
        }
        let mut limited = matches!(inner, EvalAltResult::ErrorTerminated(value, _)
            if sandbox::termination_message(value, limits).is_some());
        if let Some(note) = limit_note(inner, limits) {
            d = d.with_note(note);
            limited = true;
        }
        if limited && limits.section_failed {
            d = d.with_note(
                "the `wireplan:` section has an error (reported with it), so the scripts ran \
                 under the default limits, not the ones it sets",
            );
        }
        let primary_pos = if pos.is_none() {
            frames.first().map(|f| f.1).unwrap_or(Position::NONE)
        } else {
            pos
        };
        match span_of(sources, self.file, primary_pos) {
            Some(span) if keep => d = d.with_secondary(span, "called here"),
            Some(span) => d = d.with_primary(span, "raised here"),
            // No position (a sandbox limit hit): point at the lifecycle function.
            None if !keep => {
                if let Some(span) = self.function_span(sources, func) {
                    d = d.with_primary(span, "in this function");
                }
            }
            None => {}
        }
        for (fname, p) in &frames {
            if let Some(span) = span_of(sources, self.file, *p) {
                if Some(span) != d.primary_span() {
                    d = d.with_secondary(span, format!("in call to {fname}()"));
                }
            }
        }
        d
    }
}

/// `loadConfiguration()`, or `the script's top level`.
fn where_(func: &str) -> String {
    if func.starts_with('<') {
        "the script's top level".to_string()
    } else if func.contains(' ') {
        // Already a phrase (`a schema closure of getConfigSchema()`).
        func.to_string()
    } else {
        format!("{func}()")
    }
}

/// The note for a call that no function matches: about a `()` operand when there is one
/// (usually a map key that is not there), else about names and argument types.
pub(crate) fn no_function_note(sig: &str) -> &'static str {
    if unit_argument(sig) {
        "an operand or argument is () (nothing): reading a map key that is not there gives (), e.g. `this.config.nosuch`; check the names read just before, or test with `\"key\" in map`"
    } else {
        "Check the name and the argument types against docs/scripting-api.md (the types in the message are those the call passed)."
    }
}

/// Whether a Rhai function signature (`+ (i64, ())`, `foo ()` for no arguments) has an
/// argument of type `()`.
fn unit_argument(sig: &str) -> bool {
    sig.split_once(" (")
        .and_then(|(_, args)| args.strip_suffix(')'))
        .is_some_and(|args| args.split(", ").any(|a| a.trim() == "()"))
}

/// A syntax error, at Rhai's position; a bracket it says is not closed, opened on an earlier
/// line, is a second label ("this '(' is still open").
fn parse_error(sources: &SourceMap, file: FileId, name: &str, e: &ParseError) -> Diagnostic {
    let msg = strip_position(&e.to_string());
    let at = span_of(sources, file, e.position());
    let mut d = Diagnostic::error(
        Code::ScriptError,
        format!("Extension '{name}': syntax error: {msg}"),
    )
    .at(at);
    if matches!(*e.0, rhai::ParseErrorType::ExprTooDeep) {
        d = d.with_note(
            "Rhai's parser limits how deeply expressions nest, more tightly inside a function (a \
             guard against running out of stack, not a sandbox setting; a list inside a list \
             counts as several levels): build a deeply nested value in steps, one level per \
             variable",
        );
    }
    if let rhai::ParseErrorType::Reserved(word) = &*e.0 {
        let start = at.map_or(0, |a| a.start as usize);
        if let Some(note) = syntax_hints::reserved_word(&sources.get(file).text, start, word) {
            d = d.with_note(note);
        }
    }
    if let Some(at) = at {
        let f = sources.get(file);
        let end = at.start as usize;
        let open = match brackets::expected_closer(&msg) {
            Some(open) => brackets::unclosed_before(&f.text, end, open).map(|b| (open, b)),
            None => brackets::mismatched_before(&msg, &f.text, end),
        };
        if let Some((open, b)) = open.filter(|(_, b)| f.line_index(*b) != f.line_index(end)) {
            d = d.with_secondary(
                Span::new(file, b, b + 1),
                format!("this '{open}' is still open"),
            );
        }
        // Rhai finds a missing ';' where the next statement starts, usually a line later:
        // point at the end of the statement that lacks it too. Only when the error is at the
        // first code of its line and that statement does not end in ';' or '{' already: an
        // error inside a line (`let g == 2;`) is a mistake on that line.
        let line_start = f.text[..end].rfind('\n').map_or(0, |i| i + 1);
        let first_on_line = f.text[line_start..end].trim().is_empty();
        if first_on_line && matches!(&*e.0, rhai::ParseErrorType::MissingToken(t, _) if t == ";") {
            if let Some((b, e)) = syntax_hints::statement_end_before(&f.text, end)
                .filter(|&(b, e)| !matches!(&f.text[b..e], ";" | "{"))
            {
                d = d.with_secondary(Span::new(file, b, e), "add ';' after this");
            }
        }
    }
    d
}

#[cfg(test)]
mod tests;
