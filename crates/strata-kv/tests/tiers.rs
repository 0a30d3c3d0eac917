//! Placements in persistent memory, checked against a model across power
//! cuts: every acknowledged change survives a restart (index adopted or
//! rebuilt from the records), a change cut off mid-way is all or nothing,
//! deleted and flushed items never come back, CAS versions never repeat.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_kv::{
    DataTier, IndexTier, Keyspace, KeyspaceConfig, ManualClock, NewItem, Placement, Store,
};
use strata_pmem::{PersistentArena, SimulatedPmem};

const CHUNK: u64 = 64 << 10;
const KIND: u64 = 0x57_4B56;
const KEYS: u32 = 300;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn placement(index: IndexTier, data: DataTier) -> Placement {
    Placement { index, data }
}

fn config() -> KeyspaceConfig {
    KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    }
}

fn open(arena: PersistentArena, placement: Placement) -> (Arc<Keyspace>, strata_kv::RestartReport) {
    let clock = Arc::new(ManualClock::new(1_000_000));
    Keyspace::open_placed(config(), clock, placement, Some(Arc::new(arena))).unwrap()
}

fn reopen(image: SimulatedPmem, placement: Placement) -> (Arc<Keyspace>, strata_kv::RestartReport) {
    open(
        PersistentArena::open_simulated(image, KIND).unwrap(),
        placement,
    )
}

fn key(i: u32) -> Vec<u8> {
    format!("key:{i}").into_bytes()
}

fn value(rng: &mut SmallRng) -> Vec<u8> {
    let len = if rng.gen_ratio(1, 30) {
        rng.gen_range(5_000..20_000)
    } else {
        rng.gen_range(0..200)
    };
    let fill: u8 = rng.gen();
    vec![fill; len]
}

/// One random change, applied to the keyspace and (once acknowledged) the model.
fn step(ks: &Keyspace, model: &mut Model, rng: &mut SmallRng) {
    let mut store = ks.store();
    let k = key(rng.gen_range(0..KEYS));
    match rng.gen_range(0..100) {
        0 => {
            store.flush().unwrap();
            model.clear();
        }
        1..=25 => {
            store.delete(&k).unwrap();
            model.remove(&k);
        }
        _ => {
            let v = value(rng);
            let item = NewItem {
                value: v.clone().into(),
                flags: 0,
                expires_at: None,
            };
            store.set(&k, item).unwrap();
            model.insert(k, v);
        }
    }
}

fn contents(ks: &Keyspace) -> Model {
    let mut store = ks.store();
    (0..KEYS)
        .filter_map(|i| store.get(&key(i), |item| (key(i), item.value.to_vec())))
        .collect()
}

fn max_cas(ks: &Keyspace) -> u64 {
    let mut store = ks.store();
    (0..KEYS)
        .filter_map(|i| store.peek(&key(i), |item| item.cas))
        .max()
        .unwrap_or(0)
}

fn persistent_placements() -> [Placement; 2] {
    [
        placement(IndexTier::Pmem, DataTier::Pmem),
        placement(IndexTier::Dram, DataTier::Pmem),
    ]
}

#[test]
fn every_acknowledged_change_survives_power_cuts() {
    for placement in persistent_placements() {
        let mut rng = SmallRng::seed_from_u64(7);
        let arena = PersistentArena::simulated(8192 + 256 * CHUNK, CHUNK, KIND).unwrap();
        let (mut ks, report) = open(arena, placement);
        assert!(!report.restarted);
        let mut model = Model::new();
        for round in 0..12 {
            for _ in 0..150 {
                step(&ks, &mut model, &mut rng);
            }
            let arena = ks.tier().expect("placed in pmem").arena().clone();
            let image = if round % 2 == 0 {
                arena.crash().unwrap()
            } else {
                arena.crash_torn(round).unwrap()
            };
            let cas_before = max_cas(&ks);
            drop(ks);
            drop(arena);
            let (next, report) = reopen(image, placement);
            ks = next;
            assert!(report.restarted, "{placement}");
            assert_eq!(contents(&ks), model, "{placement}, round {round}");
            assert_eq!(report.items, model.len() as u64, "{placement}");
            if round % 3 == 1 {
                // Recounts adopted segments, compacts, reclaims.
                ks.run_maintenance();
            }
            // Versions keep rising across the restart.
            let k = key(0);
            ks.store()
                .set(
                    &k,
                    NewItem {
                        value: b"x".as_slice().into(),
                        flags: 0,
                        expires_at: None,
                    },
                )
                .unwrap();
            model.insert(k.clone(), b"x".to_vec());
            assert!(
                ks.store().peek(&k, |i| i.cas).unwrap() > cas_before,
                "{placement}"
            );
        }
    }
}

