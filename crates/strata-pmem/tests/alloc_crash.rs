//! Exhaustive crash points: a power cut before every single persist of an
//! allocation of a 3-chunk run, of its free, and of the recovery sweep,
//! each checked with the strict image and with torn images.

use strata_pmem::{ChunkRun, PersistentArena, SimulatedPmem};

const SIZE: u64 = 1 << 20;
const CHUNK: u64 = 64 << 10;
const KIND: u64 = 0xA110C;
const OWNER: u32 = 0x0005_0001;
const TORN_SEEDS: u64 = 32;

/// An arena with chunk 0 taken, so the run under test starts at chunk 1.
fn arena() -> PersistentArena {
    let arena = PersistentArena::simulated(SIZE, CHUNK, KIND).unwrap();
    arena.alloc(1, 1).unwrap();
    arena
}

fn sim(arena: &PersistentArena) -> &SimulatedPmem {
    arena.simulation().unwrap()
}

/// Persist calls `op` makes on a fresh arena.
fn persists_of(op: impl Fn(&PersistentArena)) -> u64 {
    let arena = arena();
    let before = sim(&arena).persist_count();
    op(&arena);
    sim(&arena).persist_count() - before
}

/// Every image a power cut during `op` can leave, after `cut` persists.
fn images(arena: &PersistentArena) -> Vec<SimulatedPmem> {
    let mut images = vec![arena.crash().unwrap()];
    images.extend((0..TORN_SEEDS).map(|seed| arena.crash_torn(seed).unwrap()));
    images
}

/// Reopens `image` and returns the runs of OWNER, after checking that the
/// table and free list agree and no chunk is lost.
fn reopen(image: SimulatedPmem) -> (PersistentArena, Vec<ChunkRun>) {
    let arena = PersistentArena::open_simulated(image, KIND).unwrap();
    arena.verify().unwrap();
    let allocated: u64 = arena.allocated().unwrap().iter().map(ChunkRun::count).sum();
    assert_eq!(arena.free_chunks() + allocated, arena.chunk_count());
    let runs = arena.owned_by(OWNER).unwrap();
    (arena, runs)
}

#[test]
fn a_crash_at_every_persist_of_a_run_allocation() {
    let steps = persists_of(|a| {
        a.alloc(OWNER, 3).unwrap();
    });
    assert_eq!(steps, 2, "continuations, then the head");
    let mut outcomes = [false; 2]; // cut 1, torn: [absent, present] seen
    for cut in 0..=steps {
        let arena = arena();
        sim(&arena).cut_power_after(cut);
        let run = arena.alloc(OWNER, 3).unwrap();
        assert_eq!((run.first(), run.count()), (1, 3));
        for (i, image) in images(&arena).into_iter().enumerate() {
            let (_, runs) = reopen(image);
            match cut {
                c if c == steps => assert_eq!(runs, vec![run], "completed alloc lost"),
                // Before the head's persist: the unpersisted head may have
                // been evicted (torn images), never a partial run.
                1 if i > 0 => {
                    assert!(runs.is_empty() || runs == vec![run], "{runs:?}");
                    outcomes[runs.len()] = true;
                }
                _ => assert!(runs.is_empty(), "cut {cut} image {i}: {runs:?}"),
            }
        }
    }
    assert_eq!(
        outcomes,
        [true, true],
        "torn images should show both outcomes"
    );
}

#[test]
fn a_crash_at_every_persist_of_a_run_free() {
    let steps = persists_of(|a| {
        let run = a.alloc(OWNER, 3).unwrap();
        let before = a.simulation().unwrap().persist_count();
        a.free(&run).unwrap();
        assert_eq!(
            a.simulation().unwrap().persist_count() - before,
            2,
            "head, then continuations"
        );
    });
    assert_eq!(steps, 4);
    let mut outcomes = [false; 2]; // cut 0, torn: [freed, still allocated] seen
    for cut in 0..=2 {
        let arena = arena();
        let run = arena.alloc(OWNER, 3).unwrap();
        sim(&arena).cut_power_after(cut);
        arena.free(&run).unwrap();
        for (i, image) in images(&arena).into_iter().enumerate() {
            let (after, runs) = reopen(image);
            match cut {
                0 if i == 0 => assert_eq!(runs, vec![run]),
                0 => {
                    assert!(runs.is_empty() || runs == vec![run], "{runs:?}");
                    outcomes[runs.len()] = true;
                }
                _ => assert!(runs.is_empty(), "cut {cut} image {i}: {runs:?}"),
            }
            if runs.is_empty() {
                // The freed chunks are usable again, as one run.
                assert_eq!(after.alloc(9, 3).unwrap().first(), 1);
            }
        }
    }
    assert_eq!(
        outcomes,
        [true, true],
        "torn images should show both outcomes"
    );
}

#[test]
fn a_crash_during_the_recovery_sweep_is_harmless() {
    // An image with orphaned continuations: the head never became durable.
    let arena = arena();
    sim(&arena).cut_power_after(1);
    arena.alloc(OWNER, 4).unwrap();
    let orphaned = arena.crash().unwrap();
    let steps = {
        let probe = orphaned.crash();
        let before = probe.persist_count();
        let reopened = PersistentArena::open_simulated(probe, KIND).unwrap();
        reopened.simulation().unwrap().persist_count() - before
    };
    assert_eq!(steps, 2, "clean flag and generation, then the sweep");
    for cut in 0..=steps {
        let image = orphaned.crash();
        image.cut_power_after(cut);
        let recovering = PersistentArena::open_simulated(image, KIND).unwrap();
        for image in images(&recovering) {
            let (_, runs) = reopen(image);
            assert!(runs.is_empty(), "cut {cut}: {runs:?}");
        }
    }
}
