//! Tokenising: `grammar/neon.pest` splits the text into a flat token stream.
//!
//! Before lexing every `\r` is removed (nette/neon does the same), so a CRLF is an ordinary line
//! break and a lone CR joins two lines. [`Text`] keeps the stripped text together with a map back
//! to offsets in the original text, so spans always point into the text the caller registered.

use pest::Parser as _;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "grammar/neon.pest"]
struct NeonLexer;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A quoted string (any of the four forms).
    String,
    /// An unquoted literal.
    Literal,
    /// One of `, : = [ ] { } ( ) -`.
    Char(u8),
    /// One or more line breaks.
    Newline,
}

/// One token: its byte range in the stripped text (8 bytes: a large file has about one token
/// per 4 bytes; spans are `u32` offsets everywhere, see [`crate::source::Span`]). Its kind is
/// not stored: the grammar makes it a function of the token's first byte and length, see
/// [`Token::kind`].
/// White space and comments are not tokens: they only separate tokens, and the indentation of
/// a line is read from the text (see [`line_indent`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token {
    pub start: u32,
    pub end: u32,
}

impl Token {
    /// What the token is, read from its text in `src` (the stripped text it was lexed from).
    /// The grammar's first characters decide it: a line break starts only a run of line
    /// breaks, a quote only a string; a punctuation token is one byte, and a literal that
    /// starts with `:` or `-` has at least two (no other literal starts with a punctuation
    /// character). Only the first byte and the length are read (the parser asks several
    /// times per token).
    #[inline(always)]
    pub fn kind(self, src: &str) -> Tok {
        match src.as_bytes()[self.start as usize] {
            b'\n' => Tok::Newline,
            b'\'' | b'"' => Tok::String,
            c @ (b',' | b'-' | b'[' | b']' | b'(' | b')' | b'{' | b'}' | b'=' | b':')
                if self.end - self.start == 1 =>
            {
                Tok::Char(c)
            }
            _ => Tok::Literal,
        }
    }
}

/// The text being decoded, without `\r`, plus the way back to original offsets.
pub(crate) struct Text<'a> {
    /// The stripped text.
    pub src: std::borrow::Cow<'a, str>,
    /// Offset of the stripped text's first byte in the registered file (a skipped BOM).
    base: usize,
    /// For every removed `\r`: the offset in the stripped text where it was removed.
    removed: Vec<usize>,
}

impl<'a> Text<'a> {
    /// Strips `\r` from `text`, which starts at byte `base` of the registered file.
    pub fn new(text: &'a str, base: usize) -> Text<'a> {
        if !text.contains('\r') {
            return Text {
                src: std::borrow::Cow::Borrowed(text),
                base,
                removed: Vec::new(),
            };
        }
        let mut out = String::with_capacity(text.len());
        let mut removed = Vec::new();
        let mut last = 0;
        for (i, _) in text.match_indices('\r') {
            out.push_str(&text[last..i]);
            removed.push(out.len());
            last = i + 1;
        }
        out.push_str(&text[last..]);
        Text {
            src: std::borrow::Cow::Owned(out),
            base,
            removed,
        }
    }

    /// The first `len` bytes of the text (`len` at a character boundary), with the same way
    /// back to original offsets.
    pub fn prefix(&self, len: usize) -> Text<'_> {
        let removed = self.removed.partition_point(|&r| r <= len);
        Text {
            src: std::borrow::Cow::Borrowed(&self.src[..len]),
            base: self.base,
            removed: self.removed[..removed].to_vec(),
        }
    }

    /// The original offset of a position that starts something (a removed `\r` right before
    /// it is skipped over).
    pub fn orig_start(&self, pos: usize) -> usize {
        self.base + pos + self.removed.partition_point(|&r| r <= pos)
    }

    /// The original offset of a position that ends something.
    pub fn orig_end(&self, pos: usize) -> usize {
        self.base + pos + self.removed.partition_point(|&r| r < pos)
    }
}

