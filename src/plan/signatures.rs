//! The plan's `signatures` section (plan version 4): the parameter names, from the catalog,
//! of every constructor and method with parameters that the plan's statements call. The plan
//! passes arguments by position; the runtime compares these names with the registry's at
//! load, so a plan compiled from a catalog older than the Rust code (two parameters of one
//! type swapped, one renamed) is refused instead of passing each argument to another
//! parameter (docs/plan-format.md, "Signatures"). The names are collected while the
//! statements are completed ([`crate::builder::ContainerBuilder::signatures`]), where the
//! catalog's parameters are at hand; here each constructor or method keeps its first entry.

use wireplan_runtime::plan::{Name, NameMap};

/// The section from the completion's list (in the order completed, repeats included): the
/// first entry of each constructor or method, in that order.
pub(super) fn section(list: impl ExactSizeIterator<Item = (Name, Name)>) -> NameMap<Name> {
    let mut section = NameMap::with_capacity_and_hasher(list.len(), Default::default());
    for (key, names) in list {
        section.entry(key).or_insert(names);
    }
    section
}
