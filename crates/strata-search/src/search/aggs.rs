//! Aggregations: the Elasticsearch `aggs` request rewritten for tantivy's
//! aggregation module (field names to schema paths, `date_histogram` as a
//! millisecond `histogram`), and the merged result put back into
//! Elasticsearch's shape (`key_as_string` for dates). Types tantivy cannot
//! compute here are rejected naming them.

use serde_json::{json, Map, Value};

use super::agg_filters;
use crate::error::{Result, SearchError};
use crate::mapping::date::{format_millis, DateFormat, DEFAULT_DATE_FORMAT};
use crate::mapping::{FieldType, Mappings};
use crate::store::KEYWORDS;

const METRICS: &[&str] = &[
    "min",
    "max",
    "avg",
    "sum",
    "value_count",
    "stats",
    "extended_stats",
    "percentiles",
    "cardinality",
];
const BUCKETS: &[&str] = &[
    "terms",
    "histogram",
    "date_histogram",
    "range",
    "filter",
    "filters",
];

/// What to fix in the result of one aggregation.
#[derive(Debug, Clone)]
pub struct AggShape {
    name: String,
    kind: String,
    date_field: bool,
    children: Vec<AggShape>,
    /// `filters`: the keys, and whether they were named.
    keys: Vec<String>,
    named: bool,
    /// `filter`/`filters`: the queries, to check before searching.
    pub queries: Vec<Value>,
}

impl AggShape {
    /// The queries of this and all nested `filter`/`filters` aggregations.
    pub fn all_queries(shapes: &[AggShape]) -> Vec<&Value> {
        shapes
            .iter()
            .flat_map(|s| s.queries.iter().chain(AggShape::all_queries(&s.children)))
            .collect()
    }
}

