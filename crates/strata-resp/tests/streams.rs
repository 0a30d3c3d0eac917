//! Streams over TCP beyond what the comparison with Redis covers
//! (`stream_diff.rs`): `XADD *` on the server's clock, `XREAD BLOCK`
//! (woken by `XADD`, every reader at once, `$` fixed at the first
//! attempt, timeouts), `XREADGROUP` delivery and history, blocking inside
//! `MULTI` and scripts, RESP3 replies, `TYPE`/`OBJECT ENCODING`, and a
//! restart from the command log.

use std::time::{Duration, Instant};

use crate::common::model::recorded;
use crate::common::{self, bulks, Client, Value, T0_MS};

fn entry(id: &str, fields: &[&str]) -> Value {
    Value::Array(vec![Value::bulk(id), bulks(fields)])
}

fn served(key: &str, entries: Vec<Value>) -> Value {
    Value::Array(vec![Value::bulk(key), Value::Array(entries)])
}

#[test]
fn auto_ids_follow_the_clock_and_never_go_back() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let t = T0_MS.to_string();
    assert_eq!(
        c.cmd(&["XADD", "s", "*", "a", "1"]),
        Value::bulk(&format!("{t}-0"))
    );
    assert_eq!(
        c.cmd(&["XADD", "s", "*", "a", "2"]),
        Value::bulk(&format!("{t}-1"))
    );
    server.clock.advance_ms(5);
    let later = (T0_MS + 5).to_string();
    assert_eq!(
        c.cmd(&["XADD", "s", "*", "a", "3"]),
        Value::bulk(&format!("{later}-0"))
    );
    // An explicit id in the future: `*` keeps counting from it.
    let ahead = T0_MS + 1_000_000;
    let ahead_id = format!("{ahead}-7");
    assert_eq!(
        c.cmd(&["XADD", "s", &ahead_id, "a", "4"]),
        Value::bulk(&ahead_id)
    );
    assert_eq!(
        c.cmd(&["XADD", "s", "*", "a", "5"]),
        Value::bulk(&format!("{ahead}-8"))
    );
    assert_eq!(c.cmd(&["TYPE", "s"]), Value::Simple("stream".into()));
    assert_eq!(c.cmd(&["OBJECT", "ENCODING", "s"]), Value::bulk("stream"));
    assert_eq!(
        c.cmd(&["LPUSH", "s", "x"]),
        Value::err("WRONGTYPE Operation against a key holding the wrong kind of value")
    );
    assert_eq!(
        c.cmd(&["XADD", "s", "NOMKSTREAM", "*", "a", "1"]),
        Value::bulk(&format!("{ahead}-9"))
    );
    assert_eq!(
        c.cmd(&["XADD", "t", "NOMKSTREAM", "*", "a", "1"]),
        Value::Null
    );
    assert_eq!(c.cmd(&["EXISTS", "t"]), Value::Int(0));
}

#[test]
fn a_blocked_xread_is_woken_by_xadd_with_only_what_came_after_it() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["XADD", "s", "1-1", "old", "1"]);
    let mut readers: Vec<Client> = (0..2).map(|_| Client::connect(&server)).collect();
    for r in &mut readers {
        r.send(&[b"XREAD", b"BLOCK", b"0", b"STREAMS", b"s", b"$"]);
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(c.cmd(&["XADD", "s", "2-1", "new", "2"]), Value::bulk("2-1"));
    // Every reader gets it: reading a stream consumes nothing.
    for r in &mut readers {
        let want = Value::Array(vec![served("s", vec![entry("2-1", &["new", "2"])])]);
        assert_eq!(r.read(), want);
    }
    // A second XADD was not waited for by anyone: the readers are free.
    assert_eq!(readers[0].cmd(&["PING"]), Value::Simple("PONG".into()));
}

