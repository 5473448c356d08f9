//! What the REPL's pipeline keeps so it can run again ([`Restartable`]), and a compilation
//! carried to its end from a copy of it ([`Outcome`]).

use super::{over_memory, Pipeline, Stage};
use crate::builder::ContainerBuilder;
use crate::compiler::Options;
use crate::config::{self, RawConfig};
use crate::diagnostics::Diagnostics;
use crate::source::SourceMap;
use std::path::Path;
use wireplan_runtime::plan::Plan;

/// The loaded configuration a pipeline started from.
#[derive(Clone)]
pub(super) struct Inputs {
    pub(super) raw: RawConfig,
    pub(super) options: Options,
    pub(super) sources: SourceMap,
    pub(super) diags: Diagnostics,
}

/// A compilation carried to its end from a pipeline's current state, without changing the
/// pipeline (see [`Restartable::finish_copy`]).
pub struct Outcome {
    /// Every file read, for rendering the diagnostics.
    pub sources: SourceMap,
    /// What the whole compilation reports, in the order found.
    pub diagnostics: Diagnostics,
    /// The completed builder.
    pub builder: ContainerBuilder,
    /// The plan after `afterCompile`, when there was no error.
    pub plan: Option<Plan>,
}

impl Inputs {
    /// Loads the configuration rooted at `path` with `-p` parameters from `options`; loading
    /// errors (unreadable files, syntax) go to the diagnostics.
    pub(super) fn load(path: &Path, options: &Options) -> Inputs {
        let mut sources = SourceMap::new();
        let mut diags = Diagnostics::new();
        let mut raw = config::load_keeping(
            path,
            &options.parameters,
            &mut sources,
            &mut diags,
            options.decoded.as_deref(),
        );
        raw.catalogs = crate::catalog::load_inputs(&options.catalogs, &mut sources, &mut diags);
        over_memory("reading the configuration", &mut diags);
        Inputs {
            raw,
            options: options.clone(),
            sources,
            diags,
        }
    }
}

/// A [`Pipeline`] that keeps a copy of the loaded configuration it started from (raw config,
/// options, sources, loading diagnostics), so it can run again without reading the files:
/// what the REPL works on (`:reset`, `:diff`, `:errors` in phase A). It is used as the
/// pipeline it holds (it dereferences to it); [`Pipeline::load`] keeps no copy, which is what
/// a plain compilation wants.
pub struct Restartable {
    pipeline: Pipeline,
    inputs: Inputs,
}

impl Restartable {
    /// Loads the configuration rooted at `path` (with `-p` parameters from `options`), keeps
    /// a copy of it, and runs phase A, as [`Pipeline::load`] does.
    pub fn load(path: &Path, options: &Options) -> Restartable {
        Restartable::start(Inputs::load(path, options))
    }

    fn start(inputs: Inputs) -> Restartable {
        let i = inputs.clone();
        Restartable {
            pipeline: Pipeline::start(i.raw, &i.options, i.sources, i.diags),
            inputs,
        }
    }

    /// A new pipeline over the same loaded configuration, after phase A (files already read
    /// are not read again; extension scripts are).
    pub fn restart(&self) -> Restartable {
        Restartable::start(self.inputs.clone())
    }

    /// Carries a copy of the current state through the rest of the compilation, as
    /// `wireplan compile` would: from phase A the remaining phases run on a restarted pipeline
    /// whose builder is replaced by this one's (so `beforeCompile()` sees the changes); from B
    /// or C the builder copy is resolved and completed again (its earlier check results are
    /// replaced), then the plan is built and `afterCompile(plan)` runs. This pipeline is left
    /// as it was.
    pub fn finish_copy(&mut self) -> Outcome {
        if self.stage == Stage::A {
            let mut p = self.restart().pipeline;
            // The copy's spans may point into files registered after phase A (inputs typed
            // in the REPL); the restarted pipeline registered the same files up to there.
            *p.sources.borrow_mut() = self.sources.borrow().clone();
            p.replace_builder(self.builder.borrow().clone());
            p.run_to(Stage::C);
            let plan = p.take_plan();
            let builder = p.take_builder();
            let (sources, diagnostics) = p.into_report();
            return Outcome {
                sources,
                diagnostics,
                builder,
                plan,
            };
        }
        let this = &mut self.pipeline;
        let saved_builder = this.builder.borrow().clone();
        let saved_diags = this.diags.clone();
        let saved_checks = this.checks.clone();
        let saved_stage = this.stage;
        let saved_plan = this.plan.take();
        this.stage = Stage::B;
        this.recheck();
        this.phase_c();
        let outcome = Outcome {
            sources: this.sources.borrow().clone(),
            diagnostics: std::mem::replace(&mut this.diags, saved_diags),
            builder: std::mem::replace(&mut *this.builder.borrow_mut(), saved_builder),
            plan: std::mem::replace(&mut this.plan, saved_plan),
        };
        this.checks = saved_checks;
        this.stage = saved_stage;
        outcome
    }
}

impl std::ops::Deref for Restartable {
    type Target = Pipeline;

    fn deref(&self) -> &Pipeline {
        &self.pipeline
    }
}

impl std::ops::DerefMut for Restartable {
    fn deref_mut(&mut self) -> &mut Pipeline {
        &mut self.pipeline
    }
}
