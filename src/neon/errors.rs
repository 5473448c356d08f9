//! Decode errors and their conversion to `neon-syntax` diagnostics.
//!
//! Messages follow nette/neon 3.4 (`Unexpected ':'`, `Unexpected end`, `Bad indentation`, ...)
//! without the reference's " on line L at column C" suffix: the position is the diagnostic's
//! primary span, which the renderer shows as `FILE:LINE:COLUMN` (byte column).

use super::lexer::{Text, Token};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span};

/// At most this many nested blocks and brackets; deeper input is rejected with a positioned
/// error instead of risking the stack.
pub const MAX_DEPTH: usize = 500;

/// A parse error: where (a token index; `tokens.len()` is the end of input) and what.
#[derive(Debug)]
pub(crate) struct ParseError {
    pub pos: usize,
    pub kind: ErrorKind,
    /// For an error at the end of input inside brackets: the token index of the innermost
    /// `[`, `{` or `(` still open, shown as a secondary label.
    pub opened: Option<usize>,
    /// For an error inside brackets opened on an earlier line (a bracket left unclosed reads
    /// the lines after it as its items until something does not fit): the token index of the
    /// innermost such `[`, `{` or `(`, shown as a secondary label with a note.
    pub open_before: Option<usize>,
    /// How many brackets around the error were asked for `open_before`.
    pub brackets_asked: u8,
}

#[derive(Debug)]
pub(crate) enum ErrorKind {
    /// The token at `pos` is not allowed there (or the input ended).
    Unexpected,
    /// Indentation strings that disagree within their common length: the enclosing block's and
    /// the line's.
    TabsAndSpaces { block: String, line: String },
    /// A deeper line where no block can open.
    BadIndentation,
    /// A key seen before in the same collection (the key as PHP text, where it was first).
    DuplicatedKey(String, Span),
    /// An entity or collection used as a key.
    UnacceptableKey,
    /// A string escape or date error with its message.
    Message(String),
    /// A bad escape in a double-quoted string, positioned inside the token.
    Escape(super::scalar::EscapeError),
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Nesting deeper than [`MAX_DEPTH`] at a link of a chain (`a()b()c()`), where each link
    /// counts one level: a call on the result of the links before it.
    ChainTooDeep,
    /// The caller's stack budget is used up: parse again on a thread with a larger stack.
    NeedStack,
    /// The live heap passed the memory ceiling (`--max-memory`, [`crate::memory::exceeded`])
    /// while the collection holding the value at `pos` was built.
    MemoryLimit,
}

impl ParseError {
    pub fn new(pos: usize, kind: ErrorKind) -> ParseError {
        ParseError {
            pos,
            kind,
            opened: None,
            open_before: None,
            brackets_asked: 0,
        }
    }

    /// Did parsing stop only because the caller's stack budget ran out?
    pub fn needs_stack(&self) -> bool {
        matches!(self.kind, ErrorKind::NeedStack)
    }

