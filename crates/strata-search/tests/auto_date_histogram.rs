//! `auto_date_histogram`: Elasticsearch 8's REST tests' numbers
//! (`auto_date_histogram.yml`), sub-aggregations and pipelines below it,
//! `time_zone`, `minimum_interval`, `format`, `missing`, no data, and the
//! refusals of bad requests.

use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

use crate::common;

/// The REST tests' four documents, and `extra` more, in index `logs`.
fn setup(tmp: &std::path::Path, extra: &[Value]) -> Catalog {
    let properties = json!({"date": {"type": "date"}, "v": {"type": "long"},
                            "k": {"type": "keyword"}});
    let (catalog, index) = common::logs_index(tmp, 2, properties);
    let docs = [
        json!({"date": "2020-03-01", "v": 1}),
        json!({"date": "2020-03-02", "v": 2}),
        json!({"date": "2020-03-08", "v": 3}),
        json!({"date": "2020-03-09", "v": 4}),
    ];
    for (i, doc) in docs.iter().chain(extra).enumerate() {
        let body = doc.to_string();
        index
            .index_document(Some(&i.to_string()), body.as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
    catalog
}

fn histo(catalog: &Catalog, params: Value) -> Value {
    let body = json!({"size": 0, "aggs": {"histo": {"auto_date_histogram": params}}});
    common::search_logs(catalog, &body)["aggregations"]["histo"].take()
}

/// `(key_as_string, doc_count)` of each bucket.
fn buckets(agg: &Value) -> Vec<(String, u64)> {
    agg["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let key = b["key_as_string"].as_str().unwrap().to_string();
            (key, b["doc_count"].as_u64().unwrap())
        })
        .collect()
}

fn pairs(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    list.iter().map(|(k, n)| (k.to_string(), *n)).collect()
}

#[test]
fn rest_test_basic_and_avg_bucket() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path(), &[]);
    let agg = histo(&catalog, json!({"field": "date", "buckets": 2}));
    assert_eq!(agg["interval"], "7d");
    let expected = [
        ("2020-03-01T00:00:00.000Z", 2),
        ("2020-03-08T00:00:00.000Z", 2),
    ];
    assert_eq!(buckets(&agg), pairs(&expected));
    assert_eq!(agg["buckets"][0]["key"], json!(1_583_020_800_000_i64));

    let body = json!({"size": 0, "aggs": {
        "histo": {"auto_date_histogram": {"field": "date", "buckets": 2},
                  "aggs": {"v": {"sum": {"field": "v"}}}},
        "histo_avg_v": {"avg_bucket": {"buckets_path": "histo.v"}}
    }});
    let resp = common::search_logs(&catalog, &body);
    let aggs = &resp["aggregations"];
    assert_eq!(resp["hits"]["total"]["value"], 4);
    assert_eq!(buckets(&aggs["histo"]), pairs(&expected));
    assert_eq!(aggs["histo"]["buckets"][0]["v"]["value"], 3.0);
    assert_eq!(aggs["histo"]["buckets"][1]["v"]["value"], 7.0);
    assert_eq!(aggs["histo_avg_v"]["value"], 5.0);
}

