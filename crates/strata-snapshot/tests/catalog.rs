//! Choosing the snapshot to recover from (`newest_complete`, `Strict` or
//! `OlderGood`) and removing the ones a newer snapshot made unnecessary.

use crate::common;

use common::*;
use strata_device::{Directory, MemDirectory};
use strata_snapshot::{
    newest_complete, remove_older_than, snapshot_name, snapshots, Fallback, SnapshotError,
    SnapshotWriter, FORMAT_VERSION, TRAILER_LEN,
};

/// Complete snapshots at LSNs 5, 10 and 15.
fn three() -> MemDirectory {
    let dir = MemDirectory::new();
    for lsn in [10, 5, 15] {
        write_snapshot(&dir, lsn, &small_items(lsn as usize), small_blocks()).unwrap();
    }
    dir
}

fn newest_name(dir: &MemDirectory, fallback: Fallback) -> Option<String> {
    newest_complete(dir, fallback).unwrap().map(|(name, info)| {
        assert_eq!(info.name, name);
        name
    })
}

#[test]
fn an_empty_directory_has_no_snapshot() {
    let dir = MemDirectory::new();
    assert_eq!(newest_name(&dir, Fallback::Strict), None);
    assert_eq!(newest_name(&dir, Fallback::OlderGood), None);
}

#[test]
fn the_newest_by_lsn_wins_and_temp_files_are_ignored() {
    let dir = three();
    // Junk that must not count: a temp file and an unrelated file.
    put_file(&dir, &format!("{}.tmp", snapshot_name(99)), b"partial");
    put_file(&dir, "notes.txt", b"hello");
    assert_eq!(
        snapshots(&dir).unwrap(),
        [snapshot_name(5), snapshot_name(10), snapshot_name(15)]
    );
    let (name, info) = newest_complete(&dir, Fallback::Strict).unwrap().unwrap();
    assert_eq!(name, snapshot_name(15));
    assert_eq!((info.start_lsn, info.records), (15, 15));
}

#[test]
fn a_damaged_newest_snapshot_is_an_error_unless_told_to_fall_back() {
    let dir = three();
    let newest = snapshot_name(15);
    let len = file_bytes(&dir, &newest).len() as u64;
    truncate(&dir, &newest, len - 3);
    match newest_complete(&dir, Fallback::Strict) {
        Err(SnapshotError::Incomplete { file, offset }) => {
            assert_eq!((file, offset), (newest.clone(), len - 3));
        }
        other => panic!("expected Incomplete, got {other:?}"),
    }
    assert_eq!(
        newest_name(&dir, Fallback::OlderGood),
        Some(snapshot_name(10))
    );

    // A damaged trailer in the next one too: the oldest is the last good.
    let second = snapshot_name(10);
    let len = file_bytes(&dir, &second).len();
    flip_byte(&dir, &second, len - 2);
    assert_eq!(
        newest_name(&dir, Fallback::OlderGood),
        Some(snapshot_name(5))
    );
    match newest_complete(&dir, Fallback::Strict) {
        Err(e) => assert!(e.to_string().contains(&newest), "{e}"),
        Ok(found) => panic!("expected an error, got {found:?}"),
    }
    flip_byte(&dir, &snapshot_name(5), 3);
    assert_eq!(newest_name(&dir, Fallback::OlderGood), None);
}

#[test]
fn a_corrupt_trailer_names_its_offset() {
    let dir = three();
    let newest = snapshot_name(15);
    let len = file_bytes(&dir, &newest).len();
    flip_byte(&dir, &newest, len - TRAILER_LEN + 10);
    match newest_complete(&dir, Fallback::Strict) {
        Err(SnapshotError::Corrupt { file, offset, .. }) => {
            assert_eq!((file, offset), (newest, (len - TRAILER_LEN) as u64));
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn an_unsupported_version_is_never_skipped() {
    let dir = three();
    let newest = snapshot_name(15);
    let mut bytes = file_bytes(&dir, &newest);
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let crc = crc32c::crc32c(&bytes[..28]);
    bytes[28..32].copy_from_slice(&crc.to_le_bytes());
    put_file(&dir, &newest, &bytes);
    for fallback in [Fallback::Strict, Fallback::OlderGood] {
        assert!(matches!(
            newest_complete(&dir, fallback),
            Err(SnapshotError::UnsupportedVersion { .. })
        ));
    }
}

#[test]
fn remove_older_than_keeps_the_named_and_newer_ones() {
    let dir = three();
    put_file(&dir, &format!("{}.tmp", snapshot_name(12)), b"stray");
    put_file(&dir, "notes.txt", b"hello");
    let removed = remove_older_than(&dir, &snapshot_name(10)).unwrap();
    assert_eq!(
        removed,
        [snapshot_name(5), format!("{}.tmp", snapshot_name(12))]
    );
    let expected = [
        "notes.txt".to_string(),
        snapshot_name(10),
        snapshot_name(15),
    ];
    assert_eq!(names(&dir), expected);
    // The removals are durable.
    assert_eq!(names(&dir.crash()), expected);
    // Nothing more to remove: no error.
    assert!(remove_older_than(&dir, &snapshot_name(10))
        .unwrap()
        .is_empty());
}

#[test]
fn remove_older_than_refuses_a_snapshot_that_is_not_complete() {
    let dir = three();
    assert!(matches!(
        remove_older_than(&dir, "notes.txt"),
        Err(SnapshotError::InvalidName { .. })
    ));
    // Absent: an I/O error, nothing removed.
    assert!(remove_older_than(&dir, &snapshot_name(20)).is_err());
    let newest = snapshot_name(15);
    let len = file_bytes(&dir, &newest).len() as u64;
    truncate(&dir, &newest, len - 1);
    assert!(matches!(
        remove_older_than(&dir, &newest),
        Err(SnapshotError::Incomplete { .. })
    ));
    assert_eq!(snapshots(&dir).unwrap().len(), 3);
}

#[test]
fn a_new_snapshot_replaces_a_stray_temp_file_of_the_same_name() {
    let dir = three();
    let temp = format!("{}.tmp", snapshot_name(20));
    put_file(&dir, &temp, &[0xff; 5000]);
    let mut writer = SnapshotWriter::create(&dir, &snapshot_name(20), 20, None).unwrap();
    for item in &small_items(5) {
        writer.add(&item.as_item()).unwrap();
    }
    let info = writer.finish().unwrap();
    assert_eq!(read_all(&dir, &info.name).unwrap(), small_items(5));
    assert!(!dir.list().unwrap().contains(&temp));
}
