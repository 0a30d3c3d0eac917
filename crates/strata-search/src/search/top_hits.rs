//! `top_hits`: the best documents of a bucket, with the parameters the
//! tree's parse typed ([`TopHitsParams`]: `size`, `from`, `sort`, `_source`
//! filtering, `version`, `seq_no_primary_term`, `track_scores`,
//! `docvalue_fields`). tantivy's own `top_hits` returns fast-field values
//! only, not documents, so each one is a search of its own: the bucket's
//! query (the search query and the filters of the buckets above it, see
//! `deferred`) with the aggregation's parameters, through the same path as
//! any search (so sorting, scores and source filtering behave alike, and
//! what needs the mapping, the sort fields and `docvalue_fields`, is
//! checked as a search checks its own).

use std::sync::Arc;

use serde_json::{json, Value};

use super::agg_tree::TopHitsParams;
use super::reentry::SearchFn;
use super::request::{SearchRequest, TrackTotalHits};
use crate::error::Result;
use crate::index::SearchIndex;
use crate::query::ParsedQuery;

/// The search of `top_hits` `params` over the documents matching `query`.
fn request(params: &TopHitsParams, query: &ParsedQuery) -> Result<SearchRequest> {
    let mut req = SearchRequest::parse(&Value::Null)?;
    req.query = query.clone();
    req.from = params.from;
    req.size = params.size;
    req.sort = params.sort.clone();
    req.source = params.source.clone();
    req.version = params.version;
    req.seq_no_primary_term = params.seq_no_primary_term;
    req.track_scores = params.track_scores;
    req.docvalue_fields = params.docvalue_fields.clone();
    req.track_total_hits = TrackTotalHits::Exact;
    Ok(req)
}

/// Runs `top_hits` `params` over the documents matching `query` in the
/// snapshot and slice of `outer` (the search it is part of), its hits
/// reserved on the search's memory; `search` runs the search.
pub fn run(
    search: SearchFn,
    indices: &[Arc<SearchIndex>],
    params: &TopHitsParams,
    query: &ParsedQuery,
    outer: &SearchRequest,
) -> Result<Value> {
    let mut req = request(params, query)?;
    req.memory = outer.memory.clone();
    req.snapshot = outer.snapshot.clone();
    req.slice = outer.slice.clone();
    let response = search(indices, &req)?.into_value();
    Ok(json!({ "hits": response["hits"] }))
}