#[test]
fn rest_test_hours_and_one_bucket() {
    let tmp = tempfile::tempdir().unwrap();
    let properties = json!({"date_field": {"type": "date"}});
    let (catalog, index) = common::logs_index(tmp.path(), 1, properties);
    for (i, d) in ["2017-10-20T03:08:45", "2017-10-20T04:10:15"]
        .iter()
        .enumerate()
    {
        let body = json!({ "date_field": d }).to_string();
        index
            .index_document(Some(&i.to_string()), body.as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
    let agg = histo(&catalog, json!({"field": "date_field", "buckets": 2}));
    let keys: Vec<&Value> = agg["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["key"])
        .collect();
    assert_eq!(
        keys,
        [&json!(1_508_468_400_000_i64), &json!(1_508_472_000_000_i64)]
    );
    let expected = [
        ("2017-10-20T03:00:00.000Z", 1),
        ("2017-10-20T04:00:00.000Z", 1),
    ];
    assert_eq!(buckets(&agg), pairs(&expected));
    assert_eq!(agg["interval"], "1h");
    let one = histo(&catalog, json!({"field": "date_field", "buckets": 1}));
    assert_eq!(buckets(&one), pairs(&[("2017-10-20T03:00:00.000Z", 2)]));
    assert_eq!(one["buckets"][0]["key"], json!(1_508_468_400_000_i64));
    assert_eq!(one["interval"], "3h");
}

#[test]
fn empty_buckets_zone_minimum_interval_and_format() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path(), &[]);
    // Ten buckets: nine days, the empty ones between included.
    let agg = histo(&catalog, json!({"field": "date"}));
    assert_eq!(agg["interval"], "1d");
    let counts: Vec<u64> = buckets(&agg).into_iter().map(|b| b.1).collect();
    assert_eq!(counts, [1, 1, 0, 0, 0, 0, 0, 1, 1]);
    // Local days at +05:00 start at 19:00Z the day before.
    let agg = histo(
        &catalog,
        json!({"field": "date", "buckets": 2, "time_zone": "+05:00"}),
    );
    let expected = [
        ("2020-03-01T00:00:00.000+05:00", 2),
        ("2020-03-08T00:00:00.000+05:00", 2),
    ];
    assert_eq!(buckets(&agg), pairs(&expected));
    assert_eq!(agg["buckets"][0]["key"], json!(1_583_002_800_000_i64));
    // A named zone: Paris is at +01:00 until the end of March.
    let agg = histo(
        &catalog,
        json!({"field": "date", "buckets": 2, "time_zone": "Europe/Paris"}),
    );
    assert_eq!(
        agg["buckets"][0]["key_as_string"],
        "2020-03-01T00:00:00.000+01:00"
    );
    assert_eq!(agg["buckets"][1]["key"], json!(1_583_622_000_000_i64));
    // Months at least: one bucket.
    let agg = histo(
        &catalog,
        json!({"field": "date", "buckets": 2, "minimum_interval": "month",
               "format": "yyyy-MM"}),
    );
    assert_eq!(buckets(&agg), pairs(&[("2020-03", 4)]));
    assert_eq!(agg["interval"], "1M");
}

#[test]
fn sub_aggregations_and_parent_pipelines() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path(), &[]);
    let body = json!({"size": 0, "aggs": {"histo": {
        "auto_date_histogram": {"field": "date", "buckets": 3},
        "aggs": {
            "v": {"sum": {"field": "v"}},
            "total": {"cumulative_sum": {"buckets_path": "v"}},
            "top": {"top_hits": {"size": 1, "sort": [{"v": "desc"}]}}
        }
    }}});
    let resp = common::search_logs(&catalog, &body);
    let agg = &resp["aggregations"]["histo"];
    // Nine days, three buckets: days merged by 7 (ceil(9 / 7) = 2).
    assert_eq!(agg["interval"], "7d");
    let totals: Vec<f64> = agg["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["total"]["value"].as_f64().unwrap())
        .collect();
    assert_eq!(totals, [3.0, 10.0]);
    assert_eq!(agg["buckets"][1]["top"]["hits"]["hits"][0]["_id"], "3");
}

#[test]
fn missing_counts_only_when_a_document_lacks_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path(), &[]);
    let params = json!({"field": "date", "buckets": 2, "missing": "2020-03-14"});
    // Every document has a date: `missing` changes nothing.
    assert_eq!(histo(&catalog, params.clone())["interval"], "7d");
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path(), &[json!({"v": 5})]);
    let agg = histo(&catalog, params);
    // 2020-03-01 .. 2020-03-14: fourteen days, 7-day runs from the first.
    assert_eq!(agg["interval"], "7d");
    let expected = [
        ("2020-03-01T00:00:00.000Z", 2),
        ("2020-03-08T00:00:00.000Z", 3),
    ];
    assert_eq!(buckets(&agg), pairs(&expected));
}

#[test]
fn no_data_gives_no_bucket_and_the_first_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path(), &[]);
    let body = json!({"size": 0, "query": {"term": {"v": 99}},
        "aggs": {"a": {"auto_date_histogram": {"field": "date"}},
                 "b": {"auto_date_histogram": {"field": "date", "minimum_interval": "day"}},
                 "c": {"auto_date_histogram": {"field": "unmapped"}}}});
    let aggs = common::search_logs(&catalog, &body)["aggregations"].take();
    assert_eq!(aggs["a"], json!({"buckets": [], "interval": "1s"}));
    assert_eq!(aggs["b"], json!({"buckets": [], "interval": "1d"}));
    assert_eq!(aggs["c"], json!({"buckets": [], "interval": "1s"}));
}

