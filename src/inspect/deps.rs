//! `explain --needed-by NAME`, the REPL's `:needed-by` and `:deps`: the services that depend on
//! a service (or that it depends on), directly and transitively, over the edges of the
//! [`Graph`]; the extensions involved; and for a removed service, who removed it and where.

use super::graph::{unknown_service, EdgeKind, Graph};
use super::values::{ActorInfo, Location};
use crate::builder::{ArgumentSource, ContainerBuilder};
use crate::diagnostics::Diagnostic;
use crate::source::SourceMap;
use serde::Serialize;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

/// Which way the edges are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Services that need the service (`--needed-by`).
    NeededBy,
    /// Services the service needs (`:deps`).
    Needs,
}

/// One related service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    /// The service's name.
    pub service: String,
    /// How the first edge on the shortest path to it is used (by the dependent).
    pub kind: EdgeKind,
    /// 1 for a direct dependency, 2 and more for transitive ones.
    pub depth: usize,
    /// The services between the asked one and this one on a shortest path, in path order.
    /// A path of more than [`VIA_HEAD`] + [`VIA_TAIL`] services keeps its first `VIA_HEAD` and
    /// last `VIA_TAIL`; [`Related::via_omitted`] counts the ones left out between them (so a
    /// long chain costs the same per line, not its whole length again).
    pub via: Vec<String>,
    /// How many services of the path are left out of [`Related::via`] between its head and
    /// its tail (0: the path is whole; not written to JSON then).
    #[serde(skip_serializing_if = "is_zero")]
    pub via_omitted: usize,
}

/// At most this many services from the start of a path are kept in [`Related::via`].
pub const VIA_HEAD: usize = 8;
/// At most this many services from the end of a path are kept in [`Related::via`].
pub const VIA_TAIL: usize = 7;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// An extension (or built-in step) that added or changed the service or one of the related
/// services.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtensionUse {
    /// The extension or built-in step, and its method.
    #[serde(flatten)]
    pub by: ActorInfo,
    /// Services it added.
    pub added: Vec<String>,
    /// Services it changed after they were added (setup, tags, arguments, …).
    pub changed: Vec<String>,
}

/// Who removed a service, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Removal {
    /// The extension and method; `None` when the configuration removed it (`name: false`) or
    /// code outside any extension did.
    pub by: Option<ActorInfo>,
    /// The `removeDefinition` call or the `name: false` entry.
    pub location: Option<Location>,
    /// Services that still ask for it: they refer to it by name, or autowiring looked in vain
    /// for a type it had (their arguments are unfilled, and errors were reported).
    pub still_wanted: Vec<String>,
}

/// The answer of [`needed_by`] and [`deps`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dependents {
    /// The service asked about.
    pub service: String,
    /// Which way.
    pub direction: Direction,
    /// The depth limit (`None`: all transitive ones).
    pub depth: Option<usize>,
    /// Set when the service is not in the builder because it was removed.
    pub removed: Option<Removal>,
    /// Some edges are references as written (phase A, or a definition that failed to
    /// complete): references by type are missing.
    pub preliminary: bool,
    /// Related services, nearest first (breadth-first, in definition order per level).
    pub related: Vec<Related>,
    /// Aliases naming the service.
    pub aliases: Vec<String>,
    /// Extensions that added or changed the service or a related one (needed-by only).
    pub extensions: Vec<ExtensionUse>,
    /// Does the container's initialization (run at start-up) refer to the service directly?
    /// (needed-by only)
    pub initialization: bool,
}

/// Every service that depends on `name`, directly and transitively (constructor, setup,
/// collection and locator references of the completed statements), and the extensions that
/// added or changed `name` or those services. For a service that is not in the builder any
/// more, the answer says who removed it (extension, phase, script line) and lists nothing
/// else. Needs a completed builder (phase B) for the edges.
///
/// Errors: `missing-service` with a "did you mean" for a name that never existed.
pub fn needed_by(
    b: &ContainerBuilder,
    sources: &SourceMap,
    name: &str,
) -> Result<Dependents, Diagnostic> {
    walk(b, sources, name, Direction::NeededBy, None)
}

/// Every service `name` depends on, up to `depth` edges away (`None`: all).
///
/// Errors as [`needed_by`].
pub fn deps(
    b: &ContainerBuilder,
    sources: &SourceMap,
    name: &str,
    depth: Option<usize>,
) -> Result<Dependents, Diagnostic> {
    walk(b, sources, name, Direction::Needs, depth)
}

