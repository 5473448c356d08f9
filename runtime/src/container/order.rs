//! The order in which an owner (the container or a scope) published its cached instances,
//! which is the order its dispose hooks run in reverse.
//!
//! Recording an entry takes no lock and no read-modify-write atomic: entries are written
//! only by the holder of the owner's build lock, right after it filled an empty slot, so
//! there are never more entries than slots and the storage is sized once, when the owner is
//! made (inline for up to [`INLINE`] slots, so a small scope needs no allocation for it).

use std::sync::atomic::{AtomicU32, Ordering};

use smallvec::SmallVec;

/// Slots kept inline (without an allocation of their own) in a scope: its slot cells and
/// its creation-order entries.
pub(crate) const INLINE: usize = 8;

/// Service indexes in the order their cached instances were published by one owner.
pub(crate) struct CreationOrder {
    /// How many entries are written (entries `0..len`).
    len: AtomicU32,
    /// One entry per slot of the owner: the service index published `k`-th.
    entries: SmallVec<[AtomicU32; INLINE]>,
}

impl CreationOrder {
    /// An empty order for an owner with `slots` slots (each published at most once).
    pub(crate) fn new(slots: usize) -> CreationOrder {
        CreationOrder {
            len: AtomicU32::new(0),
            // Up to `INLINE` entries: the inline buffer as it is (no per-entry collect).
            entries: if slots <= INLINE {
                SmallVec::from_buf_and_len([const { AtomicU32::new(0) }; INLINE], slots)
            } else {
                (0..slots).map(|_| AtomicU32::new(0)).collect()
            },
        }
    }

    /// Records that service `service` was published next. The caller holds the owner's build
    /// lock and has just filled one of its empty slots, so there is room: each slot is
    /// filled once. (Were that ever broken, the entry would be left out — the instance is
    /// still released with its slot, only without its place in the hook order.)
    pub(crate) fn push(&self, service: usize) {
        // Only the lock holder writes: a plain load and two stores, no atomic increment.
        let n = self.len.load(Ordering::Relaxed);
        if let Some(entry) = self.entries.get(n as usize) {
            entry.store(service as u32, Ordering::Relaxed);
            // Release: a reader that sees the new length sees the entry.
            self.len.store(n + 1, Ordering::Release);
        }
    }

    /// How many instances were published.
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire) as usize
    }

    /// The recorded service indexes, oldest first; the order is empty afterwards.
    /// Empties the record and walks it newest first, without copying it out (what a drop
    /// without dispose hooks needs).
    pub(crate) fn take_newest_first(&mut self) -> impl Iterator<Item = usize> + '_ {
        let n = std::mem::take(self.len.get_mut()) as usize;
        self.entries[..n]
            .iter_mut()
            .rev()
            .map(|e| *e.get_mut() as usize)
    }

    pub(crate) fn take(&mut self) -> SmallVec<[usize; INLINE]> {
        let n = std::mem::take(self.len.get_mut()) as usize;
        self.entries[..n]
            .iter_mut()
            .map(|e| *e.get_mut() as usize)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_in_publication_order_and_empties_on_take() {
        let mut order = CreationOrder::new(3);
        assert_eq!(order.len(), 0);
        order.push(7);
        order.push(2);
        assert_eq!(order.len(), 2);
        assert_eq!(order.take().as_slice(), &[7, 2]);
        assert_eq!(order.len(), 0);
        assert!(order.take().is_empty());
    }

    #[test]
    fn walks_newest_first_and_empties_inline_and_spilled() {
        for slots in [0, 3, INLINE, INLINE + 2] {
            let mut order = CreationOrder::new(slots);
            for i in 0..slots {
                order.push(10 + i);
            }
            // One push too many is not recorded (the record is sized to the slots).
            order.push(999);
            let newest_first: Vec<usize> = order.take_newest_first().collect();
            let expected: Vec<usize> = (0..slots).rev().map(|i| 10 + i).collect();
            assert_eq!(newest_first, expected, "{slots} slots");
            assert_eq!(order.len(), 0);
            assert_eq!(order.take_newest_first().count(), 0);
        }
    }

    #[test]
    fn never_writes_past_its_slots() {
        let mut order = CreationOrder::new(1);
        order.push(4);
        order.push(5);
        assert_eq!(order.len(), 1);
        assert_eq!(order.take().as_slice(), &[4]);
    }

    #[test]
    fn spills_beyond_the_inline_entries() {
        let mut order = CreationOrder::new(INLINE + 3);
        for i in 0..INLINE + 3 {
            order.push(100 + i);
        }
        let all: Vec<usize> = (0..INLINE + 3).map(|i| 100 + i).collect();
        assert_eq!(order.take().as_slice(), all.as_slice());
    }
}
