//! Tests of `codec.rs`: both stored forms round-trip, damage is refused,
//! and the forms written before the pending entries' tree (the fixtures
//! in `tests/fixtures/stream-v1/`) still read, and are written anew in
//! the new form.

use super::super::pel::tests::Chunks;
use super::*;
use crate::stream::{Pending, StreamId};

fn sample() -> Stream<'static> {
    let mut s = Stream::new();
    for ms in 1..=150 {
        s.append(StreamId::new(ms, 0), vec![b"f".to_vec(), b"v".to_vec()])
            .unwrap();
    }
    s.append(StreamId::new(200, 5), vec![b"a".to_vec(), Vec::new()])
        .unwrap();
    s.delete(StreamId::new(1, 0)).unwrap();
    let mut g = Group::new(b"g", StreamId::new(2, 5), Some(2));
    g.consumer_or_create(b"alice", 10);
    assert!(s.add_group(g));
    assert!(s.add_group(Group::new(b"h", StreamId::MIN, None)));
    let mut pel = s.pel(b"g").unwrap();
    let p = Pending {
        consumer: 0,
        delivery_time: 11,
        delivery_count: 3,
    };
    pel.insert(StreamId::new(200, 5), p).unwrap();
    s
}

/// A pending entry: group, id, consumer name, time, deliveries.
type Row = (Vec<u8>, StreamId, Vec<u8>, u64, u64);

/// Every pending entry of every group.
fn pending(s: &mut Stream<'_>) -> Vec<Row> {
    let mut out = Vec::new();
    for i in 0..s.groups.len() {
        let mut pel = s.pel_at(i).unwrap();
        let all = pel.range(StreamId::MIN, StreamId::MAX, usize::MAX).unwrap();
        for (id, p) in all {
            let owner = pel.group.consumer_numbered(p.consumer).unwrap();
            let name = (pel.group.name.clone(), owner.name.clone());
            out.push((name.0, id, name.1, p.delivery_time, p.delivery_count));
        }
    }
    out
}

/// Writes `s` as chunks into `chunks` (as `stored.rs` does, the tree
/// placed after the entry nodes) and returns the head and chunk count.
fn store(s: &mut Stream<'_>, chunks: &Chunks) -> (Vec<u8>, u32) {
    if !s.body.is_chunked() {
        s.body.renumber_all();
    }
    let ring = s.body.ring();
    let tree = s.pels.place(ring.number(ring.count)).unwrap();
    let mut map = chunks.0.borrow_mut();
    for (n, v, _) in s.body.changed_chunks() {
        map.insert(n, v);
    }
    map.extend(tree);
    (encode_head(s).unwrap(), ring.count + s.pels.count())
}

#[test]
fn a_packed_stream_round_trips() {
    let bytes = encode_packed(&mut sample()).unwrap();
    let mut back = decode_packed(&bytes).unwrap();
    assert_eq!(back.len(), 150);
    assert_eq!(back.body.node_count(), 2);
    assert_eq!(back.first_id(), StreamId::new(2, 0));
    assert_eq!(back.groups, sample().groups);
    assert_eq!(pending(&mut back), pending(&mut sample()));
    assert_eq!(encode_packed(&mut back).unwrap(), bytes);
    let empty = encode_packed(&mut Stream::new()).unwrap();
    assert_eq!(
        encode_packed(&mut decode_packed(&empty).unwrap()).unwrap(),
        empty
    );
    assert!(!is_head(&bytes));
}

#[test]
fn a_large_stream_round_trips_with_its_tree() {
    let chunks = Chunks::default();
    let (head, count) = store(&mut sample(), &chunks);
    assert!(is_head(&head));
    assert_eq!(count, 3, "two entry nodes, one leaf");
    let mut back = decode_head(&head, count, &chunks).unwrap();
    assert_eq!(back.groups, sample().groups);
    assert_eq!(pending(&mut back), pending(&mut sample()));
    assert!(decode_head(&head, count + 1, &chunks).is_none());
}

#[test]
fn every_truncation_and_a_huge_count_are_refused() {
    let bytes = encode_packed(&mut sample()).unwrap();
    for cut in 0..bytes.len() {
        assert!(decode_packed(&bytes[..cut]).is_none(), "cut at {cut}");
    }
    let mut huge = encode_packed(&mut Stream::new()).unwrap();
    huge[45..49].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(decode_packed(&huge).is_none());
    let chunks = Chunks::default();
    let (head, count) = store(&mut sample(), &chunks);
    for cut in 0..head.len() {
        assert!(
            decode_head(&head[..cut], count, &chunks).is_none(),
            "cut at {cut}"
        );
    }
    let back = decode_head(&head, count, &chunks).unwrap();
    assert_eq!((back.len(), back.first_id()), (150, StreamId::new(2, 0)));
}

fn fixture(name: &str) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stream-v1/");
    std::fs::read(format!("{dir}{name}")).unwrap()
}

/// What the fixtures hold (see their README).
fn check_fixture(s: &mut Stream<'_>) {
    assert_eq!(s.len(), 129);
    assert_eq!(s.last_id, StreamId::new(130, 0));
    let names: Vec<&[u8]> = s.groups.iter().map(|g| &g.name[..]).collect();
    assert_eq!(names, [&b"g0"[..], b"g1"]);
    let g1 = &s.groups[1];
    assert_eq!(
        (g1.last_id, g1.entries_read),
        (StreamId::new(120, 0), Some(120))
    );
    let seen: Vec<_> = g1
        .consumers
        .iter()
        .map(|c| (c.seen_time, c.active_time, c.pending))
        .collect();
    assert_eq!(
        seen,
        [
            (1000, Some(1001), 68),
            (1002, Some(1003), 35),
            (1004, None, 0)
        ]
    );
    let mut want = Vec::new();
    for ms in (1..=120u64).filter(|ms| ms % 7 != 0) {
        let who: &[u8] = if ms % 3 == 0 { b"bob" } else { b"alice" };
        let id = StreamId::new(ms, 0);
        want.push((b"g1".to_vec(), id, who.to_vec(), 2000 + ms, ms % 4 + 1));
    }
    assert_eq!(pending(s), want);
    assert_eq!(s.groups[1].pending, 103);
}

#[test]
fn streams_stored_before_the_tree_still_read_and_are_written_anew() {
    let packed = fixture("packed.bin");
    let mut s = decode_packed(&packed).unwrap();
    check_fixture(&mut s);
    assert_eq!(
        encode_packed(&mut s).unwrap(),
        packed,
        "the packed form is unchanged"
    );
    let old = Chunks::default();
    for n in 0..2 {
        old.0
            .borrow_mut()
            .insert(n, fixture(&format!("chunk-{n}.bin")));
    }
    let head = fixture("head.bin");
    assert!(is_head(&head));
    assert!(
        decode_head(&head, 3, &old).is_none(),
        "the chunk count is checked"
    );
    let mut s = decode_head(&head, 2, &old).unwrap();
    check_fixture(&mut s);
    assert_eq!(
        s.range(StreamId::MIN, StreamId::MAX, usize::MAX, false)
            .unwrap()
            .len(),
        129
    );
    // Written again: the head in the new form, the tree after the nodes.
    let (head, count) = store(&mut s, &old);
    assert!(head.starts_with(&HEAD_MAGIC));
    assert!(count > 2);
    let mut s = decode_head(&head, count, &old).unwrap();
    check_fixture(&mut s);
}
