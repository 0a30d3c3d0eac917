//! The `normalize` pipeline as Elasticsearch 8.15 answers it: its REST
//! test's numbers (`analytics/normalize.yml`: daily counts 3, 2, 1 under
//! each method, and `format`), gaps (an empty bucket's metric) written as
//! `null`, and the refusals (a bad path, a bad method, a parent that is
//! not a histogram: 400s, never a panic).

use crate::common;

use serde_json::{json, Value};
use strata_search::Catalog;

/// normalize.yml's documents: users a, b, c on 2017-01-01, a, b on the
/// 2nd, d on the 3rd (all at 05:00), plus `n` where given.
fn users() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"timestamp": {"type": "date"}, "user": {"type": "keyword"},
               "n": {"type": "long"}}),
    );
    let docs = [
        ("2017-01-01", "a"),
        ("2017-01-01", "b"),
        ("2017-01-01", "c"),
        ("2017-01-02", "a"),
        ("2017-01-02", "b"),
        ("2017-01-03", "d"),
    ];
    let docs: Vec<Value> = docs
        .iter()
        .enumerate()
        .map(|(i, (day, user))| {
            json!({"timestamp": format!("{day}T05:00:00Z"), "user": user, "n": i * 2})
        })
        .collect();
    common::index_in_pairs(&index, &docs);
    (tmp, catalog)
}

fn by_day(pipeline: Value) -> Value {
    json!({"size": 0, "aggs": {"users_by_day": {
        "date_histogram": {"field": "timestamp", "calendar_interval": "day"},
        "aggs": {"percent_of_total_users": {"normalize": pipeline}}}}})
}

/// The normalized value of each bucket.
fn values(catalog: &Catalog, body: &Value) -> Vec<Value> {
    let out = common::search_logs(catalog, body);
    out["aggregations"]["users_by_day"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["percent_of_total_users"].clone())
        .collect()
}

#[test]
fn elasticsearchs_normalize_rest_test_numbers() {
    let (_tmp, catalog) = users();
    let third = 1.0 / 3.0;
    let z = (1.5f64).sqrt(); // (3 - 2) / sqrt(2 / 3)
    let e = std::f64::consts::E;
    let soft = e.powi(3) + e.powi(2) + e;
    let cases = [
        ("rescale_0_1", [1.0, 0.5, 0.0]),
        ("rescale_0_100", [100.0, 50.0, 0.0]),
        ("percent_of_sum", [0.5, third, third / 2.0]),
        ("mean", [0.5, 0.0, -0.5]),
        ("z-score", [z, 0.0, -z]),
        ("softmax", [e.powi(3) / soft, e.powi(2) / soft, e / soft]),
    ];
    for (method, want) in cases {
        let got = values(
            &catalog,
            &by_day(json!({"buckets_path": "_count", "method": method})),
        );
        assert_eq!(got.len(), 3, "{method}");
        for (g, w) in got.iter().zip(want) {
            let g = g["value"].as_f64().unwrap();
            assert!((g - w).abs() < 1e-9, "{method}: {g} vs {w}");
        }
    }
    // The yaml's rounded numbers, within its errors.
    let got = values(
        &catalog,
        &by_day(json!({"buckets_path": "_count", "method": "z-score"})),
    );
    assert!((got[0]["value"].as_f64().unwrap() - 1.2).abs() < 0.05);
    assert!((got[2]["value"].as_f64().unwrap() + 1.22).abs() < 0.05);
}

#[test]
fn format_writes_value_as_string() {
    let (_tmp, catalog) = users();
    let got = values(
        &catalog,
        &by_day(json!({"buckets_path": "_count", "method": "percent_of_sum",
                       "format": "00.00%"})),
    );
    let strings: Vec<&str> = got
        .iter()
        .map(|v| v["value_as_string"].as_str().unwrap())
        .collect();
    assert_eq!(strings, ["50.00%", "33.33%", "16.67%"]);
}

#[test]
fn a_metric_of_an_empty_bucket_is_a_gap_written_null() {
    let (_tmp, catalog) = users();
    // Only days 1 and 3 match: day 2's bucket is empty, its max a gap.
    let body = json!({"size": 0, "query": {"terms": {"user": ["c", "d"]}}, "aggs": {"d": {
        "date_histogram": {"field": "timestamp", "calendar_interval": "day"},
        "aggs": {"m": {"max": {"field": "n"}},
                 "r": {"normalize": {"buckets_path": "m", "method": "percent_of_sum"}}}}}});
    let out = common::search_logs(&catalog, &body);
    let buckets = out["aggregations"]["d"]["buckets"].as_array().unwrap();
    let got: Vec<&Value> = buckets.iter().map(|b| &b["r"]["value"]).collect();
    // c has n = 4, d has n = 10.
    assert_eq!(got, [&json!(4.0 / 14.0), &Value::Null, &json!(10.0 / 14.0)]);
    // Equal values: rescaling divides by zero, written null.
    let body = json!({"size": 0, "query": {"term": {"user": "d"}}, "aggs": {"d": {
        "date_histogram": {"field": "timestamp", "calendar_interval": "day"},
        "aggs": {"r": {"normalize": {"buckets_path": "_count", "method": "rescale_0_1"}}}}}});
    let out = common::search_logs(&catalog, &body);
    assert_eq!(
        out["aggregations"]["d"]["buckets"][0]["r"],
        json!({"value": null})
    );
}

#[test]
fn bad_requests_are_refused() {
    let (_tmp, catalog) = users();
    let hist = |pipeline: Value| by_day(pipeline);
    let cases = [
        (
            hist(json!({"buckets_path": "badpath", "method": "rescale_0_1"})),
            "No aggregation found for path [badpath]",
        ),
        (
            hist(json!({"buckets_path": "_count", "method": "zscore"})),
            "invalid method [zscore]",
        ),
        (
            hist(json!({"buckets_path": "_count"})),
            "Required parameter [method] missing",
        ),
        (
            hist(json!({"buckets_path": "_count", "method": "mean", "gap_policy": "skip"})),
            "unknown field [gap_policy]",
        ),
        (
            hist(json!({"buckets_path": "_count", "method": "mean", "format": "0E0"})),
            "Invalid format",
        ),
        (
            json!({"size": 0, "aggs": {"t": {"terms": {"field": "user"},
                "aggs": {"r": {"normalize": {"buckets_path": "_count", "method": "mean"}}}}}}),
            "must have a histogram, date_histogram or auto_date_histogram as parent",
        ),
        (
            json!({"size": 0, "aggs": {
                "r": {"normalize": {"buckets_path": "_count", "method": "mean"}}}}),
            "doesn't have a parent",
        ),
    ];
    for (body, words) in cases {
        let err = common::try_search(&catalog, &body).unwrap_err();
        assert_eq!(err.status(), 400, "{body}: {err}");
        assert!(err.to_string().contains(words), "{body}: {err}");
    }
}
