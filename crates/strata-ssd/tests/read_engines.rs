//! `read_async` and `fetch_async` on real files (`O_DIRECT` where the
//! temporary directory allows, and buffered) with both I/O engines: many
//! concurrent reads of records spread over many blocks all come back
//! whole, and a read the device cannot serve, or that finds corrupt bytes,
//! fails with the same error either way.

use crate::common;

use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;

use common::*;
use strata_device::{uring_available, MemBlockDevice};
use strata_ssd::{open_ssd_path, BlockLoc, IoEngine, IoMode, SsdConfig, SsdError, SsdStore};

const BLOCKS: usize = 256;

fn engine_config(io_engine: IoEngine) -> SsdConfig {
    SsdConfig {
        io_threads: 2,
        io_queue_depth: 32,
        io_engine,
        dram_cache_size: 0,
        ..config()
    }
}

/// A store on a file in `dir`, or `None` where the filesystem refuses
/// `mode`.
fn file_store(dir: &Path, mode: IoMode, io_engine: IoEngine) -> Option<SsdStore> {
    let device = match open_ssd_path(dir, (BLOCKS * BLOCK) as u64, mode) {
        Ok(device) => device,
        Err(SsdError::Io { source, .. }) if source.kind() == ErrorKind::Unsupported => {
            eprintln!("skipped: {source}");
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    let mut recovery = SsdStore::open(device, engine_config(io_engine)).unwrap();
    recovery.scan(|_, _, _| {}).unwrap();
    let store = recovery.finish().unwrap();
    let expected = match uring_available() {
        Ok(()) => io_engine,
        Err(_) => IoEngine::Threads,
    };
    assert_eq!(store.io_engine(), expected);
    Some(store)
}

/// Records of 0 to 9 KiB (many crossing a 4 KiB window, some longer than
/// one), the newest in the open block.
fn fill(store: &SsdStore) -> Vec<(BlockLoc, usize, u64)> {
    let records = (0..2500u64)
        .map(|i| {
            let filler = (i as usize * 1237) % 9000;
            let loc = store.append(PUT, &payload(i as u32, i, filler)).unwrap();
            (loc, 12 + filler, i)
        })
        .collect();
    store.flush().unwrap();
    records
}

async fn read_all_concurrently(store: &SsdStore, records: &[(BlockLoc, usize, u64)]) {
    let tasks: Vec<_> = records
        .iter()
        .map(|&(loc, len, version)| {
            // Half know their length (one device read), half do not.
            let read = match version % 2 {
                0 => tokio::spawn(store.read_async(loc)),
                _ => tokio::spawn(store.fetch_async(loc, Some(len), version)),
            };
            (read, version)
        })
        .collect();
    for (task, version) in tasks {
        let bytes = task.await.unwrap().unwrap();
        assert_eq!(decode(&bytes).1, version);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_reads_on_files_come_back_whole_with_both_engines() {
    let shm = Path::new("/dev/shm");
    for io_engine in [IoEngine::Uring, IoEngine::Threads] {
        for mode in [IoMode::Direct, IoMode::Buffered] {
            let dir = match mode {
                IoMode::Buffered if shm.is_dir() => tempfile::tempdir_in(shm).unwrap(),
                _ => tempfile::tempdir().unwrap(),
            };
            let Some(store) = file_store(dir.path(), mode, io_engine) else {
                continue;
            };
            let records = fill(&store);
            let blocks: std::collections::BTreeSet<u32> =
                records.iter().map(|r| r.0.block).collect();
            assert!(blocks.len() > 20, "spread over many blocks");
            let before = store.stats().device_reads;
            read_all_concurrently(&store, &records).await;
            assert!(store.stats().device_reads - before >= 2000);
            // A location in a freed block is an error, not another
            // record's bytes.
            let (loc, _, _) = records[0];
            store.free_block(loc.block, true).unwrap();
            assert!(store.read_async(loc).await.is_err());
        }
    }
}

/// The file cut short under the store: reads of the blocks gone fail with
/// the device's end-of-file error, the others still succeed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_past_a_file_cut_short_fail_with_both_engines() {
    for io_engine in [IoEngine::Uring, IoEngine::Threads] {
        let dir = tempfile::tempdir().unwrap();
        let Some(store) = file_store(dir.path(), IoMode::Buffered, io_engine) else {
            continue;
        };
        let records = fill(&store);
        let cut_block = records[records.len() / 2].0.block;
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join(strata_ssd::DATA_FILE_NAME))
            .unwrap();
        file.set_len((cut_block as usize * BLOCK) as u64).unwrap();
        let (kept, gone): (Vec<_>, Vec<_>) = records.iter().partition(|r| r.0.block < cut_block);
        read_all_concurrently(&store, &kept).await;
        for &(loc, _, _) in gone.iter().step_by(50) {
            match store.read_async(loc).await {
                Err(SsdError::Io { source, .. }) => {
                    assert_eq!(source.kind(), ErrorKind::UnexpectedEof, "{io_engine}")
                }
                Ok(bytes) if loc.block == records.last().unwrap().0.block => {
                    // The open block is read from DRAM.
                    decode(&bytes);
                }
                other => panic!("{io_engine}: read of {loc:?} gave {other:?}"),
            }
        }
    }
}

/// A flipped byte on the device: the pooled read reports the corruption
/// at the entry's place with either engine (the memory device reads one
/// by one in a batch, as the faulty device does).
#[tokio::test(flavor = "current_thread")]
async fn corrupt_entries_fail_pooled_reads_with_both_engines() {
    for io_engine in [IoEngine::Uring, IoEngine::Threads] {
        let device = MemBlockDevice::new(BLOCKS * BLOCK);
        let mut recovery =
            SsdStore::open(Arc::new(device.clone()), engine_config(io_engine)).unwrap();
        recovery.scan(|_, _, _| {}).unwrap();
        let store = recovery.finish().unwrap();
        let records = fill(&store);
        let (victim, _, _) = records[3];
        device.damage(
            u64::from(victim.block) * BLOCK as u64 + u64::from(victim.offset) + 14,
            0x40,
        );
        match store.read_async(victim).await {
            Err(SsdError::Corrupt { block, offset, .. }) => {
                assert_eq!((block, offset), (victim.block, victim.offset));
            }
            other => panic!("{io_engine}: read gave {other:?}"),
        }
        let (fine, _, version) = records[4];
        assert_eq!(decode(&store.read_async(fine).await.unwrap()).1, version);
    }
}
