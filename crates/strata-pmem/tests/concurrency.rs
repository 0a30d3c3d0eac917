//! Threads allocating, writing and freeing at once on a real mapped file;
//! then a clean close and a reopen that finds exactly what was kept.

use crate::common;

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use strata_pmem::{PersistPolicy, PersistentArena, PmemError};

const CHUNK: u64 = 64 << 10;
const KIND: u64 = 0xC0C0;
const THREADS: u32 = 4;

#[test]
fn concurrent_allocation_keeps_the_table_consistent() {
    let dir = common::scratch_dir();
    let path = dir.path().join("arena");
    let size = 4096 * 2 + 64 * CHUNK;
    let arena =
        Arc::new(PersistentArena::create(&path, size, CHUNK, KIND, PersistPolicy::Auto).unwrap());
    let handles: Vec<_> = (0..THREADS)
        .map(|owner| {
            let arena = Arc::clone(&arena);
            std::thread::spawn(move || {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(u64::from(owner));
                let mut held = Vec::new();
                for step in 0..150u32 {
                    if held.len() > 3 || (rng.gen_bool(0.4) && !held.is_empty()) {
                        let run = held.swap_remove(rng.gen_range(0..held.len()));
                        arena.free(&run).unwrap();
                        continue;
                    }
                    match arena.alloc(owner, rng.gen_range(1..4)) {
                        Ok(run) => {
                            let stamp = (owner * 1000 + step).to_le_bytes();
                            arena.write(&run, run.len() - 4, &stamp).unwrap();
                            arena.persist(&run, run.len() - 4, 4).unwrap();
                            held.push(run);
                        }
                        Err(PmemError::Full { .. }) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
                held
            })
        })
        .collect();
    let kept: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    arena.verify().unwrap();
    let arena = Arc::into_inner(arena).unwrap();
    let mut stamps = Vec::new();
    for run in kept.iter().flatten() {
        let mut stamp = [0u8; 4];
        arena.read(run, run.len() - 4, &mut stamp).unwrap();
        stamps.push(stamp);
    }
    arena.close_clean().unwrap();

    let arena = PersistentArena::open(&path, KIND, PersistPolicy::Auto).unwrap();
    assert!(arena.was_clean());
    arena.verify().unwrap();
    for (owner, held) in kept.iter().enumerate() {
        let mut expected = held.clone();
        expected.sort();
        assert_eq!(arena.owned_by(owner as u32).unwrap(), expected);
    }
    for (run, stamp) in kept.iter().flatten().zip(stamps) {
        let mut found = [0u8; 4];
        arena.read(run, run.len() - 4, &mut found).unwrap();
        assert_eq!(found, stamp);
    }
}
