//! The tree's shape and its structural errors, with their paths.

use serde_json::{json, Value};

use super::{
    AggKind, AggTree, MetricParams, MissingValue, PercentilesParams, TypedParams, MAX_AGG_DEPTH,
};
use crate::error::QueryStep;

fn key(k: &str) -> QueryStep {
    QueryStep::Key(k.into())
}

/// The typed parameters of `{name: {kind: params}}`, or its parse error.
pub(super) fn typed(name: &str, kind: &str, params: Value) -> crate::error::Result<TypedParams> {
    let tree = AggTree::parse(json!({ name: { kind: params } }))?;
    Ok(tree.nodes()[0].typed.clone())
}

/// Parses `{name: {kind: params}}` for each case `(params, message,
/// es_type)` and checks the refusal: its message and type, and the path of
/// a parse error (only those carry one, `SearchError::in_query`).
pub(super) fn assert_refusals(name: &str, kind: &str, cases: &[(Value, &str, &str)]) {
    for (params, message, es_type) in cases {
        let err = AggTree::parse(json!({ name: { kind: params } })).unwrap_err();
        assert_eq!(err.to_string(), *message);
        assert_eq!(err.es_type(), *es_type, "{message}");
        let path = [key(name), key(kind)];
        let expected = (*es_type != "illegal_argument_exception").then_some(&path[..]);
        assert_eq!(err.query_path(), expected, "{message}");
    }
}

#[test]
fn a_request_parses_into_kinds_bodies_and_subs() {
    let json = json!({"by_day": {
        "date_histogram": {"field": "ts", "calendar_interval": "day"},
        "aggs": {"top": {"max": {"field": "n"}}, "low": {"min": {"field": "n"}}}
    }});
    let tree = AggTree::parse(json.clone()).unwrap();
    assert_eq!(tree.json(), &json);
    let [day] = tree.nodes() else {
        panic!("one top-level aggregation")
    };
    assert_eq!(day.name, "by_day");
    assert_eq!(day.kind, AggKind::DateHistogram);
    assert_eq!(day.body["calendar_interval"], "day");
    let subs: Vec<_> = day.subs.iter().map(|s| (s.name.as_str(), s.kind)).collect();
    assert!(subs.contains(&("top", AggKind::Max)) && subs.contains(&("low", AggKind::Min)));
    assert!(day.subs.iter().all(|s| s.subs.is_empty()));
}

#[test]
fn structural_errors_carry_the_path_of_their_aggregation() {
    let cases = [
        (
            json!({"d": {"terms": {"field": "k"}, "aggs": {"m": {"max": {}, "min": {}}}}}),
            "Found two aggregation type definitions in [m]: [max] and [min]",
            vec![key("d"), key("aggs"), key("m")],
        ),
        (
            json!({"d": {"terms": {"field": "k"}, "aggregations": 3}}),
            "[aggs] must be an object",
            vec![key("d"), key("aggregations")],
        ),
        (
            json!({"d": 1}),
            "Expected [START_OBJECT] under [d]",
            vec![key("d")],
        ),
        (
            json!({"d": {"aggs": {}}}),
            "Missing definition for aggregation [d]",
            vec![key("d")],
        ),
        (
            json!({"a>b": {"max": {"field": "n"}}}),
            "Invalid aggregation name [a>b]. Aggregation names can contain any character except '[', ']', and '>'",
            vec![key("a>b")],
        ),
    ];
    for (json, message, path) in cases {
        let err = AggTree::parse(json).unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(err.es_type(), "parsing_exception");
        assert_eq!(err.query_path(), Some(&path[..]), "{message}");
    }
}

#[test]
fn unknown_kinds_meta_and_deep_nesting_are_refused() {
    let err = AggTree::parse(json!({"s": {"scripted_metric": {}}})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "aggregation type [scripted_metric] of [s] is not supported by this server"
    );
    assert_eq!(err.es_type(), "illegal_argument_exception");
    let err = AggTree::parse(json!({"s": {"max": {}, "meta": {}}})).unwrap_err();
    assert_eq!(err.to_string(), "[meta] on aggregations is not supported");
    let mut deep = json!({"leaf": {"max": {"field": "n"}}});
    for level in 0..MAX_AGG_DEPTH {
        deep = json!({ format!("l{level}"): {"terms": {"field": "k"}, "aggs": deep} });
    }
    let err = AggTree::parse(deep).unwrap_err();
    assert!(
        err.to_string().contains("nested more than [32] levels"),
        "{err}"
    );
    assert!(AggTree::parse(json!("nope")).is_err());
}

