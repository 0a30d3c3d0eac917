//! The one error type of the snapshot layer.

use std::io;

/// Everything that can go wrong writing, choosing or reading a snapshot.
///
/// `Corrupt`, `Incomplete` and `UnsupportedVersion` describe a file;
/// `Io` and `WriterFailed` an operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A device or directory operation failed.
    #[error("snapshot I/O failed: {context}")]
    Io {
        /// What was being done, naming the file.
        context: String,
        /// The device error.
        #[source]
        source: io::Error,
    },

    /// Bytes that are present but wrong: a checksum or a count that does not
    /// match, a malformed record, bytes after the trailer.
    #[error("snapshot corrupt: {file} at offset {offset}: {reason}")]
    Corrupt {
        /// The snapshot file.
        file: String,
        /// Byte offset of the bad header, block or trailer.
        offset: u64,
        /// What is wrong there.
        reason: String,
    },

    /// The file ends before a valid trailer: the snapshot was never finished
    /// (or was truncated since).
    #[error("snapshot incomplete: {file} ends at offset {offset} without a valid trailer")]
    Incomplete {
        /// The snapshot file.
        file: String,
        /// Where more bytes were expected (the start of the unfinished part).
        offset: u64,
    },

    /// A header written by a format version this build cannot read. Never
    /// skipped by [`Fallback::OlderGood`](crate::Fallback::OlderGood).
    #[error("{file}: snapshot format version {version} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// The snapshot file.
        file: String,
        /// Version found in its header.
        version: u32,
        /// Version this build writes and reads.
        supported: u32,
    },

    /// A key or value longer than a snapshot record may hold.
    #[error("snapshot item {field} of {len} bytes exceeds the limit of {max} bytes")]
    ItemTooLarge {
        /// `"key"` or `"value"`.
        field: &'static str,
        /// Length given.
        len: usize,
        /// The limit.
        max: usize,
    },

    /// An earlier write or sync of this writer failed; the snapshot cannot be
    /// completed and should be aborted.
    #[error("snapshot writer for {name} failed earlier ({cause}); abort it")]
    WriterFailed {
        /// The snapshot being written.
        name: String,
        /// The first failure, as text (it was returned by value then).
        cause: String,
    },

    /// A name that is not a valid snapshot name for the operation.
    #[error("invalid snapshot name {name:?}: {reason}")]
    InvalidName {
        /// The name given.
        name: String,
        /// Why it does not fit.
        reason: String,
    },

    /// A [`WriterOptions`](crate::WriterOptions) value out of range.
    #[error("invalid snapshot writer option: {0}")]
    Config(String),
}

impl SnapshotError {
    /// Wraps a device error with what was being done.
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> SnapshotError {
        SnapshotError::Io {
            context: context.into(),
            source,
        }
    }

    /// True for `Corrupt` and `Incomplete`: damage to a file, which
    /// [`Fallback::OlderGood`](crate::Fallback::OlderGood) may step over.
    pub fn is_damage(&self) -> bool {
        matches!(
            self,
            SnapshotError::Corrupt { .. } | SnapshotError::Incomplete { .. }
        )
    }
}
