//! The semantic difference between two plans (`wireplan diff OLD NEW`, the REPL's `:diff`).
//!
//! Compared: services added and removed; anonymous services (Nette names them `01`, `02`, …
//! in definition order, so inserting one renumbers the rest) matched by content and reported
//! as renamed rather than removed and added; per service its kind, type, lifespan,
//! autowiring, tags, `create` (argument by argument when the callee is the same), setup,
//! implemented interface, factory parameters and locator references; aliases; static
//! parameters; the dynamic parameters' declarations; initialization; the parameter names of
//! the `signatures` section (the registry a plan loads with must declare them), when both
//! plans have one (version 4). References to a renamed anonymous service are compared under
//! its new name, so the renumbering does not show up again in every service that uses it.
//!
//! Not compared: the header (compiler, input hash, dependencies — they change with every
//! edit), source locations, and the derived indexes (`types`, `tags`), whose changes show as
//! the autowiring and tag changes of the services.

use super::show::{autowired_text, word};
use super::text;
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::fmt::Write as _;
use wireplan_runtime::plan::{
    dollar_names, recorded_names, signature_names, CallTarget, Expr, Name, NameMap, Plan,
    ServicePlan,
};

/// What happened to one field or entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Only in the new plan.
    Added,
    /// Only in the old plan.
    Removed,
    /// In both, with different values.
    Changed,
}

/// One difference: a field path (`lifespan`, `create.args[1]`, `tags.cache`, `setup[0]`, a
/// parameter or alias name) with its old and new value (absent for an added or removed one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The field path.
    pub field: String,
    /// Added, removed or changed.
    pub change: ChangeKind,
    /// The old value (plan JSON), when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Json>,
    /// The new value (plan JSON), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Json>,
    /// For an argument of `create` (`create.args[1]`): the parameter it is passed to, as the
    /// new plan's `signatures` name it (`perPage`), when they do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    /// The old value as text, for people.
    #[serde(skip)]
    old_text: Option<String>,
    /// The new value as text, for people.
    #[serde(skip)]
    new_text: Option<String>,
}

impl Change {
    fn new(
        field: impl Into<String>,
        old: Option<(Json, String)>,
        new: Option<(Json, String)>,
    ) -> Change {
        let change = match (&old, &new) {
            (None, Some(_)) => ChangeKind::Added,
            (Some(_), None) => ChangeKind::Removed,
            _ => ChangeKind::Changed,
        };
        let (old, old_text) = old.map_or((None, None), |(j, t)| (Some(j), Some(t)));
        let (new, new_text) = new.map_or((None, None), |(j, t)| (Some(j), Some(t)));
        Change {
            field: field.into(),
            change,
            old,
            new,
            parameter: None,
            old_text,
            new_text,
        }
    }

    fn expr(field: impl Into<String>, old: Option<&Expr>, new: Option<&Expr>) -> Change {
        let v = |e: &Expr| (e.to_json(), text::expr(e));
        Change::new(field, old.map(v), new.map(v))
    }

    /// `field: old → new`, `+ field: new` or `- field: old`; an argument's field with its
    /// parameter (`create.args[1] ($perPage)`).
    pub fn to_text(&self) -> String {
        let old = self.old_text.as_deref().unwrap_or("");
        let new = self.new_text.as_deref().unwrap_or("");
        let field = match &self.parameter {
            Some(p) => format!("{} (${p})", self.field),
            None => self.field.clone(),
        };
        match self.change {
            ChangeKind::Added => format!("+ {field}: {new}"),
            ChangeKind::Removed => format!("- {field}: {old}"),
            ChangeKind::Changed => format!("~ {field}: {old} → {new}"),
        }
    }
}

/// A service only in one of the plans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServiceRef {
    /// Its name.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub type_: String,
}

/// An anonymous service whose number changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rename {
    /// The name in the old plan.
    pub old: String,
    /// The name in the new plan.
    pub new: String,
    /// Its type (in the new plan).
    #[serde(rename = "type")]
    pub type_: String,
}

/// The changes of one service present in both plans (under the same name, or renamed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceChange {
    /// The name in the new plan.
    pub name: String,
    /// The name in the old plan, when it was renamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_name: Option<String>,
    /// The differences, in field order.
    pub changes: Vec<Change>,
}

