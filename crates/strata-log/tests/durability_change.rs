//! `set_durability`: the mode changes while the log runs (a search index's
//! `translog.durability` set through `_settings`), and no waiter of the old
//! mode is stranded by the new one.

use crate::common;

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use strata_device::{Directory, MemDirectory};
use strata_log::{Durability, LogConfig, LogError};

fn slow_async() -> Durability {
    Durability::Async {
        sync_interval: Duration::from_secs(3600),
    }
}

/// Waits for `lsn` on another thread; the receiver gets the result.
fn wait_elsewhere(
    log: &Arc<strata_log::CommandLog>,
    lsn: u64,
) -> mpsc::Receiver<Result<(), LogError>> {
    let (tx, rx) = mpsc::channel();
    let log = Arc::clone(log);
    std::thread::spawn(move || {
        let _ = tx.send(log.wait_durable(lsn));
    });
    rx
}

#[test]
fn a_waiter_under_async_is_released_by_a_change_to_on_demand() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), LogConfig::new(slow_async()));
    let log = Arc::new(log);
    let lsn = log.append(1, b"written under async").unwrap();
    let done = wait_elsewhere(&log, lsn);
    // An hour's interval: nothing syncs it but the change.
    assert!(done.recv_timeout(Duration::from_millis(100)).is_err());
    log.set_durability(Durability::OnDemand).unwrap();
    done.recv_timeout(Duration::from_secs(10))
        .expect("the change syncs what was appended before it")
        .unwrap();
    assert_eq!(log.durability(), Durability::OnDemand);
    // From now on a wait asks for its own sync.
    let next = log.append(1, b"on demand").unwrap();
    log.wait_durable(next).unwrap();
    let crashed = mem.crash();
    assert_eq!(replay_all(&crashed as &dyn Directory).unwrap().len(), 2);
}

#[test]
fn after_a_change_to_async_the_interval_syncs_without_waiters() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), LogConfig::new(Durability::OnDemand));
    let first = log.append(1, b"before").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(log.durable_lsn(), 0, "on demand syncs nothing unasked");
    log.set_durability(Durability::Async {
        sync_interval: Duration::from_millis(20),
    })
    .unwrap();
    assert!(
        log.durable_lsn() >= first,
        "the change syncs what came before"
    );
    let second = log.append(1, b"after").unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while log.durable_lsn() < second {
        assert!(std::time::Instant::now() < deadline, "{:?}", log.stats());
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_change_to_sync_makes_every_later_write_durable_before_its_wait_returns() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), LogConfig::new(slow_async()));
    let log = Arc::new(log);
    log.append(1, b"async").unwrap();
    log.set_durability(Durability::Sync).unwrap();
    assert_eq!(log.durable_lsn(), 1);
    for i in 0..50u64 {
        let lsn = log.append(1, &i.to_le_bytes()).unwrap();
        wait_elsewhere(&log, lsn)
            .recv_timeout(Duration::from_secs(10))
            .expect("sync mode syncs by itself")
            .unwrap();
    }
    let crashed = mem.crash();
    assert_eq!(replay_all(&crashed as &dyn Directory).unwrap().len(), 51);
}

#[test]
fn an_interval_below_the_minimum_is_refused_and_changes_nothing() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), LogConfig::new(Durability::OnDemand));
    let err = log
        .set_durability(Durability::Async {
            sync_interval: Duration::from_millis(1),
        })
        .unwrap_err();
    assert!(matches!(err, LogError::Config(_)), "{err:?}");
    assert_eq!(log.durability(), Durability::OnDemand);
}
