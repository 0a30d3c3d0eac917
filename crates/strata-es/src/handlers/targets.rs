//! Index expressions resolved to the indices they name, under the
//! request's (or an `_msearch` header's) `ignore_unavailable`,
//! `allow_no_indices` and `expand_wildcards`.

use std::sync::Arc;

use serde_json::Value;
use strata_search::{IndicesOptions, SearchIndex};

use crate::error::{EsError, Result};
use crate::node::Node;
use crate::request::EsRequest;

/// Resolves an index expression from the path (`None`: every index).
pub(crate) fn resolve(node: &Node, expression: Option<&str>) -> Result<Vec<Arc<SearchIndex>>> {
    Ok(node.catalog.resolve(expression.unwrap_or("_all"))?)
}

/// [`resolve`] under the request's `expand_wildcards`,
/// `ignore_unavailable` and `allow_no_indices`.
pub(crate) fn resolve_with(
    node: &Node,
    expression: Option<&str>,
    req: &EsRequest,
) -> Result<Vec<Arc<SearchIndex>>> {
    let options = indices_options(req)?;
    Ok(node
        .catalog
        .resolve_targets_with(expression.unwrap_or("_all"), options)?
        .into_iter()
        .map(|t| t.index)
        .collect())
}

/// `_shards` of a broadcast operation over `indices`: each primary
/// answers; configured replicas do not exist on a single node.
pub(crate) fn broadcast_shards(indices: &[Arc<SearchIndex>]) -> Value {
    let (mut total, mut ok) = (0u64, 0u64);
    for index in indices {
        let s = index.settings();
        ok += u64::from(s.number_of_shards);
        total += u64::from(s.number_of_shards) * (1 + u64::from(s.number_of_replicas));
    }
    serde_json::json!({"total": total, "successful": ok, "failed": 0})
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