#[test]
fn bad_requests_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path(), &[]);
    let refused = |params: Value| {
        let body = json!({"size": 0, "aggs": {"histo": {"auto_date_histogram": params}}});
        let err = common::try_search(&catalog, &body).unwrap_err();
        (err.status(), format!("{err:?}"))
    };
    let cases = [
        (
            json!({"field": "date", "buckets": 0}),
            "buckets must be greater than 0 for [histo]",
        ),
        (
            json!({"field": "date", "buckets": -3}),
            "buckets must be greater than 0 for [histo]",
        ),
        (
            json!({"field": "date", "minimum_interval": "week"}),
            "minimum_interval must be one of [[year, month, day, hour, minute, second]]",
        ),
        (
            json!({"field": "k"}),
            "Field [k] of type [keyword] is not supported for aggregation [auto_date_histogram]",
        ),
        (
            json!({"field": "date", "buckets": 5000}),
            "buckets must be less than 2184",
        ),
        (
            json!({"field": "date", "script": "1"}),
            "scripts are not supported",
        ),
    ];
    for (params, text) in cases {
        let (status, err) = refused(params);
        assert_eq!(status, 400, "{err}");
        assert!(err.contains(text), "{err} lacks {text}");
    }
}

/// Below a bucket each parent bucket gets its own rounding, chosen from
/// its own dates (Elasticsearch chooses per parent bucket): three dates
/// within three hours get hourly buckets beside three a day apart, each as the
/// same aggregation gives over the bucket's documents alone, with its
/// sub-aggregation.
#[test]
fn below_a_bucket_each_parent_chooses_its_own_rounding() {
    let tmp = tempfile::tempdir().unwrap();
    let extra = [
        json!({"date": "2020-04-01T00:00:00Z", "v": 1, "k": "hours"}),
        json!({"date": "2020-04-01T01:00:00Z", "v": 2, "k": "hours"}),
        json!({"date": "2020-04-01T03:00:00Z", "v": 3, "k": "hours"}),
        json!({"date": "2020-05-01", "v": 4, "k": "days"}),
        json!({"date": "2020-05-02", "v": 5, "k": "days"}),
        json!({"date": "2020-05-03", "v": 6, "k": "days"}),
    ];
    let catalog = setup(tmp.path(), &extra);
    let auto = json!({"auto_date_histogram": {"field": "date", "buckets": 5},
                      "aggs": {"s": {"sum": {"field": "v"}}}});
    let body = json!({"size": 0, "aggs": {"k": {"terms": {"field": "k"}, "aggs": {"a": auto}}}});
    let out = common::search_logs(&catalog, &body)["aggregations"]["k"].take();
    let by_key = |key: &str| {
        let all = out["buckets"].as_array().unwrap();
        all.iter().find(|b| b["key"] == key).unwrap()["a"].clone()
    };
    let (hours, days) = (by_key("hours"), by_key("days"));
    assert_eq!(hours["interval"], "1h", "{out}");
    // Two days in at most five buckets: hours in runs of twelve.
    assert_eq!(days["interval"], "12h", "{out}");
    assert_eq!(
        buckets(&hours),
        pairs(&[
            ("2020-04-01T00:00:00.000Z", 1),
            ("2020-04-01T01:00:00.000Z", 1),
            ("2020-04-01T02:00:00.000Z", 0),
            ("2020-04-01T03:00:00.000Z", 1),
        ])
    );
    assert_eq!(days["buckets"][4]["s"]["value"], json!(6.0), "{out}");
    // Each parent's result is the aggregation over its documents alone.
    for key in ["hours", "days"] {
        let alone = json!({"size": 0, "query": {"term": {"k": key}}, "aggs": {"a": auto}});
        let want = common::search_logs(&catalog, &alone)["aggregations"]["a"].take();
        assert_eq!(by_key(key), want, "{key}");
    }
}
