//! The query that `script_score`, `function_score` and `script` build:
//! its inner query's matches rescored (or filtered) per document when a
//! segment's scorer is made, then replayed in doc order.

use std::sync::Arc;

use serde_json::Value;
use strata_script::{Input, Limits};
use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED};

use super::functions::Function;
use super::modes::{BoostMode, ScoreMode};
use crate::mapping::Mappings;
use crate::script::doc_values::SegmentDocValues;
use crate::script::run::{carry, illegal, run_number};
use crate::script::Compiled;

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
    /// The query whose matches are scored.
    pub(super) inner: Box<dyn Query>,
    pub(super) scoring: Arc<Scoring>,
    pub(super) mappings: Arc<Mappings>,
    /// Matches scoring below it are dropped.
    pub(super) min_score: Option<f32>,
    pub(super) boost: f32,
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
