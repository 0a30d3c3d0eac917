//! Fixed-interval `date_histogram`s computed by Strata's own collector
//! instead of tantivy's histogram, with their simple sub-aggregations
//! fused into the same pass.
//!
//! Kibana's dashboards are made of these: documents per time bucket, with
//! a `sum` of a numeric field or a `filters` split (response classes) per
//! bucket. tantivy computes a histogram's sub-aggregations by buffering
//! every (bucket, document) pair and replaying it to each child, and a
//! filter child first turns its query into a bit set over the whole
//! segment; here a document is read once, its bucket found (time-ordered
//! documents mostly fall in the bucket of the one before, so few
//! divisions), and each child updated in place. A filter is a scorer
//! stepped forward alongside the collected documents, so only the
//! documents the search matches are looked at; a filter that is one
//! integer range is counted from the field's column (`range_filter`).
//!
//! [`split`] takes the histograms it can compute out of the translated
//! tantivy request: a `date_histogram` with a fixed interval (no calendar
//! ranges), no `missing`, no bounds, and children that are only `sum`,
//! `min`, `max`, `avg` and `value_count` of numeric fields, `filter`
//! or `filters` without children of their own, and `percentiles` of
//! numeric fields without `missing` or `format` (which translation left
//! to the per-bucket scans, `deferred`: taken here, they are a digest per
//! bucket filled in the same pass, and become plain children of the
//! shape); other `percentiles` and `percentile_ranks` stay deferred, for
//! reshaping to compute over all the buckets in one scan. Anything else
//! stays with tantivy. The result is rendered in the shape tantivy's final result
//! has ([`TimeBucketsFruit::into_json`]), so the usual reshaping (keys as
//! dates, `filters` buckets, values as strings) applies unchanged.

mod children;
mod collector;
mod fruit;
mod plan;
mod range_filter;
mod segment;

pub use collector::TimeBucketsCollector;
pub use fruit::TimeBucketsFruit;
pub use plan::{Child, ChildKind, Metric, TimeBuckets};

use serde_json::{Map, Value};

use super::agg_tree::{AggNode, TypedParams};
use super::aggs::AggShape;
use super::bucket_batch;
use crate::mapping::{FieldType, Mappings};
use crate::store::KEYWORDS;

/// Takes the histograms this module computes out of `request` (tantivy's
/// translated top-level aggregations, whose shapes are `shapes`).
///
/// The `percentiles` children it takes move from `deferred` to
/// `children` in their histogram's shape (reshaping then leaves them as
/// they are, as it does a top-level one).
pub fn split(
    request: &mut Value,
    shapes: &mut [AggShape],
    mappings: &Mappings,
) -> Vec<TimeBuckets> {
    let Some(out) = request.as_object_mut() else {
        return Vec::new();
    };
    let mut taken = Vec::new();
    for shape in shapes {
        let Some(plan) = out.get(&shape.name).and_then(|r| plan(shape, r, mappings)) else {
            continue;
        };
        out.remove(&shape.name);
        taken.push(plan);
        // The other deferred children (batched: a date field's, those
        // with `missing` or `format`) stay for reshaping's one scan.
        let (taken_here, rest) = std::mem::take(&mut shape.deferred)
            .into_iter()
            .partition(|node| percentiles_child(node, mappings).is_some());
        shape.deferred = rest;
        for node in taken_here {
            let mut child = AggShape::new(&node.name, "percentiles");
            if let TypedParams::Percentiles(p) = &node.typed {
                child.field = Some(p.field.clone());
            }
            shape.children.push(child);
        }
    }
    taken
}

/// `node`'s plan when it is a `percentiles` of a numeric field without
/// `missing` or `format` (the digest reads the column as doubles).
fn percentiles_child(node: &AggNode, mappings: &Mappings) -> Option<Child> {
    let TypedParams::Percentiles(p) = &node.typed else {
        return None;
    };
    let numeric = mappings
        .leaf(&p.field)
        .is_some_and(|l| numeric(l.ty) && l.ty != FieldType::Date);
    if !numeric || p.missing.is_some() || p.format.is_some() || !node.subs.is_empty() {
        return None;
    }
    Some(Child {
        name: node.name.clone(),
        kind: ChildKind::Percentiles {
            column: format!("{KEYWORDS}.{}", p.field),
            percents: p.percents.clone(),
            keyed: p.keyed,
        },
    })
}

