//! Unit tests of the index: insert, find, remove with growth, accessed bits,
//! scan positions.

use std::collections::HashMap;

use super::entry::MAX_LOAD_PCT;
use super::*;

fn mix(i: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes())
}

#[test]
fn insert_find_remove_with_growth() {
    let mut index = Index::new();
    let mut hash_of: HashMap<(u32, u32), u64> = HashMap::new();
    for i in 0..10_000u64 {
        let loc = Loc {
            seg: (i / 1000) as u32,
            off: (i % 1000) as u32,
        };
        let h = mix(i);
        hash_of.insert((loc.seg, loc.off), h);
        index.insert(h, loc, |l| hash_of[&(l.seg, l.off)]);
    }
    assert_eq!(index.len(), 10_000);
    assert!(index.len() * 100 <= index.capacity() * MAX_LOAD_PCT);
    for i in 0..10_000u64 {
        let loc = Loc {
            seg: (i / 1000) as u32,
            off: (i % 1000) as u32,
        };
        let slot = index.find(mix(i), |l| l == loc).expect("present");
        if i % 2 == 0 {
            index.remove(slot);
        }
    }
    for i in 0..10_000u64 {
        let loc = Loc {
            seg: (i / 1000) as u32,
            off: (i % 1000) as u32,
        };
        assert_eq!(index.find(mix(i), |l| l == loc).is_some(), i % 2 == 1);
    }
    assert_eq!(index.len(), 5_000);
}

#[test]
fn accessed_bit_survives_relocation() {
    let mut index = Index::new();
    let h = mix(7);
    index.insert(h, Loc { seg: 1, off: 2 }, |_| unreachable!());
    let slot = index.find(h, |_| true).unwrap();
    index.mark_accessed(slot, 0);
    index.set_loc(slot, Loc { seg: 3, off: 4 });
    assert_eq!(index.loc(slot), Loc { seg: 3, off: 4 });
    assert!(index.take_accessed(slot));
    assert!(!index.take_accessed(slot));
}

#[test]
fn positions_and_slots_agree() {
    let index = Index::with_capacity(TableSource::Dram, 1000).unwrap();
    for slot in [0usize, 1, 499, 999] {
        let pos = index.position_of_slot(slot);
        assert_eq!(index.slot_at_position(pos), slot);
    }
    assert_eq!(index.position_of_slot(1000), 1 << 32);
}

/// `find_or_insert` against a model (a map from key to location): every
/// key found where `find` finds it, every absent key inserted once, through
/// growth and the tombstones of removals; the index counts stay exact.
#[test]
fn find_or_insert_agrees_with_a_model() {
    let mut index = Index::new();
    // Key i lives at location (i, version); the hash is the key's.
    let mut model: HashMap<u64, Loc> = HashMap::new();
    let key_of = |l: Loc| u64::from(l.seg);
    for round in 0..3u32 {
        for i in (0..6_000u64).filter(|i| i % (u64::from(round) + 2) != 0) {
            let loc = Loc {
                seg: i as u32,
                off: round,
            };
            let before = index.find(mix(i), |l| key_of(l) == i);
            let entry = index.find_or_insert(mix(i), loc, |l| key_of(l) == i, |l| mix(key_of(l)));
            match entry {
                Entry::Found(slot) => {
                    assert!(model.contains_key(&i), "key {i} found but never inserted");
                    assert_eq!(Some(slot), before);
                    index.set_loc(slot, loc);
                }
                Entry::Inserted(slot) => {
                    assert!(!model.contains_key(&i), "key {i} inserted twice");
                    assert_eq!(before, None);
                    assert_eq!(index.loc(slot), loc);
                }
            }
            model.insert(i, loc);
        }
        // Remove every fifth key: tombstones the next round's probes pass
        // and may reuse.
        for i in (0..6_000u64).filter(|i| i % 5 == u64::from(round)) {
            if model.remove(&i).is_some() {
                let slot = index.find(mix(i), |l| key_of(l) == i).expect("present");
                index.remove(slot);
            }
        }
        assert_eq!(index.len(), model.len());
    }
    for i in 0..6_000u64 {
        let found = index.find(mix(i), |l| key_of(l) == i).map(|s| index.loc(s));
        assert_eq!(found, model.get(&i).copied(), "key {i}");
    }
    // A prefetch is only a hint: any hash, any table.
    index.prefetch(u64::MAX);
    index.prefetch(0);
}

/// An insert through `find_or_insert` reuses the first tombstone its probe
/// passed, as `insert` does, so removals do not grow the table.
#[test]
fn find_or_insert_reuses_tombstones() {
    let mut index = Index::new();
    for round in 0..1_000u64 {
        let loc = Loc {
            seg: round as u32,
            off: 0,
        };
        let entry = index.find_or_insert(mix(round), loc, |_| false, |_| unreachable!());
        let Entry::Inserted(slot) = entry else {
            panic!("nothing matches, so nothing is found");
        };
        index.remove(slot);
    }
    assert_eq!(index.len(), 0);
    assert_eq!(index.capacity(), MIN_CAPACITY);
}

/// `likely_loc` names the entry a lookup compares first: the first one
/// with the hash's tag within a few slots of its home.
#[test]
fn likely_loc_is_the_first_tagged_entry_near_home() {
    let mut index = Index::new();
    let at = |i: u32| Loc { seg: 1, off: i };
    assert_eq!(index.likely_loc(mix(1)), None);
    for i in 0..100u32 {
        index.insert(mix(u64::from(i)), at(i), |l| mix(u64::from(l.off)));
    }
    // Entries placed past the few slots looked at are not named.
    let mut named = 0;
    for i in 0..100u32 {
        match index.likely_loc(mix(u64::from(i))) {
            Some(loc) => {
                assert_eq!(loc, at(i), "key {i}");
                named += 1;
            }
            None => assert!(index.find(mix(u64::from(i)), |l| l == at(i)).is_some()),
        }
    }
    assert!(named >= 90, "{named} of 100 named");
    assert_eq!(index.likely_loc(mix(1_000)), None);
    // Two entries with one hash: the earlier in the probe comes first.
    let first = index.likely_loc(mix(7));
    index.insert(mix(7), at(500), |l| mix(u64::from(l.off)));
    assert_eq!(index.likely_loc(mix(7)), first);
}
