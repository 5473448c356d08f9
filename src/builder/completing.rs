//! The definitions completed in parts on several threads (issue #15; docs/performance.md,
//! "Whole compilation › Ninth round" and "Thirtieth round").
//!
//! Completing a definition reads the builder and the catalog and writes only its own
//! statements and diagnostics, so the definitions can be completed in parts at once. The one
//! thing a definition's completion reads that another's writes is the diagnostics: a value
//! whose error is already reported is not reported again (`has_error_within`). A block of
//! definitions completed ahead sees only the diagnostics from before `complete` and its own,
//! so it is kept only when no earlier block reported anything; otherwise it is completed
//! again, in order, after them. The statements and diagnostics are therefore those of
//! completing every definition in order on one thread.

use super::autowiring::unplace;
use super::complete::{Completer, Signatures};
use super::{Completed, ContainerBuilder, DefinitionKind};
use crate::diagnostics::Diagnostics;
use wireplan_runtime::plan::{self, Expr as P};

/// Definitions from which the completion is split over several threads (app-10000: about
/// 10,000; app-1000's 1,000 stay on the calling thread, where a thread costs about what it
/// saves).
pub(super) const PARALLEL_MIN: usize = 4096;

/// One entry per definition, in definition order: its completed statements, or `None` when
/// its type did not resolve. What the completion reports is added to `diags` in the same
/// order as one thread completing every definition in order would add it.
/// With them, the parameter names of the calls completed (`Completer::sign`), in the same
/// order as one thread would collect them.
pub(super) fn complete_definitions(
    b: &ContainerBuilder,
    diags: &mut Diagnostics,
) -> (Vec<Option<Box<Completed>>>, Signatures, Graph) {
    let parts = crate::parallel::parts(b.definitions.len(), PARALLEL_MIN);
    complete_in_parts(b, diags, parts)
}

/// What the checks after completing need of each definition ([`super::safety::check_cycles`],
/// [`super::shape::check_depth`]), gathered by the thread that completed it while its
/// statements are still in that core's cache. Walked again afterwards on one thread, the
/// statements took 38 ms of gen 100000's 140 ms completion (34 ms of it finding the services
/// referred to by name, with a 100,000-entry map out of every cache), against 1.4 ms at gen
/// 10000; gathered here, a compile takes about 2 % less at both sizes (docs/performance.md,
/// "Twenty-ninth round"). It also says whether any statement reads a dynamic parameter.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Graph {
    /// The positions (among the definitions) of the definitions each definition's `create`
    /// and `setup` refer to, in the order `for_each_ref` finds them, definition after
    /// definition; a reference to no definition is left out. Services, accessors and
    /// factories have them; a reference to an accessor or a factory counts only where it is
    /// called (`@accessor::get()`, `@factory::create()`: the call creates what the accessor
    /// or factory's own statement refers to, as the runtime does), not where it is passed on
    /// (a lazy handle). Locators have none.
    targets: Vec<u32>,
    /// Where each definition's targets end in `targets`, one entry per definition.
    ends: Vec<u32>,
    /// Each definition with an expression nested deeper than a plan can carry: its
    /// position, the first such expression's place (`create`, `setup`, `tags`,
    /// `references`) and its depth ([`super::shape::too_deep`]).
    pub(super) deep: Vec<(usize, &'static str, usize)>,
    /// Whether a statement of these definitions reads a dynamic parameter
    /// ([`ContainerBuilder::reads_dynamic`]).
    pub(super) reads_dynamic: bool,
}

impl Graph {
    /// How many definitions the graph has.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The positions of the definitions definition `i` refers to ([`Graph::targets`]).
    pub(super) fn edges(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.targets[start..self.ends[i] as usize]
    }

