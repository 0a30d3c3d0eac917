//! Index management: `PUT|GET|HEAD|DELETE /<index>`, `_mapping`,
//! `_settings`, `_refresh`, `_flush`, `_forcemerge`, `_cache/clear`.
//!
//! Deleting by wildcard or `_all` is refused while the cluster setting
//! `action.destructive_requires_name` is `true` (Elasticsearch 8's
//! default); deleting through an alias is refused as in Elasticsearch.

use axum::http::Method;
use serde_json::{json, Map, Value};
use strata_search::SearchError;

use super::targets::{broadcast_shards, resolve, resolve_with};
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `/<index>`: create, delete, exists, get.
pub fn index(node: &Node, name: &str, req: &EsRequest) -> Result<Reply> {
    match req.method {
        Method::PUT => {
            let body = req.json_body()?;
            node.catalog
                .create_index(name, &body)
                .map_err(|e| EsError::from(e).in_index(name))?;
            Ok(Reply::ok(json!({
                "acknowledged": true,
                "shards_acknowledged": true,
                "index": name
            })))
        }
        Method::DELETE => {
            let wildcard = name
                .split(',')
                .any(|p| p.trim() == "_all" || p.contains('*'));
            if wildcard && node.cluster_settings.destructive_requires_name() {
                return Err(EsError::IllegalArgument(
                    "Wildcard expressions or all indices are not allowed".into(),
                ));
            }
            if let Some(existing) = super::inspect::existing_for_delete(node, name, req)? {
                node.catalog.delete(&existing)?;
            }
            Ok(Reply::ok(json!({"acknowledged": true})))
        }
        Method::HEAD => match node.catalog.resolve(name) {
            Ok(found) if !found.is_empty() => Ok(Reply::empty(200)),
            Ok(_) | Err(SearchError::IndexNotFound(_)) => Ok(Reply::empty(404)),
            Err(e) => Err(e.into()),
        },
        _ => {
            let mut out = Map::new();
            for index in node.catalog.resolve(name)? {
                let mut body = index.describe();
                body["aliases"] = super::aliases::of_index(node, index.name());
                out.insert(index.name().to_string(), body);
            }
            Ok(Reply::ok(Value::Object(out)))
        }
    }
}

/// `[/<index>]/_mapping`: get, or merge new fields in (`PUT`/`POST`).
pub fn mapping(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let indices = resolve(node, expression)?;
    if req.method == Method::PUT || req.method == Method::POST {
        if expression.is_none() {
            return Err(EsError::ActionValidation(
                "mapping source is empty or index is missing".into(),
            ));
        }
        let body = req.required_json_body()?;
        for index in &indices {
            index
                .update_mappings(&body)
                .map_err(|e| EsError::from(e).in_index(index.name()))?;
        }
        return Ok(Reply::ok(json!({"acknowledged": true})));
    }
    let mut out = Map::new();
    for index in indices {
        out.insert(
            index.name().to_string(),
            json!({"mappings": index.mappings().to_json()}),
        );
    }
    Ok(Reply::ok(Value::Object(out)))
}

/// `[/<index>]/_settings`: get, or update dynamic settings (`PUT`).
pub fn settings(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let indices = resolve_with(node, expression, req)?;
    if req.method == Method::PUT {
        let mut body = req.required_json_body()?;
        if let Some(inner) = body.get_mut("settings").map(Value::take) {
            body = inner;
        }
        for index in &indices {
            index
                .update_settings(&body)
                .map_err(|e| EsError::from(e).in_index(index.name()))?;
        }
        return Ok(Reply::ok(json!({"acknowledged": true})));
    }
    let mut out = Map::new();
    for index in indices {
        out.insert(
            index.name().to_string(),
            json!({"settings": index.settings().to_json(index.name())}),
        );
    }
    Ok(Reply::ok(Value::Object(out)))
}

/// `[/<index>]/_refresh`.
pub fn refresh(node: &Node, expression: Option<&str>) -> Result<Reply> {
    let indices = resolve(node, expression)?;
    for index in &indices {
        index.refresh()?;
    }
    Ok(Reply::ok(json!({"_shards": broadcast_shards(&indices)})))
}

/// `[/<index>]/_flush`.
pub fn flush(node: &Node, expression: Option<&str>) -> Result<Reply> {
    let indices = resolve(node, expression)?;
    for index in &indices {
        index.flush()?;
    }
    Ok(Reply::ok(json!({"_shards": broadcast_shards(&indices)})))
}

/// `[/<index>]/_forcemerge` (`max_num_segments`, default 1).
pub fn force_merge(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let max = req.u64_param("max_num_segments")?.unwrap_or(1).max(1) as usize;
    let indices = resolve(node, expression)?;
    for index in &indices {
        index.force_merge(max)?;
    }
    Ok(Reply::ok(json!({"_shards": broadcast_shards(&indices)})))
}

/// `[/<index>]/_cache/clear`. The one cache the engine keeps is the node's
/// block cache of persisted segment files (`search_cache_size`); this
/// drops the blocks of the indices named (all of them without a name), so
/// a benchmark can start cold without a restart. tantivy's per-segment
/// readers are not caches and are kept. The reply is Elasticsearch's
/// broadcast shape over the indices named.
pub fn cache_clear(node: &Node, expression: Option<&str>) -> Result<Reply> {
    let indices = resolve(node, expression)?;
    let cache = &node.catalog.storage().cache;
    match expression {
        None => cache.clear(),
        Some(_) => indices.iter().for_each(|index| index.clear_cache(cache)),
    }
    Ok(Reply::ok(json!({"_shards": broadcast_shards(&indices)})))
}
