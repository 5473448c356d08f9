//! The token streams of the shared NEON corpora must not change when the grammar is rewritten
//! for speed (issue #15): this check lexes every `.neon` file of
//! `../shared/conformance/neon`, `../shared/conformance/real-neon` and the two app-10000 files
//! and compares a digest of each token stream with `token_digests.txt`, which was written by
//! the lexer of commit `69726ce` (the grammar before the fourth speed pass).
//!
//! A line of the digest file is `<corpus>/<file> <tokens> <stop> <hash>`: the number of tokens,
//! the offset where lexing stopped, and FNV-1a (64 bits) over every token's start and end
//! offsets. `WIREPLAN_WRITE_TOKEN_DIGESTS=1` rewrites the file from the current lexer (only
//! for a deliberate change of the token language).

use super::lexer::{tokenize, tokenize_in_lanes, tokenize_in_pieces, Text, PIECE};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The corpora: (name in the digest file, folder relative to the workspace, file filter).
pub(super) const CORPORA: &[(&str, &str, Option<&[&str]>)] = &[
    ("neon", "../shared/conformance/neon", None),
    ("real-neon", "../shared/conformance/real-neon", None),
    (
        "app-10000",
        "../shared/bench/app-10000",
        Some(&["config.neon", "types.neon"]),
    ),
];

/// FNV-1a over the little-endian bytes of `words`.
fn fnv1a(words: impl Iterator<Item = u32>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The digest line of one file's text, lexed as [`super::decode`] lexes it (BOM skipped,
/// `\r` removed).
fn digest_line(name: &str, text: &str) -> String {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = Text::new(body, 0);
    let (tokens, stop) = tokenize(&text.src);
    let hash = fnv1a(tokens.iter().flat_map(|t| [t.start, t.end]));
    format!("{name} {} {stop} {hash:016x}", tokens.len())
}

/// [`corpus_files`] of `folder` (relative to the workspace) for a test that checks `what`:
/// `None`, after saying the check was skipped, when the folder is absent; with `CI=true`
/// its absence fails the test.
pub(super) fn corpus_or_skip(
    folder: &str,
    only: Option<&[&str]>,
    what: &str,
) -> Option<Vec<PathBuf>> {
    let files = corpus_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join(folder), only);
    if files.is_none() {
        if std::env::var("CI")
            .is_ok_and(|v| !matches!(v.to_ascii_lowercase().as_str(), "" | "0" | "false"))
        {
            panic!("{folder} is missing, and CI=true makes that a failure");
        }
        eprintln!("skipped: {folder} is absent, {what}");
    }
    files
}

/// The `.neon` files of one corpus folder, sorted by name; `None` when the folder is absent.
fn corpus_files(dir: &Path, only: Option<&[&str]>) -> Option<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "neon"))
        .filter(|p| {
            only.is_none_or(|names| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| names.contains(&n))
            })
        })
        .collect();
    files.sort();
    Some(files)
}

#[test]
fn token_streams_match_the_recorded_digests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let digest_path = root.join("src/neon/token_digests.txt");
    let mut lines = String::new();
    for (corpus, folder, only) in CORPORA {
        let Some(files) = corpus_or_skip(folder, *only, "no token digests checked") else {
            return;
        };
        assert!(!files.is_empty(), "{folder} has no .neon files");
        for path in files {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
            let name = format!("{corpus}/{file}");
            // a file that is not UTF-8 is never lexed (`decode_bytes` rejects it first)
            let line = match std::str::from_utf8(&bytes) {
                Ok(text) => digest_line(&name, text),
                Err(_) => format!("{name} not-utf-8"),
            };
            let _ = writeln!(lines, "{line}");
        }
    }
    if std::env::var("WIREPLAN_WRITE_TOKEN_DIGESTS").as_deref() == Ok("1") {
        std::fs::write(&digest_path, &lines).expect("digest file written");
        return;
    }
    let recorded = std::fs::read_to_string(&digest_path).expect("token_digests.txt is readable");
    let recorded: Vec<&str> = recorded.lines().collect();
    let now: Vec<&str> = lines.lines().collect();
    let differing: Vec<String> = now
        .iter()
        .filter(|l| !recorded.contains(l))
        .map(|l| format!("now:      {l}"))
        .chain(
            recorded
                .iter()
                .filter(|l| !now.contains(l))
                .map(|l| format!("recorded: {l}")),
        )
        .collect();
    assert!(
        differing.is_empty(),
        "{} token stream(s) differ from the recorded ones:\n{}",
        differing.len() / 2,
        differing.join("\n")
    );
    assert_eq!(now.len(), recorded.len(), "the corpora changed size");
}

/// Lexing in pieces gives the tokens of one run: every file of the corpora (those with
/// multi-line strings included) lexed in one pest run, with a cut at every line start where
/// [`tokenize`] may cut, with [`PIECE`]-sized pieces, and in two and three lanes on threads
/// of their own (however small the file).
#[test]
fn pieces_lex_like_one_run() {
    let mut checked = 0;
    let mut multi_line = 0;
    for (_, folder, only) in CORPORA {
        let Some(files) = corpus_or_skip(folder, *only, "pieces not compared") else {
            return;
        };
        for path in files {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            let text = Text::new(text.strip_prefix('\u{feff}').unwrap_or(text), 0);
            let src: &str = &text.src;
            let spans = |(tokens, stop): (Vec<super::lexer::Token>, usize)| {
                let spans: Vec<(u32, u32)> = tokens.iter().map(|t| (t.start, t.end)).collect();
                (spans, stop)
            };
            let whole = spans(tokenize_in_pieces(src, usize::MAX));
            let name = path.display();
            assert_eq!(
                spans(tokenize_in_pieces(src, 1)),
                whole,
                "{name}, cut at every line"
            );
            assert_eq!(
                spans(tokenize_in_pieces(src, PIECE)),
                whole,
                "{name}, pieces"
            );
            for lanes in [2, 3] {
                assert_eq!(
                    spans(tokenize_in_lanes(src, PIECE, lanes)),
                    whole,
                    "{name}, {lanes} lanes"
                );
            }
            checked += 1;
            if src.contains("'''") || src.contains("\"\"\"") {
                multi_line += 1;
            }
        }
    }
    // the corpora hold hundreds of files, some with multi-line strings
    assert!(checked > 600, "only {checked} files compared");
    assert!(
        multi_line > 5,
        "only {multi_line} files with multi-line strings"
    );
}

#[test]
fn the_digest_sees_every_offset() {
    // a different token boundary changes the hash
    let a = digest_line("x", "a: b");
    let b = digest_line("x", "a :b");
    assert_ne!(a, b);
    assert_eq!(a, digest_line("x", "\u{feff}a: b"));
    assert!(a.starts_with("x 3 4 "), "{a}");
}
