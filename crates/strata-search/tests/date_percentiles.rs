//! `percentiles` and `percentile_ranks` on date fields, as Elasticsearch 8
//! answers them: values in epoch milliseconds, exact for a few dates
//! (read as its sorting digest reads them since 8.9), each with its date written in the
//! aggregation's or the field's format; at the top level and under
//! buckets; `missing` as a date or millis. A sketch that keeps a date
//! within a share of the value (tantivy's 1%, months) fails these.

use crate::common;

use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

const DAY: i64 = 86_400_000;
/// 2024-01-01T00:00:00Z.
const JAN1: i64 = 1_704_067_200_000;

/// Epoch millis of day `d` of January 2024 (1-based), plus `hours`.
fn jan(d: i64, hours: i64) -> f64 {
    (JAN1 + (d - 1) * DAY + hours * 3_600_000) as f64
}

/// `logs` over two shards and several segments: `t` (default format)
/// on the 1st, 3rd, 10th, 20th and 31st of January 2024, `y` over twenty
/// years, `s` with a format of its own, `tag` and `n`; a sixth document
/// has neither date.
fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"t": {"type": "date"}, "y": {"type": "date"},
               "s": {"type": "date", "format": "yyyy/MM/dd||epoch_millis"},
               "tag": {"type": "keyword"}, "n": {"type": "long"}}),
    );
    let docs = [
        json!({"t": "2024-01-01", "y": "2001-01-01", "s": "2024/01/01", "tag": "a", "n": 1}),
        json!({"t": "2024-01-03", "y": "2005-06-15", "s": "2024/01/03", "tag": "a", "n": 2}),
        json!({"t": "2024-01-10", "y": "2010-03-01", "s": "2024/01/10", "tag": "b", "n": 3}),
        json!({"t": "2024-01-20", "y": "2016-12-31", "s": "2024/01/20", "tag": "b", "n": 4}),
        json!({"t": "2024-01-31", "y": "2024-02-29", "s": "2024/01/31", "tag": "a", "n": 5}),
        json!({"tag": "b", "n": 6}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        let id = i.to_string();
        let bytes = doc.to_string();
        index
            .index_document(Some(&id), bytes.as_bytes(), Precondition::None)
            .unwrap();
        if i % 2 == 1 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

fn aggs(catalog: &Catalog, query: Value, aggs: Value) -> Value {
    let body = json!({"size": 0, "query": query, "aggs": aggs});
    common::search_logs(catalog, &body)["aggregations"].clone()
}

fn all() -> Value {
    json!({"match_all": {}})
}

#[test]
fn five_days_of_a_month_give_elasticsearchs_percentiles_with_strings() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        all(),
        json!({"p": {"percentiles": {"field": "t"}}}),
    );
    // Index p * 4 of the five dates: 1% is 4% of the way from the 1st to
    // the 3rd, 95% 80% of the way from the 20th to the 31st.
    let want = json!({"values": {
        "1.0": 1_704_074_112_000.0, "1.0_as_string": "2024-01-01T01:55:12.000Z",
        "5.0": 1_704_101_760_000.0, "5.0_as_string": "2024-01-01T09:36:00.000Z",
        "25.0": jan(3, 0), "25.0_as_string": "2024-01-03T00:00:00.000Z",
        "50.0": jan(10, 0), "50.0_as_string": "2024-01-10T00:00:00.000Z",
        "75.0": jan(20, 0), "75.0_as_string": "2024-01-20T00:00:00.000Z",
        "95.0": 1_706_469_120_000.0, "95.0_as_string": "2024-01-28T19:12:00.000Z",
        "99.0": 1_706_621_184_000.0, "99.0_as_string": "2024-01-30T13:26:24.000Z"
    }});
    assert_eq!(out["p"], want, "{out}");
}

