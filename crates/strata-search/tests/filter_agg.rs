//! The top-level `filter` aggregation: `doc_count` and sub-aggregations
//! (terms, avg, geohash_grid with geo_centroid, a nested filter) checked
//! against values computed here from the same documents, under a search
//! query; `filter` and `filters` below `terms`; malformed ones are 400s.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

use crate::common::key_counts;

struct Doc {
    status: i64,
    method: &'static str,
    bytes: f64,
    minute: i64,
    point: (f64, f64),
}

const T0: i64 = 1_700_000_000_000;

fn docs() -> Vec<Doc> {
    (0..60i64)
        .map(|i| Doc {
            status: [200, 200, 404, 500, 200][(i % 5) as usize],
            method: ["GET", "POST", "PUT"][(i % 3) as usize],
            bytes: (i * 7 % 13) as f64 * 10.0,
            minute: i,
            point: (
                -60.0 + (i * 11 % 120) as f64,
                -170.0 + (i * 37 % 340) as f64,
            ),
        })
        .collect()
}

fn setup(tmp: &std::path::Path) -> Catalog {
    let catalog = Catalog::open(tmp).unwrap();
    let index = catalog
        .create_index(
            "logs",
            &json!({
                "settings": {"number_of_shards": 3, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "status": {"type": "integer"},
                    "method": {"type": "keyword"},
                    "bytes": {"type": "double"},
                    "@timestamp": {"type": "date"},
                    "location": {"type": "geo_point"}
                }}
            }),
        )
        .unwrap();
    for (i, d) in docs().iter().enumerate() {
        let doc = json!({
            "status": d.status, "method": d.method, "bytes": d.bytes,
            "@timestamp": T0 + d.minute * 60_000,
            "location": {"lat": d.point.0, "lon": d.point.1}
        });
        index
            .index_document(
                Some(&format!("d{i}")),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
    }
    index.refresh().unwrap();
    catalog
}

fn run(catalog: &Catalog, body: Value) -> strata_search::Result<Value> {
    let indices = catalog.resolve("logs").unwrap();
    search(&indices, &SearchRequest::parse(&body)?)
}

#[test]
fn filter_aggregation_matches_computed_values() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path());
    let query =
        json!({"range": {"@timestamp": {"gte": T0 + 10 * 60_000, "format": "epoch_millis"}}});
    let body = json!({
        "size": 0,
        "query": query,
        "aggs": {
            "ok": {
                "filter": {"term": {"status": 200}},
                "aggs": {
                    "methods": {"terms": {"field": "method"}},
                    "avg_bytes": {"avg": {"field": "bytes"}},
                    "gets": {"filter": {"term": {"method": "GET"}}}
                }
            },
            "north": {
                "filter": {"geo_bounding_box": {"location": {
                    "top_left": {"lat": 90, "lon": -180},
                    "bottom_right": {"lat": 0, "lon": 180}
                }}},
                "aggs": {"grid": {
                    "geohash_grid": {"field": "location", "precision": 1},
                    "aggs": {"c": {"geo_centroid": {"field": "location"}}}
                }}
            },
            "all_methods": {"terms": {"field": "method"}}
        }
    });
    let resp = run(&catalog, body).unwrap();
    let aggs = &resp["aggregations"];
    let in_query: Vec<Doc> = docs().into_iter().filter(|d| d.minute >= 10).collect();
    assert_eq!(resp["hits"]["total"]["value"], json!(in_query.len()));

    let ok: Vec<&Doc> = in_query.iter().filter(|d| d.status == 200).collect();
    assert_eq!(aggs["ok"]["doc_count"], json!(ok.len()), "{aggs}");
    let mut by_method = BTreeMap::new();
    for d in &ok {
        *by_method.entry(d.method.to_string()).or_insert(0u64) += 1;
    }
    let got: BTreeMap<String, u64> = key_counts(&aggs["ok"]["methods"]).into_iter().collect();
    assert_eq!(got, by_method);
    let avg = ok.iter().map(|d| d.bytes).sum::<f64>() / ok.len() as f64;
    let got_avg = aggs["ok"]["avg_bytes"]["value"].as_f64().unwrap();
    assert!((got_avg - avg).abs() < 1e-9, "{got_avg} vs {avg}");
    let gets = ok.iter().filter(|d| d.method == "GET").count();
    assert_eq!(aggs["ok"]["gets"], json!({"doc_count": gets}));

    let north: Vec<&Doc> = in_query.iter().filter(|d| d.point.0 >= 0.0).collect();
    assert_eq!(aggs["north"]["doc_count"], json!(north.len()), "{aggs}");
    let buckets = aggs["north"]["grid"]["buckets"].as_array().unwrap();
    let in_buckets: u64 = buckets
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .sum();
    assert_eq!(in_buckets, north.len() as u64);
    let centroid_counts: u64 = buckets
        .iter()
        .map(|b| b["c"]["count"].as_u64().unwrap())
        .sum();
    assert_eq!(centroid_counts, north.len() as u64);

    let all: u64 = aggs["all_methods"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .sum();
    assert_eq!(all, in_query.len() as u64);

    // Only filter aggregations: the response still has them.
    let only = run(
        &catalog,
        json!({"size": 0, "aggs": {"e": {"filter": {"term": {"status": 404}}}}}),
    )
    .unwrap();
    let not_found = docs().iter().filter(|d| d.status == 404).count();
    assert_eq!(only["aggregations"], json!({"e": {"doc_count": not_found}}));
}

