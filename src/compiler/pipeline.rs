//! The compilation as resumable steps: a [`Pipeline`] runs phase A, then (when asked) phase B,
//! then phase C, and can be stopped after any of them. [`super::compile`] and [`super::build`]
//! run it to the end; the REPL stops it where the user wants to look (`:phase A|B|C`), over a
//! [`Restartable`] pipeline, which also keeps what phase A started from so it can run again
//! (`:reset`, `:diff`). Plain compilation never restarts, so it keeps no such copy.
//!
//! The order inside each phase is Nette's (`../shared/reference/nette-di.md`):
//! - A: parameters expanded once over the whole configuration, the catalog, `extensions:`,
//!   `di:`, each extension's schema and `loadConfiguration()`, the `services:` section last.
//! - B: `builder.resolve()`, `search:`, `decorator:`, each extension's `beforeCompile()`,
//!   inject, `builder.complete()`.
//! - C: the plan model and each extension's `afterCompile(plan)`; skipped when A or B reported
//!   an error (as `wireplan compile` writes nothing then).

use super::builtins;
use super::catalog_thread;
use super::extensions::{self, Extensions};
use super::{
    check_plain_parameters, extension_names, plan_model, plan_model_releasing, plan_model_taking,
    services, Built, Options, BUILTIN_SECTIONS,
};
use crate::builder::ContainerBuilder;
use crate::catalog::Catalog;
use crate::config::{self, Parameters, RawConfig, Sections};
use crate::diagnostics::{suggest, Code, Diagnostic, Diagnostics};
use crate::script::api::SharedBuilder;
use crate::source::{FileId, SourceMap};
use std::cell::{Ref, RefCell};
use std::ops::Range;
use std::path::Path;
use std::rc::Rc;
use wireplan_runtime::plan::Plan;

mod restartable;

use restartable::Inputs;
pub use restartable::{Outcome, Restartable};

/// How far a [`Pipeline`] has run: the last phase it completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Phase A (definitions): parameters, `loadConfiguration()`, `services:`, inject.
    A,
    /// Phase B (resolution): resolve, search, decorator, `beforeCompile()`, complete.
    B,
    /// Phase C (generation): the plan and `afterCompile(plan)`.
    C,
}

impl Stage {
    /// The letter users type (`A`, `B`, `C`).
    pub fn letter(self) -> char {
        match self {
            Stage::A => 'A',
            Stage::B => 'B',
            Stage::C => 'C',
        }
    }

    /// Reads `A`, `B` or `C` (either case); `None` otherwise.
    pub fn parse(s: &str) -> Option<Stage> {
        match s.trim() {
            "A" | "a" => Some(Stage::A),
            "B" | "b" => Some(Stage::B),
            "C" | "c" => Some(Stage::C),
            _ => None,
        }
    }
}

/// A compilation that can stop after each phase. The builder is shared with the extensions
/// (the same `Rc` their scripts hold), so changes made through [`Pipeline::builder`] are what
/// the next phase sees.
pub struct Pipeline {
    sections: Sections,
    params: Parameters,
    builder: SharedBuilder,
    sources: Rc<RefCell<SourceMap>>,
    extensions: Extensions,
    export: builtins::Export,
    raw_files: Vec<FileId>,
    diags: Diagnostics,
    /// Where in `diags` the builder's own checks (`resolve`, `complete`) reported.
    checks: Vec<Range<usize>>,
    stage: Stage,
    /// The `-p` values applied (empty without any): diagnostics at a `%name%` they set get a
    /// note saying so ([`config::note_overrides`]).
    overrides: config::CommandLineParameters,
    plan: Option<Plan>,
    /// The sandbox limits the extensions run under.
    limits: crate::script::Limits,
    /// Loading reported an error (a missing or unreadable file, a syntax error, an include
    /// cycle): the configuration is incomplete, so no phase runs on it.
    halted: bool,
    /// Phase C moves the completed statements into the plan ([`Pipeline::move_into_plan`]).
    move_into_plan: bool,
}

