//! The tantivy collector of [`DistinctTerms`]: per segment, the term
//! ordinals the matching documents hold (a bit per dictionary term), then
//! at harvest one HyperLogLog sketch of their coupons.

use std::io;
use std::sync::Arc;

use datasketches::hll::{Coupon, HllSketch, HllType};
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Cardinality, StrColumn};
use tantivy::index::SegmentId;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::coupons::{coupon_table, COUPONS};
use super::plan::DistinctTerms;
use super::warming;
use crate::search::distinct_count::{precision_from_threshold, value_of, DistinctCount};
use crate::search::sort::str_column;
use crate::store::stored_values::read_rows;

/// Without a warming thread, a search builds a table itself once it
/// touches at least this share (1/256) of a segment's terms; below it the
/// terms are looked up one by one. A block of the dictionary holds a few
/// hundred terms and a lookup decodes every block it touches, so from
/// about this share on, scattered lookups read as much of the dictionary
/// as the table does once (but hash only the terms touched).
const TABLE_SHARE: u64 = 256;

/// A search builds the table itself, warming thread or not, when the
/// segment has at most this many terms (a table of a few pages) or when it
/// touches at least this share (1/4) of them: looking that many up costs
/// about as much as the table.
const SMALL_TABLE: u64 = 8192;
/// See [`SMALL_TABLE`]: a search touching `1 / EAGER_SHARE` of the terms
/// builds the table itself.
const EAGER_SHARE: u64 = 4;

/// The collector of one search's [`DistinctTerms`].
pub struct DistinctTermsCollector {
    plans: Arc<Vec<DistinctTerms>>,
}

impl DistinctTermsCollector {
    /// A collector for `plans`.
    pub fn new(plans: Arc<Vec<DistinctTerms>>) -> DistinctTermsCollector {
        DistinctTermsCollector { plans }
    }
}

/// One plan's column in one segment and the ordinals seen.
struct Seen {
    column: StrColumn,
    dense: bool,
    words: Vec<u64>,
    any: bool,
}

/// Sets the bit of `ord` (ordinals past the dictionary are ignored).
#[inline]
fn insert(words: &mut [u64], any: &mut bool, ord: u64) {
    if let Some(word) = words.get_mut((ord / 64) as usize) {
        *word |= 1 << (ord % 64);
        *any = true;
    }
}

impl Seen {
    /// Notes the ordinals `doc` holds.
    fn insert_doc(&mut self, doc: DocId) {
        let Seen {
            column, words, any, ..
        } = self;
        for ord in column.ords().values_for_doc(doc) {
            insert(words, any, ord);
        }
    }

    /// The ordinals seen, in increasing order.
    fn ordinals(&self) -> Vec<u64> {
        let mut out = Vec::new();
        for (i, &word) in self.words.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                out.push(i as u64 * 64 + u64::from(w.trailing_zeros()));
                w &= w - 1;
            }
        }
        out
    }
}

/// [`DistinctTermsCollector`]'s per-segment part.
pub struct DistinctTermsSegmentCollector {
    segment: SegmentId,
    plans: Arc<Vec<DistinctTerms>>,
    seen: Vec<Option<Seen>>,
    block: Vec<u64>,
}

/// One count per plan (`None`: nothing seen) with the plan's
/// `precision_threshold`, or the error that stopped a segment's harvest.
#[derive(Default)]
pub struct DistinctTermsFruit {
    counts: Vec<Option<(DistinctCount, u64)>>,
    error: Option<String>,
}

impl DistinctTermsFruit {
    /// Adds another segment's or shard's counts.
    pub fn merge(&mut self, other: DistinctTermsFruit) {
        if self.error.is_none() {
            self.error = other.error;
        }
        if self.counts.len() < other.counts.len() {
            self.counts.resize_with(other.counts.len(), || None);
        }
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine = match (mine.take(), theirs) {
                (Some((mut a, threshold)), Some((b, _))) => {
                    a.merge(b, threshold);
                    Some((a, threshold))
                }
                (a, b) => a.or(b),
            };
        }
    }

    /// The error a segment met, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The `n` plans' counts.
    pub fn estimates(&self, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| {
                self.counts
                    .get(i)
                    .and_then(Option::as_ref)
                    .map_or(0.0, |(c, _)| c.count() as f64)
            })
            .collect()
    }
}

