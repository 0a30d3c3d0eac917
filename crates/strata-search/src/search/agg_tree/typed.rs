//! [`TypedParams`]: an aggregation's parameters as its kind's typed
//! struct, parsed once with the tree (one file per family beside this
//! one), and the one field most kinds aggregate.

use serde_json::Value;

use super::sampler::SamplerParams;
use super::{
    AggKind, AutoDateHistogramParams, BucketScriptParams, CardinalityParams, CompositeParams,
    DateHistogramParams, FilterParams, FiltersParams, GeoBoundsParams, GeoCentroidParams,
    GeoGridParams, GridSystem, HistogramParams, IpRangeParams, MetricParams, MissingParams,
    MovingFnParams, MultiTermsParams, NestedParams, PercentileRanksParams, PercentilesParams,
    PipelineParams, RandomSamplerParams, RangeParams, RareTermsParams, RateParams, SiblingParams,
    SignificantTermsParams, SpreadKind, SpreadParams, StringStatsParams, TermsParams,
    TopHitsParams, TopMetricsParams, WeightedAvgParams,
};
use crate::error::{Result, SearchError};

/// The parameters of an aggregation whose kind has a type for them.
#[derive(Debug, Clone, PartialEq)]
pub enum TypedParams {
    /// A kind whose parameters are read from [`AggNode::body`](super::AggNode::body).
    Untyped,
    /// `min`, `max`, `avg`, `sum`, `value_count`, `stats`, `extended_stats`.
    Metric(MetricParams),
    /// `percentiles`.
    Percentiles(PercentilesParams),
    /// `percentile_ranks`.
    PercentileRanks(PercentileRanksParams),
    /// `boxplot`, `median_absolute_deviation`.
    Spread(SpreadParams),
    /// `cardinality`.
    Cardinality(CardinalityParams),
    /// `rate`.
    Rate(RateParams),
    /// `terms`.
    Terms(TermsParams),
    /// `multi_terms`.
    MultiTerms(MultiTermsParams),
    /// `histogram`.
    Histogram(HistogramParams),
    /// `date_histogram`.
    DateHistogram(DateHistogramParams),
    /// `auto_date_histogram`.
    AutoDateHistogram(AutoDateHistogramParams),
    /// `derivative`, `cumulative_sum`, `serial_diff`, `normalize`,
    /// `cumulative_cardinality`, `bucket_sort`.
    Pipeline(PipelineParams),
    /// `bucket_script`, `bucket_selector`.
    BucketScript(BucketScriptParams),
    /// `weighted_avg`.
    WeightedAvg(WeightedAvgParams),
    /// `string_stats`.
    StringStats(StringStatsParams),
    /// `rare_terms`.
    RareTerms(RareTermsParams),
    /// `significant_terms`.
    SignificantTerms(SignificantTermsParams),
    /// `composite`.
    Composite(CompositeParams),
    /// `range`, `date_range`.
    Range(RangeParams),
    /// `ip_range`.
    IpRange(IpRangeParams),
    /// `missing`.
    Missing(MissingParams),
    /// `geo_centroid`.
    GeoCentroid(GeoCentroidParams),
    /// `geo_bounds`.
    GeoBounds(GeoBoundsParams),
    /// `geohash_grid`, `geotile_grid`.
    GeoGrid(GeoGridParams),
    /// `nested`, `reverse_nested`.
    Nested(NestedParams),
    /// `top_hits`.
    TopHits(TopHitsParams),
    /// `top_metrics`.
    TopMetrics(TopMetricsParams),
    /// `filter`.
    Filter(FilterParams),
    /// `filters`.
    Filters(FiltersParams),
    /// The sibling pipelines (`max_bucket`, `stats_bucket`, ...).
    Sibling(SiblingParams),
    /// `moving_fn`.
    MovingFn(MovingFnParams),
    /// `global` (top level only, no parameters).
    Global,
    /// `random_sampler` (top level only).
    RandomSampler(RandomSamplerParams),
    /// `sampler`, `diversified_sampler`.
    Sampler(SamplerParams),
}

