//! The tantivy collector of [`TopTerms`]: per segment, documents per term
//! ordinal (and per pair of ordinals for the level below) in a counter
//! indexed by ordinal; at harvest the `segment_size` largest are kept and
//! named (`term_names`: a sorted pass over the term dictionary, or its
//! cached table).

use std::cmp::Reverse;
use std::io;
use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Cardinality, StrColumn};
use tantivy::index::SegmentId;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::counter::Counter;
use super::fruit::{TermCount, TermCounts, TopTermsFruit};
use super::plan::TopTerms;
use crate::search::sort::str_column;
use crate::search::term_names;
use crate::store::stored_values::read_rows;

/// The collector of one search's [`TopTerms`].
pub struct TopTermsCollector {
    plans: Arc<Vec<TopTerms>>,
}

impl TopTermsCollector {
    /// A collector for `plans`.
    pub fn new(plans: Arc<Vec<TopTerms>>) -> TopTermsCollector {
        TopTermsCollector { plans }
    }
}

/// One level's column in a segment.
struct LevelColumn {
    /// The column's (field's) name.
    name: String,
    column: StrColumn,
    /// One value per document: read by blocks.
    dense: bool,
    /// Terms of the dictionary.
    terms: u64,
}

impl LevelColumn {
    fn open(segment: &SegmentReader, name: &str) -> tantivy::Result<Option<LevelColumn>> {
        Ok(str_column(segment, name)?.map(|column| LevelColumn {
            name: name.to_string(),
            dense: column.ords().get_cardinality() == Cardinality::Full,
            terms: column.dictionary().num_terms() as u64,
            column,
        }))
    }

    /// The terms of `ords` (increasing) in `segment`, in that order.
    fn names(&self, segment: SegmentId, ords: &[u64]) -> io::Result<Vec<String>> {
        term_names::names(segment, &self.name, &self.column, ords)
    }

    /// The distinct ordinals of `doc`, in increasing order.
    fn ords_of(&self, doc: DocId, out: &mut Vec<u64>) {
        out.clear();
        out.extend(self.column.ords().values_for_doc(doc));
        out.sort_unstable();
        out.dedup();
    }
}

/// One plan in one segment.
struct SegmentTerms {
    id: SegmentId,
    outer: LevelColumn,
    /// The level below; `None` too where the segment has no such column.
    inner: Option<LevelColumn>,
    counts: Counter,
    /// Keyed by `outer ordinal * inner terms + inner ordinal`.
    pairs: Counter,
}

impl SegmentTerms {
    fn add_doc(&mut self, doc: DocId, outer: &mut Vec<u64>, inner: &mut Vec<u64>) {
        self.outer.ords_of(doc, outer);
        outer.iter().for_each(|&a| self.counts.add(a));
        if let Some(column) = &self.inner {
            column.ords_of(doc, inner);
            for &a in outer.iter() {
                for &b in inner.iter() {
                    self.pairs.add(a * column.terms + b);
                }
            }
        }
    }

    /// Counts a block of documents that each hold one outer value (and one
    /// inner value, if there is a level below).
    fn add_dense_block(&mut self, docs: &[DocId], outer: &mut Vec<u64>, inner: &mut Vec<u64>) {
        outer.resize(docs.len(), 0);
        read_rows(self.outer.column.ords().values.as_ref(), docs, outer);
        self.counts.add_all(outer);
        if let Some(column) = &self.inner {
            inner.resize(docs.len(), 0);
            read_rows(column.column.ords().values.as_ref(), docs, inner);
            // Each inner ordinal becomes its pair's key.
            for (b, &a) in inner.iter_mut().zip(outer.iter()) {
                *b += a * column.terms;
            }
            self.pairs.add_all(inner);
        }
    }
}

/// [`TopTermsCollector`]'s per-segment part.
pub struct TopTermsSegmentCollector {
    plans: Arc<Vec<TopTerms>>,
    /// Per plan; `None` where the segment has no value of the field.
    segments: Vec<Option<SegmentTerms>>,
    outer: Vec<u64>,
    inner: Vec<u64>,
}

