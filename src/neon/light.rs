//! A lighter decode for the commonest shape of a large generated file, a `types:` catalog:
//! block maps of `key: value` lines, block lists of `- value` lines, and inline `{…}` and
//! `[…]` collections (issue #15; docs/performance.md, "Thirty-fourth round").
//!
//! [`decode_light`] reads the tokens of the same lexer ([`super::lexer`]) with the structure
//! and the checks of [`super::parser`] for that subset, and builds [`Light`] nodes: each
//! collection one exactly sized slice of entries instead of a hashed map, scalars the very
//! [`Value`]s the parser makes (same kinds, same spans). Anything outside the subset (a `-`
//! item whose value is not on its line or is a `key: value`, an entity, `(`, a key that is no
//! plain string or number, a collection mixing keyed and unkeyed items, a `\r`, a byte-order
//! mark, deep nesting) and anything the parser would
//! report (a duplicated key, bad indentation, a bad escape) gives `None`, and the caller
//! decodes the text the usual way, which reports it. So for every text it accepts, the tree
//! is the one [`super::decode`] gives ([`Light::to_value`]; the tests compare both over the
//! NEON conformance inputs and generated catalogs, spans included).

use super::lexer::{line_indent, Tok, Token};
use super::parser::mismatch;
use super::scalar;
use super::value::{Array, Key, Kind, Value};
use crate::source::{FileId, Span};

/// A decoded node: a scalar as the parser makes it, or a collection.
#[derive(Debug, Clone)]
pub(crate) enum Light {
    /// Anything but a collection (never [`Kind::Array`]).
    Scalar(Value),
    /// A collection.
    Map(LightMap),
}

/// A collection: its entries in order, keys unique, and where it is written.
#[derive(Debug, Clone)]
pub(crate) struct LightMap {
    pub entries: Box<[LightEntry]>,
    pub span: Span,
}

/// One entry of a [`LightMap`].
#[derive(Debug, Clone)]
pub(crate) struct LightEntry {
    pub key: Key,
    /// Where the key is written (for an implicit index, the item's value).
    pub key_span: Span,
    pub value: Light,
}

impl Light {
    /// Where the node is written.
    pub fn span(&self) -> Span {
        match self {
            Light::Scalar(v) => v.span,
            Light::Map(m) => m.span,
        }
    }

    /// The node as [`super::decode`] gives it.
    pub fn to_value(&self) -> Value {
        match self {
            Light::Scalar(v) => v.clone(),
            Light::Map(m) => {
                let mut a = Array::new();
                for e in m.entries.iter() {
                    a.insert(e.key.clone(), e.key_span, e.value.to_value());
                }
                Value::new(Kind::Array(Box::new(a)), m.span)
            }
        }
    }
}

impl LightMap {
    /// The entry `key`, as [`Array::get`] finds it (`"5"` is the integer key 5), without
    /// making a key of it: a string key is never a canonical integer ([`Key::from_string`]),
    /// and an integer key is written only one way.
    pub fn get(&self, key: &str) -> Option<&LightEntry> {
        self.entries.iter().find(|e| match &e.key {
            Key::Str(s) => s.as_str() == key,
            Key::Int(i) => key.parse::<i64>().ok() == Some(*i) && i.to_string() == key,
        })
    }
}

/// Nesting the subset reads; deeper text is left to the parser (whose limit is far higher).
const MAX_LIGHT_DEPTH: usize = 32;

/// Collections up to this many entries find a duplicated key by comparing; larger ones hash.
const SMALL: usize = 8;

/// The tree of `text` (file `file`), when it lies in the subset this reader takes (see the
/// module's documentation); `None` otherwise, also for any text the parser would report.
#[cfg(test)]
pub(crate) fn decode_light(text: &str, file: FileId) -> Option<Light> {
    read(text, file, super::lexer::tokenize(text), 0, None).map(|(light, _)| light)
}

/// Where [`decode_light_streaming`] hands entries over, in batches, in order.
pub(crate) type Sink<'s> = &'s mut dyn FnMut(Vec<LightEntry>);

/// Entries of a streamed map handed over at once ([`decode_light_streaming`]).
pub(crate) const STREAM_BATCH: usize = 256;

