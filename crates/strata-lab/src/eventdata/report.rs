//! Results of a `bench eventdata` run: the serializable [`EventdataResult`], the human
//! report and the JSON file.
//!
//! Add fields with `#[serde(default)]` so older result files still load.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::args::{Durability, EventdataArgs, Phase};
use super::queries::WindowKind;
use super::stats::{ErrorTally, RateSecond};
use crate::kv::{LatencySummary, Machine};
use crate::LabError;

#[path = "report_table.rs"]
mod table;

pub use table::render;

/// Everything one run measured, with the configuration that produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventdataResult {
    /// The parameters of the run.
    pub config: EventdataConfig,
    /// Where the client ran.
    pub machine: Machine,
    /// What `GET /` said about the server.
    pub server: ServerInfo,
    /// What happened to the index before the phases.
    pub setup: SetupResult,
    /// The bulk indexing phase, if run.
    pub index: Option<IndexResult>,
    /// The query phase, if run.
    pub query: Option<QueryResult>,
    /// The mixed phase, if run.
    pub mixed: Option<MixedResult>,
    /// Things skipped or worked around (an endpoint the server lacks, a fallback).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The parameters of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct EventdataConfig {
    pub url: String,
    pub index: String,
    pub phases: Vec<Phase>,
    pub fresh: bool,
    pub shards: u32,
    pub refresh_interval: String,
    pub durability: Durability,
    pub clients: usize,
    pub bulk_size: u64,
    pub docs: u64,
    pub event_rate: f64,
    pub start: String,
    pub seed: u64,
    pub query_iterations: u32,
    pub time_zone: String,
    pub mixed_rate: f64,
    pub mixed_duration_secs: f64,
    pub timeout_secs: f64,
    pub threads: usize,
}

impl EventdataConfig {
    /// The configuration recorded for `args`.
    pub fn from_args(args: &EventdataArgs) -> Self {
        Self {
            url: args.url.clone(),
            index: args.index.clone(),
            phases: args.phases.clone(),
            fresh: args.fresh,
            shards: args.shards,
            refresh_interval: args.refresh_interval.clone(),
            durability: args.durability,
            clients: args.clients,
            bulk_size: args.bulk_size,
            docs: args.docs,
            event_rate: args.event_rate,
            start: args.start.clone(),
            seed: args.seed,
            query_iterations: args.query_iterations,
            time_zone: args.time_zone.clone(),
            mixed_rate: args.mixed_rate,
            mixed_duration_secs: args.mixed_duration,
            timeout_secs: args.timeout,
            threads: args.threads,
        }
    }
}

/// The server as it describes itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerInfo {
    /// `name`.
    pub name: Option<String>,
    /// `version.number`.
    pub version: Option<String>,
    /// `tagline`.
    pub tagline: Option<String>,
}

/// The index before the phases.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetupResult {
    /// `--fresh` deleted an existing index.
    pub deleted: bool,
    /// The index was created with the track's mapping.
    pub created: bool,
    /// Documents already in the index.
    pub docs_before: u64,
}

/// `_count` after a phase against the documents acknowledged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountCheck {
    /// Documents before the run plus documents acknowledged so far.
    pub expected: u64,
    /// What `_count` returned after `_refresh`.
    pub actual: Option<u64>,
    /// Why the count could not be read.
    pub error: Option<String>,
}

impl CountCheck {
    /// Whether the count was read and matches.
    pub fn ok(&self) -> bool {
        self.actual == Some(self.expected)
    }
}

/// The bulk indexing phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexResult {
    /// Documents sent.
    pub docs_sent: u64,
    /// Documents acknowledged as indexed.
    pub docs_indexed: u64,
    /// `_bulk` requests.
    pub bulks: u64,
    /// Seconds from the first request to the last reply.
    pub elapsed_secs: f64,
    /// `docs_indexed / elapsed_secs`.
    pub docs_per_sec: f64,
    /// Latency of a `_bulk` request.
    pub bulk_latency_ms: LatencySummary,
    /// Documents not indexed (failed items and failed requests).
    pub errors: ErrorTally,
    /// Acknowledged documents per second.
    pub timeline: Vec<RateSecond>,
    /// `_count` after `_refresh`.
    pub count: CountCheck,
    /// Primary store size from `_stats`, if offered.
    pub store_size_bytes: Option<u64>,
    /// Segment count from `_stats` or `_cat/segments`, if offered.
    pub segments: Option<u64>,
}