fn walk(
    b: &ContainerBuilder,
    sources: &SourceMap,
    name: &str,
    direction: Direction,
    depth: Option<usize>,
) -> Result<Dependents, Diagnostic> {
    let mut answer = Dependents {
        service: name.to_string(),
        direction,
        depth,
        removed: None,
        preliminary: false,
        related: Vec::new(),
        aliases: Vec::new(),
        extensions: Vec::new(),
        initialization: false,
    };
    let Some(def) = b.get_definition(name) else {
        if let Some(r) = b.removed().get(name) {
            answer.removed = Some(Removal {
                by: r.actor.as_ref().map(ActorInfo::from),
                location: Location::of_opt(sources, r.span),
                still_wanted: still_wanted(b, name, r.type_.as_deref()),
            });
            return Ok(answer);
        }
        let names: Vec<&str> = b.definitions().map(|d| d.name.as_str()).collect();
        return Err(unknown_service(name, names));
    };
    let name = def.name.clone();
    answer.service = name.clone();
    let graph = Graph::from_builder(b);
    answer.preliminary = graph.preliminary;
    let mut adj: HashMap<&str, Vec<(&str, EdgeKind)>> = HashMap::new();
    for e in &graph.edges {
        match direction {
            Direction::NeededBy => adj.entry(&e.to).or_default().push((&e.from, e.kind)),
            Direction::Needs => adj.entry(&e.from).or_default().push((&e.to, e.kind)),
        }
    }
    // Breadth first, each service visited once; a visit records its parent, depth and, past
    // `VIA_HEAD`, the ancestor at depth `VIA_HEAD`, so the kept part of each path is found
    // in at most `VIA_HEAD + VIA_TAIL` steps.
    struct Visit<'a> {
        name: &'a str,
        parent: usize,
        depth: usize,
        anchor: usize,
    }
    let mut visits = vec![Visit {
        name: name.as_str(),
        parent: usize::MAX,
        depth: 0,
        anchor: usize::MAX,
    }];
    let walk_up = |visits: &[Visit], from: usize, steps: usize| -> Vec<String> {
        let mut out = Vec::with_capacity(steps);
        let mut at = from;
        for _ in 0..steps {
            out.push(visits[at].name.to_string());
            at = visits[at].parent;
        }
        out.reverse();
        out
    };
    let mut seen: HashSet<&str> = HashSet::from([name.as_str()]);
    let mut queue: VecDeque<usize> = VecDeque::from([0]);
    while let Some(at) = queue.pop_front() {
        let (n, d) = (visits[at].name, visits[at].depth);
        if depth.is_some_and(|limit| d >= limit) {
            continue;
        }
        for (next, kind) in adj.get(n).into_iter().flatten() {
            if !seen.insert(next) {
                continue;
            }
            // The services between the asked one and `next`: `at` and its ancestors, depth
            // 1 to `d`.
            let (via, via_omitted) = if d <= VIA_HEAD + VIA_TAIL {
                (walk_up(&visits, at, d), 0)
            } else {
                let mut via = walk_up(&visits, visits[at].anchor, VIA_HEAD);
                via.extend(walk_up(&visits, at, VIA_TAIL));
                (via, d - VIA_HEAD - VIA_TAIL)
            };
            answer.related.push(Related {
                service: next.to_string(),
                kind: *kind,
                depth: d + 1,
                via,
                via_omitted,
            });
            let anchor = match d {
                VIA_HEAD => at,
                d if d > VIA_HEAD => visits[at].anchor,
                _ => usize::MAX,
            };
            visits.push(Visit {
                name: next,
                parent: at,
                depth: d + 1,
                anchor,
            });
            queue.push_back(visits.len() - 1);
        }
    }
    answer.aliases = b
        .aliases()
        .iter()
        .filter(|(_, target)| **target == name)
        .map(|(a, _)| a.clone())
        .collect();
    if direction == Direction::NeededBy {
        answer.initialization = b.initialization_completed.iter().any(|st| {
            let mut found = false;
            st.for_each_ref(&mut |r| found |= r == name);
            found
        });
        let involved: Vec<&str> = std::iter::once(name.as_str())
            .chain(answer.related.iter().map(|r| r.service.as_str()))
            .collect();
        for service in involved {
            let Some(d) = b.get_definition(service) else {
                continue;
            };
            let touches = d
                .extras()
                .origin
                .iter()
                .map(|a| (a, true))
                .chain(d.extras().modified_by.iter().map(|a| (a, false)));
            for (actor, added) in touches {
                let by = ActorInfo::from(actor);
                let pos = answer.extensions.iter().position(|e| e.by == by);
                let i = pos.unwrap_or_else(|| {
                    answer.extensions.push(ExtensionUse {
                        by,
                        added: Vec::new(),
                        changed: Vec::new(),
                    });
                    answer.extensions.len() - 1
                });
                let list = if added {
                    &mut answer.extensions[i].added
                } else {
                    &mut answer.extensions[i].changed
                };
                list.push(service.to_string());
            }
        }
    }
    Ok(answer)
}

