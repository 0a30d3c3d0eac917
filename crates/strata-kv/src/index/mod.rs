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
//! The entry's encoding is in `entry.rs`, the probe (find, insert,
//! remove) in `probe.rs`, growing the table in `grow.rs`. The slot array
//! lives in DRAM or in the persistent arena (`slots.rs`).
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
mod entry;
mod grow;
mod probe;
mod slots;

use std::sync::atomic::Ordering;

pub(crate) use access::since_start;
pub use access::Access;
use access::AccessTimes;
use slots::Slots;
pub(crate) use slots::TableSource;
use strata_pmem::prefetch_line;
use strata_pmem::ClaimedWords;

use crate::arena::Loc;
use crate::KvError;

use entry::{decode, is_item, ACCESSED, EMPTY, MIN_CAPACITY, SEG_SHIFT, TAG_SHIFT, TOMBSTONE};

/// Bytes one slot costs: its 8-byte entry and its 4-byte access word
/// ([`Index::bytes`] is the capacity times this).
pub(crate) const SLOT_BYTES: usize = 8 + 4;

/// Bytes of an empty index (at its smallest capacity).
pub(crate) const EMPTY_BYTES: usize = MIN_CAPACITY * SLOT_BYTES;

/// What [`Index::find_or_insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// The key was there, in this slot (left unchanged).
    Found(usize),
    /// The key was absent: its new entry is in this slot.
    Inserted(usize),
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

    /// Starts loading the cache lines that a probe for `hash` reads first
    /// (its home slot and that slot's access word): a rebuild calls it a
    /// few entries ahead, so the probe then finds them in cache.
    pub fn prefetch(&self, hash: u64) {
        let slot = self.home(hash);
        if let Some(word) = self.slots.words().get(slot) {
            prefetch_line(word);
        }
        self.access.prefetch(slot);
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
