//! The NEON encoder: a [`Value`] back to text that [`super::decode`] reads as the same value.
//!
//! Two layouts ([`Mode`]): **block** writes collections as `key: value` / `- item` lines
//! indented by a configurable string, and multi-line strings as `'''` (or `"""`) blocks indented
//! by the same string; **inline** writes one line, `[a, b]` and `{k: v}`. Entities are always
//! inline, `Foo(a, b: 1)`, and chains are their links written one after the other,
//! `Foo(1)::bar(2)`.
//!
//! Quoting: a string is written bare only when the lexer reads it back as one literal that
//! types to the same string, and it does not look like a number or a keyword (`true`, `on`, ...
//! in any case, as nette/neon's encoder also quotes them). Otherwise `'...'`, or `"..."` with
//! escapes when the string holds control characters (a `\r` would not survive decoding raw).
//!
//! What has no NEON text is an [`EncodeError`], never a panic: NaN, a chain link that is not a
//! plain literal, an entity as an entity's value, a date outside the four-digit years, nesting
//! deeper than the decoder's [`MAX_DEPTH`].

use super::date;
use super::errors::MAX_DEPTH;
use super::lexer::{self, Tok};
use super::scalar;
use super::value::{Array, Entity, Key, Kind, Value};
use std::fmt::Write as _;

/// How [`encode`] lays out collections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Indented `key: value` and `- item` lines; `'''` blocks for multi-line strings.
    #[default]
    Block,
    /// A single line: `[a, b]`, `{k: v}`, multi-line strings as `"...\n..."`.
    Inline,
}

/// Options of [`encode`]: the layout and the indentation string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Block or inline.
    pub mode: Mode,
    /// One level of indentation in block mode (nested blocks and the content of `'''` strings):
    /// one or more spaces or tabs. Default: a tab.
    pub indent: String,
}

impl Default for EncodeOptions {
    fn default() -> EncodeOptions {
        EncodeOptions {
            mode: Mode::Block,
            indent: "\t".to_string(),
        }
    }
}

impl EncodeOptions {
    /// Block mode, indented by a tab.
    pub fn block() -> EncodeOptions {
        EncodeOptions::default()
    }

    /// Inline mode.
    pub fn inline() -> EncodeOptions {
        EncodeOptions {
            mode: Mode::Inline,
            ..EncodeOptions::default()
        }
    }

    /// The same options with another indentation string (see [`EncodeOptions::indent`]).
    pub fn with_indent(mut self, indent: impl Into<String>) -> EncodeOptions {
        self.indent = indent.into();
        self
    }
}

/// Why a value (or JSON document) cannot be written as NEON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// NaN has no NEON literal (infinities are written `1e999` and `-1e999`).
    #[error("NAN cannot be encoded to NEON")]
    Nan,
    /// The indentation string is empty or holds something other than spaces and tabs.
    #[error("the indentation must be one or more spaces or tabs, {0:?} given")]
    BadIndent(String),
    /// Collections nest deeper than the decoder accepts.
    #[error("the value nests deeper than {MAX_DEPTH} levels, which NEON decoding rejects")]
    TooDeep,
    /// A value that no NEON text decodes to (the message says which and why).
    #[error("{0}")]
    Unrepresentable(String),
    /// JSON that is not the canonical JSON of a NEON value (see [`super::from_json`]).
    #[error("{0}")]
    Json(String),
    /// A [`EncodeError::Json`] problem inside a collection: the path to it (keys and list
    /// indexes joined with ` › `, outermost first) and the problem.
    #[error("at {0}: {1}")]
    Within(String, Box<EncodeError>),
}

impl EncodeError {
    /// This error, found under `key` of a collection (see [`EncodeError::Within`]). Only JSON
    /// problems get a path: the others (depth, NaN) are about the whole value.
    pub(crate) fn within(self, key: &str) -> EncodeError {
        match self {
            EncodeError::Json(_) => EncodeError::Within(key.to_string(), Box::new(self)),
            EncodeError::Within(path, e) => {
                EncodeError::Within(format!("{key}\u{a0}›\u{a0}{path}"), e)
            }
            other => other,
        }
    }
}

