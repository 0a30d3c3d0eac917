//! The numeric metrics' `*_as_string` values as Elasticsearch 8 writes
//! them: a number field's only with a `format` (a `DecimalFormat`
//! pattern), a date field's always (its `format`, else the field's), at
//! the top level and below buckets; a bad pattern is a 400.

use serde_json::{json, Value};

use crate::common;
use crate::numeric_percentiles::{aggs, all, index};

fn docs() -> Vec<Value> {
    [
        (1000.5, 1_704_067_200_000i64, "a"),
        (2000.0, 1_704_153_600_000, "a"),
        (4.25, 1_704_240_000_000, "b"),
    ]
    .iter()
    .map(|(n, t, tag)| json!({"n": n, "t": t, "string_field": tag, "int_field": 3}))
    .collect()
}

#[test]
fn number_metrics_write_strings_only_with_a_format() {
    let (_tmp, catalog) = index(&docs(), 2);
    let out = aggs(
        &catalog,
        all(),
        json!({"avg": {"avg": {"field": "n", "format": "0.00"}},
               "sum": {"sum": {"field": "n", "format": "#,##0.0"}},
               "max": {"max": {"field": "n", "format": "'<'0'>'"}},
               "min": {"min": {"field": "int_field", "format": "0.0"}},
               "raw": {"avg": {"field": "n"}},
               "none": {"min": {"field": "missing_field", "format": "0.0"}},
               "st": {"stats": {"field": "n", "format": "0"}},
               "count": {"value_count": {"field": "n", "format": "0.0"}}}),
    );
    assert_eq!(out["avg"]["value_as_string"], "1001.58");
    assert_eq!(out["sum"]["value_as_string"], "3,004.8");
    assert_eq!(out["max"]["value_as_string"], "<2000>");
    assert_eq!(out["min"]["value_as_string"], "3.0");
    assert!(
        out["raw"].get("value_as_string").is_none(),
        "{}",
        out["raw"]
    );
    assert!(
        out["none"].get("value_as_string").is_none(),
        "{}",
        out["none"]
    );
    assert!(
        out["count"].get("value_as_string").is_none(),
        "{}",
        out["count"]
    );
    assert_eq!(out["st"]["min_as_string"], "4");
    assert_eq!(out["st"]["max_as_string"], "2000");
    assert_eq!(out["st"]["sum_as_string"], "3005");
    assert!(out["st"].get("count_as_string").is_none());
}

#[test]
fn date_metrics_write_dates_at_every_depth() {
    let (_tmp, catalog) = index(&docs(), 2);
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field"}, "aggs": {
                   "avg": {"avg": {"field": "t"}},
                   "st": {"stats": {"field": "t", "format": "yyyy-MM-dd"}},
                   "x": {"extended_stats": {"field": "n", "format": "0.0"}}}},
               "h": {"date_histogram": {"field": "t", "calendar_interval": "day"}, "aggs": {
                   "max": {"max": {"field": "n", "format": "0.0"}}}}}),
    );
    let a = &out["t"]["buckets"][0];
    assert_eq!(a["key"], "a");
    assert_eq!(a["avg"]["value_as_string"], "2024-01-01T12:00:00.000Z");
    assert_eq!(a["st"]["min_as_string"], "2024-01-01");
    assert_eq!(a["st"]["max_as_string"], "2024-01-02");
    assert_eq!(a["x"]["avg_as_string"], "1500.2");
    assert!(
        a["x"]["std_deviation_bounds_as_string"]["upper"].is_string(),
        "{}",
        a["x"]
    );
    let days = out["h"]["buckets"].as_array().unwrap();
    assert_eq!(days[2]["max"]["value_as_string"], "4.2");
}

#[test]
fn a_bad_number_format_is_refused() {
    let (_tmp, catalog) = index(&docs(), 2);
    let body = json!({"size": 0, "aggs": {"a": {"avg": {"field": "n", "format": "0.0E0"}}}});
    let err = common::try_search(&catalog, &body).unwrap_err();
    assert_eq!(err.status(), 400);
    assert!(err.to_string().contains("Invalid format"), "{err}");
}
