//! Model test: random operation sequences against a `BTreeMap`, with a
//! manual clock, background maintenance passes and delayed flushes.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use strata_kv::{
    Deleted, Keyspace, KeyspaceConfig, ManualClock, Mutation, NewItem, Renamed, Store,
};

#[derive(Debug, Clone)]
enum Op {
    Set {
        key: u8,
        value: Vec<u8>,
        flags: u32,
        ttl: Option<u64>,
    },
    Delete(u8),
    Get(u8),
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
        nx: bool,
    },
    SetMany {
        keys: Vec<u8>,
        nx: bool,
    },
    Advance(u64),
    Maintain,
    Flush,
    FlushAfter(u64),
}

fn key(k: u8) -> Vec<u8> {
    format!("key:{k}").into_bytes()
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0u8..24;
    prop_oneof![
        4 => (k.clone(), prop::collection::vec(any::<u8>(), 0..300), any::<u32>(), prop::option::of(1u64..5_000))
            .prop_map(|(key, value, flags, ttl)| Op::Set { key, value, flags, ttl }),
        2 => k.clone().prop_map(Op::Delete),
        4 => k.clone().prop_map(Op::Get),
        1 => (k.clone(), prop::collection::vec(any::<u8>(), 0..40)).prop_map(|(key, tail)| Op::Append { key, tail }),
        1 => (k.clone(), prop::option::of(1u64..5_000)).prop_map(|(key, ttl)| Op::Touch { key, ttl }),
        1 => (k.clone(), k.clone(), any::<bool>()).prop_map(|(from, to, nx)| Op::Rename { from, to, nx }),
        1 => (prop::collection::vec(k, 1..4), any::<bool>()).prop_map(|(keys, nx)| Op::SetMany { keys, nx }),
        1 => (0u64..3_000).prop_map(Op::Advance),
        1 => Just(Op::Maintain),
        1 => (0u64..100).prop_map(|n| if n < 3 { Op::Flush } else { Op::Advance(n) }),
        1 => (1u64..4_000).prop_map(Op::FlushAfter),
    ]
}

/// (value, flags, expires_at)
type Model = BTreeMap<Vec<u8>, (Vec<u8>, u32, Option<u64>)>;

fn live(model: &Model, k: &[u8], now: u64) -> Option<(Vec<u8>, u32, Option<u64>)> {
    model
        .get(k)
        .filter(|(_, _, exp)| exp.is_none_or(|at| at > now))
        .cloned()
}

