//! Documentation that must stay in step with the code: `docs/errors.md` lists every diagnostic
//! code with its description. Regenerate with `WIREPLAN_UPDATE_DOCS=1 cargo test --test docs`.

use std::path::Path;
use wireplan::diagnostics::Code;

fn errors_md() -> String {
    let mut s = String::from(
        "# Diagnostic codes\n\n\
         Every error and warning wireplan reports has one of these stable codes. `wireplan check \
         --format json` prints them in the `code` field. This file is generated from \
         `src/diagnostics.rs` (`WIREPLAN_UPDATE_DOCS=1 cargo test --test docs`).\n\n\
         | code | when |\n|---|---|\n",
    );
    for c in Code::ALL {
        s.push_str(&format!("| `{}` | {} |\n", c.as_str(), c.description()));
    }
    s
}

#[test]
fn errors_md_lists_every_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/errors.md");
    let want = errors_md();
    if std::env::var_os("WIREPLAN_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).expect("write docs/errors.md");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        have, want,
        "docs/errors.md is out of date; run WIREPLAN_UPDATE_DOCS=1 cargo test --test docs"
    );
}
