//! The checker itself: it must flag what it exists to flag.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::history::{ConnectionLog, Survival};
use super::model::{KeyState, Op, Protocol};

fn set(key: &str, value: &str) -> Op {
    Op::Set {
        key: key.into(),
        value: value.as_bytes().to_vec(),
        expire: false,
    }
}

fn holding(pairs: &[(&str, &str)]) -> BTreeMap<String, KeyState> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), KeyState::holding(v.as_bytes().to_vec())))
        .collect()
}

/// SET a=1 (acked at `t0`), SET a=2 (acked at `t1`), SET b=1, SET a=3
/// (both in flight), from a start where a and b are absent.
fn log(t0: Instant, t1: Instant) -> ConnectionLog {
    let mut log = ConnectionLog::new("test".into(), Protocol::Resp, t0, BTreeMap::new());
    let (first, _) = log.sent(set("a", "1"), t0);
    let (second, _) = log.sent(set("a", "2"), t0);
    log.sent(set("b", "1"), t1);
    log.sent(set("a", "3"), t1);
    log.acked(first, t0);
    log.acked(second, t1);
    log
}

#[test]
fn in_flight_writes_may_or_may_not_survive() {
    let now = Instant::now();
    let log = log(now, now);
    for recovered in [
        holding(&[("a", "2")]),
        holding(&[("a", "2"), ("b", "1")]),
        holding(&[("a", "3"), ("b", "1")]),
    ] {
        let problems = log.check(&recovered, Survival::Acknowledged);
        assert!(problems.is_empty(), "{recovered:?}: {problems:?}");
    }
}

#[test]
fn a_lost_acknowledged_write_is_flagged() {
    let now = Instant::now();
    let log = log(now, now);
    for recovered in [holding(&[("a", "1")]), holding(&[("b", "1")])] {
        let problems = log.check(&recovered, Survival::Acknowledged);
        assert_eq!(problems.len(), 1, "{recovered:?}: {problems:?}");
        assert!(problems[0].contains("key a"), "{problems:?}");
    }
}

#[test]
fn a_later_write_without_an_earlier_one_is_flagged() {
    let now = Instant::now();
    let log = log(now, now);
    // a=3 was sent after b=1, so b=1 must be there too.
    let problems = log.check(&holding(&[("a", "3")]), Survival::Acknowledged);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("no single prefix"), "{problems:?}");
}

#[test]
fn only_writes_acknowledged_by_the_deadline_must_survive() {
    let t0 = Instant::now();
    let t1 = t0 + Duration::from_secs(1);
    let log = log(t0, t1);
    let recovered = holding(&[("a", "1")]);
    assert!(log
        .check(&recovered, Survival::AcknowledgedBy(t0))
        .is_empty());
    assert_eq!(log.check(&recovered, Survival::AcknowledgedBy(t1)).len(), 1);
    assert_eq!(
        log.oldest_lost_ack(&recovered, t1 + Duration::from_secs(1)),
        Some(Duration::from_secs(1))
    );
    let nothing = BTreeMap::new();
    assert_eq!(log.check(&nothing, Survival::AcknowledgedBy(t0)).len(), 1);
}
