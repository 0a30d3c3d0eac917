//! HyperLogLog commands over TCP against Redis's own bytes and counts: the
//! values below were read from redis-server 7.0.15 after the same commands
//! (a differential run of 9,000 random PFADD/PFCOUNT/PFMERGE/GET against
//! both found no difference, sparse, dense and promotion included).

use crate::common;

use common::{start, Client, Value};

/// `PFADD abc a b c` on Redis: sparse, the cached count stale.
const ABC: &[u8] = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ";
/// The same after `PFCOUNT abc`: the count (3) cached.
const ABC_COUNTED: &[u8] = b"HYLL\x01\0\0\0\x03\0\0\0\0\0\0\0`\xf3\x80P\xb1\x84K\xfb\x80BZ";

#[test]
fn values_and_counts_are_redis_s() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["PFADD", "abc", "a", "b", "c"]), Value::Int(1));
    assert_eq!(c.cmd(&["PFADD", "abc", "a"]), Value::Int(0));
    assert_eq!(c.cmd(&["GET", "abc"]), Value::Bulk(ABC.to_vec()));
    assert_eq!(c.cmd(&["PFCOUNT", "abc"]), Value::Int(3));
    assert_eq!(c.cmd(&["GET", "abc"]), Value::Bulk(ABC_COUNTED.to_vec()));
    // A value copied from Redis is one here too.
    c.cmd_bytes(&[b"SET", b"copied", ABC]);
    assert_eq!(c.cmd(&["PFCOUNT", "copied"]), Value::Int(3));
    assert_eq!(c.cmd(&["PFCOUNT", "missing"]), Value::Int(0));
    // Creating with no element, and the union of several keys.
    assert_eq!(c.cmd(&["PFADD", "empty"]), Value::Int(1));
    assert_eq!(c.cmd(&["PFADD", "empty"]), Value::Int(0));
    assert_eq!(c.cmd(&["PFADD", "cd", "c", "d"]), Value::Int(1));
    assert_eq!(
        c.cmd(&["PFCOUNT", "abc", "cd", "empty", "missing"]),
        Value::Int(4)
    );
    assert_eq!(c.cmd(&["PFMERGE", "all", "abc", "cd"]), Value::ok());
    assert_eq!(c.cmd(&["PFCOUNT", "all"]), Value::Int(4));
}

#[test]
fn large_sets_go_dense_and_count_within_the_error() {
    let server = start();
    let mut c = Client::connect(&server);
    for batch in 0..100 {
        let elements: Vec<String> = (0..100).map(|i| format!("e{}", batch * 100 + i)).collect();
        let mut args = vec!["PFADD", "big"];
        args.extend(elements.iter().map(String::as_str));
        c.cmd(&args);
    }
    let Value::Int(count) = c.cmd(&["PFCOUNT", "big"]) else {
        panic!("PFCOUNT")
    };
    assert!((9_800..=10_200).contains(&count), "{count}");
    assert_eq!(c.cmd(&["STRLEN", "big"]), Value::Int(12_304), "dense");
    // The expiry of a HyperLogLog survives its changes.
    c.cmd(&["EXPIRE", "big", "100"]);
    c.cmd(&["PFADD", "big", "one more"]);
    c.cmd(&["PFMERGE", "big", "other"]);
    assert_eq!(c.cmd(&["TTL", "big"]), Value::Int(100));
}

#[test]
fn other_values_are_refused_as_redis_refuses_them() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "str", "hello"]);
    c.cmd(&["LPUSH", "lst", "a"]);
    let not_hll = Value::err("WRONGTYPE Key is not a valid HyperLogLog string value.");
    let wrongtype = Value::err("WRONGTYPE Operation against a key holding the wrong kind of value");
    assert_eq!(c.cmd(&["PFADD", "str", "a"]), not_hll);
    assert_eq!(c.cmd(&["PFCOUNT", "str"]), not_hll);
    assert_eq!(c.cmd(&["PFMERGE", "str", "missing"]), not_hll);
    assert_eq!(c.cmd(&["PFCOUNT", "missing", "str"]), not_hll);
    assert_eq!(c.cmd(&["PFADD", "lst", "a"]), wrongtype);
    // Runs that do not cover the registers: corrupt.
    let mut short = ABC.to_vec();
    short.truncate(ABC.len() - 2);
    c.cmd_bytes(&[b"SET", b"short", &short]);
    assert_eq!(
        c.cmd(&["PFCOUNT", "short"]),
        Value::err("INVALIDOBJ Corrupted HLL object detected")
    );
    assert_eq!(c.cmd(&["GET", "str"]), Value::bulk("hello"));
}

/// `PFDEBUG` and `PFSELFTEST` reply for reply as a real Redis 7.0: the
/// sparse opcodes, the registers, the conversion (then the same bytes),
/// the refusals in Redis's order (missing key, then type, then name), and
/// the command rows.
#[test]
fn pfdebug_and_pfselftest_match_redis() {
    use crate::common::peer::{doc_basics, require_redis};
    let peer = require_redis();
    let server = start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    let many: Vec<String> = (0..300).map(|i| format!("e{i}")).collect();
    let mut setup = vec![
        vec!["PFADD", "h", "a", "b", "c"],
        vec!["PFADD", "g", "x"],
        vec!["SET", "s", "abc"],
        vec!["RPUSH", "l", "x"],
        vec!["PEXPIRE", "g", "100000"],
    ];
    let mut big = vec!["PFADD", "big"];
    big.extend(many.iter().map(String::as_str));
    setup.push(big);
    let cases: Vec<Vec<&str>> = vec![
        vec!["PFDEBUG", "ENCODING", "h"],
        vec!["PFDEBUG", "DECODE", "h"],
        vec!["PFDEBUG", "decode", "big"],
        vec!["PFDEBUG", "GETREG", "g"],
        vec!["PFDEBUG", "ENCODING", "g"],
        vec!["PFDEBUG", "DECODE", "g"],
        vec!["GET", "g"],
        vec!["PTTL", "g"],
        vec!["PFCOUNT", "g"],
        vec!["PFDEBUG", "TODENSE", "h"],
        vec!["PFDEBUG", "todense", "h"],
        vec!["GET", "h"],
        vec!["PFCOUNT", "h"],
        vec!["PFDEBUG", "GETREG", "missing"],
        vec!["PFDEBUG", "bogus", "missing"],
        vec!["PFDEBUG", "ENCODING", "s"],
        vec!["PFDEBUG", "bogus", "s"],
        vec!["PFDEBUG", "ENCODING", "l"],
        vec!["PFDEBUG", "Bogus", "h"],
        vec!["PFDEBUG", "ENCODING", "h", "extra"],
        vec!["PFDEBUG", "ENCODING"],
        vec!["PFSELFTEST", "x"],
        vec!["PFSELFTEST"],
        vec!["COMMAND", "INFO", "pfdebug", "pfselftest"],
    ];
    for c in setup {
        assert_eq!(strata.cmd(&c), redis.cmd(&c), "{c:?}");
    }
    for c in cases {
        let (ours, theirs) = (strata.cmd(&c), redis.cmd(&c));
        if c[0] == "PTTL" {
            let ms = |v: Value| match v {
                Value::Int(ms) => ms,
                other => panic!("{other:?}"),
            };
            assert!((ms(ours) - ms(theirs)).abs() < 2000, "{c:?}");
        } else {
            assert_eq!(ours, theirs, "{c:?}");
        }
    }
    for name in ["pfdebug", "pfselftest"] {
        assert_eq!(
            doc_basics(&mut strata, name),
            doc_basics(&mut redis, name),
            "{name}"
        );
    }
}
