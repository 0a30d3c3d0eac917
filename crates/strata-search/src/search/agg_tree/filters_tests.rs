//! The `filter` and `filters` parses: good bodies, and each bad one
//! refused with its parameter (and a bad query with its path).

use serde_json::{json, Value};

use super::{FilterParams, FiltersParams};
use crate::error::{QueryStep, Result};
use crate::query::ParsedQuery;
use crate::search::agg_tree::tests::{assert_refusals, typed};
use crate::search::agg_tree::{AggTree, TypedParams};

fn filter(params: Value) -> Result<FilterParams> {
    match typed("f", "filter", params)? {
        TypedParams::Filter(f) => Ok(f),
        other => panic!("typed as {other:?}"),
    }
}

fn filters(params: Value) -> Result<FiltersParams> {
    match typed("f", "filters", params)? {
        TypedParams::Filters(f) => Ok(f),
        other => panic!("typed as {other:?}"),
    }
}

fn query(json: Value) -> ParsedQuery {
    ParsedQuery::parse(json).unwrap()
}

fn key(k: &str) -> QueryStep {
    QueryStep::Key(k.into())
}

#[test]
fn filter_keeps_its_query_parsed() {
    let f = filter(json!({"term": {"tag": "x"}})).unwrap();
    assert_eq!(f.query, query(json!({"term": {"tag": "x"}})));
}

#[test]
fn filters_keep_keys_queries_and_form() {
    let named = filters(json!({"filters": {
        "errors": {"match": {"body": "error"}},
        "warnings": {"term": {"level": "warn"}}
    }, "keyed": true}))
    .unwrap();
    assert_eq!(
        named,
        FiltersParams {
            filters: vec![
                ("errors".into(), query(json!({"match": {"body": "error"}}))),
                ("warnings".into(), query(json!({"term": {"level": "warn"}}))),
            ],
            named: true,
            keyed: Some(true),
        }
    );
    let listed =
        filters(json!({"filters": [{"match_all": {}}, {"exists": {"field": "n"}}]})).unwrap();
    let keys: Vec<_> = listed.filters.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["0", "1"]);
    assert!(!listed.named);
    assert_eq!(listed.keyed, None);
    let empty = filters(json!({"filters": {}, "keyed": "false"})).unwrap();
    assert!(empty.filters.is_empty() && empty.named);
    assert_eq!(empty.keyed, Some(false));
}

#[test]
fn bad_filter_bodies_are_refused_at_parse() {
    let cases = [
        (
            json!({}),
            "[filter] of aggregation [f] must be a query object, got [{}]",
            "parsing_exception",
        ),
        (
            json!(3),
            "[filter] of aggregation [f] must be a query object, got [3]",
            "parsing_exception",
        ),
    ];
    assert_refusals("f", "filter", &cases);
}

#[test]
fn bad_filters_parameters_are_refused_at_parse() {
    let cases = [
        (
            json!([]),
            "[filters] of [f] must be an object",
            "parsing_exception",
        ),
        (
            json!({"keyed": true}),
            "[filters] of [f] needs [filters]",
            "parsing_exception",
        ),
        (
            json!({"filters": {}, "size": 3}),
            "[filters] unknown field [size] in [f]",
            "parsing_exception",
        ),
        (
            json!({"filters": {}, "keyed": 1}),
            "[keyed] of [filters] aggregation [f] must be a boolean, got [1]",
            "parsing_exception",
        ),
        (
            json!({"filters": {}, "other_bucket": true}),
            "[filters] [other_bucket] of [f] is not supported by this server",
            "illegal_argument_exception",
        ),
        (
            json!({"filters": {}, "other_bucket_key": "rest"}),
            "[filters] [other_bucket_key] of [f] is not supported by this server",
            "illegal_argument_exception",
        ),
    ];
    assert_refusals("f", "filters", &cases);
    let err = filters(json!({"filters": "x"})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "[filters] of [f] must be an object of named queries or an array of queries, got [\"x\"]"
    );
    let path = [key("f"), key("filters"), key("filters")];
    assert_eq!(err.query_path(), Some(&path[..]));
}

/// A query that does not parse is refused with the path of the
/// aggregation and of the query in it, at any depth of the tree.
#[test]
fn bad_queries_are_refused_with_their_path() {
    let err = AggTree::parse(json!({"t": {"terms": {"field": "k"},
        "aggs": {"f": {"filter": {"no_such_query": {}}}}}}))
    .unwrap_err();
    assert_eq!(err.to_string(), "unknown query [no_such_query]");
    let path = [key("t"), key("aggs"), key("f"), key("filter")];
    assert_eq!(err.query_path(), Some(&path[..]));

    let err = filters(json!({"filters": {"a": {"match_all": {}}, "b": {"term": {}}}})).unwrap_err();
    let path = err.query_path().unwrap();
    assert_eq!(
        path[..5],
        [
            key("f"),
            key("filters"),
            key("filters"),
            key("b"),
            key("term")
        ]
    );

    let err =
        filters(json!({"filters": [{"match_all": {}}, {"bool": {"mustt": []}}]})).unwrap_err();
    let path = err.query_path().unwrap();
    assert_eq!(
        path[..4],
        [
            key("f"),
            key("filters"),
            key("filters"),
            QueryStep::Index(1)
        ]
    );

    let err = filters(json!({"filters": [{}]})).unwrap_err();
    assert_eq!(err.to_string(), "query malformed, empty clause found");
}
