//! `:run FILE`, and where the lines of the scripts it read sit in the `<session>` source, so
//! that an error inside one also names the script's own file and line.

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, SourceMap};
use std::path::PathBuf;

/// One script `:run` read: the `<session>` line its first line became (1-based), how many
/// lines it has, and its path as given.
#[derive(Debug, Clone)]
struct Run {
    first_line: usize,
    lines: usize,
    path: String,
}

/// The scripts `:run` read in a session, in order.
#[derive(Debug, Default)]
pub(super) struct Runs(Vec<Run>);

impl Runs {
    /// Records that the script at `path`, of `lines` lines, starts at `<session>` line
    /// `first_line` (1-based).
    pub(super) fn record(&mut self, path: &str, first_line: usize, lines: usize) {
        self.0.push(Run {
            first_line,
            lines,
            path: path.to_string(),
        });
    }

    /// Adds to `d`, when its primary span lies in a `:run` script's lines of the session source
    /// `session`, a note naming the script's file and line: `<session>:4:9` alone does not say
    /// which line of the file to open.
    ///
    /// An error at the end of a script (an unclosed bracket: Rhai points at the line after
    /// the script's last) is moved to the end of the script's last line and named so (a new
    /// user's trial: it pointed at an empty `<session>` line and named no file).
    pub(super) fn note(&self, sources: &SourceMap, session: FileId, d: &mut Diagnostic) {
        let Some(span) = d.primary_span().filter(|s| s.file == session) else {
            return;
        };
        if let Some(place) = self.place(sources, span) {
            d.notes.push(format!("in {place}, which :run read"));
            return;
        }
        let file = sources.get(span.file);
        let (line, _) = file.line_col(span.start as usize);
        let Some(run) = self
            .0
            .iter()
            .rev()
            .find(|r| r.lines > 0 && line == r.first_line + r.lines)
        else {
            return;
        };
        // Only what is left of the session source from there on is blank: the error is at
        // the script's end, not in a later input.
        if !file.text[span.start as usize..].trim().is_empty() {
            return;
        }
        // The end of the script's last line (`line_start` takes 0-based lines; the line
        // break before `span` ends it).
        let last_start = file.line_start(run.first_line + run.lines - 2);
        let last_end = file
            .line_start(run.first_line + run.lines - 1)
            .saturating_sub(1);
        let column = file.text[last_start..last_end].chars().count() + 1;
        for label in d.labels.iter_mut().filter(|l| l.primary) {
            label.span = crate::source::Span::new(span.file, last_end, last_end);
        }
        d.notes.push(format!(
            "at the end of {}:{}:{column}, which :run read: the script ends inside a \
             statement (a bracket or brace not closed?)",
            run.path, run.lines
        ));
    }

    /// `FILE:LINE:COLUMN` in the `:run` script whose lines `span` (in a `<session>` source:
    /// each input's copy of the transcript numbers its lines alike) lies in, if any.
    pub(super) fn place(&self, sources: &SourceMap, span: crate::source::Span) -> Option<String> {
        let file = sources.get(span.file);
        if file.name != crate::source::SESSION_SOURCE {
            return None;
        }
        let (line, column) = file.line_col(span.start as usize);
        let run = self
            .0
            .iter()
            .rev()
            .find(|r| line >= r.first_line && line < r.first_line + r.lines)?;
        Some(format!(
            "{}:{}:{column}",
            run.path,
            line - run.first_line + 1
        ))
    }
}

impl super::Session {
    /// `:run FILE`: a missing or unreadable file is `file-not-found`; text that is not UTF-8
    /// is a `script-error` at the first invalid byte (as NEON files report it).
    pub(super) fn run_file(&mut self, path: PathBuf) -> String {
        // A configuration given to `:run` would only get Rhai's syntax error about its first
        // NEON line.
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("neon"))
        {
            let d = Diagnostic::error(
                Code::Usage,
                format!(
                    ":run runs a Rhai script; '{}' is a NEON configuration.",
                    path.display()
                ),
            )
            .with_note(
                "to work on a configuration, start the REPL with it (`wireplan repl CONFIG`); \
                 :reload reads its files again",
            );
            return self.render(&[d]);
        }
        let bytes = match crate::source::read_input_file(&path) {
            Ok(b) => b,
            Err(e) => {
                let d = Diagnostic::error(
                    Code::FileNotFound,
                    format!("Cannot read '{}': {e}", path.display()),
                );
                return self.render(&[d]);
            }
        };
        let text = match String::from_utf8(bytes) {
            // A UTF-8 byte order mark (some Windows editors write one) is not Rhai: dropped, as
            // an extension script's is.
            Ok(t) => match t.strip_prefix('\u{feff}') {
                Some(rest) => rest.to_string(),
                None => t,
            },
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                // Shown with each invalid sequence as U+FFFD, which starts at the same byte.
                let shown = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let file = self
                    .pipeline
                    .add_source(path.display().to_string(), None, shown);
                let end = at + char::REPLACEMENT_CHARACTER.len_utf8();
                let d = Diagnostic::error(
                    Code::ScriptError,
                    format!(
                        "'{}' is not valid UTF-8: invalid byte sequence at byte {at}.",
                        path.display()
                    ),
                )
                .with_primary(crate::source::Span::new(file, at, end), "not UTF-8");
                return self.render(&[d]);
            }
        };
        self.transcript
            .push_str(&format!("// :run {}\n", path.display()));
        let first_line = self.transcript.matches('\n').count() + 1;
        self.runs.record(
            &path.display().to_string(),
            first_line,
            text.lines().count(),
        );
        self.rhai(&text)
    }
}
