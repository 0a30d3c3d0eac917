//! The coordinates Redis indexes. A leaf.

/// Longitudes Redis accepts.
pub const LONG_MIN: f64 = -180.0;
/// Longitudes Redis accepts.
pub const LONG_MAX: f64 = 180.0;
/// Latitudes Redis accepts (Web Mercator's limit).
pub const LAT_MIN: f64 = -85.051_128_78;
/// Latitudes Redis accepts.
pub const LAT_MAX: f64 = 85.051_128_78;

/// Whether Redis indexes the point.
pub fn valid(longitude: f64, latitude: f64) -> bool {
    (LONG_MIN..=LONG_MAX).contains(&longitude) && (LAT_MIN..=LAT_MAX).contains(&latitude)
}
