//! The model test: random puts, deletes (tombstones), flushes,
//! defragmentation, clean and torn power cuts with reopen + rebuild scan,
//! checked against a `BTreeMap` model. After every restart each key must
//! hold its state as of the last successful flush or a later one (the
//! writes since may or may not survive), and a delete that was flushed
//! never comes back. Live accounting must match the index.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use proptest::prelude::*;
use strata_ssd::SsdError;

#[derive(Debug, Clone)]
enum Op {
    Put {
        key: u32,
        filler: usize,
    },
    /// Many large puts in a row: pushes the device to `Full`.
    Burst {
        first_key: u32,
        count: u32,
    },
    Delete {
        key: u32,
    },
    Read {
        key: u32,
    },
    Flush,
    Defrag {
        threshold: u8,
    },
    Crash,
    CrashTorn {
        seed: u64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0u32..16;
    prop_oneof![
        10 => (key.clone(), prop_oneof![0usize..200, 0usize..12_000])
            .prop_map(|(key, filler)| Op::Put { key, filler }),
        1 => (key.clone(), 5u32..40).prop_map(|(first_key, count)| Op::Burst { first_key, count }),
        3 => key.clone().prop_map(|key| Op::Delete { key }),
        2 => key.prop_map(|key| Op::Read { key }),
        1 => Just(Op::Flush),
        2 => (10u8..=100).prop_map(|threshold| Op::Defrag { threshold }),
        1 => Just(Op::Crash),
        1 => any::<u64>().prop_map(|seed| Op::CrashTorn { seed }),
    ]
}

/// Per key: the states it may be found in after a power cut, the state as
/// of the last flush first. `None` is absent or deleted.
type Allowed = BTreeMap<u32, Vec<Option<u64>>>;

struct Run {
    device: strata_device::MemBlockDevice,
    engine: Engine,
    /// What the engine holds now.
    model: BTreeMap<u32, u64>,
    allowed: Allowed,
    version: u64,
}

impl Run {
    fn new() -> Run {
        let device = mem_device(8);
        let engine = Engine::new(open_empty(&device, config()));
        Run {
            device,
            engine,
            model: BTreeMap::new(),
            allowed: Allowed::new(),
            version: 0,
        }
    }

    fn changed(&mut self, key: u32) {
        let state = self.model.get(&key).copied();
        self.allowed
            .entry(key)
            .or_insert_with(|| vec![None])
            .push(state);
    }

    /// On `Full`, defragments everything below 100% and flushes, as an
    /// engine under pressure would; the write itself is dropped (and the
    /// model unchanged, since nothing was appended).
    fn relieve(&mut self, result: Result<(), SsdError>) -> bool {
        match result {
            Ok(()) => true,
            Err(SsdError::Full { .. }) => {
                match self.engine.defrag(100, usize::MAX) {
                    Ok(_) | Err(SsdError::Full { .. }) => {}
                    Err(e) => panic!("{e}"),
                }
                self.engine.store.flush().unwrap();
                false
            }
            Err(e) => panic!("{e}"),
        }
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Put { key, filler } => {
                self.version += 1;
                let put = self.engine.put(key, self.version, filler).map(drop);
                if self.relieve(put) {
                    self.model.insert(key, self.version);
                    self.changed(key);
                }
            }
            Op::Burst { first_key, count } => {
                for i in 0..count {
                    let key = (first_key + i * 7) % 16;
                    self.apply(&Op::Put {
                        key,
                        filler: 10_000,
                    });
                }
            }
            Op::Delete { key } => {
                self.version += 1;
                let delete = self.engine.delete(key, self.version);
                if self.relieve(delete) && self.model.remove(&key).is_some() {
                    self.changed(key);
                }
            }
            Op::Read { key } => assert_eq!(self.engine.get(key), self.model.get(&key).copied()),
            Op::Flush => {
                self.engine.store.flush().unwrap();
                self.allowed = self
                    .model
                    .iter()
                    .map(|(&k, &v)| (k, vec![Some(v)]))
                    .collect();
            }
            Op::Defrag { threshold } => match self.engine.defrag(threshold, 3) {
                Ok(_) | Err(SsdError::Full { .. }) => {}
                Err(e) => panic!("{e}"),
            },
            Op::Crash => self.restart(self.device.crash()),
            Op::CrashTorn { seed } => self.restart(self.device.crash_torn(seed)),
        }
    }

    fn restart(&mut self, device: strata_device::MemBlockDevice) {
        // The old store (and its reader threads) goes away with the power.
        self.engine = Engine::recover(&device, config()).unwrap();
        self.device = device;
        let keys: BTreeSet<u32> = self
            .allowed
            .keys()
            .chain(self.model.keys())
            .copied()
            .collect();
        let mut recovered = BTreeMap::new();
        for key in keys {
            let found = self.engine.get(key);
            let allowed = self
                .allowed
                .get(&key)
                .cloned()
                .unwrap_or_else(|| vec![None]);
            assert!(
                allowed.contains(&found),
                "key {key}: found {found:?} after restart, allowed {allowed:?}"
            );
            if let Some(version) = found {
                recovered.insert(key, version);
            }
        }
        self.model = recovered;
        self.allowed = self
            .model
            .iter()
            .map(|(&k, &v)| (k, vec![Some(v)]))
            .collect();
        let stats = self.engine.store.stats();
        assert_eq!(stats.bytes_live, self.engine.live_bytes());
    }

    fn check(&self) {
        for (&key, &version) in &self.model {
            assert_eq!(self.engine.get(key), Some(version), "key {key}");
        }
        assert_eq!(
            self.engine.store.stats().bytes_live,
            self.engine.live_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn model_survives_power_cuts(ops in prop::collection::vec(op(), 1..300), seed: u64) {
        let mut run = Run::new();
        for (i, op) in ops.iter().enumerate() {
            run.apply(op);
            if i % 16 == 0 {
                run.check();
            }
        }
        run.check();
        run.apply(&Op::CrashTorn { seed });
        run.check();
    }
}

/// Regression shape: a key deleted and flushed, whose put sits in an older
/// block that outlives the tombstone's block, stays deleted across a
/// restart after the tombstone's block is defragmented.
#[test]
fn deleted_key_stays_deleted_after_defrag_and_restart() {
    let mut run = Run::new();
    let mut ops = vec![Op::Put {
        key: 1,
        filler: 100,
    }];
    // Keep the first block alive with another key.
    ops.push(Op::Put {
        key: 2,
        filler: 100,
    });
    for _ in 0..6 {
        ops.push(Op::Put {
            key: 3,
            filler: 11_000,
        });
    }
    ops.push(Op::Delete { key: 1 });
    for _ in 0..12 {
        ops.push(Op::Put {
            key: 4,
            filler: 11_000,
        });
    }
    ops.extend([Op::Flush, Op::Defrag { threshold: 100 }, Op::Flush]);
    for op in &ops {
        run.apply(op);
        run.check();
    }
    let defrag = run.engine.store.stats().defrag;
    assert!(defrag.blocks_freed > 0 && defrag.entries_moved > 0);
    run.apply(&Op::Crash);
    run.check();
    assert_eq!(run.engine.get(1), None);
}
