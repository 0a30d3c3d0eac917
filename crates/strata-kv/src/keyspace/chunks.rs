//! Keyspace-wide facts about large collections' chunks (see
//! [`crate::chunk`]), for `INFO`-style reporting and for tests that check
//! nothing leaked.

use super::core::Keyspace;

/// Chunk records held and orphans among them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChunkCensus {
    /// Chunk records in the index.
    pub chunks: u64,
    /// Chunks whose head is gone or no longer counts them (a leak: 0
    /// unless something is wrong).
    pub orphans: u64,
    /// Chunks that heads count but that do not exist (0 unless lost).
    pub missing: u64,
}

impl Keyspace {
    /// Counts chunk records and orphans, one shard at a time (read locks;
    /// O(index)).
    pub fn chunk_census(&self) -> ChunkCensus {
        let mut census = ChunkCensus::default();
        for i in 0..self.shard_count() {
            let (chunks, orphans, missing) = self.shard_at(i).read().chunk_census(&self.ctx);
            census.chunks += chunks as u64;
            census.orphans += orphans as u64;
            census.missing += missing as u64;
        }
        census
    }
}
