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
    s.push_str(
        "\n## Runtime errors\n\n\
         The runtime's `wireplan_runtime::Error` says what went wrong in its message; \
         `Error::code()` gives the kind as one of these stable codes (for logs, metrics and \
         tests), the same code as the compile-time diagnostic where both report one problem. \
         Generated from `wireplan_runtime::ERROR_CODES`.\n\n\
         | code | when |\n|---|---|\n",
    );
    for (code, description) in wireplan_runtime::ERROR_CODES {
        s.push_str(&format!("| `{code}` | {description} |\n"));
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

/// H13: the README listed `25:00:00` as a date-like literal that is an error, but a time alone
/// does not match NEON's date pattern (a date part comes first;
/// `../shared/reference/neon-language.md` §4) and decodes to the string. Every literal the
/// README's row names as an error must be one, and the time it names as a string must be one.
#[test]
fn readme_date_literals_decode_as_it_says() {
    use wireplan::neon::{decode, Kind};
    use wireplan::source::FileId;
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let row = readme
        .lines()
        .find(|l| l.starts_with("| a date-like literal that is not a date ("))
        .expect("the README's date row");
    let cell = row.split(" | ").next().expect("first cell");
    let (errors, strings) = cell.split_once(';').expect("errors; then strings");
    let literals = |text: &str| -> Vec<String> {
        text.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    let (errors, strings) = (literals(errors), literals(strings));
    assert!(errors.len() >= 2 && !strings.is_empty(), "{row}");
    for lit in &errors {
        let d = decode(&format!("a: {lit}\n"), FileId(0)).expect_err(lit);
        assert_eq!(d.code, Code::NeonSyntax, "{lit}: {}", d.message);
        assert!(d.message.contains(lit.as_str()), "{lit}: {}", d.message);
    }
    for lit in &strings {
        let v = decode(&format!("a: {lit}\n"), FileId(0)).expect(lit);
        let Kind::Array(a) = v.kind else {
            panic!("{lit}: not a map")
        };
        let value = a.values().next().expect("one item");
        assert_eq!(value.as_str(), Some(lit.as_str()), "{lit}");
    }
}

/// Every code block of docs/getting-started.md marked `<!-- file: PATH -->` equals the file
/// `examples/getting-started/PATH`, where the package lives in the workspace. The one
/// substitution: the doc's project sits beside a checkout called `wireplan`
/// (`path = "../wireplan/runtime"`, `path = "../wireplan"`), the workspace package two levels
/// below the root (`path = "../../runtime"`, `path = "../.."`). Every `rust`, `toml` and `neon`
/// block must be marked, and every file of the package the reader writes must be shown.
#[test]
fn getting_started_blocks_equal_the_example_package() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/getting-started.md")).expect("the doc");
    let lines: Vec<&str> = doc.lines().collect();
    let mut shown = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(lang) = lines[i].strip_prefix("```").filter(|l| !l.is_empty()) else {
            i += 1;
            continue;
        };
        let start = i + 1;
        let end = start
            + lines[start..]
                .iter()
                .position(|l| *l == "```")
                .unwrap_or_else(|| panic!("block at line {} is not closed", i + 1));
        let marker = i
            .checked_sub(1)
            .and_then(|m| lines[m].strip_prefix("<!-- file: "))
            .and_then(|m| m.strip_suffix(" -->"));
        match marker {
            Some(path) => {
                let mut block = lines[start..end].join("\n");
                block.push('\n');
                let block = block
                    .replace("path = \"../wireplan/runtime\"", "path = \"../../runtime\"")
                    .replace("path = \"../wireplan\"", "path = \"../..\"");
                let file =
                    std::fs::read_to_string(root.join("examples/getting-started").join(path))
                        .unwrap_or_else(|e| panic!("{path}: {e}"));
                assert_eq!(
                    block, file,
                    "docs/getting-started.md block for {path} differs"
                );
                shown.push(path.to_string());
            }
            None => assert!(
                !matches!(lang, "rust" | "toml" | "neon"),
                "docs/getting-started.md line {}: a {lang} block without a file marker",
                i + 1
            ),
        }
        i = end + 1;
    }
    shown.sort();
    assert_eq!(
        shown,
        [
            ".cargo/config.toml",
            "Cargo.toml",
            "build.rs",
            "config/app.neon",
            "src/lib.rs",
            "src/main.rs",
            "tests/catalog.rs"
        ]
    );
}

/// The text of the README's ```rhai block that starts with `first`.
fn readme_rhai_block(first: &str) -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let start = readme
        .find(&format!("```rhai\n{first}"))
        .unwrap_or_else(|| panic!("no ```rhai block starting with {first:?} in the README"));
    let body = &readme[start + "```rhai\n".len()..];
    body[..body.find("```").expect("the block's end")].to_string()
}

