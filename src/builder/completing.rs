//! The definitions completed in parts on several threads (issue #15; docs/performance.md,
//! "Whole compilation › Ninth round").
//!
//! Completing a definition reads the builder and the catalog and writes only its own
//! statements and diagnostics, so the definitions can be completed in parts at once. The one
//! thing a definition's completion reads that another's writes is the diagnostics: a value
//! whose error is already reported is not reported again (`has_error_within`). A part
//! completed ahead sees only the diagnostics from before `complete` and its own, so it is
//! kept only when no earlier part reported anything; otherwise it is completed again, in
//! order, after them. The statements and diagnostics are therefore those of completing every
//! definition in order on one thread.

use super::complete::{Completer, Signatures};
use super::{Completed, ContainerBuilder, DefinitionKind};
use crate::diagnostics::Diagnostics;
use wireplan_runtime::plan::Expr as P;

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
) -> (Vec<Option<Box<Completed>>>, Signatures) {
    let parts = crate::parallel::parts(b.definitions.len(), PARALLEL_MIN);
    complete_in_parts(b, diags, parts)
}

/// [`complete_definitions`] with the definitions cut into `parts` parts of about equal size:
/// the first completed on the calling thread, the others each on a thread of its own
/// ([`crate::parallel::split`]). With one part everything is completed here.
pub(super) fn complete_in_parts(
    b: &ContainerBuilder,
    diags: &mut Diagnostics,
    parts: usize,
) -> (Vec<Option<Box<Completed>>>, Signatures) {
    let count = b.definitions.len();
    let mut results = Vec::with_capacity(count);
    if parts <= 1 || count < 2 {
        let signatures = complete_range(b, diags, 0..count, &mut results);
        return (results, signatures);
    }
    let parts = parts.min(count);
    let bounds: Vec<usize> = (0..=parts).map(|i| i * count / parts).collect();
    // Each part ahead starts from the diagnostics reported before `complete`.
    let before = diags.clone();
    let mark = diags.len();
    let (mut signatures, ahead) = crate::parallel::split(
        "complete",
        parts - 1,
        || complete_range(b, diags, 0..bounds[1], &mut results),
        |k| {
            let mut own = before.clone();
            let mut part = Vec::with_capacity(bounds[k + 2] - bounds[k + 1]);
            let signed = complete_range(b, &mut own, bounds[k + 1]..bounds[k + 2], &mut part);
            (part, own.into_vec().split_off(mark), signed)
        },
    );
    signatures.reserve(ahead.iter().map(|(_, _, signed)| signed.len()).sum());
    // No part so far reported anything.
    let mut clean = diags.len() == mark;
    for (k, (part, reported, signed)) in ahead.into_iter().enumerate() {
        if clean {
            clean = reported.is_empty();
            results.extend(part);
            diags.extend(reported);
            signatures.extend(signed);
        } else {
            // Completed ahead while an earlier part reported something: again, here, after
            // what was reported before it.
            let signed = complete_range(b, diags, bounds[k + 1]..bounds[k + 2], &mut results);
            signatures.extend(signed);
        }
    }
    (results, signatures)
}

/// Completes the definitions at positions `range` (in definition order) into `results`, one
/// entry per definition (`None` for one whose type did not resolve), reporting to `diags`.
/// Returns the parameter names of the calls completed (`Completer::sign`).
fn complete_range(
    b: &ContainerBuilder,
    diags: &mut Diagnostics,
    range: std::ops::Range<usize>,
    results: &mut Vec<Option<Box<Completed>>>,
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
    };
    for (_, def) in &b.definitions[range] {
        if def.resolved_type.is_none() {
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
        results.push(Some(Box::new(completed)));
    }
    c.signatures
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{Expr, ExprArray, ExprKind};
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
        let (results, signed) = complete_in_parts(b, &mut diags, parts);
        assert_eq!(results.len(), b.definitions.len());
        let (_, one_thread) = complete_in_parts(b, &mut Diagnostics::new(), 1);
        assert_eq!(signed, one_thread, "{parts} parts");
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
        let (_, signed) = complete_in_parts(&b, &mut Diagnostics::new(), 3);
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
    fn a_large_builder_is_completed_as_one_thread_would() {
        // Above the threshold, so split on a machine with more than one core.
        let b = builder(PARALLEL_MIN + 100, |i| match i % 1000 {
            999 => one(Expr::new(ExprKind::Str("bad".into()), None)),
            _ => int(i),
        });
        let (whole, reported) = completed(&b, 1);
        assert_eq!(reported.len(), 4, "{reported:?}");
        let mut diags = Diagnostics::new();
        let (results, _) = complete_definitions(&b, &mut diags);
        let results: Vec<_> = results.into_iter().map(|r| r.map(|c| *c)).collect();
        let again: Vec<String> = diags.items().iter().map(|d| format!("{d:?}")).collect();
        assert_eq!((results, again), (whole, reported));
    }
}
