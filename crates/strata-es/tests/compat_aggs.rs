//! The replies of `percentile_ranks`, `top_metrics` and `multi_terms` over HTTP, shape for shape as
//! Elasticsearch 8 gives them: keyed and unkeyed, at the top level and
//! under `terms` and `date_histogram` buckets, on a date field, with
//! `missing`, and the 400s bad requests get.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

/// 2024-01-01T00:00:00Z.
const JAN1: i64 = 1_704_067_200_000;
const DAY: i64 = 86_400_000;

/// The index `m`: Elasticsearch's percentile ranks test documents (`int`
/// 1, 51, 101, 151) with a tag, a day and a flag, and one document with
/// no `int`.
pub(crate) async fn load(s: &TestServer) {
    let create = json!({
        "settings": {"number_of_shards": 2, "number_of_replicas": 0},
        "mappings": {"properties": {
            "int": {"type": "integer"}, "price": {"type": "double"},
            "tag": {"type": "keyword"}, "t": {"type": "date"},
            "flag": {"type": "boolean"}, "note": {"type": "text"}}}
    });
    assert_eq!(s.json("PUT", "/m", Some(create)).await.status, 200);
    let docs = [
        json!({"int": 1, "price": 1.5, "tag": "foo", "t": JAN1, "flag": true, "note": "a"}),
        json!({"int": 51, "price": 2.5, "tag": "foo", "t": JAN1 + DAY, "flag": false, "note": "b"}),
        json!({"int": 101, "price": 3.5, "tag": "bar", "t": JAN1, "flag": true, "note": "c"}),
        json!({"int": 151, "price": 4.5, "tag": "foo", "t": JAN1 + 2 * DAY, "flag": true, "note": "d"}),
        json!({"price": 5.5, "tag": "bar", "t": JAN1 + DAY, "flag": false, "note": "e"}),
    ];
    let mut body = String::new();
    for (i, doc) in docs.iter().enumerate() {
        body.push_str(&json!({"index": {"_id": i.to_string()}}).to_string());
        body.push('\n');
        body.push_str(&doc.to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send("POST", "/m/_bulk?refresh=true", &nd, Some(body.as_bytes()))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false);
}

pub(crate) async fn aggs(s: &TestServer, aggs: Value) -> Value {
    let r = s
        .json("POST", "/m/_search", Some(json!({"size": 0, "aggs": aggs})))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["aggregations"].clone()
}

/// Whether `got` has exactly the shape of `want` (same keys, same
/// lengths, same strings, integers and nulls) with each float within 1 of
/// it: Elasticsearch's REST tests' tolerance for ranks, which are
/// estimates in both.
fn same_shape(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Number(g), Value::Number(w)) if w.is_f64() => {
            g.as_f64().zip(w.as_f64()).is_some_and(|(g, w)| {
                g.is_sign_positive() == w.is_sign_positive() && (g - w).abs() <= 1.0
            })
        }
        (Value::Array(g), Value::Array(w)) => {
            g.len() == w.len() && g.iter().zip(w).all(|(g, w)| same_shape(g, w))
        }
        (Value::Object(g), Value::Object(w)) => {
            g.len() == w.len()
                && g.iter()
                    .all(|(k, g)| w.get(k).is_some_and(|w| same_shape(g, w)))
        }
        (g, w) => g == w,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn percentile_ranks_replies() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let out = aggs(
        &s,
        json!({
            "keyed": {"percentile_ranks": {"field": "int", "values": [99, 50]}},
            "list": {"percentile_ranks": {"field": "int", "values": [50, 99], "keyed": false}},
            "missing": {"percentile_ranks": {"field": "int", "values": [200], "missing": 500}},
            "unmapped": {"percentile_ranks": {"field": "nope", "values": [1]}},
            "tags": {"terms": {"field": "tag"},
                     "aggs": {"r": {"percentile_ranks": {"field": "int", "values": [100]}}}},
            "days": {"date_histogram": {"field": "t", "calendar_interval": "day"},
                     "aggs": {"r": {"percentile_ranks": {"field": "int", "values": [60],
                                                         "keyed": false}}}}
        }),
    )
    .await;
    let day = |i: i64, count: u64, r: Value| {
        json!({"key_as_string": format!("2024-01-0{}T00:00:00.000Z", i + 1),
               "key": JAN1 + i * DAY, "doc_count": count, "r": {"values": r}})
    };
    assert!(
        same_shape(
            &out,
            &json!({
            "keyed": {"values": {"50.0": 25.0, "99.0": 50.0}},
            "list": {"values": [{"key": 50.0, "value": 25.0}, {"key": 99.0, "value": 50.0}]},
            "missing": {"values": {"200.0": 80.0}},
            "unmapped": {"values": {"1.0": null}},
            "tags": {"doc_count_error_upper_bound": 0, "sum_other_doc_count": 0, "buckets": [
                {"key": "foo", "doc_count": 3, "r": {"values": {"100.0": 66.7}}},
                {"key": "bar", "doc_count": 2, "r": {"values": {"100.0": 0.0}}}
            ]},
            "days": {"buckets": [
                day(0, 2, json!([{"key": 60.0, "value": 50.0}])),
                day(1, 2, json!([{"key": 60.0, "value": 100.0}])),
                day(2, 1, json!([{"key": 60.0, "value": 0.0}])),
            ]}
            })
        ),
        "{out}"
    );

    // On a date field: keys as Java prints the double, and each rank
    // also formatted with the field's format beside it. Two documents on
    // the 1st, two on the 2nd, one on the 3rd: the 2nd ranks (2 + 1) / 5.
    let dates = aggs(
        &s,
        json!({"d": {"percentile_ranks": {"field": "t", "values": [JAN1 + DAY]}},
               "p": {"percentiles": {"field": "t", "percents": [50], "keyed": false}}}),
    )
    .await;
    assert_eq!(
        dates["d"],
        json!({"values": {"1.7041536E12": 60.0,
                          "1.7041536E12_as_string": "1970-01-01T00:00:00.060Z"}}),
        "{dates}"
    );
    assert_eq!(
        dates["p"],
        json!({"values": [{"key": 50.0, "value": (JAN1 + DAY) as f64,
                           "value_as_string": "2024-01-02T00:00:00.000Z"}]}),
        "{dates}"
    );
}

