//! A large group's pending entries are chunks of the stream (a tree of
//! leaves after the entry nodes), so acknowledging, delivering or
//! claiming a few of 20,000 pending entries logs a few leaves and the
//! head, not the pending list; the chunks never leak or go missing
//! (census) through deletes, copies, renames and group removal; and a
//! restart from the log reads the same groups.

use crate::common::model::{journaled, recorded};
use crate::common::{Client, Value};
use crate::stream_large::logged;

/// Adds entries `from..=to` (`<i>-0`, one field), pipelined.
fn fill(c: &mut Client, key: &str, from: u64, to: u64) {
    for batch in (from..=to).collect::<Vec<_>>().chunks(1000) {
        for i in batch {
            let id = format!("{i}-0");
            c.send(&[b"XADD", key.as_bytes(), id.as_bytes(), b"f", b"v"]);
        }
        for i in batch {
            assert_eq!(c.read(), Value::bulk(&format!("{i}-0")));
        }
    }
}

/// `XREADGROUP` of up to `count` new entries of `key`.
pub fn read_group(c: &mut Client, group: &str, consumer: &str, count: &str, key: &str) -> Value {
    let read = [
        "XREADGROUP",
        "GROUP",
        group,
        consumer,
        "COUNT",
        count,
        "STREAMS",
        key,
        ">",
    ];
    c.cmd(&read)
}

/// A stream `s` of 20,000 entries all pending in group `g` (alice's).
fn pending_20k(c: &mut Client) {
    fill(c, "s", 1, 20_000);
    assert_eq!(c.cmd(&["XGROUP", "CREATE", "s", "g", "0"]), Value::ok());
    let got = read_group(c, "g", "alice", "20000", "s");
    assert_eq!(got.array()[0].array()[1].array().len(), 20_000);
}

#[test]
fn a_change_to_a_large_pending_list_logs_a_few_leaves_not_the_list() {
    let (server, mut c, sizes) = journaled();
    pending_20k(&mut c);
    // The pending list is about 800 KB as leaves (720 KB in the head it
    // used to live in); a leaf is at most 64 entries, 2.6 KB.
    let small = 8 << 10;
    let ack = logged(&mut c, &sizes, &["XACK", "s", "g", "10000-0"]);
    assert!(ack < small, "XACK logged {ack} bytes");
    let acks = logged(&mut c, &sizes, &["XACK", "s", "g", "1-0", "2-0", "19999-0"]);
    assert!(acks < small, "XACK of three logged {acks} bytes");
    fill(&mut c, "s", 20_001, 20_010);
    let read = logged(
        &mut c,
        &sizes,
        &[
            "XREADGROUP",
            "GROUP",
            "g",
            "bob",
            "COUNT",
            "10",
            "STREAMS",
            "s",
            ">",
        ],
    );
    assert!(read < small, "XREADGROUP of 10 logged {read} bytes");
    let claim = [
        "XCLAIM", "s", "g", "carol", "0", "5000-0", "5001-0", "15000-0",
    ];
    let claimed = logged(&mut c, &sizes, &claim);
    assert!(claimed < small, "XCLAIM of three logged {claimed} bytes");
    let auto = ["XAUTOCLAIM", "s", "g", "dave", "0", "7000-0", "COUNT", "5"];
    let auto = logged(&mut c, &sizes, &auto);
    assert!(auto < small, "XAUTOCLAIM of five logged {auto} bytes");
    let history = ["XREADGROUP", "GROUP", "g", "carol", "STREAMS", "s", "0"];
    let again = logged(&mut c, &sizes, &history);
    assert!(again < 3 * small, "carol's history logged {again} bytes");
    let summary = c.cmd(&["XPENDING", "s", "g"]);
    let want = Value::Array(vec![
        Value::Int(20_006),
        Value::bulk("3-0"),
        Value::bulk("20010-0"),
        Value::Array(vec![
            Value::Array(vec![Value::bulk("alice"), Value::bulk("19988")]),
            Value::Array(vec![Value::bulk("bob"), Value::bulk("10")]),
            Value::Array(vec![Value::bulk("carol"), Value::bulk("3")]),
            Value::Array(vec![Value::bulk("dave"), Value::bulk("5")]),
        ]),
    ]);
    assert_eq!(summary, want);
    let census = server.keyspace.chunk_census();
    assert_eq!((census.orphans, census.missing), (0, 0));
    // 200 entry nodes and the tree.
    assert!(census.chunks > 200 + 20_000 / 64, "{census:?}");
    // Deleting a consumer or the group logs their entries' leaves.
    let del = logged(
        &mut c,
        &sizes,
        &["XGROUP", "DELCONSUMER", "s", "g", "carol"],
    );
    assert!(del < 2 * small, "DELCONSUMER logged {del} bytes");
    assert_eq!(c.cmd(&["XGROUP", "DESTROY", "s", "g"]), Value::Int(1));
    assert_eq!(server.keyspace.chunk_census().chunks, 201);
    c.cmd(&["DEL", "s"]);
    assert_eq!(server.keyspace.chunk_census().chunks, 0);
}