impl Pipeline {
    /// Loads the configuration rooted at `path` (with `-p` parameters from `options`) and runs
    /// phase A. Loading errors (unreadable files, syntax) are among the diagnostics.
    ///
    /// This is the lean path of a plain compilation: the raw configuration is consumed as it
    /// is expanded, the `types:` section goes straight into the catalog, and the `services:`
    /// section is dropped once its definitions are loaded, so [`Pipeline::sections`] lacks
    /// those two (the REPL's [`Restartable`] keeps them).
    pub fn load(path: &Path, options: &Options) -> Pipeline {
        // Without `-p`, `--dynamic`, catalog files or a `--watch` store, a large `types:`
        // file the root includes is read into the catalog while the rest is loaded and
        // expanded (`config::load_deferring_types`).
        let plain = options.parameters.is_empty()
            && options.dynamic.is_empty()
            && options.catalogs.is_empty()
            && options.decoded.is_none();
        if !plain {
            let i = Inputs::load(path, options);
            return Pipeline::begin(i.raw, options, i.sources, i.diags, true, None);
        }
        let mut loaded = config::load_deferring_types(path, &options.parameters);
        over_memory("reading the configuration", &mut loaded.diags);
        let deferred = loaded.deferred.map(|d| (d, path));
        Pipeline::begin(
            loaded.raw,
            options,
            loaded.sources,
            loaded.diags,
            true,
            deferred,
        )
    }

    /// Runs phase A over a loaded configuration; `sources` holds the files it came from and
    /// `diags` what loading reported.
    ///
    /// When loading reported an error the configuration is incomplete (as Nette stops at a
    /// missing include): no phase runs, so the only errors are the loading errors, not their
    /// follow-ups (`class-not-found` for the classes of a missing `types:` file, …). The
    /// pipeline then holds an empty builder; [`Pipeline::halted`] says so.
    pub fn start(
        raw: RawConfig,
        options: &Options,
        sources: SourceMap,
        diags: Diagnostics,
    ) -> Pipeline {
        Pipeline::begin(raw, options, sources, diags, false, None)
    }

