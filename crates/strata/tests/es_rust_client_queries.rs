//! The official Rust `elasticsearch` client against a `strata serve`
//! child: `composite` paged to the end with `after_key`, `cardinality`
//! exact below `precision_threshold`, `weighted_avg`, `missing`, the
//! `cumulative_sum` pipeline, `fuzzy`/`dis_max`/`match_phrase_prefix`
//! queries and `highlight`, each checked against answers computed here
//! from the same documents (`support/access_docs.rs`), and a 400.

// Shared with `es_rust_client.rs`, which uses the rest of it.
use crate::access_docs;
use crate::support;

use std::collections::{BTreeMap, HashSet};

use access_docs::{ids, AccessDoc};
use elasticsearch::http::request::JsonBody;
use elasticsearch::http::response::Response;
use elasticsearch::http::transport::Transport;
use elasticsearch::indices::IndicesCreateParts;
use elasticsearch::params::Refresh;
use elasticsearch::{BulkParts, Elasticsearch, SearchParts};
use serde_json::{json, Value};
use support::Server;

const INDEX: &str = "access-q";

async fn ok_json(response: Result<Response, elasticsearch::Error>, what: &str) -> Value {
    let response = response.unwrap_or_else(|e| panic!("{what}: {e}"));
    let status = response.status_code();
    let text = response.text().await.expect("body");
    assert!(status.is_success(), "{what}: {status} {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}: {text}"))
}

async fn search(es: &Elasticsearch, body: Value) -> Value {
    let r = es
        .search(SearchParts::Index(&[INDEX]))
        .body(body.clone())
        .send()
        .await;
    ok_json(r, &body.to_string()).await
}

async fn fill(es: &Elasticsearch, docs: &[AccessDoc]) {
    let created = es
        .indices()
        .create(IndicesCreateParts::Index(INDEX))
        .body(json!({
            "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
            "mappings": {"properties": {
                "@timestamp": {"type": "date"}, "method": {"type": "keyword"},
                "status": {"type": "integer"}, "bytes": {"type": "long"},
                "user": {"type": "keyword"}, "message": {"type": "text"}}}
        }))
        .send()
        .await;
    ok_json(created, "create").await;
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
    assert_eq!(ok_json(bulk, "bulk").await["errors"], false);
}

#[tokio::test]
async fn official_client_pages_composite_and_highlights() {
    let server = Server::start_with_http(&[]);
    let url = format!("http://{}", server.http());
    let es = Elasticsearch::new(Transport::single_node(&url).expect("transport"));
    let docs = access_docs::documents();
    fill(&es, &docs).await;

    // composite over (method, status), pages of 3 until the end.
    let mut truth: BTreeMap<(String, i64), u64> = BTreeMap::new();
    for d in &docs {
        *truth.entry((d.method.to_string(), d.status)).or_default() += 1;
    }
    let (mut got, mut after) = (BTreeMap::new(), None::<Value>);
    loop {
        let mut c = json!({"size": 3, "sources": [
            {"m": {"terms": {"field": "method"}}}, {"s": {"terms": {"field": "status"}}}]});
        if let Some(a) = &after {
            c["after"] = a.clone();
        }
        let r = search(&es, json!({"size": 0, "aggs": {"c": {"composite": c}}})).await;
        let buckets = r["aggregations"]["c"]["buckets"]
            .as_array()
            .unwrap()
            .clone();
        if buckets.is_empty() {
            break;
        }
        for b in &buckets {
            let key = (
                b["key"]["m"].as_str().unwrap().to_string(),
                b["key"]["s"].as_i64().unwrap(),
            );
            got.insert(key, b["doc_count"].as_u64().unwrap());
        }
        after = Some(r["aggregations"]["c"]["after_key"].clone());
    }
    assert_eq!(got, truth);

    // cardinality (exact), weighted_avg, missing, cumulative_sum.
    let r = search(
        &es,
        json!({"size": 0, "aggs": {
            "users": {"cardinality": {"field": "user", "precision_threshold": 1000}},
            "bytes": {"cardinality": {"field": "bytes"}},
            "wa": {"weighted_avg": {"value": {"field": "bytes"}, "weight": {"field": "status"}}},
            "nouser": {"missing": {"field": "user"}},
            "h": {"histogram": {"field": "status", "interval": 100},
                  "aggs": {"cs": {"cumulative_sum": {"buckets_path": "_count"}}}}}}),
    )
    .await;
    let a = &r["aggregations"];
    let users: HashSet<_> = docs.iter().filter_map(|d| d.user.clone()).collect();
    let bytes: HashSet<_> = docs.iter().map(|d| d.bytes).collect();
    assert_eq!(a["users"]["value"], json!(users.len()));
    assert_eq!(a["bytes"]["value"], json!(bytes.len()));
    let (num, den) = docs.iter().fold((0.0, 0.0), |(n, w), d| {
        (n + (d.bytes * d.status) as f64, w + d.status as f64)
    });
    assert!((a["wa"]["value"].as_f64().unwrap() - num / den).abs() < 1e-6);
    assert_eq!(
        a["nouser"]["doc_count"],
        json!(docs.iter().filter(|d| d.user.is_none()).count())
    );
    let mut running = 0;
    for b in a["h"]["buckets"].as_array().unwrap() {
        running += b["doc_count"].as_u64().unwrap();
        assert_eq!(b["cs"]["value"].as_f64().unwrap() as u64, running);
    }
    assert_eq!(running, docs.len() as u64);

    // Queries: fuzzy on a keyword, dis_max, match_phrase_prefix, with highlight.
    let method = docs[0].method;
    let typo: String = method.chars().rev().collect::<String>();
    let r = search(
        &es,
        json!({"size": 1000, "query": {"fuzzy": {"method": {"value": method.to_lowercase(), "fuzziness": 0}}}}),
    )
    .await;
    assert_eq!(
        access_docs::hit_ids(&r),
        ids(&docs, |d| d.method == method.to_lowercase())
    );
    let r = search(
        &es,
        json!({"size": 1000, "query": {"dis_max": {"queries": [
            {"term": {"method": method}}, {"term": {"method": typo}}]}}}),
    )
    .await;
    assert_eq!(
        access_docs::hit_ids(&r),
        ids(&docs, |d| d.method == method || d.method == typo)
    );
    let word = docs[0]
        .message
        .split_whitespace()
        .next()
        .unwrap()
        .to_lowercase();
    let prefix = &word[..word.len().min(3)];
    let r = search(
        &es,
        json!({"size": 1000, "query": {"match_phrase_prefix": {"message": prefix}},
               "highlight": {"fields": {"message": {"number_of_fragments": 0}}}}),
    )
    .await;
    let want = ids(&docs, |d| {
        d.message
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w.to_lowercase().starts_with(prefix))
    });
    assert_eq!(access_docs::hit_ids(&r), want);
    for h in r["hits"]["hits"].as_array().unwrap() {
        let frag = h["highlight"]["message"][0].as_str().unwrap();
        assert!(frag.contains("<em>"), "{frag}");
    }

    // A bad request is the client's 400.
    let reply = es
        .search(SearchParts::Index(&[INDEX]))
        .body(json!({"aggs": {"c": {"composite": {"sources": []}}}}))
        .send()
        .await
        .expect("sent");
    assert_eq!(reply.status_code().as_u16(), 400);
}
