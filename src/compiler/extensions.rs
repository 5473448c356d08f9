//! Running Rhai extensions for the compiler: finding scripts (paths relative to the config,
//! bare names on the search path or shipped with wireplan), loading them, calling their
//! lifecycle functions, and the host ([`CompilerHost`]) that gives scripts files, definitions
//! and exports.

mod host;
mod order;
mod plan_edits;

pub use host::{project_root, CompilerHost};

use plan_edits::{changed_paths, plan_format_errors, rebuild_indexes, MAX_CHANGED_PATHS};

use crate::builder::Actor;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::script::api::{ExtensionHandle, PlanDocument, SharedBuilder};
use crate::script::{self, Extension, Limits};
use crate::source::{normalize_path, FileId, SourceMap, Span};
use indexmap::IndexMap;
use rhai::{Dynamic, Engine};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use wireplan_runtime::plan::Plan;

/// Extensions shipped with wireplan, usable by bare name (`logging: logaware`).
pub const BUILTIN_SCRIPTS: &[(&str, &str)] = &[
    (
        "logaware",
        include_str!("../../scripts/extensions/logaware.rhai"),
    ),
    (
        "commands",
        include_str!("../../scripts/extensions/commands.rhai"),
    ),
    (
        "envswitch",
        include_str!("../../scripts/extensions/envswitch.rhai"),
    ),
    ("blog", include_str!("../../scripts/extensions/blog.rhai")),
];

/// The name a shipped extension's script has in diagnostics and in the plan's dependency
/// list: `shipped extension 'logaware'` (it has no file the user could open; its text is in
/// `scripts/extensions/` of wireplan's sources).
pub fn shipped_name(script: &str) -> String {
    format!("shipped extension '{script}'")
}

/// Whether `file` of `sources` is a shipped extension's script (see [`shipped_name`]).
fn shipped_text_of(sources: &SourceMap, file: FileId) -> bool {
    shipped_text(&sources.get(file).name).is_some()
}

/// The text of the shipped script whose [`shipped_name`] is `name`, for dependency checks
/// (dev mode hashes it like a file, so the cache is reused until wireplan's copy changes).
pub fn shipped_text(name: &str) -> Option<&'static str> {
    let script = name
        .strip_prefix("shipped extension '")?
        .strip_suffix('\'')?;
    BUILTIN_SCRIPTS
        .iter()
        .find(|(n, _)| *n == script)
        .map(|(_, text)| *text)
}

/// The loaded extensions of one compilation, in registration order.
pub struct Extensions {
    engine: Rc<Engine>,
    list: Vec<(Extension, ExtensionHandle)>,
    /// Each extension's raw configuration section (`None` when absent), in `list` order.
    raw_configs: Vec<Option<Expr>>,
    /// Where each extension is registered (its `extensions:` entry), in `list` order.
    entry_spans: Vec<Option<Span>>,
    /// Each extension's declared `before:`/`after:`, in `list` order.
    orders: Vec<order::Declared>,
    /// Extensions whose section failed validation: their lifecycle functions are not called
    /// (as in Nette, where the exception stops the compilation), to avoid follow-on errors.
    invalid: Vec<String>,
    /// The host shared with every script.
    pub host: Rc<CompilerHost>,
    /// Script files, for the plan's dependency list.
    pub files: Vec<FileId>,
}

/// Whether an `extensions:` value names a script on the search path rather than a file: no
/// `/` or `\`, no `.rhai` ending, and not `.` or `..` (folders, reported as such).
fn is_bare_name(path: &str) -> bool {
    !path.contains('/')
        && !path.contains('\\')
        && !path.ends_with(".rhai")
        && !matches!(path, "." | "..")
}

/// Whether an `extensions:` value names a NEON file (`app.neon`, any letter case).
fn is_neon_name(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".neon")
}

/// The note for a NEON file named where an extension script goes (`verb`: `is` for a file
/// that was read, `names` for a name looked up on the search path).
fn neon_file_note(path: &str, verb: &str) -> String {
    format!(
        "'{path}' {verb} a NEON file: an extension is a Rhai script (.rhai); a configuration \
         is added with `includes:`"
    )
}