/// Rewrites an `aggs` object; returns the tantivy request and the shapes.
pub fn translate(mappings: &Mappings, aggs: &Value) -> Result<(Value, Vec<AggShape>)> {
    let obj = aggs
        .as_object()
        .ok_or_else(|| SearchError::parsing("[aggs] must be an object"))?;
    let mut out = Map::new();
    let mut shapes = Vec::new();
    for (name, body) in obj {
        let body = body.as_object().ok_or_else(|| {
            SearchError::parsing(format!("Expected [START_OBJECT] under [{name}]"))
        })?;
        let mut kind = None;
        let mut sub = None;
        for (k, v) in body {
            match k.as_str() {
                "aggs" | "aggregations" => sub = Some(v),
                "meta" => {
                    return Err(SearchError::illegal(
                        "[meta] on aggregations is not supported",
                    ))
                }
                other if kind.is_none() => kind = Some((other.to_string(), v)),
                other => {
                    return Err(SearchError::parsing(format!(
                        "Found two aggregation type definitions in [{name}]: [{}] and [{other}]",
                        kind.as_ref().map_or("", |k| k.0.as_str())
                    )))
                }
            }
        }
        let (kind, params) = kind.ok_or_else(|| {
            SearchError::parsing(format!("Missing definition for aggregation [{name}]"))
        })?;
        if !METRICS.contains(&kind.as_str()) && !BUCKETS.contains(&kind.as_str()) {
            return Err(SearchError::illegal(format!(
                "aggregation type [{kind}] of [{name}] is not supported by this server"
            )));
        }
        if kind == "filter" || kind == "filters" {
            let entries = if kind == "filter" {
                vec![(String::new(), params.clone())]
            } else {
                agg_filters::filters_entries(name, params)?.0
            };
            let named = kind == "filter" || agg_filters::filters_entries(name, params)?.1;
            let (sub_req, children) = match sub {
                Some(sub) => {
                    let (r, c) = translate(mappings, sub)?;
                    (Some(r), c)
                }
                None => (None, Vec::new()),
            };
            let now = super::now_millis();
            for (key, query) in &entries {
                let mut agg = agg_filters::filter_request(mappings, query, now);
                if let Some(r) = &sub_req {
                    agg["aggs"] = r.clone();
                }
                let out_name = if kind == "filter" {
                    name.clone()
                } else {
                    format!("{name}{}{key}", agg_filters::KEY_SEPARATOR)
                };
                out.insert(out_name, agg);
            }
            shapes.push(AggShape {
                name: name.clone(),
                kind: kind.clone(),
                date_field: false,
                keys: entries.iter().map(|(k, _)| k.clone()).collect(),
                named,
                queries: entries.into_iter().map(|(_, q)| q).collect(),
                children,
            });
            continue;
        }
        let mut params = params.as_object().cloned().ok_or_else(|| {
            SearchError::parsing(format!("[{kind}] of [{name}] must be an object"))
        })?;
        let field = params
            .get("field")
            .and_then(Value::as_str)
            .map(str::to_string);
        let Some(field) = field else {
            return Err(SearchError::illegal(format!("Required one of fields [field, script], but none were specified (aggregation [{name}])")));
        };
        if params.contains_key("script") {
            return Err(SearchError::illegal("scripts are not supported"));
        }
        let leaf = mappings.leaf(&field);
        if leaf.is_some_and(|l| l.ty == FieldType::Text) {
            return Err(SearchError::illegal(format!(
                "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{field}] in order to load field data by uninverting the inverted index."
            )));
        }
        let date_field = leaf.is_some_and(|l| l.ty == FieldType::Date);
        params.insert("field".into(), json!(format!("{KEYWORDS}.{field}")));
        let (kind_out, params) = match kind.as_str() {
            "date_histogram" => ("histogram".to_string(), date_histogram(name, params)?),
            "range" if date_field => ("range".to_string(), date_ranges(mappings, &field, params)?),
            _ => (kind.clone(), params),
        };
        let mut agg = Map::new();
        agg.insert(kind_out, Value::Object(params));
        let mut shape = AggShape {
            name: name.clone(),
            kind: kind.clone(),
            date_field,
            children: Vec::new(),
            keys: Vec::new(),
            named: false,
            queries: Vec::new(),
        };
        if let Some(sub) = sub {
            if METRICS.contains(&kind.as_str()) {
                return Err(SearchError::illegal(format!(
                    "Aggregator [{name}] of type [{kind}] cannot accept sub-aggregations"
                )));
            }
            let (sub_req, sub_shapes) = translate(mappings, sub)?;
            agg.insert("aggs".into(), sub_req);
            shape.children = sub_shapes;
        }
        out.insert(name.clone(), Value::Object(agg));
        shapes.push(shape);
    }
    Ok((Value::Object(out), shapes))
}

fn interval_millis(text: &str) -> Option<i64> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = text.split_at(split);
    let n: i64 = n.parse().ok()?;
    let ms = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    Some(n * ms)
}