#[test]
fn a_change_cut_off_by_a_power_failure_is_all_or_nothing() {
    for placement in persistent_placements() {
        let mut rng = SmallRng::seed_from_u64(11);
        let arena = PersistentArena::simulated(8192 + 256 * CHUNK, CHUNK, KIND).unwrap();
        let (mut ks, _) = open(arena, placement);
        let mut model = Model::new();
        for _ in 0..200 {
            step(&ks, &mut model, &mut rng);
        }
        for cut in 0..40u64 {
            let before = model.clone();
            let arena = ks.tier().unwrap().arena().clone();
            arena.simulation().unwrap().cut_power_after(cut % 6);
            step(&ks, &mut model, &mut rng);
            let image = arena.crash_torn(cut).unwrap();
            drop(ks);
            drop(arena);
            let (next, _) = reopen(image, placement);
            ks = next;
            let found = contents(&ks);
            assert!(
                found == before || found == model,
                "{placement}, cut {cut}: a state that is neither before nor after the change"
            );
            model = found;
        }
    }
}

#[test]
fn an_index_in_pmem_over_dram_records_starts_empty() {
    let placement = placement(IndexTier::Pmem, DataTier::Dram);
    let arena = PersistentArena::simulated(8192 + 64 * CHUNK, CHUNK, KIND).unwrap();
    let (ks, _) = open(arena, placement);
    let mut rng = SmallRng::seed_from_u64(3);
    let mut model = Model::new();
    for _ in 0..300 {
        step(&ks, &mut model, &mut rng);
    }
    assert_eq!(contents(&ks), model);
    let image = ks.tier().unwrap().arena().crash().unwrap();
    drop(ks);
    let (ks, report) = reopen(image, placement);
    assert_eq!(report.items, 0);
    assert!(contents(&ks).is_empty(), "the records were in DRAM");
    ks.store()
        .set(
            b"k",
            NewItem {
                value: b"v".as_slice().into(),
                flags: 0,
                expires_at: None,
            },
        )
        .unwrap();
    assert_eq!(contents(&ks).len(), 0, "key outside the model's names");
    assert!(ks.store().get(b"k", |i| i.value.to_vec()).is_some());
}

#[test]
fn a_full_arena_refuses_writes_and_never_panics() {
    let placement = placement(IndexTier::Pmem, DataTier::Pmem);
    let arena = PersistentArena::simulated(8192 + 12 * CHUNK, CHUNK, KIND).unwrap();
    let (ks, _) = open(arena, placement);
    let mut refused = 0;
    for i in 0..2_000u32 {
        let item = NewItem {
            value: vec![1u8; 1000].into(),
            flags: 0,
            expires_at: None,
        };
        match ks.store().set(&key(i), item) {
            Ok(()) => {}
            Err(strata_kv::KvError::OutOfMemory) => refused += 1,
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert!(refused > 0, "12 chunks cannot hold 2 MB");
}

#[test]
fn a_different_placement_is_refused() {
    let arena = PersistentArena::simulated(8192 + 64 * CHUNK, CHUNK, KIND).unwrap();
    let (ks, _) = open(arena, placement(IndexTier::Pmem, DataTier::Pmem));
    let image = ks.tier().unwrap().arena().crash().unwrap();
    drop(ks);
    let clock = Arc::new(ManualClock::new(0));
    let other = placement(IndexTier::Dram, DataTier::Pmem);
    let arena = Arc::new(PersistentArena::open_simulated(image, KIND).unwrap());
    let err = Keyspace::open_placed(config(), clock, other, Some(arena)).unwrap_err();
    assert!(err.contains("placement"), "{err}");
}
