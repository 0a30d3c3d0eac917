//! A search request built from a body and the URL parameters, run over
//! resolved indices: what `_search`, `_msearch`, scrolls, points in time
//! and field collapsing share. Refuses unknown parameters as
//! Elasticsearch does.

use std::sync::Arc;

use serde_json::{json, Value};
use strata_search::{ParsedQuery, SearchIndex, SearchRequest, SearchResponse, SortField};

use super::aliases;
use crate::error::{EsError, Result};
use crate::request::{reject_routing, EsRequest};

/// Parameters with no effect on a single node, accepted and ignored
/// (`human` changes only stats output, `error_trace` adds Java stack
/// traces, the rest steer shards, caches and remote clusters).
const HARMLESS: &[&str] = &[
    "human",
    "error_trace",
    "preference",
    "request_cache",
    "search_type",
    "batched_reduce_size",
    "ccs_minimize_roundtrips",
    "max_concurrent_shard_requests",
    "pre_filter_shard_size",
    "timeout",
    "allow_partial_search_results",
    "ignore_throttled",
];

/// Parameters read elsewhere: by [`query_string`] (with `q`), by
/// [`indices_options`](super::targets::indices_options), and by the server
/// for every reply (`pretty`, `filter_path`).
const READ_ELSEWHERE: &[&str] = &[
    "pretty",
    "filter_path",
    "df",
    "default_operator",
    "analyze_wildcard",
    "lenient",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
    "scroll",
];

/// Parameters the engine's request applies itself.
const APPLIED: &[&str] = &[
    "from",
    "size",
    "track_total_hits",
    "version",
    "seq_no_primary_term",
    "_source",
];

pub(super) fn run_search(
    indices: &[Arc<SearchIndex>],
    alias_filter: Option<&Value>,
    body: &Value,
    req: &EsRequest,
    with_params: bool,
) -> Result<SearchResponse> {
    run_search_with(indices, alias_filter, body, req, with_params, |_| Ok(()))
}

/// [`run_search`], with `adjust` applied to the parsed request (after the
/// parameters and alias filter) before it runs.
pub(super) fn run_search_with(
    indices: &[Arc<SearchIndex>],
    alias_filter: Option<&Value>,
    body: &Value,
    req: &EsRequest,
    with_params: bool,
    adjust: impl FnOnce(&mut SearchRequest) -> Result<()>,
) -> Result<SearchResponse> {
    let mut request = SearchRequest::parse(body)?;
    request.memory = req.memory.clone();
    let mut totals_as_int = false;
    if with_params {
        for (key, value) in req.params() {
            match key {
                k if APPLIED.contains(&k) => request.apply_param(k, value)?,
                "q" => request.query = ParsedQuery::parse(query_string(value, req))?,
                "sort" => request.sort = parse_sort_param(value)?,
                "rest_total_hits_as_int" => totals_as_int = req.flag(key, false)?,
                "track_scores" => request.track_scores = req.flag(key, false)?,
                "routing" => reject_routing(Some(value))?,
                k if HARMLESS.contains(&k) || READ_ELSEWHERE.contains(&k) => {}
                other => {
                    return Err(EsError::IllegalArgument(format!(
                        "request [{}] contains unrecognized parameter: [{other}]",
                        req.uri.split('?').next().unwrap_or_default()
                    )))
                }
            }
        }
    }
    if alias_filter.is_some() {
        request.query = aliases::with_typed_filter(&request.query, alias_filter)?;
    }
    adjust(&mut request)?;
    let started = std::time::Instant::now();
    let mut response = strata_search::search_response(indices, &request)?;
    let took = started.elapsed();
    let hits = response.body["hits"]["total"]["value"]
        .as_u64()
        .unwrap_or(0);
    let phases = strata_search::SearchTook {
        query: took.saturating_sub(response.fetch_took),
        fetch: response.fetch_took,
    };
    strata_search::note_search(indices, phases, hits, body);
    if totals_as_int {
        let total = response.body["hits"]["total"]["value"].take();
        response.body["hits"]["total"] = total;
    }
    // Shards that failed while others answered name this node.
    if let Some(Value::Array(failures)) = response.body["_shards"].get_mut("failures") {
        for entry in failures.iter_mut().filter_map(Value::as_object_mut) {
            entry.insert("node".into(), json!(req.node_id));
        }
    }
    Ok(response)
}

/// The `q` parameter as the `query_string` query it stands for.
pub(super) fn query_string(q: &str, req: &EsRequest) -> Value {
    let mut query = json!({"query": q});
    if let Some(df) = req.param("df") {
        query["default_field"] = json!(df);
    }
    if let Some(op) = req.param("default_operator") {
        query["default_operator"] = json!(op);
    }
    for flag in ["analyze_wildcard", "lenient"] {
        if let Some(v) = req.param(flag) {
            query[flag] = json!(v == "true" || v.is_empty());
        }
    }
    json!({ "query_string": query })
}

/// `sort=field:asc,other` as a body `sort`.
fn parse_sort_param(value: &str) -> Result<Vec<SortField>> {
    let list: Vec<Value> = value
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|part| match part.split_once(':') {
            Some((field, order)) => json!({ field: order }),
            None => json!(part),
        })
        .collect();
    Ok(SortField::parse_list(&Value::Array(list))?)
}

/// `sort` with the `_shard_doc` tiebreak that makes every hit's key unique
/// (by score first when there is no sort).
pub(super) fn with_tiebreak(sort: &mut Vec<SortField>) -> bool {
    let by_score = sort.is_empty();
    if by_score {
        sort.push(SortField::score());
    }
    if !sort.iter().any(|s| s.field == "_shard_doc") {
        sort.push(SortField::plain("_shard_doc"));
    }
    by_score
}
