//! The geo aggregations of a request (`geo_centroid`, `geohash_grid`) as
//! `split` parsed them, read by the collector and the partial results.

/// One geo aggregation request.
#[derive(Debug, Clone)]
pub enum GeoAgg {
    /// `geo_centroid`: the mean of the field's points.
    Centroid {
        /// geo_point field path.
        field: String,
    },
    /// `geohash_grid`: documents per geohash cell.
    Grid {
        /// geo_point field path.
        field: String,
        /// Geohash length, 1..=12.
        precision: usize,
        /// Buckets returned.
        size: usize,
        /// `geo_centroid` sub-aggregations: (name, field).
        centroids: Vec<(String, String)>,
    },
}

/// Named geo aggregations, in request order.
pub type GeoAggs = Vec<(String, GeoAgg)>;
