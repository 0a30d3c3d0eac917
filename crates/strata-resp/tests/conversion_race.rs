//! A reader racing a writer that changes a key's encoding: a read first
//! looks at the record (a packed value is read there), and a large head
//! sends it to the chunks under a second lock; a writer converting the key
//! in between (a large list shrunk back to a listpack, a large hash
//! replaced by a packed one) must never make the existing key read as
//! missing. Each test runs a writer flipping one key between the two
//! encodings and readers checking every reply, for a bounded time.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::model::{int, text};
use common::{Client, Server};

/// How long each race runs.
const RACE: Duration = Duration::from_secs(2);

/// Runs `write` in a loop on one connection and `read` in a loop on two
/// others until `RACE` passes; returns how many reads were checked.
fn race(
    server: &Server,
    write: impl Fn(&mut Client) + Send + 'static,
    read: impl Fn(&mut Client) + Send + Sync + 'static,
) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let mut writer = Client::connect(server);
    let writer_stop = stop.clone();
    let writer = thread::spawn(move || {
        let mut flips = 0u64;
        while !writer_stop.load(Ordering::Relaxed) {
            write(&mut writer);
            flips += 1;
        }
        flips
    });
    let read = Arc::new(read);
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (mut c, stop, read) = (Client::connect(server), stop.clone(), read.clone());
            thread::spawn(move || {
                let mut reads = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    read(&mut c);
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let start = Instant::now();
    while start.elapsed() < RACE && !readers.iter().any(|r| r.is_finished()) {
        thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    let flips = writer.join().expect("writer");
    assert!(flips > 10, "{flips}");
    readers
        .into_iter()
        .map(|r| r.join().expect("a read saw the key missing"))
        .sum()
}

#[test]
fn a_list_converted_back_and_forth_never_reads_as_missing() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["CONFIG", "SET", "list-max-listpack-size", "4"]);
    c.cmd(&["RPUSH", "l", "a", "b"]);
    let reads = race(
        &server,
        |w| {
            // 2 packed -> 5 large -> 2 packed again (half of 4).
            w.cmd(&["RPUSH", "l", "c", "d", "e"]);
            w.cmd(&["LTRIM", "l", "0", "1"]);
        },
        |r| {
            assert!(int(&r.cmd(&["LLEN", "l"])) >= 2);
            assert_eq!(text(&r.cmd(&["LINDEX", "l", "0"])).as_deref(), Some("a"));
            assert!(r.cmd(&["LRANGE", "l", "0", "-1"]).array().len() >= 2);
        },
    );
    assert!(reads > 100, "{reads}");
}

#[test]
fn a_hash_replaced_by_another_encoding_never_reads_as_missing() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["CONFIG", "SET", "hash-max-listpack-entries", "4"]);
    c.cmd(&["HSET", "small", "f", "v"]);
    let mut big = vec!["HSET", "big", "f", "v"];
    let fields: Vec<String> = (0..20).map(|i| format!("g{i}")).collect();
    for f in &fields {
        big.extend([f.as_str(), "w"]);
    }
    c.cmd(&big);
    assert_eq!(
        text(&c.cmd(&["OBJECT", "ENCODING", "big"])).unwrap(),
        "hashtable"
    );
    c.cmd(&["COPY", "small", "h"]);
    let reads = race(
        &server,
        |w| {
            assert_eq!(int(&w.cmd(&["COPY", "big", "h", "REPLACE"])), 1);
            assert_eq!(int(&w.cmd(&["COPY", "small", "h", "REPLACE"])), 1);
        },
        |r| {
            assert!(int(&r.cmd(&["HLEN", "h"])) >= 1);
            assert_eq!(text(&r.cmd(&["HGET", "h", "f"])).as_deref(), Some("v"));
            assert_eq!(int(&r.cmd(&["HEXISTS", "h", "f"])), 1);
            assert!(!r.cmd(&["HGETALL", "h"]).array().is_empty());
        },
    );
    assert!(reads > 100, "{reads}");
}

#[test]
fn a_sorted_set_replaced_by_another_encoding_never_reads_as_missing() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["CONFIG", "SET", "zset-max-listpack-entries", "4"]);
    c.cmd(&["ZADD", "small", "1", "m"]);
    let mut big = vec!["ZADD", "big", "1", "m"];
    let members: Vec<String> = (0..20).map(|i| format!("n{i}")).collect();
    for m in &members {
        big.extend(["2", m.as_str()]);
    }
    c.cmd(&big);
    assert_eq!(
        text(&c.cmd(&["OBJECT", "ENCODING", "big"])).unwrap(),
        "skiplist"
    );
    c.cmd(&["COPY", "small", "z"]);
    let reads = race(
        &server,
        |w| {
            assert_eq!(int(&w.cmd(&["COPY", "big", "z", "REPLACE"])), 1);
            assert_eq!(int(&w.cmd(&["COPY", "small", "z", "REPLACE"])), 1);
        },
        |r| {
            assert!(int(&r.cmd(&["ZCARD", "z"])) >= 1);
            assert_eq!(text(&r.cmd(&["ZSCORE", "z", "m"])).as_deref(), Some("1"));
            assert_eq!(int(&r.cmd(&["ZRANK", "z", "m"])), 0);
        },
    );
    assert!(reads > 100, "{reads}");
}