/// The semantic difference between two plans; empty when they describe the same container.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct PlanDiff {
    /// Services only in the new plan.
    pub added: Vec<ServiceRef>,
    /// Services only in the old plan.
    pub removed: Vec<ServiceRef>,
    /// Anonymous services matched by content under another number.
    pub renamed: Vec<Rename>,
    /// Services in both plans that differ.
    pub changed: Vec<ServiceChange>,
    /// Alias changes (field = the alias).
    pub aliases: Vec<Change>,
    /// Static parameter changes (field = the parameter).
    pub parameters: Vec<Change>,
    /// Changes of the dynamic parameters' declarations (field = the parameter): its type,
    /// default, `required` and `sensitive` decide whether and how the plan loads.
    pub dynamic: Vec<Change>,
    /// Initialization changes (`initialization[i]`).
    pub initialization: Vec<Change>,
    /// Changes of the parameter names a plan was compiled for (field = `App\Repo` for a
    /// constructor, `App\Repo::connect` for a method): a registry that loads one plan
    /// refuses the other. Compared only when both plans are of version 4 or later (earlier
    /// plans have no such section).
    pub signatures: Vec<Change>,
}

/// Whether a name is one Nette gives to anonymous services (`01`, `02`, …).
pub fn is_anonymous(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

/// The difference from `old` to `new` (see the [module docs](self)).
pub fn diff_plans(old: &Plan, new: &Plan) -> PlanDiff {
    let renames = match_anonymous(old, new);
    // Services that kept their number need no rewriting of the references to them.
    let moved: IndexMap<String, String> = renames
        .iter()
        .filter(|(o, n)| o != n)
        .map(|(o, n)| (o.clone(), n.clone()))
        .collect();
    let mapped = |e: &Expr| rename_refs(e, &moved);
    let mut diff = PlanDiff::default();

    // Pairs of services to compare: (old name, new name).
    let renamed_from: HashMap<&str, &str> = renames
        .iter()
        .map(|(o, n)| (n.as_str(), o.as_str()))
        .collect();
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (name, _) in &new.services {
        if is_anonymous(name) {
            if let Some(o) = renamed_from.get(name.as_str()) {
                pairs.push((o, name.as_str()));
            } else {
                diff.added.push(service_ref(name, &new.services[name]));
            }
        } else if old.services.contains_key(name) {
            pairs.push((name.as_str(), name.as_str()));
        } else {
            diff.added.push(service_ref(name, &new.services[name]));
        }
    }
    for (name, s) in &old.services {
        let kept = if is_anonymous(name) {
            renames.contains_key(name.as_str())
        } else {
            new.services.contains_key(name)
        };
        if !kept {
            diff.removed.push(service_ref(name, s));
        }
    }
    for (o, n) in pairs {
        let changes = service_changes(&old.services[o], &new.services[n], &mapped, &new.signatures);
        if o != n {
            diff.renamed.push(Rename {
                old: o.to_string(),
                new: n.to_string(),
                type_: new.services[n].type_.to_string(),
            });
        }
        if !changes.is_empty() {
            diff.changed.push(ServiceChange {
                name: n.to_string(),
                old_name: (o != n).then(|| o.to_string()),
                changes,
            });
        }
    }

    let target = |t: &str| renames.get(t).cloned().unwrap_or_else(|| t.to_string());
    let word_pair = |s: String| (Json::String(s.clone()), format!("→ {s}"));
    keyed(
        &old.aliases,
        &new.aliases,
        |a, b| target(a) == *b,
        |t| word_pair(target(t)),
        |t| word_pair(t.to_string()),
        &mut diff.aliases,
        "",
    );
    let expr_pair = |e: &Expr| (e.to_json(), text::expr(e));
    keyed(
        &old.parameters,
        &new.parameters,
        |a, b| a == b,
        expr_pair,
        expr_pair,
        &mut diff.parameters,
        "",
    );
    let declared = |d: &wireplan_runtime::dynamic::DynamicParam| {
        (
            serde_json::to_value(d).unwrap_or(Json::Null),
            dynamic_text(d),
        )
    };
    keyed(
        &old.dynamic,
        &new.dynamic,
        |a, b| a == b,
        declared,
        declared,
        &mut diff.dynamic,
        "",
    );
    if old.version >= 4 && new.version >= 4 {
        let names = |n: &Name| {
            let shown = format!("({})", dollar_names(recorded_names(n)));
            (Json::String(n.to_string()), shown)
        };
        keyed(
            &old.signatures,
            &new.signatures,
            |a, b| a == b,
            names,
            names,
            &mut diff.signatures,
            "",
        );
    }
    listed(
        &old.initialization,
        &new.initialization,
        "initialization",
        &mapped,
        &mut diff.initialization,
    );
    diff
}

fn service_ref(name: &str, s: &ServicePlan) -> ServiceRef {
    ServiceRef {
        name: name.to_string(),
        type_: s.type_.to_string(),
    }
}

/// Matches the old plan's anonymous services to the new plan's by content: first services
/// equal in everything but the source location (references compared through the matches found
/// so far, repeated until nothing new matches), then the remaining ones of the same type, in
/// order. A service keeps its own number when that one fits. Returns old name → new name.
/// Each round is linear in the plans' size (the new services are indexed by content).
fn match_anonymous(old: &Plan, new: &Plan) -> IndexMap<String, String> {
    let no_renames = IndexMap::new();
    let mut by_content: HashMap<String, Vec<&str>> = HashMap::new();
    for (name, s) in new.services.iter().filter(|(n, _)| is_anonymous(n)) {
        by_content
            .entry(comparable(s, &no_renames).to_string())
            .or_default()
            .push(name);
    }
    let mut map: IndexMap<String, String> = IndexMap::new();
    let mut pending: Vec<&str> = old
        .services
        .keys()
        .map(|n| n.as_str())
        .filter(|n| is_anonymous(n))
        .collect();
    // Takes `own` out of `candidates` when it is there, else the first one.
    fn take<'a>(candidates: &mut Vec<&'a str>, own: &str) -> Option<&'a str> {
        if candidates.is_empty() {
            return None;
        }
        let at = candidates.iter().position(|c| *c == own).unwrap_or(0);
        Some(candidates.remove(at))
    }
    loop {
        let before = pending.len();
        pending.retain(|o| {
            let key = comparable(&old.services[*o], &map).to_string();
            match by_content.get_mut(&key).and_then(|c| take(c, o)) {
                Some(n) => {
                    map.insert(o.to_string(), n.to_string());
                    false
                }
                None => true,
            }
        });
        if pending.is_empty() || pending.len() == before {
            break;
        }
    }
    let mut by_type: HashMap<&str, Vec<&str>> = HashMap::new();
    for names in by_content.into_values() {
        for n in names {
            by_type.entry(&new.services[n].type_).or_default().push(n);
        }
    }
    // Definition order within a type, whatever order the content index gave.
    let position = |n: &str| new.services.get_index_of(n).unwrap_or(usize::MAX);
    by_type
        .values_mut()
        .for_each(|v| v.sort_by_key(|n| position(n)));
    for o in pending {
        let ty = old.services[o].type_.as_str();
        if let Some(n) = by_type.get_mut(ty).and_then(|c| take(c, o)) {
            map.insert(o.to_string(), n.to_string());
        }
    }
    map
}

