//! Large sorted sets (`strata_kv::large::Sorted`: member buckets plus an
//! order tree of chunk records) against a model: random score changes,
//! adds and removals grow the tree several levels and shrink it back to a
//! leaf, so bucket splits move tree nodes, freed nodes are filled by the
//! last one and roots give way; ranks, ranges and counts match the model
//! and no chunk is orphaned or missing. The set survives restarts in
//! persistent memory and on the SSD tier.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_device::MemBlockDevice;
use strata_kv::large::{compare, Sorted};
use strata_kv::{DataTier, IndexTier, Keyspace, KeyspaceConfig, Placement, Store};
use strata_pmem::{PersistentArena, SimulatedPmem};

use crate::common;

type Model = BTreeMap<Vec<u8>, f64>;

use common::large::{assert_chunks_whole, clock, crash_pmem, new_arena};

const KIND: u64 = 0x5A_5345;

fn config() -> KeyspaceConfig {
    common::large::config(2)
}

fn member(i: u32) -> Vec<u8> {
    format!("member:{i:05}:{}", "-".repeat(40)).into_bytes()
}

/// One edit: `n` random changes (adds, score changes, removals with
/// probability `remove`).
fn edit(store: &mut impl Store, model: &mut Model, rng: &mut SmallRng, n: u32, remove: f64) {
    store
        .edit_large(b"z", |edit| {
            let mut z = match Sorted::open(edit)? {
                Some(z) => z,
                None => Sorted::create(edit, None),
            };
            for _ in 0..n {
                let m = member(rng.gen_range(0..3000));
                if rng.gen_bool(remove) {
                    assert_eq!(z.remove(&m)?, model.remove(&m));
                } else {
                    let s = f64::from(rng.gen_range(-50..50)) / 4.0;
                    assert_eq!(z.put(&m, s)?, model.insert(m, s));
                }
            }
            z.finish()
        })
        .unwrap()
        .unwrap();
}

fn ordered(model: &Model) -> Vec<(f64, Vec<u8>)> {
    let mut all: Vec<(f64, Vec<u8>)> = model.iter().map(|(m, s)| (*s, m.clone())).collect();
    all.sort_by(|a, b| compare((a.0, &a.1), (b.0, &b.1)));
    all
}

fn check(ks: &Keyspace, model: &Model, rng: &mut SmallRng) {
    let all = ordered(model);
    let mut store = ks.store();
    store.read_large(b"z", |read| {
        let Some(mut z) = Sorted::open(read).unwrap() else {
            assert!(model.is_empty());
            return;
        };
        assert_eq!(z.len(), all.len() as u64);
        assert_eq!(z.range(0, z.len()).unwrap(), all);
        for _ in 0..20 {
            let i = rng.gen_range(0..all.len());
            let (s, m) = &all[i];
            assert_eq!(z.score(m).unwrap(), Some(*s));
            assert_eq!(z.rank(*s, m).unwrap(), Some(i as u64));
            let j = rng.gen_range(i..all.len() + 3);
            let want: Vec<_> = all[i..j.min(all.len())].to_vec();
            assert_eq!(z.range(i as u64, j as u64).unwrap(), want);
            let below = all.iter().filter(|e| e.0 < *s).count() as u64;
            assert_eq!(z.count_before(&|score, _| score < *s).unwrap(), below);
        }
        assert_eq!(z.rank(0.25, b"absent").unwrap(), None);
    });
    assert_chunks_whole(ks);
}

#[test]
fn sorted_sets_grow_and_shrink_against_a_model() {
    let ks = Keyspace::new(config(), clock());
    let mut rng = SmallRng::seed_from_u64(32);
    let mut model = Model::new();
    // Grow (bucket splits move tree nodes), churn, then shrink to nothing
    // (freed nodes are filled by the last, roots give way).
    for (rounds, remove) in [(30, 0.1), (30, 0.5), (60, 0.9)] {
        for _ in 0..rounds {
            edit(&mut ks.store(), &mut model, &mut rng, 200, remove);
            check(&ks, &model, &mut rng);
        }
    }
    assert!(model.len() < 600, "{}", model.len());
    let members: Vec<Vec<u8>> = model.keys().cloned().collect();
    ks.store()
        .edit_large(b"z", |edit| {
            let mut z = Sorted::open(edit)?.unwrap();
            for m in &members {
                assert!(z.remove(m)?.is_some());
            }
            z.finish()
        })
        .unwrap()
        .unwrap();
    assert_eq!(ks.store().len(), 0);
    assert_eq!(ks.chunk_census().chunks, 0);
}

fn open_pmem(image: Option<SimulatedPmem>) -> Arc<Keyspace> {
    let placement = Placement {
        index: IndexTier::Pmem,
        data: DataTier::Pmem,
    };
    let arena = match image {
        Some(image) => PersistentArena::open_simulated(image, KIND).unwrap(),
        None => new_arena(KIND),
    };
    common::large::open_pmem(config(), arena, placement)
}

#[test]
fn sorted_sets_survive_restarts_in_pmem() {
    let mut ks = open_pmem(None);
    let mut rng = SmallRng::seed_from_u64(7);
    let mut model = Model::new();
    for _ in 0..4 {
        for _ in 0..5 {
            edit(&mut ks.store(), &mut model, &mut rng, 300, 0.2);
        }
        ks = open_pmem(Some(crash_pmem(ks)));
        check(&ks, &model, &mut rng);
    }
}

fn open_ssd(device: &MemBlockDevice) -> Arc<Keyspace> {
    common::large::open_ssd(config(), device, None)
}

#[test]
fn sorted_sets_survive_restarts_on_the_ssd_tier() {
    let mut device = MemBlockDevice::new(160 * common::BLOCK);
    let mut ks = open_ssd(&device);
    let mut rng = SmallRng::seed_from_u64(9);
    let mut model = Model::new();
    for _ in 0..4 {
        for _ in 0..5 {
            edit(&mut ks.store(), &mut model, &mut rng, 300, 0.2);
        }
        ks.run_maintenance();
        ks.sync_ssd();
        device = device.crash();
        drop(ks);
        ks = open_ssd(&device);
        check(&ks, &model, &mut rng);
    }
}
