//! `index = pmem`, `data = ssd` against a model: random sets, deletes,
//! appends, touches and flushes with the defragmenter at work, then
//! restarts after clean shutdowns and after power cuts of both the
//! persistent arena and the SSD (torn or not). The index and stubs are
//! adopted as found, so:
//! - after a clean shutdown every key holds exactly its last value;
//! - after a power cut, a key not written since the last SSD sync holds
//!   its value (the defragmenter's moves included); a key written since
//!   holds a version it had since the sync or, if its newest record never
//!   reached the device, is absent; a deleted key never comes back.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use strata_device::MemBlockDevice;
use strata_kv::{IndexTier, Keyspace, KeyspaceConfig, ManualClock, RestartReport, Store};
use strata_pmem::PersistentArena;

mod common;

use common::*;

const CHUNK: u64 = 64 << 10;
const KIND: u64 = 0x57_4B56;

fn open(
    arena: PersistentArena,
    device: &MemBlockDevice,
    index: IndexTier,
) -> Result<(Arc<Keyspace>, RestartReport), String> {
    let config = KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let clock = Arc::new(ManualClock::new(1_000_000));
    Keyspace::open_ssd(
        config,
        clock,
        index,
        Some(Arc::new(arena)),
        Arc::new(device.clone()),
        ssd_config(128 * 1024),
        settings(),
    )
}

fn new_arena() -> PersistentArena {
    PersistentArena::simulated(8192 + 256 * CHUNK, CHUNK, KIND).unwrap()
}

/// After a power cut: unchanged keys kept, changed ones at a version they
/// had since the sync, or absent (the newest record never reached the
/// device; an older one is never served).
fn check_after_cut(ks: &Keyspace, history: &History) {
    let mut store = ks.store();
    for i in 0..KEYS {
        let k = key(i);
        let got = store.get(&k, |item| item.value.to_vec());
        let versions = history.get(&k).cloned().unwrap_or_else(|| vec![None]);
        let ok = versions.contains(&got) || (versions.len() > 1 && got.is_none());
        assert!(ok, "key {i}: {got:?}, history {versions:?}");
    }
}

/// Crashes both devices (torn or not) and reopens.
fn cut_and_reopen(
    ks: Arc<Keyspace>,
    device: &mut MemBlockDevice,
    torn: Option<u64>,
) -> (Arc<Keyspace>, RestartReport) {
    let arena = ks.tier().expect("index in pmem").arena().clone();
    let (image, ssd_image) = match torn {
        Some(seed) => (arena.crash_torn(seed).unwrap(), device.crash_torn(seed)),
        None => (arena.crash().unwrap(), device.crash()),
    };
    drop(ks);
    drop(arena);
    *device = ssd_image;
    let arena = PersistentArena::open_simulated(image, KIND).unwrap();
    open(arena, device, IndexTier::Pmem).unwrap()
}

fn run(seed: u64, torn: bool) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut device = MemBlockDevice::new(160 * BLOCK);
    let (mut ks, report) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    assert!(!report.restarted);
    let mut history = History::new();
    for round in 0..6u64 {
        changes_then_sync(&ks, &mut history, &mut rng);
        // Changes after the sync (the defragmenter's moves included), then
        // a restart.
        for i in 0..400 {
            step(&ks, &mut history, &mut rng);
            if i == 200 {
                ks.run_maintenance();
            }
        }
        let clean = round % 3 == 0;
        if clean {
            ks.sync_ssd();
            synced(&mut history);
        }
        let tear = (torn && !clean).then_some(seed * 31 + round);
        let (next, report) = cut_and_reopen(ks, &mut device, tear);
        ks = next;
        assert_eq!(report.index, "adopted");
        if clean {
            check(&ks, &history);
        } else {
            check_after_cut(&ks, &history);
            take_served(&ks, &mut history);
        }
        // What was adopted is consistent: maintenance recounts and
        // defragments it without complaint, and it reads back.
        ks.run_maintenance();
        check(&ks, &history);
    }
}

#[test]
fn survives_clean_restarts_and_power_cuts() {
    for seed in 0..3 {
        run(seed, false);
    }
}

#[test]
fn survives_torn_power_cuts() {
    for seed in 20..23 {
        run(seed, true);
    }
}

