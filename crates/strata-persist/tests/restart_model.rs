//! Model test with restarts: random operations (through the same `Store`
//! API the front ends use) against a `BTreeMap`, in `sync` mode, each
//! acknowledged once durable, interleaved with checkpoints, clean restarts
//! and power cuts (clean and torn). After every restart the keyspace must
//! equal the model: nothing acknowledged lost, nothing deleted back.

use crate::common;

use common::*;
use proptest::prelude::*;
use strata_kv::{Mutation, NewItem, Store};
use strata_persist::Durability;

#[derive(Debug, Clone)]
enum Op {
    Set {
        key: u8,
        value: Vec<u8>,
        flags: u32,
        ttl: Option<u64>,
    },
    Delete(u8),
    Append {
        key: u8,
        tail: Vec<u8>,
    },
    Touch {
        key: u8,
        ttl: Option<u64>,
    },
    Rename {
        from: u8,
        to: u8,
    },
    SetMany(Vec<u8>),
    Flush,
    Advance(u64),
    Maintain,
    Checkpoint,
    RestartClean,
    PowerCut,
    PowerCutTorn(u64),
}

fn key(k: u8) -> Vec<u8> {
    format!("key:{k}").into_bytes()
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0u8..32;
    prop_oneof![
        8 => (k.clone(), prop::collection::vec(any::<u8>(), 0..200), any::<u32>(), prop::option::of(1u64..5_000))
            .prop_map(|(key, value, flags, ttl)| Op::Set { key, value, flags, ttl }),
        3 => k.clone().prop_map(Op::Delete),
        2 => (k.clone(), prop::collection::vec(any::<u8>(), 0..40)).prop_map(|(key, tail)| Op::Append { key, tail }),
        2 => (k.clone(), prop::option::of(1u64..5_000)).prop_map(|(key, ttl)| Op::Touch { key, ttl }),
        1 => (k.clone(), k.clone()).prop_map(|(from, to)| Op::Rename { from, to }),
        1 => prop::collection::vec(k, 1..4).prop_map(Op::SetMany),
        1 => Just(Op::Flush),
        2 => (0u64..3_000).prop_map(Op::Advance),
        1 => Just(Op::Maintain),
        2 => Just(Op::Checkpoint),
        1 => Just(Op::RestartClean),
        2 => Just(Op::PowerCut),
        1 => any::<u64>().prop_map(Op::PowerCutTorn),
    ]
}

