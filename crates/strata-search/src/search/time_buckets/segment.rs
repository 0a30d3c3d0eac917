//! One [`TimeBuckets`] histogram collected in one segment.
//!
//! Each histogram opens its date column and its children's
//! columns or filter scorers once. A document's bucket is its date's
//! position `(date - offset) / interval`, rounded down; the bucket being
//! filled is kept aside (its bounds and accumulators) until a document
//! falls outside it, so time-ordered documents cost neither a division nor
//! a map lookup each. Dense columns (one value per document) are read a
//! block of documents at a time. Filters are scorers only ever moved
//! forward: the collected documents arrive in increasing order within a
//! segment, and each filter remembers the next document it matches, so a
//! document before it costs one comparison. A run of documents of one
//! block that fall in the bucket being filled is added child by child
//! over the whole run (a dense metric sums a slice, a `percentiles`
//! child adds the slice to the bucket's digest).

use std::sync::Arc;

use tantivy::columnar::{Column, ColumnIndex, NumericalType};
use tantivy::query::Query;
use tantivy::{DocId, DocSet, SegmentReader};

use super::children::{open_children, ChildReader};
use super::fruit::{Acc, Bucket, Histogram};
use super::plan::TimeBuckets;
use super::range_filter::RangeColumns;
use crate::kernels;
use crate::query::column_cache::dense_i64_column;
use crate::query::zone_map::{zone_map, ZoneMap, ZONE_DOCS};
use crate::search::bucket_limit::max_buckets;
use crate::search::percentiles::SpanDigest;
use crate::search::sort::{dense, numeric_column};

/// One histogram in one segment.
pub(super) struct SegmentHistogram {
    dates: Option<Column<i64>>,
    /// One date per document: read a block at a time into `block`.
    dates_dense: bool,
    block: Vec<i64>,
    /// The dense date column's zone map: a block of documents whose zones
    /// lie within the bucket being filled is added without reading dates.
    zones: Option<Arc<ZoneMap>>,
    interval: i64,
    offset: i64,
    children: Vec<ChildReader>,
    /// The columns of the `Range` children.
    ranges: RangeColumns,
    /// Which filter children match the current document.
    matched: Vec<bool>,
    /// The bucket being filled: its position, its dates `[start, end)`.
    current: Option<(i64, i64, i64)>,
    filling: Bucket,
    done: Histogram,
    /// A multi-valued document's positions.
    scratch: Vec<i64>,
    /// Whether a child is a `percentiles` (buckets then carry digests).
    digests: bool,
}

impl SegmentHistogram {
    /// Opens `plan`'s columns and filter scorers in `segment`; `queries`
    /// are its filter children's queries, in order.
    pub(super) fn open(
        segment: &SegmentReader,
        plan: &TimeBuckets,
        queries: &[Box<dyn Query>],
    ) -> tantivy::Result<SegmentHistogram> {
        let mut ranges = RangeColumns::default();
        let children = open_children(segment, plan, queries, &mut ranges)?;
        // A dense date column comes opened from the cache.
        let dates: Option<Column<i64>> = match dense_i64_column(segment, &plan.column)? {
            Some(values) => Some(Column {
                index: ColumnIndex::Full,
                values,
            }),
            None => numeric_column(segment, &plan.column, NumericalType::I64).and_then(Into::into),
        };
        // The map of the dense column just opened, shared (by segment and
        // column) with the date ranges' zone maps.
        let zones = dates
            .as_ref()
            .filter(|_| dense(&dates))
            .map(|d| zone_map(segment.segment_id(), &plan.column, d.values.as_ref()));
        Ok(SegmentHistogram {
            dates_dense: dense(&dates),
            dates,
            block: Vec::new(),
            zones,
            interval: plan.interval,
            offset: plan.offset,
            matched: vec![false; children.len()],
            children,
            ranges,
            current: None,
            filling: Bucket::default(),
            done: Histogram::default(),
            scratch: Vec::new(),
            digests: plan
                .children
                .iter()
                .any(|c| matches!(c.kind, super::plan::ChildKind::Percentiles { .. })),
        })
    }

    /// The histogram of the segment, its last bucket flushed.
    pub(super) fn finish(mut self) -> Histogram {
        self.flush();
        self.done
    }

