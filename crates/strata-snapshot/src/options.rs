//! [`WriterOptions`]: how a [`SnapshotWriter`](crate::SnapshotWriter) paces
//! itself, cuts blocks and stamps its header.

use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::format::{DEFAULT_BLOCK_SIZE, MAX_BLOCK_LEN};
use crate::{Clock, SnapshotError, SystemClock};

/// Settings of a snapshot writer; `WriterOptions::default()` writes 64 KiB
/// blocks as fast as the device takes them.
#[derive(Clone)]
pub struct WriterOptions {
    pub(crate) rate: Option<u64>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) block_size: usize,
    pub(crate) created_ms: Option<u64>,
    pub(crate) sync_every: Option<u64>,
}

impl Default for WriterOptions {
    fn default() -> WriterOptions {
        WriterOptions {
            rate: None,
            clock: Arc::new(SystemClock::new()),
            block_size: DEFAULT_BLOCK_SIZE,
            created_ms: None,
            sync_every: None,
        }
    }
}

impl fmt::Debug for WriterOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriterOptions")
            .field("rate", &self.rate)
            .field("block_size", &self.block_size)
            .field("created_ms", &self.created_ms)
            .field("sync_every", &self.sync_every)
            .finish_non_exhaustive()
    }
}

impl WriterOptions {
    /// The defaults.
    pub fn new() -> WriterOptions {
        WriterOptions::default()
    }

    /// Pace writes to at most about `bytes_per_second` (the
    /// `checkpoint_io_rate`); `None` does not pace. `Some(0)` is refused by
    /// the writer.
    pub fn rate(mut self, bytes_per_second: Option<u64>) -> WriterOptions {
        self.rate = bytes_per_second;
        self
    }

    /// The clock pacing measures and sleeps with (the real one by default;
    /// tests inject one that only pretends to sleep).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> WriterOptions {
        self.clock = clock;
        self
    }

    /// Payload bytes per block, 1 ..= [`MAX_BLOCK_LEN`]; tests use small
    /// blocks to get many of them.
    pub fn block_size(mut self, bytes: usize) -> WriterOptions {
        self.block_size = bytes;
        self
    }

    /// Sync the file each time about this many more bytes are written
    /// (`None`, the default: only in `finish`). The snapshot is no more
    /// complete for it; the point is to have the kernel write the file out
    /// steadily rather than in one burst at the end. `Some(0)` is refused.
    pub fn sync_every(mut self, bytes: Option<u64>) -> WriterOptions {
        self.sync_every = bytes;
        self
    }

    /// The creation time written in the header, unix milliseconds (the
    /// current time by default; fixed in format fixtures).
    pub fn created_ms(mut self, unix_ms: u64) -> WriterOptions {
        self.created_ms = Some(unix_ms);
        self
    }

    pub(crate) fn validate(&self) -> Result<(), SnapshotError> {
        if self.rate == Some(0) {
            return Err(SnapshotError::Config(
                "rate must be positive (None for no limit)".into(),
            ));
        }
        if self.sync_every == Some(0) {
            return Err(SnapshotError::Config(
                "sync_every must be positive (None to sync only at the end)".into(),
            ));
        }
        if !(1..=MAX_BLOCK_LEN).contains(&self.block_size) {
            return Err(SnapshotError::Config(format!(
                "block size {} outside 1..={MAX_BLOCK_LEN}",
                self.block_size
            )));
        }
        Ok(())
    }

    pub(crate) fn creation_time(&self) -> u64 {
        self.created_ms.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        })
    }
}
