//! Index templates over a real socket: legacy, composable and component
//! templates stored, listed and deleted; applied to indices created by
//! `PUT /<index>`, by indexing a document and by `_bulk`; precedence
//! (composable over legacy, priority, order, the request last); errors;
//! templates surviving a restart.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

const LIMIT: usize = 1 << 20;

fn error_type(body: &Value) -> String {
    body["error"]["type"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn settings_of(s: &TestServer, index: &str) -> Value {
    s.json("GET", &format!("/{index}/_settings"), None)
        .await
        .json()[index]["settings"]["index"]
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_templates_merge_by_order_and_request_wins() {
    let s = TestServer::start(LIMIT).await;
    let r = s
        .json(
            "PUT",
            "/_template/base",
            Some(json!({
                "index_patterns": ["logs-*"], "order": 0,
                "settings": {"number_of_shards": 2, "refresh_interval": "5s"},
                "mappings": {"properties": {"host": {"type": "keyword"}}},
                "aliases": {"all-logs": {}}
            })),
        )
        .await;
    assert_eq!(r.json(), json!({"acknowledged": true}));
    s.json(
        "PUT",
        "/_template/narrow",
        Some(json!({
            "index_patterns": "logs-web-*", "order": 5, "version": 3,
            "settings": {"index.number_of_shards": 3},
            "mappings": {"properties": {"status": {"type": "integer"}}}
        })),
    )
    .await;
    // Auto-created by a document write: both apply, the higher order wins.
    let r = s
        .json(
            "PUT",
            "/logs-web-1/_doc/1?refresh=true",
            Some(json!({"host": "a", "status": 200})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let set = settings_of(&s, "logs-web-1").await;
    assert_eq!(set["number_of_shards"], "3");
    assert_eq!(set["refresh_interval"], "5s");
    let props = s.json("GET", "/logs-web-1/_mapping", None).await.json()["logs-web-1"]["mappings"]
        ["properties"]
        .clone();
    assert_eq!(props["host"]["type"], "keyword");
    assert_eq!(props["status"]["type"], "integer");
    let r = s.json("GET", "/all-logs/_count", None).await.json();
    assert_eq!(r["count"], 1);
    // The request's own body overrides the templates.
    s.json(
        "PUT",
        "/logs-db-1",
        Some(json!({"settings": {"number_of_shards": 1}})),
    )
    .await;
    assert_eq!(settings_of(&s, "logs-db-1").await["number_of_shards"], "1");
    // Listing, HEAD, wildcards.
    let got = s.json("GET", "/_template/narrow", None).await.json();
    assert_eq!(got["narrow"]["order"], 5);
    assert_eq!(got["narrow"]["version"], 3);
    assert_eq!(got["narrow"]["index_patterns"], json!(["logs-web-*"]));
    assert_eq!(got["narrow"]["settings"]["index"]["number_of_shards"], "3");
    assert_eq!(got["narrow"]["aliases"], json!({}));
    let all = s.json("GET", "/_template", None).await.json();
    assert_eq!(all.as_object().unwrap().len(), 2);
    assert_eq!(s.json("HEAD", "/_template/base", None).await.status, 200);
    assert_eq!(s.json("HEAD", "/_template/nope", None).await.status, 404);
    let missing = s.json("GET", "/_template/nope", None).await;
    assert_eq!((missing.status, missing.json()), (404, json!({})));
    // Errors.
    let r = s
        .json("PUT", "/_template/bad", Some(json!({"order": 1})))
        .await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "action_request_validation_exception".into())
    );
    let r = s
        .json(
            "PUT",
            "/_template/bad",
            Some(json!({"index_patterns": ["x"], "settings": {"index.bogus": 1}})),
        )
        .await;
    assert_eq!(r.status, 400);
    let r = s
        .json(
            "PUT",
            "/_template/base?create=true",
            Some(json!({"index_patterns": ["x"]})),
        )
        .await;
    assert_eq!(r.status, 400);
    let r = s.json("DELETE", "/_template/nope", None).await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (404, "index_template_missing_exception".into())
    );

    let dir = s.stop(true).await;
    let s = TestServer::start_in(dir, LIMIT).await;
    assert_eq!(
        s.json("GET", "/_template", None)
            .await
            .json()
            .as_object()
            .unwrap()
            .len(),
        2
    );
    s.json("PUT", "/logs-web-2", None).await;
    assert_eq!(settings_of(&s, "logs-web-2").await["number_of_shards"], "3");
    assert_eq!(
        s.json("DELETE", "/_template/narrow", None).await.status,
        200
    );
    s.json("PUT", "/logs-web-3", None).await;
    assert_eq!(settings_of(&s, "logs-web-3").await["number_of_shards"], "2");
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn composable_templates_win_by_priority_and_compose_components() {
    let s = TestServer::start(LIMIT).await;
    s.json(
        "PUT",
        "/_template/legacy",
        Some(json!({"index_patterns": ["metrics-*"], "settings": {"number_of_shards": 5}})),
    )
    .await;
    let r = s
        .json(
            "PUT",
            "/_component_template/shards",
            Some(json!({"template": {"settings": {"number_of_shards": 2}}, "version": 1})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    s.json(
        "PUT",
        "/_component_template/fields",
        Some(json!({"template": {"mappings": {"properties": {"cpu": {"type": "float"}, "host": {"type": "text"}}}}})),
    )
    .await;
    let r = s
        .json(
            "PUT",
            "/_index_template/metrics",
            Some(json!({
                "index_patterns": ["metrics-*"], "priority": 10,
                "composed_of": ["shards", "fields"],
                "template": {
                    "mappings": {"properties": {"host": {"type": "keyword"}}},
                    "aliases": {"metrics": {}}
                },
                "_meta": {"owner": "test"}
            })),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    s.json(
        "PUT",
        "/_index_template/metrics-low",
        Some(json!({"index_patterns": ["metrics-*"], "priority": 1, "template": {"settings": {"number_of_shards": 7}}})),
    )
    .await;
    // Bulk auto-creation: the highest priority composable template, not legacy.
    let r = s
        .send(
            "POST",
            "/_bulk?refresh=true",
            &[("Content-Type", "application/x-ndjson")],
            Some(b"{\"index\":{\"_index\":\"metrics-a\"}}\n{\"cpu\":0.5,\"host\":\"h1\"}\n"),
        )
        .await;
    assert_eq!(r.json()["errors"], false, "{}", r.text());
    assert_eq!(settings_of(&s, "metrics-a").await["number_of_shards"], "2");
    let props = s.json("GET", "/metrics-a/_mapping", None).await.json()["metrics-a"]["mappings"]
        ["properties"]
        .clone();
    assert_eq!(props["cpu"]["type"], "float");
    assert_eq!(props["host"]["type"], "keyword");
    assert_eq!(
        s.json("GET", "/metrics/_count", None).await.json()["count"],
        1
    );
    // Listings.
    let got = s.json("GET", "/_index_template/metrics", None).await.json();
    let t = &got["index_templates"][0];
    assert_eq!(t["name"], "metrics");
    assert_eq!(
        t["index_template"]["composed_of"],
        json!(["shards", "fields"])
    );
    assert_eq!(t["index_template"]["priority"], 10);
    assert_eq!(t["index_template"]["_meta"]["owner"], "test");
    let all = s.json("GET", "/_index_template", None).await.json();
    assert_eq!(all["index_templates"].as_array().unwrap().len(), 2);
    let comp = s
        .json("GET", "/_component_template/shards", None)
        .await
        .json();
    assert_eq!(
        comp["component_templates"][0]["component_template"]["template"]["settings"]["index"]
            ["number_of_shards"],
        "2"
    );
    assert_eq!(
        s.json("HEAD", "/_index_template/metrics", None)
            .await
            .status,
        200
    );
    // Errors.
    let r = s.json("GET", "/_index_template/nope", None).await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (404, "resource_not_found_exception".into())
    );
    let r = s.json("GET", "/_component_template/nope", None).await;
    assert_eq!(r.status, 404);
    let r = s
        .json(
            "PUT",
            "/_index_template/clash",
            Some(json!({"index_patterns": ["*-a"], "priority": 10})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(
        r.text().contains("that have the same priority [10]"),
        "{}",
        r.text()
    );
    let r = s
        .json(
            "PUT",
            "/_index_template/bad",
            Some(json!({"index_patterns": ["b-*"], "composed_of": ["nope"]})),
        )
        .await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "invalid_index_template_exception".into())
    );
    let r = s
        .json("PUT", "/_index_template/bad", Some(json!({"priority": 1})))
        .await;
    assert_eq!(r.status, 400);
    let r = s.json("DELETE", "/_component_template/shards", None).await;
    assert_eq!(r.status, 400);
    assert!(r
        .text()
        .contains("still in use by index templates [metrics]"));
    let r = s.json("DELETE", "/_index_template/nope", None).await;
    assert_eq!(r.status, 404);

    let dir = s.stop(true).await;
    let s = TestServer::start_in(dir, LIMIT).await;
    s.json("PUT", "/metrics-b", None).await;
    assert_eq!(settings_of(&s, "metrics-b").await["number_of_shards"], "2");
    assert_eq!(s.json("GET", "/metrics/_count", None).await.status, 200);
    assert_eq!(
        s.json("DELETE", "/_index_template/metrics", None)
            .await
            .status,
        200
    );
    assert_eq!(
        s.json("DELETE", "/_component_template/shards", None)
            .await
            .status,
        200
    );
    // With the high-priority template gone, the low one applies (legacy still ignored).
    s.json("PUT", "/metrics-c", None).await;
    assert_eq!(settings_of(&s, "metrics-c").await["number_of_shards"], "7");
    s.stop(true).await;
}
