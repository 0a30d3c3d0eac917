//! The pipelines' parameters as parsed, and their refusals with their
//! paths, in and out of their parents.

use serde_json::{json, Value};

use super::{GapPolicy, PipelineParams, SortKey};
use crate::error::{QueryStep, Result};
use crate::search::agg_tree::{AggTree, TypedParams};

/// `{"p": {kind: params}}` under an aggregation `{parent_kind: ...}` named
/// `outer` (`None`: at the top level); its parameters or the parse error.
fn parsed_in(parent: Option<Value>, kind: &str, params: Value) -> Result<PipelineParams> {
    let pipe = json!({"p": {kind: params}});
    let json = match parent {
        Some(mut outer) => {
            outer["aggs"] = pipe;
            json!({ "outer": outer })
        }
        None => pipe,
    };
    let tree = AggTree::parse(json)?;
    let node = match tree.nodes()[0].subs.first() {
        Some(sub) => sub,
        None => &tree.nodes()[0],
    };
    match &node.typed {
        TypedParams::Pipeline(p) => Ok(p.clone()),
        other => panic!("typed as {other:?}"),
    }
}

fn histogram() -> Option<Value> {
    Some(json!({"histogram": {"field": "n", "interval": 1}}))
}

fn terms() -> Option<Value> {
    Some(json!({"terms": {"field": "k"}}))
}

fn key(k: &str) -> QueryStep {
    QueryStep::Key(k.into())
}

#[test]
fn each_kind_reads_its_parameters() {
    let d = parsed_in(
        histogram(),
        "derivative",
        json!({"buckets_path": "m.avg", "gap_policy": "insert_zeros", "unit": "1s", "format": null}),
    )
    .unwrap();
    let want = PipelineParams::Derivative {
        buckets_path: "m.avg".into(),
        gap_policy: GapPolicy::InsertZeros,
        unit_millis: Some(1000.0),
    };
    assert_eq!(d, want);
    let date = Some(json!({"date_histogram": {"field": "t", "fixed_interval": "1d"}}));
    let c = parsed_in(date, "cumulative_sum", json!({"buckets_path": "_count"})).unwrap();
    assert_eq!(
        c,
        PipelineParams::CumulativeSum {
            buckets_path: "_count".into()
        }
    );
    let s = parsed_in(
        terms(),
        "bucket_sort",
        json!({"sort": [{"m": "desc"}, {"_key": {"order": "asc"}}, "_count"], "from": 1,
               "size": 2, "gap_policy": "keep_values"}),
    )
    .unwrap();
    let sort_key = |path: &str, descending| SortKey {
        path: path.into(),
        descending,
    };
    assert_eq!(
        s,
        PipelineParams::BucketSort {
            sort: vec![
                sort_key("m", true),
                sort_key("_key", false),
                sort_key("_count", false)
            ],
            from: 1,
            size: Some(2),
            gap_policy: GapPolicy::KeepValues,
        }
    );
    let lagged = json!({"buckets_path": "m", "lag": 7, "gap_policy": "insert_zeros"});
    let d = parsed_in(histogram(), "serial_diff", lagged).unwrap();
    let want = PipelineParams::SerialDiff {
        buckets_path: "m".into(),
        gap_policy: GapPolicy::InsertZeros,
        lag: 7,
    };
    assert_eq!(d, want);
    let d = parsed_in(histogram(), "serial_diff", json!({"buckets_path": "m"})).unwrap();
    assert!(matches!(
        d,
        PipelineParams::SerialDiff {
            lag: 1,
            gap_policy: GapPolicy::Skip,
            ..
        }
    ));
    let one = parsed_in(terms(), "bucket_sort", json!({"sort": "_key"})).unwrap();
    assert_eq!(
        one,
        PipelineParams::BucketSort {
            sort: vec![sort_key("_key", false)],
            from: 0,
            size: None,
            gap_policy: GapPolicy::Skip,
        }
    );
}

