//! `MEMORY` and `LATENCY` over TCP: what `MEMORY USAGE` counts (records
//! as stored, a large hash's chunks included), the shapes of `MEMORY
//! STATS`, `DOCTOR`, `MALLOC-STATS`, `PURGE` and `HELP` in RESP2 and RESP3,
//! the latency monitor (off at threshold 0, then `command` events from a
//! slow `EVAL`; `LATEST`, `HISTORY`, `GRAPH`, `DOCTOR`, `RESET`), and
//! `LATENCY HISTOGRAM` from the per-command histograms. Error texts are
//! the ones redis-server 7.0.15 gave for the same requests (7.2's where
//! they differ: `HELP`'s last line). The `LATENCY` tests are in
//! `memory_latency/latency.rs`.

use crate::common;

use common::{start, Client, Value};
use strata_kv::Store;

#[path = "memory_latency/latency.rs"]
mod latency;

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        other => panic!("not an integer: {other:?}"),
    }
}

/// The pairs of a map reply (RESP3) or of its flat array (RESP2).
fn pairs(v: &Value) -> Vec<(String, Value)> {
    match v {
        Value::Map(pairs) => pairs.iter().map(|(k, v)| (k.text(), v.clone())).collect(),
        Value::Array(items) => items
            .chunks(2)
            .map(|kv| (kv[0].text(), kv[1].clone()))
            .collect(),
        other => panic!("not a map: {other:?}"),
    }
}

fn field(pairs: &[(String, Value)], name: &str) -> Value {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no {name} in {pairs:?}"))
}

/// A field of `INFO memory`, as MEMORY STATS's integers are typed.
fn info_field(c: &mut Client, field: &str) -> i64 {
    i64::try_from(super::memory::info_field(c, "memory", field)).expect("fits i64")
}

#[test]
fn memory_usage_counts_records_and_chunks() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["MEMORY", "USAGE", "nokey"]), Value::Null);
    c.cmd(&["SET", "k", "v"]);
    let small = int(&c.cmd(&["MEMORY", "USAGE", "k"]));
    assert!(small > 2, "{small}");
    c.cmd(&["SET", "k", &"v".repeat(1001)]);
    let large = int(&c.cmd(&["MEMORY", "USAGE", "k"]));
    assert!(large >= small + 1000, "{small} -> {large}");
    // SAMPLES changes nothing: the figure is exact.
    for samples in ["0", "1", "5", "100"] {
        assert_eq!(
            int(&c.cmd(&["MEMORY", "USAGE", "k", "SAMPLES", samples])),
            large
        );
    }
    let engine = server
        .keyspace
        .store()
        .read_large(b"k", |read| read.footprint())
        .unwrap();
    assert_eq!((engine.records, engine.bytes()), (1, large as u64));

    // Past hash-max-listpack-entries a hash is a head and chunk records:
    // every one counts.
    c.cmd(&["CONFIG", "SET", "hash-max-listpack-entries", "16"]);
    let mut content = 0;
    for i in 0..600 {
        let (f, v) = (
            format!("field:{i}"),
            format!("value:{i}:{}", "x".repeat(40)),
        );
        content += f.len() + v.len();
        c.cmd(&["HSET", "h", &f, &v]);
    }
    assert_eq!(
        c.cmd(&["OBJECT", "ENCODING", "h"]),
        Value::bulk("hashtable")
    );
    let usage = int(&c.cmd(&["MEMORY", "USAGE", "h"]));
    let engine = server
        .keyspace
        .store()
        .read_large(b"h", |read| read.footprint())
        .unwrap();
    let chunks = server.keyspace.chunk_census().chunks;
    assert!(chunks > 1, "{chunks}");
    assert_eq!(engine.records, 1 + chunks);
    assert_eq!(usage as u64, engine.bytes());
    assert!(usage as usize > content, "{usage} <= {content}");
    c.cmd(&["DEL", "h"]);
    assert_eq!(c.cmd(&["MEMORY", "USAGE", "h"]), Value::Null);
    assert_eq!(server.keyspace.chunk_census().chunks, 0);

    // Inside a transaction, as anywhere.
    c.cmd(&["MULTI"]);
    assert_eq!(
        c.cmd(&["MEMORY", "USAGE", "k"]),
        Value::Simple("QUEUED".into())
    );
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::Int(large)]));
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "MEMORY", "USAGE", "k"]),
        Value::Array(vec![Value::bulk("k")])
    );
}

#[test]
fn memory_usage_options_as_redis_parses_them() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "k", "v"]);
    let syntax = Value::err("ERR syntax error");
    for args in [
        &["MEMORY", "USAGE", "k", "SAMPLES"][..],
        &["MEMORY", "USAGE", "k", "SAMPLES", "-1"],
        &["MEMORY", "USAGE", "k", "FOO", "1"],
        &["MEMORY", "USAGE", "nokey", "SAMPLES", "1", "x"],
    ] {
        assert_eq!(c.cmd(args), syntax, "{args:?}");
    }
    assert_eq!(
        c.cmd(&["MEMORY", "USAGE", "nokey", "SAMPLES", "abc"]),
        Value::err("ERR value is not an integer or out of range")
    );
    // Options are checked before the key is looked up.
    assert_eq!(
        c.cmd(&["MEMORY", "USAGE", "nokey", "samples", "0", "SAMPLES", "3"]),
        Value::Null
    );
    assert_eq!(
        c.cmd(&["MEMORY", "USAGE"]),
        Value::err("ERR wrong number of arguments for 'memory|usage' command")
    );
    assert_eq!(
        c.cmd(&["MEMORY"]),
        Value::err("ERR wrong number of arguments for 'memory' command")
    );
    assert_eq!(
        c.cmd(&["MEMORY", "foo"]),
        Value::err("ERR unknown subcommand 'foo'. Try MEMORY HELP.")
    );
    for sub in ["help", "stats", "doctor", "purge", "malloc-stats"] {
        assert_eq!(
            c.cmd(&["MEMORY", sub, "x"]),
            Value::err(&format!(
                "ERR wrong number of arguments for 'memory|{sub}' command"
            ))
        );
    }
}

