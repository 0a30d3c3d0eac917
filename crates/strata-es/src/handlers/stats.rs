//! Per-index statistics shared by `_stats`, `_nodes/stats` and
//! `_cat/indices`: document and segment counts from the current
//! searchers, store size on disk and in DRAM, operation counters, and
//! Strata's own `strata_store` section (where segment bytes are, block
//! cache hits and misses of the index's flushed files). Only what is
//! measured is reported: query, fetch and indexing times are
//! (`strata_search::slowlog`), merge and refresh times are not.

use serde_json::{json, Value};
use strata_search::SearchIndex;

/// Statistics of one index (or a sum of several).
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexStats {
    /// Live documents as of the last refresh.
    pub docs: u64,
    /// Deleted documents not yet merged away.
    pub deleted: u64,
    /// Bytes on disk and in fresh DRAM segments.
    pub store_bytes: u64,
    /// Searchable segments.
    pub segments: u64,
    /// Documents indexed since open.
    pub index_total: u64,
    /// Documents deleted since open.
    pub delete_total: u64,
    /// Real-time gets since open.
    pub get_total: u64,
    /// Searches since open.
    pub query_total: u64,
    /// Time of their query phases, milliseconds.
    pub query_millis: u64,
    /// Fetch phases since open.
    pub fetch_total: u64,
    /// Their time, milliseconds.
    pub fetch_millis: u64,
    /// Time spent indexing documents, milliseconds.
    pub index_millis: u64,
    /// Refreshes since open.
    pub refresh_total: u64,
    /// Flushes since open.
    pub flush_total: u64,
    /// Fresh segment bytes (DRAM or persistent memory).
    pub fresh_bytes: u64,
    /// Flushed segment bytes held whole in DRAM (`dram` tier).
    pub resident_bytes: u64,
    /// Block reads answered by the node's block cache.
    pub cache_hits: u64,
    /// Block reads that went to the device.
    pub cache_misses: u64,
    /// Translog records replayed when the index was opened.
    pub replayed_at_open: u64,
}

impl IndexStats {
    /// Measures `index`.
    pub fn of(index: &SearchIndex) -> IndexStats {
        let mut stats = IndexStats {
            store_bytes: index.store_size_bytes(),
            ..IndexStats::default()
        };
        for searcher in index.searchers() {
            for segment in searcher.segment_readers() {
                stats.segments += 1;
                stats.docs += u64::from(segment.num_docs());
                stats.deleted += u64::from(segment.num_deleted_docs());
            }
        }
        let c = index.counters.values();
        stats.index_total = c.index_total;
        stats.delete_total = c.delete_total;
        stats.get_total = c.get_total;
        stats.query_total = c.query_total;
        stats.refresh_total = c.refresh_total;
        stats.flush_total = c.flush_total;
        let millis = |h: &strata_metrics::LatencyHistogram| h.snapshot().sum_nanos / 1_000_000;
        stats.query_millis = millis(&index.counters.query_latency);
        stats.fetch_total = index.counters.fetch_latency.snapshot().count;
        stats.fetch_millis = millis(&index.counters.fetch_latency);
        stats.index_millis = millis(&index.counters.index_latency);
        let storage = index.storage_stats();
        stats.fresh_bytes = storage.fresh_bytes;
        stats.resident_bytes = storage.resident_bytes;
        stats.cache_hits = storage.cache_hits;
        stats.cache_misses = storage.cache_misses;
        stats.replayed_at_open = index.replayed_at_open();
        stats
    }

    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &IndexStats) {
        self.docs += other.docs;
        self.deleted += other.deleted;
        self.store_bytes += other.store_bytes;
        self.segments += other.segments;
        self.index_total += other.index_total;
        self.delete_total += other.delete_total;
        self.get_total += other.get_total;
        self.query_total += other.query_total;
        self.query_millis += other.query_millis;
        self.fetch_total += other.fetch_total;
        self.fetch_millis += other.fetch_millis;
        self.index_millis += other.index_millis;
        self.refresh_total += other.refresh_total;
        self.flush_total += other.flush_total;
        self.fresh_bytes += other.fresh_bytes;
        self.resident_bytes += other.resident_bytes;
        self.cache_hits += other.cache_hits;
        self.cache_misses += other.cache_misses;
        self.replayed_at_open += other.replayed_at_open;
    }

    /// The `_stats` section form.
    pub fn to_json(&self) -> Value {
        json!({
            "docs": {"count": self.docs, "deleted": self.deleted},
            "store": {"size_in_bytes": self.store_bytes, "total_data_set_size_in_bytes": self.store_bytes, "reserved_in_bytes": 0},
            "indexing": {"index_total": self.index_total, "index_time_in_millis": self.index_millis, "delete_total": self.delete_total},
            "get": {"total": self.get_total},
            "search": {"query_total": self.query_total, "query_time_in_millis": self.query_millis, "fetch_total": self.fetch_total, "fetch_time_in_millis": self.fetch_millis},
            "refresh": {"total": self.refresh_total},
            "flush": {"total": self.flush_total},
            "segments": {"count": self.segments},
            "strata_store": {
                "fresh_in_bytes": self.fresh_bytes,
                "dram_resident_in_bytes": self.resident_bytes,
                "block_cache_hits": self.cache_hits,
                "block_cache_misses": self.cache_misses,
                "translog_replayed_at_open": self.replayed_at_open,
            },
        })
    }
}

/// An index's health on a single node: green without replicas, yellow when
/// replicas are configured (they can never be assigned).
pub fn health_of(index: &SearchIndex) -> &'static str {
    if index.settings().number_of_replicas == 0 {
        "green"
    } else {
        "yellow"
    }
}

/// Bytes in Elasticsearch's human form (`12.3kb`).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["b", "kb", "mb", "gb", "tb"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes}b")
    } else {
        let rounded = (value * 10.0).round() / 10.0;
        format!("{rounded}{}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512), "512b");
        assert_eq!(human_bytes(2048), "2kb");
        assert_eq!(human_bytes(1536 * 1024), "1.5mb");
    }
}
