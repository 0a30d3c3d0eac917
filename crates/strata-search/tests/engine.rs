//! End-to-end tests of the engine without HTTP: documents, versions,
//! queries, sorting, aggregations checked against values computed here,
//! a restart without flush that must keep every acknowledged document,
//! and what an index shows without searching (translation, `_explain`).

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

use crate::common::hit_ids as hits;

fn run(catalog: &Catalog, index: &str, body: Value) -> Value {
    let indices = catalog.resolve(index).unwrap();
    search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap()
}

fn setup(catalog: &Catalog) {
    let index = catalog
        .create_index(
            "logs",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "status": {"type": "integer"},
                    "method": {"type": "keyword"},
                    "message": {"type": "text"},
                    "bytes": {"type": "double"},
                    "@timestamp": {"type": "date"}
                }}
            }),
        )
        .unwrap();
    for i in 0..40u32 {
        let method = ["GET", "POST", "PUT", "DELETE"][(i % 4) as usize];
        let status = if i % 5 == 0 { 404 } else { 200 };
        let doc = json!({
            "status": status,
            "method": method,
            "message": format!("request number {i} for page {}", i % 3),
            "bytes": f64::from(i) * 1.5,
            "@timestamp": 1_700_000_000_000i64 + i64::from(i) * 60_000,
            "extra": {"tag": format!("t{}", i % 2)}
        });
        index
            .index_document(
                Some(&format!("d{i}")),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
    }
    index.refresh().unwrap();
}

#[test]
fn queries_sorting_and_aggregations() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    setup(&catalog);

    let all = run(&catalog, "logs", json!({"size": 0}));
    assert_eq!(all["hits"]["total"]["value"], 40);

    let r = run(
        &catalog,
        "log*",
        json!({"query": {"term": {"status": 404}}, "size": 100}),
    );
    assert_eq!(r["hits"]["total"]["value"], 8);

    let r = run(
        &catalog,
        "logs",
        json!({"query": {"match": {"message": "page 2"}}, "size": 100}),
    );
    assert_eq!(r["hits"]["total"]["value"], 40, "or: every doc has 'page'");
    let r = run(
        &catalog,
        "logs",
        json!({"query": {"match": {"message": {"query": "number 7 page", "operator": "and"}}}}),
    );
    assert_eq!(hits(&r), vec!["d7"]);
    let r = run(
        &catalog,
        "logs",
        json!({"query": {"match_phrase": {"message": "page 2"}}, "size": 100}),
    );
    assert_eq!(r["hits"]["total"]["value"], 13);

    let r = run(
        &catalog,
        "logs",
        json!({"query": {"bool": {
        "filter": [{"range": {"bytes": {"gte": 15, "lt": 30}}}],
        "must_not": [{"terms": {"method": ["GET", "PUT"]}}]
    }}, "size": 100}),
    );
    // bytes = 1.5 i in [15, 30) -> i in 10..=19; minus GET (i%4==0) and PUT (i%4==2)
    let expected: Vec<u32> = (10..20).filter(|i| i % 2 == 1).collect();
    assert_eq!(r["hits"]["total"]["value"], expected.len());

    let r = run(
        &catalog,
        "logs",
        json!({"query": {"prefix": {"method": "PO"}}, "size": 100}),
    );
    assert_eq!(r["hits"]["total"]["value"], 10);
    let r = run(
        &catalog,
        "logs",
        json!({"query": {"wildcard": {"method": {"value": "*LE?E"}}}, "size": 100}),
    );
    assert_eq!(r["hits"]["total"]["value"], 10);
    let r = run(
        &catalog,
        "logs",
        json!({"query": {"exists": {"field": "extra"}}, "size": 0}),
    );
    assert_eq!(r["hits"]["total"]["value"], 40);
    let r = run(
        &catalog,
        "logs",
        json!({"query": {"ids": {"values": ["d1", "d2", "nope"]}}}),
    );
    assert_eq!(r["hits"]["total"]["value"], 2);
    let r = run(
        &catalog,
        "logs",
        json!({"query": {"range": {"@timestamp": {"gte": "2023-11-14T22:20:00Z"}}}, "size": 0}),
    );
    // 1_700_000_000_000 = 2023-11-14T22:13:20Z; +7 minutes rounds up to i >= 7
    assert_eq!(r["hits"]["total"]["value"], 33);

    // Sorting and search_after across both shards.
    let r = run(
        &catalog,
        "logs",
        json!({"sort": [{"bytes": "desc"}], "size": 3, "_source": ["method"]}),
    );
    assert_eq!(hits(&r), vec!["d39", "d38", "d37"]);
    assert_eq!(r["hits"]["hits"][0]["_source"], json!({"method": "DELETE"}));
    let last = r["hits"]["hits"][2]["sort"].clone();
    let r = run(
        &catalog,
        "logs",
        json!({"sort": [{"bytes": "desc"}], "size": 2, "search_after": last}),
    );
    assert_eq!(hits(&r), vec!["d36", "d35"]);
    let r = run(
        &catalog,
        "logs",
        json!({"sort": ["method", {"status": "asc"}, {"_doc": "asc"}], "size": 1}),
    );
    assert_eq!(r["hits"]["hits"][0]["_source"]["method"], "DELETE");

    // Aggregations, checked against values computed from the same documents.
    let r = run(
        &catalog,
        "logs",
        json!({"size": 0, "aggs": {
            "methods": {"terms": {"field": "method"}, "aggs": {"total": {"sum": {"field": "bytes"}}}},
            "stats": {"stats": {"field": "bytes"}},
            "per_10m": {"date_histogram": {"field": "@timestamp", "fixed_interval": "10m"}},
            "ranges": {"range": {"field": "status", "ranges": [{"to": 300}, {"from": 300}]}},
            "distinct": {"cardinality": {"field": "method"}}
        }}),
    );
    let aggs = &r["aggregations"];
    let buckets = aggs["methods"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 4);
    for b in buckets {
        assert_eq!(b["doc_count"], 10);
        let m = ["GET", "POST", "PUT", "DELETE"]
            .iter()
            .position(|m| *m == b["key"])
            .unwrap() as u32;
        let sum: f64 = (0..40u32)
            .filter(|i| i % 4 == m)
            .map(|i| f64::from(i) * 1.5)
            .sum();
        assert!((b["total"]["value"].as_f64().unwrap() - sum).abs() < 1e-9);
    }
    assert_eq!(aggs["stats"]["count"], 40);
    assert_eq!(aggs["stats"]["max"], 58.5);
    let hist = aggs["per_10m"]["buckets"].as_array().unwrap();
    let total: u64 = hist.iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
    assert_eq!(total, 40);
    assert!(hist[0]["key_as_string"].as_str().unwrap().ends_with('Z'));
    let ranges = aggs["ranges"]["buckets"].as_array().unwrap();
    assert_eq!(ranges[0]["doc_count"], 32);
    assert_eq!(ranges[1]["doc_count"], 8);
    assert_eq!(aggs["distinct"]["value"], 4);

    // Errors in Elasticsearch's terms.
    // The query is parsed with the request, so its errors come from the parse.
    let err = SearchRequest::parse(&json!({"query": {"nope": {}}})).unwrap_err();
    assert_eq!((err.es_type(), err.status()), ("parsing_exception", 400));
    let bad =
        SearchRequest::parse(&json!({"aggs": {"t": {"terms": {"field": "method"}, "aggs": {"x": {"geohash_grid": {"field": "a"}}}}}})).unwrap();
    // geohash_grid below terms is computed per bucket (an unmapped field: no cells).
    let nested = search(&catalog.resolve("logs").unwrap(), &bad).unwrap();
    let buckets = nested["aggregations"]["t"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 4);
    assert_eq!(buckets[0]["x"]["buckets"], json!([]));
    assert_eq!(catalog.resolve("missing").unwrap_err().status(), 404);
    assert!(catalog.resolve("missing*").unwrap().is_empty());
}

