//! The geo aggregations of a request (`geo_centroid`, `geo_bounds`,
//! `geohash_grid`, `geotile_grid`) as `split` parsed them, read by the
//! collector and the partial results.

use crate::query::BoundingBox;
use crate::search::agg_tree::GridSystem;

/// One geo aggregation request.
#[derive(Debug, Clone)]
pub enum GeoAgg {
    /// `geo_centroid`: the mean of the field's points.
    Centroid {
        /// geo_point field path.
        field: String,
    },
    /// `geo_bounds`: the box around the field's points.
    Bounds {
        /// geo_point field path.
        field: String,
        /// The box may cross the date line when that makes it narrower.
        wrap_longitude: bool,
    },
    /// `geohash_grid`, `geotile_grid`: documents per cell.
    Grid {
        /// geo_point field path.
        field: String,
        /// The cells: geohashes or map tiles, and their precision.
        grid: Grid,
        /// Buckets returned.
        size: usize,
        /// `geo_centroid` sub-aggregations: (name, field).
        centroids: Vec<(String, String)>,
    },
}

/// A grid's cells: the system, its precision, and the box points must lie in.
#[derive(Debug, Clone, Copy)]
pub struct Grid {
    /// Geohash cells or map tiles.
    pub system: GridSystem,
    /// Geohash length (1..=12) or zoom (0..=29).
    pub precision: usize,
    /// Only points inside are counted.
    pub bounds: Option<BoundingBox>,
}

impl Grid {
    /// Bits a cell's key takes (geohash: 5 a character; tile: x and y at the zoom).
    pub(super) fn key_bits(&self) -> usize {
        match self.system {
            GridSystem::Geohash => 5 * self.precision,
            GridSystem::Geotile => 2 * self.precision,
        }
    }
}

/// Named geo aggregations, in request order.
pub type GeoAggs = Vec<(String, GeoAgg)>;
