//! Large streams: past one node (100 entries) or 8 KiB a stream is a head
//! and one chunk per node, so a change logs the nodes it touches and the
//! head, not the stream; chunks never leak (census), and a restart from
//! the log reads the same stream.

use crate::common::model::{journaled, recorded};
use crate::common::{bulks, Client, Value};

/// The size of the journal record `cmd` appended (exactly one).
pub fn logged(c: &mut Client, sizes: &crate::common::model::Sizes, cmd: &[&str]) -> usize {
    let before = sizes.0.lock().unwrap().len();
    let reply = c.cmd(cmd);
    assert!(!matches!(reply, Value::Error(_)), "{cmd:?}: {reply:?}");
    let sizes = sizes.0.lock().unwrap();
    assert_eq!(sizes.len(), before + 1, "{cmd:?} logged one record");
    sizes[before]
}

fn fill(c: &mut Client, key: &str, from: u64, to: u64) {
    for i in from..=to {
        let id = format!("{i}-0");
        assert_eq!(c.cmd(&["XADD", key, &id, "f", "v"]), Value::bulk(&id));
    }
}

#[test]
fn a_change_to_a_large_stream_logs_what_it_touches_not_the_stream() {
    let (server, mut c, sizes) = journaled();
    fill(&mut c, "s", 1, 5_000);
    assert_eq!(c.cmd(&["XLEN", "s"]), Value::Int(5_000));
    // 5,000 entries are about 150 KB; a node is at most about 3 KB.
    let small = 4 << 10;
    assert!(logged(&mut c, &sizes, &["XADD", "s", "5001-0", "f", "v"]) < small);
    assert!(logged(&mut c, &sizes, &["XDEL", "s", "2500-0"]) < small);
    assert!(logged(&mut c, &sizes, &["XTRIM", "s", "MAXLEN", "~", "4000"]) < small);
    assert!(logged(&mut c, &sizes, &["XGROUP", "CREATE", "s", "g", "0"]) < small);
    let read = [
        "XREADGROUP",
        "GROUP",
        "g",
        "a",
        "COUNT",
        "10",
        "STREAMS",
        "s",
        ">",
    ];
    assert!(logged(&mut c, &sizes, &read) < small);
    assert!(logged(&mut c, &sizes, &["XACK", "s", "g", "1001-0"]) < small);
    // Ten whole nodes went (the one cut by XDEL stays): 4,000 entries in
    // 41 nodes, the last holding 5001-0 alone; the nine pending entries
    // are one more chunk (a leaf of the group's tree).
    assert_eq!(c.cmd(&["XLEN", "s"]), Value::Int(4_000));
    assert_eq!(c.cmd(&["OBJECT", "ENCODING", "s"]), Value::bulk("stream"));
    let census = server.keyspace.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (42, 0, 0));
    c.cmd(&["DEL", "s"]);
    assert_eq!(server.keyspace.chunk_census().chunks, 0);
}

