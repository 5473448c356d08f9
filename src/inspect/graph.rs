//! The dependency graph: services as nodes, the references in their completed statements as
//! edges, from a builder (after `complete`) or from a plan. Rendered as DOT (Graphviz), Mermaid
//! or JSON; the order is the definitions' order, so the output is deterministic. Parameter
//! values are never part of it (nodes carry names, types, lifespans and tag names only).

use crate::builder::ContainerBuilder;
use crate::diagnostics::{Code, Diagnostic};
use indexmap::IndexMap;
use serde::Serialize;
use std::collections::{HashMap, HashSet, VecDeque};
use wireplan_runtime::plan::{CallTarget, Expr as P, Plan, ServiceKind};

/// What a preliminary graph says about itself.
pub(crate) const PRELIMINARY: &str =
    "preliminary: some edges are references as written; references by type are resolved at the end of phase B";

/// How one service depends on another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// Referred to by the creator (a constructor or factory argument, or the creator itself).
    Constructor,
    /// Referred to by a setup statement (a method call or property write after creation).
    Setup,
    /// One item of a list of services: a `T[]` parameter, `typed()` or `tagged()`.
    Collection,
    /// A service a locator's `get(name)` returns.
    Locator,
    /// The target of a `Provider<T>` parameter: resolved later, not at creation.
    Provider,
}

impl EdgeKind {
    /// The lower-case name used in every rendering.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Constructor => "constructor",
            EdgeKind::Setup => "setup",
            EdgeKind::Collection => "collection",
            EdgeKind::Locator => "locator",
            EdgeKind::Provider => "provider",
        }
    }
}

/// One service.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    /// The service name.
    pub name: String,
    /// Definition kind: `service`, `factory`, `accessor`, `locator` or `imported`.
    pub kind: &'static str,
    /// The resolved type (`None` when it could not be resolved).
    #[serde(rename = "type")]
    pub type_: Option<String>,
    /// `singleton`, `scoped` or `transient`.
    pub lifespan: &'static str,
    /// Tag names (values are not shown: they may hold parameter values).
    pub tags: Vec<String>,
}

/// A dependency: `from` refers to `to`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Edge {
    /// The dependent service.
    pub from: String,
    /// The service depended on.
    pub to: String,
    /// Where the reference is.
    pub kind: EdgeKind,
}

/// Services and their dependencies, in definition order; each edge once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Graph {
    /// Some edges come from references as written, not from completed statements (phase A,
    /// or a definition that failed to complete): references by type are missing from them.
    pub preliminary: bool,
    /// Every service (or those within the focus).
    pub nodes: Vec<Node>,
    /// Every dependency between the nodes, grouped by `from` in node order.
    pub edges: Vec<Edge>,
}

/// The lower-case name of a service kind (`service`, `factory`, `accessor`, `locator`,
/// `imported`, `slot`); a definition's is `kind_name(def.kind.plan_kind())`.
pub fn kind_name(kind: ServiceKind) -> &'static str {
    match kind {
        ServiceKind::Service => "service",
        ServiceKind::Factory => "factory",
        ServiceKind::Accessor => "accessor",
        ServiceKind::Locator => "locator",
        ServiceKind::Imported => "imported",
        ServiceKind::Slot => "slot",
    }
}

/// The services `e` refers to, each with the kind of reference (`base`, or `Collection` inside
/// a list), in order.
fn refs(e: &P, base: EdgeKind, out: &mut Vec<(String, EdgeKind)>) {
    let target = |t: &CallTarget, out: &mut Vec<(String, EdgeKind)>| {
        if let CallTarget::Expr(x) = t {
            refs(x, base, out);
        }
    };
    match e {
        P::Ref(n) if n != "@self" => out.push((n.to_string(), base)),
        P::Provider(n) => out.push((n.clone(), EdgeKind::Provider)),
        P::List(items) => {
            for x in items {
                let kind = if matches!(x, P::Ref(_)) {
                    EdgeKind::Collection
                } else {
                    base
                };
                refs(x, kind, out);
            }
        }
        P::Map(m) => m.values().for_each(|x| refs(x, base, out)),
        P::Concat(items) => items.iter().for_each(|x| refs(x, base, out)),
        P::New { args, .. } => args.iter().for_each(|x| refs(x, base, out)),
        P::Call {
            target: t, args, ..
        } => {
            target(t, out);
            args.iter().for_each(|x| refs(x, base, out));
        }
        P::Set {
            target: t, value, ..
        } => {
            target(t, out);
            refs(value, base, out);
        }
        P::Get { target: t, .. } | P::Callable { target: t, .. } => target(t, out),
        P::Func { arg, .. } => refs(arg, base, out),
        P::ArgOr { default, .. } => refs(default, base, out),
        _ => {}
    }
}

