//! `CLUSTER COUNTKEYSINSLOT` and `GETKEYSINSLOT` over cluster mode's
//! slot-to-keys index: a scripted sequence compared with a one-node Redis
//! cluster after every step (keys of every type, large collections whose
//! chunks are no keys, deletes, renames, copies, `RESTORE`, emptied
//! collections, expiry, flushes), and seeded random operations checked
//! against a model of the keyspace (and `KEYS *`) over a few slots.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::cluster::both_clusters;
use crate::common::{self, Client, Value};

/// Hash tags of the slots the tests use (and one key without a tag).
const TAGS: &[&str] = &["{a}", "{b}", "{c}", "{user1000}", ""];

/// Writes of the scripted sequence; `CHECK` compares every slot's count
/// and keys there; `EXPIRED` waits past the expiries set so far, then
/// deletes the expired keys (a write reclaims them on both servers).
const SCRIPT: &[&str] = &[
    "SET {a}s 1",
    "SET {a}t 2",
    "SET {b}s 3",
    "SET plain 4",
    "CHECK",
    "HSET {a}h f v",
    "LPUSH {b}l x y",
    "SADD {c}s m",
    "SADD {c}src m1",
    "ZADD {c}z 1 m",
    "XADD {user1000}x * f v",
    "PFADD {b}hll a b",
    "SETBIT {a}bits 7 1",
    "CHECK",
    "BIGZSET {a}big",
    "BIGSET {b}big",
    "BIGHASH {c}big",
    "BIGLIST {user1000}big",
    "CHECK",
    "DEL {a}big {a}s",
    "UNLINK {b}big",
    "CHECK",
    "RENAME {a}t {a}u",
    "RENAMENX {a}u {a}h",
    "COPY {a}h {a}h2",
    "COPY {c}big {c}big2",
    "CHECK",
    "RESTORE_FROM {a}h {a}restored",
    "RESTORE_FROM {c}big {c}restored",
    "CHECK",
    "LPOP {b}l 2",
    "SPOP {c}s",
    "ZPOPMIN {c}z",
    "GETDEL {b}s",
    "SMOVE {c}src {c}dst m1",
    "CHECK",
    "SET {a}soon x PX 20",
    "SET {b}soon x PX 20",
    "PEXPIRE {c}restored 20",
    "EXPIRE {a}h2 0",
    "CHECK",
    "EXPIRED",
    "CHECK",
    "FLUSHDB",
    "CHECK",
    "SET {a}again 1",
    "BIGZSET {b}again",
    "CHECK",
    "FLUSHALL",
    "CHECK",
];

/// The words of one write of the script, expanded for `BIG*` (a
/// collection past the packed encoding's limits).
fn expand(step: &str) -> Vec<String> {
    let (cmd, key) = step.split_once(' ').unwrap_or((step, ""));
    let mut words: Vec<String> = match cmd {
        "BIGZSET" => vec!["ZADD".into(), key.into()],
        "BIGSET" => vec!["SADD".into(), key.into()],
        "BIGHASH" => vec!["HSET".into(), key.into()],
        "BIGLIST" => vec!["RPUSH".into(), key.into()],
        _ => return step.split(' ').map(str::to_string).collect(),
    };
    for i in 0..300 {
        if cmd == "BIGZSET" || cmd == "BIGHASH" {
            words.push(format!("{i}"));
        }
        words.push(format!("m{i}"));
    }
    words
}

fn slots(c: &mut Client) -> Vec<i64> {
    TAGS.iter()
        .map(
            |t| match c.cmd(&["CLUSTER", "KEYSLOT", &format!("{t}plain")]) {
                Value::Int(n) => n,
                other => panic!("{other:?}"),
            },
        )
        .collect()
}

/// Each slot's count and its keys, sorted (the order is a hash table's),
/// and what a `GETKEYSINSLOT` of one key gives (its length).
fn slot_state(c: &mut Client, slots: &[i64]) -> Vec<(Value, Vec<String>, usize)> {
    slots
        .iter()
        .map(|slot| {
            let slot = slot.to_string();
            let count = c.cmd(&["CLUSTER", "COUNTKEYSINSLOT", &slot]);
            let all = c.cmd(&["CLUSTER", "GETKEYSINSLOT", &slot, "1000"]);
            let mut keys: Vec<String> = all.array().iter().map(Value::text).collect();
            keys.sort();
            let one = c.cmd(&["CLUSTER", "GETKEYSINSLOT", &slot, "1"]);
            (count, keys, one.array().len())
        })
        .collect()
}

fn run_step(c: &mut Client, step: &str) {
    if let Some(rest) = step.strip_prefix("RESTORE_FROM ") {
        let (from, to) = rest.split_once(' ').expect("two keys");
        let dump = c.cmd(&["DUMP", from]);
        let Value::Bulk(payload) = dump else {
            panic!("DUMP {from}: {dump:?}")
        };
        let reply = c.cmd_bytes(&[b"RESTORE", to.as_bytes(), b"0", &payload]);
        assert_eq!(reply, Value::ok(), "{step}");
        return;
    }
    let words = expand(step);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    if let Value::Error(e) = c.cmd(&words) {
        panic!("`{step}`: {e}");
    }
}

