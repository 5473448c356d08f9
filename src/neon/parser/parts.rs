//! A large block map parsed in parts, one per thread (issue #15).
//!
//! The big sections of a large configuration are block maps: `services:` of app-10000 is
//! 340 KB of `name: …` items, its `types:` 780 KB of `Class: …` items. Where such a block starts,
//! [`Parser::parse_block_in_parts`] looks through the text for lines that start an item of the
//! block (indented exactly as the block, a key first) near equal shares of it, and parses the
//! stretch before each such line, and the rest, each as a block of its own on its own thread.
//!
//! The parts are only kept when the whole parse would have given the same collection:
//! - every part but the last parses without error and ends exactly where the next part starts
//!   (so that line really starts an item: an open bracket or a nested block would have made
//!   the part fail or end elsewhere; each part but the last sees a text that ends where the
//!   next begins, so what it reads at its end, the next line's indentation included, is what
//!   the whole parse reads there);
//! - the last part parses without error (it ends where the whole block ends);
//! - every part is a map whose keys are strings (integer keys and list items depend on the
//!   items before them), and no key is in two parts (the duplicate is an error the whole parse
//!   reports at its place).
//!
//! Otherwise nothing is kept and the block is parsed whole, as always, errors included. The
//! collection's items are in source order and its span covers all parts, as the whole parse's.

use super::super::lexer::{Text, Tok};
use super::{Parser, Value};
use crate::neon::value::{Key, Kind};
use crate::source::Span;

/// Bytes of a block below which it is parsed whole: a thread costs some tens of
/// microseconds to start, and 64 KiB of a configuration take about half a millisecond to parse.
pub(crate) const PART_MIN: usize = 64 * 1024;

/// Parts per thread that may run: the threads claim parts as they finish one
/// ([`crate::parallel::claimed`]), so a thread slowed down (sharing its core) does fewer.
const PARTS_PER_LANE: usize = 4;

/// Stack each part may use before it fails with `NeedStack` (then the block is parsed whole,
/// where the decoder's usual stack handling applies).
const PART_STACK_BUDGET: usize = 64 * 1024;

/// Blocks at most this deep (the document is 1, a top-level section's value 2) are looked at:
/// those are the large ones, and looking costs a pass over the block's text.
const MAX_SPLIT_DEPTH: usize = 2;

/// When and how many ways a block is split.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Split {
    /// Bytes per part at least ([`PART_MIN`]).
    pub part_min: usize,
    /// Parts at most: the threads that may run at once; 0 for the machine's parallelism,
    /// asked only once a block is large enough (reading it costs a few system calls).
    pub lanes: usize,
    /// Split only while no other decode is running ([`crate::neon::decoding_alone`]); tests
    /// that run next to others turn it off.
    pub alone_only: bool,
}

impl Split {
    /// [`PART_MIN`] and the machine's parallelism (one core: no block is split).
    pub(crate) fn for_this_machine() -> Option<Split> {
        Some(Split {
            part_min: PART_MIN,
            lanes: 0,
            alone_only: true,
        })
    }
}

