//! Keeping rendered diagnostics readable on any input: source lines longer than
//! [`MAX_LINE`] bytes are shown as a window around the label with `…` where they were cut,
//! labels that span many lines show their first line, and long messages, notes and label texts
//! are shortened. One rendered diagnostic stays within a few KB however large the input.

use super::Diagnostic;
use crate::source::{SourceFile, SourceMap, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error, Files, Location};
use std::ops::Range;

/// The longest source line shown whole, in bytes; longer ones are cut around the label.
pub const MAX_LINE: usize = 160;
/// Bytes kept before the label when a line is cut.
const CONTEXT: usize = 60;
/// A label spanning more lines than this shows only its first line.
const MAX_LABEL_LINES: usize = 8;
/// The longest message, note or label text shown whole, in bytes.
pub const MAX_TEXT: usize = 1000;

/// `text` cut to at most [`MAX_TEXT`] bytes (on a character boundary) with a count of what was
/// left out.
pub fn shorten_text(text: &str) -> String {
    if text.len() <= MAX_TEXT {
        return text.to_string();
    }
    let cut = floor_char(text, MAX_TEXT);
    format!("{}… ({} more bytes)", &text[..cut], text.len() - cut)
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// One line of a view: where it sits in the view and which bytes of the original it shows.
struct ViewLine {
    /// 0-based line in the original file.
    line: usize,
    /// Byte offset of the line in the view text.
    view_start: usize,
    /// Bytes of the `…` prefix (0 when the line starts at its beginning).
    prefix: usize,
    /// The original bytes shown.
    window: Range<usize>,
}

/// The shown lines of one original file.
struct ViewFile<'a> {
    original: &'a SourceFile,
    text: String,
    lines: Vec<ViewLine>,
}

impl ViewFile<'_> {
    fn line_of_view(&self, byte: usize) -> usize {
        match self.lines.binary_search_by(|l| l.view_start.cmp(&byte)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// The view offset showing original offset `orig` (clamped into the shown window).
    fn to_view(&self, orig: usize) -> usize {
        let line = self.original.line_index(orig.min(self.original.text.len()));
        let Some(l) = self.lines.iter().find(|l| l.line == line) else {
            return self.lines.first().map_or(0, |l| l.view_start);
        };
        let clamped = orig.clamp(l.window.start, l.window.end);
        l.view_start + l.prefix + (clamped - l.window.start)
    }

    /// The original offset a view offset shows.
    fn to_original(&self, byte: usize) -> usize {
        let Some(l) = self.lines.get(self.line_of_view(byte)) else {
            return 0;
        };
        let inside = byte.saturating_sub(l.view_start + l.prefix);
        (l.window.start + inside).min(l.window.end)
    }
}

/// The files of one diagnostic as shortened views, for codespan.
pub(super) struct View<'a> {
    files: Vec<ViewFile<'a>>,
}

impl<'a> Files<'a> for View<'a> {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(self.file(id)?.original.name.as_str())
    }

    fn source(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(self.file(id)?.text.as_str())
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, Error> {
        Ok(self.file(id)?.line_of_view(byte_index))
    }

    fn line_number(&'a self, id: usize, line_index: usize) -> Result<usize, Error> {
        let f = self.file(id)?;
        f.lines
            .get(line_index)
            .map(|l| l.line + 1)
            .ok_or(Error::LineTooLarge {
                given: line_index,
                max: f.lines.len().saturating_sub(1),
            })
    }

    fn location(&'a self, id: usize, byte_index: usize) -> Result<Location, Error> {
        let f = self.file(id)?;
        let (line_number, column_number) = f.original.line_col(f.to_original(byte_index));
        Ok(Location {
            line_number,
            column_number,
        })
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, Error> {
        let f = self.file(id)?;
        let start = f
            .lines
            .get(line_index)
            .ok_or(Error::LineTooLarge {
                given: line_index,
                max: f.lines.len().saturating_sub(1),
            })?
            .view_start;
        let end = f
            .lines
            .get(line_index + 1)
            .map_or(f.text.len(), |l| l.view_start);
        Ok(start..end)
    }
}

impl View<'_> {
    fn file(&self, id: usize) -> Result<&ViewFile<'_>, Error> {
        self.files.get(id).ok_or(Error::FileMissing)
    }
}

/// The original byte range of 0-based `line` of `f`, without its line break.
fn line_range(f: &SourceFile, line: usize) -> Range<usize> {
    let start = f.line_start(line);
    let mut end = f.line_start(line + 1);
    if end > start && f.text.as_bytes()[end - 1] == b'\n' {
        end -= 1;
        if end > start && f.text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
    }
    start..end
}

/// The label spans as they are shown: a label over more than [`MAX_LABEL_LINES`] lines keeps
/// only its first line.
fn shown_span(f: &SourceFile, span: Span) -> Range<usize> {
    let len = f.text.len();
    let (start, end) = ((span.start as usize).min(len), (span.end as usize).min(len));
    let (first, last) = (f.line_index(start), f.line_index(end));
    if last - first > MAX_LABEL_LINES {
        start..line_range(f, first).end.max(start)
    } else {
        start..end.max(start)
    }
}

/// Whether `d` needs a shortened view: a labelled line longer than [`MAX_LINE`], or a label
/// over many lines.
fn needs_view(sources: &SourceMap, d: &Diagnostic) -> bool {
    d.labels.iter().any(|l| {
        let f = sources.get(l.span.file);
        let len = f.text.len();
        let (start, end) = (
            (l.span.start as usize).min(len),
            (l.span.end as usize).min(len),
        );
        let (first, last) = (f.line_index(start), f.line_index(end));
        last - first > MAX_LABEL_LINES
            || (first..=last).any(|line| line_range(f, line).len() > MAX_LINE)
    })
}

