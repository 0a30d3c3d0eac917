//! Percentiles and percentile ranks as Elasticsearch 8's default
//! t-digest answers them, from one digest for numbers, dates and
//! booleans ([`SpanDigest`], `span.rs`): exact for up to 2,000 values,
//! then a log histogram ([`sketch::LogHistogram`]) of offsets from a base
//! near the data's smallest value. Exact values are read as Elasticsearch
//! 8.9 and later read its sorting digest (`sorting.rs`: 1, 51, 101 and 151
//! give 38.5, 76 and 113.5 at 25, 50 and 75 percent), the histogram as it
//! reads its centroids (`tdigest.rs`).
//!
//! Three routes fill it, none a search per bucket:
//! - at the top level of a pass, [`split`] takes a `percentiles` on a
//!   numeric field whose parameters are only `field`, `percents` and
//!   `keyed` out of tantivy's request, and [`PercentilesCollector`] reads
//!   its column by blocks beside tantivy's pass;
//! - below a fixed-interval `date_histogram` taken by `time_buckets`,
//!   such a `percentiles` is a digest per bucket in that same pass;
//! - everything else (a `missing`, a `format`, a date or boolean field,
//!   other buckets, all `percentile_ranks`) is computed by `scan_aggs`:
//!   one scan at the top level or in a `filter`, one scan for all the
//!   buckets of a `terms`, `histogram`, `date_histogram` or `range`
//!   (`bucket_batch`).
//!
//! The same digest answers `boxplot` and `median_absolute_deviation`
//! ([`BoxplotStats`], [`median_absolute_deviation`]: `spread.rs`, read as
//! Elasticsearch 8.15 reads its digest for them), always by `scan_aggs`.
//!
//! All render Elasticsearch 8's reply (`values` keyed by percent or a
//! list, `null` when no document had a value; the scans add `_as_string`
//! values with a `format`).

mod collector;
mod plan;
mod sketch;
mod sorting;
mod span;
mod spread;
mod tdigest;

pub use collector::{PercentilesCollector, PercentilesFruit};
pub use plan::ValuePercentiles;
pub(crate) use span::SpanDigest;
pub(crate) use spread::{median_absolute_deviation, BoxplotStats};

use serde_json::{json, Map, Value};

use super::aggs::AggShape;
use super::java_double::java_double;
use crate::mapping::Mappings;

/// The percents of a request that names none (tantivy's and
/// Elasticsearch's default).
const DEFAULT_PERCENTS: [f64; 7] = [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];

/// Takes the `percentiles` this module computes out of `request`
/// (tantivy's translated top-level aggregations, whose shapes are
/// `shapes`).
pub fn split(
    request: &mut Value,
    shapes: &[AggShape],
    mappings: &Mappings,
) -> Vec<ValuePercentiles> {
    let Some(out) = request.as_object_mut() else {
        return Vec::new();
    };
    let mut taken = Vec::new();
    for shape in shapes {
        if shape.kind != "percentiles" || shape.missing.is_some() {
            continue;
        }
        let numeric = shape
            .field
            .as_deref()
            .and_then(|f| mappings.leaf(f))
            .is_some_and(|l| l.ty.is_integer() || l.ty.is_float());
        let plan = out
            .get(&shape.name)
            .and_then(|r| r.get("percentiles"))
            .and_then(|p| plan(&shape.name, p));
        if let (true, Some(plan)) = (numeric, plan) {
            out.remove(&shape.name);
            taken.push(plan);
        }
    }
    taken
}

/// The plan of one `percentiles` body, when every parameter is supported.
fn plan(name: &str, params: &Value) -> Option<ValuePercentiles> {
    let params = params.as_object()?;
    if params
        .keys()
        .any(|k| !matches!(k.as_str(), "field" | "percents" | "keyed"))
    {
        return None;
    }
    let percents = match params.get("percents") {
        None => DEFAULT_PERCENTS.to_vec(),
        Some(list) => list
            .as_array()?
            .iter()
            .map(|p| p.as_f64().filter(|p| (0.0..=100.0).contains(p)))
            .collect::<Option<Vec<f64>>>()?,
    };
    let keyed = match params.get("keyed") {
        None => true,
        Some(k) => k.as_bool()?,
    };
    Some(ValuePercentiles {
        name: name.to_string(),
        column: params.get("field")?.as_str()?.to_string(),
        percents,
        keyed,
    })
}

