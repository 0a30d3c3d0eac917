//! `rate` in tantivy's pass: a rate over a field is that field's `sum` (or
//! `value_count`) in tantivy's request, divided when the result is
//! reshaped; a rate of documents asks tantivy for nothing and divides its
//! bucket's `doc_count`. The divisor was placed by the tree's check
//! (`agg_tree/rate.rs`): a constant, or the length of the date histogram
//! bucket the rate sits directly in, read from that bucket's key.

use serde_json::{json, Map, Value};

use super::agg_shape::AggShape;
use super::agg_tree::{RateDivisor, RateMode, RateParams};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::store::KEYWORDS;

/// The shape of the `rate` `name` and tantivy's request for it (`None`:
/// documents are counted, or the field is unmapped and every rate is 0).
pub fn translate(
    name: &str,
    params: &RateParams,
    mappings: &Mappings,
) -> Result<(AggShape, Option<Value>)> {
    if params.divisor == RateDivisor::Unplaced {
        return Err(SearchError::illegal(
            "The rate aggregation can only be used inside a date histogram aggregation or composite aggregation with one date histogram value source",
        ));
    }
    let mut shape = AggShape::new(name, "rate");
    shape.rate = Some(params.clone());
    let Some(field) = &params.field else {
        return Ok((shape, None));
    };
    let Some(leaf) = mappings.leaf(field) else {
        return Ok((shape, None));
    };
    if !(leaf.ty.is_integer() || leaf.ty.is_float()) {
        return Err(SearchError::illegal(format!(
            "Field [{field}] of type [{}] is not supported for aggregation [rate]",
            leaf.ty.name()
        )));
    }
    let mut body = Map::new();
    body.insert("field".into(), json!(format!("{KEYWORDS}.{field}")));
    if let Some(missing) = params.missing {
        body.insert("missing".into(), json!(missing));
    }
    let kind = match params.mode {
        RateMode::ValueCount => "value_count",
        RateMode::Sum | RateMode::Documents => "sum",
    };
    shape.field = Some(field.clone());
    Ok((shape, Some(json!({ kind: body }))))
}

/// Puts the rate of `shape` into `bucket` (the object holding its result
/// and, for a rate of documents, the `doc_count` it divides): `{"value":
/// total / divisor}`, 0 for a bucket with nothing to count.
pub fn reshape(bucket: &mut Value, shape: &AggShape) {
    let Some(params) = &shape.rate else {
        return;
    };
    let total = match params.mode {
        RateMode::Documents => bucket.get("doc_count").and_then(Value::as_f64),
        RateMode::Sum | RateMode::ValueCount => bucket
            .get(&shape.name)
            .and_then(|r| r.get("value"))
            .and_then(Value::as_f64),
    }
    .unwrap_or(0.0);
    let key = bucket.get("key").and_then(Value::as_f64).map(|k| k as i64);
    let value = match params.divisor.for_bucket(key) {
        Some(divisor) if divisor != 0.0 => json!(total / divisor),
        _ => Value::Null,
    };
    if let Some(out) = bucket.as_object_mut() {
        out.insert(shape.name.clone(), json!({ "value": value }));
    }
}