#[test]
fn dates_over_years_a_single_date_unkeyed_and_formats() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        all(),
        json!({"years": {"percentiles": {"field": "y", "percents": [50, 100]}},
               "list": {"percentiles": {"field": "t", "percents": [25, 50], "keyed": false}},
               "fmt": {"percentiles": {"field": "t", "percents": [50], "format": "yyyy-MM-dd"}},
               "own": {"percentiles": {"field": "s", "percents": [50]}}}),
    );
    assert_eq!(
        out["years"]["values"]["50.0_as_string"],
        "2010-03-01T00:00:00.000Z"
    );
    assert_eq!(
        out["years"]["values"]["100.0_as_string"],
        "2024-02-29T00:00:00.000Z"
    );
    assert_eq!(
        out["list"],
        json!({"values": [
            {"key": 25.0, "value": jan(3, 0), "value_as_string": "2024-01-03T00:00:00.000Z"},
            {"key": 50.0, "value": jan(10, 0), "value_as_string": "2024-01-10T00:00:00.000Z"}
        ]})
    );
    assert_eq!(
        out["fmt"],
        json!({"values": {"50.0": jan(10, 0), "50.0_as_string": "2024-01-10"}})
    );
    // The field's own format writes its values (its first pattern).
    assert_eq!(out["own"]["values"]["50.0_as_string"], "2024/01/10");

    let one = aggs(
        &catalog,
        json!({"term": {"n": 3}}),
        json!({"p": {"percentiles": {"field": "t", "percents": [1, 50, 99]}}}),
    );
    for p in ["1.0", "50.0", "99.0"] {
        assert_eq!(one["p"]["values"][p], json!(jan(10, 0)), "{one}");
    }
    // No document with a value: nulls, and no strings.
    let none = aggs(
        &catalog,
        json!({"term": {"n": 6}}),
        json!({"p": {"percentiles": {"field": "t", "percents": [50]}},
               "l": {"percentiles": {"field": "t", "percents": [50], "keyed": false}}}),
    );
    assert_eq!(none["p"], json!({"values": {"50.0": null}}), "{none}");
    assert_eq!(
        none["l"],
        json!({"values": [{"key": 50.0, "value": null}]}),
        "{none}"
    );
}

#[test]
fn percentiles_per_bucket_and_with_missing() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        all(),
        json!({"tags": {"terms": {"field": "tag"}, "aggs": {
                   "p": {"percentiles": {"field": "t", "percents": [25, 50]}},
                   "m": {"percentiles": {"field": "t", "percents": [50],
                                         "missing": "2024-02-01"}}}},
               "low": {"histogram": {"field": "n", "interval": 10}, "aggs": {
                   "f": {"filter": {"range": {"n": {"lte": 2}}}, "aggs": {
                       "p": {"percentiles": {"field": "t", "percents": [50]}}}}}},
               "all": {"percentiles": {"field": "t", "percents": [50], "missing": JAN1 + 45 * DAY}}}),
    );
    let tags = out["tags"]["buckets"].as_array().unwrap();
    // a: the 1st, 3rd and 31st; b: the 10th and 20th (and a document
    // without a date, which `missing` puts on February 1st).
    assert_eq!(
        (&tags[0]["key"], &tags[1]["key"]),
        (&json!("a"), &json!("b"))
    );
    assert_eq!(
        tags[0]["p"]["values"],
        json!({"25.0": jan(2, 0), "25.0_as_string": "2024-01-02T00:00:00.000Z",
               "50.0": jan(3, 0), "50.0_as_string": "2024-01-03T00:00:00.000Z"}),
        "{out}"
    );
    assert_eq!(tags[1]["p"]["values"]["50.0"], json!(jan(15, 0)), "{out}");
    assert_eq!(tags[1]["m"]["values"]["50.0"], json!(jan(20, 0)), "{out}");
    assert_eq!(tags[0]["m"]["values"]["50.0"], json!(jan(3, 0)), "{out}");
    // Two levels down: the 1st and the 3rd.
    let low = &out["low"]["buckets"][0]["f"]["p"]["values"];
    assert_eq!(low["50.0_as_string"], "2024-01-02T00:00:00.000Z", "{out}");
    // Six values, the sixth on February 15th: halfway from the 10th to the 20th.
    assert_eq!(out["all"]["values"]["50.0"], json!(jan(15, 0)), "{out}");
}

