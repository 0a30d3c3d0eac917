//! The on-disk format is versioned and must stay readable: a segment written
//! by format version 1 is kept in `tests/fixtures/v1/` and must open and
//! replay, and today's writer must still produce exactly those bytes.
//!
//! Regenerate (only when deliberately changing the format, together with a
//! new version number): `STRATA_WRITE_FIXTURES=1 cargo test -p strata-log --test integration --
//! --ignored format_fixture::write_v1_fixture`.

use crate::common;

use std::path::PathBuf;

use common::*;
use strata_device::{Directory, MemDirectory};
use strata_log::{Durability, FORMAT_VERSION};

const FIXTURE: &str = "log-00000000000000000001.seg";

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/v1")
        .join(FIXTURE)
}

/// The records of the fixture.
fn fixture_records() -> Vec<(u64, u8, Vec<u8>)> {
    (1..=12u64)
        .map(|lsn| {
            (
                lsn,
                (lsn % 3) as u8,
                format!("v1 record {lsn}: {}", "x".repeat(lsn as usize)).into_bytes(),
            )
        })
        .collect()
}

/// Writes the fixture records into a fresh log in `mem` and returns the
/// segment's bytes.
fn write_fixture_log(mem: &MemDirectory) -> Vec<u8> {
    write_log_with(mem, sync_config().with_preallocation(0))
}

fn write_log_with(mem: &MemDirectory, config: strata_log::LogConfig) -> Vec<u8> {
    let (log, _) = open(arc(mem), config);
    for (lsn, kind, body) in fixture_records() {
        assert_eq!(log.append(kind, &body).unwrap(), lsn);
    }
    log.close().unwrap();
    let dev = mem.open(FIXTURE).unwrap();
    let mut bytes = vec![0; dev.len().unwrap() as usize];
    dev.read_exact_at(&mut bytes, 0).unwrap();
    bytes
}

#[test]
fn v1_fixture_opens_and_replays() {
    assert_eq!(FORMAT_VERSION, 1);
    let bytes = std::fs::read(fixture_path()).expect("fixture present");
    let mem = MemDirectory::new();
    let dev = mem.create(FIXTURE).unwrap();
    dev.write_all_at(&bytes, 0).unwrap();
    dev.sync().unwrap();
    mem.sync_names().unwrap();
    let (log, report) = open(arc(&mem), small_segments(Durability::Sync));
    assert_eq!(
        (report.records, report.last_lsn, report.bytes_dropped),
        (12, 12, 0)
    );
    assert_eq!(log.append(0, b"new").unwrap(), 13);
    log.close().unwrap();
    let mut replayed = replay_all(&mem).unwrap();
    assert_eq!(replayed.pop().unwrap(), (13, 0, b"new".to_vec()));
    assert_eq!(replayed, fixture_records());
}

#[test]
fn writer_still_produces_the_v1_bytes() {
    let bytes = std::fs::read(fixture_path()).expect("fixture present");
    assert_eq!(write_fixture_log(&MemDirectory::new()), bytes);
    // Preallocation adds only zeros after the same bytes.
    let preallocated = write_log_with(&MemDirectory::new(), sync_config());
    assert!(preallocated.len() > bytes.len());
    assert_eq!(&preallocated[..bytes.len()], &bytes[..]);
    assert!(preallocated[bytes.len()..].iter().all(|&b| b == 0));
}

#[test]
#[ignore = "regenerates the fixture (with STRATA_WRITE_FIXTURES=1)"]
fn write_v1_fixture() {
    // `--include-ignored` (`scripts/test --full`) runs this too: without
    // the variable it must not rewrite the file the other tests read (it
    // raced them, and would hide a format change by rewriting its fixture).
    if std::env::var_os("STRATA_WRITE_FIXTURES").is_none() {
        return;
    }
    let bytes = write_fixture_log(&MemDirectory::new());
    std::fs::create_dir_all(fixture_path().parent().unwrap()).unwrap();
    std::fs::write(fixture_path(), bytes).unwrap();
}
