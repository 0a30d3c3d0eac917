//! Aggregations on runtime fields (the request's `runtime_mappings` and
//! the mapping's `runtime` section): `terms`, `histogram`, `range`,
//! `avg`, `sum`, `min`, `max`, `stats`, `value_count` and `cardinality`
//! at the top level of `aggs`. [`split`] takes them out of the request
//! before the rest goes to tantivy; `collector` runs each field's script
//! once per matching document, as Elasticsearch computes runtime fields,
//! and keeps exact counts (every shard's partial result merges exactly);
//! `render` gives Elasticsearch's response shapes.
//!
//! Below `terms`, `histogram` and `range` any sub-aggregations are
//! computed by `sub_aggs`, one pass per bucket; a sub-aggregation below a
//! metric is Elasticsearch's 400, and another aggregation kind on a
//! runtime field is a 400 (`ScriptedFields::validate_usage`).

mod collector;
mod plan;
mod render;
mod sub_aggs;

pub(super) use collector::{RuntimeAggsCollector, RuntimeAggsFruit};
pub(crate) use plan::{Bucket, Kind, Metric, Order, RuntimeAgg};
pub(super) use render::into_json;
pub(super) use sub_aggs::fill as fill_sub_aggs;

use serde_json::Value;

use super::agg_tree::{AggNode, AggTree, RangeEdge, TypedParams};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::script::fields::{RuntimeType, ScriptedFields};

const KINDS: [&str; 10] = [
    "terms",
    "histogram",
    "range",
    "avg",
    "sum",
    "min",
    "max",
    "stats",
    "value_count",
    "cardinality",
];

/// Takes the top-level aggregations on runtime fields out of `aggs`;
/// returns them and the rest. `mappings` (the first index's) decides
/// what is a mapped field: a mapped field of the same name wins.
pub(super) fn split(
    aggs: Vec<AggNode>,
    scripted: &ScriptedFields,
    mappings: Option<&Mappings>,
) -> Result<(Vec<RuntimeAgg>, Vec<AggNode>)> {
    let mut found = Vec::new();
    let mut rest = Vec::new();
    for node in aggs {
        match parse(&node, scripted, mappings)? {
            Some(agg) => found.push(agg),
            None => rest.push(node),
        }
    }
    Ok((found, rest))
}

