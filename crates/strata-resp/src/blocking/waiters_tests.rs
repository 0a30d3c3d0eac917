//! Tests of [`Waiters`](super::Waiters): wake-ups, hand-overs, `CLIENT
//! UNBLOCK`.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::super::serve::ServeSlot;
use super::super::wait::{BlockWait, Unblock};
use super::Waiters;

fn wait_on(key: &[u8], seq: u64) -> BlockWait {
    BlockWait {
        keys: vec![Box::from(key)],
        deadline: Some(Instant::now() + Duration::from_millis(300)),
        seq,
        unblocked: Arc::default(),
        durable: None,
        serve: None,
    }
}

/// Whether the wait ended before its deadline.
fn woken_early(fut: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>) -> bool {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let started = Instant::now();
    rt.block_on(fut);
    started.elapsed() < Duration::from_millis(250)
}

#[test]
fn a_push_to_another_key_does_not_wake_a_waiter() {
    let waiters = Arc::new(Waiters::default());
    let seq = waiters.seq([&b"q"[..]]);
    // Another key in another stripe: pushed between the look and the
    // registration, it must not count as a push to "q".
    let other = (0..1000u32)
        .map(|i| format!("other{i}").into_bytes())
        .find(|k| !std::ptr::eq(waiters.stripe(k), waiters.stripe(b"q")))
        .unwrap();
    waiters.pushed(&other);
    assert_eq!(waiters.seq([&b"q"[..]]), seq);
    let fut = waiters.wait(wait_on(b"q", seq), 1);
    assert!(waiters.any_waiting());
    assert!(!woken_early(fut), "woken by a push to another key");
    assert!(
        !waiters.any_waiting(),
        "a finished wait is no longer counted"
    );
}

#[test]
fn a_push_between_the_look_and_the_registration_wakes_at_once() {
    let waiters = Arc::new(Waiters::default());
    let seq = waiters.seq([&b"q"[..], &b"r"[..]]);
    waiters.pushed(b"r");
    let wait = BlockWait {
        keys: vec![Box::from(&b"q"[..]), Box::from(&b"r"[..])],
        deadline: Some(Instant::now() + Duration::from_secs(5)),
        seq,
        unblocked: Arc::default(),
        durable: None,
        serve: None,
    };
    let fut = waiters.wait(wait, 1);
    assert!(!waiters.any_waiting(), "woken at registration: not counted");
    assert!(woken_early(fut));
}

#[test]
fn a_push_wakes_the_oldest_waiter_only() {
    let waiters = Arc::new(Waiters::default());
    let seq = waiters.seq([&b"q"[..]]);
    let first = waiters.wait(wait_on(b"q", seq), 1);
    let second = waiters.wait(wait_on(b"q", seq), 1);
    waiters.pushed(b"q");
    assert!(woken_early(first));
    assert!(!woken_early(second), "the second waiter was woken too");
    assert!(!waiters.any_waiting());
}

#[test]
fn a_push_hands_its_element_to_the_oldest_waiter_that_takes_it() {
    let waiters = Arc::new(Waiters::default());
    assert_eq!(waiters.hand_over(b"q", b"a", 0), None, "nobody waits");
    let seq = waiters.seq([&b"q"[..]]);
    let (first_slot, second_slot) = (Arc::new(ServeSlot::default()), Arc::default());
    let taking = |slot: &Arc<ServeSlot>, left: bool| {
        slot.open(left);
        BlockWait {
            serve: Some(Arc::clone(slot)),
            ..wait_on(b"q", seq)
        }
    };
    let first = waiters.wait(taking(&first_slot, true), 1);
    let second = waiters.wait(taking(&second_slot, false), 2);
    assert_eq!(waiters.hand_over(b"other", b"a", 0), None);
    assert_eq!(waiters.hand_over(b"q", b"a", 0), Some(true));
    assert!(woken_early(first));
    assert_eq!(&*first_slot.take().unwrap().element, b"a");
    // The second's attempt ran first (its deadline): a closed slot
    // takes nothing, and the push goes to the list instead.
    assert_eq!(second_slot.take(), None);
    assert_eq!(waiters.hand_over(b"q", b"b", 0), None);
    assert!(!woken_early(second));
}

#[test]
fn a_waiter_that_pops_for_itself_keeps_its_turn() {
    let waiters = Arc::new(Waiters::default());
    let seq = waiters.seq([&b"q"[..]]);
    let own = waiters.wait(wait_on(b"q", seq), 1);
    let slot = Arc::new(ServeSlot::default());
    slot.open(true);
    let wait = BlockWait {
        serve: Some(Arc::clone(&slot)),
        ..wait_on(b"q", seq)
    };
    let taking = waiters.wait(wait, 2);
    assert_eq!(
        waiters.hand_over(b"q", b"a", 0),
        None,
        "the first pops itself"
    );
    waiters.pushed(b"q");
    assert!(woken_early(own));
    assert_eq!(
        waiters.hand_over(b"q", b"b", 0),
        Some(true),
        "now the second"
    );
    assert!(woken_early(taking));
}

#[test]
fn unblock_ends_only_a_registered_wait_and_marks_how() {
    let waiters = Arc::new(Waiters::default());
    assert!(!waiters.unblock(7, Unblock::Timeout), "nobody waits");
    let seq = waiters.seq([&b"q"[..]]);
    let wait = wait_on(b"q", seq);
    let cell = Arc::clone(&wait.unblocked);
    let fut = waiters.wait(wait, 7);
    assert!(!waiters.unblock(8, Unblock::Error), "another client");
    assert!(waiters.unblock(7, Unblock::Error));
    assert!(!waiters.unblock(7, Unblock::Error), "already ended");
    assert!(woken_early(fut));
    assert_eq!(cell.load(Ordering::Acquire), Unblock::Error as u8);
    // Ended and dropped: no longer known, and a push finds nobody.
    assert!(!waiters.unblock(7, Unblock::Timeout));
    assert!(!waiters.any_waiting());
}