    /// [`Pipeline::start`]; `lean` consumes the configuration as it goes (see
    /// [`Pipeline::load`]). With `deferred`, `raw` was loaded by
    /// [`config::load_deferring_types`] from the root file given with it, whose `types:` file
    /// was deferred; when that file is no plain `types:` file, the configuration is loaded
    /// again without deferring it ([`config::load_refetched`]) and the pipeline starts from
    /// there, so the outcome is that of loading without deferring.
    fn begin(
        raw: RawConfig,
        options: &Options,
        mut sources: SourceMap,
        mut diags: Diagnostics,
        lean: bool,
        deferred: Option<(config::DeferredTypes, &Path)>,
    ) -> Pipeline {
        // A `types:` section that is no map of classes would leave every class unknown: one
        // error, and no phase runs (as after a catalog file with a syntax error).
        if let Some(d) = types_not_a_map(&raw.sections) {
            diags.push(d);
        }
        let mut halted = diags.has_errors();
        let raw = if halted {
            RawConfig {
                sections: Default::default(),
                files: raw.files,
                catalogs: Vec::new(),
            }
        } else {
            raw
        };
        // Parameters first, over the whole configuration. Sensitive ones stay dynamic.
        let mut dynamic = options.dynamic.clone();
        let sensitive = crate::project::sensitive_parameters(&raw.sections);
        crate::project::check_sensitive(&raw.sections, &options.parameters, &sensitive, &mut diags);
        let sensitive: Vec<String> = sensitive.into_iter().map(|(name, _)| name).collect();
        dynamic.extend(sensitive.iter().cloned());
        // `check_overrides` below reads the raw configuration again when `-p` or `--dynamic`
        // is given.
        let given = !options.parameters.is_empty() || !options.dynamic.is_empty();
        let keep_raw = !lean || (!halted && given);
        // On a plain compile the `types:` section streams straight into the catalog; merged
        // with catalog files (`--catalog`, dev mode's registry catalog) it is read whole by
        // `Catalog::from_inputs`, which checks duplicates across them.
        let stream_types = !keep_raw && raw.catalogs.is_empty();
        // A `-p` value refused below is not applied (its refusal is its only error).
        let overrides = config::applicable_overrides(&raw.sections, &options.parameters);
        // Where `parameters:` writes each value, for the notes that follow a `%name%` to the
        // `-p` value it uses (read now: the raw sections are consumed below).
        let command_line = config::CommandLineParameters::new(
            overrides.clone().into_owned(),
            &raw.sections,
            sensitive.clone(),
        );
        let (raw_sections, raw_files, raw_catalogs) = (raw.sections, raw.files, raw.catalogs);
        let before_catalog = diags.items().len();
        // The raw sections are freed entry by entry as their expanded copies are made.
        let reuse = crate::memory::ReuseWithin::start();
        let (mut params, mut sections, raw_sections, catalog) = if let Some((d, root)) = deferred {
            let id = d.id;
            let expanded = catalog_thread::expand_with_deferred(
                raw_sections,
                &dynamic,
                &overrides,
                d,
                halted,
                &mut diags,
            );
            match expanded {
                Ok((params, sections, catalog, text)) => {
                    sources.set_text(id, text);
                    (params, sections, None, catalog)
                }
                Err(refetch) => {
                    // Nothing of this start is kept: loaded again, it starts over.
                    drop((reuse, overrides, command_line));
                    let mut loaded = config::load_refetched(root, &options.parameters, refetch);
                    over_memory("reading the configuration", &mut loaded.diags);
                    return Pipeline::begin(
                        loaded.raw,
                        options,
                        loaded.sources,
                        loaded.diags,
                        lean,
                        None,
                    );
                }
            }
        } else if !stream_types {
            let (params, sections) =
                config::expand_config(&raw_sections, &dynamic, &overrides, &mut diags);
            let (catalog, readable) = Catalog::read_inputs(
                sections.get("types").map(|(_, v)| v),
                &raw_catalogs,
                &sources,
                &mut diags,
            );
            // A catalog file with a syntax error stops the compilation here, as a
            // configuration file's does (the phases would report only what it lacks).
            halted = halted || !readable;
            let catalog = std::sync::Arc::new(catalog);
            (params, sections, keep_raw.then_some(raw_sections), catalog)
        } else {
            let (params, sections, catalog) = catalog_thread::expand_with_catalog(
                raw_sections,
                &dynamic,
                &overrides,
                options.decoded.as_deref(),
                &mut diags,
            );
            (params, sections, None, catalog)
        };
        // A parent or interface a `types:` class names is reported at the class; point at
        // the name inside it.
        diags.narrow_to_focus(before_catalog, &sources);
        params.sensitive = sensitive.into_iter().collect();
        params.dynamic_schema = config::dynamic::read_section(
            sections.get(config::dynamic::SECTION),
            &params,
            &mut diags,
        );
        drop(reuse);
        halted = halted || over_memory("expanding the configuration", &mut diags);
        let mut builder = ContainerBuilder::new(catalog);
        // The builder's copy is what scripts read (`getParameters`, an extension's expanded
        // configuration); a plain compilation without scripts reads none, so no copy is made.
        let extensions_section = sections.get("extensions").map(|(_, v)| v);
        if !lean || extensions_section.is_some() {
            builder.parameters = params.for_scripts();
        }
        let builder = Rc::new(RefCell::new(builder));

        // `extensions:` registers the scripts.
        let sources = Rc::new(RefCell::new(sources));
        let root = extensions::project_root(&sources.borrow(), &raw_files);
        let config_of = |name: &str| sections.get(name).map(|(_, v)| v.clone());
        let limits = crate::script::sandbox::project_limits(
            sections.get("wireplan").map(|(_, v)| v),
            &options.limits,
            &mut diags,
        );
        // The scripts read the parameters; without scripts nothing does (no copy of them all).
        let script_parameters = match extensions_section {
            Some(_) => params.for_scripts(),
            None => Default::default(),
        };
        let mut extensions = Extensions::load(
            extensions_section,
            &config_of,
            builder.clone(),
            script_parameters,
            sources.clone(),
            root,
            &options.script_paths,
            &limits,
            &mut diags,
        );
        check_sections(&sections, &mut diags);
        if let Some(raw_sections) = raw_sections.filter(|_| !halted && given) {
            let sources = sources.borrow();
            // Configuration files and extension scripts (those read so far: all of them).
            let (configs, scripts): (Vec<_>, Vec<_>) =
                sources.files().partition(|(id, _)| raw_files.contains(id));
            let configs: Vec<&str> = configs.iter().map(|(_, f)| f.text.as_str()).collect();
            let scripts: Vec<&str> = scripts.iter().map(|(_, f)| f.text.as_str()).collect();
            config::check_overrides(
                &raw_sections,
                &configs,
                &scripts,
                &options.parameters,
                &options.dynamic,
                &mut diags,
            );
        }

        let export = match sections.get("di") {
            Some((_, section)) => builtins::load_di(section, &mut builder.borrow_mut(), &mut diags),
            None => builtins::Export::default(),
        };
        if export.parameters {
            check_plain_parameters(&params, &mut diags);
        }
        if !halted {
            // (With a loading error the sections are empty: nothing would run anyway.)
            extensions.apply_schemas(&mut diags);
            if extensions_section.is_some() {
                if let Some((_, services)) = sections.get("services") {
                    if let crate::expr::ExprKind::Array(items) = &services.kind {
                        let names = items.items.keys().filter_map(|k| k.as_str());
                        builder
                            .borrow_mut()
                            .expect_services(names.map(str::to_string));
                    }
                }
            }
            extensions.call_all("loadConfiguration", &mut diags);
            if lean {
                // Nothing later reads the section: each service's expression is dropped as
                // its definition is made.
                if let Some((_, section)) = sections.shift_remove("services") {
                    // The freed expressions' pages wait a moment to be reused by the
                    // definitions rather than going back at once: gen 100000's loading
                    // 73-77 -> 57-63 ms.
                    let reuse = crate::memory::ReuseWithin::start();
                    services::load_services_owned(section, &mut builder.borrow_mut(), &mut diags);
                    drop(reuse);
                }
            } else if let Some((_, section)) = sections.get("services") {
                services::load_services(section, &mut builder.borrow_mut(), &mut diags);
            }
            halted = over_memory_keeping_freed("loading the services", &mut diags);
        }
        if lean {
            // Loaded into definitions; nothing later reads the section.
            sections.shift_remove("services");
        }
        drop(overrides);
        config::note_overrides(&mut diags, 0, &sources.borrow(), &command_line);
        Pipeline {
            overrides: command_line,
            sections,
            params,
            builder,
            sources,
            extensions,
            export,
            // Catalog files are dependencies of the plan like the configuration files.
            raw_files: raw_files.into_iter().chain(raw_catalogs).collect(),
            diags,
            checks: Vec::new(),
            stage: Stage::A,
            plan: None,
            limits,
            halted,
            move_into_plan: false,
        }
    }

