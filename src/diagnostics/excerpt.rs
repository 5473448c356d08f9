//! Keeping rendered diagnostics readable on any input: source lines longer than
//! [`MAX_LINE`] bytes are shown as a window around the label with `…` where they were cut,
//! labels that span many lines show their first line, and long messages, notes and label texts
//! are shortened. One rendered diagnostic stays within a few KB however large the input.
//! Control characters other than tab and line break (ESC, BEL, CR, DEL, C1 …) never reach the
//! terminal raw: in source lines, file names, messages, notes and labels they are shown as
//! `\u{1b}`, and the carets still point at the same characters.

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
/// left out. The cut goes after the last blank of the last `WORD_BACK` bytes kept,
/// so a list of names (an ambiguous type's services) is not cut inside a name.
pub fn shorten_text(text: &str) -> String {
    if text.len() <= MAX_TEXT {
        return text.to_string();
    }
    let cut = floor_char(text, MAX_TEXT);
    let cut = text[..cut]
        .rfind(' ')
        .map(|i| i + 1)
        .filter(|&i| cut - i <= WORD_BACK)
        .unwrap_or(cut);
    format!("{}… ({} more bytes)", &text[..cut], text.len() - cut)
}

/// How far [`shorten_text`] moves its cut back to end at a word.
const WORD_BACK: usize = 100;

/// Whether `c` is shown escaped: a control character other than tab and line break (a terminal
/// would act on ESC sequences, BEL, CR …).
fn is_hidden_control(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n') || is_bidi_control(c) || is_zero_width(c)
}

/// Characters that take no room when printed: a byte order mark inside a text (two files
/// joined with `cat`), a zero-width space, a word joiner, a soft hyphen. A name holding one
/// reads as another (`Found section '\u{feff}services' …, did you mean 'services'?` showed the
/// same word twice; a new user's trial). The zero-width joiners of emoji sequences and scripts
/// are shown as they are.
fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{00ad}' | '\u{200b}' | '\u{2060}' | '\u{feff}')
}

/// The Unicode bidirectional formatting characters (embeddings, overrides, isolates and the
/// marks): printed raw they reorder the text around them, so a name could show as another
/// ("Trojan Source", CVE-2021-42574).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// How a hidden control character is shown: `\u{1b}` for ESC.
fn escape_control(c: char) -> String {
    format!("\\u{{{:x}}}", u32::from(c))
}

