//! Large collections (head and chunk records, `strata_kv::chunk`) across
//! restarts in every placement that persists: records in persistent
//! memory (index adopted or rebuilt), and records on the SSD tier (index
//! rebuilt from the device, or adopted from persistent memory). Chunks come
//! back in their namespace (a user key with a chunk's bytes stays apart),
//! dropped chunks stay dropped (tombstones of both namespaces), and the
//! defragmenter moves chunks and their tombstones like any entry. Lists
//! (a ring of chunks whose first number moves below 0 and wraps) come
//! back in order, renamed ones too.

use std::sync::Arc;

use strata_device::MemBlockDevice;
use strata_kv::chunk::chunk_key;
use strata_kv::large::{Deque, Side};
use strata_kv::{
    DataTier, IndexTier, Keyspace, KeyspaceConfig, NewItem, Placement, Store, ValueKind,
};
use strata_pmem::{PersistentArena, SimulatedPmem};

use crate::common;

use common::large::{assert_chunks_whole, contents, crash_pmem, new_arena, Contents};

const KIND: u64 = 0x57_4B56;

fn config() -> KeyspaceConfig {
    common::large::config(4)
}

fn chunk_value(key: &[u8], number: u32, round: u32) -> Vec<u8> {
    let mut v = format!("{}#{number}@{round}:", String::from_utf8_lossy(key)).into_bytes();
    v.resize(700 + (number as usize * 37) % 300, b'.');
    v
}

fn make(store: &mut impl Store, key: &[u8], chunks: u32, round: u32) {
    store
        .edit_large(key, |edit| {
            for n in 0..chunks {
                edit.put_chunk(n, ValueKind::Set, &chunk_value(key, n, round))?;
            }
            edit.put_head(ValueKind::Set, chunks, format!("r{round}").as_bytes(), None)
        })
        .unwrap()
        .unwrap();
}

fn workload(ks: &Keyspace, round: u32) {
    let mut store = ks.store();
    for i in 0..12u32 {
        let key = format!("c{i}").into_bytes();
        make(&mut store, &key, 3 + (i * 7 + round) % 20, round);
    }
    // One chunk and the head changed.
    store
        .edit_large(b"c1", |edit| {
            edit.put_chunk(1, ValueKind::Set, b"one chunk changed")?;
            edit.put_head(ValueKind::Set, 2, b"shrunk", None)
        })
        .unwrap()
        .unwrap();
    store.delete(b"c2").unwrap();
    store.rename(b"c3", b"renamed", false).unwrap();
    let twin = chunk_key(b"c4", 0);
    let item = NewItem {
        value: b"a user key".as_slice().into(),
        flags: 0,
        expires_at: None,
    };
    store.set(&twin, item).unwrap();
    store.delete(&chunk_key(b"c5", 0)).unwrap(); // a user key: nothing to delete
    lists(&mut store, round);
}

/// A list pushed at both ends (its first chunk number wraps below 0) and
/// popped, renamed over the last round's; one emptied (deleted).
fn lists(store: &mut impl Store, round: u32) {
    for key in [&b"queue"[..], b"emptied"] {
        store
            .edit_large(key, |edit| {
                let mut deque = match Deque::open(edit)? {
                    Some(d) => d,
                    None => Deque::create(edit, None),
                };
                for i in 0..300 {
                    let pad = ".".repeat(i % 50);
                    deque.push(Side::Front, format!("f{round}:{i}{pad}").as_bytes())?;
                    deque.push(Side::Back, format!("b{round}:{i}{pad}").as_bytes())?;
                }
                for _ in 0..100 {
                    deque.pop(Side::Back)?;
                }
                deque.finish()
            })
            .unwrap()
            .unwrap();
    }
    store
        .edit_large(b"emptied", |edit| {
            let mut deque = Deque::open(edit)?.unwrap();
            let n = deque.len();
            deque.drop_n(Side::Front, n)?;
            deque.finish()
        })
        .unwrap()
        .unwrap();
    store.rename(b"queue", b"moved-queue", false).unwrap();
}

fn check_clean(ks: &Keyspace, before: &Contents) {
    assert_eq!(&contents(ks), before);
    assert_chunks_whole(ks);
    assert_eq!(ks.store().len(), before.len() as u64);
}

fn open_pmem(arena: PersistentArena, placement: Placement) -> Arc<Keyspace> {
    common::large::open_pmem(config(), arena, placement)
}

fn reopen_pmem(image: SimulatedPmem, placement: Placement) -> Arc<Keyspace> {
    open_pmem(
        PersistentArena::open_simulated(image, KIND).unwrap(),
        placement,
    )
}