/// Definitions that still ask for the removed service `name` (of type `ty`): by a written
/// reference (`@name`, `@name::method()`), or by an argument whose autowiring found nothing
/// for a type the service had.
fn still_wanted(b: &ContainerBuilder, name: &str, ty: Option<&str>) -> Vec<String> {
    let by_type = |d: &crate::builder::Definition| {
        d.completed.iter().flat_map(|c| c.calls()).any(|call| {
            call.arguments.iter().any(|a| match &a.source {
                ArgumentSource::Unfilled { tried: Some(t) } => {
                    ty.is_some_and(|ty| b.catalog.is_subtype(ty, t))
                }
                _ => false,
            })
        })
    };
    let by_name = |d: &crate::builder::Definition| {
        let mut written = Vec::new();
        super::values::written_references(d, &mut written);
        written.iter().any(|(n, _)| n == name)
    };
    b.definitions()
        .filter(|d| by_name(d) || by_type(d))
        .map(|d| d.name.clone())
        .collect()
}

impl fmt::Display for Dependents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = &self.removed {
            write!(f, "service {} was removed", self.service)?;
            match &r.by {
                Some(by) => write!(f, " by {by}")?,
                // A REPL line (`builder.removeDefinition(…)`) is no extension either.
                None if r
                    .location
                    .as_ref()
                    .is_some_and(|l| l.file == crate::source::SESSION_SOURCE) =>
                {
                    write!(f, " in this REPL session")?
                }
                None => write!(f, " by the configuration")?,
            }
            match &r.location {
                Some(l) => writeln!(f, " at {l}")?,
                None => writeln!(f)?,
            }
            if r.still_wanted.is_empty() {
                return writeln!(f, "nothing in the builder asks for it");
            }
            return writeln!(
                f,
                "still asked for by (their arguments are unfilled: see the errors): {}",
                r.still_wanted.join(", ")
            );
        }
        // Before phase B only references written by name are known: a plain "none" would be a
        // claim about the autowired arguments too.
        let (title, none) = match (self.direction, self.preliminary) {
            (Direction::NeededBy, false) => ("needed by", "no service depends on it"),
            (Direction::NeededBy, true) => (
                "needed by",
                "no service names it (those that autowire it are known after phase B)",
            ),
            (Direction::Needs, false) => ("dependencies of", "it depends on no service"),
            (Direction::Needs, true) => (
                "dependencies of",
                "it names no service (what it autowires is known after phase B)",
            ),
        };
        match self.depth {
            Some(1) => writeln!(f, "{title} {} (up to 1 level):", self.service)?,
            Some(d) => writeln!(f, "{title} {} (up to {d} levels):", self.service)?,
            None => writeln!(f, "{title} {} (directly and transitively):", self.service)?,
        }
        if self.preliminary {
            writeln!(f, "{}", super::graph::PRELIMINARY)?;
        }
        if self.related.is_empty() {
            writeln!(f, "  {none}")?;
        }
        let w = self
            .related
            .iter()
            .map(|r| r.service.len())
            .max()
            .unwrap_or(0);
        for r in &self.related {
            let mut line = format!("  {:w$}  {:11}", r.service, r.kind.as_str());
            if r.depth == 1 {
                line.push_str("  direct");
            } else {
                let mut path = vec![self.service.clone()];
                path.extend(r.via.iter().cloned());
                if r.via_omitted > 0 {
                    path.insert(
                        1 + VIA_HEAD.min(r.via.len()),
                        format!("… {} more …", r.via_omitted),
                    );
                }
                path.push(r.service.clone());
                if self.direction == Direction::NeededBy {
                    path.reverse();
                }
                line.push_str(&format!("  via {}", path.join(" -> ")));
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        if !self.aliases.is_empty() {
            writeln!(f, "aliases: {}", self.aliases.join(", "))?;
        }
        if self.initialization {
            writeln!(f, "the container's initialization uses it at start-up")?;
        }
        for e in &self.extensions {
            let mut what = Vec::new();
            if !e.added.is_empty() {
                what.push(format!("added {}", e.added.join(", ")));
            }
            if !e.changed.is_empty() {
                what.push(format!("changed {}", e.changed.join(", ")));
            }
            writeln!(f, "{}: {}", e.by, what.join("; "))?;
        }
        Ok(())
    }
}
