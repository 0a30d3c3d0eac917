//! Key groups: an optional index of user keys by a group number that a
//! front end assigns to each key (Redis Cluster's hash slot), so that a
//! group's size is one load and listing its keys visits only its keys.
//!
//! Off by default, at no cost: each shard holds `None` and checks it under
//! the lock its change already holds (no atomic). Turned on once
//! ([`Keyspace::group_keys`](crate::Keyspace::group_keys)), usually after
//! recovery, it indexes what each shard holds then, under that shard's
//! write lock, and from then on follows every insert and removal of a user
//! key's index entry (`ShardInner::link`, `remove`, `clear`). Those are the
//! only places a user key enters or leaves a running keyspace, so every
//! path that makes or drops a key (any command of any port, expiry lazy or
//! background, eviction, flush, log replay) is counted by construction.
//!
//! Invariants: a shard's map holds, for each (group, key hash), how many of
//! its user index entries have that key hash and group; a group's counter
//! is the sum of its entries' multiplicities over every shard. As Redis's
//! slot index (and `DBSIZE`) does, a key whose expiry passed is counted
//! until it is reclaimed.
//!
//! Memory: no copy of any key: one map entry per key, about
//! [`ENTRY_BYTES`], counted in the shard's used bytes (so in the memory
//! limit), plus one 8-byte counter per group.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Assigns a key its group (below the number of groups).
pub type Classify = fn(&[u8]) -> u16;

/// About what one key costs in a shard's map: a (u16, u64) key and a u32
/// count in B-tree nodes about two thirds full.
pub(crate) const ENTRY_BYTES: usize = 40;

/// The keyspace-wide part: how keys are grouped and each group's size.
pub(crate) struct GroupCounts {
    classify: Classify,
    counts: Box<[AtomicU64]>,
}

impl GroupCounts {
    /// Counters for `groups` groups, all zero.
    pub fn new(classify: Classify, groups: u16) -> Self {
        Self {
            classify,
            counts: (0..groups).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The group of `key`, if it is one of the counted groups.
    pub fn group_of(&self, key: &[u8]) -> Option<u16> {
        let group = (self.classify)(key);
        (usize::from(group) < self.counts.len()).then_some(group)
    }

    /// Keys in `group` now (0 for a group out of range).
    pub fn len(&self, group: u16) -> u64 {
        self.counts
            .get(usize::from(group))
            .map_or(0, |c| c.load(Ordering::Relaxed))
    }

    fn add(&self, group: u16, n: u64) {
        if let Some(c) = self.counts.get(usize::from(group)) {
            c.fetch_add(n, Ordering::Relaxed);
        }
    }

    fn sub(&self, group: u16, n: u64) {
        if let Some(c) = self.counts.get(usize::from(group)) {
            c.fetch_sub(n, Ordering::Relaxed);
        }
    }
}

/// One shard's part: its user keys by (group, key hash).
pub(crate) struct ShardGroups {
    counts: Arc<GroupCounts>,
    members: BTreeMap<(u16, u64), u32>,
}

impl ShardGroups {
    /// An empty index feeding `counts`.
    pub fn new(counts: Arc<GroupCounts>) -> Self {
        Self {
            counts,
            members: BTreeMap::new(),
        }
    }

    /// The keyspace-wide part.
    pub fn counts(&self) -> &GroupCounts {
        &self.counts
    }

    /// User key `key`, whose hash is `hash`, got an index entry.
    pub fn add(&mut self, key: &[u8], hash: u64) {
        let Some(group) = self.counts.group_of(key) else {
            return;
        };
        *self.members.entry((group, hash)).or_insert(0) += 1;
        self.counts.add(group, 1);
    }

    /// User key `key`, whose hash is `hash`, lost its index entry.
    pub fn remove(&mut self, key: &[u8], hash: u64) {
        let Some(group) = self.counts.group_of(key) else {
            return;
        };
        // Only what was added is taken away: counters never wrap.
        if let Some(n) = self.members.get_mut(&(group, hash)) {
            *n -= 1;
            if *n == 0 {
                self.members.remove(&(group, hash));
            }
            self.counts.sub(group, 1);
        }
    }

    /// Every key of the shard went.
    pub fn clear(&mut self) {
        for (&(group, _), &n) in &self.members {
            self.counts.sub(group, u64::from(n));
        }
        self.members.clear();
    }

    /// The key hashes of `group`'s keys in this shard.
    pub fn hashes_in(&self, group: u16) -> impl Iterator<Item = u64> + '_ {
        self.members
            .range((group, 0)..=(group, u64::MAX))
            .map(|(&(_, hash), _)| hash)
    }

    /// What the map costs, about.
    pub fn bytes(&self) -> usize {
        self.members.len() * ENTRY_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_byte(key: &[u8]) -> u16 {
        key.first().map_or(0, |&b| u16::from(b))
    }

    #[test]
    fn counts_follow_adds_removes_and_clears_without_wrapping() {
        let counts = Arc::new(GroupCounts::new(first_byte, 100));
        let mut shard = ShardGroups::new(counts.clone());
        shard.add(b"\x05a", 7);
        shard.add(b"\x05b", 7);
        shard.add(b"\x05c", 9);
        shard.add(b"\x06a", 1);
        // Out of range: not counted, not kept.
        shard.add(b"\xffz", 3);
        assert_eq!((counts.len(5), counts.len(6), counts.len(255)), (3, 1, 0));
        assert_eq!(shard.hashes_in(5).collect::<Vec<_>>(), [7, 9]);
        shard.remove(b"\x05a", 7);
        assert_eq!(shard.hashes_in(5).collect::<Vec<_>>(), [7, 9]);
        shard.remove(b"\x05b", 7);
        assert_eq!(shard.hashes_in(5).collect::<Vec<_>>(), [9]);
        // A removal never added changes nothing.
        shard.remove(b"\x05b", 7);
        shard.remove(b"\xffz", 3);
        assert_eq!(counts.len(5), 1);
        assert_eq!(shard.bytes(), 2 * ENTRY_BYTES);
        shard.clear();
        assert_eq!((counts.len(5), counts.len(6), shard.bytes()), (0, 0, 0));
    }
}
