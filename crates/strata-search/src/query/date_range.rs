//! `range` over a `date` field, skipping by zone maps (`zone_map`).
//!
//! Per segment, when the field's column holds exactly one `i64` value per
//! document, [`ZoneRangeDocSet`] walks the column's zones: zones outside
//! the range are skipped, zones inside it yield all their documents, and
//! only zones straddling an edge have their values read. Any other column
//! shape (missing values, several values per document, another type) is
//! answered by tantivy's `RangeQuery` on the same bounds, so the matches
//! are the same either way.

use std::ops::RangeInclusive;
use std::sync::Arc;

use tantivy::columnar::ColumnValues;
use tantivy::query::{
    ConstScorer, EmptyScorer, EnableScoring, Explanation, Query, RangeQuery, Scorer, Weight,
};
use tantivy::{DocId, DocSet, Score, SegmentReader, COLLECT_BLOCK_BUFFER_LEN, TERMINATED};

use super::column_cache::dense_i64_column;
use super::filter::{all_docs, explain_filter};
use super::zone_map::{zone_map, Overlap, ZoneMap, ZONE_DOCS};

/// How many times its matches a zone range's cost is (see
/// [`ZoneRangeDocSet::cost`]).
const LEAD_PENALTY: u64 = 8;

/// Documents whose date column at one path lies in an inclusive range of
/// epoch milliseconds.
#[derive(Clone, Debug)]
pub struct DateRangeQuery {
    /// The fast-field column name (`f.<path>`).
    column: String,
    range: RangeInclusive<i64>,
    /// The same range as tantivy's query, for other column shapes.
    fallback: RangeQuery,
}

impl DateRangeQuery {
    /// `fallback` must select exactly the values in `range` at `column`.
    pub fn new(column: String, range: RangeInclusive<i64>, fallback: RangeQuery) -> Self {
        DateRangeQuery {
            column,
            range,
            fallback,
        }
    }
}

impl Query for DateRangeQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(DateRangeWeight {
            query: self.clone(),
            fallback: self.fallback.weight(scoring)?,
        }))
    }
}

struct DateRangeWeight {
    query: DateRangeQuery,
    fallback: Box<dyn Weight>,
}

