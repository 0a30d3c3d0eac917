//! [`PersistError`]: why opening, recovering or checkpointing failed.

use strata_kv::journal::BadChange;
use strata_log::LogError;
use strata_snapshot::SnapshotError;

/// Errors of the persistence layer. Damage errors name the file and offset.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PersistError {
    /// The command log failed or is damaged.
    #[error("command log: {0}")]
    Log(#[from] LogError),
    /// A snapshot failed or is damaged.
    #[error("snapshot: {0}")]
    Snapshot(#[from] SnapshotError),
    /// A directory could not be opened.
    #[error("cannot open {what} directory {path}: {source}")]
    Directory {
        /// `log` or `snapshot`.
        what: &'static str,
        /// The path.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A log record passed its checksum but does not decode.
    #[error("log record {lsn}: {source}")]
    BadRecord {
        /// The record's LSN.
        lsn: u64,
        /// Where in the body.
        source: BadChange,
    },
    /// A log record of a kind this keyspace does not write.
    #[error("log record {lsn} has unknown kind {kind}")]
    UnknownKind {
        /// The record's LSN.
        lsn: u64,
        /// Its kind byte.
        kind: u8,
    },
    /// The log ends before the snapshot starts: the log directory does not
    /// belong with the snapshot directory (or lost records).
    #[error(
        "the command log ends at LSN {log_last} but snapshot {snapshot} starts at LSN {start}; \
         the log directory does not match the snapshot directory"
    )]
    LogBehindSnapshot {
        /// Last LSN in the log.
        log_last: u64,
        /// The snapshot's name.
        snapshot: String,
        /// Its start LSN.
        start: u64,
    },
    /// A checkpoint is already running.
    #[error("Background save already in progress")]
    CheckpointRunning,
    /// The background thread could not be started.
    #[error("cannot start a thread: {0}")]
    Thread(std::io::Error),
}
