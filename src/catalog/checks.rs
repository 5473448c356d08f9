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
        let mut cyclic: Vec<String> = Vec::new();
        for c in self.classes.values() {
            let at = || c.span.or_else(|| locate(&c.name));
            let at_parent = |parent: &str| locate_in(&c.name, parent).or_else(at);
            let named = c.extends.iter().map(|p| (p, "parent of")).chain(
                c.implements
                    .iter()
                    .map(|i| (i, "an interface implemented by")),
            );
            for (parent, role) in named {
                if self.get(parent).is_none() {
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
            for i in &c.implements {
                if self.get(i).is_some_and(|p| !p.interface) {
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
            for parent in &c.extends {
                let Some(p) = self.get(parent) else {
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
            // A class that names no parent is on no cycle of its own (most classes).
            let parents = !c.extends.is_empty() || !c.implements.is_empty();
            if let Some(path) = parents.then(|| self.inheritance_cycle(&c.name)).flatten() {
                if !path.iter().any(|p| cyclic.contains(p)) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("Inheritance cycle: {}.", path.join(" -> ")),
                        )
                        .at(at()),
                    );
                }
                cyclic.extend(path);
            }
        }
        // Break the cycles so that later walks terminate.
        for name in cyclic {
            if let Some(c) = self.classes.get_mut(&super::names::Caseless(&name)) {
                c.extends = Box::default();
                c.implements = Box::default();
            }
        }
    }

    /// The path `A -> B -> A` when `name` reaches itself through `extends`/`implements`. The
    /// walk borrows the names (it runs for every class with a parent); only a path found is
    /// copied.
    fn inheritance_cycle(&self, name: &str) -> Option<Vec<String>> {
        fn walk<'a>(
            cat: &'a Catalog,
            current: &str,
            path: &mut Vec<&'a str>,
            seen: &mut super::names::SeenNames<'a>,
        ) -> bool {
            let Some(c) = cat.get(current) else {
                return false;
            };
            for p in c.extends.iter().chain(&c.implements) {
                let p = cat.canonical(p);
                if p.eq_ignore_ascii_case(path[0]) {
                    path.push(p);
                    return true;
                }
                if !seen.insert(p) {
                    continue;
                }
                path.push(p);
                if walk(cat, p, path, seen) {
                    return true;
                }
                path.pop();
            }
            false
        }
        let first = self.get(name)?.name.as_str();
        let mut path = vec![first];
        let mut seen = super::names::SeenNames::default();
        walk(self, name, &mut path, &mut seen)
            .then(|| path.into_iter().map(str::to_string).collect())
    }
}
