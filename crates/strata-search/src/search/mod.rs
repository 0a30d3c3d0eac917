//! Searching one or more indices: the query is translated per index (each
//! has its own mapping), run on every shard with a top-K collector, a
//! counter and tantivy's distributed aggregation collector; hits are merged
//! across shards by score or sort key, aggregations by tantivy's
//! intermediate-result merge.
//!
//! - `request`: the body; `fetch_fields`: the `fields` option; `sort`,
//!   `sort_field`, `sort_numeric`: sort criteria, keys and
//!   `numeric_type`; `source_filter`: `_source` filtering; `docvalues`:
//!   `docvalue_fields`.
//! - `agg_tree`: the request's `aggs` parsed once (kinds, sub-aggregations,
//!   structural errors with their path); the top-level splits (`filter`,
//!   geo, runtime fields) take nodes out of it and translation walks it.
//!   `java_double`: numbers in messages and keys as Elasticsearch writes
//!   them; `decimal_format`: a numeric metric's `format` (Java's
//!   `DecimalFormat` patterns); `metric_format`: the metrics'
//!   `*_as_string` values in it or in a date field's format.
//! - `aggs`: aggregation translation (`agg_shape`: what each result needs
//!   fixed, `deferred`: the reshaping that fixes it); `agg_filters`:
//!   `filter`/`filters` below other aggregations; `filter_aggs`: the
//!   top-level `filter` aggregation, one extra pass each, and
//!   `random_sampler` (a pass over a sample, `sample_scale`: its results
//!   scaled up), `sampler` and `diversified_sampler` (a pass over each
//!   shard's best documents, `best_docs`).
//! - `geo_aggs`: `geo_centroid`, `geo_bounds`, `geohash_grid` and `geotile_grid`, which tantivy lacks.
//! - `pipelines`: `derivative`, `cumulative_sum`, `bucket_sort` over a
//!   parent's final buckets; `sibling_pipelines`: `max_bucket`,
//!   `stats_bucket` and the like over a sibling's buckets, on the response.
//! - `scan_aggs`: `composite`, `weighted_avg`, `rare_terms`,
//!   `significant_terms`, `percentile_ranks`, `boxplot`,
//!   `median_absolute_deviation`, `multi_terms`, most
//!   `cardinality`s and the `percentiles` below buckets or with `missing`
//!   or `format`, from column values
//!   in a pass of their own; `distinct_count`: cardinality's exact-then-sketch count.
//! - `own_aggs`: aggregations tantivy has but Strata computes faster with
//!   its own collectors in the same pass: `time_buckets` (fixed-interval
//!   `date_histogram` with simple children), `distinct_terms`
//!   (`cardinality` of keyword and ip fields from cached term coupons),
//!   `percentiles` (of numeric fields at the top level, on the digest
//!   `scan_aggs` uses below buckets: exact up to 2,000 values, then a
//!   log histogram of offsets, read as Elasticsearch's t-digest),
//!   `top_terms` (`terms` of keyword fields by count, with at most one
//!   `terms` below; `term_names`: their terms by ordinal, from cached
//!   tables of large dictionaries).
//! - `date_histogram`, `date_range`, `calendar`, `time_zone`: dates in
//!   calendars and zones; `missing_bucket`: histograms' `missing`.
//! - `range_buckets`: the buckets of `range` (`number_range`) and
//!   `date_range`, one tantivy aggregation per requested range.
//! - `ip_range`: address ranges and CIDR masks of an `ip` field, one
//!   filter per range.
//! - `nested_aggs`: the `nested` and `reverse_nested` aggregations, passes
//!   over another level's documents (`doc_scope`).
//! - `top_hits`, `top_metrics`, `deferred`: sub-aggregations computed per bucket;
//!   `passes`: the extra searches those and calendar histograms need,
//!   started through `reentry` (the entry points as function pointers, so
//!   no module below this one imports it); `bucket_batch`: a result's
//!   buckets by key, so their `percentiles`, `percentile_ranks`,
//!   `boxplot` and `median_absolute_deviation` take one scan, not a
//!   search per bucket.
//! - `ranking`: top-K by score or sort values (`ranked`: what it keeps);
//!   `zone_ranking`: a sort on one date field by zone maps, in a pass of
//!   its own.
//! - `highlight`: the hits' `highlight` fragments.
//! - `single_pass`: one search pass (query phase, hits, aggregation
//!   results); `index_query`: a query translated for one index; `slice`:
//!   the `slice` of a scroll or point-in-time search (`murmur3`: the hash
//!   of its ids); `shard_failures`:
//!   partial results when the query fails on some indices only.
//! - `fetch_phase`: the page's hits, each serialized with its `_source`
//!   byte for byte; `pruned_source`: the parts of a source that
//!   `docvalue_fields` read; `response`: the reply with those hits.

