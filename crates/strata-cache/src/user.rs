//! The users of one cache and what each is counted. Below it only the
//! counters' report (`stats`).
//!
//! One [`Cache`](super::Cache) may serve several users (the SSD tier's
//! records, search's blocks): they share its byte budget and its eviction
//! order, and each keeps its own counters, so that a user's hits, bytes and
//! evictions can be reported however the budget is shared.

use super::stats::CacheStats;

/// Most users one cache serves, its own included.
pub(super) const MAX_USERS: usize = 8;

/// A user of a cache: an index into each shard's counters. Slot 0 is the
/// cache's own user (the plain [`Cache`](super::Cache) methods); a shared
/// cache hands out the others by name
/// ([`SharedCache::user`](super::SharedCache::user)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CacheUser(pub(super) u8);

impl CacheUser {
    /// The cache's own user, that of the plain methods.
    pub(super) const OWN: CacheUser = CacheUser(0);

    pub(super) fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// One user's counters in one shard. `entries` and `value_bytes` follow
/// the records the user has in the shard exactly: every path that adds,
/// replaces or drops a record updates them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counters {
    pub(super) hits: u64,
    pub(super) misses: u64,
    pub(super) insertions: u64,
    pub(super) evictions: u64,
    pub(super) entries: u64,
    /// The charge of the user's records (`memory::value_bytes`).
    pub(super) value_bytes: usize,
}

impl Counters {
    /// A record of `charge` bytes came in.
    pub(super) fn add(&mut self, charge: usize) {
        self.insertions += 1;
        self.entries += 1;
        self.value_bytes += charge;
    }

    /// A record of `charge` bytes left (dropped or evicted).
    pub(super) fn remove(&mut self, charge: usize) {
        self.entries -= 1;
        self.value_bytes -= charge;
    }

    /// Adds these counters to `stats` (all but `bytes` and `budget`).
    pub(super) fn add_to(&self, stats: &mut CacheStats) {
        stats.hits += self.hits;
        stats.misses += self.misses;
        stats.insertions += self.insertions;
        stats.evictions += self.evictions;
        stats.entries += self.entries;
        stats.value_bytes += self.value_bytes as u64;
    }
}