/// `text` with every control character other than tab and line break, every bidirectional
/// formatting character and every zero-width one (a byte order mark, a zero-width space, a
/// word joiner, a soft hyphen), shown as `\u{…}`, so that printing it cannot move the cursor,
/// change colours, ring the bell, reorder what is shown or hide a character.
pub fn visible_text(text: &str) -> String {
    if !text.chars().any(is_hidden_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if is_hidden_control(c) {
                escape_control(c)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A message, note or label text as shown: shortened, control characters made visible, and a
/// line break shown as `\n`: a message is one line of the log, so text from a script
/// (`this.warn`, `throw`) or a name read from a file cannot start a line of its own that looks
/// like another message, an `ok:` line or a CI runner's command (`::error ::…`; a new user's
/// trial).
fn shown_text(text: &str) -> String {
    visible_text(&shorten_text(text)).replace('\n', "\\n")
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
    /// The control characters shown escaped, in order: (original offset, original length in
    /// bytes, length of the escape in the view).
    escapes: Vec<(usize, usize, usize)>,
}

impl ViewLine {
    /// The offset within this line's shown text (after the `…` prefix) of original offset
    /// `orig`, which lies in the window.
    fn to_shown(&self, orig: usize) -> usize {
        let extra: usize = self
            .escapes
            .iter()
            .take_while(|(at, _, _)| *at < orig)
            .map(|(_, len, shown)| shown - len)
            .sum();
        orig - self.window.start + extra
    }

    /// The original offset that offset `inside` of this line's shown text shows (the escaped
    /// character itself for any byte of its escape).
    fn to_original(&self, inside: usize) -> usize {
        let mut extra = 0;
        for &(at, len, shown) in &self.escapes {
            let view_at = at - self.window.start + extra;
            if inside < view_at {
                break;
            }
            if inside < view_at + shown {
                return at;
            }
            extra += shown - len;
        }
        (self.window.start + inside.saturating_sub(extra)).min(self.window.end)
    }
}

/// The shown lines of one original file.
struct ViewFile<'a> {
    original: &'a SourceFile,
    /// The file's name with control characters made visible.
    name: String,
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
        l.view_start + l.prefix + l.to_shown(clamped)
    }

    /// The original offset a view offset shows.
    fn to_original(&self, byte: usize) -> usize {
        let Some(l) = self.lines.get(self.line_of_view(byte)) else {
            return 0;
        };
        l.to_original(byte.saturating_sub(l.view_start + l.prefix))
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
        Ok(self.file(id)?.name.as_str())
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
        let (line_number, column_number) = f.original.line_char_col(f.to_original(byte_index));
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

/// Whether `d` needs a view rather than the original files: a labelled line longer than
/// [`MAX_LINE`], a label over many lines, or a control character to escape in a labelled line
/// or a file name.
fn needs_view(sources: &SourceMap, d: &Diagnostic) -> bool {
    d.labels.iter().any(|l| {
        let f = sources.get(l.span.file);
        if f.name.chars().any(is_hidden_control) {
            return true;
        }
        let len = f.text.len();
        let (start, end) = (
            (l.span.start as usize).min(len),
            (l.span.end as usize).min(len),
        );
        let (first, last) = (f.line_index(start), f.line_index(end));
        last - first > MAX_LABEL_LINES
            || (first..=last).any(|line| {
                let r = line_range(f, line);
                r.len() > MAX_LINE || f.text[r].chars().any(is_hidden_control)
            })
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
                let mut start = floor_char(&f.text, anchor.saturating_sub(CONTEXT).max(full.start));
                // Indentation before the anchor says nothing (a tab shows as four columns, so
                // a deep line's window was all blanks): keep four of its blanks.
                let blanks = f.text.as_bytes()[start..anchor]
                    .iter()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count();
                start += blanks.saturating_sub(4);
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
            let mut escapes = Vec::new();
            for (i, c) in f.text[window.clone()].char_indices() {
                if is_hidden_control(c) {
                    let shown = escape_control(c);
                    escapes.push((window.start + i, c.len_utf8(), shown.len()));
                    text.push_str(&shown);
                } else {
                    text.push(c);
                }
            }
            if window.end < full.end {
                text.push('…');
            }
            text.push('\n');
            view_lines.push(ViewLine {
                line,
                view_start,
                prefix,
                window,
                escapes,
            });
        }
        files.push(ViewFile {
            original: f,
            name: visible_text(&f.name),
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
            cs::Label::new(style, file, range).with_message(shown_text(&l.message))
        })
        .collect();
    base.with_code(d.code.as_str())
        .with_message(shown_text(&d.message))
        .with_labels(labels)
        .with_notes(d.notes.iter().map(|n| shown_text(n)).collect())
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

    /// A long list of names is cut after a name, not inside one; a text without blanks is
    /// cut at the limit.
    #[test]
    fn long_texts_are_cut_after_a_word() {
        use super::{shorten_text, MAX_TEXT};
        let names: Vec<String> = (0..2000).map(|i| format!("s{i}")).collect();
        let list = format!(
            "Multiple services of type App\\C found: {}",
            names.join(", ")
        );
        let short = shorten_text(&list);
        let (kept, rest) = short.split_once('…').expect("cut");
        assert!(kept.ends_with(", "), "{kept}");
        assert!(kept.len() <= MAX_TEXT);
        let more: usize = rest
            .trim_start_matches(" (")
            .trim_end_matches(" more bytes)")
            .parse()
            .expect("a count");
        assert_eq!(kept.len() + more, list.len());
        let solid = "x".repeat(3000);
        assert_eq!(
            shorten_text(&solid),
            format!("{}… (2000 more bytes)", "x".repeat(1000))
        );
    }
    use crate::source::{SourceMap, Span};

    #[test]
    fn bidirectional_formatting_characters_are_shown_escaped() {
        let mut sources = SourceMap::new();
        let text = "services:\n\t\"m\u{202e}x\u{2066}\": App\\A\n";
        let at = text.find("App").unwrap();
        let id = sources.add("x.neon", text.to_string());
        let d = Diagnostic::error(Code::InvalidValue, "name 'm\u{202e}x' given")
            .with_primary(Span::new(id, at, at + 6), "here")
            .with_note("see 'm\u{200f}'");
        let out = render_to_string(&sources, &[d]);
        assert!(
            !out.contains(['\u{202e}', '\u{2066}', '\u{200f}']),
            "{out:?}"
        );
        assert!(out.contains("name 'm\\u{202e}x' given"), "{out}");
        assert!(out.contains("\"m\\u{202e}x\\u{2066}\""), "{out}");
        assert!(out.contains("see 'm\\u{200f}'"), "{out}");
    }

    #[test]
    fn zero_width_characters_are_shown_escaped_and_emoji_joiners_kept() {
        let mut sources = SourceMap::new();
        // Two files joined with `cat`: the second one's byte order mark starts line 3.
        let text = "parameters:\n\ta: 1\n\u{feff}services:\n\tx: stdClass\n";
        let at = text.find('\u{feff}').unwrap();
        let id = sources.add("x.neon", text.to_string());
        let d = Diagnostic::error(Code::UnknownExtension, "Found section '\u{feff}services'")
            .with_primary(Span::new(id, at, at + 11), "here")
            .with_note("family '\u{1f468}\u{200d}\u{1f469}' and 'a\u{200b}b'");
        let out = render_to_string(&sources, &[d]);
        assert!(!out.contains(['\u{feff}', '\u{200b}']), "{out:?}");
        assert!(out.contains("Found section '\\u{feff}services'"), "{out}");
        assert!(out.contains("3 │ \\u{feff}services:"), "{out}");
        assert!(
            out.contains("'\u{1f468}\u{200d}\u{1f469}' and 'a\\u{200b}b'"),
            "{out}"
        );
    }

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
        // The location is the real one: line 2, the character column of TARGET (5,000
        // two-byte letters before it), where an editor puts the cursor.
        assert!(out.contains("x.neon:2:5001"), "{out}");
    }

    /// A line indented past the width shown keeps a few blanks of its indentation before the
    /// label, so the text it points at is on screen (500 tabs had left only blanks in view).
    #[test]
    fn a_deeply_indented_line_shows_its_text_not_its_indentation() {
        let mut sources = SourceMap::new();
        let text = format!("first:\n{}key: value\n", "\t".repeat(500));
        let at = text.find("key").unwrap();
        let id = sources.add("x.neon", text.clone());
        let d = Diagnostic::error(Code::NeonSyntax, "too deep")
            .with_primary(Span::new(id, at, at + 3), "here");
        let out = render_to_string(&sources, &[d]);
        let line = out
            .lines()
            .find(|l| l.contains("key: value"))
            .unwrap_or_else(|| panic!("the text is not shown: {out}"));
        assert!(line.chars().count() < 60, "{line:?}");
        let (text_at, caret_at) = caret_under(&out, "key");
        assert_eq!(text_at, caret_at, "{out}");
    }

    /// The rendered source line holding `needle` and the caret line under it, and where in the
    /// source line `needle` starts (in characters).
    fn caret_under(out: &str, needle: &str) -> (usize, usize) {
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in {out}"));
        let col = |l: &str, i: usize| l[..i].chars().count();
        let source = lines[at];
        let caret = lines[at + 1];
        (
            col(source, source.find(needle).unwrap()),
            col(caret, caret.find('^').expect("a caret")),
        )
    }

    #[test]
    fn control_characters_are_shown_escaped_with_the_caret_in_place() {
        let mut sources = SourceMap::new();
        let text = "services:\n\tx: App\\Foo\x1b[31mRED\x1b]0;TITLE\x07(\n";
        let at = text.find("RED").unwrap();
        let id = sources.add("x.neon", text.to_string());
        let d = Diagnostic::error(Code::InvalidValue, "bad \x1b[2J name \u{9b}1m")
            .with_primary(Span::new(id, at, at + 3), "label \x07")
            .with_note("note \x1b]0;T\x07");
        let out = render_to_string(&sources, &[d]);
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
        assert!(
            out.contains("App\\Foo\\u{1b}[31mRED\\u{1b}]0;TITLE\\u{7}("),
            "{out}"
        );
        assert!(out.contains("bad \\u{1b}[2J name \\u{9b}1m"), "{out}");
        assert!(out.contains("label \\u{7}"), "{out}");
        assert!(out.contains("note \\u{1b}]0;T\\u{7}"), "{out}");
        // The header gives the real (byte) column; the caret sits under RED as shown.
        assert!(out.contains(&format!("x.neon:2:{}", at - 10 + 1)), "{out}");
        let (word, caret) = caret_under(&out, "RED");
        assert_eq!(word, caret, "{out}");
        assert!(out.contains("^^^\n") || out.contains("^^^ "), "{out}");
    }

    #[test]
    fn a_label_after_an_escape_on_a_long_line_keeps_its_caret() {
        let mut sources = SourceMap::new();
        let line = format!("{}\x1b\x1bHERE{}", "a".repeat(20), "b".repeat(400));
        let text = format!("{line}\n");
        let at = text.find("HERE").unwrap();
        let id = sources.add("x\x1b.neon", text.clone());
        let d = Diagnostic::error(Code::InvalidValue, "bad")
            .with_primary(Span::new(id, at, at + 4), "here");
        let out = render_to_string(&sources, &[d]);
        assert!(!out.contains('\x1b'), "{out:?}");
        assert!(
            out.contains(&format!("x\\u{{1b}}.neon:1:{}", at + 1)),
            "{out}"
        );
        let (word, caret) = caret_under(&out, "HERE");
        assert_eq!(word, caret, "{out}");
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
