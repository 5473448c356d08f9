//! The autowiring index, rebuilt as in Nette's `Autowiring::rebuild`
//! (`../shared/reference/nette-di.md` §5.1).
//!
//! Every autowired definition is registered under its type and all of its ancestors.
//! `autowired: true` registers at high priority, unless another service claimed that ancestor as
//! preferred (then low). `autowired: [T, …]` makes the service preferred for ancestors that are
//! subtypes of some `T` (earlier high-priority services move to low) and low elsewhere.
//! `getByType` looks at high priority only; collections (`T[]`, `typed()`) take both.

use super::{Autowired, ContainerBuilder};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use rustc_hash::FxHashMap;

/// Type → service names, by priority. Types compare case-insensitively (as PHP class names).
#[derive(Debug, Clone, Default)]
pub struct AutowiringIndex {
    /// Every indexed type, in first-registration order.
    types: Vec<Indexed>,
    /// Lower-cased type → its position in `types`.
    by_lower: FxHashMap<String, usize>,
    /// Each spelling registered (the catalog's canonical one, as a rule) → its position in
    /// `types`, so that a lookup with that spelling allocates nothing.
    by_name: FxHashMap<String, usize>,
}

/// One type of the index.
#[derive(Debug, Clone, Default)]
struct Indexed {
    /// The spelling first registered.
    name: String,
    high: Vec<String>,
    low: Vec<String>,
    /// A service with `autowired: [T, …]` claimed this type.
    preferred: bool,
}

impl AutowiringIndex {
    /// Builds the index from resolved definitions. Incompatible `autowired:` types are
    /// `invalid-autowired` errors.
    pub fn build(b: &ContainerBuilder, diags: &mut Diagnostics) -> AutowiringIndex {
        let mut idx = AutowiringIndex::default();
        for def in b.definitions() {
            let Some(ty) = def.resolved_type.as_deref() else {
                continue;
            };
            let wanted: Option<Vec<String>> = match &def.autowired {
                Autowired::All(false) => continue,
                Autowired::All(true) => None,
                Autowired::Types(list) => {
                    let mut out = Vec::new();
                    for t in list {
                        let t = if t == "self" {
                            ty.to_string()
                        } else {
                            t.clone()
                        };
                        if !b.catalog.is_subtype(ty, &t) {
                            diags.push(
                                Diagnostic::error(
                                    Code::InvalidAutowired,
                                    format!(
                                        "Incompatible class {t} in autowiring definition of service '{}'.",
                                        def.name
                                    ),
                                )
                                .at(def.span)
                                .with_note(format!("{ty} does not extend or implement {t}.")),
                            );
                            continue;
                        }
                        out.push(t);
                    }
                    Some(out)
                }
            };
            for ancestor in b.catalog.ancestors(ty) {
                if b.is_excluded(&ancestor) {
                    continue;
                }
                let i = idx.position_or_insert(ancestor.as_str());
                match &wanted {
                    None => {
                        let e = &mut idx.types[i];
                        if e.preferred {
                            e.low.push(def.name.clone());
                        } else {
                            e.high.push(def.name.clone());
                        }
                    }
                    Some(types) => {
                        let prefer = types.iter().any(|t| b.catalog.is_subtype(&ancestor, t));
                        let e = &mut idx.types[i];
                        if prefer {
                            if !e.preferred {
                                let moved = std::mem::take(&mut e.high);
                                e.low.extend(moved);
                            }
                            e.preferred = true;
                            e.high.push(def.name.clone());
                        } else {
                            e.low.push(def.name.clone());
                        }
                    }
                }
            }
        }
        // Grown by doubling; kept through phases B and C (up to a third of it unused).
        idx.types.shrink_to_fit();
        idx
    }

    /// The position of `ty` in `types`, registering it when new.
    fn position_or_insert(&mut self, ty: &str) -> usize {
        if let Some(&i) = self.by_name.get(ty) {
            return i;
        }
        let lower = ty.to_ascii_lowercase();
        let i = match self.by_lower.get(&lower) {
            Some(&i) => i,
            None => {
                self.types.push(Indexed {
                    name: ty.to_string(),
                    ..Indexed::default()
                });
                self.by_lower.insert(lower, self.types.len() - 1);
                self.types.len() - 1
            }
        };
        self.by_name.insert(ty.to_string(), i);
        i
    }

    /// The entry of a type (leading `\` and surrounding spaces ignored, any letter case).
    fn find(&self, ty: &str) -> Option<&Indexed> {
        let name = ty.trim().trim_start_matches('\\');
        let i = match self.by_name.get(name) {
            Some(&i) => i,
            None => *self.by_lower.get(&name.to_ascii_lowercase())?,
        };
        self.types.get(i)
    }

    /// High-priority services of a type (what `getByType` chooses from).
    pub fn high(&self, ty: &str) -> &[String] {
        self.find(ty).map(|e| e.high.as_slice()).unwrap_or(&[])
    }

    /// All autowired services of a type, high priority first.
    pub fn all(&self, ty: &str) -> Vec<String> {
        self.find(ty)
            .map(|e| e.high.iter().chain(&e.low).cloned().collect())
            .unwrap_or_default()
    }

    /// Every indexed type (canonical spelling) with its high-priority services, for the plan.
    pub fn types(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.types
            .iter()
            .filter(|e| !e.high.is_empty())
            .map(|e| (e.name.as_str(), e.high.as_slice()))
    }
}
