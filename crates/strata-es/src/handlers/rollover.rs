//! `POST /<alias>/_rollover[/<new_index>]` with `conditions`, `dry_run`
//! and the new index's `settings`, `mappings`, `aliases`; the engine
//! (`strata_search::rollover`) decides and acts.

use serde_json::{json, Map, Value};

use crate::error::Result;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `POST /<alias>/_rollover[/<new_index>]`.
pub fn rollover(
    node: &Node,
    alias: &str,
    new_index: Option<&str>,
    req: &EsRequest,
) -> Result<Reply> {
    let (body, next) = crate::data_streams::rollover_args(node, alias, req.json_body()?)?;
    let new_index = new_index.or(next.as_deref());
    let dry_run = req.flag("dry_run", false)?;
    let outcome = node.catalog.rollover(alias, new_index, &body, dry_run)?;
    let conditions: Map<String, Value> = outcome
        .conditions
        .iter()
        .map(|(k, met)| (k.clone(), json!(met)))
        .collect();
    Ok(Reply::ok(json!({
        "acknowledged": outcome.rolled_over,
        "shards_acknowledged": outcome.rolled_over,
        "old_index": outcome.old_index,
        "new_index": outcome.new_index,
        "rolled_over": outcome.rolled_over,
        "dry_run": dry_run,
        "lazy": false,
        "conditions": conditions,
    })))
}
