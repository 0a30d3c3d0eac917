//! Damaged logs on purpose: torn tails are cut and reported; damage in the
//! middle refuses to open (naming the file and offset) unless the operator
//! asks for `TruncateToLastGood`.
//!
//! `write_records(dir, 100)` gives three segments: LSNs 1..=34, 35..=68 and
//! 69..=100, each record 117 bytes after a 24-byte header, and nothing else
//! (no preallocated zeros: these tests compute file lengths).

use crate::common;

use common::*;
use strata_device::{Directory, MemDirectory};
use strata_log::{CommandLog, DamageKind, Durability, LogError, RecoveryPolicy};

fn record_offset(index_in_segment: u64) -> u64 {
    SEGMENT_HEADER + index_in_segment * RECORD_100
}

fn open_with(
    dir: &MemDirectory,
    policy: RecoveryPolicy,
) -> Result<(CommandLog, strata_log::RecoveryReport), LogError> {
    CommandLog::open(arc(dir), exact_segments(Durability::Sync), policy)
}

fn expect_corrupt(dir: &MemDirectory, file: &str, at: u64) -> String {
    match open_with(dir, RecoveryPolicy::Strict) {
        Err(LogError::Corrupt {
            file: f,
            offset,
            reason,
        }) => {
            assert_eq!((f.as_str(), offset), (file, at), "{reason}");
            reason
        }
        Err(other) => panic!("expected Corrupt, got {other}"),
        Ok((_, report)) => panic!("expected Corrupt, opened: {report:?}"),
    }
}

fn total_len(dir: &MemDirectory) -> u64 {
    segment_names(dir).iter().map(|n| file_len(dir, n)).sum()
}

#[test]
fn clean_log_reopens_with_everything() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    assert_eq!(
        segment_names(&dir),
        [segment_name(1), segment_name(35), segment_name(69)]
    );
    let (_, report) = open_with(&dir, RecoveryPolicy::Strict).unwrap();
    assert_eq!(
        (report.records, report.first_lsn, report.last_lsn),
        (100, 1, 100)
    );
    assert_eq!((report.bytes_dropped, report.segments), (0, 3));
    assert!(report.damage.is_none());
}

#[test]
fn flipped_byte_in_a_middle_segment_is_corrupt() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    let bad = record_offset(5); // LSN 6
    flip_byte(&dir, &segment_name(1), bad + 40);
    let reason = expect_corrupt(&dir, &segment_name(1), bad);
    assert!(reason.contains("checksum"), "{reason}");
    // Replay refuses too.
    assert!(matches!(replay_all(&dir), Err(LogError::Corrupt { .. })));

    // The operator escape hatch keeps LSNs 1..=5 and drops everything after.
    let before = total_len(&dir);
    let (log, report) = open_with(&dir, RecoveryPolicy::TruncateToLastGood).unwrap();
    assert_eq!(
        (report.records, report.last_lsn, report.segments),
        (5, 5, 1)
    );
    assert_eq!(report.bytes_dropped, before - bad);
    let damage = report.damage.clone().unwrap();
    assert_eq!(
        (damage.file, damage.offset, damage.kind),
        (segment_name(1), bad, DamageKind::Corruption)
    );
    assert_eq!(log.append(0, b"after").unwrap(), 6);
    log.close().unwrap();
    let records = replay_all(&dir).unwrap();
    assert_eq!(records.len(), 6);
    assert_eq!(records[5].2, b"after");
}

#[test]
fn flipped_byte_in_the_last_segment_followed_by_records_is_corrupt() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    let bad = record_offset(1); // LSN 70
    flip_byte(&dir, &segment_name(69), bad + 3);
    expect_corrupt(&dir, &segment_name(69), bad);
    let (_, report) = open_with(&dir, RecoveryPolicy::TruncateToLastGood).unwrap();
    assert_eq!((report.last_lsn, report.segments), (69, 3));
}

#[test]
fn flipped_byte_in_the_last_record_is_a_torn_tail() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    let bad = record_offset(31); // LSN 100, the last
    flip_byte(&dir, &segment_name(69), bad + 20);
    let (_, report) = open_with(&dir, RecoveryPolicy::Strict).unwrap();
    assert_eq!((report.last_lsn, report.bytes_dropped), (99, RECORD_100));
    assert_eq!(report.damage.unwrap().kind, DamageKind::TornTail);
}

#[test]
fn torn_tail_is_truncated_and_reported() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    let last = segment_name(69);
    let len = file_len(&dir, &last);
    dir.open(&last).unwrap().set_len(len - 50).unwrap();
    let (log, report) = open_with(&dir, RecoveryPolicy::Strict).unwrap();
    assert_eq!(
        (report.last_lsn, report.bytes_dropped),
        (99, RECORD_100 - 50)
    );
    let damage = report.damage.unwrap();
    assert_eq!(
        (damage.file, damage.offset),
        (last.clone(), record_offset(30) + RECORD_100)
    );
    assert_eq!(file_len(&dir, &last), len - RECORD_100);
    assert_eq!(log.append(3, b"again").unwrap(), 100);
    log.close().unwrap();
    let (_, report) = open_with(&dir, RecoveryPolicy::Strict).unwrap();
    assert_eq!((report.last_lsn, report.bytes_dropped), (100, 0));
}