    /// The diagnostic: message and the span of the offending token.
    pub fn into_diagnostic(self, text: &Text, tokens: &[Token], file: FileId) -> Diagnostic {
        let src = &*text.src;
        let tok = tokens.get(self.pos);
        let (mut start, mut end) = match tok {
            Some(t) => (t.start as usize, t.end as usize),
            None => (src.len(), src.len()),
        };
        let mut notes: Vec<String> = Vec::new();
        let mut secondary: Option<(Span, &str)> = None;
        let mut code = Code::NeonSyntax;
        // a diagnostic made elsewhere, which only gets the span here
        let mut base: Option<Diagnostic> = None;
        let slip_possible = matches!(self.kind, ErrorKind::BadIndentation | ErrorKind::Unexpected);
        let (message, label) = match self.kind {
            ErrorKind::Unexpected => match tok {
                None => (
                    "Unexpected end".to_string(),
                    "the input ends here".to_string(),
                ),
                Some(t) => {
                    let text = &src[t.start as usize..t.end as usize];
                    if text == "=" {
                        notes.push(
                            "`=` always separates a key from its value; quote a value that \
                             contains `=`, e.g. 'http://x/?a=1'"
                                .into(),
                        );
                    }
                    // `workers: int<0, max>`: the unquoted value ended at the `,`.
                    let after_literal = self
                        .pos
                        .checked_sub(1)
                        .and_then(|i| tokens.get(i))
                        .is_some_and(|p| {
                            let before = &src[p.start as usize..p.end as usize];
                            !before.starts_with(['[', ']', '{', '}', '(', ')', ',', '=', ':', '\n'])
                                && !before.starts_with(['\'', '"'])
                        });
                    if text == "," && after_literal {
                        notes.push(
                            "a `,` ends an unquoted value; quote a value that contains `,`, \
                             e.g. 'int<0, max>' or 'a, b'"
                                .into(),
                        );
                    }
                    let shown = cut(text, 40).replace('\n', "<new line>");
                    (format!("Unexpected '{shown}'"), "not expected here".into())
                }
            },
            ErrorKind::TabsAndSpaces { block, line } => {
                // The reference reports the line's first token (kept as the position); the
                // indentation that does not fit is shown beside it.
                if let Some(t) = tok {
                    let at = t.start as usize;
                    let indent = super::lexer::line_indent(src, at).len();
                    if indent > 0 {
                        let (a, b) = (text.orig_start(at - indent), text.orig_end(at));
                        secondary = Some((Span::new(file, a, b.max(a)), "this indentation"));
                    }
                }
                notes.push(format!(
                    "the enclosing block is indented with {}, this line with {}",
                    describe_indent(&block),
                    describe_indent(&line)
                ));
                (
                    "Invalid combination of tabs and spaces".into(),
                    "this line is indented differently from its enclosing block".into(),
                )
            }
            ErrorKind::BadIndentation => {
                // A line less indented than the one before it, at a depth no enclosing block
                // has, is not "deeper" (a new user's trial).
                let shallower = tok.is_some_and(|t| {
                    let here = super::lexer::line_indent(src, t.start as usize).len();
                    previous_line(src, tokens, self.pos).is_some_and(|(first, _)| {
                        here < super::lexer::line_indent(src, tokens[first].start as usize).len()
                    })
                });
                if shallower {
                    notes.push(
                        "a line that ends a block must line up with an earlier line of an \
                         enclosing block"
                            .into(),
                    );
                    (
                        "Bad indentation".into(),
                        "less indented than the line before, but as deep as no enclosing block"
                            .into(),
                    )
                } else {
                    notes.push(
                        "a deeper line opens a nested block only after `key:` or `-` with \
                         nothing after them on their line"
                            .into(),
                    );
                    (
                        "Bad indentation".into(),
                        "deeper than its block, but no nested block can start here".into(),
                    )
                }
            }
            ErrorKind::DuplicatedKey(k, first) => {
                secondary = Some((first, "first used here"));
                (
                    format!("Duplicated key '{k}'"),
                    "this key was already used".into(),
                )
            }
            ErrorKind::UnacceptableKey => (
                "Unacceptable key".into(),
                "a key must be a string or a number".into(),
            ),
            ErrorKind::Message(m) => (m, String::new()),
            ErrorKind::Escape(e) => {
                // Point at the escape itself (nette/neon reports the string's start).
                // Inside a `"""` block the escape is on a later line: the error is there, and
                // the opening quotes are a secondary label. On one line the error keeps
                // nette/neon's position (the string's start) and labels the escape.
                let block = src[start..end].starts_with("\"\"\"");
                let at = (start + e.offset, start + e.offset + e.len);
                let span = |(a, b): (usize, usize)| {
                    Span::new(
                        file,
                        text.orig_start(a),
                        text.orig_end(b).max(text.orig_start(a)),
                    )
                };
                if block {
                    secondary = Some((span((start, start + 3)), "the string starts here"));
                    (start, end) = at;
                } else {
                    secondary = Some((span(at), "not a valid escape"));
                }
                notes.push(if block {
                    "in a `\"\"\"` string a backslash starts an escape (\\n, \\t, \\\\, \\u00e9, …); \
                     write `\\\\` for a literal backslash, or use a `'''` string, where \
                     backslashes are plain text"
                        .into()
                } else {
                    "in a double-quoted string a backslash starts an escape (\\n, \\t, \\\\, \
                     \\u00e9, …); write `\\\\` for a literal backslash, or use single quotes, \
                     where backslashes are plain text"
                        .into()
                });
                let label = if block {
                    "not a valid escape"
                } else {
                    "in this string"
                };
                (e.message, label.into())
            }
            ErrorKind::NeedStack => ("Nesting too deep for the stack".into(), "too deep".into()),
            ErrorKind::MemoryLimit => {
                // the ceiling's own message and note (`memory::check`), placed at the value
                code = Code::MemoryLimit;
                match crate::memory::check("decoding a NEON file") {
                    Err(limit) => {
                        base = Some(limit);
                        (String::new(), "the heap passed the ceiling here".into())
                    }
                    Ok(()) => (
                        "The heap passed the memory ceiling while decoding".into(),
                        "at this value".into(),
                    ),
                }
            }
            ErrorKind::TooDeep => (
                format!("Nesting too deep (more than {MAX_DEPTH} levels)"),
                "too deep".into(),
            ),
            ErrorKind::ChainTooDeep => {
                // A long flat chain reads as one level to its writer (a new user's trial).
                notes.push(
                    "each link of a chain (`a()b()c()`) is a call on the result of the links \
                     before it, so every link counts as one level of nesting"
                        .into(),
                );
                (
                    format!("Nesting too deep (more than {MAX_DEPTH} levels)"),
                    "too deep".into(),
                )
            }
        };
        // point at the first line of a multi-line token only
        let end = match src[start..end].find('\n') {
            Some(nl) if nl > 0 => start + nl,
            _ => end,
        };
        let span = Span::new(
            file,
            text.orig_start(start),
            text.orig_end(end).max(text.orig_start(start)),
        );
        let mut d = base
            .unwrap_or_else(|| Diagnostic::error(code, message))
            .with_primary(span, label);
        if let Some((span, label)) = secondary {
            d = d.with_secondary(span, label);
        }
        let bracket_at = |i: usize| {
            let t = tokens.get(i)?;
            let bracket = &src[t.start as usize..t.end as usize];
            let close = match bracket {
                "[" => "]",
                "{" => "}",
                _ => ")",
            };
            let open = Span::new(
                file,
                text.orig_start(t.start as usize),
                text.orig_end(t.end as usize),
            );
            let before = &src[..t.start as usize];
            let line = before.matches('\n').count() + 1;
            let column = t.start as usize - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            Some((bracket, close, open, line, column))
        };
        if let Some((bracket, close, open, line, column)) = self.opened.and_then(bracket_at) {
            d = d
                .with_secondary(open, format!("this '{bracket}' is never closed"))
                .with_note(format!(
                    "the '{bracket}' on line {line}, column {column} is never closed: add the missing '{close}'"
                ));
        } else if let Some((bracket, close, open, line, column)) =
            self.open_before.and_then(bracket_at)
        {
            d = d
                .with_secondary(open, format!("this '{bracket}' is still open here"))
                .with_note(format!(
                    "the '{bracket}' on line {line}, column {column} is still open, so the lines after it are read as its items: is a '{close}' missing?"
                ));
        }
        // What the line before says when it, not this one, holds the slip: `key:value` with no
        // space is one string, and `services` without its colon a value (a new user's trial:
        // the error pointed at the next line only).
        let odd = odd_blank_near(src, tokens, start);
        if slip_possible {
            let at_line_end = tok.is_some_and(|t| t.kind(src) == super::lexer::Tok::Newline);
            let slip = match at_line_end {
                true => line_end_slip(src, tokens, self.pos),
                false => tok.and_then(|_| previous_line_slip(src, tokens, self.pos)),
            };
            // A slip that holds an odd blank is that blank's doing: its note says so.
            let slip = slip.filter(|(_, at)| !odd.is_some_and(|(o, ..)| at.0 <= o && o < at.1));
            if let Some((note, at)) = slip {
                let at = Span::new(file, text.orig_start(at.0), text.orig_end(at.1));
                let label = match at_line_end {
                    true => "a key without its ':'",
                    false => "read as one value",
                };
                d = d.with_secondary(at, label);
                notes.insert(0, note);
            }
        }
        // A blank NEON does not read as one, on this line or the one before: a no-break space
        // pasted from a web page (or typed with Option+Space) looks like a space in the
        // snippet, so nothing visible was wrong (a new user's trial).
        if let Some((at, c, name)) = odd {
            let at = Span::new(file, text.orig_start(at), text.orig_end(at + c.len_utf8()));
            d = d.with_secondary(at, format!("{name} (U+{:04X})", u32::from(c)));
            let note = format!(
                "NEON reads only spaces and tabs as blanks: the {name} (U+{:04X}) is part of the \
                 text around it; replace it with a normal space",
                u32::from(c)
            );
            notes.insert(0, note);
        }
        for n in notes {
            d = d.with_note(n);
        }
        d
    }
}

