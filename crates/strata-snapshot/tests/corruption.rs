//! Damaged snapshots: each kind of damage gives its own error, naming the
//! file and the offset of the bad header, block or trailer; no damage ever
//! reads as a good snapshot.

use crate::common;

use common::*;
use strata_device::MemDirectory;
use strata_snapshot::{
    check_complete, snapshot_name, SnapshotError, SnapshotReader, WriterOptions, BLOCK_HEADER_LEN,
    FORMAT_VERSION, HEADER_LEN, TRAILER_LEN,
};

/// A snapshot of 120 small items in 256-byte blocks, at LSN 3.
fn damaged_later() -> (MemDirectory, String, Vec<u8>) {
    let dir = MemDirectory::new();
    let info = write_snapshot(&dir, 3, &small_items(120), small_blocks()).unwrap();
    let bytes = file_bytes(&dir, &info.name);
    (dir, info.name, bytes)
}

/// Offsets of the blocks of a snapshot file.
fn block_offsets(bytes: &[u8]) -> Vec<usize> {
    let mut offsets = Vec::new();
    let mut at = HEADER_LEN;
    while at < bytes.len() - TRAILER_LEN {
        offsets.push(at);
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += BLOCK_HEADER_LEN + len;
    }
    assert_eq!(at, bytes.len() - TRAILER_LEN);
    offsets
}

