//! Aggregations Kibana and Elasticsearch clients send that Strata computes
//! in passes of its own, over five documents this file indexes (shared
//! with `compat_top_metrics` and `compat_multi_terms`): here
//! `percentile_ranks`, at the top level and under `terms` and
//! `date_histogram`, and on a date field, checked against Elasticsearch's answers in its REST
//! tests and against values worked out from the documents; and the errors
//! bad requests give.

use crate::common;

use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

const DAY: i64 = 86_400_000;
/// 2024-01-01T00:00:00Z.
const JAN1: i64 = 1_704_067_200_000;

/// `logs` with the four documents of Elasticsearch's percentile ranks
/// tests (`int` 1, 51, 101, 151) and one without `int`, over two shards
/// and several segments.
pub(crate) fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"int": {"type": "integer"}, "double": {"type": "double"},
               "tag": {"type": "keyword"}, "t": {"type": "date"},
               "flag": {"type": "boolean"}, "addr": {"type": "ip"},
               "note": {"type": "text"}}),
    );
    let docs = [
        json!({"int": 1, "double": 1.0, "tag": "foo", "t": JAN1, "flag": true,
               "addr": "10.0.0.1", "note": "one"}),
        json!({"int": 51, "double": 51.0, "tag": "foo", "t": JAN1 + DAY, "flag": false,
               "addr": "10.0.0.2", "note": "two"}),
        json!({"int": 101, "double": 101.0, "tag": "bar", "t": JAN1, "flag": true,
               "addr": "10.0.0.1", "note": "three"}),
        json!({"int": 151, "double": 151.0, "tag": "foo", "t": JAN1 + 2 * DAY, "flag": true,
               "note": "four"}),
        json!({"tag": "bar", "t": JAN1 + DAY, "flag": false, "note": "five"}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        index
            .index_document(
                Some(&i.to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        if i % 2 == 0 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

/// The `aggregations` of the search `query` with `aggs`.
pub(crate) fn aggs(catalog: &Catalog, query: Value, aggs: Value) -> Value {
    let body = json!({"size": 0, "query": query, "aggs": aggs});
    common::search_logs(catalog, &body)["aggregations"].clone()
}

/// The message, type and status of the error the search with `aggs` gets.
pub(crate) fn refusal(catalog: &Catalog, aggs: Value) -> (String, &'static str, u16) {
    let err = common::try_search(catalog, &json!({"size": 0, "aggs": aggs})).unwrap_err();
    (err.to_string(), err.es_type(), err.status())
}

fn close(v: &Value, want: f64, within: f64) -> bool {
    v.as_f64().is_some_and(|v| (v - want).abs() <= within)
}

#[test]
fn percentile_ranks_match_elasticsearchs_rest_tests() {
    let (_tmp, catalog) = setup();
    let all = json!({"match_all": {}});
    let out = aggs(
        &catalog,
        all.clone(),
        json!({"i": {"percentile_ranks": {"field": "int", "values": [99, 50]}},
               "d": {"percentile_ranks": {"field": "double", "values": [50, 99]}},
               "u": {"percentile_ranks": {"field": "int", "values": [50, 99], "keyed": false}}}),
    );
    for name in ["i", "d"] {
        let values = out[name]["values"].as_object().unwrap();
        assert_eq!(values.len(), 2, "{out}");
        // One of four values below 50, two below 99 (8.9 on).
        assert!(close(&values["50.0"], 25.0, 1e-9), "{out}");
        assert!(close(&values["99.0"], 50.0, 1e-9), "{out}");
    }
    let list = out["u"]["values"].as_array().unwrap();
    assert_eq!(
        (&list[0]["key"], &list[1]["key"]),
        (&json!(50.0), &json!(99.0))
    );
    assert!(close(&list[0]["value"], 25.0, 1e-9) && close(&list[1]["value"], 50.0, 1e-9));

    let filtered = aggs(
        &catalog,
        json!({"range": {"int": {"gte": 50}}}),
        json!({"i": {"percentile_ranks": {"field": "int", "values": [50]}}}),
    );
    assert!(
        close(&filtered["i"]["values"]["50.0"], 0.0, 1e-9),
        "{filtered}"
    );

    // An unmapped field: every document counts `missing`; without it no
    // value, so every rank is null.
    let missing = aggs(
        &catalog,
        all,
        json!({"m": {"percentile_ranks": {"field": "nope", "missing": 1.0, "values": [50, 99]}},
               "n": {"percentile_ranks": {"field": "nope", "values": [50]}},
               "f": {"percentile_ranks": {"field": "int", "missing": 500, "values": [200]}}}),
    );
    assert!(
        close(&missing["m"]["values"]["50.0"], 100.0, 1.0),
        "{missing}"
    );
    assert!(
        close(&missing["m"]["values"]["99.0"], 100.0, 1.0),
        "{missing}"
    );
    assert_eq!(missing["n"], json!({"values": {"50.0": null}}));
    // 1, 51, 101, 151 and the fifth document's `missing` 500: four of
    // five below 200.
    assert!(
        close(&missing["f"]["values"]["200.0"], 80.0, 1e-9),
        "{missing}"
    );
}

#[test]
fn percentile_ranks_per_bucket() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"tags": {"terms": {"field": "tag"},
                        "aggs": {"r": {"percentile_ranks": {"field": "int", "values": [100]}}}},
               "days": {"date_histogram": {"field": "t", "calendar_interval": "day"},
                        "aggs": {"r": {"percentile_ranks": {"field": "int", "values": [60],
                                                             "keyed": false}}}}}),
    );
    let tags = out["tags"]["buckets"].as_array().unwrap();
    // foo: 1, 51, 151: two of three below 100.
    assert_eq!(tags[0]["key"], "foo");
    assert!(
        close(&tags[0]["r"]["values"]["100.0"], 200.0 / 3.0, 1e-9),
        "{out}"
    );
    // bar: 101 and a document without `int`: 100 is just below the one value.
    assert_eq!(tags[1]["key"], "bar");
    assert!(close(&tags[1]["r"]["values"]["100.0"], 0.0, 0.0), "{out}");
    let days = out["days"]["buckets"].as_array().unwrap();
    assert_eq!(days.len(), 3, "{out}");
    // Day one: 1 and 101 (one below 60); day three: 151.
    let first = &days[0]["r"]["values"][0];
    assert_eq!(first["key"], json!(60.0));
    assert!(close(&first["value"], 50.0, 1e-9), "{out}");
    assert_eq!(days[2]["r"]["values"][0]["value"], json!(0.0));
}