fn run(ops: Vec<Op>) {
    let mut w = World::new(Durability::Sync);
    let mut model = Model::new();
    for op in ops {
        let shown = format!("{op:?}");
        let now = w.ks.now_ms();
        let live = |model: &Model, k: &[u8]| {
            model
                .get(k)
                .filter(|(_, _, exp)| exp.is_none_or(|at| at > now))
                .cloned()
        };
        match op {
            Op::Set {
                key: k,
                value,
                flags,
                ttl,
            } => {
                let expires_at = ttl.map(|t| now + t);
                let item = NewItem {
                    value: value.clone().into(),
                    flags,
                    expires_at,
                };
                w.ks.store().set(&key(k), item).unwrap();
                model.insert(key(k), (value, flags, expires_at));
            }
            Op::Delete(k) => {
                w.ks.store().delete(&key(k)).unwrap();
                model.remove(&key(k));
            }
            Op::Append { key: k, tail } => {
                w.ks.store()
                    .update(&key(k), |item| match item {
                        Some(item) => {
                            let mut v = item.value.to_vec();
                            v.extend_from_slice(&tail);
                            let new = NewItem {
                                value: v.into(),
                                flags: item.flags,
                                expires_at: item.expires_at,
                            };
                            (Mutation::Put(new), ())
                        }
                        None => (Mutation::Keep, ()),
                    })
                    .unwrap();
                if let Some((mut v, f, e)) = live(&model, &key(k)) {
                    v.extend_from_slice(&tail);
                    model.insert(key(k), (v, f, e));
                }
            }
            Op::Touch { key: k, ttl } => {
                let expires_at = ttl.map(|t| now + t);
                w.ks.store()
                    .update(&key(k), |_| (Mutation::SetExpiry(expires_at), ()))
                    .unwrap();
                if let Some((v, f, _)) = live(&model, &key(k)) {
                    model.insert(key(k), (v, f, expires_at));
                }
            }
            Op::Rename { from, to } => {
                w.ks.store().rename(&key(from), &key(to), false).unwrap();
                if let Some(item) = live(&model, &key(from)) {
                    model.remove(&key(from));
                    model.insert(key(to), item);
                }
            }
            Op::SetMany(keys) => {
                let items: Vec<(Vec<u8>, NewItem<'static>)> = keys
                    .iter()
                    .map(|&k| {
                        (
                            key(k),
                            NewItem {
                                value: vec![k; 3].into(),
                                flags: 1,
                                expires_at: None,
                            },
                        )
                    })
                    .collect();
                let refs: Vec<(&[u8], NewItem<'_>)> = items
                    .iter()
                    .map(|(k, v)| (k.as_slice(), v.clone()))
                    .collect();
                w.ks.store().set_many(&refs, false).unwrap();
                for &k in &keys {
                    model.insert(key(k), (vec![k; 3], 1, None));
                }
            }
            Op::Flush => {
                w.ks.store().flush().unwrap();
                model.clear();
            }
            Op::Advance(ms) => w.clock.advance_ms(ms),
            Op::Maintain => {
                w.ks.run_maintenance();
            }
            Op::Checkpoint => {
                w.p().checkpoint().unwrap();
            }
            Op::RestartClean => w.restart_clean(),
            Op::PowerCut => w.power_cut(None),
            Op::PowerCutTorn(seed) => w.power_cut(Some(seed)),
        }
        // Acknowledged only once durable, as `sync` mode replies.
        if w.p.is_some() {
            w.ack();
        }
        assert_eq!(w.live(), w.expect(&model), "after {shown}");
    }
    w.power_cut(None);
    assert_eq!(w.live(), w.expect(&model), "after the final power cut");
}

/// Cases per run, by the fuzz suites' rule: `STRATA_FUZZ_CASES=N` (or
/// its older name `RM_CASES`) exactly N, else 2,000 with `STRATA_TEST_FULL`
/// (or its alias `STRATA_FULL`) set and not `0` (what `scripts/test --full`
/// sets), else 48.
fn cases() -> u32 {
    let full = ["STRATA_TEST_FULL", "STRATA_FULL"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|s| !s.is_empty() && s != "0"));
    ["STRATA_FUZZ_CASES", "RM_CASES"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
        .unwrap_or(if full { 2_000 } else { 48 })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]
    #[test]
    fn restarts_keep_exactly_the_acknowledged_state(ops in prop::collection::vec(op(), 1..160)) {
        run(ops);
    }
}

/// Many checkpoints and a log larger than one segment: old segments and
/// snapshots are removed, and recovery still finds everything.
#[test]
fn checkpoints_remove_old_files_and_recovery_still_sees_everything() {
    let mut w = World::new(Durability::Sync);
    let mut model = Model::new();
    for round in 0..6u32 {
        for i in 0..400u32 {
            let k = format!("k{}", (i * 7 + round) % 300).into_bytes();
            let v = format!("{round}-{i}-{}", "x".repeat(40)).into_bytes();
            w.ks.store()
                .set(
                    &k,
                    NewItem {
                        value: v.clone().into(),
                        flags: round,
                        expires_at: None,
                    },
                )
                .unwrap();
            model.insert(k, (v, round, None));
        }
        w.ack();
        let report = w.p().checkpoint().unwrap();
        assert_eq!(report.snapshot.records, model.len() as u64);
    }
    let snapshots = strata_snapshot::snapshots(&w.snap_dir).unwrap();
    assert_eq!(
        snapshots.len(),
        1,
        "older snapshots are removed: {snapshots:?}"
    );
    assert!(
        w.p().log().stats().segments <= 2,
        "log segments below the snapshot are removed"
    );
    w.power_cut(None);
    assert_eq!(w.live(), model);
    let r = w.p().recovery();
    assert_eq!(r.snapshot_items, model.len() as u64);
}

/// An expiry that has passed by the time of recovery is replayed as it
/// was written: a later `PERSIST`/`touch` record lifts it again, so the
/// item must still be there for it (it once was deleted on replay).
#[test]
fn a_lifted_expiry_survives_replay_after_it_would_have_passed() {
    let ops = vec![
        Op::SetMany(vec![18]),
        Op::Touch {
            key: 18,
            ttl: Some(1),
        },
        Op::Touch { key: 18, ttl: None },
        Op::Advance(1),
        Op::RestartClean,
        Op::Checkpoint,
        Op::Touch {
            key: 18,
            ttl: Some(5),
        },
        Op::Touch { key: 18, ttl: None },
        Op::Advance(10),
        Op::PowerCut,
    ];
    run(ops);
}
