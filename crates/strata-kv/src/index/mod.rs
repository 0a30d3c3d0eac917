//! The hash index of one shard: open addressing with linear probing over
//! 8-byte entries, so an item costs about 11 bytes of index at the usual load
//! (16 with the access words below).
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
//!
//! The slot array lives in DRAM or in the persistent arena (`slots.rs`).
//! Every change is a single 8-byte store (tombstones instead of shifting),
//! which is what makes a persistent table crash-consistent slot by slot.
//!
//! Beside the slots, always in DRAM, a 4-byte access word per slot
//! (`access.rs`: fetched bit and last access time), counted in `bytes()`
//! and so in `used_memory`. Measured by the test `bytes_per_item`: 12.5
//! bytes of index per item without the words and 18.7 with them at 10,000
//! items (load 64%), 9.5 and 14.2 at 100,000 (load 84%): 4.7 to 6.2 bytes
//! more per item; 4 / load in general, at most 10 (load 40% right after
//! growing from a near-empty table).

mod access;
mod slots;

use std::sync::atomic::Ordering;

pub(crate) use access::since_start;
pub use access::Access;
use access::AccessTimes;
use slots::Slots;
pub(crate) use slots::TableSource;
use strata_pmem::ClaimedWords;

use crate::arena::Loc;
use crate::KvError;

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
    slots: Slots,
    /// One access word per slot, in DRAM whatever the slots' tier.
    access: AccessTimes,
    source: TableSource,
    len: usize,
    tombstones: usize,
    /// Largest distance of any entry from its home slot since the last rebuild.
    max_probe: usize,
}

impl Index {
    /// An empty DRAM index.
    pub fn new() -> Self {
        // What `create(TableSource::Dram)` makes, built directly: a DRAM
        // table needs no allocation from a tier and no publishing.
        Self {
            slots: Slots::dram(MIN_CAPACITY),
            access: AccessTimes::new(MIN_CAPACITY),
            source: TableSource::Dram,
            len: 0,
            tombstones: 0,
            max_probe: 0,
        }
    }

    /// An empty index whose tables come from `source`, published there.
    pub fn create(source: TableSource) -> Result<Self, KvError> {
        let index = Self::with_capacity(source, MIN_CAPACITY)?;
        index.slots.publish(&index.source)?;
        Ok(index)
    }

    fn with_capacity(source: TableSource, capacity: usize) -> Result<Self, KvError> {
        let slots = Slots::new(&source, capacity)?;
        Ok(Self {
            access: AccessTimes::new(slots.words().len()),
            slots,
            source,
            len: 0,
            tombstones: 0,
            max_probe: 0,
        })
    }

