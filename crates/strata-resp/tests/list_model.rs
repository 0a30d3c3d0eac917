//! Lists in both encodings against a model, over RESP: with
//! `list-max-listpack-size 4`, random pushes, pops (with counts, blocking
//! ones on non-empty lists), LSET/LINSERT/LREM/LTRIM, LMOVE/RPOPLPUSH
//! between keys of either encoding, DEL/COPY/RENAME and MULTI/EXEC move
//! lists across the threshold and grow some to many chunks (elements of up
//! to 300 bytes, 2 KiB chunks); every read command is checked against a
//! `VecDeque` model, `OBJECT ENCODING` against the conversion rule, and the
//! engine against leaks (no orphan or missing chunk). Also: a push or pop
//! on a large list logs one record whose size does not grow with the list,
//! a large list that shrinks to half the limits converts back to packed in
//! one record (and so after a restart from the log), and bad input gets
//! errors.

use crate::common;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use common::model::{
    assert_whole, configure, copy, del, encoding, fill, flush_and_expiry_take_chunks, int,
    journaled, one_record, recorded, rename, strings, text, Records,
};
use common::{Client, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

type List = VecDeque<String>;

/// The model: each key's elements, and whether it was converted to the
/// large encoding (past 4 elements; back to packed when a command that
/// removed or replaced an element leaves at most 2, Redis 7.2's half).
#[derive(Default)]
struct Model {
    lists: BTreeMap<String, (List, bool)>,
    /// Keys the current command removed or replaced an element of.
    shrunk: BTreeSet<String>,
}

impl Model {
    fn after_write(&mut self) {
        self.lists.retain(|_, (l, _)| !l.is_empty());
        for (key, (list, large)) in &mut self.lists {
            *large |= list.len() > 4;
            *large &= !(self.shrunk.contains(key) && list.len() <= 2);
        }
        self.shrunk.clear();
    }

    fn shrank(&mut self, key: &str) {
        self.shrunk.insert(key.to_string());
    }

    fn list(&mut self, key: &str) -> &mut List {
        &mut self.lists.entry(key.to_string()).or_default().0
    }
}

fn element(rng: &mut SmallRng) -> String {
    let n = rng.gen_range(0..20);
    match rng.gen_ratio(1, 3) {
        true => format!("{n}-{}", "x".repeat(rng.gen_range(0..300))),
        false => format!("e{n}"),
    }
}

fn end(rng: &mut SmallRng) -> &'static str {
    ["LEFT", "RIGHT"][rng.gen_range(0..2)]
}

fn pop_end(list: &mut List, end: &str) -> Option<String> {
    match end {
        "LEFT" => list.pop_front(),
        _ => list.pop_back(),
    }
}

fn push_end(list: &mut List, end: &str, e: String) {
    match end {
        "LEFT" => list.push_front(e),
        _ => list.push_back(e),
    }
}

/// Redis's index rule.
fn index(i: i64, len: usize) -> Option<usize> {
    let at = if i < 0 { len as i64 + i } else { i };
    (0..len as i64).contains(&at).then_some(at as usize)
}

