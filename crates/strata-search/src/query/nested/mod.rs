//! The `nested` query: parents (root documents, or the documents of the
//! enclosing nested object) that have at least one nested object at
//! `path` matching `query` on its own, scored from the matching objects'
//! scores by `score_mode`. Each nested object being a document of its own
//! (see `level.rs`), the clauses of `query` must all hold in one object:
//! no match across objects, unlike plain object arrays.

mod children;
pub mod level;

use std::fmt;

use tantivy::query::{EmptyQuery, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, Term, TERMINATED};

pub use children::ChildrenOf;
pub use level::{Level, LevelQuery};
use level::{ListScorer, ParentFinder};

use crate::error::{Result, SearchError};
pub use crate::query::ast::ScoreMode;
use crate::query::ast::{NestedAst, Translate};
use crate::query::context::QueryContext;
use crate::query::params::with_boost;
use crate::store::NestedFields;

/// The marker fields, or the refusal of an index that has none.
fn marks_of(ctx: &QueryContext<'_>, path: &str) -> Result<NestedFields> {
    ctx.fields.nested.ok_or_else(|| not_found(path))
}

fn not_found(path: &str) -> SearchError {
    SearchError::QueryShard(format!(
        "failed to create query: [nested] failed to find nested object under path [{path}]"
    ))
}

/// Checks that `path` is a nested object that may be joined from the
/// context's level; `Ok(false)` when it is unmapped and `ignore_unmapped`.
pub(crate) fn check_path(
    ctx: &QueryContext<'_>,
    path: &str,
    ignore_unmapped: bool,
) -> Result<bool> {
    if ctx.mappings.nested_object(path).is_none() {
        if ctx.mappings.is_object(path) || ctx.leaf(path).is_some() {
            return Err(SearchError::QueryShard(format!(
                "failed to create query: [nested] nested object under path [{path}] is not of nested type"
            )));
        }
        if ignore_unmapped {
            return Ok(false);
        }
        return Err(not_found(path));
    }
    if let Some(scope) = &ctx.nested_scope {
        let below = path.len() > scope.len()
            && path.starts_with(scope.as_str())
            && path.as_bytes()[scope.len()] == b'.';
        if !below {
            return Err(SearchError::QueryShard(format!(
                "failed to create query: [nested] nested path [{path}] is not a child of the enclosing nested path [{scope}]"
            )));
        }
    }
    Ok(true)
}

/// Translates a `nested` query found at `depth`, its inner query by `translate`.
pub(crate) fn nested(
    ctx: &QueryContext<'_>,
    q: &NestedAst<'_>,
    depth: usize,
    translate: Translate,
) -> Result<Box<dyn Query>> {
    let path = &*q.path;
    if !check_path(ctx, path, q.ignore_unmapped)? {
        return Ok(Box::new(EmptyQuery));
    }
    let marks = marks_of(ctx, path)?;
    let inner = translate(&ctx.in_nested(path), &q.query, depth + 1)?;
    let children = LevelQuery::new(Level::Path(path.to_string()), marks, inner);
    let joined = NestedQuery {
        parent_level: Level::of(ctx.nested_scope.as_deref()),
        marks,
        children: Box::new(children),
        score_mode: q.score_mode,
    };
    Ok(with_boost(Box::new(joined), q.boost))
}

/// Parents at `parent_level` with a matching child in `children` (a query
/// on one nested path's documents).
pub struct NestedQuery {
    parent_level: Level,
    marks: NestedFields,
    children: Box<dyn Query>,
    score_mode: ScoreMode,
}

impl Clone for NestedQuery {
    fn clone(&self) -> Self {
        NestedQuery {
            parent_level: self.parent_level.clone(),
            marks: self.marks,
            children: self.children.box_clone(),
            score_mode: self.score_mode,
        }
    }
}

impl fmt::Debug for NestedQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Nested({:?} <- {:?}, {:?})",
            self.parent_level, self.children, self.score_mode
        )
    }
}

impl Query for NestedQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(NestedWeight {
            parent_level: self.parent_level.clone(),
            marks: self.marks,
            children: self.children.weight(scoring)?,
            score_mode: self.score_mode,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.children.query_terms(visitor);
    }
}

struct NestedWeight {
    parent_level: Level,
    marks: NestedFields,
    children: Box<dyn Weight>,
    score_mode: ScoreMode,
}

/// A parent's matching children's scores, folded as they come.
struct Fold {
    parent: DocId,
    sum: Score,
    min: Score,
    max: Score,
    count: u32,
}

impl Fold {
    fn score(&self, mode: ScoreMode) -> Score {
        match mode {
            ScoreMode::Avg => self.sum / self.count.max(1) as Score,
            ScoreMode::Max => self.max,
            ScoreMode::Min => self.min,
            ScoreMode::Sum => self.sum,
            ScoreMode::None => 0.0,
        }
    }
}

impl Weight for NestedWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut children = self.children.scorer(reader, 1.0)?;
        let mut finder = ParentFinder::new(reader, self.marks, &self.parent_level)?;
        let mut out: Vec<(DocId, Score)> = Vec::new();
        let mut current: Option<Fold> = None;
        let mut child = children.doc();
        while child != TERMINATED {
            if let Some(parent) = finder.parent_of(child) {
                let score = children.score();
                match &mut current {
                    Some(f) if f.parent == parent => {
                        f.sum += score;
                        f.min = f.min.min(score);
                        f.max = f.max.max(score);
                        f.count += 1;
                    }
                    _ => {
                        if let Some(done) = current.take() {
                            out.push((done.parent, done.score(self.score_mode) * boost));
                        }
                        current = Some(Fold {
                            parent,
                            sum: score,
                            min: score,
                            max: score,
                            count: 1,
                        });
                    }
                }
            }
            child = children.advance();
        }
        if let Some(done) = current {
            out.push((done.parent, done.score(self.score_mode) * boost));
        }
        Ok(Box::new(ListScorer::new(out)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )));
        }
        Ok(Explanation::new(
            "Score based on the matching nested documents",
            scorer.score(),
        ))
    }
}
