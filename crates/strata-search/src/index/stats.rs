//! Per-index operation counters and store size for `_stats` and `_cat/indices`.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use strata_metrics::LatencyHistogram;

use super::SearchIndex;
use crate::store::StoreTier;

/// Where an index's segment bytes are and how its block reads went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageStats {
    /// `index.store.tier`.
    pub tier: StoreTier,
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
            fresh_bytes: self.shards.iter().map(|s| s.fresh_bytes() as u64).sum(),
            resident_bytes: self.shards.iter().map(|s| s.resident_bytes()).sum(),
            cache_hits,
            cache_misses,
        }
    }

    /// Bytes the index occupies: every file under its directory (metadata,
    /// translog, flushed segments) plus fresh segment files (in DRAM, or
    /// in persistent memory for `pmem`).
    /// Files removed while the walk runs are skipped, not errors.
    pub fn store_size_bytes(&self) -> u64 {
        let fresh: u64 = self.shards.iter().map(|s| s.fresh_bytes() as u64).sum();
        fresh + dir_size(&self.dir)
    }

    /// Bytes of each shard (its tantivy files on disk and in DRAM; the
    /// translog and metadata are the index's, not a shard's).
    pub fn shard_store_sizes(&self) -> Vec<u64> {
        self.shards
            .iter()
            .enumerate()
            .map(|(n, s)| {
                s.fresh_bytes() as u64 + dir_size(&self.dir.join("shards").join(n.to_string()))
            })
            .collect()
    }

    /// Live documents of each shard as of the last refresh.
    pub fn shard_doc_counts(&self) -> Vec<u64> {
        self.shards
            .iter()
            .map(|s| s.searcher().num_docs())
            .collect()
    }
}

fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(m) if m.is_dir() => dir_size(&entry.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// Counters of one index since it was opened.
#[derive(Debug, Default)]
pub struct IndexCounters {
    index_total: AtomicU64,
    delete_total: AtomicU64,
    get_total: AtomicU64,
    query_total: AtomicU64,
    refresh_total: AtomicU64,
    flush_total: AtomicU64,
    /// Time of each search's query phase (a search counts once per index
    /// it covered, with the whole request's phase time).
    pub query_latency: LatencyHistogram,
    /// Time of each search's fetch phase.
    pub fetch_latency: LatencyHistogram,
    /// Time of each document indexed (parsing, building, translog append
    /// and the shard write; not the durability wait).
    pub index_latency: LatencyHistogram,
}

/// A snapshot of [`IndexCounters`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CounterValues {
    /// Documents indexed.
    pub index_total: u64,
    /// Documents deleted.
    pub delete_total: u64,
    /// Real-time gets.
    pub get_total: u64,
    /// Searches (per index, not per shard).
    pub query_total: u64,
    /// Shard refreshes that committed changes.
    pub refresh_total: u64,
    /// Flushes.
    pub flush_total: u64,
}

impl IndexCounters {
    pub(crate) fn note_index(&self) {
        self.index_total.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn note_delete(&self) {
        self.delete_total.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn note_get(&self) {
        self.get_total.fetch_add(1, Ordering::Relaxed);
    }
    /// Counts one search over this index.
    pub fn note_query(&self) {
        self.query_total.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn note_refresh(&self) {
        self.refresh_total.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn note_flush(&self) {
        self.flush_total.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a search's phase times.
    pub(crate) fn note_search_took(&self, took: crate::slowlog::SearchTook) {
        self.query_latency.record(took.query);
        self.fetch_latency.record(took.fetch);
    }

    /// The current values.
    pub fn values(&self) -> CounterValues {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        CounterValues {
            index_total: g(&self.index_total),
            delete_total: g(&self.delete_total),
            get_total: g(&self.get_total),
            query_total: g(&self.query_total),
            refresh_total: g(&self.refresh_total),
            flush_total: g(&self.flush_total),
        }
    }
}
