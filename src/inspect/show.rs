//! What a plan holds, without the configuration (`wireplan show PLAN [SERVICE]`): for
//! deployment checks, "is the plan on the server the one I expect?".
//!
//! [`summary`] answers for the whole plan (header, parameters, services, aliases);
//! [`service`] for one service, in full. Both serialise to JSON (`--format json`) and render as
//! aligned text.

use super::plan_file::{encoding_name, PlanFile};
use super::text;
use crate::diagnostics::{Code, Diagnostic};
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value as Json;
use std::fmt::Write as _;
use wireplan_runtime::plan::{Autowired, Expr, Plan, ServiceKind, ServicePlan};

/// The overview of a plan.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PlanSummary {
    /// The file as given.
    pub file: String,
    /// `"json"` or `"binary"`.
    pub encoding: &'static str,
    /// The plan's `format` field (`"wireplan-plan"`).
    pub format: String,
    /// The plan's version.
    pub version: u32,
    /// The compiler that wrote it (`"wireplan 0.1.0"`).
    pub compiler: String,
    /// The hash over all input files.
    pub inputs_hash: String,
    /// How many files the plan was compiled from.
    pub dependencies: usize,
    /// How many constructors and methods the plan's `signatures` section names (plan version
    /// 4): the parameter names the load compares with the registry's.
    pub signatures: usize,
    /// Static parameters with their values (the plan's JSON form).
    pub parameters: IndexMap<String, Expr>,
    /// Dynamic parameters the services read at start-up (`$param`) and those the plan
    /// declares (its `dynamic` section), sorted.
    pub dynamic_parameters: Vec<String>,
    /// The plan's `dynamic` section: type, default, required, sensitive per parameter.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub dynamic_declared: IndexMap<String, wireplan_runtime::dynamic::DynamicParam>,
    /// Every service, in plan order.
    pub services: Vec<ServiceRow>,
    /// Alias → service.
    pub aliases: IndexMap<String, String>,
    /// How many initialization steps `Container::initialize()` runs.
    pub initialization: usize,
}

/// One service in the overview.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ServiceRow {
    /// Service name.
    pub name: String,
    /// Definition kind.
    pub kind: ServiceKind,
    /// The service's type.
    #[serde(rename = "type")]
    pub type_: String,
    /// Lifespan.
    pub lifespan: wireplan_runtime::plan::Lifespan,
    /// `true`, `false`, or the types it is autowired for.
    pub autowired: Autowired,
    /// Tag names, in plan order.
    pub tags: Vec<String>,
}

/// One service in full.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ServiceEntry {
    /// Service name (an alias given to [`service`] is resolved to it).
    pub name: String,
    /// The plan's entry, as in the plan file.
    #[serde(flatten)]
    pub plan: ServicePlan,
    /// The types the autowiring index resolves to this service (preferred or not).
    pub autowired_for: Vec<String>,
    /// Aliases of this service.
    pub aliases: Vec<String>,
    /// The services its creation, setup and references use, in order of appearance.
    pub uses: Vec<String>,
    /// The services whose creation, setup or references use it, in plan order.
    pub needed_by: Vec<String>,
    /// The plan's `signatures` section, to show the arguments of calls by parameter name
    /// ([`text::expr_named`]; the JSON form has the plan's positional arguments).
    #[serde(skip)]
    pub signatures: wireplan_runtime::plan::NameMap<wireplan_runtime::plan::Name>,
}

/// The overview of `file`'s plan.
pub fn summary(file: &PlanFile) -> PlanSummary {
    let plan = &file.plan;
    let mut dynamic = Vec::new();
    let mut collect = |e: &Expr| params_in(e, &mut dynamic);
    for s in plan.services.values() {
        collect(&s.create);
        s.setup.iter().for_each(&mut collect);
        s.references.values().for_each(&mut collect);
        s.tags.values().for_each(&mut collect);
    }
    plan.initialization.iter().for_each(&mut collect);
    dynamic.extend(plan.dynamic.keys().cloned());
    dynamic.sort();
    dynamic.dedup();
    PlanSummary {
        file: file.name.clone(),
        encoding: encoding_name(file.encoding),
        format: plan.format.clone(),
        version: plan.version,
        compiler: plan.compiler.clone(),
        inputs_hash: plan.inputs_hash.clone(),
        dependencies: plan.dependencies.len(),
        signatures: plan.signatures.len(),
        parameters: plan.parameters.clone(),
        dynamic_parameters: dynamic,
        dynamic_declared: plan.dynamic.clone(),
        services: plan
            .services
            .iter()
            .map(|(name, s)| ServiceRow {
                name: name.to_string(),
                kind: s.kind,
                type_: s.type_.to_string(),
                lifespan: s.lifespan,
                autowired: s.autowired.clone(),
                tags: s.tags.keys().cloned().collect(),
            })
            .collect(),
        aliases: plan
            .aliases
            .iter()
            .map(|(a, t)| (a.to_string(), t.to_string()))
            .collect(),
        initialization: plan.initialization.len(),
    }
}

