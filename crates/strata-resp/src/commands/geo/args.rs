//! What the geospatial commands share: a point and a unit as arguments,
//! and the scores of members. A leaf.

use strata_kv::Store;

use crate::commands::zset::stored::read;
use crate::number::parse_f64;
use crate::reply::{RespError, ValueError};

/// The scores (geohashes) of `members` in the sorted set at `key`: `None`
/// for a member it lacks, all `None` for a missing key.
pub fn scores<S: Store>(
    store: &mut S,
    key: &[u8],
    members: &[&[u8]],
) -> Result<Vec<Option<f64>>, RespError> {
    let found = read(store, key, |z| {
        members
            .iter()
            .map(|m| z.score(m))
            .collect::<Result<Vec<_>, _>>()
    })?;
    Ok(found.unwrap_or_else(|| vec![None; members.len()]))
}

/// A longitude and latitude argument pair, checked against Redis's limits.
pub fn lon_lat(lon: &[u8], lat: &[u8]) -> Result<(f64, f64), RespError> {
    let x = parse_f64(lon).ok_or(RespError::NotFloat)?;
    let y = parse_f64(lat).ok_or(RespError::NotFloat)?;
    match crate::geo::valid(x, y) {
        true => Ok((x, y)),
        false => Err(RespError::from(ValueError::GeoInvalidPair(format!(
            "{x:.6},{y:.6}"
        )))),
    }
}

/// Metres per unit: `m`, `km`, `ft`, `mi` (any case).
pub fn unit(arg: &[u8]) -> Result<f64, RespError> {
    match arg.to_ascii_lowercase().as_slice() {
        b"m" => Ok(1.0),
        b"km" => Ok(1000.0),
        b"ft" => Ok(0.3048),
        b"mi" => Ok(1609.34),
        _ => Err(RespError::from(ValueError::GeoUnit)),
    }
}
