//! The `buckets_path` checks of the parent pipelines Elasticsearch
//! validates before a search runs: a `normalize`'s path must start at an
//! aggregation beside it (or `_count`, `_key`), a
//! `cumulative_cardinality`'s must name a `cardinality` beside it.

use super::{AggKind, PipelineParams, TypedParams};
use crate::error::{Result, SearchError};

/// Refuses a `normalize` or `cumulative_cardinality` among the aggregations `level` whose
/// `buckets_path` names no aggregation of that level (nor `_count` or
/// `_key`), as Elasticsearch validates it before the search runs.
/// (`level`: each aggregation's name, kind and parameters.)
pub(super) fn check(level: &[(&str, AggKind, &TypedParams)]) -> Result<()> {
    for (_, _, typed) in level {
        let (buckets_path, cardinality) = match typed {
            TypedParams::Pipeline(PipelineParams::Normalize { buckets_path, .. }) => {
                (buckets_path, false)
            }
            TypedParams::Pipeline(PipelineParams::CumulativeCardinality {
                buckets_path, ..
            }) => (buckets_path, true),
            _ => continue,
        };
        // The first step's aggregation name: before `>`, then before `.`
        // or `[` (a multi-value metric's value).
        // (`cumulative_cardinality`'s is a name, no more.)
        let first = buckets_path.split('>').next().unwrap_or_default();
        let agg = match cardinality {
            true => buckets_path.as_str(),
            false => first.split(['.', '[']).next().unwrap_or_default(),
        };
        let target = level.iter().find(|(n, _, _)| *n == agg);
        if target.is_none() && (cardinality || !matches!(agg, "_count" | "_key")) {
            return Err(SearchError::ActionValidation(format!(
                "No aggregation found for path [{buckets_path}]"
            )));
        }
        // `cumulative_cardinality` reads a sibling `cardinality` itself.
        if let Some((_, kind, _)) = target.filter(|t| cardinality && t.1 != AggKind::Cardinality) {
            return Err(SearchError::ActionValidation(format!(
                "buckets_path must reference a cardinality aggregation, got: [{}]",
                kind.name()
            )));
        }
    }
    Ok(())
}
