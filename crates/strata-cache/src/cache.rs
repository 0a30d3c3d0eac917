//! [`Cache`]: the sharded, byte-budgeted S3-FIFO cache itself (the
//! crate docs describe the policy); its records are counted on users
//! (`user`), the plain methods' on the cache's own.

use std::hash::{BuildHasher, Hash, RandomState};

use bytes::Bytes;
use parking_lot::Mutex;

use super::policy::{ShareLimits, UserLimits};
use super::shard::Shard;
use super::stats::CacheStats;
use super::user::{CacheUser, MAX_USERS};

/// Shards of [`Cache::new`].
const DEFAULT_SHARDS: usize = 16;

/// A byte-budgeted, scan-resistant cache of immutable records.
///
/// Promise: after every call, each shard holds at most its share of the
/// budget (`budget / shards` bytes) in memory: its values as the allocator
/// sizes them, its hash table and its queues, ghost included (`memory`);
/// a record larger than a share is never cached. Values not packed must
/// own about their length (see `insert`). Thread-safe.
pub struct Cache<K, V = ()> {
    shards: Box<[Mutex<Shard<K, V>>]>,
    hasher: RandomState,
    budget: u64,
}

impl<K: Hash + Eq + Clone, V: Eq> Cache<K, V> {
    /// A cache of `budget` bytes in 16 shards.
    pub fn new(budget: u64) -> Cache<K, V> {
        Cache::with_shards(budget, DEFAULT_SHARDS)
    }

    /// A cache of `budget` bytes in `shards` shards (at least one).
    pub fn with_shards(budget: u64, shards: usize) -> Cache<K, V> {
        let shards = shards.max(1);
        let share = usize::try_from(budget / shards as u64).unwrap_or(usize::MAX);
        Cache {
            shards: (0..shards).map(|_| Mutex::new(Shard::new(share))).collect(),
            hasher: RandomState::new(),
            budget,
        }
    }

    fn shard(&self, key: &K) -> &Mutex<Shard<K, V>> {
        let hash = self.hasher.hash_one(key);
        &self.shards[(hash % self.shards.len() as u64) as usize]
    }

    /// The record `version` of `key`, counted as a hit or a miss (another
    /// version cached is a miss).
    pub fn get(&self, key: &K, version: &V) -> Option<Bytes> {
        self.get_for(CacheUser::OWN, key, version, true)
    }

    /// [`get`](Self::get) without counting a hit or a miss: a second look
    /// at a key whose miss the caller counted already (it waited for
    /// another thread's read of the same value).
    pub fn get_again(&self, key: &K, version: &V) -> Option<Bytes> {
        self.get_for(CacheUser::OWN, key, version, false)
    }

    /// [`get`](Self::get) for `user`, counted when `count`.
    pub(super) fn get_for(
        &self,
        user: CacheUser,
        key: &K,
        version: &V,
        count: bool,
    ) -> Option<Bytes> {
        self.shard(key).lock().get(user, key, version, count)
    }

    /// Counts the miss `user` counted on `key` (with `get`) as a hit: a
    /// second look ([`get_again`](Self::get_again)) found the value another
    /// thread read meanwhile.
    pub(super) fn recount_as_hit(&self, user: CacheUser, key: &K) {
        self.shard(key).lock().recount_as_hit(user);
    }

    /// Caches `value` as `version` of `key` (evicting as needed), in place
    /// of another version (keeping its queue and frequency). False if it is
    /// too large for a shard (any cached version is then dropped) or this
    /// version is cached already (records are immutable). A small value
    /// is copied into the shard's segments when that costs less than its
    /// own allocation (`segments::packs`, in shards of 448 KiB or more);
    /// another is kept as it is and must own an allocation of about its
    /// length (copied out, or a read buffer handed out in place): a small
    /// slice of a large buffer would keep more memory than the cache
    /// counts.
    pub fn insert(&self, key: K, version: V, value: Bytes) -> bool {
        self.insert_for(CacheUser::OWN, key, version, value)
    }

    /// [`insert`](Self::insert), the record counted on `user`.
    pub(super) fn insert_for(&self, user: CacheUser, key: K, version: V, value: Bytes) -> bool {
        self.shard(&key).lock().insert(user, key, version, value)
    }

    /// Relabels `key`'s record from version `from` to `to` (moved without
    /// changing); false if `from` is not what is cached.
    pub fn revise(&self, key: &K, from: &V, to: V) -> bool {
        self.shard(key).lock().revise(key, from, to)
    }