pub mod agg_filters;
mod agg_shape;
pub mod agg_tree;
pub mod aggs;
pub mod auto_date;
mod best_docs;
mod body_values;
pub mod bucket_batch;
pub mod bucket_limit;
pub mod calendar;
mod cumulative_cardinality;
pub mod date_histogram;
pub mod date_range;
pub mod decimal_format;
pub mod deferred;
pub mod distinct_count;
pub mod distinct_terms;
mod doc_scope;
pub mod docvalues;
mod extended_stats;
pub mod fetch_fields;
mod fetch_phase;
pub mod filter_aggs;
pub mod geo_aggs;
pub mod highlight;
mod index_query;
mod ip_range;
pub mod java_double;
mod metric_format;
pub mod missing_bucket;
mod murmur3;
pub mod nested_aggs;
mod normalize;
mod number_range;
mod numbers;
mod own_aggs;
mod parallel;
mod passes;
mod percentiles;
pub mod pipelines;
mod pruned_source;
mod random_sampler;
mod range_buckets;
mod ranked;
mod ranking;
mod rate;
mod reentry;
pub mod request;
mod response;
mod runtime_aggs;
mod runtime_sort;
mod sample_scale;
pub mod scan_aggs;
mod shard_failures;
mod sibling_pipelines;
mod single_pass;
pub mod slice;
pub mod snapshot;
pub mod sort;
mod sort_field;
mod sort_numeric;
pub mod source_filter;
pub(crate) mod taken_aggs;
mod term_names;
pub mod time_buckets;
pub mod time_zone;
pub mod top_hits;
mod top_metrics;
mod top_terms;
mod zone_ranking;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};
use tantivy::collector::Count;

pub use request::{SearchRequest, TrackTotalHits};
pub use response::SearchResponse;

pub(crate) use index_query::now_millis;
use single_pass::search_once;
use snapshot::Snapshot;

use crate::breaker::MemoryAccount;
use crate::error::Result;
use crate::index::SearchIndex;
use crate::query::ParsedQuery;

/// Counts the documents matching `query` (the `_count` API), reserving
/// its expansions on `memory`.
pub fn count(
    indices: &[Arc<SearchIndex>],
    query: &ParsedQuery,
    memory: &MemoryAccount,
) -> Result<u64> {
    let mut queries = Vec::with_capacity(indices.len());
    let mut searchers = Vec::new();
    for (i, index) in indices.iter().enumerate() {
        queries.push(nested_aggs::scoped_query(
            index,
            query,
            memory,
            &nested_aggs::DocScope::Root,
            None,
            None,
        )?);
        searchers.extend(index.shards().iter().map(|s| (i, s.searcher())));
    }
    let parts: Vec<_> = searchers
        .iter()
        .map(|(i, searcher)| parallel::ShardSearch {
            searcher,
            query: &*queries[*i],
            collector: Count,
        })
        .collect();
    Ok(parallel::collect_shards(&parts)?
        .iter()
        .map(|&n| n as u64)
        .sum())
}

/// Runs a search and returns the Elasticsearch response body as one
/// [`Value`] (see [`search_response`] for the reply as sent).
pub fn search(indices: &[Arc<SearchIndex>], req: &SearchRequest) -> Result<Value> {
    Ok(search_response(indices, req)?.into_value())
}

/// Runs a search: the Elasticsearch response, hits serialized. Indices
/// the query cannot be built on are reported as failed shards when others
/// answer (`shard_failures`).
pub fn search_response(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
) -> Result<SearchResponse> {
    let with_mapped;
    let req = match mapped_runtime(indices, req)? {
        Some(r) => {
            with_mapped = r;
            &with_mapped
        }
        None => req,
    };
    let (answering, failed) = shard_failures::split(indices, req)?;
    let mut response = search_all(&answering, req)?;
    shard_failures::report(&mut response.body, &failed);
    Ok(response)
}

