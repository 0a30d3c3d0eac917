//! The header: corruption, versions, kinds, sizes, the clean flag, roots
//! and crash-safe creation.

use crate::common;

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::Path;

use strata_pmem::{
    Backing, PersistPolicy, PersistentArena, PmemError, SimulatedPmem, IMMUTABLE_LEN, ROOT_SLOTS,
};

const SIZE: u64 = 1 << 20;
const CHUNK: u64 = 64 << 10;
const KIND: u64 = 0x1DE;
const AUTO: PersistPolicy = PersistPolicy::Auto;

fn xor_byte(path: &Path, offset: u64, mask: u8) {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut byte = [0u8];
    file.read_exact_at(&mut byte, offset).unwrap();
    byte[0] ^= mask;
    file.write_all_at(&byte, offset).unwrap();
}

fn new_arena_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("arena");
    PersistentArena::create(&path, SIZE, CHUNK, KIND, AUTO)
        .unwrap()
        .close_clean()
        .unwrap();
    path
}

#[test]
fn every_flipped_immutable_byte_is_detected() {
    let dir = common::scratch_dir();
    let path = new_arena_file(dir.path());
    for offset in 0..IMMUTABLE_LEN as u64 {
        for mask in [0x01, 0x80, 0xFF] {
            xor_byte(&path, offset, mask);
            let Err(err) = PersistentArena::open(&path, KIND, AUTO) else {
                panic!("flip {mask:#x} at byte {offset} went unnoticed")
            };
            let right = match offset {
                0..8 => matches!(err, PmemError::BadMagic { .. }),
                8..12 => matches!(err, PmemError::UnsupportedVersion { .. }),
                _ => matches!(err, PmemError::ChecksumMismatch { .. }),
            };
            assert!(right, "byte {offset} mask {mask:#x}: {err}");
            assert!(
                err.to_string().contains(&path.display().to_string()),
                "{err}"
            );
            xor_byte(&path, offset, mask);
        }
    }
    let arena = PersistentArena::open(&path, KIND, AUTO).unwrap();
    assert!(arena.was_clean(), "refused opens must not touch the arena");
}

#[test]
fn a_newer_version_is_refused_even_with_a_valid_checksum() {
    let dir = common::scratch_dir();
    let path = new_arena_file(dir.path());
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut fields = [0u8; IMMUTABLE_LEN];
    file.read_exact_at(&mut fields, 0).unwrap();
    fields[8..12].copy_from_slice(&2u32.to_le_bytes());
    let crc = crc32c::crc32c(&fields[..64]);
    fields[64..68].copy_from_slice(&crc.to_le_bytes());
    file.write_all_at(&fields, 0).unwrap();
    match PersistentArena::open(&path, KIND, AUTO) {
        Err(PmemError::UnsupportedVersion {
            found: 2,
            supported: 1,
            ..
        }) => {}
        other => panic!("expected UnsupportedVersion, got {:?}", other.err()),
    }
}

#[test]
fn a_different_kind_is_refused() {
    let dir = common::scratch_dir();
    let path = new_arena_file(dir.path());
    match PersistentArena::open(&path, KIND + 1, AUTO) {
        Err(PmemError::KindMismatch {
            expected, found, ..
        }) => {
            assert_eq!((expected, found), (KIND + 1, KIND));
        }
        other => panic!("expected KindMismatch, got {:?}", other.err()),
    }
}

#[test]
fn a_file_of_another_size_is_refused() {
    let dir = common::scratch_dir();
    let path = new_arena_file(dir.path());
    let file = OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(SIZE + 4096).unwrap();
    match PersistentArena::open(&path, KIND, AUTO) {
        Err(PmemError::SizeMismatch { header, actual, .. }) => {
            assert_eq!((header, actual), (SIZE, SIZE + 4096));
        }
        other => panic!("expected SizeMismatch, got {:?}", other.err()),
    }
    file.set_len(1024).unwrap();
    let short = PersistentArena::open(&path, KIND, AUTO);
    assert!(
        matches!(short, Err(PmemError::Corrupt { .. })),
        "{:?}",
        short.err()
    );
}

#[test]
fn the_clean_flag_tells_clean_from_unclean_shutdowns() {
    let dir = common::scratch_dir();
    let path = dir.path().join("arena");
    let arena = PersistentArena::create(&path, SIZE, CHUNK, KIND, AUTO).unwrap();
    assert!(arena.was_clean() && arena.generation() == 1);
    arena.close_clean().unwrap();
    let arena = PersistentArena::open(&path, KIND, AUTO).unwrap();
    assert!(arena.was_clean() && arena.generation() == 2);
    drop(arena); // a crash, as far as the arena knows
    let arena = PersistentArena::open(&path, KIND, AUTO).unwrap();
    assert!(!arena.was_clean() && arena.generation() == 3);
    drop(arena);
    let arena = PersistentArena::open(&path, KIND, AUTO).unwrap();
    assert!(
        !arena.was_clean(),
        "one clean close is needed to be clean again"
    );
    arena.close_clean().unwrap();
    let arena = PersistentArena::open(&path, KIND, AUTO).unwrap();
    assert!(arena.was_clean() && arena.generation() == 5);
}

