//! Rhai at the prompt: an input (or a `:run` script) evaluated as the next part of the
//! `<session>` source, with the extensions' engine and sandbox, and its errors as diagnostics
//! at their place in the input.

use super::{display, Session, INTERRUPTED};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::FileId;
use rhai::{Dynamic, Engine, EvalAltResult};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

impl Session {
    /// Evaluates Rhai code typed at the prompt (or read by `:run`), as the next part of the
    /// `<session>` source.
    pub(super) fn rhai(&mut self, code: &str) -> String {
        let lines_before = self.transcript.matches('\n').count();
        self.transcript.push_str(code);
        if !code.ends_with('\n') {
            self.transcript.push('\n');
        }
        let file = self.pipeline.add_source(
            crate::source::SESSION_SOURCE.into(),
            None,
            self.transcript.clone(),
        );
        let padded = format!("{}{code}", "\n".repeat(lines_before));
        self.run_code(&padded, file)
    }

    fn run_code(&mut self, code: &str, file: FileId) -> String {
        let ast = match self.engine.compile_with_scope(&self.scope, code) {
            Ok(ast) => ast,
            Err(e) => {
                let msg = crate::script::strip_position(&e.to_string());
                let mut d =
                    Diagnostic::error(Code::ScriptError, format!("syntax error: {msg}")).at(
                        crate::script::span_of(&self.pipeline.sources(), file, e.position()),
                    );
                self.runs.note(&self.pipeline.sources(), file, &mut d);
                return self.render(&[d]);
            }
        };
        self.functions = self.functions.merge(&ast.clone_functions_only());
        let full = self.functions.merge(&ast);
        self.handle
            .set_script(file, self.pipeline.sources().get(file));
        let edits = self.pipeline.builder().borrow().edits();
        // The input's time and allocation count from here, as for an extension's call.
        let run = crate::script::sandbox::begin();
        let result = self
            .engine
            .eval_ast_with_scope::<Dynamic>(&mut self.scope, &full);
        drop(run);
        let changed = self.pipeline.builder().borrow().edits() != edits;
        if changed {
            self.changes += 1;
        }
        // Lookups matter to the compiler only for extensions; the prompt's are dropped.
        drop(self.handle.take_lookups());
        let mut diags = self.handle.take_warnings();
        // A loop of lookups warns once per round: show each warning once.
        diags.dedup();
        if matches!(&result, Err(e) if is_interrupt(e)) {
            let mut text = self.render(&diags);
            if !text.is_empty() {
                text.push('\n');
            }
            self.failed.set(true);
            text.push_str("interrupted (Ctrl-C): the input stopped");
            if changed {
                text.push_str("; the changes it made so far stay (:reset drops them)");
            }
            return text;
        }
        let value = match result {
            Ok(v) if v.is_unit() && ast.iter_functions().next().is_some() => display::defined(&ast),
            Ok(v) => display::dynamic(&v),
            Err(e) => {
                diags.push(self.eval_error(file, &e));
                String::new()
            }
        };
        for d in &mut diags {
            self.runs.note(&self.pipeline.sources(), file, d);
        }
        let rendered = self.render(&diags);
        match (rendered.is_empty(), value.is_empty()) {
            (true, _) => value,
            (false, true) => rendered,
            (false, false) => format!("{rendered}\n{value}"),
        }
    }

    /// A script error at the prompt as a diagnostic at its place in the input.
    fn eval_error(&self, file: FileId, err: &EvalAltResult) -> Diagnostic {
        let mut inner = err;
        let mut outer_pos = err.position();
        while let EvalAltResult::ErrorInFunctionCall(_, _, next, pos) = inner {
            if outer_pos.is_none() {
                outer_pos = *pos;
            }
            inner = next;
        }
        let limits = self.pipeline.limits();
        let mut d = match inner {
            EvalAltResult::ErrorRuntime(v, _) if v.is::<Diagnostic>() => {
                v.clone().cast::<Diagnostic>()
            }
            EvalAltResult::ErrorTooManyOperations(_) => Diagnostic::error(
                Code::ScriptError,
                format!(
                    "Stopped: the input ran more than {} operations (the sandbox limit); the \
                     session goes on.",
                    limits.max_operations
                ),
            )
            .with_note(
                "the limit is the project's: raise it with `wireplan: sandbox: maxOperations:` \
                 in the configuration, then :reload",
            ),
            EvalAltResult::ErrorTerminated(v, _)
                if crate::script::sandbox::termination_message(v, limits).is_some() =>
            {
                let (message, note) =
                    crate::script::sandbox::termination_message(v, limits).unwrap_or_default();
                Diagnostic::error(
                    Code::ScriptError,
                    format!("Stopped: {message}; the session goes on."),
                )
                .with_note(note)
            }
            // A thrown value prints as the REPL prints values (bounded), not by Rhai's
            // `to_string`, which recurses through nested arrays without a limit.
            EvalAltResult::ErrorRuntime(v, _) if !v.is_unit() && !v.is_string() => {
                Diagnostic::error(
                    Code::ScriptError,
                    format!("Runtime error: {}", display::dynamic(v)),
                )
            }
            EvalAltResult::ErrorFunctionNotFound(sig, _) => Diagnostic::error(
                Code::ScriptError,
                crate::script::strip_position(&inner.to_string()),
            )
            .with_note(crate::script::no_function_note(sig)),
            other => Diagnostic::error(
                Code::ScriptError,
                crate::script::strip_position(&other.to_string()),
            ),
        };
        if !matches!(inner, EvalAltResult::ErrorTooManyOperations(_)) {
            if let Some(note) = crate::script::limit_note(inner, limits) {
                d = d.with_note(note);
            }
        }
        if d.primary_span().is_none() {
            let pos = if inner.position().is_none() {
                outer_pos
            } else {
                inner.position()
            };
            if let Some(span) = crate::script::span_of(&self.pipeline.sources(), file, pos) {
                d = d.with_primary(span, "here");
            }
        }
        d
    }
}

/// The engine for the prompt: the extensions' engine and sandbox `limits`, and before the
/// limits the `interrupt` flag. Both end the input through Rhai's progress callback, which
/// runs after every operation.
pub(super) fn prompt_engine(limits: &crate::script::Limits, interrupt: &Arc<AtomicBool>) -> Engine {
    let mut engine = crate::script::engine(limits);
    let sandbox = crate::script::sandbox::progress(limits);
    let flag = interrupt.clone();
    engine.on_progress(move |ops| {
        if flag.swap(false, Ordering::Relaxed) {
            return Some(Dynamic::from(INTERRUPTED));
        }
        sandbox(ops)
    });
    engine
}

/// Was the input stopped by its interrupt flag (Ctrl-C)?
fn is_interrupt(err: &EvalAltResult) -> bool {
    let mut inner = err;
    while let EvalAltResult::ErrorInFunctionCall(_, _, next, _) = inner {
        inner = next;
    }
    matches!(inner, EvalAltResult::ErrorTerminated(v, _)
        if v.clone().into_string().is_ok_and(|s| s == INTERRUPTED))
}
