//! The sample of the `sampler` and `diversified_sampler` aggregations:
//! each shard's best `shard_size` documents by the search's score (as
//! Elasticsearch's `BestDocsDeferringCollector` keeps them per shard),
//! with `diversified_sampler` at most `max_docs_per_value` of them per
//! value of its field (Lucene's `DiversifiedTopDocsCollector`).
//!
//! A search of its own finds them: the shard's ranking collector
//! (`ranking`, by score) for `sampler`, [`Diversified`] below for
//! `diversified_sampler`, each over the snapshot the aggregation's pass
//! then runs on, so the documents named are the ones it reads. The sample
//! is a fixed set of documents per segment (`query::doc_set`). Below a
//! bucket, a sampler is a whole search per parent bucket (`passes`), its
//! query narrowed to the bucket: each bucket's best documents per shard,
//! as Elasticsearch keeps a top-docs collector per parent bucket.
//!
//! Ties (every score equal without a query) go to the lower document of
//! a shard, as Lucene's top-docs collectors break them: the earlier
//! segment, then the lower id in it. Strata's segment order is tantivy's,
//! so which of equally scored documents are taken can differ from a real
//! node's, whose segments are Lucene's.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Query;
use tantivy::{DocAddress, DocId, Score, Searcher, SegmentOrdinal, SegmentReader};

use super::agg_tree::sampler::SamplerParams;
use super::nested_aggs::request_query;
use super::parallel::{collect_shards, ShardSearch};
use super::ranking::{RankBy, Ranking};
use super::request::SearchRequest;
use super::scan_aggs::values::{Key, Reader, ValueKind};
use super::snapshot::Snapshot;
use crate::error::{Result, SearchError};
use crate::query::doc_set::DocSetAst;
use crate::query::ParsedQuery;

/// Bytes charged per sampled document while the sample lives.
const DOC_BYTES: u64 = 32;

/// The search's query narrowed to the sample of `params`, over the
/// searchers of `snapshot`, with the account holding the sample's memory
/// (keep it until the pass is done).
pub(super) fn sample_query(
    snapshot: &Snapshot,
    req: &SearchRequest,
    params: &SamplerParams,
) -> Result<(ParsedQuery, crate::breaker::MemoryAccount)> {
    let memory = req.memory.part();
    let mut docs: HashMap<tantivy::index::SegmentId, Vec<DocId>> = HashMap::new();
    for index in snapshot.indices() {
        let searchers = snapshot.searchers_of(index).unwrap_or_default();
        // Elasticsearch caps `shard_size` by the shard's `maxDoc`: no
        // sample is larger than its shard, whatever was asked.
        let limits: Vec<usize> = searchers
            .iter()
            .map(|s| params.shard_size.min(s.num_docs() as usize))
            .collect();
        let total: u64 = limits.iter().map(|&n| n as u64).sum();
        memory.reserve(total.saturating_mul(DOC_BYTES), "<sampler>")?;
        let query = request_query(index, req)?;
        let best = match &params.diversify {
            None => per_shard(
                searchers,
                &limits,
                &*query,
                |limit| Ranking::new(limit, RankBy::Score),
                |ranked, limit| {
                    if let Some(e) = ranked.error {
                        return Err(e.into());
                    }
                    // `Ranking` keeps at least one document; a shard of
                    // none has none to keep.
                    Ok(ranked.hits.iter().take(limit).map(|h| h.addr).collect())
                },
            )?,
            Some(d) => {
                let Some(kind) = ValueKind::of(&index.mappings(), &d.field, "diversified_sampler")?
                else {
                    // An unmapped field: Elasticsearch's unmapped sampler
                    // collects nothing.
                    continue;
                };
                let missing = d.missing.as_ref().and_then(|m| kind.key_of(m));
                let collector = |limit| Diversified {
                    field: Arc::from(d.field.as_str()),
                    kind,
                    missing: missing.clone(),
                    limit,
                    per_value: d.max_docs_per_value,
                };
                per_shard(searchers, &limits, &*query, collector, |pool: Pool, _| {
                    if pool.multi_valued {
                        return Err(SearchError::illegal(
                            "Sample diversifying key must be a single valued-field",
                        ));
                    }
                    Ok(pool.all.into_keys().map(|r| r.addr).collect())
                })?
            }
        };
        for (shard, addrs) in best.into_iter().enumerate() {
            for addr in addrs {
                let segment = searchers[shard]
                    .segment_reader(addr.segment_ord)
                    .segment_id();
                docs.entry(segment).or_default().push(addr.doc_id);
            }
        }
    }
    let set = DocSetAst {
        docs: Arc::new(docs),
    };
    Ok((req.query.doc_set(set), memory))
}

/// Each shard's documents kept: the shard searched with the collector
/// `make(limit)` (its limit in `limits`), `keep` reading the fruit.
fn per_shard<C: Collector>(
    searchers: &[Searcher],
    limits: &[usize],
    query: &dyn Query,
    make: impl Fn(usize) -> C,
    keep: impl Fn(C::Fruit, usize) -> Result<Vec<DocAddress>>,
) -> Result<Vec<Vec<DocAddress>>> {
    let parts: Vec<_> = searchers
        .iter()
        .zip(limits)
        .map(|(searcher, &limit)| ShardSearch {
            searcher,
            query,
            collector: make(limit),
        })
        .collect();
    collect_shards(&parts)?
        .into_iter()
        .zip(limits)
        .map(|(fruit, &limit)| keep(fruit, limit))
        .collect()
}

