//! Sub-aggregations below runtime-field `terms`, `histogram` and `range`:
//! one search pass per bucket over the search query narrowed to the
//! bucket's documents (a `term` or `range` query on the runtime field,
//! which `script::runtime_query` evaluates per document), its
//! aggregations put into the bucket, as `deferred` does for mapped fields.
//! The passes are bounded by the buckets returned, which
//! `search.max_buckets` bounds.

use serde_json::{json, Map, Value};

use super::plan::{Kind, RuntimeAgg};
use crate::error::Result;
use crate::search::agg_tree::AggTree;

/// Runs a pass: the search narrowed by a filter (first argument) with the
/// given aggregations (as parsed); its `aggregations` object.
pub(crate) type SubPass<'a> = dyn Fn(Value, &AggTree) -> Result<Value> + 'a;

/// Fills the buckets of `aggs` (rendered in `results`, by name) that have
/// sub-aggregations with their results, one `run` per bucket.
pub(crate) fn fill(
    aggs: &[RuntimeAgg],
    results: &mut Map<String, Value>,
    run: &SubPass<'_>,
) -> Result<()> {
    for agg in aggs {
        let Some(sub) = &agg.sub else { continue };
        let Some(buckets) = results
            .get_mut(&agg.name)
            .and_then(|r| r.get_mut("buckets"))
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        for bucket in buckets.iter_mut() {
            let Some(filter) = bucket_filter(agg, bucket) else {
                continue;
            };
            if let (Value::Object(into), Value::Object(found)) = (bucket, run(filter, sub)?) {
                into.extend(found);
            }
        }
    }
    Ok(())
}

/// The query matching the documents of `bucket`.
fn bucket_filter(agg: &RuntimeAgg, bucket: &Value) -> Option<Value> {
    let field = &agg.field;
    match &agg.kind {
        Kind::Terms { .. } => {
            // Booleans match by their string form; other keys as written.
            let key = match bucket.get("key_as_string") {
                Some(text) if bucket["key"].is_number() && text.is_string() => {
                    match text.as_str() {
                        Some("true") | Some("false") => text.clone(),
                        _ => bucket["key"].clone(),
                    }
                }
                _ => bucket["key"].clone(),
            };
            Some(json!({"term": {field: {"value": key}}}))
        }
        Kind::Histogram { interval, .. } => {
            let key = bucket["key"].as_f64()?;
            Some(json!({"range": {field: {"gte": key, "lt": key + interval}}}))
        }
        Kind::Range(_) => {
            let mut bounds = Map::new();
            if let Some(from) = bucket.get("from").filter(|v| v.is_number()) {
                bounds.insert("gte".into(), from.clone());
            }
            if let Some(to) = bucket.get("to").filter(|v| v.is_number()) {
                bounds.insert("lt".into(), to.clone());
            }
            Some(json!({"range": {field: bounds}}))
        }
        Kind::Metric(_) | Kind::Cardinality => None,
    }
}
