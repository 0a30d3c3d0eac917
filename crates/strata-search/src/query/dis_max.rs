//! `dis_max`: a document's score is its best clause's plus `tie_breaker`
//! times the others'; it matches what any clause matches.

use serde_json::Value;
use tantivy::query::{DisjunctionMaxQuery, Query};

use super::context::{Build, QueryContext};
use super::params::{boosted, check_params};
use crate::error::{Result, SearchError};

/// `{"dis_max": {"queries": [...], "tie_breaker": 0.7}}` at level `depth`,
/// its queries translated by `build`.
pub fn dis_max(
    ctx: &QueryContext<'_>,
    body: &Value,
    depth: usize,
    build: Build,
) -> Result<Box<dyn Query>> {
    let params = body.as_object().ok_or_else(|| {
        SearchError::parsing("[dis_max] query malformed, no start_object after query name")
    })?;
    check_params("dis_max", params, &["queries", "tie_breaker"])?;
    let queries: Vec<Box<dyn Query>> = match params.get("queries") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|q| build(ctx, q, depth + 1))
            .collect::<Result<_>>()?,
        Some(q @ Value::Object(_)) => vec![build(ctx, q, depth + 1)?],
        Some(other) => {
            return Err(SearchError::parsing(format!(
                "[dis_max] queries malformed: {other}"
            )))
        }
        None => {
            return Err(SearchError::parsing(
                "[dis_max] requires 'queries' field with at least one clause",
            ))
        }
    };
    if queries.is_empty() {
        return Err(SearchError::parsing(
            "[dis_max] requires 'queries' field with at least one clause",
        ));
    }
    let tie = match params.get("tie_breaker") {
        None => 0.0,
        Some(v) => v
            .as_f64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .filter(|t| t.is_finite())
            .ok_or_else(|| {
                SearchError::parsing(format!("[dis_max] tie_breaker must be a number, got [{v}]"))
            })?,
    };
    let q = DisjunctionMaxQuery::with_tie_breaker(queries, tie as f32);
    boosted(Box::new(q), body)
}
