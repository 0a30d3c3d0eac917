//! Which geohash boxes a search scans (Redis's
//! `geohashCalculateAreasByShapeWGS84`): the centre's box at a step
//! estimated from the radius, made one step coarser when a neighbour
//! would not reach the shape's bounding box, and the neighbours that
//! cannot hold a point inside the shape left out.

use super::distance::EARTH_RADIUS;
use super::hash::{self, Bits, WGS84};
use super::shape::{Shape, ShapeKind};

const MERCATOR_MAX: f64 = 20_037_726.37;

fn degrees(radians: f64) -> f64 {
    radians / (std::f64::consts::PI / 180.0)
}

fn radians(degrees: f64) -> f64 {
    degrees * (std::f64::consts::PI / 180.0)
}

/// The step whose boxes are about the radius's size.
fn estimate_step(mut metres: f64, latitude: f64) -> u32 {
    if metres == 0.0 {
        return 26;
    }
    let mut step: i32 = 1;
    while metres < MERCATOR_MAX {
        metres *= 2.0;
        step += 1;
    }
    step -= 2;
    if !(-66.0..=66.0).contains(&latitude) {
        step -= 1;
        if !(-80.0..=80.0).contains(&latitude) {
            step -= 1;
        }
    }
    step.clamp(1, 26) as u32
}

/// The shape's bounding box: `[min lon, min lat, max lon, max lat]`.
fn bounding_box(shape: &Shape) -> [f64; 4] {
    let (longitude, latitude) = shape.centre;
    let (height, width) = match shape.kind {
        ShapeKind::Radius(r) => (shape.to_metres * r, shape.to_metres * r),
        ShapeKind::Box(w, h) => (shape.to_metres * (h / 2.0), shape.to_metres * (w / 2.0)),
    };
    let lat_delta = degrees(height / EARTH_RADIUS);
    let long_delta_top = degrees(width / EARTH_RADIUS / radians(latitude + lat_delta).cos());
    let long_delta_bottom = degrees(width / EARTH_RADIUS / radians(latitude - lat_delta).cos());
    let delta = if latitude < 0.0 {
        long_delta_bottom
    } else {
        long_delta_top
    };
    [
        longitude - delta,
        latitude - lat_delta,
        longitude + delta,
        latitude + lat_delta,
    ]
}

/// The boxes to scan, in Redis's order: the centre, north, south, east,
/// west, north-east, north-west, south-east, south-west; a zero hash is a
/// neighbour left out. `None` when the centre cannot be encoded.
pub fn search_boxes(shape: &Shape) -> Option<[Bits; 9]> {
    let [min_lon, min_lat, max_lon, max_lat] = bounding_box(shape);
    let (longitude, latitude) = shape.centre;
    let metres = match shape.kind {
        ShapeKind::Radius(r) => r,
        ShapeKind::Box(w, h) => ((w / 2.0) * (w / 2.0) + (h / 2.0) * (h / 2.0)).sqrt(),
    } * shape.to_metres;
    let mut step = estimate_step(metres, latitude);
    let mut centre = hash::encode(WGS84, longitude, latitude, step)?;
    let decode = |h: Bits| hash::decode(WGS84, h);
    let coarser = {
        let north = decode(hash::moved(centre, 0, 1));
        let south = decode(hash::moved(centre, 0, -1));
        let east = decode(hash::moved(centre, 1, 0));
        let west = decode(hash::moved(centre, -1, 0));
        north.latitude.max < max_lat
            || south.latitude.min > min_lat
            || east.longitude.max < max_lon
            || west.longitude.min > min_lon
    };
    if step > 1 && coarser {
        step -= 1;
        centre = hash::encode(WGS84, longitude, latitude, step)?;
    }
    let area = decode(centre);
    let mut boxes = [
        centre,
        hash::moved(centre, 0, 1),   // north
        hash::moved(centre, 0, -1),  // south
        hash::moved(centre, 1, 0),   // east
        hash::moved(centre, -1, 0),  // west
        hash::moved(centre, 1, 1),   // north-east
        hash::moved(centre, -1, 1),  // north-west
        hash::moved(centre, 1, -1),  // south-east
        hash::moved(centre, -1, -1), // south-west
    ];
    if step >= 2 {
        let (n, s, e, w, ne, nw, se, sw) = (1, 2, 3, 4, 5, 6, 7, 8);
        let mut drop = |which: [usize; 3]| which.iter().for_each(|&i| boxes[i] = Bits::default());
        if area.latitude.min < min_lat {
            drop([s, sw, se]);
        }
        if area.latitude.max > max_lat {
            drop([n, ne, nw]);
        }
        if area.longitude.min < min_lon {
            drop([w, sw, nw]);
        }
        if area.longitude.max > max_lon {
            drop([e, se, ne]);
        }
    }
    Some(boxes)
}

/// The score range `[min, max)` of a box's points.
pub fn score_range(hash: Bits) -> (f64, f64) {
    let shift = 52 - hash.step * 2;
    (
        (hash.bits << shift) as f64,
        ((hash.bits + 1) << shift) as f64,
    )
}
