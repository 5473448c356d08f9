//! Checks across the classes of a complete catalog: parents and interfaces that exist and are
//! of the right kind, inheritance cycles (broken after reporting, so later walks end), and
//! `default: null` on parameters typed with a class.

use super::parse::NullDefault;
use super::types::is_builtin;
use super::{Catalog, Name};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::source::Span;

impl Catalog {
    /// `default: null` on a parameter whose type is a class without `?`: an unknown class is
    /// `class-not-found` (the real problem); a known one is a default that does not fit.
    pub(super) fn check_null_defaults(&self, pending: &[NullDefault], diags: &mut Diagnostics) {
        for p in pending {
            let classes: Vec<&Name> = p.ty.members.iter().filter(|m| !is_builtin(m)).collect();
            let unknown: Vec<&&Name> = classes.iter().filter(|c| !self.exists(c)).collect();
            if unknown.is_empty() {
                let mut d = Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "The default null of 'types › {} › {}' does not fit its type {}.",
                        p.path, p.param, p.ty.text
                    ),
                )
                .at(p.span);
                if let [one] = classes.as_slice() {
                    d = d.with_note(format!("write the type as ?{one} to allow null"));
                }
                diags.push(d);
                continue;
            }
            for class in unknown {
                let mut d = Diagnostic::error(
                    Code::ClassNotFound,
                    format!(
                        "Class '{class}' not found (the type of 'types › {} › {}').",
                        p.path, p.param
                    ),
                )
                .at(p.span);
                d = match crate::diagnostics::suggest(
                    class,
                    self.classes().map(|c| c.name.as_str()),
                ) {
                    Some(s) => d.with_note(format!("did you mean '{s}'?")),
                    None => d.with_note(self.class_not_found_note()),
                };
                diags.push(d);
            }
        }
    }

    pub(super) fn check_references(&mut self, diags: &mut Diagnostics) {
        self.check_references_locating(diags, &|_| None, &|_, _| None);
    }

    /// [`Catalog::check_references`], placing a problem of a class read without a position
    /// (a JSON catalog's fast path) at `locate(class name)` (its key in the file), and one
    /// about a parent or interface the class names at `locate_in(class name, parent)` when
    /// that finds where the class names it (a new user's trial: the whole class was
    /// underlined for one misspelt interface).
    pub(super) fn check_references_locating(
        &mut self,
        diags: &mut Diagnostics,
        locate: &dyn Fn(&str) -> Option<Span>,
        locate_in: &dyn Fn(&str, &str) -> Option<Span>,
    ) {
        // Every parent and interface named, looked up once for all the checks below.
        let links = Links::of(self);
        // Only a class inside a cycle can reach itself: the others are not walked (a chain of
        // 20,000 parents took 25 s walked from every class; a new user's trial).
        let on_cycle = links.on_cycles();
        // The classes of the cycles reported, whose links are broken below.
        let mut in_cyclic: std::collections::HashSet<String> = std::collections::HashSet::new();
        for (k, c) in self.classes.values().enumerate() {
            // (a class that names no parent has nothing to check: most classes)
            let found = links.of_class(k);
            if found.is_empty() {
                continue;
            }
            let (found_extends, found_implements) = found.split_at(c.extends.len());
            let at = || c.span.or_else(|| locate(&c.name));
            let at_parent = |parent: &str| locate_in(&c.name, parent).or_else(at);
            let named = c.extends.iter().map(|p| (p, "parent of")).chain(
                c.implements
                    .iter()
                    .map(|i| (i, "an interface implemented by")),
            );
            for ((parent, role), found) in named.zip(found) {
                if found.is_none() {
                    diags.push(
                        Diagnostic::error(
                            Code::ClassNotFound,
                            format!("Class '{parent}' not found (named as {role} {}).", c.name),
                        )
                        .at(at_parent(parent))
                        .with_focus(parent.as_str())
                        .with_note(
                            crate::diagnostics::suggest(
                                parent,
                                self.classes().map(|c| c.name.as_str()),
                            )
                            .map_or_else(
                                || self.class_not_found_note().to_string(),
                                |s| format!("did you mean '{s}'?"),
                            ),
                        ),
                    );
                }
            }
            let class_at = |found: &Option<u32>| {
                found
                    .and_then(|j| self.classes.get_index(j as usize))
                    .map(|(_, p)| p)
            };
            for (i, found) in c.implements.iter().zip(found_implements) {
                if class_at(found).is_some_and(|p| !p.interface) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("{} implements {i}, which is not an interface.", c.name),
                        )
                        .at(at_parent(i))
                        .with_focus(i.as_str())
                        .with_note(format!("Use `extends: {i}` for a parent class.")),
                    );
                }
            }
            for (parent, found) in c.extends.iter().zip(found_extends) {
                let Some(p) = class_at(found) else {
                    continue;
                };
                let (msg, note) = match (c.interface, p.interface) {
                    (true, false) => (
                        format!(
                            "Interface {} extends {}, which is a class; an interface may extend only interfaces.",
                            c.name, p.name
                        ),
                        format!("Make {} an interface (interface: true), or leave it out of `extends`.", p.name),
                    ),
                    (false, true) => (
                        format!(
                            "Class {} extends {}, which is an interface.",
                            c.name, p.name
                        ),
                        format!("Use `implements: [{}]` for an interface.", p.name),
                    ),
                    _ => continue,
                };
                diags.push(
                    Diagnostic::error(Code::InvalidValue, msg)
                        .at(at_parent(parent))
                        .with_focus(parent.as_str())
                        .with_note(note),
                );
            }
            if !c.interface && c.extends.len() > 1 {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "Class {} extends several classes; only interfaces may.",
                            c.name
                        ),
                    )
                    .at(at()),
                );
            }
            // A class that names no parent is on no cycle of its own (most classes), nor is
            // one outside every cycle; one on a cycle already reported is not walked again.
            let walk = on_cycle[k] && !in_cyclic.contains(c.name.as_str());
            if let Some(path) = walk.then(|| self.inheritance_cycle(&c.name)).flatten() {
                if !path.iter().any(|p| in_cyclic.contains(p)) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("Inheritance cycle: {}.", path.join(" -> ")),
                        )
                        .at(at()),
                    );
                }
                in_cyclic.extend(path);
            }
        }
        // Break the cycles so that later walks terminate.
        for name in in_cyclic {
            if let Some(c) = self.classes.get_mut(&super::names::Caseless(&name)) {
                c.extends = Box::default();
                c.implements = Box::default();
            }
        }
    }

    /// The path `A -> B -> A` when `name` reaches itself through `extends`/`implements`. The
    /// walk borrows the names (it runs for each class on a cycle not yet reported); only a
    /// path found is copied.
    fn inheritance_cycle(&self, name: &str) -> Option<Vec<String>> {
        let first = self.get(name)?.name.as_str();
        // Depth first without recursion (a cycle may be thousands of classes long): `path`
        // holds the classes walked into, `next` how many parents of each were tried.
        let mut path = vec![first];
        let mut next = vec![0usize];
        let mut seen = super::names::SeenNames::default();
        while let (Some(&current), Some(tried)) = (path.last(), next.last_mut()) {
            let parent = self.get(current).and_then(|c| {
                let e = c.extends.len();
                let p = match c.extends.get(*tried) {
                    Some(p) => Some(p),
                    None => c.implements.get(*tried - e),
                };
                p.map(|p| self.canonical(p))
            });
            let Some(p) = parent else {
                path.pop();
                next.pop();
                continue;
            };
            *tried += 1;
            if p.eq_ignore_ascii_case(first) {
                path.push(p);
                return Some(path.into_iter().map(str::to_string).collect());
            }
            if seen.insert(p) {
                path.push(p);
                next.push(0);
            }
        }
        None
    }
}