    /// Adds definition `position`'s entries (`completed` `None`: its type did not resolve).
    /// `hints` are the completion's [`super::complete::Completer::ref_hints`] for it: a
    /// reference to a service named there takes its place from there (the references come
    /// in about the order the hints were made: the next one is tried first), any other is
    /// looked up by name.
    fn add(
        &mut self,
        b: &ContainerBuilder,
        position: usize,
        completed: Option<&Completed>,
        hints: &[(plan::Name, u32)],
    ) {
        if let Some(c) = completed {
            if matches!(
                b.definitions[position].kind,
                DefinitionKind::Service | DefinitionKind::Accessor | DefinitionKind::Factory
            ) {
                let defs = &b.definitions;
                let statements = || std::iter::once(&c.create).chain(&c.setup);
                // The accessors and factories called here (most statements call none).
                let mut called = Vec::new();
                statements().for_each(|st| st.for_each_called(&mut |n| called.push(n)));
                let mut next = 0;
                let mut push = |n: &str| {
                    let hinted = match hints.get(next) {
                        Some((h, place)) if h == n => {
                            next += 1;
                            Some(*place)
                        }
                        // A scan stays short: hints come one per autowired argument.
                        _ if hints.len() <= HINTS_SCANNED => {
                            hints.iter().find(|(h, _)| h == n).map(|(_, place)| *place)
                        }
                        _ => None,
                    };
                    let (i, lazy) = match hinted {
                        Some(place) => {
                            let (i, lazy) = unplace(place);
                            debug_assert!(
                                defs.get_index(i)
                                    .is_some_and(|(k, d)| k == n && lazy == d.kind.is_handle()),
                                "the hint for '{n}' names another definition"
                            );
                            (i, lazy)
                        }
                        None => {
                            let Some((i, _, def)) = defs.get_full(n) else {
                                return;
                            };
                            (i, def.kind.is_handle())
                        }
                    };
                    if !lazy || called.contains(&n) {
                        self.targets.push(i as u32);
                    }
                };
                statements().for_each(|st| st.for_each_ref(&mut push));
            }
            if let Some((place, depth)) = super::shape::too_deep(c) {
                self.deep.push((position, place, depth));
            }
        }
        self.ends.push(self.targets.len() as u32);
    }

    /// Appends `later`, the graph of the definitions after this one's.
    fn append(&mut self, later: Graph) {
        let offset = self.targets.len() as u32;
        self.targets.extend(later.targets);
        self.ends
            .extend(later.ends.into_iter().map(|end| end + offset));
        self.deep.extend(later.deep);
        self.reads_dynamic |= later.reads_dynamic;
    }
}

/// Hints of one definition that a reference looks through when the next one is not its
/// own ([`Graph::add`]); with more, such a reference is looked up by name.
const HINTS_SCANNED: usize = 32;

/// Definitions a block of the completion holds: about 2 ms of work at gen 100000, so the
/// threads end at most that far apart.
const BLOCK: usize = 1024;

/// Definitions from which the completion is cut into blocks of [`BLOCK`] rather than one
/// part per thread. At app-10000 the two parts end within about a millisecond of each other,
/// and blocks raised the peak by 1.6 MB (median of ten runs 36.6 -> 38.3 MB: each block's
/// lists are allocated on the thread that completes it and freed on the calling thread).
const BLOCKS_FROM: usize = 32 * 1024;

/// [`complete_definitions`] on `threads` threads: the definitions are cut into one part per
/// thread, or from [`BLOCKS_FROM`] on into blocks of about [`BLOCK`], which the calling
/// thread and `threads - 1` helpers claim one after the other
/// ([`crate::parallel::claimed_each`]), the calling thread joining the results in order.
/// With one thread everything is completed here. Cut into one part per thread, the
/// helper's part ended up to 20 ms after the calling thread's at gen 100000 (a helper starts
/// after the autowiring index it builds, and allocates from pages of its own).
pub(super) fn complete_in_parts(
    b: &ContainerBuilder,
    diags: &mut Diagnostics,
    threads: usize,
) -> (Vec<Option<Box<Completed>>>, Signatures, Graph) {
    let count = b.definitions.len();
    let mut results = Vec::with_capacity(count);
    let mut graph = Graph::default();
    if threads <= 1 || count < 2 {
        let signatures = complete_range(b, diags, 0..count, &mut results, &mut graph);
        return (results, signatures, graph);
    }
    let blocks = if count >= BLOCKS_FROM {
        count.div_ceil(BLOCK)
    } else {
        threads
    };
    let blocks = blocks.max(threads).min(count);
    let bounds: Vec<usize> = (0..=blocks).map(|i| i * count / blocks).collect();
    // Each block completed ahead starts from the diagnostics reported before `complete`.
    let before = diags.clone();
    let mark = diags.len();
    let mut signatures = Signatures::with_capacity(count);
    // No block so far reported anything.
    let mut clean = true;
    crate::parallel::claimed_each(
        "complete",
        blocks,
        threads - 1,
        |k| {
            let mut own = before.clone();
            let mut part = Vec::with_capacity(bounds[k + 1] - bounds[k]);
            let mut part_graph = Graph::default();
            let range = bounds[k]..bounds[k + 1];
            let signed = complete_range(b, &mut own, range, &mut part, &mut part_graph);
            (k, part, own.into_vec().split_off(mark), signed, part_graph)
        },
        |(k, part, reported, signed, part_graph)| {
            if clean {
                clean = reported.is_empty();
                results.extend(part);
                diags.extend(reported);
                signatures.extend(signed);
                graph.append(part_graph);
            } else {
                // Completed ahead while an earlier block reported something: again, here,
                // after what was reported before it.
                let range = bounds[k]..bounds[k + 1];
                let signed = complete_range(b, diags, range, &mut results, &mut graph);
                signatures.extend(signed);
            }
        },
    );
    (results, signatures, graph)
}

