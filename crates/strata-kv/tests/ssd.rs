//! The SSD tier (`data = ssd`) against a model: random sets, deletes,
//! appends, expiry changes and flushes, defragmentation under way, and
//! restarts after clean shutdowns and power cuts (only synced bytes kept,
//! or torn unsynced writes). After a power cut every key holds a version it
//! had at or after the last sync: nothing synced is lost, nothing deleted
//! before the sync comes back. Values far larger than the DRAM record
//! cache are read back exactly.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_device::MemBlockDevice;
use strata_kv::fetch::Attempt;
use strata_kv::{
    IndexTier, Keyspace, KeyspaceConfig, KvError, ManualClock, Mutation, SsdSettings, Store,
};

use crate::common;

use common::*;

fn open(device: &MemBlockDevice, cache: u64) -> Arc<Keyspace> {
    let config = KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (ks, _) = Keyspace::open_ssd(
        config,
        clock,
        IndexTier::Dram,
        None,
        Arc::new(device.clone()),
        ssd_config(cache),
        settings(),
    )
    .unwrap();
    ks
}

/// After a power cut: each key holds one of its versions since the sync.
fn check_after_cut(ks: &Keyspace, history: &History) {
    let mut store = ks.store();
    for i in 0..KEYS {
        let k = key(i);
        let got = store.get(&k, |item| item.value.to_vec());
        let allowed = history.get(&k).cloned().unwrap_or_else(|| vec![None]);
        assert!(
            allowed.contains(&got),
            "key {i}: {got:?} is not a version since the sync"
        );
    }
}

fn run(seed: u64, torn: bool) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut device = MemBlockDevice::new(160 * BLOCK);
    let mut ks = open(&device, 128 * 1024);
    let mut history = History::new();
    for round in 0..6 {
        changes_then_sync(&ks, &mut history, &mut rng);
        // Changes after the sync, then a restart.
        for _ in 0..400 {
            step(&ks, &mut history, &mut rng);
        }
        let clean = round % 3 == 0;
        if clean {
            ks.sync_ssd();
            synced(&mut history);
        }
        let image = match (clean, torn) {
            (true, _) => device.crash(),
            (false, false) => device.crash(),
            (false, true) => device.crash_torn(seed * 31 + round),
        };
        drop(ks);
        device = image;
        ks = open(&device, 128 * 1024);
        if clean {
            check(&ks, &history);
        } else {
            check_after_cut(&ks, &history);
            take_served(&ks, &mut history);
        }
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
    for seed in 10..13 {
        run(seed, true);
    }
}

#[test]
fn data_ten_times_the_cache_reads_back_and_defragments() {
    let device = MemBlockDevice::new(400 * BLOCK);
    let ks = open(&device, 64 * 1024);
    let mut store = ks.store();
    let value = |i: u32| vec![(i % 251) as u8; 500 + (i % 7) as usize];
    // 3,000 items of ~500 bytes: 1.5 MB, over 20x the 64 KiB cache.
    for i in 0..3_000 {
        store.set(&key(i), item(&value(i))).unwrap();
    }
    for round in 0..4 {
        // Overwrite half, so blocks fall under the threshold.
        for i in (round % 2..3_000).step_by(2) {
            store.set(&key(i), item(&value(i))).unwrap();
        }
        ks.run_maintenance();
    }
    let moved = ks.ssd().unwrap().stats().defrag.entries_moved;
    assert!(moved > 0, "the defragmenter moved nothing");
    for i in 0..3_000 {
        assert_eq!(store.get(&key(i), |it| it.value.to_vec()), Some(value(i)));
    }
    let stats = ks.ssd().unwrap().stats();
    assert!(stats.device_reads > 1_000, "reads came from the device");
    assert!(stats.cache.bytes <= 64 * 1024);
}

#[test]
fn a_deferring_attempt_changes_nothing_and_succeeds_after_the_fetch() {
    let device = MemBlockDevice::new(200 * BLOCK);
    let ks = open(&device, 0);
    let mut store = ks.store();
    for i in 0..2_000 {
        store.set(&key(i), item(&[b'v'; 200])).unwrap();
    }
    // key:0's block is sealed and the cache is off: not in DRAM.
    let attempt = Attempt::begin(Vec::new(), true);
    let appended = store.update(&key(0), |old| {
        let mut v = old.expect("present").value.to_vec();
        v.push(b'!');
        (Mutation::Put(owned(v)), ())
    });
    assert_eq!(appended, Err(KvError::NotResident));
    assert_eq!(store.get(&key(0), |i| i.value.len()), None);
    let outcome = attempt.finish();
    let fetch = outcome.fetch.expect("a fetch");
    assert!(outcome.error.is_none());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let fetched = runtime.block_on(fetch.run());
    let attempt = Attempt::begin(fetched, true);
    store
        .update(&key(0), |old| {
            let mut v = old.expect("present").value.to_vec();
            v.push(b'!');
            (Mutation::Put(owned(v)), ())
        })
        .unwrap();
    assert!(attempt.finish().fetch.is_none());
    // Outside an attempt, reads block.
    assert_eq!(store.get(&key(0), |i| i.value.len()), Some(201));
}