#[test]
fn ranges_reads_and_deletes_cross_nodes_and_skip_emptied_ones() {
    let (server, mut c, _) = journaled();
    fill(&mut c, "s", 1, 350);
    // Empty the second node (101..=200) entirely: it stays, empty.
    let ids: Vec<String> = (101..=200).map(|i| format!("{i}-0")).collect();
    let mut del = vec!["XDEL", "s"];
    del.extend(ids.iter().map(String::as_str));
    assert_eq!(c.cmd(&del), Value::Int(100));
    let range = c.cmd(&["XRANGE", "s", "99", "202", "COUNT", "3"]);
    let firsts: Vec<Value> = range.array().iter().map(|e| e.array()[0].clone()).collect();
    assert_eq!(
        firsts,
        [
            Value::bulk("99-0"),
            Value::bulk("100-0"),
            Value::bulk("201-0")
        ]
    );
    let back = c.cmd(&["XREVRANGE", "s", "202", "99", "COUNT", "3"]);
    let firsts: Vec<Value> = back.array().iter().map(|e| e.array()[0].clone()).collect();
    assert_eq!(
        firsts,
        [
            Value::bulk("202-0"),
            Value::bulk("201-0"),
            Value::bulk("100-0")
        ]
    );
    assert_eq!(c.cmd(&["XRANGE", "s", "150", "160"]), Value::Array(vec![]));
    let read = c.cmd(&["XREAD", "COUNT", "1", "STREAMS", "s", "150"]);
    let want = Value::Array(vec![Value::Array(vec![
        Value::bulk("s"),
        Value::Array(vec![Value::Array(vec![
            Value::bulk("201-0"),
            bulks(&["f", "v"]),
        ])]),
    ])]);
    assert_eq!(read, want);
    // Trimming past the empty node drops it with the first.
    assert_eq!(c.cmd(&["XTRIM", "s", "MINID", "~", "250"]), Value::Int(100));
    assert_eq!(c.cmd(&["XLEN", "s"]), Value::Int(150));
    let census = server.keyspace.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (2, 0, 0));
    // Deleting every entry of the last node frees it.
    let last: Vec<String> = (301..=350).map(|i| format!("{i}-0")).collect();
    let mut del = vec!["XDEL", "s"];
    del.extend(last.iter().map(String::as_str));
    assert_eq!(c.cmd(&del), Value::Int(50));
    assert_eq!(server.keyspace.chunk_census().chunks, 1);
    fill(&mut c, "s", 400, 400);
    assert_eq!(
        server.keyspace.chunk_census().chunks,
        2,
        "a new node after the freed one"
    );
}

#[test]
fn a_stream_of_large_entries_turns_large_by_bytes_and_restarts() {
    let (_server, mut c, records) = recorded();
    let big = "x".repeat(3000);
    for i in 1..=10 {
        c.cmd(&["XADD", "s", &format!("{i}-0"), "f", &big]);
    }
    c.cmd(&["XGROUP", "CREATE", "s", "g", "0"]);
    c.cmd(&[
        "XREADGROUP",
        "GROUP",
        "g",
        "a",
        "COUNT",
        "4",
        "STREAMS",
        "s",
        ">",
    ]);
    c.cmd(&["EXPIRE", "s", "1000"]);
    let snapshot = |c: &mut Client| {
        (
            c.cmd(&["XRANGE", "s", "-", "+"]),
            c.cmd(&["XINFO", "STREAM", "s"]),
            c.cmd(&["XPENDING", "s", "g"]),
            c.cmd(&["TTL", "s"]),
        )
    };
    let before = snapshot(&mut c);
    let restarted = crate::common::start();
    records.replay_into(&restarted.keyspace);
    let mut c = Client::connect(&restarted);
    assert_eq!(snapshot(&mut c), before);
    let census = restarted.keyspace.chunk_census();
    assert_eq!((census.orphans, census.missing), (0, 0));
    assert!(
        census.chunks >= 3,
        "8 KiB nodes of 3 KB entries: {census:?}"
    );
}

#[test]
fn appends_within_the_padded_last_node_rewrite_it_in_place() {
    let (server, mut c, _) = journaled();
    fill(&mut c, "s", 1, 150);
    let used = server.keyspace.stats().used_memory;
    // Entries 151..=160 land in the last node (51 entries, well within its
    // 4 KiB of room): the node and the head are overwritten, no memory
    // is written anew.
    fill(&mut c, "s", 151, 160);
    assert_eq!(server.keyspace.stats().used_memory, used);
    let range = c.cmd(&["XRANGE", "s", "150", "+"]);
    assert_eq!(range.array().len(), 11);
    // A new node: the old last one is written once more, without padding.
    fill(&mut c, "s", 161, 200);
    fill(&mut c, "s", 201, 201);
    assert_eq!(server.keyspace.chunk_census().chunks, 3);
    assert_eq!(c.cmd(&["XLEN", "s"]), Value::Int(201));
}
