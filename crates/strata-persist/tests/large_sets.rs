//! Large sets (`strata_kv::large::Hashed` over chunk records) through the
//! command log and checkpoints: random adds and removes (one journal
//! record per edit, touching a few buckets) against a model; recovery from
//! the log alone, from a checkpoint plus the log after it, and after a
//! power cut gives back exactly the model's members, with no orphan or
//! missing chunk.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::large::{assert_chunks_whole, six_rounds};
use common::World;
use rand::rngs::SmallRng;
use rand::Rng;
use strata_kv::large::Hashed;
use strata_kv::{Store, ValueKind};
use strata_persist::Durability;

type Model = BTreeMap<Vec<u8>, BTreeSet<Vec<u8>>>;

fn member(i: u32) -> Vec<u8> {
    format!("member:{i:06}").into_bytes()
}

/// One edit of `key`: adds and removes random members (the set is created
/// when missing and deleted when it empties).
fn edit(w: &World, model: &mut Model, key: &[u8], rng: &mut SmallRng, span: u32) {
    let adds: Vec<Vec<u8>> = (0..rng.gen_range(0..200))
        .map(|_| member(rng.gen_range(0..span)))
        .collect();
    let removes: Vec<Vec<u8>> = (0..rng.gen_range(0..50))
        .map(|_| member(rng.gen_range(0..span)))
        .collect();
    let set = model.entry(key.to_vec()).or_default();
    let mut store = w.ks.store();
    store
        .edit_large(key, |edit| {
            let mut hashed = match Hashed::open(edit, ValueKind::Set)? {
                Some(h) => h,
                None => Hashed::create(edit, ValueKind::Set, None),
            };
            for m in &adds {
                assert_eq!(hashed.put(m, b"")?, set.insert(m.clone()));
            }
            for m in &removes {
                assert_eq!(hashed.remove(m)?, set.remove(m));
            }
            hashed.finish()
        })
        .unwrap()
        .unwrap();
    if set.is_empty() {
        model.remove(key);
    }
}

fn check(w: &World, model: &Model) {
    let mut store = w.ks.store();
    assert_eq!(store.len(), model.len() as u64);
    for (key, want) in model {
        let got = store
            .edit_large(key, |edit| {
                let mut set = Hashed::open(edit, ValueKind::Set)
                    .unwrap()
                    .expect("a large set");
                let mut got = BTreeSet::new();
                for b in 0..set.buckets() {
                    got.extend(set.bucket(b).unwrap());
                }
                assert_eq!(got.len() as u64, set.len());
                got
            })
            .unwrap();
        assert_eq!(&got, want, "{}", String::from_utf8_lossy(key));
    }
    assert_chunks_whole(w);
}

#[test]
fn large_sets_survive_log_replay_checkpoints_and_power_cuts() {
    let mut w = World::new(Durability::Sync);
    let mut model = Model::new();
    let edit_slot = |w: &World, model: &mut Model, key: &[u8], slot, rng: &mut SmallRng| {
        // One small set comes and goes; the others grow to many chunks.
        let span = if slot == 4 { 40 } else { 20_000 };
        edit(w, model, key, rng, span);
    };
    six_rounds(&mut w, &mut model, "set", edit_slot, check);
}
