//! The shape of every sorted-set reply that can carry scores, compared
//! with a real Redis 7.0.15 in RESP2 and RESP3: in RESP3 each `WITHSCORES`
//! range form (`ZRANGE`, `ZREVRANGE`, `ZRANGEBYSCORE`, `ZREVRANGEBYSCORE`),
//! `ZRANDMEMBER ... WITHSCORES`, `ZUNION`/`ZINTER`/`ZDIFF ... WITHSCORES`,
//! `ZPOPMIN`/`ZPOPMAX` with a count and `ZMPOP`/`BZMPOP` reply
//! `[member, score]` pairs; `ZPOPMIN` without a count, `BZPOPMIN` and
//! `ZSCAN` stay flat; single scores are doubles. Small (listpack-sized)
//! and large sets, empty results and missing keys. `ZRANK ... WITHSCORE`
//! (Redis 7.2's, which the 7.0 peer refuses) is checked on its own.

use crate::common::peer::replies_match_redis;

/// Cases over `key`, a set of members `a`..: every reply that can carry
/// scores, in an order that leaves the set's contents the same on both
/// servers (pops take from the ends, random picks only where the answer
/// is fixed).
fn ranges(key: &str) -> Vec<String> {
    let lines = [
        "ZRANGE {k} 0 2 WITHSCORES",
        "ZRANGE {k} 0 -1 REV WITHSCORES",
        "ZRANGE {k} -inf +inf BYSCORE LIMIT 1 2 WITHSCORES",
        "ZRANGE {k} +inf -inf BYSCORE REV WITHSCORES",
        "ZRANGE {k} 5 2 WITHSCORES",
        "ZRANGE {k} 0 1",
        "ZREVRANGE {k} 0 2 WITHSCORES",
        "ZREVRANGE {k} 0 -1",
        "ZREVRANGE {k} 9 1 WITHSCORES",
        "ZRANGEBYSCORE {k} -inf +inf WITHSCORES",
        "ZRANGEBYSCORE {k} (1 3 WITHSCORES LIMIT 0 2",
        "ZRANGEBYSCORE {k} 100 200 WITHSCORES",
        "ZRANGEBYSCORE {k} 1 2",
        "ZREVRANGEBYSCORE {k} +inf -inf WITHSCORES",
        "ZREVRANGEBYSCORE {k} 3 (1 WITHSCORES LIMIT 1 5",
        "ZREVRANGEBYSCORE {k} 0 -5 WITHSCORES",
        "ZRANGEBYLEX {k} - + LIMIT 0 2",
        "ZRANGEBYLEX {k} - + WITHSCORES",
        "ZRANGE {k} 0 1 LIMIT 0 -1 WITHSCORES",
        "ZRANGE {k} 0 1 LIMIT 1 -1",
        "ZRANGE {k} 0 1 LIMIT 0 -5",
        "ZREVRANGE {k} 0 1 LIMIT 0 -1 WITHSCORES",
        "ZREVRANGE {k} 0 1 LIMIT 0 1",
        "ZREVRANGE {k} 0 1 LIMIT 0",
        "ZRANGE {k} 0 1 BYSCORE BYSCORE",
        "ZRANGE {k} 0 1 REV REV",
        "ZRANGE {k} 0 1 BYLEX BYSCORE",
        "ZRANGEBYLEX {k} - + REV",
        "ZRANGEBYSCORE {k} 0 1 LIMIT 0",
        "ZRANGE {k} 0 1 BYSCORE LIMIT 0 1 LIMIT 0 -1 WITHSCORES",
        "ZRANGESTORE dst {k} 0 1 WITHSCORES",
        "ZUNION 1 {k} WITHSCORES",
        "ZUNION 2 {k} {k} WEIGHTS 1 2",
        "ZINTER 2 {k} {k} WITHSCORES",
        "ZINTER 2 {k} nokey WITHSCORES",
        "ZDIFF 1 {k} WITHSCORES",
        "ZDIFF 2 {k} {k} WITHSCORES",
        "ZSCORE {k} a",
        "ZSCORE {k} nope",
        "ZMSCORE {k} a nope b",
        "ZINCRBY {k} 0.5 b",
        "ZINCRBY {k} -0.5 b",
        "ZADD {k} INCR 0 a",
        "ZADD {k} NX INCR 1 a",
        "ZADD {k} XX INCR 1 newmember",
        "ZRANK {k} b",
        "ZREVRANK {k} b",
        "ZRANDMEMBER {k} 0 WITHSCORES",
        "ZRANDMEMBER {k} 0",
        "ZPOPMIN {k} 0",
        "ZPOPMAX {k} 0",
        "ZPOPMIN {k}",
        "ZPOPMAX {k}",
        "ZPOPMIN {k} 1",
        "ZPOPMAX {k} 2",
        "ZPOPMIN {k} -1",
        "ZMPOP 1 {k} MIN",
        "ZMPOP 1 {k} MAX COUNT 2",
        "BZPOPMIN {k} 0.01",
        "BZPOPMAX {k} 0.01",
        "BZMPOP 0.01 1 {k} MIN COUNT 2",
        "BZMPOP 0.01 1 {k} MAX",
    ];
    lines.iter().map(|l| l.replace("{k}", key)).collect()
}

