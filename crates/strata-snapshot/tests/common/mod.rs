//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::sync::Mutex;
use std::time::Duration;

use strata_device::{Directory, MemDirectory};
use strata_snapshot::{
    snapshot_name, Clock, SnapshotError, SnapshotInfo, SnapshotItem, SnapshotReader,
    SnapshotWriter, WriterOptions,
};

/// A snapshot record that owns its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedItem {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    pub flags: u64,
    pub cas: u64,
    pub expires_at: Option<u64>,
}

impl OwnedItem {
    pub fn as_item(&self) -> SnapshotItem<'_> {
        SnapshotItem {
            key: &self.key,
            value: &self.value,
            flags: self.flags,
            cas: self.cas,
            expires_at: self.expires_at,
        }
    }

    pub fn from_item(item: SnapshotItem<'_>) -> OwnedItem {
        OwnedItem {
            key: item.key.to_vec(),
            value: item.value.to_vec(),
            flags: item.flags,
            cas: item.cas,
            expires_at: item.expires_at,
        }
    }
}

/// `n` varied items: every 5th value empty, every 50th 100 KiB, expiries on
/// every 3rd, all sorts of flags and CAS values.
pub fn items(n: usize) -> Vec<OwnedItem> {
    (0..n)
        .map(|i| {
            let value_len = if i % 5 == 0 {
                0
            } else if i % 50 == 1 {
                100 << 10
            } else {
                i % 300
            };
            OwnedItem {
                key: format!("key:{i}").into_bytes(),
                value: (0..value_len).map(|j| (i * 7 + j) as u8).collect(),
                flags: u64::from((i as u32).wrapping_mul(0x9e37_79b9)),
                cas: (i as u64) << (i % 60),
                expires_at: (i % 3 == 0).then_some(1_700_000_000_000 + i as u64),
            }
        })
        .collect()
}

/// Like [`items`] but no value is longer than 300 bytes: cheap enough to
/// crash after every operation.
pub fn small_items(n: usize) -> Vec<OwnedItem> {
    items(n)
        .into_iter()
        .map(|mut item| {
            item.value.truncate(300);
            item
        })
        .collect()
}

/// Small blocks, so that a few items make many blocks.
pub fn small_blocks() -> WriterOptions {
    WriterOptions::new().block_size(256)
}

/// Writes and finishes the snapshot of `start_lsn` holding `items`.
pub fn write_snapshot(
    dir: &dyn Directory,
    start_lsn: u64,
    items: &[OwnedItem],
    options: WriterOptions,
) -> Result<SnapshotInfo, SnapshotError> {
    let mut writer =
        SnapshotWriter::create_with(dir, &snapshot_name(start_lsn), start_lsn, options)?;
    for item in items {
        writer.add(&item.as_item())?;
    }
    writer.finish()
}

/// Every record of `name`, verified.
pub fn read_all(dir: &dyn Directory, name: &str) -> Result<Vec<OwnedItem>, SnapshotError> {
    let mut reader = SnapshotReader::open(dir, name)?;
    let mut out = Vec::new();
    reader.for_each(|item| {
        out.push(OwnedItem::from_item(item));
        Ok::<_, SnapshotError>(())
    })?;
    Ok(out)
}

pub fn file_bytes(dir: &dyn Directory, name: &str) -> Vec<u8> {
    let dev = dir.open(name).unwrap();
    let mut bytes = vec![0; dev.len().unwrap() as usize];
    dev.read_exact_at(&mut bytes, 0).unwrap();
    bytes
}

/// Replaces the content of `name` (durably).
pub fn put_file(dir: &dyn Directory, name: &str, bytes: &[u8]) {
    let dev = dir.create(name).unwrap();
    dev.write_all_at(bytes, 0).unwrap();
    dev.sync().unwrap();
    dir.sync_names().unwrap();
}

pub fn flip_byte(dir: &dyn Directory, name: &str, offset: usize) {
    let mut bytes = file_bytes(dir, name);
    bytes[offset] ^= 0x5a;
    put_file(dir, name, &bytes);
}

pub fn truncate(dir: &dyn Directory, name: &str, len: u64) {
    let dev = dir.open(name).unwrap();
    dev.set_len(len).unwrap();
    dev.sync().unwrap();
}

/// Names present in `dir`.
pub fn names(dir: &MemDirectory) -> Vec<String> {
    dir.list().unwrap()
}

/// A clock whose time moves only when slept on; it records every sleep.
#[derive(Default)]
pub struct ManualClock {
    now: Mutex<Duration>,
    sleeps: Mutex<Vec<Duration>>,
}

impl ManualClock {
    pub fn slept(&self) -> Duration {
        self.sleeps.lock().unwrap().iter().sum()
    }

    pub fn sleeps(&self) -> Vec<Duration> {
        self.sleeps.lock().unwrap().clone()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        *self.now.lock().unwrap()
    }

    fn sleep(&self, duration: Duration) {
        *self.now.lock().unwrap() += duration;
        self.sleeps.lock().unwrap().push(duration);
    }
}
