//! Sorted sets in both encodings against a model, over RESP: with
//! `zset-max-listpack-entries 4` and `zset-max-listpack-value 8`, random
//! ZADD (with NX/XX/GT/LT/CH/INCR), ZINCRBY, ZREM, ZPOPMIN/ZPOPMAX,
//! ZREMRANGEBY*, ZRANGESTORE, ZUNIONSTORE, RENAME, COPY and DEL (some
//! inside MULTI/EXEC) move sets across the thresholds (by count and by
//! member length) and grow two, whose members are 150 bytes long, to
//! several tree levels; every read command is checked against the model
//! (ranks, ranges by rank, score and lex in both directions with LIMIT,
//! scores, counts, a complete ZSCAN), `OBJECT ENCODING` against the
//! conversion rule, and the engine against leaks (no orphan or missing
//! chunk). Also: a ZADD on a large set logs one record whose size does not
//! grow with the set, and bad input answers Redis's errors.

use crate::common;

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use common::model::{
    assert_chunks_whole, assert_whole, configure, copy, del, encoding, fill, flush_takes_chunks,
    int, journaled, one_record, rename, strings, text,
};
use common::{Client, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

type Zset = BTreeMap<String, f64>;

const KEYS: usize = 6;
/// Key 1 keeps every score 0, so lexicographic ranges are defined on it.
const LEX_KEY: &str = "z1";

fn order(a: &(f64, String), b: &(f64, String)) -> Ordering {
    a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1))
}

fn sorted(z: &Zset) -> Vec<(f64, String)> {
    let mut v: Vec<(f64, String)> = z.iter().map(|(m, s)| (*s, m.clone())).collect();
    v.sort_by(order);
    v
}

/// The model: each key's members, and whether it was converted to the
/// large encoding (it then stays large until deleted).
#[derive(Default)]
struct Model {
    sets: BTreeMap<String, (Zset, bool)>,
}

fn fits(z: &Zset) -> bool {
    z.len() <= 4 && z.keys().all(|m| m.len() <= 8)
}

impl Model {
    fn after_write(&mut self, key: &str) {
        let Some((z, large)) = self.sets.get_mut(key) else {
            return;
        };
        if z.is_empty() {
            self.sets.remove(key);
            return;
        }
        *large |= !fits(z);
    }

    fn get(&self, key: &str) -> Zset {
        self.sets.get(key).map(|e| e.0.clone()).unwrap_or_default()
    }

    fn set(&mut self, key: &str) -> &mut Zset {
        &mut self.sets.entry(key.to_string()).or_default().0
    }
}

fn member(rng: &mut SmallRng, wide: bool) -> String {
    if wide {
        return format!("w{:04}-{}", rng.gen_range(0..2000), "x".repeat(150));
    }
    match rng.gen_range(0..10) {
        0 => format!("long-member-{}", rng.gen_range(0..8)),
        _ => format!("m{}", rng.gen_range(0..8)),
    }
}

fn score(rng: &mut SmallRng, key: &str) -> f64 {
    if key == LEX_KEY {
        return 0.0;
    }
    match rng.gen_range(0..20) {
        0 => f64::INFINITY,
        1 => f64::NEG_INFINITY,
        2 => 1.5,
        _ => f64::from(rng.gen_range(-4..5)),
    }
}

fn fmt(s: f64) -> String {
    match s {
        f64::INFINITY => "+inf".into(),
        f64::NEG_INFINITY => "-inf".into(),
        _ => s.to_string(),
    }
}

fn float(v: &Value) -> Option<f64> {
    text(v).map(|t| t.parse().unwrap())
}

