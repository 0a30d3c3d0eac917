//! `search.max_buckets`: the most buckets one response may return
//! (Elasticsearch's cluster setting, default 65,536), and the error beyond
//! it. As in Elasticsearch, the buckets counted are those returned: empty
//! buckets left out by `min_doc_count` do not count, and the empty buckets
//! filled in with `min_doc_count: 0` do, so the fill is bounded by it.
//!
//! The value is node-wide (one search node per process), set from the
//! cluster settings by the front end.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::error::{Result, SearchError};

/// Elasticsearch's default `search.max_buckets`.
pub const DEFAULT_MAX_BUCKETS: usize = 65_536;

/// The setting's name.
pub const SETTING: &str = "search.max_buckets";

static MAX_BUCKETS: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_BUCKETS);

/// The limit in force.
pub(crate) fn max_buckets() -> usize {
    MAX_BUCKETS.load(Ordering::Relaxed)
}

/// Puts `limit` in force for searches that start after this.
pub fn set_max_buckets(limit: usize) {
    MAX_BUCKETS.store(limit.max(1), Ordering::Relaxed);
}

/// Buckets an aggregation may create while it runs for every bucket a
/// response may return: a `date_histogram` with `min_doc_count` above zero
/// examines every calendar range between its first and last documents,
/// but returns (and counts) only those with documents. Creation is bounded
/// by this and by the request's memory; the response by the limit itself.
pub(crate) const CANDIDATES_PER_BUCKET: usize = 16;

/// The most buckets aggregations may create while they run.
pub(crate) fn max_created() -> usize {
    max_buckets().saturating_mul(CANDIDATES_PER_BUCKET)
}

/// Refuses a response whose `aggregations` return more buckets than the
/// limit (every `buckets` entry at any depth; hits are not looked into).
pub(crate) fn check(aggregations: &Value) -> Result<()> {
    let count = returned(aggregations);
    if count > max_buckets() {
        return Err(too_many(Some(count)));
    }
    Ok(())
}

fn returned(v: &Value) -> usize {
    match v {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| match (k.as_str(), v) {
                ("hits", _) => 0,
                ("buckets", Value::Array(b)) => b.len() + b.iter().map(returned).sum::<usize>(),
                ("buckets", Value::Object(b)) => b.len() + b.values().map(returned).sum::<usize>(),
                _ => returned(v),
            })
            .sum(),
        Value::Array(items) => items.iter().map(returned).sum(),
        _ => 0,
    }
}

/// Elasticsearch's error for a response of more than the limit.
pub(crate) fn too_many(count: Option<usize>) -> SearchError {
    let limit = max_buckets();
    let was = count.map(|c| format!(" but was [{c}]")).unwrap_or_default();
    SearchError::illegal(format!(
        "Trying to create too many buckets. Must be less than or equal to: [{limit}]{was}. This limit can be set by changing the [{SETTING}] cluster level setting."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_buckets_at_every_depth_but_not_in_hits() {
        let aggs = json!({
            "h": {"buckets": [
                {"key": 1, "t": {"buckets": [{"key": "a"}, {"key": "b"}]}},
                {"key": 2, "top": {"hits": {"hits": [{"_source": {"buckets": [1, 2, 3]}}]}}}
            ]},
            "f": {"doc_count": 3, "k": {"buckets": {"x": {}, "y": {}, "z": {}}}}
        });
        assert_eq!(returned(&aggs), 2 + 2 + 3);
    }
}
