//! The tantivy collector of a request's [`ValuePercentiles`]: per segment
//! each plan opens its column as f64 once; a column with one value per
//! document is read a block of documents at a time. Values go to a
//! [`SpanDigest`] per plan and segment (its base the smallest of the
//! segment's first values: segments merge as `span.rs` says).

use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::plan::ValuePercentiles;
use super::span::SpanDigest;
use crate::search::numbers::F64Column;

/// The collector of one search's [`ValuePercentiles`].
pub struct PercentilesCollector {
    plans: Arc<Vec<ValuePercentiles>>,
}

impl PercentilesCollector {
    /// A collector for `plans`.
    pub fn new(plans: Arc<Vec<ValuePercentiles>>) -> PercentilesCollector {
        PercentilesCollector { plans }
    }
}

/// One digest per plan, in plan order.
#[derive(Debug, Clone, Default)]
pub struct PercentilesFruit(pub(super) Vec<SpanDigest>);

impl PercentilesFruit {
    /// The bytes its digests hold.
    pub fn held_bytes(&self) -> u64 {
        self.0.iter().map(SpanDigest::held_bytes).sum()
    }

    /// Adds another segment's or shard's digests.
    pub fn merge(&mut self, other: PercentilesFruit) {
        if self.0.len() < other.0.len() {
            self.0.resize_with(other.0.len(), SpanDigest::default);
        }
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            mine.merge(theirs);
        }
    }
}

/// One plan in one segment.
struct SegmentValues {
    /// `None`: the segment has no value of the field.
    column: Option<F64Column>,
    /// One value per document: read by blocks into `block`.
    dense: bool,
    raw: Vec<u64>,
    block: Vec<f64>,
    digest: SpanDigest,
}

/// [`PercentilesCollector`]'s per-segment part.
pub struct PercentilesSegmentCollector {
    plans: Vec<SegmentValues>,
}

impl Collector for PercentilesCollector {
    type Fruit = PercentilesFruit;
    type Child = PercentilesSegmentCollector;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<PercentilesSegmentCollector> {
        let plans = self
            .plans
            .iter()
            .map(|plan| {
                let column = F64Column::open(segment, &plan.column);
                SegmentValues {
                    dense: column.as_ref().is_some_and(F64Column::is_dense),
                    column,
                    raw: Vec::new(),
                    block: Vec::new(),
                    digest: SpanDigest::default(),
                }
            })
            .collect();
        Ok(PercentilesSegmentCollector { plans })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<PercentilesFruit>) -> tantivy::Result<PercentilesFruit> {
        let mut out = PercentilesFruit::default();
        for f in fruits {
            out.merge(f);
        }
        Ok(out)
    }
}

impl SegmentCollector for PercentilesSegmentCollector {
    type Fruit = PercentilesFruit;

    fn collect(&mut self, doc: DocId, _score: Score) {
        for plan in &mut self.plans {
            if let Some(column) = &plan.column {
                column.values_for_doc(doc).for_each(|v| plan.digest.add(v));
            }
        }
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        for plan in &mut self.plans {
            let Some(column) = &plan.column else { continue };
            if plan.dense {
                column.read_dense(docs, &mut plan.raw, &mut plan.block);
                plan.digest.add_all(&plan.block);
            } else {
                for &doc in docs {
                    column.values_for_doc(doc).for_each(|v| plan.digest.add(v));
                }
            }
        }
    }

    fn harvest(self) -> PercentilesFruit {
        PercentilesFruit(self.plans.into_iter().map(|p| p.digest).collect())
    }
}
