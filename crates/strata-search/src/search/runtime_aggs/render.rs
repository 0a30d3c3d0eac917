//! The results of runtime-field aggregations in Elasticsearch's shapes:
//! `terms` keys typed as the field is (dates and booleans with
//! `key_as_string`), `histogram` keys as doubles with empty buckets
//! filled between the first and last (`min_doc_count` 0), `range` keys
//! as Elasticsearch writes doubles (`*-100.0`, `100.0-200.0`).

use std::cmp::Ordering;

use serde_json::{json, Map, Value};

use super::collector::RuntimeAggsFruit;
use super::collector::{HashKey, State};
use super::plan::{Kind, Metric, Order, RuntimeAgg};
use crate::error::{Result, SearchError};
use crate::mapping::date::format_millis;
use crate::script::fields::RuntimeType;
use crate::search::bucket_limit;
use crate::search::java_double::java_double;

/// The merged `fruit` of `aggs`, by aggregation name.
pub(crate) fn into_json(
    aggs: &[RuntimeAgg],
    fruit: RuntimeAggsFruit,
) -> Result<Map<String, Value>> {
    if let Some(e) = fruit.error {
        return Err(e);
    }
    let mut out = Map::new();
    for (agg, state) in aggs.iter().zip(fruit.states) {
        out.insert(agg.name.clone(), render(agg, state)?);
    }
    Ok(out)
}

fn render(agg: &RuntimeAgg, state: State) -> Result<Value> {
    Ok(match (&agg.kind, state) {
        (
            Kind::Terms {
                size,
                min_doc_count,
                order,
            },
            State::Terms(counts),
        ) => {
            let mut buckets: Vec<(HashKey, u64)> = counts
                .into_iter()
                .filter(|(_, n)| n >= min_doc_count)
                .collect();
            buckets.sort_by(|a, b| match order {
                Order::CountDesc => b.1.cmp(&a.1).then_with(|| key_cmp(&a.0, &b.0)),
                Order::CountAsc => a.1.cmp(&b.1).then_with(|| key_cmp(&a.0, &b.0)),
                Order::KeyAsc => key_cmp(&a.0, &b.0),
                Order::KeyDesc => key_cmp(&b.0, &a.0),
            });
            let other: u64 = buckets.iter().skip(*size).map(|(_, n)| n).sum();
            buckets.truncate(*size);
            let buckets: Vec<Value> = buckets
                .into_iter()
                .map(|(k, n)| {
                    let mut b = key_json(agg.ty, &k);
                    b.insert("doc_count".into(), json!(n));
                    Value::Object(b)
                })
                .collect();
            json!({"doc_count_error_upper_bound": 0, "sum_other_doc_count": other, "buckets": buckets})
        }
        (
            Kind::Histogram {
                interval,
                offset,
                min_doc_count,
            },
            State::Histogram(counts),
        ) => {
            let mut keys: Vec<i64> = counts.keys().copied().collect();
            keys.sort_unstable();
            if *min_doc_count == 0 {
                if let (Some(&lo), Some(&hi)) = (keys.first(), keys.last()) {
                    let span = hi.saturating_sub(lo).saturating_add(1);
                    if span as u64 > bucket_limit::max_buckets() as u64 {
                        return Err(bucket_limit::too_many(Some(span as usize)));
                    }
                    keys = (lo..=hi).collect();
                }
            }
            let buckets: Vec<Value> = keys
                .into_iter()
                .map(|k| (k, counts.get(&k).copied().unwrap_or(0)))
                .filter(|(_, n)| n >= min_doc_count)
                .map(|(k, n)| json!({"key": k as f64 * interval + offset, "doc_count": n}))
                .collect();
            json!({ "buckets": buckets })
        }
        (Kind::Range(ranges), State::Range(counts)) => {
            let buckets: Vec<Value> = ranges
                .iter()
                .zip(counts)
                .map(|(r, n)| {
                    let bound = |b: Option<f64>| b.map_or_else(|| "*".to_string(), java_double);
                    let key = r
                        .key
                        .clone()
                        .unwrap_or_else(|| format!("{}-{}", bound(r.from), bound(r.to)));
                    let mut b = Map::new();
                    b.insert("key".into(), json!(key));
                    if let Some(f) = r.from {
                        b.insert("from".into(), json!(f));
                    }
                    if let Some(t) = r.to {
                        b.insert("to".into(), json!(t));
                    }
                    b.insert("doc_count".into(), json!(n));
                    Value::Object(b)
                })
                .collect();
            json!({ "buckets": buckets })
        }
        (
            Kind::Metric(metric),
            State::Metric {
                count,
                sum,
                min,
                max,
            },
        ) => {
            let some = count > 0;
            let date = agg.ty == RuntimeType::Date;
            let single = |v: Option<f64>| {
                let mut m = Map::new();
                m.insert("value".into(), json!(v));
                if let (true, Some(v)) = (date, v) {
                    m.insert("value_as_string".into(), json!(format_millis(v as i64)));
                }
                Value::Object(m)
            };
            match metric {
                Metric::Avg => single(some.then(|| sum / count as f64)),
                Metric::Sum => json!({ "value": sum }),
                Metric::Min => single(some.then_some(min)),
                Metric::Max => single(some.then_some(max)),
                Metric::ValueCount => json!({ "value": count }),
                Metric::Stats => json!({
                    "count": count,
                    "min": some.then_some(min),
                    "max": some.then_some(max),
                    "avg": some.then(|| sum / count as f64),
                    "sum": sum,
                }),
            }
        }
        (Kind::Cardinality, State::Cardinality(set)) => json!({ "value": set.len() }),
        _ => {
            return Err(SearchError::illegal(format!(
                "aggregation [{}]: mismatched partial result",
                agg.name
            )))
        }
    })
}

fn key_cmp(a: &HashKey, b: &HashKey) -> Ordering {
    match (a, b) {
        (HashKey::Text(a), HashKey::Text(b)) => a.cmp(b),
        (HashKey::Number(a), HashKey::Number(b)) => {
            f64::from_bits(*a).total_cmp(&f64::from_bits(*b))
        }
        (HashKey::Bool(a), HashKey::Bool(b)) => a.cmp(b),
        (HashKey::Text(_), _) => Ordering::Greater,
        (_, HashKey::Text(_)) => Ordering::Less,
        (HashKey::Bool(_), _) => Ordering::Less,
        (_, HashKey::Bool(_)) => Ordering::Greater,
    }
}

/// A `terms` bucket's `key` (and `key_as_string`) for a value of `ty`.
fn key_json(ty: RuntimeType, key: &HashKey) -> Map<String, Value> {
    let mut b = Map::new();
    match key {
        HashKey::Text(s) => {
            b.insert("key".into(), json!(s));
        }
        HashKey::Bool(v) => {
            b.insert("key".into(), json!(u8::from(*v)));
            b.insert("key_as_string".into(), json!(v.to_string()));
        }
        HashKey::Number(bits) => {
            let n = f64::from_bits(*bits);
            match ty {
                RuntimeType::Double => {
                    b.insert("key".into(), json!(n));
                }
                RuntimeType::Date => {
                    b.insert("key".into(), json!(n as i64));
                    b.insert("key_as_string".into(), json!(format_millis(n as i64)));
                }
                _ => {
                    b.insert("key".into(), json!(n as i64));
                }
            }
        }
    }
    b
}
