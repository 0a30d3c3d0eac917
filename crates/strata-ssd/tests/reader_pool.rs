//! Many `read_async` calls in flight at once, through a small pool with a
//! short queue, all complete with the right bytes, with either I/O engine.

use crate::common;

use common::*;
use strata_ssd::{IoEngine, SsdConfig};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_concurrent_async_reads_complete_correctly() {
    for engine in [IoEngine::Uring, IoEngine::Threads] {
        concurrent_reads(engine).await;
    }
}

async fn concurrent_reads(io_engine: IoEngine) {
    let device = mem_device(128);
    let config = SsdConfig {
        io_threads: 3,
        io_queue_depth: 8,
        io_engine,
        dram_cache_size: 0,
        ..config()
    };
    let store = open_empty(&device, config);
    let mut locs = Vec::new();
    for i in 0..1500u64 {
        let bytes = payload(i as u32, i, (i as usize * 37) % 6000);
        locs.push((store.append(PUT, &bytes).unwrap(), i));
    }
    store.flush().unwrap();
    let tasks: Vec<_> = locs
        .iter()
        .map(|&(loc, version)| {
            let read = store.read_async(loc);
            tokio::spawn(async move { (read.await, version) })
        })
        .collect();
    for task in tasks {
        let (read, version) = task.await.unwrap();
        assert_eq!(decode(&read.unwrap()).1, version);
    }
    let stats = store.stats();
    assert!(stats.device_reads + stats.buffer_reads >= 1500, "{stats:?}");
    // A location in a freed block is an error, not another record's bytes.
    let (loc, _) = locs[0];
    store.free_block(loc.block, true).unwrap();
    assert!(store.read_async(loc).await.is_err());
}
