//! Async mode: records become durable within the sync interval without
//! anyone waiting, `flush` makes everything durable at once, and the number
//! of syncs is bounded by the interval, not by the number of records; under
//! load, records are written on the flusher's timer without a signal.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use strata_device::{Directory, MemDirectory};
use strata_log::{CommandLog, Durability, LogConfig, LogError, RecoveryPolicy};

fn async_config(ms: u64) -> LogConfig {
    LogConfig::new(Durability::Async {
        sync_interval: Duration::from_millis(ms),
    })
}

#[test]
fn records_become_durable_within_the_interval() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), async_config(10));
    for i in 0..1000u64 {
        log.append(1, &i.to_le_bytes()).unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while log.durable_lsn() < 1000 {
        assert!(Instant::now() < deadline, "not durable: {:?}", log.stats());
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(log.stats().syncs < 50, "{:?}", log.stats());
    let crashed = mem.crash();
    assert_eq!(replay_all(&crashed as &dyn Directory).unwrap().len(), 1000);
}

#[test]
fn flush_makes_everything_durable_now() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), async_config(3_600_000));
    for i in 0..100u64 {
        log.append(1, &i.to_le_bytes()).unwrap();
    }
    assert_eq!(log.flush().unwrap(), 100);
    assert_eq!(log.durable_lsn(), 100);
    log.append(1, b"not flushed").unwrap();
    let crashed = mem.crash();
    let (_, report) = open(arc(&crashed), async_config(10));
    // Only the window since the last sync is lost.
    assert_eq!(report.last_lsn, 100);
    assert_eq!(log.flush().unwrap(), 101);
}

#[test]
fn close_flushes() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), async_config(3_600_000));
    log.append(1, b"a").unwrap();
    log.append(2, b"b").unwrap();
    assert_eq!(log.close().unwrap(), 2);
    let crashed = mem.crash();
    let records = replay_all(&crashed as &dyn Directory).unwrap();
    assert_eq!(records, vec![(1, 1, b"a".to_vec()), (2, 2, b"b".to_vec())]);
}

#[test]
fn drop_flushes_too() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), async_config(3_600_000));
    log.append(1, b"a").unwrap();
    drop(log);
    assert_eq!(replay_all(&mem.crash() as &dyn Directory).unwrap().len(), 1);
}

#[test]
fn waiting_in_async_mode_waits_for_the_next_sync() {
    let (log, _) = open(arc(&MemDirectory::new()), async_config(10));
    let lsn = log.append(1, b"x").unwrap();
    log.wait_durable(lsn).unwrap();
    assert!(log.durable_lsn() >= lsn);
}

#[test]
fn too_short_interval_is_rejected() {
    let result = CommandLog::open(
        arc(&MemDirectory::new()),
        async_config(5),
        RecoveryPolicy::Strict,
    );
    assert!(matches!(result, Err(LogError::Config(_))));
    let tiny = LogConfig::default().with_segment_size(100);
    let result = CommandLog::open(arc(&MemDirectory::new()), tiny, RecoveryPolicy::Strict);
    assert!(matches!(result, Err(LogError::Config(_))));
}

#[test]
fn a_steady_trickle_is_written_within_the_write_delay() {
    // Under load the flusher is not signalled by appends: it wakes on its
    // own timer. Whatever the timing, no record may wait for the (here
    // hour-long) sync interval to leave the append buffer.
    let (log, _) = open(arc(&MemDirectory::new()), async_config(3_600_000));
    for i in 0..300u64 {
        log.append(1, &i.to_le_bytes()).unwrap();
        if i % 3 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    // The last append came while the flusher was busy or polling.
    let deadline = Instant::now() + Duration::from_secs(5);
    wait_written(&log, deadline);
    // Once idle again, a lone record is written after being signalled.
    std::thread::sleep(Duration::from_millis(50));
    log.append(1, b"lone").unwrap();
    wait_written(&log, deadline);
    assert_eq!(log.stats().syncs, 0, "{:?}", log.stats());
}

/// Waits until the append buffer is empty (everything handed to the
/// directory), failing at `deadline`.
fn wait_written(log: &CommandLog, deadline: Instant) {
    while log.stats().buffered_bytes > 0 {
        assert!(
            Instant::now() < deadline,
            "still buffered: {:?}",
            log.stats()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}
