//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::io;
use std::sync::Arc;
use std::time::Duration;

use strata_device::{Device, Directory, MemDirectory};
use strata_log::{CommandLog, Durability, LogConfig, LogError, RecoveryPolicy, RecoveryReport};

/// Segment size used by tests that want rotation: 34 records of a 100-byte
/// body per segment.
pub const SMALL_SEGMENT: u64 = 4096;
/// Encoded size of a record with a 100-byte body.
pub const RECORD_100: u64 = 117;
/// Bytes of a segment header.
pub const SEGMENT_HEADER: u64 = 24;

/// True when the full (slow) suite was asked for: `STRATA_TEST_FULL` (or
/// its alias `STRATA_FULL`) set, not empty and not `0`, as the fuzz suites
/// read it.
pub fn full() -> bool {
    ["STRATA_TEST_FULL", "STRATA_FULL"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0"))
}

pub fn arc(dir: &MemDirectory) -> Arc<dyn Directory> {
    Arc::new(dir.clone())
}

pub fn sync_config() -> LogConfig {
    LogConfig::new(Durability::Sync)
}

pub fn small_segments(durability: Durability) -> LogConfig {
    LogConfig::new(durability).with_segment_size(SMALL_SEGMENT)
}

pub fn open(dir: Arc<dyn Directory>, config: LogConfig) -> (CommandLog, RecoveryReport) {
    CommandLog::open(dir, config, RecoveryPolicy::Strict).expect("open the log")
}

/// The body test records of `lsn` carry (100 bytes unless told otherwise).
pub fn body_of(lsn: u64, len: usize) -> Vec<u8> {
    (0..len).map(|i| (lsn as usize * 31 + i) as u8).collect()
}

/// Writes `n` records of 100-byte bodies (`kind` = lsn % 7) into a fresh
/// log with small segments and closes it.
/// Small segments without preallocation, so that every segment file holds
/// exactly its header and records (tests that damage chosen bytes rely on it).
pub fn exact_segments(durability: Durability) -> LogConfig {
    small_segments(durability).with_preallocation(0)
}

/// Writes records 1..=n into exact segments (see [`exact_segments`]).
pub fn write_records(dir: &MemDirectory, n: u64) {
    let (log, _) = open(arc(dir), exact_segments(Durability::Sync));
    for lsn in 1..=n {
        assert_eq!(
            log.append((lsn % 7) as u8, &body_of(lsn, 100)).unwrap(),
            lsn
        );
    }
    log.close().unwrap();
}

/// Every record of the log, from LSN 1.
pub fn replay_all(dir: &dyn Directory) -> Result<Vec<(u64, u8, Vec<u8>)>, LogError> {
    replay_from(dir, 1)
}

pub fn replay_from(dir: &dyn Directory, from: u64) -> Result<Vec<(u64, u8, Vec<u8>)>, LogError> {
    let mut out = Vec::new();
    CommandLog::replay(dir, from, |lsn, kind, body| {
        out.push((lsn, kind, body.to_vec()));
        Ok::<_, LogError>(())
    })?;
    Ok(out)
}

/// Segment file names, in order.
pub fn segment_names(dir: &dyn Directory) -> Vec<String> {
    dir.list()
        .unwrap()
        .into_iter()
        .filter(|n| n.starts_with("log-") && n.ends_with(".seg"))
        .collect()
}

pub fn segment_name(first_lsn: u64) -> String {
    format!("log-{first_lsn:020}.seg")
}

pub fn file_len(dir: &dyn Directory, name: &str) -> u64 {
    dir.open(name).unwrap().len().unwrap()
}

pub fn flip_byte(dir: &dyn Directory, name: &str, offset: u64) {
    let dev = dir.open(name).unwrap();
    let mut byte = [0u8];
    dev.read_exact_at(&mut byte, offset).unwrap();
    byte[0] ^= 0x5a;
    dev.write_all_at(&byte, offset).unwrap();
    dev.sync().unwrap();
}

/// What a [`SlowSync`] device runs before each sync: a failure is the
/// sync's.
pub type BeforeSync = Arc<dyn Fn() -> io::Result<()> + Send + Sync>;

/// A directory whose device syncs first run a hook: a delay makes group
/// commit visible (syncs on a `MemDirectory` are otherwise nearly free); a
/// gate holds them as long as a test wants.
pub struct SlowSync {
    pub inner: Arc<dyn Directory>,
    pub before_sync: BeforeSync,
}

impl SlowSync {
    /// Every sync takes `delay` more.
    pub fn delayed(inner: Arc<dyn Directory>, delay: Duration) -> SlowSync {
        SlowSync::hooked(inner, move || {
            std::thread::sleep(delay);
            Ok(())
        })
    }

    /// Every sync runs `hook` first.
    pub fn hooked(
        inner: Arc<dyn Directory>,
        hook: impl Fn() -> io::Result<()> + Send + Sync + 'static,
    ) -> SlowSync {
        SlowSync {
            inner,
            before_sync: Arc::new(hook),
        }
    }
}

struct SlowDevice {
    inner: Box<dyn Device>,
    before_sync: BeforeSync,
}

impl Directory for SlowSync {
    fn create(&self, name: &str) -> io::Result<Box<dyn Device>> {
        let inner = self.inner.create(name)?;
        Ok(Box::new(SlowDevice {
            inner,
            before_sync: Arc::clone(&self.before_sync),
        }))
    }
    fn open(&self, name: &str) -> io::Result<Box<dyn Device>> {
        let inner = self.inner.open(name)?;
        Ok(Box::new(SlowDevice {
            inner,
            before_sync: Arc::clone(&self.before_sync),
        }))
    }
    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        self.inner.rename(from, to)
    }
    fn remove(&self, name: &str) -> io::Result<()> {
        self.inner.remove(name)
    }
    fn list(&self) -> io::Result<Vec<String>> {
        self.inner.list()
    }
    fn sync_names(&self) -> io::Result<()> {
        self.inner.sync_names()
    }
}

impl Device for SlowDevice {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.inner.read_exact_at(buf, offset)
    }
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.inner.write_all_at(buf, offset)
    }
    fn sync(&self) -> io::Result<()> {
        (self.before_sync)()?;
        self.inner.sync()
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.inner.set_len(len)
    }
}