/// A service's JSON without its source location, references renamed through `map`.
fn comparable(s: &ServicePlan, map: &IndexMap<String, String>) -> Json {
    let mut j = serde_json::to_value(s).unwrap_or(Json::Null);
    if let Json::Object(o) = &mut j {
        o.shift_remove("source");
    }
    rename_json(&mut j, map);
    j
}

/// `e` with every `{"$ref": old}` replaced by `{"$ref": new}` for the pairs in `map`.
fn rename_refs(e: &Expr, map: &IndexMap<String, String>) -> Expr {
    if map.is_empty() {
        return e.clone();
    }
    let mut j = e.to_json();
    rename_json(&mut j, map);
    Expr::from_json(&j).unwrap_or_else(|_| e.clone())
}

fn rename_json(j: &mut Json, map: &IndexMap<String, String>) {
    match j {
        Json::Object(o) => {
            if o.len() == 1 {
                if let Some(Json::String(name)) = o.get_mut("$ref") {
                    if let Some(n) = map.get(name.as_str()) {
                        *name = n.clone();
                    }
                    return;
                }
            }
            o.values_mut().for_each(|v| rename_json(v, map));
        }
        Json::Array(a) => a.iter_mut().for_each(|v| rename_json(v, map)),
        _ => {}
    }
}

