//! What ranking keeps and produces: a document's sort values, a shard's
//! best documents, the criteria of a field sort, and the top-K buffer of
//! keys offered in document order. Shared by the ranking collector
//! (`ranking`) and the zone-map scan (`zone_ranking`), which both fill
//! them.

use std::cmp::Ordering;
use std::sync::Arc;

use smallvec::SmallVec;
use tantivy::{DocAddress, DocId, Score};

use super::runtime_sort::RuntimeSort;
use super::sort::{KeyOrder, SortField, SortValue};
use crate::mapping::{FieldType, Mappings};

/// A document's sort values, in criterion order.
pub(crate) type SortValues = SmallVec<[SortValue; 2]>;

/// One ranked document of a shard.
#[derive(Debug, Clone)]
pub(crate) struct Ranked {
    /// Sort values (empty when ranked by score).
    pub values: SortValues,
    /// The score (NaN when sorting by fields without scores).
    pub score: Score,
    /// Where the document is in the shard.
    pub addr: DocAddress,
}

/// A shard's best documents, best first, and the best score of every
/// match when `track_scores` asked for it.
#[derive(Debug, Default)]
pub(crate) struct RankedShard {
    /// At most the limit, best first.
    pub hits: Vec<Ranked>,
    /// With `track_scores` and a field sort: the highest score seen.
    pub best_score: Option<Score>,
    /// A runtime field's failure, which fails the search.
    pub error: Option<tantivy::TantivyError>,
}

/// A field sort: criteria, the mapping they are read with, and the
/// `search_after` key documents must rank after.
#[derive(Clone)]
pub(crate) struct FieldRanking {
    /// The criteria.
    pub sort: Vec<SortField>,
    /// Their orders.
    pub orders: Arc<Vec<KeyOrder>>,
    /// The mapping of the shard's index.
    pub mappings: Arc<Mappings>,
    /// `search_after`: only documents ranking strictly after these values.
    pub after: Option<Vec<SortValue>>,
    /// Compute scores and report the best one.
    pub track_scores: bool,
    /// Per criterion: the runtime field it sorts on, if it does.
    pub runtime: Vec<Option<RuntimeSort>>,
}

impl FieldRanking {
    /// The criterion when the ranking is one `date` field without
    /// `search_after` or `track_scores`: what zone maps can rank
    /// (`zone_ranking`).
    pub fn single_date(&self) -> Option<&SortField> {
        let [criterion] = self.sort.as_slice() else {
            return None;
        };
        // A `numeric_type` converts the values: the usual ranking does.
        let date = self.mappings.leaf(&criterion.field).map(|l| l.ty) == Some(FieldType::Date)
            && criterion.numeric_type.is_none();
        (date && self.after.is_none() && !self.track_scores).then_some(criterion)
    }
}

/// The best `limit` of keys offered in ascending document order: a buffer
/// of twice the limit, cut back to the limit when full; after a cut only
/// keys ranking strictly before the first one cut are taken.
pub(super) struct TopBuffer<K> {
    limit: usize,
    buffer: Vec<(K, DocId)>,
    threshold: Option<K>,
}

impl<K> TopBuffer<K> {
    pub(super) fn new(limit: usize) -> TopBuffer<K> {
        TopBuffer {
            limit,
            buffer: Vec::with_capacity(limit.saturating_mul(2).min(1 << 16)),
            threshold: None,
        }
    }

    /// Offers `key` of `doc`; `cmp` gives `Less` when the first ranks first.
    #[inline]
    pub(super) fn offer(&mut self, key: K, doc: DocId, cmp: impl Fn(&K, &K) -> Ordering) {
        if self
            .threshold
            .as_ref()
            .is_some_and(|t| cmp(&key, t) != Ordering::Less)
        {
            return;
        }
        if self.buffer.len() >= self.limit.saturating_mul(2) {
            let first_cut = self.cut(&cmp);
            let beaten = cmp(&key, &first_cut) != Ordering::Less;
            self.threshold = Some(first_cut);
            if beaten {
                return;
            }
        }
        self.buffer.push((key, doc));
    }

    /// Cuts the buffer (longer than the limit) back to the limit and
    /// returns the best key cut.
    fn cut(&mut self, cmp: &impl Fn(&K, &K) -> Ordering) -> K {
        self.buffer
            .select_nth_unstable_by(self.limit, |a, b| cmp(&a.0, &b.0).then(a.1.cmp(&b.1)));
        let (first_cut, _) = self.buffer.swap_remove(self.limit);
        self.buffer.truncate(self.limit);
        first_cut
    }

    /// The best `limit`, unordered.
    pub(super) fn into_best(mut self, cmp: impl Fn(&K, &K) -> Ordering) -> Vec<(K, DocId)> {
        if self.buffer.len() > self.limit {
            self.cut(&cmp);
        }
        self.buffer
    }
}