/// Completes the definitions at positions `range` (in definition order) into `results`, one
/// entry per definition (`None` for one whose type did not resolve), reporting to `diags`,
/// and adds their entries to `graph`. Returns the parameter names of the calls completed
/// (`Completer::sign`).
fn complete_range(
    b: &ContainerBuilder,
    diags: &mut Diagnostics,
    range: std::ops::Range<usize>,
    results: &mut Vec<Option<Box<Completed>>>,
    graph: &mut Graph,
) -> Signatures {
    let mut c = Completer {
        b,
        diags,
        in_definition_order: true,
        trace: Vec::new(),
        misspelt: Default::default(),
        excluded: Default::default(),
        // About one constructor per definition: sized once, not grown by doubling (a
        // doubled list was a megabyte of app-10000's peak).
        signatures: Vec::with_capacity(range.len()),
        reads_dynamic: false,
        ref_hints: Vec::new(),
    };
    let first = range.start;
    for (i, (_, def)) in b.definitions[range].iter().enumerate() {
        if def.resolved_type.is_none() {
            graph.add(b, first + i, None, &[]);
            results.push(None);
            continue;
        }
        let mut completed = match def.kind {
            DefinitionKind::Imported | DefinitionKind::Slot => c.imported(def),
            DefinitionKind::Accessor => c.accessor(def),
            DefinitionKind::Locator => c.locator(def),
            _ => c.service(def),
        };
        if c.b.record_origins {
            completed.set_calls(std::mem::take(&mut c.trace));
        } else {
            // Without `explain`, only the calls a dynamic parameter fills directly are
            // kept: they give the plan's `dynamic` section its types (config::dynamic).
            completed.set_calls(
                c.trace
                    .drain(..)
                    .filter(|call| {
                        call.arguments
                            .iter()
                            .any(|a| matches!(a.value, P::Param(_)))
                    })
                    .collect(),
            );
        }
        graph.add(b, first + i, Some(&completed), &c.ref_hints);
        c.ref_hints.clear();
        results.push(Some(Box::new(completed)));
    }
    graph.reads_dynamic |= c.reads_dynamic;
    c.signatures
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{Expr, ExprArray, ExprKind};
    use crate::neon::Key;
    use crate::source::{FileId, Span};

    /// `count` services of `App\Db(int $x)`, created with the arguments `args(i)` gives.
    fn builder(count: usize, args: impl Fn(usize) -> ExprArray) -> ContainerBuilder {
        let cat = crate::catalog::from_config_text(
            "types:\n\tApp\\Db:\n\t\tconstructor:\n\t\t\tx: int\n\tApp\\Log: {}\n",
        );
        let mut b = ContainerBuilder::new(cat);
        for i in 0..count {
            b.add_definition(Some(&format!("s{i}")), None)
                .expect("added")
                .set_creator("App\\Db", args(i));
        }
        b.resolve(&mut Diagnostics::new());
        b
    }

    fn one(value: Expr) -> ExprArray {
        let mut a = ExprArray::new();
        a.push(value);
        a
    }

    fn int(i: usize) -> ExprArray {
        one(Expr::new(ExprKind::Int(i as i64), None))
    }

    /// Completes `b` in `parts` parts: the statements and what was reported; the parameter
    /// names collected are checked against one thread's.
    fn completed(b: &ContainerBuilder, parts: usize) -> (Vec<Option<Completed>>, Vec<String>) {
        let mut diags = Diagnostics::new();
        let (results, signed, graph) = complete_in_parts(b, &mut diags, parts);
        assert_eq!(results.len(), b.definitions.len());
        let (_, one_thread, one_graph) = complete_in_parts(b, &mut Diagnostics::new(), 1);
        assert_eq!(signed, one_thread, "{parts} parts");
        assert_eq!(graph, one_graph, "{parts} parts");
        (
            results.into_iter().map(|r| r.map(|c| *c)).collect(),
            diags.items().iter().map(|d| format!("{d:?}")).collect(),
        )
    }

    /// Completing `b` in each number of `parts` gives `whole` and `reported`.
    fn same_in_parts(
        b: &ContainerBuilder,
        parts: &[usize],
        whole: &[Option<Completed>],
        reported: &[String],
    ) {
        for &n in parts {
            let (results, again) = completed(b, n);
            assert_eq!(results, whole, "{n} parts");
            assert_eq!(again, reported, "{n} parts");
        }
    }

    #[test]
    fn parts_complete_what_one_thread_completes() {
        let b = builder(50, int);
        let (whole, reported) = completed(&b, 1);
        assert!(reported.is_empty(), "{reported:?}");
        // Each `new App\Db($x)` records the constructor's parameter names (repeats kept).
        let (_, signed, _) = complete_in_parts(&b, &mut Diagnostics::new(), 3);
        assert_eq!(signed.len(), 50);
        assert_eq!(
            (signed[0].0.as_str(), signed[0].1.as_str()),
            ("App\\Db", "x")
        );
        assert!(whole.iter().all(Option::is_some));
        same_in_parts(&b, &[2, 3, 7, 50, 80], &whole, &[]);
    }

    #[test]
    fn errors_come_in_definition_order_from_every_part() {
        // Services 5, 23 and 41 pass a string where an int is expected.
        let b = builder(50, |i| match i {
            5 | 23 | 41 => one(Expr::new(ExprKind::Str(format!("bad{i}")), None)),
            _ => int(i),
        });
        let (whole, reported) = completed(&b, 1);
        assert_eq!(reported.len(), 3, "{reported:?}");
        assert!(
            reported[0].contains("s5") && reported[2].contains("s41"),
            "{reported:?}"
        );
        same_in_parts(&b, &[2, 3, 4, 50], &whole, &reported);
    }

    #[test]
    fn a_part_completed_ahead_is_done_again_after_an_earlier_error() {
        // Every service passes the same `null` (one place in a file, as a decorator's
        // setup would): one thread reports it once, for the first service; then the error
        // is known and the others are not reported.
        let at = Span {
            file: FileId(0),
            start: 10,
            end: 14,
        };
        let b = builder(40, |_| one(Expr::new(ExprKind::Null, Some(at))));
        let (whole, reported) = completed(&b, 1);
        assert_eq!(reported.len(), 1, "{reported:?}");
        assert!(reported[0].contains("null given"), "{reported:?}");
        same_in_parts(&b, &[2, 4, 40], &whole, &reported);
    }

    #[test]
    fn the_graph_gathered_in_parts_is_one_threads() {
        // `App\Node(App\Node $next)`: each service refers to the next by name, the last one
        // back to the first (a cycle through every part); service 7 refers to no definition.
        let cat = crate::catalog::from_config_text(
            "types:\n\tApp\\Node:\n\t\tconstructor:\n\t\t\tnext: App\\Node\n",
        );
        let mut b = ContainerBuilder::new(cat);
        let count = 30;
        for i in 0..count {
            let next = match i {
                7 => "@missing".to_string(),
                _ => format!("@s{}", (i + 1) % count),
            };
            b.add_definition(Some(&format!("s{i}")), None)
                .expect("added")
                .set_creator("App\\Node", one(Expr::new(ExprKind::Str(next), None)));
        }
        b.resolve(&mut Diagnostics::new());
        let (_, _, graph) = complete_in_parts(&b, &mut Diagnostics::new(), 1);
        assert_eq!(graph.len(), count);
        assert_eq!(graph.edges(0), &[1]);
        assert_eq!(graph.edges(7), &[] as &[u32]);
        assert_eq!(graph.edges(count - 1), &[0]);
        assert!(graph.deep.is_empty());
        for parts in [2, 3, 4, 30] {
            let (_, _, in_parts) = complete_in_parts(&b, &mut Diagnostics::new(), parts);
            assert_eq!(in_parts, graph, "{parts} parts");
        }
    }

    #[test]
    fn references_autowiring_chose_are_the_ones_looked_up_by_name() {
        // `App\Node(App\Leaf $leaf, App\Node $next)`: the leaf autowired (a hint), the next
        // node written by name; one node takes its leaf by name too, and one names a service
        // that does not exist.
        let cat = crate::catalog::from_config_text(
            "types:\n\tApp\\Leaf: {}\n\tApp\\Node:\n\t\tconstructor:\n\t\t\tleaf: App\\Leaf\n\t\t\tnext: App\\Node\n",
        );
        let mut b = ContainerBuilder::new(cat);
        b.add_definition(Some("leaf"), None)
            .expect("added")
            .set_creator("App\\Leaf", ExprArray::new());
        let count = 12;
        for i in 0..count {
            let mut args = ExprArray::new();
            let at = |text: String| Expr::new(ExprKind::Str(text), None);
            match i {
                3 => {
                    args.items
                        .insert(Key::from_string("leaf"), at("@leaf".into()));
                    args.items
                        .insert(Key::from_string("next"), at("@n4".into()));
                }
                5 => {
                    args.items
                        .insert(Key::from_string("next"), at("@nowhere".into()));
                }
                _ => {
                    let next = at(format!("@n{}", (i + 1) % count));
                    args.items.insert(Key::from_string("next"), next);
                }
            }
            b.add_definition(Some(&format!("n{i}")), None)
                .expect("added")
                .set_creator("App\\Node", args);
        }
        b.resolve(&mut Diagnostics::new());
        let (results, _, graph) = complete_in_parts(&b, &mut Diagnostics::new(), 1);
        // The same graph from the statements alone, every reference looked up by name.
        let mut by_name = Graph::default();
        for (i, completed) in results.iter().enumerate() {
            by_name.add(&b, i, completed.as_deref(), &[]);
        }
        assert_eq!(graph.targets, by_name.targets);
        assert_eq!(graph.ends, by_name.ends);
        // n0 (position 1) refers to the leaf (position 0) and to n1 (position 2).
        assert_eq!(graph.edges(1), &[0, 2]);
        assert_eq!(graph.edges(4), &[0, 5]);
        assert_eq!(graph.edges(6), &[0]);
    }

    #[test]
    fn a_read_of_a_dynamic_parameter_is_noticed_in_any_part() {
        // Only service 17 of 20 passes `%port%`, a dynamic parameter.
        let b = builder(20, |i| match i {
            17 => one(Expr::new(ExprKind::Dynamic("port".into()), None)),
            _ => int(i),
        });
        for parts in [1, 2, 3, 20] {
            let (_, _, graph) = complete_in_parts(&b, &mut Diagnostics::new(), parts);
            assert!(graph.reads_dynamic, "{parts} parts");
        }
        let none = builder(20, int);
        let (_, _, graph) = complete_in_parts(&none, &mut Diagnostics::new(), 2);
        assert!(!graph.reads_dynamic);
        let mut none = none;
        none.complete(&mut Diagnostics::new());
        assert!(!none.reads_dynamic);
        let mut b = b;
        assert!(b.reads_dynamic, "unknown before completing");
        b.complete(&mut Diagnostics::new());
        assert!(b.reads_dynamic);
    }

    #[test]
    fn blocks_claimed_by_threads_complete_what_one_thread_completes() {
        // Past `BLOCKS_FROM`: 33 blocks of 996, four errors in four of them (the first in the
        // eighth block).
        let b = builder(BLOCKS_FROM + 100, |i| match i % 7000 {
            6999 => one(Expr::new(ExprKind::Str("bad".into()), None)),
            _ => int(i),
        });
        let (whole, reported) = completed(&b, 1);
        assert_eq!(reported.len(), 4, "{reported:?}");
        assert!(reported[0].contains("s6999"), "{reported:?}");
        same_in_parts(&b, &[2, 3], &whole, &reported);
    }

    #[test]
    fn a_large_builder_is_completed_as_one_thread_would() {
        // Above the threshold, so split on a machine with more than one core.
        let b = builder(PARALLEL_MIN + 100, |i| match i % 1000 {
            999 => one(Expr::new(ExprKind::Str("bad".into()), None)),
            _ => int(i),
        });
        let (whole, reported) = completed(&b, 1);
        assert_eq!(reported.len(), 4, "{reported:?}");
        let mut diags = Diagnostics::new();
        let (results, _, _) = complete_definitions(&b, &mut diags);
        let results: Vec<_> = results.into_iter().map(|r| r.map(|c| *c)).collect();
        let again: Vec<String> = diags.items().iter().map(|d| format!("{d:?}")).collect();
        assert_eq!((results, again), (whole, reported));
    }
}