#[test]
fn slot_counts_and_keys_match_a_one_node_redis_cluster() {
    let (_peer, conf, server, mut redis, mut strata) = both_clusters();
    let slots = slots(&mut redis);
    assert_eq!(slots, self::slots(&mut strata));
    for step in SCRIPT {
        match *step {
            "CHECK" => {
                let want = slot_state(&mut redis, &slots);
                assert_eq!(slot_state(&mut strata, &slots), want, "after {step}");
            }
            "EXPIRED" => {
                // Strata's test server runs on a manual clock.
                std::thread::sleep(Duration::from_millis(60));
                server.clock.advance_ms(60);
                for (name, c) in [("redis", &mut redis), ("strata", &mut strata)] {
                    for key in ["{a}soon", "{b}soon", "{c}restored", "{a}h2"] {
                        let gone = c.cmd(&["DEL", key]);
                        assert_eq!(gone, Value::Int(0), "{name}: {key} expired");
                    }
                }
            }
            _ => {
                for c in [&mut redis, &mut strata] {
                    run_step(c, step);
                }
            }
        }
    }
    let _ = std::fs::remove_file(conf);
}

/// The model's keys by slot.
type Model = BTreeMap<i64, BTreeSet<String>>;

fn check_model(c: &mut Client, model: &Model, slots: &[i64], step: &str) {
    let mut keys: Vec<String> = c
        .cmd(&["KEYS", "*"])
        .array()
        .iter()
        .map(Value::text)
        .collect();
    keys.sort();
    let want: Vec<String> = model
        .values()
        .flatten()
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(keys, want, "{step}: the model is the keyspace");
    for (slot, state) in slots.iter().zip(slot_state(c, slots)) {
        let held: Vec<String> = model
            .get(slot)
            .map(|k| k.iter().cloned().collect())
            .unwrap_or_default();
        let n = held.len();
        assert_eq!(
            state,
            (Value::Int(n as i64), held, n.min(1)),
            "{step}: slot {slot}"
        );
    }
}

#[test]
fn slot_index_follows_random_operations() {
    let server = common::start_cluster();
    let mut c = Client::connect(&server);
    let slots = slots(&mut c);
    let slot_of: BTreeMap<&str, i64> = TAGS.iter().copied().zip(slots.iter().copied()).collect();
    let mut model = Model::new();
    let mut rng = SmallRng::seed_from_u64(17);
    let steps = common::fuzz_cases(400, 3_000);
    for step in 0..steps {
        // Tagged keys only: a tag's slot is each of its keys'.
        let tag = TAGS[rng.gen_range(0..TAGS.len() - 1)];
        let key = format!("{tag}k{}", rng.gen_range(0..12));
        let to = format!("{tag}k{}", rng.gen_range(0..12));
        let slot = slot_of[tag];
        let held = model.get(&slot).is_some_and(|k| k.contains(&key));
        let op = rng.gen_range(0..100);
        let name = match op {
            0..=29 => {
                c.cmd(&["SET", &key, "v"]);
                model.entry(slot).or_default().insert(key.clone());
                "SET"
            }
            30..=39 => {
                c.cmd(
                    &expand(&format!("BIGZSET {key}"))
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>(),
                );
                model.entry(slot).or_default().insert(key.clone());
                "big ZADD"
            }
            40..=54 => {
                c.cmd(&["DEL", &key]);
                model.entry(slot).or_default().remove(&key);
                "DEL"
            }
            55..=64 => {
                let reply = c.cmd(&["RENAME", &key, &to]);
                if held {
                    assert_eq!(reply, Value::ok());
                    let keys = model.entry(slot).or_default();
                    keys.remove(&key);
                    keys.insert(to.clone());
                }
                "RENAME"
            }
            65..=72 => {
                c.cmd(&["COPY", &key, &to, "REPLACE"]);
                if held {
                    model.entry(slot).or_default().insert(to.clone());
                }
                "COPY"
            }
            73..=84 => {
                // Expires at once: gone for the model and, through the
                // write that finds it expired, for the index.
                c.cmd(&["PEXPIRE", &key, "1"]);
                server.clock.advance_ms(2);
                assert_eq!(c.cmd(&["DEL", &key]), Value::Int(0));
                model.entry(slot).or_default().remove(&key);
                "PEXPIRE"
            }
            85..=92 => {
                // Emptying a sorted set deletes it; a string stays.
                if !matches!(c.cmd(&["ZPOPMIN", &key, "1000"]), Value::Error(_)) {
                    model.entry(slot).or_default().remove(&key);
                }
                "emptied"
            }
            93..=96 => {
                c.cmd(&["UNLINK", &key, &to]);
                let keys = model.entry(slot).or_default();
                keys.remove(&key);
                keys.remove(&to);
                "UNLINK"
            }
            _ => {
                assert_eq!(c.cmd(&["FLUSHALL"]), Value::ok());
                model.clear();
                "FLUSHALL"
            }
        };
        check_model(
            &mut c,
            &model,
            &slots,
            &format!("step {step}: {name} {key}"),
        );
    }
}
