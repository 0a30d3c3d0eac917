//! `strata lab ssd-iops`'s in-process half ([`ssd_reads_hook`]): the SSD
//! store on a data file, read at random by many concurrent `fetch_async`s.
//!
//! A fresh file is filled with records of [`PAYLOAD`] bytes until the store
//! is full; an existing one is opened and every record kept. Only records
//! whose entry lies inside one 4 KiB window are read, so that each read is
//! one 4 KiB `O_DIRECT` device read, like fio's `--bs=4k`. The record
//! cache is off: every read goes to the device.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{rngs::SmallRng, Rng, SeedableRng};
use strata_lab::lab::{SsdReadsResult, SsdReadsRun};
use strata_ssd::{open_ssd_path, BlockLoc, IoMode, SsdConfig, SsdError, SsdStore, DATA_FILE_NAME};

/// Bytes per write block.
const BLOCK_SIZE: usize = 1 << 20;
/// Payload bytes per record: with the 12-byte entry header, 1 KiB entries,
/// three in four inside one 4 KiB window.
const PAYLOAD: usize = 1012;
/// Entry header bytes (the store's format).
const ENTRY_HEADER: usize = 12;
/// The read unit.
const WINDOW: usize = 4096;

/// Runs one measurement (see the module's doc).
pub fn ssd_reads_hook(run: &SsdReadsRun) -> Result<SsdReadsResult, String> {
    let text = |e: SsdError| e.to_string();
    let config = SsdConfig {
        block_size: BLOCK_SIZE,
        io_threads: run.io_threads,
        io_queue_depth: run.depth,
        io_engine: run.engine.parse()?,
        dram_cache_size: 0,
        ..SsdConfig::default()
    };
    let data_file = run.dir.join(DATA_FILE_NAME);
    let fresh = !data_file.exists();
    let device = open_ssd_path(&run.dir, run.file_size, IoMode::Direct).map_err(text)?;
    let mut recovery = SsdStore::open(device, config).map_err(text)?;
    let mut records: Vec<(BlockLoc, usize)> = Vec::new();
    recovery
        .scan(|loc, _, payload| records.push((loc, payload.len())))
        .map_err(text)?;
    for &(loc, len) in &records {
        recovery.set_live(loc, len).map_err(text)?;
    }
    let store = recovery.finish().map_err(text)?;
    if fresh {
        fill(&store, &mut records).map_err(text)?;
    }
    records.retain(|(loc, len)| loc.offset as usize % WINDOW + ENTRY_HEADER + len <= WINDOW);
    let Some(last) = records.iter().map(|(loc, _)| loc.block).max() else {
        return Err(format!("{}: no records to read", data_file.display()));
    };
    let data_bytes = (u64::from(last) + 1) * BLOCK_SIZE as u64;
    let (reads, errors, seconds, cpu_seconds) = measure(&store, Arc::new(records), run)?;
    Ok(SsdReadsResult {
        reads,
        errors,
        seconds,
        cpu_seconds,
        engine: store.io_engine().to_string(),
        data_bytes,
        read_size: WINDOW as u64,
        data_file,
    })
}

/// Appends records until the store refuses for lack of room, then flushes.
fn fill(store: &SsdStore, records: &mut Vec<(BlockLoc, usize)>) -> Result<(), SsdError> {
    let payload = vec![0x5a_u8; PAYLOAD];
    loop {
        match store.append(1, &payload) {
            Ok(loc) => records.push((loc, PAYLOAD)),
            Err(SsdError::Full { .. }) => break,
            Err(e) => return Err(e),
        }
    }
    store.flush()
}

/// `run.depth` loops of `fetch_async` at uniformly random records; counts
/// the reads and the process's CPU time over the measured window.
fn measure(
    store: &SsdStore,
    records: Arc<Vec<(BlockLoc, usize)>>,
    run: &SsdReadsRun,
) -> Result<(u64, u64, f64, f64), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("strata-lab-ssd")
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let reads = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    runtime.block_on(async {
        let loops: Vec<_> = (0..run.depth)
            .map(|i| {
                let (store, records) = (store.clone(), records.clone());
                let (reads, errors, stop) = (reads.clone(), errors.clone(), stop.clone());
                tokio::spawn(async move {
                    let mut rng = SmallRng::seed_from_u64(i as u64);
                    while !stop.load(Ordering::Relaxed) {
                        let (loc, len) = records[rng.gen_range(0..records.len())];
                        match store.fetch_async(loc, Some(len), loc.pack()).await {
                            Ok(_) => reads.fetch_add(1, Ordering::Relaxed),
                            Err(_) => errors.fetch_add(1, Ordering::Relaxed),
                        };
                    }
                })
            })
            .collect();
        tokio::time::sleep(run.warmup).await;
        let (reads0, errors0, cpu0, start) = (
            reads.load(Ordering::Relaxed),
            errors.load(Ordering::Relaxed),
            cpu_seconds(),
            Instant::now(),
        );
        tokio::time::sleep(run.duration).await;
        let counted = (
            reads.load(Ordering::Relaxed) - reads0,
            errors.load(Ordering::Relaxed) - errors0,
            start.elapsed().as_secs_f64(),
            cpu_seconds() - cpu0,
        );
        stop.store(true, Ordering::Relaxed);
        for handle in loops {
            let _ = handle.await;
        }
        Ok(counted)
    })
}

/// User + system CPU time of this process so far (`/proc/self/stat`, in
/// clock ticks of 1/100 s); 0 where it cannot be read.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string(Path::new("/proc/self/stat")).unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are
    // the 14th and 15th of the line, the 12th and 13th after it.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10).as_secs_f64()
}
