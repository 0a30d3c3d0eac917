//! The bulk indexing phase, and the indexing client loop the mixed phase reuses.
//!
//! Clients take the next batch of document numbers from a shared [`Feed`], generate it,
//! send it as one `_bulk` and record the latency and the acknowledged documents. Unpaced,
//! each client sends its next bulk as soon as the previous reply arrives; paced (the mixed
//! phase), it first takes the bulk's documents from the shared token bucket.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use indicatif::ProgressBar;
use tokio::task::JoinSet;

use super::Run;
use crate::eventdata::pacing::TokenBucket;
use crate::eventdata::progress::PhaseBar;
use crate::eventdata::replies;
use crate::eventdata::report::IndexResult;
use crate::eventdata::stats::{ErrorTally, Latencies, RateTimeline};
use crate::LabError;

/// Hands out consecutive batches of document numbers.
pub(crate) struct Feed {
    next_batch: AtomicU64,
    first_doc: u64,
    limit: Option<u64>,
    bulk_size: u64,
    /// One past the highest document number acknowledged so far.
    pub acknowledged_upto: AtomicU64,
}

impl Feed {
    /// Batches of `bulk_size` from document `first_doc`, `limit` documents in all if given.
    pub fn new(first_doc: u64, limit: Option<u64>, bulk_size: u64) -> Self {
        Self {
            next_batch: AtomicU64::new(0),
            first_doc,
            limit,
            bulk_size,
            acknowledged_upto: AtomicU64::new(first_doc),
        }
    }

    /// The first document and count of the next batch, or `None` when all are handed out.
    fn take(&self) -> Option<(u64, u64)> {
        let batch = self.next_batch.fetch_add(1, Ordering::Relaxed);
        let offset = batch.checked_mul(self.bulk_size)?;
        let count = match self.limit {
            Some(limit) if offset >= limit => return None,
            Some(limit) => self.bulk_size.min(limit - offset),
            None => self.bulk_size,
        };
        Some((self.first_doc + offset, count))
    }
}

/// The mixed phase's pacing: a shared bucket and the end of the phase.
pub(crate) struct Pace {
    pub bucket: Mutex<TokenBucket>,
    pub deadline: Instant,
}

/// What one indexing client did.
#[derive(Default)]
pub(crate) struct ClientTally {
    pub latencies: Latencies,
    pub bulks: u64,
    pub sent: u64,
    pub indexed: u64,
    pub errors: ErrorTally,
    pub last_reply: Option<Instant>,
}

impl ClientTally {
    pub fn merge(&mut self, other: ClientTally) {
        self.latencies.merge(&other.latencies);
        self.bulks += other.bulks;
        self.sent += other.sent;
        self.indexed += other.indexed;
        self.errors.merge(&other.errors);
        self.last_reply = self.last_reply.max(other.last_reply);
    }
}

/// One indexing client: bulks until the feed is empty or the pace's deadline.
pub(crate) async fn index_client(
    run: Arc<Run>,
    feed: Arc<Feed>,
    pace: Option<Arc<Pace>>,
    timeline: Arc<RateTimeline>,
    bar: ProgressBar,
) -> ClientTally {
    let mut tally = ClientTally::default();
    while let Some((first, count)) = feed.take() {
        if let Some(pace) = &pace {
            let now = Instant::now();
            let wait = pace
                .bucket
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .reserve(count, now);
            if now + wait >= pace.deadline {
                break;
            }
            tokio::time::sleep(wait).await;
        }
        let (took, outcome) = run.send_bulk(first, count).await;
        let done = Instant::now();
        tally.latencies.record(took);
        tally.bulks += 1;
        tally.sent += count;
        tally.indexed += outcome.indexed;
        tally.errors.add(outcome.failed, outcome.first_error);
        tally.last_reply = Some(done);
        timeline.add(done, outcome.indexed);
        if outcome.indexed > 0 {
            feed.acknowledged_upto
                .fetch_max(first + count, Ordering::Relaxed);
        }
        bar.inc(count);
    }
    tally
}

/// Starts `clients` indexing clients and waits for all of them.
pub(crate) async fn run_clients(
    run: &Arc<Run>,
    feed: &Arc<Feed>,
    pace: Option<Arc<Pace>>,
    timeline: &Arc<RateTimeline>,
    bar: ProgressBar,
) -> Result<ClientTally, LabError> {
    let mut tasks = JoinSet::new();
    for _ in 0..run.args.clients {
        tasks.spawn(index_client(
            Arc::clone(run),
            Arc::clone(feed),
            pace.clone(),
            Arc::clone(timeline),
            bar.clone(),
        ));
    }
    let mut total = ClientTally::default();
    while let Some(joined) = tasks.join_next().await {
        total.merge(joined.map_err(LabError::Task)?);
    }
    Ok(total)
}

/// The index phase: `--docs` documents from document 0, then `_refresh`, `_count` and the
/// index's size and segments.
pub(crate) async fn run_index(
    run: &Arc<Run>,
    docs_before: u64,
    notes: &mut Vec<String>,
) -> Result<IndexResult, LabError> {
    let args = &run.args;
    let feed = Arc::new(Feed::new(0, Some(args.docs), args.bulk_size));
    let start = Instant::now();
    let timeline = Arc::new(RateTimeline::new(start));
    let bar = PhaseBar::counted(args.quiet, args.docs, "index");
    let total = run_clients(run, &feed, None, &timeline, bar.counter()).await?;
    bar.finish();
    let elapsed = total.last_reply.map_or(start.elapsed(), |t| t - start);
    let count = run.refresh_and_count(docs_before + total.indexed).await;
    let (store_size_bytes, segments) = index_size(run, notes).await;
    Ok(IndexResult {
        docs_sent: total.sent,
        docs_indexed: total.indexed,
        bulks: total.bulks,
        elapsed_secs: elapsed.as_secs_f64(),
        docs_per_sec: total.indexed as f64 / elapsed.as_secs_f64().max(1e-9),
        bulk_latency_ms: total.latencies.summary(),
        errors: total.errors,
        timeline: timeline.rows(elapsed),
        count,
        store_size_bytes,
        segments,
    })
}

/// Store size and segment count from `/<index>/_stats`, else segments from
/// `_cat/segments`; what the server does not offer is noted and skipped.
async fn index_size(run: &Run, notes: &mut Vec<String>) -> (Option<u64>, Option<u64>) {
    let stats_path = run.path("/_stats");
    let (mut store, mut segments) = (None, None);
    match run.client.get(&stats_path).await {
        Ok(reply) if reply.is_success() => match reply.json() {
            Ok(stats) => (store, segments) = replies::store_and_segments(&stats, &run.args.index),
            Err(why) => notes.push(format!("GET {stats_path}: {why}")),
        },
        Ok(reply) => notes.push(format!("GET {stats_path} skipped: {}", reply.describe())),
        Err(failure) => notes.push(format!("{failure}")),
    }
    if segments.is_none() {
        let cat = format!("/_cat/segments/{}?format=json", run.args.index);
        match run.client.get(&cat).await {
            Ok(reply) if reply.is_success() => {
                segments = reply.json().ok().as_ref().and_then(replies::cat_segments);
            }
            Ok(reply) => notes.push(format!("GET {cat} skipped: {}", reply.describe())),
            Err(failure) => notes.push(format!("{failure}")),
        }
    }
    if store.is_none() {
        notes.push("the server reported no store size".into());
    }
    (store, segments)
}