    pub(super) fn collect_block(&mut self, docs: &[DocId]) {
        if self.dates.is_none() || !self.dates_dense {
            docs.iter().for_each(|&doc| self.collect(doc));
            return;
        }
        for child in &mut self.children {
            if let ChildReader::Metric {
                column: Some(column),
                dense: true,
                raw,
                block,
                ..
            } = child
            {
                column.read_dense(docs, raw, block);
            }
        }
        self.ranges.read_block(docs);
        if self.in_filling_bucket(docs) {
            self.add_run(docs, 0);
            return;
        }
        let mut block = std::mem::take(&mut self.block);
        block.resize(docs.len(), 0);
        if let Some(dates) = &self.dates {
            dates.values.get_vals(docs, &mut block);
        }
        let mut at = 0;
        while at < docs.len() {
            // The run of documents from `at` whose dates fall in the bucket
            // being filled (time-ordered documents make runs long).
            let run = match self.current {
                Some((_, start, end)) => {
                    kernels::first_outside(&block[at..], start, end).unwrap_or(docs.len() - at)
                }
                None => 0,
            };
            if run == 0 {
                self.match_filters(docs[at]);
                self.add_dated(docs[at], block[at], Some(at));
                at += 1;
            } else {
                self.add_run(&docs[at..at + run], at);
                at += run;
            }
        }
        self.block = block;
    }

    /// Whether the zone map shows every date of `docs` (increasing) within
    /// the bucket being filled: the zones from the first document's to
    /// the last's hold only dates inside it.
    fn in_filling_bucket(&self, docs: &[DocId]) -> bool {
        let (Some(zones), Some((_, start, end)), Some(&first), Some(&last)) =
            (&self.zones, self.current, docs.first(), docs.last())
        else {
            return false;
        };
        let (first, last) = ((first / ZONE_DOCS) as usize, (last / ZONE_DOCS) as usize);
        last < zones.len()
            && (first..=last).all(|z| {
                let (min, max) = zones.bounds(z);
                min >= start && max < end
            })
    }

    /// Counts `docs`, all in the bucket being filled, starting at `first`
    /// in the block being collected: the same as [`Self::add`] for each,
    /// one child at a time over the run.
    fn add_run(&mut self, docs: &[DocId], first: usize) {
        let Bucket {
            docs: count,
            children: accs,
            digests,
        } = &mut self.filling;
        *count += docs.len() as u64;
        let ranges = &self.ranges;
        let children = self.children.iter_mut().zip(accs.iter_mut());
        for (i, (child, acc)) in children.enumerate() {
            match child {
                ChildReader::Range { slot, range } => {
                    let values = &ranges.block(*slot)[first..first + docs.len()];
                    acc.count += kernels::count_in_range(values, range.low, range.high);
                }
                ChildReader::Filter(scorer, next) => match (docs.first(), docs.last()) {
                    // Consecutive documents (a segment the search matches
                    // whole): count the filter's documents among them by
                    // stepping through its matches, not seeking each one.
                    (Some(&first), Some(&last)) if (last - first) as usize + 1 == docs.len() => {
                        if *next < first {
                            *next = scorer.seek(first);
                        }
                        while *next <= last {
                            acc.count += 1;
                            *next = scorer.advance();
                        }
                    }
                    _ => {
                        for &doc in docs {
                            if *next < doc {
                                *next = scorer.seek(doc);
                            }
                            acc.count += u64::from(*next == doc);
                        }
                    }
                },
                ChildReader::Metric {
                    digest: true,
                    column: Some(column),
                    dense,
                    block,
                    ..
                } => {
                    let digest = &mut digests[i];
                    match block.get(first..first + docs.len()) {
                        Some(values) if *dense => digest.add_all(values),
                        _ => {
                            for &doc in docs {
                                column.values_for_doc(doc).for_each(|v| digest.add(v));
                            }
                        }
                    }
                }
                ChildReader::Metric {
                    column: Some(column),
                    dense,
                    block,
                    ..
                } => match block.get(first..first + docs.len()) {
                    Some(values) if *dense => acc.add_all(values),
                    _ => {
                        for &doc in docs {
                            column.values_for_doc(doc).for_each(|v| acc.add(v));
                        }
                    }
                },
                ChildReader::Metric { column: None, .. } => {}
            }
        }
    }

