//! Users of one store: another user's runs live in blocks of their own,
//! are counted per user, never meet the primary user's scan or
//! defragmenter, survive a restart when their owner marks them, are freed
//! when it does not, and a power cut never hands back a run's entry with
//! other bytes than were appended.

use crate::common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::*;
use strata_device::MemBlockDevice;
use strata_ssd::{BlockLoc, SsdError, SsdStore, StoreUser, UserSpace};

const RUN_KIND: u8 = 9;

fn other() -> StoreUser {
    StoreUser::from_code(1).unwrap()
}

/// Payloads of a run: sizes up to most of a block, so it spans blocks.
pub(crate) fn run_payloads(n: u32, seed: u64) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            payload(
                10_000 + i,
                seed,
                (i as usize * 7_919 + seed as usize) % 40_000,
            )
        })
        .collect()
}

pub(crate) fn append_run(
    store: &SsdStore,
    payloads: &[Vec<u8>],
) -> Result<Vec<BlockLoc>, SsdError> {
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    store.append_run(other(), RUN_KIND, &refs)
}

fn space(store: &SsdStore, user: StoreUser) -> UserSpace {
    let users = store.stats().users;
    assert_eq!(users[0].user, StoreUser::KV, "the primary user comes first");
    users
        .into_iter()
        .find(|u| u.user == user)
        .unwrap_or(UserSpace {
            user,
            blocks: 0,
            bytes_used: 0,
            bytes_live: 0,
        })
}

/// Rebuilds the engine's index (the scan must deliver only its own
/// entries: `decode` checks every payload it sees) and marks `run` live.
pub(crate) fn recover_with(
    device: &MemBlockDevice,
    run: &[(BlockLoc, usize)],
) -> Result<Engine, SsdError> {
    let mut recovery = SsdStore::open(Arc::new(device.clone()), config())?;
    let mut index = std::collections::BTreeMap::new();
    recovery.scan(|loc, kind, bytes| {
        assert_ne!(kind, RUN_KIND, "a run's entry reached the scan");
        let (key, _) = decode(bytes);
        index.insert(
            key,
            Slot {
                loc,
                len: bytes.len(),
                kind,
            },
        );
    })?;
    recovery.set_live_many(index.values().map(|s| (s.loc, s.len)))?;
    recovery.set_live_many(run.iter().copied())?;
    Ok(Engine {
        store: recovery.finish()?,
        index,
    })
}

#[test]
fn runs_have_blocks_of_their_own_counted_per_user() {
    let device = mem_device(24);
    let mut engine = Engine::new(open_empty(&device, config()));
    for key in 0..40 {
        engine.put(key, 1, 900).unwrap();
    }
    let payloads = run_payloads(9, 1);
    let locs = append_run(&engine.store, &payloads).unwrap();
    for key in 40..80 {
        engine.put(key, 1, 900).unwrap();
    }
    let run_blocks: BTreeSet<u32> = locs.iter().map(|l| l.block).collect();
    let kv_blocks: BTreeSet<u32> = engine.index.values().map(|s| s.loc.block).collect();
    assert!(run_blocks.len() >= 2, "the run spans blocks");
    assert!(run_blocks.is_disjoint(&kv_blocks), "no block is shared");
    let cached = engine.store.stats().cache.entries;
    for (loc, bytes) in locs.iter().zip(&payloads) {
        assert_eq!(engine.store.read(*loc).unwrap(), *bytes);
    }
    let stats = engine.store.stats();
    assert_eq!(
        stats.cache.entries, cached,
        "the record cache is the primary's"
    );
    assert!(stats.device_reads >= payloads.len() as u64);
    let run_live: u64 = payloads.iter().map(|p| footprint(p.len())).sum();
    let mine = space(&engine.store, other());
    assert_eq!(mine.blocks, run_blocks.len() as u64);
    assert_eq!(mine.bytes_live, run_live);
    let kv = space(&engine.store, StoreUser::KV);
    assert_eq!(kv.bytes_live, engine.live_bytes());
    assert_eq!(kv.blocks, kv_blocks.len() as u64);
    let stats = engine.store.stats();
    assert_eq!(stats.bytes_live, kv.bytes_live + mine.bytes_live);

    // Half-dead run blocks are never the primary's defrag candidates.
    for (loc, bytes) in locs.iter().zip(&payloads).skip(1).step_by(2) {
        engine.store.release(*loc, bytes.len()).unwrap();
    }
    for block in engine.store.defrag_candidates(100) {
        assert!(!run_blocks.contains(&block));
        assert!(!engine
            .store
            .is_defrag_candidate(*run_blocks.first().unwrap(), 100));
    }
    let first = *run_blocks.first().unwrap();
    assert!(matches!(
        engine.store.entries(first),
        Err(SsdError::Misuse(_))
    ));
    engine.defrag(100, 100).unwrap();
    for (loc, bytes) in locs.iter().zip(&payloads).step_by(2) {
        assert_eq!(engine.store.read(*loc).unwrap(), *bytes);
    }

    // Releasing the rest frees the run's blocks at the next flush.
    for (loc, bytes) in locs.iter().zip(&payloads).step_by(2) {
        engine.store.release(*loc, bytes.len()).unwrap();
    }
    engine.store.flush().unwrap();
    assert_eq!(space(&engine.store, other()).blocks, 0);
    for key in 0..80 {
        assert_eq!(engine.get(key), Some(1));
    }
}

