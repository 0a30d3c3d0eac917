//! Ranking a shard's matches: the best `limit` documents by score, or by
//! the request's sort fields (with `missing`, `search_after` and
//! `track_scores`).
//!
//! A collector of our own rather than tantivy's `TopDocs` so that a key
//! costs no allocation per document: the values of up to two criteria are
//! kept inline, and the criteria's orders live in the collector, not in
//! every key. Each segment keeps a buffer of twice the limit; when it is
//! full it is cut back to the limit by a partial sort, and from then on
//! only a document that ranks strictly before the first one cut can enter
//! (documents come in ascending id order, and ties go to the lower id, so
//! one equal to it could not). Documents `search_after` excludes are never
//! buffered.

use std::cmp::Ordering;
use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Weight;
use tantivy::{DocAddress, DocId, Score, SegmentOrdinal, SegmentReader};

use super::ranked::TopBuffer;
pub(crate) use super::ranked::{FieldRanking, Ranked, RankedShard, SortValues};
use super::snapshot::shard_doc_base;
use super::sort::{rank_cmp, KeyOrder, ValueReader};
use super::zone_ranking;

/// How documents are ranked.
pub(crate) enum RankBy {
    /// By score, descending.
    Score,
    /// By sort fields.
    Fields(Arc<FieldRanking>),
}

/// The collector: the best `limit` documents of one shard.
pub(crate) struct Ranking {
    limit: usize,
    by: RankBy,
    /// The shard's ordinal in the search (`_shard_doc` values).
    shard: u32,
}

impl Ranking {
    /// A collector of the best `limit` (at least 1) documents.
    pub fn new(limit: usize, by: RankBy) -> Ranking {
        Ranking {
            limit: limit.max(1),
            by,
            shard: 0,
        }
    }

    /// The collector of the search's `shard`-th shard (what `_shard_doc`
    /// values encode).
    pub fn at_shard(mut self, shard: usize) -> Ranking {
        self.shard = shard as u32;
        self
    }

    fn cmp(&self, a: &Ranked, b: &Ranked) -> Ordering {
        let by_key = match &self.by {
            RankBy::Score => b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal),
            RankBy::Fields(f) => rank_cmp(&a.values, &b.values, &f.orders),
        };
        by_key.then_with(|| a.addr.cmp(&b.addr))
    }
}

impl Collector for Ranking {
    type Fruit = RankedShard;
    type Child = RankingSegment;

