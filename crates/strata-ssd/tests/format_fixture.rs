//! The device format is versioned and must stay readable: a device written
//! by format version 1 (device header, block headers, entries, a sealed
//! block and a flushed open one) is kept in `tests/fixtures/v1/`, and one
//! of version 2 (the same, plus a run of another user's entries in a block
//! of its own) in `tests/fixtures/v2/`; each must open, rebuild every
//! entry of the primary user in append order, keep the run's entries
//! readable once marked, and take appends again. A version 1 device keeps
//! its version until the first run raises it.
//!
//! The images are stored sparse (their non-zero 4 KiB pages, each as a
//! little-endian u32 page number and the page), since most of a device is
//! zeros. Today's writer cannot reproduce them byte for byte (the device
//! header's nonce is random), so the tests check reading, which is what a
//! format change would break.
//!
//! Regenerate the current version's image (only when deliberately changing
//! the format, together with a new version number; the older images stay
//! as they are): `STRATA_WRITE_FIXTURES=1 cargo test -p strata-ssd --test integration -- --ignored
//! format_fixture::write_v2_fixture`.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use common::*;
use strata_device::{AlignedBuf, BlockDevice, MemBlockDevice};
use strata_ssd::{BlockLoc, SsdStore, StoreUser};

const FIXTURE: &str = "device.sparse";
/// Data blocks of the fixture device (the header block comes first).
const BLOCKS: usize = 5;
const PAGE: usize = 4096;

fn fixture_path(version: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/fixtures/v{version}"))
        .join(FIXTURE)
}

/// The user and kind of the version 2 fixture's run.
fn run_user() -> StoreUser {
    StoreUser::from_code(3).unwrap()
}
const RUN_KIND: u8 = 7;

/// The run's payloads: a few sizes, one block in all.
fn run_payloads() -> Vec<Vec<u8>> {
    (0..5u32)
        .map(|i| payload(1000 + i, 5, 1_000 * i as usize))
        .collect()
}

/// The format version in the device header (bytes 8..12 of block 0).
fn device_version(device: &MemBlockDevice) -> u32 {
    let mut page = AlignedBuf::zeroed(PAGE);
    device.read_at(&mut page, 0).unwrap();
    u32::from_le_bytes(page[8..12].try_into().unwrap())
}

/// The entries of the fixture: puts of several sizes and two tombstones,
/// enough to seal the first data block.
fn fixture_entries() -> Vec<(u8, Vec<u8>)> {
    (0..60u32)
        .map(|i| match i % 13 {
            12 => (TOMBSTONE, payload(i / 2, u64::from(i), 0)),
            _ => (
                PUT,
                payload(i, u64::from(i) * 7, (i as usize * 397) % 3_000),
            ),
        })
        .collect()
}

/// The device's non-zero pages.
fn sparse(device: &MemBlockDevice) -> Vec<u8> {
    let mut out = Vec::new();
    let mut page = AlignedBuf::zeroed(PAGE);
    for n in 0..device.capacity() as usize / PAGE {
        device.read_at(&mut page, (n * PAGE) as u64).unwrap();
        if page.iter().any(|&b| b != 0) {
            out.extend_from_slice(&(n as u32).to_le_bytes());
            out.extend_from_slice(&page);
        }
    }
    out
}

/// A device holding the pages of a sparse image.
fn dense(image: &[u8]) -> MemBlockDevice {
    let device = mem_device(BLOCKS + 1);
    assert_eq!(image.len() % (4 + PAGE), 0, "sparse image damaged");
    for record in image.chunks(4 + PAGE) {
        let n = u32::from_le_bytes(record[..4].try_into().unwrap()) as usize;
        let mut page = AlignedBuf::zeroed(PAGE);
        page.copy_from_slice(&record[4..]);
        device.write_at(&page, (n * PAGE) as u64).unwrap();
    }
    device.sync().unwrap();
    device
}

/// Opens a fixture image and rebuilds it: checks the primary user's
/// entries, marks them live (and `run`, the run's locations, if given)
/// and returns the store with what the scan found.
fn open_fixture(
    device: &MemBlockDevice,
    run: &[BlockLoc],
) -> (SsdStore, Vec<(BlockLoc, u8, Vec<u8>)>) {
    let mut recovery = SsdStore::open(Arc::new(device.clone()), config()).unwrap();
    let mut seen: Vec<(BlockLoc, u8, Vec<u8>)> = Vec::new();
    recovery
        .scan(|loc, kind, bytes| seen.push((loc, kind, bytes.to_vec())))
        .unwrap();
    let entries: Vec<(u8, Vec<u8>)> = seen.iter().map(|(_, k, p)| (*k, p.clone())).collect();
    assert_eq!(entries, fixture_entries());
    let blocks: std::collections::BTreeSet<u32> = seen.iter().map(|(l, _, _)| l.block).collect();
    assert_eq!(blocks.len(), 2, "a sealed block and an open one");
    recovery
        .set_live_many(seen.iter().map(|(loc, _, p)| (*loc, p.len())))
        .unwrap();
    let payloads = run_payloads();
    for (loc, bytes) in run.iter().zip(&payloads) {
        recovery.set_live(*loc, bytes.len()).unwrap();
    }
    let store = recovery.finish().unwrap();
    for (loc, _, bytes) in &seen {
        assert_eq!(store.read(*loc).unwrap(), *bytes);
    }
    for (loc, bytes) in run.iter().zip(&payloads) {
        assert_eq!(store.read(*loc).unwrap(), *bytes);
    }
    (store, seen)
}

