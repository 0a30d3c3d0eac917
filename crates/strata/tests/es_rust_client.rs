//! The official Rust `elasticsearch` client (8.x) against a `strata serve`
//! child, unchanged: connect (`GET /` and its product header), create an
//! index with settings and mappings, bulk, search with each kind of query,
//! aggregations checked against answers computed in the test from the same
//! documents (`support/access_docs.rs`), msearch, count, aliases, rollover,
//! single-document get/update/delete, and the error statuses the client
//! reports (404, 409, 400).

use crate::access_docs;
use crate::support;

use std::collections::BTreeSet;

use access_docs::{assert_close, AccessDoc};
use elasticsearch::http::request::JsonBody;
use elasticsearch::http::response::Response;
use elasticsearch::http::transport::Transport;
use elasticsearch::indices::{IndicesCreateParts, IndicesRolloverParts};
use elasticsearch::params::Refresh;
use elasticsearch::{BulkParts, CountParts, Elasticsearch, MsearchParts, SearchParts};
use serde_json::{json, Value};
use support::Server;

const INDEX: &str = "access";

/// A client for `server`'s HTTP front end.
fn client(server: &Server) -> Elasticsearch {
    let url = format!("http://{}", server.http());
    Elasticsearch::new(Transport::single_node(&url).expect("transport"))
}

/// The body of a reply the test expects to succeed, failing with its text.
async fn ok_json(response: Result<Response, elasticsearch::Error>, what: &str) -> Value {
    let response = response.unwrap_or_else(|e| panic!("{what}: {e}"));
    let status = response.status_code();
    let text = response.text().await.expect("body");
    assert!(status.is_success(), "{what}: {status} {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}: {text}"))
}

