//! `--workload`: which data type the sets and gets of a run exercise.
//!
//! | workload | set | get |
//! |---|---|---|
//! | `string` | `SET key value` | `GET key` |
//! | `hset-hget` | `HSET key f<i> value` | `HGET key f<i>` |
//! | `lpush-lpop` | `LPUSH key value` | `LPOP key` |
//! | `zadd-zrange` | `ZADD key <i> m<i>` | `ZRANGE key 0 <range - 1>` |
//! | `eval` | `EVAL <SET script> 1 key value` | `EVAL <GET script> 1 key` |
//! | `queue` | producers `LPUSH` | consumers `BLPOP` (see [`super::queue`]) |
//!
//! `i` is drawn uniformly from `0..--fields` for each operation (from the connection's
//! seeded generator), so a hash holds up to `--fields` fields and a sorted set as many
//! members (sessions in small hashes, leaderboards), and reads find what writes stored. A
//! ZRANGE reply with members counts as a hit, an empty one as a miss. The older names `hash`,
//! `list` and `zset` are accepted as aliases.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use super::protocol::{resp, Op, Protocol, ReplyKind};

/// The data type a run exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Strings: SET / GET (either protocol).
    #[default]
    String,
    /// Hashes: HSET / HGET of one of --fields fields (RESP only).
    #[value(alias = "hash")]
    #[serde(alias = "hash")]
    HsetHget,
    /// Lists: LPUSH / LPOP (RESP only).
    #[value(alias = "list")]
    #[serde(alias = "list")]
    LpushLpop,
    /// Sorted sets: ZADD of one of --fields members / ZRANGE 0 (--range - 1) (RESP only).
    #[value(alias = "zset")]
    #[serde(alias = "zset")]
    ZaddZrange,
    /// Lua scripts: EVAL of a script that SETs / GETs its key, the body sent each time as
    /// redis-benchmark's EVAL test does (RESP only).
    Eval,
    /// A job queue: producers LPUSH unique elements, consumers BLPOP them; every element is
    /// checked to be delivered exactly once (RESP only).
    Queue,
}

impl Workload {
    /// Whether `protocol` can run it: memcached has only strings.
    pub fn supports(self, protocol: Protocol) -> bool {
        self == Workload::String || protocol == Protocol::Resp
    }

    /// The command-line name, e.g. `hset-hget`.
    pub fn name(self) -> &'static str {
        match self {
            Workload::String => "string",
            Workload::HsetHget => "hset-hget",
            Workload::LpushLpop => "lpush-lpop",
            Workload::ZaddZrange => "zadd-zrange",
            Workload::Eval => "eval",
            Workload::Queue => "queue",
        }
    }
}

/// Encodes the requests of a set/get workload (every workload but `queue`).
#[derive(Debug, Clone)]
pub struct Requests {
    workload: Workload,
    protocol: Protocol,
    fields: u64,
    /// The ZRANGE stop index, as decimal text.
    range_stop: String,
}

impl Requests {
    /// Requests of `workload` over `protocol`, hashes and sorted sets cycling through `fields`
    /// fields or members (at least 1), ZRANGE reading `range` members (at least 1).
    pub fn new(workload: Workload, protocol: Protocol, fields: u64, range: u64) -> Self {
        Self {
            workload,
            protocol,
            fields: fields.max(1),
            range_stop: (range.max(1) - 1).to_string(),
        }
    }

    /// The field or member count operations choose among (`--fields`).
    pub fn fields(&self) -> u64 {
        self.fields
    }

    /// How a reply to `op` counts: a ZRANGE's array is a hit when it has members, a miss
    /// when empty; every other reply keeps the framing's `kind`.
    pub fn classify(&self, op: Op, kind: ReplyKind, reply: &[u8]) -> ReplyKind {
        match (self.workload, op, kind) {
            (Workload::ZaddZrange, Op::Get, ReplyKind::Success) if reply.starts_with(b"*0\r") => {
                ReplyKind::Miss
            }
            (Workload::ZaddZrange, Op::Get, ReplyKind::Success) => ReplyKind::Hit,
            _ => kind,
        }
    }

