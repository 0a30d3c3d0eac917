//! The hash index of one shard: open addressing with linear probing over
//! 8-byte entries, so an item costs about 11 bytes of index at the usual load.
//!
//! Entry layout (0 = empty, 1 = tombstone, anything else an item):
//! ```text
//! 63..48 tag (16 hash bits, never 0) | 47 accessed | 46..20 segment | 19..0 offset
//! ```
//! The tag filters out almost every non-matching entry without touching the
//! arena. The home slot is `(hash >> 32) * capacity >> 32`, which keeps slots
//! in hash order at any capacity: the property the scan cursor relies on.
//!
//! Slots are atomics so that readers holding the shard's read lock can set the
//! accessed bit (for CLOCK eviction); every other change needs the write lock.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::arena::Loc;

const EMPTY: u64 = 0;
const TOMBSTONE: u64 = 1;
const ACCESSED: u64 = 1 << 47;
const TAG_SHIFT: u32 = 48;
const SEG_SHIFT: u32 = 20;
const OFF_MASK: u64 = (1 << SEG_SHIFT) - 1;
const SEG_MASK: u64 = (1 << 27) - 1;
/// Grow (or purge tombstones) when used slots would pass 85% of capacity.
const MAX_LOAD_PCT: usize = 85;
/// Rebuilds grow by half when live entries are above 60% of capacity.
const GROW_LIVE_PCT: usize = 60;
const MIN_CAPACITY: usize = 16;

fn tag(hash: u64) -> u64 {
    let t = (hash >> 16) & 0xffff;
    (if t == 0 { 1 } else { t }) << TAG_SHIFT
}

fn encode(hash: u64, loc: Loc) -> u64 {
    tag(hash) | (u64::from(loc.seg) << SEG_SHIFT) | u64::from(loc.off)
}

fn decode(entry: u64) -> Loc {
    Loc {
        seg: ((entry >> SEG_SHIFT) & SEG_MASK) as u32,
        off: (entry & OFF_MASK) as u32,
    }
}

fn is_item(entry: u64) -> bool {
    entry > TOMBSTONE
}

/// One shard's index.
pub(crate) struct Index {
    slots: Box<[AtomicU64]>,
    len: usize,
    tombstones: usize,
    /// Largest distance of any entry from its home slot since the last rebuild.
    max_probe: usize,
}

impl Index {
    pub fn new() -> Self {
        Self::with_capacity(MIN_CAPACITY)
    }

