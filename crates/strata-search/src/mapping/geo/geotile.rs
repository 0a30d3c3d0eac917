//! Map tiles (`geotile_grid`): the Web Mercator tile `zoom/x/y` holding a
//! point, as web maps and Elasticsearch number them (x grows eastward
//! from -180, y southward from the top of the projection at ~85.05°).
//!
//! A tile is kept as [`GeoTile`] bits `x << zoom | y`, which order as
//! `(x, y)` do at one zoom: the order Elasticsearch breaks count ties by.
//! The formulas are Elasticsearch's (`GeoTileUtils`): longitude -180 is
//! taken as 180 (it normalizes longitudes into (-180, 180]), latitudes
//! beyond the projection clamp to the first or last row, and indices are
//! clipped to the grid. Elasticsearch computes the row with Lucene's
//! table-based cosine; a point within about 1e-15 of a row's edge may fall
//! in the neighbouring row here.

use std::f64::consts::PI;
use std::fmt;

use super::point::GeoPoint;

/// The deepest zoom: 29 levels of 2^29 columns fit 58 bits.
pub const MAX_ZOOM: usize = 29;

/// A tile at one zoom: `x << zoom | y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeoTile {
    /// `x << zoom | y`.
    pub bits: u64,
    /// 0..=29.
    pub zoom: u8,
}

impl GeoTile {
    /// The tile holding `point` at `zoom` (above 29 counts as 29).
    #[inline]
    pub fn of(point: GeoPoint, zoom: usize) -> GeoTile {
        let zoom = zoom.min(MAX_ZOOM);
        let tiles = (1u64 << zoom) as f64;
        let last = (1u64 << zoom) - 1;
        let lon = if point.lon <= -180.0 {
            180.0
        } else {
            point.lon
        };
        let x = clip(((lon + 180.0) / 360.0 * tiles).floor(), last);
        let sin = (PI / 2.0 - point.lat.to_radians()).cos();
        let row = (0.5 - ((1.0 + sin) / (1.0 - sin)).ln() / (4.0 * PI)) * tiles;
        let y = clip(row.floor(), last);
        GeoTile {
            bits: x << zoom | y,
            zoom: zoom as u8,
        }
    }

    /// The tile with these bits, when they fit `zoom`.
    pub fn new(bits: u64, zoom: usize) -> Option<GeoTile> {
        (zoom <= MAX_ZOOM && bits >> (2 * zoom) == 0).then_some(GeoTile {
            bits,
            zoom: zoom as u8,
        })
    }

    /// Column and row.
    pub fn x_y(self) -> (u64, u64) {
        let zoom = u32::from(self.zoom);
        (self.bits >> zoom, self.bits & ((1u64 << zoom) - 1))
    }
}

/// An index estimate clipped to `0..=last` (NaN and -inf to 0, +inf to `last`).
#[inline]
fn clip(v: f64, last: u64) -> u64 {
    if v >= last as f64 {
        last
    } else if v >= 0.0 {
        v as u64
    } else {
        0
    }
}

impl fmt::Display for GeoTile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (x, y) = self.x_y();
        write!(f, "{}/{x}/{y}", self.zoom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(lat: f64, lon: f64, zoom: usize) -> String {
        GeoTile::of(GeoPoint { lat, lon }, zoom).to_string()
    }

    #[test]
    fn tiles_are_elasticsearchs() {
        // Keys OpenSearch 2.19.6 returned for these points.
        assert_eq!(key(52.374080987647176, 4.912349972873926, 8), "8/131/84");
        assert_eq!(key(51.22289998, 4.40519999, 8), "8/131/85");
        assert_eq!(key(48.86111099, 2.33638895, 8), "8/129/88");
        assert_eq!(key(-33.86879996, 151.20929996, 8), "8/235/153");
        assert_eq!(key(85.49999997, -179.99000005, 8), "8/0/0");
        assert_eq!(key(-40.10000000, -170.50000006, 8), "8/6/159");
        assert_eq!(key(60.29999998, 175.19999996, 8), "8/252/73");
        assert_eq!(key(52.374080987647176, 4.912349972873926, 0), "0/0/0");
        assert_eq!(key(60.29999998, 175.19999996, 5), "5/31/9");
    }

    #[test]
    fn edges_clamp_into_the_grid() {
        assert_eq!(key(90.0, 0.0, 3), "3/4/0");
        assert_eq!(key(-90.0, 0.0, 3), "3/4/7");
        assert_eq!(key(0.0, 180.0, 3), "3/7/4");
        // -180 is 180 once normalized.
        assert_eq!(key(0.0, -180.0, 3), "3/7/4");
        assert_eq!(key(f64::NAN, f64::NAN, 3), "3/0/0");
        assert_eq!(key(89.0, 1.0, MAX_ZOOM + 3), key(89.0, 1.0, MAX_ZOOM));
    }

    #[test]
    fn bits_order_as_columns_then_rows() {
        let a = GeoTile::of(
            GeoPoint {
                lat: 10.0,
                lon: -10.0,
            },
            4,
        );
        let b = GeoTile::of(
            GeoPoint {
                lat: -10.0,
                lon: -10.0,
            },
            4,
        );
        let c = GeoTile::of(
            GeoPoint {
                lat: 80.0,
                lon: 10.0,
            },
            4,
        );
        assert!(a.bits < b.bits && b.bits < c.bits);
        assert_eq!(GeoTile::new(c.bits, 4), Some(c));
        assert_eq!(GeoTile::new(1 << 8, 4), None);
        assert_eq!(GeoTile::new(0, 30), None);
    }
}
