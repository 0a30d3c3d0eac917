//! `POST /<index>/_disk_usage?run_expensive_tasks=true`: the bytes of each
//! field by structure, Elasticsearch's analyze-disk-usage API (the split
//! between fields is an estimate, as there; `strata_search`'s
//! `index::disk_usage` says how it is made).
//!
//! `flush` (default true) flushes the indices first, so that what is
//! only in the translog is counted; the primaries are analyzed.

use serde_json::{json, Map, Value};
use strata_search::FieldDiskUsage;

use super::stats::human_bytes;
use super::targets::resolve_with;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `POST /<index>/_disk_usage`.
pub fn disk_usage(node: &Node, expression: &str, req: &EsRequest) -> Result<Reply> {
    if !req.flag("run_expensive_tasks", false)? {
        return Err(EsError::IllegalArgument(
            "analyzing the disk usage of an index is expensive and resource-intensive, the \
             parameter [run_expensive_tasks] must be set to [true] in order for the task to be \
             performed."
                .into(),
        ));
    }
    let flush = req.flag("flush", true)?;
    let indices = resolve_with(node, Some(expression), req)?;
    let mut body = Map::new();
    let mut shards = 0u64;
    for index in &indices {
        if flush {
            index.flush()?;
        }
        let usage = index.disk_usage()?;
        shards += usage.shards as u64;
        let fields: Map<String, Value> = usage
            .fields
            .iter()
            .map(|(name, field)| (name.clone(), field_json(field)))
            .collect();
        let mut entry = json!({
            "store_size": human_bytes(usage.store_size_bytes),
            "store_size_in_bytes": usage.store_size_bytes,
            "all_fields": field_json(&usage.all_fields()),
        });
        entry["fields"] = Value::Object(fields);
        body.insert(index.name().to_owned(), entry);
    }
    let mut reply = Map::new();
    reply.insert(
        "_shards".into(),
        json!({"total": shards, "successful": shards, "failed": 0}),
    );
    reply.extend(body);
    Ok(Reply::ok(Value::Object(reply)))
}

/// One field's entry (or `all_fields`) as Elasticsearch writes it:
/// points, term vectors and kNN vectors are always 0 here.
fn field_json(f: &FieldDiskUsage) -> Value {
    let mut out = json!({
        "total": human_bytes(f.total()),
        "total_in_bytes": f.total(),
        "inverted_index": {
            "total": human_bytes(f.inverted_index),
            "total_in_bytes": f.inverted_index,
        },
    });
    for (name, bytes) in [
        ("stored_fields", f.stored_fields),
        ("doc_values", f.doc_values),
        ("points", 0),
        ("norms", f.norms),
        ("term_vectors", 0),
        ("knn_vectors", 0),
    ] {
        out[name] = json!(human_bytes(bytes));
        out[format!("{name}_in_bytes")] = json!(bytes);
    }
    out
}
