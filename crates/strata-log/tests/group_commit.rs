//! Sync mode under concurrency: every waiter returns only once its record is
//! durable, and one sync serves many records (group commit), for blocking
//! threads and for async tasks on a single-threaded runtime alike.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use strata_device::{Directory, MemDirectory};
use strata_log::{CommandLog, Durability, LogConfig, RecoveryPolicy};

fn slow_log(mem: &MemDirectory, config: LogConfig) -> CommandLog {
    let slow = SlowSync::delayed(arc(mem), Duration::from_millis(2));
    CommandLog::open(Arc::new(slow), config, RecoveryPolicy::Strict)
        .unwrap()
        .0
}

#[test]
fn threads_share_syncs() {
    let mem = MemDirectory::new();
    let log = Arc::new(slow_log(&mem, sync_config()));
    let threads = 8;
    let per_thread = if full() { 500 } else { 60 };
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                for i in 0..per_thread {
                    let body = format!("thread {t} record {i}");
                    let lsn = log.append(t as u8, body.as_bytes()).unwrap();
                    log.wait_durable(lsn).unwrap();
                    assert!(log.durable_lsn() >= lsn);
                    mine.push((lsn, body));
                }
                mine
            })
        })
        .collect();
    let mut acked: Vec<(u64, String)> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let records = (threads * per_thread) as u64;
    let stats = log.stats();
    assert_eq!(
        (stats.records, stats.last_lsn, stats.durable_lsn),
        (records, records, records)
    );
    assert!(
        stats.syncs * 2 < records,
        "{} syncs for {records} records",
        stats.syncs
    );

    // Everything acknowledged survives a power cut, each at its LSN.
    let crashed = mem.crash();
    let replayed = replay_all(&crashed as &dyn Directory).unwrap();
    acked.sort();
    assert_eq!(replayed.len(), acked.len());
    for ((lsn, body), (r_lsn, _, r_body)) in acked.iter().zip(&replayed) {
        assert_eq!((lsn, body.as_bytes()), (r_lsn, r_body.as_slice()));
    }
}

#[test]
fn async_waiters_do_not_block_the_worker() {
    let mem = MemDirectory::new();
    let log = Arc::new(slow_log(&mem, sync_config()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let tasks = 200u64;
    runtime.block_on(async {
        let mut handles = Vec::new();
        for i in 0..tasks {
            let log = Arc::clone(&log);
            handles.push(tokio::spawn(async move {
                let lsn = log.append(1, &i.to_le_bytes()).unwrap();
                log.durable(lsn).await.unwrap();
                assert!(log.durable_lsn() >= lsn);
            }));
        }
        for handle in handles {
            handle.await.unwrap();
        }
    });
    // One thread drives all tasks: had a wait blocked it, each record would
    // have needed its own sync.
    let syncs = log.stats().syncs;
    assert!(syncs * 4 < tasks, "{syncs} syncs for {tasks} records");
}

#[test]
fn back_pressure_bounds_the_buffer() {
    let mem = MemDirectory::new();
    let log = Arc::new(slow_log(&mem, sync_config().with_max_buffered(4096)));
    let writers: Vec<_> = (0..4)
        .map(|_| {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for _ in 0..100 {
                    log.append(2, &[3; 500]).unwrap();
                    assert!(log.stats().buffered_bytes <= 4096);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(log.flush().unwrap(), 400);
}

#[test]
fn future_lsn_is_refused() {
    let (log, _) = open(arc(&MemDirectory::new()), sync_config());
    log.append(1, b"a").unwrap();
    assert!(matches!(
        log.wait_durable(2),
        Err(strata_log::LogError::FutureLsn { lsn: 2, last: 1 })
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert!(runtime.block_on(log.durable(5)).is_err());
    assert!(runtime.block_on(log.durable(1)).is_ok());
}

#[test]
fn durability_mode_is_reported() {
    let (log, _) = open(
        arc(&MemDirectory::new()),
        LogConfig::new(Durability::async_default()),
    );
    assert_eq!(log.durability(), Durability::async_default());
}