impl Parser<'_> {
    /// Parses the block at `indent` that starts at the current token in parts (see the module
    /// documentation) when it is large enough, the machine has more than one core and no other
    /// decode is running ([`crate::neon::decoding_alone`]); `None` leaves the block to the
    /// whole parse, with the position unchanged.
    pub(super) fn parse_block_in_parts(&mut self, indent: &str) -> Option<Value> {
        let split = self.split?;
        if self.depth > MAX_SPLIT_DEPTH || (split.alone_only && !crate::neon::decoding_alone()) {
            return None;
        }
        let lanes = match split.lanes {
            0 => crate::parallel::parallelism(),
            n => n,
        };
        if lanes < 2 {
            return None;
        }
        let (cuts, items) = self.part_cuts(indent, split.part_min, lanes * PARTS_PER_LANE)?;
        let (toks, text, file, depth, start) =
            (self.toks, self.text, self.file, self.depth, self.pos);
        // Each part but the last reads a text and tokens that end where the next part starts.
        let texts: Vec<Text<'_>> = cuts
            .iter()
            .map(|&q| text.prefix(toks[q].start as usize))
            .collect();
        let part = |from: usize, to: Option<usize>, text: &Text<'_>| {
            let toks = match to {
                Some(q) => &toks[..q],
                None => toks,
            };
            let mut p = Parser::new(text, toks, file, Some(PART_STACK_BUDGET));
            p.pos = from;
            p.depth = depth;
            p.split = None;
            let value = p.parse_block_items(indent, false).ok()?;
            // A part that stops before its end was not a run of whole items.
            if to.is_some_and(|q| p.pos != q) {
                return None;
            }
            Some((value, p.pos))
        };
        let mut joined = Joined::new(items);
        crate::parallel::claimed_each(
            "neon-parser",
            cuts.len() + 1,
            lanes - 1,
            |k| {
                let from = if k == 0 { start } else { cuts[k - 1] };
                part(from, cuts.get(k).copied(), texts.get(k).unwrap_or(text))
            },
            |part| joined.add(part),
        );
        let (value, end) = joined.finish(file)?;
        self.pos = end;
        Some(value)
    }

    /// The tokens where parts after the first start: for each further share of the block's
    /// text, the first line at or after it indented exactly by `indent` whose first token is a
    /// key (a string or literal followed by `:` or `=`). `None` when the block does not start
    /// a line, is smaller than two `part_min`, or has no such lines. Also how many lines of
    /// the block are indented as its items (at least its item count).
    fn part_cuts(&self, indent: &str, part_min: usize, most: usize) -> Option<(Vec<usize>, usize)> {
        let src = self.text.src.as_bytes();
        let first = *self.toks.get(self.pos)?;
        if self.pos > 0 && self.toks[self.pos - 1].kind(&self.text.src) != Tok::Newline {
            return None;
        }
        let from = first.start as usize;
        // Where the block ends at the latest: the first line (not blank, not a comment)
        // indented less; and the lines indented exactly as the block, not a list item.
        let mut end = src.len();
        let mut items: Vec<usize> = Vec::new();
        for nl in memchr::memchr_iter(b'\n', &src[from..]) {
            let line = from + nl + 1;
            let rest = &src[line..];
            let blanks = rest
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            match rest.get(blanks) {
                None | Some(b'\n' | b'#') => continue,
                Some(&b) => {
                    if blanks < indent.len() {
                        end = line;
                        break;
                    }
                    if &rest[..blanks] == indent.as_bytes() && b != b'-' {
                        items.push(line + blanks);
                    }
                }
            }
        }
        let by_size = (end - from) / part_min.max(1);
        if by_size < 2 {
            return None;
        }
        let parts = by_size.min(most);
        if parts < 2 {
            return None;
        }
        let mut cuts: Vec<usize> = Vec::new();
        for k in 1..parts {
            let share = from + (end - from) / parts * k;
            let at = items.partition_point(|&i| i < share);
            let Some(&offset) = items.get(at) else { break };
            let q = self.toks.partition_point(|t| (t.start as usize) < offset);
            let starts_item = self.toks.get(q).is_some_and(|t| {
                t.start as usize == offset
                    && matches!(t.kind(&self.text.src), Tok::Literal | Tok::String)
            }) && self.toks[q - 1].kind(&self.text.src) == Tok::Newline
                && self
                    .toks
                    .get(q + 1)
                    .is_some_and(|t| matches!(t.kind(&self.text.src), Tok::Char(b':' | b'=')));
            if starts_item && cuts.last().is_none_or(|&c| c < q) {
                cuts.push(q);
            }
        }
        (!cuts.is_empty()).then_some((cuts, items.len() + 1))
    }
}

/// The parts' maps joined into one as they come (in order), with the end of the last part;
/// `None` once a part failed or the parts cannot be joined without changing the result (see
/// the module documentation).
struct Joined {
    /// The map so far with the start and end of its span; `None` before the first part.
    all: Option<(Box<crate::neon::Array>, u32, u32)>,
    end: usize,
    failed: bool,
    /// Room to reserve for the whole map once the first part is there.
    room: usize,
}

impl Joined {
    /// Nothing joined yet; the whole map will have at most about `room` entries.
    fn new(room: usize) -> Joined {
        Joined {
            all: None,
            end: 0,
            failed: false,
            room,
        }
    }

