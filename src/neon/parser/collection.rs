//! The collection under construction while a block or an inline collection is parsed:
//! PHP array semantics for keys and implicit indexes, small collections on the parser's
//! scratch stack, large ones in a map of their own.

use super::super::value::{Array, Entries, Entry, Key, Kind, Value};
use crate::source::{FileId, Span};

/// An item of a collection under construction, on the parser's scratch stack.
pub(super) struct Item {
    key: Key,
    entry: Entry,
    /// Was the key an implicit index? The duplicate check looks only at explicit keys, like
    /// the reference's, so `- a` followed by `0: b` overwrites silently.
    implicit: bool,
}

/// How many items a collection keeps on the scratch stack, where a key is looked up by
/// comparing it with each, before it moves them into a hash map of its own. Most collections
/// of a configuration have one to four items: for them a scan is cheaper than hashing, and
/// the map is built once, at its final size, when the collection is finished.
const SMALL: usize = 8;

/// A collection under construction: PHP array semantics for keys and implicit indexes.
///
/// Its items live on the parser's scratch stack (`Parser::scratch`) from `start` on while
/// there are at most [`SMALL`] of them; a nested collection is finished before its parent
/// takes its next item, so each collection's items stay together at the top of the stack.
pub(super) struct Builder {
    start: usize,
    /// The items once there are more than [`SMALL`].
    large: Option<Large>,
    /// The next implicit index; `None` once it would pass `i64::MAX`.
    next: Option<i64>,
    span: Option<(usize, usize)>,
}

/// The items of a large collection under construction.
struct Large {
    entries: Entries,
    /// Per entry (by position): was its key an implicit index? Empty while every key so far
    /// was explicit (most maps: no allocation for them).
    implicit: Vec<bool>,
}

impl Large {
    /// [`Builder::claim`] in the map: one hash lookup.
    fn claim(&mut self, key: Key, entry: Entry) -> Result<Slot, (Key, Span)> {
        let i = match self.entries.entry(key) {
            indexmap::map::Entry::Occupied(mut o) => {
                let i = o.index();
                if !self.implicit.get(i).copied().unwrap_or(false) {
                    return Err((o.key().clone(), o.get().key_span));
                }
                *o.get_mut() = entry;
                i
            }
            indexmap::map::Entry::Vacant(v) => {
                let i = v.index();
                v.insert(entry);
                i
            }
        };
        if !self.implicit.is_empty() {
            self.implicit.resize(self.entries.len(), false);
            self.implicit[i] = false;
        }
        Ok(Slot::Large(i))
    }
}

/// Where a keyed item's value goes once it is parsed (see [`Builder::claim`]).
#[derive(Clone, Copy)]
pub(super) enum Slot {
    /// The item at this index of the parser's scratch stack.
    Small(usize),
    /// The entry at this index of the large map.
    Large(usize),
}

impl Builder {
    pub(super) fn new(scratch: &[Item]) -> Builder {
        Builder {
            start: scratch.len(),
            large: None,
            next: Some(0),
            span: None,
        }
    }

    pub(super) fn is_empty(&self, scratch: &[Item]) -> bool {
        let len = match &self.large {
            Some(large) => large.entries.len(),
            None => scratch.len() - self.start,
        };
        len == 0 && self.span.is_none()
    }

    pub(super) fn cover(&mut self, span: Span) {
        let (s, e) = (span.start as usize, span.end as usize);
        self.span = Some(match self.span {
            None => (s, e),
            Some((a, b)) => (a.min(s), b.max(e)),
        });
    }

    /// Takes the place of an explicitly keyed item before its value is parsed: one key
    /// comparison pass (small) or one hash lookup (large) both finds a duplicate and reserves
    /// the place, which [`Builder::fill`] gives the value. An existing implicit key keeps its
    /// place and becomes explicit (PHP overwrites); an existing explicit key is the reference's
    /// duplicate-key error: `Err` gives the key back with where it was first written.
    pub(super) fn claim(
        &mut self,
        scratch: &mut Vec<Item>,
        key: Key,
        key_span: Span,
    ) -> Result<Slot, (Key, Span)> {
        if let Key::Int(i) = key {
            if self.next.is_some_and(|n| i >= n) {
                self.next = i.checked_add(1);
            }
        }
        self.cover(key_span);
        // the value is parsed after the key: until then the place holds null
        let entry = Entry {
            key_span,
            value: Value::new(Kind::Null, key_span),
        };
        let mut large = match self.large.take() {
            Some(large) => large,
            None => {
                let items = &mut scratch[self.start..];
                if let Some(j) = items.iter().position(|it| it.key == key) {
                    let item = &mut items[j];
                    if !item.implicit {
                        return Err((key, item.entry.key_span));
                    }
                    item.entry = entry;
                    item.implicit = false;
                    return Ok(Slot::Small(self.start + j));
                }
                if items.len() < SMALL {
                    scratch.push(Item {
                        key,
                        entry,
                        implicit: false,
                    });
                    return Ok(Slot::Small(scratch.len() - 1));
                }
                self.move_to_map(scratch)
            }
        };
        let r = large.claim(key, entry);
        self.large = Some(large);
        r
    }