#[test]
fn zeros_after_the_tail_are_preallocated_space() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    let last = segment_name(69);
    let len = file_len(&dir, &last);
    dir.open(&last).unwrap().set_len(len + 4096).unwrap();
    let (log, report) = open_with(&dir, RecoveryPolicy::Strict).unwrap();
    assert_eq!((report.last_lsn, report.bytes_dropped), (100, 0));
    assert!(report.damage.is_none());
    // Appends go where the records end, into the zeros.
    assert_eq!(log.append(1, b"next").unwrap(), 101);
    log.close().unwrap();
    assert_eq!(file_len(&dir, &last), len + 4096);
    assert_eq!(replay_all(&dir).unwrap().len(), 101);
}

#[test]
fn garbled_header_of_a_middle_segment_is_corrupt() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    flip_byte(&dir, &segment_name(35), 3);
    let reason = expect_corrupt(&dir, &segment_name(35), 0);
    assert!(reason.contains("header"), "{reason}");
    let (_, report) = open_with(&dir, RecoveryPolicy::TruncateToLastGood).unwrap();
    assert_eq!((report.last_lsn, report.segments), (34, 1));
    assert_eq!(segment_names(&dir), [segment_name(1)]);
}

#[test]
fn garbled_header_of_the_last_segment_with_records_is_corrupt() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    flip_byte(&dir, &segment_name(69), 15);
    expect_corrupt(&dir, &segment_name(69), 0);
}

#[test]
fn empty_middle_segment_is_corrupt() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    dir.open(&segment_name(35)).unwrap().set_len(0).unwrap();
    expect_corrupt(&dir, &segment_name(35), 0);
}

#[test]
fn torn_header_of_a_new_last_segment_is_dropped() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    // What a crash during rotation may leave on a real filesystem: the name
    // made it, the header only partly.
    let extra = segment_name(101);
    dir.create(&extra)
        .unwrap()
        .write_all_at(b"STRATA", 0)
        .unwrap();
    let (log, report) = open_with(&dir, RecoveryPolicy::Strict).unwrap();
    assert_eq!(
        (report.last_lsn, report.bytes_dropped, report.segments),
        (100, 6, 3)
    );
    assert_eq!(report.damage.unwrap().kind, DamageKind::TornTail);
    assert!(!segment_names(&dir).contains(&extra));
    assert_eq!(log.append(0, b"x").unwrap(), 101);
}

#[test]
fn missing_middle_segment_is_a_gap() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    dir.remove(&segment_name(35)).unwrap();
    let reason = expect_corrupt(&dir, &segment_name(69), 0);
    assert!(reason.contains("gap"), "{reason}");
    assert!(matches!(replay_all(&dir), Err(LogError::Corrupt { .. })));
}

#[test]
fn segment_whose_header_disagrees_with_its_name_is_corrupt() {
    let dir = MemDirectory::new();
    write_records(&dir, 100);
    dir.rename(&segment_name(69), &segment_name(70)).unwrap();
    expect_corrupt(&dir, &segment_name(70), 0);
}

#[test]
fn newer_format_version_never_opens() {
    let dir = MemDirectory::new();
    write_records(&dir, 10);
    let dev = dir.open(&segment_name(1)).unwrap();
    let mut header = [0u8; 24];
    dev.read_exact_at(&mut header, 0).unwrap();
    header[8..12].copy_from_slice(&2u32.to_le_bytes());
    let crc = crc32c::crc32c(&header[..20]);
    header[20..].copy_from_slice(&crc.to_le_bytes());
    dev.write_all_at(&header, 0).unwrap();
    for policy in [RecoveryPolicy::Strict, RecoveryPolicy::TruncateToLastGood] {
        match open_with(&dir, policy) {
            Err(LogError::UnsupportedVersion { version: 2, .. }) => {}
            other => panic!(
                "expected UnsupportedVersion, got {:?}",
                other.map(|(_, r)| r)
            ),
        }
    }
    assert_eq!(
        file_len(&dir, &segment_name(1)),
        SEGMENT_HEADER + 10 * RECORD_100
    );
}

#[test]
fn unrelated_files_are_left_alone() {
    let dir = MemDirectory::new();
    write_records(&dir, 5);
    dir.create("snapshot-7.tmp").unwrap();
    let (_, report) = open_with(&dir, RecoveryPolicy::Strict).unwrap();
    assert_eq!(report.last_lsn, 5);
    assert!(dir.list().unwrap().contains(&"snapshot-7.tmp".to_string()));
}
