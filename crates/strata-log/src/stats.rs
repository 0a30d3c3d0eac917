//! The counters a server shows in `stats` / `INFO persistence`.

/// A snapshot of the log's counters.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LogStats {
    /// Records appended since open.
    pub records: u64,
    /// Bytes appended since open (headers included).
    pub bytes: u64,
    /// Bytes appended but not yet handed to the flusher.
    pub buffered_bytes: u64,
    /// Device syncs since open (record syncs and new segment headers).
    pub syncs: u64,
    /// Segment files the log holds.
    pub segments: usize,
    /// Oldest LSN the log still holds.
    pub first_lsn: u64,
    /// Every record up to this LSN is durable.
    pub durable_lsn: u64,
    /// The last LSN assigned.
    pub last_lsn: u64,
    /// The failure that poisoned the log, if one did.
    pub poisoned: Option<String>,
    /// The write failure being retried (out of space), while stalled.
    pub stalled: Option<String>,
}
