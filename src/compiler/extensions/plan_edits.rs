//! What an extension's `afterCompile(plan)` did to the plan document: the places it changed
//! (for errors), serde's complaints in the plan format's words, and the indexes derived from
//! the services brought up to date with the edits.

use wireplan_runtime::plan::{Plan, ServicePlan};

/// What a plan edit got wrong, in the plan format's words: where (`services › zzz`), and what
/// serde said with the Rust type names replaced by what docs/plan-format.md calls them (the
/// runtime words a malformed plan file's errors the same way).
pub(super) fn plan_format_error(e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    wireplan_runtime::encoding::plan_format_error(e)
}

/// How many malformed service entries an `afterCompile()` error lists.
pub(super) const MAX_ENTRY_ERRORS: usize = 20;

/// What is malformed in an edited plan `doc`, each worded as [`plan_format_error`] words it
/// at its full path: the first problem outside the service entries, then every malformed
/// service entry (up to [`MAX_ENTRY_ERRORS`], in plan order). serde stops at the first value
/// it cannot take, so the plan without its services and each service entry are decoded on
/// their own: a script that broke several entries hears of all of them. `first` (the error of
/// decoding the whole plan) is the answer when neither names anything (a `services` that is
/// no map, say).
pub(super) fn plan_format_errors(
    doc: &serde_json::Value,
    first: &serde_path_to_error::Error<serde_json::Error>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(mut rest) = doc.as_object().cloned() {
        rest.insert(
            "services".into(),
            serde_json::Value::Object(Default::default()),
        );
        if let Err(e) = serde_path_to_error::deserialize::<_, Plan>(serde_json::Value::Object(rest))
        {
            out.push(plan_format_error(&e));
        }
    }
    if let Some(services) = doc.get("services").and_then(serde_json::Value::as_object) {
        for (name, entry) in services {
            if out.len() == MAX_ENTRY_ERRORS {
                break;
            }
            let Err(e) = serde_path_to_error::deserialize::<_, ServicePlan>(entry) else {
                continue;
            };
            let inner = plan_format_error(&e);
            out.push(if e.path().iter().next().is_none() {
                format!("services › {name}: {inner}")
            } else {
                format!("services › {name} › {inner}")
            });
        }
    }
    if out.is_empty() {
        out.push(plan_format_error(first));
    }
    out
}

/// How many changed places of a plan an `afterCompile()` error lists before it counts the rest.
pub(super) const MAX_CHANGED_PATHS: usize = 10;

/// The places where `after` differs from `before`, as `services › db › args › 0` paths: a
/// changed, added or removed key or item (the first difference of a list whose length changed
/// is its own path), in document order. Stops descending once [`MAX_CHANGED_PATHS`] + 1 are
/// found (enough to say "and N more" was exceeded without walking a whole plan).
pub(super) fn changed_paths(
    before: &serde_json::Value,
    after: &serde_json::Value,
    path: &mut Vec<String>,
    out: &mut Vec<String>,
) {
    use serde_json::Value as J;
    if out.len() > MAX_CHANGED_PATHS || before == after {
        return;
    }
    let here = |path: &[String]| {
        if path.is_empty() {
            "the whole plan".to_string()
        } else {
            path.join(" › ")
        }
    };
    match (before, after) {
        (J::Object(a), J::Object(b)) => {
            for (k, v) in b {
                path.push(k.clone());
                match a.get(k) {
                    Some(old) => changed_paths(old, v, path, out),
                    None => out.push(format!("{} (added)", here(path))),
                }
                path.pop();
            }
            for k in a.keys().filter(|k| !b.contains_key(*k)) {
                path.push(k.clone());
                out.push(format!("{} (removed)", here(path)));
                path.pop();
            }
        }
        (J::Array(a), J::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                path.push(i.to_string());
                changed_paths(x, y, path, out);
                path.pop();
            }
        }
        _ => out.push(here(path)),
    }
}