    /// Appends operation `op` on `key`, with field or member number `n % --fields`.
    pub fn encode(&self, op: Op, out: &mut Vec<u8>, key: &[u8], value: &[u8], n: u64) {
        let mut name = [0u8; 24];
        let i = n % self.fields;
        match (self.workload, op) {
            (Workload::String | Workload::Queue, Op::Set) => {
                self.protocol.encode_set(out, key, value)
            }
            (Workload::String | Workload::Queue, Op::Get) => self.protocol.encode_get(out, key),
            (Workload::HsetHget, Op::Set) => {
                resp::encode_command(out, &[b"HSET", key, named(&mut name, b'f', i), value])
            }
            (Workload::HsetHget, Op::Get) => {
                resp::encode_command(out, &[b"HGET", key, named(&mut name, b'f', i)])
            }
            (Workload::LpushLpop, Op::Set) => resp::encode_command(out, &[b"LPUSH", key, value]),
            (Workload::LpushLpop, Op::Get) => resp::encode_command(out, &[b"LPOP", key]),
            (Workload::ZaddZrange, Op::Set) => {
                let mut score = itoa::Buffer::new();
                let score = score.format(i).as_bytes();
                resp::encode_command(out, &[b"ZADD", key, score, named(&mut name, b'm', i)]);
            }
            (Workload::ZaddZrange, Op::Get) => {
                resp::encode_command(out, &[b"ZRANGE", key, b"0", self.range_stop.as_bytes()])
            }
            (Workload::Eval, Op::Set) => {
                resp::encode_command(out, &[b"EVAL", EVAL_SET, b"1", key, value])
            }
            (Workload::Eval, Op::Get) => resp::encode_command(out, &[b"EVAL", EVAL_GET, b"1", key]),
        }
    }
}

/// The `eval` workload's scripts.
const EVAL_SET: &[u8] = b"return redis.call('SET', KEYS[1], ARGV[1])";
const EVAL_GET: &[u8] = b"return redis.call('GET', KEYS[1])";

/// `prefix` followed by the decimal `i`, written into `buf`.
fn named(buf: &mut [u8; 24], prefix: u8, i: u64) -> &[u8] {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(i).as_bytes();
    buf[0] = prefix;
    buf[1..=digits.len()].copy_from_slice(digits);
    &buf[..=digits.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let mut out = Vec::new();
        let hash = Requests::new(Workload::HsetHget, Protocol::Resp, 10, 10);
        hash.encode(Op::Set, &mut out, b"k", b"v", 13);
        assert_eq!(
            out,
            b"*4\r\n$4\r\nHSET\r\n$1\r\nk\r\n$2\r\nf3\r\n$1\r\nv\r\n"
        );
        out.clear();
        let zset = Requests::new(Workload::ZaddZrange, Protocol::Resp, 4, 3);
        zset.encode(Op::Get, &mut out, b"k", b"", 0);
        assert_eq!(
            out,
            b"*4\r\n$6\r\nZRANGE\r\n$1\r\nk\r\n$1\r\n0\r\n$1\r\n2\r\n"
        );
        out.clear();
        zset.encode(Op::Set, &mut out, b"k", b"v", 6);
        assert_eq!(
            out,
            b"*4\r\n$4\r\nZADD\r\n$1\r\nk\r\n$1\r\n2\r\n$2\r\nm2\r\n"
        );
        out.clear();
        Requests::new(Workload::String, Protocol::Memcache, 1, 1).encode(
            Op::Get,
            &mut out,
            b"k",
            b"",
            0,
        );
        assert_eq!(out, b"get k\r\n");
        assert!(!Workload::LpushLpop.supports(Protocol::Memcache));
        let classify = |reply: &[u8]| zset.classify(Op::Get, ReplyKind::Success, reply);
        assert_eq!(classify(b"*0\r\n"), ReplyKind::Miss);
        assert_eq!(classify(b"*1\r\n$2\r\nm1\r\n"), ReplyKind::Hit);
        assert_eq!(
            hash.classify(Op::Get, ReplyKind::Success, b":1\r\n"),
            ReplyKind::Success
        );
        assert!(!Workload::Queue.supports(Protocol::Memcache));
        out.clear();
        let eval = Requests::new(Workload::Eval, Protocol::Resp, 1, 1);
        eval.encode(Op::Get, &mut out, b"k", b"", 0);
        let get = b"*4\r\n$4\r\nEVAL\r\n$33\r\nreturn redis.call('GET', KEYS[1])\r\n$1\r\n1\r\n$1\r\nk\r\n";
        assert_eq!(out, get);
        assert!(!Workload::Eval.supports(Protocol::Memcache));
    }

    #[test]
    fn old_names_still_parse() {
        assert_eq!(
            Workload::from_str("hash", false).unwrap(),
            Workload::HsetHget
        );
        assert_eq!(
            serde_json::from_str::<Workload>("\"zset\"").unwrap(),
            Workload::ZaddZrange
        );
        assert_eq!(
            serde_json::to_string(&Workload::LpushLpop).unwrap(),
            "\"lpush-lpop\""
        );
    }
}
