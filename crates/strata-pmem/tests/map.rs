//! `PmemMap` on a real file: tmpfs has no DAX, so persistence is emulated.

use crate::common;

use std::sync::atomic::Ordering;

use strata_pmem::{PersistMode, PersistPolicy, PmemError, PmemMap};

const LEN: u64 = 64 << 10;

#[test]
fn tmpfs_map_is_emulated_and_survives_reopen() {
    let dir = common::scratch_dir();
    let path = dir.path().join("map");
    {
        let map = PmemMap::create(&path, LEN, PersistPolicy::Auto).unwrap();
        assert_eq!(map.persist_mode(), PersistMode::Emulated);
        assert!(map.persist_mode().is_emulated());
        assert!(map.emulation_reason().unwrap().contains("MAP_SYNC"));
        assert_eq!(map.len(), LEN);
        map.write(5000, b"survives a close").unwrap();
        map.atomic_u64(4096)
            .unwrap()
            .store(0xFEED, Ordering::Release);
        map.persist(4096, 1000).unwrap();
        map.fence();
        map.sync_file().unwrap();
    }
    let map = PmemMap::open(&path, PersistPolicy::Auto).unwrap();
    assert_eq!(map.len(), LEN);
    let mut buf = [0u8; 16];
    map.read(5000, &mut buf).unwrap();
    assert_eq!(&buf, b"survives a close");
    assert_eq!(
        map.atomic_u64(4096).unwrap().load(Ordering::Acquire),
        0xFEED
    );
}

#[test]
fn accesses_outside_the_map_are_errors() {
    let dir = common::scratch_dir();
    let map = PmemMap::create(&dir.path().join("map"), LEN, PersistPolicy::Auto).unwrap();
    let out = |r: Result<(), PmemError>| matches!(r, Err(PmemError::OutOfBounds { .. }));
    assert!(out(map.write(LEN - 4, &[0; 8])));
    assert!(out(map.read(LEN, &mut [0; 1])));
    assert!(out(map.read(u64::MAX, &mut [0; 2])));
    assert!(out(map.persist(LEN - 8, 9)));
    assert!(out(map.persist(u64::MAX, 2)));
    assert!(matches!(
        map.atomic_u64(LEN),
        Err(PmemError::OutOfBounds { .. })
    ));
    assert!(matches!(
        map.atomic_u64(12),
        Err(PmemError::Misaligned { offset: 12 })
    ));
    map.write(LEN - 8, &[1; 8]).unwrap();
    map.persist(LEN, 0).unwrap();
}

#[test]
fn forced_emulation_is_reported() {
    let dir = common::scratch_dir();
    let map = PmemMap::create(&dir.path().join("map"), LEN, PersistPolicy::ForceEmulated).unwrap();
    assert_eq!(map.persist_mode(), PersistMode::Emulated);
    assert_eq!(
        map.emulation_reason(),
        Some("emulation forced by configuration")
    );
}

#[test]
fn require_dax_is_refused_on_tmpfs() {
    let dir = common::scratch_dir();
    let path = dir.path().join("map");
    match PmemMap::create(&path, LEN, PersistPolicy::RequireDax) {
        Err(e @ PmemError::DaxUnavailable { .. }) => {
            assert!(e.to_string().contains(&path.display().to_string()), "{e}");
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("tmpfs mapped as DAX"),
    }
    assert!(!path.exists(), "a refused create leaves no file");
}

#[test]
fn a_mapped_file_is_locked_and_never_recreated() {
    let dir = common::scratch_dir();
    let path = dir.path().join("map");
    let map = PmemMap::create(&path, LEN, PersistPolicy::Auto).unwrap();
    assert!(matches!(
        PmemMap::open(&path, PersistPolicy::Auto),
        Err(PmemError::Locked { .. })
    ));
    drop(map);
    assert!(matches!(
        PmemMap::create(&path, LEN, PersistPolicy::Auto),
        Err(PmemError::AlreadyExists { .. })
    ));
    assert!(PmemMap::open(&path, PersistPolicy::Auto).is_ok());
}

#[test]
fn bad_lengths_are_refused() {
    let dir = common::scratch_dir();
    let path = dir.path().join("map");
    assert!(matches!(
        PmemMap::create(&path, 100, PersistPolicy::Auto),
        Err(PmemError::InvalidConfig { .. })
    ));
    std::fs::write(&path, b"short").unwrap();
    assert!(matches!(
        PmemMap::open(&path, PersistPolicy::Auto),
        Err(PmemError::Corrupt { .. })
    ));
    let missing = PmemMap::open(&dir.path().join("missing"), PersistPolicy::Auto);
    assert!(matches!(missing, Err(PmemError::Io { .. })));
}
