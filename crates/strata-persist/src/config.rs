//! Settings of persistence: the mode, where the files go and when
//! checkpoints run.

use std::path::PathBuf;
use std::time::Duration;

use strata_device::SyncMode;
use strata_log::{Durability, RecoveryPolicy};

/// Everything [`Persistence::open`](crate::Persistence::open) needs.
#[derive(Debug, Clone)]
pub struct PersistConfig {
    /// Sync or async.
    pub mode: Durability,
    /// Directory of the command log's segments.
    pub log_dir: PathBuf,
    /// Directory of the snapshots (may be on another device).
    pub snapshot_dir: PathBuf,
    /// How log files are made durable (`fdatasync`, or `O_DIRECT|O_DSYNC`).
    pub log_device: SyncMode,
    /// Log segments are rotated at about this size.
    pub log_segment_size: u64,
    /// A checkpoint starts once the log since the last one holds at least
    /// this many bytes ...
    pub checkpoint_min_log_size: u64,
    /// ... and at least this percentage of the last snapshot's size (Redis
    /// `auto-aof-rewrite-percentage`: 100 means the log has grown as large
    /// as the snapshot it follows).
    pub checkpoint_log_ratio_pct: u64,
    /// Bytes per second a checkpoint may write; 0 for no limit.
    pub checkpoint_io_rate: u64,
    /// Percent of the machine's cores a checkpoint's thread may use (at
    /// most one core); 0 for no limit.
    pub checkpoint_cpu_pct: u32,
    /// What recovery does with damage that is not a torn log tail.
    pub recovery: RecoveryPolicy,
    /// `sync` mode: the longest a log sync is held to let its group fill up
    /// (see `strata_log`'s group commit); zero starts every sync at once.
    pub group_commit_delay: Duration,
}

impl PersistConfig {
    /// Default trigger: 256 MiB of log.
    pub const DEFAULT_MIN_LOG_SIZE: u64 = 256 << 20;
    /// Default trigger ratio: 100%.
    pub const DEFAULT_LOG_RATIO_PCT: u64 = 100;
    /// Default checkpoint write rate: 256 MiB/s.
    pub const DEFAULT_IO_RATE: u64 = 256 << 20;
    /// Default checkpoint CPU budget: 5% of the cores (a tenth of a core on
    /// two cores, a whole core from twenty up).
    pub const DEFAULT_CPU_PCT: u32 = 5;

    /// Defaults for `mode` with files under `data_dir` (`log/`, `snapshots/`).
    pub fn new(mode: Durability, data_dir: impl Into<PathBuf>) -> PersistConfig {
        let data_dir = data_dir.into();
        PersistConfig {
            mode,
            log_dir: data_dir.join("log"),
            snapshot_dir: data_dir.join("snapshots"),
            log_device: SyncMode::Fdatasync,
            log_segment_size: strata_log::LogConfig::DEFAULT_SEGMENT_SIZE,
            checkpoint_min_log_size: Self::DEFAULT_MIN_LOG_SIZE,
            checkpoint_log_ratio_pct: Self::DEFAULT_LOG_RATIO_PCT,
            checkpoint_io_rate: Self::DEFAULT_IO_RATE,
            checkpoint_cpu_pct: Self::DEFAULT_CPU_PCT,
            recovery: RecoveryPolicy::Strict,
            group_commit_delay: strata_log::LogConfig::DEFAULT_GROUP_COMMIT_MAX_DELAY,
        }
    }

    /// True when a checkpoint is due: `log_bytes` of log since the last
    /// snapshot, which was `snapshot_bytes` long (0 if there is none).
    pub fn checkpoint_due(&self, log_bytes: u64, snapshot_bytes: u64) -> bool {
        log_bytes >= self.checkpoint_min_log_size
            && u128::from(log_bytes) * 100
                >= u128::from(snapshot_bytes) * u128::from(self.checkpoint_log_ratio_pct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigger_needs_both_the_minimum_and_the_ratio() {
        let mut c = PersistConfig::new(Durability::Sync, "/tmp/x");
        c.checkpoint_min_log_size = 100;
        c.checkpoint_log_ratio_pct = 100;
        assert!(!c.checkpoint_due(99, 0));
        assert!(c.checkpoint_due(100, 0));
        assert!(!c.checkpoint_due(150, 200));
        assert!(c.checkpoint_due(200, 200));
        c.checkpoint_log_ratio_pct = 50;
        assert!(c.checkpoint_due(100, 200));
    }
}
