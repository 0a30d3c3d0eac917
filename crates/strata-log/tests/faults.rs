//! Device failures with `FaultyDirectory`: a failed sync, or a write
//! failing with an I/O error, poisons the log. Waiters get the error, later
//! appends are refused, the durable LSN never moves again, and what was
//! acknowledged before survives a power cut. (A full disk stalls the log
//! instead: `full_disk.rs`.)

use crate::common;

use std::error::Error as _;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use strata_device::{Directory, Faults, FaultyDirectory, MemDirectory};
use strata_log::{CommandLog, Durability, LogConfig, LogError, RecoveryPolicy};

struct Rig {
    mem: MemDirectory,
    faults: Arc<Faults>,
    log: CommandLog,
}

fn rig(config: LogConfig) -> Rig {
    let mem = MemDirectory::new();
    let faulty = FaultyDirectory::new(arc(&mem));
    let faults = faulty.faults();
    let (log, _) = CommandLog::open(Arc::new(faulty), config, RecoveryPolicy::Strict).unwrap();
    Rig { mem, faults, log }
}

fn assert_poisoned<T: std::fmt::Debug>(result: Result<T, LogError>) {
    match result {
        Err(LogError::Poisoned { .. }) => {}
        other => panic!("expected Poisoned, got {other:?}"),
    }
}

/// Acknowledged records (LSNs 1..=acked) survive a power cut of the
/// underlying directory.
fn assert_survives(mem: &MemDirectory, acked: u64) {
    let crashed = mem.crash();
    let (_, report) = open(arc(&crashed), sync_config());
    assert!(
        report.last_lsn >= acked,
        "acknowledged {acked}, recovered {}",
        report.last_lsn
    );
}

fn append_acked(log: &CommandLog, n: u64) {
    for _ in 0..n {
        let lsn = log.append(1, &[7; 100]).unwrap();
        log.wait_durable(lsn).unwrap();
    }
}

#[test]
fn failing_sync_poisons_and_nothing_is_acknowledged_after() {
    let Rig { mem, faults, log } = rig(sync_config());
    append_acked(&log, 10);
    faults.fail_syncs_after(0);
    let lsn = log.append(1, b"doomed").unwrap();
    assert_poisoned(log.wait_durable(lsn));
    assert_eq!(log.durable_lsn(), 10);
    let cause = log.poisoned().expect("poisoned");
    assert!(matches!(*cause, LogError::Io { .. }), "{cause}");
    assert!(log.stats().poisoned.unwrap().contains("sync"));
    assert_poisoned(log.append(1, b"refused"));
    // Healing the device does not un-poison: the failed sync is never retried.
    faults.heal();
    assert_poisoned(log.append(1, b"still refused"));
    assert_poisoned(log.flush());
    assert_poisoned(log.rotate());
    assert_eq!(log.durable_lsn(), 10);
    assert_poisoned(log.close());
    assert_survives(&mem, 10);
}

#[test]
fn poisoned_error_keeps_its_cause() {
    let Rig { faults, log, .. } = rig(sync_config());
    faults.fail_syncs_after(0);
    let lsn = log.append(1, b"x").unwrap();
    let err = log.wait_durable(lsn).unwrap_err();
    let io = err
        .source()
        .and_then(|cause| cause.source())
        .expect("I/O source");
    assert!(io.downcast_ref::<std::io::Error>().is_some(), "{io}");
}

#[test]
fn every_blocked_waiter_gets_the_error() {
    let config = LogConfig::new(Durability::Async {
        sync_interval: Duration::from_secs(3600),
    });
    let Rig { faults, log, .. } = rig(config);
    let log = Arc::new(log);
    let lsns: Vec<u64> = (0..4).map(|_| log.append(1, &[1; 50]).unwrap()).collect();
    let waiters: Vec<_> = lsns
        .iter()
        .map(|&lsn| {
            let log = Arc::clone(&log);
            std::thread::spawn(move || log.wait_durable(lsn))
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let pending = log.durable(lsns[3]);
    faults.fail_syncs_after(0);
    assert_poisoned(log.flush());
    for waiter in waiters {
        assert_poisoned(waiter.join().unwrap());
    }
    assert_poisoned(runtime.block_on(pending));
    assert_poisoned(runtime.block_on(log.durable(lsns[0])));
    assert_eq!(log.durable_lsn(), 0);
}

#[test]
fn failing_write_poisons() {
    let Rig { mem, faults, log } = rig(sync_config());
    append_acked(&log, 3);
    faults.fail_writes_after(0);
    let lsn = log.append(1, b"lost").unwrap();
    assert_poisoned(log.wait_durable(lsn));
    assert_eq!(log.durable_lsn(), 3);
    drop(log);
    assert_survives(&mem, 3);
}

#[test]
fn torn_write_poisons_and_recovery_cuts_it() {
    let Rig { mem, faults, log } = rig(sync_config());
    append_acked(&log, 3);
    faults.tear_next_write(30);
    let lsn = log.append(1, &[5; 100]).unwrap();
    assert_poisoned(log.wait_durable(lsn));
    drop(log);
    // Without a power cut the torn bytes are still in the file: recovery
    // cuts them as a torn tail.
    let (_, report) = open(arc(&mem), sync_config());
    assert_eq!((report.last_lsn, report.bytes_dropped), (3, 30));
}

#[test]
fn failing_syncs_while_rotating_poison() {
    // The rotation syncs the new header, then the directory.
    for allowed in 0..2 {
        let Rig { mem, faults, log } = rig(sync_config());
        append_acked(&log, 3);
        faults.fail_syncs_after(allowed);
        assert_poisoned(log.rotate());
        assert_poisoned(log.append(1, b"x"));
        drop(log);
        assert_survives(&mem, 3);
    }
}

#[test]
fn failing_syncs_on_open_are_errors() {
    let mem = MemDirectory::new();
    write_records(&mem, 3);
    let faulty = FaultyDirectory::new(arc(&mem));
    faulty.faults().fail_syncs_after(0);
    match CommandLog::open(Arc::new(faulty), sync_config(), RecoveryPolicy::Strict) {
        Err(LogError::Io { .. }) => {}
        other => panic!("expected an I/O error, got {:?}", other.map(|(_, r)| r)),
    }
    let fresh = FaultyDirectory::new(Arc::new(MemDirectory::new()) as Arc<dyn Directory>);
    fresh.faults().fail_syncs_after(0);
    assert!(CommandLog::open(Arc::new(fresh), sync_config(), RecoveryPolicy::Strict).is_err());
}
