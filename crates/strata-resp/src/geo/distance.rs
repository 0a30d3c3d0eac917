//! Distances on Redis's sphere: the haversine formula with Redis's Earth
//! radius, the same libm calls in the same order.

use super::shape::{Shape, ShapeKind};

/// Redis's Earth radius, metres.
pub const EARTH_RADIUS: f64 = 6_372_797.560_856;

fn rad(degrees: f64) -> f64 {
    degrees * (std::f64::consts::PI / 180.0)
}

/// Metres north-south between two latitudes.
pub fn lat_distance(lat1: f64, lat2: f64) -> f64 {
    EARTH_RADIUS * (rad(lat2) - rad(lat1)).abs()
}

/// Metres between two points (longitude first).
pub fn distance(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let v = ((rad(lon2) - rad(lon1)) / 2.0).sin();
    if v == 0.0 {
        return lat_distance(lat1, lat2);
    }
    let (lat1r, lat2r) = (rad(lat1), rad(lat2));
    let u = ((lat2r - lat1r) / 2.0).sin();
    let a = u * u + lat1r.cos() * lat2r.cos() * v * v;
    2.0 * EARTH_RADIUS * a.sqrt().asin()
}

/// The distance from the centre `(x1, y1)` to `(x2, y2)` if the point is
/// inside the shape: a circle of `radius` metres, or a box `width` by
/// `height` metres (its sides measured as Redis measures them).
pub fn within(shape: &Shape, x2: f64, y2: f64) -> Option<f64> {
    let (x1, y1) = shape.centre;
    match shape.kind {
        ShapeKind::Radius(radius) => {
            let d = distance(x1, y1, x2, y2);
            (d <= radius * shape.to_metres).then_some(d)
        }
        ShapeKind::Box(width, height) => {
            if lat_distance(y2, y1) > height * shape.to_metres / 2.0 {
                return None;
            }
            if distance(x2, y2, x1, y2) > width * shape.to_metres / 2.0 {
                return None;
            }
            Some(distance(x1, y1, x2, y2))
        }
    }
}