#[test]
fn numeric_metrics_are_typed_and_their_bad_params_refused_with_the_path() {
    let tree = AggTree::parse(json!({"e": {"extended_stats": {
        "field": "n", "missing": "2.5", "sigma": 3, "format": "0.0"
    }}}))
    .unwrap();
    let TypedParams::Metric(metric) = tree.nodes()[0].typed.clone() else {
        panic!("typed as a metric")
    };
    assert_eq!(
        metric,
        MetricParams {
            field: "n".into(),
            missing: Some(2.5),
            sigma: Some(3.0),
            format: Some("0.0".into()),
        }
    );
    assert_eq!(
        metric.tantivy_request("col.n"),
        json!({"field": "col.n", "missing": 2.5, "sigma": 3.0})
    );
    let range = json!({"r": {"range": {"field": "k", "ranges": [{"to": 1}]}}});
    let range = AggTree::parse(range).unwrap();
    assert!(matches!(range.nodes()[0].typed, TypedParams::Range(_)));

    let err = AggTree::parse(json!({"a": {"avg": {"field": "n", "sigma": 2}}})).unwrap_err();
    assert_eq!(err.to_string(), "[avg] unknown field [sigma]");
    assert_eq!(err.es_type(), "x_content_parse_exception");
    assert_eq!(err.query_path(), Some(&[key("a"), key("avg")][..]));
    let err = AggTree::parse(json!({"a": {"sum": {"field": "n", "missing": "x"}}})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "[missing] of [sum] aggregation [a] must be a number, got [\"x\"]"
    );
    let err = AggTree::parse(json!({"a": {"extended_stats": {"field": "n", "sigma": -1}}}));
    assert_eq!(
        err.unwrap_err().to_string(),
        "[sigma] must be greater than or equal to 0. Found [-1] in [a]"
    );
    let err = AggTree::parse(json!({"a": {"max": {"script": "1"}}})).unwrap_err();
    assert_eq!(err.to_string(), "scripts are not supported");
    let err = AggTree::parse(json!({"a": {"min": {}}})).unwrap_err();
    assert!(err
        .to_string()
        .starts_with("Required one of fields [field, script]"));
}

#[test]
fn leaf_kinds_refuse_even_empty_sub_aggregations() {
    let cases = [
        ("max", json!({"field": "n"})),
        ("cardinality", json!({"field": "k"})),
        ("top_hits", json!({})),
        ("geo_centroid", json!({"field": "g"})),
        ("derivative", json!({"buckets_path": "c"})),
    ];
    for (kind, params) in cases {
        let err = AggTree::parse(json!({"m": {kind: params, "aggs": {}}})).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("Aggregator [m] of type [{kind}] cannot accept sub-aggregations")
        );
        assert_eq!(err.es_type(), "illegal_argument_exception");
    }
    let tree = AggTree::parse(json!({"t": {"terms": {"field": "k"}, "aggregations": {}}}));
    assert!(tree.unwrap().nodes()[0].subs.is_empty());
}

#[test]
fn nodes_give_back_their_json_and_make_trees() {
    let json = json!({
        "t": {"terms": {"field": "k"}, "aggregations": {"m": {"max": {"field": "n"}}}},
        "c": {"cardinality": {"field": "k"}}
    });
    let tree = AggTree::parse(json).unwrap();
    let named = |name: &str| tree.nodes().iter().find(|n| n.name == name).unwrap();
    let (t, c) = (named("t"), named("c"));
    // Sub-aggregations come back under `aggs`, whichever key they had.
    assert_eq!(
        t.to_json(),
        json!({"terms": {"field": "k"}, "aggs": {"m": {"max": {"field": "n"}}}})
    );
    assert_eq!(c.to_json(), json!({"cardinality": {"field": "k"}}));
    let rest = AggTree::from_nodes(vec![c.clone()]).unwrap();
    assert_eq!(rest.json(), &json!({"c": {"cardinality": {"field": "k"}}}));
    assert_eq!(rest.nodes(), std::slice::from_ref(c));
    assert!(AggTree::from_nodes(Vec::new()).is_none());
}

