//! The service entries of a released builder's definitions made on two cores (issue #15;
//! docs/performance.md, "Twenty-eighth round"), in the same order and with the same content as
//! one thread makes them.
//!
//! The definitions are cut into blocks of [`BLOCK`]. The calling thread takes the blocks in
//! order and adds their entries to the plan's `services` map; a helper thread first does its
//! own work (hashing the inputs, the `signatures` section, freeing the builder's rest), then
//! claims blocks nobody has claimed yet and makes their entries into vectors, which the calling
//! thread adds when it gets to them ([`crate::parallel::InOrder`]). At app-10000 making the
//! entries took 3.4–3.8 ms of the plan build's 5 ms on the calling thread, while the helper's
//! hashing ended after about 1.5 ms. The plan build asks for the helper's entries only where
//! it leaves the definitions to the operating system (a process that ends after compiling,
//! below 64 MiB of heap); where it frees them, entries made on the helper took fresh pages
//! instead of the freed ones (gen 100000 peaked 10–20 MB higher).

use crate::builder::Definition;
use crate::parallel::{InOrder, Turn};
use wireplan_runtime::plan::{Name, NameMap};

/// Definitions a block holds.
const BLOCK: usize = 256;

/// The entries `entry` makes of `definitions` (`None`: the definition has no entry), in
/// definition order, with the result of `first`, which a helper thread named `name` runs
/// before it helps (the calling thread runs it after the entries when no thread can be
/// started). `entry` may take what it needs from a definition and free the rest. Without
/// `help` the helper runs only `first` and the calling thread makes every entry. A panic in
/// `entry` or `first` panics the caller with the same payload.
pub(super) fn entries_beside<T: Send, H: Send>(
    name: &str,
    help: bool,
    definitions: &mut indexmap::map::Slice<String, Definition>,
    entry: impl Fn(&mut Definition) -> Option<(Name, T)> + Sync,
    first: impl Fn() -> Option<H> + Sync,
) -> (NameMap<T>, Option<H>) {
    let mut services = NameMap::with_capacity_and_hasher(definitions.len(), Default::default());
    let parts = crate::parallel::blocks_of(definitions, BLOCK);
    let make = |b: usize| -> Vec<(Name, T)> {
        let block = parts[b].lock().unwrap_or_else(|e| e.into_inner()).take();
        block.map_or_else(Vec::new, |defs| {
            defs.values_mut().filter_map(&entry).collect()
        })
    };
    let count = parts.len();
    let blocks = &InOrder::new(count, count, 1);
    let (_, mut helped) = crate::parallel::split(
        name,
        1,
        || {
            for (b, part) in parts.iter().enumerate() {
                match blocks.turn(b, &mut |later| make(later)) {
                    // Made straight into the map, not through `make`'s vector.
                    Turn::Yours => {
                        let block = part.lock().unwrap_or_else(|e| e.into_inner()).take();
                        if let Some(defs) = block {
                            services.extend(defs.values_mut().filter_map(&entry));
                        }
                    }
                    Turn::Ready(made) => services.extend(made),
                    // Joining the helper passes its panic on.
                    Turn::Lost => return,
                }
                blocks.consumed(b);
            }
        },
        |_| {
            let done = first();
            if help {
                blocks.help(make);
            }
            done
        },
    );
    (services, helped.pop().flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1,000 definitions (every seventh without an entry) in four blocks, with and without
    /// the helper making entries: the entries of one thread in definition order, each
    /// definition visited once, and the helper's own result.
    #[test]
    fn entries_made_beside_are_one_threads_in_order() {
        let definitions: indexmap::IndexMap<String, Definition, rustc_hash::FxBuildHasher> = (0
            ..1000)
            .map(|i| {
                let name = format!("s{i}");
                (name.clone(), Definition::made_by(name, None, None))
            })
            .collect();
        let entry = |def: &mut Definition| {
            let i: usize = def.name[1..].parse().expect("a number");
            // Taken, so a second visit would find nothing.
            let name = std::mem::take(&mut def.name);
            (i % 7 != 3 && !name.is_empty()).then(|| (Name::from(name), i * 2))
        };
        let expected: Vec<(String, usize)> = (0..1000)
            .filter(|i| i % 7 != 3)
            .map(|i| (format!("s{i}"), i * 2))
            .collect();
        for help in [true, false] {
            let mut defs = definitions.clone();
            let (made, first) =
                entries_beside("test", help, defs.as_mut_slice(), entry, || Some(42));
            let made: Vec<(String, usize)> =
                made.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
            assert_eq!(made, expected, "help: {help}");
            assert_eq!(first, Some(42));
            assert!(
                defs.values().all(|d| d.name.is_empty()),
                "every definition visited"
            );
        }
    }
}