/// The README's extension example is a working extension: compiled against a configuration
/// with its section and classes, it registers `blog.articles` with the configured option, its
/// `beforeCompile` adds the logger setup only when a logger exists, and its `afterCompile`
/// writes the tag into the plan.
#[test]
fn the_readme_extension_example_compiles() {
    let script = readme_rhai_block("fn getConfigSchema() {                     // validates");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("blog.rhai"), script).expect("write script");
    let types = "types:\n\
                 \tApp\\Logger: {interface: true}\n\
                 \tApp\\FileLogger: {implements: [App\\Logger]}\n\
                 \tBlog\\Articles:\n\
                 \t\tconstructor: {postsPerPage: int}\n\
                 \t\tmethods: {setLogger: {params: {logger: App\\Logger}}}\n";
    let compile = |services: &str| {
        let config = dir.path().join("app.neon");
        std::fs::write(
            &config,
            format!(
                "extensions:\n\tblog: blog.rhai\n\nblog:\n\tpostsPerPage: 5\n\n{types}{services}"
            ),
        )
        .expect("write config");
        let c = wireplan::compiler::compile(&config, &Default::default());
        let plan = c
            .plan
            .unwrap_or_else(|| panic!("{:#?}", c.diagnostics.items()));
        serde_json::from_str::<serde_json::Value>(&wireplan::plan::to_json(&plan))
            .expect("plan JSON")
    };
    let plan = compile("services:\n\tlogger: App\\FileLogger\n");
    let articles = &plan["services"]["blog.articles"];
    assert_eq!(
        articles["create"]["args"],
        serde_json::json!([5]),
        "{articles}"
    );
    assert_eq!(articles["tags"]["audited"], true, "{articles}");
    assert_eq!(
        articles["setup"],
        serde_json::json!([{"$call": ["@self", "setLogger"], "args": [{"$ref": "logger"}]}]),
        "{articles}"
    );
    // Without a logger, getByType() gives () and the example adds no setup.
    let plan = compile("");
    let articles = &plan["services"]["blog.articles"];
    assert!(articles.get("setup").is_none(), "{articles}");
}

/// The README's first extension (the short logaware) adds `setLogger(@logger)` to the tagged
/// services, and without a logger stops with its own message instead of writing `"@" + ()`.
#[test]
fn the_readme_logaware_example_checks_for_a_missing_logger() {
    let script = readme_rhai_block("fn getConfigSchema() {\n\tExpect::structure(#{ tag:");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("log.rhai"), script).expect("write script");
    let compile = |logger: &str| {
        let config = dir.path().join("app.neon");
        std::fs::write(
            &config,
            format!(
                "extensions:\n\tlog: log.rhai\n\ntypes:\n\tApp\\Logger: {{interface: true}}\n\
                 \tApp\\FileLogger: {{implements: [App\\Logger]}}\n\
                 \tApp\\Repo:\n\t\tmethods: {{setLogger: {{params: {{logger: App\\Logger}}}}}}\n\
                 services:\n\trepo: {{create: App\\Repo, tags: [logaware]}}\n{logger}"
            ),
        )
        .expect("write config");
        wireplan::compiler::compile(&config, &Default::default())
    };
    let c = compile("\tlogger: App\\FileLogger\n");
    let plan = c
        .plan
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics.items()));
    let plan: serde_json::Value =
        serde_json::from_str(&wireplan::plan::to_json(&plan)).expect("plan JSON");
    assert_eq!(
        plan["services"]["repo"]["setup"][0]["args"],
        serde_json::json!([{"$ref": "logger"}])
    );
    let c = compile("");
    assert!(c.plan.is_none());
    let messages: Vec<&str> = c
        .diagnostics
        .items()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("no service of type App\\Logger for the services tagged logaware")),
        "{messages:?}"
    );
}

/// A problem the compiler and the runtime can both report has one code: a missing service or
/// parameter, ambiguous autowiring, a cycle, a service that needs async creation.
#[test]
fn the_runtime_uses_the_compilers_codes_for_the_same_problems() {
    let compile: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    let runtime: Vec<&str> = wireplan_runtime::ERROR_CODES
        .iter()
        .map(|(code, _)| *code)
        .collect();
    for shared in [
        "missing-service",
        "ambiguous-service",
        "missing-parameter",
        "circular-reference",
        "async-required",
    ] {
        assert!(compile.contains(&shared), "compiler lacks {shared}");
        assert!(runtime.contains(&shared), "runtime lacks {shared}");
    }
}
