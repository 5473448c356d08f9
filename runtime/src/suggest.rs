//! "did you mean": the one rule for suggesting a close name, used by the runtime's messages
//! and re-exported by the compiler (`wireplan::diagnostics::suggest`), so a misspelt name gets
//! the same suggestion at compile time and at run time.

/// "did you mean": the candidate closest to `word`, after Nette's `Helpers::getSuggestion` —
/// a weighted edit distance (insert and delete 10, replace 11) below
/// `(len / 4 + 1) * 10 + 0.1`. Letter case is ignored, since class names compare that way.
/// The one suggestion rule of the whole project: the compiler's messages (schema messages
/// too) and the runtime's unknown-service hint. Names longer
/// than [`MAX_SUGGESTED_LEN`] bytes get no suggestion and are never suggested: the distance
/// takes time proportional to the product of the two lengths, and a hostile name of
/// megabytes would stall a compile.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if word.len() > MAX_SUGGESTED_LEN {
        return None;
    }
    let lower = word.to_lowercase();
    let mut min = (word.len() as f64 / 4.0 + 1.0) * 10.0 + 0.1;
    let mut best = None;
    for c in candidates {
        // Every byte of length difference costs at least one insertion or deletion (10).
        if c == word
            || c.len() > MAX_SUGGESTED_LEN
            || (c.len().abs_diff(word.len()) * 10) as f64 >= min * 4.0
        {
            continue;
        }
        let d = weighted_levenshtein(&c.to_lowercase(), &lower) as f64;
        if d < min {
            min = d;
            best = Some(c);
        }
    }
    best
}

/// The longest name (in bytes) for which [`suggest`] looks for a close one: 256.
pub const MAX_SUGGESTED_LEN: usize = 256;

/// Nette's weighted edit distance, plus one step wireplan adds: swapping two adjacent letters
/// costs 10, like one insertion (so short transpositions such as `dns` → `dsn`, which cost
/// two replacements in Nette and fall outside its limit, are suggested).
fn weighted_levenshtein(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Rows i-2, i-1 and i of the (optimal string alignment) table.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j * 10).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![(i + 1) * 10; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let replace = prev[j] + if ca == cb { 0 } else { 11 };
            let mut best = replace.min(prev[j + 1] + 10).min(cur[j] + 10);
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb && ca != cb {
                best = best.min(before[j - 1] + 10);
            }
            cur[j + 1] = best;
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestion_finds_close_names() {
        assert_eq!(suggest("sevices", ["services", "search"]), Some("services"));
        assert_eq!(suggest("xyz", ["services", "search"]), None);
        // Adjacent transpositions count as one edit.
        assert_eq!(suggest("dns", ["dsn", "user"]), Some("dsn"));
        assert_eq!(suggest("tgas", ["tags", "type"]), Some("tags"));
        assert_eq!(weighted_levenshtein("ab", "ba"), 10);
        assert_eq!(weighted_levenshtein("abc", "abc"), 0);
    }

    #[test]
    fn long_names_get_no_suggestion() {
        // A near miss up to the limit is still suggested; past it, neither side is compared
        // (a new user's 5 MB name with one letter wrong stalled `check` for minutes).
        let at = "k".repeat(MAX_SUGGESTED_LEN);
        let at_miss = format!("{}x", &at[1..]);
        assert_eq!(suggest(&at_miss, [at.as_str()]), Some(at.as_str()));
        let long = "k".repeat(5_000_000);
        let long_miss = format!("{long}x");
        assert_eq!(suggest(&long_miss, [long.as_str()]), None);
        assert_eq!(suggest("kkk", [long.as_str()]), None);
        // Lengths far apart are skipped before any distance is computed.
        assert_eq!(
            suggest("sevices", ["services", long.as_str()]),
            Some("services")
        );
    }
}
