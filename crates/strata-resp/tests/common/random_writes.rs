//! Random writes of every type for differential and crash tests (a
//! file shared by strata-resp's tests and, by path, strata's): two keys
//! per type, members from small pools so collections pass the packed
//! encodings and shrink back, explicit stream identifiers, no random
//! picks, so the same commands leave the same data on any server.

use rand::Rng;

/// Two keys per type (strings, hashes, lists, sets, sorted sets,
/// streams), so most commands find their type; one in ten picks any key,
/// and `COPY`/`RENAME` carry values across, so types also collide.
pub const KEYS: [&str; 12] = [
    "s1", "s2", "h1", "h2", "l1", "l2", "t1", "t2", "z1", "z2", "x1", "x2",
];

/// A key for a command on type `kind` (an index into the pairs of
/// [`KEYS`]).
fn key_of<R: Rng>(rng: &mut R, kind: usize) -> String {
    if rng.gen_bool(0.1) {
        return any_key(rng);
    }
    KEYS[kind * 2 + rng.gen_range(0..2)].to_string()
}

fn any_key<R: Rng>(rng: &mut R) -> String {
    KEYS[rng.gen_range(0..KEYS.len())].to_string()
}

/// A member or field: mostly from a pool of 300 (so collections pass
/// the packed limits), sometimes an integer (sets' intset) or long.
fn member<R: Rng>(rng: &mut R) -> String {
    match rng.gen_range(0..10) {
        0 => rng.gen_range(-5..400).to_string(),
        1 => format!("long-{}-{}", rng.gen_range(0..20), "x".repeat(70)),
        _ => format!("m{}", rng.gen_range(0..300)),
    }
}

fn score<R: Rng>(rng: &mut R) -> String {
    match rng.gen_range(0..12) {
        0 => "-inf".into(),
        1 => "+inf".into(),
        2 => format!("{}.5", rng.gen_range(-10..10)),
        _ => rng.gen_range(-20..20).to_string(),
    }
}

fn several<R: Rng>(rng: &mut R, cmd: &mut Vec<String>, pairs: bool) {
    for _ in 0..rng.gen_range(1..6) {
        if pairs {
            cmd.push(member(rng));
        }
        cmd.push(member(rng));
    }
}

/// One random write (or an occasional read whose reply is ordered).
pub fn command<R: Rng>(rng: &mut R, next_ms: &mut u64) -> Vec<String> {
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
    let other = |rng: &mut R| key_of(rng, kind);
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
