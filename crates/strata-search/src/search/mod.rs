//! Searching one or more indices: the query is translated per index (each
//! has its own mapping), run on every shard with a top-K collector, a
//! counter and tantivy's distributed aggregation collector; hits are merged
//! across shards by score or sort key, aggregations by tantivy's
//! intermediate-result merge.
//!
//! - `request`: the body; `fetch_fields`: the `fields` option; `sort`,
//!   `sort_field`: sort criteria and keys; `source_filter`: `_source`
//!   filtering; `docvalues`: `docvalue_fields`.
//! - `aggs`: aggregation translation and reshaping; `agg_filters`:
//!   `filter`/`filters` below other aggregations; `filter_aggs`: the
//!   top-level `filter` aggregation, one extra pass each.
//! - `geo_aggs`: `geo_centroid` and `geohash_grid`, which tantivy lacks.
//! - `date_histogram`, `date_range`, `calendar`, `time_zone`: dates in
//!   calendars and zones; `missing_bucket`: histograms' `missing`.
//! - `top_hits`, `deferred`: sub-aggregations computed per bucket;
//!   `passes`: the extra searches those and calendar histograms need.

pub mod agg_filters;
pub mod aggs;
pub mod calendar;
pub mod date_histogram;
pub mod date_range;
pub mod deferred;
pub mod docvalues;
pub mod fetch_fields;
pub mod filter_aggs;
pub mod geo_aggs;
pub mod missing_bucket;
mod passes;
pub mod request;
pub mod sort;
mod sort_field;
pub mod source_filter;
pub mod time_zone;
pub mod top_hits;

use std::cmp::Ordering;
use std::sync::atomic::{AtomicU32, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};
use tantivy::aggregation::agg_req::Aggregations;
use tantivy::aggregation::intermediate_agg_result::IntermediateAggregationResults;
use tantivy::aggregation::{
    AggContextParams, AggregationLimitsGuard, DistributedAggregationCollector,
};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::Query;
use tantivy::schema::Value as _;
use tantivy::{DocAddress, Searcher, TantivyDocument};

pub use request::{SearchRequest, TrackTotalHits};

use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::query::{build, QueryContext};
use crate::shard::PRIMARY_TERM;
use sort::{SortKey, SortValue, ValueReader};

struct Candidate {
    index: usize,
    shard: usize,
    addr: DocAddress,
    score: f32,
    key: Option<SortKey>,
}

pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn query_for(index: &SearchIndex, query: &Value) -> Result<Box<dyn Query>> {
    let mappings = index.mappings();
    let shard = &index.shards()[0];
    let ctx = QueryContext {
        mappings: &mappings,
        fields: shard.fields(),
        tokenizers: shard.tantivy_index().tokenizers(),
        now_millis: now_millis(),
    };
    build(&ctx, query)
}

/// Counts the documents matching `query` (the `_count` API).
pub fn count(indices: &[Arc<SearchIndex>], query: &Value) -> Result<u64> {
    let mut total = 0;
    for index in indices {
        let q = query_for(index, query)?;
        for shard in index.shards() {
            total += shard.searcher().search(&*q, &Count)? as u64;
        }
    }
    Ok(total)
}

/// Runs a search and returns the Elasticsearch response body.
pub fn search(indices: &[Arc<SearchIndex>], req: &SearchRequest) -> Result<Value> {
    let (filters, rest) = match &req.aggs {
        Some(a) => filter_aggs::split(a)?,
        None => (Vec::new(), None),
    };
    if filters.is_empty() {
        return search_once(indices, req);
    }
    let started = Instant::now();
    let mut main = req.clone();
    main.aggs = rest;
    let mut response = search_once(indices, &main)?;
    let mut results = Map::new();
    for f in &filters {
        let pass = SearchRequest {
            query: f.query(&req.query),
            from: 0,
            size: 0,
            sort: Vec::new(),
            track_total_hits: TrackTotalHits::Exact,
            search_after: None,
            aggs: f.aggs.clone(),
            docvalue_fields: Vec::new(),
            ..req.clone()
        };
        let out = search(indices, &pass)?;
        let doc_count = out["hits"]["total"]["value"].as_u64().unwrap_or(0);
        results.insert(
            f.name.clone(),
            filter_aggs::FilterAgg::result(doc_count, out.get("aggregations")),
        );
    }
    match response.get_mut("aggregations") {
        Some(Value::Object(aggs)) => aggs.extend(results),
        _ => response["aggregations"] = Value::Object(results),
    }
    response["took"] = json!(started.elapsed().as_millis() as u64);
    Ok(response)
}

