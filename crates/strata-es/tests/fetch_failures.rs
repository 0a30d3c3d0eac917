//! Fetch-phase failures per shard within one index, over a real socket:
//! an unknown highlighter type or a script field reading a text field
//! fails only the shards whose hits are fetched (200, `_shards.failed`,
//! `failures`, their hits left out), nothing with `size: 0`, and the
//! search (`search_phase_execution_exception`, phase `fetch`) when every
//! shard fails, as in Elasticsearch.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

const MAX_BODY: usize = 1 << 20;

/// Documents in the two-shard index `h2`.
const DOCS: usize = 40;

/// A two-shard index `h2` with `DOCS` documents (`body` text, `n` long).
async fn two_shards(s: &TestServer) {
    let r = s
        .json(
            "PUT",
            "/h2",
            Some(json!({"settings": {"number_of_shards": 2},
                "mappings": {"properties": {"body": {"type": "text"}, "n": {"type": "long"}}}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    for i in 0..DOCS {
        let r = s
            .json(
                "PUT",
                &format!("/h2/_doc/{i}"),
                Some(json!({"body": format!("word{i} common"), "n": i})),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let r = s.json("POST", "/h2/_refresh", None).await;
    assert_eq!(r.status, 200, "{}", r.text());
}

/// Checks a 200 whose one failed shard of two failed with `kind`.
fn one_shard_failed(body: &Value, kind: &str, reason: Option<&str>) -> u64 {
    let shards = &body["_shards"];
    assert_eq!(shards["total"], 2, "{body}");
    assert_eq!(shards["successful"], 1, "{body}");
    assert_eq!(shards["failed"], 1, "{body}");
    let failures = shards["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{body}");
    assert_eq!(failures[0]["index"], "h2");
    assert!(failures[0]["node"].is_string(), "{body}");
    assert_eq!(failures[0]["reason"]["type"], kind, "{body}");
    if let Some(reason) = reason {
        assert_eq!(failures[0]["reason"]["reason"], reason, "{body}");
    }
    failures[0]["shard"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_highlighter_fails_the_shards_with_hits_to_fetch() {
    let s = TestServer::start(MAX_BODY).await;
    two_shards(&s).await;
    let magic = json!({"fields": {"body": {"type": "magic"}}});
    let reason = "unknown highlighter type [magic] for the field [body]";
    // One document: its shard fails, the other had nothing to fetch.
    let one = json!({"term": {"n": 7}});
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"query": one, "highlight": magic})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    let failed = one_shard_failed(&body, "illegal_argument_exception", Some(reason));
    assert!(failed < 2, "{body}");
    assert_eq!(body["hits"]["total"]["value"], 1, "{body}");
    assert_eq!(body["hits"]["hits"], json!([]), "{body}");
    // Equal scores: the first page comes from shard 0 alone (ties go
    // to the lower shard, as in Elasticsearch), so shard 0 fails.
    let r = s
        .json("POST", "/h2/_search", Some(json!({"highlight": magic})))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(
        one_shard_failed(&body, "illegal_argument_exception", Some(reason)),
        0
    );
    assert_eq!(body["hits"]["total"]["value"], DOCS, "{body}");
    // No fetch, no failure.
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"size": 0, "highlight": magic})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["_shards"]["failed"], 0, "{body}");
    assert_eq!(body["_shards"]["successful"], 2, "{body}");
    assert!(body["_shards"].get("failures").is_none(), "{body}");
    // Hits on both shards: every shard fails.
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"size": DOCS, "highlight": magic})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let error = &r.json()["error"];
    assert_eq!(error["type"], "search_phase_execution_exception", "{error}");
    assert_eq!(error["reason"], "all shards failed");
    assert_eq!(error["phase"], "fetch");
    assert_eq!(error["root_cause"][0]["type"], "illegal_argument_exception");
    assert_eq!(error["root_cause"][0]["reason"], reason);
    assert_eq!(error["caused_by"]["reason"], reason);
    assert_eq!(error["failed_shards"][0]["index"], "h2");
    // A field that is not mapped is not highlighted: nothing fails.
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"highlight": {"fields": {"nope": {"type": "magic"}}}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["_shards"]["failed"], 0, "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_field_on_a_text_field_fails_the_shards_with_hits() {
    let s = TestServer::start(MAX_BODY).await;
    two_shards(&s).await;
    let script = json!({"t": {"script": "doc['body'].value"}});
    let one = json!({"term": {"n": 3}});
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"query": one, "script_fields": script})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert!(one_shard_failed(&body, "script_exception", None) < 2);
    assert_eq!(body["hits"]["hits"], json!([]), "{body}");
    // A script failing on one document (n = 7 divides by zero) fails its
    // shard: the other shard's hits are all there, none of the failed one.
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"size": DOCS, "script_fields":
                {"q": {"script": "doc['n'].value / (doc['n'].value - 7)"}}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    one_shard_failed(&body, "script_exception", None);
    let hits = body["hits"]["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() < DOCS, "{body}");
    assert!(hits.iter().all(|h| h["fields"]["q"].is_array()), "{body}");
    assert!(hits.iter().all(|h| h["_id"] != "7"), "{body}");
    // A script field that works on both shards still does.
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"size": DOCS, "script_fields": {"m": {"script": "doc['n'].value * 2"}}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["_shards"]["failed"], 0, "{body}");
    assert_eq!(body["hits"]["hits"].as_array().unwrap().len(), DOCS);
    // size 0: nothing fetched; every hit's shard: all shards failed.
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"size": 0, "script_fields": script})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["_shards"]["failed"], 0, "{}", r.text());
    let r = s
        .json(
            "POST",
            "/h2/_search",
            Some(json!({"size": DOCS, "script_fields": script})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let error = &r.json()["error"];
    assert_eq!(error["type"], "search_phase_execution_exception", "{error}");
    assert_eq!(error["phase"], "fetch");
    assert_eq!(error["caused_by"]["type"], "script_exception", "{error}");
}
