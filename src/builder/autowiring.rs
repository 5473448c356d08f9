//! The autowiring index, rebuilt as in Nette's `Autowiring::rebuild`
//! (`../shared/reference/nette-di.md` §5.1).
//!
//! Every autowired definition is registered under its type and all of its ancestors.
//! `autowired: true` registers at high priority, unless another service claimed that ancestor as
//! preferred (then low). `autowired: [T, …]` makes the service preferred for ancestors that are
//! subtypes of some `T` (earlier high-priority services move to low) and low elsewhere.
//! `getByType` looks at high priority only; collections (`T[]`, `typed()`) take both.

use super::{Autowired, ContainerBuilder};
use crate::catalog::{hash_caseless, same_name, Name};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use indexmap::{Equivalent, IndexMap};
use rustc_hash::FxBuildHasher;
use std::hash::{Hash, Hasher};
use wireplan_runtime::plan;

/// Type → service names, by priority. Types compare case-insensitively (as PHP class names).
///
/// Memory (issue #13): each service name is stored once, and the per-type lists hold 4-byte
/// positions into that list, all in one flat slice once built (a name used to be copied
/// into the list of every ancestor type, each list its own allocation).
#[derive(Debug, Clone, Default)]
pub struct AutowiringIndex {
    /// Every indexed type (the spelling first registered), in first-registration order,
    /// found in any letter case without allocating.
    types: IndexMap<TypeKey, Indexed, FxBuildHasher>,
    /// The autowired services' names (inline when short: most names, copied out without an
    /// allocation); the lists hold positions in it.
    names: Vec<plan::Name>,
    /// Each autowired service's place: its position among the definitions, with [`LAZY`] set
    /// for an accessor or a factory (what the completion's graph needs of a reference to it,
    /// handed over with the name: [`super::complete::Completer::ref_hints`]).
    places: Vec<u32>,
    /// Every type's high-priority positions, then its low ones, type after type.
    slots: Vec<u32>,
    /// This index's number among the indexes finished in this process (from 1; 0 for an
    /// empty default index), the tag of the memos it leaves on parameter types
    /// ([`crate::catalog::IndexSlot`]).
    generation: u32,
}

/// The bit of a place ([`AutowiringIndex::places`]) that marks an accessor or a factory.
pub(super) const LAZY: u32 = 1 << 31;

/// The place of the definition at `position` of kind `kind`: the position, with [`LAZY`] set
/// for an accessor or a factory ([`super::DefinitionKind::is_handle`]); `None` past 2^31
/// definitions.
pub(super) fn place(position: usize, kind: super::DefinitionKind) -> Option<u32> {
    let place = u32::try_from(position).ok().filter(|p| p & LAZY == 0)?;
    Some(if kind.is_handle() {
        place | LAZY
    } else {
        place
    })
}

/// A [`place`]'s position among the definitions, and whether that one is an accessor or a
/// factory.
pub(super) fn unplace(place: u32) -> (usize, bool) {
    ((place & !LAZY) as usize, place & LAZY != 0)
}

/// How many autowiring indexes were finished in this process: the last one's generation.
static GENERATIONS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// One type of the index: its services are `slots[start..start + high]` (high priority),
/// then `low` more (low priority).
#[derive(Debug, Clone, Default)]
struct Indexed {
    start: u32,
    high: u32,
    low: u32,
    /// The catalog knew the type when the index was built (an unknown resolved type is
    /// indexed under its own name).
    known: bool,
}

/// A type's lists while the index is built.
#[derive(Debug, Default)]
struct Growing {
    high: Vec<u32>,
    low: Vec<u32>,
    /// A service with `autowired: [T, …]` claimed this type.
    preferred: bool,
    /// See [`Indexed::known`].
    known: bool,
}

/// A type name, hashed and compared ASCII-case-insensitively; a known class's is the
/// catalog's own (shared) name, so lookups with the catalog's names compare addresses.
#[derive(Debug, Clone)]
struct TypeKey(Name);

impl PartialEq for TypeKey {
    fn eq(&self, other: &TypeKey) -> bool {
        self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl Eq for TypeKey {}

impl Hash for TypeKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_caseless(&self.0, state);
    }
}

/// A borrowed type name to look a [`TypeKey`] up with, in any letter case.
struct Caseless<'a>(&'a str);

impl Hash for Caseless<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_caseless(self.0, state);
    }
}

impl Equivalent<TypeKey> for Caseless<'_> {
    fn equivalent(&self, key: &TypeKey) -> bool {
        same_name(self.0, &key.0)
    }
}