/// Encodes `value` as NEON with `options`.
///
/// Block output ends with a line break; inline output is one line without one. Decoding the
/// result gives a value equal to `value` (keys in the same order, integers and floats apart).
///
/// Errors: see [`EncodeError`].
pub fn encode(value: &Value, options: &EncodeOptions) -> Result<String, EncodeError> {
    let indent = options.indent.as_str();
    if indent.is_empty() || !indent.bytes().all(|b| b == b' ' || b == b'\t') {
        return Err(EncodeError::BadIndent(indent.to_string()));
    }
    let mut e = Encoder {
        indent,
        out: String::new(),
    };
    match options.mode {
        // the decoder counts the document's block as the first level
        Mode::Inline => e.inline(value, 1)?,
        Mode::Block => {
            e.block_document(value)?;
        }
    }
    Ok(e.out)
}

/// [`encode`] in block mode, indented by tabs.
pub fn encode_block(value: &Value) -> Result<String, EncodeError> {
    encode(value, &EncodeOptions::block())
}

/// [`encode`] in inline mode.
pub fn encode_inline(value: &Value) -> Result<String, EncodeError> {
    encode(value, &EncodeOptions::inline())
}

struct Encoder<'a> {
    indent: &'a str,
    out: String,
}

impl Encoder<'_> {
    fn indent_to(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str(self.indent);
        }
    }

    // ---------------------------------------------------------------------------------- block

    fn block_document(&mut self, v: &Value) -> Result<(), EncodeError> {
        match &v.kind {
            Kind::Array(a) if !a.is_empty() => self.block_array(a, 0, 1),
            _ => {
                self.same_line(v, 0, 1)?;
                self.out.push('\n');
                Ok(())
            }
        }
    }

    /// The items of a non-empty collection, one per line at `level`: `- value` where the decoder
    /// assigns the key itself (every item of a list), `key: value` elsewhere. `depth` counts
    /// the blocks and brackets the decoder has open, this block included.
    fn block_array(&mut self, a: &Array, level: usize, depth: usize) -> Result<(), EncodeError> {
        if depth > MAX_DEPTH {
            return Err(EncodeError::TooDeep);
        }
        let mut next = NextIndex::default();
        for (k, v) in a.iter() {
            self.indent_to(level);
            let implicit = next.is_implicit(k);
            if let Kind::Array(child) = &v.kind {
                if !child.is_empty() {
                    if implicit {
                        self.out.push('-');
                    } else {
                        self.key(k);
                        self.out.push(':');
                    }
                    self.out.push('\n');
                    self.block_array(child, level + 1, depth + 1)?;
                    continue;
                }
            }
            let mark = self.out.len();
            // what follows `- ` on its line is a block of its own for the decoder, one level
            // more; at the limit write the key instead
            let bullet = if implicit {
                self.out.push_str("- ");
                match self.same_line(v, level, depth + 1) {
                    Err(EncodeError::TooDeep) => {
                        self.out.truncate(mark);
                        false
                    }
                    r => r.map(|()| true)?,
                }
            } else {
                false
            };
            if !bullet {
                self.key(k);
                self.out.push_str(": ");
                self.same_line(v, level, depth)?;
            }
            self.out.push('\n');
        }
        Ok(())
    }

    /// A value after `key: `, `- ` or alone on the top line: multi-line strings as blocks,
    /// anything else inline. `depth` as in [`Encoder::block_array`].
    fn same_line(&mut self, v: &Value, level: usize, depth: usize) -> Result<(), EncodeError> {
        if depth > MAX_DEPTH {
            return Err(EncodeError::TooDeep);
        }
        match &v.kind {
            Kind::Str(s) if s.contains('\n') => {
                self.multiline(s, level);
                Ok(())
            }
            _ => self.inline(v, depth),
        }
    }

    /// A `'''` block (or `"""` when the text needs escapes): content one level deeper than
    /// `level`, the closing delimiter at `level`.
    fn multiline(&mut self, s: &str, level: usize) {
        let raw = multiline_is_raw(s);
        let delim = if raw { "'''" } else { "\"\"\"" };
        self.out.push_str(delim);
        let mut first_content = true;
        for line in s.split('\n') {
            self.out.push('\n');
            if line.is_empty() {
                continue;
            }
            self.indent_to(level + 1);
            if raw {
                self.out.push_str(line);
            } else {
                escape_ml_line(&mut self.out, line, first_content);
            }
            first_content = false;
        }
        self.out.push('\n');
        self.indent_to(level);
        self.out.push_str(delim);
    }

    // --------------------------------------------------------------------------------- inline

    /// `v` on one line; `depth` counts the blocks and brackets the decoder has open around it.
    fn inline(&mut self, v: &Value, depth: usize) -> Result<(), EncodeError> {
        match &v.kind {
            Kind::Array(a) => {
                let list = a.is_list();
                let (open, close) = if list { ('[', ']') } else { ('{', '}') };
                self.out.push(open);
                self.inline_items(a, depth + 1)?;
                self.out.push(close);
                Ok(())
            }
            Kind::Entity(e) => self.entity(e, depth),
            Kind::Chain(links) => self.chain(links, depth),
            Kind::Str(s) => {
                self.string(s, false);
                Ok(())
            }
            scalar => {
                let text = scalar_literal(scalar)?;
                self.out.push_str(&text);
                Ok(())
            }
        }
    }

    /// The items of an inline collection (without brackets). Keys equal to the index the
    /// decoder would assign anyway are left out: `{0: a, b: 1}` is written `{a, b: 1}`.
    fn inline_items(&mut self, a: &Array, depth: usize) -> Result<(), EncodeError> {
        if depth > MAX_DEPTH {
            return Err(EncodeError::TooDeep);
        }
        let mut next = NextIndex::default();
        for (i, (k, v)) in a.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if !next.is_implicit(k) {
                self.key(k);
                self.out.push_str(": ");
            }
            self.inline(v, depth)?;
        }
        Ok(())
    }

    fn entity(&mut self, e: &Entity, depth: usize) -> Result<(), EncodeError> {
        if matches!(e.value.kind, Kind::Entity(_) | Kind::Chain(_)) {
            return Err(EncodeError::Unrepresentable(
                "an entity whose value is an entity cannot be written in NEON".into(),
            ));
        }
        self.inline(&e.value, depth)?;
        self.args(&e.attributes, depth)
    }

    fn args(&mut self, attributes: &Array, depth: usize) -> Result<(), EncodeError> {
        self.out.push('(');
        self.inline_items(attributes, depth + 1)?;
        self.out.push(')');
        Ok(())
    }

    /// `first(args)link(args)...`: every link after the first must be a plain literal.
    fn chain(&mut self, links: &[Entity], depth: usize) -> Result<(), EncodeError> {
        let Some((first, rest)) = links.split_first().filter(|(_, r)| !r.is_empty()) else {
            return Err(EncodeError::Unrepresentable(
                "a chain needs at least two links".into(),
            ));
        };
        self.entity(first, depth)?;
        for link in rest {
            let text = match &link.value.kind {
                // a link cannot be quoted: write it bare whenever it reads back the same,
                // even where a string would be quoted for older decoders (`nO`)
                Kind::Str(s) if reads_back_as_link(s) => s.to_string(),
                Kind::Str(s) => {
                    return Err(EncodeError::Unrepresentable(format!(
                        "the chain link '{s}' would need quotes, which a link cannot have"
                    )))
                }
                Kind::Array(_) | Kind::Entity(_) | Kind::Chain(_) => {
                    return Err(EncodeError::Unrepresentable(format!(
                        "a chain link must be a literal, not {}",
                        link.value.type_name()
                    )))
                }
                other => scalar_literal(other)?,
            };
            self.out.push_str(&text);
            self.args(&link.attributes, depth)?;
        }
        Ok(())
    }

    // -------------------------------------------------------------------------------- scalars

    fn key(&mut self, k: &Key) {
        match k {
            Key::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Key::Str(s) => self.string(s, true),
        }
    }

    /// A string on one line: bare when that reads back the same, else quoted.
    fn string(&mut self, s: &str, is_key: bool) {
        if is_bare(s, is_key) {
            self.out.push_str(s);
        } else {
            quoted(&mut self.out, s);
        }
    }
}

