//! [`GeoCentroidParams`] and [`GeohashGridParams`]: the parameters of
//! `geo_centroid` (`field` alone) and `geohash_grid` (`field`,
//! `precision` 1 to 12, default 5, as a geohash length: distances are not
//! supported; `size`, at least 1, default 10000; `shard_size`, checked and
//! unused: shard results merge exactly), typed when the request is parsed.
//! Whether the field is a `geo_point` is for the geo module (`geo_aggs`),
//! against the mapping; so is the rule that a grid's sub-aggregations are
//! `geo_centroid`s.

use serde_json::Value;

use super::source::{count_param, object_of, required_field};
use crate::error::{Result, SearchError};

/// The geohash length of a grid that names none.
const DEFAULT_PRECISION: usize = 5;

/// The longest geohash.
const MAX_PRECISION: u64 = 12;

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

/// The parameters of one `geohash_grid` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct GeohashGridParams {
    /// The `geo_point` field.
    pub field: String,
    /// The geohash length of the cells, 1 to 12.
    pub precision: usize,
    /// The buckets returned, at least 1.
    pub size: usize,
    /// `shard_size` as written (checked, unused: shards merge exactly).
    pub shard_size: Option<u64>,
}

impl GeohashGridParams {
    /// The parameters `body` of the `geohash_grid` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<GeohashGridParams> {
        let obj = object_of("geohash_grid", name, body)?;
        let mut out = GeohashGridParams {
            field: string_field(name, body)?,
            precision: DEFAULT_PRECISION,
            size: DEFAULT_SIZE,
            shard_size: None,
        };
        for (k, v) in obj {
            match k.as_str() {
                "field" => {}
                "shard_size" => out.shard_size = Some(count_param(name, body, k, 0)?),
                "precision" => out.precision = precision(name, v)?,
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
                        "[geohash_grid] unknown field [{other}]"
                    )))
                }
            }
        }
        Ok(out)
    }
}

/// A grid's `precision`: an integer (or a string of one) from 1 to 12.
fn precision(name: &str, v: &Value) -> Result<usize> {
    let p = v
        .as_u64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .ok_or_else(|| {
            SearchError::illegal(format!(
                "[geohash_grid] precision [{v}] of [{name}] must be an integer 1..12 (distances are not supported)"
            ))
        })?;
    if !(1..=MAX_PRECISION).contains(&p) {
        return Err(SearchError::illegal(format!(
            "Invalid geohash aggregation precision of {p}. Must be between 1 and 12."
        )));
    }
    // At most 12: fits.
    Ok(p as usize)
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
mod tests {
    use serde_json::json;

    use super::{GeoCentroidParams, GeohashGridParams};
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    #[test]
    fn centroid_and_grid_parameters() {
        let c = typed("c", "geo_centroid", json!({"field": "loc"})).unwrap();
        let field = "loc".to_string();
        assert_eq!(
            c,
            TypedParams::GeoCentroid(GeoCentroidParams {
                field: field.clone()
            })
        );
        let plain = typed("g", "geohash_grid", json!({"field": "loc"})).unwrap();
        assert_eq!(
            plain,
            TypedParams::GeohashGrid(GeohashGridParams {
                field: field.clone(),
                precision: 5,
                size: 10_000,
                shard_size: None,
            })
        );
        let full = typed(
            "g",
            "geohash_grid",
            json!({"field": "loc", "precision": "12", "size": 3, "shard_size": "7"}),
        )
        .unwrap();
        assert_eq!(
            full,
            TypedParams::GeohashGrid(GeohashGridParams {
                field,
                precision: 12,
                size: 3,
                shard_size: Some(7),
            })
        );
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let required =
            "Required one of fields [field, script], but none were specified (aggregation [g])";
        let centroid = [
            (
                json!("loc"),
                "[geo_centroid] of [g] must be an object",
                "parsing_exception",
            ),
            (json!({}), required, "illegal_argument_exception"),
            (json!({"field": 1}), required, "illegal_argument_exception"),
            (
                json!({"field": "loc", "size": 1}),
                "[geo_centroid] unknown field [size]",
                "parsing_exception",
            ),
        ];
        assert_refusals("g", "geo_centroid", &centroid);
        let grid = [
            (
                json!(["loc"]),
                "[geohash_grid] of [g] must be an object",
                "parsing_exception",
            ),
            (json!({"precision": 3}), required, "illegal_argument_exception"),
            (
                json!({"field": "loc", "precision": "1km"}),
                "[geohash_grid] precision [\"1km\"] of [g] must be an integer 1..12 (distances are not supported)",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "loc", "precision": 0}),
                "Invalid geohash aggregation precision of 0. Must be between 1 and 12.",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "loc", "precision": 13}),
                "Invalid geohash aggregation precision of 13. Must be between 1 and 12.",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "loc", "size": 0}),
                "[size] must be greater than 0. Found [0] in [g]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "loc", "size": "5"}),
                "[size] must be greater than 0. Found [\"5\"] in [g]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "loc", "shard_size": -1}),
                "[shard_size] of aggregation [g] must be a non-negative integer, got [-1]",
                "parsing_exception",
            ),
            (
                json!({"field": "loc", "bounds": {}}),
                "[geohash_grid] unknown field [bounds]",
                "parsing_exception",
            ),
        ];
        assert_refusals("g", "geohash_grid", &grid);
    }
}