/// Asserts a 400 of type `kind` whose reason (after the body position
/// parse errors start with, `[1:15] `) starts with `reason`.
pub(crate) fn assert_error(r: &support::Response, kind: &str, reason: &str) {
    assert_eq!(r.status, 400, "{}", r.text());
    let body = r.json();
    assert_eq!(body["status"], 400);
    assert_eq!(body["error"]["type"], kind, "{body}");
    assert_eq!(body["error"]["root_cause"][0]["type"], kind, "{body}");
    let got = body["error"]["reason"].as_str().unwrap();
    let got = match got.split_once("] ") {
        Some((at, rest)) if at.starts_with('[') && at[1..].contains(':') => rest,
        _ => got,
    };
    assert!(
        got.starts_with(reason),
        "reason [{got}] does not start with [{reason}]"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn percentile_ranks_refusals() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let refused = |aggs: Value| {
        let s = &s;
        async move {
            s.json("POST", "/m/_search", Some(json!({"size": 0, "aggs": aggs})))
                .await
        }
    };
    let r = refused(json!({"r": {"percentile_ranks": {"field": "int", "values": []}}})).await;
    assert_error(
        &r,
        "x_content_parse_exception",
        "Failed to build [percentile_ranks] after last required field arrived",
    );
    let r = refused(json!({"r": {"percentile_ranks": {"field": "int"}}})).await;
    assert_error(&r, "x_content_parse_exception", "Required [values]");
    let r = refused(json!({"r": {"percentile_ranks": {"field": "tag", "values": [1]}}})).await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "Field [tag] of type [keyword] is not supported for aggregation [percentile_ranks]",
    );
    let r = refused(json!({"r": {"percentile_ranks": {"field": "note", "values": [1]}}})).await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "Text fields are not optimised for operations",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn top_metrics_replies() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let out = aggs(
        &s,
        json!({
            "best": {"top_metrics": {"metrics": [{"field": "price"}, {"field": "t"},
                                                 {"field": "flag"}, {"field": "tag"}],
                                     "sort": {"int": "desc"}}},
            "tags": {"terms": {"field": "tag"},
                     "aggs": {"tm": {"top_metrics": {"metrics": {"field": "int"},
                                                     "sort": {"price": "desc"}, "size": 2}}}},
            "days": {"date_histogram": {"field": "t", "calendar_interval": "day"},
                     "aggs": {"tm": {"top_metrics": {"metrics": {"field": "price"},
                                                     "sort": {"price": "asc"}}}}},
            "latest": {"top_metrics": {"metrics": {"field": "int"}, "sort": {"t": "desc"}}}
        }),
    )
    .await;
    let day = |i: i64, count: u64, tm: Value| {
        json!({"key_as_string": format!("2024-01-0{}T00:00:00.000Z", i + 1),
               "key": JAN1 + i * DAY, "doc_count": count, "tm": tm})
    };
    let at = |i: i64| format!("2024-01-0{}T00:00:00.000Z", i + 1);
    assert_eq!(
        out,
        json!({
            "best": {"top": [{"sort": [151], "metrics": {"price": 4.5, "t": at(2),
                                                          "flag": true, "tag": "foo"}}]},
            "tags": {"doc_count_error_upper_bound": 0, "sum_other_doc_count": 0, "buckets": [
                {"key": "foo", "doc_count": 3, "tm": {"top": [
                    {"sort": [4.5], "metrics": {"int": 151}},
                    {"sort": [2.5], "metrics": {"int": 51}}]}},
                // The document without `int` sorts first by price: null.
                {"key": "bar", "doc_count": 2, "tm": {"top": [
                    {"sort": [5.5], "metrics": {"int": null}},
                    {"sort": [3.5], "metrics": {"int": 101}}]}}
            ]},
            "days": {"buckets": [
                day(0, 2, json!({"top": [{"sort": [1.5], "metrics": {"price": 1.5}}]})),
                day(1, 2, json!({"top": [{"sort": [2.5], "metrics": {"price": 2.5}}]})),
                day(2, 1, json!({"top": [{"sort": [4.5], "metrics": {"price": 4.5}}]})),
            ]},
            // Sorted by a date: the sort value in the field's format.
            "latest": {"top": [{"sort": [at(2)], "metrics": {"int": 151}}]}
        }),
        "{out}"
    );
    let r = s
        .json(
            "POST",
            "/m/_search",
            Some(json!({"size": 0, "aggs": {"tm": {"top_metrics": {
                "metrics": {"field": "int"}, "sort": {"int": "asc"}, "size": 11}}}})),
        )
        .await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "[top_metrics.size] must not be more than [10] but was [11]. This limit can be set by changing the [index.top_metrics_max_size] index level setting.",
    );
    let r = s
        .json(
            "POST",
            "/m/_search",
            Some(json!({"size": 0, "aggs": {"tm": {"top_metrics": {
                "metrics": {"field": "int"}, "sort": {"tag": "asc"}}}}})),
        )
        .await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "error building sort for field [tag] of type [keyword] in index [m]: only supported on numeric fields",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_terms_replies() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let out = aggs(
        &s,
        json!({
            "mt": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "flag"}], "size": 3,
                                   "show_term_doc_count_error": true},
                   "aggs": {"p": {"max": {"field": "price"}}}},
            "dated": {"multi_terms": {"terms": [{"field": "t"}, {"field": "int", "missing": 0}],
                                      "order": {"_key": "desc"}, "size": 2}},
            "days": {"date_histogram": {"field": "t", "calendar_interval": "day"},
                     "aggs": {"mt": {"multi_terms": {"terms": [{"field": "tag"},
                                                               {"field": "price"}]}}}}
        }),
    )
    .await;
    let at = |i: i64| format!("2024-01-0{}T00:00:00.000Z", i + 1);
    let mt = |tag: &str, flag: bool, count: u64, p: f64| {
        json!({"key": [tag, flag], "key_as_string": format!("{tag}|{flag}"), "doc_count": count,
               "doc_count_error_upper_bound": 0, "p": {"value": p}})
    };
    let day_mt = |tag: &str, price: f64| json!({"key": [tag, price], "key_as_string": format!("{tag}|{price:?}"), "doc_count": 1});
    let day = |i: i64, count: u64, buckets: Vec<Value>| {
        json!({"key_as_string": at(i), "key": JAN1 + i * DAY, "doc_count": count,
               "mt": {"doc_count_error_upper_bound": 0, "sum_other_doc_count": 0,
                      "buckets": buckets}})
    };
    assert_eq!(
        out,
        json!({
            "mt": {"doc_count_error_upper_bound": 0, "sum_other_doc_count": 1, "buckets": [
                mt("foo", true, 2, 4.5), mt("bar", false, 1, 5.5), mt("bar", true, 1, 3.5)]},
            // Dates in the field's format; the document without `int` takes 0.
            "dated": {"doc_count_error_upper_bound": 0, "sum_other_doc_count": 3, "buckets": [
                {"key": [at(2), 151], "key_as_string": format!("{}|151", at(2)), "doc_count": 1},
                {"key": [at(1), 51], "key_as_string": format!("{}|51", at(1)), "doc_count": 1}]},
            "days": {"buckets": [
                day(0, 2, vec![day_mt("bar", 3.5), day_mt("foo", 1.5)]),
                day(1, 2, vec![day_mt("bar", 5.5), day_mt("foo", 2.5)]),
                day(2, 1, vec![day_mt("foo", 4.5)]),
            ]}
        }),
        "{out}"
    );
    let r = s
        .json(
            "POST",
            "/m/_search",
            Some(json!({"size": 0, "aggs": {"mt": {"multi_terms": {
                "terms": [{"field": "tag"}, {"field": "note"}]}}}})),
        )
        .await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "Text fields are not optimised for operations",
    );
    let r = s
        .json(
            "POST",
            "/m/_search",
            Some(json!({"size": 0, "aggs": {"mt": {"multi_terms": {
                "terms": [{"field": "tag"}, {"field": "flag"}], "size": 0}}}})),
        )
        .await;
    assert_error(
        &r,
        "x_content_parse_exception",
        "[multi_terms] failed to parse field [size]",
    );
}