/// A string as one inline NEON value: bare when the decoder reads it back as the same string
/// (the encoder's rule, see the module docs), else quoted as [`quote_string`] does.
pub fn encode_string(s: &str) -> String {
    if is_bare(s, false) {
        s.to_string()
    } else {
        quote_string(s)
    }
}

/// A string always quoted, on one line: `'...'` (a `'` doubled), or `"..."` with escapes when it
/// holds control characters. For text where a bare word would mean something else (`@db` is a
/// reference in a statement, a quoted `'@db'` a string).
pub fn quote_string(s: &str) -> String {
    let mut out = String::new();
    quoted(&mut out, s);
    out
}

fn quoted(out: &mut String, s: &str) {
    if s.chars().any(needs_escape) {
        double_quoted(out, s);
    } else {
        out.push('\'');
        out.push_str(&s.replace('\'', "''"));
        out.push('\'');
    }
}

/// The index the decoder gives the next item without a key (`- x` in a block, `x` inline):
/// one more than the largest integer key so far, 0 while there is none or it is negative, and
/// none after `i64::MAX` (nette/neon 3.4 on PHP 8.2).
struct NextIndex(Option<i64>);

impl Default for NextIndex {
    fn default() -> NextIndex {
        NextIndex(Some(0))
    }
}

