//! geo_point end to end: a few hundred random points in every input form
//! (some documents with two points, some with none) over two shards, then
//! `geo_bounding_box`, `geo_centroid` and `geohash_grid` checked against
//! values computed here from the same points, with a geohash encoder
//! written differently from the engine's (integer cells, bits interleaved).

use std::collections::{BTreeMap, BTreeSet};

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

type Point = (f64, f64); // (lat, lon)

fn run(catalog: &Catalog, body: Value) -> Value {
    let indices = catalog.resolve("places").unwrap();
    search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap()
}

/// Geohash by integer cell numbers: `bits` bits of longitude and latitude interleaved.
fn reference_geohash((lat, lon): Point, precision: usize) -> String {
    let total = 5 * precision;
    let lon_bits = total.div_ceil(2);
    let lat_bits = total / 2;
    let cell = |v: f64, lo: f64, span: f64, bits: usize| -> u64 {
        let n = 1u64 << bits;
        (((v - lo) / span * n as f64).floor() as u64).min(n - 1)
    };
    let x = cell(lon, -180.0, 360.0, lon_bits);
    let y = cell(lat, -90.0, 180.0, lat_bits);
    let mut code = 0u64;
    for i in 0..total {
        // Even positions (from the most significant) are longitude bits.
        let bit = if i % 2 == 0 {
            x >> (lon_bits - 1 - i / 2) & 1
        } else {
            y >> (lat_bits - 1 - i / 2) & 1
        };
        code = code << 1 | bit;
    }
    let alphabet = b"0123456789bcdefghjkmnpqrstuvwxyz";
    (0..precision)
        .rev()
        .map(|k| char::from(alphabet[(code >> (5 * k) & 31) as usize]))
        .collect()
}

fn in_box(p: Point, top: f64, left: f64, bottom: f64, right: f64) -> bool {
    let lon_ok = if left <= right {
        left <= p.1 && p.1 <= right
    } else {
        p.1 >= left || p.1 <= right
    };
    bottom <= p.0 && p.0 <= top && lon_ok
}

fn encode(rng: &mut rand::rngs::SmallRng, (lat, lon): Point) -> Value {
    match rng.gen_range(0..4) {
        0 => json!({"lat": lat, "lon": lon}),
        1 => json!(format!("{lat},{lon}")),
        2 => json!([lon, lat]),
        _ => json!(format!("POINT ({lon} {lat})")),
    }
}

fn setup(tmp: &std::path::Path) -> (Catalog, BTreeMap<String, Vec<Point>>) {
    let catalog = Catalog::open(tmp).unwrap();
    let index = catalog
        .create_index(
            "places",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {
                    "dynamic_templates": [{"points": {"match": "*_location",
                        "match_mapping_type": "object", "mapping": {"type": "geo_point"}}}],
                    "properties": {"where": {"type": "geo_point"}, "n": {"type": "long"}}
                }
            }),
        )
        .unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(42);
    let mut docs = BTreeMap::new();
    for i in 0..400 {
        let id = format!("d{i}");
        let count = match i % 10 {
            0 => 0,
            1 => 2,
            _ => 1,
        };
        // Clustered points so some geohash cells hold many documents.
        let points: Vec<Point> = (0..count)
            .map(|_| {
                if rng.gen_bool(0.5) {
                    (rng.gen_range(40.0..50.0), rng.gen_range(-5.0..15.0))
                } else {
                    (rng.gen_range(-90.0..=90.0), rng.gen_range(-180.0..=180.0))
                }
            })
            .collect();
        let mut doc = json!({"n": i});
        match points.as_slice() {
            [] => {}
            [p] => doc["where"] = encode(&mut rng, *p),
            many => {
                let values: Vec<Value> = many.iter().map(|p| encode(&mut rng, *p)).collect();
                doc["where"] = Value::Array(values);
            }
        }
        index
            .index_document(Some(&id), doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
        docs.insert(id, points);
    }
    index.refresh().unwrap();
    (catalog, docs)
}

fn centroid<'a>(points: impl Iterator<Item = &'a Point>) -> (f64, f64, u64) {
    let (mut lat, mut lon, mut n) = (0.0, 0.0, 0u64);
    for p in points {
        lat += p.0;
        lon += p.1;
        n += 1;
    }
    (lat / n as f64, lon / n as f64, n)
}

/// Points are stored in Lucene's 32-bit steps (as Elasticsearch stores
/// them), so a centroid is within a step (8.4e-8 degrees) of the exact one.
fn assert_centroid(got: &Value, want: (f64, f64, u64)) {
    assert_eq!(got["count"], want.2, "{got}");
    let lat = got["location"]["lat"].as_f64().unwrap();
    let lon = got["location"]["lon"].as_f64().unwrap();
    assert!(
        (lat - want.0).abs() < 1e-7 && (lon - want.1).abs() < 1e-7,
        "{got} vs {want:?}"
    );
}