/// Bytes lexed by one pest run when the text can be cut at line starts (see [`tokenize`]).
///
/// pest's token queue for a piece (two 40-byte entries per token, about one token per 4
/// bytes) grows by doubling and is freed when the piece is done: 8 KiB pieces keep it near
/// 160 KB, small enough that the allocator reuses the same blocks piece after piece. With
/// 64 KiB pieces every piece's queue (about 1.3 MB) came from fresh pages: a third of the
/// page faults of an app-10000 compile (28,600 → 16,900). Smaller pieces cost more pest
/// set-ups (4 KiB: 0.7 % more instructions); 8 KiB costs none measurable.
pub(crate) const PIECE: usize = 8 * 1024;

/// Splits `src` into tokens; returns them and the offset where lexing stopped (`src.len()`
/// unless some text matches no token; blanks and comments before that point are skipped).
///
/// pest keeps a queue entry for the start and the end of every pair until the parse is over,
/// so the text is lexed in pieces of about [`PIECE`] bytes, each starting at a line start.
/// That gives the same tokens as one run (checked on every conformance file with a cut at
/// every allowed line start, `src/neon/token_digests.rs`), because no token spans a line
/// break except a run of line breaks (pieces never start inside one) and a multi-line string
/// (no cut falls between a text's first `'''` or `"""` and its last), a piece starts after a
/// line break, where no quote context is open, and the last line of a piece ends with its
/// line break, so no look-ahead sees the piece's end.
///
/// A text of at least two [`LANE_MIN`] is lexed in lanes on several threads at once (see
/// [`tokenize_in_lanes`]) when no other decode is running ([`super::decoding_alone`]); the
/// tokens are the same.
pub(crate) fn tokenize(src: &str) -> (Vec<Token>, usize) {
    let by_size = src.len() / LANE_MIN;
    // (the machine's parallelism is asked only for texts large enough)
    let lanes = match by_size >= 2 && super::decoding_alone() {
        true => by_size.min(crate::parallel::parallelism()),
        false => 1,
    };
    tokenize_in_lanes(src, PIECE, lanes)
}

/// Stretches of text per lane: the threads claim stretches as they finish one
/// ([`crate::parallel::claimed`]), so a thread that shares its core with another decode lexes
/// fewer of them. With one stretch per lane, app-10000's `types.neon` waited 3–7 ms for its
/// second lane while a core idled (`perf record -a`: the lane and the loader's own decode took
/// turns on one core).
const STRETCHES_PER_LANE: usize = 4;

/// Bytes of text per lane at least: below two of them a text is lexed on the calling thread
/// alone. A thread costs some tens of microseconds to start; 64 KiB take about 0.5 ms to lex.
/// Lanes of 32 KiB, which give app-1000's 73 KB `types.neon` two, measured 1.015–1.018 of
/// this (`benches/paired.py`, both builds run as copies: docs/performance.md, "Twenty-fourth
/// round").
pub(crate) const LANE_MIN: usize = 64 * 1024;

/// [`tokenize`] with pieces of at least `piece` bytes (1: a cut at every allowed line start;
/// `usize::MAX`: one run), on one thread.
#[cfg(test)]
pub(crate) fn tokenize_in_pieces(src: &str, piece: usize) -> (Vec<Token>, usize) {
    tokenize_in_lanes(src, piece, 1)
}

