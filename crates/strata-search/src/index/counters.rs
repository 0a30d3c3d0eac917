//! `IndexCounters`: an index's operation counters and latency histograms
//! since it was opened (`_stats`, `_cat`, the metrics port).

use std::sync::atomic::{AtomicU64, Ordering};

use strata_metrics::LatencyHistogram;

use crate::slowlog::event::SearchTook;

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
    pub(crate) fn note_query(&self) {
        self.query_total.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn note_refresh(&self) {
        self.refresh_total.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn note_flush(&self) {
        self.flush_total.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a search's phase times.
    pub(crate) fn note_search_took(&self, took: SearchTook) {
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
