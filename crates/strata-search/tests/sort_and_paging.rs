//! Sorting and paging edge cases: `missing` (`_first`, `_last`, a value),
//! `unmapped_type` across indices, `search_after` (by score without
//! `sort`, with nulls, with values of the wrong type), `track_total_hits`
//! and `stored_fields`.

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest};

fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let a = catalog
        .create_index(
            "a",
            &json!({"settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                    "mappings": {"properties": {"n": {"type": "long"}, "k": {"type": "keyword"},
                                                "body": {"type": "text"}}}}),
        )
        .unwrap();
    let docs = [
        ("1", json!({"n": 5, "k": "e", "body": "fox"})),
        ("2", json!({"n": 1, "k": "a", "body": "fox fox fox"})),
        ("3", json!({"k": "c", "body": "fox fox"})),
        ("4", json!({"n": 3, "body": "fox fox fox fox"})),
        ("5", json!({"n": 9, "k": "b", "body": "dog"})),
    ];
    for (id, doc) in docs {
        a.index_document(Some(id), doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
    }
    a.refresh().unwrap();
    let b = catalog
        .create_index(
            "b",
            &json!({"settings": {"refresh_interval": "-1"},
                    "mappings": {"properties": {"k": {"type": "keyword"}}}}),
        )
        .unwrap();
    b.index_document(Some("b1"), br#"{"k": "d"}"#, Precondition::None)
        .unwrap();
    b.refresh().unwrap();
    (tmp, catalog)
}

fn run(c: &Catalog, index: &str, body: Value) -> Result<Value, SearchError> {
    search(&c.resolve(index).unwrap(), &SearchRequest::parse(&body)?)
}

fn ids(r: &Value) -> Vec<String> {
    r["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn missing_values_first_last_or_as_a_value() {
    let (_tmp, c) = setup();
    let order = |sort: Value| ids(&run(&c, "a", json!({"sort": sort})).unwrap());
    assert_eq!(order(json!([{"n": "asc"}])), ["2", "4", "1", "5", "3"]);
    assert_eq!(
        order(json!([{"n": {"order": "desc"}}])),
        ["5", "1", "4", "2", "3"]
    );
    assert_eq!(
        order(json!([{"n": {"order": "asc", "missing": "_first"}}])),
        ["3", "2", "4", "1", "5"]
    );
    assert_eq!(
        order(json!([{"n": {"order": "desc", "missing": "_first"}}])),
        ["3", "5", "1", "4", "2"]
    );
    assert_eq!(
        order(json!([{"n": {"order": "asc", "missing": 4}}])),
        ["2", "4", "3", "1", "5"]
    );
    assert_eq!(
        order(json!([{"k": {"order": "asc", "missing": "_first"}}, {"n": "asc"}])),
        ["4", "2", "5", "3", "1"]
    );
    let r = run(
        &c,
        "a",
        json!({"sort": [{"n": {"missing": "4"}}], "size": 3}),
    )
    .unwrap();
    assert_eq!(r["hits"]["hits"][2]["sort"], json!([4]));
    let bad = SearchRequest::parse(&json!({"sort": [{"n": {"missing": {"x": 1}}}]}));
    assert_eq!(bad.unwrap_err().status(), 400);
}

#[test]
fn unmapped_type_across_indices() {
    let (_tmp, c) = setup();
    let e = run(&c, "a,b", json!({"sort": [{"n": "asc"}]})).unwrap_err();
    assert_eq!(e.es_type(), "query_shard_exception");
    let r = run(
        &c,
        "a,b",
        json!({"sort": [{"n": {"order": "asc", "unmapped_type": "long"}}]}),
    )
    .unwrap();
    assert_eq!(ids(&r), ["2", "4", "1", "5", "3", "b1"]);
    let e = run(
        &c,
        "a,b",
        json!({"sort": [{"n": {"unmapped_type": "nonsense"}}]}),
    )
    .unwrap_err();
    assert_eq!(e.status(), 400);
}

#[test]
fn search_after_by_score_nulls_and_types() {
    let (_tmp, c) = setup();
    let q = json!({"match": {"body": "fox"}});
    let all = run(&c, "a", json!({"query": q})).unwrap();
    assert_eq!(ids(&all).len(), 4);
    let second = all["hits"]["hits"][1]["_score"].as_f64().unwrap();
    let lower: Vec<String> = all["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["_score"].as_f64().unwrap() < second)
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect();
    assert!(!lower.is_empty());
    // Without `sort`, search_after continues by descending score.
    let rest = run(&c, "a", json!({"query": q, "search_after": [second]})).unwrap();
    assert_eq!(ids(&rest), lower);
    // A null continues among the documents without a value.
    let r = run(
        &c,
        "a",
        json!({"sort": [{"n": "asc"}], "search_after": [9]}),
    )
    .unwrap();
    assert_eq!(ids(&r), ["3"]);
    let r = run(
        &c,
        "a",
        json!({"sort": [{"n": "asc"}], "search_after": ["3"]}),
    )
    .unwrap();
    assert_eq!(ids(&r), ["1", "5", "3"]);
    for bad in [
        json!({"sort": [{"n": "asc"}], "search_after": ["abc"]}),
        json!({"sort": [{"k": "asc"}], "search_after": [5]}),
        json!({"sort": [{"n": "asc"}], "search_after": [{"x": 1}]}),
        json!({"sort": [{"n": "asc"}], "search_after": [1, 2]}),
        json!({"sort": [{"n": "asc"}], "search_after": [1], "from": 2}),
    ] {
        let e = run(&c, "a", bad.clone()).unwrap_err();
        assert_eq!(e.status(), 400, "{bad}: {e}");
    }
}

#[test]
fn total_hits_and_stored_fields() {
    let (_tmp, c) = setup();
    let r = run(&c, "a", json!({"track_total_hits": 3, "size": 0})).unwrap();
    assert_eq!(r["hits"]["total"], json!({"value": 3, "relation": "gte"}));
    let r = run(&c, "a", json!({"track_total_hits": 5, "size": 0})).unwrap();
    assert_eq!(r["hits"]["total"], json!({"value": 5, "relation": "eq"}));
    let r = run(&c, "a", json!({"track_total_hits": false})).unwrap();
    assert!(r["hits"].get("total").is_none());
    let e = SearchRequest::parse(&json!({"track_total_hits": -5})).unwrap_err();
    assert_eq!(e.es_type(), "illegal_argument_exception");
    assert!(e.to_string().contains("must be positive or equals to -1"));

    let r = run(&c, "a", json!({"stored_fields": "_none_", "size": 1})).unwrap();
    let hit = &r["hits"]["hits"][0];
    assert!(
        hit.get("_id").is_none() && hit.get("_source").is_none(),
        "{hit}"
    );
    assert_eq!(hit["_index"], "a");
    let r = run(&c, "a", json!({"stored_fields": ["*"], "size": 1})).unwrap();
    let hit = &r["hits"]["hits"][0];
    assert!(
        hit.get("_id").is_some() && hit.get("_source").is_none(),
        "{hit}"
    );
    let r = run(
        &c,
        "a",
        json!({"stored_fields": ["*"], "_source": true, "size": 1}),
    )
    .unwrap();
    assert!(r["hits"]["hits"][0].get("_source").is_some());
    for bad in [
        json!({"stored_fields": "_none_", "_source": true}),
        json!({"stored_fields": ["_none_", "x"]}),
        json!({"stored_fields": 5}),
    ] {
        let e = SearchRequest::parse(&bad).unwrap_err();
        assert_eq!(e.status(), 400, "{bad}");
    }
}

#[test]
fn fields_option_as_kibana_discover_sends_it() {
    let (_tmp, c) = setup();
    let r = run(
        &c,
        "a",
        json!({"query": {"ids": {"values": ["2"]}}, "_source": false, "stored_fields": ["*"],
               "runtime_mappings": {}, "script_fields": {},
               "sort": [{"n": {"order": "desc", "unmapped_type": "boolean"}}],
               "fields": [{"field": "*", "include_unmapped": "true"}, {"field": "n"}]}),
    )
    .unwrap();
    let hit = &r["hits"]["hits"][0];
    assert!(hit.get("_source").is_none());
    assert_eq!(
        hit["fields"],
        json!({"body": ["fox fox fox"], "k": ["a"], "n": [1]})
    );
    let e =
        SearchRequest::parse(&json!({"runtime_mappings": {"x": {"type": "long"}}})).unwrap_err();
    assert_eq!(e.status(), 400);
    let e = SearchRequest::parse(&json!({"fields": [{"nofield": 1}]})).unwrap_err();
    assert_eq!(e.status(), 400);
}