#[test]
fn marked_runs_survive_a_restart_and_unmarked_ones_are_freed() {
    let device = mem_device(24);
    let mut engine = Engine::new(open_empty(&device, config()));
    for key in 0..30 {
        engine.put(key, 1, 500).unwrap();
    }
    let kept = run_payloads(6, 2);
    let kept_locs = append_run(&engine.store, &kept).unwrap();
    let dropped = run_payloads(4, 3);
    append_run(&engine.store, &dropped).unwrap();
    engine.store.flush().unwrap();
    let before = space(&engine.store, other());
    drop(engine);

    let marks: Vec<(BlockLoc, usize)> = kept_locs
        .iter()
        .zip(&kept)
        .map(|(l, p)| (*l, p.len()))
        .collect();
    let engine = recover_with(&device.crash(), &marks).unwrap();
    for key in 0..30 {
        assert_eq!(engine.get(key), Some(1));
    }
    for (loc, bytes) in kept_locs.iter().zip(&kept) {
        assert_eq!(engine.store.read(*loc).unwrap(), *bytes);
    }
    let after = space(&engine.store, other());
    let kept_live: u64 = kept.iter().map(|p| footprint(p.len())).sum();
    assert_eq!(after.bytes_live, kept_live);
    assert!(
        after.blocks < before.blocks,
        "the unmarked run's blocks were freed"
    );
    assert_eq!(
        engine.store.stats().rebuild.entries,
        30,
        "only the primary's entries scanned"
    );
}

