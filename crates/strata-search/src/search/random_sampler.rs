//! The `random_sampler` aggregation (top level only, as in
//! Elasticsearch): its sub-aggregations over a random sample of the
//! documents, each kept with `probability` p, with some results scaled up
//! by `1 / p` to estimate the whole.
//!
//! It runs as a top-level `filter` aggregation does (`filter_aggs`): a
//! pass of its own whose query is the search's query narrowed to the
//! sample (`query::random_sample`: a document is in the sample by a hash
//! of its `_id` with the seed, so the same seed gives the same sample on
//! every call, and the search's query filters that sample, as
//! Elasticsearch says). Elasticsearch samples by Lucene doc ids with its
//! own random stream, so the documents sampled differ from a real node's;
//! the probability of each, the reply and the scaling are its.
//!
//! The reply is `InternalRandomSampler`'s: `seed` (drawn per request when
//! the request has none), `shard_seed` when written, `probability`, the
//! sample's `doc_count` (not scaled) and the sub-aggregations, scaled as
//! Elasticsearch's final reduce scales them (`finalizeSampling`,
//! `SampleScale`, applied by `sample_scale`) before any pipeline reads
//! them: the parent pipelines (`derivative`, `cumulative_sum`,
//! `serial_diff`, `normalize`, `bucket_sort`) are taken out of the pass
//! and computed here after the scaling, and the bucket scripts, moving
//! functions and sibling pipelines run on the response afterwards. With
//! p = 1 nothing is sampled or scaled.

use serde_json::{Map, Value};

use super::agg_tree::{AggNode, PipelineParams, RandomSamplerParams, TypedParams};
use super::pipelines::{self, for_each_scope};
use super::sample_scale::scale_level;
use super::taken_aggs::take_out;
use crate::error::Result;
use crate::query::random_sample::SampleAst;
use crate::query::ParsedQuery;

/// The parent pipelines of one aggregation (its path from the sampler)
/// with their names, in request order.
type ParentPipelines = (Vec<String>, Vec<(String, PipelineParams)>);

/// One top-level `random_sampler`, its seed drawn.
#[derive(Debug, Clone)]
pub struct Sampler {
    /// `probability`: 0 < p <= 0.5, or 1.
    pub probability: f64,
    /// The seed written, or drawn for this request.
    pub seed: i32,
    /// `shard_seed`, if written (it changes the sample as `seed` does:
    /// Strata's sample does not depend on shards).
    pub shard_seed: Option<i32>,
    /// The sub-aggregations, whose kinds say how each result is scaled.
    pub subs: Vec<AggNode>,
    /// The sub-aggregations without the parent pipelines: the pass's.
    pub pass_subs: Vec<AggNode>,
    /// The parent pipelines (`derivative`, `cumulative_sum`, ...) taken
    /// out of the pass, by the path of their parent from the sampler: they
    /// run after the scaling, on the scaled buckets.
    pipelines: Vec<ParentPipelines>,
}

impl Sampler {
    /// The sampler of `params` over `subs`; `None` without a
    /// `probability` (the tree's parse refuses that).
    pub fn new(params: &RandomSamplerParams, subs: &[AggNode]) -> Option<Sampler> {
        let (pass_subs, taken) = take_out(subs, &mut |_, node, parent| {
            Ok(match &node.typed {
                TypedParams::Pipeline(p) => Some((parent.to_vec(), node.name.clone(), p.clone())),
                _ => None,
            })
        })
        .ok()?;
        // Grouped by parent, each group in request order (as `deferred`
        // applies a parent's pipelines).
        let mut pipelines: Vec<ParentPipelines> = Vec::new();
        for (parent, name, params) in taken {
            match pipelines.iter_mut().find(|(p, _)| *p == parent) {
                Some((_, group)) => group.push((name, params)),
                None => pipelines.push((parent, vec![(name, params)])),
            }
        }
        Some(Sampler {
            probability: params.probability?,
            // Elasticsearch's default: `Randomness.get().nextInt()`.
            seed: params.seed.unwrap_or_else(rand::random::<i32>),
            shard_seed: params.shard_seed,
            subs: subs.to_vec(),
            pass_subs,
            pipelines,
        })
    }

