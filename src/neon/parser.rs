//! Recursive descent over the token stream, building [`Value`]s with spans.
//!
//! The structure and the order of checks follow nette/neon 3.4 `Parser`, so that errors are
//! reported at the same token as the reference. White space and comments are not tokens (the
//! lexer skips them); the indentation of a line is the run of blanks in front of its first token,
//! read from the text. Depth is counted ([`MAX_DEPTH`]) so no input can exhaust the stack.

use super::errors::{ErrorKind, ParseError, MAX_DEPTH};
use super::lexer::{line_indent, Text, Tok, Token};
use super::scalar;
use super::value::{Array, Entity, Key, Kind, Value};
use crate::source::{FileId, Span};

mod collection;
mod parts;

use collection::{Builder, Item, Slot};

type PResult<T> = Result<T, ParseError>;

pub(crate) struct Parser<'a> {
    text: &'a Text<'a>,
    toks: &'a [Token],
    pos: usize,
    depth: usize,
    file: FileId,
    /// Where the stack was when parsing started.
    stack_base: usize,
    stack_budget: Option<usize>,
    /// The items of the collections under construction (see [`Builder`]).
    scratch: Vec<Item>,
    /// Items added to collections since the memory ceiling was last checked.
    unchecked: u32,
    /// How large blocks are parsed in parts on other threads ([`Parser::parse_block_in_parts`]);
    /// `None` for the parsers of those parts.
    split: Option<parts::Split>,
}

/// How many collection items the parser adds between two checks of the memory ceiling
/// ([`crate::memory::exceeded`]: a thread-local add and an atomic load). A 27 MB list of 9M
/// items reached 2.66 GB of heap before the first check after decoding; checked every 4,096
/// items, a decode overshoots the ceiling by at most the memory of that many items (and of a
/// collection's growth by doubling).
const MEMORY_CHECK_EVERY: u32 = 4096;

/// How many of the brackets around an error are asked whether they were left open
/// ([`Parser::left_open`]): each asking reads the tokens from the bracket to the error, so a
/// deeply nested input costs at most this many reads on its error path.
const BRACKETS_ASKED: u8 = 8;

/// How the block after `- ` with same-line content is indented (see [`Parser::dash_content`]).
enum DashIndent {
    /// Tab and two spaces give the same result.
    Either,
    /// Only two spaces can work.
    Spaces,
    /// The tab works at least up to the first following line, which starts at token `p`.
    Tab(usize),
}

