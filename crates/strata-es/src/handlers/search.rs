//! `[/<indices>]/_search` and `_count` (`_msearch` has its own module).
//! The body is the engine's
//! [`SearchRequest`](strata_search::SearchRequest); URL parameters
//! `from`, `size`, `sort`, `_source`, `track_total_hits`, `version`,
//! `seq_no_primary_term`, `rest_total_hits_as_int` and `q` (a
//! `query_string` query, with `df`, `default_operator`, `analyze_wildcard`
//! and `lenient`) are applied on top (`search_request.rs`). Unknown
//! parameters are refused as in Elasticsearch; those that do not change
//! the result on a single node are accepted.

use serde_json::{json, Value};

use super::aliases;
use super::search_request::{query_string, run_search};
use super::targets::indices_options;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::{reject_routing, EsRequest};

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
    let query = strata_search::ParsedQuery::parse(query)?;
    let count = strata_search::count(&indices, &query, &req.memory)?;
    let shards: u64 = indices
        .iter()
        .map(|i| u64::from(i.settings().number_of_shards))
        .sum();
    Ok(Reply::ok(json!({
        "count": count,
        "_shards": {"total": shards, "successful": shards, "skipped": 0, "failed": 0}
    })))
}
