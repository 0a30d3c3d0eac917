//! Partial results: a search over several indices whose query cannot be
//! built on some of them (a field whose type refuses the query there, as
//! a date field refuses a value that is no date) runs on the others and
//! answers 200 with the failed indices' shards in `_shards.failed` and
//! `_shards.failures` (one entry per index, its first shard, as
//! Elasticsearch groups equal failures), as Elasticsearch does. When every
//! index fails, the first failure is the request's error; errors other
//! than a 400 (memory, engine) always fail the request.

use std::sync::Arc;

use serde_json::{json, Value};

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
        match nested_aggs::scoped_query(index, &req.query, &probe, &req.scope, Some(&req.scripted))
        {
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
/// `failures` (`shard`, `index`, `reason`; the front end adds `node`).
pub(super) fn report(body: &mut Value, failed: &[FailedIndex]) {
    if failed.is_empty() {
        return;
    }
    let count: usize = failed.iter().map(|f| f.shards).sum();
    let shards = &mut body["_shards"];
    let total = shards["total"].as_u64().unwrap_or(0) + count as u64;
    shards["total"] = json!(total);
    shards["failed"] = json!(count);
    shards["failures"] = failed
        .iter()
        .map(|f| {
            json!({
                "shard": 0,
                "index": f.name,
                "reason": {"type": f.error.es_type(), "reason": f.error.to_string()},
            })
        })
        .collect();
}
