//! Tests of the sibling pipelines: results against OpenSearch 2.19.6's for
//! the same buckets, and the checks of `buckets_path`.

use serde_json::json;

use super::*;
use crate::search::agg_tree::AggTree;

fn values(vs: &[(&str, f64)]) -> Vec<(String, f64)> {
    vs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn results_are_opensearchs() {
    // Terms buckets k1, k0, k2 with sums 66, 45, 29 (OpenSearch's answers).
    let v = values(&[("k1", 66.0), ("k0", 45.0), ("k2", 29.0)]);
    assert_eq!(
        SiblingKind::Max.result(&v),
        json!({"value": 66.0, "keys": ["k1"]})
    );
    assert_eq!(
        SiblingKind::Min.result(&v),
        json!({"value": 29.0, "keys": ["k2"]})
    );
    assert_eq!(
        SiblingKind::Avg.result(&v),
        json!({"value": 46.666666666666664})
    );
    assert_eq!(SiblingKind::Sum.result(&v), json!({"value": 140.0}));
    let stats =
        json!({"count": 3, "min": 29.0, "max": 66.0, "avg": 46.666666666666664, "sum": 140.0});
    assert_eq!(SiblingKind::Stats.result(&v), stats);
    let ext = SiblingKind::ExtendedStats { sigma: 2.0 }.result(&v);
    assert_eq!(ext["variance"], json!(229.55555555555566));
    assert_eq!(ext["variance_sampling"], json!(344.3333333333335));
    assert_eq!(ext["std_deviation"], json!(15.151090903151353));
    assert_eq!(ext["sum_of_squares"], json!(7222.0));
    let bounds = json!({"upper": 76.96884847296937, "lower": 16.36448486036396,
        "upper_population": 76.96884847296937, "lower_population": 16.36448486036396,
        "upper_sampling": 83.77910842591142, "lower_sampling": 9.554224907421911});
    assert_eq!(ext["std_deviation_bounds"], bounds);
    let percents = vec![1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];
    let pct = SiblingKind::Percentiles {
        percents,
        keyed: true,
    }
    .result(&v);
    let want = json!({"1.0": 29.0, "5.0": 29.0, "25.0": 45.0, "50.0": 45.0, "75.0": 66.0,
        "95.0": 66.0, "99.0": 66.0});
    assert_eq!(pct["values"], want);
    // Seven daily sums 1, 4, ..., 49; ties in a max keep every key.
    let squares: Vec<(String, f64)> = (1..=7)
        .map(|i| (format!("d{i}"), f64::from(i * i)))
        .collect();
    let pct = SiblingKind::Percentiles {
        percents: vec![10.0, 50.5],
        keyed: false,
    };
    let want = json!([{"key": 10.0, "value": 4.0}, {"key": 50.5, "value": 16.0}]);
    assert_eq!(pct.result(&squares)["values"], want);
    let ties = values(&[("0.0", 1.0), ("10.0", 1.0), ("20.0", 0.0)]);
    assert_eq!(
        SiblingKind::Max.result(&ties)["keys"],
        json!(["0.0", "10.0"])
    );
}

#[test]
fn no_buckets_give_opensearchs_nulls() {
    let none = Vec::new();
    assert_eq!(
        SiblingKind::Max.result(&none),
        json!({"value": null, "keys": []})
    );
    assert_eq!(SiblingKind::Avg.result(&none), json!({"value": null}));
    assert_eq!(SiblingKind::Sum.result(&none), json!({"value": 0.0}));
    let stats = json!({"count": 0, "min": null, "max": null, "avg": null, "sum": 0.0});
    assert_eq!(SiblingKind::Stats.result(&none), stats);
    let ext = SiblingKind::ExtendedStats { sigma: 2.0 }.result(&none);
    assert_eq!(
        (&ext["sum_of_squares"], &ext["variance"]),
        (&json!(null), &json!(null))
    );
    assert_eq!(ext["std_deviation_bounds"]["upper_sampling"], json!(null));
    // One bucket: OpenSearch 2.19.6 writes the sampling statistics as "NaN".
    let one = SiblingKind::ExtendedStats { sigma: 2.0 }.result(&values(&[("a", 3.0)]));
    assert_eq!(
        (&one["variance"], &one["sum_of_squares"]),
        (&json!(0.0), &json!(9.0))
    );
    assert_eq!(one["variance_sampling"], json!("NaN"));
    assert_eq!(one["std_deviation_sampling"], json!("NaN"));
    assert_eq!(one["std_deviation_bounds"]["upper"], json!(3.0));
    assert_eq!(one["std_deviation_bounds"]["lower_sampling"], json!("NaN"));
    let pct = SiblingKind::Percentiles {
        percents: vec![50.0],
        keyed: true,
    };
    assert_eq!(pct.result(&none), json!({"values": {"50.0": null}}));
}

fn request(aggs: serde_json::Value) -> SearchRequest {
    SearchRequest::parse(&json!({ "aggs": aggs })).unwrap()
}

#[test]
fn paths_must_start_at_a_multi_bucket_sibling() {
    let terms = json!({"terms": {"field": "t"}, "aggs": {"s": {"sum": {"field": "n"}}}});
    let err = |aggs| split(&request(aggs)).unwrap_err().to_string();
    assert_eq!(
        err(json!({"by": terms, "m": {"max_bucket": {"buckets_path": "nope>s"}}})),
        "Validation Failed: 1: No aggregation found for path [nope>s];"
    );
    assert_eq!(
        err(json!({"by": terms, "m": {"max_bucket": {"buckets_path": "by>x"}}})),
        "Validation Failed: 1: No aggregation [x] found for path [by>x];"
    );
    assert_eq!(
        err(json!({"by": {"sum": {"field": "n"}}, "m": {"max_bucket": {"buckets_path": "by>s"}}})),
        "Validation Failed: 1: The first aggregation in buckets_path must be a multi-bucket aggregation for aggregation [m] found :sum for buckets path: by>s;"
    );
    assert_eq!(
        err(json!({"by": terms, "m": {"max_bucket": {"buckets_path": "by"}}})),
        "Validation Failed: 1: No aggregation found for path [by];"
    );
    // `by.s` is `by>s`, as Elasticsearch's REST tests write it.
    let dotted = json!({"by": terms, "m": {"max_bucket": {"buckets_path": "by.s"}}});
    assert!(split(&request(dotted)).unwrap().is_some());
    assert_eq!(
        err(json!({"by": terms, "m": {"max_bucket": {"buckets_path": "by.x"}}})),
        "Validation Failed: 1: No aggregation [x] found for path [by.x];"
    );
    // Inside a bucket, beside a histogram; the request keeps everything else.
    let inner = json!({"by": {"terms": {"field": "t"}, "aggs": {
        "h": {"histogram": {"field": "n", "interval": 10}},
        "m": {"max_bucket": {"buckets_path": "h>_count"}}}},
        "top": {"sum_bucket": {"buckets_path": "by>m"}}});
    let (stripped, siblings) = split(&request(inner)).unwrap().unwrap();
    let names: Vec<(&[String], &str)> = siblings
        .0
        .iter()
        .map(|s| (&s.scope[..], s.name.as_str()))
        .collect();
    assert_eq!(names, [(&["by".to_string()][..], "m"), (&[][..], "top")]);
    let tree = stripped.aggs.as_ref().map(AggTree::json).cloned();
    assert!(tree.is_some_and(|t| t["by"]["aggs"].get("m").is_none() && t.get("top").is_none()));
}

#[test]
fn results_land_in_every_bucket_of_their_scope() {
    let inner = json!({"by": {"terms": {"field": "t"}, "aggs": {
        "h": {"histogram": {"field": "n", "interval": 10}},
        "m": {"max_bucket": {"buckets_path": "h>_count"}}}},
        "top": {"sum_bucket": {"buckets_path": "by>m"}}});
    let (_, siblings) = split(&request(inner)).unwrap().unwrap();
    let histogram = |counts: &[u64]| {
        let buckets: Vec<_> = counts
            .iter()
            .enumerate()
            .map(|(i, c)| json!({"key": i as f64 * 10.0, "doc_count": c}))
            .collect();
        json!({ "buckets": buckets })
    };
    let mut body = json!({"aggregations": {"by": {"buckets": [
        {"key": "a", "doc_count": 3, "h": histogram(&[1, 2, 0])},
        {"key": "b", "doc_count": 4, "h": histogram(&[0, 0, 4])},
    ]}}});
    siblings.apply(&mut body).unwrap();
    let by = &body["aggregations"]["by"]["buckets"];
    assert_eq!(by[0]["m"], json!({"value": 2.0, "keys": ["10.0"]}));
    assert_eq!(by[1]["m"], json!({"value": 4.0, "keys": ["20.0"]}));
    assert_eq!(body["aggregations"]["top"], json!({"value": 6.0}));
}