    /// Gives the place taken by [`Builder::claim`] its value.
    pub(super) fn fill(&mut self, scratch: &mut [Item], slot: Slot, value: Value) {
        self.cover(value.span);
        let entry = match (slot, &mut self.large) {
            (Slot::Small(j), _) => scratch.get_mut(j).map(|it| &mut it.entry),
            (Slot::Large(i), Some(large)) => large.entries.get_index_mut(i).map(|(_, e)| e),
            (Slot::Large(_), None) => None,
        };
        if let Some(entry) = entry {
            entry.value = value;
        }
    }

    /// Appends an item under an implicit index; an existing key keeps its place and takes the
    /// new value.
    pub(super) fn insert_implicit(
        &mut self,
        scratch: &mut Vec<Item>,
        key: Key,
        key_span: Span,
        value: Value,
    ) {
        if let Key::Int(i) = key {
            if self.next.is_some_and(|n| i >= n) {
                self.next = i.checked_add(1);
            }
        }
        self.cover(key_span);
        self.cover(value.span);
        let entry = Entry { key_span, value };
        if self.large.is_none() {
            let items = &mut scratch[self.start..];
            if let Some(item) = items.iter_mut().find(|it| it.key == key) {
                item.entry = entry;
                item.implicit = true;
                return;
            }
            if items.len() < SMALL {
                scratch.push(Item {
                    key,
                    entry,
                    implicit: true,
                });
                return;
            }
            self.large = Some(self.move_to_map(scratch));
        }
        if let Some(large) = &mut self.large {
            let (i, _) = large.entries.insert_full(key, entry);
            large.implicit.resize(large.entries.len(), false);
            large.implicit[i] = true;
        }
    }

    /// Moves the items from the scratch stack into a hash map with room for more.
    fn move_to_map(&self, scratch: &mut Vec<Item>) -> Large {
        let n = scratch.len() - self.start;
        let mut entries = Entries::with_capacity_and_hasher(4 * n, Default::default());
        let mut implicit = Vec::new();
        for (i, item) in scratch.drain(self.start..).enumerate() {
            if item.implicit && implicit.is_empty() {
                implicit.resize(n, false);
            }
            if item.implicit {
                implicit[i] = true;
            }
            entries.insert(item.key, item.entry);
        }
        Large { entries, implicit }
    }

    /// Appends under the next index. PHP cannot append after key `i64::MAX`; the item is dropped.
    pub(super) fn push(&mut self, scratch: &mut Vec<Item>, key_span: Span, value: Value) {
        match self.next {
            Some(n) => self.insert_implicit(scratch, Key::Int(n), key_span, value),
            None => {
                self.cover(key_span);
                self.cover(value.span);
            }
        }
    }

    pub(super) fn finish(self, scratch: &mut Vec<Item>, file: FileId) -> Value {
        let (s, e) = self.span.unwrap_or((0, 0));
        let mut arr = Array::new();
        match self.large {
            Some(large) => {
                arr.entries = large.entries;
                // A map that grew (its entries to the hash table's capacity) and has more than
                // half again as much room as entries gives the rest back: the tree lives until
                // the file is read.
                let (len, room) = (arr.entries.len(), arr.entries.capacity());
                if room > len + len / 2 {
                    arr.entries.shrink_to_fit();
                }
            }
            None => {
                let n = scratch.len() - self.start;
                if n > 0 {
                    // one hash table and one entry vector, each of the final size
                    arr.entries = Entries::with_capacity_and_hasher(n, Default::default());
                    for item in scratch.drain(self.start..) {
                        arr.entries.insert(item.key, item.entry);
                    }
                }
            }
        }
        Value::new(Kind::Array(Box::new(arr)), Span::new(file, s, e))
    }
}