#[test]
fn filter_and_filters_below_other_aggregations() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path());
    let resp = run(
        &catalog,
        json!({"size": 0, "aggs": {"m": {"terms": {"field": "method"}, "aggs": {
            "ok": {"filter": {"term": {"status": 200}},
                   "aggs": {"b": {"sum": {"field": "bytes"}}}},
            "codes": {"filters": {"filters": {
                "bad": {"range": {"status": {"gte": 400}}},
                "gets": {"match": {"method": "GET"}}
            }}},
            "listed": {"filters": {"filters": [{"term": {"status": 404}}]}}
        }}}}),
    )
    .unwrap();
    let all = docs();
    for bucket in resp["aggregations"]["m"]["buckets"].as_array().unwrap() {
        let method = bucket["key"].as_str().unwrap();
        let mine: Vec<&Doc> = all.iter().filter(|d| d.method == method).collect();
        let ok: Vec<&&Doc> = mine.iter().filter(|d| d.status == 200).collect();
        assert_eq!(bucket["ok"]["doc_count"], json!(ok.len()), "{bucket}");
        let sum: f64 = ok.iter().map(|d| d.bytes).sum();
        assert_eq!(bucket["ok"]["b"]["value"].as_f64().unwrap(), sum);
        let bad = mine.iter().filter(|d| d.status >= 400).count();
        let gets = if method == "GET" { mine.len() } else { 0 };
        assert_eq!(
            bucket["codes"]["buckets"],
            json!({"bad": {"doc_count": bad}, "gets": {"doc_count": gets}})
        );
        let nf = mine.iter().filter(|d| d.status == 404).count();
        assert_eq!(bucket["listed"]["buckets"], json!([{"doc_count": nf}]));
    }
}

/// Filters below a bucket are evaluated narrowed by the search's query
/// (a time window and a `must_not`): the counts are those of the query's
/// documents in each bucket, as without the narrowing.
#[test]
fn filters_below_a_histogram_under_a_query() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path());
    let query = json!({"bool": {
        "filter": [{"range": {"@timestamp": {"gte": T0 + 10 * 60_000, "lt": T0 + 40 * 60_000}}}],
        "must_not": [{"term": {"method": "PUT"}}]
    }});
    let resp = run(
        &catalog,
        json!({"size": 0, "query": query, "aggs": {"t": {
            "date_histogram": {"field": "@timestamp", "fixed_interval": "10m"},
            "aggs": {
                "codes": {"filters": {"filters": {
                    "ok": {"range": {"status": {"gte": 200, "lt": 300}}},
                    "bad": {"query_string": {"query": "status:[400 TO 600]"}}
                }}},
                "nf": {"filter": {"term": {"status": 404}}}
            }
        }}}),
    )
    .unwrap();
    let all = docs();
    let at = |d: &Doc| T0 + d.minute * 60_000;
    let in_query: Vec<&Doc> = all
        .iter()
        .filter(|d| d.minute >= 10 && d.minute < 40 && d.method != "PUT")
        .collect();
    let buckets = resp["aggregations"]["t"]["buckets"].as_array().unwrap();
    let counted: u64 = buckets
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, in_query.len() as u64, "{resp}");
    for bucket in buckets {
        let key = bucket["key"].as_i64().unwrap();
        let mine: Vec<&&Doc> = in_query
            .iter()
            .filter(|d| at(d) >= key && at(d) < key + 600_000)
            .collect();
        assert_eq!(bucket["doc_count"], json!(mine.len()));
        let ok = mine
            .iter()
            .filter(|d| (200..300).contains(&d.status))
            .count();
        let bad = mine.iter().filter(|d| d.status >= 400).count();
        let nf = mine.iter().filter(|d| d.status == 404).count();
        assert_eq!(
            bucket["codes"]["buckets"],
            json!({"bad": {"doc_count": bad}, "ok": {"doc_count": ok}}),
            "{bucket}"
        );
        assert_eq!(bucket["nf"]["doc_count"], json!(nf), "{bucket}");
    }
}

#[test]
fn unsupported_filter_forms_are_400() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path());
    for body in [
        json!({"aggs": {"t": {"terms": {"field": "method"},
            "aggs": {"f": {"filter": {"no_such_query": {}}}}}}}),
        json!({"aggs": {"t": {"terms": {"field": "method"},
            "aggs": {"f": {"filters": {"filters": {"a": {"match_all": {}}}, "other_bucket": true}}}}}}),
        json!({"aggs": {"f": {"filter": {}}}}),
        json!({"aggs": {"f": {"filter": {"no_such_query": {}}}}}),
        json!({"aggs": {"f": {"filter": {"match_all": {}}, "terms": {"field": "method"}}}}),
    ] {
        let err = run(&catalog, body.clone()).unwrap_err();
        assert_eq!(err.status(), 400, "{body}: {err}");
    }
}
