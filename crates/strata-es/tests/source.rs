//! `_source` comes back byte for byte as it was indexed (key order,
//! spacing, escapes), as Elasticsearch returns it, from `_search`,
//! `_msearch`, `GET _doc`, `GET _source` and `_mget`; filters, `fields`,
//! `docvalue_fields`, `stored_fields`, `filter_path` and `pretty` still
//! apply.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

/// Keys out of order, odd spacing, an escape and a non-ASCII character.
const SOURCE: &str = "{\"zeta\": 1,  \"alpha\":{\"b\" : [2, 1], \"a\":\"x\"},\n \"@timestamp\":\"2026-01-02T03:04:05Z\", \"msg\":\"h\u{e9}llo \\\"q\\\"\"}";

async fn setup() -> TestServer {
    let s = TestServer::start(1 << 20).await;
    let create = json!({"mappings": {"properties": {
        "@timestamp": {"type": "date"}, "zeta": {"type": "long"},
        "alpha": {"properties": {"a": {"type": "keyword"}, "b": {"type": "long"}}},
        "msg": {"type": "text"}}}});
    assert_eq!(s.json("PUT", "/src", Some(create)).await.status, 200);
    let json = [("Content-Type", "application/json")];
    let r = s
        .send(
            "PUT",
            "/src/_doc/1?refresh=true",
            &json,
            Some(SOURCE.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    s
}

fn verbatim(text: &str) -> bool {
    text.contains(&format!("\"_source\":{SOURCE}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_return_the_source_verbatim() {
    let s = setup().await;
    let r = s.json("POST", "/src/_search", Some(json!({}))).await;
    assert_eq!(r.status, 200);
    assert!(verbatim(&r.text()), "{}", r.text());
    assert_eq!(r.json()["hits"]["hits"][0]["_id"], "1");

    // Kibana's Discover: whole source, the date from doc values, a sort.
    let discover = json!({
        "size": 500, "sort": [{"@timestamp": {"order": "desc", "unmapped_type": "boolean"}}],
        "_source": {"excludes": []}, "docvalue_fields": ["@timestamp"],
        "stored_fields": ["*"], "version": true
    });
    let r = s.json("POST", "/src/_search", Some(discover.clone())).await;
    assert!(verbatim(&r.text()), "{}", r.text());
    let hit = &r.json()["hits"]["hits"][0];
    assert_eq!(
        hit["fields"],
        json!({"@timestamp": ["2026-01-02T03:04:05.000Z"]})
    );
    assert_eq!(hit["_version"], 1);
    assert_eq!(hit["sort"], json!([1_767_323_045_000i64]));

    // Filters, `fields` and no source at all.
    let r = s
        .json(
            "POST",
            "/src/_search",
            Some(json!({"_source": ["alpha.*"]})),
        )
        .await
        .json();
    assert_eq!(
        r["hits"]["hits"][0]["_source"],
        json!({"alpha": {"b": [2, 1], "a": "x"}})
    );
    let r = s
        .json("POST", "/src/_search", Some(json!({"fields": ["alpha.b"]})))
        .await;
    assert!(verbatim(&r.text()), "{}", r.text());
    assert_eq!(
        r.json()["hits"]["hits"][0]["fields"],
        json!({"alpha.b": [2, 1]})
    );
    let r = s
        .json(
            "POST",
            "/src/_search",
            Some(json!({"stored_fields": "_none_"})),
        )
        .await
        .json();
    let hit = r["hits"]["hits"][0].as_object().unwrap();
    assert!(
        !hit.contains_key("_source") && !hit.contains_key("_id"),
        "{r}"
    );

    // `_msearch`, `filter_path` and `pretty` over serialized hits.
    let nd = [("Content-Type", "application/x-ndjson")];
    let body = format!("{{}}\n{discover}\n{{\"index\":\"missing\"}}\n{{}}\n");
    let r = s
        .send("POST", "/src/_msearch", &nd, Some(body.as_bytes()))
        .await;
    assert!(verbatim(&r.text()), "{}", r.text());
    let reply = r.json();
    assert_eq!(reply["responses"][0]["status"], 200);
    assert_eq!(reply["responses"][1]["status"], 404);
    let r = s
        .json(
            "POST",
            "/src/_search?filter_path=hits.hits._source.zeta",
            Some(json!({})),
        )
        .await
        .json();
    assert_eq!(r, json!({"hits": {"hits": [{"_source": {"zeta": 1}}]}}));
    let r = s.json("POST", "/src/_search?pretty", Some(json!({}))).await;
    assert!(r.text().contains("\n  \"hits\""), "{}", r.text());
    assert_eq!(
        r.json()["hits"]["hits"][0]["_source"]["msg"],
        "h\u{e9}llo \"q\""
    );
    s.stop(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gets_return_the_source_verbatim() {
    let s = setup().await;
    let r = s.json("GET", "/src/_doc/1", None).await;
    assert_eq!(r.status, 200);
    assert!(verbatim(&r.text()), "{}", r.text());
    let doc = r.json();
    assert_eq!(
        (doc["found"].clone(), doc["_version"].clone()),
        (json!(true), json!(1))
    );

    let r = s.json("GET", "/src/_source/1", None).await;
    assert_eq!(r.text(), SOURCE);
    let r = s
        .json("GET", "/src/_doc/1?_source_includes=zeta", None)
        .await
        .json();
    assert_eq!(r["_source"], json!({"zeta": 1}));
    let r = s
        .json("GET", "/src/_doc/1?_source=false", None)
        .await
        .json();
    assert!(r.get("_source").is_none(), "{r}");

    let r = s
        .json(
            "POST",
            "/_mget",
            Some(json!({"docs": [
                {"_index": "src", "_id": "1"},
                {"_index": "src", "_id": "2"},
                {"_index": "src", "_id": "1", "_source": ["alpha.a"]},
                {"_index": "nope", "_id": "1"}
            ]})),
        )
        .await;
    assert!(verbatim(&r.text()), "{}", r.text());
    let docs = r.json()["docs"].clone();
    assert_eq!(docs[1]["found"], false);
    assert_eq!(docs[2]["_source"], json!({"alpha": {"a": "x"}}));
    assert_eq!(docs[3]["error"]["type"], "index_not_found_exception");
    let missing: Value = s.json("GET", "/src/_doc/2", None).await.json();
    assert_eq!(missing["found"], false);
    s.stop(false).await;
}
