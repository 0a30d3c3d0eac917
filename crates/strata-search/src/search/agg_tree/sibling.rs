//! [`SiblingParams`]: the parameters of the sibling pipeline aggregations
//! (`avg_bucket`, `max_bucket`, `min_bucket`, `sum_bucket`,
//! `stats_bucket`, `extended_stats_bucket`, `percentiles_bucket`), which
//! summarize one value over the buckets of a multi-bucket aggregation
//! beside them. `buckets_path` is `<sibling>>...<value>` (`sales>_count`,
//! `by_day>revenue`, `by_day>stats.avg`); whether its first step names a
//! multi-bucket sibling is checked against the tree when the request is
//! planned (`search::sibling_pipelines`). `format` is refused, as it is for
//! the parent pipelines.

use serde_json::{Map, Value};

use super::pipeline::gap_policy;
use super::{AggKind, GapPolicy};
use crate::error::{Result, SearchError};

/// Elasticsearch's default `percents` of `percentiles_bucket`.
const DEFAULT_PERCENTS: [f64; 7] = [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];

/// What a sibling pipeline computes over the values.
#[derive(Debug, Clone, PartialEq)]
pub enum SiblingKind {
    /// `avg_bucket`.
    Avg,
    /// `max_bucket`: the value and the keys of the buckets holding it.
    Max,
    /// `min_bucket`: likewise.
    Min,
    /// `sum_bucket`.
    Sum,
    /// `stats_bucket`.
    Stats,
    /// `extended_stats_bucket`, with the bounds at `sigma` deviations.
    ExtendedStats {
        /// Standard deviations from the mean of the bounds (default 2).
        sigma: f64,
    },
    /// `percentiles_bucket`: nearest-rank percentiles of the values.
    Percentiles {
        /// Percents, 0 to 100.
        percents: Vec<f64>,
        /// An object keyed by percent (default) or an array.
        keyed: bool,
    },
}

/// The parameters of one sibling pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct SiblingParams {
    /// What it computes.
    pub kind: SiblingKind,
    /// `<sibling>>...<value>`.
    pub buckets_path: String,
    /// What a gap (missing value, empty bucket) counts as.
    pub gap_policy: GapPolicy,
}

impl SiblingParams {
    /// Whether `kind` is a sibling pipeline.
    pub(crate) fn covers(kind: AggKind) -> bool {
        matches!(
            kind,
            AggKind::AvgBucket
                | AggKind::MaxBucket
                | AggKind::MinBucket
                | AggKind::SumBucket
                | AggKind::StatsBucket
                | AggKind::ExtendedStatsBucket
                | AggKind::PercentilesBucket
        )
    }

    /// The parameters `params` of sibling pipeline `name` of `kind`.
    pub(crate) fn parse(kind: AggKind, name: &str, params: &Value) -> Result<SiblingParams> {
        let kind_name = kind.name();
        let obj = params.as_object().ok_or_else(|| {
            SearchError::parsing(format!("[{kind_name}] of [{name}] must be an object"))
        })?;
        let own: &[&str] = match kind {
            AggKind::ExtendedStatsBucket => &["sigma"],
            AggKind::PercentilesBucket => &["percents", "keyed"],
            _ => &[],
        };
        let common = ["buckets_path", "gap_policy", "format"];
        if let Some(k) = obj
            .keys()
            .find(|k| !common.contains(&k.as_str()) && !own.contains(&k.as_str()))
        {
            return Err(SearchError::parsing(format!(
                "[{kind_name}] unknown field [{k}] in aggregation [{name}]"
            )));
        }
        if obj.get("format").is_some_and(|f| !f.is_null()) {
            return Err(SearchError::illegal(format!(
                "[format] of [{kind_name}] aggregation [{name}] is not supported"
            )));
        }
        let buckets_path = match obj.get("buckets_path") {
            Some(Value::String(p)) if !p.is_empty() => p.clone(),
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "[buckets_path] of [{name}] must be a non-empty string, got [{other}]"
                )))
            }
            None => {
                return Err(SearchError::parsing(format!(
                    "Missing required field [buckets_path] for aggregation [{name}]"
                )))
            }
        };
        let gap_policy = gap_policy(name, obj)?;
        let kind = match kind {
            AggKind::AvgBucket => SiblingKind::Avg,
            AggKind::MaxBucket => SiblingKind::Max,
            AggKind::MinBucket => SiblingKind::Min,
            AggKind::SumBucket => SiblingKind::Sum,
            AggKind::StatsBucket => SiblingKind::Stats,
            AggKind::ExtendedStatsBucket => SiblingKind::ExtendedStats {
                sigma: sigma(name, obj)?,
            },
            _ => SiblingKind::Percentiles {
                percents: percents(name, obj)?,
                keyed: match obj.get("keyed") {
                    None => true,
                    Some(v) => v.as_bool().ok_or_else(|| {
                        SearchError::parsing(format!("[keyed] of [{name}] must be a boolean"))
                    })?,
                },
            },
        };
        Ok(SiblingParams {
            kind,
            buckets_path,
            gap_policy,
        })
    }
}

