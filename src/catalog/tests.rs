use super::*;

/// One class under three spellings in one `types:` section (a leading `\`, another
/// case): two `duplicate-class` errors at the later ones, pointing at the first, which is
/// kept (with its constructor); the same read whole with catalog files
/// (`Catalog::from_inputs`).
#[test]
fn a_class_declared_twice_under_another_spelling_is_reported() {
    let text = "types:\n\tApp\\Extra:\n\t\tconstructor: {v: {type: int, default: 1}}\n\
                \t\\App\\Extra: {}\n\tapp\\extra: {}\n\tApp\\Other: {}\n";
    let value = crate::neon::decode(text, crate::source::FileId(0)).expect("decodes");
    let section = Expr::from_neon(&value);
    let types = section
        .as_array()
        .and_then(|a| a.get("types"))
        .expect("types");
    let streamed = {
        let mut diags = Diagnostics::new();
        let cat = Catalog::from_section(Some(types), &mut diags);
        (cat, diags)
    };
    let merged = {
        let mut diags = Diagnostics::new();
        let sources = crate::source::SourceMap::new();
        let cat = Catalog::from_inputs(Some(types), &[], &sources, &mut diags);
        (cat, diags)
    };
    let mut shown = crate::source::SourceMap::new();
    let id = shown.add("t.neon".to_string(), text.to_string());
    assert_eq!(id, crate::source::FileId(0));
    for (cat, diags) in [streamed, merged] {
        // At the later keys (lines 4 and 5), pointing at the first key (line 2).
        let lines: Vec<(usize, usize)> = crate::diagnostics::to_json(&shown, diags.items())
            .iter()
            .map(|d| {
                let first = d.labels.iter().find(|l| l.message == "first declared here");
                (d.line.unwrap_or(0), first.map_or(0, |l| l.line))
            })
            .collect();
        assert_eq!(lines, [(4, 2), (5, 2)]);
        let messages: Vec<&str> = diags.items().iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Class App\\Extra is declared twice in the `types:` section: as 'App\\Extra' and as '\\App\\Extra'.",
                "Class App\\Extra is declared twice in the `types:` section: as 'App\\Extra' and as 'app\\extra'.",
            ]
        );
        assert!(diags.items().iter().all(|d| d.code == Code::DuplicateClass));
        let extra = cat.get("APP\\EXTRA").expect("kept");
        assert_eq!(
            (extra.name.as_str(), extra.constructor.len()),
            ("App\\Extra", 1)
        );
        assert!(cat.exists("App\\Other"));
    }
}

#[test]
fn bare_names_lose_surrounding_spaces_and_leading_backslashes_only() {
    for (written, bare) in [
        ("App\\Db", "App\\Db"),
        ("\\App\\Db", "App\\Db"),
        ("\\\\App", "App"),
        ("  \\App\\Db \t", "App\\Db"),
        ("\u{a0}App\u{2003}", "App"),
        ("App\u{e9}", "App\u{e9}"),
        ("\u{e9}t\u{e9}", "\u{e9}t\u{e9}"),
        ("A", "A"),
        ("\\", ""),
        (" ", ""),
        ("", ""),
        ("App\\", "App\\"),
    ] {
        assert_eq!(bare_name(written), bare, "{written:?}");
        assert_eq!(bare_name(written), written.trim().trim_start_matches('\\'));
    }
}

/// A class with 100 interfaces (past the few a walk compares one by one): subtypes,
/// ancestors without repeats in any letter case, and a cycle through the 70th.
#[test]
fn walks_over_many_parents_find_each_once() {
    let mut text = String::from("types:\n");
    for i in 0..100 {
        text.push_str(&format!("\tApp\\I{i}: {{interface: true}}\n"));
    }
    let list: Vec<String> = (0..100).map(|i| format!("App\\I{i}")).collect();
    // Listed twice, the second time in other letter case.
    let upper: Vec<String> = list.iter().map(|n| n.to_uppercase()).collect();
    text.push_str(&format!(
        "\tApp\\C: {{implements: [{}, {}]}}\n",
        list.join(", "),
        upper.join(", ")
    ));
    let cat = from_config_text(&text);
    assert!(cat.is_subtype("App\\C", "app\\i99"));
    assert!(cat.is_subtype("App\\C", "App\\I40"));
    assert!(!cat.is_subtype("App\\C", "App\\I100"));
    let ancestors = cat.ancestors("App\\C");
    assert_eq!(ancestors.len(), 101, "{ancestors:?}");
    assert_eq!(ancestors[0], "App\\C");

    let mut cyclic = text.clone();
    cyclic = cyclic.replace(
        "\tApp\\I70: {interface: true}",
        "\tApp\\I70: {interface: true, extends: [App\\C]}",
    );
    let mut diags = crate::diagnostics::Diagnostics::new();
    let mut sources = crate::source::SourceMap::new();
    let raw = crate::config::load_str("t.neon", &cyclic, &mut sources, &mut diags);
    let (_, sections) =
        crate::config::expand_config(&raw.sections, &[], &indexmap::IndexMap::new(), &mut diags);
    Catalog::from_section(sections.get("types").map(|(_, v)| v), &mut diags);
    let messages: Vec<&str> = diags.items().iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("Inheritance cycle: ") && m.contains("App\\I70")),
        "{messages:?}"
    );
}

