//! [`GeoPoint`]: one checked latitude/longitude pair.
//!
//! A leaf of `mapping::geo`: the input forms (`geo.rs`), geohashes and
//! the cell finder all use it, and it names none of them.

/// One point, in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    /// Latitude, -90..=90.
    pub lat: f64,
    /// Longitude, -180..=180.
    pub lon: f64,
}

impl GeoPoint {
    /// A checked point; the error says which coordinate is out of range.
    pub fn new(lat: f64, lon: f64) -> Result<GeoPoint, String> {
        if !lat.is_finite() || !(-90.0..=90.0).contains(&lat) {
            return Err(format!("illegal latitude value [{lat}]"));
        }
        if !lon.is_finite() || !(-180.0..=180.0).contains(&lon) {
            return Err(format!("illegal longitude value [{lon}]"));
        }
        Ok(GeoPoint { lat, lon })
    }
}