impl NextIndex {
    /// Is `k` the key the decoder would give an item without one? Moves past `k` either way.
    fn is_implicit(&mut self, k: &Key) -> bool {
        let Key::Int(n) = *k else {
            return false;
        };
        let implicit = self.0 == Some(n);
        if self.0.is_some_and(|x| n >= x) {
            self.0 = n.checked_add(1);
        }
        implicit
    }
}

/// The literal of a scalar other than a string.
fn scalar_literal(kind: &Kind) -> Result<String, EncodeError> {
    Ok(match kind {
        Kind::Null => "null".into(),
        Kind::Bool(true) => "true".into(),
        Kind::Bool(false) => "false".into(),
        Kind::Int(i) => i.to_string(),
        Kind::Float(f) if f.is_nan() => return Err(EncodeError::Nan),
        Kind::Float(f) if f.is_infinite() => {
            // the decoder reads an overflowing exponent as an infinity, like PHP
            if *f > 0.0 { "1e999" } else { "-1e999" }.into()
        }
        // `{:?}` is the shortest text that parses back exactly, always with `.` or `e`
        Kind::Float(f) => format!("{f:?}"),
        Kind::Date(d) => date_literal(d).ok_or_else(|| {
            EncodeError::Unrepresentable(format!(
                "'{d}' is not a date NEON can write (expected YYYY-MM-DDTHH:MM:SS[.ffffff]±HH:MM \
                 between the years 0 and 10000)"
            ))
        })?,
        Kind::Str(s) => {
            let mut out = String::new();
            double_quoted(&mut out, s);
            out
        }
        Kind::Array(_) | Kind::Entity(_) | Kind::Chain(_) => {
            return Err(EncodeError::Unrepresentable(
                "a collection is not a scalar".into(),
            ))
        }
    })
}

/// The literal of a normalised date: the date itself, or for the few dates the decoder's roll-over
/// reaches outside four-digit years, a literal that rolls over to it: `10000-01-01T00:mm:ss` is
/// `9999-12-31T24:mm:ss`, `10000-01-01T01:00:00` is `9999-12-31T24:59:60`, December of year -1
/// is month 0 of year 0 (`-0001-11-30` is `0000-00-00`). Every answer is checked by decoding.
fn date_literal(d: &str) -> Option<String> {
    let candidate = if let Some(rest) = d.strip_prefix("10000-01-01T") {
        match (rest.get(..2), rest.get(2..)) {
            (Some("00"), Some(time)) => format!("9999-12-31T24{time}"),
            (Some("01"), Some(time)) if time.starts_with(":00:00") => {
                format!("9999-12-31T24:59:60{}", &time[6..])
            }
            _ => return None,
        }
    } else if let Some(rest) = d.strip_prefix("-0001-12-") {
        format!("0000-00-{rest}")
    } else if let Some(rest) = d.strip_prefix("-0001-11-30") {
        format!("0000-00-00{rest}")
    } else {
        d.to_string()
    };
    matches!(date::parse(&candidate), Some(Ok(n)) if n == d).then_some(candidate)
}

/// Can `s` be written without quotes? It must lex as one literal token that types back to the
/// same string (as a key: keys are typed as numbers only), and not look like a number or a
/// keyword of any NEON version (older decoders read `on`, `off`, `Yes` as booleans) nor hold
/// control characters (legal in a literal, but invisible; they are written as escapes).
fn is_bare(s: &str, is_key: bool) -> bool {
    !s.is_empty()
        && !looks_reserved(s)
        && !s.chars().any(char::is_control)
        // a BOM that starts the document would be skipped
        && !s.starts_with('\u{feff}')
        && reads_back_bare(s, is_key)
}

