//! The one error type of the log layer.

use std::io;
use std::sync::Arc;

/// Everything that can go wrong in the command log.
///
/// `Corrupt` and `UnsupportedVersion` come from recovery and replay;
/// `Poisoned` is what every caller sees after a write or sync failed (the
/// original failure is its [`source`](std::error::Error::source)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// A device or directory operation failed.
    #[error("command log I/O failed: {context}")]
    Io {
        /// What the log was doing, naming the file.
        context: String,
        /// The device error.
        #[source]
        source: io::Error,
    },

    /// A damaged record or segment header that is not a torn tail: the log
    /// refuses to open unless the operator chose
    /// [`RecoveryPolicy::TruncateToLastGood`](crate::RecoveryPolicy::TruncateToLastGood).
    #[error("command log corrupt: {file} at offset {offset}: {reason}")]
    Corrupt {
        /// The segment file.
        file: String,
        /// Byte offset of the first bad record (0 for a bad header).
        offset: u64,
        /// What is wrong there.
        reason: String,
    },

    /// A segment written by a newer (or unknown) format version; never
    /// truncated, whatever the recovery policy.
    #[error("{file}: command log format version {version} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// The segment file.
        file: String,
        /// Version found in its header.
        version: u32,
        /// Version this build writes and reads.
        supported: u32,
    },

    /// An earlier write or sync failed; the log acknowledges nothing more.
    #[error("command log poisoned: {cause}")]
    Poisoned {
        /// The failure that poisoned the log.
        #[source]
        cause: Arc<LogError>,
    },

    /// The log was closed (or its flusher stopped) before the record became
    /// durable.
    #[error("command log closed")]
    Closed,

    /// A record body larger than the log accepts.
    #[error("record body of {len} bytes exceeds the limit of {max} bytes")]
    RecordTooLarge {
        /// Body length asked for.
        len: usize,
        /// The limit ([`MAX_BODY_LEN`](crate::MAX_BODY_LEN)).
        max: usize,
    },

    /// A wait for an LSN that no append has returned yet.
    #[error("LSN {lsn} has not been assigned (the last LSN is {last})")]
    FutureLsn {
        /// LSN waited for.
        lsn: u64,
        /// Last LSN assigned.
        last: u64,
    },

    /// Replay was asked for records that were already removed.
    #[error("replay needs records from LSN {wanted} but the log starts at LSN {first}")]
    MissingRecords {
        /// First LSN the caller needs.
        wanted: u64,
        /// Oldest LSN the log still holds.
        first: u64,
    },

    /// A [`LogConfig`](crate::LogConfig) value out of range.
    #[error("invalid command log configuration: {0}")]
    Config(String),
}

impl LogError {
    /// Wraps a device error with what the log was doing.
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> LogError {
        LogError::Io {
            context: context.into(),
            source,
        }
    }

    /// What the operating system said, for an I/O error (`strerror`'s
    /// text, as Redis quotes it: "No space left on device"), looking
    /// through `Poisoned` to its cause.
    pub fn os_reason(&self) -> Option<String> {
        match self {
            LogError::Io { source, .. } => Some(describe_io(source)),
            LogError::Poisoned { cause } => cause.os_reason(),
            _ => None,
        }
    }

    /// True for `Corrupt`: damage that the operator escape hatch can drop.
    pub fn is_corruption(&self) -> bool {
        matches!(self, LogError::Corrupt { .. })
    }
}

/// The text of an I/O error without Rust's " (os error N)" suffix: what
/// `strerror` says, as Redis quotes it in `MISCONF` replies.
pub fn describe_io(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}