/// [`tokenize_in_pieces`] with the text split into [`STRETCHES_PER_LANE`] stretches per lane
/// of about equal size, each cut where a piece may start, lexed by the calling thread and
/// `lanes - 1` helper threads, each claiming the next stretch nobody has claimed. Since a cut
/// at any allowed line start gives the tokens of one run (see [`tokenize`]), the stretches'
/// tokens put one after the other are the tokens of the whole text. Where one stretch stops
/// early, lexing stops there and the later stretches' tokens are dropped, as one run would
/// never have reached them. A thread that cannot be started leaves its stretches to the
/// others.
pub(crate) fn tokenize_in_lanes(src: &str, piece: usize, lanes: usize) -> (Vec<Token>, usize) {
    let bytes = src.as_bytes();
    let multi_line = triple_quote_range(bytes);
    let mut bounds = vec![0];
    // Several stretches per lane, claimed by the threads as they finish one.
    let stretches = match lanes {
        0 | 1 => 1,
        n => n * STRETCHES_PER_LANE,
    };
    for lane in 1..stretches {
        let from = (src.len() / stretches * lane).max(*bounds.last().unwrap_or(&0));
        let cut = next_cut(bytes, from, multi_line);
        if cut < src.len() && cut > *bounds.last().unwrap_or(&0) {
            bounds.push(cut);
        }
    }
    bounds.push(src.len());
    let lane = |from: usize, to: usize| {
        // DI configurations have about one token per 4 bytes: reserve enough for one
        // allocation. The first lane's vector takes the others' tokens, so it gets room for
        // all of them (no reallocation of the largest vector with its copy).
        let bytes = if from == 0 { src.len() } else { to - from };
        let mut tokens = Vec::with_capacity(bytes / 3 + 1);
        let end = lex_lane(src, from, to, piece, multi_line, &mut tokens);
        (tokens, end)
    };
    if bounds.len() == 2 {
        return lane(0, src.len());
    }
    let mut done = crate::parallel::claimed("neon-lexer", bounds.len() - 1, lanes - 1, |k| {
        lane(bounds[k], bounds[k + 1])
    })
    .into_iter();
    let (mut tokens, mut end) = done.next().expect("one stretch at least");
    for (k, (more, more_end)) in done.enumerate() {
        if end < bounds[k + 1] {
            // An earlier lane stopped: one run would have stopped there too.
            break;
        }
        tokens.extend_from_slice(&more);
        end = more_end;
    }
    (tokens, end)
}

/// Lexes `src[from..to]` (`from` and `to` are allowed cuts, or the text's ends) in pieces of
/// at least `piece` bytes, appending the tokens; returns where lexing stopped (`to` unless
/// some text matches no token).
fn lex_lane(
    src: &str,
    from: usize,
    to: usize,
    piece: usize,
    multi_line: Option<(usize, usize)>,
    tokens: &mut Vec<Token>,
) -> usize {
    let bytes = &src.as_bytes()[..to];
    let mut at = from;
    loop {
        let cut = next_cut(bytes, at.saturating_add(piece), multi_line);
        let end = lex(&src[at..cut], at, tokens);
        if end < cut || cut == to {
            return end;
        }
        at = cut;
    }
}

/// The first line start at or after `from` (at least one byte past a line break at or after
/// `from`) where lexing may restart: not inside a run of line breaks and not inside
/// `multi_line` (the text from the first triple quote to the end of the last, where a
/// multi-line string may be open); `bytes.len()` when there is none.
fn next_cut(bytes: &[u8], mut from: usize, multi_line: Option<(usize, usize)>) -> usize {
    while let Some(p) = bytes
        .get(from..)
        .and_then(|rest| memchr::memchr(b'\n', rest))
    {
        let after = from + p + 1;
        if let Some((first, last_end)) = multi_line {
            if first < after && after < last_end {
                from = last_end;
                continue;
            }
        }
        if bytes.get(after).is_some_and(|&b| b != b'\n') {
            return after;
        }
        from = after;
    }
    bytes.len()
}

/// From the first `'''` or `"""` of `bytes` to the end of the last one (where a multi-line
/// string may start or end), if there is one. Quotes inside comments or other strings count
/// too: that only keeps a longer stretch in one run.
fn triple_quote_range(b: &[u8]) -> Option<(usize, usize)> {
    let is_triple = |i: usize| b.get(i + 1) == Some(&b[i]) && b.get(i + 2) == Some(&b[i]);
    let first = memchr::memchr2_iter(b'\'', b'"', b).find(|&i| is_triple(i))?;
    let last = memchr::memchr2_iter(b'\'', b'"', b)
        .rev()
        .find(|&i| is_triple(i))?;
    Some((first, last + 3))
}

