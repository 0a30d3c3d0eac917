//! `search.max_buckets`: the most buckets one response may return
//! (Elasticsearch's cluster setting, default 65,536), and the error beyond
//! it. As in Elasticsearch, the buckets counted are those returned: empty
//! buckets left out by `min_doc_count` do not count, and the empty buckets
//! filled in with `min_doc_count: 0` do, so the fill is bounded by it.
//!
//! The value is node-wide (one search node per process), set from the
//! cluster settings by the front end.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::SearchError;

/// Elasticsearch's default `search.max_buckets`.
pub const DEFAULT_MAX_BUCKETS: usize = 65_536;

/// The setting's name.
pub const SETTING: &str = "search.max_buckets";

static MAX_BUCKETS: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_BUCKETS);

/// The limit in force.
pub fn max_buckets() -> usize {
    MAX_BUCKETS.load(Ordering::Relaxed)
}

/// Puts `limit` in force for searches that start after this.
pub fn set_max_buckets(limit: usize) {
    MAX_BUCKETS.store(limit.max(1), Ordering::Relaxed);
}

/// Calendar ranges one `date_histogram` with `min_doc_count` above zero
/// may examine for every bucket it may return: its empty ranges are not
/// returned (so not refused by the limit), but each costs memory while
/// the aggregation runs.
pub const CANDIDATES_PER_BUCKET: usize = 16;

/// Elasticsearch's error for a response of more than the limit.
pub fn too_many(count: Option<usize>) -> SearchError {
    let limit = max_buckets();
    let was = count.map(|c| format!(" but was [{c}]")).unwrap_or_default();
    SearchError::illegal(format!(
        "Trying to create too many buckets. Must be less than or equal to: [{limit}]{was}. This limit can be set by changing the [{SETTING}] cluster level setting."
    ))
}