#[test]
fn type_strings_parse() {
    let t = TypeRef::parse("?App\\Db");
    assert!(t.nullable);
    assert_eq!(t.class(), Some("App\\Db"));
    let u = TypeRef::parse("int|string");
    assert!(u.is_complex());
    assert_eq!(u.class(), None);
    let l = TypeRef::parse("App\\Handler[]");
    assert_eq!(l.list_of.as_deref(), Some("App\\Handler"));
    assert_eq!(TypeRef::parse("\\App\\X").class(), Some("App\\X"));
}

#[test]
fn type_syntax_is_checked() {
    for ok in [
        "int",
        "?App\\Db",
        "\\App\\Db",
        "int|string|null",
        "App\\H[]",
        "mixed",
    ] {
        assert_eq!(TypeRef::syntax_error(ok), None, "{ok}");
    }
    for bad in [
        "",
        "?",
        "int||string",
        "int|",
        "|int",
        "?int|string",
        "App\\",
        "1x",
        "[]",
        "a b",
    ] {
        assert!(TypeRef::syntax_error(bad).is_some(), "{bad}");
    }
}

#[test]
fn a_parent_is_found_inside_its_json_class_only() {
    use crate::source::SourceMap;
    let text = r#"{"App\\A": {"note": "} [", "implements": ["App\\B"]}, "App\\C": ["App\\D"]}"#;
    let mut sources = SourceMap::new();
    let id = sources.add("c.json".to_string(), text.to_string());
    let key = super::file::json_key_span(id, text, "App\\A").expect("the key");
    let found =
        super::file::json_string_in_value(id, text, key.end as usize, "App\\B").expect("found");
    assert_eq!(
        &text[found.start as usize..found.end as usize],
        r#""App\\B""#
    );
    // A string of another class's value is not this class's.
    assert_eq!(
        super::file::json_string_in_value(id, text, key.end as usize, "App\\D"),
        None
    );
    // A key is not a value.
    assert_eq!(
        super::file::json_string_in_value(id, text, key.end as usize, "note"),
        None
    );
}

/// serde's "control character found while parsing a string" in a JSON catalog, in the
/// reader's words: a string left open at the end of its line (a half-saved file) is pointed
/// at from its opening quote, a raw tab inside a string at the tab (a new user's trial saw
/// serde's wording for a file that has no visible control character).
#[test]
fn a_json_string_left_open_or_holding_a_tab_is_named_as_such() {
    let error_for = |text: &str| {
        let e = serde_json::from_str::<serde_json::Value>(text).expect_err("not JSON");
        file::json_syntax_error(crate::source::FileId(0), text, &e)
    };
    let spans = |d: &crate::diagnostics::Diagnostic| -> Vec<(usize, usize, String)> {
        d.labels
            .iter()
            .map(|l| {
                (
                    l.span.start as usize,
                    l.span.end as usize,
                    l.message.clone(),
                )
            })
            .collect()
    };
    let open = error_for("{\"broken\n");
    assert_eq!(
        open.message,
        "The catalog is not valid JSON: a string is not closed before the end of its line."
    );
    assert_eq!(spans(&open), [(1, 8, "this string is never closed".into())]);
    let later = error_for("{\"classes\": [\n  {\"name\": \"App\\\\Db\", \"x\": \"a\\\"b\n");
    assert!(later.message.contains("not closed"), "{}", later.message);
    // The string that opens at `"a\"b` (an escaped quote does not close it).
    let at = "{\"classes\": [\n  {\"name\": \"App\\\\Db\", \"x\": ".len();
    assert_eq!(spans(&later)[0].0, at);
    let tab = error_for("{\"a\": \"x\ty\"}");
    assert_eq!(
        tab.message,
        "The catalog is not valid JSON: a string holds a tab, which JSON does not allow."
    );
    assert_eq!(
        spans(&tab),
        [
            (8, 9, "here".into()),
            (6, 7, "in the string that starts here".into())
        ]
    );
    // Other syntax errors keep serde's words.
    let comma = error_for("{\"a\": 1,}");
    assert!(comma
        .message
        .starts_with("The catalog is not valid JSON: trailing comma"));
}