#[test]
fn percentile_ranks_on_dates() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"percentile_ranks": {"field": "t", "values": [jan(15, 0), jan(3, 0)]}},
               "l": {"percentile_ranks": {"field": "t", "values": [jan(15, 0)], "keyed": false}},
               "m": {"percentile_ranks": {"field": "t", "values": [jan(32, 0)],
                                          "missing": "2024-02-01"}},
               "f": {"percentile_ranks": {"field": "t", "values": [jan(15, 0)],
                                          "format": "epoch_millis"}},
               "tags": {"terms": {"field": "tag"}, "aggs": {
                   "r": {"percentile_ranks": {"field": "t", "values": [jan(15, 0)]}}}}}),
    );
    // Keys as Java prints the double; each rank also written with the
    // field's format, as Elasticsearch writes any value of a date metric.
    // The 15th: three of the five dates below it.
    let r = &out["r"]["values"];
    assert_eq!(r["1.7052768E12"], json!(60.0), "{out}");
    assert_eq!(r["1.7052768E12_as_string"], "1970-01-01T00:00:00.060Z");
    // The 3rd: the 1st below it and half of itself.
    assert_eq!(r["1.70424E12"], json!(30.0), "{out}");
    assert_eq!(
        out["l"],
        json!({"values": [{"key": jan(15, 0), "value": 60.0,
                           "value_as_string": "1970-01-01T00:00:00.060Z"}]})
    );
    assert_eq!(out["f"]["values"]["1.7052768E12_as_string"], "60");
    // February 1st for the sixth document: five below the 1st of
    // February and half of the one at it.
    let m = out["m"]["values"]["1.7067456E12"].as_f64().unwrap();
    assert!((m - 100.0 * 5.5 / 6.0).abs() < 1e-9, "{out}");
    let tags = out["tags"]["buckets"].as_array().unwrap();
    // a: 1st, 3rd, 31st: two of three below the 15th.
    let a = tags[0]["r"]["values"]["1.7052768E12"].as_f64().unwrap();
    assert!((a - 200.0 / 3.0).abs() < 1e-9, "{out}");
    // b: the 10th and 20th: one of two.
    assert_eq!(tags[1]["r"]["values"]["1.7052768E12"], json!(50.0), "{out}");
}

#[test]
fn date_refusals_and_odd_values_do_not_panic() {
    let (_tmp, catalog) = setup();
    let refused = [
        json!({"p": {"percentiles": {"field": "t", "missing": "not a date"}}}),
        json!({"p": {"percentiles": {"field": "n", "missing": "2024-01-01"}}}),
        json!({"p": {"percentile_ranks": {"field": "n", "values": [1], "missing": "2024-01-01"}}}),
        json!({"p": {"percentile_ranks": {"field": "t", "values": ["2024-01-01"]}}}),
        json!({"p": {"percentiles": {"field": "t", "format": "yyyy-MM-dd qq"}}}),
    ];
    for aggs in refused {
        let body = json!({"size": 0, "aggs": aggs});
        let err = common::try_search(&catalog, &body).unwrap_err();
        assert_eq!(err.status(), 400, "{aggs}: {err}");
    }
    // Odd `missing` and `format` values on every kind of field: an
    // answer or a 400, never a panic.
    let odd = [
        json!(0),
        json!(-1e300),
        json!("now+1y/y"),
        json!("2024-13-45"),
        json!("x"),
    ];
    for field in ["t", "s", "n", "tag", "nope"] {
        for (missing, format) in odd
            .iter()
            .zip(["yyyy", "+01:00", "UTC", "epoch_second", "'"])
        {
            let body = json!({"size": 0, "aggs": {
                "p": {"percentiles": {"field": field, "percents": [0, 100], "missing": missing,
                                      "format": format}},
                "r": {"percentile_ranks": {"field": field, "values": [1.7e12], "missing": missing,
                                           "format": format, "keyed": false}}}});
            if let Err(err) = common::try_search(&catalog, &body) {
                assert_eq!(err.status(), 400, "{body}: {err}");
            }
        }
    }
    // Extreme requests are answered: far dates, date math, every percent.
    let out = aggs(
        &catalog,
        all(),
        json!({"far": {"percentile_ranks": {"field": "t", "values": [-9.0e15, 9.0e15, 0]}},
               "math": {"percentiles": {"field": "t", "percents": [0, 100], "missing": "now-1d/d"}},
               "edge": {"percentiles": {"field": "y", "percents": [0, 0.001, 99.999, 100]}}}),
    );
    assert_eq!(out["far"]["values"]["-9.0E15"], json!(0.0), "{out}");
    assert_eq!(out["far"]["values"]["9.0E15"], json!(100.0), "{out}");
    assert_eq!(out["math"]["values"]["0.0"], json!(jan(1, 0)), "{out}");
    assert_eq!(
        out["edge"]["values"]["0.0_as_string"],
        "2001-01-01T00:00:00.000Z"
    );
}