    /// The persistent table `words` found at a restart, as it is: counts
    /// are recomputed by one pass over the slots. The probe bound is the
    /// longest run of occupied slots (an entry is never further from its
    /// home than the run it sits in), since homes need the keys.
    pub fn adopt(source: TableSource, words: ClaimedWords) -> Self {
        let slots = Slots::Pmem(words);
        let table = slots.words();
        let cap = table.len();
        let (mut len, mut tombstones, mut run, mut longest) = (0, 0, 0, 0);
        // Two laps so that a run wrapping past the end is measured whole.
        for i in 0..cap * 2 {
            let entry = table[i % cap].load(Ordering::Relaxed);
            if i < cap {
                len += usize::from(is_item(entry));
                tombstones += usize::from(entry == TOMBSTONE);
            }
            run = if entry == EMPTY { 0 } else { run + 1 };
            longest = longest.max(run);
        }
        Self {
            slots,
            access: AccessTimes::new(cap),
            source,
            len,
            tombstones,
            max_probe: longest.min(cap),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn capacity(&self) -> usize {
        self.slots.words().len()
    }

    /// Memory held by the slot array and its access words.
    pub fn bytes(&self) -> usize {
        self.capacity() * 8 + self.access.bytes()
    }

    pub fn max_probe(&self) -> usize {
        self.max_probe
    }

    fn home(&self, hash: u64) -> usize {
        (((hash >> 32) * self.capacity() as u64) >> 32) as usize
    }

    fn load(&self, slot: usize) -> u64 {
        self.slots.words()[slot].load(Ordering::Relaxed)
    }

    /// Stores and persists (in persistent memory) one slot.
    fn store(&self, slot: usize, entry: u64) {
        self.slots.words()[slot].store(entry, Ordering::Relaxed);
        self.slots.persist(slot);
    }

    /// The slot whose entry has `hash`'s tag and for which `matches(loc)`
    /// holds (the caller compares keys in the arena).
    pub fn find(&self, hash: u64, mut matches: impl FnMut(Loc) -> bool) -> Option<usize> {
        let want = tag(hash);
        let cap = self.capacity();
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

    /// Sets the accessed bit and records a hit at `now` (seconds since
    /// the keyspace started; allowed under the read lock).
    pub fn mark_accessed(&self, slot: usize, now: u32) {
        if self.load(slot) & ACCESSED == 0 {
            // A hint for eviction, never persisted on purpose.
            self.slots.words()[slot].fetch_or(ACCESSED, Ordering::Relaxed);
        }
        self.access.hit(slot, now);
    }

    /// How the item in `slot` has been used, seen at `now` (seconds since
    /// the keyspace started).
    pub fn access(&self, slot: usize, now: u32) -> Access {
        self.access.access(slot, now)
    }

    /// The item in `slot` was written anew at `now`: not fetched since.
    pub fn reset_access(&self, slot: usize, now: u32) {
        self.access.reset(slot, now);
    }

    /// The raw access word of `slot`, to put back with
    /// [`set_access_word`](Self::set_access_word) after a rewrite that
    /// keeps it.
    pub fn access_word(&self, slot: usize) -> u32 {
        self.access.word(slot)
    }

    pub fn set_access_word(&self, slot: usize, word: u32) {
        self.access.set_word(slot, word);
    }

    /// Clears the accessed bit and says whether it was set.
    pub fn take_accessed(&mut self, slot: usize) -> bool {
        let entry = self.load(slot);
        if entry & ACCESSED != 0 {
            self.slots.words()[slot].store(entry & !ACCESSED, Ordering::Relaxed);
        }
        entry & ACCESSED != 0
    }

    /// Whether the accessed bit of `slot` is set (left as it is).
    pub fn is_accessed(&self, slot: usize) -> bool {
        self.load(slot) & ACCESSED != 0
    }

    /// The location in `slot` if it holds an item.
    pub fn entry_loc(&self, slot: usize) -> Option<Loc> {
        let entry = self.load(slot);
        is_item(entry).then(|| decode(entry))
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

    /// Inserts an entry for a key the caller guarantees is absent and
    /// returns its slot, whose access word reads "accessed at start, not
    /// fetched". May rebuild the table, calling `rehash` to recompute the
    /// hash of each entry.
    pub fn insert(&mut self, hash: u64, loc: Loc, rehash: impl FnMut(Loc) -> u64) -> usize {
        if self.would_rebuild() {
            if let Err(e) = self.rebuild(rehash) {
                // Only a persistent table can fail to grow, and writers
                // call `make_room_for_one` first; the old table still has
                // free slots (load stays under 100%).
                tracing::warn!(error = %e, "index table could not grow");
            }
        }
        let slot = self.place(hash, encode(hash, loc));
        self.access.set_word(slot, 0);
        self.len += 1;
        slot
    }

    /// Grows the table now if the next insert would, so that a failure to
    /// get a persistent table is reported before anything is written.
    pub fn make_room_for_one(&mut self, rehash: impl FnMut(Loc) -> u64) -> Result<(), KvError> {
        if self.would_rebuild() {
            self.rebuild(rehash)?;
        }
        Ok(())
    }

    fn place(&mut self, hash: u64, entry: u64) -> usize {
        let cap = self.capacity();
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
                return slot;
            }
            slot += 1;
            if slot == cap {
                slot = 0;
            }
        }
    }

    /// Removes the entry in `slot`.
    pub fn remove(&mut self, slot: usize) {
        let cap = self.capacity();
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
            if let Err(e) = self.rebuild_to(want, rehash) {
                tracing::warn!(error = %e, "index table could not be enlarged in advance");
            }
        }
    }

    /// Shrinks the table if fewer than a quarter of its slots hold items
    /// (after a [`reserve`](Self::reserve) that overestimated), to the
    /// load a grown table has.
    pub fn fit(&mut self, rehash: impl FnMut(Loc) -> u64) {
        let cap = self.capacity();
        if self.len * 4 < cap && cap > MIN_CAPACITY {
            let want = self.len * 100 / GROW_LIVE_PCT + 1;
            if let Err(e) = self.rebuild_to(want, rehash) {
                tracing::warn!(error = %e, "index table could not shrink");
            }
        }
    }

    fn rebuild(&mut self, rehash: impl FnMut(Loc) -> u64) -> Result<(), KvError> {
        let cap = self.capacity();
        let new_cap = if (self.len + 1) * 100 > cap * GROW_LIVE_PCT {
            cap + cap / 2
        } else {
            cap
        };
        self.rebuild_to(new_cap, rehash)
    }

    /// Moves every entry into a new table of `new_cap` slots, published
    /// whole before the old one is given back.
    fn rebuild_to(
        &mut self,
        new_cap: usize,
        mut rehash: impl FnMut(Loc) -> u64,
    ) -> Result<(), KvError> {
        let mut next = Self::with_capacity(self.source.clone(), new_cap.max(MIN_CAPACITY))?;
        // Filled unpersisted, then persisted and published in one go.
        let table = std::mem::replace(&mut next.slots, Slots::Dram(Box::new([])));
        let mut fill = Self {
            slots: table,
            source: TableSource::Dram,
            ..next
        };
        for (old_slot, slot) in self.slots.words().iter().enumerate() {
            let entry = slot.load(Ordering::Relaxed);
            if is_item(entry) {
                let hash = rehash(decode(entry));
                let new_slot = fill.place_volatile(hash, entry);
                // The access word follows its entry.
                fill.access.set_word(new_slot, self.access.word(old_slot));
                fill.len += 1;
            }
        }
        fill.source = self.source.clone();
        fill.slots.publish(&fill.source)?;
        let old = std::mem::replace(self, fill);
        old.slots.retire(&old.source);
        Ok(())
    }

    /// `place` without persisting (a table not yet published).
    fn place_volatile(&mut self, hash: u64, entry: u64) -> usize {
        let cap = self.capacity();
        let home = self.home(hash);
        let mut slot = home;
        let words = self.slots.words();
        while words[slot].load(Ordering::Relaxed) != EMPTY {
            slot = (slot + 1) % cap;
        }
        words[slot].store(entry, Ordering::Relaxed);
        self.max_probe = self.max_probe.max((slot + cap - home) % cap);
        slot
    }

    /// Removes every entry. A DRAM table shrinks to the minimum; a
    /// persistent one is emptied in place and published again (in the
    /// keyspace's new flush epoch).
    pub fn clear(&mut self) {
        match self.source {
            TableSource::Dram => *self = Self::new(),
            TableSource::Pmem { .. } => {
                for w in self.slots.words() {
                    w.store(EMPTY, Ordering::Relaxed);
                }
                self.access.clear();
                (self.len, self.tombstones, self.max_probe) = (0, 0, 0);
                if let Err(e) = self.slots.publish(&self.source) {
                    tracing::error!(error = %e, "publishing an emptied index table failed");
                }
            }
        }
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
        ((pos * self.capacity() as u64) >> 32) as usize
    }

    /// The smallest 32-bit hash position whose home is `slot` or later
    /// (`1 << 32` past the end).
    pub fn position_of_slot(&self, slot: usize) -> u64 {
        let cap = self.capacity() as u64;
        ((slot as u64) << 32).div_ceil(cap)
    }
}

#[cfg(test)]
mod access_tests;
#[cfg(test)]
mod tests;
