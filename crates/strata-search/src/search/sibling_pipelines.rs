//! The sibling pipeline aggregations (`avg_bucket`, `max_bucket`,
//! `min_bucket`, `sum_bucket`, `stats_bucket`, `extended_stats_bucket`,
//! `percentiles_bucket`): one value summarized over the buckets of a
//! multi-bucket aggregation beside them, at the top level or inside any
//! bucket, as Elasticsearch computes them.
//!
//! They run on the response: [`split`] takes them out of the request
//! (checking that each `buckets_path` starts at a multi-bucket sibling and
//! names one of its values), the search runs without them, and
//! [`Siblings::apply`] computes them once every other aggregation is final
//! (parent pipelines and bucket scripts included, so a `max_bucket` of a
//! `derivative` works), the deepest first so that an outer pipeline may
//! read an inner one's result.

use serde_json::{json, Value};

use super::agg_tree::{AggKind, AggNode, AggTree, SiblingKind, SiblingParams, TypedParams};
use super::extended_stats;
use super::java_double::java_double;
use super::pipelines::{for_each_scope, resolve};
use super::request::SearchRequest;
use super::taken_aggs::take_out;
use crate::error::{Result, SearchError};

/// One sibling pipeline, placed.
#[derive(Debug, Clone)]
struct Sibling {
    /// Names of the aggregations from the top down to the one whose
    /// buckets hold the pipeline (empty: the top level).
    scope: Vec<String>,
    name: String,
    /// The multi-bucket sibling whose buckets are summarized.
    source: String,
    /// The value's path in each of its buckets.
    value: String,
    params: SiblingParams,
}

/// The sibling pipelines taken out of a request.
#[derive(Debug, Clone)]
pub struct Siblings(Vec<Sibling>);

/// The request without its sibling pipelines, and the pipelines; `None`
/// when it has none.
pub fn split(req: &SearchRequest) -> Result<Option<(SearchRequest, Siblings)>> {
    let Some(aggs) = &req.aggs else {
        return Ok(None);
    };
    let (kept, mut found) = take_out(aggs.nodes(), &mut |level, node, scope| {
        let TypedParams::Sibling(params) = &node.typed else {
            return Ok(None);
        };
        let (source, value) = target(level, &node.name, &params.buckets_path)?;
        Ok(Some(Sibling {
            scope: scope.to_vec(),
            name: node.name.clone(),
            source,
            value,
            params: params.clone(),
        }))
    })?;
    if found.is_empty() {
        return Ok(None);
    }
    // The deepest first: an outer pipeline may read an inner one.
    found.sort_by_key(|s| std::cmp::Reverse(s.scope.len()));
    let stripped = SearchRequest {
        aggs: AggTree::from_nodes(kept),
        ..req.clone()
    };
    Ok(Some((stripped, Siblings(found))))
}

/// The multi-bucket sibling among `nodes` that pipeline `name`'s `path`
/// starts at, and the rest of the path, in Elasticsearch's words when
/// they do not fit.
fn target(nodes: &[AggNode], name: &str, path: &str) -> Result<(String, String)> {
    let missing =
        || SearchError::ActionValidation(format!("No aggregation found for path [{path}]"));
    // `histo.v` reads as `histo>v` (Elasticsearch's path parse takes the
    // first element's `.` as the step into its buckets' values).
    let (first, rest) = path
        .split_once('>')
        .or_else(|| path.split_once('.'))
        .ok_or_else(missing)?;
    if first.contains('[') {
        return Err(SearchError::illegal(format!(
            "[buckets_path] [{path}] of [{name}]: selecting a bucket by key is not supported"
        )));
    }
    let source = nodes.iter().find(|n| n.name == first).ok_or_else(missing)?;
    if !multi_bucket(source.kind) {
        return Err(SearchError::ActionValidation(format!(
            "The first aggregation in buckets_path must be a multi-bucket aggregation for aggregation [{name}] found :{} for buckets path: {path}",
            source.kind.name()
        )));
    }
    let step = rest.split(['>', '.', '[']).next().unwrap_or_default();
    let known = matches!(step, "_count" | "_key") || source.subs.iter().any(|s| s.name == step);
    if !known {
        return Err(SearchError::ActionValidation(format!(
            "No aggregation [{step}] found for path [{path}]"
        )));
    }
    Ok((first.to_string(), rest.to_string()))
}