fn corrupt_at(result: Result<Vec<OwnedItem>, SnapshotError>) -> (String, u64, String) {
    match result {
        Err(SnapshotError::Corrupt {
            file,
            offset,
            reason,
        }) => (file, offset, reason),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

fn incomplete_at(result: Result<impl std::fmt::Debug, SnapshotError>) -> (String, u64) {
    match result {
        Err(SnapshotError::Incomplete { file, offset }) => (file, offset),
        other => panic!("expected Incomplete, got {other:?}"),
    }
}

#[test]
fn a_corrupt_block_names_the_file_and_block_offset() {
    let (dir, name, bytes) = damaged_later();
    let blocks = block_offsets(&bytes);
    assert!(blocks.len() > 10);
    flip_byte(&dir, &name, blocks[3] + BLOCK_HEADER_LEN + 100);
    let (file, offset, reason) = corrupt_at(read_all(&dir, &name));
    assert_eq!((file.as_str(), offset), (name.as_str(), blocks[3] as u64));
    assert!(reason.contains("block checksum"), "{reason}");
    // The cheap check does not read blocks; the full read is what catches it.
    check_complete(&dir, &name).unwrap();
}

#[test]
fn a_torn_block_is_corrupt() {
    let (dir, name, mut bytes) = damaged_later();
    let blocks = block_offsets(&bytes);
    // Half of block 5 never reached the disk (zeros), but the trailer did.
    let torn = blocks[5] + BLOCK_HEADER_LEN + 128;
    bytes[torn..blocks[6]].fill(0);
    put_file(&dir, &name, &bytes);
    let (_, offset, _) = corrupt_at(read_all(&dir, &name));
    assert_eq!(offset, blocks[5] as u64);
}

#[test]
fn a_missing_trailer_is_incomplete() {
    let (dir, name, bytes) = damaged_later();
    let end = (bytes.len() - TRAILER_LEN) as u64;
    truncate(&dir, &name, end);
    assert_eq!(incomplete_at(read_all(&dir, &name)), (name.clone(), end));
    assert_eq!(incomplete_at(check_complete(&dir, &name)), (name, end));
}

#[test]
fn a_file_cut_inside_a_block_is_incomplete_at_that_block() {
    let (dir, name, bytes) = damaged_later();
    let blocks = block_offsets(&bytes);
    truncate(&dir, &name, (blocks[7] + 20) as u64);
    assert_eq!(
        incomplete_at(read_all(&dir, &name)),
        (name, blocks[7] as u64)
    );
}

#[test]
fn a_corrupt_header_is_corrupt_at_offset_zero() {
    let (dir, name, _) = damaged_later();
    flip_byte(&dir, &name, 13); // inside the start LSN
    let (file, offset, reason) = corrupt_at(read_all(&dir, &name));
    assert_eq!((file.as_str(), offset), (name.as_str(), 0));
    assert!(reason.contains("header checksum"), "{reason}");
    assert!(matches!(
        check_complete(&dir, &name),
        Err(SnapshotError::Corrupt { offset: 0, .. })
    ));
    flip_byte(&dir, &name, 13);
    flip_byte(&dir, &name, 0);
    let (_, _, reason) = corrupt_at(read_all(&dir, &name));
    assert!(reason.contains("magic"), "{reason}");
}

#[test]
fn a_header_that_disagrees_with_the_name_is_corrupt() {
    let (dir, name, bytes) = damaged_later();
    let other = snapshot_name(4);
    put_file(&dir, &other, &bytes);
    let (file, offset, reason) = corrupt_at(read_all(&dir, &other));
    assert_eq!((file, offset), (other, 0));
    assert!(reason.contains("start LSN 3"), "{reason}");
    read_all(&dir, &name).unwrap();
}

/// Rewrites the trailer's record count (with a valid trailer CRC).
fn set_trailer_count(bytes: &mut [u8], records: u64) {
    let at = bytes.len() - TRAILER_LEN;
    bytes[at + 9..at + 17].copy_from_slice(&records.to_le_bytes());
    let crc = crc32c::crc32c(&bytes[at..at + 21]);
    bytes[at + 21..].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn a_bad_trailer_count_is_corrupt_at_the_trailer() {
    let (dir, name, mut bytes) = damaged_later();
    set_trailer_count(&mut bytes, 121);
    put_file(&dir, &name, &bytes);
    let (file, offset, reason) = corrupt_at(read_all(&dir, &name));
    assert_eq!((file, offset), (name, (bytes.len() - TRAILER_LEN) as u64));
    assert!(reason.contains("counts 121 records"), "{reason}");
}

#[test]
fn an_implausible_trailer_count_fails_even_the_cheap_check() {
    let (dir, name, mut bytes) = damaged_later();
    set_trailer_count(&mut bytes, u64::MAX);
    put_file(&dir, &name, &bytes);
    assert!(matches!(
        check_complete(&dir, &name),
        Err(SnapshotError::Corrupt { .. })
    ));
}

#[test]
fn a_damaged_trailer_is_corrupt() {
    let (dir, name, bytes) = damaged_later();
    let at = bytes.len() - TRAILER_LEN;
    flip_byte(&dir, &name, at + 12);
    let (_, offset, reason) = corrupt_at(read_all(&dir, &name));
    assert_eq!(offset, at as u64);
    assert!(reason.contains("trailer checksum"), "{reason}");
    assert!(matches!(
        check_complete(&dir, &name),
        Err(SnapshotError::Corrupt { offset, .. }) if offset == at as u64
    ));
}

#[test]
fn bytes_after_the_trailer_are_corrupt() {
    let (dir, name, mut bytes) = damaged_later();
    let end = bytes.len() as u64;
    bytes.extend_from_slice(b"junk");
    put_file(&dir, &name, &bytes);
    let (_, offset, _) = corrupt_at(read_all(&dir, &name));
    assert_eq!(offset, end);
}

#[test]
fn swapped_blocks_are_corrupt() {
    let (dir, name, mut bytes) = damaged_later();
    let blocks = block_offsets(&bytes);
    let (a, b, c) = (blocks[2], blocks[3], blocks[4]);
    assert_eq!(b - a, c - b, "two full blocks");
    let first = bytes[a..b].to_vec();
    bytes.copy_within(b..c, a);
    bytes[b..c].copy_from_slice(&first);
    put_file(&dir, &name, &bytes);
    corrupt_at(read_all(&dir, &name));
}

#[test]
fn a_newer_format_version_is_reported_as_such() {
    let (dir, name, mut bytes) = damaged_later();
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let crc = crc32c::crc32c(&bytes[..28]);
    bytes[28..32].copy_from_slice(&crc.to_le_bytes());
    put_file(&dir, &name, &bytes);
    assert!(matches!(
        SnapshotReader::open(&dir, &name),
        Err(SnapshotError::UnsupportedVersion { version, .. }) if version == FORMAT_VERSION + 1
    ));
}

/// A small snapshot with tiny blocks, so that every byte is exercised.
fn tiny() -> (MemDirectory, String, Vec<u8>) {
    let dir = MemDirectory::new();
    let items = small_items(12);
    let info = write_snapshot(&dir, 8, &items, WriterOptions::new().block_size(40)).unwrap();
    let bytes = file_bytes(&dir, &info.name);
    (dir, info.name, bytes)
}

#[test]
fn every_flipped_byte_is_detected() {
    let (dir, name, bytes) = tiny();
    for offset in 0..bytes.len() {
        flip_byte(&dir, &name, offset);
        match read_all(&dir, &name) {
            Err(e @ (SnapshotError::Corrupt { .. } | SnapshotError::Incomplete { .. })) => {
                assert!(e.to_string().contains(&name), "{e}");
            }
            other => panic!("flip at {offset}: {other:?}"),
        }
        flip_byte(&dir, &name, offset);
    }
    read_all(&dir, &name).unwrap();
}

#[test]
fn every_truncation_is_incomplete() {
    let (dir, name, bytes) = tiny();
    for len in 0..bytes.len() {
        put_file(&dir, &name, &bytes[..len]);
        assert!(
            matches!(read_all(&dir, &name), Err(SnapshotError::Incomplete { .. })),
            "cut at {len}"
        );
        assert!(check_complete(&dir, &name).is_err(), "cut at {len}");
    }
}
