//! On-demand mode: records are written but never synced until someone
//! waits (`durable`, `wait_durable`, `flush`); a wait makes its record and
//! everything before it durable with one sync, and a crash before any wait
//! may lose what was only written.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use strata_device::{Directory, MemDirectory};
use strata_log::{Durability, LogConfig};

fn on_demand() -> LogConfig {
    LogConfig::new(Durability::OnDemand)
}

#[test]
fn nothing_is_synced_until_someone_waits() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), on_demand());
    for i in 0..1000u64 {
        log.append(1, &i.to_le_bytes()).unwrap();
    }
    // Longer than the write delay: the records are written, not synced.
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(log.durable_lsn(), 0, "{:?}", log.stats());
    let syncs_before = log.stats().syncs;
    log.wait_durable(500).unwrap();
    assert!(log.durable_lsn() >= 500);
    // One request, one sync (a rotation could add one; none happens here).
    assert_eq!(log.stats().syncs, syncs_before + 1, "{:?}", log.stats());
    let crashed = mem.crash();
    assert!(replay_all(&crashed as &dyn Directory).unwrap().len() >= 500);
}

#[test]
fn an_async_wait_requests_the_sync_and_resolves() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), on_demand());
    let mut last = 0;
    for i in 0..100u64 {
        last = log.append(1, &i.to_le_bytes()).unwrap();
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    runtime.block_on(log.durable(last)).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(log.durable_lsn(), 100);
    // A record appended after the wait is not synced by it.
    log.append(1, b"after").unwrap();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(log.durable_lsn(), 100);
    let crashed = mem.crash();
    let records = replay_all(&crashed as &dyn Directory).unwrap();
    assert!(records.len() == 100 || records.len() == 101);
}

#[test]
fn concurrent_waiters_share_syncs() {
    let mem = MemDirectory::new();
    let (log, _) = open(arc(&mem), on_demand());
    let log = std::sync::Arc::new(log);
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let log = std::sync::Arc::clone(&log);
            std::thread::spawn(move || {
                for bulk in 0..10u64 {
                    let mut last = 0;
                    for i in 0..200u64 {
                        last = log
                            .append(1, &(w * 1_000_000 + bulk * 1000 + i).to_le_bytes())
                            .unwrap();
                    }
                    log.wait_durable(last).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(log.durable_lsn(), 8000);
    // At most one sync per acknowledged bulk (40), however many records.
    assert!(log.stats().syncs <= 41, "{:?}", log.stats());
    let crashed = mem.crash();
    assert_eq!(replay_all(&crashed as &dyn Directory).unwrap().len(), 8000);
}
