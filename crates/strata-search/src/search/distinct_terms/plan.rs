//! The plan of one `cardinality` taken out of tantivy's request: what
//! `split` found, as the collector reads it.

/// One `cardinality` taken out of tantivy's request.
#[derive(Debug, Clone)]
pub struct DistinctTerms {
    /// Its name in `aggs`.
    pub name: String,
    /// The keyword column, as tantivy's request names it.
    pub column: String,
    /// `precision_threshold`: exact up to this many distinct values.
    pub threshold: u64,
}
