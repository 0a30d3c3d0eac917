//! One search pass over a set of indices: the query phase (per shard one
//! collector for the count, the ranking, tantivy's aggregations and
//! Strata's own), the merge of hits and aggregation results across
//! shards, the fetch phase, and the response body (its aggregations:
//! `agg_results`).

use std::cmp::Ordering;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use tantivy::aggregation::agg_req::Aggregations;
use tantivy::aggregation::intermediate_agg_result::IntermediateAggregationResults;
use tantivy::aggregation::{
    AggContextParams, AggregationLimitsGuard, DistributedAggregationCollector,
};
use tantivy::collector::Count;

mod agg_results;

use super::index_query::{now_millis, query_for};
use super::reentry::{Reentry, SearchFn};
use super::request::{SearchRequest, TrackTotalHits};
use super::response::{self, SearchResponse};
use super::{
    agg_tree, aggs, auto_date, bucket_limit, date_histogram, fetch_phase, geo_aggs, nested_aggs,
    own_aggs, parallel, passes, ranking, runtime_aggs, runtime_sort, sort,
};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;

/// Memory an aggregation may use when the request has no breaker account
/// (tantivy's default limit).
const UNACCOUNTED_AGG_MEMORY: u64 = 500_000_000;

/// Bytes a ranked candidate takes while hits are collected and merged
/// (address, score, sort values), per shard.
const CANDIDATE_BYTES: u64 = 96;

