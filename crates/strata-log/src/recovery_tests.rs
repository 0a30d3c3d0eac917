//! Unit tests of the tail/middle distinction, on hand-built segments.

use strata_device::{Directory, MemDirectory};

use super::*;
use crate::record::encode_into;
use crate::segment::encode_header;

/// Writes a segment starting at `first` holding records `lsns`, then
/// `trailing` raw bytes.
fn put_segment(
    dir: &MemDirectory,
    first: u64,
    lsns: impl IntoIterator<Item = u64>,
    trailing: &[u8],
) {
    let mut bytes = encode_header(first).to_vec();
    for lsn in lsns {
        encode_into(&mut bytes, lsn, 1, &lsn.to_le_bytes());
    }
    bytes.extend_from_slice(trailing);
    let dev = dir.create(&SegmentMeta::new(first).name).unwrap();
    dev.write_all_at(&bytes, 0).unwrap();
}

fn record(lsn: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    encode_into(&mut bytes, lsn, 1, &lsn.to_le_bytes());
    bytes
}

fn recover_strict(dir: &MemDirectory) -> Result<Recovered, LogError> {
    recover(dir, RecoveryPolicy::Strict)
}

const REC: u64 = 25; // 17 + 8-byte body
const HDR: u64 = SEGMENT_HEADER_LEN as u64;

#[test]
fn empty_directory_gets_a_first_segment() {
    let dir = MemDirectory::new();
    let r = recover_strict(&dir).unwrap();
    assert_eq!(
        (r.report.records, r.report.first_lsn, r.report.last_lsn),
        (0, 1, 0)
    );
    assert_eq!(dir.list().unwrap(), [SegmentMeta::new(1).name]);
    // Durable: a power cut keeps it.
    assert_eq!(dir.crash().list().unwrap().len(), 1);
}

#[test]
fn partial_record_at_the_end_is_a_tail() {
    let dir = MemDirectory::new();
    let torn = &record(4)[..10];
    put_segment(&dir, 1, 1..=3, torn);
    let r = recover_strict(&dir).unwrap();
    assert_eq!((r.report.last_lsn, r.report.bytes_dropped), (3, 10));
    assert_eq!(r.current_len, HDR + 3 * REC);
    assert_eq!(r.report.damage.unwrap().kind, DamageKind::TornTail);
}

#[test]
fn bad_record_followed_by_a_later_record_is_the_middle() {
    let dir = MemDirectory::new();
    let mut trailing = record(4);
    trailing[20] ^= 1;
    trailing.extend(record(5));
    put_segment(&dir, 1, 1..=3, &trailing);
    match recover_strict(&dir) {
        Err(LogError::Corrupt { offset, .. }) => assert_eq!(offset, HDR + 3 * REC),
        other => panic!("{:?}", other.map(|r| r.report)),
    }
}

#[test]
fn later_record_is_found_at_an_unaligned_offset() {
    let dir = MemDirectory::new();
    let mut trailing = b"garbage".to_vec();
    trailing.extend(record(9));
    put_segment(&dir, 1, 1..=3, &trailing);
    assert!(matches!(
        recover_strict(&dir),
        Err(LogError::Corrupt { .. })
    ));
}

#[test]
fn stale_record_with_an_old_lsn_after_the_tail_does_not_count() {
    let dir = MemDirectory::new();
    let mut trailing = vec![0xff; 5];
    trailing.extend(record(2));
    put_segment(&dir, 1, 1..=3, &trailing);
    let r = recover_strict(&dir).unwrap();
    // Dropped bytes are counted up to the last non-zero one (zeros may be
    // preallocated space); record 2's body ends in 7 zero bytes.
    assert_eq!(
        (r.report.last_lsn, r.report.bytes_dropped),
        (3, 5 + REC - 7)
    );
}

#[test]
fn preallocated_zeros_after_the_records_are_a_clean_end() {
    let dir = MemDirectory::new();
    put_segment(&dir, 1, 1..=3, &[0; 4096]);
    let r = recover_strict(&dir).unwrap();
    assert_eq!((r.report.last_lsn, r.report.bytes_dropped), (3, 0));
    assert!(r.report.damage.is_none());
    assert_eq!(r.current_len, HDR + 3 * REC);
    assert_eq!(r.current_file_len, HDR + 3 * REC + 4096);
}