impl Weight for DateRangeWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let Some(values) = dense_i64_column(reader, &self.query.column)? else {
            return self.fallback.scorer(reader, boost);
        };
        let (low, high) = (*self.query.range.start(), *self.query.range.end());
        if values.num_vals() == 0 || values.max_value() < low || values.min_value() > high {
            return Ok(Box::new(EmptyScorer));
        }
        if values.min_value() >= low && values.max_value() <= high {
            return Ok(all_docs(reader, boost));
        }
        let zones = zone_map(reader.segment_id(), &self.query.column, values.as_ref());
        let docs = ZoneRangeDocSet::new(values, zones, low..=high);
        Ok(Box::new(ConstScorer::new(docs, boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_filter(self, reader, doc, "DateRangeQuery")
    }
}

/// Where the doc set stands within its current zone.
enum Cursor {
    /// Every document of the zone matches: the current one and those
    /// after it, up to `end` (exclusive).
    All { end: DocId },
    /// The zone's matching documents, `docs[at]` the current one.
    Listed { docs: Vec<DocId>, at: usize },
    /// No document left.
    Done,
}

/// The documents of a dense column (row = document) whose value lies in
/// `range`, zone by zone.
pub struct ZoneRangeDocSet {
    values: Arc<dyn ColumnValues<i64>>,
    zones: Arc<ZoneMap>,
    range: RangeInclusive<i64>,
    /// The current zone.
    zone: usize,
    cursor: Cursor,
    doc: DocId,
    size_hint: u32,
    /// Spare list buffer, reused across zones.
    spare: Vec<DocId>,
}

impl ZoneRangeDocSet {
    /// Positioned on the first match.
    pub fn new(
        values: Arc<dyn ColumnValues<i64>>,
        zones: Arc<ZoneMap>,
        range: RangeInclusive<i64>,
    ) -> Self {
        let (low, high) = (*range.start(), *range.end());
        let size_hint = (0..zones.len())
            .filter(|&z| zones.overlap(z, low, high) != Overlap::Outside)
            .count()
            .saturating_mul(ZONE_DOCS as usize)
            .min(values.num_vals() as usize) as u32;
        let mut set = ZoneRangeDocSet {
            values,
            zones,
            range,
            zone: 0,
            cursor: Cursor::Done,
            doc: TERMINATED,
            size_hint,
            spare: Vec::new(),
        };
        set.enter_zone_from(0);
        set
    }

    /// Moves to the first match in zone `zone` or a later one.
    fn enter_zone_from(&mut self, mut zone: usize) {
        if let Cursor::Listed { docs, .. } = std::mem::replace(&mut self.cursor, Cursor::Done) {
            self.spare = docs;
        }
        let (low, high) = (*self.range.start(), *self.range.end());
        let rows = self.values.num_vals();
        while zone < self.zones.len() {
            let start = zone as u32 * ZONE_DOCS;
            let end = (start + ZONE_DOCS).min(rows);
            match self.zones.overlap(zone, low, high) {
                Overlap::Outside => {}
                Overlap::Inside => {
                    self.zone = zone;
                    self.doc = start;
                    self.cursor = Cursor::All { end };
                    return;
                }
                Overlap::Partial => {
                    let mut docs = std::mem::take(&mut self.spare);
                    docs.clear();
                    self.values.get_row_ids_for_value_range(
                        self.range.clone(),
                        start..end,
                        &mut docs,
                    );
                    if let Some(&first) = docs.first() {
                        self.zone = zone;
                        self.doc = first;
                        self.cursor = Cursor::Listed { docs, at: 0 };
                        return;
                    }
                    self.spare = docs;
                }
            }
            zone += 1;
        }
        self.zone = self.zones.len();
        self.doc = TERMINATED;
    }
}

impl DocSet for ZoneRangeDocSet {
    fn advance(&mut self) -> DocId {
        match &mut self.cursor {
            Cursor::All { end } => {
                if self.doc + 1 < *end {
                    self.doc += 1;
                    return self.doc;
                }
            }
            Cursor::Listed { docs, at } => {
                if *at + 1 < docs.len() {
                    *at += 1;
                    self.doc = docs[*at];
                    return self.doc;
                }
            }
            Cursor::Done => return TERMINATED,
        }
        self.enter_zone_from(self.zone + 1);
        self.doc
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc >= target {
            return self.doc;
        }
        let target_zone = (target / ZONE_DOCS) as usize;
        if target_zone > self.zone {
            self.enter_zone_from(target_zone);
            if self.doc >= target {
                return self.doc;
            }
        }
        // The target lies in the current zone, after the current document.
        match &mut self.cursor {
            Cursor::All { end } => {
                if target < *end {
                    self.doc = target;
                    return target;
                }
            }
            Cursor::Listed { docs, at } => {
                let offset = docs[*at..].partition_point(|&d| d < target);
                if *at + offset < docs.len() {
                    *at += offset;
                    self.doc = docs[*at];
                    return self.doc;
                }
            }
            Cursor::Done => return TERMINATED,
        }
        self.enter_zone_from(self.zone + 1);
        self.doc
    }

    /// A zone's run at a time: a whole zone's documents are numbered and
    /// a listed zone's copied, where the default steps through `advance`
    /// per document (a fifteenth of the traffic dashboard's CPU).
    fn fill_buffer(&mut self, buffer: &mut [DocId; COLLECT_BLOCK_BUFFER_LEN]) -> usize {
        let mut filled = 0;
        while filled < buffer.len() {
            let room = buffer.len() - filled;
            match &mut self.cursor {
                Cursor::All { end } => {
                    let n = ((*end - self.doc) as usize).min(room);
                    for (slot, doc) in buffer[filled..filled + n].iter_mut().zip(self.doc..) {
                        *slot = doc;
                    }
                    filled += n;
                    self.doc += n as DocId;
                    if self.doc < *end {
                        return filled;
                    }
                }
                Cursor::Listed { docs, at } => {
                    let n = (docs.len() - *at).min(room);
                    buffer[filled..filled + n].copy_from_slice(&docs[*at..*at + n]);
                    filled += n;
                    *at += n;
                    if let Some(&next) = docs.get(*at) {
                        self.doc = next;
                        return filled;
                    }
                }
                Cursor::Done => return filled,
            }
            // The zone is used up: on to the next match.
            self.enter_zone_from(self.zone + 1);
        }
        filled
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.size_hint
    }

    /// Dearer than its matches, so that an intersection lets another
    /// clause lead where that clause matches up to [`LEAD_PENALTY`] times
    /// as many documents. This doc set is a cheap follower (a seek within
    /// a zone is a comparison or a search in a short list, and whole
    /// zones are skipped), while the clauses met beside it are not: a
    /// numeric range led by the window checks each of its documents with
    /// a column read through a trait object (two fifths of Kibana's
    /// "4xx/5xx per bucket" search), where leading itself it scans the
    /// window's values a block at a time.
    fn cost(&self) -> u64 {
        u64::from(self.size_hint).saturating_mul(LEAD_PENALTY)
    }
}

#[cfg(test)]
#[path = "date_range_tests.rs"]
mod tests;
