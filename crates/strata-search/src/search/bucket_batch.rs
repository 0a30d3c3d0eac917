//! [`BucketBatch`]: the buckets of one `terms`, `histogram`,
//! `date_histogram` or `range` result described by what selects each
//! one's documents from a single field's values (a term, or a range of
//! numbers), so that sub-aggregations computed after tantivy's pass
//! (`percentiles`, `percentile_ranks`, `boxplot`,
//! `median_absolute_deviation`) are computed for all the buckets
//! in one scan of the enclosing bucket's documents rather than one
//! search per bucket (`deferred` asks for it, `scan_aggs::run_batch`
//! scans).
//!
//! A batch is only made where that selection is exactly the bucket's:
//! no `missing` bucket, no `missing` on the `terms`, keys that are plain
//! strings or numbers. Elsewhere the per-bucket searches remain.

use serde_json::Value;

use super::agg_shape::AggShape;
use super::agg_tree::{AggNode, TypedParams};

/// What selects one bucket's documents: a value of the field equal to
/// the key, or within `[low, high)`.
#[derive(Debug, Clone, PartialEq)]
pub enum BucketKey {
    /// A keyword (or ip) term.
    Text(String),
    /// A number (a date in epoch milliseconds, a boolean as 0 or 1).
    Number(f64),
    /// `[low, high)`, open ends infinite.
    Range(f64, f64),
}

/// The buckets of one result, in order, by the field that selects them.
#[derive(Debug, Clone, PartialEq)]
pub struct BucketBatch {
    /// The bucket aggregation's field.
    pub field: String,
    /// One per bucket, in the result's order.
    pub keys: Vec<BucketKey>,
}

impl BucketBatch {
    /// The batch of `shape`'s `buckets` (as tantivy's result has them,
    /// before reshaping), when each is selected by its key alone.
    pub fn of(shape: &AggShape, buckets: &[&mut Value]) -> Option<BucketBatch> {
        let field = shape.field.clone()?;
        if shape.missing.is_some() || buckets.is_empty() {
            return None;
        }
        // A range holding `missing` also has the documents without the
        // field, which no value selects.
        let numbers = shape
            .number_range
            .as_ref()
            .map(|r| r.ranges.counts_missing());
        let dates = shape.date_range.as_ref().map(|r| r.ranges.counts_missing());
        if numbers.or(dates) == Some(true) {
            return None;
        }
        let keys = buckets
            .iter()
            .map(|bucket| key_of(shape, bucket))
            .collect::<Option<Vec<_>>>()?;
        Some(BucketBatch { field, keys })
    }
}

/// The key selecting `bucket` of `shape`.
fn key_of(shape: &AggShape, bucket: &Value) -> Option<BucketKey> {
    let key = bucket.get("key");
    match shape.kind.as_str() {
        "terms" => {
            if shape.terms.as_ref()?.request.missing.is_some() {
                return None;
            }
            match key? {
                Value::String(s) => Some(BucketKey::Text(s.clone())),
                Value::Number(n) => n.as_f64().map(BucketKey::Number),
                _ => None,
            }
        }
        "histogram" => {
            let low = key?.as_f64()?;
            Some(BucketKey::Range(low, low + shape.interval?))
        }
        "date_histogram" => {
            let low = key?.as_i64()?;
            let high = shape.date_histogram.as_ref()?.bucket_end(low);
            Some(BucketKey::Range(low as f64, high as f64))
        }
        "range" if shape.date_range.is_none() => {
            let bound = |k: &str, open: f64| match bucket.get(k) {
                None | Some(Value::Null) => Some(open),
                Some(v) => v.as_f64(),
            };
            Some(BucketKey::Range(
                bound("from", f64::NEG_INFINITY)?,
                bound("to", f64::INFINITY)?,
            ))
        }
        _ => None,
    }
}

/// Whether `node` (a deferred sub-aggregation) can be computed in a
/// batch: a `percentiles`, `percentile_ranks`, `boxplot` or
/// `median_absolute_deviation` (the scans' digests).
pub fn batched(node: &AggNode) -> bool {
    matches!(
        node.typed,
        TypedParams::Percentiles(_) | TypedParams::PercentileRanks(_) | TypedParams::Spread(_)
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_of_ranges_and_numbers() {
        let mut shape = AggShape::new("h", "histogram");
        shape.field = Some("n".into());
        shape.interval = Some(5.0);
        let (mut a, mut b) = (json!({"key": 0.0}), json!({"key": 5.0}));
        let batch = BucketBatch::of(&shape, &[&mut a, &mut b]).unwrap();
        assert_eq!(
            batch.keys,
            [BucketKey::Range(0.0, 5.0), BucketKey::Range(5.0, 10.0)]
        );
        let mut shape = AggShape::new("r", "range");
        shape.field = Some("n".into());
        let mut r = json!({"key": "*-3.0", "to": 3.0});
        let batch = BucketBatch::of(&shape, &[&mut r]).unwrap();
        assert_eq!(batch.keys, [BucketKey::Range(f64::NEG_INFINITY, 3.0)]);
        // No field, no buckets: no batch.
        assert!(BucketBatch::of(&AggShape::new("x", "terms"), &[&mut a]).is_none());
    }
}
