//! The SSD tier's defragmenter at work while other threads write and read:
//! writers own disjoint keys and keep a model of them (sets, appends,
//! deletes of values that name their key and version), a reader checks
//! that every value it sees is a whole record of the key it asked for, and
//! a maintenance thread flushes and defragments in a loop with a small
//! threshold on small blocks. Nothing is lost or mixed up: after the run,
//! and after a restart, every key holds exactly its model's value. Run
//! with the index in DRAM and in persistent memory.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_device::MemBlockDevice;
use strata_kv::{IndexTier, Keyspace, KeyspaceConfig, ManualClock, Mutation, Store};
use strata_pmem::PersistentArena;

use crate::common;

use common::{item, owned, ssd_config, BLOCK};

const WRITERS: u32 = 2;
const KEYS_PER_WRITER: u32 = 300;
const STEPS: u32 = 6_000;

fn open(
    index: IndexTier,
    arena: Option<PersistentArena>,
    device: &MemBlockDevice,
) -> Arc<Keyspace> {
    let config = KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let settings = strata_kv::SsdSettings {
        flush_interval: std::time::Duration::from_millis(1),
        defrag_threshold_pct: 60,
        ..strata_kv::SsdSettings::default()
    };
    let (ks, _) = Keyspace::open_ssd(
        config,
        Arc::new(ManualClock::new(1_000_000)),
        index,
        arena.map(Arc::new),
        Arc::new(device.clone()),
        ssd_config(64 * 1024),
        settings,
    )
    .unwrap();
    ks
}

fn key(writer: u32, n: u32) -> Vec<u8> {
    format!("w{writer}:{n}").into_bytes()
}

/// A value naming its key and version, padded to a varying length.
fn value(key: &[u8], version: u64, len: usize) -> Vec<u8> {
    let mut v = format!("{}@{version}|", String::from_utf8_lossy(key)).into_bytes();
    v.resize(len.max(v.len()), b'.');
    v
}

/// Whether `v` is made of whole values of `key` (appends concatenate them).
fn well_formed(key: &[u8], v: &[u8]) -> bool {
    let prefix = [key, b"@"].concat();
    v.starts_with(&prefix)
}

fn write(ks: &Keyspace, writer: u32) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut rng = SmallRng::seed_from_u64(u64::from(writer) + 40);
    let mut model = BTreeMap::new();
    let mut store = ks.store();
    // At least STEPS, then on until the defragmenter has moved something
    // (a loaded machine may not schedule it during the first STEPS), so
    // that it always works while writes go on; bounded in time.
    let deadline = Instant::now() + Duration::from_secs(30);
    for version in 0.. {
        if version >= u64::from(STEPS)
            && version % 100 == 0
            && (moved(ks) > 0 || Instant::now() > deadline)
        {
            break;
        }
        let k = key(writer, rng.gen_range(0..KEYS_PER_WRITER));
        match rng.gen_range(0..10) {
            0..=5 => {
                let v = value(&k, version, rng.gen_range(20..900));
                store.set(&k, item(&v)).unwrap();
                model.insert(k, v);
            }
            6..=7 => {
                store.delete(&k).unwrap();
                model.remove(&k);
            }
            _ => {
                let suffix = value(&k, version, 30);
                let appended = store
                    .update(&k, |old| match old {
                        Some(old) => {
                            let mut v = old.value.to_vec();
                            v.extend_from_slice(&suffix);
                            (Mutation::Put(owned(v.clone())), Some(v))
                        }
                        None => (Mutation::Keep, None),
                    })
                    .unwrap();
                if let Some(v) = appended {
                    model.insert(k, v);
                }
            }
        }
    }
    model
}

/// Entries the defragmenter has moved so far.
fn moved(ks: &Keyspace) -> u64 {
    ks.ssd().map_or(0, |ssd| ssd.stats().defrag.entries_moved)
}

/// Sets its flag when dropped.
struct Stop<'a>(&'a AtomicBool);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn run(index: IndexTier) {
    let device = MemBlockDevice::new(300 * BLOCK);
    let arena = || {
        (index == IndexTier::Pmem)
            .then(|| PersistentArena::simulated(8192 + 256 * (64 << 10), 64 << 10, 0x57).unwrap())
    };
    let ks = open(index, arena(), &device);
    let done = AtomicBool::new(false);
    let models: Vec<_> = std::thread::scope(|scope| {
        // Stops the reader and the maintenance loop however this ends (a
        // writer's panic included), so a failure fails instead of hanging.
        let _stop = Stop(&done);
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let ks = &ks;
                scope.spawn(move || write(ks, w))
            })
            .collect();
        scope.spawn(|| {
            let mut rng = SmallRng::seed_from_u64(9);
            let mut store = ks.store();
            while !done.load(Ordering::Relaxed) {
                let k = key(rng.gen_range(0..WRITERS), rng.gen_range(0..KEYS_PER_WRITER));
                if let Some(v) = store.get(&k, |i| i.value.to_vec()) {
                    assert!(well_formed(&k, &v), "{k:?} read {v:?}");
                }
            }
        });
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                ks.run_maintenance();
            }
        });
        writers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert!(moved(&ks) > 0, "{index:?}: the defragmenter moved nothing");
    let check = |ks: &Keyspace| {
        let mut store = ks.store();
        for (w, model) in models.iter().enumerate() {
            for n in 0..KEYS_PER_WRITER {
                let k = key(w as u32, n);
                let got = store.get(&k, |i| i.value.to_vec());
                assert_eq!(got.as_ref(), model.get(&k), "{index:?}: {k:?}");
            }
        }
    };
    check(&ks);
    // A clean restart (everything synced) finds the same.
    ks.sync_ssd();
    let image = ks.tier().map(|t| t.arena().crash().unwrap());
    drop(ks);
    let arena = image.map(|i| PersistentArena::open_simulated(i, 0x57).unwrap());
    let ks = open(index, arena, &device.crash());
    check(&ks);
}

#[test]
fn defragmentation_under_concurrent_writes_and_reads_loses_nothing() {
    run(IndexTier::Dram);
    run(IndexTier::Pmem);
}
