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

/// Pending entry `ms` of group `g`.
fn held(s: &mut Stream<'_>, ms: u64) -> Option<Pending> {
    s.pel(b"g").unwrap().get(id(ms)).unwrap()
}

/// The name of the consumer holding pending entry `ms` of group `g`.
fn holder(s: &mut Stream<'_>, ms: u64) -> Vec<u8> {
    let p = held(s, ms).unwrap();
    let g = s.group(b"g").unwrap();
    g.consumer_numbered(p.consumer).unwrap().name.clone()
}

/// How many entries consumer `name` of group `g` holds.
fn count(s: &Stream<'_>, name: &[u8]) -> u64 {
    s.group(b"g")
        .unwrap()
        .consumer(name)
        .map_or(0, |c| c.pending)
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
    let mut pel = s.pel(b"g").unwrap();
    assert!(pel.remove(id(1)).unwrap().is_some());
    assert!(pel.remove(id(1)).unwrap().is_none());
    assert_eq!(pel.group.pending, 4);
    let bob = pel.group.consumer_or_create(b"bob", NOW).0.number;
    let mut p = pel.get(id(5)).unwrap().unwrap();
    p.consumer = bob;
    pel.insert(id(5), p).unwrap();
    assert_eq!(pel.group.pending, 4);
    assert_eq!(count(&s, b"alice"), 3);
    assert_eq!(count(&s, b"bob"), 1);
    let mut pel = s.pel(b"g").unwrap();
    pel.remove(id(5)).unwrap();
    assert_eq!(pel.remove_consumer(b"bob").unwrap(), Some(0));
    assert_eq!(pel.remove_consumer(b"alice").unwrap(), Some(3));
    assert_eq!(pel.remove_consumer(b"alice").unwrap(), None);
    assert_eq!(pel.group.pending, 0);
    assert!(pel.group.consumers.is_empty());
    assert!(pel.first_from(StreamId::MIN).unwrap().is_none());
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
    assert!(held(&mut s, 2).is_none(), "deleted entries leave");
    assert_eq!(holder(&mut s, 1), b"bob");
    assert_eq!(held(&mut s, 1).unwrap().delivery_count, 2);
    let g = s.group(b"g").unwrap();
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
    s.pel(b"g").unwrap().remove(id(4)).unwrap();
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
    assert_eq!(s.group(b"g").unwrap().last_id, id(8));
    assert_eq!(
        held(&mut s, 3).unwrap().delivery_count,
        1,
        "JUSTID keeps it"
    );
    assert_eq!(
        held(&mut s, 4).unwrap().delivery_count,
        1,
        "FORCE makes one"
    );
    assert_eq!(held(&mut s, 4).unwrap().delivery_time, 7);
    let how = Claim {
        retry_count: Some(9),
        last_id: id(2),
        ..claim(0)
    };
    s.claim(b"g", b"bob", &[id(5)], &how, NOW).unwrap().unwrap();
    assert_eq!(held(&mut s, 5).unwrap().delivery_count, 9);
    assert_eq!(
        s.group(b"g").unwrap().last_id,
        id(8),
        "LASTID only moves it up"
    );
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
    assert_eq!(held(&mut s, 1).unwrap().delivery_count, 2);
    assert_eq!(
        held(&mut s, 3).unwrap().delivery_count,
        1,
        "JUSTID keeps it"
    );
    assert_eq!(count(&s, b"bob"), 4);
    assert_eq!(count(&s, b"alice"), 0);
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
