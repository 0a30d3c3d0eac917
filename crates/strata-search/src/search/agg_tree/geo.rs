//! The geo aggregations' parameters, typed when the request is parsed:
//! [`GeoCentroidParams`] (`field` alone), [`GeoBoundsParams`] (`field`,
//! `wrap_longitude`, default true) and [`GeoGridParams`] for
//! `geohash_grid` (`precision` 1 to 12, default 5, as a geohash length:
//! distances are not supported) and `geotile_grid` (`precision` a zoom, 0
//! to 29, default 7); both grids take `size` (at least 1, default 10000),
//! `bounds` (a box in `geo_bounding_box`'s forms: only points inside it
//! are counted, as OpenSearch and Elasticsearch 7 count them) and
//! `shard_size` (checked and unused: shard results merge exactly).
//! Whether the field is a `geo_point` is for the geo module (`geo_aggs`),
//! against the mapping; so is the rule that a grid's sub-aggregations are
//! `geo_centroid`s.

use serde_json::Value;

use super::source::{count_param, object_of, required_field};
use crate::error::{Result, SearchError};
use crate::query::ast::parse_box;
use crate::query::BoundingBox;

/// The buckets of a grid that names no `size`.
const DEFAULT_SIZE: usize = 10_000;

/// The parameters of one `geo_centroid` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct GeoCentroidParams {
    /// The `geo_point` field.
    pub field: String,
}

impl GeoCentroidParams {
    /// The parameters `body` of the `geo_centroid` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<GeoCentroidParams> {
        let obj = object_of("geo_centroid", name, body)?;
        if let Some(k) = obj.keys().find(|k| k.as_str() != "field") {
            return Err(SearchError::parsing(format!(
                "[geo_centroid] unknown field [{k}]"
            )));
        }
        Ok(GeoCentroidParams {
            field: string_field(name, body)?,
        })
    }
}

/// The parameters of one `geo_bounds` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct GeoBoundsParams {
    /// The `geo_point` field.
    pub field: String,
    /// Whether the box may cross the date line when that makes it narrower.
    pub wrap_longitude: bool,
}

impl GeoBoundsParams {
    /// The parameters `body` of the `geo_bounds` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<GeoBoundsParams> {
        let obj = object_of("geo_bounds", name, body)?;
        let mut wrap_longitude = true;
        for (k, v) in obj {
            match k.as_str() {
                "field" => {}
                "wrap_longitude" => {
                    wrap_longitude = v
                        .as_bool()
                        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                        .ok_or_else(|| {
                            SearchError::parsing(format!(
                                "[geo_bounds] failed to parse field [wrap_longitude] of [{name}]: [{v}] is not a boolean"
                            ))
                        })?
                }
                other => {
                    return Err(SearchError::parsing(format!(
                        "[geo_bounds] unknown field [{other}]"
                    )))
                }
            }
        }
        Ok(GeoBoundsParams {
            field: string_field(name, body)?,
            wrap_longitude,
        })
    }
}

/// How a grid cuts the world into cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridSystem {
    /// `geohash_grid`: geohash cells, `precision` characters.
    Geohash,
    /// `geotile_grid`: Web Mercator map tiles, `precision` the zoom.
    Geotile,
}

impl GridSystem {
    /// The aggregation's name.
    pub fn name(self) -> &'static str {
        match self {
            GridSystem::Geohash => "geohash_grid",
            GridSystem::Geotile => "geotile_grid",
        }
    }

    /// The precisions allowed, and the default.
    fn precisions(self) -> (std::ops::RangeInclusive<u64>, usize) {
        match self {
            GridSystem::Geohash => (1..=12, 5),
            GridSystem::Geotile => (0..=29, 7),
        }
    }
}

/// The parameters of one `geohash_grid` or `geotile_grid` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct GeoGridParams {
    /// Geohash cells or map tiles.
    pub system: GridSystem,
    /// The `geo_point` field.
    pub field: String,
    /// Geohash length (1 to 12) or tile zoom (0 to 29).
    pub precision: usize,
    /// The buckets returned, at least 1.
    pub size: usize,
    /// Only points inside this box are counted.
    pub bounds: Option<BoundingBox>,
    /// `shard_size` as written (checked, unused: shards merge exactly).
    pub shard_size: Option<u64>,
}

impl GeoGridParams {
    /// The parameters `body` of the grid aggregation `name`.
    pub fn parse(system: GridSystem, name: &str, body: &Value) -> Result<GeoGridParams> {
        let kind = system.name();
        let obj = object_of(kind, name, body)?;
        let mut out = GeoGridParams {
            system,
            field: string_field(name, body)?,
            precision: system.precisions().1,
            size: DEFAULT_SIZE,
            bounds: None,
            shard_size: None,
        };
        for (k, v) in obj {
            match k.as_str() {
                "field" => {}
                "shard_size" => out.shard_size = Some(count_param(name, body, k, 0)?),
                "precision" => out.precision = precision(system, name, v)?,
                "bounds" => out.bounds = Some(bounds(kind, v)?),
                "size" => {
                    out.size = v
                        .as_u64()
                        .filter(|n| *n > 0)
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or_else(|| {
                            SearchError::illegal(format!(
                                "[size] must be greater than 0. Found [{v}] in [{name}]"
                            ))
                        })?
                }
                other => {
                    return Err(SearchError::parsing(format!(
                        "[{kind}] unknown field [{other}]"
                    )))
                }
            }
        }
        Ok(out)
    }
}

/// A grid's `precision`: an integer (or a string of one) in the system's range.
fn precision(system: GridSystem, name: &str, v: &Value) -> Result<usize> {
    let (range, _) = system.precisions();
    let p = v
        .as_u64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .ok_or_else(|| match system {
            GridSystem::Geohash => SearchError::illegal(format!(
                "[geohash_grid] precision [{v}] of [{name}] must be an integer 1..12 (distances are not supported)"
            )),
            GridSystem::Geotile => SearchError::parsing(format!(
                "[geotile_grid] failed to parse field [precision] of [{name}]: [{v}] is not an integer 0..29"
            )),
        })?;
    if !range.contains(&p) {
        return Err(match system {
            GridSystem::Geohash => SearchError::illegal(format!(
                "Invalid geohash aggregation precision of {p}. Must be between 1 and 12."
            )),
            GridSystem::Geotile => SearchError::illegal(format!(
                "Invalid geotile_grid precision of {p}. Must be between 0 and 29."
            )),
        });
    }
    // At most 29: fits.
    Ok(p as usize)
}

/// A grid's `bounds`: an object in any of `geo_bounding_box`'s forms.
fn bounds(kind: &str, v: &Value) -> Result<BoundingBox> {
    let obj = v.as_object().ok_or_else(|| {
        SearchError::parsing(format!(
            "[{kind}] failed to parse field [bounds]: expected an object"
        ))
    })?;
    parse_box(obj)
}

/// The `field` of geo aggregation `name`: a string, required.
fn string_field(name: &str, body: &Value) -> Result<String> {
    required_field(
        name,
        body.get("field")
            .and_then(Value::as_str)
            .map(str::to_string),
    )
}

#[cfg(test)]
#[path = "geo_tests.rs"]
mod tests;