/// The run's locations in the version 2 image: one block after the
/// primary user's two, entries packed from the block header on.
fn v2_run_locs() -> Vec<BlockLoc> {
    let mut offset = 64;
    run_payloads()
        .iter()
        .map(|p| {
            let loc = BlockLoc { block: 3, offset };
            offset += footprint(p.len()) as u32;
            loc
        })
        .collect()
}

#[test]
fn v1_fixture_opens_and_rebuilds_and_a_run_raises_its_version() {
    let image = std::fs::read(fixture_path(1)).expect("fixture present");
    let device = dense(&image);
    let (store, seen) = open_fixture(&device, &[]);
    let loc = store.append(PUT, &payload(99, 1, 10)).unwrap();
    store.flush().unwrap();
    assert_eq!(store.read(loc).unwrap(), payload(99, 1, 10));
    assert_eq!(
        device_version(&device),
        1,
        "the primary user's writes keep v1"
    );
    // The device is small: the fixture's entries make room for the run.
    for (loc, _, bytes) in &seen {
        store.release(*loc, bytes.len()).unwrap();
    }
    let run = run_payloads();
    let refs: Vec<&[u8]> = run.iter().map(Vec::as_slice).collect();
    let locs = store.append_run(run_user(), RUN_KIND, &refs).unwrap();
    assert_eq!(device_version(&device), 2, "raised before the run's blocks");
    store.flush().unwrap();
    drop(store);
    let mut recovery = SsdStore::open(Arc::new(device.clone()), config()).unwrap();
    let mut primary = 0;
    recovery.scan(|_, _, _| primary += 1).unwrap();
    assert_eq!(primary, 1, "the run is not scanned");
    for (loc, bytes) in locs.iter().zip(&run) {
        recovery.set_live(*loc, bytes.len()).unwrap();
    }
    let store = recovery.finish().unwrap();
    for (loc, bytes) in locs.iter().zip(&run) {
        assert_eq!(store.read(*loc).unwrap(), *bytes);
    }
}

#[test]
fn v2_fixture_opens_with_its_run() {
    let image = std::fs::read(fixture_path(2)).expect("fixture present");
    let device = dense(&image);
    assert_eq!(device_version(&device), 2);
    let run = v2_run_locs();
    let (store, _) = open_fixture(&device, &run);
    let users = store.stats().users;
    assert_eq!(users.len(), 2);
    assert_eq!((users[1].user, users[1].blocks), (run_user(), 1));
    // The device is small: the run makes room for an append.
    for (loc, bytes) in run.iter().zip(run_payloads()) {
        store.release(*loc, bytes.len()).unwrap();
    }
    let loc = store.append(PUT, &payload(99, 1, 10)).unwrap();
    assert_eq!(store.stats().users.len(), 1, "the run's block was reused");
    store.flush().unwrap();
    assert_eq!(store.read(loc).unwrap(), payload(99, 1, 10));
}

#[test]
#[ignore = "regenerates the fixture (with STRATA_WRITE_FIXTURES=1)"]
fn write_v2_fixture() {
    // `--include-ignored` (`scripts/test --full`) runs this too: without
    // the variable it must not rewrite the file the other tests read (it
    // raced them, and would hide a format change by rewriting its fixture).
    if std::env::var_os("STRATA_WRITE_FIXTURES").is_none() {
        return;
    }
    let device = mem_device(BLOCKS + 1);
    let store = open_empty(&device, config());
    for (kind, bytes) in fixture_entries() {
        store.append(kind, &bytes).unwrap();
    }
    let run = run_payloads();
    let refs: Vec<&[u8]> = run.iter().map(Vec::as_slice).collect();
    assert_eq!(
        store.append_run(run_user(), RUN_KIND, &refs).unwrap(),
        v2_run_locs()
    );
    store.flush().unwrap();
    drop(store);
    let path = fixture_path(2);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, sparse(&device)).unwrap();
}
