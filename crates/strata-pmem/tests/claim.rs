//! Claimed runs: plain byte access for one owner, exclusive against every
//! other view, and persisted bytes surviving a power cut.

use std::sync::Arc;

use strata_pmem::{PersistentArena, PmemError};

const CHUNK: u64 = 64 << 10;
const KIND: u64 = 0xC1A1;

fn arena(chunks: u64) -> Arc<PersistentArena> {
    Arc::new(PersistentArena::simulated(4096 * 2 + chunks * CHUNK, CHUNK, KIND).unwrap())
}

fn is_claimed(result: Result<impl Sized, PmemError>) -> bool {
    matches!(result, Err(PmemError::InvalidRun { ref reason, .. }) if reason.contains("claimed"))
}

#[test]
fn a_claim_is_exclusive_until_dropped() {
    let arena = arena(4);
    let run = arena.alloc(7, 2).unwrap();
    let claim = arena.claim(run).unwrap();
    assert_eq!(claim.len() as u64, 2 * CHUNK);
    assert!(is_claimed(arena.claim(run)), "a second claim");
    let mut buf = [0u8; 8];
    assert!(is_claimed(arena.read(&run, 0, &mut buf)));
    assert!(is_claimed(arena.write(&run, 0, &buf)));
    assert!(is_claimed(arena.atomic_u64(&run, 0)));
    assert!(is_claimed(arena.run_words(&run)));
    assert!(is_claimed(arena.free(&run)));
    // Another run is unaffected.
    let other = arena.alloc(7, 1).unwrap();
    arena.write(&other, 0, b"elsewhr!").unwrap();
    drop(claim);
    arena.read(&run, 0, &mut buf).unwrap();
    arena.free(&run).unwrap();
}

#[test]
fn claims_of_neighbouring_runs_coexist() {
    let arena = arena(4);
    let a = arena.alloc(1, 1).unwrap();
    let b = arena.alloc(1, 2).unwrap();
    let mut ca = arena.claim(a).unwrap();
    let mut cb = arena.claim(b).unwrap();
    ca.bytes_mut().fill(0xAA);
    cb.bytes_mut().fill(0xBB);
    assert!(ca.bytes().iter().all(|&x| x == 0xAA));
    assert!(cb.bytes().iter().all(|&x| x == 0xBB));
}

#[test]
fn persisted_bytes_survive_a_power_cut_and_unpersisted_ones_may_not() {
    let arena = arena(2);
    let run = arena.alloc(3, 1).unwrap();
    let mut claim = arena.claim(run).unwrap();
    claim.bytes_mut()[..5].copy_from_slice(b"kept!");
    claim.persist(0, 5).unwrap();
    claim.bytes_mut()[4096..4100].copy_from_slice(b"lost");
    let image = arena.crash().unwrap();
    drop(claim);
    let reopened = Arc::new(PersistentArena::open_simulated(image, KIND).unwrap());
    let runs = reopened.owned_by(3).unwrap();
    assert_eq!(runs, vec![run]);
    let claim = reopened.claim(runs[0]).unwrap();
    assert_eq!(&claim.bytes()[..5], b"kept!");
    assert_eq!(&claim.bytes()[4096..4100], &[0, 0, 0, 0]);
}
