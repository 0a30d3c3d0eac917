//! `ignore_unavailable`, `allow_no_indices` and `expand_wildcards` on
//! `_search`, `_count` and `_msearch` (as URL parameters and in msearch
//! headers), and `track_scores` as a URL parameter.

use crate::support;

use serde_json::json;
use support::TestServer;

const LIMIT: usize = 1 << 20;

async fn setup() -> TestServer {
    let s = TestServer::start(LIMIT).await;
    for (index, n) in [("logs-a", 3), ("logs-b", 2)] {
        let mut body = String::new();
        for i in 0..n {
            body.push_str(&format!(
                "{{\"index\":{{}}}}\n{{\"msg\":\"line {i}\",\"n\":{i}}}\n"
            ));
        }
        let r = s
            .send(
                "POST",
                &format!("/{index}/_bulk?refresh=true"),
                &[("Content-Type", "application/x-ndjson")],
                Some(body.as_bytes()),
            )
            .await;
        assert_eq!(r.json()["errors"], false, "{}", r.text());
    }
    s
}

async fn total(s: &TestServer, path: &str) -> (u16, serde_json::Value) {
    let r = s.json("GET", path, None).await;
    let status = r.status;
    let json = r.json();
    (status, json)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_names_and_empty_wildcards_follow_the_options() {
    let s = setup().await;
    // A missing concrete name: an error, or skipped.
    let (status, body) = total(&s, "/logs-a,nope/_search").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["type"], "index_not_found_exception");
    let (status, body) = total(&s, "/logs-a,nope/_search?ignore_unavailable=true").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["hits"]["total"]["value"], 3);
    let (_, body) = total(&s, "/logs-a,nope/_count?ignore_unavailable=true").await;
    assert_eq!(body["count"], 3);

    // A wildcard matching nothing: empty by default, an error when asked.
    let (status, body) = total(&s, "/x-*/_search").await;
    assert_eq!(status, 200);
    assert_eq!(body["hits"]["total"]["value"], 0);
    let (status, body) = total(&s, "/x-*/_search?allow_no_indices=false").await;
    assert_eq!(status, 404, "{body}");
    let (status, _) = total(
        &s,
        "/nope/_search?ignore_unavailable=true&allow_no_indices=false",
    )
    .await;
    assert_eq!(status, 404);

    // Wildcards expand only when open indices are asked for.
    let (_, body) = total(&s, "/logs-*/_search").await;
    assert_eq!(body["hits"]["total"]["value"], 5);
    for none in ["none", "closed"] {
        let (status, body) = total(&s, &format!("/logs-*/_search?expand_wildcards={none}")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["hits"]["total"]["value"], 0, "{none}");
    }
    let (_, body) = total(&s, "/logs-*/_count?expand_wildcards=open,hidden").await;
    assert_eq!(body["count"], 5);
    // Concrete names are not wildcards.
    let (_, body) = total(&s, "/logs-a/_search?expand_wildcards=none").await;
    assert_eq!(body["hits"]["total"]["value"], 3);
    let (status, body) = total(&s, "/logs-*/_search?expand_wildcards=shut").await;
    assert_eq!(status, 400, "{body}");
    let (status, _) = total(&s, "/logs-*/_search?ignore_unavailable=maybe").await;
    assert_eq!(status, 400);
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn msearch_headers_carry_their_own_options() {
    let s = setup().await;
    let lines = [
        json!({"index": "logs-a,nope"}),
        json!({"query": {"match_all": {}}}),
        json!({"index": "logs-a,nope", "ignore_unavailable": true}),
        json!({"query": {"match_all": {}}}),
        json!({"index": "logs-*", "expand_wildcards": ["closed"]}),
        json!({"query": {"match_all": {}}}),
        json!({"index": "x-*", "allow_no_indices": "false"}),
        json!({"query": {"match_all": {}}}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let r = s
        .send(
            "POST",
            "/_msearch",
            &[("Content-Type", "application/x-ndjson")],
            Some(body.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let responses = r.json()["responses"].as_array().unwrap().clone();
    assert_eq!(responses[0]["status"], 404);
    assert_eq!(responses[1]["status"], 200);
    assert_eq!(responses[1]["hits"]["total"]["value"], 3);
    assert_eq!(responses[2]["hits"]["total"]["value"], 0);
    assert_eq!(responses[3]["status"], 404);
    // URL parameters are every header's defaults.
    let body = format!("{}\n{}\n", json!({"index": "logs-a,nope"}), json!({}));
    let r = s
        .send(
            "POST",
            "/_msearch?ignore_unavailable=true",
            &[("Content-Type", "application/x-ndjson")],
            Some(body.as_bytes()),
        )
        .await;
    assert_eq!(
        r.json()["responses"][0]["hits"]["total"]["value"],
        3,
        "{}",
        r.text()
    );
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn track_scores_as_a_url_parameter() {
    let s = setup().await;
    let body = json!({"query": {"match": {"msg": "line"}}, "sort": [{"n": "asc"}]});
    let r = s
        .json("POST", "/logs-a/_search", Some(body.clone()))
        .await
        .json();
    assert!(r["hits"]["hits"][0]["_score"].is_null(), "{r}");
    assert!(r["hits"]["max_score"].is_null(), "{r}");
    let r = s
        .json("POST", "/logs-a/_search?track_scores=true", Some(body))
        .await
        .json();
    assert!(
        r["hits"]["hits"][0]["_score"].as_f64().unwrap() > 0.0,
        "{r}"
    );
    let max = r["hits"]["max_score"].as_f64().unwrap();
    let best = r["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_score"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(max, best, "{r}");
    s.stop(true).await;
}

/// Names reached by `GET /<expression>/_settings` (the indices an
/// expression expands to), sorted.
async fn names(s: &TestServer, expression: &str) -> Vec<String> {
    let path = match expression.split_once('?') {
        Some((names, params)) => format!("/{names}/_settings?{params}"),
        None => format!("/{expression}/_settings"),
    };
    let r = s.json("GET", &path, None).await;
    assert_eq!(r.status, 200, "{expression}: {}", r.text());
    let mut out: Vec<String> = r.json().as_object().unwrap().keys().cloned().collect();
    out.sort();
    out
}

/// Data stream backing indices are hidden, as in Elasticsearch: a
/// wildcard reaches them through the stream's name, with
/// `expand_wildcards` including `hidden`, or when it starts with `.`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backing_indices_are_hidden_from_wildcards() {
    let s = setup().await;
    let r = s
        .json(
            "PUT",
            "/_index_template/ds",
            Some(json!({"index_patterns": ["events-*"], "data_stream": {}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    for i in 0..4 {
        let r = s
            .json(
                "POST",
                "/events-web/_doc?refresh=true",
                Some(json!({"@timestamp": "2026-11-29T00:00:00Z", "n": i})),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let stream = s.json("GET", "/_data_stream/events-web", None).await.json();
    let backing = stream["data_streams"][0]["indices"][0]["index_name"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(backing.starts_with(".ds-events-web-"), "{backing}");
    let settings = s
        .json("GET", &format!("/{backing}/_settings"), None)
        .await
        .json();
    assert_eq!(settings[&backing]["settings"]["index"]["hidden"], "true");

    // `*` reaches the backing index through the stream's name (which it
    // matches); a pattern matching only the backing index does not reach
    // it unless `expand_wildcards` includes `hidden`.
    let logs = vec!["logs-a".to_string(), "logs-b".to_string()];
    let mut all = logs.clone();
    all.insert(0, backing.clone());
    assert_eq!(names(&s, "*").await, all);
    assert_eq!(names(&s, "logs-*").await, logs);
    assert_eq!(names(&s, "*-000001").await, Vec::<String>::new());
    for expand in ["all", "open,hidden", "hidden,open"] {
        assert_eq!(
            names(&s, &format!("*-000001?expand_wildcards={expand}")).await,
            vec![backing.clone()]
        );
    }
    assert_eq!(
        names(&s, "*-000001?expand_wildcards=open").await,
        Vec::<String>::new()
    );
    // A dotted pattern reaches dotted hidden indices; a concrete name too.
    assert_eq!(names(&s, ".ds-*").await, vec![backing.clone()]);
    assert_eq!(names(&s, &backing).await, vec![backing.clone()]);
    assert_eq!(total(&s, "/*-000001/_count").await.1["count"], 0);
    assert_eq!(
        total(&s, "/*-000001/_count?expand_wildcards=all").await.1["count"],
        4
    );
    // Searches: `*` reaches the documents through the stream's name (an
    // alias `*` matches), the stream's name and the backing index.
    assert_eq!(total(&s, "/*/_count").await.1["count"], 9);
    assert_eq!(total(&s, "/events-*/_count").await.1["count"], 4);
    assert_eq!(total(&s, "/.ds-*/_count").await.1["count"], 4);
    assert_eq!(total(&s, "/logs-*,events-web/_count").await.1["count"], 9);
}
