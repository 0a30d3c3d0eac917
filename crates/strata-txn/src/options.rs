//! [`Options`]: how a [`Database`](crate::Database) runs (worker slots,
//! the epoch interval, the log device, checkpoint parts, recovery
//! threads, the expected rows per table). A leaf: plain configuration with
//! builder methods.

use std::time::Duration;

use crate::log::LogDevice;

/// How a database runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Most workers at once.
    pub max_workers: usize,
    /// How often the global epoch advances (`None`: only when
    /// [`Database::advance_epoch`] is called, for tests).
    pub epoch_interval: Option<Duration>,
    /// Expected rows per table (sizes the primary indexes up front).
    pub capacity_hint: usize,
    /// Where committed write sets are logged (`LogDevice::None`: nowhere,
    /// commits are not durable).
    pub log: LogDevice,
    /// Parts a checkpoint is written in (and loaded from) in parallel.
    pub checkpoint_parts: usize,
    /// Most threads recovery uses to read the log streams and replay them
    /// (1: one stream after another; every count recovers the same
    /// database). Default: the available parallelism, at most 8.
    pub recovery_threads: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_workers: 64,
            epoch_interval: Some(Duration::from_millis(40)),
            capacity_hint: 1024,
            log: LogDevice::None,
            checkpoint_parts: 2,
            recovery_threads: std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .clamp(1, 8),
        }
    }
}

impl Options {
    /// Sets the number of worker slots.
    pub fn with_max_workers(mut self, n: usize) -> Options {
        self.max_workers = n;
        self
    }

    /// Sets the epoch interval (`None`: manual).
    pub fn with_epoch_interval(mut self, interval: Option<Duration>) -> Options {
        self.epoch_interval = interval;
        self
    }

    /// Sets the log device.
    pub fn with_log(mut self, log: LogDevice) -> Options {
        self.log = log;
        self
    }

    /// Sets the most threads recovery uses (at least 1).
    pub fn with_recovery_threads(mut self, n: usize) -> Options {
        self.recovery_threads = n.max(1);
        self
    }

    /// Sets the expected rows per table.
    pub fn with_capacity_hint(mut self, rows: usize) -> Options {
        self.capacity_hint = rows;
        self
    }
}
