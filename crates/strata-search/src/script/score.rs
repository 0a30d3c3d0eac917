//! Queries that compute scores or filter with scripts and functions:
//! `script_score`, `function_score` (`field_value_factor`, `gauss`/`exp`/
//! `linear` decay, `random_score`, `weight`, `script_score`, with
//! `score_mode`, `boost_mode`, `max_boost`, `min_score`) and the `script`
//! query.
//!
//! A segment's matches are scored when its scorer is made: tantivy's
//! `Scorer::score` cannot fail, and a script can, so failures surface
//! from `Weight::scorer` (as a `script_exception`) and the scorer then
//! replays the computed `(doc, score)` pairs. This costs 8 bytes per
//! matching document of the segment while it is searched.

use std::sync::Arc;

use strata_script::Context;
use tantivy::query::Query;

use super::compile_spec;
use crate::error::Result;
use crate::query::ast::{FunctionScore, ScriptQueryAst, ScriptScore, Translate};
use crate::query::context::QueryContext;

mod curve;
mod decay;
mod field_factor;
mod functions;
mod modes;
mod query;

pub use curve::Curve;
pub use field_factor::FieldValueFactor;
pub use functions::Function;
pub use modes::{BoostMode, ScoreMode};
pub use query::{ScoreQuery, Scoring};

/// `script_score` at level `depth`; its query is translated by `translate`.
pub(crate) fn script_score(
    ctx: &QueryContext<'_>,
    node: &ScriptScore<'_>,
    depth: usize,
    translate: Translate,
) -> Result<Box<dyn Query>> {
    Ok(Box::new(ScoreQuery {
        inner: translate(ctx, &node.query, depth + 1)?,
        scoring: Arc::new(Scoring::Script(compile_spec(&node.script, Context::Score)?)),
        mappings: Arc::new(ctx.mappings.clone()),
        min_score: node.min_score.map(|v| v as f32),
        boost: node.boost as f32,
    }))
}

/// `{"script": {"script": ...}}`: a filter.
pub(crate) fn script_query(
    ctx: &QueryContext<'_>,
    node: &ScriptQueryAst,
) -> Result<Box<dyn Query>> {
    Ok(Box::new(ScoreQuery {
        inner: Box::new(tantivy::query::AllQuery),
        scoring: Arc::new(Scoring::Filter(compile_spec(&node.script, Context::Field)?)),
        mappings: Arc::new(ctx.mappings.clone()),
        min_score: None,
        boost: node.boost as f32,
    }))
}

/// `function_score` at level `depth`; its query and filters are
/// translated by `translate`.
pub(crate) fn function_score(
    ctx: &QueryContext<'_>,
    node: &FunctionScore<'_>,
    depth: usize,
    translate: Translate,
) -> Result<Box<dyn Query>> {
    let inner = match &node.query {
        Some(q) => translate(ctx, q, depth + 1)?,
        None => Box::new(tantivy::query::AllQuery),
    };
    let functions = node
        .functions
        .iter()
        .map(|entry| {
            let filter = match &entry.filter {
                Some(f) => Some(translate(ctx, f, depth + 1)?),
                None => None,
            };
            Ok((filter, Function::of(ctx, &entry.function, entry.weight)?))
        })
        .collect::<Result<_>>()?;
    Ok(Box::new(ScoreQuery {
        inner,
        scoring: Arc::new(Scoring::Functions {
            functions,
            score_mode: node.score_mode,
            boost_mode: node.boost_mode,
            max_boost: node.max_boost,
        }),
        mappings: Arc::new(ctx.mappings.clone()),
        min_score: node.min_score.map(|v| v as f32),
        boost: node.boost as f32,
    }))
}
