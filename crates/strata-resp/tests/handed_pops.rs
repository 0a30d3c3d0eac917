//! A push handed straight to a blocked `BLPOP`/`BRPOP` (as Redis serves a
//! blocked client inside the push), driven through sessions as the driver
//! drives them: the blocked pop's next attempt answers with the element,
//! the list is never written, `WATCH` sees the change, and an element
//! whose connection closed before its answer goes back to its list; in
//! `sync` mode the answer waits for what the pushing client wrote before.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::BytesMut;
use strata_kv::journal::{Journal, Refusal};
use strata_service::{Durability, DurableFuture, Flow, Session};

use crate::session_fuzz::{open, protocol, protocol_with};

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

/// A journal numbering its records.
#[derive(Default)]
struct Numbered(AtomicU64);

impl Journal for Numbered {
    fn check(&self) -> Result<(), Refusal> {
        Ok(())
    }

    fn append(&self, _body: &[u8]) -> Result<u64, String> {
        Ok(self.0.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

/// `sync` persistence whose log never becomes durable: every reply to a
/// logged write is held.
struct NeverDurable;

impl Durability for NeverDurable {
    fn mode(&self) -> &'static str {
        "sync"
    }

    fn wait(&self, _lsn: u64) -> Option<DurableFuture> {
        Some(Box::pin(std::future::pending()))
    }

    fn is_durable(&self, _lsn: u64) -> bool {
        false
    }

    fn save(&self) -> Result<(), String> {
        Ok(())
    }

    fn background_save(&self) -> Result<(), String> {
        Ok(())
    }

    fn background_rewrite(&self) -> Result<(), String> {
        Ok(())
    }

    fn last_save_unix(&self) -> u64 {
        0
    }

    fn info(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

#[test]
fn in_sync_mode_the_answer_waits_for_what_the_pusher_wrote_before() {
    let persistence = (
        Arc::new(Numbered::default()) as Arc<dyn Journal>,
        Arc::new(NeverDurable) as Arc<dyn Durability>,
    );
    let (protocol, clients) = protocol_with(None, Some(persistence));
    // A producer that wrote nothing before: the element is answered at
    // once (the push and the pop log nothing).
    let mut fresh = open(&protocol, &clients);
    let mut consumer = open(&protocol, &clients);
    let (mut input, _wait) = block(&mut consumer, "BLPOP q 5\r\n");
    assert_eq!(run(&mut fresh, "LPUSH q a\r\n"), ":1\r\n");
    assert!(fresh.hold().is_none(), "nothing logged, nothing held");
    let mut output = BytesMut::new();
    consumer.process(&mut input, &mut output);
    assert_eq!(&output[..], b"*2\r\n$1\r\nq\r\n$1\r\na\r\n");
    assert!(consumer.hold().is_none());
    // A producer that stored the job first: its element's answer waits
    // until that write is durable, as its own reply to the write does.
    let mut producer = open(&protocol, &clients);
    let (mut input, _wait) = block(&mut consumer, "BLPOP q 5\r\n");
    assert_eq!(run(&mut producer, "SET job:b payload\r\n"), "+OK\r\n");
    assert!(producer.hold().is_some(), "the SET waits for the log");
    assert_eq!(run(&mut producer, "LPUSH q b\r\n"), ":1\r\n");
    let mut output = BytesMut::new();
    consumer.process(&mut input, &mut output);
    assert_eq!(&output[..], b"*2\r\n$1\r\nq\r\n$1\r\nb\r\n");
    let hold = consumer.hold().expect("held until the SET is durable");
    assert_eq!(hold.from, 0);
}