/// Cases on keys that do not exist (and one that is not a sorted set).
const MISSING: &[&str] = &[
    "ZRANGE nokey 0 -1 WITHSCORES",
    "ZRANGE nokey 0 -1 BYSCORE REV WITHSCORES",
    "ZREVRANGE nokey 0 -1 WITHSCORES",
    "ZRANGEBYSCORE nokey -inf +inf WITHSCORES",
    "ZREVRANGEBYSCORE nokey +inf -inf WITHSCORES",
    "ZRANDMEMBER nokey",
    "ZRANDMEMBER nokey 3 WITHSCORES",
    "ZRANDMEMBER nokey -3 WITHSCORES",
    "ZRANDMEMBER nokey 0 WITHSCORES",
    "ZPOPMIN nokey",
    "ZPOPMAX nokey 3",
    "ZPOPMIN nokey 0",
    "ZMPOP 1 nokey MIN",
    "ZMPOP 2 nokey nokey2 MAX COUNT 3",
    "BZPOPMIN nokey 0.01",
    "BZPOPMAX nokey 0.01",
    "BZMPOP 0.01 1 nokey MIN",
    "ZUNION 1 nokey WITHSCORES",
    "ZINTER 1 nokey WITHSCORES",
    "ZDIFF 1 nokey WITHSCORES",
    "ZSCAN nokey 0",
    "ZSCORE nokey a",
    "ZMSCORE nokey a b",
    "ZRANK nokey a",
    "ZRANGE str 0 -1 WITHSCORES",
    "ZPOPMIN str",
    "ZRANDMEMBER str 1 WITHSCORES",
];

fn cases() -> Vec<Vec<String>> {
    let mut lines: Vec<String> = vec!["FLUSHALL".into(), "SET str x".into()];
    // Small sets: listpack-encoded in Redis, packed in Strata.
    lines.push("ZADD small 1 a 2 b 3 c 4 d 5 e 6 f 1.5 g 7 h 8 i 9 j 10 k 11 l 12 m 13 n".into());
    lines.push("ZSCAN small 0".into());
    lines.extend(ranges("small"));
    // One member: random picks have one answer.
    lines.push("ZADD one 2.5 only".into());
    for count in ["1", "5", "-3"] {
        lines.push(format!("ZRANDMEMBER one {count} WITHSCORES"));
        lines.push(format!("ZRANDMEMBER one {count}"));
    }
    lines.push("ZRANDMEMBER one".into());
    lines.push("ZSCAN one 0".into());
    // Large sets: skiplist-encoded in Redis, chunked in Strata.
    let mut big = String::from("ZADD big");
    for i in 0..300 {
        big.push_str(&format!(" {} m{i:03}", f64::from(i) / 4.0));
    }
    lines.push(big);
    lines.push("ZADD big 0 a 0.25 b".into());
    lines.extend(ranges("big"));
    lines.extend(MISSING.iter().map(|l| l.to_string()));
    lines.push("FLUSHALL".into());
    lines
        .iter()
        .map(|l| l.split(' ').map(str::to_string).collect())
        .collect()
}

#[test]
fn score_replies_have_redis_shapes_in_both_protocols() {
    replies_match_redis(&cases());
}

#[test]
fn zrank_withscore_as_redis_7_2_has_it() {
    use crate::common::{self, Client, Value};
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["ZADD", "z", "1.5", "a", "2", "b"]);
    for (resp, score) in [
        ("2", Value::bulk("1.5")),
        ("3", Value::Double("1.5".into())),
    ] {
        c.cmd(&["HELLO", resp]);
        let pair = Value::Array(vec![Value::Int(0), score]);
        assert_eq!(c.cmd(&["ZRANK", "z", "a", "withscore"]), pair);
        assert_eq!(
            c.cmd(&["ZREVRANK", "z", "a", "WITHSCORE"]).array()[0],
            Value::Int(1)
        );
        let none = if resp == "2" {
            Value::NullArray
        } else {
            Value::Null
        };
        assert_eq!(c.cmd(&["ZRANK", "z", "nosuch", "WITHSCORE"]), none);
        assert_eq!(c.cmd(&["ZRANK", "nokey", "a", "WITHSCORE"]), none);
        assert_eq!(
            c.cmd(&["ZRANK", "z", "a", "WITHSCORES"]),
            Value::err("ERR syntax error")
        );
        let arity = Value::err("ERR wrong number of arguments for 'zrank' command");
        assert_eq!(c.cmd(&["ZRANK", "z", "a", "WITHSCORE", "x"]), arity);
    }
}