#[test]
fn zeros_then_a_torn_record_is_a_tail() {
    let dir = MemDirectory::new();
    // A batch whose first page never reached the disk but whose second did.
    let mut trailing = vec![0; 100];
    trailing.extend_from_slice(&record(5)[..12]);
    trailing.extend_from_slice(&[0; 300]);
    put_segment(&dir, 1, 1..=3, &trailing);
    let r = recover_strict(&dir).unwrap();
    // Up to the last non-zero byte: the LSN's high bytes are zeros.
    assert_eq!((r.report.last_lsn, r.report.bytes_dropped), (3, 100 + 10));
    assert_eq!(r.report.damage.unwrap().kind, DamageKind::TornTail);
    assert_eq!(r.current_file_len, r.current_len);
}

#[test]
fn zeros_then_a_later_record_is_the_middle() {
    let dir = MemDirectory::new();
    let mut trailing = vec![0; 100];
    trailing.extend(record(5));
    trailing.extend_from_slice(&[0; 300]);
    put_segment(&dir, 1, 1..=3, &trailing);
    assert!(matches!(
        recover_strict(&dir),
        Err(LogError::Corrupt { .. })
    ));
}

#[test]
fn zero_tail_in_an_older_segment_is_clean() {
    let dir = MemDirectory::new();
    put_segment(&dir, 1, 1..=3, &[0; 1000]);
    put_segment(&dir, 4, 4..=5, &[0; 1000]);
    let r = recover_strict(&dir).unwrap();
    assert_eq!((r.report.records, r.report.last_lsn), (5, 5));
    assert!(r.report.damage.is_none());
}

#[test]
fn out_of_sequence_record_is_damage() {
    let dir = MemDirectory::new();
    put_segment(&dir, 1, [1, 2, 4], &[]);
    assert!(matches!(
        recover_strict(&dir),
        Err(LogError::Corrupt { .. })
    ));
    let r = recover(&dir, RecoveryPolicy::TruncateToLastGood).unwrap();
    assert_eq!(r.report.last_lsn, 2);
    assert_eq!(r.report.damage.unwrap().kind, DamageKind::Corruption);
}

#[test]
fn damage_in_a_non_last_segment_is_never_a_tail() {
    let dir = MemDirectory::new();
    put_segment(&dir, 1, 1..=3, &record(4)[..10]);
    put_segment(&dir, 4, 4..=5, &[]);
    assert!(
        matches!(recover_strict(&dir), Err(LogError::Corrupt { offset, .. }) if offset == HDR + 3 * REC)
    );
}

#[test]
fn truncate_to_last_good_drops_later_segments() {
    let dir = MemDirectory::new();
    put_segment(&dir, 1, 1..=3, &record(4)[..10]);
    put_segment(&dir, 4, 4..=5, &[]);
    put_segment(&dir, 6, 6..=9, &[]);
    let r = recover(&dir, RecoveryPolicy::TruncateToLastGood).unwrap();
    assert_eq!((r.report.last_lsn, r.report.segments), (3, 1));
    assert_eq!(
        r.report.bytes_dropped,
        10 + (HDR + 2 * REC) + (HDR + 4 * REC)
    );
    assert_eq!(dir.list().unwrap(), [SegmentMeta::new(1).name]);
    assert_eq!(
        dir.crash().list().unwrap(),
        [SegmentMeta::new(1).name],
        "removals durable"
    );
}

#[test]
fn empty_last_segment_keeps_its_first_lsn() {
    let dir = MemDirectory::new();
    put_segment(&dir, 1, 1..=3, &[]);
    put_segment(&dir, 4, [], &[]);
    let r = recover_strict(&dir).unwrap();
    assert_eq!(
        (r.report.last_lsn, r.current_records, r.segments.len()),
        (3, 0, 2)
    );
}

#[test]
fn only_segment_with_a_torn_header_is_replaced() {
    let dir = MemDirectory::new();
    dir.create(&SegmentMeta::new(7).name)
        .unwrap()
        .write_all_at(b"STR", 0)
        .unwrap();
    let r = recover_strict(&dir).unwrap();
    assert_eq!(
        (
            r.report.first_lsn,
            r.report.last_lsn,
            r.report.bytes_dropped
        ),
        (7, 6, 3)
    );
    assert_eq!(r.current_len, HDR);
    assert_eq!(dir.list().unwrap(), [SegmentMeta::new(7).name]);
}
