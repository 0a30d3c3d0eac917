//! `cardinality` of a `keyword` or `ip` field at the top level of `aggs`, computed
//! with a per-segment table of term fingerprints (HyperLogLog coupon and
//! hash) kept across searches.
//!
//! tantivy's cardinality collects the term ordinals the matching documents
//! hold, then, per segment and per search, looks every distinct ordinal up
//! in the term dictionary to hash its bytes into a HyperLogLog coupon. For
//! a field with many distinct values (client addresses) that walks most of
//! the dictionary each time: three fifths of `content_issues`' cardinality
//! search. Here the coupons of a segment's whole dictionary are computed
//! once, in one sequential pass, and kept in a [`SegmentCache`] (as
//! Elasticsearch keeps global ordinals), so a search only indexes a table,
//! for an exact count as for a sketch.
//! Where part of a large dictionary is touched and no table is cached,
//! the terms touched are looked up as tantivy does, and the table is left
//! to a background thread (`warming.rs`), which also builds the tables of
//! the segments the search did not touch.
//!
//! The count is exact up to `precision_threshold` distinct values and a
//! sketch of the precision Elasticsearch derives from it beyond
//! ([`distinct_count`](super::distinct_count)).
//!
//! [`SegmentCache`]: crate::query::segment_cache::SegmentCache

mod collector;
mod coupons;
mod plan;
mod warming;

#[cfg(test)]
mod tests;

pub use collector::{DistinctTermsCollector, DistinctTermsFruit};
pub use plan::DistinctTerms;

use serde_json::{json, Map, Value};

use super::aggs::AggShape;
use crate::mapping::{FieldType, Mappings};

/// Takes the `cardinality` aggregations this module computes out of
/// `request` (tantivy's translated top-level aggregations, whose shapes
/// are `shapes`): those on a `keyword` or `ip` field (kept as text, one
/// string column) with no other parameter.
pub fn split(request: &mut Value, shapes: &[AggShape], mappings: &Mappings) -> Vec<DistinctTerms> {
    let Some(out) = request.as_object_mut() else {
        return Vec::new();
    };
    let mut taken = Vec::new();
    for shape in shapes {
        if shape.kind != "cardinality" {
            continue;
        }
        let keyword = shape
            .field
            .as_deref()
            .and_then(|f| mappings.leaf(f))
            .is_some_and(|l| matches!(l.ty, FieldType::Keyword | FieldType::Ip));
        let params = out
            .get(&shape.name)
            .and_then(|r| r.get("cardinality"))
            .and_then(Value::as_object)
            .filter(|p| p.keys().all(|k| k == "field" || k == "precision_threshold"));
        let column = params
            .and_then(|p| p.get("field"))
            .and_then(Value::as_str)
            .map(str::to_string);
        // Translation wrote the parsed threshold (`CardinalityParams`).
        let threshold = params
            .and_then(|p| p.get("precision_threshold"))
            .and_then(Value::as_u64);
        if let (true, Some(column), Some(threshold)) = (keyword, column, threshold) {
            out.remove(&shape.name);
            taken.push(DistinctTerms {
                name: shape.name.clone(),
                column,
                threshold,
            });
        }
    }
    taken
}

/// The results keyed by aggregation name, in tantivy's final shape.
pub fn into_json(plans: &[DistinctTerms], fruit: DistinctTermsFruit) -> Map<String, Value> {
    plans
        .iter()
        .zip(fruit.estimates(plans.len()))
        .map(|(plan, estimate)| (plan.name.clone(), json!({ "value": estimate })))
        .collect()
}
