//! `top_hits`: the best documents of a bucket, with `size`, `from`,
//! `sort`, `_source` filtering, `version`, `seq_no_primary_term` and
//! `track_scores`. tantivy's own `top_hits` returns fast-field values
//! only, not documents, so each one is a search of its own: the bucket's
//! query (the search query and the filters of the buckets above it, see
//! `deferred`) with the aggregation's parameters, through the same path as
//! any search (so sorting, scores and source filtering behave alike).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::reentry::SearchFn;
use super::request::{SearchRequest, TrackTotalHits};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::query::ParsedQuery;

const ALLOWED: &[&str] = &[
    "size",
    "from",
    "sort",
    "_source",
    "version",
    "seq_no_primary_term",
    "track_scores",
    "docvalue_fields",
];

/// Checks a `top_hits` body before any search runs.
pub fn validate(name: &str, body: &Value) -> Result<()> {
    request(name, body, &ParsedQuery::match_all()).map(|_| ())
}

fn request(name: &str, body: &Value, query: &ParsedQuery) -> Result<SearchRequest> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing(format!("[top_hits] of [{name}] must be an object")))?;
    let mut req = Map::new();
    for (k, v) in params {
        if !ALLOWED.contains(&k.as_str()) {
            return Err(SearchError::parsing(format!(
                "Unknown key for a {} in [{k}].",
                if v.is_object() {
                    "START_OBJECT"
                } else {
                    "VALUE"
                }
            )));
        }
        req.insert(k.clone(), v.clone());
    }
    req.entry("size").or_insert(json!(3));
    let mut parsed = SearchRequest::parse(&Value::Object(req))?;
    parsed.query = query.clone();
    parsed.track_total_hits = TrackTotalHits::Exact;
    if parsed.from.saturating_add(parsed.size) > 100 {
        return Err(SearchError::illegal(format!(
            "Top hits result window is too large, the top hits aggregator [{name}]'s from + size must be less than or equal to: [100] but was [{}].",
            parsed.from.saturating_add(parsed.size)
        )));
    }
    Ok(parsed)
}

/// Runs `top_hits` `name` over the documents matching `query` in the
/// snapshot and slice of `outer` (the search it is part of), its hits
/// reserved on the search's memory; `search` runs the search.
pub fn run(
    search: SearchFn,
    indices: &[Arc<SearchIndex>],
    name: &str,
    body: &Value,
    query: &ParsedQuery,
    outer: &SearchRequest,
) -> Result<Value> {
    let mut req = request(name, body, query)?;
    req.memory = outer.memory.clone();
    req.snapshot = outer.snapshot.clone();
    req.slice = outer.slice.clone();
    let response = search(indices, &req)?.into_value();
    Ok(json!({ "hits": response["hits"] }))
}
