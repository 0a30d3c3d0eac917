//! Large sorted sets (`strata_kv::large::Sorted`: member buckets and an
//! order tree over chunk records) through the command log and
//! checkpoints: random adds, score changes and removes (one journal record
//! per edit, touching a few buckets and tree paths) against a model;
//! recovery from the log alone, from a checkpoint plus the log after it,
//! and after a power cut gives back exactly the model's members in order,
//! with no orphan or missing chunk.

use crate::common;

use std::collections::BTreeMap;

use common::large::{assert_chunks_whole, six_rounds};
use common::World;
use rand::rngs::SmallRng;
use rand::Rng;
use strata_kv::large::{compare, Sorted};
use strata_kv::Store;
use strata_persist::Durability;

type Model = BTreeMap<Vec<u8>, BTreeMap<Vec<u8>, f64>>;

fn member(i: u32) -> Vec<u8> {
    format!("member:{i:06}").into_bytes()
}

/// One edit of `key`: adds, rescores and removes random members (the set
/// is created when missing and deleted when it empties).
fn edit(w: &World, model: &mut Model, key: &[u8], rng: &mut SmallRng, span: u32) {
    let adds: Vec<(f64, Vec<u8>)> = (0..rng.gen_range(0..200))
        .map(|_| {
            (
                f64::from(rng.gen_range(0..100)),
                member(rng.gen_range(0..span)),
            )
        })
        .collect();
    let removes: Vec<Vec<u8>> = (0..rng.gen_range(0..50))
        .map(|_| member(rng.gen_range(0..span)))
        .collect();
    let z = model.entry(key.to_vec()).or_default();
    let mut store = w.ks.store();
    store
        .edit_large(key, |edit| {
            let mut sorted = match Sorted::open(edit)? {
                Some(s) => s,
                None => Sorted::create(edit, None),
            };
            for (s, m) in &adds {
                assert_eq!(sorted.put(m, *s)?, z.insert(m.clone(), *s));
            }
            for m in &removes {
                assert_eq!(sorted.remove(m)?, z.remove(m));
            }
            sorted.finish()
        })
        .unwrap()
        .unwrap();
    if z.is_empty() {
        model.remove(key);
    }
}

fn check(w: &World, model: &Model) {
    let mut store = w.ks.store();
    assert_eq!(store.len(), model.len() as u64);
    for (key, want) in model {
        let mut want: Vec<(f64, Vec<u8>)> = want.iter().map(|(m, s)| (*s, m.clone())).collect();
        want.sort_by(|a, b| compare((a.0, &a.1), (b.0, &b.1)));
        let got = store.read_large(key, |read| {
            let mut z = Sorted::open(read).unwrap().expect("a large sorted set");
            z.range(0, z.len()).unwrap()
        });
        assert_eq!(got, want, "{}", String::from_utf8_lossy(key));
    }
    assert_chunks_whole(w);
}

#[test]
fn large_sorted_sets_survive_log_replay_checkpoints_and_power_cuts() {
    let mut w = World::new(Durability::Sync);
    let mut model = Model::new();
    let edit_slot = |w: &World, model: &mut Model, key: &[u8], slot, rng: &mut SmallRng| {
        // One small set comes and goes; the others grow to many chunks.
        let span = if slot == 4 { 40 } else { 20_000 };
        edit(w, model, key, rng, span);
    };
    six_rounds(&mut w, &mut model, "zset", edit_slot, check);
}