/// An [`AutowiringIndex`] while it is built: each definition with a resolved type is added in
/// definition order ([`IndexBuilder::add`]), which decides the priorities (a later
/// `autowired: [T]` moves earlier services of `T` to low priority), then
/// [`IndexBuilder::finish`] lays the lists out flat. Type resolution hands the types over as it
/// finds them, so a large application's index is built beside it on another core
/// ([`ContainerBuilder::resolve`]).
pub(super) struct IndexBuilder {
    /// Every type listed so far, in first-registration order.
    types: Vec<(TypeKey, Growing)>,
    /// A known class's place in `types`, by its position in the catalog (`u32::MAX`: not
    /// listed yet): no lookup by name for most types. Grown to the catalog's size at the
    /// first service.
    known: Vec<u32>,
    /// A type the catalog does not know (indexed under its own name): its place in `types`.
    unknown: IndexMap<TypeKey, u32, FxBuildHasher>,
    names: Vec<plan::Name>,
    places: Vec<u32>,
}

impl IndexBuilder {
    /// An empty index, with room for `services` services (at least one type per autowired
    /// service, most services autowired: sized once).
    pub(super) fn new(services: usize) -> IndexBuilder {
        IndexBuilder {
            types: Vec::with_capacity(services),
            known: Vec::new(),
            unknown: IndexMap::default(),
            names: Vec::with_capacity(services),
            places: Vec::with_capacity(services),
        }
    }

    /// Files `def`, the definition at `position`, whose resolved type is `ty`, under `ty` and
    /// its ancestors as its `autowired:` option says (`at`: `ty`'s position in the catalog,
    /// when the caller has it). A type of `autowired: [T, …]` that `ty` is not a subtype of is
    /// an `invalid-autowired` error in `diags`.
    pub(super) fn add(
        &mut self,
        b: &ContainerBuilder,
        position: usize,
        def: &super::Definition,
        ty: &str,
        at: Option<usize>,
        diags: &mut Diagnostics,
    ) {
        let wanted: Option<Vec<String>> = match &def.autowired {
            Autowired::All(false) => return,
            Autowired::All(true) => None,
            Autowired::Types(list) => {
                let mut out = Vec::new();
                for t in list {
                    // Where the type was written, else the service.
                    let at = def
                        .extras()
                        .autowired_at
                        .iter()
                        .find(|(written, _)| written == t)
                        .map(|(_, span)| *span)
                        .or(def.span);
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
                            .at(at)
                            .with_note(if b.catalog.exists(&t) {
                                format!("{ty} does not extend or implement {t}.")
                            } else {
                                // `autowired: maybe`, `autowired: yes`: not a class at all.
                                format!("'{t}' is no known class; `autowired` takes true, false, self, or the types to autowire the service for")
                            }),
                        );
                        continue;
                    }
                    out.push(t);
                }
                Some(out)
            }
        };
        // The service's position among the names, taken when it is first listed.
        let mut listed = None;
        if self.known.len() < b.catalog.len() {
            self.known.resize(b.catalog.len(), u32::MAX);
        }
        for (ancestor, class) in b.catalog.ancestor_classes(ty, at) {
            if b.is_excluded(ancestor) {
                continue;
            }
            let n = *listed.get_or_insert_with(|| {
                self.names.push(def.name.as_str().into());
                self.places
                    .push(place(position, def.kind).expect("fewer than 2^31 definitions"));
                u32::try_from(self.names.len() - 1).expect("fewer than 2^32 services")
            });
            let next = u32::try_from(self.types.len()).expect("fewer than 2^32 types");
            let place = match class {
                Some((at, _)) => &mut self.known[at],
                None => match self.unknown.get_index_of(&Caseless(ancestor)) {
                    Some(i) => &mut self.unknown[i],
                    None => self
                        .unknown
                        .entry(TypeKey(Name::from(ancestor)))
                        .or_insert(u32::MAX),
                },
            };
            if *place == u32::MAX {
                *place = next;
                let key = class.map_or_else(|| Name::from(ancestor), |(_, c)| c.name.clone());
                let growing = Growing {
                    known: class.is_some(),
                    ..Growing::default()
                };
                self.types.push((TypeKey(key), growing));
            }
            let e = &mut self.types[*place as usize].1;
            match &wanted {
                None => {
                    if e.preferred {
                        e.low.push(n);
                    } else {
                        e.high.push(n);
                    }
                }
                Some(claimed) => {
                    let prefer = claimed.iter().any(|t| b.catalog.is_subtype(ancestor, t));
                    if prefer {
                        if !e.preferred {
                            let moved = std::mem::take(&mut e.high);
                            e.low.extend(moved);
                        }
                        e.preferred = true;
                        e.high.push(n);
                    } else {
                        e.low.push(n);
                    }
                }
            }
        }
    }

    /// The finished index: one flat slice of positions, sized exactly.
    pub(super) fn finish(self) -> AutowiringIndex {
        // The growing lists are freed type by type as they are copied.
        let total = self
            .types
            .iter()
            .map(|(_, e)| e.high.len() + e.low.len())
            .sum();
        let mut slots = Vec::with_capacity(total);
        let mut done = IndexMap::with_capacity_and_hasher(self.types.len(), FxBuildHasher);
        for (key, e) in self.types {
            let start = slots.len() as u32;
            slots.extend_from_slice(&e.high);
            slots.extend_from_slice(&e.low);
            done.insert(
                key,
                Indexed {
                    start,
                    high: e.high.len() as u32,
                    low: e.low.len() as u32,
                    known: e.known,
                },
            );
        }
        let mut names = self.names;
        names.shrink_to_fit();
        let mut places = self.places;
        places.shrink_to_fit();
        // (Past u32::MAX indexes in one process the numbers start again at 1, skipping 0.)
        let mut generation = 0;
        while generation == 0 {
            generation = GENERATIONS
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                .wrapping_add(1);
        }
        AutowiringIndex {
            types: done,
            names,
            places,
            slots,
            generation,
        }
    }
}

