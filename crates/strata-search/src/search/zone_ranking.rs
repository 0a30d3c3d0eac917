//! Ranking a segment's matches by one `date` field with its zone map
//! (`query::zone_map`), as Kibana's Discover asks: the newest 500 of a
//! time window.
//!
//! Offering every match to the top-K buffer costs a value read and a
//! comparison per document, and with time-ordered documents sorted newest
//! first every one of them beats the buffer's threshold. Instead, the
//! zones whose best value ranks first are scanned first (the probe, at
//! least twice the limit in documents), which gives a threshold; then the
//! other zones are scanned in document order, skipping each zone whose
//! best value ranks strictly after the threshold: none of its documents
//! can be among the best `limit`, since the probe already holds `limit`
//! documents ranking at least as well. Ties keep Elasticsearch's order
//! (the lower document first): both scans keep their own best `limit`,
//! merged by (key, document) at the end.

use tantivy::query::Weight;
use tantivy::{DocAddress, DocId, DocSet, Score, SegmentOrdinal, SegmentReader, TERMINATED};

use super::ranked::{FieldRanking, Ranked, RankedShard, SortValues, TopBuffer};
use super::sort::{int_rank_key, SortValue};
use crate::query::column_cache::dense_i64_column;
use crate::query::zone_map::{zone_map, ZoneMap, ZONE_DOCS};
use crate::store::KEYWORDS;

/// The segment's best `limit` by `field`, or `None` when the ranking is
/// not one `date` criterion over a column with a value in every document
/// (or has `search_after` or `track_scores`): then rank as usual.
pub(super) fn collect(
    limit: usize,
    field: &FieldRanking,
    weight: &dyn Weight,
    segment_ord: SegmentOrdinal,
    reader: &SegmentReader,
) -> tantivy::Result<Option<RankedShard>> {
    let Some(criterion) = field.single_date() else {
        return Ok(None);
    };
    let name = format!("{KEYWORDS}.{}", criterion.field);
    let Some(values) = dense_i64_column(reader, &name)? else {
        return Ok(None);
    };
    let order = field.orders[0];
    let zones = zone_map(reader.segment_id(), &name, values.as_ref());
    let rows = values.num_vals();
    let best = |zone: usize| {
        let (min, max) = zones.bounds(zone);
        int_rank_key(if order.descending { max } else { min }, order)
    };
    let key = |doc: DocId| int_rank_key(values.get_val(doc), order);
    let alive = reader.alive_bitset();
    let is_alive = |doc| alive.is_none_or(|a| a.is_alive(doc));

    let probe = probe_zones(&zones, rows, limit, &best);
    let mut in_probe = vec![false; zones.len()];
    for &z in &probe {
        in_probe[z] = true;
    }
    let mut first = TopBuffer::new(limit);
    scan(weight, reader, &probe, rows, |doc| {
        if is_alive(doc) {
            first.offer(key(doc), doc, u128::cmp);
        }
    })?;
    let mut hits = first.into_best(u128::cmp);
    let threshold = (hits.len() >= limit)
        .then(|| hits.iter().map(|(k, _)| *k).max())
        .flatten();
    let rest: Vec<usize> = (0..zones.len())
        .filter(|&z| !in_probe[z] && threshold.is_none_or(|t| best(z) <= t))
        .collect();
    let mut second = TopBuffer::new(limit);
    scan(weight, reader, &rest, rows, |doc| {
        if is_alive(doc) {
            second.offer(key(doc), doc, u128::cmp);
        }
    })?;
    hits.extend(second.into_best(u128::cmp));
    hits.sort_unstable();
    hits.truncate(limit);
    let hits = hits
        .into_iter()
        .map(|(_, doc)| Ranked {
            values: SortValues::from_iter([SortValue::Int(values.get_val(doc))]),
            score: Score::NAN,
            addr: DocAddress::new(segment_ord, doc),
        })
        .collect();
    Ok(Some(RankedShard {
        hits,
        best_score: None,
        error: None,
    }))
}

/// The zones ranking first by their best value, at least twice `limit`
/// documents (the query may filter some out), in document order.
fn probe_zones(
    zones: &ZoneMap,
    rows: u32,
    limit: usize,
    best: &impl Fn(usize) -> u128,
) -> Vec<usize> {
    let mut by_best: Vec<usize> = (0..zones.len()).collect();
    by_best.sort_unstable_by_key(|&z| (best(z), z));
    let wanted = limit.saturating_mul(2);
    let mut docs = 0usize;
    let mut probe: Vec<usize> = by_best
        .into_iter()
        .take_while(|&z| {
            let take = docs < wanted;
            docs += zone_rows(z, rows) as usize;
            take
        })
        .collect();
    probe.sort_unstable();
    probe
}

fn zone_rows(zone: usize, rows: u32) -> u32 {
    let start = zone as u32 * ZONE_DOCS;
    (start + ZONE_DOCS).min(rows) - start
}

/// Offers every match in `zones` (ascending) to `each`, in document order.
fn scan(
    weight: &dyn Weight,
    reader: &SegmentReader,
    zones: &[usize],
    rows: u32,
    mut each: impl FnMut(DocId),
) -> tantivy::Result<()> {
    if zones.is_empty() {
        return Ok(());
    }
    let mut scorer = weight.scorer(reader, 1.0)?;
    for &zone in zones {
        let start = zone as u32 * ZONE_DOCS;
        let end = (start + ZONE_DOCS).min(rows);
        let mut doc = scorer.doc();
        if doc < start {
            doc = scorer.seek(start);
        }
        while doc < end {
            each(doc);
            doc = scorer.advance();
        }
        if doc == TERMINATED {
            break;
        }
    }
    Ok(())
}