/// The plan of one histogram, when every part of it is supported.
fn plan(shape: &AggShape, request: &Value, mappings: &Mappings) -> Option<TimeBuckets> {
    let histogram = shape.date_histogram.as_ref()?;
    if histogram.by_ranges || shape.missing.is_some() {
        return None;
    }
    // Deferred children: numeric `percentiles` are taken into the pass;
    // any other must be one reshaping computes for all the buckets in
    // one scan (`bucket_batch`), not a search per bucket.
    let mut digests = Vec::new();
    for node in &shape.deferred {
        match percentiles_child(node, mappings) {
            Some(child) => digests.push(child),
            None if bucket_batch::batched(node) => {}
            None => return None,
        }
    }
    let body = request.as_object()?;
    let params = body.get("histogram")?.as_object()?;
    let known = ["field", "interval", "offset", "min_doc_count"];
    if params.keys().any(|k| !known.contains(&k.as_str())) {
        return None;
    }
    let column = params.get("field")?.as_str()?.to_string();
    let interval = whole(params.get("interval")?)?;
    let offset = params.get("offset").map_or(Some(0), whole)?;
    let min_doc_count = params.get("min_doc_count").map_or(Some(0), Value::as_u64)?;
    if interval < 1 || !(0..interval).contains(&offset) {
        return None;
    }
    let empty = Map::new();
    let subs = match body.get("aggs") {
        None => &empty,
        Some(v) => v.as_object()?,
    };
    let mut children = Vec::new();
    for child in &shape.children {
        if !child.children.is_empty() || !child.deferred.is_empty() || child.missing.is_some() {
            return None;
        }
        children.extend(child_plans(child, subs, mappings)?);
    }
    // Every tantivy child is accounted for (nothing would be lost).
    if children.len() != subs.len() {
        return None;
    }
    children.extend(digests);
    Some(TimeBuckets {
        name: shape.name.clone(),
        column,
        interval,
        offset,
        min_doc_count,
        children,
    })
}

/// The children one Elasticsearch child became in tantivy's request.
fn child_plans(
    shape: &AggShape,
    subs: &Map<String, Value>,
    mappings: &Mappings,
) -> Option<Vec<Child>> {
    let names: Vec<String> = match shape.kind.as_str() {
        "filter" => vec![shape.name.clone()],
        "filters" => shape
            .keys
            .iter()
            .map(|k| format!("{}{}{k}", shape.name, super::agg_filters::KEY_SEPARATOR))
            .collect(),
        _ => vec![shape.name.clone()],
    };
    let mut out = Vec::with_capacity(names.len());
    for (i, name) in names.into_iter().enumerate() {
        let body = subs.get(&name)?.as_object()?;
        if body.len() != 1 {
            return None; // children of its own
        }
        let (kind, params) = body.iter().next()?;
        let kind = if kind == "filter" {
            // The query the tree parsed (the request carries its JSON).
            let query = shape.queries.get(i)?.clone();
            ChildKind::Filter {
                range: range_filter::recognize(query.json(), mappings),
                query,
            }
        } else {
            let metric = Metric::parse(kind)?;
            let params = params.as_object()?;
            if params.len() != 1 {
                return None; // `missing`, `script`, ...
            }
            let field = shape.field.as_deref()?;
            if !mappings.leaf(field).is_some_and(|l| numeric(l.ty)) {
                return None;
            }
            ChildKind::Metric {
                metric,
                column: params.get("field")?.as_str()?.to_string(),
            }
        };
        out.push(Child { name, kind });
    }
    Some(out)
}

fn numeric(ty: FieldType) -> bool {
    ty.is_numeric()
}

/// A JSON number that is a whole number of milliseconds.
fn whole(v: &Value) -> Option<i64> {
    let f = v.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
}