fn step(c: &mut Client, m: &mut Model, rng: &mut SmallRng) {
    let k = rng.gen_range(0..6);
    let key = format!("l{k}");
    let wide = k < 2; // two lists grow to hundreds of elements
    let len = m.lists.get(&key).map_or(0, |(l, _)| l.len());
    match rng.gen_range(0..100) {
        0..=29 => {
            let cmd = ["LPUSH", "RPUSH", "LPUSHX", "RPUSHX"][rng.gen_range(0..4)];
            let n = if wide { rng.gen_range(1..8) } else { 1 };
            let es: Vec<String> = (0..n).map(|_| element(rng)).collect();
            let mut args = vec![cmd, &key];
            args.extend(es.iter().map(String::as_str));
            let reply = int(&c.cmd(&args));
            if cmd.ends_with('X') && len == 0 {
                assert_eq!(reply, 0);
            } else {
                let list = m.list(&key);
                for e in es.iter().cloned() {
                    push_end(
                        list,
                        if cmd.starts_with('L') {
                            "LEFT"
                        } else {
                            "RIGHT"
                        },
                        e,
                    );
                }
                assert_eq!(reply, list.len() as i64, "{args:?}");
            }
        }
        30..=44 if !wide || rng.gen_ratio(1, 3) => {
            let e = end(rng);
            let cmd = if e == "LEFT" { "LPOP" } else { "RPOP" };
            if rng.gen_bool(0.5) {
                let want = m.lists.get_mut(&key).and_then(|(l, _)| pop_end(l, e));
                if want.is_some() {
                    m.shrank(&key);
                }
                assert_eq!(text(&c.cmd(&[cmd, &key])), want);
            } else {
                let n = rng.gen_range(0..5);
                let reply = c.cmd(&[cmd, &key, &n.to_string()]);
                match m.lists.get_mut(&key) {
                    None => assert_eq!(reply, Value::NullArray),
                    Some((l, _)) => {
                        let want: Vec<String> = (0..n).filter_map(|_| pop_end(l, e)).collect();
                        assert_eq!(strings(&reply), want);
                        if !want.is_empty() {
                            m.shrank(&key);
                        }
                    }
                }
            }
        }
        45..=49 if len > 0 => {
            let e = end(rng);
            let cmd = if e == "LEFT" { "BLPOP" } else { "BRPOP" };
            let want = pop_end(m.list(&key), e).unwrap();
            assert_eq!(strings(&c.cmd(&[cmd, &key, "0.5"])), [key.clone(), want]);
            m.shrank(&key);
        }
        50..=54 => {
            let i = rng.gen_range(-(len as i64) - 2..len as i64 + 2);
            let e = element(rng);
            let reply = c.cmd(&["LSET", &key, &i.to_string(), &e]);
            match index(i, len) {
                Some(at) => {
                    assert_eq!(reply, Value::ok());
                    m.list(&key)[at] = e;
                    m.shrank(&key);
                }
                None => assert!(matches!(reply, Value::Error(_)), "{reply:?}"),
            }
        }
        55..=59 => {
            let pivot = format!("e{}", rng.gen_range(0..20));
            let after = rng.gen_bool(0.5);
            let e = element(rng);
            let side = if after { "AFTER" } else { "BEFORE" };
            let reply = int(&c.cmd(&["LINSERT", &key, side, &pivot, &e]));
            let want = match m.lists.get_mut(&key) {
                None => 0,
                Some((l, _)) => match l.iter().position(|x| *x == pivot) {
                    None => -1,
                    Some(at) => {
                        l.insert(at + usize::from(after), e);
                        l.len() as i64
                    }
                },
            };
            assert_eq!(reply, want);
        }
        60..=64 => {
            let target = format!("e{}", rng.gen_range(0..20));
            let count: i64 = rng.gen_range(-3..4);
            let reply = int(&c.cmd(&["LREM", &key, &count.to_string(), &target]));
            let mut removed = 0;
            if let Some((l, _)) = m.lists.get_mut(&key) {
                let limit = if count == 0 {
                    usize::MAX
                } else {
                    count.unsigned_abs() as usize
                };
                let mut order: Vec<usize> = (0..l.len()).collect();
                if count < 0 {
                    order.reverse();
                }
                let mut gone = vec![false; l.len()];
                for i in order {
                    if removed < limit && l[i] == target {
                        gone[i] = true;
                        removed += 1;
                    }
                }
                let mut g = gone.into_iter();
                l.retain(|_| !g.next().unwrap());
            }
            assert_eq!(reply, removed as i64);
            if removed > 0 {
                m.shrank(&key);
            }
        }
        65..=67 if !wide || rng.gen_ratio(1, 4) => {
            let len = len as i64;
            let start = rng.gen_range(-len - 2..len + 2);
            let stop = rng.gen_range(-len - 2..len + 2);
            assert_eq!(
                c.cmd(&["LTRIM", &key, &start.to_string(), &stop.to_string()]),
                Value::ok()
            );
            if let Some((l, _)) = m.lists.get_mut(&key) {
                let s = if start < 0 {
                    (len + start).max(0)
                } else {
                    start
                };
                let e = if stop < 0 {
                    len + stop
                } else {
                    stop.min(len - 1)
                };
                if s > e || s >= len {
                    l.clear();
                } else {
                    l.truncate(e as usize + 1);
                    l.drain(..s as usize);
                }
                if l.len() < len as usize {
                    m.shrank(&key);
                }
            }
        }
        68..=77 => {
            let to = format!("l{}", rng.gen_range(0..6));
            let (from_end, to_end) = (end(rng), end(rng));
            let reply = match rng.gen_bool(0.8) {
                true => c.cmd(&["LMOVE", &key, &to, from_end, to_end]),
                false => {
                    let (f, t) = ("RIGHT", "LEFT");
                    let reply = c.cmd(&["RPOPLPUSH", &key, &to]);
                    let moved = m.lists.get_mut(&key).and_then(|(l, _)| pop_end(l, f));
                    assert_eq!(text(&reply), moved.clone());
                    if let Some(e) = moved {
                        m.shrank(&key);
                        push_end(m.list(&to), t, e);
                    }
                    return m.after_write();
                }
            };
            let moved = m
                .lists
                .get_mut(&key)
                .and_then(|(l, _)| pop_end(l, from_end));
            assert_eq!(text(&reply), moved.clone());
            if let Some(e) = moved {
                m.shrank(&key);
                push_end(m.list(&to), to_end, e);
            }
        }
        78..=80 if !wide => del(c, &mut m.lists, &key),
        81..=84 => {
            // Wide lists keep growing: only narrow ones are replaced.
            let to = format!("l{}", rng.gen_range(2..6));
            if to != key {
                copy(c, rng, &mut m.lists, &key, &to);
            }
        }
        85..=87 if !wide => {
            let to = format!("l{}", rng.gen_range(2..6));
            rename(c, &mut m.lists, &key, &to);
        }
        _ => {
            // A transaction: a push, a pop at the other end, an LINDEX.
            let e = element(rng);
            c.cmd(&["MULTI"]);
            c.cmd(&["RPUSH", &key, &e]);
            c.cmd(&["LPOP", &key]);
            c.cmd(&["LINDEX", &key, "-1"]);
            let replies = c.cmd(&["EXEC"]);
            let list = m.list(&key);
            list.push_back(e);
            let n = list.len() as i64;
            m.after_write(); // each command converts on its own
            let popped = m.list(&key).pop_front();
            m.shrank(&key);
            let last = m.lists.get(&key).and_then(|(l, _)| l.back().cloned());
            let got = replies.array();
            assert_eq!(got[0], Value::Int(n));
            assert_eq!(text(&got[1]), popped);
            assert_eq!(text(&got[2]), last);
        }
    }
    m.after_write();
}

