//! Consumer groups with large pending lists against a real Redis: a
//! stream of 2,000 entries with two groups and about 2,500 pending
//! entries, then a seeded random sequence of `XADD`, `XDEL`,
//! `XREADGROUP` (new entries and history), `XACK`, `XCLAIM` (with its
//! options), `XAUTOCLAIM`, `XPENDING` (both forms, `IDLE` and consumer
//! filters), `XGROUP` (`CREATE`, `SETID`, `DESTROY`, `CREATECONSUMER`,
//! `DELCONSUMER`) and `XINFO` (`GROUPS`, `CONSUMERS`, `STREAM FULL`)
//! sent to Strata and to `redis-server`, every reply compared.
//!
//! Times differ between the two servers (Strata's test clock stands
//! still), so replies are compared without them: idle times, delivery,
//! seen and active times are left out. Entries are either fresh or made
//! old (`XCLAIM ... TIME 1000` or `IDLE` of 100 s), and the idle bounds
//! asked are 0 or 10 s, so which entries an idle bound selects is the
//! same on both. Fields Redis 7.0 lacks (a consumer's `inactive`,
//! `active-time`) are left out, and so is the radix tree's shape
//! (approximate after deletions, see `stream_diff.rs`); a claiming
//! consumer is created before each claim (7.0 creates it only when it
//! claims something, 7.2 always).
//! `STRATA_FUZZ_CASES` sets the number of commands per seed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::common::{self, Client, Value};
use crate::stream_diff::send;
use crate::stream_pel::read_group;

const CONSUMERS: [&str; 4] = ["alice", "bob", "carol", "dave"];

fn s(v: &str) -> String {
    v.to_string()
}

/// An identifier among the stream's, `top` the largest added.
fn id(rng: &mut SmallRng, top: u64) -> String {
    format!("{}-0", rng.gen_range(1..=top + 2))
}

fn group(rng: &mut SmallRng) -> String {
    s(["g", "g", "g", "h", "nogroup"][rng.gen_range(0..5)])
}

fn consumer(rng: &mut SmallRng) -> String {
    s(CONSUMERS[rng.gen_range(0..CONSUMERS.len())])
}

/// A minimum idle time: none, or 10 s (only entries made old pass).
fn min_idle(rng: &mut SmallRng) -> String {
    s(if rng.gen_bool(0.7) { "0" } else { "10000" })
}

fn ids(rng: &mut SmallRng, top: u64, cmd: &mut Vec<String>) {
    let n = if rng.gen_bool(0.2) {
        rng.gen_range(5..40)
    } else {
        rng.gen_range(1..4)
    };
    for _ in 0..n {
        cmd.push(id(rng, top));
    }
}

