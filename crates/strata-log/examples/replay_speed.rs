//! Measures how fast the log appends, recovers and replays small records.
//!
//! ```text
//! cargo run --release -p strata-log --example replay_speed -- [records] [body bytes] [dir] [fdatasync|direct]
//! ```
//!
//! Defaults: 2,000,000 records of 50 bytes in a temporary directory with
//! `fdatasync`. Not a test: timings depend on the machine.

use std::sync::Arc;
use std::time::Instant;

use strata_device::{Directory, FsDirectory, SyncMode};
use strata_log::{CommandLog, Durability, LogConfig, LogError, RecoveryPolicy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let records: u64 = args.get(1).map_or(Ok(2_000_000), |s| s.parse())?;
    let body_len: usize = args.get(2).map_or(Ok(50), |s| s.parse())?;
    let tmp = tempfile::tempdir()?;
    let path = args.get(3).map_or(tmp.path().to_path_buf(), Into::into);
    let mode: SyncMode = args.get(4).map_or(Ok(SyncMode::Fdatasync), |s| s.parse())?;
    let dir: Arc<dyn Directory> = Arc::new(FsDirectory::open(&path, mode)?);
    let config = LogConfig::new(Durability::async_default());
    println!(
        "{records} records of {body_len} bytes in {} ({mode})",
        path.display()
    );

    let (log, _) = CommandLog::open(Arc::clone(&dir), config.clone(), RecoveryPolicy::Strict)?;
    let first = log.last_lsn() + 1;
    let body = vec![0xabu8; body_len];
    let started = Instant::now();
    for i in 0..records {
        log.append((i % 4) as u8, &body)?;
    }
    let last = log.close()?;
    report("append + close", records, started);

    let started = Instant::now();
    let (log, recovery) = CommandLog::open(Arc::clone(&dir), config, RecoveryPolicy::Strict)?;
    report("open (verifies every record)", recovery.records, started);
    assert_eq!(recovery.last_lsn, last);

    let started = Instant::now();
    let mut bytes = 0u64;
    let replay = CommandLog::replay(&*dir, first, |_, _, body| {
        bytes += body.len() as u64;
        Ok::<_, LogError>(())
    })?;
    report("replay", replay.records, started);
    assert_eq!(replay.records, records);
    assert_eq!(bytes, records * body_len as u64);
    drop(log);
    Ok(())
}

fn report(what: &str, records: u64, started: Instant) {
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{what:<30} {records:>10} records in {secs:>7.3} s = {:>12.0} records/s",
        records as f64 / secs
    );
}