impl Collector for TopTermsCollector {
    type Fruit = TopTermsFruit;
    type Child = TopTermsSegmentCollector;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<TopTermsSegmentCollector> {
        let mut segments = Vec::with_capacity(self.plans.len());
        for plan in self.plans.iter() {
            let Some(outer) = LevelColumn::open(segment, &plan.outer.column)? else {
                segments.push(None);
                continue;
            };
            let inner = match &plan.inner {
                Some(level) => LevelColumn::open(segment, &level.column)?,
                None => None,
            };
            let pair_keys = inner
                .as_ref()
                .map_or(0, |i| outer.terms.saturating_mul(i.terms));
            segments.push(Some(SegmentTerms {
                id: segment.segment_id(),
                counts: Counter::new(outer.terms),
                pairs: Counter::new(pair_keys),
                outer,
                inner,
            }));
        }
        Ok(TopTermsSegmentCollector {
            plans: Arc::clone(&self.plans),
            segments,
            outer: Vec::new(),
            inner: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<TopTermsFruit>) -> tantivy::Result<TopTermsFruit> {
        let mut out = TopTermsFruit::default();
        for f in fruits {
            out.merge(f);
        }
        Ok(out)
    }
}

impl SegmentCollector for TopTermsSegmentCollector {
    type Fruit = TopTermsFruit;

    fn collect(&mut self, doc: DocId, _score: Score) {
        for segment in self.segments.iter_mut().flatten() {
            segment.add_doc(doc, &mut self.outer, &mut self.inner);
        }
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        for segment in self.segments.iter_mut().flatten() {
            let dense = segment.outer.dense && segment.inner.as_ref().is_none_or(|i| i.dense);
            if dense {
                segment.add_dense_block(docs, &mut self.outer, &mut self.inner);
            } else {
                for &doc in docs {
                    segment.add_doc(doc, &mut self.outer, &mut self.inner);
                }
            }
        }
    }

    fn harvest(self) -> TopTermsFruit {
        let mut fruit = TopTermsFruit::default();
        for (plan, segment) in self.plans.iter().zip(self.segments) {
            let counts = match segment {
                None => Ok(TermCounts::default()),
                Some(segment) => harvest_plan(plan, &segment),
            };
            match counts {
                Ok(counts) => fruit.plans.push(counts),
                Err(e) => {
                    fruit.plans.push(TermCounts::default());
                    fruit.error = Some(format!("read the terms of [{}]: {e}", plan.outer.column));
                }
            }
        }
        fruit
    }
}

/// Keeps the `keep` largest counts of `entries` (ties: the smaller
/// ordinal, whose term sorts first), sorted by ordinal; returns the sum
/// of the counts cut and the largest of them.
fn keep_top(entries: &mut Vec<(u64, u32)>, keep: usize) -> (u64, u64) {
    let mut cut = (0, 0);
    if entries.len() > keep {
        entries.select_nth_unstable_by_key(keep, |&(ord, count)| (Reverse(count), ord));
        let largest_cut = u64::from(entries[keep].1);
        cut = (
            entries[keep..].iter().map(|e| u64::from(e.1)).sum(),
            largest_cut,
        );
        entries.truncate(keep);
    }
    entries.sort_unstable_by_key(|e| e.0);
    cut
}

/// One segment's counts of `plan`, cut to each level's `segment_size`.
fn harvest_plan(plan: &TopTerms, segment: &SegmentTerms) -> io::Result<TermCounts> {
    let mut outer = segment.counts.counted();
    let (sum_other, error_bound) = keep_top(&mut outer, plan.outer.segment_size);
    let ords: Vec<u64> = outer.iter().map(|e| e.0).collect();
    let terms = segment.outer.names(segment.id, &ords)?;
    let mut inner_rows = match (&plan.inner, &segment.inner) {
        (Some(level), Some(column)) => inner_counts(segment, column, &ords, level.segment_size)?,
        _ => Vec::new(),
    };
    inner_rows.resize_with(ords.len(), TermCounts::default);
    let entries = terms
        .into_iter()
        .zip(outer)
        .zip(inner_rows)
        .map(|((term, (_, count)), inner)| {
            let count = u64::from(count);
            (term, TermCount { count, inner })
        })
        .collect();
    Ok(TermCounts {
        entries,
        sum_other,
        error_bound,
    })
}

/// Per kept outer ordinal (`kept`, increasing), the inner level's counts
/// among its documents, cut to `keep` terms.
fn inner_counts(
    segment: &SegmentTerms,
    column: &LevelColumn,
    kept: &[u64],
    keep: usize,
) -> io::Result<Vec<TermCounts>> {
    let width = column.terms.max(1);
    let mut rows: Vec<Vec<(u64, u32)>> = vec![Vec::new(); kept.len()];
    match &segment.pairs {
        Counter::Lanes { .. } | Counter::Dense(_) => {
            for (row, &a) in rows.iter_mut().zip(kept) {
                *row = segment.pairs.row(a * width, width);
            }
        }
        Counter::Sparse { counts, .. } => {
            for (&key, &count) in counts {
                if let Ok(i) = kept.binary_search(&(key / width)) {
                    rows[i].push((key % width, count));
                }
            }
        }
    }
    let cuts: Vec<(u64, u64)> = rows.iter_mut().map(|r| keep_top(r, keep)).collect();
    let mut ords: Vec<u64> = rows.iter().flatten().map(|e| e.0).collect();
    ords.sort_unstable();
    ords.dedup();
    let terms = column.names(segment.id, &ords)?;
    let name_of = |b: u64| {
        let i = ords.binary_search(&b).ok()?;
        terms.get(i).cloned()
    };
    rows.into_iter()
        .zip(cuts)
        .map(|(row, (sum_other, error_bound))| {
            let entries = row
                .into_iter()
                .filter_map(|(b, c)| {
                    let term = name_of(b)?;
                    Some((
                        term,
                        TermCount {
                            count: u64::from(c),
                            inner: TermCounts::default(),
                        },
                    ))
                })
                .collect();
            Ok(TermCounts {
                entries,
                sum_other,
                error_bound,
            })
        })
        .collect()
}
