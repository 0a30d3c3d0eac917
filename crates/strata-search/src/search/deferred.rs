//! Sub-aggregations tantivy cannot compute inside its buckets (`top_hits`,
//! `top_metrics`, `geo_centroid`, `geohash_grid`), computed per bucket after the main
//! pass: each bucket's documents are the search query filtered by the
//! bucket's own condition and those of the buckets above it (a term, a
//! date or number range, a filter), and the sub-aggregation runs as a
//! top-level one over them through a runner the search supplies.
//! `reshape` walks the merged result bucket by bucket for them, putting it
//! into Elasticsearch's shape on the way.
//!
//! This costs one search per bucket and deferred sub-aggregation, which
//! is what Kibana's requests (a few terms or date buckets) can afford;
//! `percentiles` and `percentile_ranks` below a `terms`, `histogram`,
//! `date_histogram` or `range` cost one scan for all its buckets instead
//! (`bucket_batch`, with the search's [`BatchRunner`]).
//!
//! A histogram's `cumulative_cardinality` is written here too, before
//! its other pipelines: it unions the buckets' distinct values, read
//! bucket by bucket through the search's [`DistinctRunner`].

use serde_json::{json, Value};

use super::agg_shape::AggShape;
use super::agg_tree::{AggKind, AggNode};
use super::bucket_batch::{self, BucketBatch};
use super::distinct_count::DistinctCount;
use super::missing_bucket::FILTER_SUFFIX;
use super::range_buckets::range_query;
use super::{agg_filters, cumulative_cardinality, geo_aggs, pipelines, rate};
use crate::error::{Result, SearchError};
use crate::mapping::date::format_millis;
use crate::query::ParsedQuery;

/// Runs one deferred aggregation (as parsed) over the search query
/// narrowed by the filters; returns its result.
pub type Runner<'a> = dyn Fn(&[BucketFilter], &AggNode) -> Result<Value> + 'a;

/// Runs deferred aggregations (each `bucket_batch::batched`) in every
/// bucket of a batch over the search query narrowed by the filters: per
/// aggregation, the results of the buckets in order.
pub type BatchRunner<'a> =
    dyn Fn(&[BucketFilter], &BucketBatch, &[AggNode]) -> Result<Vec<Vec<Value>>> + 'a;

/// The distinct values of a `cardinality` (as parsed) over the search
/// query narrowed by the filters (for `cumulative_cardinality`).
pub type DistinctRunner<'a> = dyn Fn(&[BucketFilter], &AggNode) -> Result<DistinctCount> + 'a;

/// What selects a bucket's documents.
#[derive(Debug, Clone)]
pub enum BucketFilter {
    /// A query built here for the bucket (a term, a range), as JSON:
    /// parsed only when a pass runs under the bucket.
    Built(Value),
    /// A query the request's tree parsed (a `filter`'s, one of a
    /// `filters`', a `missing`'s).
    Parsed(ParsedQuery),
}

impl BucketFilter {
    /// The query, parsed.
    pub fn parsed(&self) -> Result<ParsedQuery> {
        match self {
            BucketFilter::Built(json) => ParsedQuery::parse(json.clone()),
            BucketFilter::Parsed(query) => Ok(query.clone()),
        }
    }
}

/// The bucket being reshaped: the filters that lead to it.
pub struct BucketScope<'a> {
    run: &'a Runner<'a>,
    /// Batches of buckets' `percentiles` and `percentile_ranks`, when the
    /// search supplies it (else each bucket runs its own).
    batch: Option<&'a BatchRunner<'a>>,
    /// Buckets' distinct values, when the search supplies it (else a
    /// `cumulative_cardinality` is refused).
    distinct: Option<&'a DistinctRunner<'a>>,
    chain: Vec<BucketFilter>,
}

