//! `boxplot` and `median_absolute_deviation` over HTTP as Elasticsearch
//! 8.15 answers them: its t-digest's exact answers over few values at the
//! top level and under `terms` buckets, `missing` and `format`, an empty
//! boxplot's quoted infinities and NaNs, and the 400s of a bad
//! `compression`, a date field and an unknown `execution_hint`. (The
//! index is `compat_aggs'`: `int` 1, 51, 151 tagged foo, 101 bar, and a
//! bar document without one.)

use serde_json::{json, Value};

use crate::compat_aggs::{aggs, assert_error, load};
use crate::support::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boxplot_and_median_absolute_deviation_replies() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let out = aggs(
        &s,
        json!({
            "b": {"boxplot": {"field": "int"}},
            "b0": {"boxplot": {"field": "int", "missing": 0}},
            "mad": {"median_absolute_deviation": {"field": "int"}},
            "none": {"boxplot": {"field": "nowhere"}},
            "by_tag": {"terms": {"field": "tag"}, "aggs": {
                "b": {"boxplot": {"field": "int"}},
                "mad": {"median_absolute_deviation": {"field": "int", "format": "0.0"}}}}
        }),
    )
    .await;
    // Sorted 1, 51, 101, 151: quartiles at indexes 0.75, 1.5 and 2.25.
    assert_eq!(
        out["b"],
        json!({"min": 1.0, "max": 151.0, "q1": 38.5, "q2": 76.0, "q3": 113.5,
               "lower": 1.0, "upper": 151.0})
    );
    assert_eq!(
        out["b0"],
        json!({"min": 0.0, "max": 151.0, "q1": 1.0, "q2": 51.0, "q3": 101.0,
               "lower": 0.0, "upper": 151.0})
    );
    // Median 76; deviations 25, 25, 75, 75.
    assert_eq!(out["mad"], json!({"value": 50.0}));
    assert_eq!(
        out["none"],
        json!({"min": "Infinity", "max": "-Infinity", "q1": "NaN", "q2": "NaN",
               "q3": "NaN", "lower": "NaN", "upper": "-Infinity"})
    );
    let foo = &out["by_tag"]["buckets"][0];
    assert_eq!(foo["key"], "foo");
    assert_eq!(
        foo["b"],
        json!({"min": 1.0, "max": 151.0, "q1": 26.0, "q2": 51.0, "q3": 101.0,
               "lower": 1.0, "upper": 151.0})
    );
    assert_eq!(
        foo["mad"],
        json!({"value": 50.0, "value_as_string": "50.0"})
    );
    let bar = &out["by_tag"]["buckets"][1];
    assert_eq!(bar["mad"], json!({"value": 0.0, "value_as_string": "0.0"}));
    let refused = |aggs: Value| {
        let s = &s;
        async move {
            s.json("POST", "/m/_search", Some(json!({"size": 0, "aggs": aggs})))
                .await
        }
    };
    let r =
        refused(json!({"mad": {"median_absolute_deviation": {"field": "int", "compression": 0}}}))
            .await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "[compression] must be greater than 0. Found [0.0] in [mad]",
    );
    let r = refused(json!({"b": {"boxplot": {"field": "t"}}})).await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "Field [t] of type [date] is not supported for aggregation [boxplot]",
    );
    let r = refused(json!({"b": {"boxplot": {"field": "int", "execution_hint": "fast"}}})).await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "Invalid execution_hint [fast], valid values are [default, high_accuracy]",
    );
}
