//! Scrolls: `_search?scroll=<keep_alive>` opens one, `_search/scroll`
//! (GET or POST; the id in the body, a parameter or the path) returns the
//! next page, `DELETE _search/scroll` (ids or `_all`) clears them.
//!
//! A scroll pins its indices' searchers ([`Snapshot`]): every page sees
//! the documents as they were when it opened. Pages are cut by
//! `search_after` on the request's sort with the `_shard_doc` tiebreak
//! appended (by score when there is no sort), so a page costs a top-K
//! search whatever its depth and the context keeps only the last hit's
//! sort values. Aggregations are computed on the first page only, as in
//! Elasticsearch.
//!
//! A search with a `pit` in its body goes to [`super::pit`].

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};
use strata_search::{SearchRequest, SearchResponse, Snapshot, SortField, TrackTotalHits};

use super::aliases;
use super::search_request::{run_search_with, with_tiebreak};
use super::targets::indices_options;
use crate::contexts::{parse_keep_alive, Context, Kind, ScrollState, DEFAULT_MAX_SCROLL};
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// A search that is not a plain one: the first page of a scroll, or a
/// search of a point in time. `None`: a plain search.
pub fn divert(
    node: &Node,
    expression: Option<&str>,
    body: &Value,
    req: &EsRequest,
) -> Option<Result<Reply>> {
    if body.get("slice").is_some() && req.param("scroll").is_none() && body.get("pit").is_none() {
        return Some(Err(super::slice::refuse_plain()));
    }
    if body.get("collapse").is_some() {
        return Some(super::collapse::search(node, expression, body, req));
    }
    if let Some(keep_alive) = req.param("scroll") {
        return Some(start(node, expression, body, req, keep_alive));
    }
    if body.get("pit").is_some() {
        return Some(super::pit::search(node, expression, body, req));
    }
    let sorted_by_shard_doc = body
        .get("sort")
        .and_then(|s| SortField::parse_list(s).ok())
        .is_some_and(|list| list.iter().any(|f| f.field == "_shard_doc"))
        || req.param("sort").is_some_and(|s| {
            s.split(',')
                .any(|f| f.split(':').next() == Some("_shard_doc"))
        });
    if sorted_by_shard_doc {
        return Some(Err(EsError::ActionValidation(
            "[_shard_doc] sort field cannot be used without [point in time] search".into(),
        )));
    }
    None
}

/// The sort values of the last hit of `response` (the next page's
/// `search_after`), `None` when the page is empty.
pub(super) fn last_sort(response: &SearchResponse) -> Result<Option<Vec<Value>>> {
    let Some(last) = response.hits.last() else {
        return Ok(None);
    };
    let hit: Value =
        serde_json::from_str(last.get()).map_err(|e| EsError::Internal(e.to_string()))?;
    Ok(hit.get("sort").and_then(Value::as_array).cloned())
}

/// `[/<indices>]/_search?scroll=`: the first page and the scroll's id.
fn start(
    node: &Node,
    expression: Option<&str>,
    body: &Value,
    req: &EsRequest,
    keep_alive: &str,
) -> Result<Reply> {
    let keep_alive = parse_keep_alive("scroll", keep_alive)?;
    if body.get("pit").is_some() {
        return Err(EsError::ActionValidation(
            "using [point in time] is not allowed in a scroll context".into(),
        ));
    }
    let (indices, filter) = aliases::resolve_filtered(node, expression, indices_options(req)?)?;
    let snapshot = Arc::new(Snapshot::take(&indices));
    let first = indices.first().map(|i| i.name().to_string());
    let mut kept: Option<SearchRequest> = None;
    let response = run_search_with(&indices, filter.as_ref(), body, req, true, |r| {
        if r.search_after.is_some() {
            return Err(EsError::ActionValidation(
                "[search_after] cannot be used in a scroll context".into(),
            ));
        }
        if r.size == 0 {
            return Err(EsError::ActionValidation(
                "[size] cannot be [0] in a scroll context".into(),
            ));
        }
        if r.track_total_hits == TrackTotalHits::Off {
            return Err(EsError::ActionValidation(
                "disabling [track_total_hits] is not allowed in a scroll context".into(),
            ));
        }
        if let Some(slice) = &r.slice {
            super::slice::check(&indices, slice, true)?;
        }
        r.track_total_hits = TrackTotalHits::Exact;
        if with_tiebreak(&mut r.sort) {
            r.track_scores = true;
        }
        r.snapshot = Some(Arc::clone(&snapshot));
        let mut next = r.clone();
        next.drop_aggs();
        next.from = 0;
        kept = Some(next);
        Ok(())
    });
    let mut response = response.map_err(|e| e.on_shards(first.as_deref()))?;
    let request = kept.ok_or_else(|| EsError::Internal("scroll request not kept".into()))?;
    let after = last_sort(&response)?;
    let context = Context {
        snapshot,
        filter: None,
        scroll: Some(Mutex::new(ScrollState { request, after })),
    };
    let limit = node
        .cluster_settings
        .context_limit("search.max_open_scroll_context", DEFAULT_MAX_SCROLL);
    let id = node
        .contexts
        .open(Kind::Scroll, context, keep_alive, limit)?;
    response.body["_scroll_id"] = json!(id);
    reply(response, req)
}

