//! `geo_point` values: Elasticsearch's input forms turned into checked
//! latitude/longitude pairs, and geohashes.
//!
//! Accepted forms: `{"lat": .., "lon": ..}` (numbers or numeric strings),
//! GeoJSON `{"type": "Point", "coordinates": [lon, lat]}`, `"lat,lon"`,
//! WKT `"POINT (lon lat)"`, a geohash string, `[lon, lat]` (a third,
//! elevation value is ignored), and arrays of any of these. Latitudes must
//! lie in [-90, 90] and longitudes in [-180, 180]. Geohashes are in the
//! `geohash` submodule, the cells of many points at once in `cell_finder`,
//! map tiles in `geotile`; [`GeoPoint`] itself in `point`, a leaf they use.

use serde_json::Value;

mod cell_finder;
mod geohash;
mod geotile;
mod point;

pub use cell_finder::CellFinder;
pub use geohash::{geohash_cell, geohash_decode, GeohashCell};
pub use geotile::GeoTile;
pub use point::GeoPoint;

/// The points of a field value: one point, or an array of points. Each
/// item is `Ok` or the reason it is malformed.
pub fn parse_points(value: &Value) -> Vec<Result<GeoPoint, String>> {
    match value {
        Value::Null => Vec::new(),
        // `[]` holds no point (as in Elasticsearch), not an empty `[lon, lat]`.
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_number) => {
            vec![parse_point(value)]
        }
        Value::Array(items) => items
            .iter()
            .filter(|v| !v.is_null())
            .map(parse_point)
            .collect(),
        other => vec![parse_point(other)],
    }
}

/// One point in any accepted form.
pub fn parse_point(value: &Value) -> Result<GeoPoint, String> {
    match value {
        Value::Object(obj) => {
            if obj.get("type").and_then(Value::as_str) == Some("Point") {
                return match obj.get("coordinates") {
                    Some(c @ Value::Array(_)) => parse_point(c),
                    _ => Err("geojson point without [coordinates]".into()),
                };
            }
            let mut lat = None;
            let mut lon = None;
            for (k, v) in obj {
                let n = number(v).ok_or_else(|| format!("[{k}] must be a number, got [{v}]"))?;
                match k.as_str() {
                    "lat" => lat = Some(n),
                    "lon" => lon = Some(n),
                    "z" => {}
                    other => return Err(format!("field [{other}] not supported - must be one of: lon, lat, z, type, coordinates")),
                }
            }
            match (lat, lon) {
                (Some(lat), Some(lon)) => GeoPoint::new(lat, lon),
                (None, _) => Err("field [lat] missing".into()),
                (_, None) => Err("field [lon] missing".into()),
            }
        }
        Value::Array(items) => {
            let coords: Option<Vec<f64>> = items.iter().map(Value::as_f64).collect();
            match coords.as_deref() {
                Some([lon, lat]) | Some([lon, lat, _]) => GeoPoint::new(*lat, *lon),
                _ => Err(format!(
                    "[{value}] must be [lon, lat] or [lon, lat, z] numbers"
                )),
            }
        }
        Value::String(s) => parse_text(s),
        other => Err(format!("geo_point expected, got [{other}]")),
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn parse_text(s: &str) -> Result<GeoPoint, String> {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    if let Some(rest) = upper.strip_prefix("POINT") {
        let inner = rest
            .trim()
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| format!("malformed WKT point [{s}]"))?;
        let nums: Option<Vec<f64>> = inner.split_whitespace().map(|p| p.parse().ok()).collect();
        return match nums.as_deref() {
            Some([lon, lat]) | Some([lon, lat, _]) => GeoPoint::new(*lat, *lon),
            _ => Err(format!("malformed WKT point [{s}]")),
        };
    }
    if t.contains(',') {
        let parts: Vec<&str> = t.split(',').map(str::trim).collect();
        let nums: Option<Vec<f64>> = parts.iter().map(|p| p.parse().ok()).collect();
        return match nums.as_deref() {
            Some([lat, lon]) | Some([lat, lon, _]) => GeoPoint::new(*lat, *lon),
            _ => Err(format!("failed to parse [{s}] as \"lat,lon\"")),
        };
    }
    geohash_decode(t).ok_or_else(|| format!("unsupported symbol in geohash [{s}]"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn input_forms() {
        let want = GeoPoint::new(41.12, -71.34).unwrap();
        for v in [
            json!({"lat": 41.12, "lon": -71.34}),
            json!({"lat": "41.12", "lon": "-71.34"}),
            json!("41.12,-71.34"),
            json!(" 41.12 , -71.34 "),
            json!([-71.34, 41.12]),
            json!("POINT (-71.34 41.12)"),
            json!("point(-71.34 41.12)"),
            json!({"type": "Point", "coordinates": [-71.34, 41.12]}),
        ] {
            assert_eq!(parse_points(&v), vec![Ok(want)], "{v}");
        }
        let many = parse_points(&json!([[-71.34, 41.12], "1,2", {"lat": 3, "lon": 4}]));
        assert_eq!(many.len(), 3);
        assert_eq!(many[1], Ok(GeoPoint { lat: 1.0, lon: 2.0 }));
        // An empty array holds no point; a `[lon, lat]` needs both.
        assert_eq!(parse_points(&json!([])), vec![]);
        assert!(parse_points(&json!([1.5]))[0].is_err());
        let hashed = parse_point(&json!("drm3btev3e86")).unwrap();
        assert!((hashed.lat - 41.12).abs() < 1e-3 && (hashed.lon + 71.34).abs() < 1e-3);
        for bad in [
            json!({"lat": 91, "lon": 0}),
            json!({"lat": 0, "lon": -180.5}),
            json!([0, 95]),
            json!({"lat": 1}),
            json!({"lat": 1, "lon": 2, "x": 3}),
            json!("1,2,3,4"),
            json!("POINT (1)"),
            json!("not a hash!"),
            json!(true),
            json!([1, 2, 3, 4]),
        ] {
            assert!(parse_point(&bad).is_err(), "{bad}");
        }
    }
}
