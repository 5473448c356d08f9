//! Async creation at compile time: which services need async to be created (the plan's
//! `requires_async`, Clean IoC 2's compiled per-node flag), and `sync: true` definitions
//! whose creation would need it (`async-required`, with the path).
//!
//! A service needs async when its completed `create` or `setup` calls the constructor of a
//! class the catalog marks `async: true` (`$new`), or refers (`$ref`) to a service that needs
//! async. Generated services (factories, accessors, locators) and `Provider<T>` handles
//! create later, so they end a path.

use super::{ContainerBuilder, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use rustc_hash::FxHashMap;
use std::collections::{HashSet, VecDeque};
use wireplan_runtime::plan::Expr as P;

/// Names of the services that need async to be created.
pub(super) fn requires_async(b: &ContainerBuilder) -> HashSet<String> {
    let mut needs: HashSet<String> = HashSet::new();
    // Most applications have no async constructor: then no graph is needed.
    let any_async = b.catalog.classes().any(|c| c.is_async)
        && b.definitions().any(|d| {
            d.kind == DefinitionKind::Service
                && d.completed.as_ref().is_some_and(|c| {
                    std::iter::once(&c.create)
                        .chain(&c.setup)
                        .any(|e| async_class(b, e).is_some())
                })
        });
    if !any_async {
        return needs;
    }
    let graph = Graph::new(b);
    let mut queue: VecDeque<&str> = VecDeque::new();
    for (name, node) in &graph.nodes {
        if node.async_class.is_some() {
            needs.insert(name.to_string());
            queue.push_back(name);
        }
    }
    // Upwards along the reversed edges: whoever needs an async service needs async.
    while let Some(n) = queue.pop_front() {
        for &user in graph.users.get(n).map(Vec::as_slice).unwrap_or(&[]) {
            if needs.insert(user.to_string()) {
                queue.push_back(user);
            }
        }
    }
    needs
}

/// `sync: true` on a definition whose creation needs async is an `async-required` error
/// naming the path down to the async constructor.
pub(super) fn check_sync(b: &ContainerBuilder, diags: &mut Diagnostics) {
    if !b.definitions().any(|d| d.sync) {
        return;
    }
    let needs = requires_async(b);
    let graph = Graph::new(b);
    for def in b
        .definitions()
        .filter(|d| d.sync && needs.contains(&d.name))
    {
        let (path, class) = graph.path_to_async(&needs, &def.name);
        diags.push(
            Diagnostic::error(
                Code::AsyncRequired,
                format!(
                    "Service '{}' is declared sync: true, but creating it needs the async \
                     constructor of {class} (path: {}).",
                    def.name,
                    path.join(" -> ")
                ),
            )
            .at(def.span)
            .with_note(
                "Create it with get_async(), or take the async service as a Provider<T> \
                 parameter and resolve it later with get_async().",
            ),
        );
    }
}

/// Why the service `name` needs async, when it does: the path of services from it down to the
/// one whose statements call an async constructor (`name` first), and that constructor's
/// class. `None` when its creation needs no async.
pub(super) fn async_path(b: &ContainerBuilder, name: &str) -> Option<(Vec<String>, String)> {
    path_among(b, &requires_async(b), name)
}

/// [`async_path`] with the services that need async already known (`needs`).
fn path_among(
    b: &ContainerBuilder,
    needs: &HashSet<String>,
    name: &str,
) -> Option<(Vec<String>, String)> {
    if !needs.contains(name) {
        return None;
    }
    let graph = Graph::new(b);
    let (path, class) = graph.path_to_async(needs, name);
    Some((path.into_iter().map(str::to_string).collect(), class))
}

/// Why the product of the generated factory `name` needs async, when it does (so the
/// factory's `create()` is `AsyncRequired` and `create_async` makes it): the path from the
/// factory down to the service whose statements call an async constructor (the factory
/// itself when its own `create` or `setup` does), and that constructor's class. `None` for
/// other kinds, and when the product needs no async.
pub(super) fn product_async_path(
    b: &ContainerBuilder,
    name: &str,
) -> Option<(Vec<String>, String)> {
    let def = b
        .get_definition(name)
        .filter(|d| d.kind == DefinitionKind::Factory)?;
    let c = def.completed.as_ref()?;
    let statements = || std::iter::once(&c.create).chain(&c.setup);
    if let Some(class) = statements().find_map(|e| async_class(b, e)) {
        return Some((vec![def.name.clone()], class));
    }
    let needs = requires_async(b);
    let mut first = None;
    for e in statements() {
        e.for_each_ref(&mut |n| {
            let real = b.get_definition(n).map_or(n, |t| t.name.as_str());
            if first.is_none() && needs.contains(real) {
                first = Some(real.to_string());
            }
        });
    }
    // (`needs` is computed once: `async_path` would walk the whole graph again.)
    let (mut path, class) = path_among(b, &needs, &first?)?;
    path.insert(0, def.name.clone());
    Some((path, class))
}

/// The construction graph of ordinary services.
struct Graph<'a> {
    nodes: FxHashMap<&'a str, Node<'a>>,
    /// Service → the services whose creation refers to it.
    users: FxHashMap<&'a str, Vec<&'a str>>,
}

