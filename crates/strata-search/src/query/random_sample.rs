//! The sampling filter of the `random_sampler` aggregation: the documents
//! whose `_id`, hashed with the sampler's seed, falls in the first
//! `probability` of the hash range.
//!
//! It is not a query of the DSL (no request can write it): the
//! aggregation's pass narrows the search's query with it
//! ([`ParsedQuery::random_sample`](super::ParsedQuery::random_sample)), so
//! every pass that runs that query (the sub-aggregations' scans, per-bucket
//! searches) sees the same sample. Its JSON form names it
//! `random_sampler` (an unknown query, were it ever parsed again).
//!
//! A document's membership is a function of its `_id` and the seed only
//! (xxh3 of the id's UTF-8 bytes, seeded), never of its shard, segment or
//! position: the same seed on the same documents gives the same sample on
//! every call, whatever the query, merges or refreshes. Finding it walks
//! a segment's `_id` terms; a large segment's set is then kept as
//! repeated filters' are (`filter_cache`). Elasticsearch
//! instead draws gaps between Lucene doc ids from a seeded random stream
//! per shard, so which documents it samples differs from Strata's; each
//! document is in the sample with the same probability.

use tantivy::query::{
    BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{BitSet, DocId, DocSet, Score, SegmentReader, TERMINATED};

use super::context::QueryContext;
use super::filter::explain_filter;
use super::filter_cache;

/// The sample: `probability` in (0, 1) and the hash seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SampleAst {
    /// The share of documents kept.
    pub(crate) probability: f64,
    /// The seed of the ids' hashes.
    pub(crate) seed: u64,
}

impl SampleAst {
    /// Whether the document with id `id` is in the sample: its hash is
    /// below `probability` of the 64-bit range.
    pub(crate) fn keeps(&self, id: &[u8]) -> bool {
        let hash = xxhash_rust::xxh3::xxh3_64_with_seed(id, self.seed);
        // 2^64 as f64 is exact; `hash as f64` rounds, which moves a
        // document across the line with probability below 2^-52.
        (hash as f64) < self.probability * 18_446_744_073_709_551_616.0
    }
}

/// The tantivy query of the sample `q`.
pub(crate) fn build(ctx: &QueryContext<'_>, q: &SampleAst) -> Box<dyn Query> {
    Box::new(SampleQuery {
        sample: *q,
        id: ctx.fields.id,
    })
}

/// The documents of `reader` with an `_id` term (in `field`) that `keep`
/// accepts. Deleted documents may be among them: the searches' collectors
/// skip those.
pub(crate) fn docs_by_id(
    reader: &SegmentReader,
    field: Field,
    mut keep: impl FnMut(&[u8]) -> bool,
) -> tantivy::Result<BitSet> {
    let mut set = BitSet::with_max_value(reader.max_doc());
    let inverted = reader.inverted_index(field)?;
    let mut terms = inverted.terms().stream()?;
    while terms.advance() {
        if !keep(terms.key()) {
            continue;
        }
        let mut postings =
            inverted.read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)?;
        let mut doc = postings.doc();
        while doc != TERMINATED {
            set.insert(doc);
            doc = postings.advance();
        }
    }
    Ok(set)
}

/// The sample as a tantivy filter (scores its matches `boost`).
#[derive(Debug, Clone)]
struct SampleQuery {
    sample: SampleAst,
    id: Field,
}

impl Query for SampleQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for SampleQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        // A sample is a function of the segment's ids, which never change:
        // a large segment's set is kept once met twice (a sampler's pass
        // and its per-bucket passes, Kibana's repeated requests).
        let key = format!(
            "random_sampler {} {}",
            self.sample.seed,
            self.sample.probability.to_bits()
        );
        let docs = filter_cache::matches(reader, &key, || {
            docs_by_id(reader, self.id, |id| self.sample.keeps(id)).map(Some)
        })?
        .unwrap_or_else(|| BitSet::with_max_value(reader.max_doc()));
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(docs), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_filter(self, reader, doc, "random_sampler")
    }
}

#[cfg(test)]
mod tests {
    use super::SampleAst;

    #[test]
    fn keeps_about_the_probability_and_depends_on_the_seed() {
        let sample = |seed| SampleAst {
            probability: 0.1,
            seed,
        };
        let ids: Vec<String> = (0..10_000).map(|i| format!("doc-{i}")).collect();
        let kept =
            |s: SampleAst| -> Vec<bool> { ids.iter().map(|id| s.keeps(id.as_bytes())).collect() };
        let a = kept(sample(1));
        let n = a.iter().filter(|k| **k).count();
        // Binomial(10000, 0.1): sd 30; 5 sd either side.
        assert!((850..=1150).contains(&n), "{n}");
        assert_eq!(a, kept(sample(1)));
        assert_ne!(a, kept(sample(2)));
    }
}
