//! The query phase: find the data's time span, then run every dashboard over every window
//! `--query-iterations` times, one request at a time, without indexing.

use std::time::Instant;

use hyper::Method;
use serde_json::json;

use super::{DataSpan, QueryBook, Run};
use crate::eventdata::progress::PhaseBar;
use crate::eventdata::queries::{Dashboard, Window};
use crate::eventdata::replies;
use crate::eventdata::report::QueryResult;

/// The oldest and newest `@timestamp` in the index (Rally's "fieldstats" step), by a `min`
/// and a `max` aggregation; `None` (with a note) when the server cannot say.
pub(crate) async fn data_span(run: &Run, notes: &mut Vec<String>) -> Option<DataSpan> {
    let body = json!({
        "size": 0,
        "aggs": {
            "oldest": { "min": { "field": "@timestamp" } },
            "newest": { "max": { "field": "@timestamp" } }
        }
    });
    let path = run.path("/_search");
    let reply = match run.client.send_json(Method::POST, &path, &body).await {
        Ok(reply) if reply.is_success() => reply,
        Ok(reply) => {
            notes.push(format!("time span query failed: {}", reply.describe()));
            return None;
        }
        Err(failure) => {
            notes.push(format!("time span query failed: {failure}"));
            return None;
        }
    };
    let value = reply.json().ok()?;
    let oldest = replies::agg_value(&value, "oldest")?;
    let newest = replies::agg_value(&value, "newest")?;
    Some(DataSpan {
        oldest_ms: oldest as i64,
        newest_ms: newest as i64,
    })
}

/// Runs the dashboards over `span`.
pub(crate) async fn run_query(run: &Run, span: DataSpan) -> QueryResult {
    let iterations = u64::from(run.args.query_iterations);
    let total = iterations * (Window::ALL.len() * Dashboard::ALL.len()) as u64;
    let bar = PhaseBar::counted(run.args.quiet, total, "query");
    let counter = bar.counter();
    let start = Instant::now();
    let mut book = QueryBook::default();
    // Iterations outermost, so each window and dashboard is measured across the whole phase.
    for iteration in 0..iterations {
        for window in Window::ALL {
            for dashboard in Dashboard::ALL {
                let (took, failed, first) =
                    run.run_dashboard(dashboard, window, span, iteration).await;
                book.record(dashboard, window, took, failed, first);
                counter.inc(1);
            }
        }
    }
    bar.finish();
    let elapsed_secs = start.elapsed().as_secs_f64();
    let (queries, by_kind, errors) = book.finish();
    QueryResult {
        oldest_ms: span.oldest_ms,
        newest_ms: span.newest_ms,
        elapsed_secs,
        queries,
        by_kind,
        errors,
    }
}
