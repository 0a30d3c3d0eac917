//! [`PipelineParams`]: the parameters of the parent pipeline aggregations
//! `search::pipelines` computes (`derivative`, `cumulative_sum`,
//! `serial_diff`, `bucket_sort`, `normalize`, `cumulative_cardinality`), typed when the request is parsed. The parent's kind is
//! known then, so a pipeline in the wrong place is refused at parse, in
//! Elasticsearch's words. The checks run in the order translation ran
//! them before (keys, `format`, `gap_policy`, parent, then each kind's
//! own), so a request with several faults gets the same error.
//! (`bucket_script` and `bucket_selector` are the script module's: it takes
//! them out of the request before the search runs.)

use serde_json::{Map, Value};

use super::AggKind;
use crate::error::{Result, SearchError};
use crate::search::calendar::CalendarUnit;
use crate::search::decimal_format::DecimalFormat;
pub use crate::search::normalize::NormalizeMethod;

/// What a gap (missing value, empty bucket) counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapPolicy {
    /// The bucket is skipped (Elasticsearch's NaN); the default.
    Skip,
    /// A gap counts as zero.
    InsertZeros,
    /// A missing value in a non-empty bucket is kept; otherwise skipped.
    KeepValues,
}

/// One `bucket_sort` key: a bucket path and whether it sorts descending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    /// `_key`, `_count` or a metric's path.
    pub path: String,
    /// `desc`.
    pub descending: bool,
}

/// The parameters of one parent pipeline aggregation.
#[derive(Debug, Clone, PartialEq)]
pub enum PipelineParams {
    /// `derivative`: each bucket's value minus the previous bucket's.
    Derivative {
        /// The value's path in a bucket.
        buckets_path: String,
        /// What a gap counts as.
        gap_policy: GapPolicy,
        /// `unit`, in milliseconds: also the derivative per unit of keys.
        unit_millis: Option<f64>,
    },
    /// `cumulative_sum`: the running total (a gap counts as zero).
    CumulativeSum {
        /// The value's path in a bucket.
        buckets_path: String,
    },
    /// `serial_diff`: each bucket's value minus that of `lag` buckets before.
    SerialDiff {
        /// The value's path in a bucket.
        buckets_path: String,
        /// What a gap counts as.
        gap_policy: GapPolicy,
        /// Buckets back, at least 1.
        lag: usize,
    },
    /// `normalize`: each bucket's value rescaled against all the buckets'.
    Normalize {
        /// The value's path in a bucket.
        buckets_path: String,
        /// How it is rescaled.
        method: NormalizeMethod,
        /// A `DecimalFormat` pattern for `value_as_string` (checked at parse).
        format: Option<String>,
    },
    /// `cumulative_cardinality`: the distinct values of a `cardinality`
    /// sub-aggregation's field in this bucket and all before it.
    CumulativeCardinality {
        /// The `cardinality` sibling's name.
        buckets_path: String,
        /// A `DecimalFormat` pattern for `value_as_string` (checked at parse).
        format: Option<String>,
    },
    /// `bucket_sort`: sorts by `sort`, then keeps `size` buckets from `from`.
    BucketSort {
        /// The keys, most significant first (none: the order stays).
        sort: Vec<SortKey>,
        /// Buckets skipped after sorting.
        from: usize,
        /// Buckets kept (`None`: all).
        size: Option<usize>,
        /// What a gap counts as (`skip` drops the bucket).
        gap_policy: GapPolicy,
    },
}

impl PipelineParams {
    /// Whether `kind` is one of these pipelines.
    pub(crate) fn covers(kind: AggKind) -> bool {
        matches!(
            kind,
            AggKind::Derivative
                | AggKind::CumulativeSum
                | AggKind::SerialDiff
                | AggKind::BucketSort
                | AggKind::Normalize
                | AggKind::CumulativeCardinality
        )
    }

