//! Unit tests of the access words: they follow their entry through table
//! growth and tombstone purges, a reused slot starts afresh, and the memory
//! they cost per item.

use std::collections::HashMap;

use super::*;

fn mix(i: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes())
}

fn loc_of(i: u64) -> Loc {
    Loc {
        seg: (i / 1000) as u32,
        off: (i % 1000) as u32,
    }
}

/// An index of `n` items whose hashes are `mix(i)`, and the map to rehash.
fn filled(n: u64) -> (Index, HashMap<(u32, u32), u64>) {
    let mut index = Index::new();
    let mut hash_of = HashMap::new();
    for i in 0..n {
        hash_of.insert((loc_of(i).seg, loc_of(i).off), mix(i));
        index.insert(mix(i), loc_of(i), |l| hash_of[&(l.seg, l.off)]);
    }
    (index, hash_of)
}

fn slot_of(index: &Index, i: u64) -> usize {
    index.find(mix(i), |l| l == loc_of(i)).expect("present")
}

#[test]
fn words_follow_entries_through_growth_and_deletes() {
    let (mut index, mut hash_of) = filled(1_000);
    // Item i: hit at second i when i % 3 == 0, written at second i otherwise.
    for i in 0..1_000u64 {
        let slot = slot_of(&index, i);
        match i % 3 {
            0 => index.mark_accessed(slot, i as u32),
            _ => index.reset_access(slot, i as u32),
        }
    }
    // Delete a third (tombstones), then grow well past several rebuilds.
    for i in (0..1_000u64).filter(|i| i % 3 == 1) {
        let slot = slot_of(&index, i);
        index.remove(slot);
    }
    let before = index.capacity();
    for i in 1_000..20_000u64 {
        hash_of.insert((loc_of(i).seg, loc_of(i).off), mix(i));
        index.insert(mix(i), loc_of(i), |l| hash_of[&(l.seg, l.off)]);
    }
    assert!(index.capacity() > before * 4, "the table grew");
    let now = 30_000;
    for i in (0..1_000u64).filter(|i| i % 3 != 1) {
        let access = index.access(slot_of(&index, i), now);
        assert_eq!(access.fetched, i % 3 == 0, "item {i}");
        assert_eq!(access.idle_secs, u64::from(now) - i, "item {i}");
    }
    // Items inserted since read "not fetched, accessed at start".
    let access = index.access(slot_of(&index, 5_000), now);
    assert_eq!(
        access,
        Access {
            fetched: false,
            idle_secs: u64::from(now)
        }
    );
}

#[test]
fn a_reused_slot_starts_afresh() {
    let mut index = Index::new();
    let h = mix(1);
    let slot = index.insert(h, loc_of(1), |_| unreachable!());
    index.mark_accessed(slot, 7);
    assert!(index.access(slot, 9).fetched);
    // Keep the next slot busy so that the removal leaves a tombstone,
    // which the next insert with the same home reuses.
    index.insert(h, loc_of(2), |_| unreachable!());
    index.remove(slot);
    let again = index.insert(h, loc_of(3), |_| unreachable!());
    assert_eq!(again, slot, "the tombstone is reused");
    assert_eq!(
        index.access(again, 9),
        Access {
            fetched: false,
            idle_secs: 9
        }
    );
}

#[test]
fn relocation_and_clear() {
    let mut index = Index::new();
    let slot = index.insert(mix(3), loc_of(3), |_| unreachable!());
    index.mark_accessed(slot, 4);
    index.set_loc(slot, loc_of(4));
    assert_eq!(index.access(slot, 10).idle_secs, 6);
    assert!(index.access(slot, 10).fetched);
    let word = index.access_word(slot);
    index.reset_access(slot, 10);
    assert!(!index.access(slot, 10).fetched);
    index.set_access_word(slot, word);
    assert!(index.access(slot, 10).fetched);
    index.clear();
    let slot = index.insert(mix(3), loc_of(3), |_| unreachable!());
    assert!(!index.access(slot, 10).fetched);
    // A clock stepping back reads as idle 0, never wraps.
    index.mark_accessed(slot, 20);
    assert_eq!(index.access(slot, 10).idle_secs, 0);
}

/// The memory figures quoted in the module doc: index bytes per item with
/// and without the access words.
#[test]
fn bytes_per_item() {
    for n in [10_000u64, 100_000, 150_000] {
        let (index, _) = filled(n);
        let with = index.bytes() as f64 / n as f64;
        let without = (index.capacity() * 8) as f64 / n as f64;
        println!("{n} items: {without:.1} bytes/item of slots, {with:.1} with access words");
        assert_eq!(index.bytes(), index.capacity() * super::SLOT_BYTES);
        assert!(with - without <= 4.0 * 100.0 / 40.0);
    }
}
