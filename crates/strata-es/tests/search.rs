//! Bulk indexing, searches, aggregations, counts and multi-searches over
//! a real socket, checked against values computed from the same documents;
//! then the cluster, stats and cat APIs.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

fn doc(i: u64) -> Value {
    let method = ["GET", "POST", "PUT"][(i % 3) as usize];
    json!({
        "status": if i % 4 == 0 { 404 } else { 200 },
        "method": method,
        "message": format!("request {i} for page {}", i % 5),
        "bytes": i * 10,
        "@timestamp": 1_700_000_000_000u64 + i * 60_000,
    })
}

async fn load(s: &TestServer, n: u64) {
    let create = json!({
        "settings": {"number_of_shards": 2, "number_of_replicas": 0},
        "mappings": {"properties": {
            "status": {"type": "integer"}, "method": {"type": "keyword"},
            "message": {"type": "text"}, "bytes": {"type": "long"},
            "@timestamp": {"type": "date"}}}
    });
    assert_eq!(s.json("PUT", "/web", Some(create)).await.status, 200);
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&json!({"index": {"_id": i.to_string()}}).to_string());
        body.push('\n');
        body.push_str(&doc(i).to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send(
            "POST",
            "/web/_bulk?refresh=true",
            &nd,
            Some(body.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let reply = r.json();
    assert_eq!(reply["errors"], false);
    assert_eq!(reply["items"].as_array().unwrap().len() as u64, n);
    assert_eq!(reply["items"][0]["index"]["status"], 201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_then_search_aggregate_count_msearch() {
    let s = TestServer::start(1 << 20).await;
    let n = 60;
    load(&s, n).await;
    let not_found = (0..n).filter(|i| i % 4 == 0).count() as u64;
    let r = s
        .json(
            "POST",
            "/web/_search",
            Some(json!({"query": {"term": {"status": 404}}, "size": 0})),
        )
        .await
        .json();
    assert_eq!(r["hits"]["total"]["value"], not_found);
    let r = s
        .json(
            "POST",
            "/web/_search",
            Some(json!({
                "query": {"bool": {"must": [{"match": {"message": "page"}}],
                                   "filter": [{"range": {"bytes": {"gte": 100, "lt": 200}}}]}},
                "sort": [{"bytes": "asc"}], "size": 3}
            )),
        )
        .await
        .json();
    assert_eq!(r["hits"]["total"]["value"], 10);
    assert_eq!(r["hits"]["hits"][0]["_id"], "10");
    let r = s
        .json(
            "POST",
            "/web/_search",
            Some(json!({"size": 0, "aggs": {
            "methods": {"terms": {"field": "method"}},
            "avg_bytes": {"avg": {"field": "bytes"}}}})),
        )
        .await
        .json();
    let avg: f64 = (0..n).map(|i| (i * 10) as f64).sum::<f64>() / n as f64;
    assert!((r["aggregations"]["avg_bytes"]["value"].as_f64().unwrap() - avg).abs() < 1e-6);
    for bucket in r["aggregations"]["methods"]["buckets"].as_array().unwrap() {
        assert_eq!(bucket["doc_count"], 20);
    }
    let count = s
        .json(
            "GET",
            "/web/_count",
            Some(json!({"query": {"match": {"method": "GET"}}})),
        )
        .await
        .json();
    assert_eq!(count["count"], 20);
    let paged = s
        .json(
            "GET",
            "/web/_search?size=2&from=1&filter_path=hits.hits._id",
            None,
        )
        .await;
    assert_eq!(paged.json()["hits"]["hits"].as_array().unwrap().len(), 2);
    assert!(paged.json().get("took").is_none());
    let nd = [("Content-Type", "application/x-ndjson")];
    let ms = "{\"index\":\"web\"}\n{\"query\":{\"term\":{\"status\":200}},\"size\":0}\n{\"index\":\"missing\"}\n{}\n";
    let r = s
        .send("POST", "/_msearch", &nd, Some(ms.as_bytes()))
        .await
        .json();
    assert_eq!(r["responses"][0]["hits"]["total"]["value"], n - not_found);
    assert_eq!(r["responses"][0]["status"], 200);
    assert_eq!(r["responses"][1]["status"], 404);
    let empty = s.json("GET", "/nothing-*/_search", None).await.json();
    assert_eq!(empty["hits"]["total"]["value"], 0);
    s.stop(true).await;
}

/// Many searches in one `_msearch`, run concurrently: every answer in its
/// request's place, the same at any `max_concurrent_searches`, each equal
/// to the same search sent alone; zero is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn msearch_answers_in_request_order_at_any_concurrency() {
    let s = TestServer::start(1 << 20).await;
    let n = 60;
    load(&s, n).await;
    let nd = [("Content-Type", "application/x-ndjson")];
    let mut searches = Vec::new();
    for i in 0..12u64 {
        let (header, body) = match i % 4 {
            0 => (
                json!({"index": "web"}),
                json!({"size": 0, "query": {"range": {"bytes": {"gte": i * 40}}}}),
            ),
            1 => (json!({"index": "missing"}), json!({})),
            2 => (
                json!({}),
                json!({"size": 0, "aggs": {"m": {"terms": {"field": "method", "size": 1 + i % 3}}}}),
            ),
            _ => (json!({"index": "web"}), json!({"query": {"bogus": {}}})),
        };
        searches.push((header, body));
    }
    let mut ms = String::new();
    for (header, body) in &searches {
        ms.push_str(&format!("{header}\n{body}\n"));
    }
    let strip = |mut v: Value| {
        v.as_object_mut().map(|o| o.remove("took"));
        v
    };
    let mut replies = Vec::new();
    for concurrency in ["1", "3", "64"] {
        let uri = format!("/web/_msearch?max_concurrent_searches={concurrency}");
        let r = s.send("POST", &uri, &nd, Some(ms.as_bytes())).await;
        assert_eq!(r.status, 200, "{}", r.text());
        let responses: Vec<Value> = r.json()["responses"]
            .as_array()
            .unwrap()
            .iter()
            .cloned()
            .map(strip)
            .collect();
        assert_eq!(responses.len(), searches.len());
        replies.push(responses);
    }
    assert_eq!(replies[0], replies[1]);
    assert_eq!(replies[0], replies[2]);
    for (i, (header, body)) in searches.iter().enumerate() {
        let got = &replies[1][i];
        match i % 4 {
            1 => assert_eq!(got["status"], 404, "{got}"),
            3 => assert_eq!(got["status"], 400, "{got}"),
            _ => {
                assert_eq!(got["status"], 200, "{got}");
                let index = header["index"].as_str().unwrap_or("web");
                let alone = strip(
                    s.json("POST", &format!("/{index}/_search"), Some(body.clone()))
                        .await
                        .json(),
                );
                let mut expected = alone;
                expected["status"] = json!(200);
                assert_eq!(got, &expected, "search {i}");
            }
        }
    }
    let zero = s
        .send(
            "POST",
            "/web/_msearch?max_concurrent_searches=0",
            &nd,
            Some(ms.as_bytes()),
        )
        .await;
    assert_eq!(zero.status, 400, "{}", zero.text());
    let bad = s
        .send(
            "POST",
            "/web/_msearch?max_concurrent_searches=x",
            &nd,
            Some(ms.as_bytes()),
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text());
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_items_report_their_own_errors() {
    let s = TestServer::start(1 << 20).await;
    let nd = [("Content-Type", "application/x-ndjson")];
    let body = concat!(
        "{\"create\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"x\":1}\n",
        "{\"create\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"x\":2}\n",
        "{\"update\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"doc\":{\"y\":2}}\n",
        "{\"delete\":{\"_index\":\"b\",\"_id\":\"7\"}}\n",
        "{\"delete\":{\"_index\":\"b\",\"_id\":\"1\"}}\n",
    );
    let r = s
        .send("POST", "/_bulk", &nd, Some(body.as_bytes()))
        .await
        .json();
    assert_eq!(r["errors"], true);
    let items = r["items"].as_array().unwrap();
    assert_eq!(items[0]["create"]["status"], 201);
    assert_eq!(items[1]["create"]["status"], 409);
    assert_eq!(
        items[1]["create"]["error"]["type"],
        "version_conflict_engine_exception"
    );
    assert_eq!(items[2]["update"]["result"], "updated");
    assert_eq!(items[3]["delete"]["status"], 404);
    assert_eq!(items[4]["delete"]["result"], "deleted");
    let unterminated = s
        .send(
            "POST",
            "/_bulk",
            &nd,
            Some(b"{\"delete\":{\"_index\":\"b\",\"_id\":\"1\"}}"),
        )
        .await;
    assert_eq!(unterminated.status, 400);
    let malformed = s.send("POST", "/_bulk", &nd, Some(b"{oops\n")).await;
    assert_eq!(malformed.status, 400);
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_stats_and_cat() {
    let s = TestServer::start(1 << 20).await;
    load(&s, 12).await;
    let h = s
        .json(
            "GET",
            "/_cluster/health?wait_for_status=green&timeout=2s",
            None,
        )
        .await;
    assert_eq!(
        (h.status, h.json()["status"].clone()),
        (200, json!("green"))
    );
    s.json(
        "PUT",
        "/replicated",
        Some(json!({"settings": {"number_of_replicas": 1}})),
    )
    .await;
    let h = s
        .json(
            "GET",
            "/_cluster/health?wait_for_status=green&timeout=200ms",
            None,
        )
        .await;
    assert_eq!(
        (h.status, h.json()["status"].clone()),
        (408, json!("yellow"))
    );
    assert_eq!(h.json()["timed_out"], true);
    let stats = s.json("GET", "/web/_stats", None).await.json();
    assert_eq!(stats["indices"]["web"]["primaries"]["docs"]["count"], 12);
    assert!(
        stats["_all"]["total"]["store"]["size_in_bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
    let cat = s
        .json("GET", "/_cat/indices?format=json&h=index,docs.count", None)
        .await
        .json();
    assert!(cat
        .as_array()
        .unwrap()
        .contains(&json!({"index": "web", "docs.count": "12"})));
    let text = s.json("GET", "/_cat/indices?v", None).await;
    assert!(text
        .header("content-type")
        .unwrap()
        .starts_with("text/plain"));
    assert!(text.text().starts_with("health"), "{}", text.text());
    assert!(s
        .json("GET", "/_cat/health", None)
        .await
        .text()
        .contains("yellow"));
    assert!(s
        .json("GET", "/_cat/nodes?h=name", None)
        .await
        .text()
        .contains("test-node"));
    let nodes = s.json("GET", "/_nodes/_all/http", None).await.json();
    assert_eq!(nodes["_nodes"]["total"], 1);
    let ns = s.json("GET", "/_nodes/stats", None).await.json();
    let node = ns["nodes"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    assert_eq!(node["indices"]["docs"]["count"], 12);
    assert!(node["jvm"].is_object() && node["ingest"].is_object());
    let merges = &node["indices"]["merges"];
    assert!(
        merges["total_throttled_time_in_millis"].is_u64(),
        "{merges}"
    );
    assert!(merges["strata_pauses_for_searches"].is_u64(), "{merges}");
    assert_eq!(s.json("GET", "/_cluster/settings", None).await.status, 200);
    s.stop(true).await;
}
