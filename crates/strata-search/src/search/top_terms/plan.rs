//! The plan of one `terms` taken out of tantivy's request (and of its one
//! `terms` below, if any): what `split` found, as the collector and the
//! rendering read it.

/// One level of a taken `terms`.
#[derive(Debug, Clone, PartialEq)]
pub struct TermsLevel {
    /// Its name in `aggs`.
    pub name: String,
    /// The keyword column, as tantivy's request names it.
    pub column: String,
    /// Buckets in the reply.
    pub size: usize,
    /// Terms a segment keeps (at least `size`).
    pub segment_size: usize,
    /// Buckets with fewer documents are left out of the reply.
    pub min_doc_count: u64,
}

/// One taken `terms`, with its one `terms` sub-aggregation if any.
#[derive(Debug, Clone, PartialEq)]
pub struct TopTerms {
    /// The top level.
    pub outer: TermsLevel,
    /// The level below: counted per bucket of `outer`.
    pub inner: Option<TermsLevel>,
}