impl AutowiringIndex {
    /// Builds the index from resolved definitions. Incompatible `autowired:` types are
    /// `invalid-autowired` errors.
    pub fn build(b: &ContainerBuilder, diags: &mut Diagnostics) -> AutowiringIndex {
        let mut index = IndexBuilder::new(b.definitions().size_hint().0);
        for (position, def) in b.definitions().enumerate() {
            if let Some(ty) = def.resolved_type.as_deref() {
                index.add(b, position, def, ty, None, diags);
            }
        }
        index.finish()
    }

    /// The entry of a type (leading `\` and surrounding spaces ignored, any letter case).
    fn find(&self, ty: &str) -> Option<&Indexed> {
        self.types.get(&Caseless(crate::catalog::bare_name(ty)))
    }

    /// [`AutowiringIndex::find`] for the class of a parameter type, through the memo the type
    /// carries: the entry remembered for this index, or found and remembered.
    fn find_remembered(&self, ty: &str, memo: &crate::catalog::IndexSlot) -> Option<&Indexed> {
        if let Some(slot) = memo.get(self.generation) {
            return slot
                .and_then(|at| self.types.get_index(at as usize))
                .map(|(_, e)| e);
        }
        let found = self
            .types
            .get_full(&Caseless(crate::catalog::bare_name(ty)));
        memo.set(self.generation, found.map(|(at, _, _)| at as u32));
        found.map(|(_, _, e)| e)
    }

