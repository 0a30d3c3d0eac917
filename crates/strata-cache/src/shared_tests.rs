//! Per-user accounting of a shared cache: exact counters under a mixed
//! workload, bytes back to zero when a user's records are removed, and
//! evictions counted on the user whose record left.

use std::collections::HashMap;

use bytes::Bytes;

use super::memory::value_bytes;
use super::segments::Segments;
use super::{CacheStats, SharedCache, UserCache};

type Records = UserCache<u64, (u64, u64)>;
type Blocks = UserCache<(u64, u64, u64)>;

fn value(len: usize, fill: u8) -> Bytes {
    Bytes::from(vec![fill; len])
}

/// What a user's counters must say, kept beside the cache.
#[derive(Default)]
struct Model {
    held: HashMap<u64, ((u64, u64), usize)>,
    hits: u64,
    misses: u64,
    insertions: u64,
}

impl Model {
    fn check(&self, stats: CacheStats) {
        // Packed records are charged their length (their segments are
        // counted in the shard's bytes); 4 KiB blocks are not packed.
        let segments = Segments::<u64>::for_budget(4 << 20);
        let charge = |len| match segments.packs(len) {
            true => len,
            false => value_bytes(len),
        };
        let bytes: usize = self.held.values().map(|&(_, len)| charge(len)).sum();
        assert_eq!(stats.hits, self.hits);
        assert_eq!(stats.misses, self.misses);
        assert_eq!(stats.insertions, self.insertions);
        assert_eq!(stats.evictions, 0);
        assert_eq!(stats.entries, self.held.len() as u64);
        assert_eq!(stats.value_bytes, bytes as u64);
    }
}

#[test]
fn each_users_counters_are_exact_under_a_mixed_workload() {
    let shared = SharedCache::new(64 << 20);
    let records: Records = UserCache::shared(&shared, "kv_records").unwrap();
    let blocks: Blocks = UserCache::shared(&shared, "search_blocks").unwrap();
    assert_eq!(shared.user("kv_records"), shared.user("kv_records"));
    let (mut kv, mut search) = (Model::default(), Model::default());
    let mut state = 7u64;
    for step in 0..20_000u64 {
        // xorshift: a fixed, mixed sequence of operations and keys.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let key = state % 300;
        let version = (state >> 20) % 3;
        match step % 7 {
            0 | 1 => {
                let len = 10 + (state % 500) as usize;
                if records.insert(key, (version, key), value(len, 1)) {
                    kv.held.insert(key, ((version, key), len));
                    kv.insertions += 1;
                }
            }
            2 | 3 => {
                let held = kv.held.get(&key).is_some_and(|(v, _)| *v == (version, key));
                let got = records.get(&key, &(version, key));
                assert_eq!(got.is_some(), held);
                (kv.hits, kv.misses) = match held {
                    true => (kv.hits + 1, kv.misses),
                    false => (kv.hits, kv.misses + 1),
                };
            }
            4 => {
                records.invalidate(&key, &(version, key));
                if kv.held.get(&key).is_some_and(|(v, _)| *v == (version, key)) {
                    kv.held.remove(&key);
                }
            }
            5 => {
                // The same words as a record's key, in the other namespace.
                let block = (key, 0, 0);
                match blocks.get(&block, &()) {
                    Some(got) => {
                        assert_eq!(got.len(), search.held[&key].1, "a block, not a record");
                        search.hits += 1;
                    }
                    None => {
                        assert!(!search.held.contains_key(&key));
                        search.misses += 1;
                        assert!(blocks.insert(block, (), value(4096, 2)));
                        search.held.insert(key, ((0, 0), 4096));
                        search.insertions += 1;
                    }
                }
            }
            _ => {
                let to = (version + 1, key);
                if records.revise(&key, &(version, key), to) {
                    kv.held.get_mut(&key).unwrap().0 = to;
                }
            }
        }
    }
    kv.check(records.stats());
    search.check(blocks.stats());
    let total = shared.stats();
    assert_eq!(total.hits, kv.hits + search.hits);
    assert_eq!(total.entries, (kv.held.len() + search.held.len()) as u64);
    let users = shared.users();
    assert_eq!(users[0], ("kv_records".to_string(), records.stats()));
    assert_eq!(users[1], ("search_blocks".to_string(), blocks.stats()));
    // Each user's bytes: its records and its share of the tables.
    let sum: u64 = users.iter().map(|(_, u)| u.bytes).sum();
    assert!(
        sum <= total.bytes && sum + 2 >= total.bytes,
        "{sum} of {total:?}"
    );
    assert_eq!(records.stats().budget, 64 << 20);
    assert!(records.stats().shared && !total.shared);
}