    /// The parameters `params` of pipeline `name` of `kind`, which sits in
    /// a `parent` aggregation (`None`: at the top level).
    pub(crate) fn parse(
        kind: AggKind,
        name: &str,
        params: &Value,
        parent: Option<AggKind>,
    ) -> Result<PipelineParams> {
        let kind_name = kind.name();
        let obj = params.as_object().ok_or_else(|| {
            SearchError::parsing(format!("[{kind_name}] of [{name}] must be an object"))
        })?;
        let allowed: &[&str] = match kind {
            AggKind::BucketSort => &["sort", "from", "size", "gap_policy"],
            AggKind::Derivative => &["buckets_path", "gap_policy", "format", "unit"],
            AggKind::SerialDiff => &["buckets_path", "gap_policy", "format", "lag"],
            AggKind::Normalize => &["buckets_path", "method", "format"],
            _ => &["buckets_path", "format"],
        };
        if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(SearchError::parsing(format!(
                "[{kind_name}] unknown field [{k}] in aggregation [{name}]"
            )));
        }
        let format = match obj.get("format") {
            Some(Value::String(f))
                if matches!(kind, AggKind::Normalize | AggKind::CumulativeCardinality) =>
            {
                DecimalFormat::parse(f)?;
                Some(f.clone())
            }
            _ => None,
        };
        if format.is_none() && obj.get("format").is_some_and(|f| !f.is_null()) {
            return Err(SearchError::illegal(format!(
                "[format] of [{kind_name}] aggregation [{name}] is not supported"
            )));
        }
        let gap_policy = gap_policy(name, obj)?;
        check_parent(kind, name, parent)?;
        if kind == AggKind::CumulativeCardinality && parent == Some(AggKind::AutoDateHistogram) {
            // Its buckets are merged after the pass, where the per-bucket
            // distinct values this needs are not kept.
            return Err(SearchError::illegal(format!(
                "cumulative_cardinality aggregation [{name}] under an auto_date_histogram is not supported by this server"
            )));
        }
        Ok(match kind {
            AggKind::BucketSort => PipelineParams::BucketSort {
                sort: sort_keys(name, obj)?,
                from: count(name, obj, "from")?.unwrap_or(0),
                size: count(name, obj, "size")?,
                gap_policy,
            },
            AggKind::Derivative => PipelineParams::Derivative {
                buckets_path: buckets_path(name, obj)?,
                gap_policy,
                unit_millis: unit_millis(name, obj)?,
            },
            AggKind::SerialDiff => PipelineParams::SerialDiff {
                buckets_path: buckets_path(name, obj)?,
                gap_policy,
                lag: lag(name, obj)?,
            },
            AggKind::Normalize => PipelineParams::Normalize {
                buckets_path: buckets_path(name, obj)?,
                method: match obj.get("method") {
                    Some(Value::String(m)) => NormalizeMethod::parse(name, m)?,
                    Some(other) => {
                        return Err(SearchError::parsing(format!(
                            "[method] of [{name}] must be a string, got [{other}]"
                        )))
                    }
                    None => {
                        return Err(SearchError::parsing(format!(
                            "Required parameter [method] missing in [{name}]"
                        )))
                    }
                },
                format,
            },
            AggKind::CumulativeCardinality => PipelineParams::CumulativeCardinality {
                buckets_path: buckets_path(name, obj)?,
                format,
            },
            _ => PipelineParams::CumulativeSum {
                buckets_path: buckets_path(name, obj)?,
            },
        })
    }
}

/// Refuses pipeline `name` of `kind` in a `parent` aggregation
/// (`None`: at the top level) it cannot sit in: `bucket_sort` needs a
/// parent, the others a `histogram`, `date_histogram` or
/// `auto_date_histogram` one.
pub(crate) fn check_parent(kind: AggKind, name: &str, parent: Option<AggKind>) -> Result<()> {
    let histogram = matches!(
        parent,
        Some(AggKind::Histogram | AggKind::DateHistogram | AggKind::AutoDateHistogram)
    );
    match kind {
        AggKind::BucketSort if parent.is_none() => Err(SearchError::illegal(format!(
            "bucket_sort aggregation [{name}] must be declared inside of another aggregation"
        ))),
        AggKind::BucketSort => Ok(()),
        _ if histogram => Ok(()),
        _ => {
            let has = if parent.is_some() {
                ""
            } else {
                " but doesn't have a parent"
            };
            Err(SearchError::illegal(format!(
                "{} aggregation [{name}] must have a histogram, date_histogram or auto_date_histogram as parent{has}",
                kind.name()
            )))
        }
    }
}

/// `gap_policy` of pipeline `name` (default `skip`).
pub(super) fn gap_policy(name: &str, obj: &Map<String, Value>) -> Result<GapPolicy> {
    match obj.get("gap_policy").and_then(Value::as_str) {
        None | Some("skip") => Ok(GapPolicy::Skip),
        Some("insert_zeros") => Ok(GapPolicy::InsertZeros),
        Some("keep_values") => Ok(GapPolicy::KeepValues),
        Some(other) => Err(SearchError::parsing(format!(
            "Unknown gap policy [{other}] of [{name}], expected [skip, insert_zeros, keep_values]"
        ))),
    }
}

fn buckets_path(name: &str, obj: &Map<String, Value>) -> Result<String> {
    match obj.get("buckets_path") {
        Some(Value::String(p)) => Ok(p.clone()),
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

/// `lag` of a serial difference: a positive integer, default 1.
fn lag(name: &str, obj: &Map<String, Value>) -> Result<usize> {
    match obj.get("lag") {
        None => Ok(1),
        Some(v) => v
            .as_u64()
            .filter(|n| *n > 0)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .ok_or_else(|| {
                SearchError::illegal(format!("[lag] must be a positive integer: [{name}]"))
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

/// `bucket_sort`'s `sort`: one key or a list of them, each a path
/// (ascending) or `{path: order}` / `{path: {"order": order}}`.
fn sort_keys(name: &str, obj: &Map<String, Value>) -> Result<Vec<SortKey>> {
    let items = match obj.get("sort") {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.as_slice(),
        Some(one) => std::slice::from_ref(one),
    };
    let bad = |v: &Value| SearchError::parsing(format!("[sort] of [{name}] malformed: {v}"));
    let key = |path: &String, descending| SortKey {
        path: path.clone(),
        descending,
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(p) => Ok(key(p, false)),
            Value::Object(o) if o.len() == 1 => {
                let (p, spec) = o.iter().next().ok_or_else(|| bad(item))?;
                let order = match spec {
                    Value::String(s) => s.as_str(),
                    Value::Object(s) => s.get("order").and_then(Value::as_str).unwrap_or("asc"),
                    _ => return Err(bad(item)),
                };
                match order {
                    "asc" => Ok(key(p, false)),
                    "desc" => Ok(key(p, true)),
                    _ => Err(bad(item)),
                }
            }
            _ => Err(bad(item)),
        })
        .collect()
}

#[cfg(test)]
#[path = "pipeline_tests.rs"]
mod tests;