fn service_changes(
    old: &ServicePlan,
    new: &ServicePlan,
    mapped: &dyn Fn(&Expr) -> Expr,
    names: &NameMap<Name>,
) -> Vec<Change> {
    let mut out = Vec::new();
    let plain = |field: &str, a: String, b: String, out: &mut Vec<Change>| {
        if a != b {
            out.push(Change::new(
                field,
                Some((Json::String(a.clone()), a)),
                Some((Json::String(b.clone()), b)),
            ));
        }
    };
    plain("kind", word(&old.kind), word(&new.kind), &mut out);
    plain(
        "type",
        old.type_.to_string(),
        new.type_.to_string(),
        &mut out,
    );
    plain(
        "lifespan",
        word(&old.lifespan),
        word(&new.lifespan),
        &mut out,
    );
    if old.autowired != new.autowired {
        let v = |a: &wireplan_runtime::plan::Autowired| {
            (
                serde_json::to_value(a).unwrap_or(Json::Null),
                autowired_text(a),
            )
        };
        out.push(Change::new(
            "autowired",
            Some(v(&old.autowired)),
            Some(v(&new.autowired)),
        ));
    }
    if old.implement != new.implement {
        let v = |i: &Option<String>| i.clone().map(|s| (Json::String(s.clone()), s));
        out.push(Change::new(
            "implement",
            v(&old.implement),
            v(&new.implement),
        ));
    }
    if old.parameters != new.parameters {
        let v = |p: &[String]| Some((serde_json::json!(p), p.join(", ")));
        out.push(Change::new(
            "parameters",
            v(&old.parameters),
            v(&new.parameters),
        ));
    }
    // Old statements are compared with their references renamed to the new numbers, and
    // shown as the old plan has them: a reference to a removed anonymous service whose number
    // another one took over would otherwise read as that one (`[@01, @01] → [@01]` for
    // `[@01, @02] → [@01]`; an operator's trial).
    let expr_pair = |e: &Expr| (e.to_json(), text::expr(e));
    let same = |a: &Expr, b: &Expr| mapped(a) == *b;
    keyed(
        &old.tags, &new.tags, same, expr_pair, expr_pair, &mut out, "tags.",
    );
    create_changes(&old.create, &new.create, mapped, names, &mut out);
    listed(&old.setup, &new.setup, "setup", mapped, &mut out);
    keyed(
        &old.references,
        &new.references,
        same,
        expr_pair,
        expr_pair,
        &mut out,
        "references.",
    );
    out
}

/// `create` argument by argument when both call the same constructor or method with as many
/// arguments, each with its parameter's name when the new plan's `signatures` (`names`) give
/// it; as a whole otherwise. `old` is compared as `mapped` renames its references, and shown
/// as it is.
fn create_changes(
    old: &Expr,
    new: &Expr,
    mapped: &dyn Fn(&Expr) -> Expr,
    names: &NameMap<Name>,
    out: &mut Vec<Change>,
) {
    let compared = mapped(old);
    if compared == *new {
        return;
    }
    let args = |e: &Expr| -> Option<(String, Vec<Expr>)> {
        match e {
            Expr::New { class, args } => Some((format!("new {class}"), args.clone())),
            Expr::Call {
                target,
                method,
                args,
            } => {
                let head = Expr::Callable {
                    target: target.clone(),
                    method: method.clone(),
                };
                Some((text::expr(&head), args.clone()))
            }
            _ => None,
        }
    };
    match (args(&compared), args(old), args(new)) {
        (Some((h1, a1)), Some((_, shown)), Some((h2, a2))) if h1 == h2 && a1.len() == a2.len() => {
            let called = match new {
                Expr::New { class, .. } => Some((class.as_str(), None)),
                Expr::Call {
                    target: CallTarget::Class(class),
                    method,
                    ..
                } => Some((class.as_str(), Some(method.as_str()))),
                _ => None,
            };
            let params = called
                .and_then(|(class, method)| signature_names(names, class, method, a2.len()))
                .unwrap_or_default();
            for (i, ((a, b), s)) in a1.iter().zip(&a2).zip(&shown).enumerate() {
                if a != b {
                    let mut c = Change::expr(format!("create.args[{i}]"), Some(s), Some(b));
                    c.parameter = params.get(i).map(|p| p.to_string());
                    out.push(c);
                }
            }
        }
        _ => out.push(Change::expr("create", Some(old), Some(new))),
    }
}

/// Differences of two maps: removed, changed and added keys (field = `prefix` + key).
fn keyed<K: std::hash::Hash + Eq + std::fmt::Display, V, S: std::hash::BuildHasher>(
    old: &IndexMap<K, V, S>,
    new: &IndexMap<K, V, S>,
    same: impl Fn(&V, &V) -> bool,
    old_value: impl Fn(&V) -> (Json, String),
    new_value: impl Fn(&V) -> (Json, String),
    out: &mut Vec<Change>,
    prefix: &str,
) {
    for (k, a) in old {
        match new.get(k) {
            None => out.push(Change::new(
                format!("{prefix}{k}"),
                Some(old_value(a)),
                None,
            )),
            Some(b) if !same(a, b) => out.push(Change::new(
                format!("{prefix}{k}"),
                Some(old_value(a)),
                Some(new_value(b)),
            )),
            Some(_) => {}
        }
    }
    for (k, b) in new {
        if !old.contains_key(k) {
            out.push(Change::new(
                format!("{prefix}{k}"),
                None,
                Some(new_value(b)),
            ));
        }
    }
}

