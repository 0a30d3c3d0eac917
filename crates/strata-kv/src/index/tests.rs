//! Unit tests of the index: insert, find, remove with growth, accessed bits,
//! scan positions.

use std::collections::HashMap;

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
