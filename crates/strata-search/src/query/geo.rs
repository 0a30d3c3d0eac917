//! `geo_bounding_box`: documents with a point of a `geo_point` field inside
//! a box. The box is given by `top_left`/`bottom_right`,
//! `top_right`/`bottom_left`, `top`/`left`/`bottom`/`right` or
//! `wkt: "BBOX (left, right, top, bottom)"`; corners take every geo_point
//! form (a geohash stands for its cell's corner). A box whose left edge is
//! east of its right edge crosses the date line.
//!
//! tantivy has no geo query, so this one scans the field's latitude and
//! longitude fast-field columns of each segment into a bitset (a box over
//! the whole world only asks which documents have a point).

use serde_json::{Map, Value};
use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyQuery, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, Score, SegmentReader};

use super::context::QueryContext;
use super::filter::{all_docs, explain_filter};
use super::params::boosted;
use crate::error::{Result, SearchError};
use crate::mapping::geo::{geohash_cell, parse_point, GeoPoint};
use crate::mapping::FieldType;
use crate::store::geo_columns::PointColumns;

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

/// Translates `{"geo_bounding_box": {"<field>": {...}, ...}}`.
pub fn geo_bounding_box(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    let obj = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[geo_bounding_box] query malformed"))?;
    let mut field = None;
    let mut ignore_unmapped = false;
    for (key, value) in obj {
        match key.as_str() {
            "boost" | "_name" => {}
            "ignore_unmapped" => {
                ignore_unmapped = value.as_bool().ok_or_else(|| {
                    SearchError::parsing("[geo_bounding_box] [ignore_unmapped] must be a boolean")
                })?
            }
            "validation_method" => {
                if !value
                    .as_str()
                    .is_some_and(|v| v.eq_ignore_ascii_case("strict"))
                {
                    return Err(SearchError::illegal(format!(
                        "[geo_bounding_box] validation_method [{value}] is not supported (STRICT is)"
                    )));
                }
            }
            // Deprecated execution hint; both give the same result.
            "type" => {}
            name => {
                if let Some((first, _)) = &field {
                    return Err(SearchError::parsing(format!(
                        "[geo_bounding_box] query doesn't support multiple fields, found [{first}] and [{name}]"
                    )));
                }
                field = Some((name.to_string(), value));
            }
        }
    }
    let (field, params) = field.ok_or_else(|| {
        SearchError::parsing(
            "failed to parse [geo_bounding_box] query. field name expected but [null] found",
        )
    })?;
    let params = params.as_object().ok_or_else(|| {
        SearchError::parsing(format!(
            "failed to parse [geo_bounding_box] query. expected an object for field [{field}]"
        ))
    })?;
    let bbox = parse_box(params)?;
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
    let query: Box<dyn Query> = Box::new(GeoBoxQuery { field, bbox });
    boosted(query, body)
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

fn parse_box(params: &Map<String, Value>) -> Result<BoundingBox> {
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

#[derive(Debug, Clone)]
struct GeoBoxQuery {
    field: String,
    bbox: BoundingBox,
}

impl Query for GeoBoxQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for GeoBoxQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut matching = BitSet::with_max_value(reader.max_doc());
        let columns = PointColumns::open(reader, &self.field)
            .map_err(|e| tantivy::TantivyError::InternalError(e.to_string()))?;
        // Indexing stores only valid points, so a box over the whole world
        // matches exactly the documents with a point.
        let world = self.bbox.covers_world();
        if let Some(columns) = columns {
            if world && columns.one_per_doc() {
                return Ok(all_docs(reader, boost));
            }
            for doc in 0..reader.max_doc() {
                let hit = if world {
                    columns.has_point(doc)
                } else {
                    columns.points(doc).any(|p| self.bbox.contains(p))
                };
                if hit {
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
        explain_filter(self, reader, doc, "geo_bounding_box")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