impl Collector for DistinctTermsCollector {
    type Fruit = DistinctTermsFruit;
    type Child = DistinctTermsSegmentCollector;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<DistinctTermsSegmentCollector> {
        let mut seen = Vec::with_capacity(self.plans.len());
        for plan in self.plans.iter() {
            seen.push(str_column(segment, &plan.column)?.map(|column| {
                let terms = column.dictionary().num_terms() as u64;
                Seen {
                    dense: column.ords().get_cardinality() == Cardinality::Full,
                    column,
                    words: vec![0; terms.div_ceil(64) as usize],
                    any: false,
                }
            }));
        }
        Ok(DistinctTermsSegmentCollector {
            segment: segment.segment_id(),
            plans: Arc::clone(&self.plans),
            seen,
            block: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<DistinctTermsFruit>) -> tantivy::Result<DistinctTermsFruit> {
        let mut out = DistinctTermsFruit::default();
        for f in fruits {
            out.merge(f);
        }
        Ok(out)
    }
}

impl SegmentCollector for DistinctTermsSegmentCollector {
    type Fruit = DistinctTermsFruit;

    fn collect(&mut self, doc: DocId, _score: Score) {
        for seen in self.seen.iter_mut().flatten() {
            seen.insert_doc(doc);
        }
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        for seen in self.seen.iter_mut().flatten() {
            if seen.dense {
                self.block.resize(docs.len(), 0);
                read_rows(seen.column.ords().values.as_ref(), docs, &mut self.block);
                for &ord in &self.block {
                    insert(&mut seen.words, &mut seen.any, ord);
                }
            } else {
                docs.iter().for_each(|&doc| seen.insert_doc(doc));
            }
        }
    }

    fn harvest(self) -> DistinctTermsFruit {
        let mut fruit = DistinctTermsFruit::default();
        for (plan, seen) in self.plans.iter().zip(self.seen) {
            let count = match seen {
                None => Ok(None),
                Some(seen) if !seen.any => {
                    // Not needed now; ready for a search of other documents.
                    warming::schedule(self.segment, &plan.column, &seen.column, false);
                    Ok(None)
                }
                Some(seen) => count(self.segment, plan, &seen).map(|c| Some((c, plan.threshold))),
            };
            match count {
                Ok(c) => fruit.counts.push(c),
                Err(e) => {
                    fruit.counts.push(None);
                    fruit.error = Some(format!("read the terms of [{}]: {e}", plan.column));
                }
            }
        }
        fruit
    }
}

/// The count of the terms `seen` holds: exact (their hashes) when they
/// are at most the plan's threshold, otherwise a sketch (`sketch`).
fn count(segment: SegmentId, plan: &DistinctTerms, seen: &Seen) -> io::Result<DistinctCount> {
    let ordinals = seen.ordinals();
    if ordinals.len() as u64 > plan.threshold {
        let lg_k = precision_from_threshold(plan.threshold);
        return sketch(segment, &plan.column, seen, ordinals, lg_k).map(DistinctCount::Sketch);
    }
    let mut exact = DistinctCount::default();
    if let Some(table) = COUPONS.get(segment, &plan.column) {
        for ord in ordinals {
            if let Some(&value) = table.get(ord as usize) {
                exact.insert(value, plan.threshold);
            }
        }
        return Ok(exact);
    }
    // Without a table the terms are looked up; the next search of the
    // segment (a dashboard refreshing) finds the table the warming
    // thread builds, and indexes it instead.
    warming::schedule(segment, &plan.column, &seen.column, true);
    seen.column
        .dictionary()
        .sorted_ords_to_term_cb(&ordinals, |bytes| {
            exact.insert(value_of(bytes), plan.threshold);
        })?;
    Ok(exact)
}

/// The sketch of `ordinals` (of the terms `seen` holds). Without a cached
/// table, the terms touched are looked up in the dictionary and the
/// segment's table is left to the warming thread (built here only when
/// there is none).
fn sketch(
    segment: SegmentId,
    column: &str,
    seen: &Seen,
    ordinals: Vec<u64>,
    lg_k: u8,
) -> io::Result<HllSketch> {
    let dictionary = seen.column.dictionary();
    let terms = dictionary.num_terms() as u64;
    let build = || COUPONS.get_or_try_build(segment, column, || coupon_table(&seen.column));
    let table = match COUPONS.get(segment, column) {
        Some(table) => Some(table),
        None if terms <= SMALL_TABLE || ordinals.len() as u64 * EAGER_SHARE >= terms => {
            Some(build()?)
        }
        None if warming::schedule(segment, column, &seen.column, true) => None,
        None if ordinals.len() as u64 * TABLE_SHARE >= terms => Some(build()?),
        None => None,
    };
    let Ok(mut sketch) = HllSketch::new(lg_k, HllType::Hll8) else {
        unreachable!("precision_from_threshold stays within 4..=18")
    };
    match table {
        Some(table) => {
            for ord in ordinals {
                if let Some(value) = table.get(ord as usize) {
                    sketch.update_with_coupon(value.coupon());
                }
            }
        }
        None => {
            dictionary.sorted_ords_to_term_cb(&ordinals, |bytes| {
                sketch.update_with_coupon(Coupon::from_value(bytes));
            })?;
        }
    }
    Ok(sketch)
}