#[test]
fn a_crash_is_unclean_even_right_after_open() {
    let arena = PersistentArena::simulated(SIZE, CHUNK, KIND).unwrap();
    let after = PersistentArena::open_simulated(arena.crash().unwrap(), KIND).unwrap();
    assert!(!after.was_clean());
    assert_eq!(after.generation(), 2);
}

#[test]
fn roots_are_published_and_survive_crashes() {
    let arena = PersistentArena::simulated(SIZE, CHUNK, KIND).unwrap();
    for index in 0..ROOT_SLOTS {
        assert_eq!(arena.root(index).unwrap(), 0);
        arena.set_root(index, index as u64 * 1000 + 1).unwrap();
    }
    assert!(matches!(
        arena.root(ROOT_SLOTS),
        Err(PmemError::RootOutOfRange { .. })
    ));
    assert!(arena.set_root(ROOT_SLOTS, 1).is_err());
    for seed in 0..4 {
        let after = PersistentArena::open_simulated(arena.crash_torn(seed).unwrap(), KIND).unwrap();
        for index in 0..ROOT_SLOTS {
            assert_eq!(after.root(index).unwrap(), index as u64 * 1000 + 1);
        }
    }
}

#[test]
fn a_crash_during_creation_leaves_no_arena_or_a_whole_one() {
    let steps = {
        let sim = SimulatedPmem::new(SIZE).unwrap();
        let arena = PersistentArena::create_on(Backing::Simulated(sim), CHUNK, KIND).unwrap();
        arena.simulation().unwrap().persist_count()
    };
    let mut first_whole = None;
    for cut in 0..=steps {
        let sim = SimulatedPmem::new(SIZE).unwrap();
        sim.write(0, &[0xEE; 8192]).unwrap(); // old contents, already durable
        sim.persist(0, 8192).unwrap();
        sim.cut_power_after(cut);
        let arena = PersistentArena::create_on(Backing::Simulated(sim), CHUNK, KIND).unwrap();
        // Strictly durable state: no arena until the magic is persisted,
        // a whole one from then on.
        match PersistentArena::open_simulated(arena.crash().unwrap(), KIND) {
            Ok(after) => {
                first_whole.get_or_insert(cut);
                after.verify().unwrap();
            }
            Err(PmemError::BadMagic { .. }) => assert!(first_whole.is_none(), "cut {cut}"),
            Err(e) => panic!("cut {cut}: {e}"),
        }
        // Any eviction of unpersisted words: still no arena or a whole one.
        for seed in 0..8 {
            match PersistentArena::open_simulated(arena.crash_torn(seed).unwrap(), KIND) {
                Ok(after) => {
                    assert_eq!(after.free_chunks(), after.chunk_count());
                    after.verify().unwrap();
                }
                Err(PmemError::BadMagic { .. }) => {}
                Err(e) => panic!("cut {cut} seed {seed}: {e}"),
            }
        }
    }
    assert_eq!(first_whole, Some(3), "zero, fields, then magic");
}

#[test]
fn an_unfinished_creation_is_replaced_and_open_or_create_reuses() {
    let dir = common::scratch_dir();
    let path = dir.path().join("arena");
    std::fs::write(dir.path().join("arena.creating"), b"left by a crash").unwrap();
    assert!(matches!(
        PersistentArena::open(&path, KIND, AUTO).map(drop),
        Err(PmemError::Io { .. })
    ));
    assert!(matches!(
        PersistentArena::create(&dir.path().join("no/such/dir"), SIZE, CHUNK, KIND, AUTO).map(drop),
        Err(PmemError::Io { .. })
    ));
    let arena = PersistentArena::open_or_create(&path, SIZE, CHUNK, KIND, AUTO).unwrap();
    assert!(!dir.path().join("arena.creating").exists());
    let run = arena.alloc(3, 2).unwrap();
    arena.close_clean().unwrap();
    let arena = PersistentArena::open_or_create(&path, 2 * SIZE, CHUNK, KIND, AUTO).unwrap();
    assert_eq!(arena.owned_by(3).unwrap(), vec![run]);
    assert_eq!(
        arena.stats().size_bytes,
        SIZE,
        "an existing arena keeps its size"
    );
    assert!(matches!(
        PersistentArena::create(&path, SIZE, CHUNK, KIND, AUTO).map(drop),
        Err(PmemError::Locked { .. } | PmemError::AlreadyExists { .. })
    ));
}