    fn with_capacity(capacity: usize) -> Self {
        let slots = (0..capacity).map(|_| AtomicU64::new(EMPTY)).collect();
        Self {
            slots,
            len: 0,
            tombstones: 0,
            max_probe: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Memory held by the slot array.
    pub fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    pub fn max_probe(&self) -> usize {
        self.max_probe
    }

    fn home(&self, hash: u64) -> usize {
        (((hash >> 32) * self.slots.len() as u64) >> 32) as usize
    }

    fn load(&self, slot: usize) -> u64 {
        self.slots[slot].load(Ordering::Relaxed)
    }

    fn store(&self, slot: usize, entry: u64) {
        self.slots[slot].store(entry, Ordering::Relaxed);
    }

    /// The slot whose entry has `hash`'s tag and for which `matches(loc)`
    /// holds (the caller compares keys in the arena).
    pub fn find(&self, hash: u64, mut matches: impl FnMut(Loc) -> bool) -> Option<usize> {
        let want = tag(hash);
        let cap = self.slots.len();
        let mut slot = self.home(hash);
        for _ in 0..cap {
            let entry = self.load(slot);
            if entry == EMPTY {
                return None;
            }
            if is_item(entry) && entry & (0xffff << TAG_SHIFT) == want && matches(decode(entry)) {
                return Some(slot);
            }
            slot += 1;
            if slot == cap {
                slot = 0;
            }
        }
        None
    }

    /// Location stored in `slot`, which MUST hold an item.
    pub fn loc(&self, slot: usize) -> Loc {
        decode(self.load(slot))
    }

    /// Sets the accessed bit (allowed under the read lock).
    pub fn mark_accessed(&self, slot: usize) {
        if self.load(slot) & ACCESSED == 0 {
            self.slots[slot].fetch_or(ACCESSED, Ordering::Relaxed);
        }
    }

    /// Clears the accessed bit and says whether it was set.
    pub fn take_accessed(&mut self, slot: usize) -> bool {
        let entry = self.load(slot);
        self.store(slot, entry & !ACCESSED);
        entry & ACCESSED != 0
    }

    /// Points `slot` at a new location of the same key, keeping the
    /// accessed bit.
    pub fn set_loc(&mut self, slot: usize, loc: Loc) {
        let entry = self.load(slot);
        let keep = entry & ((0xffff << TAG_SHIFT) | ACCESSED);
        self.store(
            slot,
            keep | (u64::from(loc.seg) << SEG_SHIFT) | u64::from(loc.off),
        );
    }

    /// True when the next insert rebuilds the table.
    pub fn would_rebuild(&self) -> bool {
        (self.len + self.tombstones + 1) * 100 > self.capacity() * MAX_LOAD_PCT
    }

    /// Inserts an entry for a key the caller guarantees is absent. May rebuild
    /// the table, calling `rehash` to recompute the hash of each entry.
    pub fn insert(&mut self, hash: u64, loc: Loc, rehash: impl FnMut(Loc) -> u64) {
        if self.would_rebuild() {
            self.rebuild(rehash);
        }
        self.place(hash, encode(hash, loc));
        self.len += 1;
    }

    fn place(&mut self, hash: u64, entry: u64) {
        let cap = self.slots.len();
        let home = self.home(hash);
        let mut slot = home;
        loop {
            let current = self.load(slot);
            if !is_item(current) {
                if current == TOMBSTONE {
                    self.tombstones -= 1;
                }
                self.store(slot, entry);
                let distance = (slot + cap - home) % cap;
                self.max_probe = self.max_probe.max(distance);
                return;
            }
            slot += 1;
            if slot == cap {
                slot = 0;
            }
        }
    }

    /// Removes the entry in `slot`.
    pub fn remove(&mut self, slot: usize) {
        let cap = self.slots.len();
        self.len -= 1;
        if self.load((slot + 1) % cap) == EMPTY {
            // Nothing probes past this slot: it and any tombstones before it
            // can become empty.
            self.store(slot, EMPTY);
            let mut prev = (slot + cap - 1) % cap;
            while self.load(prev) == TOMBSTONE {
                self.store(prev, EMPTY);
                self.tombstones -= 1;
                prev = (prev + cap - 1) % cap;
            }
        } else {
            self.store(slot, TOMBSTONE);
            self.tombstones += 1;
        }
    }

    /// Grows the table at once so that `additional` more entries fit
    /// without a rebuild (recovery knows roughly how many items come:
    /// growing step by step would rehash every entry several times).
    pub fn reserve(&mut self, additional: usize, rehash: impl FnMut(Loc) -> u64) {
        let want = (self.len + additional).saturating_mul(100) / MAX_LOAD_PCT + 1;
        if want > self.capacity() {
            self.rebuild_to(want, rehash);
        }
    }

    fn rebuild(&mut self, rehash: impl FnMut(Loc) -> u64) {
        let cap = self.capacity();
        let new_cap = if (self.len + 1) * 100 > cap * GROW_LIVE_PCT {
            cap + cap / 2
        } else {
            cap
        };
        self.rebuild_to(new_cap, rehash);
    }

    fn rebuild_to(&mut self, new_cap: usize, mut rehash: impl FnMut(Loc) -> u64) {
        let old = std::mem::replace(self, Self::with_capacity(new_cap.max(MIN_CAPACITY)));
        for slot in old.slots.iter() {
            let entry = slot.load(Ordering::Relaxed);
            if is_item(entry) {
                let hash = rehash(decode(entry));
                self.place(hash, entry);
                self.len += 1;
            }
        }
    }

    /// Removes every entry and shrinks to the minimum size.
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// Item entries in slots `[start, end)` as (slot, location).
    pub fn items_in(&self, start: usize, end: usize) -> impl Iterator<Item = (usize, Loc)> + '_ {
        (start..end.min(self.capacity())).filter_map(move |slot| {
            let entry = self.load(slot);
            is_item(entry).then(|| (slot, decode(entry)))
        })
    }

    /// The first slot whose home could be at or after 32-bit hash position `pos`.
    pub fn slot_at_position(&self, pos: u64) -> usize {
        ((pos * self.slots.len() as u64) >> 32) as usize
    }

    /// The smallest 32-bit hash position whose home is `slot` or later
    /// (`1 << 32` past the end).
    pub fn position_of_slot(&self, slot: usize) -> u64 {
        let cap = self.slots.len() as u64;
        ((slot as u64) << 32).div_ceil(cap)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn mix(i: u64) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes())
    }

    #[test]
    fn insert_find_remove_with_growth() {
        let mut index = Index::new();
        let mut hash_of: HashMap<(u32, u32), u64> = HashMap::new();
        for i in 0..10_000u64 {
            let loc = Loc {
                seg: (i / 1000) as u32,
                off: (i % 1000) as u32,
            };
            let h = mix(i);
            hash_of.insert((loc.seg, loc.off), h);
            index.insert(h, loc, |l| hash_of[&(l.seg, l.off)]);
        }
        assert_eq!(index.len(), 10_000);
        assert!(index.len() * 100 <= index.capacity() * MAX_LOAD_PCT);
        for i in 0..10_000u64 {
            let loc = Loc {
                seg: (i / 1000) as u32,
                off: (i % 1000) as u32,
            };
            let slot = index.find(mix(i), |l| l == loc).expect("present");
            if i % 2 == 0 {
                index.remove(slot);
            }
        }
        for i in 0..10_000u64 {
            let loc = Loc {
                seg: (i / 1000) as u32,
                off: (i % 1000) as u32,
            };
            assert_eq!(index.find(mix(i), |l| l == loc).is_some(), i % 2 == 1);
        }
        assert_eq!(index.len(), 5_000);
    }

    #[test]
    fn accessed_bit_survives_relocation() {
        let mut index = Index::new();
        let h = mix(7);
        index.insert(h, Loc { seg: 1, off: 2 }, |_| unreachable!());
        let slot = index.find(h, |_| true).unwrap();
        index.mark_accessed(slot);
        index.set_loc(slot, Loc { seg: 3, off: 4 });
        assert_eq!(index.loc(slot), Loc { seg: 3, off: 4 });
        assert!(index.take_accessed(slot));
        assert!(!index.take_accessed(slot));
    }

    #[test]
    fn positions_and_slots_agree() {
        let index = Index::with_capacity(1000);
        for slot in [0usize, 1, 499, 999] {
            let pos = index.position_of_slot(slot);
            assert_eq!(index.slot_at_position(pos), slot);
        }
        assert_eq!(index.position_of_slot(1000), 1 << 32);
    }
}