/// What a stream with groups answers, idle times aside.
fn snapshot(c: &mut Client, key: &str) -> Vec<Value> {
    vec![
        c.cmd(&["XLEN", key]),
        c.cmd(&["XPENDING", key, "g"]),
        c.cmd(&["XPENDING", key, "h"]),
        c.cmd(&["XINFO", "STREAM", key, "FULL", "COUNT", "0"]),
        c.cmd(&["XINFO", "GROUPS", key]),
        c.cmd(&["XRANGE", key, "-", "+", "COUNT", "5"]),
    ]
}

/// Two groups with 3,000 and 1,000 pending entries among consumers,
/// some acknowledged, claimed and deleted.
fn groups(c: &mut Client) {
    fill(c, "s", 1, 3_000);
    c.cmd(&["XGROUP", "CREATE", "s", "g", "0"]);
    c.cmd(&["XGROUP", "CREATE", "s", "h", "2000"]);
    for (i, who) in ["a", "b", "c"].iter().enumerate() {
        read_group(c, "g", who, &(500 * (i + 1)).to_string(), "s");
    }
    read_group(c, "h", "x", "0", "s");
    for i in (1..3_000).step_by(7) {
        c.cmd(&["XACK", "s", "g", &format!("{i}-0")]);
    }
    c.cmd(&[
        "XCLAIM", "s", "g", "c", "0", "10-0", "600-0", "2999-0", "FORCE",
    ]);
    c.cmd(&["XDEL", "s", "11-0", "12-0"]);
    c.cmd(&["XAUTOCLAIM", "s", "g", "d", "0", "0", "COUNT", "20"]);
    c.cmd(&["XTRIM", "s", "MAXLEN", "~", "2500"]);
}

#[test]
fn groups_with_large_pending_lists_come_back_from_the_log() {
    let (_server, mut c, records) = recorded();
    groups(&mut c);
    c.cmd(&["PEXPIRE", "s", "100000"]);
    let before = snapshot(&mut c, "s");
    assert!(matches!(before[1].array()[0], Value::Int(n) if n > 2_000));
    let restarted = crate::common::start();
    records.replay_into(&restarted.keyspace);
    let mut c2 = Client::connect(&restarted);
    assert_eq!(snapshot(&mut c2, "s"), before);
    assert_eq!(c2.cmd(&["PTTL", "s"]), c.cmd(&["PTTL", "s"]));
    let census = restarted.keyspace.chunk_census();
    assert_eq!((census.orphans, census.missing), (0, 0));
    // It changes on from there as it would have.
    for c in [&mut c, &mut c2] {
        c.cmd(&["XACK", "s", "g", "100-0", "2000-0"]);
        c.cmd(&["XGROUP", "DELCONSUMER", "s", "g", "b"]);
    }
    assert_eq!(snapshot(&mut c2, "s"), snapshot(&mut c, "s"));
}

#[test]
fn copies_renames_and_dumps_carry_the_pending_chunks() {
    let (server, mut c, _) = journaled();
    groups(&mut c);
    let before = snapshot(&mut c, "s");
    let chunks = server.keyspace.chunk_census().chunks;
    assert_eq!(c.cmd(&["COPY", "s", "t"]), Value::Int(1));
    assert_eq!(server.keyspace.chunk_census().chunks, 2 * chunks);
    assert_eq!(c.cmd(&["RENAME", "s", "u"]), Value::ok());
    assert_eq!(snapshot(&mut c, "t"), before);
    assert_eq!(snapshot(&mut c, "u"), before);
    // A change to the copy leaves the original alone.
    c.cmd(&["XACK", "t", "g", "3-0"]);
    c.cmd(&["XGROUP", "DESTROY", "t", "h"]);
    assert_eq!(snapshot(&mut c, "u"), before);
    let Value::Bulk(dump) = c.cmd(&["DUMP", "u"]) else {
        panic!("DUMP");
    };
    c.cmd_bytes(&[b"RESTORE", b"v", b"0", &dump]);
    assert_eq!(snapshot(&mut c, "v"), before);
    c.cmd(&["DEL", "t", "u", "v"]);
    let census = server.keyspace.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (0, 0, 0));
}
