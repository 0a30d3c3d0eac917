//! Segments: rotation at the size limit and on demand, removal of segments a
//! checkpoint made unnecessary, replay from an LSN, and the byte count the
//! checkpoint trigger reads.

use crate::common;

use common::*;
use strata_device::{Directory, MemDirectory};
use strata_log::{Durability, LogError};

#[test]
fn segments_rotate_at_the_size_limit() {
    let mem = MemDirectory::new();
    write_records(&mem, 100);
    let names = segment_names(&mem);
    assert_eq!(names, [segment_name(1), segment_name(35), segment_name(69)]);
    for name in &names[..2] {
        assert_eq!(file_len(&mem, name), SEGMENT_HEADER + 34 * RECORD_100);
        assert!(file_len(&mem, name) <= SMALL_SEGMENT);
    }
    let records = replay_all(&mem).unwrap();
    assert_eq!(records.len(), 100);
    for (i, (lsn, kind, body)) in records.iter().enumerate() {
        let want = i as u64 + 1;
        assert_eq!(
            (*lsn, *kind, body.clone()),
            (want, (want % 7) as u8, body_of(want, 100))
        );
    }
}

#[test]
fn oversized_record_gets_a_segment_of_its_own() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), small_segments(Durability::Sync));
    log.append(1, b"small").unwrap();
    let big = body_of(2, 10_000);
    log.append(2, &big).unwrap();
    log.append(3, b"after").unwrap();
    log.close().unwrap();
    assert_eq!(
        segment_names(&mem),
        [segment_name(1), segment_name(2), segment_name(3)]
    );
    let records = replay_all(&mem).unwrap();
    assert_eq!(records[1].2, big);
    assert_eq!(records[2].2, b"after");
}

#[test]
fn rotate_cuts_a_new_segment() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), small_segments(Durability::Sync));
    assert_eq!(
        log.rotate().unwrap(),
        1,
        "an empty segment is already a clean cut"
    );
    for i in 0..5u8 {
        log.append(i, &[i]).unwrap();
    }
    assert_eq!(log.rotate().unwrap(), 6);
    assert_eq!(log.durable_lsn(), 5, "rotation syncs the closed segment");
    assert_eq!(log.rotate().unwrap(), 6);
    assert_eq!(log.append(9, b"x").unwrap(), 6);
    assert_eq!(log.stats().segments, 2);
    log.close().unwrap();
    assert_eq!(segment_names(&mem), [segment_name(1), segment_name(6)]);
    // The new segment's name and header were durable before use.
    let crashed = mem.crash();
    assert_eq!(replay_all(&crashed as &dyn Directory).unwrap().len(), 6);
}

#[test]
fn remove_segments_before_keeps_what_is_needed() {
    let mem = MemDirectory::new();
    write_records(&mem, 100);
    let (log, _) = open(arc(&mem), small_segments(Durability::Sync));
    assert_eq!(
        log.remove_segments_before(34).unwrap(),
        0,
        "LSN 34 is still needed"
    );
    assert_eq!(log.remove_segments_before(35).unwrap(), 1);
    assert_eq!(segment_names(&mem), [segment_name(35), segment_name(69)]);
    // The current segment is never removed, whatever the LSN.
    assert_eq!(log.remove_segments_before(1_000).unwrap(), 1);
    assert_eq!(segment_names(&mem), [segment_name(69)]);
    let stats = log.stats();
    assert_eq!(
        (stats.segments, stats.first_lsn, stats.last_lsn),
        (1, 69, 100)
    );
    log.append(0, b"more").unwrap();
    log.close().unwrap();

    // Removals were made durable.
    let crashed = mem.crash();
    assert_eq!(segment_names(&crashed), [segment_name(69)]);
    let (_, report) = open(arc(&crashed), small_segments(Durability::Sync));
    assert_eq!(
        (report.first_lsn, report.last_lsn, report.records),
        (69, 101, 33)
    );
    let tail = replay_from(&crashed, 69).unwrap();
    assert_eq!(tail.first().unwrap().0, 69);
    assert_eq!(tail.len(), 33);
    assert!(matches!(
        replay_from(&crashed, 10),
        Err(LogError::MissingRecords {
            wanted: 10,
            first: 69
        })
    ));
}

#[test]
fn replay_from_skips_earlier_records() {
    let mem = MemDirectory::new();
    write_records(&mem, 100);
    let records = replay_from(&mem, 50).unwrap();
    assert_eq!(records.len(), 51);
    assert_eq!(records[0].0, 50);
    assert!(replay_from(&mem, 101).unwrap().is_empty());
    let mut seen = 0;
    let report = strata_log::CommandLog::replay(&mem, 90, |_, _, _| {
        seen += 1;
        if seen == 3 {
            return Err(LogError::Closed);
        }
        Ok(())
    });
    assert!(
        matches!(report, Err(LogError::Closed)),
        "the callback's error stops the replay"
    );
    assert_eq!(seen, 3);
}

#[test]
fn bytes_since_counts_the_log_after_an_lsn() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), small_segments(Durability::Sync));
    for lsn in 1..=10_000u64 {
        log.append(0, &body_of(lsn, 100)).unwrap();
    }
    assert_eq!(log.bytes_since(10_000), 0);
    for lsn in [0u64, 100, 5_000, 9_999] {
        let exact = (10_000 - lsn) * RECORD_100;
        let got = log.bytes_since(lsn);
        assert!(
            got >= exact && got <= exact + (256 << 10) + RECORD_100,
            "{lsn}: {got} vs {exact}"
        );
    }
    log.close().unwrap();
    // Recovery restores the marks.
    let (log, _) = open(arc(&mem), small_segments(Durability::Sync));
    let exact = 5_000 * RECORD_100;
    assert!(log.bytes_since(5_000) >= exact);
    assert!(log.bytes_since(5_000) <= exact + (256 << 10) + RECORD_100);
}
