//! Sets in every encoding against a model, over RESP: with
//! `set-max-intset-entries 6`, `set-max-listpack-entries 4` and
//! `set-max-listpack-value 8`, random SADD/SREM/SPOP/SMOVE/the STORE
//! forms/DEL/COPY/RENAME (some inside MULTI/EXEC) move sets across the
//! thresholds (by count, by member length, by a non-integer member) and
//! grow some to many chunks; every read command is checked against the
//! model, `OBJECT ENCODING` against the conversion rule, and the engine
//! against leaks (no orphan or missing chunk). Also: an SADD on a large
//! set logs one record whose size does not grow with the set.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::model::{
    assert_whole, configure, copy, del, encoding, fill, flush_takes_chunks, int, journaled,
    one_record, rename, strings, text,
};
use common::{Client, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

type Set = BTreeSet<String>;

fn is_int(m: &str) -> bool {
    m.parse::<i64>().is_ok_and(|n| n.to_string() == m)
}

/// Whether a packed set of `set` stays packed (intset or listpack).
fn fits(set: &Set) -> bool {
    let listpack = set.len() <= 4 && set.iter().all(|m| m.len() <= 8);
    listpack || (set.len() <= 6 && set.iter().all(|m| is_int(m)))
}

/// The model: each key's members and whether it was converted to the
/// large encoding (it then stays large until deleted).
#[derive(Default)]
struct Model {
    sets: BTreeMap<String, (Set, bool)>,
}

impl Model {
    fn after_write(&mut self, key: &str) {
        let Some((set, large)) = self.sets.get_mut(key) else {
            return;
        };
        if set.is_empty() {
            self.sets.remove(key);
            return;
        }
        *large |= !fits(set);
    }

    fn get(&self, key: &str) -> Set {
        self.sets.get(key).map(|e| e.0.clone()).unwrap_or_default()
    }
}

fn member(rng: &mut SmallRng, wide: bool) -> String {
    let n = if wide { 400 } else { 8 };
    match rng.gen_range(0..10) {
        0 => format!("long-member-{}", rng.gen_range(0..n)),
        1..=4 => rng.gen_range(0..n).to_string(),
        _ => format!("m{}", rng.gen_range(0..n)),
    }
}

fn step(c: &mut Client, m: &mut Model, rng: &mut SmallRng) {
    let k = rng.gen_range(0..6);
    let key = format!("s{k}");
    let wide = k < 2; // two sets grow to hundreds of members
    match rng.gen_range(0..100) {
        0..=44 => {
            let ms: Vec<String> = (0..rng.gen_range(1..4))
                .map(|_| member(rng, wide))
                .collect();
            let set = &mut m.sets.entry(key.clone()).or_default().0;
            let added = ms.iter().filter(|x| set.insert((*x).clone())).count();
            let mut args = vec!["SADD", &key];
            args.extend(ms.iter().map(String::as_str));
            assert_eq!(int(&c.cmd(&args)), added as i64, "{args:?}");
        }
        45..=59 => {
            let ms: Vec<String> = (0..rng.gen_range(1..3))
                .map(|_| member(rng, wide))
                .collect();
            let removed = match m.sets.get_mut(&key) {
                Some((s, _)) => ms.iter().filter(|x| s.remove(*x)).count(),
                None => 0,
            };
            let mut args = vec!["SREM", &key];
            args.extend(ms.iter().map(String::as_str));
            assert_eq!(int(&c.cmd(&args)), removed as i64);
        }
        60..=65 => {
            let count = rng.gen_range(0..4);
            let popped = strings(&c.cmd(&["SPOP", &key, &count.to_string()]));
            let set = &mut m.sets.entry(key.clone()).or_default().0;
            assert_eq!(popped.len(), count.min(set.len()), "{key}");
            for p in &popped {
                assert!(set.remove(p), "{key}: {p} popped twice or never there");
            }
        }
        66..=71 => {
            let to = format!("s{}", rng.gen_range(0..6));
            let x = member(rng, wide);
            let there = m.get(&key).contains(&x);
            assert_eq!(int(&c.cmd(&["SMOVE", &key, &to, &x])), i64::from(there));
            if there && to != key {
                m.sets.get_mut(&key).unwrap().0.remove(&x);
                m.sets.entry(to.clone()).or_default().0.insert(x);
                m.after_write(&to);
            }
        }
        72..=76 if !wide => {
            let (a, b) = (
                format!("s{}", rng.gen_range(0..6)),
                format!("s{}", rng.gen_range(0..6)),
            );
            let (sa, sb) = (m.get(&a), m.get(&b));
            let (op, result): (&str, Set) = match rng.gen_range(0..3) {
                0 => ("SINTERSTORE", sa.intersection(&sb).cloned().collect()),
                1 => ("SUNIONSTORE", sa.union(&sb).cloned().collect()),
                _ => ("SDIFFSTORE", sa.difference(&sb).cloned().collect()),
            };
            assert_eq!(int(&c.cmd(&[op, &key, &a, &b])), result.len() as i64);
            // A new collection: packed or large by its size alone.
            let large = !fits(&result);
            m.sets.insert(key.clone(), (result, large));
        }
        77..=80 if !wide => del(c, &mut m.sets, &key),
        81..=85 => {
            let to = format!("s{}", rng.gen_range(2..6));
            if to != key {
                copy(c, rng, &mut m.sets, &key, &to);
            }
        }
        86..=88 if !wide => {
            let to = format!("s{}", rng.gen_range(2..6));
            rename(c, &mut m.sets, &key, &to);
        }
        _ => {
            let x = member(rng, wide);
            c.cmd(&["MULTI"]);
            c.cmd(&["SADD", &key, &x]);
            c.cmd(&["SREM", &key, "m0"]);
            let replies = c.cmd(&["EXEC"]);
            let set = &mut m.sets.entry(key.clone()).or_default().0;
            let added = set.insert(x);
            m.after_write(&key); // each command converts on its own
            let removed = m.sets.get_mut(&key).unwrap().0.remove("m0");
            assert_eq!(
                replies.array(),
                &[Value::Int(added.into()), Value::Int(removed.into())]
            );
        }
    }
    m.after_write(&key);
    let keys: Vec<String> = m.sets.keys().cloned().collect();
    keys.iter().for_each(|k| m.after_write(k));
}

fn scan(c: &mut Client, key: &str, set: &Set) {
    let mut seen = BTreeSet::new();
    let mut cursor = "0".to_string();
    for _ in 0..10_000 {
        let reply = c.cmd(&["SSCAN", key, &cursor, "COUNT", "3"]);
        let parts = reply.array();
        cursor = text(&parts[0]).unwrap();
        for x in strings(&parts[1]) {
            assert!(set.contains(&x), "{key}: {x}");
            seen.insert(x);
        }
        if cursor == "0" {
            break;
        }
    }
    assert_eq!(&seen, set, "{key}");
    let reply = c.cmd(&["SSCAN", key, "0", "MATCH", "m1*", "COUNT", "100000"]);
    let matched = strings(&reply.array()[1]);
    let want: Set = set
        .iter()
        .filter(|x| x.starts_with("m1"))
        .cloned()
        .collect();
    assert_eq!(matched.into_iter().collect::<Set>(), want);
}

fn check(c: &mut Client, m: &Model, server: &common::Server) {
    for k in 0..6 {
        let key = format!("s{k}");
        let Some((set, large)) = m.sets.get(&key) else {
            assert_eq!(int(&c.cmd(&["EXISTS", &key])), 0, "{key}");
            assert_eq!(c.cmd(&["SMEMBERS", &key]).array().len(), 0);
            continue;
        };
        let all = strings(&c.cmd(&["SMEMBERS", &key]));
        assert_eq!(all.len(), set.len(), "{key}: a member twice");
        assert_eq!(&all.into_iter().collect::<Set>(), set, "{key}");
        assert_eq!(int(&c.cmd(&["SCARD", &key])), set.len() as i64);
        let encoding = encoding(c, &key);
        let packed = match set.iter().all(|x| is_int(x)) && set.len() <= 6 {
            true => "intset",
            false => "listpack",
        };
        assert_eq!(encoding, if *large { "hashtable" } else { packed }, "{key}");
        let probes = ["m1", "1", "long-member-3", "m300", "nope"];
        for p in probes {
            let want = i64::from(set.contains(p));
            assert_eq!(int(&c.cmd(&["SISMEMBER", &key, p])), want, "{key} {p}");
        }
        let mut args = vec!["SMISMEMBER", key.as_str()];
        args.extend(probes);
        let got: Vec<i64> = c.cmd(&args).array().iter().map(int).collect();
        let want: Vec<i64> = probes.iter().map(|p| i64::from(set.contains(*p))).collect();
        assert_eq!(got, want);
        scan(c, &key, set);
        let picked = strings(&c.cmd(&["SRANDMEMBER", &key, "3"]));
        assert_eq!(picked.len(), set.len().min(3));
        assert_eq!(picked.iter().collect::<BTreeSet<_>>().len(), picked.len());
        assert!(picked.iter().all(|x| set.contains(x)));
        let picked = strings(&c.cmd(&["SRANDMEMBER", &key, "-5"]));
        assert_eq!(picked.len(), 5);
        assert!(picked.iter().all(|x| set.contains(x)));
        assert!(set.contains(&text(&c.cmd(&["SRANDMEMBER", &key])).unwrap()));
    }
    // The algebra over every key at once, large ones included.
    let keys: Vec<String> = (0..6).map(|k| format!("s{k}")).collect();
    let mut union = Set::new();
    m.sets
        .values()
        .for_each(|(s, _)| union.extend(s.iter().cloned()));
    let mut args = vec!["SUNION"];
    args.extend(keys.iter().map(String::as_str));
    assert_eq!(strings(&c.cmd(&args)).into_iter().collect::<Set>(), union);
    let (s0, s1) = (m.get("s0"), m.get("s1"));
    let inter: Set = s0.intersection(&s1).cloned().collect();
    let diff: Set = s0.difference(&s1).cloned().collect();
    let got = strings(&c.cmd(&["SINTER", "s0", "s1"]));
    assert_eq!(got.into_iter().collect::<Set>(), inter);
    let got = strings(&c.cmd(&["SDIFF", "s0", "s1"]));
    assert_eq!(got.into_iter().collect::<Set>(), diff);
    let n = int(&c.cmd(&["SINTERCARD", "2", "s0", "s1", "LIMIT", "3"]));
    assert_eq!(n, inter.len().min(3) as i64);
    assert_whole(c, server, m.sets.len());
}

fn configure_sets(c: &mut Client) {
    let params = [
        ("set-max-intset-entries", "6"),
        ("set-max-listpack-entries", "4"),
        ("set-max-listpack-value", "8"),
    ];
    configure(c, &params, "set-max-*");
}

#[test]
fn sets_match_a_model_across_every_encoding() {
    let server = common::start();
    let mut c = Client::connect(&server);
    configure_sets(&mut c);
    let mut rng = SmallRng::seed_from_u64(32);
    let mut model = Model::default();
    for _ in 0..30 {
        for _ in 0..150 {
            step(&mut c, &mut model, &mut rng);
        }
        check(&mut c, &model, &server);
    }
    assert!(model
        .sets
        .values()
        .any(|(s, large)| *large && s.len() > 200));
    assert!(
        server.keyspace.chunk_census().chunks > 2,
        "a set spans chunks"
    );
    flush_takes_chunks(&mut c, &server);
}

#[test]
fn wrong_types_and_bad_counts_answer_as_redis() {
    let server = common::start();
    let mut c = Client::connect(&server);
    configure_sets(&mut c);
    c.cmd(&["SET", "str", "x"]);
    c.cmd(&["SADD", "big", "a", "b", "c", "d", "e", "f"]);
    assert_eq!(encoding(&mut c, "big"), "hashtable");
    for args in [
        vec!["SADD", "str", "a"],
        vec!["SCARD", "str"],
        vec!["SMOVE", "big", "str", "a"],
        vec!["SMOVE", "str", "big", "a"],
        vec!["SINTER", "big", "str"],
        vec!["SUNIONSTORE", "d", "big", "str"],
    ] {
        let reply = c.cmd(&args);
        assert!(
            matches!(&reply, Value::Error(e) if e.starts_with("WRONGTYPE")),
            "{args:?}"
        );
    }
    // A missing source moves nothing, whatever the destination holds.
    assert_eq!(int(&c.cmd(&["SMOVE", "missing", "str", "a"])), 0);
    // Every key's type is checked, even after a missing one (Redis 7.0
    // and 7.2 answer WRONGTYPE).
    let reply = c.cmd(&["SINTERCARD", "2", "missing", "str"]);
    assert!(matches!(&reply, Value::Error(e) if e.starts_with("WRONGTYPE")));
    let reply = c.cmd(&["SRANDMEMBER", "big", &(-(1i64 << 40)).to_string()]);
    assert!(matches!(reply, Value::Error(_)));
    let all = strings(&c.cmd(&["SRANDMEMBER", "big", &(1i64 << 40).to_string()]));
    assert_eq!(all.len(), 6);
    assert!(matches!(c.cmd(&["SPOP", "big", "-1"]), Value::Error(_)));
    assert_eq!(strings(&c.cmd(&["SPOP", "big", "0"])).len(), 0);
    assert_eq!(
        strings(&c.cmd(&["SPOP", "big", &(1i64 << 40).to_string()])).len(),
        6
    );
    assert_eq!(int(&c.cmd(&["EXISTS", "big"])), 0);
    assert_eq!(server.keyspace.chunk_census().chunks, 0);
}

#[test]
fn sadd_and_smove_on_large_sets_log_records_that_do_not_grow_with_them() {
    let (_server, mut c, sizes) = journaled();
    let mut last = Vec::new();
    for (key, members) in [("small", 1_000u32), ("large", 40_000)] {
        let member = |i: u32| vec![format!("member:{i:08}")];
        fill(&mut c, "SADD", key, members, member, |_| 100);
        assert_eq!(encoding(&mut c, key), "hashtable");
        for args in [
            vec!["SADD", key, "new-member"],
            vec!["SREM", key, "member:00000007"],
            vec!["SMOVE", key, "other", "member:00000009"],
        ] {
            let (reply, size) = one_record(&mut c, &sizes, &args);
            assert_eq!(int(&reply), 1, "{args:?}");
            last.push(size);
        }
    }
    // The large set is about 0.5 MB packed; a record is a chunk or two.
    assert!(last.iter().all(|&n| n < 12 * 1024), "{last:?}");
    assert_eq!(int(&c.cmd(&["SCARD", "large"])), 39_999);
    assert_eq!(int(&c.cmd(&["SISMEMBER", "large", "new-member"])), 1);
    assert_eq!(int(&c.cmd(&["SISMEMBER", "other", "member:00000009"])), 1);
}
