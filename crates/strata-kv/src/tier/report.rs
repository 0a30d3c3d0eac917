//! [`RestartReport`]: what opening a keyspace found, kept by the tier for
//! `INFO` and returned to the caller.

use std::time::Duration;

use super::placement::Placement;

/// What a start found in the persistent arena.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestartReport {
    /// The placement served.
    pub placement: Placement,
    /// Whether the arena held a keyspace (false: made new).
    pub restarted: bool,
    /// How the index was restored: "new", "adopted" (served as found) or
    /// "rebuilt" (scanned from the records).
    pub index: &'static str,
    /// Items served after the restore.
    pub items: u64,
    /// Index entries checked (adopted), or records scanned (rebuilt).
    pub records_checked: u64,
    /// Superseded records found live and marked dead (crash leftovers).
    pub duplicates_dropped: u64,
    /// Segments adopted.
    pub segments: u64,
    /// Whether the records (or stubs) were read to count large
    /// collections' chunk entries: always in a rebuild or a `data = ssd`
    /// adoption; in a persistent-memory restart only once the directory's
    /// chunk mark says a chunk was ever written.
    pub chunks_counted: bool,
    /// Wall time of the restore.
    pub duration: Duration,
}
