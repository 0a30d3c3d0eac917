//! `[/<indices>]/_search` and `_count` (`_msearch` has its own module).
//! The body is the engine's [`SearchRequest`]; URL parameters `from`, `size`, `sort`,
//! `_source`, `track_total_hits`, `version`, `seq_no_primary_term`,
//! `rest_total_hits_as_int` and `q` (a `query_string` query, with `df`,
//! `default_operator`, `analyze_wildcard` and `lenient`) are applied on
//! top. Unknown parameters are refused as in Elasticsearch; those that do
//! not change the result on a single node are accepted.

use std::sync::Arc;

use serde_json::{json, Value};
use strata_search::catalog::IndicesOptions;
use strata_search::search::{self as engine, SearchRequest, SearchResponse};
use strata_search::SearchIndex;

use super::aliases;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
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
/// [`indices_options`], and by the server for every reply (`pretty`,
/// `filter_path`).
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

/// `[/<indices>]/_search`.
pub fn search(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let mut body = req.json_body()?;
    // A stored script is resolved (and found missing) on the shards.
    let stored = node.catalog.scripts().resolve(&mut body);
    if stored.is_ok() {
        if let Some(found) = super::scroll::divert(node, expression, &body, req) {
            return found;
        }
    }
    let (indices, filter) = aliases::resolve_filtered(node, expression, indices_options(req)?)?;
    let first = indices.first().map(|i| i.name().to_string());
    stored.map_err(|e| EsError::from(e).on_shards(first.as_deref()))?;
    let response = run_search(&indices, filter.as_ref(), &body, req, true)
        .map_err(|e| e.on_shards(first.as_deref()))?;
    let reply = Reply::serialized(&response).map_err(|e| EsError::Internal(e.to_string()))?;
    if let crate::reply::Payload::Serialized(bytes) = &reply.payload {
        req.memory.reserve(bytes.len() as u64, "<reply>")?;
    }
    Ok(reply)
}

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
                "q" => request.query = query_string(value, req),
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
        request.query = aliases::with_filter(request.query, alias_filter);
    }
    adjust(&mut request)?;
    let started = std::time::Instant::now();
    let mut response = engine::search_response(indices, &request)?;
    let took = started.elapsed();
    let hits = response.body["hits"]["total"]["value"]
        .as_u64()
        .unwrap_or(0);
    let phases = strata_search::slowlog::SearchTook {
        query: took.saturating_sub(response.fetch_took),
        fetch: response.fetch_took,
    };
    strata_search::slowlog::note_search(indices, phases, hits, body);
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

/// `ignore_unavailable`, `allow_no_indices` and `expand_wildcards` of the
/// request's parameters (a search's defaults when absent).
pub(super) fn indices_options(req: &EsRequest) -> Result<IndicesOptions> {
    let mut options = IndicesOptions {
        ignore_unavailable: req.flag("ignore_unavailable", false)?,
        allow_no_indices: req.flag("allow_no_indices", true)?,
        ..IndicesOptions::default()
    };
    if let Some(v) = req.param("expand_wildcards") {
        options.set_expand_wildcards(v)?;
    }
    Ok(options)
}

/// An `_msearch` header's own `ignore_unavailable`, `allow_no_indices`
/// and `expand_wildcards` (booleans or strings; a list or a comma string)
/// over the request's.
pub(super) fn header_options(
    header: &Value,
    mut options: IndicesOptions,
) -> Result<IndicesOptions> {
    let flag = |key: &str, current: bool| -> Result<bool> {
        match header.get(key) {
            None => Ok(current),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) if s == "true" => Ok(true),
            Some(Value::String(s)) if s == "false" => Ok(false),
            Some(other) => Err(EsError::IllegalArgument(format!(
                "Failed to parse value [{other}] as only [true] or [false] are allowed."
            ))),
        }
    };
    options.ignore_unavailable = flag("ignore_unavailable", options.ignore_unavailable)?;
    options.allow_no_indices = flag("allow_no_indices", options.allow_no_indices)?;
    match header.get("expand_wildcards") {
        None => {}
        Some(Value::String(s)) => options.set_expand_wildcards(s)?,
        Some(Value::Array(a)) => {
            let list: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
            options.set_expand_wildcards(&list.join(","))?;
        }
        Some(other) => {
            return Err(EsError::IllegalArgument(format!(
                "[expand_wildcards] must be a string or a list, got [{other}]"
            )))
        }
    }
    Ok(options)
}

/// The `q` parameter as the `query_string` query it stands for.
fn query_string(q: &str, req: &EsRequest) -> Value {
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
fn parse_sort_param(value: &str) -> Result<Vec<engine::sort::SortField>> {
    let list: Vec<Value> = value
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|part| match part.split_once(':') {
            Some((field, order)) => json!({ field: order }),
            None => json!(part),
        })
        .collect();
    Ok(engine::sort::SortField::parse_list(&Value::Array(list))?)
}

/// `[/<indices>]/_count`.
pub fn count(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let body = req.json_body()?;
    reject_routing(req.param("routing"))?;
    let (indices, alias_filter) =
        aliases::resolve_filtered(node, expression, indices_options(req)?)?;
    let mut query = json!({"match_all": {}});
    if let Value::Object(obj) = &body {
        for (key, value) in obj {
            match key.as_str() {
                "query" => query = value.clone(),
                other => {
                    return Err(EsError::Search {
                        source: strata_search::SearchError::Parsing(format!(
                            "request does not support [{other}]"
                        )),
                        index: None,
                        position: None,
                    })
                }
            }
        }
    } else if !body.is_null() {
        return Err(EsError::Parse("request body must be an object".into()));
    }
    if let Some(q) = req.param("q") {
        query = query_string(q, req);
    }
    let query = aliases::with_filter(query, alias_filter.as_ref());
    let count = engine::count(&indices, &query, &req.memory)?;
    let shards: u64 = indices
        .iter()
        .map(|i| u64::from(i.settings().number_of_shards))
        .sum();
    Ok(Reply::ok(json!({
        "count": count,
        "_shards": {"total": shards, "successful": shards, "skipped": 0, "failed": 0}
    })))
}