    /// Adds the next part: its map's entries after those of the parts before, in order.
    fn add(&mut self, part: Option<(Value, usize)>) {
        if !self.failed {
            match self.joined_with(part) {
                Some(all) => self.all = Some(all),
                None => self.failed = true,
            }
        }
    }

    /// The map so far with `part`'s entries after its own; `None` when `part` failed or cannot
    /// be joined (integer keys, a key already there).
    fn joined_with(
        &mut self,
        part: Option<(Value, usize)>,
    ) -> Option<(Box<crate::neon::Array>, u32, u32)> {
        let (value, part_end) = part?;
        let Kind::Array(array) = value.kind else {
            return None;
        };
        if array.entries.keys().any(|k| matches!(k, Key::Int(_))) {
            return None;
        }
        let (s, e) = (value.span.start, value.span.end);
        self.end = part_end;
        let Some((mut all, s0, e0)) = self.all.take() else {
            let mut all = array;
            // The whole map's size once, not a growth (and copy) per part.
            let more = self.room.saturating_sub(all.entries.len());
            all.entries.reserve(more);
            return Some((all, s, e));
        };
        all.entries.reserve(array.entries.len());
        for (k, entry) in array.entries {
            // A key in two parts is an error the whole parse reports at its place.
            if all.entries.insert_full(k, entry).1.is_some() {
                return None;
            }
        }
        Some((all, s0.min(s), e0.max(e)))
    }

