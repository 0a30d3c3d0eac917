//! Points in time: `POST /<indices>/_pit?keep_alive=` pins the indices'
//! searchers, a search with `"pit": {"id", "keep_alive"}` (and no index
//! in its path) searches them, `DELETE /_pit` releases them.
//!
//! As in Elasticsearch every search of a point in time is sorted with the
//! `_shard_doc` tiebreak appended (after `_score` when there is no
//! sort), and each hit's `sort` carries it, so `search_after` pages
//! through every document exactly once.

use std::sync::Arc;

use serde_json::{json, Value};
use strata_search::Snapshot;

use super::aliases;
use super::search_request::{run_search_with, with_tiebreak};
use super::targets::indices_options;
use crate::contexts::{parse_keep_alive, Context, Kind, DEFAULT_MAX_PIT};
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `POST /<indices>/_pit` (open) and `DELETE /_pit` (close).
pub fn pit(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    if req.method == axum::http::Method::DELETE {
        return close(node, req);
    }
    let Some(expression) = expression else {
        return Err(EsError::ActionValidation("[index] is not specified".into()));
    };
    let keep_alive = req
        .param("keep_alive")
        .ok_or_else(|| EsError::ActionValidation("[keep_alive] is not specified".into()))?;
    let keep_alive = parse_keep_alive("keep_alive", keep_alive)?;
    for (key, _) in req.params() {
        if !matches!(
            key,
            "keep_alive"
                | "ignore_unavailable"
                | "expand_wildcards"
                | "allow_no_indices"
                | "preference"
                | "allow_partial_search_results"
                | "pretty"
                | "filter_path"
                | "human"
                | "error_trace"
        ) {
            return Err(EsError::IllegalArgument(format!(
                "request [/{expression}/_pit] contains unrecognized parameter: [{key}]"
            )));
        }
    }
    let (indices, filter) =
        aliases::resolve_filtered(node, Some(expression), indices_options(req)?)?;
    let snapshot = Arc::new(Snapshot::take(&indices));
    let shards = snapshot.shard_count();
    let limit = node
        .cluster_settings
        .context_limit("search.max_open_pit_context", DEFAULT_MAX_PIT);
    let context = Context {
        snapshot,
        filter,
        scroll: None,
    };
    let id = node.contexts.open(Kind::Pit, context, keep_alive, limit)?;
    Ok(Reply::ok(json!({
        "id": id,
        "_shards": {"total": shards, "successful": shards, "skipped": 0, "failed": 0}
    })))
}

/// `DELETE /_pit` with `{"id": ...}`.
fn close(node: &Node, req: &EsRequest) -> Result<Reply> {
    let body = req.required_json_body()?;
    let id = match body.get("id") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(EsError::ActionValidation("[id] is not specified".into())),
    };
    let freed = node.contexts.clear(Kind::Pit, &[id])?;
    Ok(Reply::json(
        if freed == 0 { 404 } else { 200 },
        json!({"succeeded": true, "num_freed": freed}),
    ))
}

/// A `_search` whose body names a point in time.
pub fn search(
    node: &Node,
    expression: Option<&str>,
    body: &Value,
    req: &EsRequest,
) -> Result<Reply> {
    if expression.is_some() {
        return Err(EsError::ActionValidation(
            "[indices] cannot be used with point in time. Do not specify any index with point in time."
                .into(),
        ));
    }
    let pit = &body["pit"];
    let id = pit
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| EsError::Parse("[pit] requires [id]".into()))?;
    if let Some(k) = pit
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "id" && *k != "keep_alive"))
    {
        return Err(EsError::Parse(format!("[pit] unknown field [{k}]")));
    }
    let keep_alive = match pit.get("keep_alive") {
        None => None,
        Some(Value::String(k)) => Some(parse_keep_alive("keep_alive", k)?),
        Some(other) => {
            return Err(EsError::Parse(format!(
                "[pit] [keep_alive] must be a time value, got [{other}]"
            )))
        }
    };
    // A missing or expired point in time fails every shard, as in
    // Elasticsearch (`search_phase_execution_exception`, 404).
    let context = node
        .contexts
        .get(Kind::Pit, id, keep_alive)
        .map_err(|e| e.on_shards(None))?;
    // `search_after` counts the implicit tiebreak: set once it is there.
    let mut rest = body.clone();
    let mut after = None;
    if let Value::Object(obj) = &mut rest {
        obj.remove("pit");
        after = obj.remove("search_after");
    }
    let snapshot = Arc::clone(&context.snapshot);
    let first = snapshot.indices().first().map(|i| i.name().to_string());
    let mut response = run_search_with(
        snapshot.indices(),
        context.filter.as_ref(),
        &rest,
        req,
        true,
        |r| {
            if let Some(slice) = &r.slice {
                super::slice::check(snapshot.indices(), slice, false)?;
            }
            if with_tiebreak(&mut r.sort) {
                r.track_scores = true;
            }
            if let Some(values) = after {
                let values = values
                    .as_array()
                    .cloned()
                    .ok_or_else(|| EsError::Parse("[search_after] must be an array".into()))?;
                if values.len() != r.sort.len() {
                    return Err(EsError::IllegalArgument(format!(
                        "search_after has {} value(s) but sort has {}.",
                        values.len(),
                        r.sort.len()
                    )));
                }
                if r.from > 0 {
                    return Err(EsError::IllegalArgument(
                        "[from] parameter must be set to 0 when [search_after] is used".into(),
                    ));
                }
                r.search_after = Some(values);
            }
            r.snapshot = Some(Arc::clone(&snapshot));
            Ok(())
        },
    )
    .map_err(|e| e.on_shards(first.as_deref()))?;
    response.body["pit_id"] = json!(id);
    let reply = Reply::serialized(&response).map_err(|e| EsError::Internal(e.to_string()))?;
    if let crate::reply::Payload::Serialized(bytes) = &reply.payload {
        req.memory.reserve(bytes.len() as u64, "<reply>")?;
    }
    Ok(reply)
}