    /// The query of the sampler's pass under the search query `query`.
    pub fn query(&self, query: &ParsedQuery) -> ParsedQuery {
        if self.probability >= 1.0 {
            return query.clone();
        }
        query.random_sample(SampleAst {
            probability: self.probability,
            seed: self.hash_seed(),
        })
    }

    /// The seed of the ids' hashes: `seed` and `shard_seed` together.
    fn hash_seed(&self) -> u64 {
        let mut bytes = self.seed.to_le_bytes().to_vec();
        if let Some(s) = self.shard_seed {
            bytes.extend_from_slice(&s.to_le_bytes());
        }
        xxhash_rust::xxh3::xxh3_64(&bytes)
    }

    /// The reply from the pass's `hits.total.value` (the sample's size)
    /// and `aggregations`, the latter scaled.
    pub fn result(&self, doc_count: u64, aggregations: Option<&Value>) -> Result<Value> {
        let mut subs = match aggregations {
            Some(Value::Object(subs)) => subs.clone(),
            _ => Map::new(),
        };
        if self.probability < 1.0 {
            scale_level(&self.subs, &mut subs, self.probability)?;
        }
        let mut subs = Value::Object(subs);
        for (parent, pipes) in &self.pipelines {
            let Some((last, up)) = parent.split_last() else {
                continue;
            };
            for_each_scope(&mut subs, up, &mut |scope| {
                if let Some(agg) = scope.get_mut(last) {
                    pipelines::apply(agg, pipes);
                }
                Ok(())
            })?;
        }
        let Value::Object(subs) = subs else {
            return Ok(Value::Null);
        };
        let mut out = Map::new();
        out.insert("seed".into(), self.seed.into());
        if let Some(s) = self.shard_seed {
            out.insert("shard_seed".into(), s.into());
        }
        out.insert("probability".into(), self.probability.into());
        out.insert("doc_count".into(), doc_count.into());
        out.extend(subs);
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::search::agg_tree::{AggTree, TypedParams};

    fn sampler(aggs: Value) -> Sampler {
        let tree = AggTree::parse(aggs).unwrap();
        let node = &tree.nodes()[0];
        let TypedParams::RandomSampler(p) = &node.typed else {
            panic!("not a sampler")
        };
        Sampler::new(p, &node.subs).unwrap()
    }

    #[test]
    fn replies_with_the_seed_and_scales_the_subs() {
        let s = sampler(
            json!({"s": {"random_sampler": {"probability": 0.25, "seed": 7},
            "aggs": {"n": {"sum": {"field": "x"}}, "m": {"max": {"field": "x"}}}}}),
        );
        let r = s
            .result(4, Some(&json!({"n": {"value": 2.5}, "m": {"value": 3.0}})))
            .unwrap();
        assert_eq!(
            r,
            json!({"seed": 7, "probability": 0.25, "doc_count": 4,
                "n": {"value": 10.0}, "m": {"value": 3.0}})
        );
        let query = ParsedQuery::match_all();
        assert_ne!(s.query(&query), query);
    }

    #[test]
    fn probability_one_neither_samples_nor_scales() {
        let s = sampler(
            json!({"s": {"random_sampler": {"probability": 1, "shard_seed": 3},
            "aggs": {"n": {"sum": {"field": "x"}}}}}),
        );
        let query = ParsedQuery::match_all();
        assert_eq!(s.query(&query), query);
        let r = s.result(4, Some(&json!({"n": {"value": 2.5}}))).unwrap();
        assert_eq!(r["n"]["value"], json!(2.5));
        assert_eq!(r["shard_seed"], json!(3));
        assert_eq!(r["probability"], json!(1.0));
    }

    #[test]
    fn a_seed_is_drawn_when_none_is_written() {
        let aggs = json!({"s": {"random_sampler": {"probability": 0.1},
            "aggs": {"n": {"sum": {"field": "x"}}}}});
        let seeds: Vec<i32> = (0..8).map(|_| sampler(aggs.clone()).seed).collect();
        assert!(seeds.iter().any(|s| *s != seeds[0]));
    }
}
