//! Extra search passes some aggregations need: the per-bucket searches of
//! deferred sub-aggregations, samplers among them (`deferred`; one scan
//! for all the buckets of a result where `bucket_batch` can describe them) and of those below runtime-field
//! buckets (`runtime_aggs`), and the min/max pass that gives
//! calendar `date_histogram`s and `auto_date_histogram`s the bounds of
//! the data under the query (and the latter, with `missing`, how many
//! documents lack the field).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::agg_tree::{AggNode, AggTree, TypedParams};
use super::bucket_batch::BucketBatch;
use super::deferred::BucketFilter;
use super::distinct_count::DistinctCount;
use super::reentry::Reentry;
use super::request::{SearchRequest, TrackTotalHits};
use super::{bucket_limit, nested_aggs, scan_aggs, top_hits, top_metrics};
use crate::breaker::MemoryAccount;
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::query::ParsedQuery;

/// One deferred aggregation, `node` as parsed, over the search query
/// narrowed by `filters`.
pub(super) fn run_deferred(
    reentry: Reentry,
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    filters: &[BucketFilter],
    node: &AggNode,
) -> Result<Value> {
    let (name, kind) = (&node.name, node.kind.name());
    let query = req.query.filtered(&bucket_filters(filters)?);
    if nested_aggs::KINDS.contains(&kind) {
        return nested_aggs::run(reentry.search, indices, req, &query, node);
    }
    if let TypedParams::TopHits(params) = &node.typed {
        if req.scope.path().is_some() {
            return Err(SearchError::illegal(format!(
                "[top_hits] aggregation [{name}] below a [nested] aggregation is not supported by this server"
            )));
        }
        return top_hits::run(reentry.search, indices, params, &query, req);
    }
    if let TypedParams::TopMetrics(params) = &node.typed {
        if req.scope.path().is_some() {
            return Err(SearchError::illegal(format!(
                "[top_metrics] aggregation [{name}] below a [nested] aggregation is not supported by this server"
            )));
        }
        return top_metrics::run(reentry.search, indices, params, &query, req);
    }
    if scan_aggs::is_scanned(kind) {
        let env = scan_aggs::ScanEnv {
            search: reentry.search,
            indices,
            req,
            query: &query,
        };
        return scan_aggs::run(&env, node);
    }
    let pass = SearchRequest {
        query,
        from: 0,
        size: 0,
        sort: Vec::new(),
        track_total_hits: TrackTotalHits::Off,
        search_after: None,
        aggs: AggTree::from_nodes(vec![node.clone()]),
        docvalue_fields: Vec::new(),
        ..req.clone()
    };
    // A sampler's pass first finds the bucket's best documents, as a whole
    // search does for one at its top level (`best_docs`).
    let mut out = match node.typed {
        TypedParams::Sampler(_) => reentry.search(indices, &pass)?.body,
        _ => reentry.pass(indices, &pass)?.body,
    };
    Ok(out["aggregations"][name].take())
}

/// The distinct values of the `cardinality` `node` over the search query
/// narrowed by `filters` (a `cumulative_cardinality`'s bucket).
pub(super) fn run_distinct(
    reentry: Reentry,
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    filters: &[BucketFilter],
    node: &AggNode,
) -> Result<DistinctCount> {
    let query = req.query.filtered(&bucket_filters(filters)?);
    let env = scan_aggs::ScanEnv {
        search: reentry.search,
        indices,
        req,
        query: &query,
    };
    scan_aggs::distinct(&env, node)
}

/// The deferred `nodes` (each `bucket_batch::batched`) in every bucket
/// of `batch`, over the search query narrowed by `filters` (the buckets
/// above): one scan, per node the results of the buckets in order.
pub(super) fn run_batch(
    reentry: Reentry,
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    filters: &[BucketFilter],
    batch: &BucketBatch,
    nodes: &[AggNode],
) -> Result<Vec<Vec<Value>>> {
    let query = req.query.filtered(&bucket_filters(filters)?);
    let env = scan_aggs::ScanEnv {
        search: reentry.search,
        indices,
        req,
        query: &query,
    };
    scan_aggs::run_batch(&env, batch, nodes)
}

