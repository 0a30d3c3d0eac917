//! Tests of `claim.rs`: acknowledging, removing consumers, `XCLAIM`'s and
//! `XAUTOCLAIM`'s claims.

use super::*;

const NOW: u64 = 10_000;

fn id(ms: u64) -> StreamId {
    StreamId::new(ms, 0)
}

/// Entries 1..=5, all delivered to alice at `NOW - 100`.
fn delivered() -> Stream<'static> {
    let mut s = Stream::new();
    for ms in 1..=5 {
        s.append(id(ms), vec![b"f".to_vec(), b"v".to_vec()])
            .unwrap();
    }
    assert!(s.add_group(Group::new(b"g", StreamId::MIN, Some(0))));
    s.deliver_new(b"g", b"alice", 0, false, NOW - 100)
        .unwrap()
        .unwrap();
    s
}

fn claim(min_idle: i64) -> Claim {
    Claim {
        min_idle,
        delivery_time: NOW,
        retry_count: None,
        force: false,
        just_id: false,
        last_id: StreamId::MIN,
    }
}

fn auto(start: StreamId, count: u64, min_idle: i64, just_id: bool) -> AutoClaim {
    AutoClaim {
        start,
        count,
        min_idle,
        just_id,
    }
}

#[test]
fn elapsed_is_signed_and_saturates() {
    assert_eq!(elapsed(10, 4), 6);
    assert_eq!(elapsed(4, 10), -6);
    assert_eq!(elapsed(u64::MAX, 0), i64::MAX);
    assert_eq!(elapsed(0, u64::MAX), i64::MIN);
}

#[test]
fn acks_and_consumer_removal_drop_pending_entries() {
    let mut s = delivered();
    let g = s.group_mut(b"g").unwrap();
    assert!(g.ack(id(1)));
    assert!(!g.ack(id(1)));
    assert_eq!(g.pending_count(b"alice"), 4);
    g.pel.get_mut(&id(5)).unwrap().consumer = b"bob".to_vec();
    let counts: Vec<_> = g.pending_counts().into_iter().collect();
    assert_eq!(counts, [(&b"alice"[..], 3), (&b"bob"[..], 1)]);
    g.ack(id(5));
    g.consumer_or_create(b"bob", NOW);
    assert_eq!(g.remove_consumer(b"bob"), Some(0));
    assert_eq!(g.remove_consumer(b"alice"), Some(3));
    assert_eq!(g.remove_consumer(b"alice"), None);
    assert!(g.pel.is_empty() && g.consumers.is_empty());
}

#[test]
fn claims_move_entries_count_deliveries_and_skip_recent_ones() {
    let mut s = delivered();
    s.delete(id(2)).unwrap();
    let ids = [id(1), id(2), id(1), id(9)];
    let got = s
        .claim(b"g", b"bob", &ids, &claim(50), NOW)
        .unwrap()
        .unwrap();
    assert_eq!(got.ids, [id(1)], "the repeat is now idle 0");
    let g = s.group(b"g").unwrap();
    assert!(!g.pel.contains_key(&id(2)), "deleted entries leave");
    assert_eq!(g.pel[&id(1)].consumer, b"bob");
    assert_eq!(g.pel[&id(1)].delivery_count, 2);
    assert_eq!(g.consumer(b"bob").unwrap().active_time, Some(NOW));
    let got = s
        .claim(b"g", b"carl", &[id(3)], &claim(500), NOW)
        .unwrap()
        .unwrap();
    assert_eq!((got.ids.len(), got.changed), (0, true), "carl is new");
    let got = s
        .claim(b"g", b"carl", &[id(3)], &claim(500), NOW)
        .unwrap()
        .unwrap();
    assert!(!got.changed, "seen again at the same time: no change");
    let carl = s.group(b"g").unwrap().consumer(b"carl").unwrap();
    assert_eq!((carl.seen_time, carl.active_time), (NOW, None));
    assert!(s
        .claim(b"nope", b"x", &[], &claim(0), NOW)
        .unwrap()
        .is_none());
}

#[test]
fn claim_options_set_counts_times_and_the_last_id() {
    let mut s = delivered();
    s.group_mut(b"g").unwrap().ack(id(4));
    let how = Claim {
        force: true,
        just_id: true,
        delivery_time: 7,
        last_id: id(8),
        ..claim(0)
    };
    let got = s
        .claim(b"g", b"bob", &[id(3), id(4)], &how, NOW)
        .unwrap()
        .unwrap();
    assert_eq!(got.ids, [id(3), id(4)]);
    let g = s.group(b"g").unwrap();
    assert_eq!(g.last_id, id(8));
    assert_eq!(g.pel[&id(3)].delivery_count, 1, "JUSTID keeps it");
    assert_eq!(g.pel[&id(4)].delivery_count, 1, "FORCE makes one");
    assert_eq!(g.pel[&id(4)].delivery_time, 7);
    let how = Claim {
        retry_count: Some(9),
        last_id: id(2),
        ..claim(0)
    };
    s.claim(b"g", b"bob", &[id(5)], &how, NOW).unwrap().unwrap();
    let g = s.group(b"g").unwrap();
    assert_eq!(g.pel[&id(5)].delivery_count, 9);
    assert_eq!(g.last_id, id(8), "LASTID only moves it up");
}

#[test]
fn autoclaim_counts_deleted_ones_and_returns_a_cursor() {
    let mut s = delivered();
    s.delete(id(2)).unwrap();
    let got = s
        .auto_claim(b"g", b"bob", &auto(StreamId::MIN, 2, 0, false), NOW)
        .unwrap()
        .unwrap();
    assert_eq!(got.claimed, [id(1)]);
    assert_eq!(got.deleted, [id(2)]);
    assert_eq!(got.next, id(3));
    let got = s
        .auto_claim(b"g", b"bob", &auto(id(3), 100, 0, true), NOW)
        .unwrap()
        .unwrap();
    assert_eq!(got.claimed, [id(3), id(4), id(5)]);
    assert_eq!(got.next, StreamId::MIN);
    let g = s.group(b"g").unwrap();
    assert_eq!(g.pel[&id(1)].delivery_count, 2);
    assert_eq!(g.pel[&id(3)].delivery_count, 1, "JUSTID keeps it");
    assert_eq!(g.pending_count(b"bob"), 4);
    assert_eq!(g.pending_count(b"alice"), 0);
}

#[test]
fn autoclaim_stops_after_ten_looks_per_count() {
    let mut s = Stream::new();
    for ms in 1..=30 {
        s.append(id(ms), vec![b"f".to_vec(), b"v".to_vec()])
            .unwrap();
    }
    assert!(s.add_group(Group::new(b"g", StreamId::MIN, Some(0))));
    s.deliver_new(b"g", b"alice", 0, false, NOW)
        .unwrap()
        .unwrap();
    // Nothing is idle enough: one claim allowed, ten looks.
    let got = s
        .auto_claim(b"g", b"bob", &auto(StreamId::MIN, 1, 5, false), NOW)
        .unwrap()
        .unwrap();
    assert!(got.claimed.is_empty());
    assert_eq!(got.next, id(11));
    let got = s.auto_claim(b"g", b"bob", &auto(StreamId::MAX, 1, 0, false), NOW);
    assert_eq!(got.unwrap().unwrap().next, StreamId::MIN);
    let bob = s.group(b"g").unwrap().consumer(b"bob").unwrap();
    assert_eq!(bob.active_time, None);
}