/// Latency of one dashboard over one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryStats {
    /// `traffic`, `content_issues` or `discover`.
    pub dashboard: String,
    /// e.g. `current-15m`.
    pub window: String,
    /// `current` or `relative`.
    pub kind: WindowKind,
    /// `_msearch` requests sent.
    pub runs: u64,
    /// Failed searches within them (or whole failed requests, counted per search).
    pub errors: ErrorTally,
    /// Latency of the whole `_msearch`.
    pub latency_ms: LatencySummary,
    /// Latency of the first run, which meets whatever the server builds on
    /// first use (absent in reports written before it was recorded).
    #[serde(default)]
    pub first_run_ms: Option<f64>,
    /// Which run (from 0) was the slowest.
    #[serde(default)]
    pub slowest_run: Option<u64>,
}

/// Latency of all dashboards over one kind of window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindStats {
    /// `current` or `relative`.
    pub kind: WindowKind,
    /// Requests.
    pub runs: u64,
    /// Latency of a dashboard's `_msearch`.
    pub latency_ms: LatencySummary,
}

/// The query phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    /// Oldest `@timestamp` in the index (epoch ms).
    pub oldest_ms: i64,
    /// Newest `@timestamp` in the index (epoch ms).
    pub newest_ms: i64,
    /// Seconds the phase took.
    pub elapsed_secs: f64,
    /// One row per dashboard and window.
    pub queries: Vec<QueryStats>,
    /// Per kind of window.
    pub by_kind: Vec<KindStats>,
    /// All failed searches.
    pub errors: ErrorTally,
}

/// The mixed phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixedResult {
    /// `--mixed-rate`.
    pub target_docs_per_sec: f64,
    /// Seconds from the start to the last reply.
    pub elapsed_secs: f64,
    /// Documents acknowledged.
    pub docs_indexed: u64,
    /// `docs_indexed / elapsed_secs`.
    pub achieved_docs_per_sec: f64,
    /// Latency of a `_bulk` request.
    pub bulk_latency_ms: LatencySummary,
    /// Documents not indexed.
    pub index_errors: ErrorTally,
    /// Acknowledged documents per second.
    pub timeline: Vec<RateSecond>,
    /// One row per dashboard and window.
    pub queries: Vec<QueryStats>,
    /// Per kind of window: `current` (the data being indexed) and `relative`.
    pub by_kind: Vec<KindStats>,
    /// Failed searches.
    pub query_errors: ErrorTally,
    /// `_count` after `_refresh`.
    pub count: CountCheck,
    /// Every dashboard run in order, to line slow runs up with what the
    /// server did then (its log has the times of flushes).
    #[serde(default)]
    pub runs: Vec<DashboardRun>,
}

/// One dashboard run of the mixed phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DashboardRun {
    /// When it was sent, in milliseconds since the phase started.
    pub at_ms: u64,
    /// `traffic`, `content_issues` or `discover`.
    pub dashboard: String,
    /// e.g. `current-15m`.
    pub window: String,
    /// Its latency.
    pub ms: f64,
}

impl EventdataResult {
    /// Fails when a phase's `_count` did not match the acknowledged documents.
    pub fn check(&self) -> Result<(), LabError> {
        let checks = [
            ("index", self.index.as_ref().map(|i| &i.count)),
            ("mixed", self.mixed.as_ref().map(|m| &m.count)),
        ];
        for (phase, check) in checks {
            if let Some(c) = check.filter(|c| !c.ok()) {
                let actual = c
                    .actual
                    .map_or_else(|| c.error.clone().unwrap_or_default(), |n| n.to_string());
                return Err(LabError::Check(format!(
                    "after the {phase} phase _count is {actual}, expected {}",
                    c.expected
                )));
            }
        }
        Ok(())
    }

    /// Writes the result as pretty JSON to `path`, replacing any existing file.
    pub fn write_json(&self, path: &Path) -> Result<(), LabError> {
        let fail = |source| LabError::WriteResult {
            path: path.to_owned(),
            source,
        };
        let mut json = serde_json::to_vec_pretty(self).map_err(|e| fail(e.into()))?;
        json.push(b'\n');
        std::fs::write(path, json).map_err(fail)
    }
}