/// The placements with records in persistent memory.
const PMEM_DATA: [Placement; 2] = [
    Placement {
        index: IndexTier::Pmem,
        data: DataTier::Pmem,
    },
    Placement {
        index: IndexTier::Dram,
        data: DataTier::Pmem,
    },
];

/// A new keyspace in `placement` holding `n` small strings.
fn with_strings(placement: Placement, n: u32) -> Arc<Keyspace> {
    let ks = open_pmem(new_arena(KIND), placement);
    for i in 0..n {
        let item = NewItem {
            value: format!("v{i}").into_bytes().into(),
            flags: 0,
            expires_at: None,
        };
        ks.store().set(format!("s{i}").as_bytes(), item).unwrap();
    }
    ks
}

#[test]
fn large_collections_survive_restarts_in_pmem() {
    for placement in PMEM_DATA {
        let mut ks = open_pmem(new_arena(KIND), placement);
        for round in 0..3 {
            workload(&ks, round);
            ks.run_maintenance();
            let before = contents(&ks);
            ks = reopen_pmem(crash_pmem(ks), placement);
            check_clean(&ks, &before);
            ks.run_maintenance();
            check_clean(&ks, &before);
        }
    }
}

/// The keyspace directory's chunk mark: a keyspace that never held a
/// large collection restarts without reading its records to count chunk
/// entries; the first chunk clears the mark durably before it is written,
/// so a crash right after still counts them (items exclude chunks), and
/// the mark stays cleared once the collection is gone.
#[test]
fn restarts_count_chunks_only_once_one_was_written() {
    for placement in PMEM_DATA {
        let counted = |ks: &Keyspace| ks.tier().unwrap().restart_report().unwrap().chunks_counted;
        let ks = with_strings(placement, 50);
        let ks = reopen_pmem(crash_pmem(ks), placement);
        assert!(!counted(&ks), "{placement}: no chunk was ever written");
        assert_eq!(ks.store().len(), 50);

        make(&mut ks.store(), b"big", 5, 0);
        let before = contents(&ks);
        let ks = reopen_pmem(crash_pmem(ks), placement);
        assert!(
            counted(&ks),
            "{placement}: the mark was cleared before the chunks"
        );
        check_clean(&ks, &before);
        assert_eq!(ks.store().len(), 51);

        ks.store().delete(b"big").unwrap();
        let ks = reopen_pmem(crash_pmem(ks), placement);
        assert!(counted(&ks), "{placement}: the mark stays cleared");
        assert_eq!(ks.store().len(), 50);
    }
}

/// A torn power cut at each persist of the first large collection's
/// write: whatever survives, the restart's item count is the user keys it
/// finds (a chunk that survived the cut was written after the cleared
/// mark was persisted, so the restart counted it).
#[test]
fn a_power_cut_during_the_first_chunks_keeps_the_item_count() {
    for placement in PMEM_DATA {
        for cut in 0..16u64 {
            let ks = with_strings(placement, 20);
            let arena = ks.tier().unwrap().arena().clone();
            arena.simulation().unwrap().cut_power_after(cut);
            make(&mut ks.store(), b"big", 6, 0);
            let image = arena.crash_torn(cut).unwrap();
            drop(ks);
            drop(arena);
            let ks = reopen_pmem(image, placement);
            let found = common::large::keys(&mut ks.store());
            assert!(
                found.len() >= 20,
                "{placement}, cut {cut}: {} keys",
                found.len()
            );
            assert_eq!(
                ks.store().len(),
                found.len() as u64,
                "{placement}, cut {cut}"
            );
        }
    }
}

fn open_ssd(device: &MemBlockDevice, arena: Option<PersistentArena>) -> Arc<Keyspace> {
    common::large::open_ssd(config(), device, arena)
}

#[test]
fn large_collections_survive_restarts_on_the_ssd_tier() {
    for pmem_index in [false, true] {
        let mut device = MemBlockDevice::new(160 * common::BLOCK);
        let mut ks = open_ssd(&device, pmem_index.then(|| new_arena(KIND)));
        for round in 0..4 {
            workload(&ks, round);
            // The defragmenter moves chunks and tombstones of both kinds.
            ks.run_maintenance();
            ks.sync_ssd();
            let before = contents(&ks);
            let arena = ks.tier().map(|t| t.arena().clone());
            let image = arena.as_ref().map(|a| a.crash().unwrap());
            device = device.crash();
            drop(ks);
            drop(arena);
            let arena = image.map(|i| PersistentArena::open_simulated(i, KIND).unwrap());
            ks = open_ssd(&device, arena);
            check_clean(&ks, &before);
        }
    }
}
