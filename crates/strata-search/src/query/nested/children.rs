//! [`ChildrenOf`]: the nested documents at a path whose parent matches a
//! query (the documents a `nested` aggregation runs on), found through
//! the levels of `level.rs`: each child's parent is the first document of
//! the parent level after it.

use std::fmt;

use tantivy::query::{EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{BitSet, DocId, DocSet, Score, SegmentReader, TantivyError, TERMINATED};

use super::level::{nested_docs, Level, ListScorer, ParentFinder};
use crate::store::NestedFields;

/// The documents of the nested object at `path` whose parent (at
/// `parent_level`) matches `parents`. Scores are 0.
pub struct ChildrenOf {
    path: String,
    parent_level: Level,
    marks: NestedFields,
    parents: Box<dyn Query>,
}

impl ChildrenOf {
    /// The children at `path` of the documents `parents` matches.
    pub fn new(
        path: &str,
        parent_level: Level,
        marks: NestedFields,
        parents: Box<dyn Query>,
    ) -> ChildrenOf {
        ChildrenOf {
            path: path.to_string(),
            parent_level,
            marks,
            parents,
        }
    }
}

impl Clone for ChildrenOf {
    fn clone(&self) -> Self {
        ChildrenOf {
            path: self.path.clone(),
            parent_level: self.parent_level.clone(),
            marks: self.marks,
            parents: self.parents.box_clone(),
        }
    }
}

impl fmt::Debug for ChildrenOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChildrenOf({}, {:?})", self.path, self.parents)
    }
}

impl Query for ChildrenOf {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let schema = scoring.schema();
        Ok(Box::new(ChildrenWeight {
            path: self.path.clone(),
            parent_level: self.parent_level.clone(),
            marks: self.marks,
            parents: self
                .parents
                .weight(EnableScoring::disabled_from_schema(schema))?,
        }))
    }
}

struct ChildrenWeight {
    path: String,
    parent_level: Level,
    marks: NestedFields,
    parents: Box<dyn Weight>,
}

impl Weight for ChildrenWeight {
    fn scorer(&self, reader: &SegmentReader, _boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let Some(children) = nested_docs(reader, self.marks, Some(&self.path))? else {
            return Ok(Box::new(EmptyScorer));
        };
        let mut matched = BitSet::with_max_value(reader.max_doc());
        let mut parents = self.parents.scorer(reader, 1.0)?;
        let mut doc = parents.doc();
        while doc != TERMINATED {
            matched.insert(doc);
            doc = parents.advance();
        }
        let mut finder = ParentFinder::new(reader, self.marks, &self.parent_level)?;
        let mut out = Vec::new();
        for child in 0..reader.max_doc() {
            if children.contains(child)
                && finder.parent_of(child).is_some_and(|p| matched.contains(p))
            {
                out.push((child, 0.0));
            }
        }
        Ok(Box::new(ListScorer::new(out)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) == doc {
            Ok(Explanation::new(
                "nested document of a matching parent",
                0.0,
            ))
        } else {
            Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )))
        }
    }
}
