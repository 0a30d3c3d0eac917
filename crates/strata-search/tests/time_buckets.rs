//! Fixed-interval `date_histogram`s with `sum`/`min`/`max`/`avg`/
//! `value_count` and `filters` children, which Strata computes with its
//! own collector (`search::time_buckets`), checked two ways over segments
//! of every shape (time-ordered, shuffled, documents without a date, with
//! two dates, without or with two metric values, deleted documents, and
//! segments where dates and one metric are dense, read a block at a time):
//!
//! - against a model computed here from the documents indexed;
//! - against the same request with `hard_bounds` around all the data,
//!   which tantivy's histogram computes (identical JSON expected).

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{Catalog, Precondition, SearchIndex};

use crate::common;

const T0: i64 = 1_700_000_000_000;
const HOUR: i64 = 3_600_000;

struct Doc {
    id: String,
    dates: Vec<i64>,
    code: i64,
    bytes: Vec<i64>,
    /// One value in every document: a dense column.
    size: i64,
}

fn create(tmp: &std::path::Path) -> (Catalog, Arc<SearchIndex>) {
    let properties = json!({
        "@timestamp": {"type": "date"},
        "code": {"type": "long"},
        "bytes": {"type": "long"},
        "size": {"type": "long"}
    });
    common::logs_index(tmp, 2, properties)
}

fn setup(tmp: &std::path::Path) -> (Catalog, Vec<Doc>) {
    let (catalog, index) = create(tmp);
    let mut rng = StdRng::seed_from_u64(17);
    let mut docs = Vec::new();
    let mut t = T0;
    for batch in 0..5 {
        let mut segment: Vec<Doc> = (0..800)
            .map(|i| {
                t += rng.gen_range(0..60);
                let dates = match batch {
                    2 if i % 5 == 0 => Vec::new(),
                    3 if i % 4 == 0 => vec![t, t + rng.gen_range(0..20_000)],
                    _ => vec![t],
                };
                let bytes = match i % 9 {
                    0 => Vec::new(),
                    1 => vec![rng.gen_range(0..5_000), rng.gen_range(-100..100)],
                    _ => vec![rng.gen_range(0..100_000)],
                };
                Doc {
                    id: format!("{batch}-{i}"),
                    dates,
                    code: *[200, 200, 200, 204, 301, 404, 404, 500, 503]
                        .choose(&mut rng)
                        .unwrap(),
                    bytes,
                    size: rng.gen_range(-1_000..1_000_000),
                }
            })
            .collect();
        if batch == 1 {
            segment.shuffle(&mut rng);
        }
        for doc in &segment {
            let mut body = json!({ "code": doc.code, "size": doc.size });
            match doc.dates.as_slice() {
                [] => {}
                [one] => body["@timestamp"] = json!(one),
                many => body["@timestamp"] = json!(many),
            }
            match doc.bytes.as_slice() {
                [] => {}
                [one] => body["bytes"] = json!(one),
                many => body["bytes"] = json!(many),
            }
            index
                .index_document(
                    Some(&doc.id),
                    body.to_string().as_bytes(),
                    Precondition::None,
                )
                .unwrap();
        }
        index.refresh().unwrap();
        docs.extend(segment);
    }
    // Deleted documents are counted nowhere. Only two batches have any:
    // segments without deletes are collected a block at a time.
    let deleted =
        |d: &Doc| d.id.ends_with('7') && (d.id.starts_with("0-") || d.id.starts_with("3-"));
    for doc in docs.iter().filter(|d| deleted(d)) {
        index.delete_document(&doc.id, Precondition::None).unwrap();
    }
    index.refresh().unwrap();
    docs.retain(|d| !deleted(d));
    (catalog, docs)
}

/// Per bucket start: documents, 4xx-5xx documents, the `bytes` values,
/// the sum of `size` and documents with a `bytes` value of 50,000 or more.
type Model = BTreeMap<i64, (u64, u64, Vec<i64>, i64, u64)>;

/// Buckets of `interval_ms` starting on local (UTC+1) boundaries, over the
/// documents dated within `[low, high]`.
fn model(docs: &[Doc], interval_ms: i64, low: i64, high: i64) -> Model {
    let mut out = Model::new();
    for doc in docs {
        if !doc.dates.iter().any(|d| (low..=high).contains(d)) {
            continue;
        }
        let mut starts: Vec<i64> = doc
            .dates
            .iter()
            .map(|d| (d + HOUR).div_euclid(interval_ms) * interval_ms - HOUR)
            .collect();
        starts.sort_unstable();
        starts.dedup();
        for start in starts {
            let entry = out.entry(start).or_default();
            entry.0 += 1;
            entry.1 += u64::from((400..=599).contains(&doc.code));
            entry.2.extend(&doc.bytes);
            entry.3 += doc.size;
            entry.4 += u64::from(doc.bytes.iter().any(|&b| b >= 50_000));
        }
    }
    out
}

