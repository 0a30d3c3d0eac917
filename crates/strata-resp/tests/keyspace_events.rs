//! Keyspace notifications compared with a real Redis: both servers get
//! the same `notify-keyspace-events` setting, a subscriber on each
//! pattern-subscribes to `__key*@0__:*`, and after every command the
//! messages each subscriber received (channel and payload, in order, in
//! RESP2 or RESP3 framing) must be the same. A `PUBLISH` to a marker
//! channel after each command closes its batch. Scripted commands cover
//! every family that announces something; a seeded random sequence mixes
//! them. Expiry, eviction, the setting's parsing and the memcached port
//! are in `keyspace_events/`.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::common::peer::{require_redis, PeerRedis};
use crate::common::{self, Client, Server, Value};

#[path = "keyspace_events/engine.rs"]
mod engine;
#[path = "keyspace_events/script.rs"]
mod script;

/// The marker channel (matched by the subscription's pattern).
const MARK: &str = "__keyspace@0__:zz-mark";

/// One server's command connection and subscriber.
pub struct Side {
    pub cmd: Client,
    pub sub: Client,
}

impl Side {
    fn new(mut cmd: Client, mut sub: Client, flags: &str, resp: &str) -> Side {
        for c in [&mut cmd, &mut sub] {
            c.cmd(&["HELLO", resp]);
        }
        cmd.cmd(&["FLUSHALL"]);
        let set = cmd.cmd(&["CONFIG", "SET", "notify-keyspace-events", flags]);
        assert_eq!(set, Value::ok(), "{flags}");
        sub.cmd(&["PSUBSCRIBE", "__key*@0__:*"]);
        Side { cmd, sub }
    }

    /// Runs `words`; returns its reply and the messages it caused.
    pub fn run(&mut self, words: &[&str]) -> (Value, Vec<Value>) {
        let reply = self.cmd.cmd(words);
        self.cmd.cmd(&["PUBLISH", MARK, "."]);
        let mut got = Vec::new();
        loop {
            let message = self.sub.read();
            let parts = message_parts(&message);
            if parts.get(2).map(Value::text).as_deref() == Some(MARK) {
                return (reply, got);
            }
            got.push(message);
        }
    }
}

fn message_parts(v: &Value) -> &[Value] {
    match v {
        Value::Array(p) | Value::Push(p) => p,
        _ => &[],
    }
}

/// Strata and Redis side by side.
pub struct Pair {
    pub redis: Side,
    pub strata: Side,
    pub history: Vec<String>,
}

impl Pair {
    pub fn new(peer: &PeerRedis, server: &Server, flags: &str, resp: &str) -> Pair {
        Pair {
            redis: Side::new(peer.client(), peer.client(), flags, resp),
            strata: Side::new(
                Client::connect(server),
                Client::connect(server),
                flags,
                resp,
            ),
            history: Vec::new(),
        }
    }

    /// Runs `line` on both; the messages must match (replies too, except
    /// where a reply differs by design: only errors' presence is compared).
    pub fn check<'a>(&mut self, line: &'a str) {
        let empty = |w: &'a str| if w == "\"\"" { "" } else { w };
        let words: Vec<&str> = line.split(' ').map(empty).collect();
        let (want_reply, want) = self.redis.run(&words);
        let (got_reply, got) = self.strata.run(&words);
        if std::env::var_os("EVENTS_TRACE").is_some() {
            eprintln!(
                "{line}: {want_reply:?} / {got_reply:?}: {} / {}",
                want.len(),
                got.len()
            );
        }
        let tail = self.history.len().saturating_sub(15);
        assert_eq!(
            got,
            want,
            "`{line}` sent different events (strata left, redis right); replies {got_reply:?} / {want_reply:?}; before:\n{}",
            self.history[tail..].join("\n")
        );
        let failed = |v: &Value| matches!(v, Value::Error(_));
        assert_eq!(
            failed(&got_reply),
            failed(&want_reply),
            "`{line}`: {got_reply:?} / {want_reply:?}"
        );
        self.history.push(line.to_string());
    }
}

fn scripted(flags: &str, resp: &str) {
    let peer = require_redis();
    let server = common::start();
    let mut pair = Pair::new(&peer, &server, flags, resp);
    for line in script::commands() {
        pair.check(line);
    }
}

#[test]
fn scripted_all_events_match_redis() {
    scripted("KEA", "2");
    scripted("AKEn", "3");
}

#[test]
fn scripted_narrow_settings_match_redis() {
    for (flags, resp) in [
        ("Elg", "2"),
        ("Kx", "3"),
        ("Ez", "2"),
        ("En", "3"),
        ("Kt$", "2"),
        ("Ehs", "3"),
        ("K", "2"),
    ] {
        scripted(flags, resp);
    }
}

const KEYS: &[&str] = &["a", "b", "c"];
const MEMBERS: &[&str] = &["x", "y", "z"];