impl Extensions {
    /// Loads the scripts named in the `extensions:` section. `config_of` gives each extension's
    /// configuration section. Errors go to `diags`; a failed script is skipped.
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        section: Option<&Expr>,
        config_of: &dyn Fn(&str) -> Option<Expr>,
        builder: SharedBuilder,
        parameters: IndexMap<String, Expr>,
        sources: Rc<RefCell<SourceMap>>,
        project_root: PathBuf,
        search_path: &[PathBuf],
        limits: &Limits,
        diags: &mut Diagnostics,
    ) -> Extensions {
        let host = Rc::new(CompilerHost {
            sources: sources.clone(),
            builder: builder.clone(),
            parameters,
            project_root,
            extensions: RefCell::new(Vec::new()),
            exported_tags: RefCell::new(Vec::new()),
            exported_types: RefCell::new(Vec::new()),
        });
        // Without an `extensions:` section no script runs: a bare engine stands in for the
        // sandboxed one, whose registration of the scripted API touches several megabytes of
        // code (a third of an empty compilation's resident memory).
        let engine = match section {
            Some(_) => script::engine(limits),
            None => Engine::new_raw(),
        };
        let mut ext = Extensions {
            engine: Rc::new(engine),
            list: Vec::new(),
            raw_configs: Vec::new(),
            entry_spans: Vec::new(),
            orders: Vec::new(),
            invalid: Vec::new(),
            host,
            files: Vec::new(),
        };
        let Some(section) = section else {
            return ext;
        };
        // The section's schema: name → script path or `path(args)`. An entry of another kind
        // is reported by it and skipped; the others are still loaded, so their own errors
        // (a missing script, a bad name) come in the same run.
        let valid = crate::schema::validate(
            &crate::schema::sections::extensions(),
            section,
            &["extensions"],
            diags,
        )
        .is_some();
        let Some(entries) = section.as_array() else {
            return ext;
        };
        let mut seen: Vec<String> = Vec::new();
        for (key, value) in &entries.items {
            if !valid
                && !matches!(
                    value.kind,
                    ExprKind::Str(_) | ExprKind::Statement(_) | ExprKind::Array(_)
                )
            {
                continue;
            }
            let name = match key {
                Key::Str(s) => s.to_string(),
                Key::Int(i) => format!("_{}", i + 1),
            };
            // Nette: names are unique case-insensitively and may not take a built-in section.
            let problem = if super::BUILTIN_SECTIONS
                .iter()
                .any(|b| b.eq_ignore_ascii_case(&name))
            {
                Some(format!("Name '{name}' is already used or reserved."))
            } else if !name.chars().all(|c| c.is_alphanumeric() || c == '_') || name.is_empty() {
                Some(format!(
                    "Extension name '{name}' must be alphanumeric (it prefixes service names)."
                ))
            } else {
                seen.iter()
                    .find(|o| o.eq_ignore_ascii_case(&name))
                    .map(|o| format!(
                        "Name of extension '{name}' has the same name as '{o}' in a case-insensitive manner."
                    ))
            };
            if let Some(msg) = problem {
                diags.push(Diagnostic::error(Code::InvalidDefinition, msg).at(value.span));
                continue;
            }
            seen.push(name.clone());
            // The map form `{script, args, before, after}` declares the order; the script is
            // read from its `script` item like the short forms.
            let (value, order) = match &value.kind {
                ExprKind::Array(map) if !map.is_empty() => {
                    match order::entry(&name, map, value.span, diags) {
                        Some((script, o)) => (script, Some(o)),
                        None => continue,
                    }
                }
                _ => (value.clone(), None),
            };
            let value = &value;
            let (path, mut args) = match &value.kind {
                ExprKind::Str(p) => (p.clone(), Vec::new()),
                ExprKind::Statement(st) => match &st.callee {
                    Callee::Name(p) => (
                        p.clone(),
                        st.arguments.values().map(script::api::to_dynamic).collect(),
                    ),
                    Callee::Member(..) => (String::new(), Vec::new()),
                },
                _ => (String::new(), Vec::new()),
            };
            if let Some(o) = &order {
                if let Some(a) = &o.args {
                    args = a.values().map(script::api::to_dynamic).collect();
                }
            }
            if path.is_empty() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "The item 'extensions › {name}' expects to be a script path, {} given.",
                            value.describe()
                        ),
                    )
                    .at(value.span),
                );
                continue;
            }
            let loaded = ext.load_one(&name, &path, value.span, search_path);
            match loaded {
                Ok(script_ext) => {
                    for w in script_ext.lifecycle_warnings(&sources.borrow()) {
                        diags.push(w);
                    }
                    ext.raw_configs.push(config_of(&name));
                    ext.entry_spans.push(value.span);
                    let config = match config_of(&name) {
                        Some(c)
                            if !(c.as_array().is_some_and(ExprArray::is_empty) || c.is_null()) =>
                        {
                            script::api::to_dynamic(&c)
                        }
                        _ => Dynamic::from(script::api::OrderedMap::default()),
                    };
                    let display = sources.borrow().get(script_ext.file).name.clone();
                    ext.host
                        .extensions
                        .borrow_mut()
                        .push((name.clone(), display.clone()));
                    let handle = ExtensionHandle::new(
                        &name,
                        &display,
                        config,
                        args,
                        builder.clone(),
                        ext.host.clone(),
                    );
                    ext.files.push(script_ext.file);
                    ext.list.push((script_ext, handle));
                    ext.orders.push(order.unwrap_or_default());
                }
                Err(d) => {
                    // Its services are missing: errors about them say why (an empty method
                    // stands for "failed to load").
                    builder.borrow_mut().mark_stopped(Actor {
                        extension: name.clone(),
                        method: String::new(),
                        builtin: false,
                    });
                    diags.push(d)
                }
            }
        }
        ext.apply_order(diags);
        ext
    }

    /// Puts the extensions in the order their `before:`/`after:` declare (a stable
    /// topological sort: otherwise registration order). Unknown names and cycles are
    /// `extension-order` errors; the registration order is kept then.
    fn apply_order(&mut self, diags: &mut Diagnostics) {
        let names: Vec<String> = self.list.iter().map(|(e, _)| e.name.clone()).collect();
        let Some(order) = order::sort(&names, &self.orders, diags) else {
            return;
        };
        let mut slots: Vec<Option<_>> = std::mem::take(&mut self.list)
            .into_iter()
            .zip(std::mem::take(&mut self.raw_configs))
            .zip(std::mem::take(&mut self.entry_spans))
            .zip(std::mem::take(&mut self.orders))
            .map(Some)
            .collect();
        {
            // `this.compiler.getExtensions()` lists them in the order they run.
            let mut listed = self.host.extensions.borrow_mut();
            let mut by_name: Vec<Option<(String, String)>> =
                std::mem::take(&mut *listed).into_iter().map(Some).collect();
            for &i in &order {
                if let Some(pos) = by_name
                    .iter()
                    .position(|x| x.as_ref().is_some_and(|(n, _)| *n == names[i]))
                {
                    listed.extend(by_name[pos].take());
                }
            }
        }
        for i in order {
            if let Some((((e, raw), span), o)) = slots[i].take() {
                self.list.push(e);
                self.raw_configs.push(raw);
                self.entry_spans.push(span);
                self.orders.push(o);
            }
        }
    }

    fn load_one(
        &self,
        name: &str,
        path: &str,
        span: Option<Span>,
        search_path: &[PathBuf],
    ) -> Result<Extension, Diagnostic> {
        let mut sources = self.host.sources.borrow_mut();
        let base = span
            .map(|s| {
                Path::new(&sources.get(s.file).name)
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        if is_bare_name(path) {
            for dir in search_path {
                let candidate = dir.join(format!("{path}.rhai"));
                if candidate.is_file() {
                    return Extension::load(&self.engine, name, &candidate, span, &mut sources);
                }
            }
            if let Some((_, text)) = BUILTIN_SCRIPTS.iter().find(|(n, _)| *n == path) {
                let file = sources.add(shipped_name(path), *text);
                return Extension::compile(&self.engine, name, file, &sources);
            }
            let mut d = Diagnostic::error(
                Code::FileNotFound,
                format!("Extension script '{path}' was not found on the script search path."),
            )
            .at(span);
            let known: Vec<&str> = BUILTIN_SCRIPTS.iter().map(|(n, _)| *n).collect();
            d = d.with_suggestion(path, known.iter().copied());
            // A file of that very name beside the configuration (`c: ext.neon`): a name
            // without `/` or `.rhai` is looked up on the search path, never as a file.
            if base.join(path).is_file() {
                d = d.with_note(format!(
                    "a file '{path}' is next to the configuration: a name without '/' or \
                     '.rhai' is looked up on the script search path; write './{path}' to load \
                     that file"
                ));
            }
            if is_neon_name(path) && !base.join(path).is_file() {
                d = d.with_note(neon_file_note(path, "names"));
            }
            let dirs: Vec<String> = search_path
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            return Err(d.with_note(format!(
                "searched: {}; shipped extensions: {}",
                if dirs.is_empty() {
                    "(no --scripts folders)".into()
                } else {
                    dirs.join(", ")
                },
                known.join(", ")
            )));
        }
        let full = normalize_path(&base.join(path));
        Extension::load(&self.engine, name, &full, span, &mut sources).map_err(|d| {
            // A PHP extension class written as in Nette (`db: Nette\Bridges\…\DatabaseExtension`).
            let php_class = path.contains('\\')
                && !path.contains('/')
                && !path.to_ascii_lowercase().ends_with(".rhai");
            // A configuration named where a script goes (`ext: config/app.neon`): Rhai's
            // syntax error about its first line says nothing of that.
            if is_neon_name(path) {
                return d.with_note(neon_file_note(path, "is"));
            }
            if d.code == Code::FileNotFound && php_class {
                let known: Vec<&str> = BUILTIN_SCRIPTS.iter().map(|(n, _)| *n).collect();
                d.with_note(format!(
                    "'{path}' reads as a PHP extension class: wireplan's extensions are Rhai \
                     scripts, named by a path to a .rhai file or by the name of one on the \
                     search path (shipped: {})",
                    known.join(", ")
                ))
            } else {
                d
            }
        })
    }

    /// Nette's first step for every extension: `getConfigSchema()` (when defined) and the
    /// validation of its section, whose result (defaults filled in) becomes `this.config`.
    pub fn apply_schemas(&mut self, diags: &mut Diagnostics) {
        for (((ext, handle), raw), entry) in self
            .list
            .iter_mut()
            .zip(&self.raw_configs)
            .zip(&self.entry_spans)
        {
            let edits = self.host.builder.borrow().edits();
            let (value, out) = ext.call_returning(
                &self.engine,
                "getConfigSchema",
                handle,
                &self.host.sources,
                Vec::new(),
            );
            // A schema function that raised an error leaves no schema to validate the section
            // with: the extension is stopped as after a section that fails its schema, so
            // loadConfiguration() never reads a section nothing checked (Nette never gets to
            // loadConfiguration() either; a new user's trial).
            let schema_failed = out
                .iter()
                .any(|d| d.severity == crate::diagnostics::Severity::Error);
            diags.extend(out);
            // Nette builds the schema before any configuration is loaded; a service added here
            // would be registered before the sections it depends on (fifth new user's trial).
            if self.host.builder.borrow().edits() != edits {
                diags.push(
                    ext.error_at_function(
                        "getConfigSchema",
                        &self.host.sources.borrow(),
                        "getConfigSchema() changed the container builder: it only describes the \
                     extension's section; register services in loadConfiguration()."
                            .to_string(),
                    ),
                );
            }
            let stop = |builder: &SharedBuilder, invalid: &mut Vec<String>| {
                builder.borrow_mut().mark_stopped(Actor {
                    extension: ext.name.clone(),
                    method: "getConfigSchema".into(),
                    builtin: false,
                });
                invalid.push(ext.name.clone());
            };
            let Some(value) = value else {
                if schema_failed {
                    stop(&self.host.builder, &mut self.invalid);
                }
                continue;
            };
            let Some(schema) = value.clone().try_cast::<script::schema_api::ScriptExpect>() else {
                diags.push(ext.error_at_function(
                    "getConfigSchema",
                    &self.host.sources.borrow(),
                    format!(
                        "getConfigSchema() must return an Expect schema, {} returned.",
                        script::values::script_type_name(&value)
                    ),
                ));
                stop(&self.host.builder, &mut self.invalid);
                continue;
            };
            // `castTo(Class)` builds a statement of that class: it must be in the catalog.
            let unknown: Vec<String> = {
                let b = self.host.builder.borrow();
                schema
                    .0
                    .cast_classes()
                    .into_iter()
                    .filter(|c| !b.catalog.exists(&crate::catalog::normalize_name(c)))
                    .collect()
            };
            for class in unknown {
                let mut d = ext.error_at_function(
                    "getConfigSchema",
                    &self.host.sources.borrow(),
                    format!("castTo('{class}'): Class '{class}' not found."),
                );
                d.code = Code::ClassNotFound;
                let b = self.host.builder.borrow();
                diags.push(d.with_suggestion(
                    &crate::catalog::normalize_name(&class),
                    b.catalog.classes().map(|c| c.name.as_str()),
                ));
            }
            let layers: Vec<Expr> = raw.iter().cloned().collect();
            // An absent section's errors (a missing required item) point at the registration.
            let span = raw.as_ref().and_then(|r| r.span).or(*entry);
            let result =
                script::schema_api::with_callbacks(self.engine.clone(), ext.ast().clone(), || {
                    let mut p = crate::schema::Processor::new()
                        .at_path([ext.name.clone()])
                        .at_span(span);
                    let r = p.process_multiple(&schema.0, layers);
                    (r, p.take_warnings())
                });
            let (result, warnings) = result;
            diags.extend(warnings);
            let failures = script::schema_api::take_callback_errors();
            // A closure that fails the same way for each item of a list is one error.
            let mut reported: Vec<(Diagnostic, usize)> = Vec::new();
            for failure in &failures {
                let d = ext.closure_error(&self.host.sources.borrow(), failure);
                match reported
                    .iter_mut()
                    .find(|(r, _)| r.message == d.message && r.primary_span() == d.primary_span())
                {
                    Some((_, times)) => *times += 1,
                    None => reported.push((d, 1)),
                }
            }
            for (d, times) in reported {
                diags.push(if times > 1 {
                    d.with_note(format!(
                        "raised {times} times: a closure runs once for each value it checks"
                    ))
                } else {
                    d
                });
            }
            // A section that failed its schema: the extension's lifecycle calls are skipped,
            // so the services it would register are missing; errors about them say why.
            match result {
                // A closure that failed left its item unvalidated: the section is invalid, and
                // the extension's lifecycle calls are skipped as after any schema error.
                Ok(_) if !failures.is_empty() => stop(&self.host.builder, &mut self.invalid),
                Ok(v) => {
                    handle.config = match &v.kind {
                        ExprKind::Array(a) if a.is_empty() => {
                            Dynamic::from(script::api::OrderedMap::default())
                        }
                        _ => script::api::to_dynamic(&v),
                    };
                }
                Err(errors) => {
                    diags.extend(errors);
                    stop(&self.host.builder, &mut self.invalid);
                }
            }
        }
    }

    /// Calls `func` (`loadConfiguration` or `beforeCompile`) on every extension in order.
    ///
    /// In `beforeCompile`, a lookup by tag or type that an extension makes is compared with
    /// what the extensions after it add: each match is an `extension-order` warning naming
    /// both places (the earlier extension did not see the service; declare `after:`).
    pub fn call_all(&mut self, func: &str, diags: &mut Diagnostics) {
        let checking = func == "beforeCompile";
        let mut lookups: Vec<(String, script::Lookup)> = Vec::new();
        for (i, (ext, handle)) in self.list.iter_mut().enumerate() {
            if self.invalid.contains(&ext.name) {
                continue;
            }
            // A shipped extension's script is not the user's to edit: its errors also point at
            // the line that registers it.
            let registered = self
                .entry_spans
                .get(i)
                .copied()
                .flatten()
                .filter(|_| shipped_text_of(&self.host.sources.borrow(), ext.file));
            let before = checking.then(|| order::snapshot(&self.host.builder.borrow()));
            handle.take_lookups();
            // Definitions added, changed or removed now remember this extension (explain).
            self.host.builder.borrow_mut().set_actor(Some(Actor {
                extension: ext.name.clone(),
                method: func.to_string(),
                builtin: false,
            }));
            let found = ext.call(&self.engine, func, handle, &self.host.sources);
            let actor = self.host.builder.borrow_mut().actor().cloned();
            self.host.builder.borrow_mut().set_actor(None);
            if let Some(actor) = actor.filter(|_| found.iter().any(|d| d.is_error())) {
                self.host.builder.borrow_mut().mark_stopped(actor);
            }
            // A script that fails after the compilation already reported errors may have
            // failed because of them (a service whose class was not found has no type, so a
            // getByType for it finds nothing): the script's error says so.
            let earlier = diags.items().iter().filter(|d| d.is_error()).count();
            diags.extend(found.into_iter().map(|d| {
                let d = match registered {
                    Some(at) => d.with_secondary(
                        at,
                        format!(
                            "extension '{}' is registered here; its script is shipped with wireplan",
                            ext.name
                        ),
                    ),
                    None => d,
                };
                if earlier > 0 && d.code == Code::ScriptError {
                    d.with_note(format!(
                        "reported after {earlier} earlier error(s) of this compilation, which \
                         it may follow from: fix those first"
                    ))
                } else {
                    d
                }
            }));
            if let Some(before) = before {
                let mut b = self.host.builder.borrow_mut();
                b.refresh();
                order::check_additions(&b, &before, &ext.name, &lookups, diags);
                lookups.extend(
                    handle
                        .take_lookups()
                        .into_iter()
                        .map(|l| (ext.name.clone(), l)),
                );
            }
        }
    }

    /// Runs `f` with the compilation's sources lent to the scripts' host (the sources move
    /// into the shared cell and back).
    pub fn with_sources(
        &mut self,
        sources: &mut SourceMap,
        f: impl FnOnce(&mut Extensions, &mut Diagnostics),
        diags: &mut Diagnostics,
    ) {
        *self.host.sources.borrow_mut() = std::mem::take(sources);
        f(self, diags);
        *sources = std::mem::take(&mut *self.host.sources.borrow_mut());
    }

    /// Whether no extension is loaded (then nothing runs in phase C but the plan build).
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Calls `afterCompile(plan)` on every extension that defines it; the plan document is
    /// shared, so edits are visible to later extensions and end up in `plan`.
    pub fn after_compile(&mut self, plan: &mut Plan, diags: &mut Diagnostics) {
        if !self
            .list
            .iter()
            .any(|(e, _)| e.has_arity("afterCompile", 1))
        {
            return;
        }
        let doc = match serde_json::to_value(&*plan) {
            Ok(v) => PlanDocument(Rc::new(RefCell::new(v))),
            Err(_) => return,
        };
        // Each extension's edits are checked after its own call, so a refused edit points at
        // the afterCompile() that made it.
        let mut current = plan.clone();
        let mut before = doc.0.borrow().clone();
        for (ext, handle) in &mut self.list {
            if !ext.has_arity("afterCompile", 1) {
                continue;
            }
            let arg = vec![Dynamic::from(doc.clone())];
            let builder_edits = self.host.builder.borrow().edits();
            let initialization = self.host.builder.borrow().initialization.len();
            diags.extend(ext.call_with(
                &self.engine,
                "afterCompile",
                handle,
                &self.host.sources,
                arg,
            ));
            // The plan is built from the builder before afterCompile(): a builder change made
            // here (addAlias, addDefinition, setFactory, …) would be lost without a word.
            let builder_changed = self.host.builder.borrow().edits() != builder_edits;
            // Nette's afterCompile() adds initialization code to the generated class; here the
            // plan is that class, so the statement goes into its `initialization` list.
            let initialization_added =
                self.host.builder.borrow().initialization.len() != initialization;
            let edited = doc.0.borrow().clone();
            let mut changed_note = None;
            let problems = match serde_path_to_error::deserialize::<_, Plan>(edited) {
                Ok(mut p) => {
                    let mut problems = rebuild_indexes(&current, &mut p);
                    problems.extend(crate::plan::validate(&p));
                    // Classes the runtime's registry would not have: only the ones this
                    // extension's edit introduced (the compiled plan's are checked already).
                    let builder = self.host.builder.borrow();
                    let known = |c: &str| builder.catalog.exists(c);
                    problems.extend(introduced(
                        crate::plan::unknown_classes(&current, &known),
                        crate::plan::unknown_classes(&p, &known),
                    ));
                    // Constructor calls whose argument count the edit changed (the runtime
                    // refuses them at load; a variadic constructor takes any count).
                    let catalog = &builder.catalog;
                    let params = |c: &str| {
                        let info = catalog.get(c)?;
                        let params = catalog.constructor_of(info);
                        (!params.iter().any(|p| p.variadic))
                            .then(|| params.iter().map(|p| p.name.to_string()).collect())
                    };
                    problems.extend(introduced(
                        crate::plan::wrong_arities(&current, &params),
                        crate::plan::wrong_arities(&p, &params),
                    ));
                    // Lifespans and references the edit changed (the compiler's
                    // captive-dependency check ran on the builder, before the plan).
                    problems.extend(introduced(
                        crate::plan::captives(&current),
                        crate::plan::captives(&p),
                    ));
                    // Slots the edit made other than scoped and empty (the runtime refuses
                    // them at load).
                    problems.extend(introduced(
                        wireplan_runtime::plan::slot_problems(&current),
                        wireplan_runtime::plan::slot_problems(&p),
                    ));
                    // `requires_async` flags the edit made wrong (computed on the builder,
                    // before the plan; the runtime refuses such a plan at load).
                    let ctor = |c: &str| {
                        let info = catalog.get(c)?;
                        if info.is_async {
                            Some(wireplan_runtime::plan::Constructor::Async)
                        } else {
                            (!info.interface && !info.is_abstract && !info.private_constructor)
                                .then_some(wireplan_runtime::plan::Constructor::Sync)
                        }
                    };
                    let flags = |plan: &Plan| {
                        wireplan_runtime::plan::async_flags(plan, &ctor)
                            .iter()
                            .map(ToString::to_string)
                            .collect()
                    };
                    problems.extend(introduced(flags(&current), flags(&p)));
                    drop(builder);
                    if problems.is_empty() {
                        current = p;
                    }
                    problems
                }
                Err(e) => plan_format_errors(&doc.0.borrow(), &e),
            };
            // The error points at the function, and serde names the first value it could
            // not take, not where it is: the places this extension changed say that (for
            // every refused edit, not only one that failed to parse; sixth new user's trial).
            if !problems.is_empty() {
                let mut changed = Vec::new();
                changed_paths(&before, &doc.0.borrow(), &mut Vec::new(), &mut changed);
                if !changed.is_empty() {
                    let more = changed.len().saturating_sub(MAX_CHANGED_PATHS);
                    changed.truncate(MAX_CHANGED_PATHS);
                    let mut list = changed.join(", ");
                    if more > 0 {
                        list.push_str(&format!(" and {more} more"));
                    }
                    changed_note = Some(format!("this afterCompile() changed: {list}"));
                }
            }
            before = doc.0.borrow().clone();
            let mut problems = problems;
            if builder_changed {
                problems.insert(
                    0,
                    "afterCompile() changed the container builder, but the plan is already built \
                     from it: edit the plan given to afterCompile(plan), or make the change in \
                     beforeCompile()"
                        .to_string(),
                );
            }
            if !problems.is_empty() {
                // A builder change alone leaves the plan as it was: the change is the mistake.
                let message = if builder_changed && problems.len() == 1 {
                    "afterCompile() changed the container builder, which cannot change once the \
                     plan is built."
                        .to_string()
                } else {
                    format!(
                        "afterCompile() left a plan that is not valid ({} problem(s)).",
                        problems.len()
                    )
                };
                let mut d =
                    ext.error_at_function("afterCompile", &self.host.sources.borrow(), message);
                for p in problems.into_iter().chain(changed_note) {
                    d = d.with_note(p);
                }
                if initialization_added {
                    d = d.with_note(
                        "this.initialization.addBody() adds to the builder: in afterCompile() \
                         append to the plan's initialization instead (plan.set([\"initialization\"], \
                         …), docs/plan-format.md), or call addBody() in beforeCompile()",
                    );
                }
                diags.push(d);
                return;
            }
        }
        *plan = current;
    }
}

/// The problems of an edited plan (`after`) that the plan before the edit (`before`) did not
/// have: an extension's `afterCompile()` answers only for what it changed.
fn introduced(before: Vec<String>, after: Vec<String>) -> impl Iterator<Item = String> {
    after.into_iter().filter(move |line| !before.contains(line))
}
