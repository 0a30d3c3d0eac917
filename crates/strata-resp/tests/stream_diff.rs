//! Streams against a real Redis: seeded random sequences of `XADD` (with
//! every trim option, `NOMKSTREAM`, explicit, `<ms>-*` and bad
//! identifiers), `XDEL`, `XTRIM`, `XRANGE`, `XREVRANGE`, `XLEN`, `XREAD`
//! and `XSETID` sent to Strata and to `redis-server`, every reply compared.
//! Identifiers are explicit (`*` reads each server's own clock) and
//! entries small, so Redis's listpack nodes close at 100 entries, as
//! Strata's approximate trims assume. `STRATA_FUZZ_CASES` sets the number
//! of commands per seed. The peer may be Redis 7.0 (Debian's): the one
//! difference of these commands between 7.0 and 7.2 (`XSETID` below the
//! largest deleted identifier, refused since 7.2) is not compared then.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::common::{self, Client, Value};

/// A random identifier near the streams' current range.
fn id(rng: &mut SmallRng, top: u64) -> String {
    let ms = rng.gen_range(0..=top + 3);
    match rng.gen_range(0..10) {
        0 => ms.to_string(),
        1 => "-".into(),
        2 => "+".into(),
        3 if rng.gen_bool(0.2) => "nope".into(),
        _ => format!("{ms}-{}", rng.gen_range(0..4)),
    }
}

fn bound(rng: &mut SmallRng, top: u64) -> String {
    let id = id(rng, top);
    if rng.gen_bool(0.2) {
        format!("({id}")
    } else {
        id
    }
}

fn trim_opts(rng: &mut SmallRng, top: u64, cmd: &mut Vec<String>) {
    if rng.gen_bool(0.5) {
        cmd.push("MAXLEN".into());
    } else {
        cmd.push("MINID".into());
    }
    match rng.gen_range(0..3) {
        0 => cmd.push("~".into()),
        1 => cmd.push("=".into()),
        _ => {}
    }
    if cmd.contains(&"MAXLEN".to_string()) {
        cmd.push(rng.gen_range(-1..260).to_string());
    } else {
        cmd.push(id(rng, top));
    }
    if rng.gen_bool(0.2) {
        cmd.push("LIMIT".into());
        cmd.push(rng.gen_range(-1..300).to_string());
    }
}

fn command(rng: &mut SmallRng, top: &mut u64) -> Vec<String> {
    let key = ["s1", "s2", "str"][rng.gen_range(0..3)].to_string();
    let mut cmd: Vec<String> = Vec::new();
    let s = |v: &str| v.to_string();
    match rng.gen_range(0..100) {
        0..=54 => {
            cmd.extend([s("XADD"), key]);
            if rng.gen_bool(0.05) {
                cmd.push(s("NOMKSTREAM"));
            }
            if rng.gen_bool(0.3) {
                trim_opts(rng, *top, &mut cmd);
            }
            *top += u64::from(rng.gen_bool(0.3));
            let id = match rng.gen_range(0..20) {
                0 => id(rng, *top),
                1 => format!("{}-*", rng.gen_range(0..=*top)),
                2 => s("0-0"),
                _ => format!("{}-{}", *top, rng.gen_range(0..1000)),
            };
            cmd.push(id);
            for _ in 0..rng.gen_range(0..=2) {
                cmd.push(["f", "g"][rng.gen_range(0..2)].into());
                cmd.push(format!("v{}", rng.gen_range(0..100)));
            }
        }
        55..=64 => {
            cmd.extend([s("XDEL"), key]);
            for _ in 0..rng.gen_range(1..4) {
                cmd.push(id(rng, *top));
            }
        }
        65..=69 => {
            cmd.extend([s("XTRIM"), key]);
            trim_opts(rng, *top, &mut cmd);
        }
        70..=84 => {
            let rev = rng.gen_bool(0.4);
            cmd.extend([s(if rev { "XREVRANGE" } else { "XRANGE" }), key]);
            cmd.extend([bound(rng, *top), bound(rng, *top)]);
            if rng.gen_bool(0.4) {
                cmd.extend([s("COUNT"), rng.gen_range(-1..20).to_string()]);
            }
        }
        85..=89 => cmd.extend([s("XLEN"), key]),
        90..=96 => {
            cmd.push(s("XREAD"));
            if rng.gen_bool(0.5) {
                cmd.extend([s("COUNT"), rng.gen_range(-1..10).to_string()]);
            }
            cmd.push(s("STREAMS"));
            let two = rng.gen_bool(0.5);
            cmd.push(key);
            if two {
                cmd.push(s("s2"));
            }
            for _ in 0..(1 + usize::from(two)) {
                cmd.push(if rng.gen_bool(0.1) {
                    s("$")
                } else {
                    id(rng, *top)
                });
            }
        }
        _ => {
            cmd.extend([s("XSETID"), key, id(rng, *top + 2)]);
            if rng.gen_bool(0.3) {
                cmd.extend([s("ENTRIESADDED"), rng.gen_range(-1..400).to_string()]);
            }
            if rng.gen_bool(0.3) {
                cmd.extend([s("MAXDELETEDID"), id(rng, *top)]);
            }
        }
    }
    cmd
}

