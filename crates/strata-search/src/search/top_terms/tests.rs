//! Which `terms` requests [`split`] takes, and the reply's shape.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::fruit::{TermCount, TermCounts};
use super::*;
use crate::search::agg_tree::AggTree;
use crate::search::aggs::{translate, AggEnv};

fn mappings() -> Mappings {
    Mappings::parse(&json!({"properties": {
        "name": {"type": "keyword"}, "major": {"type": "keyword"},
        "code": {"type": "long"}, "flag": {"type": "boolean"}, "addr": {"type": "ip"}
    }}))
    .unwrap()
}

/// The plans `split` takes from `aggs`, and what it leaves to tantivy.
fn split_aggs(aggs: Value) -> (Vec<TopTerms>, Value) {
    let mappings = mappings();
    let bounds = HashMap::new();
    let env = AggEnv {
        mappings: &mappings,
        now: 0,
        bounds: &bounds,
        missing_docs: &HashMap::new(),
    };
    let tree = AggTree::parse(aggs).unwrap();
    let (mut request, shapes, _) = translate(&env, tree.nodes()).unwrap();
    let taken = split(&mut request, &shapes, &mappings);
    (taken, request)
}

#[test]
fn keyword_terms_by_count_are_taken_with_one_terms_below() {
    let (taken, left) = split_aggs(json!({
        "a": {"terms": {"field": "name"}},
        "b": {"terms": {"field": "name", "size": 5, "shard_size": 7, "min_doc_count": 2,
                        "order": {"_count": "desc"}},
              "aggs": {"c": {"terms": {"field": "major", "size": 3}}}}
    }));
    assert_eq!(left, json!({}));
    let a = &taken[0];
    assert_eq!(
        (a.outer.size, a.outer.segment_size, a.outer.min_doc_count),
        (10, 100, 1)
    );
    assert!(a.inner.is_none());
    let b = &taken[1];
    assert_eq!(b.outer.name, "b");
    assert_eq!(
        (b.outer.size, b.outer.segment_size, b.outer.min_doc_count),
        (5, 7, 2)
    );
    let c = b.inner.as_ref().unwrap();
    assert_eq!((c.name.as_str(), c.size, c.segment_size), ("c", 3, 30));
    assert!(c.column.ends_with("major"), "{}", c.column);
}

#[test]
fn ip_terms_are_taken_like_keywords() {
    let (taken, left) = split_aggs(json!({
        "a": {"terms": {"field": "addr", "size": 20}},
        "b": {"terms": {"field": "name"}, "aggs": {"c": {"terms": {"field": "addr"}}}}
    }));
    assert_eq!(left, json!({}));
    assert!(taken[0].outer.column.ends_with("addr"));
    assert!(taken[1].inner.as_ref().unwrap().column.ends_with("addr"));
}

#[test]
fn everything_else_stays_with_tantivy() {
    for aggs in [
        json!({"t": {"terms": {"field": "code"}}}),
        json!({"t": {"terms": {"field": "flag"}}}),
        json!({"t": {"terms": {"field": "name", "order": {"_key": "asc"}}}}),
        json!({"t": {"terms": {"field": "name", "order": {"_count": "asc"}}}}),
        json!({"t": {"terms": {"field": "name", "missing": "none"}}}),
        json!({"t": {"terms": {"field": "name", "include": ["a"]}}}),
        json!({"t": {"terms": {"field": "name", "min_doc_count": 0}}}),
        json!({"t": {"terms": {"field": "name", "size": 0}}}),
        json!({"t": {"terms": {"field": "name", "size": 5000}}}),
        json!({"t": {"terms": {"field": "name", "shard_size": 50000}}}),
        json!({"t": {"terms": {"field": "name", "show_term_doc_count_error": true}}}),
        json!({"t": {"terms": {"field": "name"}, "aggs": {"m": {"max": {"field": "code"}}}}}),
        json!({"t": {"terms": {"field": "name"}, "aggs": {
            "u": {"terms": {"field": "major"}}, "v": {"terms": {"field": "major"}}}}}),
        json!({"t": {"terms": {"field": "name"}, "aggs": {
            "u": {"terms": {"field": "major"}, "aggs": {"w": {"terms": {"field": "name"}}}}}}}),
        json!({"t": {"terms": {"field": "name"}, "aggs": {"u": {"terms": {"field": "code"}}}}}),
        json!({"t": {"terms": {"field": "name"}, "aggs": {"h": {"top_hits": {"size": 1}}}}}),
        json!({"t": {"terms": {"field": "name", "size": 1000},
                     "aggs": {"u": {"terms": {"field": "major", "size": 1000}}}}}),
    ] {
        let (taken, left) = split_aggs(aggs.clone());
        assert!(taken.is_empty(), "{aggs}");
        assert!(left.get("t").is_some(), "{aggs}");
    }
}

fn counts(entries: &[(&str, u64)], sum_other: u64, error_bound: u64) -> TermCounts {
    TermCounts {
        entries: entries
            .iter()
            .map(|(k, n)| {
                let count = TermCount {
                    count: *n,
                    inner: TermCounts::default(),
                };
                (k.to_string(), count)
            })
            .collect(),
        sum_other,
        error_bound,
    }
}

#[test]
fn merged_counts_reply_by_count_then_key_in_tantivys_shape() {
    let level = |name: &str, size, min_doc_count| TermsLevel {
        name: name.into(),
        column: "c".into(),
        size,
        segment_size: 10,
        min_doc_count,
    };
    let plan = TopTerms {
        outer: level("t", 2, 2),
        inner: Some(level("u", 1, 1)),
    };
    let mut one = counts(&[("b", 3), ("a", 2), ("x", 1)], 4, 1);
    one.entries.get_mut("a").unwrap().inner = counts(&[("p", 1), ("q", 1)], 0, 0);
    let mut two = counts(&[("a", 1), ("c", 4)], 0, 2);
    two.entries.get_mut("a").unwrap().inner = counts(&[("q", 1)], 2, 1);
    let mut fruit = TopTermsFruit {
        plans: vec![one],
        error: None,
    };
    fruit.merge(TopTermsFruit {
        plans: vec![two],
        error: None,
    });
    // a: 3 and b: 3 tie, the smaller key first; c: 4 leads; x (1 < 2) is
    // dropped, not counted as other; the cut bucket (b) is.
    assert_eq!(
        Value::Object(into_json(&[plan], fruit)),
        json!({"t": {
            "buckets": [
                {"key": "c", "doc_count": 4,
                 "u": {"buckets": [], "sum_other_doc_count": 0, "doc_count_error_upper_bound": 0}},
                {"key": "a", "doc_count": 3,
                 "u": {"buckets": [{"key": "q", "doc_count": 2}],
                       "sum_other_doc_count": 3, "doc_count_error_upper_bound": 1}},
            ],
            "sum_other_doc_count": 7,
            "doc_count_error_upper_bound": 3,
        }})
    );
}
