//! The aggregations Strata computes with its own collectors in tantivy's
//! pass ([`time_buckets`], [`distinct_terms`], [`percentiles`],
//! [`top_terms`]): taken out of tantivy's translated request, collected
//! beside it, and put back in tantivy's final-result shape so the usual
//! reshaping applies to them too.

use std::sync::Arc;

use serde_json::{Map, Value};
use tantivy::query::Query;

use super::aggs::AggShape;
use super::distinct_terms::{self, DistinctTerms, DistinctTermsCollector, DistinctTermsFruit};
use super::percentiles::{self, PercentilesCollector, PercentilesFruit, ValuePercentiles};
use super::time_buckets::{self, TimeBuckets, TimeBucketsCollector, TimeBucketsFruit};
use super::top_terms::{self, TopTerms, TopTermsCollector, TopTermsFruit};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::mapping::Mappings;

/// Filter queries of the time-bucket histograms, per histogram, built for
/// one index.
type Filters = Arc<Vec<Vec<Box<dyn Query>>>>;

/// The aggregations of one search pass that Strata computes itself.
#[derive(Default)]
pub(super) struct OwnAggs {
    time: Arc<Vec<TimeBuckets>>,
    distinct: Arc<Vec<DistinctTerms>>,
    percentiles: Arc<Vec<ValuePercentiles>>,
    terms: Arc<Vec<TopTerms>>,
    /// Per index, in [`OwnAggs::prepare`] order.
    time_filters: Vec<Filters>,
}

/// One shard's collectors.
pub(super) type OwnCollector = (
    Option<TimeBucketsCollector>,
    Option<DistinctTermsCollector>,
    Option<PercentilesCollector>,
    Option<TopTermsCollector>,
);

/// One shard's (or the merged) results.
pub(super) type OwnPart = (
    Option<TimeBucketsFruit>,
    Option<DistinctTermsFruit>,
    Option<PercentilesFruit>,
    Option<TopTermsFruit>,
);

impl OwnAggs {
    /// Takes what Strata computes out of `request` (tantivy's translated
    /// top-level aggregations, whose shapes are `shapes`).
    /// `shapes` may change: see [`time_buckets::split`].
    pub fn split(request: &mut Value, shapes: &mut [AggShape], mappings: &Mappings) -> OwnAggs {
        OwnAggs {
            time: Arc::new(time_buckets::split(request, shapes, mappings)),
            distinct: Arc::new(distinct_terms::split(request, shapes, mappings)),
            percentiles: Arc::new(percentiles::split(request, shapes, mappings)),
            terms: Arc::new(top_terms::split(request, shapes, mappings)),
            time_filters: Vec::new(),
        }
    }

    /// Nothing to compute.
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
            && self.distinct.is_empty()
            && self.percentiles.is_empty()
            && self.terms.is_empty()
    }

    /// Builds what the collectors of the next index need (its filter
    /// queries); called once per index, in order.
    pub fn prepare(&mut self, index: &SearchIndex) -> Result<()> {
        let filters = self
            .time
            .iter()
            .map(|p| {
                p.filter_queries()
                    .map(|q| super::index_query::query_for(index, q))
                    .collect()
            })
            .collect::<Result<Vec<Vec<_>>>>()?;
        self.time_filters.push(Arc::new(filters));
        Ok(())
    }

    /// The collectors of a shard of the `index`-th index prepared.
    pub fn collector(&self, index: usize) -> OwnCollector {
        let time = match self.time_filters.get(index) {
            Some(filters) if !self.time.is_empty() => Some(TimeBucketsCollector::new(
                Arc::clone(&self.time),
                Arc::clone(filters),
            )),
            _ => None,
        };
        let distinct = (!self.distinct.is_empty())
            .then(|| DistinctTermsCollector::new(Arc::clone(&self.distinct)));
        let percentiles = (!self.percentiles.is_empty())
            .then(|| PercentilesCollector::new(Arc::clone(&self.percentiles)));
        let terms =
            (!self.terms.is_empty()).then(|| TopTermsCollector::new(Arc::clone(&self.terms)));
        (time, distinct, percentiles, terms)
    }

    /// The results of the merged `part`, by aggregation name, in tantivy's
    /// final shape.
    pub fn results(&self, part: OwnPart) -> Result<Map<String, Value>> {
        let (time, distinct, values, terms) = part;
        let distinct = distinct.unwrap_or_default();
        let terms = terms.unwrap_or_default();
        if let Some(e) = distinct.error().or(terms.error()) {
            return Err(SearchError::Engine(tantivy::TantivyError::InternalError(
                e.to_string(),
            )));
        }
        let mut out = time.unwrap_or_default().into_json(&self.time)?;
        out.extend(distinct_terms::into_json(&self.distinct, distinct));
        out.extend(percentiles::into_json(
            &self.percentiles,
            values.unwrap_or_default(),
        ));
        out.extend(top_terms::into_json(&self.terms, terms));
        Ok(out)
    }
}

/// The bytes the merged `part`'s digests hold (`percentiles`, at the top
/// level or per time bucket), to reserve on the request's memory account
/// before the results are rendered.
pub(super) fn digest_bytes(part: &OwnPart) -> u64 {
    let time = part.0.as_ref().map_or(0, TimeBucketsFruit::held_bytes);
    time + part.2.as_ref().map_or(0, PercentilesFruit::held_bytes)
}

/// Adds one shard's results to `merged`.
pub(super) fn merge(merged: &mut OwnPart, part: OwnPart) {
    if let Some(p) = part.0 {
        merged.0.get_or_insert_with(Default::default).merge(p);
    }
    if let Some(p) = part.1 {
        merged.1.get_or_insert_with(Default::default).merge(p);
    }
    if let Some(p) = part.2 {
        merged.2.get_or_insert_with(Default::default).merge(p);
    }
    if let Some(p) = part.3 {
        merged.3.get_or_insert_with(Default::default).merge(p);
    }
}