/// After `afterCompile(plan)`: the indexes derived from the services, brought up to date with
/// the edits in `edited` (`original` is the plan before them). The tag index is rebuilt from
/// the services' tags (keeping `di › export › tags` filtering: a tag left out before stays
/// out); the autowiring index drops removed and no longer autowired services. An edit the
/// autowiring index cannot follow without the catalog (a changed `type`, or autowiring turned
/// on or restricted) is refused: one problem each; so is any direct edit of `tags` or `types`.
pub(super) fn rebuild_indexes(original: &Plan, edited: &mut Plan) -> Vec<String> {
    let mut problems = Vec::new();
    // The indexes are the compiler's, rebuilt below from the services: an edit made to them
    // directly would be dropped without a word.
    if edited.tags != original.tags {
        problems.push(
            "afterCompile() edited the tag index ('tags'), which the compiler derives from the \
             services' tags: set services › NAME › tags › TAG instead"
                .to_string(),
        );
    }
    if edited.types != original.types {
        problems.push(
            "afterCompile() edited the autowiring index ('types'), which the compiler derives \
             from the services' types and autowiring: change those in beforeCompile() instead"
                .to_string(),
        );
    }
    let filtered = original
        .services
        .values()
        .flat_map(|s| s.tags.keys())
        .any(|t| !original.tags.contains_key(t));
    let mut tags = crate::plan::tag_index(&edited.services);
    if filtered {
        tags.retain(|t, _| original.tags.contains_key(t));
    }
    edited.tags = tags;
    use wireplan_runtime::plan::Autowired;
    for (name, s) in &edited.services {
        let before = original.services.get(name.as_str());
        let type_changed = before.is_some_and(|b| b.type_ != s.type_);
        let autowiring_grew = match (before.map(|b| &b.autowired), &s.autowired) {
            (_, Autowired::All(false)) => false,
            (Some(b), now) => b != now,
            (None, _) => true,
        };
        if type_changed || autowiring_grew {
            problems.push(format!(
                "service '{name}': afterCompile() changed its {} or added it, which the autowiring index cannot follow after compilation; make the change in beforeCompile()",
                if type_changed { "type" } else { "autowiring" }
            ));
        }
    }
    let gone = |n: &wireplan_runtime::plan::Name| {
        edited
            .services
            .get(n.as_str())
            .is_none_or(|s| matches!(s.autowired, Autowired::All(false)))
    };
    for names in edited.types.values_mut() {
        names.retain(|n| !gone(n));
    }
    edited.types.retain(|_, names| !names.is_empty());
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde says about `plan`, as an afterCompile() error shows it.
    fn problem(plan: serde_json::Value) -> String {
        let Err(e) = serde_path_to_error::deserialize::<_, Plan>(plan) else {
            panic!("the plan should not read back");
        };
        plan_format_error(&e)
    }

    #[test]
    fn serde_errors_name_the_place_in_the_plan_formats_words() {
        let base = serde_json::json!({
            "format": "wireplan-plan", "version": 3, "compiler": "x", "inputs_hash": "0",
            "dependencies": [], "parameters": {},
            "services": {"a": {"type": "App\\X", "create": {"$new": "App\\X", "args": []}}},
        });
        let mut plan = base.clone();
        plan["services"]["zzz"] = serde_json::json!([]);
        assert_eq!(
            problem(plan),
            "services › zzz: expected a service entry (a map with `type` and `create`)"
        );
        let mut plan = base.clone();
        plan["services"]["zzz"] = serde_json::json!({});
        assert_eq!(problem(plan), "services › zzz: missing field `type`");
        let mut plan = base.clone();
        plan["services"]["a"]["autowired"] = serde_json::json!("yes");
        assert_eq!(
            problem(plan),
            "services › a › autowired: expected `autowired`: true, false or a list of types"
        );
        let mut plan = base.clone();
        plan["services"]["zzz"] = serde_json::json!({"type": "App\\X"});
        assert_eq!(problem(plan), "services › zzz: missing field `create`");
        let mut plan = base;
        plan["services"] = serde_json::json!([]);
        assert_eq!(
            problem(plan),
            "services: invalid type: sequence, expected a map"
        );
    }
}
