//! The geo queries with a typed node: `geo_bounding_box` (a box, given by
//! its corners, its edges or `wkt: "BBOX (...)"`) and `geo_distance` (a
//! centre and a distance in Elasticsearch's units). Both take one
//! `geo_point` field beside the same shared parameters; whether the field
//! is one is checked when the node is translated.

use serde_json::{Map, Value};

use crate::error::{Result, SearchError};
use crate::mapping::geo::{geohash_cell, parse_point, GeoPoint};
use crate::query::geo_shape::{BoundingBox, DistanceType};
use crate::query::params::boost_of;

/// `geo_bounding_box`.
#[derive(Debug)]
pub(crate) struct GeoBoxAst<'a> {
    pub field: &'a str,
    pub bbox: BoundingBox,
    /// An unmapped field matches nothing instead of failing.
    pub ignore_unmapped: bool,
    pub boost: f64,
}

/// `geo_distance`.
#[derive(Debug)]
pub(crate) struct GeoDistanceAst<'a> {
    pub field: &'a str,
    pub centre: GeoPoint,
    /// Metres, inclusive.
    pub distance: f64,
    pub kind: DistanceType,
    /// An unmapped field matches nothing instead of failing.
    pub ignore_unmapped: bool,
    pub boost: f64,
}

/// The one field of a geo query and its value, with `ignore_unmapped`.
struct GeoField<'a> {
    field: Option<(&'a str, &'a Value)>,
    ignore_unmapped: bool,
}

/// Reads a `kind` geo query's body: the parameters every geo query takes
/// (`boost`, `_name`, `ignore_unmapped`, `validation_method`), the ones
/// `own` takes (it returns false for a key it does not know), and the one
/// field (any other key).
fn geo_field<'a>(
    kind: &str,
    body: &'a Value,
    mut own: impl FnMut(&str, &'a Value) -> Result<bool>,
) -> Result<GeoField<'a>> {
    let obj = body
        .as_object()
        .ok_or_else(|| SearchError::parsing(format!("[{kind}] query malformed")))?;
    let mut found = GeoField {
        field: None,
        ignore_unmapped: false,
    };
    for (key, value) in obj {
        match key.as_str() {
            "boost" | "_name" => {}
            "ignore_unmapped" => {
                found.ignore_unmapped = value.as_bool().ok_or_else(|| {
                    SearchError::parsing(format!("[{kind}] [ignore_unmapped] must be a boolean"))
                })?
            }
            "validation_method" => {
                if !value
                    .as_str()
                    .is_some_and(|v| v.eq_ignore_ascii_case("strict"))
                {
                    return Err(SearchError::illegal(format!(
                        "[{kind}] validation_method [{value}] is not supported (STRICT is)"
                    )));
                }
            }
            name if own(name, value)? => {}
            name => {
                if let Some((first, _)) = found.field {
                    return Err(SearchError::parsing(format!(
                        "[{kind}] query doesn't support multiple fields, found [{first}] and [{name}]"
                    )));
                }
                found.field = Some((name, value));
            }
        }
    }
    Ok(found)
}

pub(super) fn geo_bounding_box(body: &Value) -> Result<GeoBoxAst<'_>> {
    // `type` is a deprecated execution hint; both give the same result.
    let found = geo_field("geo_bounding_box", body, |key, _| Ok(key == "type"))?;
    let (field, params) = found.field.ok_or_else(|| {
        SearchError::parsing(
            "failed to parse [geo_bounding_box] query. field name expected but [null] found",
        )
    })?;
    let params = params.as_object().ok_or_else(|| {
        SearchError::parsing(format!(
            "failed to parse [geo_bounding_box] query. expected an object for field [{field}]"
        ))
    })?;
    Ok(GeoBoxAst {
        field,
        bbox: parse_box(params)?,
        ignore_unmapped: found.ignore_unmapped,
        boost: boost_of(body)?,
    })
}

