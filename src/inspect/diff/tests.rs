use super::*;
use serde_json::json;

fn plan(services: Json) -> Plan {
    serde_json::from_value(json!({
        "format": "wireplan-plan", "version": 1, "compiler": "wireplan 0.1.0",
        "inputs_hash": "00", "parameters": {"n": 5}, "services": services,
    }))
    .expect("plan")
}

/// A dynamic parameter's declaration decides whether the plan loads without it: a change
/// of it is a difference (it went unreported, `no differences`).
#[test]
fn dynamic_parameter_declarations_are_compared() {
    let services = json!({"a": {"type": "A", "create": {"$new": "A", "args": [{"$param": "r"}]}}});
    let mut old = plan(services.clone());
    old.dynamic =
        serde_json::from_value(json!({"r": {"type": "int", "required": true}})).expect("dynamic");
    let mut new = plan(services);
    new.dynamic = serde_json::from_value(json!({"r": {"type": "int", "default": 5}, "s": {}}))
        .expect("dynamic");
    let d = diff_plans(&old, &new);
    assert!(!d.is_empty());
    assert_eq!(
        d.to_text(),
        "dynamic parameters:\n  ~ r: int, required → int, default 5\n  + s: declared\n"
    );
    assert_eq!(
        d.to_json()["dynamic"][0]["old"],
        json!({"type": "int", "required": true})
    );
}

/// The parameter names a plan was compiled for decide which registries load it: a change is
/// a difference between two version-4 plans, and not looked for when one plan is older.
#[test]
fn parameter_names_are_compared_between_plans_that_record_them() {
    let services = json!({"a": {"type": "A", "create": {"$new": "A", "args": [1, 2]}}});
    let mut old = plan(services.clone());
    old.version = 4;
    old.signatures = serde_json::from_value(json!({"A": "min, max", "A::go": "x"})).unwrap();
    let mut new = plan(services);
    new.version = 4;
    new.signatures = serde_json::from_value(json!({"A": "max, min", "B": "y"})).unwrap();
    let d = diff_plans(&old, &new);
    assert_eq!(
        d.to_text(),
        "parameter names (signatures):\n  ~ A: ($min, $max) → ($max, $min)\n  - A::go: ($x)\n  \
         + B: ($y)\n"
    );
    assert_eq!(d.to_json()["signatures"][0]["new"], json!("max, min"));
    assert_eq!(d.to_json()["same"], json!(false));
    // An older plan has no section: nothing to compare, the plans are the same.
    old.version = 3;
    old.signatures.clear();
    assert!(diff_plans(&old, &new).is_empty());
}

/// A changed argument of `create` names its parameter when the new plan's signatures do;
/// the JSON form gives it as `parameter`.
#[test]
fn a_changed_argument_names_its_parameter() {
    let old = plan(json!({"a": {"type": "A", "create": {"$new": "A", "args": [1, 5]}}}));
    let mut new = plan(json!({"a": {"type": "A", "create": {"$new": "A", "args": [1, 10]}}}));
    new.version = 4;
    new.signatures = serde_json::from_value(json!({"A": "db, perPage"})).unwrap();
    let d = diff_plans(&old, &new);
    let lines: Vec<String> = d.changed[0].changes.iter().map(Change::to_text).collect();
    assert_eq!(lines, ["~ create.args[1] ($perPage): 5 → 10"]);
    assert_eq!(
        d.to_json()["changed"][0]["changes"][0]["parameter"],
        json!("perPage")
    );
    // Without signatures (an older plan), by position only.
    new.signatures.clear();
    let d = diff_plans(&old, &new);
    assert_eq!(
        d.changed[0].changes[0].to_text(),
        "~ create.args[1]: 5 → 10"
    );
    assert!(d.to_json()["changed"][0]["changes"][0]
        .get("parameter")
        .is_none());
}

