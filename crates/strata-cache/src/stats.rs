//! The counters the cache's shards and its facade share. A leaf.

/// Counters of a [`Cache`](super::Cache).
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
    /// Bytes held in memory now: values as allocated, the tables and the
    /// queues (`memory`).
    pub bytes: u64,
    /// Of `bytes`, the values' own (as allocated), without the tables and
    /// queues: what the records themselves occupy.
    pub value_bytes: u64,
    /// The byte budget.
    pub budget: u64,
    /// True when these are one user's figures in a [`SharedCache`](super::SharedCache):
    /// `budget` is then the budget every user shares, and `bytes` the
    /// user's records plus its share of the tables.
    pub shared: bool,
    /// A shared cache user's floor: bytes of records below which the global
    /// eviction spares it ([`UserLimits`](super::UserLimits)); 0 otherwise.
    pub floor: u64,
    /// A shared cache user's ceiling, if it has one.
    pub ceiling: Option<u64>,
}