/// Does `s`, written without quotes, decode to the string `s` (as a key with `is_key`)? It is
/// checked alone, which is safe wherever a bare literal may be followed by `,`, a closing
/// bracket, `: `, `(` or a line break: none of them continues a literal.
fn reads_back_bare(s: &str, is_key: bool) -> bool {
    lexes_as_one_literal(s, "") && types_as_itself(s, is_key)
}

/// Does `s` followed by `(` lex as the literal `s` and the `(`? A chain link is always followed
/// by its `(`, which lets a literal end in `:` (`+:(`).
fn reads_back_as_link(s: &str) -> bool {
    lexes_as_one_literal(s, "(") && types_as_itself(s, false)
}

fn types_as_itself(s: &str, is_key: bool) -> bool {
    matches!(scalar::type_literal(s, is_key), Ok(Kind::Str(t)) if t == s)
}

/// Does `s` + `next` lex as one literal that is exactly `s`, then the tokens of `next`?
fn lexes_as_one_literal(s: &str, next: &str) -> bool {
    // a CR would be deleted
    if s.is_empty() || s.contains('\r') {
        return false;
    }
    let simple = s.bytes().enumerate().all(|(i, b)| {
        b.is_ascii_alphabetic()
            || matches!(b, b'_' | b'\\' | b'@' | b'$' | b'%')
            || (i > 0 && (b.is_ascii_digit() || matches!(b, b'.' | b'/')))
    });
    if simple {
        return true;
    }
    let text = format!("{s}{next}");
    let (tokens, end) = lexer::tokenize(&text);
    end == text.len()
        && tokens.first().is_some_and(|t| {
            t.kind(&text) == Tok::Literal && t.start == 0 && t.end as usize == s.len()
        })
        && (next.is_empty() || tokens.len() == 2)
        && (!next.is_empty() || tokens.len() == 1)
}

/// Numbers (`^[+-.]?\d`) and keywords in any letter case, which nette/neon's encoder quotes too.
fn looks_reserved(s: &str) -> bool {
    let b = s.as_bytes();
    let digit_at = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    if digit_at(0) || (matches!(b[0], b'+' | b'-' | b'.') && digit_at(1)) {
        return true;
    }
    ["true", "false", "yes", "no", "on", "off", "null"]
        .iter()
        .any(|k| s.eq_ignore_ascii_case(k))
}

/// Characters written as escapes: control characters except tab.
fn needs_escape(c: char) -> bool {
    c.is_control() && c != '\t'
}

/// `"..."` with JSON-style escapes, on one line.
fn double_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            c => escape_char(out, c),
        }
    }
    out.push('"');
}

/// One character inside `"..."` or `"""`: control characters as escapes, others as they are.
fn escape_char(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        c if needs_escape(c) => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => out.push(c),
    }
}

/// Can a multi-line string be a raw `'''` block? Not when it holds control characters other
/// than tab and line break (a `\r` would be dropped), when a line starts with `'''` after
/// blanks (it would close the block), or when its first non-empty line starts with a blank
/// (the decoder takes that line's indentation as the block's).
fn multiline_is_raw(s: &str) -> bool {
    if s.chars().any(|c| c != '\n' && needs_escape(c)) {
        return false;
    }
    if s.split('\n')
        .any(|l| l.trim_start_matches([' ', '\t']).starts_with("'''"))
    {
        return false;
    }
    let first = s.split('\n').find(|l| !l.is_empty()).unwrap_or("");
    !first.starts_with([' ', '\t'])
}

/// One line of a `"""` block: backslashes and control characters escaped, a `"` that would
/// complete `"""` escaped, and on the first content line a leading blank escaped so that the
/// block's indentation is exactly the encoder's.
fn escape_ml_line(out: &mut String, line: &str, first_content: bool) {
    let mut quotes = 0;
    for (i, c) in line.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if quotes == 2 => out.push_str("\\\""),
            ' ' if i == 0 && first_content => out.push_str("\\u0020"),
            '\t' if i == 0 && first_content => out.push_str("\\t"),
            c => escape_char(out, c),
        }
        quotes = if c == '"' && quotes < 2 {
            quotes + 1
        } else {
            0
        };
    }
}

#[cfg(test)]
mod tests;