/// The aggregations `aggs` (a parsed `aggs` object, any kinds) over the
/// search query narrowed by `filter`: the `aggregations` of the pass.
pub(super) fn run_filtered(
    reentry: Reentry,
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    filter: Value,
    aggs: &AggTree,
) -> Result<Value> {
    let pass = SearchRequest {
        query: req.query.filtered(&[ParsedQuery::parse(filter)?]),
        from: 0,
        size: 0,
        sort: Vec::new(),
        track_total_hits: TrackTotalHits::Off,
        search_after: None,
        aggs: Some(aggs.clone()),
        docvalue_fields: Vec::new(),
        ..req.clone()
    };
    let mut out = reentry.search(indices, &pass)?.body;
    Ok(out["aggregations"].take())
}

/// The filters of the buckets a pass runs in, parsed: those of `filter`,
/// `filters` and `missing` buckets were parsed with the request's tree,
/// those built for a bucket (a term, a range) are parsed here.
fn bucket_filters(filters: &[BucketFilter]) -> Result<Vec<ParsedQuery>> {
    filters.iter().map(BucketFilter::parsed).collect()
}

/// Per field, its (min, max) under the query; and per field asked about,
/// how many documents under the query lack it.
pub(super) type DataBounds = (HashMap<String, (i64, i64)>, HashMap<String, u64>);

/// The (min, max) of each date field of `fields` over the documents
/// matching the query, and how many of them lack each field of `missing`.
pub(super) fn data_bounds(
    reentry: Reentry,
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    fields: &[String],
    missing: &[String],
) -> Result<DataBounds> {
    let mut out = HashMap::new();
    let mut lacking = HashMap::new();
    if fields.is_empty() && missing.is_empty() {
        return Ok((out, lacking));
    }
    let mut aggs = serde_json::Map::new();
    for (i, field) in fields.iter().enumerate() {
        aggs.insert(format!("min\u{1f}{i}"), json!({"min": {"field": field}}));
        aggs.insert(format!("max\u{1f}{i}"), json!({"max": {"field": field}}));
    }
    for (i, field) in missing.iter().enumerate() {
        aggs.insert(
            format!("lack\u{1f}{i}"),
            json!({"missing": {"field": field}}),
        );
    }
    let mut pass = SearchRequest::parse(&json!({
        "size": 0, "track_total_hits": false, "aggs": aggs
    }))?;
    pass.query = req.query.clone();
    pass.scope = req.scope.clone();
    pass.snapshot = req.snapshot.clone();
    pass.slice = req.slice.clone();
    let result = reentry.pass(indices, &pass)?.body;
    for (i, field) in fields.iter().enumerate() {
        let edge = |e: &str| result["aggregations"][format!("{e}\u{1f}{i}")]["value"].as_f64();
        if let (Some(lo), Some(hi)) = (edge("min"), edge("max")) {
            out.insert(field.clone(), (lo as i64, hi as i64));
        }
    }
    for (i, field) in missing.iter().enumerate() {
        let count = result["aggregations"][format!("lack\u{1f}{i}")]["doc_count"].as_u64();
        lacking.insert(field.clone(), count.unwrap_or(0));
    }
    Ok((out, lacking))
}

/// tantivy's aggregation errors are the request's: its memory budget
/// (the breakers' room, see `search_once`) is the request breaker's 429,
/// too many buckets Elasticsearch's `search.max_buckets` error, the rest
/// (bad requests) 400s, not engine failures.
pub(super) fn agg_error(e: tantivy::TantivyError, memory: &MemoryAccount) -> SearchError {
    use tantivy::aggregation::AggregationError;
    match e {
        tantivy::TantivyError::AggregationError(AggregationError::MemoryExceeded {
            current,
            ..
        }) => memory.refusal(current.get_bytes(), "<aggregations>"),
        // tantivy's limit is on buckets created (`max_created`); the
        // error names the setting's own value, as Elasticsearch's does.
        tantivy::TantivyError::AggregationError(AggregationError::BucketLimitExceeded {
            current,
            ..
        }) => bucket_limit::too_many(Some(current as usize)),
        tantivy::TantivyError::AggregationError(a) => SearchError::illegal(a.to_string()),
        other => SearchError::from(other),
    }
}
