//! A fixed set of documents per segment: the `sampler` and
//! `diversified_sampler` aggregations' sample (each shard's best
//! documents), found by a search before the aggregation's pass.
//!
//! It is not a query of the DSL (no request can write it): the
//! aggregation's pass narrows the search's query with it
//! ([`ParsedQuery::doc_set`](super::ParsedQuery::doc_set)). Segments are
//! named by their tantivy `SegmentId`, unique across every index, so one
//! set serves all the shards of a search; a segment it does not name
//! matches nothing. Its JSON form names it `sampler_docs` with a random
//! id, so two sets never compare (or cache) as one.

use std::collections::HashMap;
use std::sync::Arc;

use tantivy::index::SegmentId;
use tantivy::query::{
    BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, Score, SegmentReader};

use super::filter::explain_filter;

/// The documents of each segment, by segment id.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct DocSetAst {
    /// Per segment, its documents (any order, no duplicates needed).
    pub(crate) docs: Arc<HashMap<SegmentId, Vec<DocId>>>,
}

impl DocSetAst {
    /// How many documents the set holds.
    pub(crate) fn len(&self) -> usize {
        self.docs.values().map(Vec::len).sum()
    }
}

/// The tantivy query of the set `q`.
pub(crate) fn build(q: &DocSetAst) -> Box<dyn Query> {
    Box::new(DocSetQuery(q.clone()))
}

/// The set as a tantivy filter (scores its matches `boost`).
#[derive(Debug, Clone)]
struct DocSetQuery(DocSetAst);

impl Query for DocSetQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for DocSetQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let max = reader.max_doc();
        let mut set = BitSet::with_max_value(max);
        for &doc in self.0.docs.get(&reader.segment_id()).into_iter().flatten() {
            // Ids come from this segment's own search; checked anyway.
            if doc < max {
                set.insert(doc);
            }
        }
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(set), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_filter(self, reader, doc, "sampler")
    }
}