fn command(rng: &mut SmallRng, top: &mut u64) -> Vec<String> {
    let mut cmd = Vec::new();
    match rng.gen_range(0..100) {
        0..=14 => {
            *top += 1;
            cmd.extend([
                s("XADD"),
                s("s"),
                format!("{top}-0"),
                s("f"),
                top.to_string(),
            ]);
        }
        15..=18 => {
            cmd.extend([s("XDEL"), s("s")]);
            ids(rng, *top, &mut cmd);
        }
        19..=33 => {
            cmd.extend([s("XREADGROUP"), s("GROUP"), group(rng), consumer(rng)]);
            if rng.gen_bool(0.8) {
                cmd.extend([s("COUNT"), rng.gen_range(0..60).to_string()]);
            }
            if rng.gen_bool(0.1) {
                cmd.push(s("NOACK"));
            }
            let from = match rng.gen_range(0..3) {
                0 => s("0"),
                1 => id(rng, *top),
                _ => s(">"),
            };
            cmd.extend([s("STREAMS"), s("s"), from]);
        }
        34..=48 => {
            cmd.extend([s("XACK"), s("s"), group(rng)]);
            ids(rng, *top, &mut cmd);
        }
        49..=58 => {
            cmd.extend([
                s("XCLAIM"),
                s("s"),
                group(rng),
                consumer(rng),
                min_idle(rng),
            ]);
            ids(rng, *top, &mut cmd);
            match rng.gen_range(0..6) {
                0 => cmd.extend([s("TIME"), s("1000")]),
                1 => cmd.extend([s("IDLE"), s("100000")]),
                2 => cmd.extend([s("RETRYCOUNT"), rng.gen_range(0..9).to_string()]),
                _ => {}
            }
            if rng.gen_bool(0.2) {
                cmd.push(s("FORCE"));
            }
            if rng.gen_bool(0.2) {
                cmd.push(s("JUSTID"));
            }
            if rng.gen_bool(0.1) {
                cmd.extend([s("LASTID"), id(rng, *top)]);
            }
        }
        59..=66 => {
            cmd.extend([
                s("XAUTOCLAIM"),
                s("s"),
                group(rng),
                consumer(rng),
                min_idle(rng),
            ]);
            cmd.push(if rng.gen_bool(0.3) {
                s("0-0")
            } else {
                id(rng, *top)
            });
            cmd.extend([s("COUNT"), rng.gen_range(1..50).to_string()]);
            if rng.gen_bool(0.2) {
                cmd.push(s("JUSTID"));
            }
        }
        67..=78 => {
            cmd.extend([s("XPENDING"), s("s"), group(rng)]);
            if rng.gen_bool(0.7) {
                if rng.gen_bool(0.3) {
                    cmd.extend([s("IDLE"), min_idle(rng)]);
                }
                let (a, b) = (id(rng, *top), id(rng, *top));
                let start = if rng.gen_bool(0.3) { s("-") } else { a };
                let end = if rng.gen_bool(0.3) { s("+") } else { b };
                cmd.extend([start, end, rng.gen_range(0..80).to_string()]);
                if rng.gen_bool(0.4) {
                    cmd.push(consumer(rng));
                }
            }
        }
        79..=86 => match rng.gen_range(0..6) {
            0 => cmd.extend([
                s("XGROUP"),
                s("CREATECONSUMER"),
                s("s"),
                group(rng),
                consumer(rng),
            ]),
            1 => cmd.extend([
                s("XGROUP"),
                s("DELCONSUMER"),
                s("s"),
                group(rng),
                consumer(rng),
            ]),
            2 => cmd.extend([s("XGROUP"), s("SETID"), s("s"), group(rng), id(rng, *top)]),
            3 => cmd.extend([s("XGROUP"), s("DESTROY"), s("s"), s("h")]),
            _ => cmd.extend([s("XGROUP"), s("CREATE"), s("s"), s("h"), id(rng, *top)]),
        },
        _ => match rng.gen_range(0..3) {
            0 => cmd.extend([s("XINFO"), s("GROUPS"), s("s")]),
            1 => cmd.extend([s("XINFO"), s("CONSUMERS"), s("s"), group(rng)]),
            _ => {
                cmd.extend([s("XINFO"), s("STREAM"), s("s"), s("FULL")]);
                cmd.extend([s("COUNT"), rng.gen_range(0..30).to_string()]);
            }
        },
    }
    cmd
}

/// `v` (an array of names and values) with only the fields `keep`
/// allows, each value passed through `value`.
fn fields(v: &Value, keep: &dyn Fn(&str) -> bool, value: &dyn Fn(&str, &Value) -> Value) -> Value {
    let Value::Array(items) = v else {
        return v.clone();
    };
    let mut out = Vec::new();
    for pair in items.chunks(2) {
        let name = pair[0].text();
        if keep(&name) && pair.len() == 2 {
            out.push(pair[0].clone());
            out.push(value(&name, &pair[1]));
        }
    }
    Value::Array(out)
}

/// Each row of `v` without its element `at`.
fn drop_column(v: &Value, at: usize) -> Value {
    let Value::Array(rows) = v else {
        return v.clone();
    };
    let rows = rows.iter().map(|row| match row {
        Value::Array(cells) => {
            let kept = cells.iter().enumerate().filter(|(i, _)| *i != at);
            Value::Array(kept.map(|(_, c)| c.clone()).collect())
        }
        other => other.clone(),
    });
    Value::Array(rows.collect())
}

fn each(v: &Value, f: &dyn Fn(&Value) -> Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(f).collect()),
        other => other.clone(),
    }
}

