//! `multi_terms`' parse: defaults, `order` forms, and the refusals in
//! Elasticsearch's words.

use serde_json::{json, Value};

use super::{MultiTermsParams, OrderKey};
use crate::error::Result;
use crate::search::agg_tree::tests::{assert_refusals, typed};
use crate::search::agg_tree::TypedParams;

fn parsed(params: Value) -> Result<MultiTermsParams> {
    match typed("mt", "multi_terms", params)? {
        TypedParams::MultiTerms(p) => Ok(p),
        other => panic!("typed as {other:?}"),
    }
}

fn two() -> Value {
    json!([{"field": "a"}, {"field": "b", "missing": "none"}])
}

#[test]
fn defaults_and_every_key() {
    let p = parsed(json!({"terms": two()})).unwrap();
    assert_eq!((p.size, p.shard_size, p.min_doc_count), (10, None, 1));
    assert!(!p.show_term_doc_count_error);
    assert_eq!(p.order, vec![(OrderKey::Count, true)]);
    assert_eq!(p.terms[1].missing, Some(json!("none")));
    let p = parsed(
        json!({"terms": two(), "size": 3, "shard_size": "25", "min_doc_count": 2,
                          "show_term_doc_count_error": true, "shard_min_doc_count": 0,
                          "order": [{"m.avg": "DESC"}, {"_key": "asc"}]}),
    )
    .unwrap();
    assert_eq!((p.size, p.shard_size, p.min_doc_count), (3, Some(25), 2));
    assert!(p.show_term_doc_count_error);
    assert_eq!(
        p.order,
        vec![
            (OrderKey::Path("m.avg".into()), true),
            (OrderKey::Key, false)
        ]
    );
}

#[test]
fn bad_parameters_are_refused_in_elasticsearchs_words() {
    let failed = |field: &str| format!("[multi_terms] failed to parse field [{field}]");
    let cases = [
        (json!({"terms": two(), "size": 0}), failed("size")),
        (
            json!({"terms": two(), "shard_size": -1}),
            failed("shard_size"),
        ),
        (
            json!({"terms": two(), "min_doc_count": 0}),
            failed("min_doc_count"),
        ),
        (json!({"terms": [{"field": "a"}]}), failed("terms")),
        (json!({"size": 3}), failed("terms")),
    ];
    let cases: Vec<(Value, &str, &str)> = cases
        .iter()
        .map(|(v, m)| (v.clone(), m.as_str(), "x_content_parse_exception"))
        .collect();
    assert_refusals("mt", "multi_terms", &cases);
    let cause = |params: Value| format!("{:?}", parsed(params).unwrap_err());
    assert!(cause(json!({"terms": two(), "size": 0}))
        .contains("[size] must be greater than 0. Found [0] in [mt]"));
    assert!(cause(json!({"terms": two(), "min_doc_count": 0}))
        .contains("[minDocCount] must be greater than or equal to 1. Found [0] in [mt]"));
    assert!(cause(json!({"terms": [{"field": "a"}]})).contains(
        "The [terms] parameter in the aggregation [mt] must be present and have at least 2 fields or scripts. For a single field user terms aggregation."
    ));
    let many: Vec<Value> = (0..129)
        .map(|i| json!({"field": format!("f{i}")}))
        .collect();
    assert!(cause(json!({"terms": many}))
        .contains("cannot have more than 128 fields or scripts. Found [129]."));
    let others = [
        (
            json!({"terms": two(), "sizee": 3}),
            "[multi_terms] unknown field [sizee]",
            "x_content_parse_exception",
        ),
        (
            json!({"terms": two(), "order": {"_count": "down"}}),
            "Unknown order direction [down]",
            "parsing_exception",
        ),
        (
            json!({"terms": two(), "collect_mode": "breadth_first"}),
            "[collect_mode] of [multi_terms] aggregation [mt] is not supported by this server: its counts are exact",
            "illegal_argument_exception",
        ),
        (
            json!({"terms": two(), "shard_min_doc_count": 2}),
            "[shard_min_doc_count] of [multi_terms] aggregation [mt] is not supported by this server: its counts are exact",
            "illegal_argument_exception",
        ),
        (
            json!({"terms": [{"field": "a", "script": "x"}, {"field": "b"}]}),
            "scripts are not supported",
            "illegal_argument_exception",
        ),
        (
            json!({"terms": [{"missing": 1}, {"field": "b"}]}),
            "[field] must be set for a term of [multi_terms] aggregation [mt]",
            "illegal_argument_exception",
        ),
        (
            json!({"terms": two(), "order": []}),
            "[order] of [multi_terms] aggregation [mt] must not be empty",
            "parsing_exception",
        ),
        (
            json!({"terms": {"field": "a"}}),
            "[terms] of [multi_terms] aggregation [mt] must be an array of objects, got [{\"field\":\"a\"}]",
            "parsing_exception",
        ),
    ];
    assert_refusals("mt", "multi_terms", &others);
}