#[test]
fn a_users_bytes_go_to_zero_when_its_records_are_removed() {
    let shared = SharedCache::new(8 << 20);
    let records: Records = UserCache::shared(&shared, "kv_records").unwrap();
    let blocks: Blocks = UserCache::shared(&shared, "search_blocks").unwrap();
    for key in 0..500u64 {
        records.insert(key, (1, key), value(100, 1));
        blocks.insert((key, key, 0), (), value(1000, 2));
    }
    let before = blocks.stats();
    assert!(records.stats().bytes > 500 * 100);
    records.remove_if(|key| key % 2 == 0);
    assert_eq!(records.stats().entries, 250);
    records.remove_if(|_| true);
    let gone = records.stats();
    assert_eq!((gone.entries, gone.value_bytes, gone.bytes), (0, 0, 0));
    assert_eq!(gone.insertions, 500, "counters are kept");
    let kept = blocks.stats();
    assert_eq!((kept.entries, kept.value_bytes), (500, before.value_bytes));
    assert_eq!(blocks.get(&(7, 7, 0), &()), Some(value(1000, 2)));
}

#[test]
fn evictions_are_counted_on_the_user_whose_records_leave() {
    // One shard of 1 MiB: the blocks' inserts push the records out.
    let shared = SharedCache::new(1 << 20);
    let records: Records = UserCache::shared(&shared, "kv_records").unwrap();
    let blocks: Blocks = UserCache::shared(&shared, "search_blocks").unwrap();
    for key in 0..1000u64 {
        records.insert(key, (1, key), value(200, 1));
    }
    let full = records.stats();
    assert_eq!((full.entries, full.evictions), (1000, 0));
    for n in 0..200u64 {
        blocks.insert((1, 1, n), (), value(16 << 10, 2));
        assert!(shared.stats().bytes <= 1 << 20);
    }
    let (kv, search) = (records.stats(), blocks.stats());
    assert!(kv.evictions > 900, "{kv:?}");
    assert_eq!(kv.entries, 1000 - kv.evictions);
    assert_eq!(search.entries, 200 - search.evictions);
    let total = shared.stats();
    assert_eq!(total.evictions, kv.evictions + search.evictions);
    assert_eq!(total.value_bytes, kv.value_bytes + search.value_bytes);
    assert_eq!(
        kv.insertions, 1000,
        "the evicted user inserted nothing more"
    );
}

#[test]
fn a_cache_of_its_own_behaves_as_the_plain_cache() {
    let own: Records = UserCache::own(1 << 20, 1);
    assert!(own.shared_cache().is_none());
    assert!(own.insert(1, (1, 1), value(10, 1)));
    assert_eq!(own.get(&1, &(1, 2)), None);
    assert_eq!(own.get_again(&1, &(1, 1)), Some(value(10, 1)));
    own.recount_as_hit(&1);
    let stats = own.stats();
    assert_eq!((stats.hits, stats.misses, stats.entries), (1, 0, 1));
    assert!(stats.bytes > stats.value_bytes, "tables counted in its own");
    assert!(!stats.shared);
}
