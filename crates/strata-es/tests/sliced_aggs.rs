//! Aggregations of a sliced scroll or point in time count only the
//! slice's documents (and only those of the point in time), whichever
//! path computes them: tantivy's collectors, the scanned aggregations
//! (`cardinality`, `composite`, `weighted_avg`), `top_hits`, and a
//! calendar `date_histogram` (whose bounds pass runs over the slice too).

use crate::support;

use std::collections::BTreeSet;

use serde_json::{json, Value};
use support::TestServer;

const DOCS: usize = 200;

/// Index `sa` (3 shards): `k` = "k-i" (unique), `n` = i, `day` = day i % 50
/// of 2026.
async fn load(s: &TestServer) {
    let r = s
        .json(
            "PUT",
            "/sa",
            Some(json!({
                "settings": {"number_of_shards": 3},
                "mappings": {"properties": {"k": {"type": "keyword"}, "n": {"type": "long"},
                    "one": {"type": "long"}, "day": {"type": "date"}}}
            })),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let mut body = String::new();
    for i in 0..DOCS {
        body.push_str(&json!({"index": {"_id": format!("doc-{i}")}}).to_string());
        body.push('\n');
        let day = 1_767_225_600_000i64 + (i % 50) as i64 * 86_400_000;
        body.push_str(&json!({"k": format!("k-{i}"), "n": i, "one": 1, "day": day}).to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send("POST", "/sa/_bulk?refresh=true", &nd, Some(body.as_bytes()))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false);
}

fn aggs() -> Value {
    json!({
        "distinct": {"cardinality": {"field": "k"}},
        "keys": {"composite": {"size": 1000, "sources": [{"k": {"terms": {"field": "k"}}}]}},
        "mean": {"weighted_avg": {"value": {"field": "n"}, "weight": {"field": "one"}}},
        "count": {"value_count": {"field": "k"}},
        "sum": {"sum": {"field": "n"}},
        "top": {"top_hits": {"size": 1}},
        "days": {"date_histogram": {"field": "day", "calendar_interval": "week",
            "time_zone": "Europe/London", "min_doc_count": 0}}
    })
}

/// Checks one slice's aggregations against its hits (all on one page);
/// returns its `k` values.
fn check_slice(reply: &Value) -> Vec<String> {
    let hits = reply["hits"]["hits"].as_array().unwrap();
    let total = reply["hits"]["total"]["value"].as_u64().unwrap();
    assert_eq!(hits.len() as u64, total, "one page holds the slice");
    let ns: Vec<u64> = hits
        .iter()
        .map(|h| h["_source"]["n"].as_u64().unwrap())
        .collect();
    let a = &reply["aggregations"];
    assert_eq!(a["distinct"]["value"], total, "{a}");
    assert_eq!(a["count"]["value"], total, "{a}");
    assert_eq!(
        a["sum"]["value"],
        json!(ns.iter().sum::<u64>() as f64),
        "{a}"
    );
    assert_eq!(a["top"]["hits"]["total"]["value"], total, "{a}");
    let mean = ns.iter().sum::<u64>() as f64 / ns.len() as f64;
    assert!(
        (a["mean"]["value"].as_f64().unwrap() - mean).abs() < 1e-9,
        "{a}"
    );
    let weeks: u64 = a["days"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .sum();
    assert_eq!(weeks, total, "{a}");
    // The histogram spans the slice's own dates: no empty edge bucket.
    let buckets = a["days"]["buckets"].as_array().unwrap();
    assert_ne!(buckets.first().unwrap()["doc_count"], 0, "{a}");
    assert_ne!(buckets.last().unwrap()["doc_count"], 0, "{a}");
    let keys: Vec<String> = a["keys"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["key"]["k"].as_str().unwrap().to_string())
        .collect();
    let mut hit_keys: Vec<String> = hits
        .iter()
        .map(|h| h["_source"]["k"].as_str().unwrap().to_string())
        .collect();
    hit_keys.sort();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(
        sorted, hit_keys,
        "the composite buckets are the slice's documents"
    );
    keys
}

/// The slices' keys partition all `DOCS` keys.
fn assert_partition(slices: &[Vec<String>]) {
    let mut seen = BTreeSet::new();
    for keys in slices {
        assert!(!keys.is_empty());
        for k in keys {
            assert!(seen.insert(k.clone()), "{k} in two slices");
        }
    }
    assert_eq!(seen.len(), DOCS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sliced_scroll_aggregations_count_only_the_slice() {
    let s = TestServer::start(8 << 20).await;
    load(&s).await;
    for max in [2u32, 3] {
        let mut slices = Vec::new();
        for id in 0..max {
            let body = json!({"size": DOCS, "slice": {"id": id, "max": max}, "aggs": aggs()});
            let r = s.json("POST", "/sa/_search?scroll=1m", Some(body)).await;
            assert_eq!(r.status, 200, "{}", r.text());
            slices.push(check_slice(&r.json()));
        }
        assert_partition(&slices);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sliced_point_in_time_aggregations_count_only_the_slice_of_the_snapshot() {
    let s = TestServer::start(8 << 20).await;
    load(&s).await;
    let r = s.json("POST", "/sa/_pit?keep_alive=1m", None).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let pit = r.json()["id"].as_str().unwrap().to_string();
    // Indexed after the point in time: in no slice, in no aggregation.
    let late = json!({"k": "late", "n": 7, "one": 1, "day": 1_767_225_600_000i64});
    let r = s
        .json("PUT", "/sa/_doc/late?refresh=true", Some(late))
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let mut slices = Vec::new();
    for id in 0..4 {
        let body = json!({"size": DOCS, "pit": {"id": pit}, "aggs": aggs(),
            "slice": {"field": "n", "id": id, "max": 4}});
        let r = s.json("POST", "/_search", Some(body)).await;
        assert_eq!(r.status, 200, "{}", r.text());
        slices.push(check_slice(&r.json()));
    }
    assert_partition(&slices);
}