#[test]
fn geo_queries_and_aggregations_match_computed_values() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());

    // Bounding boxes, in each corner form, one across the date line.
    let boxes = [
        (
            json!({"top_left": {"lat": 50, "lon": -5}, "bottom_right": {"lat": 40, "lon": 15}}),
            (50.0, -5.0, 40.0, 15.0),
        ),
        (
            json!({"top_left": "45.5,0", "bottom_right": [10, 42.25]}),
            (45.5, 0.0, 42.25, 10.0),
        ),
        (
            json!({"top": 60, "left": 170, "bottom": -60, "right": -170}),
            (60.0, 170.0, -60.0, -170.0),
        ),
        (
            json!({"wkt": "BBOX (-100, 100, 30, -30)"}),
            (30.0, -100.0, -30.0, 100.0),
        ),
        (
            json!({"top_right": "POINT (50 80)", "bottom_left": {"lat": -10, "lon": -20}}),
            (80.0, -20.0, -10.0, 50.0),
        ),
        // The whole world: every document with a point.
        (
            json!({"top_left": {"lat": 90, "lon": -180}, "bottom_right": {"lat": -90, "lon": 180}}),
            (90.0, -180.0, -90.0, 180.0),
        ),
    ];
    for (spec, (top, left, bottom, right)) in boxes {
        let want: BTreeSet<&String> = docs
            .iter()
            .filter(|(_, ps)| ps.iter().any(|p| in_box(*p, top, left, bottom, right)))
            .map(|(id, _)| id)
            .collect();
        let resp = run(
            &catalog,
            json!({"size": 400, "query": {"bool": {"filter": {"geo_bounding_box": {"where": spec}}}}}),
        );
        let got: BTreeSet<String> = resp["hits"]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["_id"].as_str().unwrap().to_string())
            .collect();
        assert!(!want.is_empty());
        assert_eq!(got.iter().collect::<BTreeSet<_>>(), want, "{spec}");
    }

    // geo_centroid over every point, and over a filtered set.
    let resp = run(
        &catalog,
        json!({"size": 0, "aggs": {"c": {"geo_centroid": {"field": "where"}}}}),
    );
    assert_centroid(
        &resp["aggregations"]["c"],
        centroid(docs.values().flatten()),
    );
    let resp = run(
        &catalog,
        json!({"size": 0, "query": {"range": {"n": {"lt": 100}}},
               "aggs": {"c": {"geo_centroid": {"field": "where"}}}}),
    );
    let first: Vec<&Point> = docs
        .iter()
        .filter(|(id, _)| id[1..].parse::<u32>().unwrap() < 100)
        .flat_map(|(_, ps)| ps)
        .collect();
    assert_centroid(&resp["aggregations"]["c"], centroid(first.into_iter()));

    // geohash_grid at several precisions, with a centroid per bucket.
    for precision in [1usize, 2, 3, 5, 12] {
        let mut cells: BTreeMap<String, Vec<&Vec<Point>>> = BTreeMap::new();
        for ps in docs.values() {
            let keys: BTreeSet<String> = ps
                .iter()
                .map(|p| reference_geohash(*p, precision))
                .collect();
            for k in keys {
                cells.entry(k).or_default().push(ps);
            }
        }
        let mut want: Vec<(String, usize)> =
            cells.iter().map(|(k, v)| (k.clone(), v.len())).collect();
        // Ties by key, descending, as OpenSearch and Elasticsearch order them.
        want.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
        let resp = run(
            &catalog,
            json!({"size": 0, "aggs": {"g": {"geohash_grid": {"field": "where", "precision": precision, "size": 7},
                   "aggs": {"c": {"geo_centroid": {"field": "where"}}}}}}),
        );
        let buckets = resp["aggregations"]["g"]["buckets"].as_array().unwrap();
        assert_eq!(buckets.len(), want.len().min(7));
        for (bucket, (key, count)) in buckets.iter().zip(&want) {
            assert_eq!(
                (
                    bucket["key"].as_str().unwrap(),
                    bucket["doc_count"].as_u64().unwrap()
                ),
                (key.as_str(), *count as u64)
            );
            assert_centroid(&bucket["c"], centroid(cells[key].iter().copied().flatten()));
        }
    }
    // A dashboard's shape: a world-box `filter` around a grid and its
    // centroid, beside a centroid of the same field (its points read once
    // per document for all three).
    let world = json!({"geo_bounding_box": {"where": {"top_left": {"lat": 90, "lon": -180},
        "bottom_right": {"lat": -90, "lon": 180}}}});
    let grid = json!({"geohash_grid": {"field": "where", "precision": 2, "size": 10000},
        "aggs": {"c": {"geo_centroid": {"field": "where"}}}});
    let all = run(&catalog, json!({"size": 0, "aggs": {"g": grid}}));
    let resp = run(
        &catalog,
        json!({"size": 0, "aggs": {"f": {"filter": world, "aggs": {"g": grid,
            "c": {"geo_centroid": {"field": "where"}}}}}}),
    );
    let with_point = docs.values().filter(|ps| !ps.is_empty()).count();
    assert_eq!(resp["aggregations"]["f"]["doc_count"], with_point);
    assert_eq!(resp["aggregations"]["f"]["g"], all["aggregations"]["g"]);
    assert_centroid(
        &resp["aggregations"]["f"]["c"],
        centroid(docs.values().flatten()),
    );

    // Default precision 5 and the known hash of a point.
    assert_eq!(reference_geohash((57.64911, 10.40744), 11), "u4pruydqqvj");
}