/// Lexes `piece`, which starts at byte `base` of the text, appending its tokens; returns the
/// offset (in the text) where lexing stopped.
fn lex(piece: &str, base: usize, tokens: &mut Vec<Token>) -> usize {
    let pairs = match NeonLexer::parse(Rule::tokens, piece) {
        Ok(p) => p,
        // The token rule only repeats optional parts, so it cannot fail; be safe anyway.
        Err(_) => return base,
    };
    let bytes = piece.as_bytes();
    let mut end = base + piece.len();
    // Below the `tokens` pair, pairs never nest (every token rule is atomic), so the queue
    // alternates between the start and the end of one pair; reading it as such avoids building
    // a `Pair` per token. Between two pairs lie the silent tokens and blanks.
    let mut from = 0;
    let mut gap_from = 0;
    for token in pairs.tokens() {
        let (rule, to) = match token {
            pest::Token::Start { pos, .. } => {
                from = pos.pos();
                silent_tokens(&bytes[gap_from..from], base + gap_from, tokens);
                continue;
            }
            pest::Token::End { rule, pos } => (rule, pos.pos()),
        };
        match rule {
            Rule::line => split_line(&bytes[from..to], base + from, tokens),
            Rule::token | Rule::string | Rule::after_quote => {
                // Sources are at most 4 GiB (spans are u32 offsets).
                tokens.push(Token {
                    start: (base + from) as u32,
                    end: (base + to) as u32,
                });
            }
            Rule::stop => end = base + from,
            // `tokens` around them all (its end is the piece's end, after `stop`)
            Rule::tokens => continue,
            // comments
            _ => {}
        }
        gap_from = to;
    }
    end
}

/// Appends the tokens of `gap`, text between two pairs that starts at byte `at` of the text:
/// what the grammar's top rule matched there without a pair (runs of line breaks, a separating
/// `:`) and blanks, which separate tokens.
#[inline]
fn silent_tokens(gap: &[u8], at: usize, tokens: &mut Vec<Token>) {
    let mut i = 0;
    while i < gap.len() {
        match gap[i] {
            b'\n' => {
                let start = i;
                i += 1;
                while gap.get(i) == Some(&b'\n') {
                    i += 1;
                }
                tokens.push(Token {
                    start: (at + start) as u32,
                    end: (at + i) as u32,
                });
            }
            b':' => {
                tokens.push(Token {
                    start: (at + i) as u32,
                    end: (at + i + 1) as u32,
                });
                i += 1;
            }
            other => {
                debug_assert!(matches!(other, b' ' | b'\t'), "{other} between pairs");
                i += 1;
            }
        }
    }
}

/// Appends the tokens of `line`, the text of a `line` pair that starts at byte `at` of the text:
/// a literal, or a literal, a separating `:` (followed by one blank) and possibly a second
/// literal. A literal never contains `": "` (a `:` followed by a blank ends it), so the first
/// `:` followed by a blank is the separator.
#[inline]
fn split_line(line: &[u8], at: usize, tokens: &mut Vec<Token>) {
    let mut from = 0;
    let separator = loop {
        match memchr::memchr(b':', &line[from..]) {
            Some(p) if line.get(from + p + 1) == Some(&b' ') => break Some(from + p),
            Some(p) => from += p + 1,
            None => break None,
        }
    };
    let span = |start: usize, end: usize| Token {
        start: (at + start) as u32,
        end: (at + end) as u32,
    };
    match separator {
        None => tokens.push(span(0, line.len())),
        Some(colon) => {
            tokens.push(span(0, colon));
            tokens.push(span(colon, colon + 1));
            if colon + 2 < line.len() {
                tokens.push(span(colon + 2, line.len()));
            }
        }
    }
}