fn check(c: &mut Client, m: &Model, server: &common::Server, rng: &mut SmallRng) {
    for k in 0..6 {
        let key = format!("l{k}");
        let Some((list, large)) = m.lists.get(&key) else {
            assert_eq!(int(&c.cmd(&["EXISTS", &key])), 0, "{key}");
            assert_eq!(c.cmd(&["LRANGE", &key, "0", "-1"]).array().len(), 0);
            assert_eq!(int(&c.cmd(&["LLEN", &key])), 0);
            continue;
        };
        let len = list.len() as i64;
        let all: Vec<String> = list.iter().cloned().collect();
        assert_eq!(strings(&c.cmd(&["LRANGE", &key, "0", "-1"])), all, "{key}");
        assert_eq!(int(&c.cmd(&["LLEN", &key])), len);
        let encoding = encoding(c, &key);
        let want = if *large { "quicklist" } else { "listpack" };
        assert_eq!(encoding, want, "{key} of {len}");
        for _ in 0..4 {
            let i = rng.gen_range(-len - 2..len + 2);
            let want = index(i, list.len()).map(|at| list[at].clone());
            assert_eq!(text(&c.cmd(&["LINDEX", &key, &i.to_string()])), want);
            let (s, e) = (
                rng.gen_range(-len - 2..len + 2),
                rng.gen_range(-len - 2..len + 2),
            );
            let got = strings(&c.cmd(&["LRANGE", &key, &s.to_string(), &e.to_string()]));
            let from = if s < 0 { (len + s).max(0) } else { s };
            let to = if e < 0 { len + e } else { e.min(len - 1) };
            let want: Vec<String> = match from <= to && from < len {
                true => all[from as usize..=to as usize].to_vec(),
                false => Vec::new(),
            };
            assert_eq!(got, want, "LRANGE {key} {s} {e}");
        }
        let target = format!("e{}", rng.gen_range(0..20));
        let hits: Vec<i64> = (0..list.len())
            .filter(|&i| list[i] == target)
            .map(|i| i as i64)
            .collect();
        let first = hits.first().map(|&i| Value::Int(i)).unwrap_or(Value::Null);
        assert_eq!(c.cmd(&["LPOS", &key, &target]), first);
        let got: Vec<i64> = c
            .cmd(&["LPOS", &key, &target, "RANK", "-1", "COUNT", "0"])
            .array()
            .iter()
            .map(int)
            .collect();
        let want: Vec<i64> = hits.iter().rev().copied().collect();
        assert_eq!(got, want);
        let got = c.cmd(&[
            "LPOS", &key, &target, "RANK", "2", "COUNT", "2", "MAXLEN", "50",
        ]);
        let want: Vec<i64> = hits
            .iter()
            .skip(1)
            .take(2)
            .copied()
            .filter(|&i| i < 50)
            .collect();
        assert_eq!(got.array().iter().map(int).collect::<Vec<_>>(), want);
    }
    assert_whole(c, server, m.lists.len());
}