/// `sigma` of an `extended_stats_bucket`: a non-negative number, default 2.
fn sigma(name: &str, obj: &Map<String, Value>) -> Result<f64> {
    match obj.get("sigma") {
        None => Ok(2.0),
        Some(v) => match v.as_f64() {
            Some(s) if s >= 0.0 => Ok(s),
            _ => Err(SearchError::illegal(format!(
                "[sigma] must be greater than or equal to 0. Found [{v}] in [{name}]"
            ))),
        },
    }
}

/// `percents` of a `percentiles_bucket`: numbers from 0 to 100.
fn percents(name: &str, obj: &Map<String, Value>) -> Result<Vec<f64>> {
    let Some(v) = obj.get("percents") else {
        return Ok(DEFAULT_PERCENTS.to_vec());
    };
    let bad = || {
        SearchError::illegal(format!(
            "[percents] of [{name}] must be an array of numbers from 0.0 to 100.0, got [{v}]"
        ))
    };
    let list = v.as_array().ok_or_else(bad)?;
    list.iter()
        .map(|p| {
            p.as_f64()
                .filter(|p| (0.0..=100.0).contains(p))
                .ok_or_else(bad)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{SiblingKind, SiblingParams};
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::{GapPolicy, TypedParams};

    #[test]
    fn parameters_and_defaults() {
        let sibling = |kind, path: &str, gap_policy| {
            TypedParams::Sibling(SiblingParams {
                kind,
                buckets_path: path.into(),
                gap_policy,
            })
        };
        let got = typed("m", "max_bucket", json!({"buckets_path": "by>s"})).unwrap();
        assert_eq!(got, sibling(SiblingKind::Max, "by>s", GapPolicy::Skip));
        let body = json!({"buckets_path": "h>_count", "gap_policy": "insert_zeros", "sigma": 1.5});
        let got = typed("e", "extended_stats_bucket", body).unwrap();
        let want = SiblingKind::ExtendedStats { sigma: 1.5 };
        assert_eq!(got, sibling(want, "h>_count", GapPolicy::InsertZeros));
        let got = typed("p", "percentiles_bucket", json!({"buckets_path": "h>s"})).unwrap();
        let percents = vec![1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];
        let want = SiblingKind::Percentiles {
            percents,
            keyed: true,
        };
        assert_eq!(got, sibling(want, "h>s", GapPolicy::Skip));
        let body = json!({"buckets_path": "h>s", "percents": [10, 50.5], "keyed": false});
        let got = typed("p", "percentiles_bucket", body).unwrap();
        let want = SiblingKind::Percentiles {
            percents: vec![10.0, 50.5],
            keyed: false,
        };
        assert_eq!(got, sibling(want, "h>s", GapPolicy::Skip));
    }

    #[test]
    fn bad_parameters_are_refused() {
        let cases = [
            (
                json!({}),
                "Missing required field [buckets_path] for aggregation [g]",
                "parsing_exception",
            ),
            (
                json!({"buckets_path": ["a>b"]}),
                "[buckets_path] of [g] must be a non-empty string, got [[\"a>b\"]]",
                "parsing_exception",
            ),
            (
                json!({"buckets_path": "a>b", "sigma": 2}),
                "[avg_bucket] unknown field [sigma] in aggregation [g]",
                "parsing_exception",
            ),
            (
                json!({"buckets_path": "a>b", "format": "0.0"}),
                "[format] of [avg_bucket] aggregation [g] is not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"buckets_path": "a>b", "gap_policy": "fill"}),
                "Unknown gap policy [fill] of [g], expected [skip, insert_zeros, keep_values]",
                "parsing_exception",
            ),
        ];
        assert_refusals("g", "avg_bucket", &cases);
        let cases = [(
            json!({"buckets_path": "a>b", "percents": [101]}),
            "[percents] of [g] must be an array of numbers from 0.0 to 100.0, got [[101]]",
            "illegal_argument_exception",
        )];
        assert_refusals("g", "percentiles_bucket", &cases);
        let cases = [(
            json!({"buckets_path": "a>b", "sigma": -1}),
            "[sigma] must be greater than or equal to 0. Found [-1] in [g]",
            "illegal_argument_exception",
        )];
        assert_refusals("g", "extended_stats_bucket", &cases);
    }
}
