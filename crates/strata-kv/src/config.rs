//! How a keyspace is configured: size, eviction, item limit, shard count,
//! maintenance's catch-up budget, and the segment size that follows from
//! them. A leaf: it names only the eviction policy, the catch-up budget
//! and the arena's largest segment.

use crate::arena::MAX_SEGMENT_SIZE;
use crate::eviction::EvictionPolicy;
use crate::maintenance::CatchUpBudget;

/// How a keyspace is sized and what it does when full.
#[derive(Debug, Clone)]
pub struct KeyspaceConfig {
    /// Bytes of records and index the keyspace may hold; 0 means no limit.
    pub memory_limit: u64,
    /// What happens at the limit.
    pub eviction: EvictionPolicy,
    /// Largest item (header, key and value) accepted.
    pub max_item_size: usize,
    /// Number of independently locked shards (rounded up to a power of two).
    pub shards: usize,
    /// How far one maintenance pass may compact past its usual quota when
    /// a shard holds mostly garbage (default: 25 ms of wall clock).
    pub catch_up: CatchUpBudget,
}

impl Default for KeyspaceConfig {
    fn default() -> Self {
        Self {
            memory_limit: 1 << 30,
            eviction: EvictionPolicy::Clock,
            max_item_size: 1 << 20,
            shards: 64,
            catch_up: CatchUpBudget::default(),
        }
    }
}

/// The segment size for a keyspace of `limit` bytes over `shards` shards.
pub(crate) fn segment_size_for(limit: u64, shards: usize) -> usize {
    if limit == 0 {
        return MAX_SEGMENT_SIZE;
    }
    // At least eight segments per shard's fair share, so eviction is gradual.
    let per = (limit / shards as u64 / 8).max(1);
    let pow2 = 1usize << (63 - per.leading_zeros());
    pow2.clamp(4096, MAX_SEGMENT_SIZE)
}
