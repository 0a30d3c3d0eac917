//! Numeric `percentiles` over HTTP as Elasticsearch 8 answers them: its
//! sorting digest's exact answers over few values (8.9 on) at the top level and under
//! `terms` buckets, `keyed: false` with a `format`, and the 400s of a
//! negative `compression`, a keyword field and a `terms` ordered by a
//! percentile. (The index is `compat_aggs`'.)

use serde_json::{json, Value};

use crate::compat_aggs::{aggs, assert_error, load};
use crate::support::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numeric_percentiles_replies() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    // Elasticsearch's answers (index p * (n - 1) of the sorted values), at
    // the top level and under `terms` buckets (foo: 1, 51, 151; bar: 101).
    let out = aggs(
        &s,
        json!({
            "p": {"percentiles": {"field": "int", "percents": [25, 50, 75]}},
            "by_tag": {"terms": {"field": "tag"}, "aggs": {
                "p": {"percentiles": {"field": "int", "percents": [25, 50, 75],
                                      "keyed": false, "format": "0.0"}}}}
        }),
    )
    .await;
    assert_eq!(
        out["p"],
        json!({"values": {"25.0": 38.5, "50.0": 76.0, "75.0": 113.5}})
    );
    let foo = &out["by_tag"]["buckets"][0];
    assert_eq!(foo["key"], "foo");
    assert_eq!(
        foo["p"]["values"],
        json!([{"key": 25.0, "value": 26.0, "value_as_string": "26.0"},
               {"key": 50.0, "value": 51.0, "value_as_string": "51.0"},
               {"key": 75.0, "value": 101.0, "value_as_string": "101.0"}])
    );
    assert_eq!(
        out["by_tag"]["buckets"][1]["p"]["values"][1]["value"],
        101.0
    );
    let refused = |aggs: Value| {
        let s = &s;
        async move {
            s.json("POST", "/m/_search", Some(json!({"size": 0, "aggs": aggs})))
                .await
        }
    };
    let r =
        refused(json!({"p": {"percentiles": {"field": "int", "tdigest": {"compression": -1}}}}))
            .await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "[compression] must be greater than or equal to 0. Found [-1.0] in [p]",
    );
    let r = refused(json!({"p": {"percentiles": {"field": "tag"}}})).await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "Field [tag] of type [keyword] is not supported for aggregation [percentiles]",
    );
    let r = refused(
        json!({"t": {"terms": {"field": "tag", "order": {"p.50": "desc"}},
                                 "aggs": {"p": {"percentiles": {"field": "int"}}}}}),
    )
    .await;
    assert_error(
        &r,
        "illegal_argument_exception",
        "ordering [terms] aggregation [t] by the [percentiles] sub-aggregation [p.50]",
    );
}
