//! The record cache as the store's share of a shared DRAM cache
//! (`SsdConfig::shared_cache`): its counters are the shared cache's
//! `kv_records` user's, the shared budget holds with another user's
//! records beside it, and a store opened after another on the same shared
//! cache never reads the earlier store's records.

use crate::common;

use common::{config, decode, mem_device, open_empty, payload, PUT};
use strata_cache::{SharedCache, UserCache};
use strata_ssd::{SsdConfig, RECORD_CACHE_USER};

fn shared_config(shared: &SharedCache) -> SsdConfig {
    SsdConfig {
        shared_cache: Some(shared.clone()),
        ..config()
    }
}

#[test]
fn records_are_counted_on_their_user_within_the_shared_budget() {
    let shared = SharedCache::new(2 << 20);
    let blocks: UserCache<(u64, u64, u64)> = UserCache::shared(&shared, "search_blocks").unwrap();
    for n in 0..16 {
        blocks.insert((1, 1, n), (), vec![5u8; 64 << 10].into());
    }
    let device = mem_device(128);
    let store = open_empty(&device, shared_config(&shared));
    let mut locs = Vec::new();
    for version in 0..1500u64 {
        let bytes = payload(version as u32, version, 3000);
        locs.push((store.append(PUT, &bytes).unwrap(), version));
    }
    store.flush().unwrap();
    for (loc, version) in &locs {
        assert_eq!(decode(&store.read(*loc).unwrap()).1, *version);
    }
    // The last few again: hits.
    for (loc, version) in &locs[locs.len() - 50..] {
        assert_eq!(decode(&store.read(*loc).unwrap()).1, *version);
    }
    let records = store.stats().cache;
    assert!(records.shared && records.budget == 2 << 20, "{records:?}");
    assert!(
        records.hits > 0 && records.misses >= locs.len() as u64 - 50,
        "{records:?}"
    );
    let users = shared.users();
    assert_eq!(users[1], (RECORD_CACHE_USER.to_string(), records));
    let total = shared.stats();
    assert!(total.bytes <= total.budget, "{total:?}");
    assert_eq!(
        total.evictions,
        records.evictions + blocks.stats().evictions
    );
    assert!(
        blocks.stats().evictions > 0,
        "the records pushed blocks out"
    );
}

#[test]
fn a_store_opened_later_never_reads_an_earlier_stores_records() {
    let shared = SharedCache::new(8 << 20);
    let (first, second) = (mem_device(16), mem_device(16));
    let store = open_empty(&first, shared_config(&shared));
    let locs: Vec<_> = (0..50u64)
        .map(|v| store.append(PUT, &payload(1, v, 100)).unwrap())
        .collect();
    store.flush().unwrap();
    for loc in &locs {
        store.read(*loc).unwrap();
    }
    assert!(store.stats().cache.entries > 0);
    drop(store);
    // The same locations and block sequence numbers on another device.
    let store = open_empty(&second, shared_config(&shared));
    for (v, loc) in locs.iter().enumerate() {
        assert_eq!(store.append(PUT, &payload(2, v as u64, 100)).unwrap(), *loc);
    }
    store.flush().unwrap();
    for loc in &locs {
        assert_eq!(decode(&store.read(*loc).unwrap()).0, 2, "a stale record");
    }
}