    /// Makes phase C move the builder's completed statements into the plan instead of
    /// copying them ([`crate::plan::build_taking`]): for a compilation that only wants the
    /// plan ([`super::compile`]). Afterwards the builder's definitions have no completed
    /// statements, so nothing should inspect them ([`Pipeline::plan_model`] included).
    pub fn move_into_plan(&mut self) {
        self.move_into_plan = true;
    }

    /// Whether loading the configuration reported an error, so that no phase ran (see
    /// [`Pipeline::start`]).
    pub fn halted(&self) -> bool {
        self.halted
    }

    /// The sandbox limits the extensions run under: the caller's ([`Options::limits`]) with
    /// what the project's `wireplan: sandbox:` section sets
    /// ([`crate::script::sandbox::project_limits`]). The REPL runs its inputs under them too.
    pub fn limits(&self) -> &crate::script::Limits {
        &self.limits
    }

    /// Runs the phases up to and including `stage` (nothing when it is already there).
    pub fn run_to(&mut self, stage: Stage) {
        if self.stage < Stage::B && stage >= Stage::B {
            self.phase_b();
        }
        if self.stage < Stage::C && stage >= Stage::C {
            self.phase_c();
        }
    }

    /// Phase B: resolve, `search:`, `decorator:`, `beforeCompile()`, inject, complete.
    fn phase_b(&mut self) {
        if self.halted {
            self.stage = Stage::B;
            return;
        }
        let diags = &mut self.diags;
        let phase_start = diags.items().len();
        let before = phase_start;
        self.builder.borrow_mut().resolve(diags);
        self.checks.push(before..diags.items().len());
        if over_memory_keeping_freed("resolving the services", diags) {
            self.halted = true;
            self.stage = Stage::B;
            return;
        }
        if let Some((_, section)) = self.sections.get("search") {
            builtins::search(section, &mut self.builder.borrow_mut(), diags);
            self.builder.borrow_mut().refresh();
        }
        if let Some((_, section)) = self.sections.get("decorator") {
            builtins::decorate(section, &mut self.builder.borrow_mut(), diags);
        }
        self.extensions.call_all("beforeCompile", diags);
        self.builder.borrow_mut().refresh();
        builtins::inject(&mut self.builder.borrow_mut(), diags);
        let before = diags.items().len();
        self.builder.borrow_mut().complete(diags);
        config::dynamic::types(&self.builder.borrow(), &self.params, diags);
        services::warn_if_empty(
            &self.builder.borrow(),
            self.raw_files.first().copied(),
            diags,
        );
        self.checks.push(before..diags.items().len());
        // A class the catalog lacks is reported with the definition's span; the class name
        // as written inside it is found now that the text is at hand.
        diags.narrow_to_focus(phase_start, &self.sources.borrow());
        config::note_overrides(diags, phase_start, &self.sources.borrow(), &self.overrides);
        config::note_left_out(
            diags,
            phase_start,
            &self.sources.borrow(),
            &self.params.left_out,
        );
        self.halted = over_memory_keeping_freed("completing the services", diags);
        self.stage = Stage::B;
    }

