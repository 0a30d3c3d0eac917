//! Redis Cluster mode on one node, compared with a real one-node Redis
//! cluster (`redis-server --cluster-enabled yes`, every slot added to it):
//! `CLUSTER` subcommands (the node's id, address and port normalised),
//! `CROSSSLOT` for requests, transactions and scripts, `SELECT`, `MOVE`,
//! `SWAPDB`, `READONLY`/`READWRITE`/`ASKING`, in RESP2 and RESP3.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::common::peer::{spawn_redis_with, PeerRedis};
use crate::common::{self, Client, Value};

/// A one-node Redis cluster owning every slot, its cluster state `ok`.
/// Each gets its own nodes file: a second node on the same one refuses to
/// start (tests run concurrently in one process).
fn redis_cluster() -> (PeerRedis, String) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let conf = format!(
        "strata-test-nodes-{}-{}.conf",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let peer = spawn_redis_with(&["--cluster-enabled", "yes", "--cluster-config-file", &conf])
        .expect("redis-server is needed for this comparison (scripts/test installs it)");
    let mut c = peer.client();
    assert_eq!(
        c.cmd(&["CLUSTER", "ADDSLOTSRANGE", "0", "16383"]),
        Value::ok()
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !c
        .cmd(&["CLUSTER", "INFO"])
        .text()
        .contains("cluster_state:ok")
    {
        assert!(
            Instant::now() < deadline,
            "the Redis cluster did not come up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (peer, format!("/tmp/{conf}"))
}

const CASES: &[&str] = &[
    "CLUSTER INFO",
    "CLUSTER MYID",
    "CLUSTER SLOTS",
    "CLUSTER SHARDS",
    "CLUSTER NODES",
    "CLUSTER LINKS",
    "CLUSTER REPLICAS $ID",
    "CLUSTER SLAVES $ID",
    "CLUSTER REPLICAS abc",
    "CLUSTER COUNT-FAILURE-REPORTS $ID",
    "CLUSTER COUNT-FAILURE-REPORTS abc",
    "CLUSTER KEYSLOT foo",
    "CLUSTER KEYSLOT {user1000}.following",
    "CLUSTER KEYSLOT",
    "CLUSTER COUNTKEYSINSLOT 12182",
    "CLUSTER COUNTKEYSINSLOT 16384",
    "CLUSTER COUNTKEYSINSLOT -1",
    "CLUSTER COUNTKEYSINSLOT x",
    "CLUSTER GETKEYSINSLOT 12182 10",
    "CLUSTER GETKEYSINSLOT 12182 0",
    "CLUSTER GETKEYSINSLOT 12182 -1",
    "CLUSTER GETKEYSINSLOT 16384 1",
    "CLUSTER GETKEYSINSLOT x 1",
    "CLUSTER ADDSLOTS 5 6",
    "CLUSTER ADDSLOTS x",
    "CLUSTER ADDSLOTS 16384",
    "CLUSTER ADDSLOTSRANGE 5 1",
    "CLUSTER ADDSLOTSRANGE 1 5",
    "CLUSTER ADDSLOTSRANGE 1 5 7",
    "CLUSTER FORGET $ID",
    "CLUSTER FORGET abc",
    "CLUSTER REPLICATE $ID",
    "CLUSTER REPLICATE abc",
    "CLUSTER FAILOVER",
    "CLUSTER FAILOVER FORCE",
    "CLUSTER FAILOVER x",
    "CLUSTER SET-CONFIG-EPOCH -1",
    "CLUSTER SAVECONFIG",
    "CLUSTER bogus",
    "READONLY",
    "READWRITE",
    "ASKING",
    "SELECT 0",
    "SELECT 1",
    "SELECT x",
    "MOVE foo 1",
    "SWAPDB 0 1",
    "SET foo bar",
    "MSET a 1 b 2",
    "MSET {a}x 1 {a}y 2",
    "MGET {a}x {a}y",
    "MGET a b",
    "DEL a b",
    "SUNIONSTORE {s}d {s}1 {s}2",
    "SUNIONSTORE d {s}1",
    "ZUNION 2 {z}1 {z}2 WEIGHTS 1 2",
    "ZUNION 2 {z}1 z2",
    "RENAME foo {foo}new",
    "RENAME foo bar",
    "EVAL return 1 2 a b",
    "EVAL return 1 2 {a}1 {a}2",
    "EVAL return 1 0",
    "XREAD STREAMS s1 s2 0 0",
    "SORT l BY w_* STORE dst",
    "CLUSTER COUNTKEYSINSLOT 12182",
    "CLUSTER GETKEYSINSLOT 12182 10",
    "HELLO 3",
    "CLUSTER SLOTS",
    "CLUSTER SHARDS",
    "CLUSTER INFO",
    "CLUSTER NODES",
    "HELLO 2",
];

/// Replaces what differs between two nodes (id, address, port; HELLO's
/// server fields; the replication offset) by placeholders.
fn normalise(v: Value, id: &str, port: u16) -> Value {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    match v {
        Value::Bulk(b) if b == id.as_bytes() => Value::bulk("ID"),
        Value::Bulk(b) if b.is_empty() || b == b"127.0.0.1" => Value::bulk("IP"),
        Value::Int(p) if p == i64::from(port) => Value::Int(-1),
        Value::Verbatim(f, b) => Value::Verbatim(f, node_line(&text(&b), id, port).into_bytes()),
        Value::Bulk(b) if text(&b).contains(id) => {
            Value::Bulk(node_line(&text(&b), id, port).into_bytes())
        }
        Value::Array(items) => {
            let mut out: Vec<Value> = Vec::with_capacity(items.len());
            for item in items {
                let after_offset = out.last().is_some_and(is_replication_offset);
                out.push(match after_offset {
                    true => Value::Int(0),
                    false => normalise(item, id, port),
                });
            }
            Value::Array(out)
        }
        Value::Set(items) => {
            Value::Set(items.into_iter().map(|i| normalise(i, id, port)).collect())
        }
        Value::Map(pairs) => Value::Map(
            pairs
                .into_iter()
                .filter(|(k, _)| !matches!(k, Value::Bulk(b) if b == b"version" || b == b"id"))
                .map(|(k, v)| match is_replication_offset(&k) {
                    true => (k, Value::Int(0)),
                    false => (normalise(k, id, port), normalise(v, id, port)),
                })
                .collect(),
        ),
        other => other,
    }
}

/// `CLUSTER SHARDS`' `replication-offset` key: Redis's grows with what
/// its replication backlog has seen (which varies from run to run, 0 or
/// 41 after the same commands); a node without replicas has nothing to
/// compare there.
fn is_replication_offset(v: &Value) -> bool {
    matches!(v, Value::Bulk(b) if b == b"replication-offset")
}

fn node_line(line: &str, id: &str, port: u16) -> String {
    line.replace(id, "ID")
        .replace(
            &format!("127.0.0.1:{port}@{}", u32::from(port) + 10_000),
            "ADDR",
        )
        .replace(&format!(":{port}@{}", u32::from(port) + 10_000), "ADDR")
}

/// A one-node Redis cluster (and its config file) and a Strata in
/// cluster mode, with a client of each.
pub(crate) fn both_clusters() -> (PeerRedis, String, common::Server, Client, Client) {
    let (peer, conf) = redis_cluster();
    let server = common::start_cluster();
    let (redis, strata) = (peer.client(), Client::connect(&server));
    (peer, conf, server, redis, strata)
}

#[test]
fn answers_match_a_one_node_redis_cluster() {
    let (peer, conf, server, mut redis, mut strata) = both_clusters();
    let ids: Vec<String> = [&mut redis, &mut strata]
        .into_iter()
        .map(|c| c.cmd(&["CLUSTER", "MYID"]).text())
        .collect();
    let ports = [peer.port, server.addr.port()];
    for resp in ["2", "3"] {
        for c in [&mut redis, &mut strata] {
            c.cmd(&["HELLO", resp]);
            c.cmd(&["FLUSHALL"]);
        }
        for case in CASES {
            let mut got = Vec::new();
            for (k, c) in [&mut redis, &mut strata].into_iter().enumerate() {
                let words: Vec<String> =
                    case.split(' ').map(|w| w.replace("$ID", &ids[k])).collect();
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                let mut reply = c.cmd(&words);
                if let (true, Value::Array(flat)) = (case.starts_with("HELLO"), &reply) {
                    // RESP2's HELLO: the map's pairs, flat.
                    let pairs = flat.chunks(2).map(|p| (p[0].clone(), p[1].clone()));
                    reply = Value::Map(pairs.collect());
                }
                got.push(normalise(reply, &ids[k], ports[k]));
            }
            assert_eq!(got[1], got[0], "`{case}` in RESP{resp}");
        }
    }
    let _ = std::fs::remove_file(conf);
}

#[test]
fn transactions_keep_to_one_slot() {
    let (peer, conf) = redis_cluster();
    let server = common::start_cluster();
    for c in [&mut peer.client(), &mut Client::connect(&server)] {
        // Each queued command in one slot, but not all in the same one:
        // EXEC is refused and the transaction dropped.
        assert_eq!(c.cmd(&["MULTI"]), Value::ok());
        assert_eq!(c.cmd(&["SET", "a", "1"]), Value::Simple("QUEUED".into()));
        assert_eq!(c.cmd(&["SET", "b", "1"]), Value::Simple("QUEUED".into()));
        assert_eq!(
            c.cmd(&["EXEC"]),
            Value::err("CROSSSLOT Keys in request don't hash to the same slot")
        );
        assert_eq!(c.cmd(&["EXEC"]), Value::err("ERR EXEC without MULTI"));
        assert_eq!(c.cmd(&["GET", "a"]), Value::Null);
        // A queued command across slots dooms the transaction.
        assert_eq!(c.cmd(&["MULTI"]), Value::ok());
        assert_eq!(
            c.cmd(&["MSET", "a", "1", "b", "2"]),
            Value::err("CROSSSLOT Keys in request don't hash to the same slot")
        );
        assert!(matches!(c.cmd(&["EXEC"]), Value::Error(e) if e.starts_with("EXECABORT")));
        // One slot: runs.
        assert_eq!(c.cmd(&["MULTI"]), Value::ok());
        c.cmd(&["SET", "{t}1", "x"]);
        c.cmd(&["INCR", "{t}2"]);
        assert_eq!(
            c.cmd(&["EXEC"]),
            Value::Array(vec![Value::ok(), Value::Int(1)])
        );
    }
    let _ = std::fs::remove_file(conf);
}

#[test]
fn without_cluster_mode_it_is_disabled() {
    let server = common::start();
    let mut c = Client::connect(&server);
    for words in [
        &["CLUSTER", "SLOTS"][..],
        &["READONLY"],
        &["CLUSTER", "KEYSLOT", "a"],
    ] {
        assert_eq!(
            c.cmd(words),
            Value::err("ERR This instance has cluster support disabled")
        );
    }
    assert_eq!(
        c.cmd(&["MSET", "a", "1", "b", "2"]),
        Value::ok(),
        "no slot check"
    );
}

/// Redis 7.2's `CLUSTER MYSHARDID`: the shard's own id (40 hex digits,
/// not the node's), the same at every call; refused without cluster mode.
#[test]
fn the_shard_has_an_id_of_its_own() {
    let server = common::start_cluster();
    let mut c = Client::connect(&server);
    let shard = c.cmd(&["CLUSTER", "MYSHARDID"]).text();
    assert_eq!(shard.len(), 40, "{shard}");
    assert!(
        shard
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
        "{shard}"
    );
    assert_ne!(shard, c.cmd(&["CLUSTER", "MYID"]).text());
    assert_eq!(c.cmd(&["CLUSTER", "MYSHARDID"]).text(), shard);
    assert!(
        matches!(c.cmd(&["CLUSTER", "MYSHARDID", "x"]), Value::Error(e) if e.contains("wrong number of arguments")),
    );
    let help = format!("{:?}", c.cmd(&["CLUSTER", "HELP"]));
    assert!(help.contains("MYSHARDID"), "{help}");
    let standalone = common::start();
    let mut c = Client::connect(&standalone);
    assert_eq!(
        c.cmd(&["CLUSTER", "MYSHARDID"]),
        Value::err("ERR This instance has cluster support disabled")
    );
}