/// One search pass: hits, plain and geo aggregations; the extra passes
/// it needs run through `search` (the whole search) and this function.
pub(super) fn search_once(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    search: SearchFn,
) -> Result<SearchResponse> {
    let reentry = Reentry {
        search,
        pass: search_once,
    };
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
        .map(|v| sort::after_values(&effective_sort, v, first_mappings.as_deref()));
    let descending = Arc::new(sort::key_orders(&effective_sort));

    let (geo, rest_aggs) = match &req.aggs {
        Some(a) => geo_aggs::split(a.nodes())?,
        None => (Vec::new(), Vec::new()),
    };
    let mut geo_fruit = (!geo.is_empty()).then(|| geo_aggs::GeoCollector::new(geo.clone()).empty());
    let (runtime, rest_aggs) =
        runtime_aggs::split(rest_aggs, &req.scripted, first_mappings.as_deref())?;
    let runtime = Arc::new(runtime);
    let mut runtime_fruit = runtime_aggs::RuntimeAggsFruit::new(&runtime);
    let now = now_millis();
    let (agg_request, shapes, top_deferred, mut own) = match (&rest_aggs[..], indices.first()) {
        (a @ [_, ..], Some(first)) => {
            let mappings = first.mappings();
            let mut fields = Vec::new();
            date_histogram::bound_fields(a, &mappings, now, &mut fields);
            let lacking = auto_date::missing_fields(a);
            let (bounds, missing_docs) =
                passes::data_bounds(reentry, indices, req, &fields, &lacking)?;
            let env = aggs::AggEnv {
                mappings: &mappings,
                now,
                bounds: &bounds,
                missing_docs: &missing_docs,
            };
            let (mut tv, mut shapes, deferred) = aggs::translate(&env, a)?;
            let own = own_aggs::OwnAggs::split(&mut tv, &mut shapes, &mappings);
            let parsed: Option<Aggregations> = match tv.as_object() {
                Some(o) if o.is_empty() => None,
                _ => Some(
                    serde_json::from_value(tv)
                        .map_err(|e| SearchError::parsing(format!("[aggs] {e}")))?,
                ),
            };
            (parsed, shapes, deferred, own)
        }
        _ => (None, Vec::new(), Vec::new(), own_aggs::OwnAggs::default()),
    };
    let mut own_part = own_aggs::OwnPart::default();
    // Runtime fields' use is checked over the JSON of what tantivy computes.
    let rest_json = if rest_aggs.is_empty() {
        Value::Null
    } else {
        agg_tree::level_json(&rest_aggs)
    };

    // The query phase: per shard one collector (count, ranking,
    // aggregations, geo), every segment of every shard on the search pool.
    let mut queries = Vec::with_capacity(indices.len());
    let mut per_index = Vec::with_capacity(indices.len());
    let mut rank_by = Vec::with_capacity(indices.len());
    for index in indices {
        index.counters.note_query();
        let limits = index.limits();
        limits.check_result_window(want)?;
        limits.check_docvalue_fields(req.docvalue_fields.len())?;
        let q = nested_aggs::request_query(index, req)?;
        let mappings = index.mappings();
        req.scripted.validate_usage(&mappings, &[&rest_json])?;
        for s in &req.sort {
            // A runtime field sorts unless a mapped field has its name.
            if mappings.leaf(&s.field).is_some() || req.scripted.runtime_field(&s.field).is_none() {
                s.validate(&mappings)?;
            }
        }
        if let Some(values) = &req.search_after {
            sort::validate_search_after(&effective_sort, values, &mappings)?;
        }
        geo_aggs::validate(&geo, &mappings)?;
        for q in aggs::AggShape::all_queries(&shapes) {
            query_for(index, q)?;
        }
        own.prepare(index)?;
        per_index.push(fetch_phase::IndexFetch::resolve(index, req, &mappings)?);
        rank_by.push(if by_score && after.is_none() {
            None
        } else {
            let mapped = Arc::clone(&mappings);
            let runtime = effective_sort
                .iter()
                .map(|s| runtime_sort::RuntimeSort::of(&s.field, &req.scripted, &mapped))
                .collect();
            Some(Arc::new(ranking::FieldRanking {
                sort: effective_sort.clone(),
                orders: Arc::clone(&descending),
                mappings,
                after: after.clone(),
                track_scores: req.track_scores && !by_score,
                runtime,
            }))
        });
        queries.push(q);
    }
    let owners: Vec<(usize, usize)> = per_index
        .iter()
        .enumerate()
        .flat_map(|(i, f)| (0..f.searchers.len()).map(move |s| (i, s)))
        .collect();
    let shard_count = owners.len();
    // Candidates live until this pass ends (a search may run many).
    let candidates_memory = req.memory.part();
    candidates_memory.reserve(
        (want as u64).saturating_mul(shard_count as u64 + 1) * CANDIDATE_BYTES,
        "<top_hits>",
    )?;
    // One aggregation budget for every shard's collectors: what the
    // breakers have room for when the search starts; without breakers
    // (the engine used directly), tantivy's own default. Filling empty
    // histogram buckets is charged to it before anything is allocated.
    let agg_memory = if req.memory.is_accounted() {
        req.memory.room()
    } else {
        UNACCOUNTED_AGG_MEMORY
    };
    let agg_limits = AggregationLimitsGuard::new(
        Some(agg_memory),
        Some(bucket_limit::max_created().min(u32::MAX as usize) as u32),
    );
    let mut total: u64 = 0;
    let mut candidates = Vec::new();
    let mut best_score: Option<f32> = None;
    let mut merged_aggs: Option<IntermediateAggregationResults> = None;
    // A sort on one date field ranks in a pass of its own, by zone maps
    // (`zone_ranking`); the count and aggregations then skip ranking.
    let ranked_apart = want > 0
        && rank_by
            .iter()
            .all(|by| by.as_ref().is_some_and(|f| f.single_date().is_some()));
    if ranked_apart {
        let parts: Vec<_> = owners
            .iter()
            .enumerate()
            .filter_map(|(n, &(i, s))| {
                let f = rank_by[i].as_ref()?;
                Some(parallel::ShardSearch {
                    searcher: &per_index[i].searchers[s],
                    query: &*queries[i],
                    collector: ranking::Ranking::new(want, ranking::RankBy::Fields(Arc::clone(f)))
                        .at_shard(n),
                })
            })
            .collect();
        for (&(i, s), ranked) in owners.iter().zip(parallel::collect_shards(&parts)?) {
            candidates.extend(ranked.hits.into_iter().map(|h| fetch_phase::Candidate {
                index: i,
                shard: s,
                addr: h.addr,
                score: h.score,
                values: Some(h.values),
            }));
        }
    }
    if (want == 0 || ranked_apart)
        && agg_request.is_none()
        && geo.is_empty()
        && own.is_empty()
        && runtime.is_empty()
    {
        // Only the count: tantivy counts without visiting documents where
        // it can.
        let parts: Vec<_> = owners
            .iter()
            .map(|&(i, s)| parallel::ShardSearch {
                searcher: &per_index[i].searchers[s],
                query: &*queries[i],
                collector: Count,
            })
            .collect();
        total = parallel::collect_shards(&parts)?
            .iter()
            .map(|&n| n as u64)
            .sum();
    } else {
        let parts: Vec<_> = owners
            .iter()
            .enumerate()
            .map(|(n, &(i, s))| {
                let ranked = (want > 0 && !ranked_apart).then(|| {
                    let by = match &rank_by[i] {
                        None => ranking::RankBy::Score,
                        Some(f) => ranking::RankBy::Fields(Arc::clone(f)),
                    };
                    ranking::Ranking::new(want, by).at_shard(n)
                });
                let aggs = agg_request.as_ref().map(|a| {
                    let ctx = AggContextParams::new(
                        agg_limits.clone(),
                        indices[i].shards()[s].tantivy_index().tokenizers().clone(),
                    );
                    DistributedAggregationCollector::from_aggs(a.clone(), ctx)
                });
                let geo = (!geo.is_empty()).then(|| geo_aggs::GeoCollector::new(geo.clone()));
                let on_runtime = (!runtime.is_empty()).then(|| {
                    runtime_aggs::RuntimeAggsCollector::new(
                        Arc::clone(&runtime),
                        Arc::clone(&per_index[i].mappings),
                        req.memory.clone(),
                    )
                });
                parallel::ShardSearch {
                    searcher: &per_index[i].searchers[s],
                    query: &*queries[i],
                    collector: (Count, ranked, aggs, (geo, own.collector(i), on_runtime)),
                }
            })
            .collect();
        let fruits =
            parallel::collect_shards(&parts).map_err(|e| passes::agg_error(e, &req.memory))?;
        for (&(i, s), (count, ranked, aggs, (geo, own_fruit, on_runtime))) in
            owners.iter().zip(fruits)
        {
            if let Some(part) = on_runtime {
                runtime_fruit.merge(part);
            }
            total += count as u64;
            if let Some(ranked) = ranked {
                best_score = match (best_score, ranked.best_score) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
                let by_fields = rank_by[i].is_some();
                candidates.extend(ranked.hits.into_iter().map(|h| fetch_phase::Candidate {
                    index: i,
                    shard: s,
                    addr: h.addr,
                    score: h.score,
                    values: by_fields.then_some(h.values),
                }));
            }
            if let Some(part) = aggs {
                match &mut merged_aggs {
                    None => merged_aggs = Some(part),
                    Some(m) => m.merge_fruits(part)?,
                }
            }
            if let (Some(part), Some(fruit)) = (geo, &mut geo_fruit) {
                fruit.merge(part);
            }
            own_aggs::merge(&mut own_part, own_fruit);
        }
    }

    candidates.sort_by(|a, b| match (&a.values, &b.values) {
        (Some(x), Some(y)) => sort::rank_cmp(x, y, &descending),
        _ => b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal),
    });
    let max_score = if by_score && after.is_none() {
        candidates.first().map(|c| c.score)
    } else if req.track_scores && !by_score && !candidates.is_empty() {
        Some(best_score.unwrap_or(0.0).max(0.0))
    } else {
        None
    };
    let page: Vec<_> = candidates
        .into_iter()
        .skip(req.from)
        .take(req.size)
        .collect();
    let fetch_started = Instant::now();
    let fetched = fetch_phase::hits(indices, req, &mut per_index, &page)?;
    let fetch_took = fetch_started.elapsed();

    // The hits stand apart from the body (see `SearchResponse`).
    let mut hits_obj = json!({"max_score": max_score.map(response::score_json), "hits": []});
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
    super::shard_failures::report_fetch(&mut response, &fetched.failures);
    agg_results::fill(
        &mut response,
        reentry,
        indices,
        req,
        agg_results::PassAggs {
            request: agg_request,
            merged: merged_aggs,
            limits: agg_limits,
            shapes,
            top_deferred,
            own,
            own_part,
            runtime,
            runtime_fruit,
            geo,
            geo_fruit,
        },
    )?;
    Ok(SearchResponse {
        body: response,
        hits: fetched.hits,
        fetch_took,
    })
}