    /// Phase C: the plan and `afterCompile(plan)`, only when there is no error so far.
    fn phase_c(&mut self) {
        self.stage = Stage::C;
        if self.diags.has_errors() {
            return;
        }
        // What needs the catalog (`requires_async` follows the classes' async constructors,
        // the plan's `dynamic` section takes its types from the catalog's parameters) is
        // computed before the plan model is allocated.
        let mut plan = if self.move_into_plan && self.extensions.is_empty() {
            // No script can look at the builder any more: it is emptied as the plan is built.
            plan_model_releasing(
                &mut self.builder.borrow_mut(),
                &self.params,
                &self.export_now(),
                &self.sources.borrow(),
                &self.files(),
            )
        } else if self.move_into_plan {
            plan_model_taking(
                &mut self.builder.borrow_mut(),
                &self.params,
                &self.export_now(),
                &self.sources.borrow(),
                &self.files(),
            )
        } else {
            self.plan_model()
        };
        // The freed pages are kept for the encoding: returning them took 0.85 ms of app-10000's
        // compile, for about 1 MB less peak resident set (35.5 against 36.5 MB, eight runs).
        if over_memory_keeping_freed("building the plan", &mut self.diags) {
            return;
        }
        self.extensions.after_compile(&mut plan, &mut self.diags);
        self.plan = Some(plan);
    }

    /// The plan model of the builder as it is now (phase C without `afterCompile`). Meant
    /// for a completed builder; services that failed to complete are left out.
    pub fn plan_model(&self) -> Plan {
        plan_model(
            &self.builder.borrow(),
            &self.params,
            &self.export_now(),
            &self.sources.borrow(),
            &self.files(),
        )
    }

    /// Replaces the builder's state with `builder` (the same shared cell, so the extensions
    /// see the new state), and forgets what the builder's own checks reported, since they were
    /// about the state replaced. The caller usually runs [`Pipeline::recheck`] or the next
    /// phase afterwards.
    pub fn replace_builder(&mut self, builder: ContainerBuilder) {
        *self.builder.borrow_mut() = builder;
        self.forget_checks();
    }