fn date_histogram(name: &str, params: Map<String, Value>) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    let mut interval = None;
    let mut offset = 0i64;
    let format = DateFormat::parse(DEFAULT_DATE_FORMAT)?;
    for (k, v) in &params {
        let text = v.as_str().unwrap_or_default();
        match k.as_str() {
            "field" | "min_doc_count" | "keyed" => {
                out.insert(k.clone(), v.clone());
            }
            "fixed_interval" | "interval" => {
                interval = Some(interval_millis(text).ok_or_else(|| {
                    SearchError::illegal(format!(
                        "failed to parse setting [{k}] with value [{text}]"
                    ))
                })?);
            }
            "calendar_interval" => {
                interval = Some(match text {
                    "1s" | "second" => 1000,
                    "1m" | "minute" => 60_000,
                    "1h" | "hour" => 3_600_000,
                    "1d" | "day" => 86_400_000,
                    "1w" | "week" => {
                        offset = 4 * 86_400_000; // weeks start on Monday; 1970-01-05 was one
                        7 * 86_400_000
                    }
                    other => {
                        return Err(SearchError::illegal(format!(
                            "[date_histogram] calendar_interval [{other}] of [{name}] is not supported (second, minute, hour, day and week are)"
                        )))
                    }
                });
            }
            "time_zone" if matches!(text, "UTC" | "Z" | "+00:00" | "Etc/UTC") => {}
            "format"
                if matches!(
                    text,
                    "strict_date_optional_time" | "date_optional_time" | "strict_date_time"
                ) => {}
            "extended_bounds" | "hard_bounds" => {
                let b = v
                    .as_object()
                    .ok_or_else(|| SearchError::parsing(format!("[{k}] must be an object")))?;
                let mut bounds = Map::new();
                for edge in ["min", "max"] {
                    if let Some(x) = b.get(edge) {
                        bounds.insert(edge.into(), json!(format.parse_value(x)? as f64));
                    }
                }
                out.insert(k.clone(), Value::Object(bounds));
            }
            other => {
                return Err(SearchError::illegal(format!(
                    "[date_histogram] parameter [{other}] with value [{v}] is not supported"
                )))
            }
        }
    }
    let interval = interval.ok_or_else(|| {
        SearchError::illegal("Required one of fields [fixed_interval, calendar_interval]")
    })?;
    out.insert("interval".into(), json!(interval as f64));
    if offset != 0 {
        out.insert("offset".into(), json!(offset as f64));
    }
    out.entry("min_doc_count").or_insert(json!(0));
    Ok(out)
}

fn date_ranges(
    mappings: &Mappings,
    field: &str,
    mut params: Map<String, Value>,
) -> Result<Map<String, Value>> {
    let format = mappings
        .leaf(field)
        .map(|l| l.date_format())
        .unwrap_or(DateFormat::parse(DEFAULT_DATE_FORMAT)?);
    if let Some(Value::Array(ranges)) = params.get_mut("ranges") {
        for r in ranges.iter_mut() {
            if let Some(r) = r.as_object_mut() {
                for edge in ["from", "to"] {
                    if let Some(v) = r.get(edge).filter(|v| v.is_string()) {
                        let ms = format.parse_value(v)?;
                        r.insert(edge.into(), json!(ms as f64));
                    }
                }
            }
        }
    }
    Ok(params)
}

/// Puts tantivy's result into Elasticsearch's shape.
pub fn reshape(result: &mut Value, shapes: &[AggShape]) {
    for shape in shapes {
        if shape.kind == "filters" {
            let each = |b: &mut Value| reshape(b, &shape.children);
            agg_filters::reshape_filters(result, &shape.name, &shape.keys, shape.named, each);
            continue;
        }
        let Some(agg) = result.get_mut(&shape.name) else {
            continue;
        };
        match shape.kind.as_str() {
            "date_histogram" | "histogram" | "terms" | "range" => {
                let buckets: Vec<&mut Value> = match agg.get_mut("buckets") {
                    Some(Value::Array(b)) => b.iter_mut().collect(),
                    Some(Value::Object(m)) => m.values_mut().collect(),
                    _ => Vec::new(),
                };
                for bucket in buckets {
                    if shape.date_field && shape.kind != "range" {
                        if let Some(key) = bucket.get("key").and_then(Value::as_f64) {
                            let ms = key as i64;
                            bucket["key"] = json!(ms);
                            bucket["key_as_string"] = json!(format_millis(ms));
                        }
                    }
                    reshape(bucket, &shape.children);
                }
            }
            "filter" => reshape(agg, &shape.children),
            "cardinality" | "value_count" => {
                // Elasticsearch reports counts as integers.
                if let Some(v) = agg.get("value").and_then(Value::as_f64) {
                    agg["value"] = json!(v as u64);
                }
            }
            "min" | "max" if shape.date_field => {
                if let Some(v) = agg.get("value").and_then(Value::as_f64) {
                    agg["value_as_string"] = json!(format_millis(v as i64));
                }
            }
            _ => {}
        }
    }
}
