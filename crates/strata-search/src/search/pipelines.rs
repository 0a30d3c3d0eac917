//! Parent pipeline aggregations, computed over the buckets of the
//! aggregation they sit in once its buckets are final:
//!
//! - `derivative` (in a `histogram` or `date_histogram`): each bucket's
//!   value minus the previous bucket's; with `unit`, also per unit of the
//!   keys (`normalized_value`).
//! - `cumulative_sum` (same parents): the running total.
//! - `serial_diff` (same parents): each bucket's value minus the value
//!   `lag` buckets before, where both exist.
//! - `normalize` (same parents): each bucket's value rescaled against
//!   all the buckets' values by its `method` (`search::normalize`).
//! - `cumulative_cardinality` (same parents): written before these by
//!   `deferred`, which reads the buckets' distinct values
//!   (`search::cumulative_cardinality`).
//! - `bucket_sort` (any multi-bucket parent): sorts by `sort` paths, then
//!   keeps `size` buckets from `from`.
//!
//! `buckets_path` reads `_count`, `_key`, a metric (`sales`), a value of a
//! multi-value metric (`stats.avg`, `pct.99`) through single-bucket
//! aggregations (`filtered>sales`). `gap_policy` (`skip`, `insert_zeros`,
//! `keep_values`) says what a missing value or an empty bucket counts as,
//! as in Elasticsearch.
//!
//! Their parameters are typed, and checked against their parent, when the
//! request is parsed ([`PipelineParams`]); this module only computes them.

use std::cmp::Ordering;

use serde_json::{json, Value};

use super::agg_tree::{AggNode, GapPolicy, NormalizeMethod, PipelineParams, SortKey, TypedParams};
use super::decimal_format::DecimalFormat;

/// Takes the pipeline aggregations out of the sub-aggregations `subs` of
/// an aggregation; returns the other sub-aggregations and the pipelines
/// (name, parameters). The tree's parse has checked them against their
/// parent and refused sub-aggregations under a pipeline.
pub fn split(subs: &[AggNode]) -> PipelineSplit<'_> {
    let mut rest = Vec::new();
    let mut pipes = Vec::new();
    for node in subs {
        match &node.typed {
            TypedParams::Pipeline(p) => pipes.push((node.name.clone(), p.clone())),
            _ => rest.push(node),
        }
    }
    (rest, pipes)
}

/// What [`split`] returns.
pub type PipelineSplit<'n> = (Vec<&'n AggNode>, Vec<(String, PipelineParams)>);

/// Calls `f` on every object of aggregation results that `path` (names
/// of aggregations from `scope` down) leads to: `scope` itself for an
/// empty path, else each bucket of the aggregation `path[0]` (or that
/// aggregation itself when it has no `buckets`: a single-bucket one holds
/// its sub-results), and so on down. Stops at the first error.
pub(crate) fn for_each_scope(
    scope: &mut Value,
    path: &[String],
    f: &mut dyn FnMut(&mut Value) -> crate::error::Result<()>,
) -> crate::error::Result<()> {
    let Some((first, rest)) = path.split_first() else {
        return f(scope);
    };
    let Some(agg) = scope.get_mut(first) else {
        return Ok(());
    };
    match agg.get_mut("buckets") {
        Some(Value::Array(buckets)) => buckets
            .iter_mut()
            .try_for_each(|b| for_each_scope(b, rest, f)),
        Some(Value::Object(buckets)) => buckets
            .values_mut()
            .try_for_each(|b| for_each_scope(b, rest, f)),
        _ => for_each_scope(agg, rest, f),
    }
}

/// The value at `path` in `bucket`, under `gap`: `None` for a gap that
/// is skipped (Elasticsearch's NaN). A document count is never a gap,
/// even an empty bucket's (Elasticsearch's `resolveBucketValue`).
pub(crate) fn resolve(bucket: &Value, path: &str, gap: GapPolicy) -> Option<f64> {
    let raw = raw_value(bucket, path);
    let empty = path != "_count" && bucket.get("doc_count").and_then(Value::as_u64) == Some(0);
    match (raw, gap) {
        (Some(v), _) if v.is_finite() && !empty => Some(v),
        (_, GapPolicy::InsertZeros) => Some(0.0),
        (Some(v), GapPolicy::KeepValues) if v.is_finite() => Some(v),
        _ => None,
    }
}