async fn create_and_fill(es: &Elasticsearch, docs: &[AccessDoc]) {
    let created = es
        .indices()
        .create(IndicesCreateParts::Index(INDEX))
        .body(json!({
            "settings": {"number_of_shards": 2, "number_of_replicas": 0, "refresh_interval": "-1"},
            "mappings": {"properties": {
                "@timestamp": {"type": "date"},
                "method": {"type": "keyword"},
                "status": {"type": "integer"},
                "bytes": {"type": "long"},
                "user": {"type": "keyword"},
                "message": {"type": "text"}
            }}
        }))
        .send()
        .await;
    let created = ok_json(created, "create index").await;
    assert_eq!(created["acknowledged"], true);
    assert_eq!(created["index"], INDEX);

    let mut body: Vec<JsonBody<Value>> = Vec::new();
    for doc in docs {
        body.push(json!({"index": {"_id": doc.id}}).into());
        body.push(doc.source().into());
    }
    let bulk = es
        .bulk(BulkParts::Index(INDEX))
        .refresh(Refresh::True)
        .body(body)
        .send()
        .await;
    let bulk = ok_json(bulk, "bulk").await;
    assert_eq!(bulk["errors"], false, "{bulk}");
    assert_eq!(bulk["items"].as_array().unwrap().len(), docs.len());
    assert!(bulk["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|item| item["index"]["status"] == 201));
}

#[tokio::test]
async fn official_client_indexes_searches_and_aggregates() {
    let server = Server::start_with_http(&[]);
    let es = client(&server);

    // Connect: `GET /` as the client sees it.
    let info = es.info().send().await.expect("info");
    assert_eq!(
        info.headers()
            .get("x-elastic-product")
            .and_then(|v| v.to_str().ok()),
        Some("Elasticsearch")
    );
    let info = ok_json(Ok(info), "info").await;
    assert!(info["version"]["number"]
        .as_str()
        .unwrap()
        .starts_with("8."));
    assert_eq!(info["tagline"], "You Know, for Search");

    let docs = access_docs::documents();
    create_and_fill(&es, &docs).await;

    // Each query kind against the matching ids computed here.
    let cases: Vec<(&str, Value, BTreeSet<String>)> = vec![
        (
            "match",
            json!({"match": {"message": "error"}}),
            access_docs::ids(&docs, |d| d.status >= 400),
        ),
        (
            "term",
            json!({"term": {"method": "POST"}}),
            access_docs::ids(&docs, |d| d.method == "POST"),
        ),
        (
            "range",
            json!({"range": {"bytes": {"gte": 1000, "lt": 3000}}}),
            access_docs::ids(&docs, |d| (1000..3000).contains(&d.bytes)),
        ),
        (
            "bool",
            json!({"bool": {
                "must": [{"term": {"method": "GET"}}],
                "filter": [{"range": {"@timestamp": {"gte": access_docs::START_MS + access_docs::HOUR_MS}}}],
                "must_not": [{"term": {"status": 200}}]
            }}),
            access_docs::ids(&docs, |d| {
                d.method == "GET"
                    && d.timestamp_ms >= access_docs::START_MS + access_docs::HOUR_MS
                    && d.status != 200
            }),
        ),
        (
            "query_string",
            json!({"query_string": {"query": "method:POST AND status:[400 TO 499]"}}),
            access_docs::ids(&docs, |d| {
                d.method == "POST" && (400..=499).contains(&d.status)
            }),
        ),
        (
            "exists",
            json!({"bool": {"must_not": [{"exists": {"field": "user"}}]}}),
            access_docs::ids(&docs, |d| d.user.is_none()),
        ),
    ];
    for (name, query, want) in &cases {
        assert!(!want.is_empty(), "{name}: the documents must match some");
        let reply = es
            .search(SearchParts::Index(&[INDEX]))
            .body(json!({"query": query, "size": 100, "track_total_hits": true}))
            .send()
            .await;
        let reply = ok_json(reply, name).await;
        assert_eq!(reply["hits"]["total"]["value"], want.len(), "{name}");
        assert_eq!(&access_docs::hit_ids(&reply), want, "{name}");
    }

    check_aggregations(&es, &docs).await;

    // msearch: one reply per search, in order.
    let body: Vec<JsonBody<Value>> = vec![
        json!({}).into(),
        json!({"query": {"term": {"method": "PUT"}}, "size": 0}).into(),
        json!({"index": INDEX}).into(),
        json!({"query": {"match_all": {}}, "size": 0}).into(),
    ];
    let reply = es
        .msearch(MsearchParts::Index(&[INDEX]))
        .body(body)
        .send()
        .await;
    let reply = ok_json(reply, "msearch").await;
    let responses = reply["responses"].as_array().expect("responses");
    assert_eq!(responses.len(), 2);
    let puts = docs.iter().filter(|d| d.method == "PUT").count();
    assert_eq!(responses[0]["hits"]["total"]["value"], puts);
    assert_eq!(responses[1]["hits"]["total"]["value"], docs.len());

    // count, with and without a query.
    let reply = es.count(CountParts::Index(&[INDEX])).send().await;
    assert_eq!(ok_json(reply, "count").await["count"], docs.len());
    let reply = es
        .count(CountParts::Index(&[INDEX]))
        .body(json!({"query": {"range": {"status": {"gte": 500}}}}))
        .send()
        .await;
    let errors = docs.iter().filter(|d| d.status >= 500).count();
    assert_eq!(ok_json(reply, "count query").await["count"], errors);
}

async fn check_aggregations(es: &Elasticsearch, docs: &[AccessDoc]) {
    let reply = es
        .search(SearchParts::Index(&[INDEX]))
        .body(json!({"size": 0, "aggs": {
            "methods": {"terms": {"field": "method"},
                        "aggs": {"avg_status": {"avg": {"field": "status"}}}},
            "per_hour": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1h"}},
            "avg_bytes": {"avg": {"field": "bytes"}},
            "bytes_stats": {"stats": {"field": "bytes"}},
            "users": {"cardinality": {"field": "user"}},
            "statuses": {"terms": {"field": "status", "size": 3}}
        }}))
        .send()
        .await;
    let reply = ok_json(reply, "aggregations").await;
    let aggs = &reply["aggregations"];

    let methods = access_docs::terms(docs.iter().map(|d| d.method), 10);
    let buckets = aggs["methods"]["buckets"].as_array().expect("buckets");
    assert_eq!(buckets.len(), methods.len(), "{}", aggs["methods"]);
    for (bucket, (method, count)) in buckets.iter().zip(&methods) {
        assert_eq!(
            (&bucket["key"], &bucket["doc_count"]),
            (&json!(method), &json!(count))
        );
        let statuses: Vec<i64> = docs
            .iter()
            .filter(|d| d.method == *method)
            .map(|d| d.status)
            .collect();
        let avg = access_docs::stats(&statuses).3;
        assert_close(&bucket["avg_status"]["value"], avg, method);
    }

    let statuses = access_docs::terms(docs.iter().map(|d| d.status), 3);
    let got: Vec<(i64, u64)> = aggs["statuses"]["buckets"]
        .as_array()
        .expect("buckets")
        .iter()
        .map(|b| (b["key"].as_i64().unwrap(), b["doc_count"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, statuses);

    let hours = access_docs::histogram(docs.iter().map(|d| d.timestamp_ms), access_docs::HOUR_MS);
    let got: Vec<(i64, u64)> = aggs["per_hour"]["buckets"]
        .as_array()
        .expect("buckets")
        .iter()
        .map(|b| (b["key"].as_i64().unwrap(), b["doc_count"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, hours);

    let bytes: Vec<i64> = docs.iter().map(|d| d.bytes).collect();
    let (count, min, max, avg, sum) = access_docs::stats(&bytes);
    assert_close(&aggs["avg_bytes"]["value"], avg, "avg");
    let stats = &aggs["bytes_stats"];
    assert_eq!(stats["count"], count);
    assert_close(&stats["min"], min, "min");
    assert_close(&stats["max"], max, "max");
    assert_close(&stats["avg"], avg, "stats avg");
    assert_close(&stats["sum"], sum, "sum");

    let users: BTreeSet<&String> = docs.iter().filter_map(|d| d.user.as_ref()).collect();
    assert_eq!(aggs["users"]["value"], users.len());
}

#[tokio::test]
async fn official_client_manages_aliases_documents_and_errors() {
    let server = Server::start_with_http(&[]);
    let es = client(&server);
    let docs = access_docs::documents();
    create_and_fill(&es, &docs[..10]).await;

    // An alias reads the index.
    let reply = es
        .indices()
        .update_aliases()
        .body(json!({"actions": [{"add": {"index": INDEX, "alias": "access-read"}}]}))
        .send()
        .await;
    assert_eq!(ok_json(reply, "aliases").await["acknowledged"], true);
    let reply = es.count(CountParts::Index(&["access-read"])).send().await;
    assert_eq!(ok_json(reply, "count by alias").await["count"], 10);

    // Rollover of a write alias once max_docs is reached.
    let reply = es
        .indices()
        .create(IndicesCreateParts::Index("events-000001"))
        .body(json!({"aliases": {"events": {"is_write_index": true}}}))
        .send()
        .await;
    ok_json(reply, "create events").await;
    for n in 0..3 {
        let reply = es
            .index(elasticsearch::IndexParts::Index("events"))
            .refresh(Refresh::True)
            .body(json!({"n": n}))
            .send()
            .await;
        ok_json(reply, "index into alias").await;
    }
    let reply = es
        .indices()
        .rollover(IndicesRolloverParts::Alias("events"))
        .body(json!({"conditions": {"max_docs": 2}}))
        .send()
        .await;
    let reply = ok_json(reply, "rollover").await;
    assert_eq!(reply["rolled_over"], true, "{reply}");
    assert_eq!(reply["old_index"], "events-000001");
    assert_eq!(reply["new_index"], "events-000002");
    let reply = es
        .index(elasticsearch::IndexParts::Index("events"))
        .body(json!({"n": 3}))
        .send()
        .await;
    assert_eq!(
        ok_json(reply, "index after rollover").await["_index"],
        "events-000002"
    );

    documents_and_errors(&es).await;
}

async fn documents_and_errors(es: &Elasticsearch) {
    use elasticsearch::{DeleteParts, GetParts, IndexParts, UpdateParts};

    let reply = es
        .index(IndexParts::IndexId(INDEX, "one"))
        .body(json!({"method": "GET", "status": 200}))
        .send()
        .await;
    let indexed = ok_json(reply, "index one").await;
    assert_eq!(indexed["result"], "created");
    let seq_no = indexed["_seq_no"].as_i64().expect("_seq_no");
    let term = indexed["_primary_term"].as_i64().expect("_primary_term");

    let reply = es
        .update(UpdateParts::IndexId(INDEX, "one"))
        .body(json!({"doc": {"status": 404}}))
        .send()
        .await;
    assert_eq!(ok_json(reply, "update").await["result"], "updated");
    let reply = es.get(GetParts::IndexId(INDEX, "one")).send().await;
    let got = ok_json(reply, "get").await;
    assert_eq!(got["found"], true);
    assert_eq!(got["_source"], json!({"method": "GET", "status": 404}));

    // 409: the update moved the sequence number past `seq_no`.
    let reply = es
        .index(IndexParts::IndexId(INDEX, "one"))
        .if_seq_no(seq_no)
        .if_primary_term(term)
        .body(json!({"method": "PUT"}))
        .send()
        .await
        .expect("sent");
    assert_error(reply, 409, "version_conflict_engine_exception").await;

    let reply = es.delete(DeleteParts::IndexId(INDEX, "one")).send().await;
    assert_eq!(ok_json(reply, "delete").await["result"], "deleted");
    let reply = es
        .get(GetParts::IndexId(INDEX, "one"))
        .send()
        .await
        .expect("sent");
    assert_eq!(reply.status_code().as_u16(), 404);
    assert_eq!(reply.json::<Value>().await.unwrap()["found"], false);

    // 404: no such index.
    let reply = es
        .search(SearchParts::Index(&["no-such-index"]))
        .send()
        .await
        .expect("sent");
    assert_error(reply, 404, "index_not_found_exception").await;

    // 400: a query the parser refuses.
    let reply = es
        .search(SearchParts::Index(&[INDEX]))
        .body(json!({"query": {"no_such_query": {}}}))
        .send()
        .await
        .expect("sent");
    assert_error(reply, 400, "parsing_exception").await;
}

/// The client maps `reply` to an error with `status`, and its exception
/// has Elasticsearch's shape and `ty`.
async fn assert_error(reply: Response, status: u16, ty: &str) {
    let error = reply.error_for_status_code_ref().err();
    let client_status = error.and_then(|e| e.status_code()).map(|s| s.as_u16());
    assert_eq!(client_status, Some(status), "the client reports the status");
    let exception = reply
        .exception()
        .await
        .expect("readable body")
        .expect("an exception body");
    assert_eq!(exception.status(), Some(status));
    assert_eq!(exception.error().ty(), Some(ty));
    assert_eq!(exception.error().root_cause()[0].ty(), Some(ty));
}
