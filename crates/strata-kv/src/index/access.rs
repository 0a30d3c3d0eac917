//! Per-slot access records beside the index slots: whether an item has been
//! fetched since it was written and when it was last accessed, for
//! memcached's `mg` flags `h` and `l` and Redis's `OBJECT IDLETIME`.
//!
//! One `AtomicU32` per index slot, always in DRAM (volatile even when the
//! slots are in persistent memory: after a restart every item counts as not
//! fetched and accessed at the restart, as memcached without warm restart
//! reports them). A word is
//! ```text
//! 31 fetched | 30..0 last access, whole seconds since the keyspace started
//! ```
//! so 0 (what a new or adopted table holds) reads "not fetched, accessed
//! when the keyspace started". Hits store with a relaxed store under the
//! shard's read lock (a hint, like the accessed bit: a lost race between
//! two hits in the same second changes nothing). Words follow their entry:
//! a table rebuild copies them to the entry's new slot; relocation keeps the
//! slot, hence the word; a new write resets it (see `Index::reset_access`).
//!
//! Cost: 4 bytes per slot, about 5 bytes per item at the index's usual
//! load (see the index module's figures).

use std::sync::atomic::{AtomicU32, Ordering};

const FETCHED: u32 = 1 << 31;
const TIME_MASK: u32 = FETCHED - 1;

/// How an item has been used: memcached's "hit before" and "seconds since
/// last access".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Fetched (a counted hit) since it was last written.
    pub fetched: bool,
    /// Whole seconds since its last access (a hit, a touch, or a write).
    pub idle_secs: u64,
}

/// Whole seconds since the keyspace started, as stored in a word
/// (saturating: 68 years).
pub(crate) fn since_start(now_secs: u64, start_secs: u64) -> u32 {
    now_secs
        .saturating_sub(start_secs)
        .min(u64::from(TIME_MASK)) as u32
}

/// The access words of one index table, one per slot.
pub(crate) struct AccessTimes {
    words: Box<[AtomicU32]>,
}

impl AccessTimes {
    /// `capacity` words, every one "not fetched, accessed at start".
    pub fn new(capacity: usize) -> Self {
        Self {
            words: (0..capacity).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    pub fn bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<AtomicU32>()
    }

    /// Starts loading `slot`'s word (see `Index::prefetch`).
    pub fn prefetch(&self, slot: usize) {
        if let Some(word) = self.words.get(slot) {
            strata_pmem::prefetch_line(word);
        }
    }

    pub fn word(&self, slot: usize) -> u32 {
        self.words[slot].load(Ordering::Relaxed)
    }

    pub fn set_word(&self, slot: usize, word: u32) {
        self.words[slot].store(word, Ordering::Relaxed);
    }

    /// A hit at `now` (seconds since start): fetched, accessed now. Skips
    /// the store when nothing changes, so repeated hits within a second
    /// do not dirty the cache line.
    pub fn hit(&self, slot: usize, now: u32) {
        let word = FETCHED | now;
        if self.word(slot) != word {
            self.set_word(slot, word);
        }
    }

    /// A new write at `now`: not fetched, accessed now.
    pub fn reset(&self, slot: usize, now: u32) {
        self.set_word(slot, now);
    }

    /// The record of `slot` as seen at `now` (seconds since start).
    pub fn access(&self, slot: usize, now: u32) -> Access {
        let word = self.word(slot);
        Access {
            fetched: word & FETCHED != 0,
            idle_secs: u64::from(now.saturating_sub(word & TIME_MASK)),
        }
    }

    /// Every word back to "not fetched, accessed at start".
    pub fn clear(&self) {
        for w in self.words.iter() {
            w.store(0, Ordering::Relaxed);
        }
    }
}
