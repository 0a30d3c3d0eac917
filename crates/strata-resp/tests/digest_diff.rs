//! Every type against a real Redis, state and replies: seeded random
//! writes on a few keys per type (some collide, so `WRONGTYPE` comes up;
//! collections grow past the packed encodings into Strata's chunked ones
//! and shrink back) sent to Strata and to `redis-server`,
//! each reply compared, and the whole dataset compared with `DEBUG
//! DIGEST` (Redis's SHA-1 of every key, type, element and TTL flag) every
//! few commands. A differing digest names the keys whose `DEBUG
//! DIGEST-VALUE` differs. Only deterministic commands are sent (explicit
//! stream identifiers, no random picks). `STRATA_FUZZ_CASES` sets the
//! number of commands per seed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_resp::protected::Protected;

use crate::common::{self, Client, Value};

/// Two keys per type (strings, hashes, lists, sets, sorted sets,
/// streams), so most commands find their type; one in ten picks any key,
/// and `COPY`/`RENAME` carry values across, so types also collide.
const KEYS: [&str; 12] = [
    "s1", "s2", "h1", "h2", "l1", "l2", "t1", "t2", "z1", "z2", "x1", "x2",
];

/// A key for a command on type `kind` (an index into the pairs of
/// [`KEYS`]).
fn key_of(rng: &mut SmallRng, kind: usize) -> String {
    if rng.gen_bool(0.1) {
        return any_key(rng);
    }
    KEYS[kind * 2 + rng.gen_range(0..2)].to_string()
}

fn any_key(rng: &mut SmallRng) -> String {
    KEYS[rng.gen_range(0..KEYS.len())].to_string()
}

/// A member or field: mostly from a pool of 300 (so collections pass
/// the packed limits), sometimes an integer (sets' intset) or long.
fn member(rng: &mut SmallRng) -> String {
    match rng.gen_range(0..10) {
        0 => rng.gen_range(-5..400).to_string(),
        1 => format!("long-{}-{}", rng.gen_range(0..20), "x".repeat(70)),
        _ => format!("m{}", rng.gen_range(0..300)),
    }
}

fn score(rng: &mut SmallRng) -> String {
    match rng.gen_range(0..12) {
        0 => "-inf".into(),
        1 => "+inf".into(),
        2 => format!("{}.5", rng.gen_range(-10..10)),
        _ => rng.gen_range(-20..20).to_string(),
    }
}

fn several(rng: &mut SmallRng, cmd: &mut Vec<String>, pairs: bool) {
    for _ in 0..rng.gen_range(1..6) {
        if pairs {
            cmd.push(member(rng));
        }
        cmd.push(member(rng));
    }
}

