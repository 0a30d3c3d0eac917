//! `dis_max`: a document's score is its best clause's plus `tie_breaker`
//! times the others'; it matches what any clause matches.

use tantivy::query::{DisjunctionMaxQuery, Query};

use super::ast::{DisMax, Translate};
use super::context::QueryContext;
use super::params::with_boost;
use crate::error::Result;

/// `{"dis_max": {"queries": [...], "tie_breaker": 0.7}}` at level `depth`,
/// its queries translated by `translate`.
pub fn dis_max(
    ctx: &QueryContext<'_>,
    q: &DisMax<'_>,
    depth: usize,
    translate: Translate,
) -> Result<Box<dyn Query>> {
    let queries: Vec<Box<dyn Query>> = q
        .queries
        .iter()
        .map(|q| translate(ctx, q, depth + 1))
        .collect::<Result<_>>()?;
    let dis_max = DisjunctionMaxQuery::with_tie_breaker(queries, q.tie_breaker as f32);
    Ok(with_boost(Box::new(dis_max), q.boost))
}
