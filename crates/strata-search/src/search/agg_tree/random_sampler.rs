//! [`RandomSamplerParams`]: the `random_sampler` aggregation's parameters
//! and the checks Elasticsearch 8.15 makes of it
//! (`RandomSamplerAggregationBuilder`): `probability` (0 < p <= 0.5, or
//! exactly 1), `seed` and `shard_seed` (ints), nothing else; top level
//! only; sub-aggregations required, each of a kind that can be sampled.
//!
//! Which kinds can be sampled is what [`SampleScale`] says: how the
//! final reduce of Elasticsearch (`InternalRandomSampler.reduce`, each
//! sub-result's `finalizeSampling`) scales a result by `1 / p`, for the
//! kinds whose rule was read there. A kind without a rule here is
//! refused rather than answered unscaled.

use serde_json::Value;

use super::{AggKind, BucketScriptParams, PipelineParams, SiblingParams};
use crate::error::{Result, SearchError};
use crate::search::java_double::java_double;

const KIND: &str = "random_sampler";

/// The parameters of one `random_sampler` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct RandomSamplerParams {
    /// `probability` (`None`: not written, refused by [`Self::check_subs`]
    /// after the sub-aggregations' check, as Elasticsearch orders them).
    pub probability: Option<f64>,
    /// `seed` (`None`: one drawn per request).
    pub seed: Option<i32>,
    /// `shard_seed`.
    pub shard_seed: Option<i32>,
}

/// How a sub-aggregation's result is scaled up by `1 / p` (Elasticsearch's
/// `SamplingContext.scaleUp`: a count is rounded, a double divided).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleScale {
    /// Bucket aggregations: every bucket's `doc_count` (and a `terms`'
    /// error bounds and `sum_other_doc_count`), and their buckets'
    /// sub-aggregations in turn (`InternalFilter`, `InternalRange`,
    /// `AbstractInternalTerms`, `InternalMappedRareTerms`,
    /// `InternalGeoGrid`; the histograms and `filters` by the contract of
    /// the multi-bucket results' tests that support sampling, such as
    /// `InternalDateHistogramTests`:
    /// `InternalMultiBucketAggregationTestCase.assertSampled`).
    Buckets,
    /// `sum`: its value (`Sum`).
    Sum,
    /// `value_count`: its count (`InternalValueCount`).
    Count,
    /// `geo_centroid`: its `count`, the centroid kept
    /// (`InternalGeoCentroid`).
    Centroid,
    /// `stats`: `count` and `sum`, `avg` following; `min` and `max` kept
    /// (`InternalStats`); `extended_stats` its `sum_of_squares` too, the
    /// variances and deviations following (`InternalExtendedStats`, as
    /// its tests' `assertSampled` states).
    Stats,
    /// Kept as sampled: `min`, `max`, `avg` (`InternalAvg` returns
    /// itself), `percentiles` and `percentile_ranks` (both digests return
    /// themselves), `median_absolute_deviation`, `top_hits` and
    /// `geo_bounds` (their tests' `assertSampled`: equal to the unscaled
    /// result).
    Kept,
    /// Pipelines computed after the scaling (`bucket_script`,
    /// `bucket_selector`, `moving_fn`, the sibling pipelines on the
    /// response; the parent pipelines by the sampler): they read scaled
    /// values, as Elasticsearch's do after its final reduce.
    Later,
}

impl SampleScale {
    /// The rule of `kind`; `None` for a kind that cannot be sampled here.
    pub fn of(kind: AggKind) -> Option<SampleScale> {
        use AggKind::*;
        Some(match kind {
            Terms | RareTerms | Histogram | DateHistogram | Range | DateRange | Filter
            | Filters | GeohashGrid | GeotileGrid => SampleScale::Buckets,
            GeoCentroid => SampleScale::Centroid,
            Sum => SampleScale::Sum,
            ValueCount => SampleScale::Count,
            Stats | ExtendedStats => SampleScale::Stats,
            Min
            | Max
            | Avg
            | Percentiles
            | PercentileRanks
            | MedianAbsoluteDeviation
            | TopHits
            | GeoBounds => SampleScale::Kept,
            // Its cardinalities cannot be sampled (`cardinality` is refused).
            CumulativeCardinality => return None,
            MovingFn => SampleScale::Later,
            k if BucketScriptParams::covers(k)
                || SiblingParams::covers(k)
                || PipelineParams::covers(k) =>
            {
                SampleScale::Later
            }
            _ => return None,
        })
    }
}