/// The reply to `cmd` without what differs by clock or version.
fn timeless(cmd: &[String], reply: Value) -> Value {
    let same = |_: &str, v: &Value| v.clone();
    match (cmd[0].as_str(), cmd.get(1).map(String::as_str)) {
        ("XPENDING", _) if cmd.len() > 3 => drop_column(&reply, 2),
        ("XINFO", Some("CONSUMERS")) => each(&reply, &|c| {
            fields(c, &|n| n == "name" || n == "pending", &same)
        }),
        ("XINFO", Some("STREAM")) => {
            let consumer = |c: &Value| {
                let keep = |n: &str| !matches!(n, "seen-time" | "active-time");
                fields(c, &keep, &|n, v| {
                    if n == "pending" {
                        drop_column(v, 1)
                    } else {
                        v.clone()
                    }
                })
            };
            let group = |g: &Value| {
                fields(g, &|_| true, &|n, v| match n {
                    "pending" => drop_column(v, 2),
                    "consumers" => each(v, &consumer),
                    _ => v.clone(),
                })
            };
            let keep = |n: &str| !n.starts_with("radix-tree");
            fields(&reply, &keep, &|n, v| {
                if n == "groups" {
                    each(v, &group)
                } else {
                    v.clone()
                }
            })
        }
        _ => reply,
    }
}

/// The stream both servers start from: entries `1-0..=2000-0`, group `g`
/// with 1,500 pending among three consumers and group `h` with 1,000.
fn setup(c: &mut Client) {
    assert_eq!(c.cmd(&["FLUSHALL"]), Value::ok());
    for batch in (1..=2000u64).collect::<Vec<_>>().chunks(500) {
        for i in batch {
            let id = format!("{i}-0");
            c.send(&[b"XADD", b"s", id.as_bytes(), b"f", i.to_string().as_bytes()]);
        }
        for _ in batch {
            c.read();
        }
    }
    c.cmd(&["XGROUP", "CREATE", "s", "g", "0"]);
    c.cmd(&["XGROUP", "CREATE", "s", "h", "1000"]);
    for (who, n) in [("alice", "700"), ("bob", "500"), ("carol", "300")] {
        read_group(c, "g", who, n, "s");
    }
    c.cmd(&["XREADGROUP", "GROUP", "h", "dave", "STREAMS", "s", ">"]);
}

#[test]
fn random_group_commands_on_large_pending_lists_answer_as_redis_does() {
    let (peer, server) = (common::peer::require_redis(), common::start());
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    for seed in 0..2u64 {
        let mut history: Vec<String> = Vec::new();
        for c in [&mut redis, &mut strata] {
            setup(c);
        }
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut top = 2000;
        for _ in 0..common::fuzz_cases(1_500, 10_000) {
            let cmd = command(&mut rng, &mut top);
            if matches!(cmd[0].as_str(), "XCLAIM" | "XAUTOCLAIM") {
                // Redis 7.0 creates the claiming consumer only when it
                // claims something, 7.2 (and Strata) always: made first.
                let create = ["XGROUP", "CREATECONSUMER", "s", &cmd[2], &cmd[3]];
                assert_eq!(strata.cmd(&create), redis.cmd(&create), "seed {seed}");
            }
            history.push(cmd.join(" "));
            let want = timeless(&cmd, send(&mut redis, &cmd));
            let got = timeless(&cmd, send(&mut strata, &cmd));
            if want != got {
                let _ = std::fs::write("/tmp/stream_pel_diff_history.txt", history.join("\n"));
            }
            let recent = &history[history.len().saturating_sub(20)..];
            assert_eq!(got, want, "seed {seed}, after:\n{}", recent.join("\n"));
        }
        for cmd in [
            vec![s("XPENDING"), s("s"), s("g"), s("-"), s("+"), s("100000")],
            vec![
                s("XINFO"),
                s("STREAM"),
                s("s"),
                s("FULL"),
                s("COUNT"),
                s("0"),
            ],
        ] {
            let want = timeless(&cmd, send(&mut redis, &cmd));
            assert_eq!(
                timeless(&cmd, send(&mut strata, &cmd)),
                want,
                "seed {seed}: at the end"
            );
        }
    }
}