#[test]
fn a_power_cut_before_the_flush_never_returns_other_bytes() {
    let (mut kept, mut lost) = (0, 0);
    for seed in 0..24u64 {
        let device = mem_device(24);
        let mut engine = Engine::new(open_empty(&device, config()));
        for key in 0..20 {
            engine.put(key, 1, 700).unwrap();
        }
        engine.store.flush().unwrap();
        let payloads = run_payloads(8, seed);
        let locs = append_run(&engine.store, &payloads).unwrap();
        for key in 20..25 {
            engine.put(key, 1, 700).unwrap();
        }
        drop(engine);
        let cut = if seed % 3 == 0 {
            device.crash()
        } else {
            device.crash_torn(seed)
        };
        // Each of the run's entries comes back whole or is refused.
        let mut recovery = SsdStore::open(Arc::new(cut.clone()), config()).unwrap();
        let mut index = std::collections::BTreeMap::new();
        recovery
            .scan(|loc, kind, bytes| {
                assert_ne!(kind, RUN_KIND);
                let (key, _) = decode(bytes);
                index.insert(key, (loc, bytes.len()));
            })
            .unwrap();
        recovery.set_live_many(index.values().copied()).unwrap();
        let marked: Vec<bool> = locs
            .iter()
            .zip(&payloads)
            .map(|(loc, p)| recovery.set_live(*loc, p.len()).is_ok())
            .collect();
        let store = recovery.finish().unwrap();
        for key in 0..20 {
            assert!(
                index.contains_key(&key),
                "seed {seed}: flushed key {key} lost"
            );
        }
        for ((loc, bytes), marked) in locs.iter().zip(&payloads).zip(marked) {
            if marked {
                assert_eq!(store.read(*loc).unwrap(), *bytes, "seed {seed}");
                kept += 1;
            } else {
                lost += 1;
            }
        }
    }
    assert!(
        kept > 0 && lost > 0,
        "the cuts kept {kept} entries and lost {lost}"
    );
}

#[test]
fn a_run_that_does_not_fit_is_refused_whole() {
    let device = mem_device(8);
    let mut engine = Engine::new(open_empty(&device, config()));
    engine.put(1, 1, 100).unwrap();
    let free_before = engine.store.stats().blocks_free;
    let big = run_payloads(12, 4);
    match append_run(&engine.store, &big) {
        Err(SsdError::Full { .. }) => {}
        other => panic!("{other:?}"),
    }
    let stats = engine.store.stats();
    assert_eq!(stats.blocks_free, free_before, "no block taken");
    assert_eq!(space(&engine.store, other()).blocks, 0);
    engine.put(2, 1, 100).unwrap();

    let too_large = vec![vec![0u8; engine.store.max_payload() + 1]];
    assert!(matches!(
        append_run(&engine.store, &too_large),
        Err(SsdError::TooLarge { .. })
    ));
    let refs: Vec<&[u8]> = vec![b"x"];
    assert!(matches!(
        engine.store.append_run(StoreUser::KV, RUN_KIND, &refs),
        Err(SsdError::Misuse(_))
    ));
    assert_eq!(
        append_run(&engine.store, &[]).unwrap(),
        Vec::<BlockLoc>::new()
    );
}

#[test]
fn an_older_run_never_holds_back_the_primarys_tombstones() {
    let device = mem_device(32);
    let mut engine = Engine::new(open_empty(&device, config()));
    // The run's blocks come before any of the primary's.
    let payloads = run_payloads(4, 3);
    let locs = append_run(&engine.store, &payloads).unwrap();
    let run_seq = engine.store.block_seq(locs[0].block).unwrap();
    for key in 0..100 {
        engine.put(key, 1, 900).unwrap();
    }
    let first_seq = engine.store.block_seq(engine.index[&0].loc.block).unwrap();
    assert!(run_seq < first_seq);
    assert_eq!(
        engine.store.oldest_seq(),
        Some(first_seq),
        "the oldest block of the primary, not the run's"
    );
    // Every key deleted, then more records to seal the tombstones' block.
    for key in 0..100 {
        engine.delete(key, 2).unwrap();
    }
    for key in 1000..1100 {
        engine.put(key, 1, 900).unwrap();
    }
    engine.store.flush().unwrap();
    // A tombstone reaching the oldest primary block is dropped, not moved
    // on for ever behind the run.
    for _ in 0..40 {
        if engine.defrag(100, 4).unwrap() == 0 {
            break;
        }
        engine.store.flush().unwrap();
    }
    let kept = (engine.index.values())
        .filter(|s| s.kind == TOMBSTONE)
        .count();
    assert_eq!(kept, 0, "tombstones kept");
    for key in 1000..1100 {
        assert_eq!(engine.get(key), Some(1));
    }
    for (loc, bytes) in locs.iter().zip(&payloads) {
        assert_eq!(engine.store.read(*loc).unwrap(), *bytes);
    }
}
