//! Partial results: a search over several indices whose query cannot be
//! built on some of them (a field whose type refuses the query there, as
//! a date field refuses a value that is no date) runs on the others and
//! answers 200 with the failed indices' shards in `_shards.failed` and
//! `_shards.failures` (one entry per index, its first shard, as
//! Elasticsearch groups equal failures), as Elasticsearch does. When every
//! index fails, the first failure is the request's error; errors other
//! than a 400 (memory, engine) always fail the request. The fetch phase's
//! failures (`fetch_phase`) are reported here too.

use std::sync::Arc;

use serde_json::{json, Value};

use super::fetch_phase::FetchFailure;
use super::nested_aggs;
use super::request::SearchRequest;
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;

/// An index the query could not be built on.
pub(super) struct FailedIndex {
    name: String,
    shards: usize,
    error: SearchError,
}

/// The indices the query builds on, and those it fails on (only when at
/// least one builds; a single index is not probed).
pub(super) fn split(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
) -> Result<(Vec<Arc<SearchIndex>>, Vec<FailedIndex>)> {
    if indices.len() < 2 {
        return Ok((indices.to_vec(), Vec::new()));
    }
    let (mut ok, mut failed) = (Vec::new(), Vec::new());
    for index in indices {
        // A probe: the search builds the query again, under its account.
        // The probe's own part of the request's breaker, released when it
        // ends: a hostile query trips the breaker here too (a 429 fails
        // the request), and nothing is counted twice.
        let probe = req.memory.part();
        let built = nested_aggs::scoped_query(
            index,
            &req.query,
            &probe,
            &req.scope,
            Some(&req.scripted),
            req.slice.as_ref(),
        );
        match built {
            Ok(_) => ok.push(Arc::clone(index)),
            Err(e) if e.status() == 400 => failed.push(FailedIndex {
                name: index.name().to_string(),
                shards: index.shards().len(),
                error: e,
            }),
            Err(e) => return Err(e),
        }
    }
    if ok.is_empty() {
        return Err(failed.swap_remove(0).error);
    }
    Ok((ok, failed))
}

/// Counts `failed` in the response's `_shards` and lists them in
/// `failures` (`shard`, `index`, `reason`; the front end adds `node`):
/// their shards were not searched, so they add to `total` too.
pub(super) fn report(body: &mut Value, failed: &[FailedIndex]) {
    let entries = failed
        .iter()
        .map(|f| (f.name.as_str(), 0, f.shards, &f.error));
    add(body, entries, false);
}

/// Counts the shards whose fetch failed (searched, so already in `total`
/// and counted `successful`) as failed, and lists them in `failures`.
pub(super) fn report_fetch(body: &mut Value, failed: &[FetchFailure]) {
    let entries = failed.iter().map(|f| {
        let first = f.shards.first().copied().unwrap_or(0);
        (f.index.as_str(), first, f.shards.len(), &f.error)
    });
    add(body, entries, true);
}

/// Adds failures `(index, first shard, shards, error)` to `_shards`: one
/// entry per index (Elasticsearch groups equal failures of an index),
/// counting its shards; `searched` shards move from `successful` to
/// `failed`, the others add to `total`.
fn add<'a>(
    body: &mut Value,
    entries: impl Iterator<Item = (&'a str, usize, usize, &'a SearchError)>,
    searched: bool,
) {
    let shards = &mut body["_shards"];
    let count = |key: &str, shards: &Value| shards[key].as_u64().unwrap_or(0);
    for (index, first, n, error) in entries {
        let n = n as u64;
        let (total, successful, failed) = (
            count("total", shards),
            count("successful", shards),
            count("failed", shards),
        );
        if searched {
            shards["successful"] = json!(successful.saturating_sub(n));
        } else {
            shards["total"] = json!(total + n);
        }
        shards["failed"] = json!(failed + n);
        let entry = json!({
            "shard": first,
            "index": index,
            "reason": {"type": error.es_type(), "reason": error.to_string()},
        });
        match shards.get_mut("failures").and_then(Value::as_array_mut) {
            Some(list) => list.push(entry),
            None => shards["failures"] = json!([entry]),
        }
    }
}