struct Node<'a> {
    /// A class with an async constructor that the service's own statements call.
    async_class: Option<String>,
    /// The services its statements refer to, in order.
    deps: Vec<&'a str>,
}

impl<'a> Graph<'a> {
    /// From `name` (which needs async) down through services that need async to the first
    /// whose own statements call an async constructor: the path and that class (empty when
    /// the graph does not reach one, which `needs` rules out).
    fn path_to_async<'n>(
        &'n self,
        needs: &HashSet<String>,
        name: &'n str,
    ) -> (Vec<&'n str>, String) {
        let mut path = vec![name];
        let mut class = None;
        while let Some(&at) = path.last() {
            let Some(node) = self.nodes.get(at) else {
                break;
            };
            if let Some(c) = &node.async_class {
                class = Some(c.clone());
                break;
            }
            match node
                .deps
                .iter()
                .find(|d| needs.contains(**d) && !path.contains(*d))
            {
                Some(next) => path.push(next),
                None => break,
            }
        }
        (path, class.unwrap_or_default())
    }

    fn new(b: &'a ContainerBuilder) -> Graph<'a> {
        let mut nodes = FxHashMap::default();
        let mut users: FxHashMap<&'a str, Vec<&'a str>> = FxHashMap::default();
        for d in b.definitions() {
            let Some(c) = d
                .completed
                .as_ref()
                .filter(|_| d.kind == DefinitionKind::Service)
            else {
                continue;
            };
            let statements = || std::iter::once(&c.create).chain(&c.setup);
            let async_class = statements().find_map(|e| async_class(b, e));
            let mut deps: Vec<&'a str> = Vec::new();
            for e in statements() {
                e.for_each_ref(&mut |n| {
                    let real = b.get_definition(n).map_or(n, |t| t.name.as_str());
                    if !deps.contains(&real) {
                        deps.push(real);
                    }
                });
            }
            for &dep in &deps {
                users.entry(dep).or_default().push(&d.name);
            }
            nodes.insert(d.name.as_str(), Node { async_class, deps });
        }
        Graph { nodes, users }
    }
}

/// The first class with an async constructor that `e` calls (`$new`), nested calls
/// included, `Provider<T>` handles excepted ([`wireplan_runtime::plan::async_class`], with
/// the catalog's `async: true`), in the catalog's spelling.
fn async_class(b: &ContainerBuilder, e: &P) -> Option<String> {
    let ctor = |class: &str| {
        b.catalog
            .get(class)
            .filter(|c| c.is_async)
            .map(|_| wireplan_runtime::plan::Constructor::Async)
    };
    wireplan_runtime::plan::async_class(e, &ctor).map(|c| b.catalog.canonical(c).to_string())
}