impl<'a> BucketScope<'a> {
    /// A scope at the top level.
    pub fn new(run: &'a Runner<'a>) -> BucketScope<'a> {
        BucketScope {
            run,
            batch: None,
            distinct: None,
            chain: Vec::new(),
        }
    }

    /// This scope, computing the batchable deferred sub-aggregations of
    /// a result's buckets with `batch`, one scan per result.
    pub fn with_batch(mut self, batch: &'a BatchRunner<'a>) -> BucketScope<'a> {
        self.batch = Some(batch);
        self
    }

    /// This scope, reading buckets' distinct values with `distinct`.
    pub fn with_distinct(mut self, distinct: &'a DistinctRunner<'a>) -> BucketScope<'a> {
        self.distinct = Some(distinct);
        self
    }

    /// Writes the `cumulative_cardinality` pipelines of the histogram
    /// `agg` (of `shape`) into its buckets.
    fn cumulative(&mut self, shape: &AggShape, agg: &mut Value) -> Result<()> {
        let Some(Value::Array(buckets)) = agg.get_mut("buckets") else {
            return Ok(());
        };
        let (run, chain) = (self.distinct, &mut self.chain);
        cumulative_cardinality::fill(
            buckets,
            &shape.pipelines,
            &shape.deferred,
            &mut |b, node| {
                let (Some(run), Some(filter)) = (run, bucket_filter(shape, b)) else {
                    return Err(SearchError::illegal(format!(
                        "cumulative_cardinality under [{}] is not supported here by this server",
                        shape.name
                    )));
                };
                chain.push(BucketFilter::Built(filter));
                let out = run(chain, node);
                chain.pop();
                out
            },
        )
    }

    /// Fills `buckets` (of `shape`, in the current bucket) with the
    /// deferred sub-aggregations a batch computes, all in one scan; the
    /// rest are left to [`BucketScope::in_bucket`], which skips those
    /// filled.
    fn fill_batched(&mut self, shape: &AggShape, buckets: &mut [&mut Value]) -> Result<()> {
        let nodes: Vec<AggNode> = shape
            .deferred
            .iter()
            .filter(|n| bucket_batch::batched(n))
            .cloned()
            .collect();
        let Some(run) = self.batch.filter(|_| !nodes.is_empty()) else {
            return Ok(());
        };
        let Some(batch) = BucketBatch::of(shape, buckets) else {
            return Ok(());
        };
        let results = run(&self.chain, &batch, &nodes)?;
        for (node, per_bucket) in nodes.iter().zip(results) {
            for (bucket, result) in buckets.iter_mut().zip(per_bucket) {
                bucket[&node.name] = result;
            }
        }
        Ok(())
    }

    /// Fills `bucket` (of `shape`, selected by `filter`) with its deferred
    /// sub-aggregations and reshapes its other sub-aggregations.
    pub fn in_bucket(
        &mut self,
        shape: &AggShape,
        bucket: &mut Value,
        filter: Option<BucketFilter>,
    ) -> Result<()> {
        if filter.is_none() && !shape.deferred.is_empty() {
            return Err(SearchError::illegal(format!(
                "sub-aggregation [{}] is not supported under [{}] [{}]",
                shape.deferred[0].name, shape.kind, shape.name
            )));
        }
        let pushed = filter.is_some();
        self.chain.extend(filter);
        let result = self.fill(shape, bucket);
        if pushed {
            self.chain.pop();
        }
        result
    }

    fn fill(&mut self, shape: &AggShape, bucket: &mut Value) -> Result<()> {
        for node in &shape.deferred {
            // A batch filled it already (`fill_batched`).
            if bucket.get(&node.name).is_some() {
                continue;
            }
            bucket[&node.name] = (self.run)(&self.chain, node)?;
        }
        reshape(bucket, &shape.children, self)
    }
}

/// Checks a deferred aggregation before searching.
pub fn validate(node: &AggNode) -> Result<()> {
    let (name, kind) = (&node.name, node.kind);
    if !node.subs.is_empty() && !matches!(kind, AggKind::GeohashGrid | AggKind::GeotileGrid) {
        return Err(SearchError::illegal(format!(
            "Aggregator [{name}] of type [{}] cannot accept sub-aggregations",
            kind.name()
        )));
    }
    if matches!(kind, AggKind::TopHits | AggKind::TopMetrics) {
        // Their parameters were checked by the tree's parse (the fields
        // of a `top_metrics` are its search's to check).
        return Ok(());
    }
    geo_aggs::check(node)
}

/// The query selecting a `terms`, `histogram`, `date_histogram` or `range`
/// bucket's documents.
pub fn bucket_filter(shape: &AggShape, bucket: &Value) -> Option<Value> {
    let field = shape.field.as_deref()?;
    let key = bucket.get("key")?;
    match shape.kind.as_str() {
        "terms" if shape.bool_field => {
            let value = key.as_f64().map_or(key.clone(), |k| json!(k != 0.0));
            Some(json!({"term": { field: value }}))
        }
        "terms" => Some(json!({"term": { field: key }})),
        "histogram" => {
            let k = key.as_f64()?;
            Some(range_query(
                field,
                Some(k),
                Some(k + shape.interval?),
                false,
            ))
        }
        "date_histogram" => {
            let k = key.as_i64()?;
            let end = shape.date_histogram.as_ref()?.bucket_end(k);
            Some(range_query(field, Some(k as f64), Some(end as f64), true))
        }
        "range" => range_filter(shape, bucket),
        _ => None,
    }
}

/// The query selecting a range bucket's documents (from its `from`/`to`).
pub fn range_filter(shape: &AggShape, bucket: &Value) -> Option<Value> {
    let field = shape.field.as_deref()?;
    let from = bucket.get("from").and_then(Value::as_f64);
    let to = bucket.get("to").and_then(Value::as_f64);
    if let Some(r) = &shape.number_range {
        return Some(r.ranges.bucket_query(from, to));
    }
    if let Some(r) = &shape.date_range {
        return Some(r.ranges.bucket_query(from, to));
    }
    Some(range_query(field, from, to, shape.date_field))
}

