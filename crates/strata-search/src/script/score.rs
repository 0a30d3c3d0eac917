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

use serde_json::Value;
use strata_script::Context;
use tantivy::query::Query;

use super::compile;
use crate::error::{Result, SearchError};
use crate::query::context::{Build, QueryContext};
use crate::query::params::check_params;

mod decay;
mod field_factor;
mod functions;
mod modes;
mod query;

pub use functions::Function;
pub use modes::{BoostMode, ScoreMode};
pub use query::{ScoreQuery, Scoring};

/// The inner query, one level deeper than `depth`, is translated by `build`.
pub fn script_score(
    ctx: &QueryContext<'_>,
    body: &Value,
    depth: usize,
    build: Build,
) -> Result<Box<dyn Query>> {
    let obj = body.as_object().ok_or_else(|| {
        SearchError::parsing("[script_score] query malformed, expected an object")
    })?;
    check_params(
        "script_score",
        obj,
        &["query", "script", "min_score", "boost", "_name"],
    )?;
    let query = body
        .get("query")
        .ok_or_else(|| SearchError::parsing("[script_score] requires 'query' field"))?;
    let script = body
        .get("script")
        .ok_or_else(|| SearchError::parsing("[script_score] requires 'script' field"))?;
    // Elasticsearch declares this `script` as an object (no string form).
    if !script.is_object() {
        return Err(SearchError::FieldParse {
            reason: format!(
                "[script_score] script doesn't support values of type: {}",
                token_name(script)
            ),
            cause: None,
        });
    }
    Ok(Box::new(ScoreQuery {
        inner: build(ctx, query, depth + 1)?,
        scoring: Arc::new(Scoring::Script(compile(script, Context::Score)?)),
        mappings: Arc::new(ctx.mappings.clone()),
        min_score: number(body, "min_score")?.map(|v| v as f32),
        boost: number(body, "boost")?.unwrap_or(1.0) as f32,
    }))
}

/// The JSON token Elasticsearch's parser names in its type errors.
fn token_name(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "VALUE_STRING",
        Value::Number(_) => "VALUE_NUMBER",
        Value::Bool(_) => "VALUE_BOOLEAN",
        Value::Null => "VALUE_NULL",
        Value::Array(_) => "START_ARRAY",
        Value::Object(_) => "START_OBJECT",
    }
}

/// `{"script": {"script": ...}}`: a filter.
pub fn script_query(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    let obj = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[script] query malformed, expected an object"))?;
    check_params("script", obj, &["script", "boost", "_name"])?;
    let script = body
        .get("script")
        .ok_or_else(|| SearchError::parsing("[script] query requires a [script]"))?;
    Ok(Box::new(ScoreQuery {
        inner: Box::new(tantivy::query::AllQuery),
        scoring: Arc::new(Scoring::Filter(compile(script, Context::Field)?)),
        mappings: Arc::new(ctx.mappings.clone()),
        min_score: None,
        boost: number(body, "boost")?.unwrap_or(1.0) as f32,
    }))
}

/// `{"function_score": {...}}` at level `depth`; its query and filters are
/// translated by `build`.
pub fn function_score(
    ctx: &QueryContext<'_>,
    body: &Value,
    depth: usize,
    build: Build,
) -> Result<Box<dyn Query>> {
    let obj = body.as_object().ok_or_else(|| {
        SearchError::parsing("[function_score] malformed query, expected an object")
    })?;
    let inner = match obj.get("query") {
        Some(q) => build(ctx, q, depth + 1)?,
        None => Box::new(tantivy::query::AllQuery),
    };
    let mut functions = Vec::new();
    let mut top_weight = None;
    for (key, value) in obj {
        match key.as_str() {
            "query" | "boost" | "min_score" | "max_boost" | "score_mode" | "boost_mode"
            | "_name" => {}
            "functions" => {
                let list = value.as_array().ok_or_else(|| {
                    SearchError::parsing("[function_score] [functions] must be an array")
                })?;
                for item in list {
                    let item = item.as_object().ok_or_else(|| {
                        SearchError::parsing("[function_score] malformed function")
                    })?;
                    let filter = match item.get("filter") {
                        Some(f) => Some(build(ctx, f, depth + 1)?),
                        None => None,
                    };
                    functions.push((filter, Function::parse_entry(ctx, item)?));
                }
            }
            "weight" => {
                top_weight = Some(value.as_f64().ok_or_else(|| {
                    SearchError::parsing("[function_score] [weight] must be a number")
                })?)
            }
            other => {
                if !functions.is_empty() {
                    return Err(SearchError::parsing(format!(
                        "failed to parse [function_score] query. already found [functions] array, now encountering [{other}]."
                    )));
                }
                functions.push((None, Function::parse(ctx, other, value, 1.0)?));
            }
        }
    }
    if let Some(w) = top_weight {
        match functions.as_mut_slice() {
            [(None, f)] => f.weight *= w,
            [] => functions.push((None, Function::weight_only(w))),
            _ => {
                return Err(SearchError::parsing(
                    "[function_score] a top-level [weight] goes with one function only",
                ))
            }
        }
    }
    let score_mode = match obj.get("score_mode").and_then(Value::as_str) {
        Some(m) => ScoreMode::parse(m)?,
        None => ScoreMode::Multiply,
    };
    let boost_mode = match obj.get("boost_mode").and_then(Value::as_str) {
        Some(m) => BoostMode::parse(m)?,
        None => BoostMode::Multiply,
    };
    Ok(Box::new(ScoreQuery {
        inner,
        scoring: Arc::new(Scoring::Functions {
            functions,
            score_mode,
            boost_mode,
            max_boost: number(body, "max_boost")?.unwrap_or(f64::MAX),
        }),
        mappings: Arc::new(ctx.mappings.clone()),
        min_score: number(body, "min_score")?.map(|v| v as f32),
        boost: number(body, "boost")?.unwrap_or(1.0) as f32,
    }))
}

fn number(body: &Value, key: &str) -> Result<Option<f64>> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .map(Some)
            .ok_or_else(|| SearchError::parsing(format!("[{key}] must be a number, got [{v}]"))),
    }
}
