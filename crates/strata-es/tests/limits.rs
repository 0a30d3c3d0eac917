//! Memory limits over a real socket: Elasticsearch's index limits
//! (`index.max_terms_count`, `index.max_result_window`,
//! `index.mapping.*`), `cluster.max_shards_per_node`, and the circuit
//! breakers (request, in-flight requests, parent) with their 429 bodies,
//! their `_cluster/settings` and `_nodes/stats/breaker`.

mod support;

use serde_json::{json, Value};
use support::TestServer;

const MAX_BODY: usize = 8 << 20;

async fn put_settings(s: &TestServer, scope: &str, settings: Value) {
    let r = s
        .json(
            "PUT",
            "/_cluster/settings",
            Some(json!({ scope: settings })),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
}

fn assert_error(r: &support::Response, status: u16, kind: &str, reason: &str) {
    assert_eq!(r.status, status, "{}", r.text());
    let body = r.json();
    assert_eq!(body["status"], status);
    assert_eq!(body["error"]["type"], kind, "{body}");
    assert_eq!(body["error"]["root_cause"][0]["type"], kind);
    let got = body["error"]["reason"].as_str().unwrap();
    assert!(
        got.starts_with(reason),
        "reason [{got}] does not start with [{reason}]"
    );
}

fn breaker(stats: &Value, name: &str) -> Value {
    let nodes = stats["nodes"].as_object().unwrap();
    let node = nodes.values().next().unwrap();
    node["breakers"][name].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terms_beyond_max_terms_count_are_refused_until_raised() {
    let s = TestServer::start(MAX_BODY).await;
    s.json("PUT", "/t/_doc/1?refresh=true", Some(json!({"k": "v1"})))
        .await;
    let values: Vec<String> = (0..65_537).map(|i| format!("v{i}")).collect();
    let query = json!({"query": {"terms": {"k.keyword": values}}});
    let r = s.json("POST", "/t/_search", Some(query.clone())).await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "The number of terms [65537] used in the Terms Query request has exceeded the allowed maximum of [65536]. This maximum can be set by changing the [index.max_terms_count] index level setting.",
    );
    // _count applies it too.
    let r = s.json("POST", "/t/_count", Some(query.clone())).await;
    assert_eq!(r.status, 400, "{}", r.text());
    let r = s
        .json(
            "PUT",
            "/t/_settings",
            Some(json!({"index": {"max_terms_count": 70000}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let settings = s.json("GET", "/t/_settings", None).await.json();
    assert_eq!(
        settings["t"]["settings"]["index"]["max_terms_count"],
        "70000"
    );
    let r = s.json("POST", "/t/_search", Some(query)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["hits"]["total"]["value"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_window_is_an_index_setting() {
    let s = TestServer::start(MAX_BODY).await;
    s.json("PUT", "/w/_doc/1?refresh=true", Some(json!({"a": 1})))
        .await;
    let r = s
        .json(
            "POST",
            "/w/_search",
            Some(json!({"from": 9995, "size": 10})),
        )
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "Result window is too large, from + size must be less than or equal to: [10000] but was [10005]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.",
    );
    let r = s
        .json(
            "PUT",
            "/w/_settings",
            Some(json!({"index.max_result_window": "20000"})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s
        .json(
            "POST",
            "/w/_search",
            Some(json!({"from": 9995, "size": 10})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s
        .json(
            "PUT",
            "/w/_settings",
            Some(json!({"index.max_result_window": 0})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mapping_limits_refuse_fields_depth_and_names() {
    let s = TestServer::start(MAX_BODY).await;
    let r = s
        .json(
            "PUT",
            "/m",
            Some(json!({"settings": {"index.mapping.total_fields.limit": 3,
                                     "index.mapping.depth.limit": 3,
                                     "index.mapping.field_name_length.limit": 8}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // A dynamic string is two fields (text and its keyword).
    let r = s.json("PUT", "/m/_doc/1", Some(json!({"a": "x"}))).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let r = s
        .json("PUT", "/m/_doc/2", Some(json!({"b": "y", "c": 1})))
        .await;
    assert_error(
        &r,
        400,
        "document_parsing_exception",
        "failed to parse: Limit of total fields [3] has been exceeded while adding new fields [3]",
    );
    let r = s
        .json(
            "PUT",
            "/m/_mapping",
            Some(json!({"properties": {"b": {"type": "long"}, "c": {"type": "long"}}})),
        )
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "Limit of total fields [3] has been exceeded",
    );
    assert!(!r.text().contains("while adding"), "{}", r.text());
    // Nothing of the refused document or mapping was kept.
    let mapping = s.json("GET", "/m/_mapping", None).await.json();
    let props = mapping["m"]["mappings"]["properties"].as_object().unwrap();
    assert_eq!(props.keys().collect::<Vec<_>>(), ["a"]);

    let r = s
        .json(
            "PUT",
            "/m/_settings",
            Some(json!({"index.mapping.total_fields.limit": 100})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Objects o (depth 2), o.p (3), o.p.q (4 > 3).
    let r = s
        .json(
            "PUT",
            "/m/_doc/3",
            Some(json!({"o": {"p": {"q": {"leaf": 1}}}})),
        )
        .await;
    assert_error(
        &r,
        400,
        "document_parsing_exception",
        "failed to parse: Limit of mapping depth [3] has been exceeded due to object field [o.p.q]",
    );
    let r = s
        .json("PUT", "/m/_doc/4", Some(json!({"very_long_name": 1})))
        .await;
    assert_error(
        &r,
        400,
        "document_parsing_exception",
        "failed to parse: Field name [very_long_name] is longer than the limit of [8] characters",
    );
    // At creation, a mapping beyond the default 1000 fields.
    let properties: serde_json::Map<String, Value> = (0..1001)
        .map(|i| (format!("f{i}"), json!({"type": "long"})))
        .collect();
    let r = s
        .json(
            "PUT",
            "/big",
            Some(json!({"mappings": {"properties": properties}})),
        )
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "Limit of total fields [1000] has been exceeded",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_per_node_cap_the_indices() {
    let s = TestServer::start(MAX_BODY).await;
    put_settings(&s, "persistent", json!({"cluster.max_shards_per_node": 3})).await;
    // One primary and one replica count two shards, as in Elasticsearch.
    assert_eq!(s.json("PUT", "/a", None).await.status, 200);
    let r = s.json("PUT", "/b", None).await;
    assert_error(
        &r,
        400,
        "validation_exception",
        "Validation Failed: 1: this action would add [2] shards, but this cluster currently has [2]/[3] maximum normal shards open;",
    );
    let r = s
        .json(
            "PUT",
            "/c",
            Some(json!({"settings": {"number_of_replicas": 0}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Automatic creation by a write is refused the same way.
    let r = s.json("PUT", "/d/_doc/1", Some(json!({"x": 1}))).await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["type"], "validation_exception");
    let defaults = s
        .json(
            "GET",
            "/_cluster/settings?include_defaults=true&flat_settings=true",
            None,
        )
        .await
        .json();
    assert_eq!(defaults["persistent"]["cluster.max_shards_per_node"], "3");
    assert_eq!(defaults["defaults"]["cluster.max_shards_per_node"], "1000");
    let r = s
        .json(
            "PUT",
            "/_cluster/settings",
            Some(json!({"transient": {"cluster.max_shards_per_node": "none"}})),
        )
        .await;
    assert_eq!(r.status, 400);
    put_settings(
        &s,
        "persistent",
        json!({"cluster.max_shards_per_node": null}),
    )
    .await;
    assert_eq!(s.json("PUT", "/b", None).await.status, 200);
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