#[test]
fn versions_conflicts_and_updates() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog.create_index("docs", &Value::Null).unwrap();
    let a = index
        .index_document(Some("1"), br#"{"n": 1, "o": {"x": 1}}"#, Precondition::None)
        .unwrap();
    assert_eq!((a.version, a.result.as_str()), (1, "created"));
    let b = index
        .index_document(Some("1"), br#"{"n": 2}"#, Precondition::None)
        .unwrap();
    assert_eq!((b.version, b.result.as_str()), (2, "updated"));
    let err = index
        .index_document(Some("1"), b"{}", Precondition::Absent)
        .unwrap_err();
    assert_eq!(err.status(), 409);
    let stale = Precondition::SeqNo {
        seq_no: a.seq_no,
        primary_term: 1,
    };
    assert_eq!(
        index
            .index_document(Some("1"), b"{}", stale)
            .unwrap_err()
            .status(),
        409
    );
    // Real-time get before any refresh.
    let got = index.get_document("1").unwrap().unwrap();
    assert_eq!(got.version.version, 2);
    let u = index
        .update_document("1", &json!({"m": 3}), None, false, true, Precondition::None)
        .unwrap();
    assert_eq!(u.version, 3);
    let src: Value =
        serde_json::from_slice(&index.get_document("1").unwrap().unwrap().source).unwrap();
    assert_eq!(src, json!({"n": 2, "m": 3}));
    let noop = index
        .update_document("1", &json!({"m": 3}), None, false, true, Precondition::None)
        .unwrap();
    assert_eq!(noop.result.as_str(), "noop");
    assert_eq!(
        index
            .update_document("2", &json!({}), None, false, true, Precondition::None)
            .unwrap_err()
            .status(),
        404
    );
    index.refresh().unwrap();
    let d = index.delete_document("1", Precondition::None).unwrap();
    assert_eq!(d.result.as_str(), "deleted");
    assert!(index.get_document("1").unwrap().is_none());
    assert_eq!(
        index
            .delete_document("1", Precondition::None)
            .unwrap()
            .result
            .as_str(),
        "not_found"
    );
    // Dynamic mapping recorded the fields.
    assert!(index.mappings().leaf("o.x").is_some());
    let err = index
        .index_document(Some("3"), br#"{"n": "text"}"#, Precondition::None)
        .unwrap_err();
    assert_eq!(err.es_type(), "document_parsing_exception");
}

/// What `_validate/query`, `_explain` and `_cat` read of an index: the
/// query translated, one document's score explained, each shard's
/// searcher.
#[test]
fn queries_translated_and_explained_without_searching() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    setup(&catalog);
    let index = catalog.get("logs").unwrap();

    let searchers = index.searchers();
    assert_eq!(searchers.len(), 2, "one per shard");
    let docs: u64 = searchers.iter().map(|s| s.num_docs()).sum();
    assert_eq!(docs, 40);

    let q = index
        .build_query(&json!({"term": {"method": "GET"}}), 0)
        .unwrap();
    // d0 is a GET, d1 a POST.
    let matched = index.explain("d0", q.as_ref()).unwrap().unwrap();
    assert!(matched.unwrap().value() > 0.0);
    assert!(index.explain("d1", q.as_ref()).unwrap().unwrap().is_err());
    assert!(index.explain("nope", q.as_ref()).unwrap().is_none());

    let bad = index
        .build_query(&json!({"no_such_query": {}}), 0)
        .unwrap_err();
    assert_eq!(bad.status(), 400);
    catalog.shutdown().unwrap();
}
