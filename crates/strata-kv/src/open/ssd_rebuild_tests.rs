//! The rebuild split among workers against a model and against itself
//! with one worker: random sets (some with expiries), overwrites and
//! deletes across many blocks, a flush, the defragmenter moving records
//! and tombstones, then restarts with 1, 2, 3 and 8 workers over 8 shards.
//! Every key's value, flags, expiry and CAS must match, and so must the
//! counts and the device's live bytes; after a torn power cut the
//! rebuilds must agree with each other and serve a version each key had
//! since the last sync; a damaged durable block fails them alike.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_device::MemBlockDevice;
use strata_ssd::SsdConfig;

use super::ssd_rebuild::rebuild_with;
use crate::{Keyspace, KeyspaceConfig, ManualClock, NewItem, SsdSettings, Store};

const BLOCK: usize = 64 * 1024;
const KEYS: u32 = 2_000;
const NOW: u64 = 1_000_000_000;

/// A key's value, flags and expiry.
type Version = (Vec<u8>, u32, Option<u64>);
/// The current version of every present key.
type Model = BTreeMap<Vec<u8>, Version>;

fn open(device: &MemBlockDevice, now: u64, workers: usize) -> Result<Arc<Keyspace>, String> {
    let config = KeyspaceConfig {
        shards: 8,
        ..KeyspaceConfig::default()
    };
    let ssd = SsdConfig {
        io_threads: 2,
        rebuild_threads: 3,
        dram_cache_size: 0,
        ..SsdConfig::with_block_size(BLOCK)
    };
    let settings = SsdSettings {
        flush_interval: Duration::from_secs(3600),
        ..SsdSettings::default()
    };
    let clock = Arc::new(ManualClock::new(now));
    let device = Arc::new(device.clone());
    rebuild_with(config, clock, device, ssd, settings, workers).map(|(ks, _)| ks)
}

fn key(i: u32) -> Vec<u8> {
    format!("key:{i}").into_bytes()
}

/// One random set or delete, applied to the keyspace and the model;
/// returns the key.
fn step(ks: &Keyspace, model: &mut Model, rng: &mut SmallRng) -> Vec<u8> {
    let k = key(rng.gen_range(0..KEYS));
    let mut store = ks.store();
    if rng.gen_ratio(1, 4) {
        store.delete(&k).unwrap();
        model.remove(&k);
        return k;
    }
    let len = match rng.gen_ratio(1, 30) {
        true => rng.gen_range(1_000..5_000),
        false => rng.gen_range(0..200),
    };
    let value = vec![rng.gen::<u8>(); len];
    let flags = rng.gen_range(0..4);
    let expires_at = rng
        .gen_ratio(1, 3)
        .then(|| NOW + rng.gen_range(1..2_000_000));
    let item = NewItem {
        value: value.clone().into(),
        flags,
        expires_at,
    };
    store.set(&k, item).unwrap();
    model.insert(k.clone(), (value, flags, expires_at));
    k
}

/// Everything the keyspace serves of the keys `0..KEYS`, CAS included.
fn contents(ks: &Keyspace) -> BTreeMap<Vec<u8>, (Version, u64)> {
    let mut store = ks.store();
    (0..KEYS)
        .filter_map(|i| {
            let k = key(i);
            let got = store.get(&k, |it| {
                ((it.value.to_vec(), it.flags, it.expires_at), it.cas)
            });
            got.map(|g| (k, g))
        })
        .collect()
}

/// What must agree between rebuilds besides the contents.
fn counts(ks: &Keyspace) -> [u64; 7] {
    let stats = ks.stats();
    let ssd = ks.ssd().unwrap();
    let device = ssd.stats();
    let report = ssd.rebuild_report();
    [
        stats.items,
        stats.items_with_expiry,
        device.bytes_live,
        device.blocks_sealed,
        device.rebuild.torn_blocks,
        report.items,
        report.tombstones,
    ]
}

/// Random changes with maintenance (the defragmenter moves records and
/// tombstones) and, with `flush`, a flush after a quarter of them, then a
/// sync. Maintenance runs after the flush too: the defragmenter must
/// leave the flush marker where it is (moved past the records written
/// since, it made a rebuild forget them).
fn load(ks: &Keyspace, model: &mut Model, rng: &mut SmallRng, flush: bool) {
    for i in 0..12_000 {
        step(ks, model, rng);
        if i % 1_000 == 999 {
            ks.run_maintenance();
        }
        if flush && i == 3_000 {
            ks.store().flush().unwrap();
            model.clear();
        }
    }
    ks.sync_ssd();
}

