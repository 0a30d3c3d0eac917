//! [`SnapshotInfo`]: what is known of a complete snapshot.

/// A complete snapshot, as its writer finished it or a reader verified it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SnapshotInfo {
    /// The file name (see [`snapshot_name`](crate::snapshot_name)).
    pub name: String,
    /// The snapshot plus every log record with an LSN at or above this
    /// reproduces the state.
    pub start_lsn: u64,
    /// Records in the snapshot.
    pub records: u64,
    /// Length of the file.
    pub bytes: u64,
    /// When the writer was created, unix milliseconds.
    pub created_ms: u64,
}
