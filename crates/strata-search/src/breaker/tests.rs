use std::sync::Arc;

use super::*;
use crate::error::{Result, SearchError};

/// Breakers over a 1000-byte base: request 600, in flight 1000 (overhead
/// 2), parent 700.
fn small() -> Arc<CircuitBreakers> {
    Arc::new(CircuitBreakers::new(1000))
}

use super::breakers::BreakerStats;

fn stat(b: &CircuitBreakers, name: &str) -> BreakerStats {
    b.stats().into_iter().find(|s| s.name == name).unwrap()
}

#[test]
fn a_child_trips_at_its_limit_with_elasticsearch_message() {
    let b = small();
    b.add(Breaker::Request, 500, "a").unwrap();
    let e = b.add(Breaker::Request, 101, "<agg [x]>").unwrap_err();
    assert_eq!(
        (e.status(), e.es_type()),
        (429, "circuit_breaking_exception")
    );
    assert_eq!(
        e.to_string(),
        "[request] Data too large, data for [<agg [x]>] would be [601/601b], which is larger than the limit of [600/600b]"
    );
    let SearchError::CircuitBreaking {
        bytes_wanted,
        bytes_limit,
        ..
    } = e
    else {
        panic!("not a breaker error")
    };
    assert_eq!((bytes_wanted, bytes_limit), (601, 600));
    // Nothing was added by the refused call.
    assert_eq!(stat(&b, "request").estimated, 500);
    assert_eq!(stat(&b, "request").tripped, 1);
    b.add(Breaker::Request, 100, "a").unwrap();
}

#[test]
fn the_parent_bounds_the_children_together() {
    let b = small();
    // 300 in flight counts 600 against the parent (overhead 2).
    b.add(Breaker::InFlightRequests, 300, "<http_request>")
        .unwrap();
    b.add(Breaker::Request, 100, "a").unwrap();
    let e = b.add(Breaker::Request, 1, "<b>").unwrap_err();
    assert_eq!(
        e.to_string(),
        "[parent] Data too large, data for [<b>] would be [701/701b], which is larger than the limit of [700/700b], usages [request=101/101b, in_flight_requests=600/600b]"
    );
    assert_eq!(stat(&b, "parent").tripped, 1);
    assert_eq!(stat(&b, "request").tripped, 0);
    assert_eq!(stat(&b, "request").estimated, 100, "rolled back");
    assert_eq!(b.room(Breaker::Request), 0);
    b.release(Breaker::InFlightRequests, 300);
    assert_eq!(b.room(Breaker::Request), 500);
    assert_eq!(b.room(Breaker::InFlightRequests), 300);
}

#[test]
fn accounts_release_on_drop_error_and_panic() {
    let b = small();
    let account = MemoryAccount::new(&b, Breaker::Request);
    account.reserve(200, "a").unwrap();
    let clone = account.clone();
    clone.reserve(100, "b").unwrap();
    assert!(account.reserve(400, "c").is_err());
    assert_eq!(stat(&b, "request").estimated, 300);
    drop(account);
    assert_eq!(stat(&b, "request").estimated, 300, "a clone still holds it");
    drop(clone);
    assert_eq!(stat(&b, "request").estimated, 0);

    // A failing request: its account is dropped with the error.
    let failing = || -> Result<()> {
        let account = MemoryAccount::new(&b, Breaker::Request);
        account.reserve(300, "a")?;
        account.reserve(400, "too much")?;
        Ok(())
    };
    assert!(failing().is_err());
    assert_eq!(stat(&b, "request").estimated, 0);

    // A panicking request: unwinding drops the account.
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let account = MemoryAccount::new(&b, Breaker::Request);
        account.reserve(500, "a").unwrap();
        let part = account.part();
        part.reserve(50, "b").unwrap();
        panic!("handler bug");
    }));
    assert!(panicked.is_err());
    assert_eq!(stat(&b, "request").estimated, 0);
}

#[test]
fn unaccounted_accounts_take_anything() {
    let a = MemoryAccount::unaccounted();
    a.reserve(u64::MAX, "x").unwrap();
    assert_eq!(a.room(), u64::MAX);
    assert!(!a.part().is_accounted());
}

#[test]
fn settings_change_limits_and_reject_bad_values() {
    let b = small();
    let s = BreakerSettings::default()
        .with(settings::REQUEST_LIMIT, Some("100b"))
        .unwrap()
        .with(settings::TOTAL_LIMIT, Some("90%"))
        .unwrap()
        .with(settings::IN_FLIGHT_OVERHEAD, Some("1"))
        .unwrap();
    b.apply(s);
    assert_eq!(stat(&b, "request").limit, 100);
    assert_eq!(stat(&b, "parent").limit, 900);
    assert_eq!(stat(&b, "in_flight_requests").overhead, 1.0);
    assert!(b.add(Breaker::Request, 101, "x").is_err());
    let reset = s.with(settings::REQUEST_LIMIT, None).unwrap();
    assert_eq!(reset.request, MemorySize::Share(60.0));
    assert!(reset.with(settings::REQUEST_LIMIT, Some("lots")).is_err());
    assert!(reset.with(settings::REQUEST_OVERHEAD, Some("-1")).is_err());
    assert!(reset.with("indices.breaker.nope", Some("1")).is_err());
    assert_eq!(reset.value_of(settings::TOTAL_LIMIT).unwrap(), "90%");
}

#[test]
fn concurrent_reservations_never_pass_the_limit() {
    let b = Arc::new(CircuitBreakers::new(10_000));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let b = Arc::clone(&b);
            std::thread::spawn(move || {
                for _ in 0..10_000 {
                    let a = MemoryAccount::new(&b, Breaker::Request);
                    if a.reserve(7, "x").is_ok() {
                        assert!(stat(&b, "request").estimated <= 6000);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(stat(&b, "request").estimated, 0);
}

#[test]
fn the_memory_base_is_half_the_host_at_most_31_gib() {
    let base = memory_base();
    assert!(base > 0 && base <= 31 << 30);
}
