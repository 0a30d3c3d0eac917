//! One shard of the cache: the S3-FIFO policy over a map of records.
//!
//! A key names an object (for the SSD tier, a user key's hash) and holds
//! one version of it (where its record is): a new version replaces the old
//! in place, keeping its queue and frequency, so an object stays hot when
//! it is rewritten.
//!
//! The global eviction (`evict`) spares the records of users at their
//! floor; a user over its ceiling loses its own records first (`cap`).
//!
//! Invariants: `small.bytes + main.bytes` is the charge of the records in
//! the map (an unpacked value's heap bytes, `memory::value_bytes`; a
//! packed one's length, `segments`); the values' memory (unpacked ones
//! by their charge, packed ones by their segments) plus the bytes of the
//! map's table, the queues (capped ones included) and the ghost
//! (`resident`) never exceeds `budget` between calls unless the shard
//! holds no record;
//! every record has exactly one non-stale position, in the queue its
//! `in_main` names; each user's `entries` and `value_bytes` (`users`) are
//! those of the records in the map that carry its tag; a user with a
//! ceiling has a capped queue holding a position of each of its records
//! (and stale ones, at most twice its records plus 32 after each removal),
//! and holds at most its ceiling's share between calls.

use std::collections::HashMap;
use std::hash::Hash;

use bytes::Bytes;

use super::fifo::Fifo;
use super::ghost::Ghost;
use super::memory::{table_bytes, value_bytes};
use super::policy::ShareLimits;
use super::segments::{Segments, Stream, UNPACKED};
use super::stats::CacheStats;
use super::user::{CacheUser, Counters, MAX_USERS};

mod cap;
mod evict;
mod pack;
mod table;

/// Highest frequency a record in main can reach (two bits).
const MAX_FREQ: u8 = 3;

struct Entry<V> {
    version: V,
    value: Bytes,
    freq: u8,
    in_main: bool,
    /// The user the record is counted on (`CacheUser`'s index).
    user: u8,
    /// The segment `value` is packed in, or `UNPACKED` (`segments`).
    seg: u32,
    stamp: u64,
}

/// The records of one shard and their queues.
pub(super) struct Shard<K, V> {
    map: HashMap<K, Entry<V>>,
    small: Fifo<K>,
    main: Fifo<K>,
    ghost: Ghost<K>,
    /// Where the small values are packed.
    segments: Segments<K>,
    budget: usize,
    /// `map`'s capacity right after it last grew (its table's size).
    table_capacity: usize,
    next_stamp: u64,
    users: [Counters; MAX_USERS],
    /// Each user's share of its floor and ceiling here (`policy`).
    limits: [ShareLimits; MAX_USERS],
    /// For each user with a ceiling, the positions of its records in the
    /// order they came in (`cap`); `None` for the others.
    capped: [Option<Fifo<K>>; MAX_USERS],
}

impl<K: Hash + Eq + Clone, V: Eq> Shard<K, V> {
    /// An empty shard of `budget` bytes of memory. Of the records' bytes,
    /// the small queue keeps 10%; the ghost remembers keys of as many bytes
    /// as main's 90%.
    pub(super) fn new(budget: usize) -> Shard<K, V> {
        Shard {
            map: HashMap::new(),
            small: Fifo::new(),
            main: Fifo::new(),
            ghost: Ghost::new(),
            segments: Segments::for_budget(budget),
            budget,
            table_capacity: 0,
            next_stamp: 0,
            users: [Counters::default(); MAX_USERS],
            limits: [ShareLimits::NONE; MAX_USERS],
            capped: std::array::from_fn(|_| None),
        }
    }

    /// The value of `key` at `version`, counted as `user`'s hit or miss
    /// when `count` (an uncounted lookup is a caller's second look at a key
    /// whose miss it counted already). A hit raises the frequency.
    pub(super) fn get(
        &mut self,
        user: CacheUser,
        key: &K,
        version: &V,
        count: bool,
    ) -> Option<Bytes> {
        let found = self.map.get_mut(key).filter(|e| e.version == *version);
        let counters = &mut self.users[user.index()];
        let counter = match found.is_some() {
            true => &mut counters.hits,
            false => &mut counters.misses,
        };
        *counter += u64::from(count);
        let entry = found?;
        entry.freq = (entry.freq + 1).min(MAX_FREQ);
        Some(entry.value.clone())
    }

    /// Moves one of `user`'s misses to its hits: the miss was answered
    /// after all, by another thread's read the caller waited for.
    pub(super) fn recount_as_hit(&mut self, user: CacheUser) {
        let counters = &mut self.users[user.index()];
        if counters.misses > 0 {
            counters.misses -= 1;
            counters.hits += 1;
        }
    }

