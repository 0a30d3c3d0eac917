//! `percentiles` and `percentile_ranks` of numeric fields as
//! Elasticsearch 8 answers them: its REST tests' numbers
//! (`180_percentiles_tdigest_metric.yml`, `420_percentile_ranks_...`),
//! the same answers at every depth (under `terms`, `histogram`,
//! `date_histogram` fixed and calendar, `filter`, `filters`, `range`,
//! two levels of buckets), negative and large values, more than 2,000
//! values within the stated bound of the exact answer, `keyed: false`,
//! `missing`, `format`, and the refusals (400s, never a panic).

use crate::common;

use proptest::prelude::*;
use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

/// `logs` over two shards, refreshed every `every` documents (so several
/// segments per shard), with `docs` indexed.
fn index(docs: &[Value], every: usize) -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"int_field": {"type": "integer"}, "double_field": {"type": "double"},
               "string_field": {"type": "keyword"}, "t": {"type": "date"},
               "n": {"type": "double"}, "flag": {"type": "boolean"}}),
    );
    for (i, doc) in docs.iter().enumerate() {
        let bytes = doc.to_string();
        index
            .index_document(Some(&i.to_string()), bytes.as_bytes(), Precondition::None)
            .unwrap();
        if (i + 1) % every == 0 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

/// Elasticsearch's REST-test documents: 1, 51, 101 and 151 (`foo`), one
/// day apart from 2024-01-01.
fn rest_test() -> (tempfile::TempDir, Catalog) {
    let docs: Vec<Value> = [1, 51, 101, 151]
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            json!({"int_field": v, "double_field": f64::from(v), "string_field": "foo",
                   "t": 1_704_067_200_000i64 + i as i64 * 86_400_000, "flag": v > 60})
        })
        .collect();
    index(&docs, 2)
}

fn aggs(catalog: &Catalog, query: Value, aggs: Value) -> Value {
    let body = json!({"size": 0, "query": query, "aggs": aggs});
    common::search_logs(catalog, &body)["aggregations"].clone()
}

fn all() -> Value {
    json!({"match_all": {}})
}

/// Elasticsearch's t-digest over few values (each its own centroid): the
/// sorted values at ranks `i + 0.5`, interpolated linearly, the extremes
/// at ranks 0 and `n`.
fn model(values: &[f64], percent: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let index = percent / 100.0 * n;
    let mut points = vec![(0.0, sorted[0])];
    points.extend(sorted.iter().enumerate().map(|(i, &v)| (i as f64 + 0.5, v)));
    points.push((n, sorted[sorted.len() - 1]));
    for pair in points.windows(2) {
        let ((r0, v0), (r1, v1)) = (pair[0], pair[1]);
        if index <= r1 {
            return if r1 <= r0 {
                v0
            } else {
                v0 + (v1 - v0) * ((index - r0) / (r1 - r0))
            };
        }
    }
    sorted[sorted.len() - 1]
}

const DEFAULT_VALUES: [(&str, f64); 7] = [
    ("1.0", 1.0),
    ("5.0", 1.0),
    ("25.0", 26.0),
    ("50.0", 76.0),
    ("75.0", 126.0),
    ("95.0", 151.0),
    ("99.0", 151.0),
];