    /// Forgets `key`'s record if it is `version` (its record was released);
    /// no effect otherwise.
    pub fn invalidate(&self, key: &K, version: &V) {
        self.shard(key).lock().invalidate(key, Some(version));
    }

    /// Drops every record whose key `doomed` accepts, a pass over the
    /// whole cache (one shard locked at a time); counters are kept.
    pub fn remove_if(&self, doomed: impl Fn(&K) -> bool) {
        for shard in self.shards.iter() {
            shard.lock().remove_if(&doomed);
        }
    }

    /// Sets `user`'s floor and ceiling, each shard enforcing its share
    /// (`policy`).
    pub(super) fn set_limits(&self, user: CacheUser, limits: UserLimits) {
        let share = ShareLimits::of(limits, self.shards.len());
        for shard in self.shards.iter() {
            shard.lock().set_limits(user, share);
        }
    }

    /// Counters summed over the shards.
    pub fn stats(&self) -> CacheStats {
        let mut stats = CacheStats {
            budget: self.budget,
            ..CacheStats::default()
        };
        for shard in self.shards.iter() {
            shard.lock().add_stats(&mut stats);
        }
        stats
    }

    /// The totals and each user's counters, from one pass over the shards
    /// (each locked once, so a user's figures and the totals agree per
    /// shard). A user's `bytes` are its records' charge only.
    pub(super) fn stats_by_user(&self) -> (CacheStats, [CacheStats; MAX_USERS]) {
        let mut total = CacheStats {
            budget: self.budget,
            ..CacheStats::default()
        };
        let mut users = [total; MAX_USERS];
        for shard in self.shards.iter() {
            let shard = shard.lock();
            shard.add_stats(&mut total);
            for (index, stats) in (0u8..).zip(users.iter_mut()) {
                shard.add_user_stats(CacheUser(index), stats);
            }
        }
        (total, users)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(len: usize) -> Bytes {
        Bytes::from(vec![1u8; len])
    }

    #[test]
    fn budget_is_respected_and_large_records_are_not_cached() {
        let cache = Cache::with_shards(64 * 1024, 4);
        for key in 0..10_000u64 {
            cache.insert(key, (), value(100 + (key as usize % 900)));
            assert!(cache.stats().bytes <= 64 * 1024);
        }
        let stats = cache.stats();
        assert_eq!(stats.insertions, 10_000);
        assert!(stats.evictions > 9_000);
        assert!(
            !cache.insert(u64::MAX, (), value(20_000)),
            "over a 16 KiB share"
        );
    }

    #[test]
    fn a_new_version_replaces_the_old_in_place_and_only_its_own_version_hits() {
        let cache = Cache::with_shards(1 << 20, 1);
        assert!(cache.insert(7u64, 1u32, value(10)));
        assert_eq!(cache.get(&7, &1), Some(value(10)));
        assert!(cache.insert(7, 2, value(20)));
        assert_eq!(cache.get(&7, &1), None, "the old version is gone");
        assert_eq!(cache.get(&7, &2), Some(value(20)));
        cache.invalidate(&7, &1);
        assert_eq!(cache.get(&7, &2), Some(value(20)), "a stale invalidation");
        cache.invalidate(&7, &2);
        assert_eq!(cache.get(&7, &2), None);
        let stats = cache.stats();
        assert_eq!(stats.entries, 0);
        assert!(
            stats.bytes < 512,
            "only the empty table and queue remain: {}",
            stats.bytes
        );
    }

    #[test]
    fn hits_misses_and_invalidation() {
        let cache = Cache::new(1 << 20);
        assert_eq!(cache.get(&1u32, &()), None);
        assert!(cache.insert(1, (), value(10)));
        assert!(!cache.insert(1, (), value(10)));
        assert_eq!(cache.get(&1, &()), Some(value(10)));
        cache.invalidate(&1, &());
        assert_eq!(cache.get(&1, &()), None);
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses, stats.entries), (1, 2, 0));
        assert!(
            stats.bytes < 512,
            "only the empty table and queue remain: {}",
            stats.bytes
        );
    }

    /// Records with their own allocations (2,000 bytes: a 512 KiB shard
    /// packs up to 1 KiB); packed ones in the next test.
    #[test]
    fn remove_if_drops_only_the_chosen_records_and_their_bytes() {
        let cache = Cache::with_shards(1 << 20, 2);
        for key in 0..100u64 {
            cache.insert(key, (), value(2000));
        }
        let full = cache.stats();
        cache.remove_if(|key| key % 2 == 0);
        let half = cache.stats();
        assert_eq!(half.entries, 50);
        assert_eq!(half.value_bytes, full.value_bytes / 2);
        assert!(
            half.bytes < full.bytes - 50 * 100,
            "{half:?} after {full:?}"
        );
        assert_eq!(cache.get_again(&2, &()), None);
        assert_eq!(cache.get_again(&3, &()), Some(value(2000)));
        assert_eq!(cache.stats().hits, full.hits, "get_again is not counted");
        cache.remove_if(|_| true);
        assert_eq!(cache.stats().entries, 0);
        assert!(cache.stats().bytes < 1024);
    }

    /// Removing most packed records from the middle of their segments
    /// copies the rest out of the emptiest ones: the memory goes back at
    /// once, and every value survives the move.
    #[test]
    fn removing_most_packed_records_gives_their_segments_back() {
        let cache = Cache::with_shards(8 << 20, 1);
        let record = |key: u64| Bytes::from(key.to_le_bytes().repeat(12));
        for key in 0..20_000u64 {
            assert!(cache.insert(key, (), record(key)));
            if key % 3 == 0 {
                cache.get(&key, &());
            }
        }
        let full = cache.stats();
        assert_eq!(full.entries, 20_000);
        cache.remove_if(|key| key % 10 != 0);
        let kept = cache.stats();
        assert_eq!(kept.value_bytes, 2_000 * 96);
        // Holes of up to a tenth of the budget (839 KB) may stay.
        assert!(kept.bytes < full.bytes / 3, "{kept:?} after {full:?}");
        for key in (0..20_000u64).step_by(10) {
            assert_eq!(cache.get_again(&key, &()), Some(record(key)));
        }
    }

    /// Hot records rewritten again and again (new versions, as a Zipfian
    /// load's sets make), a few of each segment at a time, leave holes in
    /// segments whose other records stay; the cleaner keeps the holes to a
    /// tenth of the budget, so the records stay cached.
    #[test]
    fn rewritten_hot_records_do_not_fill_the_segments_with_holes() {
        const HOT: u64 = 2_000;
        let cache = Cache::with_shards(4 << 20, 1);
        // 1,030 bytes: packed (`segments::packs`).
        let record = |key: u64, version: u64| {
            let mut words = [key, version].map(u64::to_le_bytes).concat().repeat(64);
            words.extend_from_slice(&[0; 6]);
            Bytes::from(words)
        };
        let mut versions = vec![0u64; HOT as usize];
        for key in 0..HOT {
            assert!(cache.insert(key, 0, record(key, 0)));
            cache.get(&key, &0);
        }
        let mut state = 7u64;
        for _ in 0..100_000 {
            // xorshift: one key in five of the hot set, at random.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let key = state % HOT;
            let version = &mut versions[key as usize];
            if state.is_multiple_of(5) {
                *version += 1;
                cache.insert(key, *version, record(key, *version));
            }
            cache.get(&key, version);
        }
        let stats = cache.stats();
        assert!(stats.bytes <= 4 << 20);
        // 2 MB of records fit: holes never forced one out (without the
        // cleaner they did, and 37 reads missed).
        assert_eq!((stats.evictions, stats.misses), (0, 0), "{stats:?}");
        for key in 0..HOT {
            let version = versions[key as usize];
            assert_eq!(
                cache.get_again(&key, &version),
                Some(record(key, version)),
                "{stats:?}"
            );
        }
    }

    /// The scan-resistance property: a hot set read repeatedly keeps a high
    /// hit ratio while a one-pass scan of 20 times the budget in cold
    /// records streams through.
    #[test]
    fn a_one_pass_scan_does_not_evict_the_hot_set() {
        let cache = Cache::new(4 << 20);
        let hot: Vec<u64> = (0..2_000).collect();
        let read = |key: u64| {
            if cache.get(&key, &()).is_none() {
                cache.insert(key, (), value(1000));
                false
            } else {
                true
            }
        };
        for _ in 0..3 {
            hot.iter().for_each(|&k| {
                read(k);
            });
        }
        let (mut hot_hits, mut hot_reads) = (0u64, 0u64);
        for cold in 0..80_000u64 {
            read(1_000_000 + cold);
            let key = hot[(cold * 7919 % 2000) as usize];
            hot_reads += 1;
            hot_hits += u64::from(read(key));
        }
        let ratio = hot_hits as f64 / hot_reads as f64;
        assert!(ratio > 0.95, "hot hit ratio {ratio} during a scan");
        assert!(cache.stats().bytes <= 4 << 20);
    }
}
