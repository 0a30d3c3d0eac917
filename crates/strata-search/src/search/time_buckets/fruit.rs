//! The partial results of [`TimeBuckets`] histograms: per bucket a document
//! count and one accumulator per child (a digest for a `percentiles`),
//! merged across segments and shards by adding (and taking the smaller or
//! larger, and merging digests), then rendered in tantivy's final-result
//! shape.

use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value};

use super::plan::{ChildKind, Metric, TimeBuckets};
use crate::error::Result;
use crate::search::bucket_limit::{self, max_buckets};
use crate::search::percentiles::{values_json, SpanDigest};

/// One child's running values in one bucket. A filter uses `count` only
/// (documents that matched); a metric all four over the values seen.
#[derive(Debug, Clone, Copy)]
pub(super) struct Acc {
    pub count: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
}

impl Default for Acc {
    fn default() -> Acc {
        Acc {
            count: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Acc {
    #[inline]
    pub fn add(&mut self, v: f64) {
        self.count += 1;
        self.sum += v;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// [`Acc::add`] of each of `values`, in order (so sums round the same).
    #[inline]
    pub fn add_all(&mut self, values: &[f64]) {
        let (mut sum, mut min, mut max) = (self.sum, self.min, self.max);
        for &v in values {
            sum += v;
            min = min.min(v);
            max = max.max(v);
        }
        self.count += values.len() as u64;
        (self.sum, self.min, self.max) = (sum, min, max);
    }

    pub fn merge(&mut self, other: &Acc) {
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    fn metric_json(&self, metric: Metric) -> Value {
        let some = self.count > 0;
        let value = match metric {
            Metric::Sum => json!(self.sum),
            Metric::ValueCount => json!(self.count as f64),
            Metric::Min if some => json!(self.min),
            Metric::Max if some => json!(self.max),
            Metric::Avg if some => json!(self.sum / self.count as f64),
            Metric::Min | Metric::Max | Metric::Avg => Value::Null,
        };
        json!({ "value": value })
    }
}

/// One bucket: its documents and its children's accumulators; a
/// `percentiles` child's values are in `digests` at the child's index
/// (empty until the bucket has such a child: an empty digest holds no
/// memory).
#[derive(Debug, Clone, Default)]
pub(super) struct Bucket {
    pub docs: u64,
    pub children: Vec<Acc>,
    pub digests: Vec<SpanDigest>,
}

impl Bucket {
    /// Adds another part's bucket.
    pub fn merge(&mut self, other: Bucket) {
        self.docs += other.docs;
        let len = other.children.len().max(self.children.len());
        self.children.resize(len, Acc::default());
        for (a, b) in self.children.iter_mut().zip(&other.children) {
            a.merge(b);
        }
        if self.digests.len() < other.digests.len() {
            self.digests
                .resize_with(other.digests.len(), SpanDigest::default);
        }
        for (a, b) in self.digests.iter_mut().zip(other.digests) {
            a.merge(b);
        }
    }

    /// The bytes its digests hold.
    pub fn held_bytes(&self) -> u64 {
        self.digests.iter().map(SpanDigest::held_bytes).sum()
    }
}

/// One histogram's buckets by position (`(value - offset) / interval`,
/// rounded down), and whether some were dropped for being over the limit.
#[derive(Debug, Clone, Default)]
pub(super) struct Histogram {
    pub buckets: FxHashMap<i64, Bucket>,
    pub overflow: bool,
}

impl Histogram {
    fn merge(&mut self, other: Histogram) {
        self.overflow |= other.overflow;
        for (pos, bucket) in other.buckets {
            self.buckets.entry(pos).or_default().merge(bucket);
        }
        self.overflow |= self.buckets.len() > max_buckets();
    }
}

/// The partial results of all the request's [`TimeBuckets`], in order.
#[derive(Debug, Clone, Default)]
pub struct TimeBucketsFruit(pub(super) Vec<Histogram>);

impl TimeBucketsFruit {
    /// Adds another segment's or shard's results.
    pub fn merge(&mut self, other: TimeBucketsFruit) {
        if self.0.len() < other.0.len() {
            self.0.resize_with(other.0.len(), Histogram::default);
        }
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            mine.merge(theirs);
        }
    }

    /// The bytes the buckets' digests hold (for the request's memory
    /// account).
    pub fn held_bytes(&self) -> u64 {
        let buckets = self.0.iter().flat_map(|h| h.buckets.values());
        buckets.map(Bucket::held_bytes).sum()
    }

    /// The results keyed by aggregation name, as tantivy's final result
    /// would give them; too many buckets is tantivy's (and Elasticsearch's)
    /// error.
    pub fn into_json(self, plans: &[TimeBuckets]) -> Result<Map<String, Value>> {
        let mut out = Map::new();
        for (plan, histogram) in plans.iter().zip(self.0) {
            out.insert(plan.name.clone(), render(plan, histogram)?);
        }
        Ok(out)
    }
}

fn render(plan: &TimeBuckets, histogram: Histogram) -> Result<Value> {
    if histogram.overflow {
        return Err(bucket_limit::too_many(None));
    }
    let mut positions: Vec<i64> = histogram.buckets.keys().copied().collect();
    positions.sort_unstable();
    if plan.min_doc_count == 0 {
        if let (Some(&first), Some(&last)) = (positions.first(), positions.last()) {
            if last - first >= max_buckets() as i64 {
                return Err(bucket_limit::too_many(Some((last - first + 1) as usize)));
            }
            positions = (first..=last).collect();
        }
    }
    let empty = Bucket::default();
    let mut buckets = Vec::with_capacity(positions.len());
    for pos in positions {
        let bucket = histogram.buckets.get(&pos).unwrap_or(&empty);
        if bucket.docs < plan.min_doc_count {
            continue;
        }
        let key = pos as f64 * plan.interval as f64 + plan.offset as f64;
        let mut b = Map::new();
        b.insert("key".into(), json!(key));
        b.insert("doc_count".into(), json!(bucket.docs));
        for (i, child) in plan.children.iter().enumerate() {
            let acc = bucket.children.get(i).copied().unwrap_or_default();
            let value = match &child.kind {
                ChildKind::Filter { .. } => json!({ "doc_count": acc.count }),
                ChildKind::Metric { metric, .. } => acc.metric_json(*metric),
                ChildKind::Percentiles {
                    percents, keyed, ..
                } => {
                    let digest = bucket.digests.get(i);
                    values_json(percents, *keyed, digest.unwrap_or(&SpanDigest::default()))
                }
            };
            b.insert(child.name.clone(), value);
        }
        buckets.push(Value::Object(b));
    }
    Ok(json!({ "buckets": buckets }))
}
