//! Hashes in both encodings against a model, over RESP: with
//! `hash-max-listpack-entries 4` and `hash-max-listpack-value 8`, random
//! HSET/HSETNX/HDEL/HINCRBY/HINCRBYFLOAT/DEL/COPY/RENAME/EXPIRE (some inside
//! MULTI/EXEC) move hashes across the threshold (by count and by value
//! length) and grow some to many chunks; every read command is checked
//! against the model, `OBJECT ENCODING` against the conversion rule, and
//! the engine against leaks (no orphan or missing chunk). Also: an HSET on
//! a large hash logs one record whose size does not grow with the hash,
//! and HSETs that overwrite values as long where they lie (a packed hash
//! edited in place) read, watch and replay as rewrites do.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::model::{
    assert_whole, configure, copy, del, encoding, fill, flush_and_expiry_take_chunks, int,
    journaled, one_record, recorded, rename, strings, text,
};
use common::{Client, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

type Hash = BTreeMap<String, String>;

/// The model: each key's fields, and whether it was converted to the
/// large encoding (it then stays large until deleted).
#[derive(Default)]
struct Model {
    hashes: BTreeMap<String, (Hash, bool)>,
}

impl Model {
    fn after_write(&mut self, key: &str) {
        let Some((hash, large)) = self.hashes.get_mut(key) else {
            return;
        };
        if hash.is_empty() {
            self.hashes.remove(key);
            return;
        }
        let longest = hash
            .iter()
            .map(|(f, v)| f.len().max(v.len()))
            .max()
            .unwrap_or(0);
        *large |= hash.len() > 4 || longest > 8;
    }
}

fn field(rng: &mut SmallRng, wide: bool) -> String {
    match wide {
        true => format!("f{}", rng.gen_range(0..400)),
        false => format!("f{}", rng.gen_range(0..8)),
    }
}

fn value(rng: &mut SmallRng) -> String {
    match rng.gen_ratio(1, 10) {
        true => format!("long-value-{}", rng.gen::<u32>()),
        false => format!("v{}", rng.gen_range(0..100)),
    }
}

fn step(c: &mut Client, m: &mut Model, rng: &mut SmallRng) {
    let k = rng.gen_range(0..6);
    let key = format!("h{k}");
    let wide = k < 2; // two hashes grow to hundreds of fields
    match rng.gen_range(0..100) {
        0..=44 => {
            let pairs: Vec<(String, String)> = (0..rng.gen_range(1..4))
                .map(|_| (field(rng, wide), value(rng)))
                .collect();
            let mut args = vec!["HSET".to_string(), key.clone()];
            let hash = &mut m.hashes.entry(key.clone()).or_default().0;
            let mut added = 0;
            for (f, v) in &pairs {
                args.extend([f.clone(), v.clone()]);
                added += i64::from(hash.insert(f.clone(), v.clone()).is_none());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_eq!(int(&c.cmd(&args)), added, "{args:?}");
        }
        45..=54 => {
            let (f, v) = (field(rng, wide), value(rng));
            let hash = &mut m.hashes.entry(key.clone()).or_default().0;
            let set = !hash.contains_key(&f);
            if set {
                hash.insert(f.clone(), v.clone());
            }
            assert_eq!(int(&c.cmd(&["HSETNX", &key, &f, &v])), i64::from(set));
        }
        55..=69 => {
            let fs: Vec<String> = (0..rng.gen_range(1..3)).map(|_| field(rng, wide)).collect();
            let hash = m.hashes.get_mut(&key).map(|e| &mut e.0);
            let removed = match hash {
                Some(h) => fs.iter().filter(|f| h.remove(*f).is_some()).count(),
                None => 0,
            };
            let mut args = vec!["HDEL", &key];
            args.extend(fs.iter().map(String::as_str));
            assert_eq!(int(&c.cmd(&args)), removed as i64);
        }
        70..=77 => {
            let by = rng.gen_range(-5..6);
            let hash = &mut m.hashes.entry(key.clone()).or_default().0;
            let counter = hash.entry("n".into()).or_insert_with(|| "0".into());
            let next = counter.parse::<i64>().unwrap() + by;
            *counter = next.to_string();
            assert_eq!(int(&c.cmd(&["HINCRBY", &key, "n", &by.to_string()])), next);
        }
        78..=81 if !wide => del(c, &mut m.hashes, &key),
        82..=85 => {
            // Wide hashes keep growing: only narrow ones are replaced.
            let to = format!("h{}", rng.gen_range(2..6));
            if to != key {
                copy(c, rng, &mut m.hashes, &key, &to);
            }
        }
        86..=88 if !wide => {
            let to = format!("h{}", rng.gen_range(2..6));
            rename(c, &mut m.hashes, &key, &to);
        }
        78..=92 => {
            // A transaction of two writes.
            let f = field(rng, wide);
            c.cmd(&["MULTI"]);
            c.cmd(&["HSET", &key, &f, "in-multi"]);
            c.cmd(&["HDEL", &key, "f0"]);
            let replies = c.cmd(&["EXEC"]);
            let hash = &mut m.hashes.entry(key.clone()).or_default().0;
            let added = hash.insert(f, "in-multi".into()).is_none();
            m.after_write(&key); // each command converts on its own
            let hash = &mut m.hashes.get_mut(&key).unwrap().0;
            let removed = hash.remove("f0").is_some();
            assert_eq!(
                replies.array(),
                &[Value::Int(added.into()), Value::Int(removed.into())]
            );
        }
        _ => {
            let f = field(rng, wide);
            let hash = &mut m.hashes.entry(key.clone()).or_default().0;
            let next = hash.get(&f).and_then(|v| v.parse::<f64>().ok());
            let reply = c.cmd(&["HINCRBYFLOAT", &key, &f, "1.5"]);
            match (hash.get(&f), next) {
                (Some(_), None) => assert!(matches!(reply, Value::Error(_)), "{reply:?}"),
                (_, n) => {
                    let got = text(&reply).unwrap();
                    assert_eq!(got.parse::<f64>().unwrap(), n.unwrap_or(0.0) + 1.5);
                    hash.insert(f, got);
                }
            }
        }
    }
    m.after_write(&key);
    // A copy or rename may have written another key.
    let keys: Vec<String> = m.hashes.keys().cloned().collect();
    keys.iter().for_each(|k| m.after_write(k));
}

fn check(c: &mut Client, m: &Model, server: &common::Server) {
    for k in 0..6 {
        let key = format!("h{k}");
        let Some((hash, large)) = m.hashes.get(&key) else {
            assert_eq!(int(&c.cmd(&["EXISTS", &key])), 0, "{key}");
            assert_eq!(c.cmd(&["HGETALL", &key]).array().len(), 0);
            continue;
        };
        let all = strings(&c.cmd(&["HGETALL", &key]));
        let got: Hash = all
            .chunks(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        assert_eq!(&got, hash, "{key}");
        assert_eq!(all.len(), hash.len() * 2, "{key}: a field twice");
        assert_eq!(int(&c.cmd(&["HLEN", &key])), hash.len() as i64);
        let keys: BTreeSet<String> = strings(&c.cmd(&["HKEYS", &key])).into_iter().collect();
        assert_eq!(keys, hash.keys().cloned().collect());
        assert_eq!(strings(&c.cmd(&["HVALS", &key])).len(), hash.len());
        let encoding = encoding(c, &key);
        assert_eq!(
            encoding,
            if *large { "hashtable" } else { "listpack" },
            "{key}"
        );
        for f in ["f0", "f1", "f300", "n", "nope"] {
            assert_eq!(
                text(&c.cmd(&["HGET", &key, f])),
                hash.get(f).cloned(),
                "{key} {f}"
            );
            assert_eq!(
                int(&c.cmd(&["HEXISTS", &key, f])),
                i64::from(hash.contains_key(f))
            );
            let len = hash.get(f).map_or(0, String::len) as i64;
            assert_eq!(int(&c.cmd(&["HSTRLEN", &key, f])), len);
        }
        let got: Vec<Option<String>> = c
            .cmd(&["HMGET", &key, "f1", "nope", "n"])
            .array()
            .iter()
            .map(text)
            .collect();
        let want: Vec<Option<String>> = ["f1", "nope", "n"]
            .iter()
            .map(|f| hash.get(*f).cloned())
            .collect();
        assert_eq!(got, want);
        // HSCAN: every field at least once, with COUNT 3.
        let mut seen = BTreeSet::new();
        let mut cursor = "0".to_string();
        for _ in 0..10_000 {
            let reply = c.cmd(&["HSCAN", &key, &cursor, "COUNT", "3"]);
            let parts = reply.array();
            cursor = text(&parts[0]).unwrap();
            for p in strings(&parts[1]).chunks(2) {
                assert_eq!(hash.get(&p[0]), Some(&p[1]));
                seen.insert(p[0].clone());
            }
            if cursor == "0" {
                break;
            }
        }
        assert_eq!(seen, hash.keys().cloned().collect::<BTreeSet<_>>(), "{key}");
        // HRANDFIELD: distinct fields of the hash; repeats with a negative count.
        let picked = strings(&c.cmd(&["HRANDFIELD", &key, "3"]));
        assert_eq!(picked.len(), hash.len().min(3));
        assert_eq!(picked.iter().collect::<BTreeSet<_>>().len(), picked.len());
        assert!(picked.iter().all(|f| hash.contains_key(f)));
        let picked = strings(&c.cmd(&["HRANDFIELD", &key, "-5", "WITHVALUES"]));
        assert_eq!(picked.len(), 10);
        assert!(picked.chunks(2).all(|p| hash.get(&p[0]) == Some(&p[1])));
        let one = text(&c.cmd(&["HRANDFIELD", &key])).unwrap();
        assert!(hash.contains_key(&one));
    }
    assert_whole(c, server, m.hashes.len());
}

#[test]
fn hashes_match_a_model_across_both_encodings() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let params = [
        ("hash-max-listpack-entries", "4"),
        ("hash-max-listpack-value", "8"),
    ];
    configure(&mut c, &params, "hash-max-listpack-*");
    let mut rng = SmallRng::seed_from_u64(32);
    let mut model = Model::default();
    for round in 0..30 {
        for _ in 0..150 {
            step(&mut c, &mut model, &mut rng);
        }
        check(&mut c, &model, &server);
        assert!(
            round < 29
                || model
                    .hashes
                    .values()
                    .any(|(h, large)| *large && h.len() > 200)
        );
    }
    // Some hashes span several chunks.
    assert!(server.keyspace.chunk_census().chunks > 8);
    // FLUSHALL and expiry take chunks with their hash.
    flush_and_expiry_take_chunks(&mut c, &server, &["HSET", "e", "a-long-field-name", "1"]);
}

#[test]
fn config_set_refuses_bad_thresholds() {
    let server = common::start();
    let mut c = Client::connect(&server);
    assert!(matches!(
        c.cmd(&["CONFIG", "SET", "hash-max-listpack-entries", "-1"]),
        Value::Error(_)
    ));
    assert!(matches!(
        c.cmd(&["CONFIG", "SET", "hash-max-listpack-value", "x"]),
        Value::Error(_)
    ));
    let got = strings(&c.cmd(&["CONFIG", "GET", "hash-max-listpack-entries"]));
    assert_eq!(got, ["hash-max-listpack-entries", "128"]);
}

#[test]
fn hset_on_a_large_hash_logs_a_record_that_does_not_grow_with_it() {
    let (_server, mut c, sizes) = journaled();
    let mut last = Vec::new();
    for (key, fields) in [("small", 1_000u32), ("large", 40_000)] {
        let pair = |i: u32| vec![format!("field:{i:08}"), format!("value:{i:08}")];
        fill(&mut c, "HSET", key, fields, pair, |_| 100);
        assert_eq!(encoding(&mut c, key), "hashtable");
        let (reply, size) = one_record(&mut c, &sizes, &["HSET", key, "field:00000007", "changed"]);
        assert_eq!(int(&reply), 0);
        last.push(size);
    }
    // The whole large hash is about 1.2 MB packed; its record one chunk and
    // the head.
    assert!(last.iter().all(|&n| n < 12 * 1024), "{last:?}");
    assert_eq!(int(&c.cmd(&["HLEN", "large"])), 40_000);
    assert_eq!(
        text(&c.cmd(&["HGET", "large", "field:00000007"])).unwrap(),
        "changed"
    );
}

#[test]
fn hsets_of_values_as_long_edit_the_packed_hash_where_it_lies() {
    let (server, mut c, records) = recorded();
    let mut model = Hash::new();
    let check = |c: &mut Client, model: &Hash| {
        let mut got = strings(&c.cmd(&["HGETALL", "h"]));
        let mut pairs = Vec::new();
        while !got.is_empty() {
            let field = got.remove(0);
            pairs.push((field, got.remove(0)));
        }
        assert_eq!(pairs.into_iter().collect::<Hash>(), *model);
        assert_eq!(int(&c.cmd(&["HLEN", "h"])), model.len() as i64);
        for (f, v) in model {
            assert_eq!(text(&c.cmd(&["HGET", "h", f])).as_deref(), Some(&**v));
        }
        assert_eq!(c.cmd(&["HGET", "h", "absent"]), Value::Null);
        assert_eq!(encoding(c, "h"), "listpack");
    };
    let hset = |c: &mut Client, model: &mut Hash, pairs: &[(&str, &str)], added: i64| {
        let mut cmd = vec!["HSET", "h"];
        for (f, v) in pairs {
            cmd.extend([*f, *v]);
            model.insert(f.to_string(), v.to_string());
        }
        assert_eq!(int(&c.cmd(&cmd)), added, "{cmd:?}");
        check(c, model);
    };
    hset(
        &mut c,
        &mut model,
        &[("a", "0000"), ("bb", "1111"), ("c", "")],
        3,
    );
    let used = server.keyspace.stats().used_memory;
    // Each value as long as the one it replaces: rewritten in place.
    hset(&mut c, &mut model, &[("bb", "2222")], 0);
    hset(
        &mut c,
        &mut model,
        &[("a", "3333"), ("c", ""), ("a", "4444")],
        0,
    );
    assert_eq!(server.keyspace.stats().used_memory, used);
    // One pair of several changes length, or is new: none is set in place,
    // all are set by the rewrite.
    hset(&mut c, &mut model, &[("a", "5555"), ("bb", "66")], 0);
    hset(&mut c, &mut model, &[("c", "7"), ("d", "8")], 1);
    hset(&mut c, &mut model, &[("d", "9")], 0);
    // A watched hash changed in place aborts the transaction.
    let mut other = Client::connect(&server);
    c.cmd(&["WATCH", "h"]);
    hset(&mut other, &mut model, &[("bb", "ab")], 0);
    c.cmd(&["MULTI"]);
    c.cmd(&["HSET", "h", "bb", "zz"]);
    assert_eq!(c.cmd(&["EXEC"]), Value::NullArray);
    check(&mut c, &model);
    // A string under the key is not a hash, however long its bytes.
    c.cmd(&["SET", "s", "abcd"]);
    let refused = c.cmd(&["HSET", "s", "a", "0000"]);
    assert!(matches!(refused, Value::Error(e) if e.starts_with("WRONGTYPE")));
    // The log replays to the same hash.
    let restarted = common::start();
    records.replay_into(&restarted.keyspace);
    check(&mut Client::connect(&restarted), &model);
    // Limits lowered below what the hash holds: a value as long converts
    // it, as Redis's HSET does, instead of being set in place.
    c.cmd(&["CONFIG", "SET", "hash-max-listpack-value", "3"]);
    assert_eq!(int(&c.cmd(&["HSET", "h", "a", "6666"])), 0);
    assert_eq!(encoding(&mut c, "h"), "hashtable");
    assert_eq!(text(&c.cmd(&["HGET", "h", "a"])).as_deref(), Some("6666"));
}
