//! A push handed straight to a blocked `BLPOP`/`BRPOP` (as Redis serves a
//! blocked client inside the push), driven through sessions as the driver
//! drives them: the blocked pop's next attempt answers with the element,
//! the list is never written, `WATCH` sees the change, and an element
//! whose connection closed before its answer goes back to its list.

use bytes::BytesMut;
use strata_service::{Flow, Session};

use crate::session_fuzz::{open, protocol};

/// Runs `input` through `session`; the replies.
fn run(session: &mut impl Session, input: &str) -> String {
    let mut input = BytesMut::from(input.as_bytes());
    let mut output = BytesMut::new();
    let flow = session.process(&mut input, &mut output);
    assert_ne!(flow, Flow::Close);
    String::from_utf8(output.to_vec()).unwrap()
}

/// Runs `input` on a session whose request blocks, then registers its
/// wait as the driver does; the input left (the blocked request) and the
/// wait.
fn block(session: &mut impl Session, input: &str) -> (BytesMut, impl Sized) {
    let mut input = BytesMut::from(input.as_bytes());
    let mut output = BytesMut::new();
    session.process(&mut input, &mut output);
    assert!(output.is_empty(), "blocked: no reply yet");
    let wait = session.fetch().expect("the session waits");
    (input, wait)
}

#[test]
fn a_blocked_pop_is_answered_with_the_pushed_element() {
    let (protocol, clients) = protocol(None);
    let mut producer = open(&protocol, &clients);
    let mut watcher = open(&protocol, &clients);
    let mut consumer = open(&protocol, &clients);
    assert_eq!(run(&mut watcher, "WATCH q\r\n"), "+OK\r\n");
    let (mut input, _wait) = block(&mut consumer, "BRPOP q 5\r\n");
    assert_eq!(run(&mut producer, "LPUSH q a\r\n"), ":1\r\n");
    // Handed over: the list was never written.
    assert_eq!(run(&mut producer, "EXISTS q\r\n"), ":0\r\n");
    let mut output = BytesMut::new();
    consumer.process(&mut input, &mut output);
    assert_eq!(&output[..], b"*2\r\n$1\r\nq\r\n$1\r\na\r\n");
    assert!(input.is_empty(), "answered, not run again");
    assert!(consumer.fetch().is_none(), "no longer waits");
    // WATCH saw the push and the pop.
    assert_eq!(
        run(&mut watcher, "MULTI\r\nPING\r\nEXEC\r\n"),
        "+OK\r\n+QUEUED\r\n*-1\r\n"
    );
    // Counted once, as Redis counts a served blocked command.
    let stats = run(&mut producer, "INFO commandstats\r\n");
    assert!(stats.contains("cmdstat_brpop:calls=1,"), "{stats}");
}

#[test]
fn pushes_of_several_elements_wake_the_pop_as_before() {
    let (protocol, clients) = protocol(None);
    let mut producer = open(&protocol, &clients);
    let mut consumer = open(&protocol, &clients);
    let (mut input, _wait) = block(&mut consumer, "BLPOP q 5\r\n");
    assert_eq!(run(&mut producer, "RPUSH q a b\r\n"), ":2\r\n");
    let mut output = BytesMut::new();
    consumer.process(&mut input, &mut output);
    assert_eq!(&output[..], b"*2\r\n$1\r\nq\r\n$1\r\na\r\n");
    assert_eq!(run(&mut producer, "LRANGE q 0 -1\r\n"), "*1\r\n$1\r\nb\r\n");
}

#[test]
fn an_element_handed_to_a_closed_connection_goes_back_to_its_list() {
    let (protocol, clients) = protocol(None);
    let mut producer = open(&protocol, &clients);
    let mut consumer = open(&protocol, &clients);
    let (_input, wait) = block(&mut consumer, "BLPOP q 5\r\n");
    assert_eq!(run(&mut producer, "RPUSH q c\r\n"), ":1\r\n");
    assert_eq!(run(&mut producer, "EXISTS q\r\n"), ":0\r\n");
    // The connection closes before its pop runs again.
    drop(wait);
    drop(consumer);
    assert_eq!(run(&mut producer, "LRANGE q 0 -1\r\n"), "*1\r\n$1\r\nc\r\n");
}

#[test]
fn a_transaction_pushes_into_the_list_and_the_pop_takes_it_after() {
    let (protocol, clients) = protocol(None);
    let mut producer = open(&protocol, &clients);
    let mut consumer = open(&protocol, &clients);
    let (mut input, _wait) = block(&mut consumer, "BLPOP q 5\r\n");
    // Inside EXEC the list holds the element (LLEN sees it), as in Redis,
    // where blocked clients are served once the transaction ends.
    let replies = run(&mut producer, "MULTI\r\nLPUSH q a\r\nLLEN q\r\nEXEC\r\n");
    assert_eq!(replies, "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n:1\r\n");
    let mut output = BytesMut::new();
    consumer.process(&mut input, &mut output);
    assert_eq!(&output[..], b"*2\r\n$1\r\nq\r\n$1\r\na\r\n");
    assert_eq!(run(&mut producer, "EXISTS q\r\n"), ":0\r\n");
}