#[test]
fn lists_match_a_model_across_both_encodings() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let params = [("list-max-listpack-size", "4")];
    configure(&mut c, &params, "list-max-listpack-size");
    let mut rng = SmallRng::seed_from_u64(32);
    let mut model = Model::default();
    for round in 0..30 {
        for _ in 0..150 {
            step(&mut c, &mut model, &mut rng);
        }
        check(&mut c, &model, &server, &mut rng);
        let longest = model.lists.values().map(|(l, _)| l.len()).max();
        assert!(round < 29 || longest > Some(150), "{longest:?}");
    }
    // Some lists span several chunks.
    let census = server.keyspace.chunk_census();
    assert!(census.chunks > 3, "{census:?}");
    // FLUSHALL and expiry take chunks with their list.
    let write = ["RPUSH", "e", "1", "2", "3", "4", "5"];
    flush_and_expiry_take_chunks(&mut c, &server, &write);
}

#[test]
fn byte_limits_convert_and_a_large_list_empties_to_nothing() {
    let server = common::start();
    let mut c = Client::connect(&server);
    // Default -2: 8 KiB of elements.
    let got = strings(&c.cmd(&["CONFIG", "GET", "list-max-listpack-size"]));
    assert_eq!(got, ["list-max-listpack-size", "-2"]);
    let big = "x".repeat(1000);
    for i in 1..=8 {
        assert_eq!(int(&c.cmd(&["RPUSH", "q", &big])), i);
        assert_eq!(encoding(&mut c, "q"), "listpack");
    }
    c.cmd(&["RPUSH", "q", &big]);
    assert_eq!(encoding(&mut c, "q"), "quicklist");
    assert!(server.keyspace.chunk_census().chunks >= 4);
    assert_eq!(strings(&c.cmd(&["LPOP", "q", "100"])).len(), 9);
    assert_eq!(int(&c.cmd(&["EXISTS", "q"])), 0);
    assert_eq!(server.keyspace.chunk_census().chunks, 0);
    for bad in ["x", "2147483648"] {
        let reply = c.cmd(&["CONFIG", "SET", "list-max-listpack-size", bad]);
        assert!(matches!(reply, Value::Error(_)), "{reply:?}");
    }
}

