//! Large lists (`strata_kv::large::Deque`, a ring of chunk records) through
//! the command log and checkpoints: random pushes and pops at both ends
//! (made where the end chunk is stored while they can be) and element
//! changes (one journal record per edit; the ring's first chunk moves
//! both ways, held in the head's flags word) against a model;
//! recovery from the log alone, from a checkpoint plus the log after it,
//! and after a power cut gives back exactly the model's elements in order,
//! with no orphan or missing chunk.

use crate::common;

use std::collections::{BTreeMap, VecDeque};

use common::large::{assert_chunks_whole, six_rounds};
use common::World;
use rand::rngs::SmallRng;
use rand::Rng;
use strata_kv::large::{Deque, Side};
use strata_kv::Store;
use strata_persist::Durability;

type Model = BTreeMap<Vec<u8>, VecDeque<Vec<u8>>>;

fn element(rng: &mut SmallRng) -> Vec<u8> {
    format!(
        "element:{:06}:{}",
        rng.gen_range(0..1_000_000),
        "y".repeat(rng.gen_range(0..40))
    )
    .into_bytes()
}

/// One edit of `key`: pushes and pops at random ends and changes an
/// element (the list is created when missing and deleted when it empties).
fn edit(w: &World, model: &mut Model, key: &[u8], rng: &mut SmallRng, grow: bool) {
    // A third of the edits are a queue's: a push or two and a pop or two,
    // made where the end chunks are stored (`push_end`, `pop_end`), with
    // no chunk loaded.
    let queue = rng.gen_bool(0.33);
    let (push_max, pop_max) = match (queue, grow) {
        (true, _) => (3, 3),
        (false, true) => (200, 120),
        (false, false) => (200, 260),
    };
    let pushes: Vec<(bool, Vec<u8>)> = (0..rng.gen_range(0..push_max))
        .map(|_| (rng.gen_bool(0.5), element(rng)))
        .collect();
    let pops: Vec<bool> = (0..rng.gen_range(0..pop_max))
        .map(|_| rng.gen_bool(0.5))
        .collect();
    let change = (rng.gen::<u64>(), element(rng));
    let list = model.entry(key.to_vec()).or_default();
    let mut store = w.ks.store();
    store
        .edit_large(key, |edit| {
            let mut deque = match Deque::open(edit)? {
                Some(d) => d,
                None => Deque::create(edit, None),
            };
            for (front, e) in &pushes {
                let side = if *front { Side::Front } else { Side::Back };
                deque.push_end(side, e)?;
                match front {
                    true => list.push_front(e.clone()),
                    false => list.push_back(e.clone()),
                }
            }
            for front in &pops {
                let (side, want) = match front {
                    true => (Side::Front, list.pop_front()),
                    false => (Side::Back, list.pop_back()),
                };
                assert_eq!(deque.pop_end(side)?, want);
            }
            if !list.is_empty() && !queue {
                let at = change.0 % list.len() as u64;
                assert!(deque.set(at, &change.1)?);
                list[at as usize] = change.1.clone();
            }
            deque.finish()
        })
        .unwrap()
        .unwrap();
    if list.is_empty() {
        model.remove(key);
    }
}

fn check(w: &World, model: &Model) {
    let mut store = w.ks.store();
    assert_eq!(store.len(), model.len() as u64);
    for (key, want) in model {
        let got = store.read_large(key, |read| {
            let mut deque = Deque::open(read).unwrap().expect("a large list");
            let n = deque.len();
            deque.range(0, n - 1).unwrap()
        });
        let want: Vec<Vec<u8>> = want.iter().cloned().collect();
        assert_eq!(got, want, "{}", String::from_utf8_lossy(key));
    }
    assert_chunks_whole(w);
}

#[test]
fn large_lists_survive_log_replay_checkpoints_and_power_cuts() {
    let mut w = World::new(Durability::Sync);
    let mut model = Model::new();
    // One list comes and goes; the others grow to many chunks.
    let edit_slot = |w: &World, model: &mut Model, key: &[u8], slot, rng: &mut SmallRng| {
        edit(w, model, key, rng, slot != 4)
    };
    six_rounds(&mut w, &mut model, "list", edit_slot, check);
}
