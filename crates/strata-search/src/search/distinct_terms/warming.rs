//! Coupon tables built off the search path.
//!
//! Elasticsearch builds a field's global ordinals for the whole shard on
//! the first aggregation that needs them, while that search waits. Here
//! the first `cardinality` of a column looks up the few terms it needs in
//! the segments it touches, and hands every segment of the searched shards
//! that has no table yet to one background thread, which builds the tables
//! one after another. A later search over older data (a dashboard moving
//! from the last 15 minutes to the last hour) then finds them ready instead
//! of reading whole term dictionaries while a client waits.
//!
//! The thread runs at nice 10 (the default of the background indexing
//! threads; it is one thread for the whole process, so it does not follow
//! an index's configured value), so on busy cores searches go first. The
//! tables of untouched segments are queued only when they fit the cache's
//! budget without evicting anything: speculative work never pushes out a
//! table a search used. A segment already queued is not queued twice;
//! tables a search needed go before the others; the queue is bounded (a
//! full queue drops the job; the next search schedules it again).

use std::collections::{HashSet, VecDeque};
use std::sync::{LazyLock, OnceLock};

use parking_lot::{Condvar, Mutex};
use tantivy::columnar::StrColumn;
use tantivy::index::SegmentId;

use super::coupons::{coupon_table, COUPONS};
use crate::search::distinct_count::Fingerprint;
use crate::shard::priority::IndexingPriority;

/// Jobs waiting at most (a job holds its segment's column open).
const QUEUE: usize = 4096;

/// One table to build.
struct Job {
    segment: SegmentId,
    column: String,
    terms: StrColumn,
}

/// The jobs waiting (tables a search needed first, then the others) and
/// the (segment, column) pairs queued or being built.
#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    pending: HashSet<(SegmentId, String)>,
}

static QUEUE_STATE: LazyLock<(Mutex<Queue>, Condvar)> = LazyLock::new(Default::default);

/// Starts the warming thread on first use; `false` when it cannot start.
fn started() -> bool {
    static STARTED: OnceLock<bool> = OnceLock::new();
    *STARTED.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("strata-warm".into())
            .spawn(build_tables);
        if let Err(err) = &spawned {
            tracing::warn!(%err, "no coupon-table thread: cardinality builds its tables while searching");
        }
        spawned.is_ok()
    })
}

/// The warming thread: builds each queued table unless a search did first.
fn build_tables() {
    IndexingPriority::DEFAULT.apply_to_this_thread();
    let (state, ready) = &*QUEUE_STATE;
    loop {
        let job = {
            let mut queue = state.lock();
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                ready.wait(&mut queue);
            }
        };
        let built = COUPONS.get_or_try_build(job.segment, &job.column, || coupon_table(&job.terms));
        if let Err(err) = built {
            tracing::debug!(%err, column = %job.column, "coupon table not built");
        }
        state.lock().pending.remove(&(job.segment, job.column));
    }
}

/// Queues the table of `column` (read through `terms`) of `segment`
/// unless it is cached or queued, or, when the search did not `need` it,
/// would not fit the cache; a needed table goes before the others. `false` when there is no
/// warming thread, so the caller builds what it needs itself.
pub(super) fn schedule(segment: SegmentId, column: &str, terms: &StrColumn, needed: bool) -> bool {
    if !started() {
        return false;
    }
    let bytes = terms.dictionary().num_terms() * std::mem::size_of::<Fingerprint>();
    // A table a search needed may evict older ones, as a search building it
    // itself would; one built in case a later search needs it may not.
    if bytes == 0 || COUPONS.contains(segment, column) || (!needed && !COUPONS.fits(bytes)) {
        return true;
    }
    let (state, ready) = &*QUEUE_STATE;
    let mut queue = state.lock();
    if queue.jobs.len() >= QUEUE || !queue.pending.insert((segment, column.to_string())) {
        return true;
    }
    let job = Job {
        segment,
        column: column.to_string(),
        terms: terms.clone(),
    };
    if needed {
        queue.jobs.push_front(job);
    } else {
        queue.jobs.push_back(job);
    }
    ready.notify_one();
    true
}

/// Whether no table is queued or being built (for tests that wait for
/// the thread).
#[cfg(test)]
pub(super) fn idle() -> bool {
    QUEUE_STATE.0.lock().pending.is_empty()
}
