//! `AggShape`: what reshaping must fix in the result of one aggregation
//! (names, kinds, fields, sub-aggregations, the parts computed per bucket),
//! as translation (`aggs`) records it and reshaping (`deferred`) and
//! Strata's own collectors read it.

use serde_json::Value;

use super::agg_tree::{AggNode, PipelineParams, RateParams, TermsParams};
use super::date_histogram::DateHistogram;
use super::date_range::DateRange;
use super::ip_range::IpRangeAgg;
use super::metric_format::MetricFormat;
use super::missing_bucket::MissingBucket;
use super::number_range::NumberRange;
use crate::query::ParsedQuery;

/// What to fix in the result of one aggregation.
#[derive(Debug, Clone)]
pub struct AggShape {
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) field: Option<String>,
    pub(crate) date_field: bool,
    /// A numeric metric's `*_as_string` format: a date field's (the
    /// aggregation's `format`, else the field's), or a number field's
    /// `format` pattern.
    pub(crate) value_format: Option<MetricFormat>,
    /// Terms of a boolean field: keys 0/1 stand for false/true.
    pub(crate) bool_field: bool,
    pub(crate) children: Vec<AggShape>,
    /// `filters`: the keys, and whether they were named.
    pub(crate) keys: Vec<String>,
    pub(crate) named: bool,
    /// `filter`/`filters`/`missing`: the queries (as the tree parsed
    /// them), to check before searching and to narrow the passes of
    /// deferred sub-aggregations.
    pub queries: Vec<ParsedQuery>,
    /// `terms`: its parameters.
    pub(crate) terms: Option<TermsParams>,
    /// `histogram`: the interval.
    pub(crate) interval: Option<f64>,
    pub(crate) date_histogram: Option<DateHistogram>,
    pub(crate) date_range: Option<DateRange>,
    /// A numeric `range`: its ranges (one tantivy aggregation each).
    pub(crate) number_range: Option<NumberRange>,
    /// `ip_range`: its buckets (their queries also in `queries`).
    pub(crate) ip_range: Option<IpRangeAgg>,
    /// `histogram`/`date_histogram` `missing`: the bucket its filter fills.
    pub(crate) missing: Option<MissingBucket>,
    /// Sub-aggregations computed per bucket, as parsed.
    pub(crate) deferred: Vec<AggNode>,
    /// Parent pipelines over the buckets: (name, parameters).
    pub(crate) pipelines: Vec<(String, PipelineParams)>,
    /// `rate`: its parameters, the divisor placed.
    pub(crate) rate: Option<RateParams>,
}

impl AggShape {
    /// The queries of this and all nested `filter`/`filters` aggregations.
    pub fn all_queries(shapes: &[AggShape]) -> Vec<&ParsedQuery> {
        shapes
            .iter()
            .flat_map(|s| s.queries.iter().chain(AggShape::all_queries(&s.children)))
            .collect()
    }

    pub(crate) fn new(name: &str, kind: &str) -> AggShape {
        AggShape {
            name: name.to_string(),
            kind: kind.to_string(),
            field: None,
            date_field: false,
            value_format: None,
            bool_field: false,
            children: Vec::new(),
            keys: Vec::new(),
            named: false,
            queries: Vec::new(),
            terms: None,
            interval: None,
            date_histogram: None,
            date_range: None,
            number_range: None,
            ip_range: None,
            missing: None,
            deferred: Vec::new(),
            pipelines: Vec::new(),
            rate: None,
        }
    }
}

/// The one entry of a JSON object (`{"range": {...}}`, `{"_count": "desc"}`),
/// as the collectors Strata computes itself read translated requests and
/// queries; `None` for anything else.
pub(crate) fn only_entry(value: &Value) -> Option<(&String, &Value)> {
    let object = value.as_object()?;
    (object.len() == 1).then(|| object.iter().next())?
}
