//! The `cumulative_cardinality` pipeline (Elasticsearch's x-pack
//! `CumulativeCardinalityPipelineAggregator`): in each bucket of a
//! `histogram` or `date_histogram`, in key order, the number of distinct
//! values of a sibling `cardinality`'s field in that bucket and every
//! bucket before it.
//!
//! A sum of the buckets' counts would count a value seen in two buckets
//! twice, so this unions the buckets' distinct values themselves: each
//! bucket's set (the `cardinality` scan's, over the bucket's documents)
//! is merged into a running one, exact up to the `cardinality`'s
//! `precision_threshold` and a HyperLogLog union beyond it, as
//! `cardinality` counts: memory stays bounded by the threshold.

use serde_json::{json, Value};

use super::agg_tree::{AggNode, PipelineParams, TypedParams};
use super::decimal_format::DecimalFormat;
use super::distinct_count::DistinctCount;
use crate::error::{Result, SearchError};

/// The distinct values of a `cardinality` (`&AggNode`) in one bucket.
pub type Distinct<'a> = dyn FnMut(&Value, &AggNode) -> Result<DistinctCount> + 'a;

/// Writes every `cumulative_cardinality` among `pipelines` into each of
/// `buckets` (in key order), reading the `cardinality` it names among the
/// parent's `deferred` sub-aggregations through `distinct`.
pub fn fill(
    buckets: &mut [Value],
    pipelines: &[(String, PipelineParams)],
    deferred: &[AggNode],
    distinct: &mut Distinct<'_>,
) -> Result<()> {
    for (name, params) in pipelines {
        let PipelineParams::CumulativeCardinality {
            buckets_path,
            format,
        } = params
        else {
            continue;
        };
        // The tree's parse checked that the path names a sibling
        // `cardinality`; one not computed per bucket here is refused.
        let target = deferred.iter().find_map(|n| match &n.typed {
            TypedParams::Cardinality(c) if &n.name == buckets_path => {
                Some((n, c.precision_threshold))
            }
            _ => None,
        });
        let Some((node, threshold)) = target else {
            return Err(SearchError::illegal(format!(
                "cumulative_cardinality [{name}] over [{buckets_path}] is not supported here by this server"
            )));
        };
        // The pattern was checked when the request was parsed.
        let format = format.as_deref().and_then(|f| DecimalFormat::parse(f).ok());
        let mut seen = DistinctCount::default();
        for bucket in buckets.iter_mut() {
            seen.merge(distinct(bucket, node)?, threshold);
            let count = seen.count();
            let mut out = json!({ "value": count });
            if let Some(f) = &format {
                out["value_as_string"] = json!(f.format(count as f64));
            }
            bucket[name.as_str()] = out;
        }
    }
    Ok(())
}