fn request(interval: &str, min_doc_count: u64, low: i64, high: i64) -> Value {
    json!({
        "size": 0,
        "query": {"range": {"@timestamp": {"gte": low, "lte": high}}},
        "aggs": {"h": {
            "date_histogram": {"field": "@timestamp", "fixed_interval": interval,
                "time_zone": "+01:00", "min_doc_count": min_doc_count},
            "aggs": {
                "sum": {"sum": {"field": "bytes"}},
                "min": {"min": {"field": "bytes"}},
                "max": {"max": {"field": "bytes"}},
                "avg": {"avg": {"field": "bytes"}},
                "n": {"value_count": {"field": "bytes"}},
                "size": {"sum": {"field": "size"}},
                "classes": {"filters": {"filters": {
                    "errors": {"query_string": {"query": "code:[400 TO 599]"}},
                    "ok": {"range": {"code": {"lt": 400}}},
                    "big": {"range": {"bytes": {"gte": 50000}}},
                    "mid": {"query_string": {"query": "code:{204 TO 404]", "analyze_wildcard": true}}
                }}},
                "notfound": {"filter": {"term": {"code": 404}}}
            }
        }}
    })
}

#[test]
fn fused_histograms_match_the_model_and_tantivy() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());
    let last = docs
        .iter()
        .flat_map(|d| d.dates.iter().copied())
        .max()
        .unwrap();
    let cases = [
        ("7s", 1, T0, last),
        ("7s", 0, T0 + 5_000, T0 + 60_000),
        ("1m", 1, T0 + 30_000, last - 30_000),
        ("1ms", 1, T0 + 1_000, T0 + 3_000),
        ("1h", 0, T0, last),
    ];
    for (interval, min_doc_count, low, high) in cases {
        let ms = match interval {
            "7s" => 7_000,
            "1m" => 60_000,
            "1ms" => 1,
            _ => HOUR,
        };
        let body = request(interval, min_doc_count, low, high);
        let native = common::search_logs(&catalog, &body);
        let buckets = native["aggregations"]["h"]["buckets"].as_array().unwrap();
        let expected = model(&docs, ms, low, high);
        let seen: BTreeMap<i64, &Value> = buckets
            .iter()
            .map(|b| (b["key"].as_i64().unwrap(), b))
            .collect();
        let nonempty: Vec<i64> = seen
            .iter()
            .filter(|(_, b)| b["doc_count"].as_u64() > Some(0))
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(
            nonempty,
            expected.keys().copied().collect::<Vec<_>>(),
            "{body}"
        );
        if min_doc_count == 0 {
            // Gaps filled: every step between the first and last bucket.
            let keys: Vec<i64> = seen.keys().copied().collect();
            assert!(keys.windows(2).all(|w| w[1] - w[0] == ms), "{body}");
        }
        for (start, (n, errors, bytes, size, big)) in &expected {
            let b = seen[start];
            assert_eq!(b["doc_count"], json!(n), "{start} {body}");
            let classes = &b["classes"]["buckets"];
            assert_eq!(classes["errors"]["doc_count"], json!(errors), "{start}");
            assert_eq!(classes["ok"]["doc_count"], json!(n - errors), "{start}");
            // A range over a column without one value per document: the
            // query's scorer.
            assert_eq!(classes["big"]["doc_count"], json!(big), "{start}");
            let sum: i64 = bytes.iter().sum();
            assert_eq!(b["sum"]["value"].as_f64(), Some(sum as f64), "{start}");
            assert_eq!(b["n"]["value"].as_f64(), Some(bytes.len() as f64));
            assert_eq!(b["size"]["value"].as_f64(), Some(*size as f64), "{start}");
            let min = bytes.iter().min().map(|v| *v as f64);
            assert_eq!(b["min"]["value"].as_f64(), min, "{start}");
            let max = bytes.iter().max().map(|v| *v as f64);
            assert_eq!(b["max"]["value"].as_f64(), max, "{start}");
            let avg = (!bytes.is_empty()).then(|| sum as f64 / bytes.len() as f64);
            assert_eq!(b["avg"]["value"].as_f64(), avg, "{start}");
        }
        // The same through tantivy's histogram: hard bounds around all data
        // change nothing but the path.
        let mut bounded = body.clone();
        bounded["aggs"]["h"]["date_histogram"]["hard_bounds"] =
            json!({"min": T0 - HOUR, "max": last + HOUR});
        let tantivy = common::search_logs(&catalog, &bounded);
        assert_eq!(
            native["aggregations"], tantivy["aggregations"],
            "{interval} {min_doc_count}"
        );
        assert_eq!(native["hits"]["total"], tantivy["hits"]["total"]);
    }
}

#[test]
fn too_many_buckets_is_the_usual_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, _docs) = setup(tmp.path());
    let body = json!({"size": 0, "aggs": {"h": {"date_histogram": {
        "field": "@timestamp", "fixed_interval": "1ms", "min_doc_count": 0}}}});
    let err = common::try_search(&catalog, &body).unwrap_err();
    assert!(err.to_string().contains("too many buckets"), "{err}");
}
