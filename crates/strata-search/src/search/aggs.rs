//! Aggregations: the Elasticsearch `aggs` request rewritten for tantivy's
//! aggregation module (field names to schema paths; `date_histogram` and
//! `date_range` through their own modules), and the merged result put back
//! into Elasticsearch's shape (`key_as_string` for dates; `reshape`, which
//! lives in `deferred`). An `auto_date_histogram` is resolved into a
//! `date_histogram` (`auto_date`) and reshaped as one. Sub-aggregations tantivy cannot compute
//! (`top_hits`, `top_metrics`, `geo_centroid`, `geohash_grid`) are taken out and computed
//! per bucket afterwards (`deferred`). Types not supported at all are
//! rejected naming them. The shape of each result is an `AggShape`
//! (`agg_shape`). Parameters come typed from the tree's parse
//! (`agg_tree`), `filter`'s and `filters`' queries aside (read from the
//! node's JSON); translation builds tantivy's request from them and does
//! what needs the mapping (a field's column and type, a `range` on a date
//! field, a date range's ends). `ip_range` becomes one filter per range
//! (`ip_range`).

use std::collections::HashMap;

use serde_json::{Map, Value};
use tantivy::aggregation::bucket::OrderTarget;

pub(crate) use super::agg_shape::only_entry;
pub use super::agg_shape::AggShape;
use super::agg_tree::{
    check_parent, AggKind, AggNode, MetricParams, PipelineParams, TermsParams, TypedParams,
};
use super::date_histogram::DateHistogram;
use super::date_range::DateRange;
use super::decimal_format::DecimalFormat;
pub use super::deferred::reshape;
use super::ip_range::IpRangeAgg;
use super::metric_format::MetricFormat;
use super::missing_bucket::FILTER_SUFFIX;
use super::{agg_filters, auto_date, deferred, nested_aggs, pipelines, rate, scan_aggs};
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::{FieldMapping, FieldType, Mappings};
use crate::query::ParsedQuery;
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
    "auto_date_histogram",
    "range",
    "filter",
    "filters",
    "date_range",
    "ip_range",
    "missing",
];

/// Computed per bucket after tantivy's pass (`deferred`).
pub const DEFERRED: &[&str] = &[
    "top_hits",
    "top_metrics",
    "geo_centroid",
    "geo_bounds",
    "geohash_grid",
    "geotile_grid",
];

/// What translation needs besides the request.
pub struct AggEnv<'a> {
    /// The mapping of the (first) index.
    pub mappings: &'a Mappings,
    /// "now" for date math.
    pub now: i64,
    /// (min, max) of date fields under the query, for calendar histograms.
    pub bounds: &'a HashMap<String, (i64, i64)>,
    /// How many documents under the query lack each field an
    /// `auto_date_histogram` with `missing` reads.
    pub missing_docs: &'a HashMap<String, u64>,
}

/// The translated request: tantivy's aggregations, the shapes, and the
/// top-level aggregations left for `deferred` (as parsed).
pub type Translated = (Value, Vec<AggShape>, Vec<AggNode>);

/// Refuses an `order` of the `terms` `name` (parameters `params`,
/// sub-aggregations `subs`) by a `percentiles`, `percentile_ranks`,
/// `boxplot` or `median_absolute_deviation`
/// (`{"p.50": "desc"}`): those are computed after the buckets are chosen
/// (`scan_aggs`, `time_buckets`), so they cannot choose them, and
/// tantivy's own message would not say so.
fn check_terms_order(name: &str, params: &TermsParams, subs: &[AggNode]) -> Result<()> {
    let Some(order) = &params.request.order else {
        return Ok(());
    };
    let OrderTarget::SubAggregation(path) = &order.target else {
        return Ok(());
    };
    let agg = path.split(['.', '[', '>']).next().unwrap_or(path);
    match subs.iter().find(|n| n.name == agg).map(|n| n.kind.name()) {
        Some(kind @ ("percentiles" | "percentile_ranks" | "boxplot" | "median_absolute_deviation")) => Err(SearchError::illegal(format!(
            "ordering [terms] aggregation [{name}] by the [{kind}] sub-aggregation [{path}] is not supported by this server"
        ))),
        _ => Ok(()),
    }
}