/// The parents and interfaces every class of a catalog names, each looked up once: per class
/// (in the table's order) its `extends` then its `implements`, as the index of the named class
/// in the table, `None` for a name the catalog does not declare.
struct Links {
    /// The links of all classes, one class after another.
    found: Vec<Option<u32>>,
    /// Where each class's links start in `found`, and where the last class's end.
    starts: Vec<u32>,
}

impl Links {
    fn of(catalog: &Catalog) -> Links {
        let n = catalog.classes.len();
        let mut found = Vec::new();
        let mut starts = Vec::with_capacity(n + 1);
        for c in catalog.classes.values() {
            starts.push(found.len() as u32);
            found.extend(
                c.extends
                    .iter()
                    .chain(&c.implements)
                    .map(|p| catalog.position(p).map(|j| j as u32)),
            );
        }
        starts.push(found.len() as u32);
        Links { found, starts }
    }

    /// The links of class `k`.
    fn of_class(&self, k: usize) -> &[Option<u32>] {
        &self.found[self.starts[k] as usize..self.starts[k + 1] as usize]
    }

    /// The classes class `k` names that the catalog declares.
    fn parents(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        self.of_class(k).iter().flatten().map(|&j| j as usize)
    }

    /// For each class (in the catalog's order), whether it lies on a cycle of `extends` and
    /// `implements`: a strongly connected component of more than one class, or a class that
    /// names itself. Tarjan's algorithm, iterative (hierarchies may be tens of thousands of
    /// classes deep), so linear in the classes and their parents. It runs over the classes
    /// that both name a declared class and are named by one, the only ones a cycle can pass
    /// through (in a generated application most classes are neither, or only named).
    fn on_cycles(&self) -> Vec<bool> {
        let n = self.starts.len() - 1;
        let mut on_cycle = vec![false; n];
        let mut named = vec![false; n];
        for &j in self.found.iter().flatten() {
            named[j as usize] = true;
        }
        let may = |v: usize| named[v] && self.parents(v).next().is_some();
        const NONE: usize = usize::MAX;
        let (mut index, mut low) = (vec![NONE; n], vec![0usize; n]);
        let mut on_stack = vec![false; n];
        let mut stack: Vec<usize> = Vec::new();
        let mut next = 0;
        // (class, how many of its links were looked at)
        let mut calls: Vec<(usize, usize)> = Vec::new();
        for root in 0..n {
            if index[root] != NONE || !may(root) {
                continue;
            }
            calls.push((root, 0));
            while let Some(&mut (v, ref mut i)) = calls.last_mut() {
                if *i == 0 && index[v] == NONE {
                    index[v] = next;
                    low[v] = next;
                    next += 1;
                    stack.push(v);
                    on_stack[v] = true;
                }
                if let Some(&link) = self.of_class(v).get(*i) {
                    *i += 1;
                    let Some(w) = link.map(|j| j as usize).filter(|&w| may(w)) else {
                        continue;
                    };
                    if index[w] == NONE {
                        calls.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut members = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        members.push(w);
                        if w == v {
                            break;
                        }
                    }
                    let cycle = members.len() > 1 || self.parents(v).any(|w| w == v);
                    for w in members {
                        on_cycle[w] = cycle;
                    }
                }
            }
        }
        on_cycle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// For each class, whether it reaches itself through the classes it names: the answer
    /// [`Links::on_cycles`] gives, found by a walk from every class.
    fn reaches_itself(links: &Links) -> Vec<bool> {
        let n = links.starts.len() - 1;
        (0..n)
            .map(|v| {
                let mut seen = vec![false; n];
                let mut todo: Vec<usize> = links.parents(v).collect();
                while let Some(w) = todo.pop() {
                    if w == v {
                        return true;
                    }
                    if !std::mem::replace(&mut seen[w], true) {
                        todo.extend(links.parents(w));
                    }
                }
                false
            })
            .collect()
    }

    /// Random hierarchies of up to twelve classes, each naming up to four parents or
    /// interfaces (some in another letter case, some unknown): the classes found on cycles
    /// are exactly those that reach themselves, also those only named or only naming.
    #[test]
    fn classes_on_cycles_are_the_ones_that_reach_themselves() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |below: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % below
        };
        let mut with_cycle = 0;
        for _ in 0..500 {
            let n = 1 + next(12);
            let mut text = String::from("types:\n");
            for i in 0..n {
                text.push_str(&format!("\tApp\\C{i}:\n"));
                let (mut extends, mut implements) = (Vec::new(), Vec::new());
                for _ in 0..next(5) {
                    let target = next(n + 1);
                    let name = match (target == n, next(3)) {
                        (true, _) => "App\\Unknown".to_string(),
                        (false, 0) => format!("\\app\\c{target}"),
                        (false, _) => format!("App\\C{target}"),
                    };
                    match next(2) {
                        0 => extends.push(name),
                        _ => implements.push(name),
                    }
                }
                for (field, names) in [("extends", extends), ("implements", implements)] {
                    if !names.is_empty() {
                        text.push_str(&format!("\t\t{field}: [{}]\n", names.join(", ")));
                    }
                }
            }
            let value = crate::neon::decode(&text, crate::source::FileId(0)).expect("decodes");
            let section = crate::expr::Expr::from_neon(&value);
            let items = section.as_array().expect("a map");
            let types = items
                .get("types")
                .and_then(|t| t.as_array())
                .expect("types");
            let mut stream = super::super::CatalogStream::new();
            for (key, value) in &types.items {
                stream.add(key, None, value);
            }
            let links = Links::of(&stream.cat);
            let expected = reaches_itself(&links);
            assert_eq!(links.on_cycles(), expected, "{text}");
            with_cycle += usize::from(expected.contains(&true));
        }
        // (the hierarchies drawn have cycles often enough to test them)
        assert!(with_cycle > 100, "{with_cycle} of 500 with a cycle");
    }
}