#[test]
fn bad_parameters_are_refused_at_parse_with_their_path() {
    let cases: &[(Option<Value>, &str, Value, &str, &str)] = &[
        (histogram(), "derivative", json!(1), "[derivative] of [p] must be an object", "parsing_exception"),
        (histogram(), "derivative", json!({"buckets_path": "m", "lag": 1}),
         "[derivative] unknown field [lag] in aggregation [p]", "parsing_exception"),
        (histogram(), "cumulative_sum", json!({"buckets_path": "m", "gap_policy": "skip"}),
         "[cumulative_sum] unknown field [gap_policy] in aggregation [p]", "parsing_exception"),
        (histogram(), "derivative", json!({"buckets_path": "m", "format": "0.0"}),
         "[format] of [derivative] aggregation [p] is not supported", "illegal_argument_exception"),
        (histogram(), "derivative", json!({"buckets_path": "m", "gap_policy": "fill"}),
         "Unknown gap policy [fill] of [p], expected [skip, insert_zeros, keep_values]", "parsing_exception"),
        (histogram(), "derivative", json!({}),
         "Required parameter [buckets_path] missing in [p]", "parsing_exception"),
        (histogram(), "cumulative_sum", json!({"buckets_path": {"a": "m"}}),
         "[buckets_path] of [p] must be a string, got [{\"a\":\"m\"}]", "parsing_exception"),
        (histogram(), "derivative", json!({"buckets_path": "m", "unit": "1M"}),
         "[unit] [\"1M\"] of derivative [p] is not supported (second, minute, hour, day and week are)",
         "illegal_argument_exception"),
        (histogram(), "serial_diff", json!({"buckets_path": "m", "lag": 0}),
         "[lag] must be a positive integer: [p]", "illegal_argument_exception"),
        (histogram(), "serial_diff", json!({"buckets_path": "m", "unit": "1s"}),
         "[serial_diff] unknown field [unit] in aggregation [p]", "parsing_exception"),
        (terms(), "bucket_sort", json!({"sort": [{"m": "up"}]}),
         "[sort] of [p] malformed: {\"m\":\"up\"}", "parsing_exception"),
        (terms(), "bucket_sort", json!({"sort": [1]}), "[sort] of [p] malformed: 1", "parsing_exception"),
        (terms(), "bucket_sort", json!({"size": -1}),
         "[size] must be a non-negative integer: [-1] in [p]", "illegal_argument_exception"),
        (terms(), "bucket_sort", json!({"from": "a"}),
         "[from] must be a non-negative integer: [\"a\"] in [p]", "illegal_argument_exception"),
    ];
    for (parent, kind, params, message, es_type) in cases {
        let err = parsed_in(parent.clone(), kind, params.clone()).unwrap_err();
        assert_eq!(err.to_string(), *message);
        assert_eq!(err.es_type(), *es_type, "{message}");
        let path = [key("outer"), key("aggs"), key("p"), key(kind)];
        let expected = (*es_type != "illegal_argument_exception").then_some(&path[..]);
        assert_eq!(err.query_path(), expected, "{message}");
    }
}

#[test]
fn a_pipeline_in_the_wrong_parent_is_refused_at_parse() {
    let cases: &[(Option<Value>, &str, Value, &str)] = &[
        (terms(), "derivative", json!({"buckets_path": "_count"}),
         "derivative aggregation [p] must have a histogram, date_histogram or auto_date_histogram as parent"),
        (None, "cumulative_sum", json!({"buckets_path": "_count"}),
         "cumulative_sum aggregation [p] must have a histogram, date_histogram or auto_date_histogram as parent but doesn't have a parent"),
        (None, "bucket_sort", json!({}),
         "bucket_sort aggregation [p] must be declared inside of another aggregation"),
        (terms(), "serial_diff", json!({"buckets_path": "_count"}),
         "serial_diff aggregation [p] must have a histogram, date_histogram or auto_date_histogram as parent"),
    ];
    for (parent, kind, params, message) in cases {
        let err = parsed_in(parent.clone(), kind, params.clone()).unwrap_err();
        assert_eq!(err.to_string(), *message);
        assert_eq!(err.es_type(), "illegal_argument_exception");
    }
    // A bad key is found before a bad parent, as translation found it.
    let err = parsed_in(None, "bucket_sort", json!({"bogus": 1})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "[bucket_sort] unknown field [bogus] in aggregation [p]"
    );
    assert_eq!(err.query_path(), Some(&[key("p"), key("bucket_sort")][..]));
}