#[test]
fn bad_input_gets_errors_on_both_encodings() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["CONFIG", "SET", "list-max-listpack-size", "2"]);
    c.cmd(&["RPUSH", "small", "a", "b"]);
    c.cmd(&["RPUSH", "large", "a", "b", "c", "d"]);
    c.cmd(&["SET", "s", "v"]);
    let (max, min) = (i64::MAX.to_string(), i64::MIN.to_string());
    for key in ["small", "large"] {
        let n = int(&c.cmd(&["LLEN", key])) as usize;
        assert_eq!(c.cmd(&["LRANGE", key, &min, &max]).array().len(), n);
        assert_eq!(c.cmd(&["LRANGE", key, &max, &min]).array().len(), 0);
        assert_eq!(c.cmd(&["LINDEX", key, &min]), Value::Null);
        assert_eq!(c.cmd(&["LINDEX", key, &max]), Value::Null);
        let reply = c.cmd(&["LSET", key, &max, "x"]);
        assert_eq!(reply, Value::Error("ERR index out of range".into()));
        let reply = c.cmd(&["LPOP", key, "-1"]);
        assert!(matches!(reply, Value::Error(_)), "{reply:?}");
        assert!(matches!(
            c.cmd(&["LPOS", key, "a", "RANK", &min]),
            Value::Error(_)
        ));
        let reply = c.cmd(&["LPOS", key, "a", "MAXLEN", &max, "COUNT", &max]);
        assert_eq!(reply.array(), &[Value::Int(0)]);
        assert_eq!(int(&c.cmd(&["LREM", key, &min, "zz"])), 0);
        assert!(matches!(c.cmd(&["LRANGE", key, "x", "1"]), Value::Error(_)));
        assert_eq!(c.cmd(&["LTRIM", key, &min, &max]), Value::ok());
        assert_eq!(int(&c.cmd(&["LLEN", key])) as usize, n);
        let popped = c.cmd(&["RPOP", key, &max]);
        assert_eq!(popped.array().len(), n);
        assert_eq!(int(&c.cmd(&["EXISTS", key])), 0);
    }
    for cmd in [
        vec!["LPUSH", "s", "x"],
        vec!["LPOP", "s"],
        vec!["LLEN", "s"],
        vec!["LRANGE", "s", "0", "1"],
        vec!["LINDEX", "s", "0"],
        vec!["LPOS", "s", "x"],
        vec!["LMOVE", "s", "d", "LEFT", "LEFT"],
    ] {
        let reply = c.cmd(&cmd);
        assert!(
            matches!(&reply, Value::Error(e) if e.starts_with("WRONGTYPE")),
            "{cmd:?}"
        );
    }
    c.cmd(&["RPUSH", "large", "a", "b", "c", "d"]);
    let reply = c.cmd(&["LMOVE", "large", "s", "LEFT", "LEFT"]);
    assert!(matches!(&reply, Value::Error(e) if e.starts_with("WRONGTYPE")));
    assert_eq!(int(&c.cmd(&["LLEN", "large"])), 4, "nothing popped");
    assert_eq!(
        c.cmd(&["LMOVE", "missing", "s", "LEFT", "LEFT"]),
        Value::Null
    );
    assert_eq!(server.keyspace.chunk_census().orphans, 0);
}

