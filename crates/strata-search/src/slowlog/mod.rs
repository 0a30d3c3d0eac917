//! Elasticsearch's search and indexing slow logs, and the timings behind
//! `_stats`' `query_time_in_millis`, `fetch_time_in_millis` and
//! `index_time_in_millis` (and the metrics port's latency histograms).
//!
//! Thresholds are index settings ([`settings`]), dynamic as in
//! Elasticsearch: `index.search.slowlog.threshold.{query,fetch}.{warn,
//! info,debug,trace}`, `index.indexing.slowlog.threshold.index.*`,
//! `index.indexing.slowlog.source` and `index.indexing.slowlog.reformat`.
//! An operation at or over a threshold is logged through `tracing` on the
//! target [`TARGET`] at the most severe level whose threshold it reached
//! ([`event`]), so operators route or filter it by target
//! (`log_level = "info,strata::slowlog=trace"`).
//!
//! Granularity: Elasticsearch times each shard's query and fetch phase;
//! Strata searches an index's shards in one parallel pass, so a search's
//! phases are timed for the whole request and reported once per index it
//! covered (with `total_shards` the index's shard count).

pub mod event;
pub mod settings;

use std::sync::Arc;

use serde_json::Value;

use crate::index::SearchIndex;

pub use event::SearchTook;
pub(crate) use settings::SlowLogSettings;

/// Counts a finished search over `indices` in their statistics and logs
/// it per index whose thresholds it reached. `total_hits` and `source`
/// (the request body) are what the log line reports.
pub fn note_search(
    indices: &[Arc<SearchIndex>],
    took: SearchTook,
    total_hits: u64,
    source: &Value,
) {
    for index in indices {
        index.counters.note_search_took(took);
        let slowlog = index.settings_slowlog();
        let query = slowlog.query.level_for(took.query);
        let fetch = slowlog.fetch.level_for(took.fetch);
        if query.is_none() && fetch.is_none() {
            continue;
        }
        let shards = index.shards().len();
        let source = source.to_string();
        for (phase, level, phase_took) in
            [("query", query, took.query), ("fetch", fetch, took.fetch)]
        {
            if let Some(level) = level {
                event::search(
                    level,
                    &event::SearchEvent {
                        index: index.name(),
                        phase,
                        took: phase_took,
                        total_hits,
                        total_shards: shards,
                        source: &source,
                    },
                );
            }
        }
    }
}
