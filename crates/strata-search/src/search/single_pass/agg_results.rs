//! The aggregation results of one search pass put into its response:
//! tantivy's merged results reshaped (with Strata's own aggregations and
//! the per-bucket passes of deferred sub-aggregations), then the
//! top-level deferred, runtime-field and geo aggregations.

use std::sync::Arc;

use serde_json::{Map, Value};
use tantivy::aggregation::agg_req::Aggregations;
use tantivy::aggregation::intermediate_agg_result::IntermediateAggregationResults;
use tantivy::aggregation::AggregationLimitsGuard;

use super::super::agg_tree::{AggNode, AggTree};
use super::super::geo_aggs::{GeoAggs, GeoFruit};
use super::super::reentry::Reentry;
use super::super::request::SearchRequest;
use super::super::runtime_aggs::{self, RuntimeAgg, RuntimeAggsFruit};
use super::super::{aggs, deferred, own_aggs, passes};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;

/// What a pass's query phase left of its aggregations.
pub(super) struct PassAggs {
    /// tantivy's request (`None`: nothing for tantivy to compute).
    pub request: Option<Aggregations>,
    /// tantivy's results merged over the shards.
    pub merged: Option<IntermediateAggregationResults>,
    /// The memory and bucket limits tantivy's results were computed under.
    pub limits: AggregationLimitsGuard,
    /// How to reshape tantivy's results into Elasticsearch's.
    pub shapes: Vec<aggs::AggShape>,
    /// Top-level aggregations run in passes of their own, as parsed.
    pub top_deferred: Vec<AggNode>,
    /// Strata's own aggregations computed beside tantivy's.
    pub own: own_aggs::OwnAggs,
    /// Their merged results.
    pub own_part: own_aggs::OwnPart,
    /// Aggregations over runtime fields.
    pub runtime: Arc<Vec<RuntimeAgg>>,
    /// Their merged results.
    pub runtime_fruit: RuntimeAggsFruit,
    /// Geo aggregations.
    pub geo: GeoAggs,
    /// Their merged results (`None` when there are none).
    pub geo_fruit: Option<GeoFruit>,
}

/// Puts `aggs`' results under `response`'s `aggregations`, running the
/// extra passes (per bucket, deferred, runtime sub-aggregations) they need.
pub(super) fn fill(
    response: &mut Value,
    reentry: Reentry,
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    parts: PassAggs,
) -> Result<()> {
    let runner = |filters: &[deferred::BucketFilter], node: &AggNode| {
        passes::run_deferred(reentry, indices, req, filters, node)
    };
    let batch = |filters: &[deferred::BucketFilter], batch: &_, nodes: &[AggNode]| {
        passes::run_batch(reentry, indices, req, filters, batch, nodes)
    };
    let distinct = |filters: &[deferred::BucketFilter], node: &AggNode| {
        passes::run_distinct(reentry, indices, req, filters, node)
    };
    let mut scope = deferred::BucketScope::new(&runner)
        .with_batch(&batch)
        .with_distinct(&distinct);
    let digests = crate::search::own_aggs::digest_bytes(&parts.own_part);
    req.memory.reserve(digests, "<agg [percentiles]>")?;
    if let Some(agg_req) = parts.request {
        let merged = parts.merged.unwrap_or_default();
        let final_result = merged
            .into_final_result(agg_req, parts.limits)
            .map_err(|e| passes::agg_error(e, &req.memory))?;
        let mut value =
            serde_json::to_value(&final_result).map_err(|e| SearchError::illegal(e.to_string()))?;
        if let Value::Object(out) = &mut value {
            out.extend(parts.own.results(parts.own_part)?);
        }
        aggs::reshape(&mut value, &parts.shapes, &mut scope)?;
        response["aggregations"] = value;
    } else if !parts.shapes.is_empty() {
        // Only deferred or split-out aggregations below these shapes.
        let mut value = Value::Object(parts.own.results(parts.own_part)?);
        aggs::reshape(&mut value, &parts.shapes, &mut scope)?;
        response["aggregations"] = value;
    }
    for node in &parts.top_deferred {
        let result = runner(&[], node)?;
        if let Some(out) = aggregations(response) {
            out.insert(node.name.clone(), result);
        }
    }
    if !parts.runtime.is_empty() {
        let mut results = runtime_aggs::into_json(&parts.runtime, parts.runtime_fruit)?;
        let pass = |filter, sub: &AggTree| passes::run_filtered(reentry, indices, req, filter, sub);
        runtime_aggs::fill_sub_aggs(&parts.runtime, &mut results, &pass)?;
        if let Some(out) = aggregations(response) {
            out.extend(results);
        }
    }
    if let Some(fruit) = parts.geo_fruit {
        if let Some(out) = aggregations(response) {
            out.extend(fruit.into_json(&parts.geo));
        }
    }
    Ok(())
}

/// `response`'s `aggregations` object, made an empty one first when it
/// is not one (so the `None` never comes).
fn aggregations(response: &mut Value) -> Option<&mut Map<String, Value>> {
    let slot = &mut response["aggregations"];
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut()
}