/// The first character on the line holding byte `at` of `src`, or on the line before, that
/// looks like a blank (or like nothing) but is none for NEON: its offset, the character and
/// its name. A byte order mark at the very start of the text is the file's own and skipped,
/// and so is anything inside a quoted string (where it is meant).
fn odd_blank_near(src: &str, tokens: &[Token], at: usize) -> Option<(usize, char, &'static str)> {
    let quoted = |offset: usize| {
        let i = tokens.partition_point(|t| t.start as usize <= offset);
        i > 0 && {
            let t = tokens[i - 1];
            offset < t.end as usize && t.kind(src) == super::lexer::Tok::String
        }
    };
    let at = at.min(src.len());
    let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let from = src[..line_start.saturating_sub(1)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let to = src[at..].find('\n').map_or(src.len(), |i| at + i);
    src[from..to].char_indices().find_map(|(i, c)| {
        let name = match c {
            '\u{a0}' | '\u{202f}' => "no-break space",
            '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{205f}' | '\u{3000}' => "wide space",
            '\u{200b}' => "zero-width space",
            '\u{2060}' => "word joiner",
            '\u{feff}' if from + i > 0 => "byte order mark",
            _ => return None,
        };
        (!quoted(from + i)).then_some((from + i, c, name))
    })
}

/// The tokens (first, last index) of the line before the one whose first token is `pos`;
/// `None` when `pos` does not start a line or no line is before it.
fn previous_line(src: &str, tokens: &[Token], pos: usize) -> Option<(usize, usize)> {
    use super::lexer::Tok;
    let nl = pos.checked_sub(1)?;
    if pos >= tokens.len() || tokens[nl].kind(src) != Tok::Newline {
        return None;
    }
    let mut first = nl;
    while first > 0 && tokens[first - 1].kind(src) != Tok::Newline {
        first -= 1;
    }
    (first < nl).then(|| (first, nl - 1))
}

/// A slip on the line before the one whose first token is `pos`, which that line's values
/// show: `key:value` written without a space (one string, not a key), a word such as
/// `services` without its `:` before a deeper line, `key value` without the `:` (a value
/// that starts with a word and a space), or `-item` without the space after the dash. The
/// note, and the byte range of what the line holds.
fn previous_line_slip(src: &str, tokens: &[Token], pos: usize) -> Option<(String, (usize, usize))> {
    use super::lexer::Tok;
    let (first, last) = previous_line(src, tokens, pos)?;
    let mut start = first;
    if tokens[start].kind(src) == Tok::Char(b'-') && start < last {
        start += 1;
    }
    let t = tokens[start];
    let value = &src[t.start as usize..t.end as usize];
    let at = (t.start as usize, t.end as usize);
    if start != last || t.kind(src) != Tok::Literal {
        // Several tokens: `create App\Foo(1)`, a key written without its `:`.
        let keyless =
            (start..=last).all(|i| !matches!(tokens[i].kind(src), Tok::Char(b':' | b'=')));
        // (Not for a list item, whose value may well be text with spaces.)
        return (keyless && start == first && t.kind(src) == Tok::Literal)
            .then(|| missing_colon(value, true))
            .flatten()
            .map(|note| (note, (t.start as usize, tokens[last].end as usize)));
    }
    if let Some((key, rest)) = value.split_once(':') {
        // (`http://…` is a URL, not a key.)
        if keyish(key) && !rest.is_empty() && !rest.starts_with([' ', '\t', ':', '/']) {
            let shown = cut(value, 60);
            return Some((
                format!(
                    "the line before holds the one string '{shown}': a key needs a space after its \
                     ':' (`{key}: {}`)",
                    cut(rest, 40)
                ),
                at,
            ));
        }
        return None;
    }
    // `-App\Foo`: one string, not a list item (a negative number is a value).
    if let Some(item) = value.strip_prefix('-') {
        if start == first && item.starts_with(|c: char| c.is_alphabetic() || "\\@%_".contains(c)) {
            return Some((
                format!(
                    "the line before holds the one string '{}', not a list item: a `-` needs a \
                     space after it (`- {}`)",
                    cut(value, 40),
                    cut(item, 40)
                ),
                at,
            ));
        }
    }
    let deeper = super::lexer::line_indent(src, tokens[pos].start as usize).len()
        > super::lexer::line_indent(src, t.start as usize).len();
    if keyish(value) && deeper {
        return Some((
            format!(
                "the line before holds the value '{}', not a key: write `{}:` to open a block",
                cut(value, 40),
                cut(value, 40)
            ),
            at,
        ));
    }
    (start == first)
        .then(|| missing_colon(value, false))
        .flatten()
        .map(|note| (note, at))
}

/// A slip on the line that the line break at `pos` ends, when the next line is deeper: a
/// word such as `setup` written without its `:` in a block of `key: value` lines (the parser
/// stops at the line break, where it wanted the `:`). The note, and the word's byte range.
fn line_end_slip(src: &str, tokens: &[Token], pos: usize) -> Option<(String, (usize, usize))> {
    use super::lexer::Tok;
    let next = tokens.get(pos + 1)?;
    let (first, last) = previous_line(src, tokens, pos + 1)?;
    let t = tokens[first];
    let value = &src[t.start as usize..t.end as usize];
    let deeper = super::lexer::line_indent(src, next.start as usize).len()
        > super::lexer::line_indent(src, t.start as usize).len();
    (first == last && t.kind(src) == Tok::Literal && keyish(value) && deeper).then(|| {
        (
            format!(
                "'{}' is written without its ':': write `{}:` to open the block below it",
                cut(value, 40),
                cut(value, 40)
            ),
            (t.start as usize, t.end as usize),
        )
    })
}

/// The note for a value `word rest` that reads as a key written without its `:`
/// (`create App\Foo`): the word is a name and a space follows it; `more`: the line goes on
/// after the value (shown as `…`).
fn missing_colon(value: &str, more: bool) -> Option<String> {
    let (word, rest) = value.split_once([' ', '\t'])?;
    let rest = rest.trim_start();
    (keyish(word) && !rest.is_empty()).then(|| {
        format!(
            "the line before starts with '{}', not a key: a key needs a ':' after it \
             (`{word}: {}{}`)",
            cut(value, 40),
            cut(rest, 40),
            if more { "…" } else { "" }
        )
    })
}

/// A name (not a number: `12:30` is a time), as keys are written.
fn keyish(k: &str) -> bool {
    k.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// "2 spaces", "1 tab", "a tab and 2 spaces" ... for notes about indentation.
fn describe_indent(s: &str) -> String {
    if s.is_empty() {
        return "nothing".into();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let n = rest.chars().take_while(|&x| x == c).count();
        let word = if c == '\t' { "tab" } else { "space" };
        parts.push(format!("{n} {word}{}", if n == 1 { "" } else { "s" }));
        rest = &rest[n..];
    }
    parts.join(" + ")
}

/// The lexer stopped at `at`: `Unexpected '<next 40 bytes>'` (line breaks shown as `\n`).
pub(crate) fn lexer_error(text: &Text, at: usize, file: FileId) -> Diagnostic {
    let src = &*text.src;
    // On one line: line breaks and tabs written as `\n` and `\t` (a raw tab would show the
    // rest of the file as it is laid out, not as the quoted text it is).
    let rest = cut(&src[at..], 40)
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    let next_len = src[at..].chars().next().map_or(0, char::len_utf8);
    let span = Span::new(file, text.orig_start(at), text.orig_end(at + next_len));
    let rest_src = &src[at..];
    // A `"""` whose first two quotes were read as an empty string stops at its third quote.
    let opener = rest_src.starts_with("'''")
        || rest_src.starts_with("\"\"\"")
        || (rest_src.starts_with('"') && src[..at].ends_with("\"\""))
        || (rest_src.starts_with('\'') && src[..at].ends_with("''"));
    let label = match rest_src.chars().next() {
        _ if opener => {
            // A line break right after the opener starts the string's lines: then what is
            // missing is the closing delimiter on a line of its own.
            let after = rest_src.trim_start_matches(['\'', '"']);
            if after
                .trim_start_matches([' ', '\t'])
                .starts_with(['\n', '\r'])
            {
                "this multi-line string is never closed: its closing delimiter must stand on a \
                 line of its own"
            } else {
                "this multi-line string needs a line break right after its opening delimiter"
            }
        }
        Some('\'' | '"') => "this string is not closed (quoted strings end on the same line)",
        Some('`') => "a backtick cannot start a value; quote it",
        _ => "no NEON token starts here",
    };
    Diagnostic::error(Code::NeonSyntax, format!("Unexpected '{rest}'")).with_primary(span, label)
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