/// The indentation of the line on which offset `at` of `src` is the first token: the blanks
/// right before `at` when only they separate it from the line's start, else `""`. (At
/// `src.len()`, the blanks that end the text.)
pub(crate) fn line_indent(src: &str, at: usize) -> &str {
    let bytes = src.as_bytes();
    let mut start = at;
    while start > 0 && matches!(bytes[start - 1], b' ' | b'\t') {
        start -= 1;
    }
    if start == 0 || bytes[start - 1] == b'\n' {
        &src[start..at]
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(Tok, &str)> {
        let (toks, end) = tokenize(s);
        assert_eq!(end, s.len(), "lexing stopped early in {s:?}");
        toks.iter()
            .map(|t| (t.kind(s), &s[t.start as usize..t.end as usize]))
            .collect()
    }

    #[test]
    fn literals_keep_inner_spaces_and_colons() {
        assert_eq!(
            kinds("a: hello  world # c"),
            vec![
                (Tok::Literal, "a"),
                (Tok::Char(b':'), ":"),
                (Tok::Literal, "hello  world"),
            ]
        );
        assert_eq!(kinds("http://x:80/p")[0], (Tok::Literal, "http://x:80/p"));
        assert_eq!(kinds("x#y")[0], (Tok::Literal, "x#y"));
    }

    #[test]
    fn line_breaks_make_one_token_per_run() {
        assert_eq!(
            kinds("a:\n\n\tb\n# c\n\nx: 'q'\n\n"),
            vec![
                (Tok::Literal, "a"),
                (Tok::Char(b':'), ":"),
                (Tok::Newline, "\n\n"),
                (Tok::Literal, "b"),
                (Tok::Newline, "\n"),
                (Tok::Newline, "\n\n"),
                (Tok::Literal, "x"),
                (Tok::Char(b':'), ":"),
                (Tok::String, "'q'"),
                (Tok::Newline, "\n\n"),
            ]
        );
    }

    #[test]
    fn a_colon_starts_a_literal_only_before_literal_text() {
        assert_eq!(
            kinds("a::b :c: [x:, ::]"),
            vec![
                (Tok::Literal, "a::b"),
                (Tok::Literal, ":c"),
                (Tok::Char(b':'), ":"),
                (Tok::Char(b'['), "["),
                (Tok::Literal, "x"),
                (Tok::Char(b':'), ":"),
                (Tok::Char(b','), ","),
                (Tok::Literal, "::"),
                (Tok::Char(b']'), "]"),
            ]
        );
    }

    #[test]
    fn a_line_pair_splits_into_key_separator_and_value() {
        assert_eq!(
            kinds("x\n\ta: b c\n\tf::g: h:i\n\tk: 'v'\n\tm:: n\n\tp:\n\t\tq\n"),
            vec![
                (Tok::Literal, "x"),
                (Tok::Newline, "\n"),
                (Tok::Literal, "a"),
                (Tok::Char(b':'), ":"),
                (Tok::Literal, "b c"),
                (Tok::Newline, "\n"),
                (Tok::Literal, "f::g"),
                (Tok::Char(b':'), ":"),
                (Tok::Literal, "h:i"),
                (Tok::Newline, "\n"),
                (Tok::Literal, "k"),
                (Tok::Char(b':'), ":"),
                (Tok::String, "'v'"),
                (Tok::Newline, "\n"),
                (Tok::Literal, "m:"),
                (Tok::Char(b':'), ":"),
                (Tok::Literal, "n"),
                (Tok::Newline, "\n"),
                (Tok::Literal, "p"),
                (Tok::Char(b':'), ":"),
                (Tok::Newline, "\n"),
                (Tok::Literal, "q"),
                (Tok::Newline, "\n"),
            ]
        );
        // a literal's inner blanks and a comment after the value stay as in one `token` each
        assert_eq!(
            kinds("\na b: c # d\n- e: f"),
            vec![
                (Tok::Newline, "\n"),
                (Tok::Literal, "a b"),
                (Tok::Char(b':'), ":"),
                (Tok::Literal, "c"),
                (Tok::Newline, "\n"),
                (Tok::Char(b'-'), "-"),
                (Tok::Literal, "e"),
                (Tok::Char(b':'), ":"),
                (Tok::Literal, "f"),
            ]
        );
    }

    #[test]
    fn colon_after_quote_is_a_separator() {
        assert_eq!(
            kinds("\"a\":b"),
            vec![
                (Tok::String, "\"a\""),
                (Tok::Char(b':'), ":"),
                (Tok::Literal, "b"),
            ]
        );
    }

    #[test]
    fn lexing_stops_at_backtick() {
        // after the blank that follows the `:`, as when blanks were tokens
        let (toks, end) = tokenize("a: `x`");
        assert_eq!(end, 3);
        assert_eq!(toks.len(), 2);
        let (_, end) = tokenize("a: # c\n\t`x`");
        assert_eq!(end, 8);
    }

    #[test]
    fn a_quote_then_a_dash_is_a_char() {
        assert_eq!(
            kinds("'a'-b, 'c' -d"),
            vec![
                (Tok::String, "'a'"),
                (Tok::Char(b'-'), "-"),
                (Tok::Literal, "b"),
                (Tok::Char(b','), ","),
                (Tok::String, "'c'"),
                (Tok::Literal, "-d"),
            ]
        );
    }

    /// The token spans and stop of `src` lexed with pieces of at least `piece` bytes.
    fn spans(src: &str, piece: usize) -> (Vec<(u32, u32)>, usize) {
        let (tokens, stop) = tokenize_in_pieces(src, piece);
        (tokens.iter().map(|t| (t.start, t.end)).collect(), stop)
    }

    #[test]
    fn cuts_fall_at_line_starts_outside_runs_of_breaks_and_multi_line_strings() {
        let b = "a\n\nb\nc".as_bytes();
        assert_eq!(next_cut(b, 0, None), 3); // not between the two line breaks
        assert_eq!(next_cut(b, 4, None), 5);
        assert_eq!(next_cut(b, 6, None), b.len());
        let src = "x: 1\ny: '''\n\ta\n\t'''\nz: 2\nw: 3\n";
        let range = triple_quote_range(src.as_bytes());
        assert_eq!(range, Some((8, 19)));
        assert_eq!(next_cut(src.as_bytes(), 0, range), 5);
        assert_eq!(next_cut(src.as_bytes(), 6, range), 20);
        assert_eq!(triple_quote_range(b"a: ''b'' \"\""), None);
    }

    #[test]
    fn pieces_give_the_tokens_of_one_run() {
        let texts = [
            "a: '''\n\tx\n\t'''\nb: \"\"\"\n\ty: 1\n\t\"\"\"\nc: [\n\t1,\n\t2\n]\n",
            "- '''\n  # not a comment\n  '''\n\n\n- x # c\n  \n- `\n",
            "a: '''\nno end\nb: 1\n",
            "\n\n\na:\n\tb: c\n\n",
        ];
        for text in texts {
            let whole = spans(text, usize::MAX);
            assert_eq!(spans(text, 1), whole, "{text:?}");
            assert_eq!(spans(text, 4), whole, "{text:?}");
        }
        // lexing stops where one run stops, also in a later piece
        assert_eq!(spans("a: 1\nb: 2\nc: `x`\n", 1).1, 13);
        // in lanes too: a lane that stops drops the later lanes' tokens
        let stops_early = "a: 1\nb: `x`\nc: 2\nd: 3\n";
        for lanes in 2..=4 {
            let (tokens, stop) = tokenize_in_lanes(stops_early, 1, lanes);
            let (one, one_stop) = tokenize_in_pieces(stops_early, usize::MAX);
            assert_eq!(stop, 8, "{lanes} lanes");
            assert_eq!((tokens.len(), stop), (one.len(), one_stop), "{lanes} lanes");
        }
        for text in texts {
            let whole = spans(text, usize::MAX);
            for lanes in 2..=5 {
                let (tokens, stop) = tokenize_in_lanes(text, 4, lanes);
                let lanes_spans: Vec<(u32, u32)> =
                    tokens.iter().map(|t| (t.start, t.end)).collect();
                assert_eq!((lanes_spans, stop), whole, "{text:?}, {lanes} lanes");
            }
        }
        assert_eq!(spans("", 1), (Vec::new(), 0));
    }

    #[test]
    fn indentation_is_read_from_the_text() {
        let src = "a:\n\t\tb: 1\n  # c\n'''\nx\n''' y";
        let at = |needle: &str| src.find(needle).unwrap();
        assert_eq!(line_indent(src, at("b:")), "\t\t");
        assert_eq!(line_indent(src, 0), "");
        assert_eq!(line_indent(src, at("1")), "");
        assert_eq!(line_indent(src, at("# c")), "  ");
        assert_eq!(line_indent(src, at("y")), "");
        assert_eq!(line_indent("a\n  ", 4), "  ");
    }

    #[test]
    fn offsets_map_back_over_removed_cr() {
        let t = Text::new("a\r\nb\rc", 3);
        assert_eq!(&*t.src, "a\nbc");
        assert_eq!(t.orig_start(2), 3 + 3); // 'b'
        assert_eq!(t.orig_start(3), 3 + 5); // 'c' after the lone CR
        assert_eq!(t.orig_end(1), 3 + 1); // end of "a" stays before the CR
    }
}