fn raw_value(bucket: &Value, path: &str) -> Option<f64> {
    match path {
        "_count" => return bucket.get("doc_count").and_then(Value::as_f64),
        "_key" => return bucket.get("key").and_then(Value::as_f64),
        _ => {}
    }
    let mut steps: Vec<&str> = path.split('>').collect();
    let last = steps.pop()?;
    let mut at = bucket;
    for step in steps {
        at = at.get(step)?;
    }
    // `agg[key]` first: a percentile's or a rank's key may hold a dot
    // (`ranks[99.5]`); then `agg.metric`.
    let bracketed = last
        .strip_suffix(']')
        .and_then(|s| s.split_once('['))
        .map(|(a, m)| (a, Some(m)));
    let (agg, metric) = match (bracketed, last.split_once('.')) {
        (Some(pair), _) => pair,
        (None, Some((a, m))) => (a, Some(m)),
        (None, None) => (last, None),
    };
    let agg = at.get(agg)?;
    match metric {
        None if agg.get("value").is_some() => agg["value"].as_f64(),
        // A single-bucket aggregation's count.
        None => agg.get("doc_count").and_then(Value::as_f64),
        Some("_count") => agg.get("doc_count").and_then(Value::as_f64),
        Some(m) => agg.get(m).and_then(Value::as_f64).or_else(|| {
            let values = agg.get("values")?;
            values.get(m).and_then(Value::as_f64).or_else(|| {
                let want: f64 = m.parse().ok()?;
                values.as_object()?.iter().find_map(|(k, v)| {
                    (k.parse::<f64>().ok()? == want)
                        .then(|| v.as_f64())
                        .flatten()
                })
            })
        }),
    }
}

/// Applies the pipelines among `children` (name, parameters) to the
/// buckets of `agg`, in request order.
pub fn apply(agg: &mut Value, children: &[(String, PipelineParams)]) {
    for (name, params) in children {
        let Some(buckets) = agg.get_mut("buckets").and_then(Value::as_array_mut) else {
            continue;
        };
        match params {
            PipelineParams::Derivative {
                buckets_path,
                gap_policy,
                unit_millis,
            } => derivative(buckets, name, buckets_path, *gap_policy, *unit_millis),
            PipelineParams::CumulativeSum { buckets_path } => {
                let mut sum = 0.0;
                for b in buckets.iter_mut() {
                    if let Some(v) = resolve(b, buckets_path, GapPolicy::InsertZeros) {
                        sum += v;
                    }
                    b[name.as_str()] = json!({"value": sum});
                }
            }
            PipelineParams::SerialDiff {
                buckets_path,
                gap_policy,
                lag,
            } => serial_diff(buckets, name, buckets_path, *gap_policy, *lag),
            PipelineParams::Normalize {
                buckets_path,
                method,
                format,
            } => normalize(buckets, name, buckets_path, *method, format.as_deref()),
            // Filled before (`cumulative_cardinality`): it needs the
            // buckets' distinct values, not their results.
            PipelineParams::CumulativeCardinality { .. } => {}
            PipelineParams::BucketSort {
                sort,
                from,
                size,
                gap_policy,
            } => bucket_sort(buckets, sort, *from, *size, *gap_policy),
        }
    }
}

/// `normalize` `name` over `buckets`: every bucket gets a value, `null`
/// for a gap (skipped, as Elasticsearch's `NormalizePipelineAggregator`
/// reads values) or a non-finite result; `value_as_string` in `format`
/// beside a finite one.
fn normalize(
    buckets: &mut [Value],
    name: &str,
    path: &str,
    method: NormalizeMethod,
    format: Option<&str>,
) {
    let values: Vec<Option<f64>> = buckets
        .iter()
        .map(|b| resolve(b, path, GapPolicy::Skip))
        .collect();
    // The pattern was checked when the request was parsed.
    let format = format.and_then(|f| DecimalFormat::parse(f).ok());
    for (b, v) in buckets.iter_mut().zip(method.apply(&values)) {
        let v = v.filter(|v| v.is_finite());
        let mut out = json!({ "value": v });
        if let (Some(v), Some(f)) = (v, &format) {
            out["value_as_string"] = json!(f.format(v));
        }
        b[name] = out;
    }
}

/// `serial_diff` `name` over `buckets`: a bucket gets a value when it
/// and the bucket `lag` before it both have one (Elasticsearch's
/// `SerialDiffPipelineAggregator`).
fn serial_diff(buckets: &mut [Value], name: &str, path: &str, gap: GapPolicy, lag: usize) {
    let values: Vec<Option<f64>> = buckets.iter().map(|b| resolve(b, path, gap)).collect();
    for (i, b) in buckets.iter_mut().enumerate() {
        let before = i.checked_sub(lag).and_then(|j| values[j]);
        if let (Some(v), Some(p)) = (values[i], before) {
            b[name] = json!({"value": v - p});
        }
    }
}

