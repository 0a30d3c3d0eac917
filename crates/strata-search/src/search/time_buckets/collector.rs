//! The tantivy collector of a request's [`TimeBuckets`] histograms: per
//! segment, one [`SegmentHistogram`] each (see `segment` for how a
//! segment's documents are bucketed); the segments' histograms merged.

use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Query;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::fruit::TimeBucketsFruit;
use super::plan::TimeBuckets;
use super::segment::SegmentHistogram;

/// The collector of one shard: the request's histograms and, per
/// histogram, its filter children's queries built for the shard's index.
pub struct TimeBucketsCollector {
    plans: Arc<Vec<TimeBuckets>>,
    filters: Arc<Vec<Vec<Box<dyn Query>>>>,
}

impl TimeBucketsCollector {
    /// `filters[i]` are the queries of `plans[i]`'s filter children, in order.
    pub fn new(
        plans: Arc<Vec<TimeBuckets>>,
        filters: Arc<Vec<Vec<Box<dyn Query>>>>,
    ) -> TimeBucketsCollector {
        TimeBucketsCollector { plans, filters }
    }
}

/// [`TimeBucketsCollector`]'s per-segment part.
pub struct TimeBucketsSegmentCollector {
    histograms: Vec<SegmentHistogram>,
}

impl Collector for TimeBucketsCollector {
    type Fruit = TimeBucketsFruit;
    type Child = TimeBucketsSegmentCollector;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<TimeBucketsSegmentCollector> {
        let mut histograms = Vec::with_capacity(self.plans.len());
        for (plan, queries) in self.plans.iter().zip(self.filters.iter()) {
            histograms.push(SegmentHistogram::open(segment, plan, queries)?);
        }
        Ok(TimeBucketsSegmentCollector { histograms })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<TimeBucketsFruit>) -> tantivy::Result<TimeBucketsFruit> {
        let mut out = TimeBucketsFruit::default();
        for f in fruits {
            out.merge(f);
        }
        Ok(out)
    }
}

impl SegmentCollector for TimeBucketsSegmentCollector {
    type Fruit = TimeBucketsFruit;

    fn collect(&mut self, doc: DocId, _score: Score) {
        for h in &mut self.histograms {
            h.collect(doc);
        }
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        for h in &mut self.histograms {
            h.collect_block(docs);
        }
    }

    fn harvest(self) -> TimeBucketsFruit {
        TimeBucketsFruit(
            self.histograms
                .into_iter()
                .map(SegmentHistogram::finish)
                .collect(),
        )
    }
}