/// A percent as Elasticsearch names it in a keyed result (as Java
/// prints a double): `50.0`, `99.9`.
fn percent_key(percent: f64) -> String {
    java_double(percent)
}

/// The results keyed by aggregation name, in tantivy's final shape (a
/// value is `null` when no document had one).
pub fn into_json(plans: &[ValuePercentiles], fruit: PercentilesFruit) -> Map<String, Value> {
    let mut digests = fruit.0.into_iter();
    plans
        .iter()
        .map(|plan| {
            let digest = digests.next().unwrap_or_default();
            let values = values_json(&plan.percents, plan.keyed, &digest);
            (plan.name.clone(), values)
        })
        .collect()
}

/// `{"values": ...}` of `digest` at `percents`: keyed by percent
/// (`"50.0": v`) or a list of `{key, value}`, `null` when empty.
pub(crate) fn values_json(percents: &[f64], keyed: bool, digest: &SpanDigest) -> Value {
    let values = percents
        .iter()
        .zip(digest.percentiles(percents))
        .map(|(&p, v)| (p, v.map_or(Value::Null, |v| json!(v))));
    let values = if keyed {
        Value::Object(values.map(|(p, v)| (percent_key(p), v)).collect())
    } else {
        values
            .map(|(p, v)| json!({ "key": p, "value": v }))
            .collect()
    };
    json!({ "values": values })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_supported_parameters_are_taken() {
        let p = plan("p", &json!({"field": "f", "percents": [50, 99.9]})).unwrap();
        assert_eq!(
            (p.percents, p.keyed, p.column),
            (vec![50.0, 99.9], true, "f".into())
        );
        let p = plan("p", &json!({"field": "f", "keyed": false})).unwrap();
        assert_eq!((p.percents, p.keyed), (DEFAULT_PERCENTS.to_vec(), false));
        for stays in [
            json!({"field": "f", "missing": 0}),
            json!({"field": "f", "percents": [101]}),
            json!({"field": "f", "percents": ["50"]}),
            json!({"field": "f", "keyed": "yes"}),
            json!({"percents": [50]}),
        ] {
            assert!(plan("p", &stays).is_none(), "{stays}");
        }
    }

    #[test]
    fn four_values_give_elasticsearchs_answers() {
        let plans = vec![ValuePercentiles {
            name: "p".into(),
            column: "f".into(),
            percents: vec![25.0, 50.0, 75.0],
            keyed: true,
        }];
        let mut d = SpanDigest::default();
        [151.0, 1.0, 101.0, 51.0].iter().for_each(|&v| d.add(v));
        assert_eq!(
            Value::Object(into_json(&plans, PercentilesFruit(vec![d]))),
            json!({"p": {"values": {"25.0": 38.5, "50.0": 76.0, "75.0": 113.5}}})
        );
    }

    #[test]
    fn results_have_tantivys_shape() {
        let plans = |keyed| {
            vec![ValuePercentiles {
                name: "p".into(),
                column: "f".into(),
                percents: vec![50.0, 99.5],
                keyed,
            }]
        };
        let mut d = SpanDigest::default();
        d.add(8.0);
        let fruit = || PercentilesFruit(vec![d.clone()]);
        assert_eq!(
            Value::Object(into_json(&plans(true), fruit())),
            json!({"p": {"values": {"50.0": 8.0, "99.5": 8.0}}})
        );
        assert_eq!(
            Value::Object(into_json(&plans(false), fruit())),
            json!({"p": {"values": [{"key": 50.0, "value": 8.0}, {"key": 99.5, "value": 8.0}]}})
        );
        // No value: null, as tantivy's NaN serializes.
        assert_eq!(
            Value::Object(into_json(&plans(true), PercentilesFruit::default())),
            json!({"p": {"values": {"50.0": null, "99.5": null}}})
        );
    }
}
