//! The phases of a run and what they share: the [`Run`] context (arguments, client,
//! generator), sending one bulk, running one dashboard, the `_refresh` + `_count` check and
//! the bookkeeping of query latencies.
//!
//! - `setup`: server info, deleting and creating the index;
//! - `index`: bulk indexing as fast as the server takes it;
//! - `query`: the dashboards over every window, no indexing;
//! - `mixed`: paced indexing while one client runs the dashboards.

pub(crate) mod index;
pub(crate) mod mixed;
pub(crate) mod query;
pub(crate) mod setup;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::Method;
use serde_json::json;

use super::args::EventdataArgs;
use super::generator::EventGenerator;
use super::http::{BodyKind, EsClient};
use super::queries::{msearch_body, Dashboard, SearchScope, Window, WindowKind};
use super::replies::{self, BulkOutcome};
use super::report::{CountCheck, KindStats, QueryStats};
use super::stats::{ErrorTally, Latencies};

/// What every phase needs; shared by the client tasks behind an `Arc`.
pub(crate) struct Run {
    /// The command line.
    pub args: EventdataArgs,
    /// The server.
    pub client: EsClient,
    /// The documents.
    pub generator: EventGenerator,
}

/// The time span of the indexed data, epoch ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DataSpan {
    pub oldest_ms: i64,
    pub newest_ms: i64,
}

impl Run {
    /// `/<index><suffix>`.
    pub fn path(&self, suffix: &str) -> String {
        format!("/{}{suffix}", self.args.index)
    }

    /// Indexes documents `first .. first + count` in one `_bulk` and says how long it took
    /// and what the server acknowledged.
    pub async fn send_bulk(&self, first: u64, count: u64) -> (Duration, BulkOutcome) {
        let mut body = Vec::with_capacity(count as usize * 900);
        self.generator.write_bulk(&mut body, first, count);
        let path = self.path("/_bulk");
        let sent = Instant::now();
        let reply = self
            .client
            .send(Method::POST, &path, BodyKind::NdJson, Bytes::from(body))
            .await;
        let took = sent.elapsed();
        let outcome = match reply {
            Ok(reply) => replies::bulk_outcome(&reply, count),
            Err(failure) => BulkOutcome::failed(count, failure.to_string()),
        };
        (took, outcome)
    }

    /// Runs `dashboard` over `window` of `span` and returns its latency, failed searches and
    /// the first failure.
    pub async fn run_dashboard(
        &self,
        dashboard: Dashboard,
        window: Window,
        span: DataSpan,
        preference: u64,
    ) -> (Duration, u64, Option<String>) {
        let (gte_ms, lte_ms) = window.range(span.oldest_ms, span.newest_ms);
        let scope = SearchScope {
            index: &self.args.index,
            gte_ms,
            lte_ms,
            time_zone: &self.args.time_zone,
            preference,
        };
        let (body, searches) = msearch_body(dashboard, &scope);
        let sent = Instant::now();
        let reply = self
            .client
            .send(
                Method::POST,
                "/_msearch",
                BodyKind::NdJson,
                Bytes::from(body),
            )
            .await;
        let took = sent.elapsed();
        let (failed, first) = match reply {
            Ok(reply) => replies::msearch_errors(&reply, searches),
            Err(failure) => (searches as u64, Some(failure.to_string())),
        };
        let first = first.map(|why| format!("{} {}: {why}", dashboard.name(), window.label()));
        (took, failed, first)
    }

    /// `_refresh`, then `_count` compared with `expected`.
    pub async fn refresh_and_count(&self, expected: u64) -> CountCheck {
        let mut check = CountCheck {
            expected,
            ..CountCheck::default()
        };
        match self
            .client
            .send_json(Method::POST, &self.path("/_refresh"), &json!({}))
            .await
        {
            Ok(reply) if reply.is_success() => {}
            Ok(reply) => check.error = Some(format!("_refresh: {}", reply.describe())),
            Err(failure) => check.error = Some(failure.to_string()),
        }
        match self.client.get(&self.path("/_count")).await {
            Ok(reply) => match replies::count(&reply) {
                Ok(n) => check.actual = Some(n),
                Err(why) => check.error = Some(format!("_count: {why}")),
            },
            Err(failure) => check.error = Some(failure.to_string()),
        }
        check
    }
}

/// One dashboard's runs over one window.
#[derive(Default)]
struct Row {
    latencies: Latencies,
    runs: u64,
    errors: ErrorTally,
    first_ms: Option<f64>,
    /// The slowest run: its latency (ms) and number.
    slowest: Option<(f64, u64)>,
}

/// Query latencies per dashboard and window, and per kind of window.
#[derive(Default)]
pub(crate) struct QueryBook {
    rows: HashMap<(Dashboard, Window), Row>,
    kinds: HashMap<WindowKind, Latencies>,
    errors: ErrorTally,
}

impl QueryBook {
    /// Records one run of `dashboard` over `window`.
    pub fn record(
        &mut self,
        dashboard: Dashboard,
        window: Window,
        took: Duration,
        failed: u64,
        first: Option<String>,
    ) {
        let row = self.rows.entry((dashboard, window)).or_default();
        let ms = took.as_secs_f64() * 1e3;
        row.latencies.record(took);
        row.first_ms.get_or_insert(ms);
        if row.slowest.is_none_or(|(slowest, _)| ms > slowest) {
            row.slowest = Some((ms, row.runs));
        }
        row.runs += 1;
        row.errors.add(failed, first.clone());
        self.kinds.entry(window.kind()).or_default().record(took);
        self.errors.add(failed, first);
    }

    /// Rows in window then dashboard order, per-kind summaries, and all failures.
    pub fn finish(self) -> (Vec<QueryStats>, Vec<KindStats>, ErrorTally) {
        let mut rows = Vec::new();
        for window in Window::ALL {
            for dashboard in Dashboard::ALL {
                if let Some(row) = self.rows.get(&(dashboard, window)) {
                    rows.push(QueryStats {
                        dashboard: dashboard.name().to_owned(),
                        window: window.label(),
                        kind: window.kind(),
                        runs: row.runs,
                        errors: row.errors.clone(),
                        latency_ms: row.latencies.summary(),
                        first_run_ms: row.first_ms,
                        slowest_run: row.slowest.map(|(_, run)| run),
                    });
                }
            }
        }
        let kinds = [WindowKind::Current, WindowKind::Relative]
            .into_iter()
            .filter_map(|kind| {
                self.kinds.get(&kind).map(|l| KindStats {
                    kind,
                    runs: l.len(),
                    latency_ms: l.summary(),
                })
            })
            .collect();
        (rows, kinds, self.errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_keeps_its_first_and_slowest_run() {
        let mut book = QueryBook::default();
        let (d, w) = (Dashboard::Traffic, Window::ALL[0]);
        for ms in [30, 12, 45, 45, 20] {
            book.record(d, w, Duration::from_millis(ms), 0, None);
        }
        book.record(Dashboard::Discover, w, Duration::from_millis(7), 0, None);
        let (rows, _, _) = book.finish();
        let traffic = rows.iter().find(|r| r.dashboard == "traffic").unwrap();
        assert_eq!(
            (traffic.runs, traffic.first_run_ms, traffic.slowest_run),
            (5, Some(30.0), Some(2))
        );
        let discover = rows.iter().find(|r| r.dashboard == "discover").unwrap();
        assert_eq!(
            (discover.first_run_ms, discover.slowest_run),
            (Some(7.0), Some(0))
        );
    }
}
