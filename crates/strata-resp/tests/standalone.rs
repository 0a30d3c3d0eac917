//! `CLUSTER`, `READONLY`, `READWRITE`, `ASKING`, `ROLE`, `REPLICAOF`,
//! `FAILOVER` and `MODULE` answered as a standalone Redis (no
//! `cluster-enabled`, no replicas, no modules) answers them,
//! compared reply by reply with a real one in RESP2 and RESP3, and inside
//! `MULTI` and from a script.

use crate::common::peer::require_redis;
use crate::common::{self, Client, Value};

const CASES: &[&str] = &[
    "CLUSTER",
    "CLUSTER INFO",
    "CLUSTER info",
    "CLUSTER HELP",
    "CLUSTER SLOTS",
    "CLUSTER SHARDS",
    "CLUSTER NODES",
    "CLUSTER MYID",
    "CLUSTER KEYSLOT foo",
    "CLUSTER KEYSLOT",
    "CLUSTER COUNTKEYSINSLOT 1",
    "CLUSTER GETKEYSINSLOT 1 10",
    "CLUSTER ADDSLOTS 1 2",
    "CLUSTER MEET 127.0.0.1 7000",
    "CLUSTER RESET HARD",
    "CLUSTER SLOTS extra",
    "CLUSTER bogus",
    "READONLY",
    "READWRITE",
    "ASKING",
    "READONLY extra",
    "ROLE",
    "ROLE extra",
    "COMMAND INFO readonly readwrite asking role",
    "MODULE",
    "MODULE LIST",
    "MODULE HELP",
    "MODULE bogus",
    "REPLICAOF NO ONE",
    "SLAVEOF no one",
    "REPLICAOF x y",
    "REPLICAOF no",
    "FAILOVER",
    "FAILOVER ABORT",
    "FAILOVER TIMEOUT x",
    "FAILOVER TIMEOUT 0",
    "FAILOVER TO h x",
    "FAILOVER TO h 1 FORCE TIMEOUT 5",
    "FAILOVER bogus",
    "FAILOVER ABORT FORCE",
    "COMMAND INFO module|load replicaof slaveof failover",
];

fn send(c: &mut Client, case: &str) -> Value {
    let words: Vec<&str> = case.split(' ').collect();
    c.cmd(&words)
}

#[test]
fn answers_match_a_standalone_redis() {
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    for resp in ["2", "3"] {
        for c in [&mut redis, &mut strata] {
            c.cmd(&["HELLO", resp]);
        }
        for case in CASES {
            // Redis 7.0 sends RESP3 sets where 7.2 and Strata send arrays.
            if resp == "3" && case.starts_with("COMMAND INFO") {
                continue;
            }
            let want = send(&mut redis, case);
            assert_eq!(send(&mut strata, case), want, "`{case}` in RESP{resp}");
        }
    }
    // The container lists every subcommand Redis 7.0 has, with its arity,
    // and 7.2's MYSHARDID.
    let names = |c: &mut Client| -> Vec<(String, Value)> {
        let info = c.cmd(&["COMMAND", "INFO", "cluster"]);
        let mut subs: Vec<(String, Value)> = info.array()[0].array()[9]
            .array()
            .iter()
            .map(|s| (s.array()[0].text(), s.array()[1].clone()))
            .collect();
        subs.sort_by(|a, b| a.0.cmp(&b.0));
        subs
    };
    for c in [&mut redis, &mut strata] {
        c.cmd(&["HELLO", "2"]);
    }
    let mut want = names(&mut redis);
    assert_eq!(want.len(), 27);
    want.push(("cluster|myshardid".into(), Value::Int(2)));
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(names(&mut strata), want);
}

#[test]
fn inside_multi_and_scripts() {
    let server = common::start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["ROLE"]), Value::Simple("QUEUED".into()));
    assert_eq!(c.cmd(&["CLUSTER", "INFO"]), Value::Simple("QUEUED".into()));
    assert_eq!(
        c.cmd(&["EXEC"]),
        Value::Array(vec![
            Value::Array(vec![
                Value::bulk("master"),
                Value::Int(0),
                Value::Array(vec![])
            ]),
            Value::err("ERR This instance has cluster support disabled"),
        ])
    );
    // ROLE is `noscript`; READONLY is not, and refuses as outside.
    let role = c.cmd(&["EVAL", "return redis.call('ROLE')", "0"]);
    assert!(
        matches!(&role, Value::Error(e) if e.contains("not allowed from script")),
        "{role:?}"
    );
    let readonly = c.cmd(&["EVAL", "return redis.pcall('READONLY')", "0"]);
    assert!(
        matches!(&readonly, Value::Error(e) if e.contains("cluster support disabled")),
        "{readonly:?}"
    );
}

#[test]
fn modules_and_replication_are_refused_saying_why() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let load = c.cmd(&["MODULE", "LOAD", "/x.so"]);
    assert!(
        matches!(&load, Value::Error(e) if e.contains("does not run Redis modules")),
        "{load:?}"
    );
    let follow = c.cmd(&["REPLICAOF", "127.0.0.1", "6380"]);
    assert!(
        matches!(&follow, Value::Error(e) if e.contains("does not replicate")),
        "{follow:?}"
    );
    assert_eq!(
        c.cmd(&["ROLE"]).array()[0],
        Value::bulk("master"),
        "still a master"
    );
}