/// Names of the dynamic parameters (`$param`) an expression reads.
fn params_in(e: &Expr, out: &mut Vec<String>) {
    // The JSON form reaches every nested expression without a second walker.
    fn walk(j: &Json, out: &mut Vec<String>) {
        match j {
            Json::Object(o) => {
                if let (1, Some(Json::String(p))) = (o.len(), o.get("$param")) {
                    out.push(p.clone());
                }
                o.values().for_each(|v| walk(v, out));
            }
            Json::Array(a) => a.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    walk(&e.to_json(), out);
}

/// The services an entry uses, in order of appearance, without repeats.
pub fn uses(s: &ServicePlan) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |n: &str| {
        if !out.iter().any(|x| x == n) {
            out.push(n.to_string());
        }
    };
    s.create.for_each_ref(&mut add);
    s.setup.iter().for_each(|e| e.for_each_ref(&mut add));
    s.references.values().for_each(|e| e.for_each_ref(&mut add));
    out
}

/// The full entry of service (or alias) `name` in `plan`.
///
/// Errors: `missing-service` when the plan has no such service or alias, with Nette's "did you
/// mean" note when a name is close.
pub fn service(plan: &Plan, file_name: &str, name: &str) -> Result<ServiceEntry, Diagnostic> {
    let resolved = plan.aliases.get(name).map(|t| t.as_str()).unwrap_or(name);
    let Some(s) = plan.services.get(resolved) else {
        let candidates = plan
            .services
            .keys()
            .chain(plan.aliases.keys())
            .map(|n| n.as_str());
        let d = Diagnostic::error(
            Code::MissingService,
            format!("The plan '{file_name}' has no service '{name}'."),
        )
        .with_suggestion(name, candidates);
        // No close name (a service renamed since, say): where the names are (an operator's
        // trial).
        if d.notes.is_empty() {
            return Err(d.with_note(format!(
                "`wireplan show {file_name}` lists the plan's {} service(s)",
                plan.services.len()
            )));
        }
        return Err(d);
    };
    let resolve = |n: &str| {
        plan.aliases
            .get(n)
            .map_or_else(|| n.to_string(), |t| t.to_string())
    };
    Ok(ServiceEntry {
        name: resolved.to_string(),
        plan: s.clone(),
        autowired_for: plan
            .types
            .iter()
            .filter(|(_, names)| names.iter().any(|n| n == resolved))
            .map(|(t, _)| t.to_string())
            .collect(),
        aliases: plan
            .aliases
            .iter()
            .filter(|(_, target)| *target == resolved)
            .map(|(a, _)| a.to_string())
            .collect(),
        uses: uses(s),
        needed_by: plan
            .services
            .iter()
            .filter(|(_, other)| uses(other).iter().any(|u| resolve(u) == resolved))
            .map(|(n, _)| n.to_string())
            .collect(),
        signatures: plan.signatures.clone(),
    })
}

/// `yes`, `no` or `only for` the list of types (`wireplan show` and the REPL's `:show`).
pub fn autowired_text(a: &Autowired) -> String {
    match a {
        Autowired::All(true) => "yes".into(),
        Autowired::All(false) => "no".into(),
        Autowired::Types(types) => format!("only for {}", types.join(", ")),
    }
}

/// The lower-case word of a serialisable enum (`singleton`, `factory`).
pub(crate) fn word<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Json::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// Rows of cells as left-aligned columns separated by two spaces, each line indented by two.
fn table(rows: &[Vec<String>], out: &mut String) {
    // A plan's names and parameter keys come from its file: a control character in one is
    // shown escaped, so it can neither act on the terminal nor break the table's lines.
    let escaped: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|cell| text::one_line(cell)).collect())
        .collect();
    let rows = &escaped;
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in rows {
        let mut line = String::from("  ");
        for (c, cell) in r.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < r.len() {
                let pad = widths[c] - cell.chars().count() + 2;
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

impl PlanSummary {
    /// The overview as aligned text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let header = [
            ("plan", self.file.clone()),
            ("encoding", self.encoding.to_string()),
            (
                "format",
                format!("{}, version {}", self.format, self.version),
            ),
            ("compiler", self.compiler.clone()),
            ("inputs hash", self.inputs_hash.clone()),
            ("dependencies", format!("{} file(s)", self.dependencies)),
            (
                "signatures",
                format!(
                    "{} constructor(s) and method(s), compared with the registry at load",
                    self.signatures
                ),
            ),
        ];
        let rows: Vec<Vec<String>> = header
            .iter()
            .map(|(k, v)| vec![k.to_string(), v.clone()])
            .collect();
        table(&rows, &mut out);
        let _ = writeln!(out, "\nparameters ({}):", self.parameters.len());
        let rows: Vec<Vec<String>> = self
            .parameters
            .iter()
            .map(|(k, v)| vec![k.clone(), text::expr(v)])
            .collect();
        table(&rows, &mut out);
        if !self.dynamic_parameters.is_empty() {
            let _ = writeln!(
                out,
                "dynamic parameters, read at start-up ({}):",
                self.dynamic_parameters.len()
            );
            // One table, so the facts line up under the longest name.
            let rows: Vec<Vec<String>> = self
                .dynamic_parameters
                .iter()
                .map(|p| {
                    let facts = self
                        .dynamic_declared
                        .get(p)
                        .map(text::dynamic_facts)
                        .unwrap_or_default();
                    vec![p.clone(), facts.join(", ")]
                })
                .collect();
            table(&rows, &mut out);
        }
        let _ = writeln!(out, "\nservices ({}):", self.services.len());
        let mut rows = vec![["name", "type", "kind", "lifespan", "autowired", "tags"]
            .map(String::from)
            .to_vec()];
        rows.extend(self.services.iter().map(|s| {
            vec![
                s.name.clone(),
                s.type_.clone(),
                word(&s.kind),
                word(&s.lifespan),
                autowired_text(&s.autowired),
                s.tags.join(", "),
            ]
        }));
        table(&rows, &mut out);
        if !self.aliases.is_empty() {
            let _ = writeln!(out, "\naliases ({}):", self.aliases.len());
            let rows: Vec<Vec<String>> = self
                .aliases
                .iter()
                .map(|(a, t)| vec![a.clone(), format!("→ {t}")])
                .collect();
            table(&rows, &mut out);
        }
        if self.initialization > 0 {
            let _ = writeln!(out, "\ninitialization: {} step(s)", self.initialization);
        }
        out
    }
}

