//! The batch scan below a keyword `terms` ([`TermBatch`]): each segment
//! looks its buckets' terms up in its dictionary once, and a document's
//! buckets are then found from its term ordinals (a binary search among
//! the buckets' few ordinals). The generic scan read each document's term
//! as text and hashed it against the bucket keys, which made `terms` >
//! `percentiles` 4.6x slower than tantivy's per-bucket pass it replaced.
//! A document's metric values are read only when it is in a bucket.

use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::StrColumn;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::field_values::FieldMetric;
use super::values::{Key, Reader};
use crate::search::percentiles::SpanDigest;
use crate::search::sort::str_column;
use crate::store::KEYWORDS;

/// Per metric, per bucket, a digest.
pub(super) type Digests = Vec<Vec<SpanDigest>>;

/// Empty digests of `metrics` metrics over `buckets` buckets. Each digest
/// takes its base from its own first values: a bucket's values, not the
/// field's, bound its error.
pub(super) fn empty_digests(metrics: usize, buckets: usize) -> Digests {
    vec![vec![SpanDigest::default(); buckets]; metrics]
}

/// The digests of `parts` (segments' or shards') merged into one set of
/// `metrics` x `buckets` digests.
pub(super) fn merged(metrics: usize, buckets: usize, parts: Vec<Digests>) -> Digests {
    let mut out = empty_digests(metrics, buckets);
    parts.into_iter().for_each(|p| merge_digests(&mut out, p));
    out
}

/// Adds `part` to `into`, digest by digest.
pub(super) fn merge_digests(into: &mut Digests, part: Digests) {
    for (mine, theirs) in into.iter_mut().zip(part) {
        for (a, b) in mine.iter_mut().zip(theirs) {
            a.merge(b);
        }
    }
}

/// The metrics of the buckets of one keyword field's terms.
pub(super) struct TermBatch {
    /// The field's keyword column.
    column: String,
    /// Each bucket's term, with its bucket.
    terms: Vec<(String, usize)>,
    buckets: usize,
    metrics: Vec<FieldMetric>,
}

impl TermBatch {
    /// The batch of the keyword `field`'s buckets `terms` (in bucket order).
    pub(super) fn new(field: &str, terms: Vec<String>, metrics: Vec<FieldMetric>) -> TermBatch {
        TermBatch {
            column: format!("{KEYWORDS}.{field}"),
            buckets: terms.len(),
            terms: terms.into_iter().enumerate().map(|(b, t)| (t, b)).collect(),
            metrics,
        }
    }
}

/// A segment's ordinals of the buckets' terms, to their buckets: a table
/// indexed by ordinal when the dictionary is small enough for one (the
/// usual keyword: a binary search per document was most of the scan's
/// time), else the pairs sorted by ordinal.
enum OrdBuckets {
    /// Per ordinal of the dictionary, its bucket or [`NO_BUCKET`].
    Table(Vec<u32>),
    /// `(ordinal, bucket)`, ascending.
    Sorted(Vec<(u64, usize)>),
}

/// A table slot of a term without a bucket.
const NO_BUCKET: u32 = u32::MAX;

/// The largest dictionary given a table (256 KiB of slots per segment).
const TABLE_TERMS: usize = 1 << 16;

impl OrdBuckets {
    /// The buckets of `ords` (`(ordinal, bucket)`) in a dictionary of
    /// `terms` terms.
    fn new(mut ords: Vec<(u64, usize)>, terms: usize) -> OrdBuckets {
        let fits = |o: &(u64, usize)| o.0 < terms as u64 && o.1 < NO_BUCKET as usize;
        if terms <= TABLE_TERMS && ords.iter().all(fits) {
            let mut table = vec![NO_BUCKET; terms];
            for (ord, bucket) in ords {
                table[ord as usize] = bucket as u32;
            }
            return OrdBuckets::Table(table);
        }
        ords.sort_unstable();
        OrdBuckets::Sorted(ords)
    }

    /// The bucket of `ord`, if its term has one.
    #[inline]
    fn bucket(&self, ord: u64) -> Option<usize> {
        match self {
            OrdBuckets::Table(table) => {
                let b = *table.get(usize::try_from(ord).ok()?)?;
                (b != NO_BUCKET).then_some(b as usize)
            }
            OrdBuckets::Sorted(pairs) => {
                let at = pairs.binary_search_by_key(&ord, |o| o.0).ok()?;
                Some(pairs[at].1)
            }
        }
    }
}

