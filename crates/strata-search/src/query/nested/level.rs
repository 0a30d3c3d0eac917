//! Document levels of an index with nested objects. A root document is
//! indexed after its nested documents in one block (`shard/document.rs`),
//! each nested document after the ones nested in it, so the parent of a
//! nested document at a level (the root, or a nested path) is the first
//! document of that level after it. Deletes remove whole blocks, so a
//! deleted child always maps to its own (deleted) parent; the collectors
//! skip deleted documents as usual.
//!
//! - [`LevelQuery`]: a query narrowed to one level's documents (every
//!   search of an index with nested objects runs under the root level).
//!
//! `children.rs` builds [`ChildrenOf`](super::ChildrenOf) on these: the
//! nested documents at a path whose parent matches a query.
//! - [`ParentFinder`]: a child's parent at a level.

use std::fmt;

use tantivy::query::{EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::IndexRecordOption;
use tantivy::{BitSet, DocId, DocSet, Score, SegmentReader, TantivyError, Term, TERMINATED};

use crate::store::NestedFields;

/// A level of documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Level {
    /// Root documents (those with `_id` and `_source`).
    Root,
    /// The documents of the nested object at this dotted path.
    Path(String),
}

impl Level {
    /// The level of a nested scope (`None`: the root).
    pub fn of(scope: Option<&str>) -> Level {
        scope.map_or(Level::Root, |p| Level::Path(p.to_string()))
    }
}

/// The documents of `reader` marked nested at `path` (any path when
/// `None`), deleted ones included; `None` when there are none.
pub(crate) fn nested_docs(
    reader: &SegmentReader,
    marks: NestedFields,
    path: Option<&str>,
) -> tantivy::Result<Option<BitSet>> {
    let inverted = reader.inverted_index(marks.path)?;
    let mut set: Option<BitSet> = None;
    let mut add = |info: &tantivy::postings::TermInfo| -> tantivy::Result<()> {
        let mut postings = inverted.read_postings_from_terminfo(info, IndexRecordOption::Basic)?;
        let set = set.get_or_insert_with(|| BitSet::with_max_value(reader.max_doc()));
        let mut doc = postings.doc();
        while doc != TERMINATED {
            set.insert(doc);
            doc = postings.advance();
        }
        Ok(())
    };
    match path {
        Some(p) => {
            let term = Term::from_field_text(marks.path, p);
            if let Some(info) = inverted.get_term_info(&term)? {
                add(&info)?;
            }
        }
        None => {
            let mut terms = inverted.terms().stream()?;
            while terms.advance() {
                add(terms.value())?;
            }
        }
    }
    Ok(set)
}

/// Finds parents at one level: the first document of the level after a
/// child. Children must be asked in ascending order; a child before the
/// last parent found has that parent (blocks are contiguous), so a whole
/// segment costs one walk.
pub(crate) struct ParentFinder {
    /// Root level: the nested documents (a parent is any other); else the
    /// level's documents.
    set: Option<BitSet>,
    root: bool,
    max_doc: DocId,
    last: Option<DocId>,
}

impl ParentFinder {
    /// A finder of `level`'s documents in `reader`.
    pub(crate) fn new(
        reader: &SegmentReader,
        marks: NestedFields,
        level: &Level,
    ) -> tantivy::Result<ParentFinder> {
        let (set, root) = match level {
            Level::Root => (nested_docs(reader, marks, None)?, true),
            Level::Path(p) => (nested_docs(reader, marks, Some(p))?, false),
        };
        Ok(ParentFinder {
            set,
            root,
            max_doc: reader.max_doc(),
            last: None,
        })
    }

    fn is_parent(&self, doc: DocId) -> bool {
        match &self.set {
            Some(set) => set.contains(doc) != self.root,
            None => self.root,
        }
    }

    /// The parent of `child`, `None` past the segment's end.
    pub(crate) fn parent_of(&mut self, child: DocId) -> Option<DocId> {
        if let Some(last) = self.last {
            if child < last {
                return Some(last);
            }
        }
        let mut doc = child + 1;
        while doc < self.max_doc && !self.is_parent(doc) {
            doc += 1;
        }
        (doc < self.max_doc).then(|| {
            self.last = Some(doc);
            doc
        })
    }
}

