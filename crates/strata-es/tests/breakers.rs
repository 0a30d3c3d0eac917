//! The circuit breakers over a real socket: the request, in-flight
//! requests and parent breakers refuse with 429 `circuit_breaking_exception`
//! (`bytes_wanted`, `bytes_limit`, `durability`), give their bytes back,
//! are set through `_cluster/settings` and reported by
//! `_nodes/stats/breaker`; `_msearch` streams and fails searches one by one.

use crate::support;

use serde_json::{json, Value};
use support::{assert_error, put_cluster_settings as put_settings, TestServer};

const MAX_BODY: usize = 8 << 20;

fn breaker(stats: &Value, name: &str) -> Value {
    let nodes = stats["nodes"].as_object().unwrap();
    let node = nodes.values().next().unwrap();
    node["breakers"][name].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_breaker_refuses_a_search_and_gives_its_bytes_back() {
    let s = TestServer::start(MAX_BODY).await;
    s.json("PUT", "/r/_doc/1?refresh=true", Some(json!({"k": "v1"})))
        .await;
    put_settings(
        &s,
        "transient",
        json!({"indices.breaker.request.limit": "1mb"}),
    )
    .await;
    // 20,000 values pass max_terms_count but not a 1 MiB request breaker.
    let values: Vec<String> = (0..20_000).map(|i| format!("v{i}")).collect();
    let r = s
        .json(
            "POST",
            "/r/_search",
            Some(json!({"query": {"terms": {"k.keyword": values}}})),
        )
        .await;
    assert_error(
        &r,
        429,
        "circuit_breaking_exception",
        "[request] Data too large, data for [",
    );
    let body = r.json();
    assert!(body["error"]["reason"]
        .as_str()
        .unwrap()
        .contains("which is larger than the limit of [1048576/1mb]"));
    assert_eq!(body["error"]["bytes_limit"], 1 << 20);
    assert!(body["error"]["bytes_wanted"].as_u64().unwrap() > 1 << 20);
    assert_eq!(body["error"]["durability"], "TRANSIENT");
    assert_eq!(body["error"]["root_cause"][0]["durability"], "TRANSIENT");

    let stats = s.json("GET", "/_nodes/stats/breaker", None).await.json();
    let request = breaker(&stats, "request");
    assert_eq!(request["limit_size_in_bytes"], 1 << 20);
    assert_eq!(request["limit_size"], "1mb");
    assert_eq!(request["tripped"], 1);
    assert_eq!(request["overhead"], 1.0);
    // Only this request's parsed body is held (the stats request's own).
    assert!(request["estimated_size_in_bytes"].as_u64().unwrap() < 4096);
    for name in ["in_flight_requests", "parent"] {
        assert!(
            breaker(&stats, name)["limit_size_in_bytes"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
    let node = stats["nodes"].as_object().unwrap().values().next().unwrap();
    assert!(
        node.get("indices").is_none(),
        "only the breaker metric: {node}"
    );

    // A small search still runs; resetting the limit restores the default.
    let r = s
        .json(
            "POST",
            "/r/_search",
            Some(json!({"query": {"terms": {"k.keyword": ["v1"]}}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    put_settings(
        &s,
        "transient",
        json!({"indices.breaker.request.limit": null}),
    )
    .await;
    let stats = s.json("GET", "/_nodes/stats", None).await.json();
    assert!(
        breaker(&stats, "request")["limit_size_in_bytes"]
            .as_u64()
            .unwrap()
            > 1 << 20
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_flight_and_parent_breakers_refuse_bodies() {
    let s = TestServer::start(MAX_BODY).await;
    put_settings(
        &s,
        "transient",
        json!({"network.breaker.inflight_requests.limit": "64kb"}),
    )
    .await;
    // 40 KB counts 80 KB with the overhead of 2.
    let doc = json!({"text": "x".repeat(40_000)});
    let r = s.json("PUT", "/f/_doc/1", Some(doc)).await;
    assert_error(
        &r,
        429,
        "circuit_breaking_exception",
        "[in_flight_requests] Data too large, data for [<http_request>] would be [",
    );
    put_settings(
        &s,
        "transient",
        json!({"network.breaker.inflight_requests.limit": null,
               "indices.breaker.total.limit": "64kb"}),
    )
    .await;
    let doc = json!({"text": "x".repeat(40_000)});
    let r = s.json("PUT", "/f/_doc/1", Some(doc)).await;
    assert_error(
        &r,
        429,
        "circuit_breaking_exception",
        "[parent] Data too large, data for [",
    );
    assert!(r.text().contains("usages [request="), "{}", r.text());
    put_settings(
        &s,
        "transient",
        json!({"indices.breaker.total.limit": null}),
    )
    .await;
    let r = s
        .json(
            "PUT",
            "/f/_doc/1",
            Some(json!({"text": "x".repeat(40_000)})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let stats = s.json("GET", "/_nodes/stats/breaker", None).await.json();
    assert_eq!(breaker(&stats, "in_flight_requests")["tripped"], 1);
    assert_eq!(breaker(&stats, "parent")["tripped"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_beyond_the_request_breaker_is_refused() {
    let s = TestServer::start(MAX_BODY).await;
    put_settings(
        &s,
        "transient",
        json!({"indices.breaker.request.limit": "2mb"}),
    )
    .await;
    // 100,000 numbers: 0.6 MB of JSON, far more once parsed and indexed.
    let numbers: Vec<u64> = (0..100_000).collect();
    let r = s
        .json("PUT", "/d/_doc/1", Some(json!({"n": numbers})))
        .await;
    assert_error(
        &r,
        429,
        "circuit_breaking_exception",
        "[request] Data too large, data for [<index_document>]",
    );
    // The same in a bulk is that item's error.
    let bulk = format!(
        "{{\"index\":{{\"_index\":\"d\",\"_id\":\"2\"}}}}\n{}\n{{\"index\":{{\"_index\":\"d\",\"_id\":\"3\"}}}}\n{{\"small\":1}}\n",
        json!({"n": numbers})
    );
    let r = s
        .send(
            "POST",
            "/_bulk",
            &[("Content-Type", "application/x-ndjson")],
            Some(bulk.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["errors"], true);
    assert_eq!(body["items"][0]["index"]["status"], 429);
    assert_eq!(
        body["items"][0]["index"]["error"]["type"],
        "circuit_breaking_exception"
    );
    assert_eq!(body["items"][1]["index"]["status"], 201);
    let stats = s.json("GET", "/_nodes/stats/breaker", None).await.json();
    assert!(
        breaker(&stats, "request")["estimated_size_in_bytes"]
            .as_u64()
            .unwrap()
            < 4096
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn msearch_streams_many_searches_and_fails_items_on_the_breaker() {
    let s = TestServer::start(MAX_BODY).await;
    s.json("PUT", "/ms/_doc/1?refresh=true", Some(json!({"k": "v"})))
        .await;
    let mut body = String::new();
    for i in 0..2000 {
        body.push_str("{}\n");
        body.push_str(
            &json!({"query": {"term": {"k.keyword": if i % 2 == 0 { "v" } else { "w" }}}})
                .to_string(),
        );
        body.push('\n');
    }
    let r = s
        .send(
            "POST",
            "/ms/_msearch",
            &[("Content-Type", "application/x-ndjson")],
            Some(body.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    let reply = r.json();
    let responses = reply["responses"].as_array().unwrap();
    assert_eq!(responses.len(), 2000);
    for (i, answer) in responses.iter().enumerate() {
        assert_eq!(answer["status"], 200);
        assert_eq!(
            answer["hits"]["total"]["value"],
            u64::from(i % 2 == 0),
            "{i}"
        );
    }
    assert!(reply["took"].is_u64());
    // pretty builds the reply whole: the same answers.
    let pretty = s
        .send(
            "POST",
            "/ms/_msearch?pretty",
            &[("Content-Type", "application/x-ndjson")],
            Some(body.as_bytes()),
        )
        .await;
    assert_eq!(pretty.json()["responses"].as_array().unwrap().len(), 2000);

    // A request breaker too small for a hit: each search fails alone.
    put_settings(
        &s,
        "transient",
        json!({"indices.breaker.request.limit": "100kb"}),
    )
    .await;
    let big = format!(
        "{{}}\n{}\n{{}}\n{}\n",
        json!({"query": {"terms": {"k.keyword": (0..1000).map(|i| format!("v{i}")).collect::<Vec<_>>()}}}),
        json!({"size": 0})
    );
    let r = s
        .send(
            "POST",
            "/ms/_msearch",
            &[("Content-Type", "application/x-ndjson")],
            Some(big.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let reply = r.json();
    assert_eq!(reply["responses"][0]["status"], 429);
    assert_eq!(
        reply["responses"][0]["error"]["type"],
        "circuit_breaking_exception"
    );
    assert_eq!(reply["responses"][1]["status"], 200);
    // A malformed line still fails the whole request.
    let r = s
        .send(
            "POST",
            "/ms/_msearch",
            &[("Content-Type", "application/x-ndjson")],
            Some(b"{}\n{\"query\": nope}\n"),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn breaker_settings_are_validated_and_kept() {
    let s = TestServer::start(MAX_BODY).await;
    for bad in [
        json!({"indices.breaker.request.limit": "lots"}),
        json!({"indices.breaker.total.limit": "101%"}),
        json!({"network.breaker.inflight_requests.overhead": -1}),
        json!({"indices.breaker.unknown.limit": "1gb"}),
    ] {
        let r = s
            .json(
                "PUT",
                "/_cluster/settings",
                Some(json!({"persistent": bad})),
            )
            .await;
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(r.json()["error"]["type"], "illegal_argument_exception");
    }
    put_settings(
        &s,
        "persistent",
        json!({"indices": {"breaker": {"request": {"limit": "50%"}}}}),
    )
    .await;
    let got = s
        .json("GET", "/_cluster/settings?flat_settings=true", None)
        .await
        .json();
    assert_eq!(got["persistent"]["indices.breaker.request.limit"], "50%");
    let stats = s.json("GET", "/_nodes/stats/breaker", None).await.json();
    let parent = breaker(&stats, "parent")["limit_size_in_bytes"]
        .as_u64()
        .unwrap();
    let request = breaker(&stats, "request")["limit_size_in_bytes"]
        .as_u64()
        .unwrap();
    // 50% and 70% of the same memory base.
    assert!(
        (request as f64 * 1.4 - parent as f64).abs() < 16.0,
        "{request} {parent}"
    );
    let dir = s.stop(true).await;
    let s = TestServer::start_in(dir, MAX_BODY).await;
    let stats = s.json("GET", "/_nodes/stats/breaker", None).await.json();
    assert_eq!(
        breaker(&stats, "request")["limit_size_in_bytes"]
            .as_u64()
            .unwrap(),
        request,
        "persistent settings apply again after a restart"
    );
}
