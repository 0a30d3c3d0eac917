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
use crate::eventdata::queries::{Dashboard, Window, WindowKind};
use crate::eventdata::report::{DashboardRun, MixedResult};
use crate::eventdata::stats::RateTimeline;
use crate::LabError;

/// The (window, dashboard) pairs the dashboard client cycles through: every
/// pair once per cycle, a "current" window and a "relative" one in turn, so
/// that even a phase with time for only a few dashboards (a slow tier, a
/// short `--mixed-duration`) measures both kinds.
fn turns() -> Vec<(Window, Dashboard)> {
    let (current, relative): (Vec<_>, Vec<_>) = Window::ALL
        .iter()
        .flat_map(|&w| Dashboard::ALL.iter().map(move |&d| (w, d)))
        .partition(|(w, _)| w.kind() == WindowKind::Current);
    let (mut current, mut relative) = (current.into_iter(), relative.into_iter());
    let mut pairs = Vec::new();
    loop {
        match (current.next(), relative.next()) {
            (None, None) => return pairs,
            (c, r) => pairs.extend(c.into_iter().chain(r)),
        }
    }
}

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

    let pairs = turns();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_cover_every_pair_once_and_alternate_the_kinds() {
        let pairs = turns();
        assert_eq!(pairs.len(), Window::ALL.len() * Dashboard::ALL.len());
        for w in Window::ALL {
            for d in Dashboard::ALL {
                assert_eq!(pairs.iter().filter(|&&p| p == (w, d)).count(), 1);
            }
        }
        let kinds: Vec<WindowKind> = pairs.iter().map(|(w, _)| w.kind()).collect();
        assert_eq!(&kinds[..2], &[WindowKind::Current, WindowKind::Relative]);
        assert!(kinds.windows(2).all(|k| k[0] != k[1]));
    }
}
