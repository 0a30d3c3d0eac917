//! `bool`, `constant_score`, `match_all` and `match_none`.

use serde_json::Value;
use tantivy::query::{AllQuery, BooleanQuery, ConstScoreQuery, EmptyQuery, Occur, Query};

use super::context::{Build, QueryContext};
use super::params::{boosted, check_params, minimum_should_match};
use crate::error::{Result, SearchError};

pub fn match_all(body: &Value) -> Result<Box<dyn Query>> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[match_all] malformed"))?;
    check_params("match_all", params, &[])?;
    boosted(Box::new(AllQuery), body)
}

pub fn match_none(body: &Value) -> Result<Box<dyn Query>> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[match_none] malformed"))?;
    check_params("match_none", params, &[])?;
    Ok(Box::new(EmptyQuery))
}

/// One query or an array of them, the `bool` clause `name` of a query
/// at level `depth`. Elasticsearch parses `bool` with an `ObjectParser`,
/// which wraps a clause's parse error in "[bool] failed to parse field
/// [name]" (an `x_content_parse_exception` caused by it). Only the
/// clause's own parse errors (`parsing_exception`, `x_content_parse_exception`)
/// are wrapped: errors of the shard (a query a field's type refuses,
/// scripts, memory), the nesting limit and Strata's
/// `illegal_argument_exception`s (some of which Elasticsearch raises
/// building the query on the shard, not parsing it) stay as they are.
fn clauses(
    ctx: &QueryContext<'_>,
    name: &str,
    value: Option<&Value>,
    depth: usize,
    build: Build,
) -> Result<Vec<Box<dyn Query>>> {
    let inner = depth + 1;
    let wrap = |e: SearchError| match e {
        SearchError::Parsing(_) | SearchError::FieldParse { .. } => {
            SearchError::field_parse("bool", name, e)
        }
        other => other,
    };
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|q| build(ctx, q, inner).map_err(wrap))
            .collect(),
        Some(q @ Value::Object(_)) => Ok(vec![build(ctx, q, inner).map_err(wrap)?]),
        Some(other) => Err(SearchError::parsing(format!(
            "[bool] clause malformed: {other}"
        ))),
    }
}

/// `bool`, at nesting level `depth`; its clauses are translated by `build`.
pub fn boolean(
    ctx: &QueryContext<'_>,
    body: &Value,
    depth: usize,
    build: Build,
) -> Result<Box<dyn Query>> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[bool] malformed"))?;
    // Elasticsearch 8 parses `bool` declaratively: an unknown key is an
    // `x_content_parse_exception`.
    const KEYS: [&str; 8] = [
        "must",
        "should",
        "filter",
        "must_not",
        "minimum_should_match",
        "adjust_pure_negative",
        "boost",
        "_name",
    ];
    if let Some(key) = params.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(SearchError::FieldParse {
            reason: format!("[bool] unknown field [{key}]"),
            cause: None,
        });
    }
    let must = clauses(ctx, "must", params.get("must"), depth, build)?;
    let filter = clauses(ctx, "filter", params.get("filter"), depth, build)?;
    let should = clauses(ctx, "should", params.get("should"), depth, build)?;
    let must_not = clauses(ctx, "must_not", params.get("must_not"), depth, build)?;
    let has_required = !must.is_empty() || !filter.is_empty();
    let n_should = should.len();
    let msm = match params.get("minimum_should_match") {
        Some(v) => minimum_should_match(v, n_should)?,
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
    boosted(Box::new(query), body)
}

/// `constant_score`, at nesting level `depth`; its filter is translated by `build`.
pub fn constant_score(
    ctx: &QueryContext<'_>,
    body: &Value,
    depth: usize,
    build: Build,
) -> Result<Box<dyn Query>> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[constant_score] malformed"))?;
    check_params("constant_score", params, &["filter"])?;
    let filter = params
        .get("filter")
        .ok_or_else(|| SearchError::parsing("[constant_score] requires a 'filter' element"))?;
    let boost = params.get("boost").and_then(Value::as_f64).unwrap_or(1.0);
    Ok(Box::new(ConstScoreQuery::new(
        build(ctx, filter, depth + 1)?,
        boost as f32,
    )))
}