impl<'a> Parser<'a> {
    /// A parser over `toks`. With a `stack_budget`, parsing stops with
    /// [`ErrorKind::NeedStack`] once it has used about that many bytes of the current thread's
    /// stack; without one only [`MAX_DEPTH`] limits the recursion.
    pub fn new(
        text: &'a Text<'a>,
        toks: &'a [Token],
        file: FileId,
        stack_budget: Option<usize>,
    ) -> Parser<'a> {
        Parser {
            text,
            toks,
            pos: 0,
            depth: 0,
            file,
            stack_base: stack_address(),
            stack_budget,
            scratch: Vec::with_capacity(64),
            unchecked: 0,
            split: parts::Split::for_this_machine(),
        }
    }

    // ------------------------------------------------------------------------------ token access

    fn tok_text(&self, i: usize) -> &'a str {
        let t = self.toks[i];
        &self.text.src[t.start as usize..t.end as usize]
    }

    fn span_of(&self, from: usize, to: usize) -> Span {
        Span::new(
            self.file,
            self.text.orig_start(from),
            self.text.orig_end(to).max(self.text.orig_start(from)),
        )
    }

    fn tok_span(&self, i: usize) -> Span {
        let t = self.toks[i];
        self.span_of(t.start as usize, t.end as usize)
    }

    /// An empty span where token `i` starts (or at the end of input).
    fn point(&self, i: usize) -> Span {
        let at = self
            .toks
            .get(i)
            .map_or(self.text.src.len(), |t| t.start as usize);
        self.span_of(at, at)
    }

    /// An empty span right after token `i`.
    fn after(&self, i: usize) -> Span {
        let at = self.toks[i].end as usize;
        self.span_of(at, at)
    }

    /// Is there a token left?
    fn has_next(&self) -> bool {
        self.pos < self.toks.len()
    }

    /// Is the next token accepted by `f`?
    fn is_next(&self, f: impl Fn(Tok) -> bool) -> bool {
        self.toks
            .get(self.pos)
            .is_some_and(|t| f(t.kind(&self.text.src)))
    }

    fn is_next_char(&self, c: u8) -> bool {
        self.is_next(|k| k == Tok::Char(c))
    }

    fn consume(&mut self, f: impl Fn(Tok) -> bool) -> Option<usize> {
        if self.is_next(f) {
            self.pos += 1;
            Some(self.pos - 1)
        } else {
            None
        }
    }

    fn consume_char(&mut self, c: u8) -> Option<usize> {
        self.consume(|k| k == Tok::Char(c))
    }

    fn consume_separator(&mut self) -> bool {
        self.consume(is_separator).is_some()
    }

    fn skip_newlines(&mut self) {
        while self.consume(|k| k == Tok::Newline).is_some() {}
    }

    /// The indentation of the current line: the blanks right before the current token, when
    /// they start the line.
    fn indentation(&self) -> &'a str {
        self.indentation_at(self.pos)
    }

    /// The indentation of the line whose first token is token `i` (`toks.len()`: the blanks at
    /// the end of the text).
    fn indentation_at(&self, i: usize) -> &'a str {
        let at = self
            .toks
            .get(i)
            .map_or(self.text.src.len(), |t| t.start as usize);
        line_indent(&self.text.src, at)
    }

    fn err<T>(&self, kind: ErrorKind) -> PResult<T> {
        Err(ParseError::new(self.pos, kind))
    }

    fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return self.err(ErrorKind::TooDeep);
        }
        if let Some(budget) = self.stack_budget {
            if stack_address().abs_diff(self.stack_base) > budget {
                return self.err(ErrorKind::NeedStack);
            }
        }
        self.depth += 1;
        Ok(())
    }

    // ------------------------------------------------------------------------------- document

    /// The whole document.
    pub fn parse_document(&mut self) -> PResult<Value> {
        self.skip_newlines();
        let indent = self.indentation();
        let v = self.parse_block(indent, false)?;
        self.skip_newlines();
        if self.has_next() {
            return self.err(ErrorKind::Unexpected);
        }
        Ok(v)
    }

    /// Counts one item added to a collection; every [`MEMORY_CHECK_EVERY`] items, fails with
    /// [`ErrorKind::MemoryLimit`] at token `at` (where the item's value or key starts) when the
    /// heap is past the memory ceiling (the `memory-limit` diagnostic of
    /// [`crate::memory::check`], positioned).
    fn count_item(&mut self, at: usize) -> PResult<()> {
        self.unchecked += 1;
        if self.unchecked < MEMORY_CHECK_EVERY {
            return Ok(());
        }
        self.unchecked = 0;
        if crate::memory::exceeded() {
            return Err(ParseError::new(at, ErrorKind::MemoryLimit));
        }
        Ok(())
    }

    // ---------------------------------------------------------------------------------- blocks

    fn parse_block(&mut self, indent: &str, only_bullets: bool) -> PResult<Value> {
        self.enter()?;
        let r = self.parse_block_items(indent, only_bullets);
        self.depth -= 1;
        r
    }

    /// A block: items at the indentation `indent`. Returns a collection, or the single value of
    /// a block without keys, or null for an empty block.
    fn parse_block_items(&mut self, indent: &str, only_bullets: bool) -> PResult<Value> {
        if !only_bullets {
            if let Some(value) = self.parse_block_in_parts(indent) {
                return Ok(value);
            }
        }
        let mut res = Builder::new(&self.scratch);
        loop {
            // one item: `- value` or `key: value` (or a lone value)
            let (key, marker) = if let Some(dash) = self.consume_char(b'-') {
                (None, dash)
            } else if !self.has_next() || only_bullets {
                return Ok(if res.is_empty(&self.scratch) {
                    Value::new(Kind::Null, self.point(self.pos))
                } else {
                    res.finish(&mut self.scratch, self.file)
                });
            } else {
                let key_pos = self.pos;
                let (value, simple) = self.parse_value()?;
                if self.consume_separator() {
                    let slot = self.claim_key(value, simple, key_pos, &mut res)?;
                    (Some(slot), self.pos - 1)
                } else {
                    if !res.is_empty(&self.scratch) {
                        return self.err(ErrorKind::Unexpected);
                    }
                    return Ok(value);
                }
            };

            let mut value = Value::new(Kind::Null, self.after(marker));
            let mut close = false;
            if self.consume(|k| k == Tok::Newline).is_some() {
                self.skip_newlines();
                let next = self.indentation();
                if mismatch(next, indent) {
                    return self.err(tabs_and_spaces(indent, next));
                } else if next.len() > indent.len() {
                    value = self.parse_block(next, false)?;
                } else if next.len() < indent.len() {
                    close = true;
                } else if key.is_some() && self.is_next_char(b'-') {
                    value = self.parse_block(indent, true)?;
                }
            } else if key.is_none() {
                value = self.dash_content(indent)?;
            } else if self.has_next() {
                value = self.parse_value()?.0;
                if self.has_next() && !self.is_next(|k| k == Tok::Newline) {
                    return self.err(ErrorKind::Unexpected);
                }
            }

            self.count_item(marker)?;
            match key {
                Some(slot) => res.fill(&mut self.scratch, slot, value),
                None => {
                    let s = if value.span.start == value.span.end {
                        self.tok_span(marker)
                    } else {
                        value.span
                    };
                    res.cover(self.tok_span(marker));
                    res.push(&mut self.scratch, s, value);
                }
            }
            if close {
                return Ok(res.finish(&mut self.scratch, self.file));
            }

            self.skip_newlines();
            if !self.has_next() {
                return Ok(res.finish(&mut self.scratch, self.file));
            }
            let next = self.indentation();
            if mismatch(next, indent) {
                return self.err(tabs_and_spaces(indent, next));
            } else if next.len() > indent.len() {
                return self.err(ErrorKind::BadIndentation);
            } else if next.len() < indent.len() {
                return Ok(res.finish(&mut self.scratch, self.file));
            }
        }
    }

    /// The content after `- ` on the same line: a block indented by the bullet's indentation
    /// plus one tab or, failing that, two spaces. The reference tries the tab and re-parses with
    /// spaces on any error; that is exponential for nested bullets, so the indentation of the
    /// first following line decides up front which attempts can differ.
    fn dash_content(&mut self, indent: &str) -> PResult<Value> {
        let (save, scratch_mark) = (self.pos, self.scratch.len());
        let with_tab = format!("{indent}\t");
        let with_spaces = format!("{indent}  ");
        match self.predict_dash_indent(indent) {
            DashIndent::Either => self.parse_block(&with_tab, false),
            DashIndent::Spaces => self.parse_block(&with_spaces, false),
            DashIndent::Tab(first_line) => match self.parse_block(&with_tab, false) {
                Err(e) if e.pos >= first_line && !matches!(e.kind, ErrorKind::NeedStack) => {
                    // failed after the indentation mattered: the reference retries with spaces
                    // (dropping the items of the collections the failed attempt left open)
                    self.pos = save;
                    self.scratch.truncate(scratch_mark);
                    self.parse_block(&with_spaces, false)
                }
                r => r,
            },
        }
    }

    /// Finds the first line break the block structure will see after the bullet's content
    /// (line breaks inside brackets belong to the brackets) and compares the next line's
    /// indentation with the bullet's.
    fn predict_dash_indent(&self, indent: &str) -> DashIndent {
        let mut i = self.pos;
        let mut depth = 0usize;
        while let Some(t) = self.toks.get(i) {
            match t.kind(&self.text.src) {
                Tok::Char(b'[' | b'{' | b'(') => depth += 1,
                Tok::Char(b']' | b'}' | b')') => depth = depth.saturating_sub(1),
                Tok::Newline if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        if i >= self.toks.len() {
            return DashIndent::Either;
        }
        // as `skip_newlines` would leave it
        while self
            .toks
            .get(i)
            .is_some_and(|t| t.kind(&self.text.src) == Tok::Newline)
        {
            i += 1;
        }
        let next = self.indentation_at(i);
        let (n, ind) = (next.as_bytes(), indent.as_bytes());
        if n.len() <= ind.len() || !n.starts_with(ind) {
            DashIndent::Either
        } else if n[ind.len()] == b'\t' {
            DashIndent::Tab(i)
        } else {
            DashIndent::Spaces
        }
    }

    // ---------------------------------------------------------------------------------- values

    /// A value: string, literal or inline collection, possibly followed by entity arguments.
    /// The flag says whether it is a plain string/literal (acceptable as a key).
    fn parse_value(&mut self) -> PResult<(Value, bool)> {
        let mut simple = true;
        let value = if let Some(i) = self.consume(|k| k == Tok::String) {
            let kind = match scalar::decode_string(self.tok_text(i)) {
                Ok(s) => Kind::Str(s.into()),
                Err(e) => return Err(ParseError::new(i, ErrorKind::Escape(e))),
            };
            Value::new(kind, self.tok_span(i))
        } else if let Some(i) = self.consume(|k| k == Tok::Literal) {
            let is_key = self.is_next(is_separator);
            let kind = match scalar::type_literal(self.tok_text(i), is_key) {
                Ok(k) => k,
                Err(m) => return Err(ParseError::new(i, ErrorKind::Message(m))),
            };
            Value::new(kind, self.tok_span(i))
        } else if self.is_next(is_opener) {
            simple = false;
            self.parse_braces()?.0
        } else {
            return self.err(ErrorKind::Unexpected);
        };
        if !self.is_next_char(b'(') {
            return Ok((value, simple));
        }
        Ok((self.parse_entity(value)?, false))
    }

    /// `value(args)` and chains `value(args)link(args)link`.
    fn parse_entity(&mut self, value: Value) -> PResult<Value> {
        let (attributes, end) = self.parse_braces()?;
        let first_start = value.span;
        let mut links = vec![Entity {
            value,
            attributes: into_array(attributes),
        }];
        let mut last_end = end;
        // Every further link nests the previous ones (a chain is a call on the result of the
        // links before it), so it counts as one level towards MAX_DEPTH.
        let entered_before = self.depth;
        let r = self.parse_chain_links(&mut links, &mut last_end);
        self.depth = entered_before;
        r.map_err(|mut e| {
            // Too deep inside a chain: its links are part of the depth (ChainTooDeep says so).
            if matches!(e.kind, ErrorKind::TooDeep) {
                e.kind = ErrorKind::ChainTooDeep;
            }
            e
        })?;
        let span = first_start.to(last_end);
        Ok(if links.len() == 1 {
            let e = links.pop().map(Box::new);
            match e {
                Some(e) => Value::new(Kind::Entity(e), span),
                None => Value::new(Kind::Null, span),
            }
        } else {
            Value::new(Kind::Chain(links), span)
        })
    }

    /// The links after a chain's first entity: `link(args)link(args)link`.
    fn parse_chain_links(&mut self, links: &mut Vec<Entity>, last_end: &mut Span) -> PResult<()> {
        while let Some(i) = self.consume(|k| k == Tok::Literal) {
            self.enter()?;
            let kind = match scalar::type_literal(self.tok_text(i), false) {
                Ok(k) => k,
                Err(m) => return Err(ParseError::new(i, ErrorKind::Message(m))),
            };
            let link_value = Value::new(kind, self.tok_span(i));
            *last_end = link_value.span;
            if self.is_next_char(b'(') {
                let (attributes, end) = self.parse_braces()?;
                *last_end = end;
                links.push(Entity {
                    value: link_value,
                    attributes: into_array(attributes),
                });
            } else {
                links.push(Entity {
                    value: link_value,
                    attributes: Array::new(),
                });
                break;
            }
        }
        Ok(())
    }

    /// Whether the bracket at token `open` looks left unclosed at token `at` (where an error
    /// was found inside it): some line between them starts no deeper than the bracket's own
    /// line, as the configuration's next entries do, where the items of a bracket spread over
    /// lines are indented deeper. Asked of the innermost brackets around an error, up to
    /// [`BRACKETS_ASKED`] of them (each asking reads the tokens up to the error once).
    fn left_open(&self, open: usize, at: usize) -> bool {
        let src: &str = &self.text.src;
        let indent_of = |t: usize| line_indent(src, self.toks[t].start as usize).len();
        let line_first = (0..open)
            .rev()
            .find(|&i| self.toks[i].kind(src) == Tok::Newline)
            .map_or(0, |nl| nl + 1);
        let own = indent_of(line_first);
        let end = at.min(self.toks.len());
        (open + 1..end).any(|i| {
            self.toks[i - 1].kind(src) == Tok::Newline
                && self.toks[i].kind(src) != Tok::Newline
                && indent_of(i) <= own
        })
    }

    /// `[...]`, `{...}` or `(...)`; returns the collection and the span of the closer.
    fn parse_braces(&mut self) -> PResult<(Value, Span)> {
        self.enter()?;
        let open = self.pos;
        let mut r = self.parse_braces_items();
        self.depth -= 1;
        if let Err(e) = &mut r {
            // The input ended inside this bracket (the innermost one sets it).
            if e.opened.is_none()
                && matches!(e.kind, ErrorKind::Unexpected)
                && self.toks.get(e.pos).is_none()
            {
                e.opened = Some(open);
            } else if e.open_before.is_none()
                && e.opened.is_none()
                && e.brackets_asked < BRACKETS_ASKED
            {
                e.brackets_asked += 1;
                if self.left_open(open, e.pos) {
                    e.open_before = Some(open);
                }
            }
        }
        r
    }

    fn parse_braces_items(&mut self) -> PResult<(Value, Span)> {
        let open = self.pos;
        self.pos += 1;
        let end_brace = match self.tok_text(open).as_bytes()[0] {
            b'[' => b']',
            b'{' => b'}',
            _ => b')',
        };
        let mut res = Builder::new(&self.scratch);
        loop {
            self.skip_newlines();
            if let Some(close) = self.consume_char(end_brace) {
                let span = self.tok_span(open).to(self.tok_span(close));
                let mut v = res.finish(&mut self.scratch, self.file);
                v.span = span;
                return Ok((v, self.tok_span(close)));
            }
            let key_pos = self.pos;
            let (value, simple) = self.parse_value()?;
            if self.consume_separator() {
                let slot = self.claim_key(value, simple, key_pos, &mut res)?;
                let sep = self.pos - 1;
                let item = if self.is_next(|k| {
                    k == Tok::Newline || k == Tok::Char(b',') || k == Tok::Char(end_brace)
                }) {
                    Value::new(Kind::Null, self.after(sep))
                } else {
                    self.parse_value()?.0
                };
                res.fill(&mut self.scratch, slot, item);
            } else {
                let s = value.span;
                res.push(&mut self.scratch, s, value);
            }
            self.count_item(key_pos)?;

            let old = self.pos;
            self.skip_newlines();
            self.consume_char(b',');
            if old == self.pos && !self.is_next_char(end_brace) {
                return self.err(ErrorKind::Unexpected);
            }
        }
    }

    /// Checks a key (reference `checkArrayKey`), converts it as PHP converts array keys and
    /// takes its place in `res` ([`Builder::claim`]); the value comes with [`Builder::fill`].
    /// The key's string moves into the [`Key`].
    fn claim_key(
        &mut self,
        key: Value,
        simple: bool,
        at: usize,
        res: &mut Builder,
    ) -> PResult<Slot> {
        // `at`: the key's first token (its position in error messages)
        let k = match (key.kind, simple) {
            (Kind::Str(s), true) => Key::from_string(s),
            (Kind::Int(i), true) => Key::Int(i),
            (Kind::Float(f), true) => Key::from_string(scalar::php_float_to_string(f)),
            (Kind::Bool(b), true) => Key::from_string(if b { "1".into() } else { String::new() }),
            _ => return Err(ParseError::new(at, ErrorKind::UnacceptableKey)),
        };
        res.claim(&mut self.scratch, k, key.span)
            .map_err(|(k, first)| {
                ParseError::new(at, ErrorKind::DuplicatedKey(k.as_string(), first))
            })
    }
}

fn is_separator(k: Tok) -> bool {
    k == Tok::Char(b':') || k == Tok::Char(b'=')
}

fn is_opener(k: Tok) -> bool {
    matches!(k, Tok::Char(b'[' | b'{' | b'('))
}

/// The address of a local: how deep the stack is (only differences are used).
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

fn tabs_and_spaces(block: &str, line: &str) -> ErrorKind {
    ErrorKind::TabsAndSpaces {
        block: block.to_string(),
        line: line.to_string(),
    }
}

/// Do two indentation strings differ within their common length?
pub(super) fn mismatch(a: &str, b: &str) -> bool {
    let n = a.len().min(b.len());
    a.as_bytes()[..n] != b.as_bytes()[..n]
}

fn into_array(v: Value) -> Array {
    match v.kind {
        Kind::Array(a) => *a,
        _ => Array::new(),
    }
}