#[test]
fn a_push_or_pop_on_a_large_list_logs_a_record_that_does_not_grow_with_it() {
    let (_server, mut c, sizes) = journaled();
    let mut last = Vec::new();
    for (key, elements) in [("small", 1_000u32), ("large", 40_000)] {
        let element = |i: u32| vec![format!("element:{i:08}")];
        let length = |batch: u32| i64::from(batch + 1) * 100;
        fill(&mut c, "RPUSH", key, elements, element, length);
        assert_eq!(encoding(&mut c, key), "quicklist");
        for cmd in [
            vec!["LPUSH", key, "front"],
            vec!["RPUSH", key, "back"],
            vec!["LPOP", key],
            vec!["RPOP", key],
            vec!["LSET", key, "-7", "changed"],
            vec!["LMOVE", key, key, "LEFT", "RIGHT"],
        ] {
            let (reply, size) = one_record(&mut c, &sizes, &cmd);
            assert!(!matches!(reply, Value::Error(_)), "{cmd:?}");
            last.push(size);
        }
    }
    // The large list is about 640 KB packed; each record one or two
    // chunks and the head.
    assert!(last.iter().all(|&n| n < 6 * 1024), "{last:?}");
    assert_eq!(int(&c.cmd(&["LLEN", "large"])), 40_000);
    let tail = strings(&c.cmd(&["LRANGE", "large", "-8", "-1"]));
    assert_eq!(tail[0], "changed");
    assert_eq!(tail[7], "element:00000000");
    assert_eq!(
        text(&c.cmd(&["LINDEX", "large", "20000"])).unwrap(),
        "element:00020001"
    );
}

/// Runs `cmd` and checks it wrote exactly one record.
fn one_kept(c: &mut Client, records: &Records, cmd: &[&str]) -> Value {
    let before = records.0.lock().unwrap().len();
    let reply = c.cmd(cmd);
    assert!(!matches!(reply, Value::Error(_)), "{cmd:?}: {reply:?}");
    assert_eq!(records.0.lock().unwrap().len(), before + 1, "{cmd:?}");
    reply
}

#[test]
fn a_large_list_shrunk_to_half_the_limits_converts_back_in_one_record_and_after_a_restart() {
    let (server, mut c, records) = recorded();
    // Byte limit (-2: 8 KiB; back at 4 KiB): nine 1000-byte elements.
    let big = "x".repeat(1000);
    for _ in 0..9 {
        c.cmd(&["RPUSH", "bytes", &big]);
    }
    assert_eq!(encoding(&mut c, "bytes"), "quicklist");
    for n in [8, 7, 6, 5] {
        one_kept(&mut c, &records, &["RPOP", "bytes"]);
        assert_eq!(int(&c.cmd(&["LLEN", "bytes"])), n);
        assert_eq!(encoding(&mut c, "bytes"), "quicklist", "{n} KB: above half");
    }
    one_kept(&mut c, &records, &["LPOP", "bytes"]);
    assert_eq!(encoding(&mut c, "bytes"), "listpack", "4 KB");
    assert_eq!(server.keyspace.chunk_census().chunks, 0);
    // A push does not convert back (growing); neither does a pop above half.
    c.cmd(&["CONFIG", "SET", "list-max-listpack-size", "4"]);
    let cases: [&[&str]; 5] = [
        &["LPOP", "k0"],
        &["LREM", "k1", "0", "a"],
        &["LTRIM", "k2", "0", "1"],
        &["LSET", "k3", "0", "x"],
        &["LMOVE", "k4", "other", "LEFT", "RIGHT"],
    ];
    for (i, cmd) in cases.iter().enumerate() {
        let key = format!("k{i}");
        c.cmd(&["RPUSH", &key, "a", "b", "c", "d", "e"]);
        assert_eq!(encoding(&mut c, &key), "quicklist");
        if i == 3 {
            // Within half of a raised limit: a push leaves it large (Redis
            // converts back only after a removal or LSET), LSET converts.
            c.cmd(&["CONFIG", "SET", "list-max-listpack-size", "16"]);
            one_kept(&mut c, &records, &["RPUSH", &key, "f"]);
            assert_eq!(encoding(&mut c, &key), "quicklist");
            one_kept(&mut c, &records, cmd);
            assert_eq!(encoding(&mut c, &key), "listpack");
            c.cmd(&["CONFIG", "SET", "list-max-listpack-size", "4"]);
            continue;
        }
        if i == 0 {
            for _ in 0..2 {
                one_kept(&mut c, &records, cmd);
                assert_eq!(encoding(&mut c, &key), "quicklist");
            }
        } else if i == 1 {
            c.cmd(&["LSET", &key, "1", "a"]);
            c.cmd(&["LSET", &key, "2", "a"]);
        } else if i == 4 {
            c.cmd(&["LPOP", &key]);
            c.cmd(&["LPOP", &key]);
        }
        one_kept(&mut c, &records, cmd);
        assert_eq!(int(&c.cmd(&["LLEN", &key])), 2, "{cmd:?}");
        assert_eq!(encoding(&mut c, &key), "listpack", "{cmd:?}");
    }
    // The next growth converts again, and the emptied list goes.
    c.cmd(&["RPUSH", "k0", "x", "y", "z"]);
    assert_eq!(encoding(&mut c, "k0"), "quicklist");
    let census = server.keyspace.chunk_census();
    assert_eq!((census.orphans, census.missing), (0, 0), "{census:?}");
    // A restart from the log holds the same lists in the same encodings.
    let keys = ["bytes", "k0", "k1", "k2", "k3", "k4", "other"];
    let before: Vec<(Vec<String>, String)> = keys
        .iter()
        .map(|k| {
            (
                strings(&c.cmd(&["LRANGE", k, "0", "-1"])),
                encoding(&mut c, k),
            )
        })
        .collect();
    let restarted = common::start();
    records.replay_into(&restarted.keyspace);
    let mut c = Client::connect(&restarted);
    for (key, want) in keys.iter().zip(&before) {
        let got = (
            strings(&c.cmd(&["LRANGE", key, "0", "-1"])),
            encoding(&mut c, key),
        );
        assert_eq!(&got, want, "{key}");
    }
    assert_eq!(
        restarted.keyspace.chunk_census().chunks,
        server.keyspace.chunk_census().chunks
    );
}