/// Puts tantivy's result into Elasticsearch's shape; deferred
/// sub-aggregations are computed per bucket through `scope`.
pub fn reshape(result: &mut Value, shapes: &[AggShape], scope: &mut BucketScope<'_>) -> Result<()> {
    for shape in shapes {
        if shape.kind == "filters" {
            let mut failure = None;
            let keys = shape.keys.clone();
            let mut i = 0;
            agg_filters::reshape_filters(result, &shape.name, &keys, shape.named, |b| {
                let filter = shape.queries.get(i).cloned().map(BucketFilter::Parsed);
                i += 1;
                if let Err(e) = scope.in_bucket(shape, b, filter) {
                    failure.get_or_insert(e);
                }
            });
            match failure {
                Some(e) => return Err(e),
                None => continue,
            }
        }
        if let Some(ip) = &shape.ip_range {
            ip.reshape(result, &shape.name, |i, b| {
                let filter = shape.queries.get(i).cloned().map(BucketFilter::Parsed);
                scope.in_bucket(shape, b, filter)
            })?;
            if let Some(agg) = result.get_mut(&shape.name) {
                pipelines::apply(agg, &shape.pipelines);
            }
            continue;
        }
        if let Some(range) = &shape.date_range {
            range.reshape(result, &shape.name, |b| {
                let filter = range_filter(shape, b).map(BucketFilter::Built);
                scope.in_bucket(shape, b, filter)
            })?;
            continue;
        }
        if shape.rate.is_some() {
            rate::reshape(result, shape);
            continue;
        }
        if let Some(range) = &shape.number_range {
            // Its buckets gathered, a numeric range's are fixed below as
            // any bucket aggregation's (batches, per bucket, pipelines).
            range.reshape(result, &shape.name)?;
        }
        let missing = shape.missing.as_ref().and_then(|m| {
            let filtered = result
                .as_object_mut()?
                .remove(&format!("{}{FILTER_SUFFIX}", shape.name))?;
            Some((m, filtered))
        });
        let Some(agg) = result.get_mut(&shape.name) else {
            continue;
        };
        if let Some(h) = &shape.date_histogram {
            h.reshape(agg);
        }
        if let Some((m, filtered)) = missing {
            match &shape.date_histogram {
                Some(h) => {
                    let text = |k: f64| h.key_as_string(k as i64);
                    m.merge(agg, filtered, |k| json!(k as i64), Some(&text));
                }
                None => m.merge(agg, filtered, |k| json!(k), None),
            }
        }
        match shape.kind.as_str() {
            "date_histogram" | "histogram" | "terms" | "range" => {
                let mut buckets: Vec<&mut Value> = match agg.get_mut("buckets") {
                    Some(Value::Array(b)) => b.iter_mut().collect(),
                    Some(Value::Object(m)) => m.values_mut().collect(),
                    _ => Vec::new(),
                };
                scope.fill_batched(shape, &mut buckets)?;
                for bucket in buckets {
                    if shape.bool_field && shape.kind == "terms" {
                        if let Some(key) = bucket.get("key").and_then(Value::as_f64) {
                            bucket["key"] = json!(key as i64);
                            bucket["key_as_string"] =
                                json!(if key != 0.0 { "true" } else { "false" });
                        }
                    }
                    if shape.date_field && shape.kind == "terms" {
                        if let Some(key) = bucket.get("key").and_then(Value::as_f64) {
                            let ms = key as i64;
                            bucket["key"] = json!(ms);
                            bucket["key_as_string"] = json!(format_millis(ms));
                        }
                    }
                    let filter = bucket_filter(shape, bucket).map(BucketFilter::Built);
                    scope.in_bucket(shape, bucket, filter)?;
                }
                if matches!(shape.kind.as_str(), "date_histogram" | "histogram") {
                    scope.cumulative(shape, agg)?;
                }
                pipelines::apply(agg, &shape.pipelines);
                if let Some(range) = &shape.number_range {
                    range.finish(agg);
                }
            }
            "filter" | "missing" => {
                let filter = shape.queries.first().cloned().map(BucketFilter::Parsed);
                scope.in_bucket(shape, agg, filter)?;
            }
            "cardinality" | "value_count" => {
                // Elasticsearch reports counts as integers.
                if let Some(v) = agg.get("value").and_then(Value::as_f64) {
                    agg["value"] = json!(v as u64);
                }
            }
            "min" | "max" | "avg" | "sum" | "stats" | "extended_stats" => {
                if let Some(format) = &shape.value_format {
                    format.write(&shape.kind, agg);
                }
            }
            _ => {}
        }
    }
    Ok(())
}