/// A date field is ranked exactly for few dates (b93bcb8b refused it
/// while the sketch kept a date only within about 100 days). Two
/// documents on the 1st, two on the 2nd, one on the 3rd: the 2nd ranks
/// the two below it and half of the two on it, (2 + 1) / 5;
/// the rank is also written as a date, as Elasticsearch writes any value
/// of a date field's metric.
#[test]
fn percentile_ranks_on_dates() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"dates": {"percentile_ranks": {"field": "t", "values": [JAN1 + DAY]}}}),
    );
    assert_eq!(
        out["dates"],
        json!({"values": {"1.7041536E12": 60.0,
                          "1.7041536E12_as_string": "1970-01-01T00:00:00.060Z"}})
    );
}

#[test]
fn percentile_ranks_feed_buckets_paths() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"tags": {"terms": {"field": "tag"},
                        "aggs": {"r": {"percentile_ranks": {"field": "int", "values": [100]}},
                                 "twice": {"bucket_script": {
                                     "buckets_path": {"p": "r[100.0]"},
                                     "script": "params.p * 2"}}}},
               "best": {"max_bucket": {"buckets_path": "tags>r[100.0]"}}}),
    );
    let foo = out["tags"]["buckets"][0]["r"]["values"]["100.0"]
        .as_f64()
        .unwrap();
    assert_eq!(out["best"]["keys"], json!(["foo"]), "{out}");
    assert_eq!(out["best"]["value"].as_f64(), Some(foo), "{out}");
    let twice = out["tags"]["buckets"][0]["twice"]["value"]
        .as_f64()
        .unwrap();
    assert!((twice - 2.0 * foo).abs() < 1e-9, "{out}");
}

#[test]
fn percentile_ranks_refusals() {
    let (_tmp, catalog) = setup();
    let cases = [
        (
            json!({"r": {"percentile_ranks": {"field": "int", "values": []}}}),
            "Failed to build [percentile_ranks] after last required field arrived",
            "x_content_parse_exception",
        ),
        (
            json!({"r": {"percentile_ranks": {"field": "int", "values": null}}}),
            "Failed to build [percentile_ranks] after last required field arrived",
            "x_content_parse_exception",
        ),
        (
            json!({"r": {"percentile_ranks": {"field": "int", "values": ["foo"]}}}),
            "[values] of [percentile_ranks] aggregation [r] must be a number, got [\"foo\"]",
            "parsing_exception",
        ),
        (
            json!({"r": {"percentile_ranks": {"field": "int"}}}),
            "Required [values]",
            "x_content_parse_exception",
        ),
        (
            json!({"r": {"percentile_ranks": {"field": "tag", "values": [1]}}}),
            "Field [tag] of type [keyword] is not supported for aggregation [percentile_ranks]",
            "illegal_argument_exception",
        ),
        (
            json!({"t": {"terms": {"field": "tag"},
                         "aggs": {"r": {"percentile_ranks": {"field": "note", "values": [1]}}}}}),
            "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [note] in order to load field data by uninverting the inverted index.",
            "illegal_argument_exception",
        ),
    ];
    for (body, message, es_type) in cases {
        assert_eq!(refusal(&catalog, body), (message.into(), es_type, 400));
    }
}
