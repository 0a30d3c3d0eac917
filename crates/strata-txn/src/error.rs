//! [`TxnError`], the one error type of the engine, and [`AbortCause`].

use std::fmt;
use std::sync::Arc;

/// Why a transaction attempt was aborted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AbortCause {
    /// A lock was held by another transaction (NO_WAIT at any access, Silo
    /// when locking its write set).
    LockConflict,
    /// Silo: a record read changed before commit.
    Validation,
    /// The caller rolled back ([`TxnError::UserAbort`]).
    UserRollback,
}

impl AbortCause {
    /// Every cause, in report order.
    pub const ALL: [AbortCause; 3] = [
        AbortCause::LockConflict,
        AbortCause::Validation,
        AbortCause::UserRollback,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            AbortCause::LockConflict => "lock_conflict",
            AbortCause::Validation => "validation",
            AbortCause::UserRollback => "user_rollback",
        }
    }
}

impl fmt::Display for AbortCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything that can go wrong in the engine.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TxnError {
    /// A conflict with a concurrent transaction: retry
    /// ([`Worker::run`](crate::Worker::run) does).
    #[error("transaction aborted: {0}")]
    Conflict(AbortCause),
    /// The caller asked for a rollback; nothing was written.
    #[error("transaction rolled back by the caller")]
    UserAbort,
    /// No table of that name or id.
    #[error("no table {0:?}")]
    UnknownTable(String),
    /// No column of that name in the table.
    #[error("table {table:?} has no column {column:?}")]
    UnknownColumn {
        /// The table.
        table: String,
        /// The column asked for.
        column: String,
    },
    /// No index of that name in the table.
    #[error("table {table:?} has no index {index:?}")]
    UnknownIndex {
        /// The table.
        table: String,
        /// The index asked for.
        index: String,
    },
    /// A value of the wrong type for its column.
    #[error("column {column:?} holds {expected}, not {found}")]
    TypeMismatch {
        /// The column.
        column: String,
        /// Its type.
        expected: &'static str,
        /// What was given.
        found: &'static str,
    },
    /// A string longer than its column allows.
    #[error("column {column:?} holds at most {max} bytes, not {len}")]
    ValueTooLong {
        /// The column.
        column: String,
        /// Its limit.
        max: usize,
        /// The value's length.
        len: usize,
    },
    /// A row buffer of another table, or of the wrong size.
    #[error("row does not fit table {table:?}: {reason}")]
    RowMismatch {
        /// The table.
        table: String,
        /// What is wrong.
        reason: String,
    },
    /// An invalid table definition.
    #[error("bad definition of table {table:?}: {reason}")]
    Schema {
        /// The table.
        table: String,
        /// What is wrong.
        reason: String,
    },
    /// An insert of a key that exists.
    #[error("duplicate key {key} in table {table:?}")]
    DuplicateKey {
        /// The table.
        table: String,
        /// The key.
        key: u64,
    },
    /// An update or delete of a key that does not exist.
    #[error("no key {key} in table {table:?}")]
    NotFound {
        /// The table.
        table: String,
        /// The key.
        key: u64,
    },
    /// An update that changes a column an ordered index covers.
    #[error("column {column:?} of table {table:?} is indexed and cannot be updated (delete and insert instead)")]
    IndexedColumnChanged {
        /// The table.
        table: String,
        /// The column.
        column: String,
    },
    /// A scan's bounds do not fit its index.
    #[error("bad scan of index {index:?}: {reason}")]
    BadScan {
        /// The index.
        index: String,
        /// What is wrong.
        reason: String,
    },
    /// Every worker slot is taken.
    #[error("all {0} worker slots are in use")]
    TooManyWorkers(usize),
    /// The log failed: the commit was refused (nothing of it is
    /// acknowledged), and so will every later one be.
    #[error("not durable: {0}")]
    NotDurable(Arc<str>),
    /// The log device is out of space: the commit was refused (nothing of
    /// it is acknowledged). Commits made before stay pending and become
    /// durable, and new ones are accepted, once space is freed.
    #[error("log device full: {0}; commits resume once space is freed")]
    LogFull(Arc<str>),
    /// A transaction's log record would exceed the stream's limit.
    #[error("transaction too large to log: {len} bytes (limit {max})")]
    TooLarge {
        /// The record's size.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Recovery or checkpoint failure (names the file and offset where
    /// damage was found).
    #[error("{0}")]
    Storage(Arc<str>),
}

impl TxnError {
    /// The abort cause if this error aborted an attempt that may be retried.
    pub fn conflict(&self) -> Option<AbortCause> {
        match self {
            TxnError::Conflict(cause) => Some(*cause),
            _ => None,
        }
    }

    pub(crate) fn storage(message: impl Into<String>) -> TxnError {
        TxnError::Storage(Arc::from(message.into()))
    }
}

impl From<AbortCause> for TxnError {
    fn from(cause: AbortCause) -> TxnError {
        TxnError::Conflict(cause)
    }
}

impl From<strata_log::LogError> for TxnError {
    fn from(err: strata_log::LogError) -> TxnError {
        TxnError::storage(format!("log: {err}"))
    }
}

impl From<strata_snapshot::SnapshotError> for TxnError {
    fn from(err: strata_snapshot::SnapshotError) -> TxnError {
        TxnError::storage(format!("checkpoint: {err}"))
    }
}