/// The kinds whose results are a list of buckets.
fn multi_bucket(kind: AggKind) -> bool {
    use AggKind::*;
    matches!(
        kind,
        Terms
            | MultiTerms
            | RareTerms
            | SignificantTerms
            | Histogram
            | DateHistogram
            | AutoDateHistogram
            | Range
            | DateRange
            | Filters
            | Composite
            | GeohashGrid
            | GeotileGrid
    )
}

impl Siblings {
    /// Computes the pipelines on a response body's `aggregations`.
    pub fn apply(&self, body: &mut Value) -> Result<()> {
        let Some(aggs) = body.get_mut("aggregations") else {
            return Ok(());
        };
        for s in &self.0 {
            for_each_scope(aggs, &s.scope, &mut |scope| {
                let values = s.values(scope.get(&s.source));
                if let Some(map) = scope.as_object_mut() {
                    map.insert(s.name.clone(), s.params.kind.result(&values));
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}

impl Sibling {
    /// The (key, value) of each bucket of `source` that has a value under the gap policy.
    fn values(&self, source: Option<&Value>) -> Vec<(String, f64)> {
        let bucket_value = |b: &Value| resolve(b, &self.value, self.params.gap_policy);
        match source.and_then(|s| s.get("buckets")) {
            Some(Value::Array(buckets)) => buckets
                .iter()
                .filter_map(|b| Some((key_text(b), bucket_value(b)?)))
                .collect(),
            Some(Value::Object(buckets)) => buckets
                .iter()
                .filter_map(|(k, b)| Some((k.clone(), bucket_value(b)?)))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// A bucket's key as Elasticsearch writes it in `keys`: `key_as_string`
/// when the bucket has one, else the key (a double as Java writes it).
fn key_text(bucket: &Value) -> String {
    if let Some(text) = bucket.get("key_as_string").and_then(Value::as_str) {
        return text.to_string();
    }
    match bucket.get("key") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) if n.is_f64() => java_double(n.as_f64().unwrap_or(f64::NAN)),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// A double as JSON: `null` when not finite (Elasticsearch's NaN and infinities).
fn num(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

impl SiblingKind {
    /// The pipeline's result over `values` (in bucket order).
    fn result(&self, values: &[(String, f64)]) -> Value {
        let count = values.len();
        let n = count as f64;
        let sum: f64 = values.iter().map(|(_, v)| v).sum();
        let fold =
            |init: f64, f: fn(f64, f64) -> f64| values.iter().fold(init, |m, (_, v)| f(m, *v));
        let (min, max) = (
            fold(f64::INFINITY, f64::min),
            fold(f64::NEG_INFINITY, f64::max),
        );
        let keys_at = |target: f64| -> Vec<&str> {
            values
                .iter()
                .filter(|(_, v)| *v == target)
                .map(|(k, _)| k.as_str())
                .collect()
        };
        match self {
            SiblingKind::Avg => json!({"value": num(sum / n)}),
            SiblingKind::Sum => json!({"value": sum}),
            SiblingKind::Max => json!({"value": num(max), "keys": keys_at(max)}),
            SiblingKind::Min => json!({"value": num(min), "keys": keys_at(min)}),
            SiblingKind::Stats => json!({
                "count": count, "min": num(min), "max": num(max), "avg": num(sum / n), "sum": sum,
            }),
            SiblingKind::ExtendedStats { sigma } => {
                let squares: f64 = values.iter().map(|(_, v)| v * v).sum();
                let mut out = json!({
                    "count": count, "min": num(min), "max": num(max), "avg": num(sum / n), "sum": sum,
                });
                if let Value::Object(obj) = &mut out {
                    obj.extend(extended_stats::derived(count as u64, sum, squares, *sigma));
                }
                out
            }
            SiblingKind::Percentiles { percents, keyed } => {
                let mut sorted: Vec<f64> = values.iter().map(|(_, v)| *v).collect();
                sorted.sort_by(f64::total_cmp);
                // Nearest rank, Java's Math.round: half up.
                let at = |p: f64| -> Value {
                    let last = sorted.len().saturating_sub(1) as f64;
                    let index = (p / 100.0 * last + 0.5).floor() as usize;
                    sorted.get(index).map_or(Value::Null, |v| json!(v))
                };
                let values: Value = if *keyed {
                    percents
                        .iter()
                        .map(|p| (java_double(*p), at(*p)))
                        .collect::<serde_json::Map<_, _>>()
                        .into()
                } else {
                    percents
                        .iter()
                        .map(|p| json!({"key": p, "value": at(*p)}))
                        .collect()
                };
                json!({ "values": values })
            }
        }
    }
}

#[cfg(test)]
#[path = "sibling_pipelines_tests.rs"]
mod tests;