fn run(ops: Vec<Op>, shards: usize) {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let config = KeyspaceConfig {
        shards,
        ..KeyspaceConfig::default()
    };
    let ks = Keyspace::new(config, clock.clone());
    let mut model = Model::new();
    let mut flush_due: Option<u64> = None;
    for op in ops {
        let now = clock.now_ms_for_model();
        if flush_due.is_some_and(|due| now >= due) {
            model.clear();
            flush_due = None;
        }
        let mut store = ks.store();
        match op {
            Op::Set {
                key: k,
                value,
                flags,
                ttl,
            } => {
                let expires_at = ttl.map(|t| now + t);
                let new = NewItem {
                    value: value.clone().into(),
                    flags,
                    expires_at,
                };
                let ((), cas) = store
                    .update_cas(&key(k), |_| (Mutation::Put(new), ()))
                    .unwrap();
                let now_cas = store.peek(&key(k), |i| i.cas);
                assert_eq!(cas, now_cas, "update_cas reports the new CAS");
                model.insert(key(k), (value, flags, expires_at));
            }
            Op::Delete(k) => {
                let expected = if live(&model, &key(k), now).is_some() {
                    Deleted::Removed
                } else {
                    Deleted::Missing
                };
                assert_eq!(store.delete(&key(k)).unwrap(), expected);
                model.remove(&key(k));
            }
            Op::Get(k) => {
                let got = store.get(&key(k), |i| (i.value.to_vec(), i.flags, i.expires_at));
                assert_eq!(got, live(&model, &key(k), now), "get {k}");
            }
            Op::Append { key: k, tail } => {
                let done = store
                    .update(&key(k), |item| match item {
                        Some(i) => {
                            let mut v = i.value.to_vec();
                            v.extend_from_slice(&tail);
                            let new = NewItem {
                                value: v.into(),
                                flags: i.flags,
                                expires_at: i.expires_at,
                            };
                            (Mutation::Put(new), true)
                        }
                        None => (Mutation::Keep, false),
                    })
                    .unwrap();
                match live(&model, &key(k), now) {
                    Some((mut v, f, e)) => {
                        assert!(done);
                        v.extend_from_slice(&tail);
                        model.insert(key(k), (v, f, e));
                    }
                    None => assert!(!done),
                }
            }
            Op::Touch { key: k, ttl } => {
                let expires_at = ttl.map(|t| now + t);
                let before = store.peek(&key(k), |i| i.cas);
                store
                    .update(&key(k), |_| (Mutation::SetExpiry(expires_at), ()))
                    .unwrap();
                if let Some((v, f, _)) = live(&model, &key(k), now) {
                    model.insert(key(k), (v, f, expires_at));
                    assert_eq!(
                        store.peek(&key(k), |i| i.cas),
                        before,
                        "touch keeps the CAS"
                    );
                }
            }
            Op::Rename { from, to, nx } => {
                let got = store.rename(&key(from), &key(to), nx).unwrap();
                let src = live(&model, &key(from), now);
                let dst = live(&model, &key(to), now);
                let expected = match (src, dst) {
                    (None, _) => Renamed::NoSuchKey,
                    (Some(_), Some(_)) if nx => Renamed::TargetExists,
                    (Some(item), _) => {
                        if from != to {
                            model.remove(&key(from));
                            model.insert(key(to), item);
                        }
                        Renamed::Done
                    }
                };
                assert_eq!(got, expected);
            }
            Op::SetMany { keys, nx } => {
                let keys: Vec<Vec<u8>> = keys.into_iter().map(key).collect();
                let items: Vec<(&[u8], NewItem<'_>)> = keys
                    .iter()
                    .map(|k| {
                        (
                            k.as_slice(),
                            NewItem {
                                value: k.clone().into(),
                                flags: 7,
                                expires_at: None,
                            },
                        )
                    })
                    .collect();
                let any_live = keys.iter().any(|k| live(&model, k, now).is_some());
                let stored = store.set_many(&items, nx).unwrap();
                assert_eq!(stored, !(nx && any_live));
                if stored {
                    for k in &keys {
                        model.insert(k.clone(), (k.clone(), 7, None));
                    }
                }
            }
            Op::Advance(ms) => clock.advance_ms(ms),
            Op::Maintain => {
                ks.run_maintenance();
            }
            Op::Flush => {
                // FLUSHALL empties the keyspace but leaves a pending delayed
                // flush (memcached's) in place.
                store.flush().unwrap();
                model.clear();
            }
            Op::FlushAfter(ms) => {
                ks.flush_after(ms).unwrap();
                flush_due = Some(now + ms);
            }
        }
    }
    // Final check: a full scan sees exactly the live model.
    clock.advance_ms(0);
    let now = clock.now_ms_for_model();
    if flush_due.is_some_and(|due| now >= due) {
        model.clear();
    }
    let mut seen = BTreeMap::new();
    let mut cursor = 0;
    loop {
        cursor = ks.store().scan(cursor, 3, &mut |i| {
            seen.insert(i.key.to_vec(), i.value.to_vec());
        });
        if cursor == 0 {
            break;
        }
    }
    let expected: BTreeMap<Vec<u8>, Vec<u8>> = model
        .iter()
        .filter(|(_, (_, _, e))| e.is_none_or(|at| at > now))
        .map(|(k, (v, _, _))| (k.clone(), v.clone()))
        .collect();
    assert_eq!(seen, expected);
    ks.run_maintenance();
    assert_eq!(
        ks.stats().items,
        expected.len() as u64,
        "maintenance reclaimed every expired item"
    );
}

trait ModelClock {
    fn now_ms_for_model(&self) -> u64;
}

impl ModelClock for ManualClock {
    fn now_ms_for_model(&self) -> u64 {
        strata_kv::Clock::now_ms(self)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn keyspace_matches_model(ops in prop::collection::vec(op(), 1..300)) {
        run(ops, 4);
    }

    #[test]
    fn single_shard_keyspace_matches_model(ops in prop::collection::vec(op(), 1..200)) {
        run(ops, 1);
    }
}

/// Regression: a delayed flush and an expiry landing on the same pass.
#[test]
fn model_flush_after_then_expiry() {
    run(
        vec![
            Op::Set {
                key: 1,
                value: b"a".to_vec(),
                flags: 0,
                ttl: Some(10),
            },
            Op::FlushAfter(20),
            Op::Advance(15),
            Op::Maintain,
            Op::Get(1),
            Op::Advance(10),
            Op::Get(1),
        ],
        2,
    );
}

/// Regression: a second delayed flush must not cancel one already due.
#[test]
fn model_due_flush_runs_before_being_replaced() {
    run(
        vec![
            Op::Set {
                key: 9,
                value: b"v".to_vec(),
                flags: 0,
                ttl: None,
            },
            Op::FlushAfter(1),
            Op::Advance(530),
            Op::FlushAfter(1304),
            Op::Get(9),
        ],
        4,
    );
}