/// `inner` narrowed to the documents of `level`.
pub struct LevelQuery {
    level: Level,
    marks: NestedFields,
    inner: Box<dyn Query>,
}

impl LevelQuery {
    /// Narrows `inner` to `level`'s documents.
    pub fn new(level: Level, marks: NestedFields, inner: Box<dyn Query>) -> LevelQuery {
        LevelQuery {
            level,
            marks,
            inner,
        }
    }
}

impl Clone for LevelQuery {
    fn clone(&self) -> Self {
        LevelQuery {
            level: self.level.clone(),
            marks: self.marks,
            inner: self.inner.box_clone(),
        }
    }
}

impl fmt::Debug for LevelQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Level({:?}, {:?})", self.level, self.inner)
    }
}

impl Query for LevelQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(LevelWeight {
            level: self.level.clone(),
            marks: self.marks,
            inner: self.inner.weight(scoring)?,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.inner.query_terms(visitor);
    }
}

struct LevelWeight {
    level: Level,
    marks: NestedFields,
    inner: Box<dyn Weight>,
}

impl Weight for LevelWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let inner = self.inner.scorer(reader, boost)?;
        Ok(match &self.level {
            // A segment without nested documents keeps the inner scorer
            // as it is (tantivy's own shortcuts, e.g. for match_all).
            Level::Root => match nested_docs(reader, self.marks, None)? {
                None => inner,
                Some(set) => Box::new(Filtered::new(inner, set, false)),
            },
            Level::Path(p) => match nested_docs(reader, self.marks, Some(p))? {
                None => Box::new(EmptyScorer),
                Some(set) => Box::new(Filtered::new(inner, set, true)),
            },
        })
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )));
        }
        self.inner.explain(reader, doc)
    }
}

/// The documents of `inner` that are (`keep`) or are not in `set`.
struct Filtered {
    inner: Box<dyn Scorer>,
    set: BitSet,
    keep: bool,
}

impl Filtered {
    fn new(inner: Box<dyn Scorer>, set: BitSet, keep: bool) -> Filtered {
        let mut f = Filtered { inner, set, keep };
        let first = f.inner.doc();
        f.settle(first);
        f
    }

    fn accepts(&self, doc: DocId) -> bool {
        doc == TERMINATED || self.set.contains(doc) == self.keep
    }

    fn settle(&mut self, mut doc: DocId) -> DocId {
        while !self.accepts(doc) {
            doc = self.inner.advance();
        }
        doc
    }
}

impl DocSet for Filtered {
    fn advance(&mut self) -> DocId {
        let doc = self.inner.advance();
        self.settle(doc)
    }

    fn seek(&mut self, target: DocId) -> DocId {
        let doc = self.inner.seek(target);
        self.settle(doc)
    }

    fn doc(&self) -> DocId {
        self.inner.doc()
    }

    fn size_hint(&self) -> u32 {
        self.inner.size_hint()
    }
}

impl Scorer for Filtered {
    fn score(&mut self) -> Score {
        self.inner.score()
    }
}

/// Documents with scores, in ascending order (a join's result).
pub(crate) struct ListScorer {
    docs: Vec<(DocId, Score)>,
    at: usize,
}

impl ListScorer {
    pub(crate) fn new(docs: Vec<(DocId, Score)>) -> ListScorer {
        ListScorer { docs, at: 0 }
    }
}

impl DocSet for ListScorer {
    fn advance(&mut self) -> DocId {
        if self.at < self.docs.len() {
            self.at += 1;
        }
        self.doc()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        let rest = &self.docs[self.at..];
        self.at += rest.partition_point(|(d, _)| *d < target);
        self.doc()
    }

    fn doc(&self) -> DocId {
        self.docs.get(self.at).map_or(TERMINATED, |(d, _)| *d)
    }

    fn size_hint(&self) -> u32 {
        (self.docs.len() - self.at.min(self.docs.len())) as u32
    }
}

impl Scorer for ListScorer {
    fn score(&mut self) -> Score {
        self.docs.get(self.at).map_or(0.0, |(_, s)| *s)
    }
}