fn random_line(rng: &mut SmallRng) -> String {
    let key = KEYS[rng.gen_range(0..KEYS.len())];
    let other = KEYS[rng.gen_range(0..KEYS.len())];
    let m = MEMBERS[rng.gen_range(0..MEMBERS.len())];
    let n = rng.gen_range(0..4);
    match rng.gen_range(0..49) {
        0 => format!("SET {key} {m}"),
        1 => format!("SET {key} {m} EX 100 GET"),
        2 => format!("DEL {key} {other}"),
        3 => format!("RENAME {key} {other}"),
        4 => format!("COPY {key} {other} REPLACE"),
        5 => format!("EXPIRE {key} {}", 100 - 101 * (n % 2)),
        6 => format!("PERSIST {key}"),
        7 => format!("LPUSH {key} {m}"),
        8 => format!("RPOP {key} {n}"),
        9 => format!("LMOVE {key} {other} LEFT RIGHT"),
        10 => format!("LREM {key} {n} {m}"),
        11 => format!("HSET {key} {m} 1"),
        12 => format!("HDEL {key} {m}"),
        13 => format!("HINCRBY {key} {m} 2"),
        14 => format!("SADD {key} {m}"),
        15 => format!("SREM {key} {m}"),
        16 => format!("SMOVE {key} {other} {m}"),
        17 => format!("SPOP {key} {n}"),
        18 => format!("SUNIONSTORE {key} {other} {key}"),
        19 => format!("SINTERSTORE {other} {key} {other}"),
        20 => format!("ZADD {key} {n} {m}"),
        21 => format!("ZINCRBY {key} 1 {m}"),
        22 => format!("ZREM {key} {m}"),
        23 => format!("ZPOPMIN {key} {n}"),
        24 => format!("ZUNIONSTORE {other} 2 {key} {other}"),
        25 => format!("ZREMRANGEBYRANK {key} 0 {n}"),
        26 => format!("INCRBY {key} {n}"),
        27 => format!("APPEND {key} {m}"),
        28 => format!("GETDEL {key}"),
        29 => format!("GETEX {key} PX 5000"),
        30 => format!("XADD {key} * {m} 1"),
        31 => format!("XTRIM {key} MAXLEN {n}"),
        32 => format!("SORT {other} STORE {key}"),
        33 => format!("SETRANGE {key} {n} {m}"),
        34 => format!("HINCRBYFLOAT {key} {m} 1.5"),
        35 => format!("ZADD {key} XX GT CH {n} {m}"),
        36 => format!("RPOPLPUSH {key} {other}"),
        37 => format!("SETBIT {key} {n} 1"),
        38 => format!("BITOP OR {key} {other} {key}"),
        39 => format!("PFADD {key} {m}"),
        40 => format!("MSET {key} {m} {other} {n}"),
        41 => format!("XADD {key} MAXLEN {n} * {m} 1"),
        42 => format!("ZRANGESTORE {key} {other} 0 {n}"),
        43 => format!("RENAMENX {key} {other}"),
        44 => format!("GETSET {key} {m}"),
        45 => format!("SDIFFSTORE {key} {other} {key}"),
        46 => format!("HDEL {key} x y z"),
        47 => format!("LINSERT {key} AFTER {m} {m}"),
        _ => format!("LTRIM {key} {n} 1"),
    }
}

#[test]
fn random_commands_match_redis() {
    let peer = require_redis();
    let server = common::start();
    for seed in 0..2u64 {
        let resp = if seed % 2 == 0 { "2" } else { "3" };
        let mut pair = Pair::new(&peer, &server, "KEAn", resp);
        let mut rng = SmallRng::seed_from_u64(seed);
        for _ in 0..common::fuzz_cases(500, 5_000) {
            let line = random_line(&mut rng);
            pair.check(&line);
        }
    }
}

/// `RESTORE` of each server's own `DUMP` payload: `new` then `restore`;
/// with `REPLACE`, the same; with `REPLACE` and an `ABSTTL` already past,
/// `del`.
#[test]
fn restore_events_match_redis() {
    let peer = require_redis();
    let server = common::start();
    let mut pair = Pair::new(&peer, &server, "AKEn", "3");
    pair.check("RPUSH src a b c");
    let mut heard = Vec::new();
    for side in [&mut pair.redis, &mut pair.strata] {
        let payload = match side.cmd.cmd(&["DUMP", "src"]) {
            Value::Bulk(p) => p,
            other => panic!("DUMP: {other:?}"),
        };
        let p: &[u8] = &payload;
        let cases: [Vec<&[u8]>; 3] = [
            vec![b"RESTORE", b"dst", b"0", p],
            vec![b"RESTORE", b"dst", b"0", p, b"REPLACE"],
            vec![b"RESTORE", b"dst", b"1000", p, b"REPLACE", b"ABSTTL"],
        ];
        let mut events = Vec::new();
        for words in cases {
            side.cmd.cmd_bytes(&words);
            events.push(side.run(&["PING"]).1);
        }
        heard.push(events);
    }
    assert_eq!(heard[1], heard[0]);
    assert!(heard[0].iter().all(|e| !e.is_empty()), "{:?}", heard[0]);
}