#[test]
fn elasticsearchs_rest_test_numbers() {
    let (_tmp, catalog) = rest_test();
    let want: serde_json::Map<String, Value> = DEFAULT_VALUES
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    for tdigest in [json!({}), json!({"tdigest": {"compression": 200}})] {
        let mut int = json!({"field": "int_field"});
        let mut double = json!({"field": "double_field"});
        for (k, v) in tdigest.as_object().unwrap() {
            int[k] = v.clone();
            double[k] = v.clone();
        }
        let out = aggs(
            &catalog,
            all(),
            json!({"pi": {"percentiles": int}, "pd": {"percentiles": double}}),
        );
        assert_eq!(out["pi"]["values"], Value::Object(want.clone()), "{out}");
        assert_eq!(out["pd"]["values"], Value::Object(want.clone()), "{out}");
    }
    // Filtered: 51, 101, 151.
    let query = json!({"constant_score": {"filter": {"range": {"int_field": {"gte": 50}}}}});
    let out = aggs(
        &catalog,
        query,
        json!({"p": {"percentiles": {"field": "int_field"}}}),
    );
    assert_eq!(
        out["p"]["values"],
        json!({"1.0": 51.0, "5.0": 51.0, "25.0": 63.5, "50.0": 101.0,
               "75.0": 138.5, "95.0": 151.0, "99.0": 151.0})
    );
    // An unmapped field: with `missing` every percentile is it; without,
    // null values.
    let out = aggs(
        &catalog,
        all(),
        json!({"m": {"percentiles": {"field": "missing_field", "missing": 1.0}},
               "none": {"percentiles": {"field": "missing_field", "percents": [50]}}}),
    );
    assert!(out["m"]["values"]
        .as_object()
        .unwrap()
        .values()
        .all(|v| v == 1.0));
    assert_eq!(out["none"]["values"], json!({"50.0": null}));
    // Explicit percents, unkeyed.
    let out = aggs(
        &catalog,
        all(),
        json!({"p": {"percentiles": {"field": "int_field", "percents": [5.0, 25.0, 50.0],
                                     "keyed": false}}}),
    );
    assert_eq!(
        out["p"]["values"],
        json!([{"key": 5.0, "value": 1.0}, {"key": 25.0, "value": 26.0},
               {"key": 50.0, "value": 76.0}])
    );
    // Ranks (420_percentile_ranks_tdigest_metric): 37.0 and 61.5.
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"percentile_ranks": {"field": "double_field", "values": [50, 99]}}}),
    );
    assert_eq!(out["r"]["values"], json!({"50.0": 37.0, "99.0": 61.5}));
}

#[test]
fn refusals_are_400s_in_elasticsearchs_words() {
    let (_tmp, catalog) = rest_test();
    let cases = [
        (
            json!({"field": "int_field", "tdigest": {"compression": -1}}),
            Some("[compression] must be greater than or equal to 0. Found [-1.0]"),
        ),
        (json!({"field": "int_field", "percents": []}), None),
        (json!({"field": "int_field", "percents": null}), None),
        (json!({"field": "int_field", "percents": ["foo"]}), None),
        (json!({"field": "int_field", "percents": [101]}), None),
        (json!({"field": "int_field", "percents": [-1]}), None),
        (json!({"field": "int_field", "hdr": {}}), None),
        (json!({"field": "int_field", "format": "0.0E0"}), Some("Invalid format")),
        (
            json!({"field": "string_field"}),
            Some("Field [string_field] of type [keyword] is not supported for aggregation [percentiles]"),
        ),
    ];
    for (params, words) in cases {
        for wrap in [
            json!({"p": {"percentiles": params.clone()}}),
            json!({"t": {"terms": {"field": "string_field"},
                         "aggs": {"p": {"percentiles": params.clone()}}}}),
        ] {
            let body = json!({"size": 0, "aggs": wrap});
            let err = common::try_search(&catalog, &body).unwrap_err();
            assert_eq!(err.status(), 400, "{body}: {err}");
            if let Some(words) = words {
                assert!(err.to_string().contains(words), "{body}: {err}");
            }
        }
    }
    // Ordering terms by a percentiles sub-aggregation: refused, clearly.
    let body = json!({"size": 0, "aggs": {"t": {
        "terms": {"field": "string_field", "order": {"p.50": "desc"}},
        "aggs": {"p": {"percentiles": {"field": "int_field"}}}}}});
    let err = common::try_search(&catalog, &body).unwrap_err();
    assert_eq!(err.status(), 400);
    assert!(
        err.to_string()
            .contains("[percentiles] sub-aggregation [p.50]"),
        "{err}"
    );
}

/// Documents `tag` a/b, `n` values, `t` an hour apart in two days.
fn mixed() -> (tempfile::TempDir, Catalog, Vec<(String, f64, i64)>) {
    let rows: Vec<(String, f64, i64)> = (0..40)
        .map(|i: i64| {
            let tag = if i % 3 == 0 { "a" } else { "b" };
            let n = ((i * 37) % 41) as f64 * 2.5 - 30.0;
            (tag.to_string(), n, 1_704_067_200_000 + i * 3_600_000)
        })
        .collect();
    let docs: Vec<Value> = rows
        .iter()
        .map(|(tag, n, t)| json!({"string_field": tag, "n": n, "t": t}))
        .collect();
    let (tmp, catalog) = index(&docs, 7);
    (tmp, catalog, rows)
}

