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
//! hashing ended after about 1.5 ms.

use crate::builder::Definition;
use crate::parallel::{InOrder, Turn};
use std::sync::Mutex;
use wireplan_runtime::plan::{Name, NameMap, ServicePlan};

/// Definitions a block holds.
const BLOCK: usize = 256;

/// The entries `entry` makes of `definitions` (`None`: the definition has no entry), in
/// definition order, with the result of `first`, which a helper thread named `name` runs
/// before it helps (the calling thread runs it after the entries when no thread can be
/// started). `entry` may take what it needs from a definition and free the rest. A panic in
/// `entry` or `first` panics the caller with the same payload.
pub(super) fn entries_beside<H: Send>(
    name: &str,
    definitions: &mut indexmap::map::Slice<String, Definition>,
    entry: impl Fn(&mut Definition) -> Option<(Name, ServicePlan)> + Sync,
    first: impl Fn() -> Option<H> + Sync,
) -> (NameMap<ServicePlan>, Option<H>) {
    let mut services = NameMap::with_capacity_and_hasher(definitions.len(), Default::default());
    let mut parts = Vec::with_capacity(definitions.len().div_ceil(BLOCK));
    let mut rest = definitions;
    while !rest.is_empty() {
        let (block, after) = rest.split_at_mut(BLOCK.min(rest.len()));
        parts.push(Mutex::new(Some(block)));
        rest = after;
    }
    let make = |b: usize| -> Vec<(Name, ServicePlan)> {
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
            blocks.help(make);
            done
        },
    );
    (services, helped.pop().flatten())
}
