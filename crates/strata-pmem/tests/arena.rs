//! The arena as an engine uses it: chunk access, the publish protocol
//! across a crash, stats, running out of chunks.

use crate::common;

use std::sync::atomic::Ordering;

use strata_pmem::{PersistMode, PersistPolicy, PersistentArena, PmemError};

const CHUNK: u64 = 64 << 10;
const KIND: u64 = 0xDA7A;

/// Room for exactly `chunks` chunks (a table of one page).
fn size_for(chunks: u64) -> u64 {
    4096 * 2 + chunks * CHUNK
}

#[test]
fn running_out_of_chunks_is_full_never_a_panic() {
    let arena = PersistentArena::simulated(size_for(8), CHUNK, KIND).unwrap();
    assert_eq!(arena.chunk_count(), 8);
    let runs: Vec<_> = (0..8).map(|_| arena.alloc(1, 1).unwrap()).collect();
    match arena.alloc(1, 1) {
        Err(PmemError::Full {
            requested: 1,
            free: 0,
            largest: 0,
        }) => {}
        other => panic!("expected Full, got {other:?}"),
    }
    for run in runs.iter().step_by(2) {
        arena.free(run).unwrap();
    }
    match arena.alloc(2, 2) {
        Err(
            e @ PmemError::Full {
                requested: 2,
                free: 4,
                largest: 1,
            },
        ) => {
            assert!(e.to_string().contains("full"), "{e}");
        }
        other => panic!("fragmented: expected Full, got {other:?}"),
    }
    assert!(matches!(arena.alloc(2, 9), Err(PmemError::Full { .. })));
    assert!(matches!(
        arena.alloc(2, 0),
        Err(PmemError::InvalidRun { .. })
    ));
    for run in runs.iter().skip(1).step_by(2) {
        arena.free(run).unwrap();
    }
    let all = arena.alloc(3, 8).unwrap();
    assert_eq!((all.first(), all.len()), (0, 8 * CHUNK));
    assert_eq!(arena.used_bytes(), arena.capacity_bytes());
}

#[test]
fn chunk_access_is_relative_and_bounded() {
    let arena = PersistentArena::simulated(size_for(4), CHUNK, KIND).unwrap();
    let a = arena.alloc(1, 1).unwrap();
    let b = arena.alloc(1, 2).unwrap();
    arena.write(&b, 2 * CHUNK - 5, b"edge!").unwrap();
    arena.persist(&b, 2 * CHUNK - 5, 5).unwrap();
    let mut buf = [0u8; 5];
    arena.read(&b, 2 * CHUNK - 5, &mut buf).unwrap();
    assert_eq!(&buf, b"edge!");
    assert!(matches!(
        arena.write(&a, CHUNK - 4, &[0; 8]),
        Err(PmemError::OutOfBounds { limit: CHUNK, .. })
    ));
    assert!(matches!(
        arena.atomic_u64(&a, 4),
        Err(PmemError::Misaligned { offset: 4 })
    ));
    assert!(arena.atomic_u64(&a, CHUNK).is_err());
    assert!(arena.persist(&b, 0, 2 * CHUNK + 1).is_err());
    // A run of a bigger arena does not fit this one.
    let big = PersistentArena::simulated(size_for(16), CHUNK, KIND).unwrap();
    let foreign = big.alloc(1, 16).unwrap();
    assert!(matches!(
        arena.read(&foreign, 0, &mut buf),
        Err(PmemError::InvalidRun { .. })
    ));
    assert!(matches!(
        arena.free(&foreign),
        Err(PmemError::InvalidRun { .. })
    ));
}

#[test]
fn a_record_published_after_its_persist_survives_any_crash() {
    let arena = PersistentArena::simulated(size_for(4), CHUNK, KIND).unwrap();
    let run = arena.alloc(7, 1).unwrap();
    for round in 0..4u64 {
        let offset = round * 1024 + 8;
        let record = [round as u8 + 1; 100];
        arena.write(&run, offset, &record).unwrap();
        arena.persist(&run, offset, record.len() as u64).unwrap();
        arena
            .atomic_u64(&run, 0)
            .unwrap()
            .store(offset, Ordering::Release);
        // Not persisted yet: a crash may or may not keep the new pointer,
        // but whichever it keeps points at a complete record.
        for seed in 0..8 {
            let after =
                PersistentArena::open_simulated(arena.crash_torn(seed).unwrap(), KIND).unwrap();
            let run = after.owned_by(7).unwrap()[0];
            let at = after.atomic_u64(&run, 0).unwrap().load(Ordering::Acquire);
            if at != 0 {
                let mut found = [0u8; 100];
                after.read(&run, at, &mut found).unwrap();
                assert_eq!(found, [((at - 8) / 1024) as u8 + 1; 100]);
            }
        }
        arena.persist(&run, 0, 8).unwrap();
        arena.set_root(0, run.offset()).unwrap();
    }
    let after = PersistentArena::open_simulated(arena.crash().unwrap(), KIND).unwrap();
    assert_eq!(after.root(0).unwrap(), run.offset());
}

#[test]
fn stats_say_plainly_what_the_memory_is() {
    let dir = common::scratch_dir();
    let path = dir.path().join("arena");
    let arena =
        PersistentArena::create(&path, size_for(6), CHUNK, KIND, PersistPolicy::Auto).unwrap();
    arena.alloc(1, 2).unwrap();
    let stats = arena.stats();
    assert_eq!(stats.persist_mode, PersistMode::Emulated);
    assert!(stats.emulated && stats.emulation_reason.is_some());
    assert_eq!(stats.persist_mode.to_string(), "emulated (msync)");
    assert_eq!((stats.chunk_count, stats.free_chunks), (6, 4));
    assert_eq!(
        (stats.capacity_bytes, stats.used_bytes),
        (6 * CHUNK, 2 * CHUNK)
    );
    assert_eq!((stats.generation, stats.was_clean), (1, true));
    assert_eq!(stats.file, path.display().to_string());
    assert!(matches!(arena.crash(), Err(PmemError::NotSimulated)));
    let sim = PersistentArena::simulated(size_for(1), CHUNK, KIND).unwrap();
    assert_eq!(sim.persist_mode(), PersistMode::Simulated);
    assert!(sim.is_emulated());
}
