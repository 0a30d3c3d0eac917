//! `string_stats` as Elasticsearch 8.15 answers it: its REST test's
//! numbers (`analytics/string_stats.yml`: "a" and "b" give count 2,
//! lengths 1, entropy 1.0, distribution a and b 0.5), hand-computed ones
//! over several segments, `missing`, the empty result, unmapped fields,
//! under `terms` and `date_histogram` buckets, and the refusals (400s,
//! never a panic).

use crate::common;

use serde_json::{json, Value};
use strata_search::Catalog;

/// `logs` with `docs`, refreshed every two documents (several segments).
fn index(docs: &[Value]) -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"value": {"type": "keyword"}, "group": {"type": "keyword"},
               "t": {"type": "date"}, "n": {"type": "long"}, "msg": {"type": "text"},
               "ip": {"type": "ip"}}),
    );
    common::index_in_pairs(&index, docs);
    (tmp, catalog)
}

fn aggs(catalog: &Catalog, query: Value, aggs: Value) -> Value {
    let body = json!({"size": 0, "query": query, "aggs": aggs});
    common::search_logs(catalog, &body)["aggregations"].clone()
}

fn stats(catalog: &Catalog, params: Value) -> Value {
    aggs(
        catalog,
        json!({"match_all": {}}),
        json!({"s": {"string_stats": params}}),
    )["s"]
        .clone()
}

#[test]
fn elasticsearchs_string_stats_rest_test_numbers() {
    let (_tmp, catalog) = index(&[json!({"value": "a"}), json!({"value": "b"})]);
    assert_eq!(
        stats(&catalog, json!({"field": "value"})),
        json!({"count": 2, "min_length": 1, "max_length": 1, "avg_length": 1.0,
               "entropy": 1.0})
    );
    assert_eq!(
        stats(
            &catalog,
            json!({"field": "value", "show_distribution": true})
        ),
        json!({"count": 2, "min_length": 1, "max_length": 1, "avg_length": 1.0,
               "entropy": 1.0, "distribution": {"a": 0.5, "b": 0.5}})
    );
}

/// "aab", "c", ["dd", "a"] (one document, two values), one without a value.
fn mixed() -> (tempfile::TempDir, Catalog) {
    index(&[
        json!({"value": "aab", "group": "x", "t": "2024-01-01T01:00:00Z"}),
        json!({"value": "c", "group": "y", "t": "2024-01-01T02:00:00Z"}),
        json!({"value": ["dd", "a"], "group": "x", "t": "2024-01-02T01:00:00Z"}),
        json!({"group": "y", "t": "2024-01-03T01:00:00Z"}),
    ])
}

#[test]
fn every_value_counts_and_missing_stands_in() {
    let (_tmp, catalog) = mixed();
    // Characters: a 3, b 1, c 1, d 2 of 7; lengths 3, 1, 2, 1.
    let p: [f64; 4] = [3.0 / 7.0, 1.0 / 7.0, 1.0 / 7.0, 2.0 / 7.0];
    let h: f64 = -p.iter().map(|p| p * p.log2()).sum::<f64>();
    let out = stats(
        &catalog,
        json!({"field": "value", "show_distribution": true}),
    );
    assert_eq!(out["count"], 4);
    assert_eq!(
        (out["min_length"].clone(), out["max_length"].clone()),
        (json!(1), json!(3))
    );
    assert_eq!(out["avg_length"], 7.0 / 4.0);
    assert!((out["entropy"].as_f64().unwrap() - h).abs() < 1e-12);
    assert_eq!(
        out["distribution"],
        json!({"a": 3.0 / 7.0, "b": 1.0 / 7.0, "c": 1.0 / 7.0, "d": 2.0 / 7.0})
    );
    // The document without a value counts as "zzzzzz".
    let out = stats(&catalog, json!({"field": "value", "missing": "zzzzzz"}));
    assert_eq!(
        (out["count"].clone(), out["max_length"].clone()),
        (json!(5), json!(6))
    );
    // An unmapped field: every document is `missing`.
    let out = stats(&catalog, json!({"field": "nope", "missing": "ab"}));
    assert_eq!(
        out,
        json!({"count": 4, "min_length": 2, "max_length": 2, "avg_length": 2.0,
               "entropy": 1.0})
    );
}