/// [`decode_light`] that hands the entries of one map to `sink` as it reads them, in batches
/// of [`STREAM_BATCH`] (the last one smaller), instead of keeping them in the tree: the
/// entries of the first block map on the document's second level (the value of the first
/// key whose value is written as a block) when that map's first key is a string (a `types:`
/// file's classes, read into the catalog while the rest of the file is decoded:
/// docs/performance.md, "Thirty-fifth round"). That map is left empty in the tree; the count
/// gives how many entries it had (0: nothing was handed over, the tree is whole). On `None`
/// some batches may have been handed over already: they are not the document's, as the tree
/// is not. `expected`: about how many entries that map has (room is made for them; any count
/// works). The text is lexed on the calling thread alone, as the file decodes beside another.
pub(crate) fn decode_light_streaming(
    text: &str,
    file: FileId,
    expected: usize,
    sink: Sink<'_>,
) -> Option<(Light, usize)> {
    read(
        text,
        file,
        super::lexer::tokenize_in_lanes(text, super::lexer::PIECE, 1),
        expected,
        Some(sink),
    )
}

/// [`decode_light`] of the tokens `lexed` (`tokenize`'s result), with an optional sink.
fn read<'s>(
    text: &str,
    file: FileId,
    lexed: (Vec<Token>, usize),
    expected: usize,
    sink: Option<Sink<'s>>,
) -> Option<(Light, usize)> {
    if text.starts_with('\u{feff}') || text.contains('\r') {
        return None;
    }
    let (toks, end) = lexed;
    if end < text.len() {
        return None;
    }
    let mut p = Reader {
        src: text,
        toks: &toks,
        pos: 0,
        depth: 0,
        file,
        scratch: Vec::with_capacity(64),
        counted: 0,
        sink,
        streamed: 0,
        expected,
    };
    p.skip_newlines();
    let indent = p.indentation();
    let v = p.block(indent)?;
    p.skip_newlines();
    (p.pos == toks.len()).then_some((v, p.streamed))
}

struct Reader<'a, 's> {
    src: &'a str,
    toks: &'a [Token],
    pos: usize,
    depth: usize,
    file: FileId,
    /// The entries of the collections being read, innermost last.
    scratch: Vec<LightEntry>,
    /// Entries read since the memory ceiling was last looked at.
    counted: u32,
    /// Where the streamed map's entries go ([`decode_light_streaming`]); taken by the first
    /// block that may stream.
    sink: Option<Sink<'s>>,
    /// Entries handed to the sink.
    streamed: usize,
    /// About how many entries the streamed map has (room for its keys is made at once).
    expected: usize,
}

/// A collection being read: its entries are `scratch[start..]`.
struct Building<'s> {
    start: usize,
    span: Option<(u32, u32)>,
    /// The keys so far, once there are more than [`SMALL`].
    seen: Option<rustc_hash::FxHashSet<Key>>,
    /// Whether its items are bullets (`- value`).
    bullets: bool,
    /// Whether the last item's value ended the block (a dedent after `key:`).
    close: bool,
    /// Where its entries go as they are read, when it is the streamed map.
    sink: Option<Sink<'s>>,
    /// Entries handed to the sink so far (not in `scratch`).
    handed: usize,
}

impl Building<'_> {
    fn cover(&mut self, s: Span) {
        self.span = Some(match self.span {
            None => (s.start, s.end),
            Some((a, b)) => (a.min(s.start), b.max(s.end)),
        });
    }
}

impl<'a, 's> Reader<'a, 's> {
    fn kind(&self, i: usize) -> Option<Tok> {
        self.toks.get(i).map(|t| t.kind(self.src))
    }

    fn is_next(&self, k: Tok) -> bool {
        self.kind(self.pos) == Some(k)
    }