    pub(super) fn collect(&mut self, doc: DocId) {
        // The document's one date, or `None` when it has several.
        let single = {
            let Some(dates) = &self.dates else {
                return;
            };
            let mut values = dates.values_for_doc(doc);
            match (values.next(), values.next()) {
                (None, _) => return,
                (Some(date), None) => Some(date),
                _ => None,
            }
        };
        self.match_filters(doc);
        if let Some(date) = single {
            self.add_dated(doc, date, None);
            return;
        }
        // Several dates: each distinct bucket counts the document once.
        let mut positions = std::mem::take(&mut self.scratch);
        positions.clear();
        if let Some(dates) = &self.dates {
            positions.extend(dates.values_for_doc(doc).map(|v| self.position(v)));
        }
        positions.sort_unstable();
        positions.dedup();
        for &pos in &positions {
            self.add(doc, pos, None);
        }
        self.scratch = positions;
    }

    /// Sets `matched` for `doc`, moving each filter up to it.
    #[inline]
    fn match_filters(&mut self, doc: DocId) {
        for (child, matched) in self.children.iter_mut().zip(self.matched.iter_mut()) {
            match child {
                ChildReader::Filter(scorer, next) => {
                    if *next < doc {
                        *next = scorer.seek(doc);
                    }
                    *matched = *next == doc;
                }
                ChildReader::Range { slot, range } => {
                    *matched = range.contains(self.ranges.value(*slot, doc));
                }
                ChildReader::Metric { .. } => {}
            }
        }
    }

    /// Counts `doc`, whose one date is `date` (`at`: its place in the
    /// block being collected).
    #[inline]
    fn add_dated(&mut self, doc: DocId, date: i64, at: Option<usize>) {
        let pos = match self.current {
            Some((pos, start, end)) if date >= start && date < end => pos,
            _ => self.position(date),
        };
        self.add(doc, pos, at);
    }

    /// The bucket position of `date`.
    #[inline]
    fn position(&self, date: i64) -> i64 {
        date.saturating_sub(self.offset).div_euclid(self.interval)
    }

    /// Counts `doc` in the bucket at `pos`; `at` is its place in the block
    /// being collected, when dense metric values were read for the block.
    #[inline]
    fn add(&mut self, doc: DocId, pos: i64, at: Option<usize>) {
        if self.current.map(|(p, _, _)| p) != Some(pos) {
            self.flush();
            let start = pos
                .saturating_mul(self.interval)
                .saturating_add(self.offset);
            self.current = Some((pos, start, start.saturating_add(self.interval)));
            self.filling
                .children
                .resize(self.children.len(), Acc::default());
            if self.digests {
                let n = self.children.len();
                self.filling.digests.resize_with(n, SpanDigest::default);
            }
        }
        let Bucket {
            docs: count,
            children: accs,
            digests,
        } = &mut self.filling;
        *count += 1;
        let children = self.children.iter().zip(accs.iter_mut()).zip(&self.matched);
        for (i, ((child, acc), matched)) in children.enumerate() {
            match child {
                ChildReader::Filter(..) | ChildReader::Range { .. } => {
                    acc.count += u64::from(*matched)
                }
                ChildReader::Metric {
                    digest: true,
                    column: Some(column),
                    dense,
                    block,
                    ..
                } => {
                    let digest = &mut digests[i];
                    match (dense, at.and_then(|i| block.get(i))) {
                        (true, Some(&v)) => digest.add(v),
                        (true, None) => digest.add(column.dense_value(doc)),
                        (false, _) => column.values_for_doc(doc).for_each(|v| digest.add(v)),
                    }
                }
                ChildReader::Metric {
                    column: Some(column),
                    dense,
                    block,
                    ..
                } => match (dense, at.and_then(|i| block.get(i))) {
                    (true, Some(&v)) => acc.add(v),
                    (true, None) => acc.add(column.dense_value(doc)),
                    (false, _) => column.values_for_doc(doc).for_each(|v| acc.add(v)),
                },
                ChildReader::Metric { column: None, .. } => {}
            }
        }
    }

    /// Moves the bucket being filled into the segment's buckets.
    fn flush(&mut self) {
        let Some((pos, _, _)) = self.current.take() else {
            return;
        };
        let filling = std::mem::take(&mut self.filling);
        let done = &mut self.done;
        if !done.buckets.contains_key(&pos) && done.buckets.len() >= max_buckets() {
            // Bounded memory: the result is the too-many-buckets error.
            done.overflow = true;
            return;
        }
        done.buckets.entry(pos).or_default().merge(filling);
    }
}