/// The tantivy collector of a [`TermBatch`].
pub(super) struct TermBatchCollector(pub Arc<TermBatch>);

/// Its per-segment part.
pub(super) struct TermBatchSegment {
    batch: Arc<TermBatch>,
    /// `None`: the segment has no value of the field.
    column: Option<StrColumn>,
    /// The bucket of each ordinal of the buckets' terms in the segment.
    ords: OrdBuckets,
    /// One per metric.
    readers: Vec<Reader>,
    /// Scratch: the document's buckets, and one metric's values.
    hits: Vec<usize>,
    values: Vec<Key>,
    acc: Digests,
}

impl Collector for TermBatchCollector {
    type Fruit = Digests;
    type Child = TermBatchSegment;

    fn for_segment(
        &self,
        _: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<TermBatchSegment> {
        let batch = &self.0;
        let column = str_column(segment, &batch.column)?;
        let mut ords = Vec::new();
        if let Some(column) = &column {
            for (term, bucket) in &batch.terms {
                if let Some(ord) = column.dictionary().term_ord(term)? {
                    ords.push((ord, *bucket));
                }
            }
        }
        let any = !ords.is_empty();
        let terms = column.as_ref().map_or(0, |c| c.dictionary().num_terms());
        let ords = OrdBuckets::new(ords, terms);
        let readers = batch
            .metrics
            .iter()
            .map(|m| {
                let (field, kind) = m.column();
                Reader::open(segment, &field, kind)
            })
            .collect::<tantivy::Result<Vec<_>>>()?;
        Ok(TermBatchSegment {
            batch: Arc::clone(batch),
            column: column.filter(|_| any),
            ords,
            readers,
            hits: Vec::new(),
            values: Vec::new(),
            acc: empty_digests(batch.metrics.len(), batch.buckets),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Digests>) -> tantivy::Result<Digests> {
        Ok(merged(self.0.metrics.len(), self.0.buckets, fruits))
    }
}

impl SegmentCollector for TermBatchSegment {
    type Fruit = Digests;

    fn collect(&mut self, doc: DocId, _score: Score) {
        let Some(column) = &self.column else {
            return;
        };
        self.hits.clear();
        for ord in column.term_ords(doc) {
            self.hits.extend(self.ords.bucket(ord));
        }
        // A document's ordinals are distinct, and so are their buckets
        // (a `terms` result has each key once).
        if self.hits.is_empty() {
            return;
        }
        let metrics = self.batch.metrics.iter().zip(&mut self.readers);
        for ((metric, reader), digests) in metrics.zip(self.acc.iter_mut()) {
            reader.read(doc, &mut self.values);
            for &b in &self.hits {
                metric.add(&self.values, &mut digests[b]);
            }
        }
    }

    fn harvest(self) -> Digests {
        self.acc
    }
}

#[cfg(test)]
mod tests {
    use super::{OrdBuckets, TABLE_TERMS};

    /// The table and the sorted pairs give each ordinal the same bucket.
    #[test]
    fn table_and_sorted_pairs_agree() {
        let ords = vec![(7, 2), (0, 0), (300, 1), (299, 3)];
        let table = OrdBuckets::new(ords.clone(), 301);
        let sorted = OrdBuckets::new(ords, TABLE_TERMS + 1);
        assert!(matches!(table, OrdBuckets::Table(_)));
        assert!(matches!(sorted, OrdBuckets::Sorted(_)));
        for ord in [0, 1, 6, 7, 8, 298, 299, 300, 301, 100_000, u64::MAX] {
            assert_eq!(table.bucket(ord), sorted.bucket(ord), "{ord}");
        }
        assert_eq!(table.bucket(300), Some(1));
        assert_eq!(table.bucket(1), None);
        // An ordinal past the dictionary (never from the column) is kept
        // out of a table rather than growing it.
        assert!(matches!(
            OrdBuckets::new(vec![(500, 0)], 10),
            OrdBuckets::Sorted(_)
        ));
    }
}
