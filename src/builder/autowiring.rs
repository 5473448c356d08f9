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
use std::collections::{HashMap, HashSet};

/// Type (lower-cased) → service names, by priority.
#[derive(Debug, Clone, Default)]
pub struct AutowiringIndex {
    high: HashMap<String, Vec<String>>,
    low: HashMap<String, Vec<String>>,
    /// Types in first-registration order, with their canonical spelling.
    order: Vec<String>,
}

impl AutowiringIndex {
    /// Builds the index from resolved definitions. Incompatible `autowired:` types are
    /// `invalid-autowired` errors.
    pub fn build(b: &ContainerBuilder, diags: &mut Diagnostics) -> AutowiringIndex {
        let mut idx = AutowiringIndex::default();
        let mut preferred: HashSet<String> = HashSet::new();
        let mut seen: HashSet<String> = HashSet::new();
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
                let key = ancestor.to_ascii_lowercase();
                if seen.insert(key.clone()) {
                    idx.order.push(ancestor.clone());
                }
                match &wanted {
                    None => {
                        let bucket = if preferred.contains(&key) {
                            &mut idx.low
                        } else {
                            &mut idx.high
                        };
                        bucket.entry(key).or_default().push(def.name.clone());
                    }
                    Some(types) => {
                        let prefer = types.iter().any(|t| b.catalog.is_subtype(&ancestor, t));
                        if prefer {
                            if !preferred.contains(&key) {
                                if let Some(moved) = idx.high.remove(&key) {
                                    idx.low.entry(key.clone()).or_default().extend(moved);
                                }
                            }
                            preferred.insert(key.clone());
                            idx.high.entry(key).or_default().push(def.name.clone());
                        } else {
                            idx.low.entry(key).or_default().push(def.name.clone());
                        }
                    }
                }
            }
        }
        idx
    }

    /// High-priority services of a type (what `getByType` chooses from).
    pub fn high(&self, ty: &str) -> &[String] {
        self.high
            .get(&crate::catalog::normalize_name(ty).to_ascii_lowercase())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// All autowired services of a type, high priority first.
    pub fn all(&self, ty: &str) -> Vec<String> {
        let key = crate::catalog::normalize_name(ty).to_ascii_lowercase();
        let mut out: Vec<String> = self.high.get(&key).cloned().unwrap_or_default();
        out.extend(self.low.get(&key).cloned().unwrap_or_default());
        out
    }

    /// Every indexed type (canonical spelling) with its high-priority services, for the plan.
    pub fn types(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.order.iter().filter_map(|t| {
            let names = self.high(t);
            (!names.is_empty()).then_some((t.as_str(), names))
        })
    }
}