/// `<ms>-<seq>` (or `<ms>`) as a pair; `None` for anything else.
fn parse_id(s: &str) -> Option<(u64, u64)> {
    match s.split_once('-') {
        Some((ms, seq)) => Some((ms.parse().ok()?, seq.parse().ok()?)),
        None => Some((s.parse().ok()?, 0)),
    }
}

/// Whether `cmd` is an `XSETID` below the stream's largest deleted
/// identifier, which Redis 7.2 refuses and 7.0 accepts: not a comparison
/// a 7.0 peer can make.
fn differs_before_7_2(redis: &mut Client, cmd: &[String]) -> bool {
    if cmd[0] != "XSETID" {
        return false;
    }
    let Some(id) = parse_id(&cmd[2]) else {
        return false;
    };
    let Value::Array(info) = redis.cmd(&["XINFO", "STREAM", &cmd[1]]) else {
        return false;
    };
    let deleted = info
        .chunks(2)
        .find(|pair| pair[0] == Value::bulk("max-deleted-entry-id"))
        .and_then(|pair| parse_id(&pair[1].text()));
    deleted.is_some_and(|d| id < d)
}

/// `XDEL` of a run of up to 150 consecutive entries (read from Redis):
/// what empties whole nodes in the middle of a stream.
fn delete_a_run(rng: &mut SmallRng, redis: &mut Client, top: u64) -> Vec<String> {
    let key = ["s1", "s2"][rng.gen_range(0..2)];
    let from = format!("{}", rng.gen_range(0..=top));
    let n = rng.gen_range(1..150).to_string();
    let mut cmd = vec!["XDEL".to_string(), key.to_string()];
    if let Value::Array(entries) = redis.cmd(&["XRANGE", key, &from, "+", "COUNT", &n]) {
        cmd.extend(entries.iter().map(|e| e.array()[0].text()));
    }
    if cmd.len() == 2 {
        cmd.push("0-1".into());
    }
    cmd
}

/// Sends `cmd` and reads the reply.
pub fn send(c: &mut Client, cmd: &[String]) -> Value {
    let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
    c.cmd(&args)
}

#[test]
fn random_stream_commands_answer_as_redis_does() {
    let peer = common::peer::require_redis();
    let server = common::start();
    let mut redis = peer.client();
    let mut strata = Client::connect(&server);
    let mut history: Vec<String> = Vec::new();
    let version = redis.cmd(&["INFO", "server"]).text();
    let before_7_2 = version
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .is_some_and(|v| v.starts_with("7.0") || v.starts_with("6."));
    for seed in 0..3u64 {
        history.clear();
        for c in [&mut redis, &mut strata] {
            assert_eq!(c.cmd(&["FLUSHALL"]), Value::ok());
            assert_eq!(c.cmd(&["SET", "str", "x"]), Value::ok());
        }
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut top = 1;
        for _ in 0..common::fuzz_cases(2_500, 20_000) {
            let mut cmd = command(&mut rng, &mut top);
            if rng.gen_ratio(1, 20) {
                cmd = delete_a_run(&mut rng, &mut redis, top);
            }
            if before_7_2 && differs_before_7_2(&mut redis, &cmd) {
                continue;
            }
            history.push(cmd.join(" "));
            let want = send(&mut redis, &cmd);
            let got = send(&mut strata, &cmd);
            if want != got {
                let _ = std::fs::write("/tmp/stream_diff_history.txt", history.join("\n"));
                let tail = history.len().saturating_sub(30);
                panic!(
                    "seed {seed}: `{}`\nredis:  {want:?}\nstrata: {got:?}\nlast commands:\n{}",
                    cmd.join(" "),
                    history[tail..].join("\n")
                );
            }
        }
        for key in ["s1", "s2"] {
            let full = ["XRANGE", key, "-", "+"];
            assert_eq!(
                redis.cmd(&full),
                strata.cmd(&full),
                "seed {seed}: {key} at the end"
            );
        }
    }
}
