//! Geospatial indexing as Redis does it, step for step, so positions,
//! distances, geohash strings and search results are Redis's: a point is a
//! sorted-set member whose score is its 52-bit interleaved geohash
//! (latitude bits even, longitude odd, over longitudes -180..180 and the
//! Web Mercator latitudes -85.05112878..85.05112878); a search scans the
//! geohash box of the centre at a step chosen from the radius and its
//! eight neighbours, then keeps the points inside the shape.
//!
//! A leaf: `hash.rs` encodes and decodes, `distance.rs` measures (the
//! haversine on Redis's Earth radius), `area.rs` picks the boxes to scan,
//! `shape.rs` and `limits.rs` name the shapes and the coordinates indexed.

mod area;
mod distance;
mod hash;
mod limits;
mod shape;

pub use area::{score_range, search_boxes};
pub use distance::{distance, within};
pub use hash::{decode_score, encode_score, standard_geohash, Bits};
pub use limits::{valid, LAT_MAX, LAT_MIN, LONG_MAX, LONG_MIN};
pub use shape::{Shape, ShapeKind};

#[cfg(test)]
mod tests;
