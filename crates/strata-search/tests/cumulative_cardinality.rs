//! The `cumulative_cardinality` pipeline as Elasticsearch 8.15 answers
//! it: its REST test's numbers (`analytics/cumulative_cardinality.yml`:
//! daily distinct users 2, 3, 3, 2 give running totals 2, 3, 4, 5, and
//! `format: "00"` writes "02" ... "05"), no results, a numeric
//! `histogram` parent, values beyond `precision_threshold` (the running
//! union, not a sum of counts), and the refusals (400s, never a panic).

use crate::common;

use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

/// `logs` with `docs`, refreshed every three documents.
fn index(docs: &[Value]) -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"@timestamp": {"type": "date"}, "user": {"type": "long"},
               "name": {"type": "keyword"}, "n": {"type": "long"}}),
    );
    for (i, doc) in docs.iter().enumerate() {
        let bytes = doc.to_string();
        index
            .index_document(Some(&i.to_string()), bytes.as_bytes(), Precondition::None)
            .unwrap();
        if i % 3 == 2 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

/// The yaml's eleven documents.
fn users() -> (tempfile::TempDir, Catalog) {
    let docs: Vec<Value> = [
        ("2022-01-01T00:00:00", 1),
        ("2022-01-01T01:00:00", 2),
        ("2022-01-01T02:00:00", 1),
        ("2022-01-02T00:00:00", 1),
        ("2022-01-02T01:00:00", 2),
        ("2022-01-02T02:00:00", 3),
        ("2022-01-03T00:00:00", 1),
        ("2022-01-03T01:00:00", 2),
        ("2022-01-03T03:00:00", 4),
        ("2022-01-04T00:00:00", 1),
        ("2022-01-04T01:00:00", 5),
    ]
    .iter()
    .map(|(t, u)| json!({"@timestamp": t, "user": u, "name": format!("u{u}")}))
    .collect();
    index(&docs)
}

fn body(query: Value, field: &str, pipeline: Value) -> Value {
    json!({"size": 0, "query": query, "aggs": {"@timestamp": {
        "date_histogram": {"field": "@timestamp", "calendar_interval": "day"},
        "aggs": {"distinct_users": {"cardinality": {"field": field}},
                 "total_users": {"cumulative_cardinality": pipeline}}}}})
}

fn buckets(catalog: &Catalog, body: &Value) -> Vec<Value> {
    let out = common::search_logs(catalog, body);
    out["aggregations"]["@timestamp"]["buckets"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn elasticsearchs_cumulative_cardinality_rest_test_numbers() {
    let (_tmp, catalog) = users();
    for field in ["user", "name"] {
        let got = buckets(
            &catalog,
            &body(
                json!({"match_all": {}}),
                field,
                json!({"buckets_path": "distinct_users"}),
            ),
        );
        let distinct: Vec<&Value> = got.iter().map(|b| &b["distinct_users"]["value"]).collect();
        assert_eq!(
            distinct,
            [&json!(2), &json!(3), &json!(3), &json!(2)],
            "{field}"
        );
        let total: Vec<&Value> = got.iter().map(|b| &b["total_users"]).collect();
        let want = [2, 3, 4, 5].map(|v| json!({ "value": v }));
        assert_eq!(total, want.iter().collect::<Vec<_>>(), "{field}");
        assert_eq!(got[0]["key_as_string"], "2022-01-01T00:00:00.000Z");
    }
    let got = buckets(
        &catalog,
        &body(
            json!({"match_all": {}}),
            "user",
            json!({"buckets_path": "distinct_users", "format": "00"}),
        ),
    );
    let strings: Vec<&Value> = got
        .iter()
        .map(|b| &b["total_users"]["value_as_string"])
        .collect();
    assert_eq!(
        strings,
        [&json!("02"), &json!("03"), &json!("04"), &json!("05")]
    );
    // "no results".
    let none = json!({"match": {"missing_field": "not_found"}});
    let got = buckets(
        &catalog,
        &body(none, "user", json!({"buckets_path": "distinct_users"})),
    );
    assert!(got.is_empty());
}

#[test]
fn a_histogram_parent_and_values_past_the_threshold() {
    // Bucket n / 10 holds users n .. n + 14 (overlapping the next bucket).
    let docs: Vec<Value> = (0..40)
        .flat_map(|n| (0..15).map(move |k| json!({"n": n, "user": n + k})))
        .collect();
    let (_tmp, catalog) = index(&docs);
    for threshold in [3000, 5] {
        let body = json!({"size": 0, "aggs": {"h": {
            "histogram": {"field": "n", "interval": 10},
            "aggs": {"c": {"cardinality": {"field": "user", "precision_threshold": threshold}},
                     "cc": {"cumulative_cardinality": {"buckets_path": "c"}}}}}});
        let out = common::search_logs(&catalog, &body);
        let got: Vec<u64> = out["aggregations"]["h"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["cc"]["value"].as_u64().unwrap())
            .collect();
        // Users 0 .. 10k + 23 by bucket k: 24, 34, 44, 54 (never the sum).
        let want = [24u64, 34, 44, 54];
        if threshold == 3000 {
            assert_eq!(got, want);
        } else {
            // HyperLogLog at its precision for 5: within a few percent.
            for (g, w) in got.iter().zip(want) {
                assert!((*g as f64 - w as f64).abs() <= w as f64 * 0.1, "{got:?}");
            }
        }
    }
}

#[test]
fn bad_requests_are_refused() {
    let (_tmp, catalog) = users();
    let all = json!({"match_all": {}});
    let cases = [
        (
            body(all.clone(), "user", json!({"buckets_path": "missing"})),
            "No aggregation found for path [missing]",
        ),
        (
            body(all.clone(), "user", json!({"buckets_path": "_count"})),
            "No aggregation found for path [_count]",
        ),
        (
            json!({"size": 0, "aggs": {"d": {
                "date_histogram": {"field": "@timestamp", "calendar_interval": "day"},
                "aggs": {"s": {"sum": {"field": "user"}},
                         "cc": {"cumulative_cardinality": {"buckets_path": "s"}}}}}}),
            "buckets_path must reference a cardinality aggregation, got: [sum]",
        ),
        (
            body(
                all.clone(),
                "user",
                json!({"buckets_path": "distinct_users", "gap_policy": "skip"}),
            ),
            "unknown field [gap_policy]",
        ),
        (
            json!({"size": 0, "aggs": {"t": {"terms": {"field": "name"},
                "aggs": {"c": {"cardinality": {"field": "user"}},
                         "cc": {"cumulative_cardinality": {"buckets_path": "c"}}}}}}),
            "must have a histogram, date_histogram or auto_date_histogram as parent",
        ),
        (
            json!({"size": 0, "aggs": {"a": {
                "auto_date_histogram": {"field": "@timestamp", "buckets": 3},
                "aggs": {"c": {"cardinality": {"field": "user"}},
                         "cc": {"cumulative_cardinality": {"buckets_path": "c"}}}}}}),
            "under an auto_date_histogram is not supported",
        ),
    ];
    for (body, words) in cases {
        let err = common::try_search(&catalog, &body).unwrap_err();
        assert_eq!(err.status(), 400, "{body}: {err}");
        assert!(err.to_string().contains(words), "{body}: {err}");
    }
}
