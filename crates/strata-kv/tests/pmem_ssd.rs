//! `index = pmem`, `data = ssd` against a model: random sets, deletes,
//! appends, touches and flushes with the defragmenter at work, then
//! restarts after clean shutdowns and after power cuts of both the
//! persistent arena and the SSD (torn or not). The index and stubs are
//! adopted as found, so:
//! - after a clean shutdown every key holds exactly its last value;
//! - after a power cut, a key not written since the last SSD sync holds
//!   its value (the defragmenter's moves included); a key written since
//!   holds a version it had since the sync (its newest record that reached
//!   the device), never vanishes if it existed at the sync, and never
//!   comes back with a version from before a delete (deletes are durable
//!   at once in this placement).

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use strata_device::MemBlockDevice;
use strata_kv::{IndexTier, Keyspace, KeyspaceConfig, ManualClock, RestartReport, Store};
use strata_pmem::PersistentArena;

use crate::common;

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
/// had since the sync, and since their last delete (the delete is durable
/// at once); absent only if that is one of those versions.
fn check_after_cut(ks: &Keyspace, history: &History) {
    let mut store = ks.store();
    for i in 0..KEYS {
        let k = key(i);
        let got = store.get(&k, |item| item.value.to_vec());
        let versions = history.get(&k).cloned().unwrap_or_else(|| vec![None]);
        let since_delete = versions.iter().rposition(Option::is_none).unwrap_or(0);
        let allowed = &versions[since_delete..];
        assert!(
            allowed.contains(&got),
            "key {i}: {:?}, allowed {allowed:?} of history {versions:?}",
            got.map(|v| v.len())
        );
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

/// Writes `n` filler keys of 1 KiB: enough to fill and seal write blocks.
fn fill(ks: &Keyspace, n: u32, tag: u8) {
    let mut store = ks.store();
    for i in 0..n {
        let k = format!("filler:{i}").into_bytes();
        store.set(&k, item(&[tag; 1024])).unwrap();
    }
}

fn get(ks: &Keyspace, k: &[u8]) -> Option<Vec<u8>> {
    ks.store().get(k, |item| item.value.to_vec())
}

/// Kills the process (every write that reached the device survives, the
/// open block's DRAM buffer does not) and reopens.
fn kill_and_reopen(
    ks: Arc<Keyspace>,
    device: &mut MemBlockDevice,
) -> (Arc<Keyspace>, RestartReport) {
    let arena = ks.tier().expect("index in pmem").arena().clone();
    let image = arena.crash().unwrap();
    let ssd_image = device.after_kill();
    drop(ks);
    drop(arena);
    *device = ssd_image;
    let arena = PersistentArena::open_simulated(image, KIND).unwrap();
    open(arena, device, IndexTier::Pmem).unwrap()
}

#[test]
fn a_key_rewritten_within_the_flush_window_keeps_its_durable_value() {
    let mut device = MemBlockDevice::new(200 * BLOCK);
    let (ks, _) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    ks.store().set(b"k", item(b"durable")).unwrap();
    ks.sync_ssd();
    ks.store().set(b"k", item(b"unflushed")).unwrap();
    assert_eq!(ks.ssd().unwrap().fallbacks_kept(), 1);
    let (ks, report) = cut_and_reopen(ks, &mut device, None);
    assert_eq!(get(&ks, b"k"), Some(b"durable".to_vec()));
    assert_eq!(report.items, 1);
    let info = ks.ssd().unwrap().info(1);
    let field = |name: &str| info.iter().find(|(k, _)| *k == name).unwrap().1.clone();
    assert_eq!(field("tier_ssd_start_keys_restored"), "1");
    assert_eq!(field("tier_ssd_start_keys_lost"), "0");
    // The keyspace is the device's one user: its share is the whole.
    assert_eq!(
        field("tier_ssd_user_kv_bytes_live"),
        field("tier_ssd_bytes_live")
    );
    assert_eq!(
        field("tier_ssd_user_kv_bytes_used"),
        field("tier_ssd_bytes_used")
    );
    // The repaired stub is an ordinary one: rewritten and synced, the
    // fallback goes at the flush.
    ks.store().set(b"k", item(b"again")).unwrap();
    ks.sync_ssd();
    assert_eq!(ks.ssd().unwrap().fallbacks_kept(), 0);
    let (ks, _) = cut_and_reopen(ks, &mut device, None);
    assert_eq!(get(&ks, b"k"), Some(b"again".to_vec()));
}

#[test]
fn the_newest_record_that_reached_the_device_wins() {
    let mut device = MemBlockDevice::new(200 * BLOCK);
    let (ks, _) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    ks.store().set(b"k", item(b"v1")).unwrap();
    ks.sync_ssd();
    // v2 goes into a block that fills and is written (sealed) without a
    // sync; v3 stays in the next block's DRAM buffer.
    ks.store().set(b"k", item(b"v2")).unwrap();
    fill(&ks, 2 * (BLOCK as u32) / 1024, b'f');
    ks.store().set(b"k", item(b"v3")).unwrap();
    let arena_image = ks.tier().unwrap().arena().crash().unwrap();
    let cut = device.crash();
    // A killed process: v2 reached the device, v3 did not.
    let (ks, _) = kill_and_reopen(ks, &mut device);
    assert_eq!(get(&ks, b"k"), Some(b"v2".to_vec()));
    drop(ks);
    // A power cut instead: only v1 was synced.
    let arena = PersistentArena::open_simulated(arena_image, KIND).unwrap();
    let (ks, _) = open(arena, &cut, IndexTier::Pmem).unwrap();
    assert_eq!(get(&ks, b"k"), Some(b"v1".to_vec()));
}

#[test]
fn a_crash_never_brings_back_a_value_from_before_a_delete() {
    let mut device = MemBlockDevice::new(200 * BLOCK);
    let (ks, _) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    for k in [&b"gone"[..], b"reborn", b"kept"] {
        ks.store().set(k, item(b"old")).unwrap();
    }
    ks.sync_ssd();
    ks.store().delete(b"gone").unwrap();
    ks.store().delete(b"reborn").unwrap();
    ks.store().set(b"reborn", item(b"new")).unwrap();
    ks.store().set(b"fresh", item(b"new")).unwrap();
    let (ks, report) = kill_and_reopen(ks, &mut device);
    assert_eq!(get(&ks, b"gone"), None);
    // Created within the window and lost: absent, never the old life.
    assert_eq!(get(&ks, b"reborn"), None);
    assert_eq!(get(&ks, b"fresh"), None);
    assert_eq!(get(&ks, b"kept"), Some(b"old".to_vec()));
    assert_eq!(report.items, 1);
}

#[test]
fn kept_fallbacks_are_released_by_the_flush_and_never_block_the_defragmenter() {
    let mut device = MemBlockDevice::new(200 * BLOCK);
    let (ks, _) = open(new_arena(), &device, IndexTier::Pmem).unwrap();
    for i in 0..400 {
        ks.store().set(&key(i), item(&[1; 300])).unwrap();
    }
    ks.sync_ssd();
    // Rewrite every key twice without a flush: one fallback per key, the
    // intermediate versions released at once.
    for round in 2..4u8 {
        for i in 0..400 {
            ks.store().set(&key(i), item(&[round; 300])).unwrap();
        }
    }
    let ssd = ks.ssd().unwrap().clone();
    assert_eq!(ssd.fallbacks_kept(), 400);
    // The defragmenter meets blocks holding only kept fallbacks: it skips
    // them without error.
    ks.run_maintenance();
    ks.sync_ssd();
    assert_eq!(ssd.fallbacks_kept(), 0);
    for _ in 0..4 {
        ks.run_maintenance();
    }
    let stats = ssd.stats();
    assert!(
        stats.bytes_live <= 400 * 400 && stats.blocks_sealed + stats.blocks_open < 8,
        "released fallbacks' blocks stayed: {stats:?}"
    );
    let (ks, _) = cut_and_reopen(ks, &mut device, None);
    for i in 0..400 {
        assert_eq!(get(&ks, &key(i)), Some(vec![3; 300]), "key {i}");
    }
}