fn served_at(model: &Model, now: u64) -> BTreeMap<Vec<u8>, Version> {
    (model.iter())
        .filter(|(_, (_, _, exp))| exp.is_none_or(|e| e > now))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The first few keys on which two contents differ, for a failure.
fn differences<V: std::fmt::Debug + PartialEq>(
    a: &BTreeMap<Vec<u8>, V>,
    b: &BTreeMap<Vec<u8>, V>,
) -> String {
    let keys: std::collections::BTreeSet<&Vec<u8>> = a.keys().chain(b.keys()).collect();
    let differing: Vec<String> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            let short = |v: Option<&V>| format!("{v:?}").chars().take(120).collect::<String>();
            format!(
                "{}: {} vs {}",
                String::from_utf8_lossy(k),
                short(a.get(k)),
                short(b.get(k))
            )
        })
        .collect();
    format!(
        "{} keys differ: {:?}",
        differing.len(),
        &differing[..differing.len().min(4)]
    )
}

fn without_cas(c: &BTreeMap<Vec<u8>, (Version, u64)>) -> BTreeMap<Vec<u8>, Version> {
    c.iter().map(|(k, (v, _))| (k.clone(), v.clone())).collect()
}

#[test]
fn workers_rebuild_what_the_model_holds_and_one_worker_builds() {
    for flush in [false, true] {
        rebuild_after_load(flush);
    }
}

fn rebuild_after_load(flush: bool) {
    let device = MemBlockDevice::new(160 * BLOCK);
    let ks = open(&device, NOW, 1).unwrap();
    let mut model = Model::new();
    load(&ks, &mut model, &mut SmallRng::seed_from_u64(35), flush);
    let before = contents(&ks);
    assert_eq!(without_cas(&before), served_at(&model, NOW));
    assert!(ks.ssd().unwrap().stats().defrag.entries_moved > 0);
    drop(ks);
    let image = device.crash();
    let one = open(&image.crash(), NOW, 1).unwrap();
    let (one_contents, one_counts) = (contents(&one), counts(&one));
    assert!(
        one_contents == before,
        "one worker: {}",
        differences(&one_contents, &before)
    );
    assert!(one_counts[6] > 0, "no tombstone was kept");
    for workers in [2, 3, 8] {
        let ks = open(&image.crash(), NOW, workers).unwrap();
        assert_eq!(contents(&ks), before, "{workers} workers");
        assert_eq!(counts(&ks), one_counts, "{workers} workers");
    }
    // Later, some keys have expired: the rebuilt ones honour it.
    let later = NOW + 1_000_000;
    let ks = open(&image.crash(), later, 3).unwrap();
    assert_eq!(without_cas(&contents(&ks)), served_at(&model, later));
}

#[test]
fn after_a_torn_power_cut_workers_agree_with_one_worker() {
    let mut torn = 0;
    for seed in 0..4 {
        let device = MemBlockDevice::new(160 * BLOCK);
        let ks = open(&device, NOW, 2).unwrap();
        let mut model = Model::new();
        let rng = &mut SmallRng::seed_from_u64(seed);
        load(&ks, &mut model, rng, seed % 2 == 1);
        let synced = model.clone();
        // Unsynced changes, then the cut: each key is at its synced version
        // or one of those written since.
        let mut since: BTreeMap<Vec<u8>, Vec<Option<Version>>> = BTreeMap::new();
        for _ in 0..1_500 {
            let k = step(&ks, &mut model, rng);
            let now = model.get(&k).cloned();
            since.entry(k).or_default().push(now);
        }
        let image = device.crash_torn(seed * 7 + 1);
        drop(ks);
        let one = open(&image.crash(), NOW, 1).unwrap();
        let (one_contents, one_counts) = (contents(&one), counts(&one));
        torn += one_counts[4];
        for i in 0..KEYS {
            let k = key(i);
            let got = one_contents.get(&k).map(|(v, _)| v.clone());
            let allowed = synced.get(&k).cloned();
            assert!(
                got == allowed || since.get(&k).is_some_and(|v| v.contains(&got)),
                "key {i} serves a version it never had since the sync"
            );
        }
        for workers in [2, 3] {
            let ks = open(&image.crash(), NOW, workers).unwrap();
            assert_eq!(
                contents(&ks),
                one_contents,
                "seed {seed}, {workers} workers"
            );
            assert_eq!(counts(&ks), one_counts, "seed {seed}, {workers} workers");
        }
    }
    assert!(torn > 0, "no power cut left a torn tail to cut");
}

#[test]
fn a_damaged_durable_block_fails_every_worker_count_alike() {
    let device = MemBlockDevice::new(64 * BLOCK);
    let ks = open(&device, NOW, 2).unwrap();
    let mut store = ks.store();
    for i in 0..2_000 {
        let item = NewItem {
            value: vec![b'v'; 100].into(),
            flags: 0,
            expires_at: None,
        };
        store.set(&key(i), item).unwrap();
    }
    ks.sync_ssd();
    ks.sync_ssd();
    drop(ks);
    let image = device.crash();
    // A payload byte of the first write block's first entry.
    image.damage(BLOCK as u64 + 80, 0x40);
    let one = open(&image.crash(), NOW, 1).map(|_| ()).unwrap_err();
    assert!(one.contains("corrupt") || one.contains("checksum"), "{one}");
    for workers in [2, 3] {
        let many = open(&image.crash(), NOW, workers).map(|_| ()).unwrap_err();
        assert_eq!(many, one, "{workers} workers");
    }
}
