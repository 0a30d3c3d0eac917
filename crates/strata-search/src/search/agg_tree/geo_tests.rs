//! Tests of the geo aggregations' parameters.

use serde_json::json;

use super::{GeoBoundsParams, GeoCentroidParams, GeoGridParams, GridSystem};
use crate::query::BoundingBox;
use crate::search::agg_tree::tests::{assert_refusals, typed};
use crate::search::agg_tree::TypedParams;

const REQUIRED: &str =
    "Required one of fields [field, script], but none were specified (aggregation [g])";

#[test]
fn centroid_bounds_and_grid_parameters() {
    let c = typed("c", "geo_centroid", json!({"field": "loc"})).unwrap();
    let field = "loc".to_string();
    assert_eq!(
        c,
        TypedParams::GeoCentroid(GeoCentroidParams {
            field: field.clone()
        })
    );
    let b = typed("b", "geo_bounds", json!({"field": "loc"})).unwrap();
    let bounds = |wrap_longitude| {
        TypedParams::GeoBounds(GeoBoundsParams {
            field: field.clone(),
            wrap_longitude,
        })
    };
    assert_eq!(b, bounds(true));
    let b = typed(
        "b",
        "geo_bounds",
        json!({"field": "loc", "wrap_longitude": "false"}),
    );
    assert_eq!(b.unwrap(), bounds(false));
    let plain = typed("g", "geohash_grid", json!({"field": "loc"})).unwrap();
    let grid = |system, precision, size, bounds, shard_size| {
        TypedParams::GeoGrid(GeoGridParams {
            system,
            field: field.clone(),
            precision,
            size,
            bounds,
            shard_size,
        })
    };
    assert_eq!(plain, grid(GridSystem::Geohash, 5, 10_000, None, None));
    let full = json!({"field": "loc", "precision": "12", "size": 3, "shard_size": "7"});
    let full = typed("g", "geohash_grid", full).unwrap();
    assert_eq!(full, grid(GridSystem::Geohash, 12, 3, None, Some(7)));
    let tiles = typed("g", "geotile_grid", json!({"field": "loc"})).unwrap();
    assert_eq!(tiles, grid(GridSystem::Geotile, 7, 10_000, None, None));
    let body = json!({"field": "loc", "precision": 0, "size": 2,
        "bounds": {"top_left": {"lat": 80, "lon": 170}, "bottom_right": "-50, -160"}});
    let bbox = BoundingBox {
        top: 80.0,
        bottom: -50.0,
        left: 170.0,
        right: -160.0,
    };
    let tiles = typed("g", "geotile_grid", body).unwrap();
    assert_eq!(tiles, grid(GridSystem::Geotile, 0, 2, Some(bbox), None));
    let body =
        json!({"field": "loc", "precision": 29, "bounds": {"wkt": "BBOX (170, -160, 80, -50)"}});
    let deep = typed("g", "geotile_grid", body).unwrap();
    assert_eq!(
        deep,
        grid(GridSystem::Geotile, 29, 10_000, Some(bbox), None)
    );
}

#[test]
fn bad_centroid_and_bounds_parameters_are_refused_at_parse() {
    let centroid = [
        (
            json!("loc"),
            "[geo_centroid] of [g] must be an object",
            "parsing_exception",
        ),
        (json!({}), REQUIRED, "illegal_argument_exception"),
        (json!({"field": 1}), REQUIRED, "illegal_argument_exception"),
        (
            json!({"field": "loc", "size": 1}),
            "[geo_centroid] unknown field [size]",
            "parsing_exception",
        ),
    ];
    assert_refusals("g", "geo_centroid", &centroid);
    let bounds = [
        (json!({}), REQUIRED, "illegal_argument_exception"),
        (
            json!({"field": "loc", "foo": 1}),
            "[geo_bounds] unknown field [foo]",
            "parsing_exception",
        ),
        (
            json!({"field": "loc", "wrap_longitude": 3}),
            "[geo_bounds] failed to parse field [wrap_longitude] of [g]: [3] is not a boolean",
            "parsing_exception",
        ),
    ];
    assert_refusals("g", "geo_bounds", &bounds);
}

#[test]
fn bad_grid_parameters_are_refused_at_parse() {
    let grid = [
        (
            json!(["loc"]),
            "[geohash_grid] of [g] must be an object",
            "parsing_exception",
        ),
        (json!({"precision": 3}), REQUIRED, "illegal_argument_exception"),
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
            "failed to parse [geo_bounding_box] query. a bounding box needs its top, left, bottom and right edges",
            "parsing_exception",
        ),
        (
            json!({"field": "loc", "bounds": {"top": 1, "bottom": 2, "left": 0, "right": 1}}),
            "top is below bottom corner: 1 vs. 2",
            "illegal_argument_exception",
        ),
    ];
    assert_refusals("g", "geohash_grid", &grid);
    let tiles = [
        (
            json!({"field": "loc", "precision": 30}),
            "Invalid geotile_grid precision of 30. Must be between 0 and 29.",
            "illegal_argument_exception",
        ),
        (
            json!({"field": "loc", "precision": -1}),
            "[geotile_grid] failed to parse field [precision] of [g]: [-1] is not an integer 0..29",
            "parsing_exception",
        ),
        (
            json!({"field": "loc", "bounds": [1, 2]}),
            "[geotile_grid] failed to parse field [bounds]: expected an object",
            "parsing_exception",
        ),
        (
            json!({"field": "loc", "foo": 1}),
            "[geotile_grid] unknown field [foo]",
            "parsing_exception",
        ),
    ];
    assert_refusals("g", "geotile_grid", &tiles);
}
