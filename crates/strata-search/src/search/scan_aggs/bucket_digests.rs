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

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::env::ScanEnv;
use super::field_values::FieldMetric;
use super::percentile_ranks::PercentileRanks;
use super::percentiles::Percentiles;
use super::range_grid::RangeGrid;
use super::spread::Spread;
use super::term_batch::{empty_digests, merge_digests, Digests, TermBatch, TermBatchCollector};
use super::values::{Key, Num, Scan, ValueKind};
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
    let digests = match keyword_terms(kind, &batch.keys) {
        Some(terms) => {
            let terms = Arc::new(TermBatch::new(&batch.field, terms, metrics));
            let mut out = empty_digests(digested.len(), batch.keys.len());
            let parts = env.collect(env.query, || TermBatchCollector(Arc::clone(&terms)))?;
            parts.into_iter().for_each(|p| merge_digests(&mut out, p));
            out
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

/// Finds a value's buckets.
struct Matcher {
    /// Terms and numbers, to their bucket.
    values: HashMap<Key, usize>,
    /// `(low, high, bucket)`, ascending by `low`.
    ranges: Vec<(f64, f64, usize)>,
    /// The ranges do not overlap (a histogram's): found by a binary
    /// search rather than each tried.
    disjoint: bool,
    /// Disjoint ranges on one grid (a histogram's): found by arithmetic.
    grid: Option<RangeGrid>,
}

impl Matcher {
    fn new(keys: &[BucketKey]) -> Matcher {
        let (mut values, mut ranges) = (HashMap::new(), Vec::new());
        for (i, key) in keys.iter().enumerate() {
            match key {
                BucketKey::Text(s) => {
                    values.insert(Key::Str(s.as_str().into()), i);
                }
                BucketKey::Number(n) => {
                    values.insert(Key::Num(Num(*n)), i);
                }
                BucketKey::Range(low, high) => ranges.push((*low, *high, i)),
            }
        }
        ranges.sort_by(|a, b| a.0.total_cmp(&b.0));
        let disjoint = ranges.windows(2).all(|w| w[0].1 <= w[1].0);
        let grid = disjoint.then(|| RangeGrid::new(&ranges)).flatten();
        Matcher {
            values,
            ranges,
            disjoint,
            grid,
        }
    }

    /// The one bucket of `value` (ranges `disjoint`: terms and
    /// histograms select at most one bucket per value).
    #[inline]
    fn bucket_of(&self, value: &Key) -> Option<usize> {
        if let Some(&i) = self.values.get(value) {
            return Some(i);
        }
        let x = value.num().filter(|_| !self.ranges.is_empty())?;
        self.disjoint_range_of(x)
    }

    /// The bucket of the range holding `x`, the ranges `disjoint`.
    #[inline]
    fn disjoint_range_of(&self, x: f64) -> Option<usize> {
        if let Some(grid) = &self.grid {
            return grid.find(x, &self.ranges).map(|at| self.ranges[at].2);
        }
        let at = self.ranges.partition_point(|r| r.0 <= x).checked_sub(1)?;
        let &(_, high, i) = self.ranges.get(at)?;
        (x < high).then_some(i)
    }

    /// Adds the buckets of `value` to `out`.
    #[inline]
    fn buckets_of(&self, value: &Key, out: &mut Vec<usize>) {
        if let Some(&i) = self.values.get(value) {
            out.push(i);
        }
        let Some(x) = value.num().filter(|_| !self.ranges.is_empty()) else {
            return;
        };
        if self.disjoint {
            out.extend(self.disjoint_range_of(x));
        } else {
            let inside = self.ranges.iter().filter(|r| r.0 <= x && x < r.1);
            out.extend(inside.map(|r| r.2));
        }
    }
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
