//! Where a JSON plan failed to decode, in the plan format's words: `services › clock ›
//! lifespan: unknown variant …`. The fast decode tracks no path; only after it failed is the
//! text decoded again with [`serde_path_to_error`] to word the error.

/// Rust names in serde's messages about a plan, and what the plan format calls them.
const PLAN_WORDS: [(&str, &str); 6] = [
    (
        "struct ServicePlan with 12 elements",
        "a service entry (a map with `type` and `create`)",
    ),
    (
        "struct ServicePlan",
        "a service entry (a map with `type` and `create`)",
    ),
    (
        "untagged enum Autowired",
        "`autowired`: true, false or a list of types",
    ),
    ("struct Plan", "a plan (a map)"),
    (
        "untagged enum Expr",
        "a value or statement (docs/plan-format.md)",
    ),
    ("data did not match any variant of ", "expected "),
];

/// What a plan decode got wrong, in the plan format's words: where (`services › zzz`), and
/// what serde said with the Rust type names replaced by what docs/plan-format.md calls them.
/// Shared with the compiler, which words an `afterCompile()` plan edit's errors this way.
#[doc(hidden)]
pub fn plan_format_error(e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path: Vec<String> = e
        .path()
        .iter()
        .map(|segment| match segment {
            serde_path_to_error::Segment::Seq { index } => index.to_string(),
            serde_path_to_error::Segment::Map { key } => key.clone(),
            serde_path_to_error::Segment::Enum { variant } => variant.clone(),
            serde_path_to_error::Segment::Unknown => "?".to_string(),
        })
        .collect();
    let mut message = e.inner().to_string();
    // "invalid length 1, expected struct …": the length is of the deserializer's own making.
    if let (true, Some(at)) = (
        message.starts_with("invalid length "),
        message.find("expected "),
    ) {
        message = message[at..].to_string();
    }
    for (rust, plan) in PLAN_WORDS {
        message = message.replace(rust, plan);
    }
    if path.is_empty() {
        return message;
    }
    // A plan nested past serde_json's recursion limit names 128 segments: the ends say where.
    const SHOWN: usize = 5;
    let shown = if path.len() > 2 * SHOWN + 1 {
        let skipped = path.len() - 2 * SHOWN;
        let mut p: Vec<String> = path[..SHOWN].to_vec();
        p.push(format!("… {skipped} more …"));
        p.extend_from_slice(&path[path.len() - SHOWN..]);
        p
    } else {
        path
    };
    format!("{}: {message}", shown.join(" › "))
}

/// The error of decoding `json` as a plan, with its path, from a second decode that tracks
/// it. `None` when that decode succeeds (the fast one failed after the plan's end, on
/// trailing characters).
pub(super) fn located_error(json: &str) -> Option<String> {
    let mut de = serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize::<_, crate::plan::Plan>(&mut de)
        .err()
        .map(|e| plan_format_error(&e))
}