#[test]
fn geo_mapping_errors_templates_and_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());
    let index = catalog.get("places").unwrap();
    // `_mapping` shows the field only; `_source` keeps the original.
    let mapping = index.mappings().to_json();
    assert_eq!(mapping["properties"]["where"], json!({"type": "geo_point"}));
    let got = index.get_document("d3").unwrap().unwrap();
    let source: Value = serde_json::from_slice(&got.source).unwrap();
    assert!(
        source["where"].is_object() || source["where"].is_string() || source["where"].is_array()
    );

    for bad in [
        json!({"where": {"lat": 91, "lon": 0}}),
        json!({"where": "1,2,3,4"}),
        json!({"where": [200, 0]}),
        json!({"where": true}),
    ] {
        let err = index
            .index_document(None, bad.to_string().as_bytes(), Precondition::None)
            .unwrap_err();
        assert_eq!(
            (err.es_type(), err.status()),
            ("document_parsing_exception", 400),
            "{bad}"
        );
    }
    index
        .update_mappings(
            &json!({"properties": {"loose": {"type": "geo_point", "ignore_malformed": true}}}),
        )
        .unwrap();
    index
        .index_document(
            Some("x1"),
            br#"{"loose": {"lat": 95, "lon": 0}}"#,
            Precondition::None,
        )
        .unwrap();
    // A dynamic template maps a new object to geo_point.
    index
        .index_document(
            Some("x2"),
            br#"{"home_location": {"lat": 10.5, "lon": 20.25}}"#,
            Precondition::None,
        )
        .unwrap();
    assert_eq!(
        index.mappings().to_json()["properties"]["home_location"]["type"],
        "geo_point"
    );
    index.refresh().unwrap();
    let resp = run(&catalog, json!({"query": {"ids": {"values": ["x1"]}}}));
    assert_eq!(resp["hits"]["total"]["value"], 1);
    let resp = run(
        &catalog,
        json!({"size": 0, "aggs": {"c": {"geo_centroid": {"field": "loose"}}, "h": {"geo_centroid": {"field": "home_location"}}}}),
    );
    assert_eq!(resp["aggregations"]["c"], json!({"count": 0}));
    assert_centroid(&resp["aggregations"]["h"], (10.5, 20.25, 1));

    // Query and aggregation errors.
    let indices = catalog.resolve("places").unwrap();
    for (body, ty) in [
        (
            json!({"query": {"geo_bounding_box": {"nope": {"top": 1, "left": 0, "bottom": 0, "right": 1}}}}),
            "query_shard_exception",
        ),
        (
            json!({"query": {"geo_bounding_box": {"n": {"top": 1, "left": 0, "bottom": 0, "right": 1}}}}),
            "query_shard_exception",
        ),
        (
            json!({"query": {"geo_bounding_box": {"where": {"top": 0, "left": 0, "bottom": 1, "right": 1}}}}),
            "illegal_argument_exception",
        ),
        (
            json!({"query": {"geo_bounding_box": {"where": {"top": 95, "left": 0, "bottom": 1, "right": 1}}}}),
            "parsing_exception",
        ),
        (
            json!({"query": {"geo_bounding_box": {"where": {"top_left": [0, 1]}}}}),
            "parsing_exception",
        ),
        (
            json!({"aggs": {"g": {"geohash_grid": {"field": "where", "precision": 13}}}}),
            "illegal_argument_exception",
        ),
        (
            json!({"aggs": {"g": {"geo_centroid": {"field": "n"}}}}),
            "illegal_argument_exception",
        ),
    ] {
        // A query's errors come from the request's parse, the rest from the search.
        let err = SearchRequest::parse(&body)
            .and_then(|req| search(&indices, &req))
            .unwrap_err();
        assert_eq!((err.es_type(), err.status()), (ty, 400), "{body}");
    }
    let resp = run(
        &catalog,
        json!({"query": {"geo_bounding_box": {"ignore_unmapped": true, "nope": {"top": 1, "left": 0, "bottom": 0, "right": 1}}}}),
    );
    assert_eq!(resp["hits"]["total"]["value"], 0);
    drop(indices);
    drop(index);
    drop(catalog);

    // After a restart (translog replay) the points are back.
    let catalog = Catalog::open(tmp.path()).unwrap();
    catalog.get("places").unwrap().refresh().unwrap();
    let resp = run(
        &catalog,
        json!({"size": 0, "aggs": {"c": {"geo_centroid": {"field": "where"}}}}),
    );
    assert_centroid(
        &resp["aggregations"]["c"],
        centroid(docs.values().flatten()),
    );
}