    /// Checks the builder again as the end of phase B does (resolve, complete), replacing
    /// what earlier checks reported. Used after the builder was changed in phase B or C; in
    /// phase A there is nothing to recheck yet.
    pub fn recheck(&mut self) {
        if self.stage == Stage::A || self.halted {
            return;
        }
        self.forget_checks();
        let before = self.diags.items().len();
        let mut b = self.builder.borrow_mut();
        b.resolve(&mut self.diags);
        b.complete(&mut self.diags);
        config::dynamic::types(&b, &self.params, &mut self.diags);
        services::warn_if_empty(&b, self.raw_files.first().copied(), &mut self.diags);
        self.checks.push(before..self.diags.items().len());
        self.diags.narrow_to_focus(before, &self.sources.borrow());
        config::note_overrides(
            &mut self.diags,
            before,
            &self.sources.borrow(),
            &self.overrides,
        );
    }

    fn forget_checks(&mut self) {
        if self.checks.is_empty() {
            return;
        }
        let drop: std::collections::HashSet<usize> =
            self.checks.drain(..).flat_map(|r| r.into_iter()).collect();
        let kept: Vec<Diagnostic> = std::mem::take(&mut self.diags)
            .into_vec()
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(i))
            .map(|(_, d)| d)
            .collect();
        self.diags.extend(kept);
    }

    /// The plan phase C made, if it ran without errors; taken out of the pipeline.
    pub fn take_plan(&mut self) -> Option<Plan> {
        self.plan.take()
    }

    /// The plan phase C made, if it ran without errors.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }

    /// The last phase run.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The builder shared with the extensions.
    pub fn builder(&self) -> &SharedBuilder {
        &self.builder
    }

    /// Everything reported so far, in the order found.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diags
    }

    /// Every file read so far (configs and scripts), for rendering diagnostics.
    pub fn sources(&self) -> Ref<'_, SourceMap> {
        self.sources.borrow()
    }

    /// Registers a file (a script run from the REPL, say) among the sources, so diagnostics
    /// can point into it.
    pub fn add_source(&self, name: String, path: Option<&Path>, text: String) -> FileId {
        let mut s = self.sources.borrow_mut();
        match path {
            Some(p) => s.add_path(name, p, text),
            None => s.add(name, text),
        }
    }

    /// The expanded parameters (static values and which names are dynamic).
    pub fn parameters(&self) -> &Parameters {
        &self.params
    }

    /// The configuration sections after parameter expansion, in file order.
    pub fn sections(&self) -> &Sections {
        &self.sections
    }

    /// Every file read (configs, includes, scripts), in load order.
    pub fn files(&self) -> Vec<FileId> {
        let mut files = self.raw_files.clone();
        files.extend(self.extensions.files.iter().copied());
        files
    }

    fn export_now(&self) -> builtins::Export {
        let mut export = self.export.clone();
        if let Some(tags) = &mut export.tags {
            tags.extend(self.extensions.host.exported_tags.borrow().iter().cloned());
        }
        if let Some(types) = &mut export.types {
            types.extend(self.extensions.host.exported_types.borrow().iter().cloned());
        }
        export
    }

    /// Ends the pipeline keeping only its sources and diagnostics (what `wireplan compile`
    /// reports); unlike [`Pipeline::finish`] it does not copy the builder.
    pub fn into_report(mut self) -> (SourceMap, Diagnostics) {
        let sources = std::mem::take(&mut *self.sources.borrow_mut());
        let diags = std::mem::take(&mut self.diags);
        if crate::memory::process_ends_after_compiling() {
            // The operating system takes the rest back faster than freeing it piece by piece
            // (no drop of the pipeline's parts writes or releases anything else).
            std::mem::forget(self);
        }
        (sources, diags)
    }

    /// Takes the builder out of the shared cell, leaving an empty one (no definitions, an
    /// empty catalog) for the extensions that still hold the cell.
    fn take_builder(&self) -> ContainerBuilder {
        std::mem::replace(
            &mut *self.builder.borrow_mut(),
            ContainerBuilder::new(Catalog::default()),
        )
    }

    /// Ends the pipeline: its sources, diagnostics, and the builder with what the plan needs.
    pub fn finish(self) -> (SourceMap, Diagnostics, Built) {
        let export = self.export_now();
        let files = self.files();
        let builder = self.builder.borrow().clone();
        let sources = std::mem::take(&mut *self.sources.borrow_mut());
        let built = Built {
            builder,
            parameters: self.params,
            files,
            export,
            extensions: Some(self.extensions),
        };
        (sources, self.diags, built)
    }
}

