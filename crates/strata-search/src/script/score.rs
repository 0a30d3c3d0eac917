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
use strata_script::{Context, Input, Limits};
use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED};

use super::doc_values::SegmentDocValues;
use super::{compile, Compiled};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::query::context::{Build, QueryContext};
use crate::query::params::check_params;

mod functions;

pub use super::run::carry;
use super::run::{illegal, run_number};

pub use functions::{BoostMode, Function, ScoreMode};

/// What turns a document and its query score into the final score.
#[derive(Debug)]
pub enum Scoring {
    /// `script_score`: the script's value.
    Script(Compiled),
    /// `function_score`.
    Functions {
        /// The functions with their filters (none: every document).
        functions: Vec<(Option<Box<dyn Query>>, Function)>,
        /// How their values combine.
        score_mode: ScoreMode,
        /// How that combines with the query's score.
        boost_mode: BoostMode,
        /// Upper bound of the combined functions' score.
        max_boost: f64,
    },
    /// The `script` query: matches where the script returns `true`.
    Filter(Compiled),
}

/// A query whose matches are rescored or filtered per document.
#[derive(Debug)]
pub struct ScoreQuery {
    inner: Box<dyn Query>,
    scoring: Arc<Scoring>,
    mappings: Arc<Mappings>,
    min_score: Option<f32>,
    boost: f32,
}

impl Clone for ScoreQuery {
    fn clone(&self) -> ScoreQuery {
        ScoreQuery {
            inner: self.inner.box_clone(),
            scoring: self.scoring.clone(),
            mappings: self.mappings.clone(),
            min_score: self.min_score,
            boost: self.boost,
        }
    }
}

/// `{"script_score": {"query": ..., "script": ..., "min_score": .., "boost": ..}}`.
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

impl Query for ScoreQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let needs_scores = scoring.is_scoring_enabled() || self.min_score.is_some();
        if !needs_scores && !matches!(*self.scoring, Scoring::Filter(_)) {
            return self.inner.weight(scoring);
        }
        let inner = self.inner.weight(scoring)?;
        let filters = match &*self.scoring {
            Scoring::Functions { functions, .. } => functions
                .iter()
                .map(|(f, _)| {
                    f.as_ref()
                        .map(|q| q.weight(EnableScoring::disabled_from_schema(scoring.schema())))
                        .transpose()
                })
                .collect::<tantivy::Result<Vec<_>>>()?,
            _ => Vec::new(),
        };
        Ok(Box::new(ScoreWeight {
            inner,
            filters,
            scoring: self.scoring.clone(),
            mappings: self.mappings.clone(),
            min_score: self.min_score,
            boost: self.boost,
        }))
    }
}

struct ScoreWeight {
    inner: Box<dyn Weight>,
    filters: Vec<Option<Box<dyn Weight>>>,
    scoring: Arc<Scoring>,
    mappings: Arc<Mappings>,
    min_score: Option<f32>,
    boost: f32,
}

impl ScoreWeight {
    /// Every match of the segment with its final score.
    fn scored(&self, reader: &SegmentReader) -> tantivy::Result<Vec<(DocId, Score)>> {
        let mut inner = self.inner.scorer(reader, 1.0)?;
        let mut filters: Vec<Option<Box<dyn Scorer>>> = self
            .filters
            .iter()
            .map(|w| w.as_ref().map(|w| w.scorer(reader, 1.0)).transpose())
            .collect::<tantivy::Result<_>>()?;
        let doc_values = SegmentDocValues::new(reader, self.mappings.clone());
        let limits = Limits::default();
        let mut out = Vec::new();
        let mut doc = inner.doc();
        while doc != TERMINATED {
            doc_values.set_doc(doc);
            let query_score = f64::from(inner.score());
            let score = match &*self.scoring {
                Scoring::Script(script) => {
                    let v = run_number(script, &doc_values, Some(query_score), limits)?;
                    if v < 0.0 {
                        return Err(illegal(format!("script_score script returned an invalid score [{v}] for doc [{doc}]. Must be a non-negative score!")));
                    }
                    v
                }
                Scoring::Filter(script) => {
                    let out = script
                        .script
                        .run(Input {
                            params: Some(&script.params),
                            doc: Some(&doc_values),
                            limits,
                            ..Input::default()
                        })
                        .map_err(carry)?;
                    match out.value {
                        Value::Bool(true) => 1.0,
                        Value::Bool(false) => {
                            doc = inner.advance();
                            continue;
                        }
                        other => {
                            return Err(illegal(format!(
                                "script query: the script must return a boolean, got [{other}]"
                            )))
                        }
                    }
                }
                Scoring::Functions {
                    functions,
                    score_mode,
                    boost_mode,
                    max_boost,
                } => {
                    let mut matched = Vec::with_capacity(functions.len());
                    for (i, (_, function)) in functions.iter().enumerate() {
                        if let Some(Some(filter)) = filters.get_mut(i) {
                            let at = if filter.doc() < doc {
                                filter.seek(doc)
                            } else {
                                filter.doc()
                            };
                            if at != doc {
                                continue;
                            }
                        }
                        let value =
                            function.value(&doc_values, doc, reader, query_score, limits)?;
                        matched.push((value * function.weight, function.weight));
                    }
                    let combined = if matched.is_empty() {
                        1.0
                    } else {
                        score_mode.combine(&matched)
                    };
                    boost_mode.combine(query_score, combined.min(*max_boost))
                }
            };
            let score = score as f32 * self.boost;
            if self.min_score.is_none_or(|min| score >= min) {
                out.push((doc, score));
            }
            doc = inner.advance();
        }
        Ok(out)
    }
}

impl Weight for ScoreWeight {
    fn scorer(&self, reader: &SegmentReader, _boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let scored = self.scored(reader)?;
        Ok(Box::new(Replay { scored, at: 0 }))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let scored = self.scored(reader)?;
        match scored.binary_search_by_key(&doc, |(d, _)| *d) {
            Ok(i) => Ok(Explanation::new(
                "script score function, computed with script",
                scored[i].1,
            )),
            Err(_) => Err(illegal(format!("document {doc} does not match"))),
        }
    }
}

/// The computed `(doc, score)` pairs of a segment, in doc order.
struct Replay {
    scored: Vec<(DocId, Score)>,
    at: usize,
}

impl DocSet for Replay {
    fn advance(&mut self) -> DocId {
        if self.at < self.scored.len() {
            self.at += 1;
        }
        self.doc()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        let rest = &self.scored[self.at..];
        self.at += rest.partition_point(|(d, _)| *d < target);
        self.doc()
    }

    fn doc(&self) -> DocId {
        self.scored.get(self.at).map_or(TERMINATED, |(d, _)| *d)
    }

    fn size_hint(&self) -> u32 {
        (self.scored.len() - self.at) as u32
    }
}

impl Scorer for Replay {
    fn score(&mut self) -> Score {
        self.scored.get(self.at).map_or(0.0, |(_, s)| *s)
    }
}
