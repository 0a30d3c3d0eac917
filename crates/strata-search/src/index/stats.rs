//! Per-index operation counters and store size for `_stats` and `_cat/indices`.

pub(crate) use super::counters::IndexCounters;
use super::handle::SearchIndex;
use crate::store::StoreTier;

/// Where an index's segment bytes are and how its block reads went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageStats {
    /// `index.store.tier`.
    pub(crate) tier: StoreTier,
    /// Fresh (unflushed) segment bytes, in DRAM or persistent memory.
    pub fresh_bytes: u64,
    /// Flushed segment bytes held whole in DRAM (`dram`).
    pub resident_bytes: u64,
    /// Block reads of flushed files answered by the node's cache.
    pub cache_hits: u64,
    /// Block reads of flushed files that read the device.
    pub cache_misses: u64,
}

impl SearchIndex {
    /// The index's [`StorageStats`].
    pub fn storage_stats(&self) -> StorageStats {
        let (cache_hits, cache_misses) = self.reads.values();
        StorageStats {
            tier: self.tier(),
            fresh_bytes: self
                .shards
                .iter()
                .map(|s| s.directory().fresh_bytes() as u64)
                .sum(),
            resident_bytes: self.shards.iter().map(|s| s.resident_bytes()).sum(),
            cache_hits,
            cache_misses,
        }
    }

    /// Bytes the index occupies: every file under its directory (metadata,
    /// translog, flushed segments) plus fresh segment files (in DRAM, or
    /// in persistent memory for `pmem`) and flushed ones in the node's SSD
    /// store. Files removed while the walk runs are skipped, not errors.
    pub fn store_size_bytes(&self) -> u64 {
        let shards: u64 = (self.shards.iter())
            .map(|s| {
                (s.directory().fresh_bytes() as u64).saturating_add(s.directory().store_bytes())
            })
            .sum();
        shards.saturating_add(self.files.bytes_below(&self.dir))
    }

    /// Bytes of each shard (its tantivy files on disk and in DRAM; the
    /// translog and metadata are the index's, not a shard's).
    pub fn shard_store_sizes(&self) -> Vec<u64> {
        self.shards
            .iter()
            .enumerate()
            .map(|(n, s)| {
                let shard = self.dir.join("shards").join(n.to_string());
                (s.directory().fresh_bytes() as u64)
                    .saturating_add(s.directory().store_bytes())
                    .saturating_add(self.files.bytes_below(&shard))
            })
            .collect()
    }

    /// Live documents of each shard as of the last refresh.
    pub(crate) fn shard_doc_counts(&self) -> Vec<u64> {
        self.shards
            .iter()
            .map(|s| s.searcher().num_docs())
            .collect()
    }
}