fn reply(response: SearchResponse, req: &EsRequest) -> Result<Reply> {
    let reply = Reply::serialized(&response).map_err(|e| EsError::Internal(e.to_string()))?;
    if let crate::reply::Payload::Serialized(bytes) = &reply.payload {
        req.memory.reserve(bytes.len() as u64, "<reply>")?;
    }
    Ok(reply)
}

/// `GET|POST /_search/scroll[/<id>]`: the next page; `DELETE`: clears.
pub fn scroll(node: &Node, path_id: Option<&str>, req: &EsRequest) -> Result<Reply> {
    if req.method == axum::http::Method::DELETE {
        return clear(node, path_id, req);
    }
    let body = req.json_body()?;
    let mut totals_as_int = req.flag("rest_total_hits_as_int", false)?;
    for (key, _) in req.params() {
        if !matches!(
            key,
            "scroll"
                | "scroll_id"
                | "rest_total_hits_as_int"
                | "pretty"
                | "filter_path"
                | "human"
                | "error_trace"
        ) {
            return Err(EsError::IllegalArgument(format!(
                "request [/_search/scroll] contains unrecognized parameter: [{key}]"
            )));
        }
    }
    let mut id = path_id
        .map(str::to_string)
        .or(req.param("scroll_id").map(str::to_string));
    let mut keep_alive = req.param("scroll").map(str::to_string);
    if let Value::Object(obj) = &body {
        for (key, value) in obj {
            match (key.as_str(), value) {
                ("scroll_id", Value::String(s)) => id = Some(s.clone()),
                ("scroll", Value::String(s)) => keep_alive = Some(s.clone()),
                ("rest_total_hits_as_int", Value::Bool(b)) => totals_as_int = *b,
                _ => {
                    return Err(EsError::Parse(format!(
                        "[search_scroll_request] unknown field [{key}]"
                    )))
                }
            }
        }
    } else if !body.is_null() {
        return Err(EsError::Parse("request body must be an object".into()));
    }
    let id = id.ok_or_else(|| EsError::ActionValidation("scrollId is missing".into()))?;
    let keep_alive: Option<Duration> = keep_alive
        .map(|k| parse_keep_alive("scroll", &k))
        .transpose()?;
    let context = node
        .contexts
        .get(Kind::Scroll, &id, keep_alive)
        .map_err(|e| e.on_shards(None))?;
    let Some(state) = &context.scroll else {
        return Err(EsError::Internal(
            "scroll context without a position".into(),
        ));
    };
    // One page at a time per scroll, as the position moves.
    let mut state = state.lock();
    let mut request = state.request.clone();
    request.memory = req.memory.clone();
    request.search_after = state.after.clone();
    let mut response = strata_search::search_response(context.snapshot.indices(), &request)?;
    if let Some(after) = last_sort(&response)? {
        state.after = Some(after);
    }
    drop(state);
    if totals_as_int {
        let total = response.body["hits"]["total"]["value"].take();
        response.body["hits"]["total"] = total;
    }
    response.body["_scroll_id"] = json!(id);
    reply(response, req)
}

/// The nodes a clear-all reaches: this one.
const NODES: usize = 1;

/// `DELETE /_search/scroll[/<ids>|/_all]` (ids also in the body).
fn clear(node: &Node, path_ids: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let mut ids: Vec<String> = path_ids
        .map(|p| {
            p.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if let Some(p) = req.param("scroll_id") {
        ids.extend(p.split(',').filter(|s| !s.is_empty()).map(str::to_string));
    }
    match req.json_body()? {
        Value::Null => {}
        Value::Object(obj) => {
            for (key, value) in obj {
                match (key.as_str(), value) {
                    ("scroll_id", Value::String(s)) => ids.push(s),
                    ("scroll_id", Value::Array(list)) => {
                        for v in list {
                            match v {
                                Value::String(s) => ids.push(s),
                                other => {
                                    return Err(EsError::Parse(format!(
                                        "scroll_id array element should only contain scroll_id, got [{other}]"
                                    )))
                                }
                            }
                        }
                    }
                    _ => {
                        return Err(EsError::Parse(format!(
                            "[clear_scroll_request] unknown field [{key}]"
                        )))
                    }
                }
            }
        }
        _ => return Err(EsError::Parse("request body must be an object".into())),
    }
    if ids.is_empty() {
        return Err(EsError::ActionValidation("no scroll ids specified".into()));
    }
    let freed = if ids.iter().any(|i| i == "_all") {
        // Elasticsearch counts `_all` per node that cleared its contexts
        // (`ClearScrollController.cleanAllScrolls`), not per context: this
        // node is one.
        node.contexts.clear_all(Kind::Scroll);
        NODES
    } else {
        node.contexts.clear(Kind::Scroll, &ids)?
    };
    // Elasticsearch answers 404 when nothing was freed (ids given).
    let status = if freed == 0 && !ids.iter().any(|i| i == "_all") {
        404
    } else {
        200
    };
    Ok(Reply::json(
        status,
        json!({"succeeded": true, "num_freed": freed}),
    ))
}
