//! Measures how fast a snapshot of small items is written and read back.
//!
//! ```text
//! cargo run --release -p strata-snapshot --example snapshot_speed -- [items] [value bytes] [dir] [fdatasync|direct]
//! ```
//!
//! Defaults: 2,000,000 items with 50-byte values in a temporary directory
//! with `fdatasync`, unpaced. Not a test: timings depend on the machine.

use std::time::Instant;

use strata_device::{FsDirectory, SyncMode};
use strata_snapshot::{
    newest_complete, snapshot_name, Fallback, SnapshotError, SnapshotItem, SnapshotReader,
    SnapshotWriter,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let items: u64 = args.get(1).map_or(Ok(2_000_000), |s| s.parse())?;
    let value_len: usize = args.get(2).map_or(Ok(50), |s| s.parse())?;
    let tmp = tempfile::tempdir()?;
    let path = args.get(3).map_or(tmp.path().to_path_buf(), Into::into);
    let mode: SyncMode = args.get(4).map_or(Ok(SyncMode::Fdatasync), |s| s.parse())?;
    let dir = FsDirectory::open(&path, mode)?;
    println!(
        "{items} items with {value_len}-byte values in {} ({mode})",
        path.display()
    );

    let value = vec![0xabu8; value_len];
    let started = Instant::now();
    let mut writer = SnapshotWriter::create(&dir, &snapshot_name(1), 1, None)?;
    for i in 0..items {
        let key = format!("key:{i:012}");
        writer.add(&SnapshotItem {
            key: key.as_bytes(),
            value: &value,
            flags: 0,
            cas: i,
            expires_at: None,
        })?;
    }
    let info = writer.finish()?;
    report("write + finish", items, info.bytes, started);

    let started = Instant::now();
    let (name, _) = newest_complete(&dir, Fallback::Strict)?.expect("the snapshot");
    let mut reader = SnapshotReader::open(&dir, &name)?;
    let mut bytes = 0u64;
    let read = reader.for_each(|item| {
        bytes += (item.key.len() + item.value.len()) as u64;
        Ok::<_, SnapshotError>(())
    })?;
    report(
        "choose + read (verifies every block)",
        read.records,
        info.bytes,
        started,
    );
    assert_eq!(read.records, items);
    assert_eq!(bytes, items * (16 + value_len as u64));
    Ok(())
}

fn report(what: &str, items: u64, bytes: u64, started: Instant) {
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{what}: {items} items, {:.1} MiB in {secs:.3} s: {:.2} M items/s, {:.0} MiB/s",
        bytes as f64 / f64::from(1 << 20),
        items as f64 / secs / 1e6,
        bytes as f64 / f64::from(1 << 20) / secs
    );
}
