//! The mixed phase: indexing paced at `--mixed-rate` documents per second by a token bucket
//! for `--mixed-duration` seconds, while one client runs the dashboards in a loop.
//!
//! New documents continue the simulated log after the data already indexed, so "current"
//! windows end at the newest acknowledged document and cover what is being indexed now;
//! "relative" windows span from the oldest document to it.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use super::index::{run_clients, Feed, Pace};
use super::{DataSpan, QueryBook, Run};
use crate::eventdata::pacing::TokenBucket;
use crate::eventdata::progress::PhaseBar;
use crate::eventdata::queries::{Dashboard, Window};
use crate::eventdata::report::{DashboardRun, MixedResult};
use crate::eventdata::stats::RateTimeline;
use crate::LabError;

/// Runs the mixed phase from document `first_doc`; `oldest_ms` is the oldest document in
/// the index (or to be indexed) and `docs_before` the count expected before the phase.
pub(crate) async fn run_mixed(
    run: &Arc<Run>,
    first_doc: u64,
    oldest_ms: i64,
    docs_before: u64,
) -> Result<MixedResult, LabError> {
    let args = &run.args;
    let duration = Duration::from_secs_f64(args.mixed_duration);
    let start = Instant::now();
    let deadline = start + duration;
    let feed = Arc::new(Feed::new(first_doc, None, args.bulk_size));
    let pace = Arc::new(Pace {
        bucket: Mutex::new(TokenBucket::new(
            args.mixed_rate,
            args.bulk_size as f64,
            start,
        )),
        deadline,
    });
    let timeline = Arc::new(RateTimeline::new(start));
    let bar = PhaseBar::timed(args.quiet, duration, "mixed");
    let indexers = {
        let (run, feed, timeline) = (Arc::clone(run), Arc::clone(&feed), Arc::clone(&timeline));
        tokio::spawn(async move {
            run_clients(&run, &feed, Some(pace), &timeline, ProgressBar::hidden()).await
        })
    };

    let pairs: Vec<(Window, Dashboard)> = Window::ALL
        .iter()
        .flat_map(|&w| Dashboard::ALL.iter().map(move |&d| (w, d)))
        .collect();
    let mut book = QueryBook::default();
    let mut runs = Vec::new();
    let mut turn = 0u64;
    while Instant::now() < deadline {
        let sent = start.elapsed();
        let (window, dashboard) = pairs[(turn % pairs.len() as u64) as usize];
        let upto = feed.acknowledged_upto.load(Ordering::Relaxed);
        let newest_ms = run.generator.timestamp_ms(upto.saturating_sub(1));
        let span = DataSpan {
            oldest_ms: oldest_ms.min(newest_ms),
            newest_ms,
        };
        let (took, failed, first) = run.run_dashboard(dashboard, window, span, turn).await;
        book.record(dashboard, window, took, failed, first);
        runs.push(DashboardRun {
            at_ms: sent.as_millis() as u64,
            dashboard: dashboard.name().to_owned(),
            window: window.label(),
            ms: took.as_secs_f64() * 1e3,
        });
        turn += 1;
    }
    let total = indexers.await.map_err(LabError::Task)??;
    bar.finish();
    let elapsed = total
        .last_reply
        .map_or(duration, |t| (t - start).max(duration));
    let count = run.refresh_and_count(docs_before + total.indexed).await;
    let (queries, by_kind, query_errors) = book.finish();
    Ok(MixedResult {
        target_docs_per_sec: args.mixed_rate,
        elapsed_secs: elapsed.as_secs_f64(),
        docs_indexed: total.indexed,
        achieved_docs_per_sec: total.indexed as f64 / elapsed.as_secs_f64(),
        bulk_latency_ms: total.latencies.summary(),
        index_errors: total.errors,
        timeline: timeline.rows(elapsed),
        queries,
        by_kind,
        query_errors,
        count,
        runs,
    })
}
