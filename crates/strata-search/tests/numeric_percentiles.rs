//! `percentiles` and `percentile_ranks` of numeric fields as
//! Elasticsearch 8 answers them: its REST tests' numbers
//! (`180_percentiles_tdigest_metric.yml`, `420_percentile_ranks_...`),
//! `keyed: false`, `missing`, `format`, booleans, and the refusals (400s,
//! never a panic). Every depth, negative and large values and more than
//! 2,000 values: `numeric_percentiles_depth.rs`.

use crate::common;

use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

/// `logs` over two shards, refreshed every `every` documents (so several
/// segments per shard), with `docs` indexed.
pub(crate) fn index(docs: &[Value], every: usize) -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"int_field": {"type": "integer"}, "double_field": {"type": "double"},
               "string_field": {"type": "keyword"}, "t": {"type": "date"},
               "n": {"type": "double"}, "flag": {"type": "boolean"},
               "s": {"type": "date", "format": "yyyy/MM/dd||epoch_millis"}}),
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
            let t = 1_704_067_200_000i64 + i as i64 * 86_400_000;
            json!({"int_field": v, "double_field": f64::from(v), "string_field": "foo",
                   "t": t, "s": t, "flag": v > 60})
        })
        .collect();
    index(&docs, 2)
}

pub(crate) fn aggs(catalog: &Catalog, query: Value, aggs: Value) -> Value {
    let body = json!({"size": 0, "query": query, "aggs": aggs});
    common::search_logs(catalog, &body)["aggregations"].clone()
}

pub(crate) fn all() -> Value {
    json!({"match_all": {}})
}

/// Elasticsearch 8.9+'s reading of few values (its sorting digest): the
/// sorted values at index `percent / 100 * (n - 1)`, interpolated
/// linearly between the two around it.
pub(crate) fn model(values: &[f64], percent: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let last = sorted.len() - 1;
    let index = percent / 100.0 * last as f64;
    if index <= 0.0 {
        return sorted[0];
    }
    if index >= last as f64 {
        return sorted[last];
    }
    let low = index.floor() as usize;
    sorted[low] + (index - low as f64) * (sorted[low + 1] - sorted[low])
}

/// Elasticsearch 8.9+'s rank of `x` among few values: the share below it
/// plus half the share equal to it, in percent.
pub(crate) fn rank_model(values: &[f64], x: f64) -> f64 {
    let below = values.iter().filter(|&&v| v < x).count() as f64;
    let equal = values.iter().filter(|&&v| v == x).count() as f64;
    100.0 * (below + equal / 2.0) / values.len() as f64
}

const DEFAULT_VALUES: [(&str, f64); 7] = [
    ("1.0", 2.5),
    ("5.0", 8.5),
    ("25.0", 38.5),
    ("50.0", 76.0),
    ("75.0", 113.5),
    ("95.0", 143.5),
    ("99.0", 149.5),
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
        json!({"1.0": 52.0, "5.0": 56.0, "25.0": 76.0, "50.0": 101.0,
               "75.0": 126.0, "95.0": 146.0, "99.0": 150.0})
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
        json!([{"key": 5.0, "value": 8.5}, {"key": 25.0, "value": 38.5},
               {"key": 50.0, "value": 76.0}])
    );
    // Ranks (percentile_ranks_tdigest_metric): 25, 50, 75 and 100.
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"percentile_ranks": {"field": "double_field",
                                          "values": [50, 100, 150, 200]}}}),
    );
    assert_eq!(
        out["r"]["values"],
        json!({"50.0": 25.0, "100.0": 50.0, "150.0": 75.0, "200.0": 100.0})
    );
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
        json!([{"key": 25.0, "value": 38.5, "value_as_string": "38.50"},
               {"key": 50.0, "value": 76.0, "value_as_string": "76.00"}])
    );
    assert_eq!(bucket["m"]["values"], json!({"50.0": 7.0}));
    // Booleans as 0 and 1: two of each.
    assert_eq!(
        bucket["b"]["values"],
        json!({"50.0": 0.5, "50.0_as_string": "true"})
    );
    assert_eq!(
        bucket["r"]["values"],
        json!({"50.0": 25.0, "50.0_as_string": "25.0"})
    );
    // The top level with a format, keyed.
    let out = aggs(
        &catalog,
        all(),
        json!({"p": {"percentiles": {"field": "int_field", "percents": [25], "format": "#,##0.0"}}}),
    );
    assert_eq!(
        out["p"]["values"],
        json!({"25.0": 38.5, "25.0_as_string": "38.5"})
    );
    // A date field's min and max: written in the aggregation's format,
    // else the field's.
    let out = aggs(
        &catalog,
        all(),
        json!({"lo": {"min": {"field": "t"}}, "s_lo": {"min": {"field": "s"}},
               "s_hi": {"max": {"field": "s", "format": "yyyy-MM-dd HH"}}}),
    );
    assert_eq!(out["lo"]["value_as_string"], "2024-01-01T00:00:00.000Z");
    assert_eq!(out["s_lo"]["value_as_string"], "2024/01/01");
    assert_eq!(out["s_hi"]["value_as_string"], "2024-01-04 00");
}