    fn for_segment(
        &self,
        segment_ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<RankingSegment> {
        let keys = match &self.by {
            RankBy::Score => Keys::Score(TopBuffer::new(self.limit)),
            RankBy::Fields(f) => {
                let readers: Vec<ValueReader> = f
                    .sort
                    .iter()
                    .enumerate()
                    .map(|(n, s)| {
                        let runtime = f.runtime.get(n).and_then(Option::as_ref);
                        ValueReader::open_for(s, &f.mappings, segment, runtime)
                    })
                    .map(|reader| match reader {
                        ValueReader::ShardDoc(_) => {
                            ValueReader::ShardDoc(shard_doc_base(self.shard, segment_ord))
                        }
                        other => other,
                    })
                    .collect();
                let single = readers.len() == 1 && readers[0].has_rank_key();
                if single && f.after.is_none() && !f.track_scores {
                    Keys::Numeric {
                        order: f.orders[0],
                        reader: readers.into_iter().next().expect("one reader"),
                        top: TopBuffer::new(self.limit),
                    }
                } else {
                    Keys::Values {
                        readers,
                        field: Arc::clone(f),
                        top: TopBuffer::new(self.limit),
                    }
                }
            }
        };
        Ok(RankingSegment {
            segment_ord,
            keys,
            best_score: None,
        })
    }

    /// A single date criterion goes by zone maps where it can
    /// (`zone_ranking`); otherwise every match is offered, as tantivy does.
    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<RankedShard> {
        if let RankBy::Fields(field) = &self.by {
            let zoned = zone_ranking::collect(self.limit, field, weight, segment_ord, reader)?;
            if let Some(fruit) = zoned {
                return Ok(fruit);
            }
        }
        let mut segment = self.for_segment(segment_ord, reader)?;
        let alive = reader.alive_bitset();
        let is_alive = |doc| alive.is_none_or(|a| a.is_alive(doc));
        if self.requires_scoring() {
            weight.for_each(reader, &mut |doc, score| {
                if is_alive(doc) {
                    segment.collect(doc, score);
                }
            })?;
        } else {
            weight.for_each_no_score(reader, &mut |docs| {
                for &doc in docs.iter().filter(|&&d| is_alive(d)) {
                    segment.collect(doc, 0.0);
                }
            })?;
        }
        Ok(segment.harvest())
    }

    fn requires_scoring(&self) -> bool {
        match &self.by {
            RankBy::Score => true,
            RankBy::Fields(f) => f.track_scores || f.sort.iter().any(|s| s.field == "_score"),
        }
    }

    fn merge_fruits(&self, fruits: Vec<RankedShard>) -> tantivy::Result<RankedShard> {
        let mut best_score: Option<Score> = None;
        let mut hits = Vec::new();
        for fruit in fruits {
            if let Some(e) = fruit.error {
                return Err(e);
            }
            best_score = match (best_score, fruit.best_score) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            hits.extend(fruit.hits);
        }
        hits.sort_by(|a, b| self.cmp(a, b));
        hits.truncate(self.limit);
        Ok(RankedShard {
            hits,
            best_score,
            error: None,
        })
    }
}

/// A segment's keys, by kind of ranking.
enum Keys {
    /// By score, descending.
    Score(TopBuffer<Score>),
    /// One numeric, boolean or `_doc` criterion: keys are integers
    /// (`ValueReader::rank_key`); the values are read again for the best.
    Numeric {
        order: KeyOrder,
        reader: ValueReader,
        top: TopBuffer<u128>,
    },
    /// Any criteria: the values themselves, with the score.
    Values {
        readers: Vec<ValueReader>,
        field: Arc<FieldRanking>,
        top: TopBuffer<(SortValues, Score)>,
    },
}

fn by_score(a: &Score, b: &Score) -> Ordering {
    b.partial_cmp(a).unwrap_or(Ordering::Equal)
}

/// [`Ranking`]'s per-segment part.
pub(crate) struct RankingSegment {
    segment_ord: SegmentOrdinal,
    keys: Keys,
    best_score: Option<Score>,
}

impl SegmentCollector for RankingSegment {
    type Fruit = RankedShard;

    fn collect(&mut self, doc: DocId, score: Score) {
        match &mut self.keys {
            Keys::Score(top) => top.offer(score, doc, by_score),
            Keys::Numeric { order, reader, top } => {
                top.offer(reader.rank_key(doc, *order), doc, u128::cmp)
            }
            Keys::Values {
                readers,
                field,
                top,
            } => {
                if field.track_scores {
                    self.best_score = Some(self.best_score.map_or(score, |b| b.max(score)));
                }
                let values: SortValues = readers.iter().map(|r| r.value(doc, score)).collect();
                if let Some(after) = &field.after {
                    if rank_cmp(&values, after, &field.orders) != Ordering::Greater {
                        return;
                    }
                }
                let orders = &field.orders;
                top.offer((values, score), doc, |a, b| rank_cmp(&a.0, &b.0, orders));
            }
        }
    }

    fn harvest(self) -> RankedShard {
        let seg = self.segment_ord;
        let addr = |doc| DocAddress::new(seg, doc);
        let mut error = None;
        let hits = match self.keys {
            Keys::Score(top) => top
                .into_best(by_score)
                .into_iter()
                .map(|(score, doc)| Ranked {
                    values: SortValues::new(),
                    score,
                    addr: addr(doc),
                })
                .collect(),
            Keys::Numeric { reader, top, .. } => top
                .into_best(u128::cmp)
                .into_iter()
                .map(|(_, doc)| Ranked {
                    values: std::iter::once(reader.value(doc, Score::NAN)).collect(),
                    score: Score::NAN,
                    addr: addr(doc),
                })
                .collect(),
            Keys::Values {
                field,
                top,
                readers,
            } => {
                error = readers.iter().find_map(ValueReader::take_error);
                let track = field.track_scores;
                top.into_best(|a, b| rank_cmp(&a.0, &b.0, &field.orders))
                    .into_iter()
                    .map(|((values, score), doc)| Ranked {
                        values,
                        score: if track { score } else { Score::NAN },
                        addr: addr(doc),
                    })
                    .collect()
            }
        };
        // Sorted by the shard's merge, which every fruit goes through.
        RankedShard {
            hits,
            best_score: self.best_score,
            error,
        }
    }
}

#[cfg(test)]
#[path = "ranking_tests.rs"]
mod tests;
