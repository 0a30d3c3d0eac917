//! The plan of one histogram taken out of tantivy's request (its
//! interval, offset and children): what `split` found, as the collector
//! and the rendering read it.

use super::range_filter::IntRange;
use crate::query::ParsedQuery;

/// A metric child, by the name tantivy's request gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Sum of the values.
    Sum,
    /// Smallest value.
    Min,
    /// Largest value.
    Max,
    /// Mean of the values.
    Avg,
    /// Number of values.
    ValueCount,
}

impl Metric {
    pub(super) fn parse(kind: &str) -> Option<Metric> {
        Some(match kind {
            "sum" => Metric::Sum,
            "min" => Metric::Min,
            "max" => Metric::Max,
            "avg" => Metric::Avg,
            "value_count" => Metric::ValueCount,
            _ => return None,
        })
    }
}

/// What a child computes per bucket.
#[derive(Debug, Clone)]
pub enum ChildKind {
    /// A metric over a numeric column (schema path).
    Metric {
        /// Which one.
        metric: Metric,
        /// The column, as tantivy's request names it.
        column: String,
    },
    /// `percentiles` of a numeric column (plain: no `missing`, no
    /// `format`), in a digest per bucket.
    Percentiles {
        /// The column, as tantivy's request would name it.
        column: String,
        /// The percents asked for, in request order.
        percents: Vec<f64>,
        /// Values keyed by percent rather than a list.
        keyed: bool,
    },
    /// A document count under an Elasticsearch query.
    Filter {
        /// The query, as the request's tree parsed it.
        query: ParsedQuery,
        /// The query as an integer range, when it is only that: counted
        /// from the column where a segment has one value per document.
        range: Option<IntRange>,
    },
}

/// One child, under its name in tantivy's request (a `filters` key is
/// `<name>\u{1f}<key>`).
#[derive(Debug, Clone)]
pub struct Child {
    /// The name its result goes under.
    pub name: String,
    /// What it computes.
    pub kind: ChildKind,
}

/// One histogram taken out of tantivy's request.
#[derive(Debug, Clone)]
pub struct TimeBuckets {
    /// Its name in `aggs`.
    pub name: String,
    /// The date column, as tantivy's request names it.
    pub column: String,
    /// Bucket width in milliseconds (at least 1).
    pub interval: i64,
    /// Bucket starts are `offset + k * interval`, `0 <= offset < interval`.
    pub offset: i64,
    /// Buckets with fewer documents are left out; 0 fills the gaps
    /// between the first and last bucket, as tantivy does.
    pub min_doc_count: u64,
    /// Its children, in request order.
    pub children: Vec<Child>,
}

impl TimeBuckets {
    /// The queries of the filter children (in children order).
    pub fn filter_queries(&self) -> impl Iterator<Item = &ParsedQuery> {
        self.children.iter().filter_map(|c| match &c.kind {
            ChildKind::Filter { query, .. } => Some(query),
            ChildKind::Metric { .. } | ChildKind::Percentiles { .. } => None,
        })
    }
}
