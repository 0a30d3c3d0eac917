//! The query DSL and aggregations over a real socket: `query_string` (body
//! and `q=`), `simple_query_string`, and the error replies bad input gets.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

async fn load(s: &TestServer) {
    let create = json!({
        "settings": {"number_of_shards": 2},
        "mappings": {"properties": {
            "title": {"type": "text", "fields": {"keyword": {"type": "keyword"}}},
            "message": {"type": "text"}, "tag": {"type": "keyword"},
            "status": {"type": "integer"}, "price": {"type": "double"},
            "@timestamp": {"type": "date"}}}
    });
    assert_eq!(s.json("PUT", "/qd", Some(create)).await.status, 200);
    let docs = [
        json!({"title": "Quick brown fox", "message": "the fox jumps", "tag": "a", "status": 200,
               "price": 1.0, "@timestamp": "2024-03-30T22:30:00Z"}),
        json!({"title": "Lazy dog", "message": "the dog sleeps", "tag": "b", "status": 404,
               "price": 2.5, "@timestamp": "2024-03-31T00:30:00Z"}),
        json!({"title": "Quick fix", "message": "fox fixes bugs", "tag": "a", "status": 500,
               "price": 3.0, "@timestamp": "2024-04-02T12:00:00Z"}),
    ];
    let mut body = String::new();
    for (i, doc) in docs.iter().enumerate() {
        body.push_str(&json!({"index": {"_id": (i + 1).to_string()}}).to_string());
        body.push('\n');
        body.push_str(&doc.to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send("POST", "/qd/_bulk?refresh=true", &nd, Some(body.as_bytes()))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
}

fn ids(body: &Value) -> Vec<String> {
    let mut ids: Vec<String> = body["hits"]["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits: {body}"))
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

async fn search(s: &TestServer, body: Value) -> (u16, Value) {
    let r = s.json("POST", "/qd/_search", Some(body)).await;
    (r.status, r.json())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_string_and_simple_query_string() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    // Kibana's form: grouped values, patterns, no default field.
    let (status, body) = search(
        &s,
        json!({"query": {"query_string": {"query": "title:(quick OR lazy) AND NOT tag:b",
                                          "analyze_wildcard": true}}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&body), ["1", "3"]);
    let (_, body) = search(
        &s,
        json!({"query": {"query_string": {"query": "*.keyword:Lazy*"}}}),
    )
    .await;
    assert_eq!(ids(&body), ["2"]);
    let (_, body) = search(&s, json!({"query": {"query_string": {"query": "fox"}}})).await;
    assert_eq!(ids(&body), ["1", "3"]);
    // q= with grouped values and df.
    let r = s
        .json(
            "GET",
            "/qd/_search?q=title:(quick%20brown)&default_operator=AND",
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(ids(&r.json()), ["1"]);
    let r = s.json("GET", "/qd/_search?q=sleeps&df=message", None).await;
    assert_eq!(ids(&r.json()), ["2"]);
    let r = s
        .json("GET", "/qd/_count?q=title:(quick%20OR%20lazy)", None)
        .await;
    assert_eq!(r.json()["count"], 3);
    // simple_query_string never fails on its text.
    let (status, body) = search(
        &s,
        json!({"query": {"simple_query_string": {"query": "quick + (fox | \"lazy dog\"",
                                                 "fields": ["title^2", "mess*"]}}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&body), ["1", "3"]);
    let (_, body) = search(
        &s,
        json!({"query": {"simple_query_string": {"query": "fox -bugs", "default_operator": "and"}}}),
    )
    .await;
    assert_eq!(ids(&body), ["1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_query_errors() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let cases = [
        (
            json!({"query_string": {"query": "title:(quick"}}),
            "query_shard_exception",
        ),
        (
            json!({"query_string": {"query": "status:abc"}}),
            "parsing_exception",
        ),
        (
            json!({"query_string": {"query": "a", "nope": 1}}),
            "parsing_exception",
        ),
        (
            json!({"simple_query_string": {"query": "a", "flags": "BOGUS"}}),
            "illegal_argument_exception",
        ),
        (
            json!({"simple_query_string": {"fields": ["a"]}}),
            "parsing_exception",
        ),
    ];
    for (query, kind) in cases {
        let (status, body) = search(&s, json!({ "query": query })).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["status"], 400);
        // Shard-level failures come wrapped in search_phase_execution_exception.
        assert_eq!(
            body["error"]["root_cause"][0]["type"], kind,
            "{query}: {body}"
        );
    }
    let r = s.json("GET", "/qd/_search?q=title:(quick", None).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["error"]["type"],
        "search_phase_execution_exception"
    );
    assert_eq!(
        r.json()["error"]["root_cause"][0]["type"],
        "query_shard_exception"
    );
    let (status, _) = search(
        &s,
        json!({"query": {"query_string": {"query": "status:abc", "lenient": true}}}),
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calendar_aggregations_and_top_hits() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let (status, body) = search(
        &s,
        json!({"size": 0, "aggs": {
            "days": {"date_histogram": {"field": "@timestamp", "calendar_interval": "1d",
                                        "time_zone": "Europe/Paris"}},
            "months": {"date_histogram": {"field": "@timestamp", "calendar_interval": "month"}},
            "recent": {"date_range": {"field": "@timestamp", "ranges": [
                {"from": "2024-03-31", "to": "2024-03-31||+1w"}, {"to": "now-100y"}]}},
            "tags": {"terms": {"field": "tag"}, "aggs": {
                "top": {"top_hits": {"size": 1, "sort": [{"price": "desc"}],
                                     "_source": ["title"]}}}}
        }}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let aggs = &body["aggregations"];
    let days = aggs["days"]["buckets"].as_array().unwrap();
    let summary: Vec<(&str, u64)> = days
        .iter()
        .map(|b| {
            (
                b["key_as_string"].as_str().unwrap(),
                b["doc_count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("2024-03-30T00:00:00.000+01:00", 1),
            ("2024-03-31T00:00:00.000+01:00", 1),
            ("2024-04-01T00:00:00.000+02:00", 0),
            ("2024-04-02T00:00:00.000+02:00", 1),
        ]
    );
    assert_eq!(days[2]["key"], 1_711_922_400_000i64); // 2024-03-31T22:00:00Z
    let months = aggs["months"]["buckets"].as_array().unwrap();
    assert_eq!(months.len(), 2);
    assert_eq!(months[1]["key_as_string"], "2024-04-01T00:00:00.000Z");
    assert_eq!(months[1]["doc_count"], 1);
    let recent = aggs["recent"]["buckets"].as_array().unwrap();
    assert_eq!(recent[0]["doc_count"], 0);
    assert_eq!(
        recent[1]["key"],
        "2024-03-31T00:00:00.000Z-2024-04-07T00:00:00.000Z"
    );
    assert_eq!(recent[1]["doc_count"], 2);
    let tags = aggs["tags"]["buckets"].as_array().unwrap();
    let a = tags.iter().find(|b| b["key"] == "a").unwrap();
    assert_eq!(a["top"]["hits"]["hits"][0]["_id"], "3");
    assert_eq!(
        a["top"]["hits"]["hits"][0]["_source"],
        json!({"title": "Quick fix"})
    );
    // Bad input: 400s with Elasticsearch's types.
    let cases = [
        (
            json!({"date_histogram": {"field": "@timestamp", "calendar_interval": "3d"}}),
            "x_content_parse_exception",
        ),
        (
            json!({"date_histogram": {"field": "@timestamp", "calendar_interval": "day",
                                   "time_zone": "Nowhere/Town"}}),
            "illegal_argument_exception",
        ),
        (
            json!({"date_range": {"field": "@timestamp", "ranges": [{"from": "not a date"}]}}),
            "parsing_exception",
        ),
        (
            json!({"terms": {"field": "tag"}, "aggs": {"h": {"top_hits": {"sizes": 1}}}}),
            "parsing_exception",
        ),
    ];
    for (agg, kind) in cases {
        let (status, body) = search(&s, json!({"size": 0, "aggs": {"x": agg}})).await;
        assert_eq!(status, 400, "{agg}: {body}");
        assert_eq!(body["error"]["type"], kind, "{agg}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn float_sort_across_segments() {
    let s = TestServer::start(1 << 20).await;
    let create = json!({"settings": {"number_of_shards": 1},
                        "mappings": {"properties": {"p": {"type": "double"}}}});
    assert_eq!(s.json("PUT", "/fs", Some(create)).await.status, 200);
    // Each refresh makes a segment: whole numbers, fractions, mixed.
    for batch in [
        [("a", 3.0), ("b", 1.0)],
        [("c", 2.5), ("d", 0.5)],
        [("e", 4.0), ("f", 1.5)],
    ] {
        for (id, p) in batch {
            let r = s
                .json("PUT", &format!("/fs/_doc/{id}"), Some(json!({ "p": p })))
                .await;
            assert_eq!(r.status, 201, "{}", r.text());
        }
        assert_eq!(s.json("POST", "/fs/_refresh", None).await.status, 200);
    }
    let r = s
        .json(
            "POST",
            "/fs/_search",
            Some(json!({"sort": [{"p": "asc"}], "size": 10})),
        )
        .await;
    let body = r.json();
    let order: Vec<&str> = body["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["d", "b", "f", "c", "a", "e"]);
    assert_eq!(body["hits"]["hits"][1]["sort"], json!([1.0]));
    let r = s
        .json(
            "POST",
            "/fs/_search",
            Some(json!({"sort": [{"p": "desc"}], "search_after": [2.5], "size": 10})),
        )
        .await;
    let after: Vec<String> = r.json()["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(after, ["f", "b", "d"]);
    let bad = s
        .json(
            "POST",
            "/fs/_search",
            Some(json!({"sort": [{"p": "sideways"}]})),
        )
        .await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["error"]["type"], "parsing_exception");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sort_missing_stored_fields_and_paging_errors() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let r = s
        .json(
            "PUT",
            "/qd/_doc/4?refresh=true",
            Some(json!({"title": "No price"})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let (_, body) = search(
        &s,
        json!({"sort": [{"price": {"order": "desc", "missing": "_first"}}], "stored_fields": ["*"]}),
    )
    .await;
    let hits = body["hits"]["hits"].as_array().unwrap();
    let order: Vec<&str> = hits.iter().map(|h| h["_id"].as_str().unwrap()).collect();
    assert_eq!(order, ["4", "3", "2", "1"]);
    assert!(hits[0].get("_source").is_none());
    let (_, body) = search(
        &s,
        json!({"stored_fields": "_none_", "track_total_hits": 2}),
    )
    .await;
    assert!(body["hits"]["hits"][0].get("_id").is_none());
    assert_eq!(
        body["hits"]["total"],
        json!({"value": 2, "relation": "gte"})
    );
    let cases = [
        (
            json!({"sort": [{"price": "asc"}], "search_after": ["cheap"]}),
            "illegal_argument_exception",
        ),
        (json!({"sort": [{"nope": "asc"}]}), "query_shard_exception"),
        (
            json!({"track_total_hits": -2}),
            "illegal_argument_exception",
        ),
        (
            json!({"stored_fields": "_none_", "_source": ["title"]}),
            "illegal_argument_exception",
        ),
    ];
    for (body, kind) in cases {
        let (status, reply) = search(&s, body.clone()).await;
        assert_eq!(status, 400, "{body}: {reply}");
        assert_eq!(
            reply["error"]["root_cause"][0]["type"], kind,
            "{body}: {reply}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kibana_discover_request_shape() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let (status, body) = search(
        &s,
        json!({
            "sort": [{"@timestamp": {"order": "desc", "unmapped_type": "boolean"}}],
            "fields": [{"field": "*", "include_unmapped": "true"},
                       {"field": "@timestamp", "format": "strict_date_optional_time"}],
            "size": 500, "version": true, "script_fields": {}, "stored_fields": ["*"],
            "runtime_mappings": {}, "_source": false,
            "query": {"bool": {"filter": [{"query_string": {"query": "title:(quick OR lazy)"}}]}},
            "highlight": {"pre_tags": ["@kibana-highlighted-field@"], "fields": {"*": {}}}
        }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let hits = body["hits"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0]["_id"], "3");
    assert!(hits[0].get("_source").is_none());
    assert_eq!(
        hits[0]["fields"]["@timestamp"],
        json!(["2024-04-02T12:00:00.000Z"])
    );
    assert_eq!(hits[0]["fields"]["title.keyword"], json!(["Quick fix"]));
    assert_eq!(hits[0]["fields"]["price"], json!([3.0]));
}

/// The hardening issue's reproducers: nesting that overflowed a worker's
/// stack (and aborted the process) is refused with Elasticsearch's errors,
/// within `_msearch` as that search's error only, and the node serves on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_nesting_is_refused_and_the_node_serves_on() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let parens = format!("{}a{}", "(".repeat(3000), ")".repeat(3000));
    let r = s
        .send("GET", &format!("/qd/_search?q={parens}"), &[], None)
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.json()["error"]["root_cause"][0]["type"],
        "query_shard_exception"
    );
    let chain = format!("{}quick", "NOT ".repeat(5000)).replace(' ', "%20");
    let r = s
        .send("GET", &format!("/qd/_search?q={chain}"), &[], None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let simple = json!({"query": {"simple_query_string": {"query": "(".repeat(10_000)}}});
    assert_eq!(search(&s, simple).await.0, 200);
    let mut deep = json!({"match_all": {}});
    for _ in 0..40 {
        deep = json!({"bool": {"must": [deep]}});
    }
    let (status, body) = search(&s, json!({"query": deep.clone()})).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["type"], "illegal_argument_exception");

    let lines = [
        json!({}),
        json!({"query": deep}),
        json!({}),
        json!({"query": {"match": {"title": "quick"}}}),
    ];
    let mut body = String::new();
    for line in &lines {
        body.push_str(&line.to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send("POST", "/qd/_msearch", &nd, Some(body.as_bytes()))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let responses = r.json()["responses"].clone();
    assert_eq!(responses[0]["status"], 400);
    assert_eq!(responses[1]["hits"]["total"]["value"], 2);
    let (status, body) = search(&s, json!({"query": {"match": {"title": "fox"}}})).await;
    assert_eq!((status, ids(&body)), (200, vec!["1".to_string()]));
}

/// JSON nested past serde_json's limit (128) is a parse error, not a crash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_nested_past_the_parsers_limit_is_refused() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let json = [("Content-Type", "application/json")];
    for depth in [200, 100_000] {
        let body = format!("{{\"query\": {}1{}}}", "[".repeat(depth), "]".repeat(depth));
        let r = s
            .send("POST", "/qd/_search", &json, Some(body.as_bytes()))
            .await;
        assert_eq!(r.status, 400, "{}", r.text());
        let doc = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        let r = s
            .send("PUT", "/qd/_doc/x", &json, Some(doc.as_bytes()))
            .await;
        assert_eq!(r.status, 400, "{}", r.text());
    }
    let (status, _) = search(&s, json!({"query": {"match_all": {}}})).await;
    assert_eq!(status, 200);
}