#[test]
fn a_blocked_xread_waits_past_a_push_to_another_key_and_times_out() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let mut r = Client::connect(&server);
    let started = Instant::now();
    r.send(&[b"XREAD", b"BLOCK", b"300", b"STREAMS", b"s", b"0"]);
    std::thread::sleep(Duration::from_millis(50));
    c.cmd(&["XADD", "other", "1-1", "f", "v"]);
    assert_eq!(r.read(), Value::NullArray);
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(
        c.cmd(&["XREAD", "BLOCK", "-1", "STREAMS", "s", "0"]),
        Value::err("ERR timeout is negative")
    );
    assert_eq!(
        c.cmd(&["XREAD", "BLOCK", "1.5", "STREAMS", "s", "0"]),
        Value::err("ERR timeout is not an integer or out of range")
    );
}

#[test]
fn xreadgroup_delivers_new_entries_once_and_history_on_request() {
    let server = common::start();
    let mut c = Client::connect(&server);
    for i in 1..=3 {
        c.cmd(&["XADD", "s", &format!("{i}-0"), "n", &i.to_string()]);
    }
    c.cmd(&["XGROUP", "CREATE", "s", "g", "0"]);
    let read = |c: &mut Client, who: &str, id: &str| {
        c.cmd(&[
            "XREADGROUP",
            "GROUP",
            "g",
            who,
            "COUNT",
            "2",
            "STREAMS",
            "s",
            id,
        ])
    };
    let first = Value::Array(vec![served(
        "s",
        vec![entry("1-0", &["n", "1"]), entry("2-0", &["n", "2"])],
    )]);
    assert_eq!(read(&mut c, "alice", ">"), first);
    let rest = Value::Array(vec![served("s", vec![entry("3-0", &["n", "3"])])]);
    assert_eq!(read(&mut c, "bob", ">"), rest);
    assert_eq!(read(&mut c, "bob", ">"), Value::NullArray);
    // Alice's history: what she was given, a deleted entry as nil.
    c.cmd(&["XDEL", "s", "2-0"]);
    let history = Value::Array(vec![served(
        "s",
        vec![
            entry("1-0", &["n", "1"]),
            Value::Array(vec![Value::bulk("2-0"), Value::NullArray]),
        ],
    )]);
    assert_eq!(read(&mut c, "alice", "0"), history);
    assert_eq!(
        read(&mut c, "carol", "0"),
        Value::Array(vec![served("s", vec![])])
    );
    assert_eq!(
        read(&mut c, "alice", "$"),
        Value::err("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
    );
    assert_eq!(
        c.cmd(&["XREADGROUP", "GROUP", "nope", "a", "STREAMS", "s", ">"]),
        Value::err(
            "NOGROUP No such key 's' or consumer group 'nope' in XREADGROUP with GROUP option"
        )
    );
}

#[test]
fn a_blocked_xreadgroup_gets_the_next_entry_and_others_wait_on() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]);
    let mut readers: Vec<Client> = (0..2).map(|_| Client::connect(&server)).collect();
    for (i, r) in readers.iter_mut().enumerate() {
        let name = format!("c{i}");
        let args: Vec<&[u8]> = vec![
            b"XREADGROUP",
            b"GROUP",
            b"g",
            name.as_bytes(),
            b"BLOCK",
            b"2000",
            b"STREAMS",
            b"s",
            b">",
        ];
        r.send(&args);
    }
    std::thread::sleep(Duration::from_millis(200));
    c.cmd(&["XADD", "s", "5-0", "job", "a"]);
    std::thread::sleep(Duration::from_millis(200));
    c.cmd(&["XADD", "s", "6-0", "job", "b"]);
    let mut got: Vec<Value> = readers.iter_mut().map(Client::read).collect();
    got.sort_by_key(|v| format!("{v:?}"));
    let want = vec![
        Value::Array(vec![served("s", vec![entry("5-0", &["job", "a"])])]),
        Value::Array(vec![served("s", vec![entry("6-0", &["job", "b"])])]),
    ];
    assert_eq!(got, want, "each entry went to exactly one consumer");
}

