//! How a [`CommandLog`](crate::CommandLog) is set up: segment size,
//! durability mode, memory bound, and what recovery may do with a damaged log.

use std::time::Duration;

use crate::LogError;

/// When appended records become durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Group commit: whenever records are pending, the flusher writes all of
    /// them and syncs once; callers wait for their LSN with
    /// [`wait_durable`](crate::CommandLog::wait_durable) or
    /// [`durable`](crate::CommandLog::durable) before acknowledging.
    Sync,
    /// The flusher writes records within a few milliseconds and syncs at
    /// least every `sync_interval`: a crash loses at most about that window.
    Async {
        /// Longest time written records may stay unsynced (at least
        /// [`Durability::MIN_SYNC_INTERVAL`]).
        sync_interval: Duration,
    },
    /// Group commit on request: records are written as in `Async`, and a
    /// sync starts only when a caller waits for a record that is not yet
    /// durable ([`durable`](crate::CommandLog::durable),
    /// [`wait_durable`](crate::CommandLog::wait_durable),
    /// [`flush`](crate::CommandLog::flush)); one sync covers everything
    /// written by then, so concurrent waiters share it. For callers that
    /// append many records and acknowledge once (a search bulk request):
    /// `Sync` would sync again and again while they are still appending.
    /// Callers must wait before acknowledging, as with `Sync`; nothing is
    /// synced in the background.
    OnDemand,
}

impl Durability {
    /// The shortest accepted `sync_interval`.
    pub const MIN_SYNC_INTERVAL: Duration = Duration::from_millis(10);
    /// The default `sync_interval` (one second, as Redis `everysec`).
    pub const DEFAULT_SYNC_INTERVAL: Duration = Duration::from_secs(1);

    /// `sync`, `async` or `ondemand`, as shown in `INFO` and `stats`.
    pub fn name(self) -> &'static str {
        match self {
            Durability::Sync => "sync",
            Durability::Async { .. } => "async",
            Durability::OnDemand => "ondemand",
        }
    }

    /// `Async` with the default one-second interval.
    pub fn async_default() -> Durability {
        Durability::Async {
            sync_interval: Durability::DEFAULT_SYNC_INTERVAL,
        }
    }
}

/// What recovery does with damage that is not a torn tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecoveryPolicy {
    /// Refuse to open with [`LogError::Corrupt`] naming the file and offset.
    #[default]
    Strict,
    /// Operator escape hatch: keep every record before the first bad one,
    /// drop it and everything after (later segments included), and say so in
    /// [`RecoveryReport::damage`](crate::RecoveryReport::damage).
    TruncateToLastGood,
}

/// Settings of one log.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LogConfig {
    /// Segment files are rotated before they would grow past this many bytes
    /// (a single larger record gets a segment of its own).
    pub segment_size: u64,
    /// Sync or async durability at open
    /// ([`CommandLog::set_durability`](crate::CommandLog::set_durability)
    /// changes it later).
    pub durability: Durability,
    /// Appends wait (back pressure) while this many bytes are buffered and
    /// not yet handed to the flusher; at most about twice this is in memory.
    pub max_buffered: usize,
    /// The flusher extends the current segment with written zeros this many
    /// bytes at a time, ahead of the records (0: never), so that most syncs
    /// cover data only: an append that grows the file also makes the sync
    /// write the file's new size (on ext4, a journal commit), which doubles
    /// the cost of every group commit.
    pub preallocate: u64,
    /// `Sync` mode: the longest a sync is held back to let its group fill
    /// up to the estimated number of writers (see the `group_commit`
    /// module); zero: start every sync at once.
    pub group_commit_max_delay: Duration,
}

impl LogConfig {
    /// Default segment size: 64 MiB.
    pub const DEFAULT_SEGMENT_SIZE: u64 = 64 << 20;
    /// Default buffer bound: 64 MiB.
    pub const DEFAULT_MAX_BUFFERED: usize = 64 << 20;
    /// Default longest group-commit hold: 500 µs.
    pub const DEFAULT_GROUP_COMMIT_MAX_DELAY: Duration = Duration::from_micros(500);
    /// Default preallocation step: 1 MiB.
    pub const DEFAULT_PREALLOCATE: u64 = 1 << 20;

    /// Defaults with the given durability.
    pub fn new(durability: Durability) -> LogConfig {
        LogConfig {
            segment_size: Self::DEFAULT_SEGMENT_SIZE,
            durability,
            max_buffered: Self::DEFAULT_MAX_BUFFERED,
            preallocate: Self::DEFAULT_PREALLOCATE,
            group_commit_max_delay: Self::DEFAULT_GROUP_COMMIT_MAX_DELAY,
        }
    }

    /// Sets the segment size.
    pub fn with_segment_size(mut self, bytes: u64) -> LogConfig {
        self.segment_size = bytes;
        self
    }

    /// Sets the preallocation step (0 turns preallocation off).
    pub fn with_preallocation(mut self, bytes: u64) -> LogConfig {
        self.preallocate = bytes;
        self
    }

    /// Sets the longest group-commit hold (zero: never hold).
    pub fn with_group_commit_max_delay(mut self, delay: Duration) -> LogConfig {
        self.group_commit_max_delay = delay;
        self
    }

    /// Sets the buffer bound.
    pub fn with_max_buffered(mut self, bytes: usize) -> LogConfig {
        self.max_buffered = bytes;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), LogError> {
        if self.segment_size < 4096 {
            return Err(LogError::Config(format!(
                "segment_size {} is below the minimum of 4096 bytes",
                self.segment_size
            )));
        }
        if self.max_buffered < 4096 {
            return Err(LogError::Config(format!(
                "max_buffered {} is below the minimum of 4096 bytes",
                self.max_buffered
            )));
        }
        self.durability.validate()
    }
}

impl Durability {
    pub(crate) fn validate(self) -> Result<(), LogError> {
        if let Durability::Async { sync_interval } = self {
            if sync_interval < Durability::MIN_SYNC_INTERVAL {
                return Err(LogError::Config(format!(
                    "sync_interval {sync_interval:?} is below the minimum of {:?}",
                    Durability::MIN_SYNC_INTERVAL
                )));
            }
        }
        Ok(())
    }
}

impl Default for LogConfig {
    fn default() -> LogConfig {
        LogConfig::new(Durability::Sync)
    }
}
