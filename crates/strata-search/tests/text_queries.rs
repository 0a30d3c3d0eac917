//! `query_string` and `simple_query_string` against a small index whose
//! matching documents are known by construction: default and patterned
//! fields, grouped values, operators, boosts, phrases, fuzziness, ranges,
//! leniency and the errors bad input must give.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest};

use crate::common::hit_ids as ids_of;

fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "docs",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "title": {"type": "text", "fields": {"keyword": {"type": "keyword"}}},
                    "message": {"type": "text"},
                    "message_extra": {"type": "text"},
                    "tag": {"type": "keyword"},
                    "status": {"type": "integer"},
                    "created": {"type": "date"},
                    "place": {"type": "geo_point"}
                }}
            }),
        )
        .unwrap();
    let docs = [
        json!({"title": "Quick brown fox", "message": "the fox jumps over", "message_extra": "red",
               "tag": "animal", "status": 200, "place": "1,2"}),
        json!({"title": "Lazy dog", "message": "the dog sleeps", "message_extra": "blue fox",
               "tag": "animal", "status": 404}),
        json!({"title": "Rust programming", "message": "systems language", "tag": "Tech", "status": 500}),
        json!({"title": "Brown bread", "message": "baking at home", "tag": "food", "status": 200,
               "created": "2024-05-01"}),
        json!({"title": "Quick fix", "message": "fox fixes bugs quickly", "tag": "tech", "status": 301}),
        json!({"title": "Colon", "tag": "a:b", "status": 1}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        let id = (i + 1).to_string();
        index
            .index_document(Some(&id), doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

fn try_run(catalog: &Catalog, query: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("docs").unwrap();
    // A query's errors come from the request's parse, the rest from the search.
    SearchRequest::parse(&json!({"query": query, "size": 100}))
        .and_then(|req| search(&indices, &req))
}

fn ids(catalog: &Catalog, query: Value) -> BTreeSet<String> {
    let resp = try_run(catalog, query.clone()).unwrap_or_else(|e| panic!("{query}: {e}"));
    ids_of(&resp).into_iter().collect()
}

fn set(ids: &[u32]) -> BTreeSet<String> {
    ids.iter().map(u32::to_string).collect()
}

fn qs(q: &str) -> Value {
    json!({"query_string": {"query": q}})
}

#[test]
fn query_string_fields_and_groups() {
    let (_tmp, c) = setup();
    // No default field: every eligible field, leniently (numbers included).
    assert_eq!(ids(&c, qs("fox")), set(&[1, 2, 5]));
    assert_eq!(
        ids(
            &c,
            json!({"query_string": {"query": "fox", "default_field": "*"}})
        ),
        set(&[1, 2, 5])
    );
    assert_eq!(ids(&c, qs("200")), set(&[1, 4]));
    assert_eq!(ids(&c, qs("nothing-here")), set(&[]));
    assert_eq!(ids(&c, qs("*")).len(), 6);
    // Grouped values take the field and the default operator.
    assert_eq!(ids(&c, qs("title:(quick OR lazy)")), set(&[1, 2, 5]));
    assert_eq!(ids(&c, qs("title:(quick brown)")), set(&[1, 4, 5]));
    let and = json!({"query_string": {"query": "title:(quick brown)", "default_operator": "AND"}});
    assert_eq!(ids(&c, and), set(&[1]));
    let and = json!({"query_string": {"query": "quick fox", "default_operator": "and"}});
    assert_eq!(ids(&c, and), set(&[1, 5]));
    // Field patterns.
    assert_eq!(ids(&c, qs("message*:fox")), set(&[1, 2, 5]));
    assert_eq!(ids(&c, qs("message*:red")), set(&[1]));
    assert_eq!(ids(&c, qs("*.keyword:\"Lazy dog\"")), set(&[2]));
    assert_eq!(ids(&c, qs("nomatch*:fox")), set(&[]));
    // `fields` with patterns.
    let q = json!({"query_string": {"query": "fox", "fields": ["title", "message_*"]}});
    assert_eq!(ids(&c, q), set(&[1, 2]));
}

#[test]
fn query_string_boosts_rank() {
    let (_tmp, c) = setup();
    let first = |fields: Value| {
        let q = json!({"query_string": {"query": "fox", "fields": fields}});
        ids_of(&try_run(&c, q).unwrap())[0].clone()
    };
    assert_eq!(first(json!(["title^5", "message_extra"])), "1");
    assert_eq!(first(json!(["title", "message_extra^5"])), "2");
    let q = |text: &str| ids_of(&try_run(&c, qs(text)).unwrap())[0].clone();
    assert_eq!(q("title:quick^0.1 OR message:dog^10"), "2");
    assert_eq!(q("title:quick^10 OR message:dog^0.1"), "1");
}

#[test]
fn query_string_operators_and_values() {
    let (_tmp, c) = setup();
    // A prohibited clause never widens an OR.
    assert_eq!(ids(&c, qs("fox -lazy")), set(&[1, 5]));
    assert_eq!(ids(&c, qs("+title:quick +message:fox")), set(&[1, 5]));
    assert_eq!(ids(&c, qs("+title:quick -message:bugs")), set(&[1]));
    assert_eq!(ids(&c, qs("tag:animal AND NOT status:404")), set(&[1]));
    assert_eq!(ids(&c, qs("tag:animal && !status:404")), set(&[1]));
    assert_eq!(ids(&c, qs("NOT tag:animal")), set(&[3, 4, 5, 6]));
    // Phrases, wildcards (lower-cased on text), fuzziness, existence.
    assert_eq!(ids(&c, qs("message:\"the fox\"")), set(&[1]));
    assert_eq!(ids(&c, qs("\"dog sleeps\"")), set(&[2]));
    assert_eq!(ids(&c, qs("message:\"the jumps\"")), set(&[]));
    assert_eq!(ids(&c, qs("message:\"the jumps\"~2")), set(&[1]));
    assert_eq!(ids(&c, qs("title:Qui*")), set(&[1, 5]));
    let aw = json!({"query_string": {"query": "title:Qui?k", "analyze_wildcard": true}});
    assert_eq!(ids(&c, aw), set(&[1, 5]));
    assert_eq!(ids(&c, qs("tag:Te*")), set(&[3]));
    assert_eq!(ids(&c, qs("title:quikc~1")), set(&[1, 5]));
    assert_eq!(ids(&c, qs("title:quikc")), set(&[]));
    assert_eq!(ids(&c, qs("_exists_:message_extra")), set(&[1, 2]));
    assert_eq!(ids(&c, qs("_exists_:message*")), set(&[1, 2, 3, 4, 5]));
    assert_eq!(ids(&c, qs("_exists_:nothing*")), set(&[]));
    assert_eq!(ids(&c, qs("message_extra:*")), set(&[1, 2]));
    assert_eq!(ids(&c, qs(r"tag:a\:b")), set(&[6]));
    // Ranges.
    assert_eq!(ids(&c, qs("status:[200 TO 301]")), set(&[1, 4, 5]));
    assert_eq!(ids(&c, qs("status:{200 TO 301]")), set(&[5]));
    assert_eq!(ids(&c, qs("status:>=404")), set(&[2, 3]));
    assert_eq!(ids(&c, qs("status:<200")), set(&[6]));
    assert_eq!(ids(&c, qs("created:[2024-01-01 TO *]")), set(&[4]));
    // minimum_should_match over the top-level optional clauses.
    let msm = json!({"query_string": {"query": "quick brown fox", "default_field": "title",
                                      "minimum_should_match": 2}});
    assert_eq!(ids(&c, msm), set(&[1]));
}

#[test]
fn query_string_errors_and_leniency() {
    let (_tmp, c) = setup();
    for text in [
        "title:(quick",
        "title:quick)",
        "status:[1 2]",
        "title:",
        "\"open",
        "a^x",
    ] {
        let e = try_run(&c, qs(text)).unwrap_err();
        assert_eq!(e.es_type(), "query_shard_exception", "{text}");
        assert_eq!(e.status(), 400);
        assert!(e.to_string().contains("Failed to parse query"), "{e}");
    }
    let e = try_run(&c, qs("status:abc")).unwrap_err();
    assert_eq!(e.status(), 400, "{e}");
    let lenient = json!({"query_string": {"query": "status:abc", "lenient": true}});
    assert_eq!(ids(&c, lenient), set(&[]));
    let both = json!({"query_string": {"query": "x", "default_field": "a", "fields": ["b"]}});
    assert_eq!(
        try_run(&c, both).unwrap_err().es_type(),
        "query_shard_exception"
    );
    let unknown = json!({"query_string": {"query": "x", "bogus": 1}});
    assert_eq!(
        try_run(&c, unknown).unwrap_err().es_type(),
        "parsing_exception"
    );
    let op = json!({"query_string": {"query": "x", "default_operator": "XOR"}});
    assert_eq!(try_run(&c, op).unwrap_err().es_type(), "parsing_exception");
    let missing = json!({"query_string": {"default_field": "a"}});
    assert_eq!(
        try_run(&c, missing).unwrap_err().es_type(),
        "parsing_exception"
    );
}

fn sqs(q: &str, fields: Value) -> Value {
    json!({"simple_query_string": {"query": q, "fields": fields}})
}

#[test]
fn simple_query_string_operators() {
    let (_tmp, c) = setup();
    let title = json!(["title"]);
    assert_eq!(
        ids(&c, json!({"simple_query_string": {"query": "fox"}})),
        set(&[1, 2, 5])
    );
    assert_eq!(ids(&c, sqs("quick + fox", title.clone())), set(&[1]));
    assert_eq!(ids(&c, sqs("quick | lazy", title.clone())), set(&[1, 2, 5]));
    assert_eq!(
        ids(&c, sqs("(quick | lazy) + dog", title.clone())),
        set(&[2])
    );
    // `-x` is "everything but x": with OR it widens, with AND it filters.
    assert_eq!(ids(&c, sqs("fox -lazy", json!(["title"]))).len(), 5);
    let and = json!({"simple_query_string": {"query": "fox -lazy", "default_operator": "AND"}});
    assert_eq!(ids(&c, and), set(&[1, 5]));
    assert_eq!(ids(&c, sqs("\"the fox\"", json!(["message"]))), set(&[1]));
    assert_eq!(ids(&c, sqs("\"the jumps\"", json!(["message"]))), set(&[]));
    assert_eq!(
        ids(&c, sqs("\"the jumps\"~1", json!(["message"]))),
        set(&[1])
    );
    assert_eq!(ids(&c, sqs("Qui*", title.clone())), set(&[1, 5]));
    assert_eq!(ids(&c, sqs("quikc~1", title.clone())), set(&[1, 5]));
    assert_eq!(
        ids(&c, sqs("fox", json!(["title^5", "message_extra"]))).len(),
        2
    );
    assert_eq!(ids(&c, sqs("fox", json!(["message*"]))), set(&[1, 2, 5]));
    let msm = json!({"simple_query_string": {"query": "quick brown fox", "fields": ["title"],
                                             "minimum_should_match": "2"}});
    assert_eq!(ids(&c, msm), set(&[1]));
}

#[test]
fn simple_query_string_flags_and_forgiveness() {
    let (_tmp, c) = setup();
    let with_flags = |q: &str, flags: Value| json!({"simple_query_string": {"query": q, "fields": ["title"], "flags": flags}});
    assert_eq!(ids(&c, with_flags("Qui*", json!("ALL"))), set(&[1, 5]));
    assert_eq!(ids(&c, with_flags("Qui*", json!("NONE"))), set(&[]));
    assert_eq!(
        ids(&c, with_flags("quick + fox", json!("NONE"))),
        set(&[1, 5])
    );
    assert_eq!(
        ids(&c, with_flags("quick + fox", json!("AND|WHITESPACE"))),
        set(&[1])
    );
    assert_eq!(
        ids(&c, with_flags("quick -fox", json!("OR|WHITESPACE"))),
        set(&[1, 5])
    );
    for junk in [
        "((quick", "quick)))", "\"quick", "+|-", "~~~", "\\", "\"", "-", "|",
    ] {
        try_run(&c, sqs(junk, json!(["title"]))).unwrap_or_else(|e| panic!("{junk}: {e}"));
        try_run(&c, json!({"simple_query_string": {"query": junk}}))
            .unwrap_or_else(|e| panic!("{junk}: {e}"));
    }
    assert_eq!(ids(&c, sqs("((quick", json!(["title"]))), set(&[1, 5]));
    let e = try_run(&c, with_flags("x", json!("OR|BOGUS"))).unwrap_err();
    assert_eq!(e.es_type(), "illegal_argument_exception");
    let e = try_run(&c, sqs("abc", json!(["status"]))).unwrap_err();
    assert_eq!(e.status(), 400);
    let lenient =
        json!({"simple_query_string": {"query": "abc", "fields": ["status"], "lenient": true}});
    assert_eq!(ids(&c, lenient), set(&[]));
    let unknown = json!({"simple_query_string": {"query": "x", "bogus": true}});
    assert_eq!(
        try_run(&c, unknown).unwrap_err().es_type(),
        "parsing_exception"
    );
}
