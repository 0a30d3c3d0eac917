//! `geo_distance`: documents with a point of a `geo_point` field within a
//! distance of a centre (any geo_point form). Distances take Elasticsearch's
//! units (`12km`, `200m`, `1.5mi`, a bare number is metres); `distance_type`
//! `arc` (the default, haversine on the mean Earth radius) or `plane`
//! (faster, less exact far away). Like `geo_bounding_box`, it scans the
//! field's latitude and longitude columns of each segment.

use serde_json::Value;
use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyQuery, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, Score, SegmentReader};

use super::context::QueryContext;
use super::filter::explain_filter;
use super::params::boosted;
use crate::error::{Result, SearchError};
use crate::mapping::geo::{parse_point, GeoPoint};
use crate::mapping::FieldType;
use crate::store::geo_columns::PointColumns;

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

/// Metres per unit, by every name Elasticsearch accepts.
const UNITS: &[(&str, f64)] = &[
    ("mm", 0.001),
    ("millimeters", 0.001),
    ("cm", 0.01),
    ("centimeters", 0.01),
    ("m", 1.0),
    ("meters", 1.0),
    ("km", 1000.0),
    ("kilometers", 1000.0),
    ("in", 0.0254),
    ("inch", 0.0254),
    ("ft", 0.3048),
    ("feet", 0.3048),
    ("yd", 0.9144),
    ("yards", 0.9144),
    ("mi", 1609.344),
    ("miles", 1609.344),
    ("nmi", 1852.0),
    ("NM", 1852.0),
    ("nauticalmiles", 1852.0),
];

/// A distance (`"12km"`, `"200"`, `350.5`) in metres.
pub fn parse_distance(value: &Value) -> Result<f64> {
    let bad = || SearchError::parsing(format!("failed to parse distance [{value}]"));
    let metres = match value {
        Value::Number(n) => n.as_f64().ok_or_else(bad)?,
        Value::String(s) => {
            let s = s.trim();
            let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
            let (number, unit) = s.split_at(split);
            let number: f64 = number.trim().parse().map_err(|_| bad())?;
            let factor = if unit.is_empty() {
                1.0
            } else {
                UNITS
                    .iter()
                    .find(|(name, _)| {
                        *name == unit || (*name != "NM" && name.eq_ignore_ascii_case(unit))
                    })
                    .map(|&(_, f)| f)
                    .ok_or_else(|| SearchError::illegal(format!("No unit found for [{s}]")))?
            };
            number * factor
        }
        _ => return Err(bad()),
    };
    if !metres.is_finite() || metres < 0.0 {
        return Err(SearchError::illegal(format!(
            "distance must be a finite non-negative number, got [{value}]"
        )));
    }
    Ok(metres)
}

/// Translates `{"geo_distance": {"distance": "12km", "<field>": point, ...}}`.
pub fn geo_distance(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    let obj = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[geo_distance] query malformed"))?;
    let mut field = None;
    let mut distance = None;
    let mut kind = DistanceType::Arc;
    let mut ignore_unmapped = false;
    for (key, value) in obj {
        match key.as_str() {
            "boost" | "_name" => {}
            "distance" => distance = Some(parse_distance(value)?),
            "distance_type" => {
                kind = match value.as_str().map(str::to_ascii_lowercase).as_deref() {
                    Some("arc") => DistanceType::Arc,
                    Some("plane") => DistanceType::Plane,
                    _ => {
                        return Err(SearchError::illegal(format!(
                            "No geo distance for [{}]",
                            value.as_str().unwrap_or_default()
                        )))
                    }
                }
            }
            "ignore_unmapped" => {
                ignore_unmapped = value.as_bool().ok_or_else(|| {
                    SearchError::parsing("[geo_distance] [ignore_unmapped] must be a boolean")
                })?
            }
            "validation_method" => {
                if !value
                    .as_str()
                    .is_some_and(|v| v.eq_ignore_ascii_case("strict"))
                {
                    return Err(SearchError::illegal(format!(
                        "[geo_distance] validation_method [{value}] is not supported (STRICT is)"
                    )));
                }
            }
            name => {
                if let Some((first, _)) = &field {
                    return Err(SearchError::parsing(format!(
                        "[geo_distance] query doesn't support multiple fields, found [{first}] and [{name}]"
                    )));
                }
                field = Some((name.to_string(), value));
            }
        }
    }
    let (field, point) = field.ok_or_else(|| {
        SearchError::parsing("failed to parse [geo_distance] query. field name expected")
    })?;
    let distance = distance
        .ok_or_else(|| SearchError::illegal("geo_distance requires 'distance' to be specified"))?;
    let centre = parse_point(point).map_err(|e| {
        SearchError::parsing(format!(
            "failed to parse [geo_distance] point of [{field}]: {e}"
        ))
    })?;
    match ctx.leaf(&field) {
        Some(leaf) if leaf.ty == FieldType::GeoPoint => {}
        None if ignore_unmapped => return Ok(Box::new(EmptyQuery)),
        None => {
            return Err(SearchError::QueryShard(format!(
                "failed to find geo field [{field}]"
            )))
        }
        Some(_) => {
            return Err(SearchError::QueryShard(format!(
                "field [{field}] is not a geo_point field"
            )))
        }
    }
    let query: Box<dyn Query> = Box::new(GeoDistanceQuery {
        field,
        centre,
        distance,
        kind,
    });
    boosted(query, body)
}

#[derive(Debug, Clone)]
struct GeoDistanceQuery {
    field: String,
    centre: GeoPoint,
    /// Metres, inclusive.
    distance: f64,
    kind: DistanceType,
}

impl Query for GeoDistanceQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for GeoDistanceQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut matching = BitSet::with_max_value(reader.max_doc());
        let columns = PointColumns::open(reader, &self.field)
            .map_err(|e| tantivy::TantivyError::InternalError(e.to_string()))?;
        if let Some(columns) = columns {
            for doc in 0..reader.max_doc() {
                if columns
                    .points(doc)
                    .any(|p| self.kind.metres(self.centre, p) <= self.distance)
                {
                    matching.insert(doc);
                }
            }
        }
        Ok(Box::new(ConstScorer::new(
            BitSetDocSet::from(matching),
            boost,
        )))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_filter(self, reader, doc, "geo_distance")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn distances_and_units() {
        assert_eq!(parse_distance(&json!("12km")).unwrap(), 12_000.0);
        assert_eq!(parse_distance(&json!("200")).unwrap(), 200.0);
        assert_eq!(parse_distance(&json!(350.5)).unwrap(), 350.5);
        assert_eq!(parse_distance(&json!("1mi")).unwrap(), 1609.344);
        assert_eq!(parse_distance(&json!("2NM")).unwrap(), 3704.0);
        assert!(parse_distance(&json!("12parsecs")).is_err());
        assert!(parse_distance(&json!("-1km")).is_err());
        assert!(parse_distance(&json!("km")).is_err());
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
}