impl TypedParams {
    /// The parameters `params` of `kind` aggregation `name`, in a `parent`
    /// aggregation (`None`: at the top level).
    pub(super) fn parse(
        kind: AggKind,
        name: &str,
        params: &Value,
        parent: Option<AggKind>,
    ) -> Result<TypedParams> {
        Ok(match kind {
            AggKind::Percentiles => {
                TypedParams::Percentiles(PercentilesParams::parse(name, params)?)
            }
            AggKind::PercentileRanks => {
                TypedParams::PercentileRanks(PercentileRanksParams::parse(name, params)?)
            }
            AggKind::Boxplot => {
                TypedParams::Spread(SpreadParams::parse(SpreadKind::Boxplot, name, params)?)
            }
            AggKind::MedianAbsoluteDeviation => TypedParams::Spread(SpreadParams::parse(
                SpreadKind::MedianAbsoluteDeviation,
                name,
                params,
            )?),
            AggKind::Cardinality => {
                TypedParams::Cardinality(CardinalityParams::parse(name, params)?)
            }
            AggKind::Rate => TypedParams::Rate(RateParams::parse(name, params)?),
            AggKind::Terms => TypedParams::Terms(TermsParams::parse(name, params)?),
            AggKind::MultiTerms => TypedParams::MultiTerms(MultiTermsParams::parse(name, params)?),
            AggKind::Histogram => TypedParams::Histogram(HistogramParams::parse(name, params)?),
            AggKind::WeightedAvg => {
                TypedParams::WeightedAvg(WeightedAvgParams::parse(name, params)?)
            }
            AggKind::StringStats => {
                TypedParams::StringStats(StringStatsParams::parse(name, params)?)
            }
            AggKind::RareTerms => TypedParams::RareTerms(RareTermsParams::parse(name, params)?),
            AggKind::SignificantTerms => {
                TypedParams::SignificantTerms(SignificantTermsParams::parse(name, params)?)
            }
            AggKind::DateHistogram => {
                TypedParams::DateHistogram(DateHistogramParams::parse_body(name, params)?)
            }
            AggKind::AutoDateHistogram => {
                TypedParams::AutoDateHistogram(AutoDateHistogramParams::parse(name, params)?)
            }
            AggKind::Composite => TypedParams::Composite(CompositeParams::parse(name, params)?),
            k if RangeParams::covers(k) => TypedParams::Range(RangeParams::parse(k, name, params)?),
            AggKind::IpRange => TypedParams::IpRange(IpRangeParams::parse(name, params)?),
            AggKind::Missing => TypedParams::Missing(MissingParams::parse(name, params)?),
            AggKind::GeoCentroid => {
                TypedParams::GeoCentroid(GeoCentroidParams::parse(name, params)?)
            }
            AggKind::GeoBounds => TypedParams::GeoBounds(GeoBoundsParams::parse(name, params)?),
            AggKind::GeohashGrid => {
                TypedParams::GeoGrid(GeoGridParams::parse(GridSystem::Geohash, name, params)?)
            }
            AggKind::GeotileGrid => {
                TypedParams::GeoGrid(GeoGridParams::parse(GridSystem::Geotile, name, params)?)
            }
            k if NestedParams::covers(k) => {
                TypedParams::Nested(NestedParams::parse(k, name, params)?)
            }
            AggKind::TopHits => TypedParams::TopHits(TopHitsParams::parse(name, params)?),
            AggKind::TopMetrics => TypedParams::TopMetrics(TopMetricsParams::parse(name, params)?),
            AggKind::Filter => TypedParams::Filter(FilterParams::parse(name, params)?),
            AggKind::Global => global(name, params, parent)?,
            AggKind::RandomSampler => {
                TypedParams::RandomSampler(RandomSamplerParams::parse(name, params, parent)?)
            }
            AggKind::Sampler | AggKind::DiversifiedSampler => {
                TypedParams::Sampler(SamplerParams::parse(kind, name, params)?)
            }
            AggKind::Filters => TypedParams::Filters(FiltersParams::parse(name, params)?),
            k if BucketScriptParams::covers(k) => {
                TypedParams::BucketScript(BucketScriptParams::parse(k, name, params, parent)?)
            }
            AggKind::MovingFn => {
                TypedParams::MovingFn(MovingFnParams::parse(name, params, parent)?)
            }
            k if SiblingParams::covers(k) => {
                TypedParams::Sibling(SiblingParams::parse(k, name, params)?)
            }
            k if PipelineParams::covers(k) => {
                TypedParams::Pipeline(PipelineParams::parse(k, name, params, parent)?)
            }
            k if MetricParams::covers(k) => {
                TypedParams::Metric(MetricParams::parse(k, name, params)?)
            }
            _ => TypedParams::Untyped,
        })
    }
}

