//! The batch scan below buckets of a number or date field (a `histogram`,
//! a calendar `date_histogram`, a `range`, a numeric `terms`) whose
//! metrics read numbers ([`NumberBatch`]): the bucket field and each
//! metric's are read from their columns as `f64`s, a block of documents at
//! a time when every column holds one value per document, instead of each
//! document's values through the generic scan's `Key` lists (which made
//! `histogram` > `percentiles` 1.6x slower than tantivy's own pass).
//! Anything else (a multi-valued or sparse column, overlapping `range`s)
//! goes document by document, with the same answers.

use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::bucket_matcher::Matcher;
use super::field_values::FieldMetric;
use super::term_batch::{empty_digests, merged, Digests};
use crate::search::numbers::F64Column;
use crate::store::KEYWORDS;

/// The metrics of the buckets of one numeric field.
pub(super) struct NumberBatch {
    /// The bucket field's column.
    column: String,
    matcher: Matcher,
    buckets: usize,
    metrics: Vec<FieldMetric>,
}

impl NumberBatch {
    /// The batch over `field`'s `buckets` buckets found by `matcher`.
    pub(super) fn new(
        field: &str,
        matcher: Matcher,
        buckets: usize,
        metrics: Vec<FieldMetric>,
    ) -> NumberBatch {
        NumberBatch {
            column: format!("{KEYWORDS}.{field}"),
            matcher,
            buckets,
            metrics,
        }
    }
}

/// The tantivy collector of a [`NumberBatch`].
pub(super) struct NumberBatchCollector(pub Arc<NumberBatch>);

/// One column in one segment, with its scratch space.
struct Read {
    column: Option<F64Column>,
    /// One value per document.
    dense: bool,
    raw: Vec<u64>,
    block: Vec<f64>,
    /// One document's values.
    one: Vec<f64>,
}

impl Read {
    fn open(segment: &SegmentReader, name: &str) -> Read {
        let column = F64Column::open(segment, name);
        Read {
            dense: column.as_ref().is_some_and(F64Column::is_dense),
            column,
            raw: Vec::new(),
            block: Vec::new(),
            one: Vec::new(),
        }
    }

    /// `doc`'s values into `one`.
    fn doc(&mut self, doc: DocId) {
        self.one.clear();
        if let Some(column) = &self.column {
            self.one.extend(column.values_for_doc(doc));
        }
    }
}

/// Its per-segment part.
pub(super) struct NumberBatchSegment {
    batch: Arc<NumberBatch>,
    field: Read,
    metrics: Vec<Read>,
    /// Scratch: a document's buckets.
    hits: Vec<usize>,
    acc: Digests,
}

impl Collector for NumberBatchCollector {
    type Fruit = Digests;
    type Child = NumberBatchSegment;

    fn for_segment(
        &self,
        _: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<NumberBatchSegment> {
        let batch = &self.0;
        let metrics = batch
            .metrics
            .iter()
            .map(|m| Read::open(segment, &format!("{KEYWORDS}.{}", m.column().0)))
            .collect();
        Ok(NumberBatchSegment {
            field: Read::open(segment, &batch.column),
            metrics,
            hits: Vec::new(),
            acc: empty_digests(batch.metrics.len(), batch.buckets),
            batch: Arc::clone(batch),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Digests>) -> tantivy::Result<Digests> {
        Ok(merged(self.0.metrics.len(), self.0.buckets, fruits))
    }
}

impl NumberBatchSegment {
    /// One document, whatever its columns hold.
    fn one(&mut self, doc: DocId) {
        self.field.doc(doc);
        self.hits.clear();
        for &x in &self.field.one {
            self.batch.matcher.buckets_of_num(x, &mut self.hits);
        }
        if self.hits.is_empty() {
            return;
        }
        // A document counts once in each bucket it falls in.
        self.hits.sort_unstable();
        self.hits.dedup();
        let metrics = self.batch.metrics.iter().zip(&mut self.metrics);
        for ((metric, read), digests) in metrics.zip(self.acc.iter_mut()) {
            read.doc(doc);
            for &b in &self.hits {
                metric.add_nums(&read.one, &mut digests[b]);
            }
        }
    }
}

impl SegmentCollector for NumberBatchSegment {
    type Fruit = Digests;

    fn collect(&mut self, doc: DocId, _score: Score) {
        if self.field.column.is_some() {
            self.one(doc);
        }
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        let Some(column) = &self.field.column else {
            return;
        };
        let blocks =
            self.field.dense && self.batch.matcher.disjoint && self.metrics.iter().all(|m| m.dense);
        if !blocks {
            docs.iter().for_each(|&doc| self.one(doc));
            return;
        }
        column.read_dense(docs, &mut self.field.raw, &mut self.field.block);
        for read in &mut self.metrics {
            if let Some(c) = &read.column {
                c.read_dense(docs, &mut read.raw, &mut read.block);
            }
        }
        for (i, &x) in self.field.block.iter().enumerate() {
            let Some(b) = self.batch.matcher.bucket_of_num(x) else {
                continue;
            };
            for (read, digests) in self.metrics.iter().zip(self.acc.iter_mut()) {
                digests[b].add(read.block[i]);
            }
        }
    }

    fn harvest(self) -> Digests {
        self.acc
    }
}