/// A name with a line break or an escape character, read from a plan file, is shown
/// escaped on its one line (added, removed and changed services alike).
#[test]
fn names_from_the_plan_are_shown_on_one_line() {
    let old = plan(json!({
        "gone\nhere": {"type": "A", "create": {"$new": "A", "args": []}},
        "kept": {"type": "A", "create": {"$new": "A", "args": ["a\nb"]}},
    }));
    let new = plan(json!({
        "x\u{1b}[31mRED\nnewline": {"type": "B", "create": {"$new": "B", "args": []}},
        "kept": {"type": "A", "create": {"$new": "A", "args": ["c\nd"]}},
    }));
    let text = diff_plans(&old, &new).to_text();
    assert!(
        text.contains("  + x\\u{1b}[31mRED\\nnewline (B)\n"),
        "{text}"
    );
    assert!(text.contains("  - gone\\nhere (A)\n"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
    // Every line is a heading or an indented entry: no line was broken.
    for line in text.lines() {
        assert!(
            line.starts_with("  ") || line.ends_with(':'),
            "broken line {line:?} in {text}"
        );
    }
}

#[test]
fn same_plan_is_empty() {
    let p = plan(json!({"a": {"type": "A", "create": {"$new": "A", "args": []}}}));
    let d = diff_plans(&p, &p);
    assert!(d.is_empty());
    assert_eq!(d.to_text(), "no differences\n");
    assert_eq!(d.to_json()["same"], true);
}

#[test]
fn inserted_anonymous_service_renumbers_the_others() {
    let old = plan(json!({
        "01": {"type": "A", "create": {"$new": "A", "args": []}},
        "02": {"type": "B", "create": {"$new": "B", "args": [{"$ref": "01"}]}},
        "user": {"type": "U", "create": {"$new": "U", "args": [{"$ref": "02"}]}},
    }));
    let new = plan(json!({
        "01": {"type": "C", "create": {"$new": "C", "args": []}},
        "02": {"type": "A", "create": {"$new": "A", "args": []}},
        "03": {"type": "B", "create": {"$new": "B", "args": [{"$ref": "02"}]}},
        "user": {"type": "U", "create": {"$new": "U", "args": [{"$ref": "03"}]}},
    }));
    let d = diff_plans(&old, &new);
    let renamed: Vec<(&str, &str)> = d
        .renamed
        .iter()
        .map(|r| (r.old.as_str(), r.new.as_str()))
        .collect();
    assert_eq!(renamed, [("01", "02"), ("02", "03")]);
    assert_eq!(
        d.added,
        [ServiceRef {
            name: "01".into(),
            type_: "C".into()
        }]
    );
    assert!(d.removed.is_empty());
    assert!(d.changed.is_empty(), "{:?}", d.changed);
}

/// A removed anonymous service whose number another one took over: the old value is shown
/// as the old plan has it, not with both references under the new number (an operator's
/// trial read `[@01, @01] → [@01]` for `[@01, @02] → [@01]`).
#[test]
fn a_removed_anonymous_service_is_shown_under_its_old_number() {
    let old = plan(json!({
        "01": {"type": "Email", "create": {"$new": "Email", "args": []}},
        "02": {"type": "Log", "create": {"$new": "Log", "args": []}},
        "blog": {"type": "Blog", "create": {"$new": "Blog", "args": [[{"$ref": "01"}, {"$ref": "02"}]]},
                 "setup": [{"$call": ["@self", "add"], "args": [{"$ref": "02"}]}]},
    }));
    let new = plan(json!({
        "01": {"type": "Log", "create": {"$new": "Log", "args": []}},
        "blog": {"type": "Blog", "create": {"$new": "Blog", "args": [[{"$ref": "01"}]]},
                 "setup": [{"$call": ["@self", "add"], "args": [{"$ref": "01"}]}]},
    }));
    let d = diff_plans(&old, &new);
    assert_eq!(d.renamed.len(), 1);
    assert_eq!(
        (d.renamed[0].old.as_str(), d.renamed[0].new.as_str()),
        ("02", "01")
    );
    assert_eq!(d.removed.len(), 1);
    let lines: Vec<String> = d.changed[0].changes.iter().map(Change::to_text).collect();
    // The setup's reference was renumbered only: no change.
    assert_eq!(lines, ["~ create.args[0]: [@01, @02] → [@01]"]);
    assert_eq!(
        d.changed[0].changes[0].old,
        Some(json!([{"$ref": "01"}, {"$ref": "02"}]))
    );
}

#[test]
fn field_changes_are_listed() {
    let old = plan(json!({
        "a": {"type": "A", "lifespan": "singleton", "tags": {"x": 1},
              "create": {"$new": "A", "args": [1, 2]},
              "setup": [{"$call": ["@self", "m"], "args": []}]},
    }));
    let new = plan(json!({
        "a": {"type": "A", "lifespan": "transient", "tags": {"y": true}, "autowired": false,
              "create": {"$new": "A", "args": [1, 3]}},
    }));
    let d = diff_plans(&old, &new);
    let lines: Vec<String> = d.changed[0].changes.iter().map(Change::to_text).collect();
    assert_eq!(
        lines,
        [
            "~ lifespan: singleton → transient",
            "~ autowired: yes → no",
            "- tags.x: 1",
            "+ tags.y: true",
            "~ create.args[1]: 2 → 3",
            "- setup[0]: @self::m()",
        ]
    );
    assert_eq!(d.to_json()["changed"][0]["changes"][0]["new"], "transient");
}

#[test]
fn aliases_setup_insertions_and_initialization_are_compared() {
    let mut old = plan(json!({
        "01": {"type": "A", "create": {"$new": "A", "args": []}},
        "s": {"type": "S", "create": {"$new": "S", "args": []},
              "setup": [{"$call": ["@self", "a"], "args": []},
                        {"$call": ["@self", "c"], "args": []}]},
    }));
    old.aliases.insert("first".into(), "01".into());
    old.aliases.insert("gone".into(), "s".into());
    old.initialization = vec![Expr::Ref("s".into())];
    let mut new = plan(json!({
        "01": {"type": "Z", "create": {"$new": "Z", "args": []}},
        "02": {"type": "A", "create": {"$new": "A", "args": []}},
        "s": {"type": "S", "create": {"$new": "S", "args": []},
              "setup": [{"$call": ["@self", "a"], "args": []},
                        {"$call": ["@self", "b"], "args": [1]},
                        {"$call": ["@self", "c"], "args": []}]},
    }));
    // The alias follows its renumbered service: no change.
    new.aliases.insert("first".into(), "02".into());
    new.aliases.insert("added".into(), "s".into());
    new.initialization = vec![Expr::Ref("s".into()), Expr::Ref("02".into())];
    let d = diff_plans(&old, &new);
    let texts = |cs: &[Change]| cs.iter().map(Change::to_text).collect::<Vec<_>>();
    assert_eq!(texts(&d.aliases), ["- gone: → s", "+ added: → s"]);
    assert_eq!(texts(&d.changed[0].changes), ["+ setup[1]: @self::b(1)"]);
    assert_eq!(texts(&d.initialization), ["+ initialization[1]: @02"]);
    assert_eq!(d.renamed.len(), 1);
    assert_eq!(d.added[0].name, "01");
}
