//! Parent pipeline aggregations, computed over the buckets of the
//! aggregation they sit in once its buckets are final:
//!
//! - `derivative` (in a `histogram` or `date_histogram`): each bucket's
//!   value minus the previous bucket's; with `unit`, also per unit of the
//!   keys (`normalized_value`).
//! - `cumulative_sum` (same parents): the running total.
//! - `bucket_sort` (any multi-bucket parent): sorts by `sort` paths, then
//!   keeps `size` buckets from `from`.
//!
//! `buckets_path` reads `_count`, `_key`, a metric (`sales`), a value of a
//! multi-value metric (`stats.avg`, `pct.99`) through single-bucket
//! aggregations (`filtered>sales`). `gap_policy` (`skip`, `insert_zeros`,
//! `keep_values`) says what a missing value or an empty bucket counts as,
//! as in Elasticsearch.

use std::cmp::Ordering;

use serde_json::{json, Map, Value};

use super::agg_tree::AggNode;
use super::calendar::CalendarUnit;
use crate::error::{Result, SearchError};

/// The pipeline aggregations of this module.
pub const KINDS: &[&str] = &["derivative", "cumulative_sum", "bucket_sort"];

/// What a gap (missing value, empty bucket) counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GapPolicy {
    Skip,
    InsertZeros,
    KeepValues,
}

impl GapPolicy {
    fn parse(name: &str, params: &Map<String, Value>) -> Result<GapPolicy> {
        match params.get("gap_policy").and_then(Value::as_str) {
            None | Some("skip") => Ok(GapPolicy::Skip),
            Some("insert_zeros") => Ok(GapPolicy::InsertZeros),
            Some("keep_values") => Ok(GapPolicy::KeepValues),
            Some(other) => Err(SearchError::parsing(format!(
                "Unknown gap policy [{other}] of [{name}], expected [skip, insert_zeros, keep_values]"
            ))),
        }
    }
}

/// Checks a pipeline's body when its request is translated; `parent` is
/// the kind of the aggregation it sits in (`None` at the top level).
pub fn validate(name: &str, kind: &str, params: &Value, parent: Option<&str>) -> Result<()> {
    let obj = params
        .as_object()
        .ok_or_else(|| SearchError::parsing(format!("[{kind}] of [{name}] must be an object")))?;
    let histogram = matches!(parent, Some("histogram" | "date_histogram"));
    let allowed: &[&str] = match kind {
        "bucket_sort" => &["sort", "from", "size", "gap_policy"],
        "derivative" => &["buckets_path", "gap_policy", "format", "unit"],
        _ => &["buckets_path", "format"],
    };
    for k in obj.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(SearchError::parsing(format!(
                "[{kind}] unknown field [{k}] in aggregation [{name}]"
            )));
        }
    }
    if obj.get("format").is_some_and(|f| !f.is_null()) {
        return Err(SearchError::illegal(format!(
            "[format] of [{kind}] aggregation [{name}] is not supported"
        )));
    }
    GapPolicy::parse(name, obj)?;
    match kind {
        "bucket_sort" => {
            if parent.is_none() {
                return Err(SearchError::illegal(format!(
                    "bucket_sort aggregation [{name}] must be declared inside of another aggregation"
                )));
            }
            sort_keys(name, obj)?;
            count(name, obj, "from")?;
            count(name, obj, "size")?;
        }
        _ => {
            if !histogram {
                let has = if parent.is_some() {
                    ""
                } else {
                    " but doesn't have a parent"
                };
                return Err(SearchError::illegal(format!(
                    "{kind} aggregation [{name}] must have a histogram, date_histogram or auto_date_histogram as parent{has}"
                )));
            }
            path(name, obj)?;
            if kind == "derivative" {
                unit_millis(name, obj)?;
            }
        }
    }
    Ok(())
}

fn path<'a>(name: &str, obj: &'a Map<String, Value>) -> Result<&'a str> {
    match obj.get("buckets_path") {
        Some(Value::String(p)) => Ok(p),
        Some(other) => Err(SearchError::parsing(format!(
            "[buckets_path] of [{name}] must be a string, got [{other}]"
        ))),
        None => Err(SearchError::parsing(format!(
            "Required parameter [buckets_path] missing in [{name}]"
        ))),
    }
}

fn count(name: &str, obj: &Map<String, Value>, key: &str) -> Result<Option<usize>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(usize::try_from(n).unwrap_or(usize::MAX)))
            .ok_or_else(|| {
                SearchError::illegal(format!(
                    "[{key}] must be a non-negative integer: [{v}] in [{name}]"
                ))
            }),
    }
}

/// `unit` of a derivative, in milliseconds.
fn unit_millis(name: &str, obj: &Map<String, Value>) -> Result<Option<f64>> {
    let Some(unit) = obj.get("unit") else {
        return Ok(None);
    };
    unit.as_str()
        .and_then(CalendarUnit::parse)
        .and_then(CalendarUnit::fixed_millis)
        .map(|ms| Some(ms as f64))
        .ok_or_else(|| {
            SearchError::illegal(format!(
                "[unit] [{unit}] of derivative [{name}] is not supported (second, minute, hour, day and week are)"
            ))
        })
}