/// One random write (or an occasional read whose reply is ordered).
fn command(rng: &mut SmallRng, next_ms: &mut u64) -> Vec<String> {
    let pick = rng.gen_range(0..100);
    let kind = match pick {
        0..=11 => 0,
        12..=24 => 1,
        25..=38 => 2,
        39..=49 => 3,
        50..=64 => 4,
        65..=71 => 5,
        _ => rng.gen_range(0..6),
    };
    let k = key_of(rng, kind);
    let other = |rng: &mut SmallRng| key_of(rng, kind);
    let s = |v: &str| v.to_string();
    let mut cmd: Vec<String> = Vec::new();
    match pick {
        0..=5 => {
            cmd.extend([s("SET"), k, member(rng)]);
            match rng.gen_range(0..6) {
                0 => cmd.extend([s("EX"), s("1000")]),
                1 => cmd.push(s("KEEPTTL")),
                2 => cmd.push(s("NX")),
                3 => cmd.push(s("GET")),
                _ => {}
            }
        }
        6..=7 => cmd.extend([s("APPEND"), k, member(rng)]),
        8..=9 => cmd.extend([s("INCRBY"), k, rng.gen_range(-9..9).to_string()]),
        10 => cmd.extend([s("INCRBYFLOAT"), k, s("0.1")]),
        11 => cmd.extend([s("SETRANGE"), k, rng.gen_range(0..20).to_string(), s("zz")]),
        12..=19 => {
            cmd.extend([s("HSET"), k]);
            several(rng, &mut cmd, true);
        }
        20..=22 => {
            cmd.extend([s("HDEL"), k]);
            several(rng, &mut cmd, false);
        }
        23 => cmd.extend([s("HINCRBY"), k, member(rng), s("3")]),
        24 => cmd.extend([s("HINCRBYFLOAT"), k, member(rng), s("1.25")]),
        25..=31 => {
            cmd.extend([s(["LPUSH", "RPUSH"][rng.gen_range(0..2)]), k]);
            several(rng, &mut cmd, false);
        }
        32..=33 => {
            cmd.extend([s(["LPOP", "RPOP"][rng.gen_range(0..2)]), k]);
            cmd.push(rng.gen_range(1..4).to_string());
        }
        34 => cmd.extend([s("LREM"), k, rng.gen_range(-2..3).to_string(), member(rng)]),
        35 => cmd.extend([s("LTRIM"), k, rng.gen_range(0..3).to_string(), s("-3")]),
        36 => cmd.extend([s("LSET"), k, rng.gen_range(-3..3).to_string(), member(rng)]),
        37 => cmd.extend([s("LINSERT"), k, s("BEFORE"), member(rng), member(rng)]),
        38 => cmd.extend([s("LMOVE"), k, other(rng), s("LEFT"), s("RIGHT")]),
        39..=45 => {
            cmd.extend([s("SADD"), k]);
            several(rng, &mut cmd, false);
        }
        46..=47 => {
            cmd.extend([s("SREM"), k]);
            several(rng, &mut cmd, false);
        }
        48 => cmd.extend([s("SMOVE"), k, other(rng), member(rng)]),
        49 => {
            let op = ["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"][rng.gen_range(0..3)];
            cmd.extend([s(op), k, other(rng), other(rng)]);
        }
        50..=57 => {
            cmd.extend([s("ZADD"), k]);
            let flags = ["NX", "XX", "GT", "LT", "CH"];
            if rng.gen_bool(0.3) {
                cmd.push(s(flags[rng.gen_range(0..flags.len())]));
            }
            for _ in 0..rng.gen_range(1..6) {
                cmd.extend([score(rng), member(rng)]);
            }
        }
        58..=59 => {
            cmd.extend([s("ZREM"), k]);
            several(rng, &mut cmd, false);
        }
        60 => cmd.extend([s("ZINCRBY"), k, score(rng), member(rng)]),
        61 => cmd.extend([s("ZREMRANGEBYSCORE"), k, score(rng), score(rng)]),
        62 => cmd.extend([
            s("ZREMRANGEBYRANK"),
            k,
            s("0"),
            rng.gen_range(0..5).to_string(),
        ]),
        63 => {
            let op = ["ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"][rng.gen_range(0..3)];
            cmd.extend([s(op), k, s("2"), other(rng), other(rng)]);
            if op != "ZDIFFSTORE" && rng.gen_bool(0.5) {
                cmd.extend([s("WEIGHTS"), s("2"), s("0.5"), s("AGGREGATE"), s("MAX")]);
            }
        }
        64 => cmd.extend([s("ZPOPMIN"), k, rng.gen_range(1..4).to_string()]),
        65..=70 => {
            *next_ms += 1;
            cmd.extend([s("XADD"), k]);
            if rng.gen_bool(0.2) {
                cmd.extend([s("MAXLEN"), s("="), rng.gen_range(0..150).to_string()]);
            }
            cmd.push(format!("{next_ms}-1"));
            cmd.extend([member(rng), member(rng)]);
        }
        71 => cmd.extend([s("XDEL"), k, format!("{}-1", rng.gen_range(0..=*next_ms))]),
        72..=74 => cmd.extend([s("EXPIRE"), k, s("1000")]),
        75 => cmd.extend([s("PERSIST"), k]),
        76..=77 => cmd.extend([s("DEL"), any_key(rng)]),
        78 => cmd.extend([s("COPY"), k, other(rng), s("REPLACE")]),
        79 => cmd.extend([s("RENAME"), k, other(rng)]),
        80 => cmd.extend([s("GETDEL"), k]),
        81..=84 => cmd.extend([s("LRANGE"), k, s("0"), s("-1")]),
        85..=88 => cmd.extend([s("ZRANGE"), k, s("0"), s("-1"), s("WITHSCORES")]),
        89..=91 => cmd.extend([s("TYPE"), k]),
        92..=94 => cmd.extend([
            s(["HLEN", "SCARD", "ZCARD", "LLEN", "XLEN"][rng.gen_range(0..5)]),
            k,
        ]),
        95..=96 => cmd.extend([s("SISMEMBER"), k, member(rng)]),
        97..=98 => cmd.extend([s("HGET"), k, member(rng)]),
        _ => cmd.extend([s("GET"), k]),
    }
    cmd
}

fn send(c: &mut Client, cmd: &[String]) -> Value {
    let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
    c.cmd(&args)
}

/// Fails naming the keys whose value digests differ.
fn assert_same_data(redis: &mut Client, strata: &mut Client, history: &[String]) {
    let digest = |c: &mut Client| c.cmd(&["DEBUG", "DIGEST"]);
    let (want, got) = (digest(redis), digest(strata));
    if want == got {
        return;
    }
    let differing: Vec<&str> = KEYS
        .iter()
        .copied()
        .filter(|k| {
            let value = |c: &mut Client| c.cmd(&["DEBUG", "DIGEST-VALUE", k]);
            value(redis) != value(strata)
        })
        .collect();
    let tail = &history[history.len().saturating_sub(30)..];
    panic!(
        "the datasets differ (keys {differing:?}); last commands:\n{}",
        tail.join("\n")
    );
}

#[test]
fn random_writes_leave_the_same_data_as_redis() {
    let Some(peer) = common::peer::spawn_redis_with(&["--enable-debug-command", "yes"]) else {
        panic!("redis-server is needed for this comparison (scripts/test installs it)");
    };
    let server = common::start_debug(Protected::Yes);
    let mut redis = peer.client();
    let mut strata = Client::connect(&server);
    let cases = common::fuzz_cases(1_500, 20_000) as usize;
    let mut history: Vec<String> = Vec::new();
    for seed in 0..2u64 {
        let mut rng = SmallRng::seed_from_u64(0xd16e57 + seed);
        let mut next_ms = 0;
        for c in [&mut redis, &mut strata] {
            assert_eq!(c.cmd(&["FLUSHALL"]), Value::ok());
        }
        history.clear();
        for i in 0..cases {
            let cmd = command(&mut rng, &mut next_ms);
            history.push(cmd.join(" "));
            let want = send(&mut redis, &cmd);
            let got = send(&mut strata, &cmd);
            assert_eq!(
                got,
                want,
                "seed {seed}, command {i}: `{}`; before it:\n{}",
                cmd.join(" "),
                history[history.len().saturating_sub(20)..].join("\n")
            );
            if i % 100 == 99 {
                assert_same_data(&mut redis, &mut strata, &history);
            }
        }
        assert_same_data(&mut redis, &mut strata, &history);
    }
}