/// Checks a bucket's percentiles at 10/50/90 against `values`.
fn check(bucket: &Value, values: &[f64], at: &str) {
    for (key, p) in [("10.0", 10.0), ("50.0", 50.0), ("90.0", 90.0)] {
        let got = bucket["p"]["values"][key].as_f64().unwrap_or(f64::NAN);
        let want = model(values, p);
        let within = 1e-12 * want.abs().max(1.0);
        assert!(
            (got - want).abs() <= within,
            "{at} p{p}: {got} against {want}"
        );
    }
}

const PCT: &str = r#"{"p": {"percentiles": {"field": "n", "percents": [10, 50, 90]}}}"#;

#[test]
fn every_depth_gives_the_exact_answers() {
    let (_tmp, catalog, rows) = mixed();
    let pct: Value = serde_json::from_str(PCT).unwrap();
    let values = |keep: &dyn Fn(&(String, f64, i64)) -> bool| -> Vec<f64> {
        rows.iter().filter(|r| keep(r)).map(|r| r.1).collect()
    };
    // The top level, and under a `filter`.
    let out = aggs(&catalog, all(), pct.clone());
    check(&out, &values(&|_| true), "top");
    let out = aggs(
        &catalog,
        all(),
        json!({"f": {"filter": {"term": {"string_field": "a"}}, "aggs": pct}}),
    );
    check(&out["f"], &values(&|r| r.0 == "a"), "filter");
    // `terms`, and `terms` > `histogram` (two levels).
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field"}, "aggs": {
            "p": pct["p"], "h": {"histogram": {"field": "n", "interval": 50}, "aggs": pct}}}}),
    );
    for bucket in out["t"]["buckets"].as_array().unwrap() {
        let tag = bucket["key"].as_str().unwrap().to_string();
        check(bucket, &values(&|r| r.0 == tag), "terms");
        for h in bucket["h"]["buckets"].as_array().unwrap() {
            let low = h["key"].as_f64().unwrap();
            let inside = values(&|r| r.0 == tag && r.1 >= low && r.1 < low + 50.0);
            check(h, &inside, "terms > histogram");
        }
    }
    // `date_histogram`, fixed (one pass) and calendar (per bucket).
    for interval in [
        json!({"fixed_interval": "6h"}),
        json!({"calendar_interval": "1d"}),
    ] {
        let mut params = json!({"field": "t"});
        for (k, v) in interval.as_object().unwrap() {
            params[k] = v.clone();
        }
        let width = if params.get("fixed_interval").is_some() {
            6
        } else {
            24
        } * 3_600_000;
        let out = aggs(
            &catalog,
            all(),
            json!({"d": {"date_histogram": params, "aggs": pct}}),
        );
        let buckets = out["d"]["buckets"].as_array().unwrap();
        assert!(buckets.len() >= 2, "{out}");
        for bucket in buckets {
            let start = bucket["key"].as_f64().unwrap() as i64;
            check(
                bucket,
                &values(&|r| r.2 >= start && r.2 < start + width),
                "date_histogram",
            );
        }
    }
    // `filters` and `range`.
    let out = aggs(
        &catalog,
        all(),
        json!({"fs": {"filters": {"filters": {"a": {"term": {"string_field": "a"}},
                                              "b": {"term": {"string_field": "b"}}}},
                      "aggs": pct},
               "r": {"range": {"field": "n", "ranges": [{"to": 0}, {"from": 0}]}, "aggs": pct}}),
    );
    check(
        &out["fs"]["buckets"]["a"],
        &values(&|r| r.0 == "a"),
        "filters a",
    );
    check(
        &out["fs"]["buckets"]["b"],
        &values(&|r| r.0 == "b"),
        "filters b",
    );
    let ranges = out["r"]["buckets"].as_array().unwrap();
    check(&ranges[0], &values(&|r| r.1 < 0.0), "range below 0");
    check(&ranges[1], &values(&|r| r.1 >= 0.0), "range from 0");
}

