//! The stats walk (`Keyspace::walk_items`) and the size classes: every item
//! seen once with its record size and value length (in DRAM and on the SSD
//! tier, where only stubs are in DRAM), and evictions and reclaimed
//! expiries counted in their class.

use std::collections::HashMap;
use std::sync::Arc;

use strata_device::MemBlockDevice;
use strata_kv::size_class::class_of;
use strata_kv::{EvictionPolicy, IndexTier, Keyspace, KeyspaceConfig, ManualClock, NewItem, Store};

use crate::common;

use common::*;

fn item(value: &[u8], expires_at: Option<u64>) -> NewItem<'_> {
    NewItem {
        value: value.into(),
        flags: 0,
        expires_at,
    }
}

/// key -> (value length, record size) over a whole walk.
fn walk(ks: &Keyspace) -> HashMap<Vec<u8>, (usize, usize)> {
    let mut seen = HashMap::new();
    let mut cursor = 0;
    loop {
        cursor = ks.walk_items(cursor, 100, &mut |info| {
            seen.insert(info.key.to_vec(), (info.value_len, info.size));
        });
        if cursor == 0 {
            return seen;
        }
    }
}

fn fill(ks: &Keyspace) {
    let mut store = ks.store();
    for i in 0..3_000usize {
        let value = vec![b'v'; i % 700 + (i % 3) * 200];
        store
            .set(format!("key{i}").as_bytes(), item(&value, None))
            .unwrap();
    }
}

fn check(ks: &Keyspace) {
    let seen = walk(ks);
    assert_eq!(seen.len(), 3_000);
    for i in 0..3_000usize {
        let key = format!("key{i}");
        let value_len = i % 700 + (i % 3) * 200;
        // header: control, key_len, value_len, cas varints.
        let (got_len, size) = seen[key.as_bytes()];
        assert_eq!(got_len, value_len, "{key}");
        assert!(size > key.len() + value_len + 2 && size <= key.len() + value_len + 14);
    }
}

#[test]
fn walk_sees_every_item_with_its_sizes() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let ks = Keyspace::new(KeyspaceConfig::default(), clock);
    fill(&ks);
    check(&ks);
}

#[test]
fn walk_on_the_ssd_tier_reads_sizes_from_stubs() {
    let device = MemBlockDevice::new(64 << 20);
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (ks, _) = Keyspace::open_ssd(
        KeyspaceConfig::default(),
        clock,
        IndexTier::Dram,
        None,
        Arc::new(device),
        ssd_config(64 * 1024),
        settings(),
    )
    .unwrap();
    fill(&ks);
    check(&ks);
}

#[test]
fn evictions_and_expiries_are_counted_in_their_class() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let config = KeyspaceConfig {
        memory_limit: 4 << 20,
        eviction: EvictionPolicy::Clock,
        ..KeyspaceConfig::default()
    };
    let ks = Keyspace::new(config, clock.clone());
    let mut store = ks.store();
    // 1000-byte values: one class. Fetched ones are not "unfetched".
    let value = vec![b'x'; 1000];
    for i in 0..20_000u32 {
        store
            .set(format!("k{i}").as_bytes(), item(&value, None))
            .unwrap();
    }
    let class = class_of(1000 + 6 + 7);
    let removed = ks.class_removals(class);
    assert!(removed.evicted > 10_000, "{removed:?}");
    assert_eq!(removed.evicted, ks.stats().evictions);
    assert_eq!(removed.evicted_unfetched, removed.evicted);
    // Expiries: small items, reclaimed in the background.
    store.flush().unwrap();
    for i in 0..100u32 {
        store
            .set(format!("e{i}").as_bytes(), item(b"tiny", Some(1_000_500)))
            .unwrap();
    }
    store.get(b"e1", |_| ());
    clock.advance_ms(1_000);
    for _ in 0..5 {
        ks.run_maintenance();
    }
    let small = ks.class_removals(class_of(4 + 2 + 7 + 5));
    assert_eq!(small.reclaimed, 100, "{small:?}");
    assert_eq!(small.expired_unfetched, 99);
}
