//! A full disk (`FaultyDirectory::set_capacity`): the log stalls instead of
//! poisoning. Appends are still accepted (and say so through
//! `write_stalled`), nothing is acknowledged or lost, and once space is
//! freed the retried writes succeed, every record becomes durable in order
//! and survives a power cut. A failed sync during or after a stall still
//! poisons, and the unacknowledged tail is cut off.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use strata_device::{Faults, FaultyDirectory, MemDirectory};
use strata_log::{CommandLog, Durability, LogConfig, LogError, RecoveryPolicy};

fn rig(config: LogConfig) -> (MemDirectory, Arc<Faults>, CommandLog) {
    let mem = MemDirectory::new();
    let faulty = FaultyDirectory::new(arc(&mem));
    let faults = faulty.faults();
    let (log, _) = CommandLog::open(Arc::new(faulty), config, RecoveryPolicy::Strict).unwrap();
    (mem, faults, log)
}

/// Waits up to 5 s for `done`.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn bytes_used(mem: &MemDirectory) -> u64 {
    segment_names(mem).iter().map(|n| file_len(mem, n)).sum()
}

/// Fills the disk while appending (`n` records of `len` bytes), then frees
/// space.
fn stall_then_resume(config: LogConfig, n: u64, len: usize) {
    let (mem, faults, log) = rig(config);
    for lsn in 1..=5 {
        log.append(1, &body_of(lsn, len)).unwrap();
        log.wait_durable(lsn).unwrap();
    }
    faults.set_capacity(bytes_used(&mem) + 1000);
    let mut last = 5;
    // More than fits: the flusher stalls, and appends go on being accepted.
    for lsn in 6..=5 + n {
        assert_eq!(log.append(1, &body_of(lsn, len)).unwrap(), lsn);
        last = lsn;
    }
    eventually("the log stalls", || log.write_stalled().is_some());
    let cause = log.write_stalled().unwrap();
    assert_eq!(
        cause.os_reason().as_deref(),
        Some("No space left on device"),
        "{cause}"
    );
    assert!(log.stats().stalled.is_some());
    assert!(log.poisoned().is_none(), "a full disk must not poison");
    let durable = log.durable_lsn();
    assert!(
        durable < last,
        "acknowledged {durable} of {last} on a full disk"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        log.durable_lsn(),
        durable,
        "no progress while the disk is full"
    );
    // Space is freed: the retries succeed and everything becomes durable.
    faults.heal();
    log.wait_durable(last).unwrap();
    eventually("the stall ends", || log.write_stalled().is_none());
    append_one_more_then_survive_a_power_cut(&mem, log, last, len);
}

/// Once space is back and `last` is durable: one more record is appended
/// and made durable, and after a power cut every record `1..=last + 1` is
/// there, in order, with its own body (`len` bytes).
fn append_one_more_then_survive_a_power_cut(
    mem: &MemDirectory,
    log: CommandLog,
    last: u64,
    len: usize,
) {
    let more = log.append(1, &body_of(last + 1, len)).unwrap();
    log.wait_durable(more).unwrap();
    drop(log);
    let records = replay_all(&mem.crash()).unwrap();
    let lsns: Vec<u64> = records.iter().map(|r| r.0).collect();
    assert_eq!(lsns, (1..=more).collect::<Vec<_>>());
    for (lsn, _, body) in records {
        assert_eq!(body, body_of(lsn, len), "LSN {lsn}");
    }
}

#[test]
fn a_full_disk_stalls_and_writes_resume_once_space_is_freed() {
    // Past the preallocated zeros (1 MiB ahead): writing those needs no
    // new space, then the zeros ahead fail first, then the records.
    stall_then_resume(sync_config(), 100, 30_000);
}

#[test]
fn a_full_disk_stalls_in_async_mode_too() {
    let config = LogConfig::new(Durability::Async {
        sync_interval: Duration::from_millis(20),
    });
    stall_then_resume(config.with_preallocation(0), 100, 100);
}

#[test]
fn a_full_disk_while_rotating_stalls_and_resumes() {
    // 34 records per segment: the stall lands on segment creations.
    stall_then_resume(
        small_segments(Durability::Sync).with_preallocation(0),
        100,
        100,
    );
}

#[test]
fn a_failed_sync_after_a_stall_still_poisons_and_cuts_the_unsynced_tail() {
    let (mem, faults, log) = rig(sync_config().with_preallocation(0));
    let first = log.append(1, &body_of(1, 100)).unwrap();
    log.wait_durable(first).unwrap();
    faults.set_capacity(bytes_used(&mem) + 50);
    let doomed = log.append(1, &body_of(2, 100)).unwrap();
    eventually("the log stalls", || log.write_stalled().is_some());
    faults.fail_syncs_after(0);
    faults.set_capacity(u64::MAX - 1);
    match log.wait_durable(doomed) {
        Err(LogError::Poisoned { .. }) => {}
        other => panic!("expected Poisoned, got {other:?}"),
    }
    assert!(log.append(1, b"refused").is_err());
    drop(log);
    // Without a power cut: the written but never synced record was cut
    // off, so it does not come back.
    faults.heal();
    let records = replay_all(&mem).unwrap();
    assert_eq!(records.len(), 1, "the unacknowledged record came back");
}

#[test]
fn records_written_past_failed_preallocation_are_not_zeroed_later() {
    // One 100-byte record per round and a small preallocation step: once
    // the zeros ahead run out, a page of zeros no longer fits but a record
    // does, so records land past the preallocated end. Zeros written ahead
    // later (once space is freed) must start after them, not over them.
    let (mem, faults, log) = rig(sync_config().with_preallocation(8 << 10));
    let mut lsn = 0;
    let mut capped = false;
    while log.write_stalled().is_none() {
        lsn = log.append(1, &body_of(lsn + 1, 100)).unwrap();
        eventually("the record is durable or the log stalls", || {
            log.durable_lsn() >= lsn || log.write_stalled().is_some()
        });
        if !capped && lsn == 5 {
            faults.set_capacity(bytes_used(&mem) + 3000);
            capped = true;
        }
        assert!(lsn < 10_000, "the log never stalled");
    }
    faults.heal();
    log.wait_durable(lsn).unwrap();
    append_one_more_then_survive_a_power_cut(&mem, log, lsn, 100);
}
