//! Robustness of the NEON decoder: no input panics, overflows the stack or takes long.
//!
//! - mutated conformance inputs and random fragment soups (seeded, so failures reproduce);
//! - nesting far beyond the limit, in every form (brackets, entities, blocks, bullets);
//! - large documents, checked against a generous time budget to catch quadratic behaviour.
//!
//! `NEON_FUZZ_ROUNDS=N` raises the number of random rounds for longer local runs.

use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};
use wireplan::neon;
use wireplan::source::FileId;

/// xorshift64*: small, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Decodes on a thread with a small stack (as a caller's thread might have) and reports a panic
/// with the input that caused it. The time limit is a hang guard (exponential backtracking), far
/// above any real decode time; speed itself is measured by `cargo bench --bench neon`.
fn decode_checked(input: &[u8]) -> Result<(), String> {
    let bytes = input.to_vec();
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let start = Instant::now();
            let r = neon::decode_bytes(&bytes, FileId(0));
            if let Ok(v) = &r {
                let _ = neon::to_json(v);
            }
            start.elapsed()
        })
        .expect("spawn");
    match handle.join() {
        Ok(t) if t > Duration::from_secs(20) => Err(format!(
            "took {t:?} on {:?}",
            String::from_utf8_lossy(input)
        )),
        Ok(_) => Ok(()),
        Err(_) => Err(format!("panicked on {:?}", String::from_utf8_lossy(input))),
    }
}

const FRAGMENTS: &[&str] = &[
    "a",
    "b",
    ":",
    ": ",
    "=",
    "-",
    "- ",
    "--",
    "::",
    ",",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "\n",
    "\n  ",
    "\n\t",
    "\n    ",
    " ",
    "\t",
    "#c",
    " # c\n",
    "'",
    "'x'",
    "''",
    "\"",
    "\"x\"",
    "\"\\u00e9\"",
    "\"\\uD83D\\uDE00\"",
    "\"\\x\"",
    "'''\n",
    "\n'''",
    "\"\"\"\n",
    "\n\"\"\"",
    "1",
    "-1",
    "0x1F",
    "1e999",
    "1.5",
    "-0.0",
    "9223372036854775808",
    "true",
    "null",
    "2024-01-31",
    "2024-02-30 10:20:30 +01",
    "2024-13-45",
    "Foo(",
    "@x",
    "é",
    "ž",
    "\u{a0}",
    "\r",
    "\r\n",
    "\u{feff}",
    "`",
    "%p%",
    "http://x:80",
    "a(1)::b(2)",
    "0b11",
    "0o17",
    "'5'",
    "05",
];

#[test]
fn random_fragments_never_panic() {
    let rounds: usize = std::env::var("NEON_FUZZ_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut failures = Vec::new();
    for _ in 0..rounds {
        let n = 1 + rng.below(30);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
        }
        if let Err(e) = decode_checked(s.as_bytes()) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mutated_corpus_inputs_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/neon");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        // Straight to standard error: the harness hides a passing test's `println!`.
        let _ = writeln!(
            std::io::stderr(),
            "corpus {} not found; skipped",
            dir.display()
        );
        return;
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "neon"))
        .collect();
    files.sort();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut failures = Vec::new();
    for f in files {
        let Ok(orig) = std::fs::read(&f) else {
            continue;
        };
        if orig.len() > 20_000 {
            continue; // the large generated files are covered by the performance tests
        }
        for _ in 0..4 {
            let mut b = orig.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(b.len() + 1);
                match rng.below(4) {
                    0 if at < b.len() => {
                        b.remove(at);
                    }
                    1 => {
                        let frag = FRAGMENTS[rng.below(FRAGMENTS.len())].as_bytes();
                        b.splice(at..at, frag.iter().copied());
                    }
                    2 if at < b.len() => b[at] = rng.next() as u8,
                    _ => {
                        let end = (at + rng.below(20)).min(b.len());
                        let piece = b[at..end].to_vec();
                        b.splice(at..at, piece);
                    }
                }
            }
            if let Err(e) = decode_checked(&b) {
                failures.push(format!("{}: {e}", f.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn expect_error(input: &str, what: &str) {
    let bytes = input.as_bytes().to_vec();
    let result = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || neon::decode_bytes(&bytes, FileId(0)).map(|_| ()))
        .expect("spawn")
        .join()
        .unwrap_or_else(|_| panic!("{what}: panicked"));
    let d = result.expect_err(what);
    assert!(d.primary_span().is_some(), "{what}: error without position");
}

#[test]
fn ten_thousand_levels_are_an_error() {
    let n = 10_000;
    expect_error(&"[".repeat(n), "unclosed brackets");
    expect_error(&format!("{}{}", "[".repeat(n), "]".repeat(n)), "brackets");
    expect_error(&format!("{}{}", "{a: ".repeat(n), "}".repeat(n)), "maps");
    expect_error(&format!("{}{}", "f(".repeat(n), ")".repeat(n)), "entities");
    expect_error(&"- ".repeat(n), "bullets on one line");
    // chains nest (each link calls a method on the links before it)
    expect_error(&format!("a(){}", "::b()".repeat(n)), "chain links");
    // real indentation: 10,000 levels would be 50 MB of tabs; 2,000 is four times the limit
    let mut tabs = String::new();
    for i in 0..2_000 {
        tabs.push_str(&"\t".repeat(i));
        tabs.push_str("k:\n");
    }
    expect_error(&tabs, "tab-indented blocks");
    let mut bullets = String::new();
    for i in 0..2_000 {
        bullets.push_str(&"  ".repeat(i));
        bullets.push_str("-\n");
    }
    expect_error(&bullets, "bullets on their own lines");
}

#[test]
fn deepest_accepted_documents_work_on_small_stacks() {
    let depth = neon::MAX_DEPTH - 1;
    let mut indented = String::new();
    for i in 0..depth {
        indented.push_str(&" ".repeat(i));
        indented.push_str("k:\n");
    }
    let docs = [
        format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
        format!("{}{}", "f(".repeat(depth), ")".repeat(depth)),
        format!("{}x", "- ".repeat(depth)),
        indented,
    ];
    for doc in docs {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let v = neon::decode(&doc, FileId(0)).expect("within the limit");
                let json = neon::to_json(&v);
                drop(v);
                drop(json);
            })
            .expect("spawn")
            .join()
            .expect("no panic");
    }
}
