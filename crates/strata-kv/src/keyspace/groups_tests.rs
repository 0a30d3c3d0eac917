//! Key groups checked against the index itself: after every random
//! operation (sets with and without expiry, deletes, renames, copies,
//! flushes, the clock moving, reads that expire lazily, maintenance passes
//! that expire in the background, evictions), each group's count and keys
//! equal those of the user entries the shards hold.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::chunk::Namespace;
use crate::departures::{Departure, DepartureObserver};
use crate::{EvictionPolicy, Keyspace, KeyspaceConfig, ManualClock, NewItem, Store};

const GROUPS: u16 = 8;

fn classify(key: &[u8]) -> u16 {
    key.iter()
        .fold(0u16, |a, &b| a.wrapping_mul(31).wrapping_add(u16::from(b)))
        % GROUPS
}

/// Every user key with an index entry (expired or not), by group.
fn reference(ks: &Keyspace) -> BTreeMap<u16, BTreeSet<Vec<u8>>> {
    let mut groups = BTreeMap::new();
    for i in 0..ks.shard_count() {
        let shard = ks.shard_at(i).read();
        for (_, loc) in shard.index.items_in(0, shard.index.capacity()) {
            let rec = shard.arena.record(loc);
            if Namespace::of(rec.header.flags) == Namespace::User {
                let key = rec.key().to_vec();
                groups
                    .entry(classify(&key))
                    .or_insert_with(BTreeSet::new)
                    .insert(key);
            }
        }
    }
    groups
}

fn check(ks: &Keyspace, step: &str) {
    let want = reference(ks);
    for group in 0..GROUPS {
        let keys = want.get(&group).cloned().unwrap_or_default();
        assert_eq!(ks.group_len(group), Some(keys.len() as u64), "{step}");
        let mut listed = BTreeSet::new();
        assert!(ks.keys_in_group(group, usize::MAX, &mut |k| {
            assert!(listed.insert(k.to_vec()), "{step}: listed twice");
        }));
        assert_eq!(listed, keys, "{step}: group {group}");
        let mut few = 0;
        ks.keys_in_group(group, 2, &mut |_| few += 1);
        assert_eq!(few, keys.len().min(2), "{step}");
    }
}

struct Quiet;

impl DepartureObserver for Quiet {
    fn departed(&self, _key: &[u8], _why: Departure) {}
}

fn item(len: usize, expires_at: Option<u64>) -> NewItem<'static> {
    NewItem {
        value: vec![b'v'; len].into(),
        flags: 0,
        expires_at,
    }
}

/// Random operations on `ks`, checked after each.
fn run(ks: &Keyspace, clock: &ManualClock, rng: &mut SmallRng, steps: usize, value_len: usize) {
    let mut store = ks.store();
    for step in 0..steps {
        let key = format!("k{}", rng.gen_range(0..200)).into_bytes();
        let other = format!("k{}", rng.gen_range(0..200)).into_bytes();
        let now = ks.now_ms();
        let op = rng.gen_range(0..100);
        let name = match op {
            0..=39 => {
                let _ = store.set(&key, item(value_len, None));
                "set"
            }
            40..=54 => {
                let at = now + rng.gen_range(1..50);
                let _ = store.set(&key, item(value_len, Some(at)));
                "set with expiry"
            }
            55..=69 => {
                let _ = store.delete(&key);
                "delete"
            }
            70..=74 => {
                let _ = store.rename(&key, &other, rng.gen_bool(0.5));
                "rename"
            }
            75..=79 => {
                let _ = store.copy(&key, &other, rng.gen_bool(0.5));
                "copy"
            }
            80..=87 => {
                clock.advance_ms(rng.gen_range(1..40));
                "clock"
            }
            88..=93 => {
                // With a departure observer, a read removes what it finds
                // expired.
                let _ = store.get(&key, |_| ());
                "read"
            }
            94..=97 => {
                ks.run_maintenance();
                "maintenance"
            }
            _ => {
                let _ = store.flush();
                "flush"
            }
        };
        check(ks, &format!("step {step}: {name}"));
    }
}

/// A keyspace of 4 shards on a manual clock, `memory_limit` and
/// `eviction` as given.
fn keyspace(memory_limit: u64, eviction: EvictionPolicy) -> (Arc<Keyspace>, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (shards, rest) = (4, KeyspaceConfig::default());
    let config = KeyspaceConfig {
        shards,
        memory_limit,
        eviction,
        ..rest
    };
    (Keyspace::new(config, clock.clone()), clock)
}

#[test]
fn groups_equal_the_index_through_every_change() {
    let defaults = KeyspaceConfig::default();
    let (ks, clock) = keyspace(defaults.memory_limit, defaults.eviction);
    let mut store = ks.store();
    // Keys held before groups go on are indexed when they do.
    for i in 0..50 {
        let at = (i % 3 == 0).then_some(1_000_010);
        store.set(format!("k{i}").as_bytes(), item(8, at)).unwrap();
    }
    assert_eq!(ks.group_len(0), None);
    assert!(!ks.keys_in_group(0, 10, &mut |_| {}));
    assert!(ks.group_keys(classify, GROUPS));
    assert!(!ks.group_keys(classify, GROUPS), "turned on once");
    check(&ks, "on");
    ks.add_departure_observer(Arc::new(Quiet));
    let mut rng = SmallRng::seed_from_u64(7);
    run(&ks, &clock, &mut rng, 3_000, 8);
}

#[test]
fn groups_follow_evictions() {
    let (ks, clock) = keyspace(4 << 20, EvictionPolicy::Clock);
    assert!(ks.group_keys(classify, GROUPS));
    let mut store = ks.store();
    let before = ks.stats().evictions;
    for i in 0..400 {
        let _ = store.set(format!("big{i}").as_bytes(), item(64 << 10, None));
        if i % 50 == 0 {
            check(&ks, &format!("big {i}"));
        }
    }
    assert!(ks.stats().evictions > before, "the test must evict");
    check(&ks, "after evictions");
    let mut rng = SmallRng::seed_from_u64(11);
    run(&ks, &clock, &mut rng, 500, 40 << 10);
}