/// `node` as an aggregation on a runtime field (`None`: it is not one).
/// The tree's parse has checked its structure (one kind, no `meta`).
fn parse(
    node: &AggNode,
    scripted: &ScriptedFields,
    mappings: Option<&Mappings>,
) -> Result<Option<RuntimeAgg>> {
    let (name, kind, params) = (&node.name, node.kind.name(), &node.body);
    if !KINDS.contains(&kind) {
        return Ok(None);
    }
    // Every kind here is typed: its parse checked the field.
    let Some(field) = node.typed.field() else {
        return Ok(None);
    };
    if mappings.is_some_and(|m| m.leaf(field).is_some()) {
        return Ok(None);
    }
    let Some((ty, script)) = scripted.runtime_field(field) else {
        return Ok(None);
    };
    let sub = AggTree::from_nodes(node.subs.clone());
    if sub.is_some() && !matches!(kind, "terms" | "histogram" | "range") {
        return Err(SearchError::illegal(format!(
            "Aggregator [{name}] of type [{kind}] cannot accept sub-aggregations"
        )));
    }
    let params = params
        .as_object()
        .ok_or_else(|| SearchError::parsing(format!("[{kind}] must be an object")))?;
    let numeric = matches!(ty, RuntimeType::Long | RuntimeType::Double);
    let supported = match kind {
        "histogram" | "range" => numeric,
        "avg" | "sum" | "min" | "max" | "stats" => numeric || ty == RuntimeType::Date,
        _ => true,
    };
    if !supported {
        return Err(SearchError::illegal(format!(
            "Field [{field}] of type [{}] is not supported for aggregation [{kind}]",
            ty.name()
        )));
    }
    let allowed: &[&str] = match kind {
        "terms" => &["field", "size", "min_doc_count", "order", "shard_size"],
        "histogram" => &["field", "interval", "offset", "min_doc_count"],
        "range" => &["field", "ranges"],
        "cardinality" => &["field", "precision_threshold"],
        _ => &["field"],
    };
    let unknown = match &node.typed {
        TypedParams::Range(r) => r.options_written().next(),
        _ => params
            .keys()
            .map(String::as_str)
            .find(|k| !allowed.contains(k)),
    };
    if let Some(k) = unknown {
        return Err(SearchError::parsing(format!(
            "[{kind}] unknown field [{k}] (on runtime field [{field}])"
        )));
    }
    let count = |key: &str, default: u64| -> Result<u64> {
        match params.get(key) {
            None => Ok(default),
            Some(v) => v.as_u64().ok_or_else(|| {
                SearchError::parsing(format!("[{kind}] [{key}] must be a non-negative integer"))
            }),
        }
    };
    let kind_of = match kind {
        "terms" => {
            let size = count("size", 10)?;
            if size == 0 {
                return Err(SearchError::illegal(format!(
                    "[size] must be greater than 0. Found [0] in [{name}]"
                )));
            }
            count("shard_size", 0)?;
            let min_doc_count = count("min_doc_count", 1)?;
            if min_doc_count == 0 {
                return Err(SearchError::illegal(format!(
                    "[min_doc_count] of 0 on runtime field [{field}] is not supported by this server"
                )));
            }
            Kind::Terms {
                size: size.min(u64::from(u32::MAX)) as usize,
                min_doc_count,
                order: parse_order(params.get("order"))?,
            }
        }
        "histogram" => {
            // Read by the tree's parse as for a mapped field: a numeric
            // string is the number, as Elasticsearch takes it.
            let TypedParams::Histogram(h) = &node.typed else {
                return Err(SearchError::illegal(format!(
                    "[histogram] aggregation [{name}] was not parsed"
                )));
            };
            let interval = h.request.interval;
            if interval.is_nan() || interval <= 0.0 || !interval.is_finite() {
                return Err(SearchError::illegal(format!(
                    "[interval] must be >0 for histogram aggregation [{name}]"
                )));
            }
            Kind::Histogram {
                interval,
                offset: h.request.offset.unwrap_or(0.0),
                min_doc_count: h.request.min_doc_count.unwrap_or(0),
            }
        }
        "range" => {
            let TypedParams::Range(r) = &node.typed else {
                return Err(SearchError::illegal(format!(
                    "[range] aggregation [{name}] was not parsed"
                )));
            };
            // The parse refused a body without ranges, and ends neither
            // numbers nor strings.
            let mut out = Vec::with_capacity(r.ranges.len());
            for spec in &r.ranges {
                let bound = |k: &str, e: &Option<RangeEdge>| -> Result<Option<f64>> {
                    match e {
                        None => Ok(None),
                        Some(e @ RangeEdge::Number(_)) => Ok(e.number()),
                        Some(e @ RangeEdge::Text(s)) => e.number().map(Some).ok_or_else(|| {
                            SearchError::parsing(format!("[range] [{k}] [{s}] is not a number"))
                        }),
                    }
                };
                out.push(Bucket {
                    key: spec.key.clone(),
                    from: bound("from", &spec.from)?,
                    to: bound("to", &spec.to)?,
                });
            }
            out.sort_by(|a, b| {
                let lo = |x: &Bucket| x.from.unwrap_or(f64::NEG_INFINITY);
                let hi = |x: &Bucket| x.to.unwrap_or(f64::INFINITY);
                lo(a).total_cmp(&lo(b)).then(hi(a).total_cmp(&hi(b)))
            });
            Kind::Range(out)
        }
        "avg" => Kind::Metric(Metric::Avg),
        "sum" => Kind::Metric(Metric::Sum),
        "min" => Kind::Metric(Metric::Min),
        "max" => Kind::Metric(Metric::Max),
        "stats" => Kind::Metric(Metric::Stats),
        "value_count" => Kind::Metric(Metric::ValueCount),
        _ => {
            count("precision_threshold", 0)?;
            Kind::Cardinality
        }
    };
    Ok(Some(RuntimeAgg {
        name: name.to_string(),
        field: field.to_string(),
        ty,
        script: script.clone(),
        kind: kind_of,
        sub,
    }))
}

/// A `terms` `order`: `{"_count"|"_key": "asc"|"desc"}`, or a list of one.
fn parse_order(v: Option<&Value>) -> Result<Order> {
    let v = match v {
        None => return Ok(Order::CountDesc),
        Some(Value::Array(items)) if items.len() == 1 => &items[0],
        Some(v) => v,
    };
    let pair = v
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.iter().next());
    match pair.map(|(k, d)| (k.as_str(), d.as_str())) {
        Some(("_count", Some("desc"))) => Ok(Order::CountDesc),
        Some(("_count", Some("asc"))) => Ok(Order::CountAsc),
        Some(("_key", Some("asc"))) => Ok(Order::KeyAsc),
        Some(("_key", Some("desc"))) => Ok(Order::KeyDesc),
        _ => Err(SearchError::illegal(format!(
            "terms order [{v}] on a runtime field: only _count or _key, asc or desc, are supported by this server"
        ))),
    }
}
