//! `percentiles`, `percentile_ranks`, `boxplot` and
//! `median_absolute_deviation` below every bucket of one
//! `terms`, `histogram`, `date_histogram` or `range` result at once
//! ([`run_batch`]): one scan of the enclosing bucket's documents reads
//! the bucket field and each metric's field, finds the document's
//! buckets from the [`BucketBatch`]'s keys, and adds its values to one
//! digest per (metric, bucket). Kibana's `terms` (10 buckets) >
//! `percentiles` so costs one scan, where a search per bucket cost ten.
//!
//! A document counts once in each bucket it falls in (a multi-valued
//! field's values may select several). Memory: the digests' bytes are
//! reserved on the search's account (buckets times metrics digests, each
//! at most 16 KiB of exact values, then its histogram).

use std::sync::Arc;

use serde_json::Value;

use super::bucket_matcher::Matcher;
use super::env::ScanEnv;
use super::field_values::FieldMetric;
use super::number_batch::{NumberBatch, NumberBatchCollector};
use super::percentile_ranks::PercentileRanks;
use super::percentiles::Percentiles;
use super::spread::Spread;
use super::term_batch::{
    empty_digests, merge_digests, merged, Digests, TermBatch, TermBatchCollector,
};
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::search::agg_tree::{AggNode, TypedParams};
use crate::search::bucket_batch::{BucketBatch, BucketKey};
use crate::search::percentiles::SpanDigest;

/// One metric of the batch.
enum Digested {
    Percentiles(Percentiles),
    Ranks(PercentileRanks),
    Spread(Spread),
}

impl Digested {
    fn metric(&self) -> &FieldMetric {
        match self {
            Digested::Percentiles(p) => p.metric(),
            Digested::Ranks(r) => r.metric(),
            Digested::Spread(s) => s.metric(),
        }
    }

    fn render(&self, digest: &SpanDigest) -> Value {
        match self {
            Digested::Percentiles(p) => p.render(digest),
            Digested::Ranks(r) => r.render(digest),
            Digested::Spread(s) => s.render(digest),
        }
    }
}

/// The results of `nodes` (each `bucket_batch::batched`) in each of
/// `batch`'s buckets, over `env`'s query: per node, per bucket in order.
pub fn run_batch(
    env: &ScanEnv<'_>,
    batch: &BucketBatch,
    nodes: &[AggNode],
) -> Result<Vec<Vec<Value>>> {
    let mappings = env.mappings();
    let digested = nodes
        .iter()
        .map(|node| match &node.typed {
            TypedParams::Percentiles(p) => {
                Percentiles::new(&node.name, p, &mappings).map(Digested::Percentiles)
            }
            TypedParams::PercentileRanks(r) => {
                PercentileRanks::new(&node.name, r, &mappings).map(Digested::Ranks)
            }
            TypedParams::Spread(s) => Spread::new(&node.name, s, &mappings).map(Digested::Spread),
            _ => Err(SearchError::illegal(format!(
                "[{}] aggregation [{}] is not computed per batch of buckets",
                node.kind.name(),
                node.name
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    let kind = ValueKind::of(&mappings, &batch.field, "terms")?.unwrap_or(ValueKind::Double);
    let metrics: Vec<FieldMetric> = digested.iter().map(|d| d.metric().clone()).collect();
    let batch_len = batch.keys.len();
    let digests = match keyword_terms(kind, &batch.keys) {
        Some(terms) => {
            let terms = Arc::new(TermBatch::new(&batch.field, terms, metrics));
            let parts = env.collect(env.query, || TermBatchCollector(Arc::clone(&terms)))?;
            merged(digested.len(), batch_len, parts)
        }
        None if numbers(kind, &batch.keys, &metrics) => {
            let matcher = Matcher::new(&batch.keys);
            let batch = NumberBatch::new(&batch.field, matcher, batch_len, metrics);
            let batch = Arc::new(batch);
            let parts = env.collect(env.query, || NumberBatchCollector(Arc::clone(&batch)))?;
            merged(digested.len(), batch_len, parts)
        }
        None => {
            let scan = BatchScan {
                field: (batch.field.clone(), kind),
                matcher: Matcher::new(&batch.keys),
                buckets: batch.keys.len(),
                metrics,
            };
            env.scan(env.query, scan)?
        }
    };
    let held: u64 = digests.iter().flatten().map(SpanDigest::held_bytes).sum();
    env.req.memory.reserve(held, "<agg [percentiles]>")?;
    Ok(digested
        .iter()
        .zip(&digests)
        .map(|(d, per_bucket)| per_bucket.iter().map(|g| d.render(g)).collect())
        .collect())
}

/// Whether the buckets are numbers or ranges of a number or date field
/// and every metric reads numbers: the batch then reads columns as
/// numbers (`number_batch`).
fn numbers(kind: ValueKind, keys: &[BucketKey], metrics: &[FieldMetric]) -> bool {
    matches!(kind, ValueKind::Long | ValueKind::Double | ValueKind::Date)
        && keys.iter().all(|k| !matches!(k, BucketKey::Text(_)))
        && metrics.iter().all(FieldMetric::reads_numbers)
}

/// The terms of a keyword field's buckets, when every key is one (a
/// `terms`): its batch then finds buckets by term ordinals.
fn keyword_terms(kind: ValueKind, keys: &[BucketKey]) -> Option<Vec<String>> {
    if kind != ValueKind::Str {
        return None;
    }
    keys.iter()
        .map(|key| match key {
            BucketKey::Text(term) => Some(term.clone()),
            _ => None,
        })
        .collect()
}

/// The scan: per (metric, bucket) a digest.
struct BatchScan {
    /// The bucket aggregation's field, read first.
    field: (String, ValueKind),
    matcher: Matcher,
    buckets: usize,
    metrics: Vec<FieldMetric>,
}

impl Scan for BatchScan {
    type Acc = Digests;

    fn start(&self) -> Self::Acc {
        empty_digests(self.metrics.len(), self.buckets)
    }

    fn fields(&self) -> Vec<(String, ValueKind)> {
        let mut fields = vec![self.field.clone()];
        fields.extend(self.metrics.iter().map(FieldMetric::column));
        fields
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut Self::Acc) {
        let add = |b: usize, acc: &mut Self::Acc| {
            for (k, (metric, digests)) in self.metrics.iter().zip(acc.iter_mut()).enumerate() {
                metric.add(&values[k + 1], &mut digests[b]);
            }
        };
        // The usual document: one value, in at most one bucket (a
        // `range`'s may overlap), found without a list.
        if let ([value], true) = (&values[0][..], self.matcher.disjoint) {
            if let Some(b) = self.matcher.bucket_of(value) {
                add(b, acc);
            }
            return;
        }
        let mut buckets = Vec::new();
        for value in &values[0] {
            self.matcher.buckets_of(value, &mut buckets);
        }
        buckets.sort_unstable();
        buckets.dedup();
        buckets.into_iter().for_each(|b| add(b, acc));
    }

    fn merge(&self, into: &mut Self::Acc, part: Self::Acc) {
        merge_digests(into, part);
    }
}
