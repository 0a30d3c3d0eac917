//! `geotile_grid`, `geo_bounds` and a grid's `bounds` end to end: random
//! points (some documents with two, some with none) over two shards and
//! two segments each, checked against values computed here from the same
//! points, with map tiles found by the slippy-map formula
//! (`asinh(tan(lat))`) rather than the engine's (Elasticsearch's).

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{key_counts, logs_index, search_logs};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::Precondition;

type Point = (f64, f64); // (lat, lon)

/// The tile `zoom/x/y` of a point, by the slippy-map formula.
fn reference_tile((lat, lon): Point, zoom: u32) -> String {
    let n = f64::from(1u32 << zoom);
    let last = (1u64 << zoom) - 1;
    let x = ((lon + 180.0) / 360.0 * n).floor() as u64;
    let lat = lat.to_radians();
    let y = ((1.0 - lat.tan().asinh() / std::f64::consts::PI) / 2.0 * n).floor() as u64;
    format!("{zoom}/{}/{}", x.min(last), y.min(last))
}

/// The one-character geohash of a point: 3 bits of longitude and 2 of
/// latitude, interleaved from longitude.
fn reference_geohash1((lat, lon): Point) -> String {
    let x = (((lon + 180.0) / 360.0 * 8.0).floor() as usize).min(7);
    let y = (((lat + 90.0) / 180.0 * 4.0).floor() as usize).min(3);
    let bits = (x >> 2 & 1) << 4 | (y >> 1 & 1) << 3 | (x >> 1 & 1) << 2 | (y & 1) << 1 | (x & 1);
    char::from(b"0123456789bcdefghjkmnpqrstuvwxyz"[bits]).to_string()
}

/// A box's test, edges included; `left > right` crosses the date line.
fn in_box((lat, lon): Point, [top, left, bottom, right]: [f64; 4]) -> bool {
    let lon_ok = if left <= right {
        left <= lon && lon <= right
    } else {
        lon >= left || lon <= right
    };
    bottom <= lat && lat <= top && lon_ok
}

/// 300 documents of 0, 1 or 2 points under `where`, half of them in a
/// cluster around Europe; refreshed halfway and at the end.
fn setup(dir: &std::path::Path) -> (strata_search::Catalog, Vec<Vec<Point>>) {
    let properties = json!({"where": {"type": "geo_point"}, "n": {"type": "long"}});
    let (catalog, index) = logs_index(dir, 2, properties);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let mut docs = Vec::new();
    for i in 0..300 {
        let count = [0, 2, 1, 1, 1][i % 5];
        let points: Vec<Point> = (0..count)
            .map(|_| match rng.gen_bool(0.5) {
                true => (rng.gen_range(35.0..60.0), rng.gen_range(-10.0..30.0)),
                false => (rng.gen_range(-85.0..85.0), rng.gen_range(-180.0..180.0)),
            })
            .collect();
        let values: Vec<Value> = points
            .iter()
            .map(|(lat, lon)| json!({"lat": lat, "lon": lon}))
            .collect();
        let doc = json!({"n": i, "where": values});
        let id = format!("d{i}");
        let body = doc.to_string();
        index
            .index_document(Some(&id), body.as_bytes(), Precondition::None)
            .unwrap();
        if i == 150 {
            index.refresh().unwrap();
        }
        docs.push(points);
    }
    index.refresh().unwrap();
    (catalog, docs)
}

/// Documents per cell `key` finds (a document once per cell its points
/// inside `bounds` fall in), fullest first, ties by key descending.
fn reference_grid(
    docs: &[Vec<Point>],
    key: impl Fn(Point) -> String,
    bounds: Option<[f64; 4]>,
) -> Vec<(String, u64)> {
    let mut cells: BTreeMap<String, u64> = BTreeMap::new();
    for points in docs {
        let keys: BTreeSet<String> = points
            .iter()
            .filter(|p| bounds.is_none_or(|b| in_box(**p, b)))
            .map(|p| key(*p))
            .collect();
        keys.into_iter()
            .for_each(|k| *cells.entry(k).or_default() += 1);
    }
    let mut want: Vec<(String, u64)> = cells.into_iter().collect();
    // Tile keys of one zoom order by column then row, geohashes as text.
    let order = |k: &str| -> Vec<u64> {
        let parts = k.split('/').skip(1).map(|v| v.parse::<u64>().unwrap());
        parts.chain(k.bytes().map(u64::from)).collect()
    };
    want.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| order(&b.0).cmp(&order(&a.0))));
    want
}

fn buckets(resp: &Value, name: &str) -> Vec<(String, u64)> {
    key_counts(&resp["aggregations"][name])
}

#[test]
fn tile_grids_and_bounds_match_computed_values() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());
    for zoom in [0u32, 1, 3, 5, 6, 9, 14] {
        let want = reference_grid(&docs, |p| reference_tile(p, zoom), None);
        let body = json!({"size": 0, "aggs": {"t": {"geotile_grid": {"field": "where", "precision": zoom, "size": 9},
            "aggs": {"c": {"geo_centroid": {"field": "where"}}}}}});
        let resp = search_logs(&catalog, &body);
        assert_eq!(
            buckets(&resp, "t"),
            want[..want.len().min(9)],
            "zoom {zoom}"
        );
    }
    // Bounds, inside the cluster and across the date line.
    for b in [[55.0, 0.0, 40.0, 20.0], [70.0, 100.0, -60.0, -120.0]] {
        for zoom in [2u32, 7] {
            let want = reference_grid(&docs, |p| reference_tile(p, zoom), Some(b));
            let bounds = json!({"top_left": {"lat": b[0], "lon": b[1]},
                "bottom_right": {"lat": b[2], "lon": b[3]}});
            let body = json!({"size": 0, "aggs": {
                "t": {"geotile_grid": {"field": "where", "precision": zoom, "bounds": bounds}},
                "h": {"geohash_grid": {"field": "where", "precision": 1, "bounds": bounds}}}});
            let resp = search_logs(&catalog, &body);
            assert_eq!(buckets(&resp, "t"), want, "{b:?} zoom {zoom}");
            assert!(!want.is_empty());
            let hashes = reference_grid(&docs, reference_geohash1, Some(b));
            assert_eq!(buckets(&resp, "h"), hashes, "{b:?}");
        }
    }
    // geo_bounds: the extreme latitudes, and longitudes wrapped when narrower.
    let points: Vec<Point> = docs.iter().flatten().copied().collect();
    let resp = search_logs(
        &catalog,
        &json!({"size": 0, "aggs": {"b": {"geo_bounds": {"field": "where"}},
            "u": {"geo_bounds": {"field": "where", "wrap_longitude": false}}}}),
    );
    let max = |f: fn(&Point) -> f64| points.iter().map(f).fold(f64::MIN, f64::max);
    let min = |f: fn(&Point) -> f64| points.iter().map(f).fold(f64::MAX, f64::min);
    let corners = |v: &Value| {
        let n = |p: &str, k: &str| v["bounds"][p][k].as_f64().unwrap();
        [
            n("top_left", "lat"),
            n("top_left", "lon"),
            n("bottom_right", "lat"),
            n("bottom_right", "lon"),
        ]
    };
    // Random points on both sides of the date line: unwrapped is narrower.
    let want = [max(|p| p.0), min(|p| p.1), min(|p| p.0), max(|p| p.1)];
    for got in [
        corners(&resp["aggregations"]["b"]),
        corners(&resp["aggregations"]["u"]),
    ] {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-7, "{got:?} vs {want:?}");
        }
    }
}
