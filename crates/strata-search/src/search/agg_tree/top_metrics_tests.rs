//! `top_metrics`' parse: defaults, the forms of `metrics` and `sort`, and
//! the refusals in Elasticsearch's words.

use serde_json::{json, Value};

use super::TopMetricsParams;
use crate::error::Result;
use crate::search::agg_tree::tests::{assert_refusals, typed};
use crate::search::agg_tree::{AggTree, TypedParams};

fn parsed(params: Value) -> Result<TopMetricsParams> {
    match typed("tm", "top_metrics", params)? {
        TypedParams::TopMetrics(p) => Ok(p),
        other => panic!("typed as {other:?}"),
    }
}

#[test]
fn one_metric_or_a_list_and_every_sort_form() {
    let p = parsed(json!({"metrics": {"field": "m"}, "sort": {"s": "desc"}})).unwrap();
    assert_eq!((p.metrics, p.size), (vec!["m".to_string()], 1));
    assert_eq!((p.sort.field.as_str(), p.sort.descending), ("s", true));
    let p = parsed(json!({"metrics": [{"field": "a"}, {"field": "b"}],
                          "sort": [{"s": {"order": "asc"}}], "size": 10}))
    .unwrap();
    assert_eq!(p.metrics, ["a", "b"]);
    assert_eq!((p.sort.descending, p.size), (false, 10));
    let p = parsed(json!({"metrics": {"field": "m"}, "sort": "_score"})).unwrap();
    assert_eq!((p.sort.field.as_str(), p.sort.descending), ("_score", true));
    let p = parsed(json!({"metrics": {"field": "m"}, "sort": "s"})).unwrap();
    assert!(!p.sort.descending);
}

#[test]
fn bad_parameters_are_refused_in_elasticsearchs_words() {
    let m = json!({"field": "m"});
    let cases = [
        (
            json!({"metrics": m, "sort": {"s": "asc"}, "size": 11}),
            "[top_metrics.size] must not be more than [10] but was [11]. This limit can be set by changing the [index.top_metrics_max_size] index level setting.",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": m, "sort": {"s": "asc"}, "size": 0}),
            "[size] must be more than 0 but was [0]",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": m, "sort": {"s": "asc"}, "size": -3}),
            "[size] must be more than 0 but was [-3]",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": m, "sort": {"s": "asc"}, "size": "12"}),
            "[top_metrics.size] must not be more than [10] but was [12]. This limit can be set by changing the [index.top_metrics_max_size] index level setting.",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": m, "sort": {"s": "asc"}, "size": "x"}),
            "[size] of [top_metrics] aggregation [tm] must be an integer, got [\"x\"]",
            "parsing_exception",
        ),
        (
            json!({"metrics": m}),
            "Required [sort]",
            "x_content_parse_exception",
        ),
        (
            json!({"sort": {"s": "asc"}}),
            "Required [metrics]",
            "x_content_parse_exception",
        ),
        (
            json!({"metrics": m, "sort": [{"a": "asc"}, {"b": "asc"}]}),
            "[sort] must contain exactly one sort",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": m, "sort": {"s": {"order": "asc", "missing": "_first"}}}),
            "[missing] of the sort of [top_metrics] is not supported by this server",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": m, "sort": "_doc"}),
            "sorting [top_metrics] by [_doc] is not supported by this server",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": [], "sort": "s"}),
            "[metrics] of [top_metrics] aggregation [tm] must not be empty",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": "m", "sort": "s"}),
            "[metrics] of [top_metrics] aggregation [tm] must be an object or an array of objects, got [\"m\"]",
            "parsing_exception",
        ),
        (
            json!({"metrics": {"field": "m", "missing": 1}, "sort": "s"}),
            "[missing] of a metric of [top_metrics] aggregation [tm] is not supported by this server",
            "illegal_argument_exception",
        ),
        (
            json!({"metrics": {"fieldz": "m"}, "sort": "s"}),
            "[field_config] unknown field [fieldz]",
            "x_content_parse_exception",
        ),
        (
            json!({"metrics": m, "sort": "s", "from": 1}),
            "[top_metrics] unknown field [from]",
            "x_content_parse_exception",
        ),
    ];
    assert_refusals("tm", "top_metrics", &cases);
}

#[test]
fn it_takes_no_sub_aggregations() {
    let err = AggTree::parse(json!({"tm": {
        "top_metrics": {"metrics": {"field": "m"}, "sort": "s"},
        "aggs": {"x": {"max": {"field": "n"}}}
    }}))
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Aggregator [tm] of type [top_metrics] cannot accept sub-aggregations"
    );
}
