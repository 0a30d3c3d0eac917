//! Every aggregation type, each checked against the value computed here
//! from the same documents.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::data::*;

/// Asserts `got` (a JSON number) is within `tolerance` of `want`.
fn near(got: &Value, want: f64, tolerance: f64, what: &str) {
    let got = got
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {got}"));
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, want {want} (± {tolerance})"
    );
}

/// `key -> doc_count` of an aggregation's bucket list.
fn counts(agg: &Value) -> BTreeMap<String, u64> {
    agg["buckets"]
        .as_array()
        .unwrap_or_else(|| panic!("no bucket list: {agg}"))
        .iter()
        .filter(|b| b["doc_count"].as_u64().unwrap() > 0)
        .map(|b| {
            let key = match &b["key"] {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.as_f64().unwrap().to_string(),
                other => panic!("bucket key {other}"),
            };
            (key, b["doc_count"].as_u64().unwrap())
        })
        .collect()
}

fn tally<K: ToString>(keys: impl Iterator<Item = K>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for key in keys {
        *out.entry(key.to_string()).or_insert(0) += 1;
    }
    out
}

/// Standard geohash of a point at `precision` characters.
fn geohash(lat: f64, lon: f64, precision: usize) -> String {
    const BASE32: &[u8] = b"0123456789bcdefghjkmnpqrstuvwxyz";
    let (mut lat_range, mut lon_range) = ((-90.0, 90.0), (-180.0, 180.0));
    let mut hash = String::new();
    let (mut bits, mut value, mut even) = (0, 0usize, true);
    while hash.len() < precision {
        let (range, x): (&mut (f64, f64), f64) = if even {
            (&mut lon_range, lon)
        } else {
            (&mut lat_range, lat)
        };
        let mid = (range.0 + range.1) / 2.0;
        value <<= 1;
        if x >= mid {
            value |= 1;
            range.0 = mid;
        } else {
            range.1 = mid;
        }
        even = !even;
        bits += 1;
        if bits == 5 {
            hash.push(BASE32[value] as char);
            (bits, value) = (0, 0);
        }
    }
    hash
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bucket_aggregations_match_computed_counts() {
    let (server, client) = loaded().await;
    let docs = docs();
    let reply = search(
        &client,
        json!({"size": 0, "aggs": {
            "methods": {"terms": {"field": "method", "size": 10},
                        "aggs": {"avg_bytes": {"avg": {"field": "bytes"}},
                                 "latest": {"top_hits": {"size": 1,
                                     "sort": [{"@timestamp": "desc"}]}}}},
            "users_by_key": {"terms": {"field": "user", "size": 3,
                                       "order": {"_key": "desc"}, "min_doc_count": 15}},
            "six_hours": {"date_histogram": {"field": "@timestamp", "fixed_interval": "6h"}},
            "days_east": {"date_histogram": {"field": "@timestamp",
                                             "calendar_interval": "day",
                                             "time_zone": "+02:00"}},
            "bytes_hist": {"histogram": {"field": "bytes", "interval": 250}},
            "bytes_ranges": {"range": {"field": "bytes", "ranges": [
                {"to": 250}, {"from": 250, "to": 750}, {"from": 750}]}},
            "first_day": {"date_range": {"field": "@timestamp", "ranges": [
                {"from": BASE_MS, "to": BASE_MS + DAY_MS}]}},
            "errors": {"filter": {"term": {"status": 500}},
                       "aggs": {"max_bytes": {"max": {"field": "bytes"}}}},
            "by_status": {"filters": {"filters": {
                "missing": {"term": {"status": 404}},
                "ok": {"term": {"status": 200}}}}},
            "cells": {"geohash_grid": {"field": "location", "precision": 3}},
        }}),
    )
    .await;
    let aggs = &reply["aggregations"];

    let methods = &aggs["methods"]["buckets"];
    let want = tally(docs.iter().map(|d| d.method));
    assert_eq!(counts(&aggs["methods"]), want);
    let order: Vec<u64> = methods
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] >= w[1]), "{order:?}");
    for bucket in methods.as_array().unwrap() {
        let method = bucket["key"].as_str().unwrap();
        let mine: Vec<&Doc> = docs.iter().filter(|d| d.method == method).collect();
        let avg = mine.iter().map(|d| d.bytes as f64).sum::<f64>() / mine.len() as f64;
        near(&bucket["avg_bytes"]["value"], avg, 1e-9, "avg per method");
        let latest = mine.iter().max_by_key(|d| d.ts).unwrap();
        let top = &bucket["latest"]["hits"]["hits"][0];
        assert_eq!(top["_id"], latest.id.to_string(), "latest {method}");
    }

    // min_doc_count 15 leaves the users with 15 documents or more; by key, descending.
    let users = tally(docs.iter().map(|d| d.user.clone()));
    let mut want: Vec<&String> = users
        .iter()
        .filter(|(_, n)| **n >= 15)
        .map(|(u, _)| u)
        .collect();
    want.sort_by(|a, b| b.cmp(a));
    want.truncate(3);
    let got: Vec<&str> = aggs["users_by_key"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["key"].as_str().unwrap())
        .collect();
    assert_eq!(got, want);

    let six = 6 * HOUR_MS;
    let want = tally(docs.iter().map(|d| (d.ts.div_euclid(six) * six) as f64));
    assert_eq!(counts(&aggs["six_hours"]), want);
    let east = 2 * HOUR_MS;
    let want = tally(
        docs.iter()
            .map(|d| ((d.ts + east).div_euclid(DAY_MS) * DAY_MS - east) as f64),
    );
    assert_eq!(counts(&aggs["days_east"]), want);

    let want = tally(docs.iter().map(|d| (d.bytes / 250 * 250) as f64));
    assert_eq!(counts(&aggs["bytes_hist"]), want);

    let ranges: Vec<u64> = aggs["bytes_ranges"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .collect();
    let count = |f: &dyn Fn(&Doc) -> bool| docs.iter().filter(|d| f(d)).count() as u64;
    assert_eq!(
        ranges,
        [
            count(&|d| d.bytes < 250),
            count(&|d| (250..750).contains(&d.bytes)),
            count(&|d| d.bytes >= 750),
        ]
    );
    assert_eq!(
        aggs["first_day"]["buckets"][0]["doc_count"],
        count(&|d| d.ts < BASE_MS + DAY_MS)
    );

    let errors: Vec<&Doc> = docs.iter().filter(|d| d.status == 500).collect();
    assert_eq!(aggs["errors"]["doc_count"], errors.len());
    let max = errors.iter().map(|d| d.bytes).max().unwrap() as f64;
    near(
        &aggs["errors"]["max_bytes"]["value"],
        max,
        0.0,
        "max per filter",
    );
    let by_status = &aggs["by_status"]["buckets"];
    assert_eq!(
        by_status["missing"]["doc_count"],
        count(&|d| d.status == 404)
    );
    assert_eq!(by_status["ok"]["doc_count"], count(&|d| d.status == 200));

    let want = tally(docs.iter().map(|d| geohash(d.place.0, d.place.1, 3)));
    assert_eq!(counts(&aggs["cells"]), want);
    server.stop(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metric_aggregations_match_computed_values() {
    let (server, client) = loaded().await;
    let docs = docs();
    let reply = search(
        &client,
        json!({"size": 0, "aggs": {
            "users": {"cardinality": {"field": "user"}},
            "min": {"min": {"field": "bytes"}},
            "max": {"max": {"field": "bytes"}},
            "avg": {"avg": {"field": "bytes"}},
            "sum": {"sum": {"field": "bytes"}},
            "n": {"value_count": {"field": "referrer"}},
            "stats": {"stats": {"field": "price"}},
            "extended": {"extended_stats": {"field": "price"}},
            "pct": {"percentiles": {"field": "bytes", "percents": [50, 95]}},
            "centre": {"geo_centroid": {"field": "location"}},
        }}),
    )
    .await;
    let aggs = &reply["aggregations"];
    let bytes: Vec<f64> = docs.iter().map(|d| d.bytes as f64).collect();
    let n = bytes.len() as f64;
    assert_eq!(aggs["users"]["value"], 17);
    near(&aggs["min"]["value"], 0.0, 0.0, "min");
    let max = bytes.iter().cloned().fold(f64::MIN, f64::max);
    near(&aggs["max"]["value"], max, 0.0, "max");
    near(&aggs["sum"]["value"], bytes.iter().sum(), 1e-6, "sum");
    near(
        &aggs["avg"]["value"],
        bytes.iter().sum::<f64>() / n,
        1e-9,
        "avg",
    );
    assert_eq!(
        aggs["n"]["value"],
        docs.iter().filter(|d| d.has_referrer).count()
    );

    let prices: Vec<f64> = docs.iter().map(|d| d.price).collect();
    let mean = prices.iter().sum::<f64>() / n;
    let variance = prices.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / n;
    for name in ["stats", "extended"] {
        assert_eq!(aggs[name]["count"], docs.len());
        near(&aggs[name]["min"], 0.0, 0.0, "price min");
        near(&aggs[name]["max"], 12.25, 0.0, "price max");
        near(&aggs[name]["avg"], mean, 1e-9, "price avg");
        near(&aggs[name]["sum"], prices.iter().sum(), 1e-6, "price sum");
    }
    near(&aggs["extended"]["variance"], variance, 1e-6, "variance");
    near(
        &aggs["extended"]["std_deviation"],
        variance.sqrt(),
        1e-6,
        "std_deviation",
    );

    // Percentiles are estimated (a sketch, as Elasticsearch's are): within
    // 2% of the value range of the exact rank.
    let mut sorted = bytes.clone();
    sorted.sort_by(f64::total_cmp);
    for (key, p) in [("50.0", 0.50), ("95.0", 0.95)] {
        let exact = sorted[((p * n).ceil() as usize).saturating_sub(1)];
        near(&aggs["pct"]["values"][key], exact, 20.0, "percentile");
    }

    let lat = docs.iter().map(|d| d.place.0).sum::<f64>() / n;
    let lon = docs.iter().map(|d| d.place.1).sum::<f64>() / n;
    let centre = &aggs["centre"];
    assert_eq!(centre["count"], docs.len());
    near(&centre["location"]["lat"], lat, 1e-5, "centroid lat");
    near(&centre["location"]["lon"], lon, 1e-5, "centroid lon");
    server.stop(false).await;
}