    /// Caches `value` as `version` of `key` for `user` (see
    /// `Cache::insert`); false if it is too large for the shard or the
    /// user's ceiling here, or already cached. Over the ceiling, the user's
    /// own records leave first (`cap`), then the global eviction keeps the
    /// budget (`evict`).
    pub(super) fn insert(&mut self, user: CacheUser, key: K, version: V, value: Bytes) -> bool {
        let charge = match self.segments.packs(value.len()) {
            true => value.len(),
            false => value_bytes(value.len()),
        };
        if charge > self.budget || self.limits[user.index()].over(charge) {
            self.invalidate(&key, None);
            return false;
        }
        if let Some(entry) = self.map.get_mut(&key) {
            if entry.version == version {
                return false;
            }
            // A new version of a cached object: same place, same frequency.
            let (queue, stream) = match entry.in_main {
                true => (&mut self.main, Stream::Main),
                false => (&mut self.small, Stream::Small),
            };
            queue.bytes = queue.bytes - entry.charge() + charge;
            self.users[usize::from(entry.user)].remove(entry.charge());
            self.users[user.index()].add(charge);
            let moved = entry.user != user.0;
            self.segments.release(entry.seg, entry.value.len());
            let (value, seg) = self.segments.keep(stream, &key, value);
            (entry.version, entry.value, entry.user) = (version, value, user.0);
            entry.seg = seg;
            if moved {
                let stamp = entry.stamp;
                self.push_capped(user, &key, stamp);
            }
            self.cap(user);
            self.evict();
            return true;
        }
        self.make_room_in_table(charge);
        let in_main = self.ghost.remove(&key);
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        let (queue, stream) = match in_main {
            true => (&mut self.main, Stream::Main),
            false => (&mut self.small, Stream::Small),
        };
        queue.push(key.clone(), stamp);
        queue.bytes += charge;
        self.push_capped(user, &key, stamp);
        let (value, seg) = self.segments.keep(stream, &key, value);
        let entry = Entry {
            version,
            value,
            freq: 0,
            in_main,
            user: user.0,
            seg,
            stamp,
        };
        self.map.insert(key, entry);
        self.table_capacity = self.table_capacity.max(self.map.capacity());
        self.users[user.index()].add(charge);
        self.cap(user);
        self.evict();
        true
    }

    /// Relabels `key`'s record from version `from` to `to` (the record was
    /// moved, its bytes are the same); false if `from` is not cached.
    pub(super) fn revise(&mut self, key: &K, from: &V, to: V) -> bool {
        match self.map.get_mut(key).filter(|e| e.version == *from) {
            Some(entry) => {
                entry.version = to;
                true
            }
            None => false,
        }
    }

    /// Forgets `key`'s record if it is `version` (any version if `None`).
    pub(super) fn invalidate(&mut self, key: &K, version: Option<&V>) {
        if !self
            .map
            .get(key)
            .is_some_and(|e| version.is_none_or(|v| e.version == *v))
        {
            return;
        }
        self.drop_record(key);
    }

    /// Forgets every record whose key `doomed` accepts (no ghost entry:
    /// they were dropped, not evicted), then compacts the queues.
    pub(super) fn remove_if(&mut self, mut doomed: impl FnMut(&K) -> bool) {
        let (small, main, users) = (&mut self.small, &mut self.main, &mut self.users);
        let segments = &mut self.segments;
        self.map.retain(|key, entry| {
            if !doomed(key) {
                return true;
            }
            let queue = match entry.in_main {
                true => &mut *main,
                false => &mut *small,
            };
            queue.bytes -= entry.charge();
            users[usize::from(entry.user)].remove(entry.charge());
            segments.release(entry.seg, entry.value.len());
            false
        });
        if self.map.is_empty() {
            // Cleared: the table and queues go back to the allocator.
            (self.map, self.table_capacity) = (HashMap::new(), 0);
            (self.small, self.main) = (Fifo::new(), Fifo::new());
            for queue in self.capped.iter_mut().flatten() {
                *queue = Fifo::new();
            }
            return;
        }
        let map = &self.map;
        self.small.retain(|k, s| is_at(map, k, s, false));
        self.main.retain(|k, s| is_at(map, k, s, true));
        for (user, queue) in (0u8..).zip(self.capped.iter_mut()) {
            if let Some(queue) = queue {
                queue.retain(|k, s| is_capped_at(map, k, s, user));
            }
        }
        self.clean_segments();
        self.trim();
    }