#[test]
fn no_values_give_elasticsearchs_empty_result() {
    let (_tmp, catalog) = mixed();
    let empty = json!({"count": 0, "min_length": null, "max_length": null,
                       "avg_length": null, "entropy": 0.0, "distribution": null});
    let none = json!({"term": {"group": "none"}});
    let params = json!({"field": "value", "show_distribution": true});
    let out = aggs(&catalog, none, json!({"s": {"string_stats": params}}));
    assert_eq!(out["s"], empty);
    let out = stats(
        &catalog,
        json!({"field": "nope", "show_distribution": true}),
    );
    assert_eq!(out, empty);
}

#[test]
fn under_buckets() {
    let (_tmp, catalog) = mixed();
    let sub = json!({"s": {"string_stats": {"field": "value"}}});
    let out = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"g": {"terms": {"field": "group"}, "aggs": sub.clone()},
               "d": {"date_histogram": {"field": "t", "calendar_interval": "day"},
                     "aggs": sub}}),
    );
    let g = &out["g"]["buckets"];
    assert_eq!(g[0]["key"], "x");
    // x: "aab", "dd", "a": a 3, b 1, d 2 of 6.
    assert_eq!(g[0]["s"]["count"], 3);
    assert_eq!(g[0]["s"]["avg_length"], 2.0);
    let p = [0.5f64, 1.0 / 6.0, 1.0 / 3.0];
    let h: f64 = -p.iter().map(|p| p * p.log2()).sum::<f64>();
    assert!((g[0]["s"]["entropy"].as_f64().unwrap() - h).abs() < 1e-12);
    assert_eq!(g[1]["s"]["count"], 1);
    let d = out["d"]["buckets"].as_array().unwrap();
    let counts: Vec<&Value> = d.iter().map(|b| &b["s"]["count"]).collect();
    assert_eq!(counts, [&json!(2), &json!(2), &json!(0)]);
    assert_eq!(d[2]["s"]["min_length"], Value::Null);
}

#[test]
fn other_field_types_and_bad_parameters_are_refused() {
    let (_tmp, catalog) = mixed();
    let cases = [
        (
            json!({"field": "n"}),
            "Field [n] of type [long] is not supported for aggregation [string_stats]",
        ),
        (
            json!({"field": "ip"}),
            "Field [ip] of type [ip] is not supported for aggregation [string_stats]",
        ),
        (
            json!({"field": "t"}),
            "Field [t] of type [date] is not supported for aggregation [string_stats]",
        ),
        (json!({"field": "msg"}), "Text fields are not optimised"),
        (
            json!({"field": "value", "show_distribution": "yes"}),
            "must be a boolean",
        ),
        (
            json!({"field": "value", "format": "0.0"}),
            "[format] of [string_stats] aggregation [s] is not supported",
        ),
        (
            json!({"show_distribution": true}),
            "Required one of fields [field, script]",
        ),
        (
            json!({"field": "value", "size": 1}),
            "[string_stats] unknown field [size]",
        ),
    ];
    for (params, words) in cases {
        for aggs in [
            json!({"s": {"string_stats": params}}),
            json!({"g": {"terms": {"field": "group"}, "aggs": {"s": {"string_stats": params}}}}),
        ] {
            let body = json!({"size": 0, "aggs": aggs});
            let err = common::try_search(&catalog, &body).unwrap_err();
            assert_eq!(err.status(), 400, "{body}: {err}");
            assert!(err.to_string().contains(words), "{body}: {err}");
        }
    }
    let body = json!({"size": 0, "aggs": {"s": {"string_stats": {"field": "value"},
        "aggs": {"m": {"max": {"field": "n"}}}}}});
    let err = common::try_search(&catalog, &body).unwrap_err();
    assert!(
        err.to_string().contains("cannot accept sub-aggregations"),
        "{err}"
    );
}