impl TypedParams {
    /// The field of a typed kind's parameters (`None`: untyped, or no
    /// single field: a pipeline, a bucket script, a `weighted_avg`, a
    /// `composite`, a `multi_terms`, a `nested` or `reverse_nested`, a `top_hits`, a
    /// `top_metrics`, a
    /// `filter`, a `filters`).
    pub fn field(&self) -> Option<&str> {
        match self {
            TypedParams::Untyped
            | TypedParams::Pipeline(_)
            | TypedParams::BucketScript(_)
            | TypedParams::WeightedAvg(_)
            | TypedParams::Composite(_)
            | TypedParams::MultiTerms(_)
            | TypedParams::Nested(_)
            | TypedParams::TopHits(_)
            | TypedParams::TopMetrics(_)
            | TypedParams::Filter(_)
            | TypedParams::Filters(_)
            | TypedParams::Sibling(_)
            | TypedParams::MovingFn(_)
            | TypedParams::RandomSampler(_)
            | TypedParams::Sampler(_)
            | TypedParams::Global => None,
            TypedParams::Metric(m) => Some(&m.field),
            TypedParams::Percentiles(p) => Some(&p.field),
            TypedParams::PercentileRanks(p) => Some(&p.field),
            TypedParams::Spread(s) => Some(&s.field),
            TypedParams::Cardinality(c) => Some(&c.field),
            TypedParams::StringStats(s) => Some(&s.field),
            TypedParams::Rate(r) => r.field.as_deref(),
            TypedParams::Terms(t) => Some(t.field()),
            TypedParams::Histogram(h) => Some(h.field()),
            TypedParams::DateHistogram(d) => Some(&d.field),
            TypedParams::AutoDateHistogram(d) => Some(&d.field),
            TypedParams::RareTerms(r) => Some(&r.values.field),
            TypedParams::SignificantTerms(s) => Some(&s.values.field),
            TypedParams::Range(r) => Some(&r.field),
            TypedParams::IpRange(r) => Some(&r.field),
            TypedParams::Missing(m) => Some(&m.field),
            TypedParams::GeoCentroid(g) => Some(&g.field),
            TypedParams::GeoBounds(g) => Some(&g.field),
            TypedParams::GeoGrid(g) => Some(&g.field),
        }
    }
}

/// `global`: an empty object, at the top level (it ignores the query, so
/// no bucket can hold it).
fn global(name: &str, params: &Value, parent: Option<AggKind>) -> Result<TypedParams> {
    match params.as_object() {
        Some(obj) if obj.is_empty() => {}
        Some(obj) => {
            let key = obj.keys().next().map(String::as_str).unwrap_or_default();
            return Err(SearchError::parsing(format!(
                "[global] unknown field [{key}]"
            )));
        }
        None => {
            return Err(SearchError::parsing(format!(
                "[global] of [{name}] must be an object"
            )))
        }
    }
    if let Some(parent) = parent {
        return Err(SearchError::illegal(format!(
            "A [{}] aggregation cannot have a global sub-aggregation [{name}]. Global aggregations can only be defined as top level aggregations",
            parent.name()
        )));
    }
    Ok(TypedParams::Global)
}
