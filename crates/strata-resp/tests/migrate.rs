//! `MIGRATE` between Strata and a real Redis 7.0, both ways: keys of every
//! type with their TTLs arrive whole and leave the source (or stay, with
//! `COPY`), `KEYS` moves several, `REPLACE` and the target's `BUSYKEY`,
//! `AUTH`/`AUTH2` against a password-protected target; and the same
//! refusals as Redis's own `MIGRATE` for the same arguments (syntax, the
//! `KEYS` form's empty key, `NOKEY`, a closed port, a wrong password).

use std::net::TcpListener;

use crate::common::peer::{require_redis, spawn_redis_with};
use crate::common::{self, Client, Value};

/// Commands that build one key of each type, with a TTL on two.
const KEYS: &[&[&str]] = &[
    &["SET", "s", "value"],
    &["PEXPIRE", "s", "100000"],
    &["RPUSH", "l", "a", "b", "c"],
    &["HSET", "h", "f", "v", "g", "w"],
    &["SADD", "set", "x", "y"],
    &["ZADD", "z", "1.5", "m", "2", "n"],
    &["XADD", "x", "1-1", "f", "v"],
    &["PFADD", "hll", "a", "b"],
    &["EXPIRE", "hll", "500"],
];

const NAMES: &[&str] = &["s", "l", "h", "set", "z", "x", "hll"];

fn build(c: &mut Client) {
    for args in KEYS {
        c.cmd(args);
    }
}

/// What a key holds, read by type, and whether it has a TTL.
fn view(c: &mut Client, key: &str) -> (Value, Value, bool) {
    let kind = c.cmd(&["TYPE", key]);
    let value = match kind.text().as_str() {
        "string" => c.cmd(&["GET", key]),
        "list" => c.cmd(&["LRANGE", key, "0", "-1"]),
        "hash" => c.cmd(&["HGETALL", key]),
        // Members in no set order: sorted.
        "set" => {
            let mut members = c.cmd(&["SMEMBERS", key]).array().to_vec();
            members.sort_by_key(Value::text);
            Value::Array(members)
        }
        "zset" => c.cmd(&["ZRANGE", key, "0", "-1", "WITHSCORES"]),
        "stream" => c.cmd(&["XRANGE", key, "-", "+"]),
        _ => Value::Null,
    };
    let ttl = matches!(c.cmd(&["PTTL", key]), Value::Int(ms) if ms > 0);
    (kind, value, ttl)
}

/// Moves every key from `from` to the server on `port` one by one, then
/// checks they arrived as they were and left the source.
fn move_all(from: &mut Client, to: &mut Client, port: u16) {
    build(from);
    let before: Vec<_> = NAMES.iter().map(|k| view(from, k)).collect();
    let port = port.to_string();
    for key in NAMES {
        let moved = from.cmd(&["MIGRATE", "127.0.0.1", &port, key, "0", "5000"]);
        assert_eq!(moved, Value::ok(), "{key}");
        assert_eq!(from.cmd(&["EXISTS", key]), Value::Int(0), "{key}");
    }
    let after: Vec<_> = NAMES.iter().map(|k| view(to, k)).collect();
    assert_eq!(after, before);
    assert_eq!(to.cmd(&["PFCOUNT", "hll"]), Value::Int(2));
}

#[test]
fn keys_move_both_ways_with_their_ttls() {
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    move_all(&mut strata, &mut redis, peer.port);
    redis.cmd(&["FLUSHALL"]);
    move_all(&mut redis, &mut strata, server.addr.port());
}

#[test]
fn keys_copy_replace_and_auth_as_redis() {
    let target = spawn_redis_with(&["--requirepass", "pw"]).expect("redis-server");
    let mut t = target.client();
    t.cmd(&["AUTH", "pw"]);
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    let port = target.port.to_string();
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let closed = closed.to_string();
    let m = |rest: &[&str]| -> Vec<String> {
        let mut words = vec!["MIGRATE", "127.0.0.1"];
        words.extend_from_slice(rest);
        words.iter().map(|w| w.to_string()).collect()
    };
    let cases: Vec<Vec<String>> = vec![
        m(&[&port, "a", "0", "1000"]),
        m(&[&port, "a", "0", "1000", "AUTH", "wrong"]),
        m(&[&port, "a", "0", "1000", "AUTH", "pw"]),
        m(&[&port, "nokey", "0", "1000", "AUTH", "pw"]),
        m(&[
            &port, "b", "0", "1000", "AUTH2", "default", "pw", "KEYS", "c",
        ]),
        m(&[
            &port, "", "0", "1000", "COPY", "AUTH2", "default", "pw", "KEYS", "b", "c", "nokey",
        ]),
        m(&[&port, "", "0", "1000", "AUTH", "pw", "KEYS", "b", "c"]),
        m(&[
            &port, "", "0", "1000", "REPLACE", "AUTH", "pw", "KEYS", "b", "c",
        ]),
        m(&[&port, "", "x", "1000", "KEYS", "d"]),
        m(&[&port, "", "0", "x", "KEYS", "d"]),
        m(&[&port, "", "0", "1000", "BOGUS"]),
        m(&[&port, "", "0", "1000", "AUTH"]),
        m(&[&port, "", "0", "1000", "KEYS"]),
        m(&[&closed, "d", "0", "1000"]),
        m(&[&port, "d", "1", "1000", "AUTH", "pw"]),
    ];
    // The target restarts empty for each server's run; Redis's run and
    // Strata's must match reply for reply, key for key.
    let mut runs = Vec::new();
    for source in [&mut redis, &mut strata] {
        t.cmd(&["FLUSHALL"]);
        for key in ["a", "b", "c", "d"] {
            source.cmd(&["SET", key, key]);
        }
        source.cmd(&["PEXPIRE", "c", "100000"]);
        let mut replies = Vec::new();
        for case in &cases {
            let words: Vec<&str> = case.iter().map(String::as_str).collect();
            replies.push((case.join(" "), source.cmd(&words)));
        }
        let keys = ["a", "b", "c", "d"];
        let left: Vec<Value> = keys.iter().map(|k| source.cmd(&["EXISTS", k])).collect();
        let arrived: Vec<Value> = keys.iter().map(|k| t.cmd(&["GET", k])).collect();
        let ttl = matches!(t.cmd(&["PTTL", "c"]), Value::Int(ms) if ms > 90_000);
        source.cmd(&["FLUSHALL"]);
        runs.push((replies, left, arrived, ttl));
    }
    let (theirs, ours) = (&runs[0], &runs[1]);
    for (want, got) in theirs.0.iter().zip(&ours.0) {
        assert_eq!(got, want);
    }
    assert_eq!(ours, theirs);
}
