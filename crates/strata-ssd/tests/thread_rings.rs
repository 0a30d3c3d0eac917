//! The io_uring engine's per-thread rings (`rings.rs`): reads of known
//! length asked from a tokio runtime go through the asking thread's own
//! ring and come back right, many more at once than a ring holds (the rest
//! through the pool); a runtime without an I/O driver falls back to the
//! pool without a panic; a ring whose runtime shut down is replaced, not
//! waited on forever.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use strata_device::uring_available;
use strata_ssd::{open_ssd_path, BlockLoc, IoEngine, IoMode, SsdConfig, SsdStore};
use tokio::runtime::{Builder, Runtime};

/// A store on a buffered file (tmpfs refuses `O_DIRECT`) with the ring
/// engine, rings of `depth`, no record cache; `n` records appended.
fn store_with(
    dir: &std::path::Path,
    depth: usize,
    n: u64,
) -> (SsdStore, Vec<(BlockLoc, usize, u64)>) {
    let device = open_ssd_path(dir, 256 * BLOCK as u64, IoMode::Buffered).unwrap();
    let config = SsdConfig {
        io_engine: IoEngine::Uring,
        io_queue_depth: depth,
        dram_cache_size: 0,
        ..config()
    };
    let mut recovery = SsdStore::open(device, config).unwrap();
    recovery.scan(|_, _, _| {}).unwrap();
    let store = recovery.finish().unwrap();
    let records = (0..n)
        .map(|i| {
            let bytes = payload(i as u32, i, (i as usize * 53) % 5000);
            (store.append(PUT, &bytes).unwrap(), bytes.len(), i)
        })
        .collect();
    store.flush().unwrap();
    (store, records)
}

/// Reads every record at once from tasks of `runtime` and checks them.
fn read_all(runtime: &Runtime, store: &SsdStore, records: &[(BlockLoc, usize, u64)]) {
    runtime.block_on(async {
        let tasks: Vec<_> = records
            .iter()
            .map(|&(loc, len, version)| {
                let read = store.fetch_async(loc, Some(len), version);
                tokio::spawn(async move { (read.await, version) })
            })
            .collect();
        for task in tasks {
            let (read, version) = task.await.unwrap();
            assert_eq!(decode(&read.unwrap()).1, version);
        }
    });
}

fn one_worker() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn reads_go_through_the_serving_threads_ring_and_overflow_to_the_pool() {
    if let Err(why) = uring_available() {
        return eprintln!("skipped: {why}");
    }
    let dir = tempfile::tempdir().unwrap();
    let (store, records) = store_with(dir.path(), 8, 1500);
    read_all(&one_worker(), &store, &records);
    let stats = store.stats();
    assert!(stats.thread_ring_reads > 0, "{stats:?}");
    assert!(stats.device_reads + stats.buffer_reads >= 1500, "{stats:?}");
    // 1,500 asked at once of rings of 8: the pool took the others.
    assert!(stats.thread_ring_reads < 1500, "{stats:?}");
    // A freed block's location is an error through the ring too.
    let (loc, len, _) = records[0];
    store.free_block(loc.block, true).unwrap();
    let freed = one_worker().block_on(store.fetch_async(loc, Some(len), 0));
    assert!(freed.is_err());
}

#[test]
fn a_runtime_without_io_reads_through_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    let (store, records) = store_with(dir.path(), 64, 300);
    let runtime = Builder::new_current_thread().build().unwrap();
    read_all(&runtime, &store, &records);
    assert_eq!(store.stats().thread_ring_reads, 0);
}

#[test]
fn a_ring_outliving_its_runtime_is_replaced() {
    if let Err(why) = uring_available() {
        return eprintln!("skipped: {why}");
    }
    let dir = tempfile::tempdir().unwrap();
    let (store, records) = store_with(dir.path(), 64, 200);
    let store = Arc::new(store);
    // Both runtimes run their tasks on this thread: the second finds the
    // first's ring, whose reaper went with its runtime.
    let (done, finished) = std::sync::mpsc::channel();
    let worker = {
        let store = store.clone();
        std::thread::spawn(move || {
            for _ in 0..2 {
                let before = store.stats().thread_ring_reads;
                let runtime = Builder::new_current_thread().enable_all().build().unwrap();
                read_all(&runtime, &store, &records);
                let _ = done.send(store.stats().thread_ring_reads - before);
            }
        })
    };
    for runtime in ["first", "second"] {
        let through_ring = finished
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the {runtime} runtime's reads ended"));
        assert!(
            through_ring > 0,
            "the {runtime} runtime read through its ring"
        );
    }
    worker.join().unwrap();
}