/// A dynamic parameter's declaration as `show` words it: `int, default 5, required, sensitive`
/// (`declared` when it says nothing more).
fn dynamic_text(d: &wireplan_runtime::dynamic::DynamicParam) -> String {
    let facts = text::dynamic_facts(d);
    if facts.is_empty() {
        "declared".to_string()
    } else {
        facts.join(", ")
    }
}

/// Differences of two ordered lists (setup, initialization): when only some items differ,
/// `field[i]` for each position that differs; when the lengths differ, the items of the old
/// list that are gone and of the new one that are new (by position in their list). Old
/// items are compared as `mapped` renames their references, and shown as they are.
fn listed(
    old: &[Expr],
    new: &[Expr],
    field: &str,
    mapped: &dyn Fn(&Expr) -> Expr,
    out: &mut Vec<Change>,
) {
    let compared: Vec<Expr> = old.iter().map(mapped).collect();
    if compared == new {
        return;
    }
    if old.len() == new.len() {
        for (i, ((c, b), a)) in compared.iter().zip(new).zip(old).enumerate() {
            if c != b {
                out.push(Change::expr(format!("{field}[{i}]"), Some(a), Some(b)));
            }
        }
        return;
    }
    let mut unmatched: Vec<Option<&Expr>> = new.iter().map(Some).collect();
    for (i, (a, c)) in old.iter().zip(&compared).enumerate() {
        match unmatched.iter_mut().find(|b| *b == &Some(c)) {
            Some(slot) => *slot = None,
            None => out.push(Change::expr(format!("{field}[{i}]"), Some(a), None)),
        }
    }
    for (i, b) in unmatched.into_iter().enumerate() {
        if let Some(b) = b {
            out.push(Change::expr(format!("{field}[{i}]"), None, Some(b)));
        }
    }
}

impl PlanDiff {
    /// Whether the plans describe the same container.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.renamed.is_empty()
            && self.changed.is_empty()
            && self.aliases.is_empty()
            && self.parameters.is_empty()
            && self.dynamic.is_empty()
            && self.initialization.is_empty()
            && self.signatures.is_empty()
    }

    /// The JSON form (`wireplan diff --format json`): `{"same", "added", "removed",
    /// "renamed", "changed", "aliases", "parameters", "dynamic", "initialization",
    /// "signatures"}`.
    pub fn to_json(&self) -> Json {
        let mut j = serde_json::to_value(self).unwrap_or(Json::Null);
        if let Json::Object(o) = &mut j {
            o.shift_insert(0, "same".into(), Json::Bool(self.is_empty()));
        }
        j
    }

    /// The text form: one section per kind of change, `no differences` when empty.
    pub fn to_text(&self) -> String {
        if self.is_empty() {
            return "no differences\n".into();
        }
        // Names, types and values come from the plan files: each line shows them escaped, so
        // a line break or a control character in one can neither break the list nor act on
        // the terminal (as `show` and `graph` show them).
        let l = |t: &str| text::one_line(t);
        let mut out = String::new();
        if !self.added.is_empty() {
            let _ = writeln!(out, "services added ({}):", self.added.len());
            for s in &self.added {
                let _ = writeln!(out, "  + {} ({})", l(&s.name), l(&s.type_));
            }
        }
        if !self.removed.is_empty() {
            let _ = writeln!(out, "services removed ({}):", self.removed.len());
            for s in &self.removed {
                let _ = writeln!(out, "  - {} ({})", l(&s.name), l(&s.type_));
            }
        }
        if !self.renamed.is_empty() {
            let _ = writeln!(
                out,
                "anonymous services renumbered ({}):",
                self.renamed.len()
            );
            for r in &self.renamed {
                let _ = writeln!(out, "  {} → {} ({})", l(&r.old), l(&r.new), l(&r.type_));
            }
        }
        for s in &self.changed {
            match &s.old_name {
                Some(o) => {
                    let _ = writeln!(out, "service {} (was {}):", l(&s.name), l(o));
                }
                None => {
                    let _ = writeln!(out, "service {}:", l(&s.name));
                }
            }
            for c in &s.changes {
                let _ = writeln!(out, "  {}", l(&c.to_text()));
            }
        }
        for (title, list) in [
            ("aliases", &self.aliases),
            ("parameters", &self.parameters),
            ("dynamic parameters", &self.dynamic),
            ("initialization", &self.initialization),
            ("parameter names (signatures)", &self.signatures),
        ] {
            if !list.is_empty() {
                let _ = writeln!(out, "{title}:");
                for c in list {
                    let _ = writeln!(out, "  {}", l(&c.to_text()));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
