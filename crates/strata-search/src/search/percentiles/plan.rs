//! The plan of one `percentiles` taken out of tantivy's request: what
//! `split` found, as the collector and the rendering read it.

/// One `percentiles` taken out of tantivy's request.
#[derive(Debug, Clone)]
pub struct ValuePercentiles {
    /// Its name in `aggs`.
    pub name: String,
    /// The numeric column, as tantivy's request names it.
    pub column: String,
    /// The percents asked for, in request order.
    pub percents: Vec<f64>,
    /// Values keyed by percent (`"50.0": v`) rather than a list.
    pub keyed: bool,
}