    fn text_of(&self, i: usize) -> &'a str {
        let t = self.toks[i];
        &self.src[t.start as usize..t.end as usize]
    }

    fn span_of(&self, from: usize, to: usize) -> Span {
        Span::new(self.file, from, to.max(from))
    }

    fn tok_span(&self, i: usize) -> Span {
        let t = self.toks[i];
        self.span_of(t.start as usize, t.end as usize)
    }

    fn after(&self, i: usize) -> Span {
        let at = self.toks[i].end as usize;
        self.span_of(at, at)
    }

    fn point(&self, i: usize) -> Span {
        let at = self
            .toks
            .get(i)
            .map_or(self.src.len(), |t| t.start as usize);
        self.span_of(at, at)
    }

    fn skip_newlines(&mut self) {
        while self.is_next(Tok::Newline) {
            self.pos += 1;
        }
    }

    fn indentation(&self) -> &'a str {
        let at = self
            .toks
            .get(self.pos)
            .map_or(self.src.len(), |t| t.start as usize);
        line_indent(self.src, at)
    }

    fn is_separator(&self) -> bool {
        matches!(self.kind(self.pos), Some(Tok::Char(b':' | b'=')))
    }

    fn begin(&self) -> Building<'s> {
        Building {
            start: self.scratch.len(),
            span: None,
            seen: None,
            bullets: false,
            close: false,
            sink: None,
            handed: 0,
        }
    }

    /// Adds an entry under an explicit key; `None` for a duplicated key (the parser's error).
    fn add(&mut self, b: &mut Building<'s>, key: Key, key_span: Span, value: Light) -> Option<()> {
        let count = self.scratch.len() - b.start;
        if count == 0 && b.handed == 0 && matches!(key, Key::Int(_)) {
            // A list, or a map with an integer key first: kept whole, for the caller's checks.
            b.sink = None;
        }
        match &mut b.seen {
            Some(seen) => {
                if !seen.insert(key.clone()) {
                    return None;
                }
            }
            None if count < SMALL => {
                if self.scratch[b.start..].iter().any(|e| e.key == key) {
                    return None;
                }
            }
            None => {
                // (The streamed map's keys are about as many as the caller expects entries.)
                let room = if b.sink.is_some() { self.expected } else { 0 };
                let mut seen = rustc_hash::FxHashSet::with_capacity_and_hasher(
                    room.max(2 * SMALL),
                    Default::default(),
                );
                seen.extend(self.scratch[b.start..].iter().map(|e| e.key.clone()));
                if !seen.insert(key.clone()) {
                    return None;
                }
                b.seen = Some(seen);
            }
        }
        self.counted += 1;
        if self.counted >= 4096 {
            self.counted = 0;
            if crate::memory::exceeded() {
                return None;
            }
        }
        b.cover(key_span);
        b.cover(value.span());
        self.scratch.push(LightEntry {
            key,
            key_span,
            value,
        });
        if b.sink.is_some() && self.scratch.len() - b.start >= STREAM_BATCH {
            self.hand_over(b);
        }
        Some(())
    }

    /// Hands the entries of `b` read so far to its sink, if it has one.
    fn hand_over(&mut self, b: &mut Building<'s>) {
        if let Some(sink) = &mut b.sink {
            let batch: Vec<LightEntry> = self.scratch.drain(b.start..).collect();
            b.handed += batch.len();
            self.streamed += batch.len();
            sink(batch);
        }
    }

    /// The number of items of `b` so far, handed over or not.
    fn items(&self, b: &Building<'s>) -> usize {
        self.scratch.len() - b.start + b.handed
    }

    fn finish(&mut self, mut b: Building<'s>) -> Light {
        if b.sink.is_some() && self.scratch.len() > b.start {
            self.hand_over(&mut b);
        }
        let (s, e) = b.span.unwrap_or((0, 0));
        let entries: Box<[LightEntry]> = self.scratch.drain(b.start..).collect();
        Light::Map(LightMap {
            entries,
            span: Span::new(self.file, s as usize, e as usize),
        })
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_LIGHT_DEPTH).then_some(())
    }

    /// A block of `key: value` items at the indentation `indent` (the parser's
    /// `parse_block_items` without bullets and lone values).
    fn block(&mut self, indent: &str) -> Option<Light> {
        self.enter()?;
        let mut b = self.begin();
        if self.depth == 2 {
            // the value of the document's first key that is a block: streamed, if any is
            b.sink = self.sink.take();
        }
        loop {
            if self.pos >= self.toks.len() {
                self.depth -= 1;
                return Some(if self.items(&b) == 0 && b.span.is_none() {
                    Light::Scalar(Value::new(Kind::Null, self.point(self.pos)))
                } else {
                    self.finish(b)
                });
            }
            if self.is_next(Tok::Char(b'-')) {
                self.bullet(&mut b)?;
            } else if b.bullets {
                return None;
            } else {
                self.keyed(&mut b, indent)?;
            }
            if b.close {
                self.depth -= 1;
                return Some(self.finish(b));
            }
            self.skip_newlines();
            if self.pos >= self.toks.len() {
                self.depth -= 1;
                return Some(self.finish(b));
            }
            let next = self.indentation();
            if mismatch(next, indent) || next.len() > indent.len() {
                return None;
            } else if next.len() < indent.len() {
                self.depth -= 1;
                return Some(self.finish(b));
            }
        }
    }

    /// A bullet item `- value` whose value is on its line and is no `key: value` (the
    /// parser's `dash_content` reads such a value alone, whatever the indentation after it):
    /// under the next implicit index. A block's items are all bullets or all keyed.
    fn bullet(&mut self, b: &mut Building<'s>) -> Option<()> {
        if self.items(b) > 0 && !b.bullets {
            return None;
        }
        b.bullets = true;
        let marker = self.pos;
        self.pos += 1;
        if self.pos >= self.toks.len() || self.is_next(Tok::Newline) {
            return None;
        }
        let value = self.value()?;
        if self.is_separator() || (self.pos < self.toks.len() && !self.is_next(Tok::Newline)) {
            return None;
        }
        let span = match value.span() {
            s if s.start == s.end => self.tok_span(marker),
            s => s,
        };
        b.cover(self.tok_span(marker));
        let index = i64::try_from(self.items(b)).ok()?;
        self.add(b, Key::Int(index), span, value)
    }

    /// A keyed item `key: value`, `key:` or `key:` and a deeper block.
    fn keyed(&mut self, b: &mut Building<'s>, indent: &str) -> Option<()> {
        let key_pos = self.pos;
        let key = self.key()?;
        let marker = self.pos;
        self.pos += 1;
        let key_span = self.tok_span(key_pos);
        let mut value = Light::Scalar(Value::new(Kind::Null, self.after(marker)));
        let mut close = false;
        if self.is_next(Tok::Newline) {
            self.skip_newlines();
            let next = self.indentation();
            if mismatch(next, indent) {
                return None;
            } else if next.len() > indent.len() {
                value = self.block(next)?;
            } else if next.len() < indent.len() {
                close = true;
            } else if self.is_next(Tok::Char(b'-')) {
                return None;
            }
        } else if self.pos < self.toks.len() {
            value = self.value()?;
            if self.pos < self.toks.len() && !self.is_next(Tok::Newline) {
                return None;
            }
        }
        self.add(b, key, key_span, value)?;
        b.close = close;
        Some(())
    }

    /// A key: a string or literal that makes a plain key, followed by `:` or `=` (not
    /// consumed). `None` for anything else.
    fn key(&mut self) -> Option<Key> {
        let i = self.pos;
        let kind = self.kind(i)?;
        self.pos += 1;
        if !self.is_separator() {
            return None;
        }
        match kind {
            Tok::String => {
                let s = scalar::decode_string(self.text_of(i)).ok()?;
                Some(Key::from_string(s))
            }
            Tok::Literal => match scalar::type_literal(self.text_of(i), true).ok()? {
                Kind::Str(s) => Some(Key::from_string(s)),
                Kind::Int(n) => Some(Key::Int(n)),
                _ => None,
            },
            _ => None,
        }
    }

    /// A value on the line of its key, or an item of an inline collection: a string, a
    /// literal, `{…}` or `[…]`, not followed by `(`.
    fn value(&mut self) -> Option<Light> {
        let i = self.pos;
        let v = match self.kind(i)? {
            Tok::String => {
                self.pos += 1;
                let s = scalar::decode_string(self.text_of(i)).ok()?;
                Light::Scalar(Value::new(Kind::Str(s.into()), self.tok_span(i)))
            }
            Tok::Literal => {
                self.pos += 1;
                let kind = scalar::type_literal(self.text_of(i), self.is_separator()).ok()?;
                Light::Scalar(Value::new(kind, self.tok_span(i)))
            }
            Tok::Char(b'{') => self.inline(b'}')?,
            Tok::Char(b'[') => self.inline(b']')?,
            _ => return None,
        };
        (!self.is_next(Tok::Char(b'('))).then_some(v)
    }

    /// `{…}` or `[…]` (the parser's `parse_braces_items`), whose items are all keyed or all
    /// unkeyed.
    fn inline(&mut self, close: u8) -> Option<Light> {
        self.enter()?;
        let open = self.pos;
        self.pos += 1;
        let mut b = self.begin();
        let mut keyed = None;
        let mut next_index = 0i64;
        loop {
            self.skip_newlines();
            if self.is_next(Tok::Char(close)) {
                let span = self.tok_span(open).to(self.tok_span(self.pos));
                self.pos += 1;
                self.depth -= 1;
                let mut map = self.finish(b);
                if let Light::Map(m) = &mut map {
                    m.span = span;
                }
                return Some(map);
            }
            let item_pos = self.pos;
            let has_key = matches!(self.kind(item_pos + 1), Some(Tok::Char(b':' | b'=')))
                && matches!(self.kind(item_pos), Some(Tok::String | Tok::Literal));
            if *keyed.get_or_insert(has_key) != has_key {
                return None;
            }
            if has_key {
                let key = self.key()?;
                let sep = self.pos;
                self.pos += 1;
                let item = if matches!(self.kind(self.pos), Some(Tok::Newline | Tok::Char(b',')))
                    || self.is_next(Tok::Char(close))
                {
                    Light::Scalar(Value::new(Kind::Null, self.after(sep)))
                } else {
                    self.value()?
                };
                self.add(&mut b, key, self.tok_span(item_pos), item)?;
            } else {
                let item = self.value()?;
                if self.is_separator() {
                    return None;
                }
                let span = item.span();
                self.add(&mut b, Key::Int(next_index), span, item)?;
                next_index += 1;
            }
            let old = self.pos;
            self.skip_newlines();
            if self.is_next(Tok::Char(b',')) {
                self.pos += 1;
            }
            if old == self.pos && !self.is_next(Tok::Char(close)) {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `light` is `value`, spans and key spans included (`Value`'s equality leaves
    /// spans out); the first difference otherwise.
    fn same(light: &Light, value: &Value, at: &str) -> Result<(), String> {
        if light.span() != value.span {
            return Err(format!(
                "{at}: span {:?} against {:?}",
                light.span(),
                value.span
            ));
        }
        match (light, &value.kind) {
            (Light::Scalar(v), _) if matches!(v.kind, Kind::Array(_)) => {
                Err(format!("{at}: a collection as a scalar"))
            }
            (Light::Scalar(v), _) if v == value => Ok(()),
            (Light::Map(m), Kind::Array(a)) if m.entries.len() == a.len() => {
                for (e, (k, ve)) in m.entries.iter().zip(a.entries.iter()) {
                    if e.key != *k || e.key_span != ve.key_span {
                        return Err(format!(
                            "{at}: key {:?} {:?} against {k:?} {:?}",
                            e.key, e.key_span, ve.key_span
                        ));
                    }
                    same(&e.value, &ve.value, &format!("{at} › {k}"))?;
                }
                Ok(())
            }
            _ => Err(format!("{at}: {light:?} against {value:?}")),
        }
    }

    /// Decodes `text` both ways: when the lighter decode takes it, the full decode gives the
    /// same tree. Whether it took it.
    fn check(name: &str, text: &str) -> bool {
        let Some(light) = decode_light(text, FileId(3)) else {
            return false;
        };
        let value = match super::super::decode(text, FileId(3)) {
            Ok(v) => v,
            Err(d) => panic!("{name}: the lighter decode took a text the parser rejects: {d:?}"),
        };
        if let Err(diff) = same(&light, &value, name) {
            panic!("{name}: {diff}");
        }
        assert!(light.to_value() == value, "{name}");
        check_streamed(name, text, &value);
        true
    }

    /// The streaming decode of a text the lighter decode takes: its batches, put back in the
    /// map it left empty, give the same tree.
    fn check_streamed(name: &str, text: &str, value: &Value) {
        let mut batches: Vec<Vec<LightEntry>> = Vec::new();
        let Some((mut light, streamed)) =
            decode_light_streaming(text, FileId(3), 0, &mut |b| batches.push(b))
        else {
            panic!("{name}: the streaming decode failed where the lighter one did not");
        };
        assert_eq!(
            batches.iter().map(Vec::len).sum::<usize>(),
            streamed,
            "{name}"
        );
        assert!(
            batches
                .iter()
                .all(|b| !b.is_empty() && b.len() <= STREAM_BATCH),
            "{name}"
        );
        if streamed > 0 {
            let Light::Map(root) = &mut light else {
                panic!("{name}: entries streamed from a scalar document");
            };
            let emptied = root
                .entries
                .iter_mut()
                .find_map(|e| match &mut e.value {
                    Light::Map(m) if m.entries.is_empty() => Some(m),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{name}: no map was left empty"));
            emptied.entries = batches.into_iter().flatten().collect();
        }
        if let Err(diff) = same(&light, value, name) {
            panic!("{name} (streamed): {diff}");
        }
    }

    #[test]
    fn a_streamed_map_goes_over_in_batches_and_a_late_failure_still_fails() {
        let entry = |i: usize| format!("\tApp\\C{i}:\n\t\tconstructor:\n\t\t\td: App\\C0\n");
        let mut text = String::from("types:\n");
        for i in 0..(2 * STREAM_BATCH + 10) {
            text.push_str(&entry(i));
        }
        let mut sizes = Vec::new();
        let (_, streamed) =
            decode_light_streaming(&text, FileId(3), 600, &mut |b| sizes.push(b.len()))
                .expect("plain");
        assert_eq!(sizes, [STREAM_BATCH, STREAM_BATCH, 10]);
        assert_eq!(streamed, 2 * STREAM_BATCH + 10);
        // A duplicated class after the first batches: `None`, as without streaming.
        text.push_str(&entry(7));
        let mut handed = 0;
        assert!(decode_light_streaming(&text, FileId(3), 1, &mut |b| handed += b.len()).is_none());
        assert!(decode_light(&text, FileId(3)).is_none());
        assert_eq!(handed, 2 * STREAM_BATCH);
        // A map whose first key is an integer (a list, for one) is kept whole.
        let list: String = (0..300).map(|i| format!("\t- App\\C{i}\n")).collect();
        let mut n = 0;
        let (light, streamed) =
            decode_light_streaming(&format!("types:\n{list}"), FileId(3), 300, &mut |b| {
                n += b.len()
            })
            .expect("plain");
        assert_eq!((streamed, n), (0, 0));
        let Light::Map(root) = light else {
            panic!("a map")
        };
        assert!(matches!(&root.entries[0].value, Light::Map(m) if m.entries.len() == 300));
    }

    #[test]
    fn a_generated_catalog_reads_as_the_parser_reads_it() {
        let mut text = String::from("types:\n");
        for i in 0..300usize {
            text.push_str(&format!(
                "\tApp\\S{i}:\n\t\textends: App\\S{}\n\t\timplements: [App\\I0, 'App\\I1']\n\t\tconstructor:\n\t\t\ta: {{type: int, default: {i}}}\n\t\t\tb: App\\S0\n\t\t\tc: {{type: '?string', default: null}}\n\t\t\td: {{type: array, default: [1, 2.5, x, \"y\", {{k: v}}]}}\n\n\t\tmethods:\n\t\t\tid: {{returns: string, params: {{}}}}\n\t\tasync: yes\n",
                i.saturating_sub(1)
            ));
        }
        assert!(check("generated", &text));
        // Spaces for indentation, a comment, a blank line at the end, keys given with `=`.
        assert!(check(
            "spaces",
            "# catalog\ntypes:\n    App\\A:\n        constructor:\n            x: int  # the x\n    App\\B= {}\n    7: {}\n\n"
        ));
        assert!(check("empty value", "types:\n\tApp\\A:\n\tApp\\B:\n"));
        assert!(check(
            "inline over lines",
            "types:\n\tApp\\A: {\n\t\tabstract: true,\n\t\tinterface: false\n\t}\n"
        ));
        assert!(check("trailing comma", "a: [1, 2,]\nb: {x: , y: 1}\n"));
        // Keys as the parser types them: `true`, `1.5`, `007` and `-3` too.
        assert!(check("keys", "true: 1\n007: 3\n-3: 4\n'5': 5\n"));
        // (A float key is left to the parser; either way the trees may not differ.)
        check("float key", "1.5: 2\n");
        assert!(check("blanks inside a literal", "a: 1 2\n"));
        // Block lists of values, as hand-written catalogs have them.
        assert!(check(
            "bullets",
            "types:\n\tApp\\A:\n\t\timplements:\n\t\t\t- App\\I\n\t\t\t- 'App\\J'\n\n\t\t\t- [x, {y: 1}]\n\tApp\\B: {}\n"
        ));
        assert!(check("a list", "types:\n\t- App\\A\n\t- 5\n"));
    }

    #[test]
    fn what_lies_outside_the_subset_or_fails_is_left_to_the_parser() {
        for (why, text) in [
            ("duplicated key", "types:\n\tApp\\A: {}\n\tApp\\A: {}\n"),
            ("duplicated key in a large map", &{
                let mut t = String::from("types:\n");
                for i in 0..20 {
                    t.push_str(&format!("\tApp\\C{i}: {{}}\n"));
                }
                t.push_str("\tApp\\C3: {}\n");
                t
            }),
            ("duplicated inline key", "a: {x: 1, x: 2}\n"),
            ("a bullet holding a map", "a:\n\t- k: 1\n"),
            ("a bullet over lines", "a:\n\t-\n\t\tk: 1\n"),
            ("bullets and keys in one block", "a:\n\t- 1\n\tb: 2\n"),
            ("keys and bullets in one block", "a:\n\tb: 2\n\t- 1\n"),
            ("a bullet in a bullet", "a:\n\t- - 1\n"),
            ("an empty bullet", "a:\n\t-\n\t- 1\n"),
            ("a list under a key", "a:\n- 1\n"),
            ("an entity", "a: Foo(1)\n"),
            ("an entity as a key", "a:\n\tFoo(1): 2\n"),
            ("bad indentation", "a:\n\t\tb: 1\n\tc: 2\n"),
            ("tabs and spaces", "a:\n\tb: 1\n    c: 2\n"),
            ("a carriage return", "a: 1\r\nb: 2\r\n"),
            ("a byte-order mark", "\u{feff}a: 1\n"),
            ("mixed inline items", "a: [1, k: 2]\n"),
            ("a lone value", "hello\n"),
            ("a bad escape", "a: \"\\q\"\n"),
            ("two values on a line", "a: [1] 2\n"),
            ("an unclosed bracket", "a: [1, 2\n"),
            ("a value after a key's block", "a: 1\n\tb: 2\n"),
        ] {
            assert!(decode_light(text, FileId(0)).is_none(), "{why}");
        }
    }

    /// Every input of the NEON conformance corpora that the lighter decode takes decodes to
    /// the same tree, spans included; and it takes a good share of them (the check is not
    /// empty).
    #[test]
    fn the_conformance_inputs_it_takes_read_as_the_parser_reads_them() {
        let mut taken = 0;
        let mut seen = 0;
        for folder in [
            "../shared/conformance/neon",
            "../shared/conformance/real-neon",
        ] {
            let Some(files) =
                super::super::token_digests::corpus_or_skip(folder, None, "light decode")
            else {
                return;
            };
            for file in files {
                let Ok(text) = std::fs::read_to_string(&file) else {
                    continue;
                };
                seen += 1;
                if check(&file.display().to_string(), &text) {
                    taken += 1;
                }
            }
        }
        assert!(seen > 600 && taken > 60, "taken {taken} of {seen}");
        // The benchmarks' catalogs, which the lighter decode exists for, are taken whole.
        for bench in ["app-1000", "app-10000"] {
            let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../shared/bench/{bench}/types.neon"));
            if let Ok(text) = std::fs::read_to_string(&file) {
                assert!(check(bench, &text), "{bench}'s types.neon is not taken");
            }
        }
    }
}
