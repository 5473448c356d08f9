//! Properties of the semantic plan diff: a plan does not differ from itself, and renumbering
//! anonymous services (what inserting one does in Nette) shows as renames only — no service
//! added, removed or changed, also where services refer to renumbered ones.

use proptest::prelude::*;
use serde_json::{json, Value as Json};
use wireplan::inspect::diff::diff_plans;
use wireplan_runtime::plan::Plan;

/// Anonymous services: (type index, index of an earlier service it refers to).
fn services() -> impl Strategy<Value = Vec<(u8, Option<usize>)>> {
    prop::collection::vec(
        (0u8..3, prop::option::of(any::<prop::sample::Index>())),
        1..8,
    )
    .prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, (t, r))| (t, r.filter(|_| i > 0).map(|r| r.index(i))))
            .collect()
    })
}

/// A plan whose service `i` (of `specs`) is named `names[i]`, listed in the order of `order`,
/// plus a named service `user` that refers to the last one.
fn plan(specs: &[(u8, Option<usize>)], names: &[String], order: &[usize]) -> Plan {
    let mut services = serde_json::Map::new();
    for &i in order {
        let (t, r) = specs[i];
        // The service's own number makes every definition distinct.
        let mut args = vec![json!(i)];
        if let Some(r) = r {
            args.push(json!({"$ref": names[r]}));
        }
        services.insert(
            names[i].clone(),
            json!({"type": format!("T{t}"), "create": {"$new": format!("T{t}"), "args": args}}),
        );
    }
    let last = names[specs.len() - 1].clone();
    services.insert(
        "user".into(),
        json!({"type": "U", "create": {"$new": "U", "args": [{"$ref": last}]}}),
    );
    let doc: Json = json!({
        "format": "wireplan-plan", "version": 1, "compiler": "wireplan test",
        "inputs_hash": "0", "services": services,
    });
    serde_json::from_value(doc).expect("a valid plan")
}

fn numbered(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{i:02}")).collect()
}

proptest! {
    #[test]
    fn a_plan_does_not_differ_from_itself(specs in services()) {
        let names = numbered(specs.len());
        let order: Vec<usize> = (0..specs.len()).collect();
        let p = plan(&specs, &names, &order);
        let d = diff_plans(&p, &p);
        prop_assert!(d.is_empty(), "{}", d.to_text());
    }

    #[test]
    fn renumbering_shows_as_renames_only(
        (specs, perm) in services().prop_flat_map(|s| {
            let n = s.len();
            (Just(s), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        })
    ) {
        let n = specs.len();
        let order: Vec<usize> = (0..n).collect();
        let old = plan(&specs, &numbered(n), &order);
        // Service perm[k] is defined k-th in the new plan, so it is numbered k + 1.
        let mut new_names = vec![String::new(); n];
        for (k, &i) in perm.iter().enumerate() {
            new_names[i] = format!("{:02}", k + 1);
        }
        let new = plan(&specs, &new_names, &perm);
        let d = diff_plans(&old, &new);
        prop_assert!(d.added.is_empty() && d.removed.is_empty(), "{}", d.to_text());
        prop_assert!(d.changed.is_empty(), "{}", d.to_text());
        let mut want: Vec<(String, String)> = (0..n)
            .map(|i| (format!("{:02}", i + 1), new_names[i].clone()))
            .filter(|(a, b)| a != b)
            .collect();
        let mut got: Vec<(String, String)> =
            d.renamed.iter().map(|r| (r.old.clone(), r.new.clone())).collect();
        want.sort();
        got.sort();
        prop_assert_eq!(got, want);
    }
}