/// One search pass: hits, plain and geo aggregations.
fn search_once(indices: &[Arc<SearchIndex>], req: &SearchRequest) -> Result<Value> {
    let started = Instant::now();
    let want = req.from.saturating_add(req.size);
    let by_score = req.sort.is_empty()
        || (req.sort.len() == 1 && req.sort[0].field == "_score" && req.sort[0].descending);
    // Without `sort`, keys (for `search_after`) are the score, descending.
    let effective_sort = if req.sort.is_empty() {
        vec![sort::SortField::score()]
    } else {
        req.sort.clone()
    };
    let first_mappings = indices.first().map(|i| i.mappings());
    let after = req
        .search_after
        .as_ref()
        .map(|v| sort::after_values(&effective_sort, v, first_mappings.as_ref()));
    let descending = Arc::new(sort::key_orders(&effective_sort));
    let after_key = after
        .clone()
        .map(|v| SortKey::new(v, Arc::clone(&descending)));

    let (geo, rest_aggs) = match &req.aggs {
        Some(a) => geo_aggs::split(a)?,
        None => (Vec::new(), None),
    };
    let geo_collector = (!geo.is_empty()).then(|| geo_aggs::GeoCollector::new(geo.clone()));
    let mut geo_fruit = geo_collector.as_ref().map(geo_aggs::GeoCollector::empty);
    let now = now_millis();
    let (agg_request, shapes, top_deferred) = match (&rest_aggs, indices.first()) {
        (Some(a), Some(first)) => {
            let mappings = first.mappings();
            let mut fields = Vec::new();
            date_histogram::bound_fields(a, &mappings, now, &mut fields);
            let bounds = passes::data_bounds(indices, &req.query, &fields)?;
            let env = aggs::AggEnv {
                mappings: &mappings,
                now,
                bounds: &bounds,
            };
            let (tv, shapes, deferred) = aggs::translate(&env, a)?;
            let parsed: Option<Aggregations> = match tv.as_object() {
                Some(o) if o.is_empty() => None,
                _ => Some(
                    serde_json::from_value(tv)
                        .map_err(|e| SearchError::parsing(format!("[aggs] {e}")))?,
                ),
            };
            (parsed, shapes, deferred)
        }
        _ => (None, Vec::new(), Vec::new()),
    };

    let mut candidates = Vec::new();
    let mut total: u64 = 0;
    // `track_scores` with a field sort: the best score of every match
    // (f32 bits), and whether any document was scored at all.
    let track_scores = req.track_scores && !by_score;
    let best_score = Arc::new(AtomicU32::new(0));
    let mut merged_aggs: Option<IntermediateAggregationResults> = None;
    let mut searchers: Vec<Vec<Searcher>> = Vec::new();
    let mut shard_count = 0;
    let mut docvalue_fields = Vec::with_capacity(indices.len());
    let mut fetched = Vec::with_capacity(indices.len());
    for (i, index) in indices.iter().enumerate() {
        index.counters.note_query();
        let q = query_for(index, &req.query)?;
        let mappings = index.mappings();
        docvalue_fields.push(docvalues::resolve(&req.docvalue_fields, &mappings)?);
        fetched.push(fetch_fields::resolve(&req.fetch_fields, &mappings)?);
        for s in &req.sort {
            s.validate(&mappings)?;
        }
        if let Some(values) = &req.search_after {
            sort::validate_search_after(&effective_sort, values, &mappings)?;
        }
        geo_aggs::validate(&geo, &mappings)?;
        for q in aggs::AggShape::all_queries(&shapes) {
            query_for(index, q)?;
        }
        let mut per_index = Vec::new();
        for (s, shard) in index.shards().iter().enumerate() {
            shard_count += 1;
            let searcher = shard.searcher();
            total += searcher.search(&*q, &Count)? as u64;
            if want > 0 {
                if by_score && after.is_none() {
                    let top = searcher.search(&*q, &TopDocs::with_limit(want).order_by_score())?;
                    candidates.extend(top.into_iter().map(|(score, addr)| Candidate {
                        index: i,
                        shard: s,
                        addr,
                        score,
                        key: None,
                    }));
                } else {
                    let sort = effective_sort.clone();
                    let desc = Arc::clone(&descending);
                    let maps = mappings.clone();
                    let after_key = after_key.clone();
                    let best = Arc::clone(&best_score);
                    let collector = TopDocs::with_limit(want).tweak_score(
                        move |segment: &tantivy::SegmentReader| {
                            let readers: Vec<ValueReader> = sort
                                .iter()
                                .map(|f| ValueReader::open(f, &maps, segment))
                                .collect();
                            let desc = Arc::clone(&desc);
                            let after_key = after_key.clone();
                            let best = Arc::clone(&best);
                            move |doc: tantivy::DocId, score: tantivy::Score| {
                                let values = readers.iter().map(|r| r.value(doc, score)).collect();
                                let mut key = SortKey::new(values, Arc::clone(&desc));
                                if let Some(a) = &after_key {
                                    key.eligible = key.rank_cmp(a) == Ordering::Greater;
                                }
                                if track_scores {
                                    key.score = score;
                                    // Scores are never negative, so their
                                    // bits order as the values do.
                                    best.fetch_max(
                                        score.max(0.0).to_bits(),
                                        AtomicOrdering::Relaxed,
                                    );
                                }
                                key
                            }
                        },
                    );
                    let top = searcher.search(&*q, &collector)?;
                    candidates.extend(top.into_iter().filter(|(k, _)| k.eligible).map(
                        |(key, addr)| Candidate {
                            index: i,
                            shard: s,
                            addr,
                            score: key.score,
                            key: Some(key),
                        },
                    ));
                }
            }
            if let Some(agg_req) = &agg_request {
                let ctx = AggContextParams::new(
                    AggregationLimitsGuard::new(Some(500_000_000), Some(65_000)),
                    shard.tantivy_index().tokenizers().clone(),
                );
                let collector = DistributedAggregationCollector::from_aggs(agg_req.clone(), ctx);
                let part = searcher
                    .search(&*q, &collector)
                    .map_err(passes::agg_error)?;
                match &mut merged_aggs {
                    None => merged_aggs = Some(part),
                    Some(m) => m.merge_fruits(part)?,
                }
            }
            if let (Some(collector), Some(fruit)) = (&geo_collector, &mut geo_fruit) {
                fruit.merge(searcher.search(&*q, collector)?);
            }
            per_index.push(searcher);
        }
        searchers.push(per_index);
    }

    candidates.sort_by(|a, b| match (&a.key, &b.key) {
        (Some(x), Some(y)) => x.rank_cmp(y),
        _ => b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal),
    });
    let max_score = if by_score && after.is_none() {
        candidates.first().map(|c| c.score)
    } else if track_scores && !candidates.is_empty() {
        Some(f32::from_bits(best_score.load(AtomicOrdering::Relaxed)))
    } else {
        None
    };
    let mut hits = Vec::new();
    for c in candidates.into_iter().skip(req.from).take(req.size) {
        let index = &indices[c.index];
        let searcher = &searchers[c.index][c.shard];
        let doc: TantivyDocument = searcher.doc(c.addr)?;
        let fields = index.shards()[c.shard].fields();
        let id = doc
            .get_first(fields.id)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let mut hit = json!({"_index": index.name(), "_id": id});
        let (keep_id, keep_source) = match &req.stored_fields {
            None => (true, true),
            Some(request::StoredFields::Nothing) => (false, false),
            Some(request::StoredFields::Names { source_requested }) => (true, *source_requested),
        };
        if !keep_id {
            if let Some(h) = hit.as_object_mut() {
                h.remove("_id");
            }
        }
        let score_json = if c.key.is_none() || req.track_scores {
            json!(c.score)
        } else {
            Value::Null
        };
        hit["_score"] = score_json;
        if req.version {
            hit["_version"] = json!(doc.get_first(fields.version).and_then(|v| v.as_u64()));
        }
        if req.seq_no_primary_term {
            hit["_seq_no"] = json!(doc.get_first(fields.seq_no).and_then(|v| v.as_u64()));
            hit["_primary_term"] = json!(PRIMARY_TERM);
        }
        let source_bytes = doc
            .get_first(fields.source)
            .and_then(|v| v.as_bytes())
            .unwrap_or_default();
        let source: Value = serde_json::from_slice(source_bytes).unwrap_or(Value::Null);
        let dv = &docvalue_fields[c.index];
        let fetch = &fetched[c.index];
        if !dv.is_empty() || !fetch.is_empty() {
            let mut values = dv.fields(&source);
            fetch.add_to(&source, &mut values);
            if !values.is_empty() {
                hit["fields"] = Value::Object(values);
            }
        }
        if let Some(s) = req.source.apply(source).filter(|_| keep_source) {
            hit["_source"] = s;
        }
        if let Some(key) = &c.key {
            hit["sort"] = Value::Array(key.values.iter().map(SortValue::to_json).collect());
        }
        hits.push(hit);
    }

    let mut hits_obj = json!({"max_score": max_score, "hits": hits});
    match req.track_total_hits {
        TrackTotalHits::Exact => hits_obj["total"] = json!({"value": total, "relation": "eq"}),
        TrackTotalHits::UpTo(n) if total > n => {
            hits_obj["total"] = json!({"value": n, "relation": "gte"})
        }
        TrackTotalHits::UpTo(_) => hits_obj["total"] = json!({"value": total, "relation": "eq"}),
        TrackTotalHits::Off => {}
    }
    let mut response = json!({
        "took": started.elapsed().as_millis() as u64,
        "timed_out": false,
        "_shards": {"total": shard_count, "successful": shard_count, "skipped": 0, "failed": 0},
        "hits": hits_obj,
    });
    let runner = |filters: &[Value], name: &str, kind: &str, body: &Value| {
        passes::run_deferred(indices, req, filters, name, kind, body)
    };
    let mut scope = deferred::BucketScope::new(&runner);
    if let Some(agg_req) = agg_request {
        let limits = AggregationLimitsGuard::new(Some(500_000_000), Some(65_000));
        let merged = merged_aggs.unwrap_or_default();
        let final_result = merged
            .into_final_result(agg_req, limits)
            .map_err(passes::agg_error)?;
        let mut value =
            serde_json::to_value(&final_result).map_err(|e| SearchError::illegal(e.to_string()))?;
        aggs::reshape(&mut value, &shapes, &mut scope)?;
        response["aggregations"] = value;
    } else if !shapes.is_empty() {
        // Only deferred or split-out aggregations below these shapes.
        let mut value = json!({});
        aggs::reshape(&mut value, &shapes, &mut scope)?;
        response["aggregations"] = value;
    }
    for (name, kind, body) in &top_deferred {
        let result = runner(&[], name, kind, body)?;
        if !response["aggregations"].is_object() {
            response["aggregations"] = json!({});
        }
        response["aggregations"][name] = result;
    }
    if let Some(fruit) = geo_fruit {
        if !response["aggregations"].is_object() {
            response["aggregations"] = json!({});
        }
        if let Value::Object(out) = &mut response["aggregations"] {
            out.extend(fruit.into_json(&geo));
        }
    }
    Ok(response)
}