/// `derivative` `name` over `buckets`.
fn derivative(buckets: &mut [Value], name: &str, path: &str, gap: GapPolicy, unit: Option<f64>) {
    let mut last: Option<(Option<f64>, f64)> = None;
    for b in buckets.iter_mut() {
        let value = resolve(b, path, gap);
        let key = b.get("key").and_then(Value::as_f64).unwrap_or(0.0);
        if let Some((prev, prev_key)) = last {
            let gradient = match (value, prev) {
                (Some(v), Some(p)) => Some(v - p),
                _ => None,
            };
            let mut out = json!({"value": gradient});
            if let (Some(unit), Some(g)) = (unit, gradient) {
                let x = (key - prev_key) / unit;
                if x > 0.0 {
                    out["normalized_value"] = json!(g / x);
                }
            }
            b[name] = out;
        }
        last = Some((value, key));
    }
}

/// `bucket_sort` over `buckets`: sorted by `keys`, then `size` kept from
/// `from`.
fn bucket_sort(
    buckets: &mut Vec<Value>,
    keys: &[SortKey],
    from: usize,
    size: Option<usize>,
    gap: GapPolicy,
) {
    let mut rows: Vec<(Vec<SortValue>, Value)> = Vec::new();
    'bucket: for b in buckets.drain(..) {
        let mut values = Vec::with_capacity(keys.len());
        for key in keys {
            if key.path == "_key" {
                values.push(SortValue::of_key(b.get("key")));
                continue;
            }
            match resolve(&b, &key.path, gap) {
                Some(v) => values.push(SortValue::Num(v)),
                None if gap == GapPolicy::Skip => continue 'bucket,
                None => values.push(SortValue::Missing),
            }
        }
        rows.push((values, b));
    }
    rows.sort_by(|a, b| {
        for (i, key) in keys.iter().enumerate() {
            let o = a.0[i].cmp(&b.0[i], key.descending);
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    let kept = rows
        .into_iter()
        .skip(from)
        .take(size.unwrap_or(usize::MAX))
        .map(|(_, b)| b);
    buckets.extend(kept);
}

/// A `bucket_sort` key.
enum SortValue {
    Num(f64),
    Text(String),
    Missing,
}

impl SortValue {
    fn of_key(key: Option<&Value>) -> SortValue {
        match key {
            Some(Value::Number(n)) => n.as_f64().map_or(SortValue::Missing, SortValue::Num),
            Some(Value::String(s)) => SortValue::Text(s.clone()),
            _ => SortValue::Missing,
        }
    }

    /// Missing values last in either direction.
    fn cmp(&self, other: &SortValue, desc: bool) -> Ordering {
        let natural = match (self, other) {
            (SortValue::Missing, SortValue::Missing) => return Ordering::Equal,
            (SortValue::Missing, _) => return Ordering::Greater,
            (_, SortValue::Missing) => return Ordering::Less,
            (SortValue::Num(a), SortValue::Num(b)) => a.total_cmp(b),
            (SortValue::Text(a), SortValue::Text(b)) => a.cmp(b),
            (SortValue::Num(_), SortValue::Text(_)) => Ordering::Less,
            (SortValue::Text(_), SortValue::Num(_)) => Ordering::Greater,
        };
        if desc {
            natural.reverse()
        } else {
            natural
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::serial_diff;
    use crate::search::agg_tree::GapPolicy;

    /// Sums 1, 4, an empty bucket, 16, 25.
    fn buckets() -> Vec<Value> {
        [(1, 1.0), (1, 4.0), (0, 0.0), (2, 16.0), (1, 25.0)]
            .iter()
            .map(|(n, s)| json!({"doc_count": n, "s": {"value": s}}))
            .collect()
    }

    fn diffs(gap: GapPolicy, lag: usize) -> Vec<Option<f64>> {
        let mut b = buckets();
        serial_diff(&mut b, "d", "s", gap, lag);
        b.iter()
            .map(|b| b.get("d").map(|d| d["value"].as_f64().unwrap()))
            .collect()
    }

    #[test]
    fn serial_differences_need_both_values() {
        // The empty bucket is a gap: no value in it, nor `lag` buckets after it.
        assert_eq!(
            diffs(GapPolicy::Skip, 1),
            [None, Some(3.0), None, None, Some(9.0)]
        );
        assert_eq!(
            diffs(GapPolicy::Skip, 2),
            [None, None, None, Some(12.0), None]
        );
        let zeros = [None, Some(3.0), Some(-4.0), Some(16.0), Some(9.0)];
        assert_eq!(diffs(GapPolicy::InsertZeros, 1), zeros);
        assert_eq!(diffs(GapPolicy::Skip, 9), [None; 5]);
        // A count is never a gap: the empty bucket's 0 is a value.
        let mut b = buckets();
        serial_diff(&mut b, "d", "_count", GapPolicy::Skip, 1);
        let got: Vec<Option<f64>> = b
            .iter()
            .map(|b| b.get("d").map(|d| d["value"].as_f64().unwrap()))
            .collect();
        assert_eq!(got, [None, Some(0.0), Some(-1.0), Some(2.0), Some(-1.0)]);
    }
}