#[test]
fn keyed_false_missing_and_format_below_buckets() {
    let (_tmp, catalog) = rest_test();
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field"}, "aggs": {
            "p": {"percentiles": {"field": "double_field", "percents": [25, 50],
                                  "keyed": false, "format": "0.00"}},
            "m": {"percentiles": {"field": "missing_field", "missing": 7, "percents": [50]}},
            "b": {"percentiles": {"field": "flag", "percents": [50]}},
            "r": {"percentile_ranks": {"field": "int_field", "values": [50],
                                       "format": "0.0"}}}}}),
    );
    let bucket = &out["t"]["buckets"][0];
    assert_eq!(
        bucket["p"]["values"],
        json!([{"key": 25.0, "value": 26.0, "value_as_string": "26.00"},
               {"key": 50.0, "value": 76.0, "value_as_string": "76.00"}])
    );
    assert_eq!(bucket["m"]["values"], json!({"50.0": 7.0}));
    // Booleans as 0 and 1: two of each.
    assert_eq!(bucket["b"]["values"], json!({"50.0": 0.5}));
    assert_eq!(
        bucket["r"]["values"],
        json!({"50.0": 37.0, "50.0_as_string": "37.0"})
    );
    // The top level with a format, keyed.
    let out = aggs(
        &catalog,
        all(),
        json!({"p": {"percentiles": {"field": "int_field", "percents": [25], "format": "#,##0.0"}}}),
    );
    assert_eq!(
        out["p"]["values"],
        json!({"25.0": 26.0, "25.0_as_string": "26.0"})
    );
    // A date field's min and max: written in the field's format.
    let out = aggs(&catalog, all(), json!({"lo": {"min": {"field": "t"}}}));
    assert_eq!(out["lo"]["value_as_string"], "2024-01-01T00:00:00.000Z");
}

#[test]
fn negative_and_large_values_stay_exact() {
    for values in [
        vec![-1.0e9, -5.0, -4.5, 0.0, 3.0, 1.0e9],
        vec![1.0e15 + 1.0, 1.0e15 + 2.0, 1.0e15 + 4.0, 1.0e15 + 8.0],
        vec![-7.25; 5],
    ] {
        let docs: Vec<Value> = values.iter().map(|v| json!({"n": v})).collect();
        let (_tmp, catalog) = index(&docs, 2);
        let pct: Value = serde_json::from_str(PCT).unwrap();
        let out = aggs(&catalog, all(), pct.clone());
        check(&out, &values, "top");
        let out = aggs(
            &catalog,
            all(),
            json!({"f": {"filter": {"exists": {"field": "n"}}, "aggs": pct}}),
        );
        check(&out["f"], &values, "filter");
    }
}

/// The value at Elasticsearch's rank of `percent` in `sorted`.
fn exact(sorted: &[f64], percent: f64) -> f64 {
    model(sorted, percent)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, ..ProptestConfig::default() })]

    /// More than 2,000 values: each answer within 1% of the data's span
    /// of the exact one (the stated bound: 0.4% of the span per bucket,
    /// twice where parts of other bases merge, plus interpolation), at
    /// the top level and under a fixed `date_histogram` and `terms`.
    #[test]
    fn many_values_stay_within_the_bound(
        center in prop_oneof![Just(0.0), Just(-3.0e6), Just(5.0e11)],
        width in prop_oneof![Just(10.0), Just(1.0e4)],
        seed in 0u64..1_000,
    ) {
        let values: Vec<f64> = (0..4_500u64)
            .map(|i| {
                let x = ((i.wrapping_mul(2_654_435_761) ^ seed) % 10_007) as f64 / 10_007.0;
                center + width * (x * x - 0.3)
            })
            .collect();
        let docs: Vec<Value> = values
            .iter()
            .enumerate()
            .map(|(i, v)| json!({"n": v, "string_field": "k", "t": 1_704_067_200_000i64 + i as i64}))
            .collect();
        let (_tmp, catalog) = index(&docs, 1_500);
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let span = sorted[sorted.len() - 1] - sorted[0];
        let pct: Value = serde_json::from_str(PCT).unwrap();
        let out = aggs(
            &catalog,
            all(),
            json!({"p": pct["p"],
                   "d": {"date_histogram": {"field": "t", "fixed_interval": "1d"}, "aggs": pct},
                   "t": {"terms": {"field": "string_field"}, "aggs": pct}}),
        );
        for (at, result) in [
            ("top", &out["p"]),
            ("date_histogram", &out["d"]["buckets"][0]["p"]),
            ("terms", &out["t"]["buckets"][0]["p"]),
        ] {
            for (key, p) in [("10.0", 10.0), ("50.0", 50.0), ("90.0", 90.0)] {
                let got = result["values"][key].as_f64().unwrap();
                let want = exact(&sorted, p);
                prop_assert!((got - want).abs() <= span / 100.0,
                    "{} p{}: {} against {} (span {})", at, p, got, want, span);
            }
        }
    }
}
