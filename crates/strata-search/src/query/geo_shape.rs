//! The shapes the geo queries match points against: a latitude/longitude
//! [`BoundingBox`] (`geo_bounding_box`) and a distance under a
//! [`DistanceType`] (`geo_distance`), with their geometry.
//!
//! A leaf: plain values, so both the query tree (`query/ast`) and the
//! translator (`query/geo`) use them without importing each other.

use crate::mapping::geo::GeoPoint;

/// A latitude/longitude box, edges included.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundingBox {
    /// Northern edge.
    pub top: f64,
    /// Southern edge.
    pub bottom: f64,
    /// Western edge.
    pub left: f64,
    /// Eastern edge (less than `left` when crossing the date line).
    pub right: f64,
}

impl BoundingBox {
    /// True when `p` lies inside the box.
    pub fn contains(&self, p: GeoPoint) -> bool {
        let lon_ok = if self.left <= self.right {
            p.lon >= self.left && p.lon <= self.right
        } else {
            p.lon >= self.left || p.lon <= self.right
        };
        lon_ok && p.lat >= self.bottom && p.lat <= self.top
    }

    /// True when the box holds every valid point (lat -90..=90, lon -180..=180).
    pub fn covers_world(&self) -> bool {
        let lon_all = if self.left <= self.right {
            self.left <= -180.0 && self.right >= 180.0
        } else {
            self.left <= -180.0 || self.right >= 180.0
        };
        lon_all && self.bottom <= -90.0 && self.top >= 90.0
    }
}

/// Elasticsearch's (and Lucene's) mean Earth radius, in metres.
pub const EARTH_MEAN_RADIUS: f64 = 6_371_008.771_4;

/// How a distance is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistanceType {
    /// Great-circle distance (haversine).
    Arc,
    /// Equirectangular approximation.
    Plane,
}

impl DistanceType {
    /// Metres between `a` and `b`.
    pub fn metres(self, a: GeoPoint, b: GeoPoint) -> f64 {
        let (lat1, lat2) = (a.lat.to_radians(), b.lat.to_radians());
        let dlat = lat2 - lat1;
        let dlon = (b.lon - a.lon).to_radians();
        match self {
            DistanceType::Arc => {
                let h = (dlat / 2.0).sin().powi(2)
                    + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
                2.0 * EARTH_MEAN_RADIUS * h.sqrt().min(1.0).asin()
            }
            DistanceType::Plane => {
                let x = dlon * ((lat1 + lat2) / 2.0).cos();
                (x * x + dlat * dlat).sqrt() * EARTH_MEAN_RADIUS
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_types() {
        // London to Paris: about 343.5 km.
        let london = GeoPoint {
            lat: 51.5074,
            lon: -0.1278,
        };
        let paris = GeoPoint {
            lat: 48.8566,
            lon: 2.3522,
        };
        let arc = DistanceType::Arc.metres(london, paris);
        assert!((arc - 343_500.0).abs() < 1_000.0, "{arc}");
        let plane = DistanceType::Plane.metres(london, paris);
        assert!((plane - arc).abs() < 1_000.0, "{plane}");
        assert_eq!(DistanceType::Arc.metres(london, london), 0.0);
    }

    #[test]
    fn world_boxes() {
        let b = |top, left, bottom, right| BoundingBox {
            top,
            bottom,
            left,
            right,
        };
        let world = b(90.0, -180.0, -90.0, 180.0);
        assert!(world.covers_world());
        for lat in [-90.0, -0.0, 0.0, 90.0] {
            for lon in [-180.0, -0.5, 0.0, 179.5, 180.0] {
                assert!(world.contains(GeoPoint { lat, lon }));
            }
        }
        // Each of these misses some valid point.
        for (not_world, missed) in [
            (b(89.9, -180.0, -90.0, 180.0), (90.0, 0.0)),
            (b(90.0, -180.0, -89.9, 180.0), (-90.0, 0.0)),
            (b(90.0, -179.9, -90.0, 180.0), (0.0, -180.0)),
            (b(90.0, -180.0, -90.0, 179.9), (0.0, 180.0)),
            // Crossing the date line always leaves a gap between valid edges.
            (b(90.0, 0.0, -90.0, -180.0), (0.0, -90.0)),
            (b(90.0, 180.0, -90.0, 179.9), (0.0, 179.95)),
        ] {
            assert!(!not_world.covers_world(), "{not_world:?}");
            let (lat, lon) = missed;
            assert!(!not_world.contains(GeoPoint { lat, lon }), "{not_world:?}");
        }
    }
}
