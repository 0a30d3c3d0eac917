//! A write the filesystem refused for lack of space (`ENOSPC`, `EDQUOT`)
//! stalls the log instead of poisoning it: nothing was lost, only not yet
//! written. The flusher puts the unwritten records back at the head of the
//! append buffer and retries every [`RETRY_INTERVAL`]; meanwhile
//! [`CommandLog::write_stalled`](crate::CommandLog::write_stalled) names
//! the cause, so that callers refuse new changes (Redis answers `MISCONF`
//! while its AOF cannot be written), and appends are still accepted (a
//! caller that applied a change before the stall began must log it) without
//! waiting for room. Once a write succeeds the stall is over.
//!
//! Syncs are never retried: a failed sync (whatever its error) poisons the
//! log, as does any other write error, and so does a stall still unresolved
//! [`CLOSE_PATIENCE`] after `close` was asked for.

use std::io;
use std::time::Duration;

use crate::record::encoded_len;
use crate::LogError;

/// How long the flusher waits between attempts to write through a stall.
pub(crate) const RETRY_INTERVAL: Duration = Duration::from_millis(100);

/// How long a closing log keeps retrying a stalled write before giving up
/// (the records are then lost, and the log poisoned).
pub(crate) const CLOSE_PATIENCE: Duration = Duration::from_secs(5);

/// Why a round of the flusher failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The filesystem is out of space (or quota): `written` bytes of the
    /// round's batch (whole records) reached the file; the rest is to be
    /// retried.
    NoSpace { written: usize, cause: LogError },
    /// Anything else: the log is poisoned.
    Fatal(LogError),
}

impl Failure {
    /// A failed write or file creation: out of space, or fatal.
    pub(crate) fn of_write(cause: LogError) -> Failure {
        if is_no_space(&cause) {
            Failure::NoSpace { written: 0, cause }
        } else {
            Failure::Fatal(cause)
        }
    }

    /// The same failure, with `written` bytes of the batch written first.
    pub(crate) fn after(self, written: usize) -> Failure {
        match self {
            Failure::NoSpace { cause, .. } => Failure::NoSpace { written, cause },
            fatal => fatal,
        }
    }
}

impl Failure {
    /// The error, whatever the kind of failure (recovery, which retries
    /// nothing).
    pub(crate) fn into_error(self) -> LogError {
        match self {
            Failure::NoSpace { cause, .. } | Failure::Fatal(cause) => cause,
        }
    }
}

impl From<LogError> for Failure {
    /// Syncs and everything else that is not a write: always fatal.
    fn from(cause: LogError) -> Failure {
        Failure::Fatal(cause)
    }
}

/// Whether `error` is a device write refused for lack of space.
pub(crate) fn is_no_space(error: &LogError) -> bool {
    match error {
        LogError::Io { source, .. } => {
            matches!(
                source.kind(),
                io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
            )
        }
        _ => false,
    }
}

/// Whole records in `batch`.
pub(crate) fn count_records(batch: &[u8]) -> u64 {
    let (mut at, mut records) = (0usize, 0u64);
    while at < batch.len() {
        at += encoded_len(&batch[at..]);
        records += 1;
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_space_and_quota_stall_other_errors_poison() {
        let io = |code| LogError::io("write", io::Error::from_raw_os_error(code));
        assert!(is_no_space(&io(28)));
        assert!(is_no_space(&io(122)));
        assert!(!is_no_space(&io(5)));
        assert!(matches!(
            Failure::of_write(io(5)).after(10),
            Failure::Fatal(_)
        ));
        assert!(matches!(
            Failure::of_write(io(28)).after(10),
            Failure::NoSpace { written: 10, .. }
        ));
        assert_eq!(
            crate::error::describe_io(&io::Error::from_raw_os_error(28)),
            "No space left on device"
        );
    }
}