pub(super) fn geo_distance(body: &Value) -> Result<GeoDistanceAst<'_>> {
    let mut distance = None;
    let mut kind = DistanceType::Arc;
    let found = geo_field("geo_distance", body, |key, value| {
        match key {
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
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let (field, point) = found.field.ok_or_else(|| {
        SearchError::parsing("failed to parse [geo_distance] query. field name expected")
    })?;
    let distance = distance
        .ok_or_else(|| SearchError::illegal("geo_distance requires 'distance' to be specified"))?;
    let centre = parse_point(point).map_err(|e| {
        SearchError::parsing(format!(
            "failed to parse [geo_distance] point of [{field}]: {e}"
        ))
    })?;
    Ok(GeoDistanceAst {
        field,
        centre,
        distance,
        kind,
        ignore_unmapped: found.ignore_unmapped,
        boost: boost_of(body)?,
    })
}

/// A corner or edge value: any geo_point form; a geohash picks `corner` of its cell.
fn corner(name: &str, value: &Value, top: bool, left: bool) -> Result<GeoPoint> {
    if let Some(hash) = value
        .as_str()
        .filter(|s| !s.contains(',') && !s.contains('('))
    {
        if let Some((bottom, north, west, east)) = geohash_cell(hash.trim()) {
            return Ok(GeoPoint {
                lat: if top { north } else { bottom },
                lon: if left { west } else { east },
            });
        }
    }
    parse_point(value).map_err(|e| {
        SearchError::parsing(format!("failed to parse [geo_bounding_box] [{name}]: {e}"))
    })
}

fn edge(name: &str, value: &Value) -> Result<f64> {
    value
        .as_f64()
        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        .ok_or_else(|| {
            SearchError::parsing(format!("[geo_bounding_box] [{name}] must be a number"))
        })
}

/// A box in any of `geo_bounding_box`'s forms (corners, edges, WKT `BBOX`),
/// checked; also a grid aggregation's `bounds`.
pub(crate) fn parse_box(params: &Map<String, Value>) -> Result<BoundingBox> {
    let (mut top, mut bottom, mut left, mut right) = (None, None, None, None);
    for (key, value) in params {
        match key.as_str() {
            "top_left" => {
                let p = corner(key, value, true, true)?;
                (top, left) = (Some(p.lat), Some(p.lon));
            }
            "bottom_right" => {
                let p = corner(key, value, false, false)?;
                (bottom, right) = (Some(p.lat), Some(p.lon));
            }
            "top_right" => {
                let p = corner(key, value, true, false)?;
                (top, right) = (Some(p.lat), Some(p.lon));
            }
            "bottom_left" => {
                let p = corner(key, value, false, true)?;
                (bottom, left) = (Some(p.lat), Some(p.lon));
            }
            "top" => top = Some(edge(key, value)?),
            "bottom" => bottom = Some(edge(key, value)?),
            "left" => left = Some(edge(key, value)?),
            "right" => right = Some(edge(key, value)?),
            "wkt" => {
                let [l, r, t, b] = parse_wkt_bbox(value)?;
                (left, right, top, bottom) = (Some(l), Some(r), Some(t), Some(b));
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "failed to parse [geo_bounding_box] query. unexpected field [{other}]"
                )))
            }
        }
    }
    let (Some(top), Some(bottom), Some(left), Some(right)) = (top, bottom, left, right) else {
        return Err(SearchError::parsing(
            "failed to parse [geo_bounding_box] query. a bounding box needs its top, left, bottom and right edges",
        ));
    };
    for (what, v, limit) in [
        ("top latitude", top, 90.0),
        ("bottom latitude", bottom, 90.0),
        ("left longitude", left, 180.0),
        ("right longitude", right, 180.0),
    ] {
        if !v.is_finite() || v.abs() > limit {
            return Err(SearchError::parsing(format!(
                "illegal {what} value [{v}] for [geo_bounding_box]"
            )));
        }
    }
    if top < bottom {
        return Err(SearchError::illegal(format!(
            "top is below bottom corner: {top} vs. {bottom}"
        )));
    }
    Ok(BoundingBox {
        top,
        bottom,
        left,
        right,
    })
}

/// `BBOX (minLon, maxLon, maxLat, minLat)`.
fn parse_wkt_bbox(value: &Value) -> Result<[f64; 4]> {
    let fail = || SearchError::parsing(format!("[geo_bounding_box] malformed wkt [{value}]"));
    let text = value.as_str().ok_or_else(fail)?.trim().to_ascii_uppercase();
    let inner = text
        .strip_prefix("BBOX")
        .map(str::trim)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(fail)?;
    let nums: Option<Vec<f64>> = inner.split(',').map(|p| p.trim().parse().ok()).collect();
    match nums.as_deref() {
        Some([l, r, t, b]) => Ok([*l, *r, *t, *b]),
        _ => Err(fail()),
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
pub(super) fn parse_distance(value: &Value) -> Result<f64> {
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
