//! The plan of one aggregation on a runtime field (its kind, metric,
//! order, ranges and script): what `split` parsed, as the collector, the
//! rendering and the sub-aggregation passes read it.

use crate::script::fields::RuntimeType;
use crate::script::Compiled;
use crate::search::agg_tree::AggTree;

/// What one aggregation computes.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// `terms`: documents per value.
    Terms {
        size: usize,
        min_doc_count: u64,
        order: Order,
    },
    /// `histogram`: documents per `interval`-wide bucket.
    Histogram {
        interval: f64,
        offset: f64,
        min_doc_count: u64,
    },
    /// `range`: documents per range, `from` inclusive, `to` exclusive,
    /// in Elasticsearch's order (by `from`, then `to`).
    Range(Vec<Bucket>),
    /// A single- or multi-value metric.
    Metric(Metric),
    /// `cardinality`: distinct values (exact).
    Cardinality,
}

/// The metric aggregations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    Avg,
    Sum,
    Min,
    Max,
    Stats,
    ValueCount,
}

/// The order of `terms` buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    CountDesc,
    CountAsc,
    KeyAsc,
    KeyDesc,
}

/// One range of a `range` aggregation.
#[derive(Debug, Clone)]
pub(crate) struct Bucket {
    pub key: Option<String>,
    pub from: Option<f64>,
    pub to: Option<f64>,
}

/// One aggregation on a runtime field.
#[derive(Debug, Clone)]
pub(crate) struct RuntimeAgg {
    pub name: String,
    pub field: String,
    pub ty: RuntimeType,
    pub script: Compiled,
    pub kind: Kind,
    /// The sub-aggregations of a `terms`, `histogram` or `range`.
    pub sub: Option<AggTree>,
}