#[test]
fn percentiles_are_typed_sorted_and_checked_as_elasticsearch_does() {
    let tree = AggTree::parse(json!({"p": {"percentiles": {
        "field": "n", "percents": [99, "50", 99.9], "keyed": false, "missing": 0
    }}}))
    .unwrap();
    let expected = PercentilesParams {
        field: "n".into(),
        percents: vec![50.0, 99.0, 99.9],
        keyed: false,
        missing: Some(MissingValue::Number(0.0)),
        format: None,
    };
    assert_eq!(
        tree.nodes()[0].typed,
        TypedParams::Percentiles(expected.clone())
    );
    assert_eq!(
        expected.tantivy_request("p", "col.n").unwrap(),
        json!({"field": "col.n", "percents": [50.0, 99.0, 99.9], "keyed": false, "missing": 0.0})
    );
    // A date's `missing` and a `format` are kept for a date field to read;
    // on any other field that `missing` is the usual refusal.
    let dated = AggTree::parse(json!({"p": {"percentiles": {
        "field": "t", "missing": "2024-01-01", "format": "yyyy"
    }}}))
    .unwrap();
    let TypedParams::Percentiles(d) = &dated.nodes()[0].typed else {
        panic!("typed as percentiles")
    };
    assert_eq!(d.missing, Some(MissingValue::Date("2024-01-01".into())));
    assert_eq!(d.format.as_deref(), Some("yyyy"));
    let err = d.tantivy_request("p", "col.t").unwrap_err();
    assert_eq!(
        err.to_string(),
        "[missing] of [percentiles] aggregation [p] must be a number, got [\"2024-01-01\"]"
    );
    let defaults = AggTree::parse(json!({"p": {"percentiles": {"field": "n"}}})).unwrap();
    let TypedParams::Percentiles(p) = &defaults.nodes()[0].typed else {
        panic!("typed as percentiles")
    };
    assert_eq!(p.percents, [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0]);
    assert!(p.keyed);

    let cases = [
        (
            json!({"field": "n", "percents": [150, -0.4]}),
            "percent must be in [0,100], got [-0.4]: [p]",
        ),
        (
            json!({"field": "n", "percents": [101]}),
            "percent must be in [0,100], got [101.0]: [p]",
        ),
        (
            json!({"field": "n", "percents": []}),
            "[percents] must not be empty: [p]",
        ),
    ];
    for (params, cause) in cases {
        let err = AggTree::parse(json!({"p": {"percentiles": params}})).unwrap_err();
        assert_eq!(err.es_type(), "x_content_parse_exception");
        assert_eq!(
            err.to_string(),
            "Failed to build [percentiles] after last required field arrived"
        );
        assert_eq!(err.cause().map(ToString::to_string).as_deref(), Some(cause));
        assert_eq!(err.query_path(), Some(&[key("p"), key("percentiles")][..]));
    }
    let refused = [
        (
            json!({"field": "n", "tdigest": {"compression": -1}}),
            "illegal_argument_exception",
        ),
        (
            json!({"field": "n", "hdr": {}}),
            "illegal_argument_exception",
        ),
        (json!({"field": "n", "keyed": "yes"}), "parsing_exception"),
        (json!({"field": "n", "percents": 50}), "parsing_exception"),
        (
            json!({"field": "n", "percents": ["x"]}),
            "parsing_exception",
        ),
        (
            json!({"field": "n", "compression": 1}),
            "x_content_parse_exception",
        ),
        (json!({"percents": [50]}), "illegal_argument_exception"),
    ];
    for (params, es_type) in refused {
        let err = AggTree::parse(json!({"p": {"percentiles": params.clone()}})).unwrap_err();
        assert_eq!(err.es_type(), es_type, "{params}: {err}");
    }
    // Elasticsearch's words for a negative compression; 200 is read.
    let err = AggTree::parse(
        json!({"p": {"percentiles": {"field": "n", "tdigest": {"compression": -1}}}}),
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "[compression] must be greater than or equal to 0. Found [-1.0] in [p]"
    );
    let ok = json!({"p": {"percentiles": {"field": "n", "tdigest": {"compression": 200}}}});
    assert!(AggTree::parse(ok).is_ok());
}

#[test]
fn bucket_keys_elasticsearch_does_not_know_are_refused() {
    let cases = [
        (
            json!({"t": {"terms": {"field": "k", "sizee": 3}}}),
            "[terms] unknown field [sizee]",
            "terms",
        ),
        (
            json!({"t": {"terms": {"field": "k", "split_size": 3}}}),
            "[terms] unknown field [split_size]",
            "terms",
        ),
        (
            json!({"h": {"histogram": {"field": "n", "interval": 5, "bounds": {}}}}),
            "[histogram] unknown field [bounds]",
            "histogram",
        ),
        (
            json!({"r": {"range": {"field": "n", "ranges": [], "rangez": []}}}),
            "[range] unknown field [rangez]",
            "range",
        ),
    ];
    for (json, message, kind) in cases {
        let name = json.as_object().unwrap().keys().next().unwrap().clone();
        let err = AggTree::parse(json).unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(err.es_type(), "x_content_parse_exception");
        assert_eq!(err.query_path(), Some(&[key(&name), key(kind)][..]));
    }
    let known = json!({"t": {"terms": {
        "field": "k", "size": 3, "shard_size": 10, "min_doc_count": 1, "order": {"_count": "desc"},
        "include": ["a"], "exclude": ["b"], "execution_hint": "map", "collect_mode": "breadth_first",
        "missing": "none", "show_term_doc_count_error": true
    }}});
    assert!(AggTree::parse(known).is_ok());
}