/// ZADD with random flags, checked against the model's rules.
fn zadd(c: &mut Client, m: &mut Model, rng: &mut SmallRng, key: &str, wide: bool) {
    let (nx, xx) = match rng.gen_range(0..6) {
        0 => (true, false),
        1 => (false, true),
        _ => (false, false),
    };
    let (gt, lt) = match (nx, rng.gen_range(0..6)) {
        (false, 0) => (true, false),
        (false, 1) => (false, true),
        _ => (false, false),
    };
    let ch = rng.gen_bool(0.3);
    let incr = rng.gen_ratio(1, 5);
    let n = match (incr, wide) {
        (true, _) => 1,
        (false, true) => rng.gen_range(1..8),
        (false, false) => rng.gen_range(1..5),
    };
    let pairs: Vec<(f64, String)> = (0..n)
        .map(|_| (score(rng, key), member(rng, wide)))
        .collect();
    let mut args: Vec<String> = vec!["ZADD".into(), key.into()];
    for (flag, on) in [("NX", nx), ("XX", xx), ("GT", gt), ("LT", lt), ("CH", ch)] {
        if on {
            args.push(flag.into());
        }
    }
    if incr {
        args.push("INCR".into());
    }
    for (s, x) in &pairs {
        args.extend([fmt(*s), x.clone()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let reply = c.cmd(&args);
    let z = m.set(key);
    let (mut added, mut changed, mut last) = (0, 0, None);
    for (s, x) in &pairs {
        let current = z.get(x).copied();
        let new = match (current, incr) {
            (Some(c), true) => c + s,
            _ => *s,
        };
        if new.is_nan() {
            assert!(
                matches!(&reply, Value::Error(e) if e.contains("NaN")),
                "{reply:?}"
            );
            return;
        }
        let allowed = match current {
            None => !xx,
            Some(c) => !nx && (!gt || new > c) && (!lt || new < c),
        };
        if !allowed {
            continue;
        }
        match current {
            None => added += 1,
            Some(c) if c != new => changed += 1,
            _ => {}
        }
        last = Some(new);
        z.insert(x.clone(), new);
    }
    match (incr, ch) {
        (true, _) => assert_eq!(float(&reply), last, "{args:?}"),
        (false, true) => assert_eq!(int(&reply), added + changed, "{args:?}"),
        (false, false) => assert_eq!(int(&reply), added, "{args:?}"),
    }
}

fn step(c: &mut Client, m: &mut Model, rng: &mut SmallRng) {
    let k = rng.gen_range(0..KEYS);
    let key = format!("z{k}");
    let wide = k == 0 || k == 2; // two sets grow to hundreds of long members
    match rng.gen_range(0..100) {
        0..=39 => zadd(c, m, rng, &key, wide),
        40..=44 => {
            let (by, x) = (score(rng, &key), member(rng, wide));
            let reply = c.cmd(&["ZINCRBY", &key, &fmt(by), &x]);
            let new = m.get(&key).get(&x).copied().unwrap_or(0.0) + by;
            if new.is_nan() {
                assert!(matches!(reply, Value::Error(_)));
            } else {
                assert_eq!(float(&reply), Some(new));
                m.set(&key).insert(x, new);
            }
        }
        45..=59 => {
            let xs: Vec<String> = (0..rng.gen_range(1..4))
                .map(|_| member(rng, wide))
                .collect();
            let z = m.set(&key);
            let removed = xs.iter().filter(|x| z.remove(*x).is_some()).count();
            let mut args = vec!["ZREM", &key];
            args.extend(xs.iter().map(String::as_str));
            assert_eq!(int(&c.cmd(&args)), removed as i64);
        }
        60..=64 => {
            let count = rng.gen_range(0..4);
            let max = rng.gen_bool(0.5);
            let op = if max { "ZPOPMAX" } else { "ZPOPMIN" };
            let reply = strings(&c.cmd(&[op, &key, &count.to_string()]));
            let mut all = sorted(&m.get(&key));
            if max {
                all.reverse();
            }
            let want: Vec<String> = all
                .iter()
                .take(count)
                .flat_map(|(s, x)| [x.clone(), s.to_string()])
                .collect();
            assert_eq!(reply.len(), want.len());
            let z = m.set(&key);
            for pair in reply.chunks(2) {
                assert!(z.remove(&pair[0]).is_some(), "{key}: {pair:?}");
            }
            let got: Vec<&String> = reply.iter().step_by(2).collect();
            let want: Vec<&String> = want.iter().step_by(2).collect();
            assert_eq!(got, want, "{op} {key}");
        }
        65..=69 => {
            let all = sorted(&m.get(&key));
            let (args, doomed): (Vec<String>, Vec<String>) = match rng.gen_range(0..3) {
                0 => {
                    let (a, b) = (rng.gen_range(-8i64..8), rng.gen_range(-8i64..8));
                    let span = rank_span(a, b, all.len());
                    let args = vec![
                        "ZREMRANGEBYRANK".into(),
                        key.clone(),
                        a.to_string(),
                        b.to_string(),
                    ];
                    (args, all[span].iter().map(|e| e.1.clone()).collect())
                }
                1 if key == LEX_KEY => {
                    let (lo, hi) = (lex_bound(rng, true), lex_bound(rng, false));
                    let args = vec!["ZREMRANGEBYLEX".into(), key.clone(), lo.clone(), hi.clone()];
                    let doomed = all
                        .iter()
                        .filter(|e| in_lex(&lo, &hi, &e.1))
                        .map(|e| e.1.clone());
                    (args, doomed.collect())
                }
                // Wide sets lose a few members at a time, so they grow.
                _ if !wide => {
                    let (lo, hi) = (score_bound(rng), score_bound(rng));
                    let args = vec![
                        "ZREMRANGEBYSCORE".into(),
                        key.clone(),
                        lo.clone(),
                        hi.clone(),
                    ];
                    let doomed = all
                        .iter()
                        .filter(|e| in_score(&lo, &hi, e.0))
                        .map(|e| e.1.clone());
                    (args, doomed.collect())
                }
                _ => return,
            };
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_eq!(int(&c.cmd(&args)), doomed.len() as i64, "{args:?}");
            let z = m.set(&key);
            doomed.iter().for_each(|x| {
                z.remove(x);
            });
        }
        70..=74 if !wide && key != LEX_KEY => {
            let src = format!("z{}", rng.gen_range(0..KEYS));
            let all = sorted(&m.get(&src));
            let (a, b) = (rng.gen_range(-6i64..6), rng.gen_range(-6i64..6));
            let picked: Zset = all[rank_span(a, b, all.len())]
                .iter()
                .map(|(s, x)| (x.clone(), *s))
                .collect();
            let n = int(&c.cmd(&["ZRANGESTORE", &key, &src, &a.to_string(), &b.to_string()]));
            assert_eq!(n, picked.len() as i64);
            let large = !fits(&picked);
            m.sets.insert(key.clone(), (picked, large));
        }
        75..=78 if !wide && key != LEX_KEY => {
            let (a, b) = (
                format!("z{}", rng.gen_range(0..KEYS)),
                format!("z{}", rng.gen_range(0..KEYS)),
            );
            let mut union = m.get(&a);
            for (x, s) in m.get(&b) {
                let sum = union
                    .get(&x)
                    .map_or(s, |o| if (o + s).is_nan() { 0.0 } else { o + s });
                union.insert(x, sum);
            }
            let n = int(&c.cmd(&["ZUNIONSTORE", &key, "2", &a, &b]));
            assert_eq!(n, union.len() as i64);
            let large = !fits(&union);
            m.sets.insert(key.clone(), (union, large));
        }
        79..=81 if !wide => del(c, &mut m.sets, &key),
        82..=85 => {
            let to = format!("z{}", rng.gen_range(3..KEYS));
            if to != key && to != LEX_KEY && key != LEX_KEY {
                copy(c, rng, &mut m.sets, &key, &to);
            }
        }
        86..=88 if !wide && key != LEX_KEY => {
            let to = format!("z{}", rng.gen_range(3..KEYS));
            rename(c, &mut m.sets, &key, &to);
        }
        _ => {
            let (s, x) = (score(rng, &key), member(rng, wide));
            let gone = member(rng, wide);
            c.cmd(&["MULTI"]);
            c.cmd(&["ZADD", &key, &fmt(s), &x]);
            c.cmd(&["ZREM", &key, &gone]);
            let replies = c.cmd(&["EXEC"]);
            let added = m.set(&key).insert(x, s).is_none();
            m.after_write(&key); // each command converts on its own
            let removed = m.sets.get_mut(&key).unwrap().0.remove(&gone).is_some();
            assert_eq!(
                replies.array(),
                &[Value::Int(added.into()), Value::Int(removed.into())]
            );
        }
    }
    let keys: Vec<String> = m.sets.keys().cloned().collect();
    keys.iter().for_each(|k| m.after_write(k));
}

/// Redis's `start..=stop` ranks over `len` as a range.
fn rank_span(start: i64, stop: i64, len: usize) -> std::ops::Range<usize> {
    let len = len as i64;
    let start = if start < 0 {
        (len + start).max(0)
    } else {
        start
    };
    let stop = if stop < 0 {
        len + stop
    } else {
        stop.min(len - 1)
    };
    match start <= stop && start < len {
        true => start as usize..stop as usize + 1,
        false => 0..0,
    }
}

fn score_bound(rng: &mut SmallRng) -> String {
    match rng.gen_range(0..8) {
        0 => "-inf".into(),
        1 => "+inf".into(),
        2 => format!("({}", rng.gen_range(-4..5)),
        3 => "(1.5".into(),
        _ => rng.gen_range(-4..5).to_string(),
    }
}

fn in_score(lo: &str, hi: &str, s: f64) -> bool {
    let parse = |b: &str| match b.strip_prefix('(') {
        Some(v) => (v.parse::<f64>().unwrap(), true),
        None => (b.parse::<f64>().unwrap(), false),
    };
    let ((l, lo_open), (h, hi_open)) = (parse(lo), parse(hi));
    let above = if lo_open { s > l } else { s >= l };
    let below = if hi_open { s < h } else { s <= h };
    above && below
}

fn lex_bound(rng: &mut SmallRng, low: bool) -> String {
    match rng.gen_range(0..6) {
        0 => (if low { "-" } else { "+" }).into(),
        1 => format!("(m{}", rng.gen_range(0..8)),
        2 => "[long".into(),
        _ => format!("[m{}", rng.gen_range(0..8)),
    }
}

fn in_lex(lo: &str, hi: &str, x: &str) -> bool {
    let above = match lo {
        "-" => true,
        "+" => false,
        _ if lo.starts_with('(') => x > &lo[1..],
        _ => x >= &lo[1..],
    };
    let below = match hi {
        "-" => false,
        "+" => true,
        _ if hi.starts_with('(') => x < &hi[1..],
        _ => x <= &hi[1..],
    };
    above && below
}

/// Members and scores of a flat `member score ...` reply.
fn pairs(v: &Value) -> Vec<(f64, String)> {
    let flat = strings(v);
    flat.chunks(2)
        .map(|p| (p[1].parse().unwrap(), p[0].clone()))
        .collect()
}

fn limit(all: Vec<(f64, String)>, off: usize, count: i64) -> Vec<(f64, String)> {
    let taken = all.into_iter().skip(off);
    match count {
        n if n < 0 => taken.collect(),
        n => taken.take(n as usize).collect(),
    }
}

fn check_ranges(c: &mut Client, key: &str, all: &[(f64, String)], rng: &mut SmallRng) {
    for _ in 0..4 {
        let (a, b) = (rng.gen_range(-12i64..12), rng.gen_range(-12i64..12));
        let (a_s, b_s) = (a.to_string(), b.to_string());
        let want = all[rank_span(a, b, all.len())].to_vec();
        assert_eq!(
            pairs(&c.cmd(&["ZRANGE", key, &a_s, &b_s, "WITHSCORES"])),
            want,
            "{key} {a} {b}"
        );
        let mut rev = all.to_vec();
        rev.reverse();
        let want = rev[rank_span(a, b, all.len())].to_vec();
        assert_eq!(
            pairs(&c.cmd(&["ZREVRANGE", key, &a_s, &b_s, "WITHSCORES"])),
            want
        );
        let (lo, hi) = (score_bound(rng), score_bound(rng));
        let (off, count) = (rng.gen_range(0..5usize), rng.gen_range(-1..6i64));
        let inside: Vec<(f64, String)> = all
            .iter()
            .filter(|e| in_score(&lo, &hi, e.0))
            .cloned()
            .collect();
        let n = int(&c.cmd(&["ZCOUNT", key, &lo, &hi]));
        assert_eq!(n, inside.len() as i64, "ZCOUNT {key} {lo} {hi}");
        let (o, n) = (off.to_string(), count.to_string());
        let got = pairs(&c.cmd(&[
            "ZRANGEBYSCORE",
            key,
            &lo,
            &hi,
            "WITHSCORES",
            "LIMIT",
            &o,
            &n,
        ]));
        assert_eq!(
            got,
            limit(inside.clone(), off, count),
            "{key} {lo} {hi} {off} {count}"
        );
        let mut rev = inside;
        rev.reverse();
        let got = pairs(&c.cmd(&[
            "ZRANGE",
            key,
            &hi,
            &lo,
            "BYSCORE",
            "REV",
            "LIMIT",
            &o,
            &n,
            "WITHSCORES",
        ]));
        assert_eq!(
            got,
            limit(rev, off, count),
            "{key} rev {hi} {lo} {off} {count}"
        );
        // Lexicographic ranges are defined when all scores are equal.
        if all.iter().all(|e| e.0 == all[0].0) {
            let (lo, hi) = (lex_bound(rng, true), lex_bound(rng, false));
            let inside: Vec<String> = all
                .iter()
                .filter(|e| in_lex(&lo, &hi, &e.1))
                .map(|e| e.1.clone())
                .collect();
            assert_eq!(
                int(&c.cmd(&["ZLEXCOUNT", key, &lo, &hi])),
                inside.len() as i64
            );
            let got = strings(&c.cmd(&["ZRANGEBYLEX", key, &lo, &hi, "LIMIT", &o, &n]));
            let want: Vec<String> = inside
                .iter()
                .skip(off)
                .take(if count < 0 {
                    usize::MAX
                } else {
                    count as usize
                })
                .cloned()
                .collect();
            assert_eq!(got, want, "{key} lex {lo} {hi}");
            let got = strings(&c.cmd(&["ZREVRANGEBYLEX", key, &hi, &lo]));
            assert_eq!(got, inside.into_iter().rev().collect::<Vec<_>>());
        }
    }
}

fn scan(c: &mut Client, key: &str, z: &Zset) {
    let mut seen = BTreeMap::new();
    let mut cursor = "0".to_string();
    for _ in 0..10_000 {
        let reply = c.cmd(&["ZSCAN", key, &cursor, "COUNT", "5"]);
        let parts = reply.array();
        cursor = text(&parts[0]).unwrap();
        for (s, x) in pairs(&parts[1]) {
            assert_eq!(z.get(&x), Some(&s), "{key}: {x}");
            seen.insert(x, s);
        }
        if cursor == "0" {
            break;
        }
    }
    assert_eq!(&seen, z, "{key}");
}

fn check(c: &mut Client, m: &Model, server: &common::Server, rng: &mut SmallRng) {
    for k in 0..KEYS {
        let key = format!("z{k}");
        let Some((z, large)) = m.sets.get(&key) else {
            assert_eq!(int(&c.cmd(&["EXISTS", &key])), 0, "{key}");
            assert_eq!(int(&c.cmd(&["ZCARD", &key])), 0);
            continue;
        };
        let all = sorted(z);
        assert_eq!(
            pairs(&c.cmd(&["ZRANGE", &key, "0", "-1", "WITHSCORES"])),
            all,
            "{key}"
        );
        assert_eq!(int(&c.cmd(&["ZCARD", &key])), z.len() as i64);
        let encoding = encoding(c, &key);
        assert_eq!(
            encoding,
            if *large { "skiplist" } else { "listpack" },
            "{key}"
        );
        let mut probes: Vec<String> = all.iter().step_by(7).map(|e| e.1.clone()).collect();
        probes.push("nope".into());
        for p in &probes {
            let at = all.iter().position(|e| &e.1 == p);
            let rank = c.cmd(&["ZRANK", &key, p]);
            let rev = c.cmd(&["ZREVRANK", &key, p]);
            let score = float(&c.cmd(&["ZSCORE", &key, p]));
            match at {
                Some(i) => {
                    assert_eq!(int(&rank), i as i64, "{key} {p}");
                    assert_eq!(int(&rev), (all.len() - 1 - i) as i64);
                    assert_eq!(score, Some(all[i].0));
                    // Redis 7.2's WITHSCORE: the rank and the score.
                    let with = c.cmd(&["ZRANK", &key, p, "WITHSCORE"]);
                    assert_eq!(int(&with.array()[0]), i as i64, "{key} {p}");
                    assert_eq!(float(&with.array()[1]), Some(all[i].0));
                }
                None => {
                    assert_eq!((rank, rev, score), (Value::Null, Value::Null, None));
                }
            }
        }
        let mut args = vec!["ZMSCORE", key.as_str()];
        args.extend(probes.iter().map(String::as_str));
        let got: Vec<Option<f64>> = c.cmd(&args).array().iter().map(float).collect();
        let want: Vec<Option<f64>> = probes.iter().map(|p| z.get(p).copied()).collect();
        assert_eq!(got, want);
        check_ranges(c, &key, &all, rng);
        scan(c, &key, z);
        let picked = strings(&c.cmd(&["ZRANDMEMBER", &key, "3"]));
        assert_eq!(picked.len(), z.len().min(3));
        assert_eq!(picked.iter().collect::<BTreeSet<_>>().len(), picked.len());
        assert!(picked.iter().all(|x| z.contains_key(x)));
        let picked = pairs(&c.cmd(&["ZRANDMEMBER", &key, "-5", "WITHSCORES"]));
        assert_eq!(picked.len(), 5);
        assert!(picked.iter().all(|(s, x)| z.get(x) == Some(s)));
    }
    assert_whole(c, server, m.sets.len());
}

fn configure_zsets(c: &mut Client) {
    let params = [
        ("zset-max-listpack-entries", "4"),
        ("zset-max-listpack-value", "8"),
    ];
    configure(c, &params, "zset-max-*");
}

#[test]
fn sorted_sets_match_a_model_across_both_encodings() {
    let server = common::start();
    let mut c = Client::connect(&server);
    configure_zsets(&mut c);
    let mut rng = SmallRng::seed_from_u64(32);
    let mut model = Model::default();
    // z0 starts deep: 1,000 long members, four tree levels.
    for batch in 0..20 {
        let mut args = vec!["ZADD".to_string(), "z0".to_string()];
        for i in batch * 50..(batch + 1) * 50 {
            let (s, x) = (
                f64::from(i % 7),
                format!("w{:04}-{}", i * 2, "x".repeat(150)),
            );
            args.extend([fmt(s), x.clone()]);
            model.set("z0").insert(x, s);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(int(&c.cmd(&args)), 50);
    }
    model.after_write("z0");
    let mut deepest = 0;
    for _ in 0..30 {
        for _ in 0..150 {
            step(&mut c, &mut model, &mut rng);
        }
        check(&mut c, &model, &server, &mut rng);
        let biggest = model.sets.values().map(|e| e.0.len()).max().unwrap_or(0);
        deepest = deepest.max(biggest);
    }
    // 150-byte members: 6 to 12 a leaf and 6 to 11 children a node, so a
    // set of 800 has four levels.
    assert!(deepest > 800, "{deepest}");
    assert!(server.keyspace.chunk_census().chunks > 30);
    flush_takes_chunks(&mut c, &server);
}

#[test]
fn bad_input_answers_as_redis() {
    let server = common::start();
    let mut c = Client::connect(&server);
    configure_zsets(&mut c);
    c.cmd(&["SET", "str", "x"]);
    c.cmd(&[
        "ZADD", "big", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e",
    ]);
    assert_eq!(encoding(&mut c, "big"), "skiplist");
    let err = |v: Value, start: &str| matches!(&v, Value::Error(e) if e.starts_with(start));
    for args in [
        vec!["ZADD", "str", "1", "a"],
        vec!["ZCARD", "str"],
        vec!["ZRANGE", "str", "0", "-1"],
        vec!["ZSCAN", "str", "0"],
        vec!["ZUNIONSTORE", "d", "2", "big", "str"],
        vec!["ZRANGESTORE", "d", "str", "0", "-1"],
    ] {
        assert!(err(c.cmd(&args), "WRONGTYPE"), "{args:?}");
    }
    for args in [
        vec!["ZADD", "big", "nan", "a"],
        vec!["ZADD", "big", "x", "a"],
        vec!["ZADD", "big", "NX", "XX", "1", "a"],
        vec!["ZADD", "big", "GT", "LT", "1", "a"],
        vec!["ZADD", "big", "INCR", "1", "a", "2", "b"],
        vec!["ZINCRBY", "big", "nan", "a"],
        vec!["ZRANGEBYSCORE", "big", "nan", "1"],
        vec!["ZRANGEBYLEX", "big", "a", "+"],
        vec!["ZRANGE", "big", "0", "x"],
        vec!["ZPOPMIN", "big", "-1"],
    ] {
        assert!(err(c.cmd(&args), "ERR"), "{args:?}");
    }
    // Redis reads a random count in -LONG_MAX..=LONG_MAX.
    c.cmd(&["HSET", "h", "f", "v"]);
    c.cmd(&["SADD", "s", "m"]);
    let out_of_range = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
    for (cmd, key) in [
        ("ZRANDMEMBER", "big"),
        ("ZRANDMEMBER", "missing"),
        ("HRANDFIELD", "h"),
        ("SRANDMEMBER", "s"),
    ] {
        let reply = c.cmd(&[cmd, key, "-9223372036854775808"]);
        assert!(err(reply, out_of_range), "{cmd} {key}");
    }
    c.cmd(&["ZADD", "big", "+inf", "top"]);
    let reply = c.cmd(&["ZINCRBY", "big", "-inf", "top"]);
    assert!(err(reply, "ERR resulting score is not a number"));
    // Huge ranges, offsets and counts.
    let huge = "9223372036854775807";
    let minus = "-9223372036854775808";
    assert_eq!(strings(&c.cmd(&["ZRANGE", "big", minus, huge])).len(), 6);
    let reply = c.cmd(&[
        "ZRANGE", "big", "-inf", "+inf", "BYSCORE", "LIMIT", huge, huge,
    ]);
    assert_eq!(reply.array().len(), 0);
    let reply = c.cmd(&[
        "ZRANGE", "big", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "1", huge,
    ]);
    assert_eq!(strings(&reply), ["e", "d", "c", "b", "a"]);
    assert_eq!(strings(&c.cmd(&["ZRANDMEMBER", "big", huge])).len(), 6);
    assert_eq!(int(&c.cmd(&["ZREMRANGEBYRANK", "big", minus, "0"])), 1);
    assert_eq!(strings(&c.cmd(&["ZPOPMAX", "big", huge])).len(), 10);
    assert_eq!(int(&c.cmd(&["EXISTS", "big"])), 0);
    assert_eq!(server.keyspace.chunk_census().chunks, 0);
}

#[test]
fn zadd_on_a_large_sorted_set_logs_a_record_that_does_not_grow_with_it() {
    let (server, mut c, sizes) = journaled();
    let mut last = Vec::new();
    for (key, members) in [("small", 1_000u32), ("large", 40_000)] {
        let pair = |i: u32| vec![(i % 977).to_string(), format!("member:{i:08}")];
        fill(&mut c, "ZADD", key, members, pair, |_| 100);
        assert_eq!(encoding(&mut c, key), "skiplist");
        for args in [
            vec!["ZADD", key, "5000.5", "member:00000007"],
            vec!["ZADD", key, "12", "new-member"],
            vec!["ZINCRBY", key, "-3", "member:00000009"],
            vec!["ZREM", key, "member:00000011"],
            vec!["ZPOPMIN", key],
        ] {
            last.push(one_record(&mut c, &sizes, &args).1);
        }
    }
    // The large set is about 1 MB packed; a record is a bucket, a few
    // tree nodes and the head.
    assert!(last.iter().all(|&n| n < 16 * 1024), "{last:?}");
    assert_eq!(int(&c.cmd(&["ZCARD", "large"])), 39_999);
    assert_eq!(int(&c.cmd(&["ZRANK", "large", "member:00000007"])), 39_998);
    assert_eq!(
        float(&c.cmd(&["ZSCORE", "large", "member:00000009"])),
        Some(6.0)
    );
    let popped = strings(&c.cmd(&["BZPOPMAX", "large", "1"]));
    assert_eq!(popped, ["large", "member:00000007", "5000.5"]);
    assert_eq!(int(&c.cmd(&["ZCARD", "large"])), 39_998);
    let top = pairs(&c.cmd(&["ZRANGE", "large", "0", "0", "REV", "WITHSCORES"]));
    assert_eq!(top, [(976.0, "member:00039079".to_string())]);
    assert_chunks_whole(&server);
}