/// Where records are rewritten in place (DRAM), a packed list is stored
/// padded once it has grown: pushes and pops that keep it within that
/// length (and above half of it) overwrite its record, writing no memory,
/// and every state reads back, also after a restart from the log; growing
/// past the padding writes a new, padded record.
#[test]
fn a_packed_list_within_its_padding_is_rewritten_in_place() {
    let (server, mut c, records) = recorded();
    let e = |i: usize| format!("{i:050}");
    let mut model = List::new();
    let check = |c: &mut Client, model: &List| {
        let got = strings(&c.cmd(&["LRANGE", "q", "0", "-1"]));
        assert_eq!(got, model.iter().cloned().collect::<Vec<_>>());
        assert_eq!(int(&c.cmd(&["LLEN", "q"])), model.len() as i64);
    };
    for i in 0..10 {
        c.cmd(&["RPUSH", "q", &e(i)]);
        model.push_back(e(i));
    }
    check(&mut c, &model);
    // About 511 bytes; once the first push has stored it padded to what
    // one more element needs and a quarter more, pushes and pops fit.
    let mut used = 0;
    for i in 10..40 {
        if i == 12 {
            used = server.keyspace.stats().used_memory;
        }
        if i % 2 == 0 {
            c.cmd(&["LPUSH", "q", &e(i)]);
            model.push_front(e(i));
        } else {
            assert_eq!(
                strings(&c.cmd(&["RPOP", "q", "1"])),
                [model.pop_back().unwrap()]
            );
        }
        check(&mut c, &model);
    }
    assert_eq!(
        server.keyspace.stats().used_memory,
        used,
        "rewritten in place"
    );
    assert_eq!(encoding(&mut c, "q"), "listpack");
    for i in 40..60 {
        c.cmd(&["RPUSH", "q", &e(i)]);
        model.push_back(e(i));
        check(&mut c, &model);
    }
    assert!(server.keyspace.stats().used_memory > used, "grown anew");
    for _ in 0..25 {
        c.cmd(&["LPOP", "q"]);
        model.pop_front();
        check(&mut c, &model);
    }
    let restarted = common::start();
    records.replay_into(&restarted.keyspace);
    check(&mut Client::connect(&restarted), &model);
}