/// Rewrites the aggregations `aggs` (a request's tree, or a level of it).
pub fn translate(env: &AggEnv<'_>, aggs: &[AggNode]) -> Result<Translated> {
    translate_at(env, aggs.iter(), 1)
}

/// Rewrites the aggregations `nodes` found at nesting level `depth` (which the tree's parse
/// bounds by [`MAX_AGG_DEPTH`](super::agg_tree::MAX_AGG_DEPTH), as it checks their structure:
/// one kind each, a known kind, sub-aggregations only where they are taken).
fn translate_at<'n>(
    env: &AggEnv<'_>,
    nodes: impl Iterator<Item = &'n AggNode>,
    depth: usize,
) -> Result<Translated> {
    let mappings = env.mappings;
    let mut out = Map::new();
    let mut shapes = Vec::new();
    let mut deferred_here = Vec::new();
    for node in nodes {
        let name = &node.name;
        let kind = node.kind.name().to_string();
        let scanned = match &node.typed {
            TypedParams::Cardinality(c) => scan_aggs::cardinality_here(depth, c, mappings),
            // All but a plain top-level numeric one (the pass's own collector): tantivy's
            // DDSketch is within 1% of the value, where Elasticsearch interpolates exact values.
            TypedParams::Percentiles(p) => scan_aggs::percentiles_here(depth, p, mappings),
            _ => true,
        };
        if node.kind == AggKind::Composite && depth > 1 {
            return Err(SearchError::illegal(format!(
                "[composite] aggregation cannot be used with a parent aggregation ([{name}])"
            )));
        }
        if scan_aggs::is_scanned(&kind) && scanned {
            match &node.typed {
                TypedParams::Cardinality(c) => scan_aggs::check_cardinality(name, c, mappings)?,
                _ => scan_aggs::validate(node, mappings)?,
            }
            deferred_here.push(node.clone());
            continue;
        }
        if let TypedParams::Terms(t) = &node.typed {
            check_terms_order(name, t, &node.subs)?;
        }
        if PipelineParams::covers(node.kind) {
            // At the top of a translation (a subtree's own pass): the
            // parse checked it against the parent it was written in.
            check_parent(node.kind, name, None)?;
        }
        if nested_aggs::KINDS.contains(&kind.as_str()) {
            nested_aggs::validate(node)?;
            deferred_here.push(node.clone());
            continue;
        }
        if DEFERRED.contains(&kind.as_str()) {
            deferred::validate(node)?;
            deferred_here.push(node.clone());
            continue;
        }
        let sampler = matches!(node.typed, TypedParams::Sampler(_));
        if (node.kind == AggKind::AutoDateHistogram || sampler) && depth > 1 {
            // Elasticsearch chooses its rounding (a sampler its sample) per
            // parent bucket, from that bucket's documents: per bucket here.
            deferred_here.push(node.clone());
            continue;
        }
        if let TypedParams::Rate(params) = &node.typed {
            let (shape, request) = rate::translate(name, params, mappings)?;
            if let Some(request) = request {
                out.insert(name.clone(), request);
            }
            shapes.push(shape);
            continue;
        }
        if !METRICS.contains(&kind.as_str()) && !BUCKETS.contains(&kind.as_str()) {
            return Err(SearchError::illegal(format!(
                "aggregation type [{kind}] of [{name}] is not supported by this server"
            )));
        }
        let (subs, pipes) = pipelines::split(&node.subs);
        let (sub_req, children, sub_deferred) = if subs.is_empty() {
            (None, Vec::new(), Vec::new())
        } else {
            let (r, c, d) = translate_at(env, subs.into_iter(), depth + 1)?;
            let empty = r.as_object().is_some_and(|o| o.is_empty());
            ((!empty).then_some(r), c, d)
        };
        let mut shape = AggShape::new(name, &kind);
        shape.children = children;
        shape.deferred = sub_deferred;
        shape.pipelines = pipes;
        if kind == "filter" || kind == "filters" || kind == "missing" {
            let (entries, named) = match &node.typed {
                TypedParams::Filter(f) => (vec![(String::new(), f.query.clone())], true),
                TypedParams::Filters(f) => (f.filters.clone(), f.named),
                _ => {
                    let query = ParsedQuery::parse(missing_query(node)?)?;
                    (vec![(String::new(), query)], true)
                }
            };
            for (key, query) in &entries {
                let mut agg = agg_filters::filter_request(mappings, query.json(), env.now);
                if let Some(r) = &sub_req {
                    agg["aggs"] = r.clone();
                }
                let out_name = if kind == "filter" || kind == "missing" {
                    name.clone()
                } else {
                    format!("{name}{}{key}", agg_filters::KEY_SEPARATOR)
                };
                out.insert(out_name, agg);
            }
            shape.keys = entries.iter().map(|(k, _)| k.clone()).collect();
            shape.named = named;
            shape.queries = entries.into_iter().map(|(_, q)| q).collect();
            shapes.push(shape);
            continue;
        }
        if let TypedParams::IpRange(p) = &node.typed {
            // One filter per range, as `filters` (see `ip_range`).
            let agg = IpRangeAgg::new(p, mappings)?;
            for (i, query) in agg.queries().enumerate() {
                let mut filter = agg_filters::filter_request(mappings, query.json(), env.now);
                if let Some(r) = &sub_req {
                    filter["aggs"] = r.clone();
                }
                out.insert(format!("{name}{}{i}", agg_filters::KEY_SEPARATOR), filter);
            }
            shape.field = Some(p.field.clone());
            shape.queries = agg.queries().cloned().collect();
            shape.ip_range = Some(agg);
            shapes.push(shape);
            continue;
        }
        // The typed kinds' parse checked the field and refused scripts
        // (every kind that reaches here is typed).
        let field = node.typed.field().map(str::to_string).ok_or_else(|| {
            SearchError::illegal(format!("[{kind}] aggregation [{name}] was not parsed"))
        })?;
        let leaf = mappings.leaf(&field);
        if leaf.is_some_and(|l| l.ty == FieldType::Text) {
            return Err(SearchError::illegal(format!(
                "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{field}] in order to load field data by uninverting the inverted index."
            )));
        }
        shape.date_field = leaf.is_some_and(|l| l.ty == FieldType::Date);
        shape.bool_field = leaf.is_some_and(|l| l.ty == FieldType::Boolean);
        if let (Some(leaf), TypedParams::Metric(m)) = (leaf, &node.typed) {
            shape.value_format = metric_format(node.kind, m, leaf)?;
        }
        shape.field = Some(field.clone());
        let mut aggs_out: Vec<(String, Value)> = Vec::new();
        match &node.typed {
            TypedParams::AutoDateHistogram(p) => {
                let (mut h, data) =
                    auto_date::resolve(p, mappings, env.now, env.bounds, env.missing_docs)?;
                // (The data's bounds hold `missing` already: widening to it
                // changes no bucket.)
                shape.missing = h.missing_bucket();
                aggs_out.push((name.clone(), h.tantivy_request(data)?));
                // From here on it is a date histogram like any other.
                shape.kind = "date_histogram".into();
                shape.date_histogram = Some(h);
            }
            TypedParams::DateHistogram(p) => {
                let mut h = DateHistogram::resolve(p, mappings, env.now)?;
                shape.missing = h.missing_bucket();
                let bounds = env.bounds.get(&field).copied();
                aggs_out.push((name.clone(), h.tantivy_request(bounds)?));
                shape.date_histogram = Some(h);
            }
            TypedParams::Range(r) if node.kind == AggKind::DateRange || shape.date_field => {
                let r = DateRange::parse(name, r, mappings, env.now)?;
                aggs_out.extend(r.ranges.tantivy_requests(name, mappings, env.now));
                shape.date_range = Some(r);
            }
            TypedParams::Range(r) => {
                let r = super::number_range::NumberRange::parse(name, r)?;
                aggs_out.extend(r.ranges.tantivy_requests(name, mappings, env.now));
                shape.number_range = Some(r);
            }
            _ => {
                if let TypedParams::Histogram(h) = &node.typed {
                    shape.interval = Some(h.request.interval);
                    shape.missing = h.missing.clone();
                }
                let column = format!("{KEYWORDS}.{field}");
                let params = match &node.typed {
                    TypedParams::Metric(metric) => metric.tantivy_request(&column),
                    TypedParams::Percentiles(p) => p.tantivy_request(name, &column)?,
                    TypedParams::Cardinality(c) => c.tantivy_request(&column),
                    TypedParams::Histogram(h) => h.tantivy_request(&column),
                    TypedParams::Terms(t) => {
                        shape.terms = Some(t.clone());
                        t.tantivy_request(&column)
                    }
                    // (Dates and ranges took the branches above, a pipeline was
                    // split off or refused, a bucket script taken out; scanned,
                    // nested and geo kinds deferred, `missing`/`ip_range` filters.)
                    TypedParams::Untyped
                    | TypedParams::Range(_)
                    | TypedParams::DateHistogram(_)
                    | TypedParams::AutoDateHistogram(_)
                    | TypedParams::Pipeline(_)
                    | TypedParams::BucketScript(_)
                    | TypedParams::WeightedAvg(_)
                    | TypedParams::StringStats(_)
                    | TypedParams::PercentileRanks(_)
                    | TypedParams::Spread(_)
                    | TypedParams::Rate(_)
                    | TypedParams::RareTerms(_)
                    | TypedParams::SignificantTerms(_)
                    | TypedParams::Composite(_)
                    | TypedParams::MultiTerms(_)
                    | TypedParams::Missing(_)
                    | TypedParams::IpRange(_)
                    | TypedParams::GeoCentroid(_)
                    | TypedParams::GeoBounds(_)
                    | TypedParams::GeoGrid(_)
                    | TypedParams::Nested(_)
                    | TypedParams::TopHits(_)
                    | TypedParams::TopMetrics(_)
                    | TypedParams::Filter(_)
                    | TypedParams::Filters(_)
                    | TypedParams::Sibling(_)
                    | TypedParams::MovingFn(_)
                    | TypedParams::RandomSampler(_)
                    | TypedParams::Sampler(_)
                    | TypedParams::Global => {
                        return Err(SearchError::illegal(format!(
                            "aggregation type [{kind}] of [{name}] is not supported by this server"
                        )))
                    }
                };
                let mut agg = Map::new();
                agg.insert(kind.clone(), params);
                aggs_out.push((name.clone(), Value::Object(agg)));
            }
        }
        if let Some(m) = &shape.missing {
            let query = m.query(&field, shape.date_field || shape.date_histogram.is_some());
            let filter = agg_filters::filter_request(mappings, &query, env.now);
            aggs_out.push((format!("{name}{FILTER_SUFFIX}"), filter));
        }
        for (out_name, mut agg) in aggs_out {
            if let Some(r) = &sub_req {
                agg["aggs"] = r.clone();
            }
            out.insert(out_name, agg);
        }
        shapes.push(shape);
    }
    Ok((Value::Object(out), shapes, deferred_here))
}

/// The `missing` aggregation's documents: those without a value of its
/// field (its parameters typed by the tree's parse).
fn missing_query(node: &AggNode) -> Result<Value> {
    match &node.typed {
        TypedParams::Missing(m) => Ok(m.query()),
        _ => Err(SearchError::illegal(format!(
            "[missing] aggregation [{}] was not parsed",
            node.name
        ))),
    }
}

/// How the `kind` metric with parameters `m` on the field `leaf` writes
/// its `*_as_string` values (`metric_format`), if at all.
fn metric_format(
    kind: AggKind,
    m: &MetricParams,
    leaf: &FieldMapping,
) -> Result<Option<MetricFormat>> {
    use AggKind::*;
    if !matches!(kind, Min | Max | Avg | Sum | Stats | ExtendedStats) {
        return Ok(None);
    }
    Ok(match (&m.format, leaf.ty) {
        (Some(text), FieldType::Date) => Some(MetricFormat::Date(DateFormat::from_request(text)?)),
        (None, FieldType::Date) => Some(MetricFormat::Date(leaf.date_format())),
        (Some(text), ty) if ty.is_integer() || ty.is_float() => {
            Some(MetricFormat::Number(DecimalFormat::parse(text)?))
        }
        _ => None,
    })
}