/// Sets (1,000-byte values) and deletes at random among 300 keys, `writes`
/// times, a share `deletes` of them deletes, with a maintenance pass (run
/// again at once while behind, as the thread does) every `pass_every`
/// writes if given. Every write must succeed. Returns the model.
fn churn(
    ks: &Keyspace,
    seed: u64,
    writes: u32,
    deletes: f64,
    pass_every: Option<u32>,
) -> Vec<Option<Vec<u8>>> {
    let mut store = ks.store();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut model = vec![None; 300];
    for n in 0..writes {
        let i = rng.gen_range(0..300u32);
        let written = if rng.gen_bool(deletes) {
            model[i as usize] = None;
            store.delete(&key(i)).map(drop)
        } else {
            let mut v = format!("<{n}>").into_bytes();
            v.resize(1_000, b'v');
            model[i as usize] = Some(v.clone());
            store.set(&key(i), item(&v))
        };
        if let Err(e) = written {
            panic!("write {n} refused: {e:?} ({:?})", ks.ssd().unwrap().stats());
        }
        if pass_every.is_some_and(|every| n % every == every - 1) {
            while ks.run_maintenance().ssd_behind {}
        }
    }
    model
}

fn check_model(ks: &Keyspace, model: &[Option<Vec<u8>>], when: &str) {
    let mut store = ks.store();
    for (i, want) in model.iter().enumerate() {
        let got = store.get(&key(i as u32), |it| it.value.to_vec());
        assert_eq!(&got, want, "key {i} {when}");
    }
}

#[test]
fn overwrites_filling_the_device_faster_than_steady_passes_reclaim_are_never_refused() {
    // 64 blocks of 64 KiB; 300 keys of 1,000 bytes (300 KB at most)
    // rewritten or deleted at random 20,000 times (20 MB, five devices'
    // worth), so blocks keep a few live records and tombstones and do not
    // free themselves. A pass comes every 500 writes, about 8 blocks: more
    // than a steady pass empties (4); the pressed pace and the writers'
    // own help must keep up (a loaded CI machine's writers once filled
    // the tier with dead entries).
    let device = MemBlockDevice::new(65 * BLOCK);
    let ks = open(&device, 64 * 1024);
    let model = churn(&ks, 7, 20_000, 0.2, Some(500));
    check_model(&ks, &model, "");
    let stats = ks.ssd().unwrap().stats();
    assert!(stats.defrag.entries_moved > 0, "{stats:?}");
}

#[test]
fn writers_that_outrun_maintenance_make_room_themselves() {
    // No maintenance pass at all (as when the maintenance thread gets no
    // CPU): 30,000 writes, 7.5 devices' worth, 30% deletes. Deletes leave
    // live tombstones in blocks whose records are dead, so blocks do not
    // free themselves: only writers emptying blocks before they write
    // keep the tier writable.
    let device = MemBlockDevice::new(65 * BLOCK);
    let ks = open(&device, 64 * 1024);
    let model = churn(&ks, 11, 30_000, 0.3, None);
    check_model(&ks, &model, "");
    let stats = ks.ssd().unwrap().stats();
    assert!(stats.defrag.blocks_freed > 64, "{stats:?}");
    // What survives a restart is what was written.
    ks.sync_ssd();
    drop(ks);
    let ks = open(&device, 64 * 1024);
    check_model(&ks, &model, "after a restart");
}

#[test]
fn a_full_tier_refuses_writes_but_deletes_and_then_writes_work_again() {
    // 24 blocks of 64 KiB, two of them in reserve.
    let device = MemBlockDevice::new(24 * BLOCK);
    let ks = open(&device, 64 * 1024);
    let mut store = ks.store();
    let value = vec![b'x'; 4_000];
    let mut stored = 0u32;
    let full = loop {
        match store.set(&key(stored), item(&value)) {
            Ok(()) => stored += 1,
            Err(e) => break e,
        }
        assert!(stored < 10_000, "never refused");
    };
    assert_eq!(full, KvError::StorageFull);
    assert!(stored > 200, "refused too early: {stored}");
    // Deleting works on a full tier (tombstones may use the reserve).
    for i in 0..stored / 2 {
        assert_eq!(store.delete(&key(i)).unwrap(), strata_kv::Deleted::Removed);
    }
    // The defragmenter empties the mostly dead blocks; writes resume.
    for _ in 0..20 {
        ks.run_maintenance();
    }
    ks.sync_ssd();
    ks.run_maintenance();
    for i in 0..stored / 4 {
        store.set(&key(i), item(&value)).unwrap();
    }
    for i in 0..stored {
        let want = (i < stored / 4 || i >= stored / 2).then(|| value.clone());
        assert_eq!(store.get(&key(i), |it| it.value.to_vec()), want, "key {i}");
    }
}

#[test]
fn with_inline_reads_an_attempt_never_defers() {
    let device = MemBlockDevice::new(200 * BLOCK);
    let config = KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let settings = SsdSettings {
        read_path: strata_kv::fetch::ReadPath::Inline,
        ..settings()
    };
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (ks, _) = Keyspace::open_ssd(
        config,
        clock,
        IndexTier::Dram,
        None,
        Arc::new(device.clone()),
        ssd_config(0),
        settings,
    )
    .unwrap();
    let mut store = ks.store();
    for i in 0..2_000 {
        store.set(&key(i), item(&[b'v'; 200])).unwrap();
    }
    let reads = ks.ssd().unwrap().stats().device_reads;
    let attempt = Attempt::begin(Vec::new(), true);
    assert_eq!(store.get(&key(0), |i| i.value.len()), Some(200));
    let outcome = attempt.finish();
    assert!(outcome.fetch.is_none() && outcome.error.is_none());
    assert_eq!(ks.ssd().unwrap().stats().device_reads, reads + 1);
}