#[test]
fn keys_moved_by_the_defragmenter_survive_a_power_cut() {
    let mut device = MemBlockDevice::new(200 * BLOCK);
    let (mut ks, _) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    let value = |i: u32| vec![(i % 251) as u8; 700];
    let mut store = ks.store();
    for i in 0..2_000 {
        store.set(&key(i), item(&value(i))).unwrap();
    }
    ks.sync_ssd();
    // Deleting every other key leaves blocks half live: the defragmenter
    // moves the rest, and no one writes them again before the cut.
    for i in (0..2_000).step_by(2) {
        store.delete(&key(i)).unwrap();
    }
    ks.sync_ssd();
    for _ in 0..10 {
        ks.run_maintenance();
    }
    let moved = ks.ssd().unwrap().stats().defrag.entries_moved;
    assert!(moved > 100, "the defragmenter moved {moved}");
    let (next, _) = cut_and_reopen(ks, &mut device, Some(5));
    ks = next;
    let mut store = ks.store();
    for i in 0..2_000 {
        let want = (i % 2 == 1).then(|| value(i));
        assert_eq!(store.get(&key(i), |it| it.value.to_vec()), want, "key {i}");
    }
}

#[test]
fn a_restart_reads_no_synced_block_and_frees_what_nothing_names() {
    let mut device = MemBlockDevice::new(200 * BLOCK);
    let (ks, _) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    let mut store = ks.store();
    for i in 0..3_000 {
        store.set(&key(i % 500), item(&[b'v'; 300])).unwrap();
    }
    // The second sync makes the first's frontier durable in the headers.
    ks.sync_ssd();
    ks.sync_ssd();
    let (ks, report) = cut_and_reopen(ks, &mut device, None);
    assert_eq!(report.items, 500);
    assert_eq!(report.records_checked, 500);
    // Only the open block (written since the frontier) is read.
    let stats = ks.ssd().unwrap().stats();
    assert!(
        stats.rebuild.entries < 400,
        "synced blocks were scanned: {stats:?}"
    );
    assert!(
        stats.blocks_sealed + stats.blocks_open < 10,
        "blocks nothing names were kept: {stats:?}"
    );
}

#[test]
fn a_flush_or_a_delete_stays_done_after_a_power_cut() {
    let mut device = MemBlockDevice::new(200 * BLOCK);
    let (ks, _) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    let mut store = ks.store();
    for i in 0..300 {
        store.set(&key(i), item(b"before")).unwrap();
    }
    ks.sync_ssd();
    // Neither needs an SSD sync: the index in pmem is the record of both.
    ks.store().delete(&key(7)).unwrap();
    let (ks, _) = cut_and_reopen(ks, &mut device, Some(1));
    assert_eq!(ks.store().get(&key(7), |i| i.value.to_vec()), None);
    assert_eq!(
        ks.store().get(&key(8), |i| i.value.to_vec()),
        Some(b"before".to_vec())
    );
    ks.store().flush().unwrap();
    let (ks, report) = cut_and_reopen(ks, &mut device, Some(2));
    assert_eq!(report.items, 0);
    assert_eq!(ks.store().get(&key(8), |i| i.value.len()), None);
}

#[test]
fn another_device_or_another_index_is_refused() {
    let device = MemBlockDevice::new(200 * BLOCK);
    let (ks, _) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    ks.store().set(&key(1), item(b"x")).unwrap();
    ks.sync_ssd();
    let arena = ks.tier().unwrap().arena().clone();
    let image = arena.crash().unwrap();
    drop(ks);
    drop(arena);
    // The same arena over a blank device: its stubs name other blocks.
    let other = MemBlockDevice::new(200 * BLOCK);
    let arena = PersistentArena::open_simulated(image, KIND).unwrap();
    let err = open(arena, &other, IndexTier::Pmem).unwrap_err();
    assert!(err.contains("another SSD device"), "{err}");
    // The device holds no tombstones: scanning it into a DRAM index would
    // bring deleted keys back, so it is refused.
    let err = open(new_arena(), &device, IndexTier::Dram).unwrap_err();
    assert!(err.contains("persistent index"), "{err}");
}
