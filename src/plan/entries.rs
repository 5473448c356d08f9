//! The service entries of a released builder's definitions made with a second core's help
//! (issue #15; docs/performance.md, "Twenty-eighth round" and "Thirtieth round"), in the same
//! order and with the same content as one thread makes them.
//!
//! The definitions are cut into blocks of [`BLOCK`]. The calling thread takes the blocks in
//! order and adds their entries to the plan's `services` map; a helper thread first does its
//! own work (hashing the inputs, the `signatures` section, freeing the builder's rest), then
//! helps in one of two ways. Where the definitions are left to the operating system (a
//! process that ends after compiling, below 64 MiB of heap), it claims blocks nobody has
//! claimed yet and makes their entries into vectors, which the calling thread adds when it
//! gets to them ([`entries_beside`], [`crate::parallel::InOrder`]): at app-10000 making the
//! entries took 3.4–3.8 ms of the plan build's 5 ms on the calling thread, while the helper's
//! hashing ended after about 1.5 ms. Where the definitions are freed (a large compilation),
//! entries made on the helper took fresh pages instead of the freed ones (gen 100000 peaked
//! 10–20 MB higher); there the helper frees what the calling thread's entries left of each
//! block instead ([`entries_releasing_beside`]).

use crate::builder::Definition;
use crate::parallel::{InOrder, Turn};
use std::sync::atomic::Ordering::Relaxed;
use wireplan_runtime::plan::{Name, NameMap};

/// Definitions a block holds.
const BLOCK: usize = 256;

/// Blocks [`entries_releasing_beside`] lets wait for the helper to release them (2,048
/// definitions).
const RELEASE_AHEAD: usize = 8;

/// The entries `entry` makes of `definitions` (`None`: the definition has no entry), in
/// definition order, with the result of `first`, which a helper thread named `name` runs
/// before it helps make entries (the calling thread runs it after the entries when no thread
/// can be started). `entry` may take what it needs from a definition. A panic in `entry` or
/// `first` panics the caller with the same payload.
pub(super) fn entries_beside<T: Send, H: Send>(
    name: &str,
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
            blocks.help(make);
            done
        },
    );
    (services, helped.pop().flatten())
}

/// The entries `entry` makes of `definitions`, made on the calling thread in definition
/// order, with the result of `first`, which a helper thread named `name` runs before it
/// `release`s each definition whose entry is made (it gets the blocks of [`BLOCK`] as the
/// calling thread is done with them). `entry` takes what the entry needs; `release` frees
/// the rest. Freeing a large compilation's definitions one by one on the calling thread took
/// a third of gen 100000's plan build (22 of 74 ms). While the helper runs `first`, the
/// calling thread releases its blocks itself once [`RELEASE_AHEAD`] wait, so the definitions
/// are freed about as early as one thread frees them (without a helper thread, the calling
/// thread releases all but the first [`RELEASE_AHEAD`] blocks as it goes, then runs `first`
/// and releases those). A panic in `entry`, `release` or `first` panics the caller with the
/// same payload.
pub(super) fn entries_releasing_beside<T: Send, H: Send>(
    name: &str,
    definitions: &mut indexmap::map::Slice<String, Definition>,
    entry: impl Fn(&mut Definition) -> Option<(Name, T)>,
    release: impl Fn(&mut Definition) + Sync,
    first: impl Fn() -> Option<H> + Sync,
) -> (NameMap<T>, Option<H>) {
    let mut services = NameMap::with_capacity_and_hasher(definitions.len(), Default::default());
    let (send, receive) = std::sync::mpsc::channel::<&mut indexmap::map::Slice<_, _>>();
    // Behind a lock only because the helper's closure must be `Sync`; one thread takes it.
    let receive = std::sync::Mutex::new(receive);
    // Blocks sent and not released yet.
    let waiting = &std::sync::atomic::AtomicUsize::new(0);
    let (_, mut helped) = crate::parallel::split(
        name,
        1,
        || {
            let mut rest = &mut *definitions;
            while !rest.is_empty() {
                let (block, after) = rest.split_at_mut(BLOCK.min(rest.len()));
                services.extend(block.values_mut().filter_map(&entry));
                // While the helper is busy with `first`, the calling thread releases its
                // blocks itself, so no more than `RELEASE_AHEAD` wait.
                if waiting.load(Relaxed) >= RELEASE_AHEAD {
                    block.values_mut().for_each(&release);
                } else {
                    waiting.fetch_add(1, Relaxed);
                    // The helper is gone only if it panicked: joining it passes the panic on.
                    if let Err(unsent) = send.send(block) {
                        unsent.0.values_mut().for_each(&release);
                    }
                }
                rest = after;
            }
            drop(send);
        },
        |_| {
            let done = first();
            let receive = receive.lock().unwrap_or_else(|e| e.into_inner());
            for block in receive.iter() {
                block.values_mut().for_each(&release);
                waiting.fetch_sub(1, Relaxed);
            }
            done
        },
    );
    (services, helped.pop().flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1,000 definitions (every seventh without an entry) in four blocks, with the helper
    /// making entries and with it releasing the definitions: the entries of one thread in
    /// definition order, each definition visited once, and the helper's own result.
    #[test]
    fn entries_made_or_released_beside_are_one_threads_in_order() {
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
        let mut defs = definitions.clone();
        let (made, first) = entries_beside("test", defs.as_mut_slice(), entry, || Some(42));
        let made: Vec<(String, usize)> =
            made.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
        assert_eq!(made, expected);
        assert_eq!(first, Some(42));
        assert!(
            defs.values().all(|d| d.name.is_empty()),
            "every definition visited"
        );

        // Releasing beside: the same entries, and every definition released once, after its
        // entry was made (a release before it would have left no name to take).
        let mut defs = definitions.clone();
        let released = std::sync::atomic::AtomicUsize::new(0);
        let release = |def: &mut Definition| {
            assert!(def.name.is_empty(), "released before its entry was made");
            assert!(def.span.is_none(), "released twice");
            def.span = Some(crate::source::Span::new(crate::source::FileId(0), 0, 0));
            released.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        // A slow `first`, so the calling thread also releases blocks itself.
        let first = || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            Some(42)
        };
        let (made, helped) =
            entries_releasing_beside("test", defs.as_mut_slice(), entry, release, first);
        let made: Vec<(String, usize)> =
            made.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
        assert_eq!(made, expected);
        assert_eq!(helped, Some(42));
        assert_eq!(released.into_inner(), 1000);
        assert!(
            defs.values().all(|d| d.span.is_some()),
            "every definition released"
        );
    }
}