/// A request with a `post_filter`: its hits (and `hits.total`) from a
/// pass whose query the filter narrows, its aggregations from a pass of
/// the query alone, as Elasticsearch computes aggregations before the
/// post filter.
fn post_filtered(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    filter: &ParsedQuery,
) -> Result<SearchResponse> {
    let hits = SearchRequest {
        query: req.query.filtered(std::slice::from_ref(filter)),
        post_filter: None,
        aggs: None,
        ..req.clone()
    };
    let mut response = search_mapped(indices, &hits)?;
    if req.aggs.is_some() {
        let aggs = SearchRequest {
            post_filter: None,
            from: 0,
            size: 0,
            sort: Vec::new(),
            search_after: None,
            highlight: None,
            ..req.clone()
        };
        let out = search_mapped(indices, &aggs)?.body;
        if let Some(a) = out.get("aggregations") {
            response.body["aggregations"] = a.clone();
        }
    }
    Ok(response)
}

/// [`search_response`] over indices that all build the query.
fn search_all(indices: &[Arc<SearchIndex>], req: &SearchRequest) -> Result<SearchResponse> {
    let with_mapped;
    let req = match mapped_runtime(indices, req)? {
        Some(r) => {
            with_mapped = r;
            &with_mapped
        }
        None => req,
    };
    match &req.post_filter {
        Some(filter) => post_filtered(indices, req, filter),
        None => search_mapped(indices, req),
    }
}

/// [`search_all`] once the indices' mapped runtime fields are in the
/// request: the aggregations computed on the response are taken out (and
/// the rest searched by recursion), the top-level `filter` and `global`
/// aggregations get passes of their own.
fn search_mapped(indices: &[Arc<SearchIndex>], req: &SearchRequest) -> Result<SearchResponse> {
    if let Some((stripped, siblings)) = sibling_pipelines::split(req)? {
        // The stripped request has none left: this recurses once.
        let mut response = search_mapped(indices, &stripped)?;
        siblings.apply(&mut response.body)?;
        return Ok(response);
    }
    if let Some((stripped, pipelines)) = crate::script::bucket::split(req)? {
        // The stripped request has none left: this recurses once (and its
        // top-level `filter` and `global` aggregations get their passes).
        let mut response = search_mapped(indices, &stripped)?;
        pipelines.apply(&mut response.body)?;
        return Ok(response);
    }
    let (filters, rest) = match &req.aggs {
        Some(a) => filter_aggs::split(a),
        None => (Vec::new(), None),
    };
    if filters.is_empty() {
        let response = search_once(indices, req, search_response)?;
        bucket_limit::check(&response.body["aggregations"])?;
        return Ok(response);
    }
    let started = Instant::now();
    let mut main = req.clone();
    main.aggs = rest;
    let mut response = search_once(indices, &main, search_response)?;
    let mut results = Map::new();
    for f in &filters {
        let mut snapshot = req.snapshot.clone();
        // A sampler's documents are found first, on the snapshot its pass
        // then reads (`_held`: their memory, until the pass is done).
        let (query, _held) = match &f.best {
            Some(p) => {
                agg_tree::sampler::SamplerParams::check_subs(f.aggs.is_some())?;
                let pinned = snapshot.get_or_insert_with(|| Arc::new(Snapshot::take(indices)));
                let (q, held) = best_docs::sample_query(pinned, req, p)?;
                (q, Some(held))
            }
            None => (f.query(&req.query), None),
        };
        let pass = SearchRequest {
            query,
            snapshot,
            from: 0,
            size: 0,
            sort: Vec::new(),
            track_total_hits: TrackTotalHits::Exact,
            search_after: None,
            aggs: f.aggs.clone(),
            docvalue_fields: Vec::new(),
            ..req.clone()
        };
        let out = search_response(indices, &pass)?.body;
        let doc_count = out["hits"]["total"]["value"].as_u64().unwrap_or(0);
        results.insert(
            f.name.clone(),
            f.result(doc_count, out.get("aggregations"))?,
        );
    }
    let body = &mut response.body;
    match body.get_mut("aggregations") {
        Some(Value::Object(aggs)) => aggs.extend(results),
        _ => body["aggregations"] = Value::Object(results),
    }
    bucket_limit::check(&body["aggregations"])?;
    body["took"] = json!(started.elapsed().as_millis() as u64);
    Ok(response)
}

/// `req` with the runtime fields of the indices' mappings added (those
/// the request does not define), when any index has some.
fn mapped_runtime(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
) -> Result<Option<SearchRequest>> {
    let mut out: Option<SearchRequest> = None;
    for index in indices {
        if let Some(section) = index.runtime_section() {
            let next = out.get_or_insert_with(|| req.clone());
            next.scripted.add_mapped_runtime(&section)?;
        }
    }
    Ok(out)
}
