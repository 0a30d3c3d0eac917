//! What the cache's shards and its facade share: the per-record overhead
//! charged against the budget and the counters. A leaf of `cache`.

/// Bytes charged per cached record on top of its payload (map slot, queue
/// positions, `Bytes` header), so that the budget bounds real memory.
pub const ENTRY_OVERHEAD: usize = 64;

/// Counters of a [`RecordCache`](super::RecordCache).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that found the record.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Records inserted.
    pub insertions: u64,
    /// Records evicted to stay within the budget.
    pub evictions: u64,
    /// Records held now.
    pub entries: u64,
    /// Bytes held now, overhead included.
    pub bytes: u64,
    /// The byte budget.
    pub budget: u64,
}
