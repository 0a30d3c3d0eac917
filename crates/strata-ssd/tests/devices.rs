//! The store on real files: `O_DIRECT` in the system temporary directory
//! (skipped with a note where refused) and the buffered fallback on tmpfs,
//! both through `open_ssd_path`.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use strata_ssd::{open_ssd_path, IoMode, SsdError, SsdStore, DATA_FILE_NAME};

fn round_trip(dir: &Path, mode: IoMode) -> Result<(), SsdError> {
    let capacity = 32 * BLOCK as u64;
    let device = open_ssd_path(dir, capacity, mode)?;
    let mut recovery = SsdStore::open(device, config())?;
    recovery.scan(|_, _, _| {})?;
    let store = recovery.finish()?;
    assert_eq!(store.stats().direct, mode == IoMode::Direct);
    let locs: Vec<_> = (0..100u64)
        .map(|i| store.append(PUT, &payload(i as u32, i, 3000)).unwrap())
        .collect();
    store.flush()?;
    drop(store);

    let device = open_ssd_path(dir, capacity, mode)?;
    assert_eq!(device.capacity(), capacity);
    let mut recovery = SsdStore::open(Arc::clone(&device), config())?;
    let mut seen = Vec::new();
    recovery.scan(|loc, _, bytes| seen.push((loc, decode(bytes).1)))?;
    let expected: Vec<_> = locs.into_iter().zip(0..).collect();
    assert_eq!(seen, expected);
    assert!(dir.join(DATA_FILE_NAME).is_file());
    Ok(())
}

#[test]
fn direct_block_file_in_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    match round_trip(dir.path(), IoMode::Direct) {
        Ok(()) => {}
        Err(SsdError::Io { source, .. }) if source.kind() == std::io::ErrorKind::Unsupported => {
            eprintln!("skipped: {source}");
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn buffered_block_file_on_tmpfs() {
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    round_trip(&dir.path().join("ssd"), IoMode::Buffered).unwrap();
}