/// The edges of one service from its completed statements, each (to, kind) once.
fn service_edges(
    from: &str,
    create: &P,
    setup: &[P],
    references: &IndexMap<String, P>,
) -> Vec<Edge> {
    let mut found = Vec::new();
    refs(create, EdgeKind::Constructor, &mut found);
    setup
        .iter()
        .for_each(|s| refs(s, EdgeKind::Setup, &mut found));
    references
        .values()
        .for_each(|r| refs(r, EdgeKind::Locator, &mut found));
    let mut seen = HashSet::new();
    found
        .into_iter()
        .filter(|x| seen.insert(x.clone()))
        .map(|(to, kind)| Edge {
            from: from.to_string(),
            to,
            kind,
        })
        .collect()
}

impl Graph {
    /// The graph of a builder. Edges come from the completed statements (after `complete`,
    /// phase B); a definition without them (phase A, or one that failed to complete) gives
    /// the references written by name, and the graph is marked preliminary.
    pub fn from_builder(b: &ContainerBuilder) -> Graph {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let mut preliminary = false;
        for d in b.definitions() {
            nodes.push(Node {
                name: d.name.clone(),
                kind: kind_name(d.kind.plan_kind()),
                type_: d.resolved_type.clone().or_else(|| d.declared_type.clone()),
                lifespan: d.lifespan.as_str(),
                tags: d.tags.keys().cloned().collect(),
            });
            match &d.completed {
                Some(c) => {
                    edges.extend(service_edges(&d.name, &c.create, &c.setup, c.references()))
                }
                None => {
                    preliminary = true;
                    let mut written = Vec::new();
                    super::values::written_references(d, &mut written);
                    edges.extend(written.into_iter().filter_map(|(to, kind)| {
                        Some(Edge {
                            from: d.name.clone(),
                            to: b.get_definition(&to)?.name.clone(),
                            kind,
                        })
                    }));
                }
            }
        }
        let mut g = Graph::keep_known(nodes, edges);
        g.preliminary = preliminary;
        g
    }

    /// The graph of a builder ([`Graph::from_builder`]), focused on `(name, depth)` when
    /// given ([`Graph::focus`]). What the REPL's graph command and `wireplan graph` print.
    ///
    /// Errors: `missing-service` for an unknown focus.
    pub fn of(b: &ContainerBuilder, focus: Option<(&str, usize)>) -> Result<Graph, Diagnostic> {
        let g = Graph::from_builder(b);
        match focus {
            Some((name, depth)) => g.focus(name, depth),
            None => Ok(g),
        }
    }

    /// The graph of a compiled plan (`wireplan show`, or a plan on disk).
    pub fn from_plan(plan: &Plan) -> Graph {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for (name, s) in &plan.services {
            nodes.push(Node {
                name: name.to_string(),
                kind: kind_name(s.kind),
                type_: Some(s.type_.to_string()),
                lifespan: s.lifespan.as_str(),
                tags: s.tags.keys().cloned().collect(),
            });
            edges.extend(service_edges(name, &s.create, &s.setup, &s.references));
        }
        Graph::keep_known(nodes, edges)
    }

    fn keep_known(nodes: Vec<Node>, mut edges: Vec<Edge>) -> Graph {
        let names: HashSet<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        edges.retain(|e| names.contains(e.to.as_str()));
        Graph {
            preliminary: false,
            nodes,
            edges,
        }
    }

    /// The part of the graph within `depth` edges of `name`, in both directions (what `name`
    /// needs and what needs it). Errors: `missing-service` with a "did you mean" when there is
    /// no such node.
    pub fn focus(&self, name: &str, depth: usize) -> Result<Graph, Diagnostic> {
        if !self.nodes.iter().any(|n| n.name == name) {
            return Err(unknown_service(
                name,
                self.nodes.iter().map(|n| n.name.as_str()),
            ));
        }
        let mut forward: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut backward: HashMap<&str, Vec<&str>> = HashMap::new();
        for e in &self.edges {
            forward.entry(&e.from).or_default().push(&e.to);
            backward.entry(&e.to).or_default().push(&e.from);
        }
        let mut keep: HashSet<&str> = HashSet::from([name]);
        for adj in [&forward, &backward] {
            let mut queue = VecDeque::from([(name, 0usize)]);
            let mut seen: HashSet<&str> = HashSet::from([name]);
            while let Some((n, d)) = queue.pop_front() {
                if d == depth {
                    continue;
                }
                for next in adj.get(n).into_iter().flatten() {
                    if seen.insert(next) {
                        keep.insert(next);
                        queue.push_back((next, d + 1));
                    }
                }
            }
        }
        Ok(Graph {
            preliminary: self.preliminary,
            nodes: self
                .nodes
                .iter()
                .filter(|n| keep.contains(n.name.as_str()))
                .cloned()
                .collect(),
            edges: self
                .edges
                .iter()
                .filter(|e| keep.contains(e.from.as_str()) && keep.contains(e.to.as_str()))
                .cloned()
                .collect(),
        })
    }

