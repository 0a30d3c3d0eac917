//! Packed values (`segments`) against a model: random inserts of new
//! versions, reads, invalidations, revisions and removals, with value
//! lengths on both sides of the packing rule, on a one-shard cache large
//! enough to pack. Every hit must return exactly the bytes inserted for
//! that version, whatever the moves between segments (promotion, going
//! round main, the cleaner, compaction after `remove_if`) did; the budget
//! holds after every operation.

use std::collections::HashMap;

use bytes::Bytes;
use proptest::prelude::*;
use strata_cache::Cache;

/// One shard of 1 MiB: packs (shards of 448 KiB or more do).
const BUDGET: u64 = 1 << 20;

/// The bytes of `key`'s version `version`, `len` long: no two versions of
/// a key share their content, so a slice of the wrong record shows.
fn record(key: u64, version: u64, len: usize) -> Bytes {
    let seed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ version.rotate_left(17);
    let bytes: Vec<u8> = (0..len as u64)
        .map(|i| (seed.wrapping_add(i.wrapping_mul(0xA24B_AED4_963E_E407)) >> 56) as u8)
        .collect();
    Bytes::from(bytes)
}

#[derive(Debug, Clone)]
enum Op {
    /// A new version of `key` (the next one), `len` bytes long.
    Insert {
        key: u64,
        len: usize,
    },
    Get {
        key: u64,
    },
    Invalidate {
        key: u64,
    },
    /// Relabels `key`'s current version (the record moved, same bytes).
    Revise {
        key: u64,
    },
    /// Drops every key `k` with `k % modulus == rest`.
    RemoveIf {
        modulus: u64,
        rest: u64,
    },
}

impl Op {
    /// The same operation on a key below `keys`.
    fn keyed(self, keys: u64) -> Op {
        match self {
            Op::Insert { key, len } => Op::Insert {
                key: key % keys,
                len,
            },
            Op::Get { key } => Op::Get { key: key % keys },
            Op::Invalidate { key } => Op::Invalidate { key: key % keys },
            Op::Revise { key } => Op::Revise { key: key % keys },
            remove => remove,
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    // Lengths around the packing rule: 100 and 1,030 are packed, 1,000
    // and 2,000 are not (`segments::packs`).
    let len = prop_oneof![
        1usize..200,
        Just(1_000),
        Just(1_030),
        1_020usize..1_400,
        Just(2_000)
    ];
    prop_oneof![
        6 => (0u64..3_000, len).prop_map(|(key, len)| Op::Insert { key, len }),
        6 => (0u64..3_000).prop_map(|key| Op::Get { key }),
        1 => (0u64..3_000).prop_map(|key| Op::Invalidate { key }),
        1 => (0u64..3_000).prop_map(|key| Op::Revise { key }),
        1 => (2u64..6, 0u64..6).prop_map(|(modulus, rest)| Op::RemoveIf { modulus, rest }),
    ]
}

/// The version each key is at, its length, and the version its bytes were
/// made for (a revised record keeps its bytes under a new version).
#[derive(Clone, Copy)]
struct Current {
    version: u64,
    len: usize,
    made_as: u64,
    cached: bool,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn packed_values_read_back_exactly(
        // 500 keys fit in the budget; at 3,000 evictions move records
        // through the queues.
        keys in prop_oneof![Just(500u64), Just(3_000u64)],
        // Or every value packed (1,030 bytes), 700 keys about filling the
        // budget: new versions of records in main leave holes that the
        // cleaner reclaims.
        packed_only in any::<bool>(),
        ops in prop::collection::vec(op(), 1..4_000),
    ) {
        let cache: Cache<u64, u64> = Cache::with_shards(BUDGET, 1);
        let mut model: HashMap<u64, Current> = HashMap::new();
        let mut next_version = 1u64;
        let keys = if packed_only { 700 } else { keys };
        for op in ops {
            let op = match (op.keyed(keys), packed_only) {
                (Op::Insert { key, .. }, true) => Op::Insert { key, len: 1_030 },
                (op, _) => op,
            };
            match op {
                Op::Insert { key, len } => {
                    let version = next_version;
                    next_version += 1;
                    let cached = cache.insert(key, version, record(key, version, len));
                    model.insert(key, Current { version, len, made_as: version, cached });
                }
                Op::Get { key } => {
                    let Some(current) = model.get(&key).copied() else {
                        continue;
                    };
                    if let Some(got) = cache.get(&key, &current.version) {
                        prop_assert!(current.cached, "key {key} was never cached");
                        prop_assert_eq!(got, record(key, current.made_as, current.len));
                    }
                }
                Op::Invalidate { key } => {
                    if let Some(current) = model.get_mut(&key) {
                        cache.invalidate(&key, &current.version);
                        current.cached = false;
                    }
                }
                Op::Revise { key } => {
                    if let Some(current) = model.get_mut(&key) {
                        let to = next_version;
                        next_version += 1;
                        if cache.revise(&key, &current.version, to) {
                            current.version = to;
                        }
                    }
                }
                Op::RemoveIf { modulus, rest } => {
                    cache.remove_if(|k| k % modulus == rest);
                    for (key, current) in model.iter_mut() {
                        if key % modulus == rest {
                            current.cached = false;
                        }
                    }
                }
            }
            let stats = cache.stats();
            prop_assert!(stats.bytes <= BUDGET, "{:?}", stats);
        }
        // Everything the cache says it holds reads back exactly.
        for (key, current) in &model {
            if let Some(got) = cache.get_again(key, &current.version) {
                prop_assert!(current.cached);
                prop_assert_eq!(got, record(*key, current.made_as, current.len));
            }
        }
    }
}
