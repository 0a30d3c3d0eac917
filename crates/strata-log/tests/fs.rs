//! The log on a real filesystem, through `FsDirectory`, in both sync modes
//! (`direct` is skipped where the filesystem refuses `O_DIRECT`, e.g. tmpfs).

use crate::common;

use std::sync::Arc;

use common::*;
use strata_device::{Directory, FsDirectory, SyncMode};
use strata_log::{CommandLog, Durability, LogConfig, RecoveryPolicy};

fn round_trip(mode: SyncMode) {
    let tmp = tempfile::tempdir().unwrap();
    let dir: Arc<dyn Directory> = match FsDirectory::open(tmp.path(), mode) {
        Ok(dir) => Arc::new(dir),
        Err(e) => {
            eprintln!("skipping {mode}: {e}");
            return;
        }
    };
    let config = LogConfig::new(Durability::Sync).with_segment_size(64 << 10);
    let opened = CommandLog::open(Arc::clone(&dir), config.clone(), RecoveryPolicy::Strict);
    let (log, _) = match opened {
        Ok(opened) => opened,
        Err(e) if mode == SyncMode::DirectDsync => {
            eprintln!("skipping {mode}: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    for lsn in 1..=2_000u64 {
        assert_eq!(
            log.append((lsn % 5) as u8, &body_of(lsn, (lsn % 200) as usize))
                .unwrap(),
            lsn
        );
        if lsn % 100 == 0 {
            log.wait_durable(lsn).unwrap();
        }
    }
    log.close().unwrap();
    assert!(segment_names(&*dir).len() > 1);

    let (log, report) = CommandLog::open(Arc::clone(&dir), config, RecoveryPolicy::Strict).unwrap();
    assert_eq!((report.last_lsn, report.bytes_dropped), (2_000, 0));
    drop(log);
    let records = replay_all(&*dir).unwrap();
    assert_eq!(records.len(), 2_000);
    for (i, (lsn, kind, body)) in records.into_iter().enumerate() {
        let want = i as u64 + 1;
        assert_eq!(
            (lsn, kind, body),
            (want, (want % 5) as u8, body_of(want, (want % 200) as usize))
        );
    }
}

#[test]
fn fdatasync_files_round_trip() {
    round_trip(SyncMode::Fdatasync);
}

#[test]
fn direct_files_round_trip() {
    round_trip(SyncMode::DirectDsync);
}