impl RandomSamplerParams {
    /// The parameters `params` of the `random_sampler` `name`, in a
    /// `parent` aggregation (`None`: at the top level).
    pub fn parse(name: &str, params: &Value, parent: Option<AggKind>) -> Result<Self> {
        let obj = params.as_object().ok_or_else(|| SearchError::FieldParse {
            reason: format!("[{KIND}] expected an object, got [{params}]"),
            cause: None,
        })?;
        let mut out = RandomSamplerParams {
            probability: None,
            seed: None,
            shard_seed: None,
        };
        for (key, value) in obj {
            match key.as_str() {
                "probability" => out.probability = Some(probability(value)?),
                "seed" => out.seed = Some(int(key, value)?),
                "shard_seed" => out.shard_seed = Some(int(key, value)?),
                _ => {
                    return Err(SearchError::FieldParse {
                        reason: format!("[{KIND}] unknown field [{key}]"),
                        cause: None,
                    })
                }
            }
        }
        if parent.is_some() {
            return Err(SearchError::illegal(format!(
                "[{KIND}] aggregation [{name}] cannot have a parent aggregation"
            )));
        }
        Ok(out)
    }

    /// The checks of the built aggregation `name` whose sub-aggregations
    /// and all below them are `below` (name, kind; parents first, in
    /// request order), in Elasticsearch's order: some sub-aggregation, a
    /// `probability`, and every aggregation below of a kind that can be
    /// sampled.
    pub fn check_subs(&self, name: &str, below: &[(&str, AggKind)]) -> Result<()> {
        if below.is_empty() {
            return Err(SearchError::illegal(format!(
                "[{KIND}] aggregation [{name}] must have sub-aggregations"
            )));
        }
        if self.probability.is_none() {
            return Err(SearchError::illegal(format!(
                "[{KIND}] aggregation [{name}] must have [probability] set"
            )));
        }
        for (sub, kind) in below {
            let kind_name = kind.name();
            if *kind == AggKind::Cardinality {
                // Elasticsearch's own refusal (its builder does not
                // support sampling).
                return Err(SearchError::illegal(format!(
                    "[{KIND}] aggregation [{name}] does not support sampling [{kind_name}] aggregation [{sub}]"
                )));
            }
            if SampleScale::of(*kind).is_none() {
                return Err(SearchError::illegal(format!(
                    "[{KIND}] aggregation [{name}]: sampling [{kind_name}] aggregation [{sub}] is not supported by this server"
                )));
            }
        }
        Ok(())
    }
}

/// `probability`: a number (or a string of one), 0 < p <= 0.5 or 1.
fn probability(value: &Value) -> Result<f64> {
    let p = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    let fail =
        |msg: String| SearchError::field_parse(KIND, "probability", SearchError::illegal(msg));
    let p = p.ok_or_else(|| fail(format!("[probability] must be a number, was [{value}]")))?;
    if p <= 0.0 || p.is_nan() {
        return Err(fail(format!(
            "[probability] must be greater than 0.0, was [{}]",
            java_double(p)
        )));
    }
    if p > 0.5 && p != 1.0 {
        return Err(fail(format!(
            "[probability] must be between 0.0 and 0.5 or exactly 1.0, was [{}]",
            java_double(p)
        )));
    }
    Ok(p)
}

/// An int parameter (`seed`, `shard_seed`): an integer in Java's `int`
/// range, or a string of one.
fn int(key: &str, value: &Value) -> Result<i32> {
    let n = match value {
        Value::Number(n) => n.as_i64().and_then(|n| i32::try_from(n).ok()),
        Value::String(s) => s.trim().parse::<i32>().ok(),
        _ => None,
    };
    n.ok_or_else(|| {
        SearchError::field_parse(
            KIND,
            key,
            SearchError::illegal(format!("[{key}] must be an int, was [{value}]")),
        )
    })
}