impl ServiceEntry {
    /// The entry as aligned text: one `label  value` line per field, setups and references one
    /// per line.
    pub fn to_text(&self) -> String {
        let s = &self.plan;
        let none = || "(none)".to_string();
        let list = |v: &[String]| {
            if v.is_empty() {
                none()
            } else {
                v.join(", ")
            }
        };
        let mut rows: Vec<Vec<String>> = vec![
            vec!["kind".into(), word(&s.kind)],
            vec!["type".into(), s.type_.to_string()],
            vec!["lifespan".into(), word(&s.lifespan)],
            vec!["autowired".into(), autowired_text(&s.autowired)],
            vec!["autowired for".into(), list(&self.autowired_for)],
        ];
        if let Some(i) = &s.implement {
            rows.push(vec!["implements".into(), i.clone()]);
        }
        // Why a sync `get` of it is `AsyncRequired` (a new user's trial could not see it).
        if s.requires_async {
            rows.push(vec![
                "async".into(),
                "required: its creation reaches an async constructor (get_async)".into(),
            ]);
        }
        if !s.parameters.is_empty() {
            rows.push(vec!["parameters".into(), s.parameters.join(", ")]);
        }
        let mut multi = |label: &str, items: Vec<String>| {
            if items.is_empty() {
                rows.push(vec![label.to_string(), none()]);
            }
            for (i, item) in items.into_iter().enumerate() {
                let label = if i == 0 { label } else { "" };
                rows.push(vec![label.to_string(), item]);
            }
        };
        multi(
            "tags",
            s.tags
                .iter()
                .map(|(k, v)| format!("{k}: {}", text::expr(v)))
                .collect(),
        );
        // A setup's `@self` calls a method of the service's type, or of a factory's product.
        let own = match (&s.kind, &s.create) {
            (ServiceKind::Factory, Expr::New { class, .. }) => class.as_str(),
            _ => s.type_.as_str(),
        };
        let named = |e: &Expr| text::expr_named(e, &self.signatures, own);
        multi("create", vec![named(&s.create)]);
        multi("setup", s.setup.iter().map(named).collect());
        if !s.references.is_empty() {
            multi(
                "references",
                s.references
                    .iter()
                    .map(|(k, v)| format!("{k}: {}", text::expr(v)))
                    .collect(),
            );
        }
        rows.push(vec!["uses".into(), list(&self.uses)]);
        rows.push(vec!["needed by".into(), list(&self.needed_by)]);
        rows.push(vec!["aliases".into(), list(&self.aliases)]);
        if let Some(src) = &s.source {
            rows.push(vec![
                "defined at".into(),
                format!("{}:{}:{}", src.file, src.line, src.column),
            ]);
        }
        let mut out = format!("service {}\n", self.name);
        table(&rows, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wireplan_runtime::Encoding;

    fn plan() -> Plan {
        let json = serde_json::json!({
            "format": "wireplan-plan", "version": 1, "compiler": "wireplan 0.1.0",
            "inputs_hash": "00", "parameters": {"n": 5},
            "services": {
                "db": {"type": "App\\Db", "lifespan": "singleton",
                       "create": {"$new": "App\\Db", "args": [{"$param": "env.DSN"}]}},
                "repo": {"type": "App\\Repo", "lifespan": "transient", "tags": {"t": true},
                         "create": {"$new": "App\\Repo", "args": [{"$ref": "database"}]}},
            },
            "aliases": {"database": "db"},
            "types": {"App\\Db": ["db"]},
        });
        serde_json::from_value(json).expect("plan")
    }

    /// A name close to one of the plan's gets Nette's "did you mean"; one close to none says
    /// where the names are listed (a service renamed since: an operator's trial).
    #[test]
    fn an_unknown_service_is_suggested_or_pointed_to_the_list() {
        let p = plan();
        let near = service(&p, "app.plan.json", "rpeo").expect_err("no such service");
        assert_eq!(near.notes, ["did you mean 'repo'?"]);
        let far = service(&p, "app.plan.json", "fileLogger").expect_err("no such service");
        assert_eq!(
            far.message,
            "The plan 'app.plan.json' has no service 'fileLogger'."
        );
        assert_eq!(
            far.notes,
            ["`wireplan show app.plan.json` lists the plan's 2 service(s)"]
        );
    }

    #[test]
    fn summary_shows_the_declarations_of_dynamic_parameters() {
        let mut p = plan();
        p.version = 3;
        p.dynamic = serde_json::from_value(serde_json::json!({
            "env.DSN": {"type": "string", "required": true, "sensitive": true},
            "env.PORT": {"type": "int", "default": 8080},
        }))
        .expect("section");
        let file = PlanFile {
            name: "p.json".into(),
            encoding: Encoding::Json,
            plan: p,
        };
        let s = summary(&file);
        assert_eq!(s.dynamic_parameters, ["env.DSN", "env.PORT"]);
        assert!(
            s.to_text().contains(
                "read at start-up (2):\n  env.DSN   string, required, sensitive\n  \
                 env.PORT  int, default 8080\n"
            ),
            "{}",
            s.to_text()
        );
    }

    #[test]
    fn summary_lists_static_and_dynamic_parameters() {
        let file = PlanFile {
            name: "p.json".into(),
            encoding: Encoding::Binary,
            plan: plan(),
        };
        let s = summary(&file);
        assert_eq!(s.encoding, "binary");
        assert_eq!(s.dynamic_parameters, ["env.DSN"]);
        assert!(s.to_text().contains("read at start-up (1):\n  env.DSN\n"));
        assert_eq!(s.services[1].tags, ["t"]);
        assert!(s
            .to_text()
            .contains("  repo  App\\Repo  service  transient  yes        t\n"));
    }

    #[test]
    fn service_entry_resolves_aliases_and_finds_dependents() {
        let e = service(&plan(), "p.json", "database").expect("alias resolves");
        assert_eq!(e.name, "db");
        assert_eq!(e.needed_by, ["repo"]);
        assert_eq!(e.autowired_for, ["App\\Db"]);
        let err = service(&plan(), "p.json", "rpo").expect_err("unknown");
        assert_eq!(err.code, Code::MissingService);
        assert_eq!(err.notes, ["did you mean 'repo'?"]);
    }

    /// A service marked `requires_async` says so (why its sync `get` is `AsyncRequired`); the
    /// others have no such row.
    #[test]
    fn service_entry_says_when_async_is_required() {
        let mut p = plan();
        p.services.get_mut("db").expect("db").requires_async = true;
        let text = service(&p, "p.json", "db").expect("db").to_text();
        assert!(
            text.contains(
                "  async          required: its creation reaches an async constructor (get_async)\n"
            ),
            "{text}"
        );
        let text = service(&p, "p.json", "repo").expect("repo").to_text();
        assert!(!text.contains("async "), "{text}");
    }
}
