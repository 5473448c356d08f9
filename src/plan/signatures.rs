//! The plan's `signatures` section (plan version 4): the parameter names, from the catalog,
//! of every constructor and method with parameters that the plan calls on a class. The plan
//! passes arguments by position; the runtime compares these names with the registry's at
//! load, so a plan compiled from a catalog older than the Rust code (two parameters of one
//! type swapped, one renamed) is refused instead of passing each argument to another
//! parameter (docs/plan-format.md, "Signatures").

use crate::catalog::Catalog;
use indexmap::map::{Entry, VacantEntry};
use wireplan_runtime::plan::{self, CallTarget, Expr, Name, NameMap, ServicePlan};

/// Collects the section service by service, each constructor or method once, in the order
/// the plan first calls them.
pub(super) struct Signatures<'c> {
    catalog: &'c Catalog,
    found: NameMap<Name>,
}

impl<'c> Signatures<'c> {
    /// An empty section over `catalog`, with room for `services` entries (about one per
    /// service: most services are a `$new` of a class of their own).
    pub(super) fn new(catalog: &'c Catalog, services: usize) -> Signatures<'c> {
        Signatures {
            catalog,
            found: NameMap::with_capacity_and_hasher(services, Default::default()),
        }
    }

    /// Adds what the service `sp` calls: its `create`, its setup (a call on `@self` is a
    /// method of the class its `$new` makes, else of its type) and its locator references.
    pub(super) fn add_service(&mut self, sp: &ServicePlan) {
        let own = match &sp.create {
            Expr::New { class, .. } => class.as_str(),
            _ => sp.type_.as_str(),
        };
        self.expr(&sp.create, own);
        for e in &sp.setup {
            self.expr(e, own);
        }
        for e in sp.references.values() {
            self.expr(e, own);
        }
    }

    /// Adds the calls of the initialization statements (no `@self` there).
    pub(super) fn add_all(&mut self, exprs: &[Expr]) {
        for e in exprs {
            self.expr(e, "");
        }
    }

    /// The section.
    pub(super) fn finish(self) -> NameMap<Name> {
        self.found
    }

    fn expr(&mut self, e: &Expr, own: &str) {
        match e {
            Expr::New { class, args } => {
                if let Entry::Vacant(slot) = self.found.entry(class.clone()) {
                    record(slot, self.catalog.constructor(class));
                }
                self.exprs(args, own);
            }
            Expr::Call {
                target,
                method,
                args,
            } => {
                match target {
                    CallTarget::Class(class) => self.method(class, method),
                    CallTarget::SelfObject if !own.is_empty() => self.method(own, method),
                    CallTarget::SelfObject => {}
                    CallTarget::Expr(t) => self.expr(t, own),
                }
                self.exprs(args, own);
            }
            Expr::Set { target, value, .. } => {
                if let CallTarget::Expr(t) = target {
                    self.expr(t, own);
                }
                self.expr(value, own);
            }
            Expr::Get {
                target: CallTarget::Expr(t),
                ..
            }
            | Expr::Callable {
                target: CallTarget::Expr(t),
                ..
            } => self.expr(t, own),
            Expr::Func { arg, .. } => self.expr(arg, own),
            Expr::ArgOr { default, .. } => self.expr(default, own),
            Expr::List(items) | Expr::Concat(items) => self.exprs(items, own),
            Expr::Map(m) => m.values().for_each(|v| self.expr(v, own)),
            _ => {}
        }
    }

    fn exprs(&mut self, items: &[Expr], own: &str) {
        for e in items {
            self.expr(e, own);
        }
    }

    fn method(&mut self, class: &str, method: &str) {
        if let Entry::Vacant(slot) = self.found.entry(plan::signature_key(class, Some(method))) {
            if let Some(m) = self.catalog.method(class, method) {
                record(slot, &m.params);
            }
        }
    }
}

/// Records `params`' names in `slot`; a call without parameters has nothing to swap or
/// rename (its count is checked at load anyway), so it gets no entry.
fn record(slot: VacantEntry<'_, Name, Name>, params: &[crate::catalog::Param]) {
    if params.is_empty() {
        return;
    }
    let mut names = Name::default();
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            names.push_str(", ");
        }
        names.push_str(p.name.as_str());
    }
    slot.insert(names);
}
