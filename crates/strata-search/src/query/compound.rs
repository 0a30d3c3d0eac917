//! `bool`, `constant_score`, `match_all` and `match_none`.

use tantivy::query::{AllQuery, BooleanQuery, ConstScoreQuery, EmptyQuery, Occur, Query};

use super::ast::{wrap_clause_error, BoolQuery, ConstantScore, QueryAst, Translate};
use super::context::QueryContext;
use super::params::with_boost;
use crate::error::Result;

pub fn match_all(boost: f64) -> Box<dyn Query> {
    with_boost(Box::new(AllQuery), boost)
}

pub fn match_none() -> Box<dyn Query> {
    Box::new(EmptyQuery)
}

/// The queries of the `bool` clause `name` of a query at level `depth`.
/// A clause's parse errors were wrapped as Elasticsearch's `ObjectParser`
/// does when the tree was parsed; the errors of their translation that
/// are parse errors (a value a field's type refuses to parse) are wrapped
/// alike.
fn clauses(
    ctx: &QueryContext<'_>,
    name: &str,
    queries: &[QueryAst<'_>],
    depth: usize,
    translate: Translate,
) -> Result<Vec<Box<dyn Query>>> {
    queries
        .iter()
        .map(|q| translate(ctx, q, depth + 1).map_err(|e| wrap_clause_error(name, e)))
        .collect()
}

/// `bool`, at nesting level `depth`; its clauses are translated by `translate`.
pub fn boolean(
    ctx: &QueryContext<'_>,
    q: &BoolQuery<'_>,
    depth: usize,
    translate: Translate,
) -> Result<Box<dyn Query>> {
    let must = clauses(ctx, "must", &q.must, depth, translate)?;
    let filter = clauses(ctx, "filter", &q.filter, depth, translate)?;
    let should = clauses(ctx, "should", &q.should, depth, translate)?;
    let must_not = clauses(ctx, "must_not", &q.must_not, depth, translate)?;
    let has_required = !must.is_empty() || !filter.is_empty();
    let n_should = should.len();
    let msm = match &q.minimum_should_match {
        Some(m) => m.resolve(n_should)?,
        None if !has_required && n_should > 0 => 1,
        None => 0,
    };
    let mut subqueries: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    subqueries.extend(must.into_iter().map(|q| (Occur::Must, q)));
    for q in filter {
        subqueries.push((
            Occur::Must,
            Box::new(ConstScoreQuery::new(q, 0.0)) as Box<dyn Query>,
        ));
    }
    subqueries.extend(should.into_iter().map(|q| (Occur::Should, q)));
    subqueries.extend(must_not.into_iter().map(|q| (Occur::MustNot, q)));
    if subqueries.iter().all(|(o, _)| *o == Occur::MustNot) {
        // A purely negative bool matches everything but the excluded.
        subqueries.push((
            Occur::Must,
            Box::new(ConstScoreQuery::new(Box::new(AllQuery), 0.0)),
        ));
    }
    let query = if msm > 0 {
        BooleanQuery::with_minimum_required_clauses(subqueries, msm)
    } else {
        BooleanQuery::new(subqueries)
    };
    Ok(with_boost(Box::new(query), q.boost))
}

/// `constant_score`, at nesting level `depth`; its filter is translated by `translate`.
pub fn constant_score(
    ctx: &QueryContext<'_>,
    q: &ConstantScore<'_>,
    depth: usize,
    translate: Translate,
) -> Result<Box<dyn Query>> {
    Ok(Box::new(ConstScoreQuery::new(
        translate(ctx, &q.filter, depth + 1)?,
        q.boost as f32,
    )))
}
