//! The scaling of a `random_sampler`'s sub-aggregation results, on their
//! JSON, as Elasticsearch's `finalizeSampling` scales its internal
//! results (each kind's rule is [`SampleScale`]): counts become
//! `Math.round(count * (1 / p))`, sums `sum / p`; bucket aggregations
//! scale each bucket's `doc_count` and scale the buckets' own
//! sub-aggregations in turn.

use serde_json::{json, Map, Value};

use super::agg_tree::{AggKind, AggNode, SampleScale, TypedParams};
use super::extended_stats;
use super::java_double::java_number;
use crate::error::{Result, SearchError};

/// Scales the results `results` (by name) of the aggregations `nodes` of
/// one level sampled with probability `p` (< 1).
pub(crate) fn scale_level(
    nodes: &[AggNode],
    results: &mut Map<String, Value>,
    p: f64,
) -> Result<()> {
    for node in nodes {
        // A pipeline computed later has no result yet.
        let Some(Value::Object(result)) = results.get_mut(&node.name) else {
            continue;
        };
        let rule = SampleScale::of(node.kind).ok_or_else(|| refused(node, "no scaling rule"))?;
        match rule {
            SampleScale::Buckets => scale_buckets(node, result, p)?,
            SampleScale::Sum => {
                unformatted(node, result)?;
                scale_sum(result, "value", p);
            }
            SampleScale::Count => scale_count(result, "value", p),
            SampleScale::Centroid => scale_count(result, "count", p),
            SampleScale::Stats => {
                unformatted(node, result)?;
                scale_stats(node, result, p);
            }
            SampleScale::Kept | SampleScale::Later => {}
        }
    }
    Ok(())
}

/// `stats`' and `extended_stats`' count, sum (and sum of squares)
/// scaled, and what they derive from them written again: the mean, and
/// the extended statistics (`extended_stats`).
fn scale_stats(node: &AggNode, result: &mut Map<String, Value>, p: f64) {
    scale_count(result, "count", p);
    scale_sum(result, "sum", p);
    let count = num(result, "count").unwrap_or(0.0);
    let sum = num(result, "sum").unwrap_or(0.0);
    // `InternalStats`' avg is its (scaled) sum over its count.
    let avg = match count > 0.0 {
        true => java_number(sum / count),
        false => Value::Null,
    };
    result.insert("avg".into(), avg);
    if let TypedParams::Metric(m) = &node.typed {
        if node.kind == AggKind::ExtendedStats {
            scale_sum(result, "sum_of_squares", p);
            let squares = num(result, "sum_of_squares").unwrap_or(0.0);
            let sigma = m.sigma.unwrap_or(2.0);
            result.extend(extended_stats::derived(count as u64, sum, squares, sigma));
        }
    }
}

/// A bucket aggregation's result: a single bucket (`filter`) or its
/// `buckets` (an array, or an object when keyed), each scaled with its
/// sub-aggregations; a `terms`' error bound and other documents' count.
fn scale_buckets(node: &AggNode, result: &mut Map<String, Value>, p: f64) -> Result<()> {
    if node.kind == AggKind::Filter {
        return scale_bucket(node, result, p);
    }
    if node.kind == AggKind::Terms {
        scale_count(result, "doc_count_error_upper_bound", p);
        scale_count(result, "sum_other_doc_count", p);
    }
    let buckets: Vec<&mut Value> = match result.get_mut("buckets") {
        Some(Value::Array(b)) => b.iter_mut().collect(),
        Some(Value::Object(b)) => b.values_mut().collect(),
        _ => Vec::new(),
    };
    for bucket in buckets {
        if let Value::Object(bucket) = bucket {
            scale_bucket(node, bucket, p)?;
        }
    }
    Ok(())
}

/// One bucket of `node`: its `doc_count`, a `terms` bucket's error bound,
/// and its sub-aggregations.
fn scale_bucket(node: &AggNode, bucket: &mut Map<String, Value>, p: f64) -> Result<()> {
    scale_count(bucket, "doc_count", p);
    scale_count(bucket, "doc_count_error_upper_bound", p);
    scale_level(&node.subs, bucket, p)
}

/// `SamplingContext.scaleUp(long)`: `Math.round(value * (1.0 / p))`
/// (half up), for the count at `key` if there is one.
fn scale_count(obj: &mut Map<String, Value>, key: &str, p: f64) {
    if let Some(v) = num(obj, key) {
        let scaled = (v * (1.0 / p) + 0.5).floor();
        let out = if scaled >= 0.0 {
            json!(scaled as u64)
        } else {
            json!(scaled as i64)
        };
        obj.insert(key.into(), out);
    }
}