    /// The joined map and the end of the last part; `None` when a part failed.
    fn finish(self, file: crate::source::FileId) -> Option<(Value, usize)> {
        if self.failed {
            return None;
        }
        let (array, s, e) = self.all?;
        let span = Span::new(file, s as usize, e as usize);
        Some((Value::new(Kind::Array(array), span), self.end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neon::lexer::{tokenize, Text};
    use crate::source::FileId;

    /// `src` parsed whole and with every block at most [`MAX_SPLIT_DEPTH`] deep split into up to
    /// `lanes` parts of at least `part_min` bytes: both results written out (values with
    /// their spans in order, or the error and where it is).
    fn both(src: &str, part_min: usize, lanes: usize) -> (String, String) {
        let text = Text::new(src, 0);
        let (toks, _) = tokenize(&text.src);
        let run = |split: Option<Split>| {
            let mut p = Parser::new(&text, &toks, FileId(0), None);
            p.split = split;
            format!("{:?}", p.parse_document())
        };
        (
            run(None),
            run(Some(Split {
                part_min,
                lanes,
                alone_only: false,
            })),
        )
    }

    /// Calls [`Parser::parse_block_in_parts`] on the document block of `src`.
    fn in_parts(src: &str, lanes: usize) -> Option<(Value, usize, usize)> {
        let text = Text::new(src, 0);
        let (toks, _) = tokenize(&text.src);
        let mut p = Parser::new(&text, &toks, FileId(0), None);
        p.split = Some(Split {
            part_min: 1,
            lanes,
            alone_only: false,
        });
        p.depth = 1;
        let value = p.parse_block_in_parts("")?;
        Some((value, p.pos, toks.len()))
    }

    #[test]
    fn a_map_in_parts_is_the_map_parsed_whole() {
        let src = "a: 1\nb:\n\tx: [1,\n2]\n\ty: 2\n# c\nc: {k: v}\n\nd: '''\n\tz\n\t'''\ne: f(g)\n";
        let (value, end, len) = in_parts(src, 3).expect("split");
        assert_eq!(end, len);
        let Kind::Array(a) = &value.kind else {
            panic!("not a map: {value:?}")
        };
        let keys: Vec<String> = a.entries.keys().map(Key::as_string).collect();
        assert_eq!(keys, ["a", "b", "c", "d", "e"]);
        for lanes in 2..=5 {
            let (whole, split) = both(src, 1, lanes);
            assert_eq!(split, whole, "{lanes} lanes");
        }
        // bullets at a key's indentation are its value: the next key starts an item
        let bullets = "a:\n- 1\n- 2\nb: 3\nc: 4\n";
        let (value, _, _) = in_parts(bullets, 3).expect("split");
        assert_eq!(
            format!("{value:?}"),
            both(bullets, usize::MAX, 1)
                .0
                .trim_start_matches("Ok(")
                .trim_end_matches(')')
        );
    }

    #[test]
    fn parts_that_would_change_the_result_are_not_kept() {
        // the same key in two parts (the whole parse reports it), integer keys, a list, a
        // cut inside brackets, a line indented as long as the block but otherwise
        for src in [
            "a: 1\nb: 2\nc: 3\na: 4\n",
            "1: a\n2: b\n3: c\n",
            "a: 1\nb: 2\n- c\n",
            "a: [\nb: 1\n]\nc: 2\nd: 3\n",
            "x:\n\t a: 1\n \tb: 2\n",
        ] {
            assert!(in_parts(src, 4).is_none(), "{src:?} was split");
            for lanes in 2..=4 {
                let (whole, split) = both(src, 1, lanes);
                assert_eq!(split, whole, "{src:?}, {lanes} lanes");
            }
        }
    }

    #[test]
    fn small_blocks_and_one_lane_are_parsed_whole() {
        let src = "a: 1\nb: 2\n";
        let text = Text::new(src, 0);
        let (toks, _) = tokenize(&text.src);
        let mut p = Parser::new(&text, &toks, FileId(0), None);
        p.depth = 1;
        p.split = Some(Split {
            part_min: PART_MIN,
            lanes: 4,
            alone_only: false,
        });
        assert!(p.parse_block_in_parts("").is_none());
        p.split = Some(Split {
            part_min: 1,
            lanes: 1,
            alone_only: false,
        });
        assert!(p.parse_block_in_parts("").is_none());
        assert_eq!(p.pos, 0);
    }

    /// Every file of the NEON corpora (the conformance cases, errors included, the real
    /// configurations, app-10000) parses in parts exactly as whole.
    #[test]
    fn the_corpora_parse_in_parts_as_whole() {
        let mut checked = 0;
        for (_, folder, only) in crate::neon::token_digests::CORPORA {
            let Some(files) =
                crate::neon::token_digests::corpus_or_skip(folder, *only, "parts not compared")
            else {
                return;
            };
            for path in files {
                let bytes = std::fs::read(&path).expect("read");
                let Ok(src) = std::str::from_utf8(&bytes) else {
                    continue;
                };
                let src = src.strip_prefix('\u{feff}').unwrap_or(src);
                let part_min = if src.len() > 100_000 { 4096 } else { 1 };
                for lanes in [2, 3] {
                    let (whole, split) = both(src, part_min, lanes);
                    assert_eq!(split, whole, "{}, {lanes} lanes", path.display());
                }
                checked += 1;
            }
        }
        assert!(checked > 600, "only {checked} files compared");
    }

    proptest::proptest! {
        /// Texts of lines drawn from block-structure fragments (keys that repeat, brackets and
        /// multi-line strings across lines, bullets, mixed indentation, comments) parse in
        /// parts exactly as whole, and lex in lanes exactly as in one run.
        #[test]
        fn random_blocks_parse_in_parts_as_whole(
            lines in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["", "", "\t", "\t\t", "  ", " \t", "\t "]),
                    proptest::sample::select(vec![
                        "a: 1", "b:", "c: [", "]", "- x", "d: {k: v}", "e: f(", ")", "'''",
                        "q: '''", "# c", "", "a: 2", "1: z", "k = v", "x: y: z", "- k: v",
                        "g: h(1)i(2)", "n: -", "\"s\": 1", "t: `", "u: [1,", "2]", "v:",
                    ]),
                ),
                0..40,
            ),
            lanes in 2usize..5,
        ) {
            let src: String = lines
                .iter()
                .map(|(indent, line)| format!("{indent}{line}\n"))
                .collect();
            let (whole, split) = both(&src, 1, lanes);
            proptest::prop_assert_eq!(split, whole);
            let one = crate::neon::lexer::tokenize_in_lanes(&src, usize::MAX, 1);
            let many = crate::neon::lexer::tokenize_in_lanes(&src, 1, lanes);
            let spans = |t: &[crate::neon::lexer::Token]| {
                t.iter().map(|t| (t.start, t.end)).collect::<Vec<_>>()
            };
            proptest::prop_assert_eq!((spans(&many.0), many.1), (spans(&one.0), one.1));
        }
    }
}