    /// Graphviz DOT: one box per service (name, type, lifespan, `#tags`), filled by lifespan;
    /// edges labelled with their kind (setup dashed, collection dotted, locator grey).
    pub fn to_dot(&self) -> String {
        // Names are made one-line and visible first, then quoted for DOT.
        let esc = |s: &str| {
            super::text::one_line(s)
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
        };
        let mut out = String::from("digraph wireplan {\n");
        if self.preliminary {
            out.push_str(&format!("  // {PRELIMINARY}\n"));
        }
        out.push_str("  rankdir=LR;\n  nodesep=0.3;\n  ranksep=0.6;\n");
        out.push_str(
            "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11, fillcolor=\"#ffffff\"];\n",
        );
        out.push_str("  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\", fontcolor=\"#555555\"];\n");
        for n in &self.nodes {
            let mut label = esc(&n.name);
            if let Some(t) = &n.type_ {
                label.push_str(&format!("\\n{}", esc(t)));
            }
            let mut extra = vec![n.lifespan.to_string()];
            if n.kind != "service" {
                extra.insert(0, n.kind.to_string());
            }
            extra.extend(n.tags.iter().map(|t| format!("#{t}")));
            label.push_str(&format!("\\n{}", esc(&extra.join(" "))));
            let fill = match n.lifespan {
                "scoped" => "#dbeafe",
                "transient" => "#fef3c7",
                _ => "#ffffff",
            };
            out.push_str(&format!(
                "  \"{}\" [label=\"{label}\", fillcolor=\"{fill}\"];\n",
                esc(&n.name)
            ));
        }
        for e in &self.edges {
            let style = match e.kind {
                EdgeKind::Constructor => "",
                EdgeKind::Setup => ", style=dashed",
                EdgeKind::Collection => ", style=dotted",
                EdgeKind::Locator => ", style=dashed, color=\"#999999\"",
                EdgeKind::Provider => ", style=dotted, color=\"#999999\"",
            };
            out.push_str(&format!(
                "  \"{}\" -> \"{}\" [label=\"{}\"{style}];\n",
                esc(&e.from),
                esc(&e.to),
                e.kind.as_str()
            ));
        }
        out.push_str("}\n");
        out
    }

    /// A Mermaid flowchart (renders on GitHub): nodes `n0`, `n1`, … in node order, labelled
    /// with name, type and lifespan; edges labelled with their kind.
    pub fn to_mermaid(&self) -> String {
        // Labels are HTML to Mermaid: names are made one-line and visible, then every character
        // Mermaid or HTML would read (quote, angle brackets, ampersand, the entity marks `#`
        // and `;`) is written as an entity code.
        let esc = |s: &str| {
            let mut out = String::new();
            for c in super::text::one_line(s).chars() {
                match c {
                    '"' => out.push_str("#quot;"),
                    '<' => out.push_str("#lt;"),
                    '>' => out.push_str("#gt;"),
                    '&' => out.push_str("#amp;"),
                    '#' => out.push_str("#35;"),
                    ';' => out.push_str("#59;"),
                    c => out.push(c),
                }
            }
            out
        };
        let ids: HashMap<&str, usize> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), i))
            .collect();
        let mut out = String::from("flowchart LR\n");
        if self.preliminary {
            out.push_str(&format!("  %% {PRELIMINARY}\n"));
        }
        for (i, n) in self.nodes.iter().enumerate() {
            let mut label = esc(&n.name);
            if let Some(t) = &n.type_ {
                label.push_str(&format!("<br/>{}", esc(t)));
            }
            let mut extra = vec![n.lifespan.to_string()];
            if n.kind != "service" {
                extra.insert(0, n.kind.to_string());
            }
            // The tag mark `#` is written as is; each tag's own text is escaped.
            extra.extend(n.tags.iter().map(|t| format!("#{}", esc(t))));
            label.push_str(&format!("<br/><i>{}</i>", extra.join(" ")));
            out.push_str(&format!("  n{i}[\"{label}\"]\n"));
        }
        for e in &self.edges {
            let arrow = match e.kind {
                EdgeKind::Constructor => "-->",
                _ => "-.->",
            };
            out.push_str(&format!(
                "  n{} {arrow}|{}| n{}\n",
                ids[e.from.as_str()],
                e.kind.as_str(),
                ids[e.to.as_str()]
            ));
        }
        out
    }

    /// `{"nodes": [...], "edges": [...]}`, pretty-printed, with a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// `missing-service` for `name`, with a "did you mean" among `names`.
pub(crate) fn unknown_service<'a>(
    name: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Diagnostic {
    Diagnostic::error(Code::MissingService, format!("Service '{name}' not found."))
        .with_suggestion(name, names)
}
