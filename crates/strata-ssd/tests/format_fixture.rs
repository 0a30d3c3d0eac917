//! The device format is versioned and must stay readable: a device written
//! by format version 1 (device header, block headers, entries, a sealed
//! block and a flushed open one) is kept in `tests/fixtures/v1/` and must
//! open, rebuild every entry in append order, and take appends again.
//!
//! The image is stored sparse (its non-zero 4 KiB pages, each as a
//! little-endian u32 page number and the page), since most of a device is
//! zeros. Today's writer cannot reproduce it byte for byte (the device
//! header's nonce is random), so the test checks reading, which is what a
//! format change would break.
//!
//! Regenerate (only when deliberately changing the format, together with a
//! new version number): `cargo test -p strata-ssd --test integration --
//! --ignored format_fixture::write_v1_fixture`.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use common::*;
use strata_device::{AlignedBuf, BlockDevice, MemBlockDevice};
use strata_ssd::{BlockLoc, SsdStore};

const FIXTURE: &str = "device.sparse";
/// Data blocks of the fixture device (the header block comes first).
const BLOCKS: usize = 5;
const PAGE: usize = 4096;

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/v1")
        .join(FIXTURE)
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

#[test]
fn v1_fixture_opens_and_rebuilds() {
    let image = std::fs::read(fixture_path()).expect("fixture present");
    let device = dense(&image);
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
    let store = recovery.finish().unwrap();
    for (loc, _, bytes) in &seen {
        assert_eq!(store.read(*loc).unwrap(), *bytes);
    }
    let loc = store.append(PUT, &payload(99, 1, 10)).unwrap();
    store.flush().unwrap();
    assert_eq!(store.read(loc).unwrap(), payload(99, 1, 10));
}

#[test]
#[ignore = "regenerates the fixture"]
fn write_v1_fixture() {
    let device = mem_device(BLOCKS + 1);
    let store = open_empty(&device, config());
    for (kind, bytes) in fixture_entries() {
        store.append(kind, &bytes).unwrap();
    }
    store.flush().unwrap();
    drop(store);
    let path = fixture_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, sparse(&device)).unwrap();
}
