//! The search node at scrape time: per index the figures `_stats` shows
//! (documents, store bytes, indexing, searches and their time, refreshes,
//! flushes, block-cache reads), node-wide latency histograms of the
//! query and fetch phases and of indexing (summed over indices, so
//! deleting an index lowers them: Prometheus reads that as a counter
//! reset), the node's block cache and indexing pressure.

use std::fmt::Result;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::registry::Unit;
use strata_es::handlers::stats::IndexStats;
use strata_es::NodeState;
use strata_metrics::HistogramSnapshot;

use super::encode::{counter, counters, gauge, gauges, histograms, seconds_counters, Labels};

/// Reads the search node; exports nothing while its indices recover.
#[derive(Debug)]
pub(crate) struct SearchCollector {
    pub state: Arc<NodeState>,
}

impl Collector for SearchCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result {
        let Some(node) = self.state.node() else {
            return Ok(());
        };
        let enc = &mut enc;
        let names = node.catalog.names();
        let indices: Vec<_> = names
            .iter()
            .filter_map(|name| Some((name.as_str(), node.catalog.get(name).ok()?)))
            .collect();
        let stats: Vec<(&str, IndexStats)> = indices
            .iter()
            .map(|(name, index)| (*name, IndexStats::of(index)))
            .collect();
        let per_index = |f: fn(&IndexStats) -> u64| {
            stats
                .iter()
                .map(move |(name, s)| (vec![("index", *name)] as Labels, f(s)))
        };
        gauges(
            enc,
            "search_index_documents",
            "Live documents of each index as of its last refresh.",
            None,
            per_index(|s| s.docs).map(|(l, v)| (l, v as i64)),
        )?;
        gauges(
            enc,
            "search_index_store",
            "Bytes of each index (files on disk and fresh segments).",
            Some(Unit::Bytes),
            per_index(|s| s.store_bytes).map(|(l, v)| (l, v as i64)),
        )?;
        gauges(
            enc,
            "search_index_segments",
            "Searchable segments of each index.",
            None,
            per_index(|s| s.segments).map(|(l, v)| (l, v as i64)),
        )?;
        counters(
            enc,
            "search_indexed_documents",
            "Documents indexed since the index was opened.",
            None,
            per_index(|s| s.index_total),
        )?;
        counters(
            enc,
            "search_deleted_documents",
            "Documents deleted since the index was opened.",
            None,
            per_index(|s| s.delete_total),
        )?;
        counters(
            enc,
            "search_queries",
            "Searches over each index since it was opened.",
            None,
            per_index(|s| s.query_total),
        )?;
        counters(
            enc,
            "search_fetches",
            "Fetch phases over each index since it was opened.",
            None,
            per_index(|s| s.fetch_total),
        )?;
        counters(
            enc,
            "search_gets",
            "Real-time gets since the index was opened.",
            None,
            per_index(|s| s.get_total),
        )?;
        counters(
            enc,
            "search_refreshes",
            "Refreshes that made changes searchable.",
            None,
            per_index(|s| s.refresh_total),
        )?;
        counters(
            enc,
            "search_flushes",
            "Flushes (segments persisted, translog trimmed).",
            None,
            per_index(|s| s.flush_total),
        )?;
        counters(
            enc,
            "search_index_cache_hits",
            "Block reads of the index's flushed files answered by the block cache.",
            None,
            per_index(|s| s.cache_hits),
        )?;
        counters(
            enc,
            "search_index_cache_misses",
            "Block reads of the index's flushed files that read the device.",
            None,
            per_index(|s| s.cache_misses),
        )?;
        let mut query = HistogramSnapshot::default();
        let mut fetch = HistogramSnapshot::default();
        let mut indexing = HistogramSnapshot::default();
        let mut times = Vec::with_capacity(indices.len());
        for (name, index) in &indices {
            let c = &index.counters;
            let (q, f, i) = (
                c.query_latency.snapshot(),
                c.fetch_latency.snapshot(),
                c.index_latency.snapshot(),
            );
            times.push((*name, q.sum_seconds(), f.sum_seconds(), i.sum_seconds()));
            query.merge(&q);
            fetch.merge(&f);
            indexing.merge(&i);
        }
        let label = |name| vec![("index", name)] as Labels;
        seconds_counters(
            enc,
            "search_query",
            "Time of the query phases of searches over each index.",
            times.iter().map(|t| (label(t.0), t.1)),
        )?;
        seconds_counters(
            enc,
            "search_fetch",
            "Time of the fetch phases of searches over each index.",
            times.iter().map(|t| (label(t.0), t.2)),
        )?;
        seconds_counters(
            enc,
            "search_indexing",
            "Time spent indexing documents into each index.",
            times.iter().map(|t| (label(t.0), t.3)),
        )?;
        histograms(
            enc,
            "search_phase_duration",
            "Time of search phases (query, fetch), all indices.",
            [
                (vec![("phase", "query")] as Labels, query),
                (vec![("phase", "fetch")], fetch),
            ],
        )?;
        histograms(
            enc,
            "search_indexing_duration",
            "Time to index one document, all indices.",
            [(Labels::new(), indexing)],
        )?;
        let cache = node.catalog.storage().cache.stats();
        gauge(
            enc,
            "search_cache_size",
            "Bytes held by the search block cache.",
            Some(Unit::Bytes),
            cache.size_bytes as i64,
        )?;
        gauge(
            enc,
            "search_cache_budget",
            "The search block cache's byte budget (search_cache_size; cache_size when shared).",
            Some(Unit::Bytes),
            cache.budget_bytes as i64,
        )?;
        counter(
            enc,
            "search_cache_hits",
            "Block lookups answered by the search block cache.",
            None,
            cache.hits,
        )?;
        counter(
            enc,
            "search_cache_misses",
            "Block lookups that read the file.",
            None,
            cache.misses,
        )?;
        counter(
            enc,
            "search_cache_miss_read",
            "Bytes read from files on block cache misses.",
            Some(Unit::Bytes),
            cache.miss_bytes,
        )?;
        gauge(
            enc,
            "search_indexing_pressure",
            "Bytes of write requests in flight (429 beyond the bound).",
            Some(Unit::Bytes),
            node.indexing_pressure.current() as i64,
        )?;
        gauge(
            enc,
            "search_indices",
            "Indices on the node.",
            None,
            indices.len() as i64,
        )
    }
}
