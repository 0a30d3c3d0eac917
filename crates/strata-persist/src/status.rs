//! [`PersistStatus`]: what `INFO persistence` and memcached `stats` show.

use std::time::{SystemTime, UNIX_EPOCH};

/// The state of persistence at one moment.
#[derive(Debug, Clone, Default)]
pub struct PersistStatus {
    /// `async` or `sync`.
    pub mode: &'static str,
    /// A checkpoint is being written now.
    pub checkpoint_in_progress: bool,
    /// Checkpoints completed since start.
    pub checkpoints: u64,
    /// Unix seconds of the last completed checkpoint (or of the snapshot
    /// loaded at start, or of the start when there was none).
    pub last_save_unix: u64,
    /// Whether the last checkpoint succeeded (true before the first).
    pub last_checkpoint_ok: bool,
    /// The last checkpoint's error, if it failed.
    pub last_checkpoint_error: Option<String>,
    /// Duration of the last completed checkpoint, ms.
    pub last_checkpoint_ms: u64,
    /// Size of the newest snapshot, bytes (0 when none).
    pub snapshot_bytes: u64,
    /// Items in the newest snapshot.
    pub snapshot_items: u64,
    /// Start LSN of the newest snapshot (1 when none).
    pub snapshot_start_lsn: u64,
    /// Log bytes since the newest snapshot started.
    pub log_bytes_since_snapshot: u64,
    /// Records appended to the log since start.
    pub log_records: u64,
    /// Last LSN appended.
    pub log_last_lsn: u64,
    /// Every record up to this LSN is durable.
    pub log_durable_lsn: u64,
    /// Log syncs since start.
    pub log_syncs: u64,
    /// Log segment files.
    pub log_segments: usize,
    /// Why the log failed, when it did (writes are refused).
    pub log_error: Option<String>,
    /// Why the log cannot write now (a full disk), while it cannot: writes
    /// are refused until it can again.
    pub log_write_stalled: Option<String>,
}

impl PersistStatus {
    /// Changes not yet covered by a snapshot (Redis
    /// `rdb_changes_since_last_save`, counted in log records).
    pub fn changes_since_save(&self) -> u64 {
        (self.log_last_lsn + 1).saturating_sub(self.snapshot_start_lsn)
    }
}

/// Seconds since the Unix epoch now.
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
