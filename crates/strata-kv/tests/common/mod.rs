//! What the SSD tier's tests share: a model of every version a key had
//! since the last sync, random changes applied to a keyspace and to it,
//! and the checks. `large` holds what the tests of large collections
//! share.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::Rng;
use strata_kv::{Keyspace, Mutation, NewItem, SsdSettings, Store};
use strata_ssd::SsdConfig;

pub mod large;

pub const BLOCK: usize = 64 * 1024;
pub const KEYS: u32 = 400;

/// Every version a key had since the last sync, the durable one first
/// (`None`: absent).
pub type History = BTreeMap<Vec<u8>, Vec<Option<Vec<u8>>>>;

pub fn ssd_config(cache: u64) -> SsdConfig {
    SsdConfig {
        io_threads: 2,
        rebuild_threads: 2,
        dram_cache_size: cache,
        ..SsdConfig::with_block_size(BLOCK)
    }
}

pub fn settings() -> SsdSettings {
    SsdSettings {
        // Tests sync explicitly.
        flush_interval: Duration::from_secs(3600),
        defrag_threshold_pct: 50,
        ..SsdSettings::default()
    }
}

pub fn key(i: u32) -> Vec<u8> {
    format!("key:{i}").into_bytes()
}

pub fn item(value: &[u8]) -> NewItem<'_> {
    NewItem {
        value: value.into(),
        flags: 7,
        expires_at: None,
    }
}

pub fn owned(value: Vec<u8>) -> NewItem<'static> {
    NewItem {
        value: value.into(),
        flags: 7,
        expires_at: None,
    }
}

pub fn current(history: &History, key: &[u8]) -> Option<Vec<u8>> {
    history.get(key).and_then(|v| v.last().cloned()).flatten()
}

pub fn record(history: &mut History, key: Vec<u8>, value: Option<Vec<u8>>) {
    history.entry(key).or_insert_with(|| vec![None]).push(value);
}

/// One random change, applied to the keyspace and the history.
pub fn step(ks: &Keyspace, history: &mut History, rng: &mut SmallRng) {
    let k = key(rng.gen_range(0..KEYS));
    let mut store = ks.store();
    match rng.gen_range(0..100) {
        0..=54 => {
            let len = if rng.gen_ratio(1, 20) {
                rng.gen_range(2_000..20_000)
            } else {
                rng.gen_range(0..300)
            };
            let value = vec![rng.gen::<u8>(); len];
            store.set(&k, item(&value)).unwrap();
            record(history, k, Some(value));
        }
        55..=74 => {
            store.delete(&k).unwrap();
            if current(history, &k).is_some() {
                record(history, k, None);
            }
        }
        75..=89 => {
            // An append reads the old value first (from the SSD).
            let suffix = vec![b'+'; rng.gen_range(1..40)];
            let appended = store
                .update(&k, |old| match old {
                    Some(old) => {
                        let mut value = old.value.to_vec();
                        value.extend_from_slice(&suffix);
                        (Mutation::Put(owned(value.clone())), Some(value))
                    }
                    None => (Mutation::Keep, None),
                })
                .unwrap();
            if let Some(value) = appended {
                record(history, k, Some(value));
            }
        }
        _ => {
            // A touch rewrites the record with an expiry far away: a new
            // version of the key (same value) as far as crashes go.
            let touched = store
                .update(&k, |old| match old {
                    Some(old) => (
                        Mutation::SetExpiry(Some(u64::MAX / 2)),
                        Some(old.value.to_vec()),
                    ),
                    None => (Mutation::Keep, None),
                })
                .unwrap();
            if let Some(value) = touched {
                record(history, k, Some(value));
            }
        }
    }
}

pub fn check(ks: &Keyspace, history: &History) {
    let mut store = ks.store();
    for i in 0..KEYS {
        let k = key(i);
        let got = store.get(&k, |item| item.value.to_vec());
        assert_eq!(got, current(history, &k), "key {i}");
    }
}

/// Makes the history's current versions the durable ones.
pub fn synced(history: &mut History) {
    for versions in history.values_mut() {
        let last = versions.pop().flatten();
        versions.clear();
        versions.push(last);
    }
}

/// A round of random changes (maintenance every 300), checked against the
/// history, sometimes a flush, then a sync: the history's current versions
/// become the durable ones.
pub fn changes_then_sync(ks: &Keyspace, history: &mut History, rng: &mut SmallRng) {
    for i in 0..1_500 {
        step(ks, history, rng);
        if i % 300 == 0 {
            ks.run_maintenance();
        }
    }
    check(ks, history);
    if rng.gen_ratio(1, 4) {
        ks.store().flush().unwrap();
        for versions in history.values_mut() {
            versions.push(None);
        }
    }
    ks.sync_ssd();
    synced(history);
}

/// After a power cut was checked: what the restart serves is the truth
/// from here on.
pub fn take_served(ks: &Keyspace, history: &mut History) {
    let mut store = ks.store();
    for i in 0..KEYS {
        let k = key(i);
        let now = store.get(&k, |item| item.value.to_vec());
        history.insert(k, vec![now]);
    }
}
