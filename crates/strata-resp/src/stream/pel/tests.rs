//! Tests of the pending entries' tree: random changes against a map, the
//! tree stored, read back and placed again as the entry nodes before it
//! grow and shrink.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_kv::chunk::{Ring, RING};
use strata_kv::{ChunkSource, Current, KvError};

use super::node::{Key, Node};
use super::{Pels, Pending};
use crate::stream::id::StreamId;

/// Chunks in a map (a stream's, in a test).
#[derive(Default)]
pub struct Chunks(pub RefCell<HashMap<u32, Vec<u8>>>);

impl ChunkSource for Chunks {
    fn current(&self) -> Result<Option<Current>, KvError> {
        Ok(None)
    }
    fn chunk(&self, n: u32) -> Result<Option<Vec<u8>>, KvError> {
        Ok(self.0.borrow().get(&n).cloned())
    }
}

fn key(group: u32, ms: u64) -> Key {
    Key::new(group, StreamId::new(ms, 0))
}

fn pending(n: u64) -> Pending {
    Pending {
        consumer: (n % 5) as u32,
        delivery_time: n,
        delivery_count: n % 3,
    }
}

type Model = BTreeMap<Key, Pending>;

fn check(pels: &mut Pels<'_>, model: &Model) {
    let all = pels.scan(key(0, 0), None, usize::MAX).unwrap();
    let want: Vec<(Key, Pending)> = model.iter().map(|(k, v)| (*k, *v)).collect();
    assert_eq!(all, want);
    for probe in [key(0, 0), key(1, 500), key(2, 999), key(3, 0)] {
        let first = model.range(probe..).next().map(|(k, v)| (*k, *v));
        assert_eq!(pels.first_from(probe).unwrap(), first, "{probe:?}");
        let last = model.range(..=probe).next_back().map(|(k, v)| (*k, *v));
        assert_eq!(pels.last_upto(probe).unwrap(), last, "{probe:?}");
    }
}

fn change(rng: &mut SmallRng, pels: &mut Pels<'_>, model: &mut Model, n: usize) {
    for _ in 0..n {
        let k = key(rng.gen_range(0..3), rng.gen_range(0..1000));
        match rng.gen_range(0..10) {
            0..=4 => {
                let v = pending(rng.gen());
                assert_eq!(pels.insert(k, v).unwrap(), model.insert(k, v));
            }
            5..=8 => assert_eq!(pels.remove(k).unwrap(), model.remove(&k)),
            _ => assert_eq!(pels.get(k).unwrap(), model.get(&k).copied()),
        }
    }
}

#[test]
fn random_changes_match_a_map_in_hand_and_stored() {
    let mut rng = SmallRng::seed_from_u64(7);
    let chunks = Chunks::default();
    let mut model = Model::new();
    let (mut start, mut root, mut count) = (RING - 40, None, 0);
    for round in 0..60 {
        let stored = Ring {
            first: start,
            count,
        };
        let mut pels = Pels::stored(&chunks, stored, root).unwrap();
        let n = if round % 10 == 9 {
            3000
        } else {
            rng.gen_range(0..200)
        };
        change(&mut rng, &mut pels, &mut model, n);
        check(&mut pels, &model);
        // The entry nodes before the tree grow or shrink by a few: what
        // they take is theirs now, what they free is no one's.
        let shift: i64 = rng.gen_range(-3..=3);
        let next = (i64::from(start) + shift).rem_euclid(i64::from(RING)) as u32;
        let written = pels.place(next).unwrap();
        let target = Ring {
            first: next,
            count: pels.count(),
        };
        for i in 0..shift.max(0) as u32 {
            chunks
                .0
                .borrow_mut()
                .insert((start + i) % RING, b"entries".to_vec());
        }
        for (n, bytes) in written {
            assert!(target.holds(n), "{n} outside {target:?}");
            chunks.0.borrow_mut().insert(n, bytes);
        }
        chunks.0.borrow_mut().retain(|n, _| target.holds(*n));
        for n in target.numbers() {
            let bytes = chunks
                .0
                .borrow()
                .get(&n)
                .cloned()
                .expect("every node stored");
            assert!(Node::decode(&bytes).is_some(), "chunk {n} is a node");
        }
        (start, root, count) = (next, pels.root(), pels.count());
        let mut back = Pels::stored(&chunks, target, root).unwrap();
        check(&mut back, &model);
    }
}

#[test]
fn deliveries_and_acks_write_a_leaf_or_two() {
    let chunks = Chunks::default();
    let mut pels = Pels::in_hand();
    for ms in 0..20_000 {
        pels.insert(key(0, ms), pending(ms)).unwrap();
    }
    let written = pels.place(10).unwrap();
    assert!(written.len() > 300);
    let count = pels.count();
    chunks.0.borrow_mut().extend(written);
    let stored = Ring { first: 10, count };
    let mut pels = Pels::stored(&chunks, stored, pels.root()).unwrap();
    assert_eq!(pels.remove(key(0, 10_000)).unwrap(), Some(pending(10_000)));
    for ms in 20_000..20_010 {
        pels.insert(key(0, ms), pending(ms)).unwrap();
    }
    let written = pels.place(10).unwrap();
    assert!(written.len() <= 4, "{} nodes written", written.len());
    assert!(written.iter().map(|w| w.1.len()).sum::<usize>() < 12 << 10);
}

#[test]
fn thinned_leaves_merge_with_their_neighbours() {
    let mut pels = Pels::in_hand();
    let mut model = Model::new();
    for ms in 0..6400 {
        pels.insert(key(0, ms), pending(ms)).unwrap();
        model.insert(key(0, ms), pending(ms));
    }
    let full = pels.count();
    for ms in (0..6400).filter(|ms| ms % 64 != 0) {
        assert_eq!(pels.remove(key(0, ms)).unwrap(), model.remove(&key(0, ms)));
    }
    assert!(
        pels.count() * 8 < full,
        "{} of {full} nodes left",
        pels.count()
    );
    check(&mut pels, &model);
}
