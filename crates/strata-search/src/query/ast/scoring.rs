//! The scoring queries: `script` (a filter by a script), `script_score`
//! (an inner query rescored by a script) and `function_score` (an inner
//! query rescored by a list of functions, see `functions`). Like the
//! compound queries, the nodes are generic over the query type they hold
//! and parse their sub-queries through the parser they are given, which
//! adds the key (and index) a sub-query's error was found at.

use serde_json::Value;
use strata_script::ScriptSpec;

use super::compound::{at_index, at_key, Sub};
use super::functions::{self, FunctionAst};
use crate::error::{Result, SearchError};
use crate::query::params::check_params;
use crate::script::parse_spec;
use crate::script::score::{BoostMode, ScoreMode};

/// `{"script": {"script": ...}}`: documents where the script is true.
#[derive(Debug)]
pub(crate) struct ScriptQueryAst {
    pub script: ScriptSpec,
    pub boost: f64,
}

/// `script_score`.
#[derive(Debug)]
pub(crate) struct ScriptScoreNode<Q> {
    pub query: Box<Q>,
    pub script: ScriptSpec,
    pub min_score: Option<f64>,
    pub boost: f64,
}

/// One function of `function_score`, with its filter (none: every
/// document) and weight (1 when not given).
#[derive(Debug)]
pub(crate) struct FunctionEntry<'a, Q> {
    pub filter: Option<Q>,
    pub function: FunctionAst<'a>,
    pub weight: f64,
}

/// `function_score`.
#[derive(Debug)]
pub(crate) struct FunctionScoreNode<'a, Q> {
    /// The query whose matches are scored (none: every document).
    pub query: Option<Box<Q>>,
    pub functions: Vec<FunctionEntry<'a, Q>>,
    pub score_mode: ScoreMode,
    pub boost_mode: BoostMode,
    pub max_boost: f64,
    pub min_score: Option<f64>,
    pub boost: f64,
}

/// The `script` query.
pub(super) fn script(body: &Value) -> Result<ScriptQueryAst> {
    let obj = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[script] query malformed, expected an object"))?;
    check_params("script", obj, &["script", "boost", "_name"])?;
    let script = body
        .get("script")
        .ok_or_else(|| SearchError::parsing("[script] query requires a [script]"))?;
    Ok(ScriptQueryAst {
        script: parse_spec(script)?,
        boost: number(body, "boost")?.unwrap_or(1.0),
    })
}

/// `script_score`, its query at level `depth`.
pub(super) fn script_score<'a, Q>(
    body: &'a Value,
    depth: usize,
    parse: Sub<'_, 'a, Q>,
) -> Result<ScriptScoreNode<Q>> {
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
    Ok(ScriptScoreNode {
        query: Box::new(parse(query, depth).map_err(|e| at_key("query", e))?),
        script: parse_spec(script)?,
        min_score: number(body, "min_score")?,
        boost: number(body, "boost")?.unwrap_or(1.0),
    })
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

/// `function_score`, its query and filters at level `depth`. Its
/// functions are a `functions` list, or one function (with a top-level
/// `weight`) written beside the query.
pub(super) fn function_score<'a, Q>(
    body: &'a Value,
    depth: usize,
    parse: Sub<'_, 'a, Q>,
) -> Result<FunctionScoreNode<'a, Q>> {
    let obj = body.as_object().ok_or_else(|| {
        SearchError::parsing("[function_score] malformed query, expected an object")
    })?;
    let query = match obj.get("query") {
        Some(q) => Some(Box::new(parse(q, depth).map_err(|e| at_key("query", e))?)),
        None => None,
    };
    let mut entries = Vec::new();
    let mut top_weight = None;
    for (key, value) in obj {
        match key.as_str() {
            "query" | "boost" | "min_score" | "max_boost" | "score_mode" | "boost_mode"
            | "_name" => {}
            "functions" => {
                let list = value.as_array().ok_or_else(|| {
                    SearchError::parsing("[function_score] [functions] must be an array")
                })?;
                for (i, item) in list.iter().enumerate() {
                    let entry =
                        entry(item, depth, parse).map_err(|e| at_index("functions", i, e))?;
                    entries.push(entry);
                }
            }
            "weight" => {
                top_weight = Some(value.as_f64().ok_or_else(|| {
                    SearchError::parsing("[function_score] [weight] must be a number")
                })?)
            }
            other => {
                if !entries.is_empty() {
                    return Err(SearchError::parsing(format!(
                        "failed to parse [function_score] query. already found [functions] array, now encountering [{other}]."
                    )));
                }
                entries.push(FunctionEntry {
                    filter: None,
                    function: functions::function(other, value)?,
                    weight: 1.0,
                });
            }
        }
    }
    if let Some(w) = top_weight {
        match entries.as_mut_slice() {
            [FunctionEntry {
                filter: None,
                weight,
                ..
            }] => *weight *= w,
            [] => entries.push(FunctionEntry {
                filter: None,
                function: FunctionAst::Weight,
                weight: w,
            }),
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
    Ok(FunctionScoreNode {
        query,
        functions: entries,
        score_mode,
        boost_mode,
        max_boost: number(body, "max_boost")?.unwrap_or(f64::MAX),
        min_score: number(body, "min_score")?,
        boost: number(body, "boost")?.unwrap_or(1.0),
    })
}

/// An entry of `functions`: one function key, `filter`, `weight`; its
/// filter at level `depth`.
fn entry<'a, Q>(
    item: &'a Value,
    depth: usize,
    parse: Sub<'_, 'a, Q>,
) -> Result<FunctionEntry<'a, Q>> {
    let item = item
        .as_object()
        .ok_or_else(|| SearchError::parsing("[function_score] malformed function"))?;
    let filter = match item.get("filter") {
        Some(f) => Some(parse(f, depth).map_err(|e| at_key("filter", e))?),
        None => None,
    };
    let weight = match item.get("weight") {
        Some(w) => w
            .as_f64()
            .ok_or_else(|| SearchError::parsing("[function_score] [weight] must be a number"))?,
        None => 1.0,
    };
    let mut found = None;
    for (key, value) in item {
        if matches!(key.as_str(), "filter" | "weight") {
            continue;
        }
        if found.is_some() {
            return Err(SearchError::parsing(format!(
                "failed to parse function_score: more than one function in an entry ([{key}])"
            )));
        }
        found = Some(functions::function(key, value)?);
    }
    Ok(FunctionEntry {
        filter,
        function: found.unwrap_or(FunctionAst::Weight),
        weight,
    })
}

/// The number under `key` (a number or a numeric string; null: absent).
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