    /// Adds the shard's totals over its users to `stats`.
    pub(super) fn add_stats(&self, stats: &mut CacheStats) {
        for user in &self.users {
            user.add_to(stats);
        }
        stats.bytes += self.resident() as u64;
    }

    /// Adds `user`'s counters to `stats` (`bytes` as well as `value_bytes`
    /// get its records' charge: the tables are shared, see `SharedCache`).
    pub(super) fn add_user_stats(&self, user: CacheUser, stats: &mut CacheStats) {
        let counters = &self.users[user.index()];
        counters.add_to(stats);
        stats.bytes += counters.value_bytes as u64;
    }

    /// Bytes the shard holds in memory: its records' values (the packed
    /// ones by their segments), the map's table, the queues and the ghost.
    /// The ghost is counted at least at the size it reaches for this many
    /// records, so that the first fill (ghost still empty) does not grow
    /// the table beyond what fits later.
    fn resident(&self) -> usize {
        // The queues' bytes count packed records by length (`held`).
        self.small.bytes + self.main.bytes - self.segments.held()
            + self.segments.resident()
            + table_bytes::<(K, Entry<V>)>(self.table_capacity)
            + self.small.resident()
            + self.main.resident()
            + self
                .ghost
                .resident()
                .max(Ghost::<K>::expected(self.map.len()))
            + self
                .capped
                .iter()
                .flatten()
                .map(Fifo::resident)
                .sum::<usize>()
    }

    /// Forgets `key`'s record (any version), which leaves its queue: its
    /// user's counters and the queues' stale positions follow. The caller
    /// counts an eviction if it was one.
    fn drop_record(&mut self, key: &K) -> Option<Entry<V>> {
        let entry = self.take(key)?;
        if entry.in_main {
            self.main.bytes -= entry.charge();
        } else {
            self.small.bytes -= entry.charge();
        }
        if self.small.positions() + self.main.positions() > 2 * self.map.len() + 32 {
            let map = &self.map;
            self.small.retain(|k, s| is_at(map, k, s, false));
            self.main.retain(|k, s| is_at(map, k, s, true));
        }
        Some(entry)
    }

    /// Removes `key`'s record from the map and its user's counters (and
    /// compacts its user's capped queue); the caller settles the bytes of
    /// the queue the record was in.
    fn take(&mut self, key: &K) -> Option<Entry<V>> {
        let entry = self.map.remove(key)?;
        self.users[usize::from(entry.user)].remove(entry.charge());
        self.segments.release(entry.seg, entry.value.len());
        self.compact_capped(entry.user);
        Some(entry)
    }
}

impl<V> Entry<V> {
    /// What the record is charged: a packed value its length (its segment
    /// is charged as a whole, `segments`), another its heap bytes.
    fn charge(&self) -> usize {
        match self.seg {
            UNPACKED => value_bytes(self.value.len()),
            _ => self.value.len(),
        }
    }
}

fn is_entry<V>(entry: &Entry<V>, stamp: u64, in_main: bool) -> bool {
    entry.stamp == stamp && entry.in_main == in_main
}

/// True if the position `(key, stamp)` in `user`'s capped queue is a
/// record of the user's (the record may have moved between small and main).
fn is_capped_at<K: Hash + Eq, V>(
    map: &HashMap<K, Entry<V>>,
    key: &K,
    stamp: u64,
    user: u8,
) -> bool {
    map.get(key)
        .is_some_and(|e| e.stamp == stamp && e.user == user)
}

/// True if the position `(key, stamp)` in the queue `in_main` names is the
/// record's current one.
fn is_at<K: Hash + Eq, V>(map: &HashMap<K, Entry<V>>, key: &K, stamp: u64, in_main: bool) -> bool {
    map.get(key).is_some_and(|e| is_entry(e, stamp, in_main))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_records_move_to_main_and_unread_ones_leave_through_the_ghost() {
        let mut shard = Shard::new(4096);
        let value = Bytes::from(vec![0u8; 100]);
        shard.insert(CacheUser::OWN, 1u32, (), value.clone());
        shard.get(CacheUser::OWN, &1, &(), true);
        for key in 2..40 {
            shard.insert(CacheUser::OWN, key, (), value.clone());
        }
        assert!(shard.map.get(&1).is_some_and(|e| e.in_main));
        assert!(!shard.map.contains_key(&2));
        // The last unread key to leave went through the ghost: it returns
        // straight to main.
        let gone = (2..40).rev().find(|k| !shard.map.contains_key(k)).unwrap();
        shard.insert(CacheUser::OWN, gone, (), value.clone());
        assert!(shard.map.get(&gone).is_some_and(|e| e.in_main));
        assert!(shard.resident() <= shard.budget);
    }
}