/// `bucket_sort`'s `sort`: (path, descending).
fn sort_keys(name: &str, obj: &Map<String, Value>) -> Result<Vec<(String, bool)>> {
    let items = match obj.get("sort") {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.clone(),
        Some(one) => vec![one.clone()],
    };
    let bad = |v: &Value| SearchError::parsing(format!("[sort] of [{name}] malformed: {v}"));
    items
        .iter()
        .map(|item| match item {
            Value::String(p) => Ok((p.clone(), false)),
            Value::Object(o) if o.len() == 1 => {
                let (p, spec) = o.iter().next().ok_or_else(|| bad(item))?;
                let order = match spec {
                    Value::String(s) => s.as_str(),
                    Value::Object(s) => s.get("order").and_then(Value::as_str).unwrap_or("asc"),
                    _ => return Err(bad(item)),
                };
                match order {
                    "asc" => Ok((p.clone(), false)),
                    "desc" => Ok((p.clone(), true)),
                    _ => Err(bad(item)),
                }
            }
            _ => Err(bad(item)),
        })
        .collect()
}

/// Takes the pipeline aggregations out of the sub-aggregations `subs` of
/// a `parent` aggregation, checking them against it; returns the other
/// sub-aggregations and the pipelines (name, kind, parameters). The tree's
/// parse has already refused sub-aggregations under a pipeline.
pub fn split<'n>(parent: &str, subs: &'n [AggNode]) -> Result<PipelineSplit<'n>> {
    let mut rest = Vec::new();
    let mut pipes = Vec::new();
    for node in subs {
        let kind = node.kind.name();
        if !KINDS.contains(&kind) {
            rest.push(node);
            continue;
        }
        validate(&node.name, kind, &node.body, Some(parent))?;
        pipes.push((node.name.clone(), kind.to_string(), node.body.clone()));
    }
    Ok((rest, pipes))
}

/// What [`split`] returns.
pub type PipelineSplit<'n> = (Vec<&'n AggNode>, Vec<(String, String, Value)>);

/// The value at `path` in `bucket`, under `gap`: `None` for a gap that
/// is skipped (Elasticsearch's NaN).
fn resolve(bucket: &Value, path: &str, gap: GapPolicy) -> Option<f64> {
    let raw = raw_value(bucket, path);
    let empty = bucket.get("doc_count").and_then(Value::as_u64) == Some(0);
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
    let (agg, metric) = match last.split_once('.') {
        Some((a, m)) => (a, Some(m)),
        None => match last.split_once('[') {
            Some((a, m)) => (a, m.strip_suffix(']')),
            None => (last, None),
        },
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

/// Applies the pipelines among `children` (name, kind, params) to the
/// buckets of `agg`, in request order.
pub fn apply(agg: &mut Value, children: &[(String, String, Value)]) -> Result<()> {
    for (name, kind, params) in children {
        let obj = params.as_object().cloned().unwrap_or_default();
        let gap = GapPolicy::parse(name, &obj)?;
        let Some(buckets) = agg.get_mut("buckets").and_then(Value::as_array_mut) else {
            continue;
        };
        match kind.as_str() {
            "derivative" => {
                let path = path(name, &obj)?.to_string();
                let unit = unit_millis(name, &obj)?;
                let mut last: Option<(Option<f64>, f64)> = None;
                for b in buckets.iter_mut() {
                    let value = resolve(b, &path, gap);
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
                        b[name.as_str()] = out;
                    }
                    last = Some((value, key));
                }
            }
            "cumulative_sum" => {
                let path = path(name, &obj)?.to_string();
                let mut sum = 0.0;
                for b in buckets.iter_mut() {
                    if let Some(v) = resolve(b, &path, GapPolicy::InsertZeros) {
                        sum += v;
                    }
                    b[name.as_str()] = json!({"value": sum});
                }
            }
            "bucket_sort" => {
                let keys = sort_keys(name, &obj)?;
                let from = count(name, &obj, "from")?.unwrap_or(0);
                let size = count(name, &obj, "size")?;
                let mut rows: Vec<(Vec<SortValue>, Value)> = Vec::new();
                'bucket: for b in buckets.drain(..) {
                    let mut values = Vec::with_capacity(keys.len());
                    for (path, _) in &keys {
                        if path == "_key" {
                            values.push(SortValue::of_key(b.get("key")));
                            continue;
                        }
                        match resolve(&b, path, gap) {
                            Some(v) => values.push(SortValue::Num(v)),
                            None if gap == GapPolicy::Skip => continue 'bucket,
                            None => values.push(SortValue::Missing),
                        }
                    }
                    rows.push((values, b));
                }
                rows.sort_by(|a, b| {
                    for (i, (_, desc)) in keys.iter().enumerate() {
                        let o = a.0[i].cmp(&b.0[i], *desc);
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
            _ => {}
        }
    }
    Ok(())
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