/// `SamplingContext.scaleUp(double)`: `value / p`, for the number at
/// `key` if there is one.
fn scale_sum(obj: &mut Map<String, Value>, key: &str, p: f64) {
    if let Some(v) = num(obj, key) {
        obj.insert(key.into(), java_number(v / p));
    }
}

fn num(obj: &Map<String, Value>, key: &str) -> Option<f64> {
    obj.get(key).and_then(Value::as_f64)
}

/// Refuses a scaled metric written with `*_as_string` values (a `format`,
/// or a date field): they would no longer match the scaled numbers.
fn unformatted(node: &AggNode, result: &Map<String, Value>) -> Result<()> {
    match result.keys().any(|k| k.ends_with("_as_string")) {
        true => Err(refused(node, "formatted values")),
        false => Ok(()),
    }
}

fn refused(node: &AggNode, what: &str) -> SearchError {
    SearchError::illegal(format!(
        "[random_sampler]: sampling [{}] aggregation [{}] with {what} is not supported by this server",
        node.kind.name(),
        node.name
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::search::agg_tree::AggTree;

    /// `results` of the sampler's sub-aggregations `aggs`, scaled by `p`.
    fn scaled(aggs: Value, results: Value, p: f64) -> Result<Value> {
        let tree = AggTree::parse(aggs)?;
        let Value::Object(mut results) = results else {
            panic!("not an object")
        };
        scale_level(tree.nodes(), &mut results, p)?;
        Ok(Value::Object(results))
    }

    #[test]
    fn counts_and_sums_scale_extremes_and_means_do_not() {
        let aggs = json!({
            "t": {"terms": {"field": "k"}, "aggs": {"s": {"sum": {"field": "x"}}}},
            "st": {"stats": {"field": "x"}},
            "c": {"value_count": {"field": "x"}},
            "mx": {"max": {"field": "x"}},
            "a": {"avg": {"field": "x"}}
        });
        let results = json!({
            "t": {"doc_count_error_upper_bound": 0, "sum_other_doc_count": 3,
                  "buckets": [{"key": "a", "doc_count": 5, "s": {"value": 1.5}}]},
            "st": {"count": 3, "sum": 6.0, "min": 1.0, "max": 3.0, "avg": 2.0},
            "c": {"value": 3},
            "mx": {"value": 3.0},
            "a": {"value": 2.0}
        });
        let out = scaled(aggs, results.clone(), 0.1).unwrap();
        let t = &out["t"];
        assert_eq!(t["sum_other_doc_count"], json!(30));
        assert_eq!(t["buckets"][0]["doc_count"], json!(50));
        assert_eq!(t["buckets"][0]["s"]["value"], json!(15.0));
        let st = &out["st"];
        assert_eq!((&st["count"], &st["sum"]), (&json!(30), &json!(60.0)));
        assert_eq!(out["c"]["value"], json!(30));
        // Extremes and means as sampled.
        for (agg, key) in [
            ("st", "min"),
            ("st", "max"),
            ("st", "avg"),
            ("mx", "value"),
            ("a", "value"),
        ] {
            assert_eq!(out[agg][key], results[agg][key], "{agg}.{key}");
        }
    }

    #[test]
    fn counts_round_half_up_and_keyed_buckets_scale() {
        let aggs = json!({"h": {"histogram": {"field": "x", "interval": 1, "keyed": true}},
            "f": {"filter": {"term": {"k": "a"}}, "aggs": {"c": {"value_count": {"field": "x"}}}}});
        let results = json!({"h": {"buckets": {"1.0": {"key": 1.0, "doc_count": 1}}},
            "f": {"doc_count": 3, "c": {"value": 1}}});
        let out = scaled(aggs, results, 0.4).unwrap();
        // 1 / 0.4 = 2.5, rounded up; 3 / 0.4 = 7.5.
        assert_eq!(out["h"]["buckets"]["1.0"]["doc_count"], json!(3));
        assert_eq!(out["f"]["doc_count"], json!(8));
        assert_eq!(out["f"]["c"]["value"], json!(3));
    }

    #[test]
    fn formatted_sums_are_refused() {
        let aggs = json!({"s": {"sum": {"field": "x", "format": "0.0"}}});
        let results = json!({"s": {"value": 1.0, "value_as_string": "1.0"}});
        let e = scaled(aggs, results, 0.1).unwrap_err().to_string();
        assert!(e.contains("formatted values"), "{e}");
    }
}