    /// The names at `positions`.
    fn named<'a>(
        &'a self,
        positions: &'a [u32],
    ) -> impl ExactSizeIterator<Item = &'a plan::Name> + Clone + 'a {
        positions.iter().map(|&i| &self.names[i as usize])
    }

    /// The positions of a type's high-priority services, then of its low ones.
    fn lists(&self, e: &Indexed) -> (&[u32], &[u32]) {
        let start = e.start as usize;
        let mid = start + e.high as usize;
        (
            &self.slots[start..mid],
            &self.slots[mid..mid + e.low as usize],
        )
    }

    /// High-priority services of a type (what `getByType` chooses from), in definition order.
    pub fn high(&self, ty: &str) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        let positions = self.find(ty).map(|e| self.lists(e).0).unwrap_or(&[]);
        self.named(positions).map(plan::Name::as_str)
    }

    /// What the index holds for a type with at least one autowired service: whether the
    /// catalog knew the type when the index was built, and its high-priority services (as
    /// [`AutowiringIndex::high`]). One lookup answers both questions `getByType` asks.
    pub fn known_high(
        &self,
        ty: &str,
    ) -> Option<(
        bool,
        impl ExactSizeIterator<Item = &plan::Name> + Clone + '_,
    )> {
        self.known_high_remembered(ty, None)
            .map(|(known, high)| (known, high.map(|(n, _)| n)))
    }

    /// [`AutowiringIndex::known_high`], for the class of a parameter type (`ty` being that
    /// class's name) through the memo the type carries when given
    /// ([`crate::catalog::IndexSlot`]).
    ///
    /// Each name comes with the service's place: its position among the definitions, with
    /// [`LAZY`] set for an accessor or a factory.
    pub(super) fn known_high_remembered(
        &self,
        ty: &str,
        memo: Option<&crate::catalog::IndexSlot>,
    ) -> Option<(
        bool,
        impl ExactSizeIterator<Item = (&plan::Name, u32)> + Clone + '_,
    )> {
        match memo {
            Some(memo) => self.find_remembered(ty, memo),
            None => self.find(ty),
        }
        .map(|e| {
            let placed = self.lists(e).0.iter();
            let placed = placed.map(|&i| (&self.names[i as usize], self.places[i as usize]));
            (e.known, placed)
        })
    }

    /// All autowired services of a type, high priority first.
    pub fn all(&self, ty: &str) -> Vec<String> {
        self.find(ty)
            .map(|e| {
                let (high, low) = self.lists(e);
                self.named(high)
                    .chain(self.named(low))
                    .map(|n| n.to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every indexed type (the spelling first registered: the catalog's canonical one, as a
    /// rule) with its high-priority services, for the plan.
    pub fn types(
        &self,
    ) -> impl Iterator<Item = (&str, impl ExactSizeIterator<Item = &str> + Clone + '_)> {
        self.types
            .iter()
            .filter(|(_, e)| e.high > 0)
            .map(|(k, e)| (&*k.0, self.named(self.lists(e).0).map(plan::Name::as_str)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Autowired, ContainerBuilder};
    use super::AutowiringIndex;
    use crate::diagnostics::Diagnostics;
    use crate::expr::ExprArray;

    /// Two services of `App\Db` (one claiming `App\Store` as preferred) and one of `App\Log`.
    fn builder() -> ContainerBuilder {
        let cat = crate::catalog::from_config_text(
            "types:\n\tApp\\Store: {interface: true}\n\tApp\\Db: {implements: [App\\Store]}\n\tApp\\Log: {}\n",
        );
        let mut b = ContainerBuilder::new(cat);
        for (name, class) in [
            ("main", "App\\Db"),
            ("log", "App\\Log"),
            ("replica", "App\\Db"),
        ] {
            b.add_definition(Some(name), None)
                .expect("added")
                .set_creator(class, ExprArray::new());
        }
        b.get_definition_mut("replica").expect("defined").autowired =
            Autowired::Types(vec!["App\\Store".into()]);
        b.resolve(&mut Diagnostics::new());
        b
    }

    #[test]
    fn names_come_back_by_priority_in_any_letter_case() {
        let b = builder();
        let idx = b.autowiring();
        // `replica` claimed App\Store: `main` moved to low priority there.
        assert_eq!(idx.high("app\\store").collect::<Vec<_>>(), ["replica"]);
        assert_eq!(idx.all(" \\APP\\Store"), ["replica", "main"]);
        // App\Db is a subtype of the claimed App\Store, so `replica` is preferred there too.
        assert_eq!(idx.high("App\\Db").collect::<Vec<_>>(), ["replica"]);
        assert_eq!(idx.all("App\\Db"), ["replica", "main"]);
        assert_eq!(idx.high("App\\LOG").collect::<Vec<_>>(), ["log"]);
        assert_eq!(idx.high("App\\Missing").len(), 0);
        let types: Vec<(&str, Vec<&str>)> = idx.types().map(|(t, n)| (t, n.collect())).collect();
        assert_eq!(
            types,
            [
                ("App\\Db", vec!["replica"]),
                ("App\\Store", vec!["replica"]),
                ("App\\Log", vec!["log"]),
            ]
        );
    }

    #[test]
    fn a_type_memo_answers_for_its_own_index_only() {
        let b = builder();
        let idx = b.autowiring();
        fn high<'a>(
            found: Option<(bool, impl Iterator<Item = (&'a super::plan::Name, u32)>)>,
        ) -> Option<(bool, Vec<String>)> {
            found.map(|(known, names)| (known, names.map(|(n, _)| n.to_string()).collect()))
        }
        let memo = crate::catalog::IndexSlot::default();
        let missing = crate::catalog::IndexSlot::default();
        for _ in 0..2 {
            // Found and remembered, then answered from the memo: the same as a lookup by name.
            let found = high(idx.known_high_remembered("App\\Store", Some(&memo)));
            assert_eq!(found, Some((true, vec!["replica".to_string()])));
            let by_name = idx
                .known_high("App\\Store")
                .map(|(known, names)| (known, names.map(|n| n.to_string()).collect::<Vec<_>>()));
            assert_eq!(found, by_name);
            assert!(idx
                .known_high_remembered("App\\Missing", Some(&missing))
                .is_none());
        }
        assert_eq!(memo.get(idx.generation), Some(Some(1)));
        // Each name comes with its place among the definitions (`main`, `log`, `replica`).
        let placed: Vec<(String, u32)> = ["App\\Db", "App\\Log"]
            .iter()
            .flat_map(|ty| idx.known_high_remembered(ty, None).expect("indexed").1)
            .map(|(n, place)| (n.to_string(), place))
            .collect();
        assert_eq!(placed, [("replica".to_string(), 2), ("log".to_string(), 1)]);
        assert_eq!(missing.get(idx.generation), Some(None));
        // Another index (here one without App\Store) does not take the memo for its own: it
        // looks the type up and remembers its own entry.
        let mut other = builder();
        other.get_definition_mut("log").expect("defined").autowired =
            Autowired::Types(vec!["App\\Log".into()]);
        other.remove_definition("main");
        other.remove_definition("replica");
        other.resolve(&mut Diagnostics::new());
        let other = other.autowiring();
        assert_ne!(other.generation, idx.generation);
        assert!(memo.get(other.generation).is_none());
        assert!(other
            .known_high_remembered("App\\Store", Some(&memo))
            .is_none());
        assert_eq!(memo.get(other.generation), Some(None));
        // An empty index (generation 0) neither reads nor leaves a memo.
        let empty = AutowiringIndex::default();
        assert!(empty
            .known_high_remembered("App\\Store", Some(&memo))
            .is_none());
        assert_eq!(memo.get(other.generation), Some(None));
    }

    /// A builder past the size from which the index is built beside the type resolution:
    /// services of three classes, every seventh not autowired, every eleventh claiming
    /// `App\Store`, two with an `autowired:` type they do not have; with `refused`, one more
    /// whose declared `type:` its creator does not make (the resolution changes that type
    /// after the fact).
    fn large(refused: bool) -> ContainerBuilder {
        let cat = crate::catalog::from_config_text(
            "types:\n\tApp\\Store: {interface: true}\n\tApp\\Db: {implements: [App\\Store]}\n\tApp\\Replica: {extends: App\\Db}\n\tApp\\Log: {}\n",
        );
        let mut b = ContainerBuilder::new(cat);
        for i in 0..3000 {
            let class = ["App\\Db", "App\\Replica", "App\\Log"][i % 3];
            let d = b
                .add_definition(Some(&format!("s{i}")), None)
                .expect("added");
            d.set_creator(class, ExprArray::new());
            if i % 7 == 0 {
                d.autowired = Autowired::All(false);
            } else if i % 11 == 0 && i % 3 != 2 {
                d.autowired = Autowired::Types(vec!["App\\Store".into()]);
            } else if i == 1000 || i == 2001 {
                d.autowired = Autowired::Types(vec!["App\\Log".into()]);
            }
            if refused && i == 2500 {
                d.declared_type = Some("App\\Log".into());
            }
        }
        b
    }

    #[test]
    fn an_index_built_beside_the_resolution_is_the_one_built_after_it() {
        for refused in [false, true] {
            let mut beside = large(refused);
            let mut found = Diagnostics::new();
            beside.resolve(&mut found);
            let mut after = large(refused);
            let mut expected = Diagnostics::new();
            after.resolve_types(&mut expected);
            let index = AutowiringIndex::build(&after, &mut expected);
            let messages = |d: &Diagnostics| -> Vec<String> {
                d.items().iter().map(|d| d.message.clone()).collect()
            };
            assert_eq!(messages(&found), messages(&expected), "refused: {refused}");
            assert_eq!(
                found.len(),
                2 + usize::from(refused),
                "{:?}",
                messages(&found)
            );
            let listed = |idx: &AutowiringIndex| -> Vec<(String, Vec<String>, Vec<String>)> {
                idx.types()
                    .map(|(t, _)| {
                        (
                            t.to_string(),
                            idx.high(t).map(String::from).collect(),
                            idx.all(t),
                        )
                    })
                    .collect()
            };
            assert_eq!(
                listed(beside.autowiring()),
                listed(&index),
                "refused: {refused}"
            );
            assert!(listed(&index)
                .iter()
                .all(|(_, high, all)| !high.is_empty() && all.len() > 100));
            for (a, b) in beside.definitions().zip(after.definitions()) {
                assert_eq!(a.resolved_type, b.resolved_type, "{}", a.name);
            }
        }
    }
}