const STATS_FIELDS: [&str; 27] = [
    "peak.allocated",
    "total.allocated",
    "startup.allocated",
    "replication.backlog",
    "clients.slaves",
    "clients.normal",
    "cluster.links",
    "aof.buffer",
    "lua.caches",
    "functions.caches",
    "overhead.total",
    "keys.count",
    "keys.bytes-per-key",
    "dataset.bytes",
    "dataset.percentage",
    "peak.percentage",
    "allocator.allocated",
    "allocator.active",
    "allocator.resident",
    "allocator-fragmentation.ratio",
    "allocator-fragmentation.bytes",
    "allocator-rss.ratio",
    "allocator-rss.bytes",
    "rss-overhead.ratio",
    "rss-overhead.bytes",
    "fragmentation",
    "fragmentation.bytes",
];

#[test]
fn memory_stats_in_both_protocols() {
    let server = start();
    let mut c = Client::connect(&server);
    // Empty: no db.0.
    let stats = pairs(&c.cmd(&["MEMORY", "STATS"]));
    let names: Vec<&str> = stats.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, STATS_FIELDS);
    assert_eq!(field(&stats, "keys.count"), Value::Int(0));
    assert_eq!(
        field(&stats, "total.allocated"),
        field(&stats, "startup.allocated")
    );

    for i in 0..200 {
        c.cmd(&["SET", &format!("key:{i}"), &"x".repeat(100)]);
    }
    c.cmd(&["EVAL", "return 1", "0"]);
    let used = info_field(&mut c, "used_memory");
    let peak = info_field(&mut c, "used_memory_peak");
    let stats = pairs(&c.cmd(&["MEMORY", "STATS"]));
    let names: Vec<&str> = stats.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names[..10], STATS_FIELDS[..10]);
    assert_eq!(names[10], "db.0");
    assert_eq!(names[11..], STATS_FIELDS[10..]);
    let n = |name: &str| int(&field(&stats, name));
    assert_eq!(n("total.allocated"), used);
    assert_eq!(n("peak.allocated"), peak);
    assert!(n("startup.allocated") > 0 && n("startup.allocated") < used);
    assert_eq!(n("keys.count"), 200);
    assert_eq!(n("dataset.bytes") + n("overhead.total"), used);
    assert!(n("dataset.bytes") > 200 * 100);
    assert_eq!(
        n("keys.bytes-per-key"),
        (used - n("startup.allocated")) / 200
    );
    assert!(n("clients.normal") > 0, "this client's buffers");
    assert!(n("lua.caches") > 0, "the EVAL's script");
    for zero in [
        "replication.backlog",
        "clients.slaves",
        "cluster.links",
        "aof.buffer",
    ] {
        assert_eq!(n(zero), 0, "{zero}");
    }
    let db = pairs(&field(&stats, "db.0"));
    let db_names: Vec<&str> = db.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        db_names,
        [
            "overhead.hashtable.main",
            "overhead.hashtable.expires",
            "overhead.hashtable.slot-to-keys"
        ]
    );
    assert_eq!(
        int(&db[0].1) + n("startup.allocated"),
        n("overhead.total"),
        "the index"
    );
    // RESP2 doubles are bulk strings; RESP3 ones doubles, in a map.
    let percent: f64 = field(&stats, "dataset.percentage").text().parse().unwrap();
    assert!(percent > 0.0 && percent <= 100.0, "{percent}");
    c.cmd(&["HELLO", "3"]);
    let reply = c.cmd(&["MEMORY", "STATS"]);
    assert!(matches!(reply, Value::Map(_)), "{reply:?}");
    let stats = pairs(&reply);
    assert!(matches!(field(&stats, "peak.percentage"), Value::Double(_)));
    assert!(matches!(field(&stats, "db.0"), Value::Map(_)));
    assert!(matches!(field(&stats, "fragmentation"), Value::Double(_)));
}

#[test]
fn memory_doctor_malloc_stats_purge_and_help() {
    let server = start();
    let mut c = Client::connect(&server);
    let empty = "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n";
    assert_eq!(c.cmd(&["MEMORY", "DOCTOR"]), Value::bulk(empty));
    assert_eq!(
        c.cmd(&["MEMORY", "MALLOC-STATS"]),
        Value::bulk("Stats not supported for the current allocator")
    );
    assert_eq!(c.cmd(&["MEMORY", "PURGE"]), Value::ok());
    let help = c.cmd(&["MEMORY", "HELP"]);
    let lines: Vec<String> = help.array().iter().map(Value::text).collect();
    assert_eq!(lines.len(), 14);
    assert_eq!(
        lines[0],
        "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    );
    assert_eq!(lines[9], "USAGE <key> [SAMPLES <count>]");
    assert_eq!(lines[12..], ["HELP", "    Print this help."]);
    assert!(help.array().iter().all(|l| matches!(l, Value::Simple(_))));
    // Past 5 MiB with nothing to warn of.
    for i in 0..60 {
        c.cmd(&["SET", &format!("big:{i}"), &"x".repeat(100_000)]);
    }
    c.cmd(&["HELLO", "3"]);
    assert_eq!(
        c.cmd(&["MEMORY", "DOCTOR"]),
        Value::Verbatim(
            "txt".into(),
            b"Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n".to_vec()
        )
    );
}
