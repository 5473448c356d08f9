use super::*;

fn expand(text: &str) -> (Parameters, Sections, Diagnostics) {
    let mut diags = Diagnostics::new();
    let mut sources = crate::source::SourceMap::new();
    let raw = crate::config::load_str("t.neon", text, &mut sources, &mut diags);
    let (p, s) = expand_config(&raw.sections, &[], &IndexMap::new(), &mut diags);
    (p, s, diags)
}

#[test]
fn copies_past_the_limits_are_one_error_and_null() {
    // 12 levels of 4 copies: 4^12 = 16 Mi nodes without the limit.
    let mut text = String::from("parameters:\n\tp0: [a, b, c, d]\n");
    for i in 1..12 {
        let r = format!("%p{}%", i - 1);
        text.push_str(&format!("\tp{i}: [{r}, {r}, {r}, {r}]\n"));
    }
    text.push_str("services:\n\ts: [%p11%, %p11%]\n");
    let (params, sections, diags) = expand(&text);
    let errors: Vec<&Diagnostic> = diags.items().iter().collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code, Code::InvalidValue);
    assert!(errors[0].message.contains("65536 values"), "{errors:?}");
    assert!(errors[0].primary_span().is_some());
    assert!(
        errors[0].notes[0].starts_with("expanding: %p"),
        "{errors:?}"
    );
    // What passed the limit became null: the deepest levels hold no text any more.
    fn leaves(v: &Expr, out: &mut Vec<String>) {
        match &v.kind {
            ExprKind::Array(a) => a.values().for_each(|x| leaves(x, out)),
            k => out.push(format!("{k:?}")),
        }
    }
    let services = &sections["services"].1;
    let s = services.as_array().and_then(|a| a.get("s")).expect("s");
    for v in [s, &params.values["p11"]] {
        let mut found = Vec::new();
        leaves(v, &mut found);
        assert!(found.iter().all(|l| l == "Null"), "{found:?}");
    }

    // The same for text: a long string copied into lists.
    let long = "x".repeat(1 << 20);
    let mut text = format!("parameters:\n\tp0: '{}'\n", &long[..(1 << 20) - 1]);
    for i in 1..6 {
        let r = format!("%p{}%", i - 1);
        text.push_str(&format!("\tp{i}: [{r}, {r}, {r}, {r}]\n"));
    }
    let (_, _, diags) = expand(&text);
    assert_eq!(diags.items().len(), 1, "{:?}", diags.items());
    assert!(diags.items()[0].message.contains("16777216 bytes of text"));
}

#[test]
fn scalar_references_do_not_count_towards_the_node_limit() {
    // More references to a scalar than the node limit: each is written in the input.
    let n = MAX_EXPANDED_NODES + 10;
    let mut text = String::from("parameters:\n\tlimit: 5\n\tpair: [a, b]\nservices:\n\ts: [");
    text.push_str(&vec!["%limit%"; n].join(", "));
    text.push_str("]\n");
    let (_, sections, diags) = expand(&text);
    assert!(diags.is_empty(), "{:?}", diags.items());
    let s = sections["services"].1.as_array().and_then(|a| a.get("s"));
    let items = s.and_then(Expr::as_array).expect("a list");
    assert_eq!(items.len(), n);
    assert!(items.values().all(|v| matches!(v.kind, ExprKind::Int(5))));

    // A list counts all its values: half as many references to a pair pass the limit.
    let mut text = String::from("parameters:\n\tpair: [a, b]\nservices:\n\ts: [");
    text.push_str(&vec!["%pair%"; MAX_EXPANDED_NODES / 2].join(", "));
    text.push_str("]\n");
    let (_, _, diags) = expand(&text);
    assert_eq!(diags.items().len(), 1, "{:?}", diags.items());
    assert!(diags.items()[0].message.contains("65536 values"));
}

#[test]
fn ordinary_copies_stay_under_the_limits() {
    let (params, sections, diags) = expand(
        "parameters:\n\tdb: {host: h, port: 1}\n\tboth: [%db%, %db.host%]\nservices:\n\ts: X(%both%)\n",
    );
    assert!(diags.is_empty(), "{:?}", diags.items());
    assert_eq!(params.values.len(), 2);
    assert!(sections.contains_key("services"));
}
