//! What the tests of large collections share: a keyspace on a manual
//! clock, the simulated persistent memory and SSD they restart on, every
//! head and chunk a keyspace holds, and the chunk census check.

use std::collections::BTreeSet;
use std::sync::Arc;

use strata_device::MemBlockDevice;
use strata_kv::large::Deque;
use strata_kv::{IndexTier, Keyspace, KeyspaceConfig, ManualClock, Placement, Store, ValueKind};
use strata_pmem::{PersistentArena, SimulatedPmem};

/// The persistent-memory chunk size of the simulated arenas.
pub const CHUNK: u64 = 64 << 10;

pub fn config(shards: usize) -> KeyspaceConfig {
    KeyspaceConfig {
        shards,
        ..KeyspaceConfig::default()
    }
}

pub fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(1_000_000))
}

/// Every user key, through `scan_keys` (chunks are not among them).
pub fn keys(store: &mut impl Store) -> BTreeSet<Vec<u8>> {
    let mut out = BTreeSet::new();
    let mut cursor = 0;
    loop {
        cursor = store.scan_keys(cursor, 10, &mut |k| {
            out.insert(k.to_vec());
        });
        if cursor == 0 {
            return out;
        }
    }
}

/// Each key's value and chunks (a list's: its elements, in order).
pub type Contents = Vec<(Vec<u8>, Vec<u8>, Vec<Option<Vec<u8>>>)>;

/// Every head and chunk of `ks`, read through the heads.
pub fn contents(ks: &Keyspace) -> Contents {
    let mut store = ks.store();
    keys(&mut store)
        .into_iter()
        .map(|key| {
            let (value, chunks) = store
                .edit_large(&key, |edit| {
                    let current = edit.current().unwrap().unwrap();
                    if current.kind == ValueKind::List {
                        let mut deque = Deque::open(edit).unwrap().unwrap();
                        let n = deque.len();
                        let elements = deque.range(0, n - 1).unwrap();
                        return (current.value, elements.into_iter().map(Some).collect());
                    }
                    let n = current.chunks.unwrap_or(0);
                    let chunks: Vec<_> = (0..n).map(|i| edit.chunk(i).unwrap()).collect();
                    (current.value, chunks)
                })
                .unwrap();
            (key, value, chunks)
        })
        .collect()
}

/// Asserts that every chunk has its head and every head all its chunks.
pub fn assert_chunks_whole(ks: &Keyspace) {
    let census = ks.chunk_census();
    assert_eq!((census.orphans, census.missing), (0, 0), "{census:?}");
}

/// A new simulated persistent-memory arena of 256 chunks, tagged `kind`.
pub fn new_arena(kind: u64) -> PersistentArena {
    PersistentArena::simulated(8192 + 256 * CHUNK, CHUNK, kind).unwrap()
}

/// Opens a keyspace placed in persistent memory on `arena`.
pub fn open_pmem(
    config: KeyspaceConfig,
    arena: PersistentArena,
    placement: Placement,
) -> Arc<Keyspace> {
    Keyspace::open_placed(config, clock(), placement, Some(Arc::new(arena)))
        .unwrap()
        .0
}

/// Cuts the power of a keyspace in persistent memory: what its arena
/// holds then.
pub fn crash_pmem(ks: Arc<Keyspace>) -> SimulatedPmem {
    let arena = ks.tier().unwrap().arena().clone();
    let image = arena.crash().unwrap();
    drop(ks);
    drop(arena);
    image
}

/// Opens a keyspace on the SSD tier of `device`, with its index in
/// persistent memory on `arena` if given, else in DRAM.
pub fn open_ssd(
    config: KeyspaceConfig,
    device: &MemBlockDevice,
    arena: Option<PersistentArena>,
) -> Arc<Keyspace> {
    let index = match arena {
        Some(_) => IndexTier::Pmem,
        None => IndexTier::Dram,
    };
    Keyspace::open_ssd(
        config,
        clock(),
        index,
        arena.map(Arc::new),
        Arc::new(device.clone()),
        super::ssd_config(128 * 1024),
        super::settings(),
    )
    .unwrap()
    .0
}