/// Whether the heap went past the memory ceiling ([`crate::memory`]); then the `memory-limit`
/// error for `stage` is reported (unless one is already, e.g. the NEON decoder's at the value
/// where it stopped: one error for one cause), and the caller stops the compilation.
/// The pages freed so far go back to the operating system first ([`crate::memory::check`]).
fn over_memory(stage: &str, diags: &mut Diagnostics) -> bool {
    report_memory(crate::memory::check(stage), diags)
}

/// [`over_memory`] keeping the freed pages for the next stage
/// ([`crate::memory::check_keeping_freed`]): at the boundaries from loading the services on,
/// whose stages free little that the next would not allocate again.
fn over_memory_keeping_freed(stage: &str, diags: &mut Diagnostics) -> bool {
    report_memory(crate::memory::check_keeping_freed(stage), diags)
}

/// Reports a memory check's error once (see [`over_memory`]); whether there was one.
fn report_memory(
    checked: Result<(), crate::diagnostics::Diagnostic>,
    diags: &mut Diagnostics,
) -> bool {
    match checked {
        Ok(()) => false,
        Err(d) => {
            if !diags.items().iter().any(|x| x.code == Code::MemoryLimit) {
                diags.push(d);
            }
            true
        }
    }
}

/// The error for a `types:` section that is not a map of classes (a scalar, or a list of
/// class names), at its value; `None` for a map, an empty section or none.
fn types_not_a_map(sections: &crate::neon::Array) -> Option<Diagnostic> {
    use crate::neon::{Key, Kind};
    let entry = sections.get_entry(&Key::Str("types".into()))?;
    let given = match &entry.value.kind {
        Kind::Null => return None,
        Kind::Array(a) if !a.is_list() || a.is_empty() => return None,
        Kind::Array(_) => "a list".to_string(),
        _ => entry.value.type_name().to_string(),
    };
    Some(
        Diagnostic::error(
            Code::InvalidValue,
            format!("The `types:` section expects a map of classes, {given} given."),
        )
        .at(Some(entry.value.span))
        .with_note(
            "write each class as a key with what it declares: `App\\Mailer: {constructor: {…}}`, \
             or `App\\Mailer: {}` for a class without dependencies (docs/catalog.md)",
        ),
    )
}

/// Every section needs a handler: a built-in one or a registered extension.
fn check_sections(sections: &Sections, diags: &mut Diagnostics) {
    let handled: Vec<String> = BUILTIN_SECTIONS
        .iter()
        .map(|s| s.to_string())
        .chain(extension_names(sections.get("extensions").map(|(_, v)| v)))
        .collect();
    // A type catalog (`{format: wireplan-catalog, version: 1, types: {…}}`) given as the
    // configuration: its `format` and `version` are no sections.
    let catalog_shaped = sections
        .get("format")
        .is_some_and(|(_, v)| v.as_str() == Some(wireplan_runtime::catalog::FORMAT))
        && !handled.iter().any(|h| h == "format");
    for (name, (key_span, _)) in sections {
        if !handled.contains(name) {
            let mut msg = format!(
                "Found section '{name}' in configuration, but corresponding extension is missing"
            );
            match suggest(name, handled.iter().map(String::as_str)) {
                Some(s) => msg.push_str(&format!(", did you mean '{s}'?")),
                None => msg.push('.'),
            }
            let mut d = Diagnostic::error(Code::UnknownExtension, msg)
                .with_primary(*key_span, "no extension handles this section");
            if catalog_shaped && (name == "format" || name == "version") {
                d = d.with_note(
                    "this file looks like a type catalog (format, version, types): give it to \
                     the compiler with --catalog FILE, next to the configuration",
                );
            }
            diags.push(d);
        }
    }
}
