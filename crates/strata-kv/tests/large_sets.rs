//! Large sets over chunk records (`strata_kv::large::Hashed` with one
//! element per entry): random picks come from the set and end even when
//! the set is nearly empty; emptying a set removes its key and chunks;
//! cache-mode eviction takes a large set whole (no orphan chunk, no set
//! with a chunk missing); reads hold the shard shared (`Store::read_large`).

use std::sync::Arc;

use rand::SeedableRng;
use strata_kv::large::Hashed;
use strata_kv::{EvictionPolicy, Keyspace, KeyspaceConfig, ManualClock, NewItem, Store, ValueKind};

fn keyspace(config: KeyspaceConfig) -> Arc<Keyspace> {
    Keyspace::new(config, Arc::new(ManualClock::new(1_000_000)))
}

fn member(i: u32) -> Vec<u8> {
    format!("member:{i:06}").into_bytes()
}

/// Adds members `from..to` to the large set at `key` (created if missing).
fn add(store: &mut impl Store, key: &[u8], from: u32, to: u32) {
    store
        .edit_large(key, |edit| {
            let mut set = match Hashed::open(edit, ValueKind::Set)? {
                Some(s) => s,
                None => Hashed::create(edit, ValueKind::Set, None),
            };
            for i in from..to {
                set.put(&member(i), b"")?;
            }
            set.finish()
        })
        .unwrap()
        .unwrap();
}

#[test]
fn random_picks_are_members_and_end_when_few_remain() {
    let ks = keyspace(KeyspaceConfig {
        shards: 2,
        ..KeyspaceConfig::default()
    });
    let mut store = ks.store();
    add(&mut store, b"s", 0, 20_000);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    store
        .edit_large(b"s", |edit| {
            let mut set = Hashed::open(edit, ValueKind::Set)?.unwrap();
            assert!(set.buckets() > 50);
            // Remove all but one member, by random picks.
            while set.len() > 1 {
                let picked = set.random(&mut rng)?.unwrap();
                assert_eq!(picked.len(), 1);
                assert!(set.remove(&picked[0])?, "a picked member is there");
            }
            let last = set.random(&mut rng)?.unwrap();
            assert_eq!(set.get(&last[0])?, Some(Vec::new()));
            assert!(set.remove(&last[0])?);
            assert_eq!(set.random(&mut rng)?, None);
            set.finish()
        })
        .unwrap()
        .unwrap();
    assert_eq!(store.len(), 0, "an emptied set is deleted");
    assert_eq!(ks.chunk_census().chunks, 0);
}

#[test]
fn eviction_takes_large_sets_whole() {
    let ks = keyspace(KeyspaceConfig {
        shards: 4,
        memory_limit: 4 << 20,
        eviction: EvictionPolicy::Clock,
        ..KeyspaceConfig::default()
    });
    let mut store = ks.store();
    for i in 0..200u32 {
        let key = format!("set:{i}").into_bytes();
        add(&mut store, &key, 0, 500);
        add(&mut store, &key, 500, 1000); // a second edit of the same set
        let filler = NewItem {
            value: vec![7; 3000].into(),
            flags: 0,
            expires_at: None,
        };
        store.set(format!("s:{i}").as_bytes(), filler).unwrap();
    }
    assert!(ks.stats().evictions > 0);
    let census = ks.chunk_census();
    assert_eq!((census.orphans, census.missing), (0, 0), "{census:?}");
    let mut kept = 0;
    for i in 0..200u32 {
        let key = format!("set:{i}").into_bytes();
        let members = store
            .edit_large(&key, |edit| {
                let mut set = Hashed::open(edit, ValueKind::Set).unwrap()?;
                let mut n = 0;
                for b in 0..set.buckets() {
                    n += set.bucket(b).unwrap().len();
                }
                assert_eq!(n as u64, set.len());
                Some(n)
            })
            .unwrap();
        if let Some(n) = members {
            assert_eq!(n, 1000, "a set is evicted whole or not at all");
            kept += 1;
        }
    }
    assert!(kept > 0 && kept < 200, "{kept}");
}

#[test]
fn reads_of_a_large_set_hold_the_shard_shared() {
    let ks = keyspace(KeyspaceConfig {
        shards: 1,
        ..KeyspaceConfig::default()
    });
    add(&mut ks.store(), b"s", 0, 5000);
    let (inside, go_on) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            ks.store().read_large(b"s", |read| {
                let mut set = Hashed::open(read, ValueKind::Set).unwrap().unwrap();
                assert_eq!(set.get(&member(42)).unwrap(), Some(Vec::new()));
                inside.wait();
                // Another reader of the same shard, and a large read of
                // the same set, finish while this one still holds it.
                go_on.wait();
            });
        });
        inside.wait();
        let mut store = ks.store();
        assert!(store.get(b"s", |_| ()).is_some());
        let n = store.read_large(b"s", |read| {
            Hashed::open(read, ValueKind::Set).unwrap().map(|s| s.len())
        });
        assert_eq!(n, Some(5000));
        go_on.wait();
    });
    let mut store = ks.store();
    assert!(
        store.read_large(b"missing", |r| Hashed::open(r, ValueKind::Set)
            .unwrap()
            .is_none())
    );
}