/// A document's rank: by score, descending, then by address (the lower
/// segment, then the lower id, first), as Lucene breaks ties.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rank {
    score: Score,
    addr: DocAddress,
}

impl Eq for Rank {}

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Rank) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rank {
    /// `Less` ranks first.
    fn cmp(&self, other: &Rank) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.addr.cmp(&other.addr))
    }
}

/// The best `limit` documents with at most `per_value` per key (`None`:
/// documents without a value, which share one).
///
/// Offering documents in any order leaves the same pool as taking them
/// best first while the document's key and the pool have room: a
/// document turned away could only have been taken by displacing one
/// that ranks before it (in the pool, or of its own key).
#[derive(Debug, Default)]
pub(super) struct Pool {
    limit: usize,
    per_value: usize,
    all: BTreeMap<Rank, Option<Key>>,
    by_key: HashMap<Option<Key>, BTreeSet<Rank>>,
    /// A document with more than one value was met.
    multi_valued: bool,
}

impl Pool {
    fn new(limit: usize, per_value: usize) -> Pool {
        Pool {
            limit,
            per_value,
            ..Pool::default()
        }
    }

    fn offer(&mut self, rank: Rank, key: Option<Key>) {
        if self.limit == 0 || self.per_value == 0 {
            return;
        }
        let held = self.by_key.get(&key);
        if let Some(worst) = held
            .filter(|h| h.len() >= self.per_value)
            .and_then(|h| h.last())
        {
            // The key is full: the document displaces its key's worst, or
            // is turned away.
            let worst = *worst;
            if rank < worst {
                self.remove(worst);
                self.insert(rank, key);
            }
            return;
        }
        if self.all.len() >= self.limit {
            let Some((&worst, _)) = self.all.last_key_value() else {
                return;
            };
            if rank >= worst {
                return;
            }
            self.remove(worst);
        }
        self.insert(rank, key);
    }

    fn insert(&mut self, rank: Rank, key: Option<Key>) {
        self.by_key.entry(key.clone()).or_default().insert(rank);
        self.all.insert(rank, key);
    }

    fn remove(&mut self, rank: Rank) {
        let Some(key) = self.all.remove(&rank) else {
            return;
        };
        if let Some(held) = self.by_key.get_mut(&key) {
            held.remove(&rank);
            if held.is_empty() {
                self.by_key.remove(&key);
            }
        }
    }
}

/// The collector of one shard's diversified best documents.
struct Diversified {
    field: Arc<str>,
    kind: ValueKind,
    missing: Option<Key>,
    limit: usize,
    per_value: usize,
}

/// Its per-segment part: the field's reader with the values of the
/// document read last, and the segment's pool.
pub(super) struct DiversifiedSegment {
    segment: SegmentOrdinal,
    values: (Reader, Vec<Key>),
    missing: Option<Key>,
    pool: Pool,
}

impl SegmentCollector for DiversifiedSegment {
    type Fruit = Pool;

    fn collect(&mut self, doc: DocId, score: Score) {
        let (reader, values) = &mut self.values;
        reader.read(doc, values);
        if values.len() > 1 {
            self.pool.multi_valued = true;
            return;
        }
        let key = values.pop().or_else(|| self.missing.clone());
        let addr = DocAddress::new(self.segment, doc);
        self.pool.offer(Rank { score, addr }, key);
    }

    fn harvest(self) -> Pool {
        self.pool
    }
}

impl Collector for Diversified {
    type Fruit = Pool;
    type Child = DiversifiedSegment;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<DiversifiedSegment> {
        Ok(DiversifiedSegment {
            segment,
            values: (Reader::open(reader, &self.field, self.kind)?, Vec::new()),
            missing: self.missing.clone(),
            pool: Pool::new(self.limit, self.per_value),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Pool>) -> tantivy::Result<Pool> {
        let mut out = Pool::new(self.limit, self.per_value);
        for part in fruits {
            out.multi_valued |= part.multi_valued;
            for (rank, key) in part.all {
                out.offer(rank, key);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(score: f32, doc: u32) -> Rank {
        Rank {
            score,
            addr: DocAddress::new(0, doc),
        }
    }

    /// The pool, whatever the order documents come in, equals taking
    /// them best first while their key and the pool have room.
    #[test]
    fn pool_is_greedy_whatever_the_order() {
        let docs: Vec<(Rank, Option<Key>)> = (0..40u32)
            .map(|i| {
                let key = (i % 7 != 0).then(|| Key::Str(format!("k{}", i % 5).into()));
                (rank(((i * 37) % 11) as f32, i), key)
            })
            .collect();
        let mut sorted = docs.clone();
        sorted.sort_by_key(|d| d.0);
        for (limit, per_value) in [(6, 2), (3, 1), (50, 3), (0, 1), (5, 0)] {
            let mut expected = Vec::new();
            let mut counts: HashMap<Option<Key>, usize> = HashMap::new();
            for (r, k) in &sorted {
                let c = counts.entry(k.clone()).or_default();
                if expected.len() < limit && *c < per_value {
                    *c += 1;
                    expected.push(*r);
                }
            }
            for order in [docs.clone(), docs.iter().rev().cloned().collect()] {
                let mut pool = Pool::new(limit, per_value);
                for (r, k) in order {
                    pool.offer(r, k);
                }
                let got: Vec<Rank> = pool.all.into_keys().collect();
                assert_eq!(got, expected, "limit {limit} per value {per_value}");
            }
        }
    }
}