#[test]
fn blocking_reads_answer_at_once_in_multi_and_are_refused_in_scripts() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["MULTI"]);
    c.cmd(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]);
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::NullArray]));
    let reply = c.cmd(&[
        "EVAL",
        "return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', KEYS[1], '$')",
        "1",
        "s",
    ]);
    let Value::Error(text) = reply else {
        panic!("{reply:?}");
    };
    assert!(
        text.starts_with("ERR XREAD command is not allowed with BLOCK option from scripts"),
        "{text}"
    );
}

#[test]
fn resp3_reads_are_maps_by_key() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["HELLO", "3"]);
    c.cmd(&["XADD", "a", "1-0", "f", "v"]);
    let reply = c.cmd(&["XREAD", "STREAMS", "a", "b", "0", "0"]);
    let want = Value::Map(vec![(
        Value::bulk("a"),
        Value::Array(vec![entry("1-0", &["f", "v"])]),
    )]);
    assert_eq!(reply, want);
    assert_eq!(c.cmd(&["XREAD", "STREAMS", "b", "0"]), Value::Null);
}

#[test]
fn streams_and_their_groups_come_back_from_the_log() {
    let (_server, mut c, records) = recorded();
    for i in 1..=250 {
        c.cmd(&[
            "XADD",
            "s",
            "MAXLEN",
            "~",
            "120",
            &format!("{i}-0"),
            "n",
            &i.to_string(),
        ]);
    }
    c.cmd(&["XDEL", "s", "200-0"]);
    c.cmd(&["XGROUP", "CREATE", "s", "g", "0"]);
    c.cmd(&[
        "XREADGROUP",
        "GROUP",
        "g",
        "alice",
        "COUNT",
        "3",
        "STREAMS",
        "s",
        ">",
    ]);
    c.cmd(&["PEXPIRE", "s", "100000"]);
    let read_all = |c: &mut Client| {
        (
            c.cmd(&["XRANGE", "s", "-", "+"]),
            c.cmd(&["XLEN", "s"]),
            c.cmd(&["XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0"]),
            c.cmd(&["PTTL", "s"]),
        )
    };
    let before = read_all(&mut c);
    assert_eq!(
        before.1,
        Value::Int(149),
        "approximate trims keep whole nodes"
    );
    let restarted = common::start();
    records.replay_into(&restarted.keyspace);
    let mut c = Client::connect(&restarted);
    assert_eq!(read_all(&mut c), before);
    // The node structure came back too: the next approximate trim agrees.
    // Nodes 101..=200 (less 200) and 201..=250: only the first goes.
    assert_eq!(c.cmd(&["XTRIM", "s", "MAXLEN", "~", "40"]), Value::Int(99));
    assert_eq!(c.cmd(&["XLEN", "s"]), Value::Int(50));
}

#[test]
fn watch_sees_stream_changes_packed_and_large() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let mut other = Client::connect(&server);
    for (key, n) in [("small", 3), ("big", 300)] {
        for i in 1..=n {
            c.cmd(&["XADD", key, &format!("{i}-0"), "f", "v"]);
        }
        for change in [
            vec!["XADD", key, "*", "f", "v"],
            vec!["XDEL", key, "2-0"],
            vec!["XTRIM", key, "MAXLEN", "1"],
            vec!["XGROUP", "CREATE", key, "g", "0"],
        ] {
            c.cmd(&["WATCH", key]);
            other.cmd(&change);
            c.cmd(&["MULTI"]);
            c.cmd(&["XLEN", key]);
            assert_eq!(c.cmd(&["EXEC"]), Value::NullArray, "{change:?} on {key}");
        }
        // A read changes nothing a watcher cares about.
        c.cmd(&["WATCH", key]);
        other.cmd(&["XRANGE", key, "-", "+"]);
        c.cmd(&["MULTI"]);
        c.cmd(&["PING"]);
        assert_eq!(
            c.cmd(&["EXEC"]),
            Value::Array(vec![Value::Simple("PONG".into())])
        );
    }
}
