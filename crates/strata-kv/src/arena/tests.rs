//! Unit tests of the arena: appends, dedicated segments, the spares.

use super::spares::{DEMAND_WINDOW, MAX_SPARES};
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
fn freed_segments_are_kept_as_spares_sized_by_demand() {
    let mut arena = Arena::new(4096);
    let old: Vec<Loc> = (0..80)
        .map(|i| put(&mut arena, format!("old{i}").as_bytes(), &[7; 100]))
        .collect();
    let opened = arena.segment_count();
    assert!(opened >= 3);
    // Freed segments are kept mapped, not counted as written.
    let (first, second) = (old[0].seg, arena.fifo[1]);
    let before = arena.written_bytes();
    arena.free(first);
    arena.free(second);
    assert_eq!(arena.spare_count(), 2, "freed DRAM segments are kept");
    assert!(arena.written_bytes() < before);
    // A trim keeps what was opened since the previous one (all of them
    // here), and the next segments come from the spares, in working order.
    arena.trim_spares();
    assert_eq!(arena.spare_count(), 2);
    let new: Vec<Loc> = (0..80)
        .map(|i| put(&mut arena, format!("new{i}").as_bytes(), &[9; 100]))
        .collect();
    assert_eq!(
        arena.spare_count(),
        0,
        "the next segments came from the spares"
    );
    for (i, loc) in new.iter().enumerate() {
        let rec = arena.record(*loc);
        assert_eq!(rec.key(), format!("new{i}").as_bytes());
        assert_eq!(rec.value(), &[9; 100][..]);
    }
    // Demand is remembered for DEMAND_WINDOW intervals (the compactor's
    // bursts leave idle passes between them); without demand for that long,
    // an idle shard keeps none.
    let third = arena.oldest().unwrap();
    arena.free(third);
    assert_eq!(arena.spare_count(), 1);
    for pass in 1..DEMAND_WINDOW {
        arena.trim_spares();
        assert_eq!(
            arena.spare_count(),
            1,
            "pass {pass}: segments were opened within the window"
        );
    }
    arena.trim_spares();
    arena.trim_spares();
    assert_eq!(arena.spare_count(), 0, "an idle shard keeps no spare");
    // Only full-size segments are kept: a dedicated one is unmapped.
    let big = put(&mut arena, b"big", &[2; 10_000]);
    arena.free(big.seg);
    assert_eq!(arena.spare_count(), 0);
    // Never more than MAX_SPARES, and `clear` drops them.
    let many: Vec<Loc> = (0..(MAX_SPARES as u32 + 4) * 40)
        .map(|i| put(&mut arena, format!("m{i}").as_bytes(), &[1; 100]))
        .collect();
    let segs: std::collections::BTreeSet<u32> = many.iter().map(|l| l.seg).collect();
    assert!(segs.len() > MAX_SPARES);
    for seg in segs {
        arena.free(seg);
    }
    assert_eq!(arena.spare_count(), MAX_SPARES);
    arena.clear();
    assert!(arena.spare_count() == 0 && arena.written_bytes() == 0);
}