fn build_view<'a>(
    sources: &'a SourceMap,
    d: &Diagnostic,
) -> (View<'a>, Vec<(usize, Range<usize>)>) {
    let mut ids: Vec<crate::source::FileId> = Vec::new();
    for l in &d.labels {
        if !ids.contains(&l.span.file) {
            ids.push(l.span.file);
        }
    }
    let mut files = Vec::new();
    for id in &ids {
        let f = sources.get(*id);
        let shown: Vec<Range<usize>> = d
            .labels
            .iter()
            .filter(|l| l.span.file == *id)
            .map(|l| shown_span(f, l.span))
            .collect();
        let mut lines: Vec<usize> = shown
            .iter()
            .flat_map(|r| f.line_index(r.start)..=f.line_index(r.end))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let mut text = String::new();
        let mut view_lines = Vec::new();
        for line in lines {
            let full = line_range(f, line);
            let window = if full.len() <= MAX_LINE {
                full.clone()
            } else {
                // Centre on the first label boundary on this line.
                let anchor = shown
                    .iter()
                    .flat_map(|r| [r.start, r.end])
                    .filter(|p| full.contains(p))
                    .min()
                    .unwrap_or(full.start);
                let start = floor_char(&f.text, anchor.saturating_sub(CONTEXT).max(full.start));
                let end = ceil_char(&f.text, (start + MAX_LINE).min(full.end));
                start..end
            };
            let view_start = text.len();
            let prefix = if window.start > full.start {
                text.push('…');
                '…'.len_utf8()
            } else {
                0
            };
            text.push_str(&f.text[window.clone()]);
            if window.end < full.end {
                text.push('…');
            }
            text.push('\n');
            view_lines.push(ViewLine {
                line,
                view_start,
                prefix,
                window,
            });
        }
        files.push(ViewFile {
            original: f,
            text,
            lines: view_lines,
        });
    }
    let view = View { files };
    let spans = d
        .labels
        .iter()
        .map(|l| {
            let i = ids.iter().position(|x| *x == l.span.file).unwrap_or(0);
            let f = &view.files[i];
            let r = shown_span(f.original, l.span);
            (i, f.to_view(r.start)..f.to_view(r.end))
        })
        .collect();
    (view, spans)
}

fn codespan_labels<F: Copy>(d: &Diagnostic, spans: Vec<(F, Range<usize>)>) -> cs::Diagnostic<F> {
    let base = match d.severity {
        super::Severity::Error => cs::Diagnostic::error(),
        super::Severity::Warning => cs::Diagnostic::warning(),
    };
    let labels = d
        .labels
        .iter()
        .zip(spans)
        .map(|(l, (file, range))| {
            let style = if l.primary {
                cs::LabelStyle::Primary
            } else {
                cs::LabelStyle::Secondary
            };
            cs::Label::new(style, file, range).with_message(shorten_text(&l.message))
        })
        .collect();
    base.with_code(d.code.as_str())
        .with_message(shorten_text(&d.message))
        .with_labels(labels)
        .with_notes(d.notes.iter().map(|n| shorten_text(n)).collect())
}

/// Renders `d` through `emit`, which is called with the files and the codespan diagnostic:
/// directly over `sources` when every shown line is short, over a shortened view otherwise.
pub(super) fn emit_shortened<T, E>(
    sources: &SourceMap,
    d: &Diagnostic,
    emit: &mut dyn FnMut(Shown<'_>) -> Result<T, E>,
) -> Result<T, E> {
    if needs_view(sources, d) {
        let (view, spans) = build_view(sources, d);
        let diagnostic = codespan_labels(d, spans);
        emit(Shown::View(&view, &diagnostic))
    } else {
        let spans = d
            .labels
            .iter()
            .map(|l| (l.span.file, l.span.range()))
            .collect();
        let diagnostic = codespan_labels(d, spans);
        emit(Shown::Sources(sources, &diagnostic))
    }
}

/// A diagnostic ready for codespan, with the files it is drawn over.
pub(super) enum Shown<'a> {
    /// The original files.
    Sources(&'a SourceMap, &'a cs::Diagnostic<crate::source::FileId>),
    /// Shortened views of them.
    View(&'a View<'a>, &'a cs::Diagnostic<usize>),
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::{render_to_string, Code, Diagnostic};
    use crate::source::{SourceMap, Span};

    #[test]
    fn a_long_line_of_multibyte_text_is_cut_on_character_boundaries() {
        let mut sources = SourceMap::new();
        let line = format!("{}TARGET{}", "č".repeat(5000), "ž".repeat(5000));
        let text = format!("first\n{line}\nlast\n");
        let at = text.find("TARGET").unwrap();
        let id = sources.add("x.neon", text.clone());
        let d = Diagnostic::error(Code::InvalidValue, "bad")
            .with_primary(Span::new(id, at, at + 6), "here");
        let out = render_to_string(&sources, &[d]);
        assert!(out.len() < 2000, "{} bytes", out.len());
        assert!(out.contains("TARGET"), "{out}");
        assert_eq!(out.matches('…').count(), 2, "{out}");
        // The location is the real one: line 2, byte column of TARGET.
        assert!(out.contains(&format!("x.neon:2:{}", at - 6 + 1)), "{out}");
    }

    #[test]
    fn a_label_over_many_lines_shows_its_first_line() {
        let mut sources = SourceMap::new();
        let text: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let id = sources.add("x.neon", text.clone());
        let d = Diagnostic::error(Code::InvalidValue, "bad")
            .with_primary(Span::new(id, 0, text.len() - 1), "all of it");
        let out = render_to_string(&sources, &[d]);
        assert!(out.contains("line 1"), "{out}");
        assert!(!out.contains("line 40"), "{out}");
    }
}
