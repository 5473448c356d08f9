//! The REPL's inspection commands — `:explain`, `:type`, `:deps`, `:needed-by`, `:diff` — as
//! thin formatters over [`crate::inspect`]: each prints exactly what `wireplan explain` (or
//! `wireplan diff`) prints for the same question, and renders a failed question as the
//! diagnostic `check` would print.
//!
//! Every question is asked of the builder as it is now. Argument origins
//! ([`Completed::calls`](crate::builder::Completed::calls)) and dependency edges are recorded by
//! `complete`, so after an edit at the prompt they are stale on the live builder; the questions
//! therefore run on [`Session::current_builder`], a copy resolved and completed again (in phase
//! A: resolved silently, as a lookup by type would, and the answers say they are preliminary).

use super::Session;
use crate::diagnostics::{self, Diagnostic};
use crate::inspect;

impl Session {
    /// Renders an inspection answer, or its error as a diagnostic.
    fn answer<T: std::fmt::Display>(&self, answer: Result<T, Diagnostic>) -> String {
        match answer {
            Ok(a) => a.to_string().trim_end().to_string(),
            Err(d) => self.render(&[d]),
        }
    }

    /// `:explain NAME`: [`inspect::explain_service`] over the builder as it is now.
    pub(super) fn explain(&self, name: &str) -> String {
        let mut b = self.current_builder();
        let answer = inspect::explain_service(&mut b, &self.pipeline.sources(), name);
        let mut text = self.answer(answer);
        // Inputs at the prompt changed the builder after its phase checked it: what they broke
        // is reported by `:errors`, not here (a new user's trial found "see the errors" and none).
        if self.changes > 0 {
            text.push_str(&format!(
                "\nnote: {} input(s) at the prompt changed the builder since its phase ran; \
                 :errors checks it as it is now",
                self.changes
            ));
        }
        text
    }

    /// `:type T`: [`inspect::type_candidates`] over a copy of the live builder — the state
    /// `builder.getByType(T)` sees at the prompt, so the two always agree. In phase A the
    /// answer says it is preliminary.
    pub fn type_answer(&self, ty: &str) -> String {
        let mut b = self.live_builder();
        let answer = inspect::type_candidates(&mut b, ty.trim());
        self.answer(answer)
    }

    /// `:deps NAME [DEPTH]`: [`inspect::deps`], all levels unless `DEPTH` is given.
    pub(super) fn deps(&self, arg: &str) -> String {
        let mut words = arg.split_whitespace();
        let name = words.next().unwrap_or_default();
        let depth = match (words.next(), words.next()) {
            (None, _) => None,
            // As `explain --deps --depth`: at least 1, the direct dependencies.
            (Some(d), None) => match d.parse::<usize>() {
                Ok(0) => {
                    return "usage: :deps NAME [DEPTH] (the depth is at least 1, the direct \
                            dependencies)"
                        .into()
                }
                Ok(n) => Some(n),
                // More levels than any graph has: all of them (a new user's trial was told
                // that 99999999999999999999 is not a number).
                Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => None,
                Err(_) => {
                    return format!("usage: :deps NAME [DEPTH] ('{d}' is not a number of levels)")
                }
            },
            (Some(_), Some(_)) => return "usage: :deps NAME [DEPTH]".into(),
        };
        let b = self.current_builder();
        let answer = inspect::deps(&b, &self.pipeline.sources(), name, depth);
        self.answer(answer)
    }

    /// `:needed-by NAME`: [`inspect::needed_by`] over the builder as it is now.
    pub(super) fn needed_by(&self, name: &str) -> String {
        let b = self.current_builder();
        let answer = inspect::needed_by(&b, &self.pipeline.sources(), name);
        self.answer(answer)
    }

    /// `:diff`: [`inspect::diff::diff_plans`] from the plan of the files without the session's
    /// changes ([`Session::baseline_plan`]) to the plan the builder as it is now compiles to
    /// ([`Session::finish`], what `:compile` would write). `no changes` when they are the same;
    /// when either side does not compile, its errors and no diff.
    pub(super) fn diff(&mut self) -> String {
        let Some(old) = self.baseline_plan() else {
            return "no diff: the configuration has errors without the session's changes \
                    (`:reset` then `:errors` shows them)"
                .into();
        };
        let outcome = self.finish();
        let errors = outcome.diagnostics.error_count();
        let Some(new) = outcome.plan.filter(|_| errors == 0) else {
            let rendered =
                diagnostics::render_to_string(&outcome.sources, outcome.diagnostics.items());
            return format!(
                "{}\nno diff: the builder as it is now does not compile ({errors} error(s))",
                rendered.trim_end()
            );
        };
        let diff = inspect::diff::diff_plans(&old, &new);
        if diff.is_empty() {
            return "no changes".into();
        }
        diff.to_text().trim_end().to_string()
    }
}
