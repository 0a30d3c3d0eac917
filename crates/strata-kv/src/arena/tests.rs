//! Unit tests of the arena: appends, dedicated segments, the spare.

use super::*;

fn put(arena: &mut Arena, key: &[u8], value: &[u8]) -> Loc {
    let len = header_len(key.len(), value.len(), 1, 0, None) + key.len() + value.len();
    arena
        .append(len, None, |buf| encode(buf, key, &[value], 1, 0, None))
        .unwrap()
}

#[test]
fn appends_fill_segments_then_open_new_ones() {
    let mut arena = Arena::new(4096);
    let locs: Vec<Loc> = (0..200)
        .map(|i| put(&mut arena, format!("k{i}").as_bytes(), &[1; 50]))
        .collect();
    assert!(arena.segment_count() >= 3);
    for (i, loc) in locs.iter().enumerate() {
        assert_eq!(arena.record(*loc).key(), format!("k{i}").as_bytes());
    }
    let first = arena.oldest().unwrap();
    assert_eq!(
        arena.records_from(first, 0).count(),
        locs.iter().filter(|l| l.seg == first).count()
    );
}

#[test]
fn large_records_get_their_own_segment_and_free_returns_ids() {
    let mut arena = Arena::new(4096);
    let big = put(&mut arena, b"big", &[2; 10_000]);
    assert_eq!(big.off, 0);
    assert_eq!(arena.record(big).value().len(), 10_000);
    let before = arena.written_bytes();
    arena.free(big.seg);
    assert!(arena.written_bytes() < before);
    let again = put(&mut arena, b"big2", &[3; 9_000]);
    assert_eq!(again.seg, big.seg, "freed ids are reused");
}

#[test]
fn a_freed_segment_is_kept_as_the_spare_and_reused() {
    let mut arena = Arena::new(4096);
    let old: Vec<Loc> = (0..40)
        .map(|i| put(&mut arena, format!("old{i}").as_bytes(), &[7; 100]))
        .collect();
    let first = old[0].seg;
    assert!(arena.oldest() == Some(first) && arena.segment_count() >= 2);
    arena.free(first);
    assert!(arena.spare.is_some(), "a freed DRAM segment is kept");
    let before = arena.written_bytes();
    // A second freed segment has no room as the spare: unmapped.
    let second = arena.oldest().unwrap();
    arena.free(second);
    assert!(arena.written_bytes() < before);
    // New records fill the open segment, then the spare.
    let new: Vec<Loc> = (0..40)
        .map(|i| put(&mut arena, format!("new{i}").as_bytes(), &[9; 100]))
        .collect();
    assert!(
        arena.spare.is_none(),
        "the next segment came from the spare"
    );
    for (i, loc) in new.iter().enumerate() {
        let rec = arena.record(*loc);
        assert_eq!(rec.key(), format!("new{i}").as_bytes());
        assert_eq!(rec.value(), &[9; 100][..]);
    }
    // Only full-size segments are kept: a dedicated one is unmapped.
    let big = put(&mut arena, b"big", &[2; 10_000]);
    arena.free(big.seg);
    assert!(arena.spare.is_none());
    arena.clear();
    assert!(arena.spare.is_none() && arena.written_bytes() == 0);
}
