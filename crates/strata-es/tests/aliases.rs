//! Aliases over a real socket: creation in `PUT /<index>`, `_aliases`
//! actions, the `_alias` endpoints and `_cat/aliases`, resolution for
//! reads (with filters) and writes (write index), the error shapes, and
//! aliases surviving a restart.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

const LIMIT: usize = 1 << 20;

fn error_type(body: &Value) -> &str {
    body["error"]["type"].as_str().unwrap_or_default()
}

async fn count(s: &TestServer, target: &str) -> u64 {
    let r = s.json("GET", &format!("/{target}/_count"), None).await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["count"].as_u64().unwrap()
}

async fn bulk(s: &TestServer, lines: &str) {
    let r = s
        .send(
            "POST",
            "/_bulk?refresh=true",
            &[("Content-Type", "application/x-ndjson")],
            Some(lines.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false, "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aliases_resolve_reads_and_writes_and_survive_restart() {
    let s = TestServer::start(LIMIT).await;
    let r = s
        .json(
            "PUT",
            "/events-1",
            Some(json!({"aliases": {"events": {}, "errors": {"filter": {"term": {"level": "error"}}}}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    s.json("PUT", "/events-2", None).await;
    bulk(
        &s,
        concat!(
            "{\"index\":{\"_index\":\"events-1\",\"_id\":\"1\"}}\n{\"level\":\"error\"}\n",
            "{\"index\":{\"_index\":\"events-1\",\"_id\":\"2\"}}\n{\"level\":\"info\"}\n",
            "{\"index\":{\"_index\":\"events-2\",\"_id\":\"3\"}}\n{\"level\":\"error\"}\n",
        ),
    )
    .await;
    assert_eq!(count(&s, "events").await, 2);
    assert_eq!(count(&s, "errors").await, 1);
    let hits = s
        .json(
            "POST",
            "/errors/_search",
            Some(json!({"query": {"match_all": {}}})),
        )
        .await
        .json();
    assert_eq!(hits["hits"]["total"]["value"], 1);
    assert_eq!(hits["hits"]["hits"][0]["_id"], "1");
    // Reached directly too: the filter no longer applies.
    assert_eq!(count(&s, "errors,events-1").await, 2);

    // One index behind the alias: writes and reads go through it.
    let r = s
        .json(
            "PUT",
            "/events/_doc/9?refresh=true",
            Some(json!({"level": "warn"})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["_index"], "events-1");
    let got = s.json("GET", "/events/_doc/9", None).await;
    assert_eq!(
        (got.status, got.json()["_index"].clone()),
        (200, json!("events-1"))
    );

    // A second index without a write index: writes are refused.
    let r = s
        .json(
            "POST",
            "/_aliases",
            Some(json!({"actions": [{"add": {"index": "events-2", "alias": "events"}}]})),
        )
        .await;
    assert_eq!(r.json(), json!({"acknowledged": true, "errors": false}));
    let refused = s
        .json("PUT", "/events/_doc/10", Some(json!({"level": "x"})))
        .await;
    assert_eq!(refused.status, 400);
    assert_eq!(error_type(&refused.json()), "illegal_argument_exception");
    assert!(refused.json()["error"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("no write index is defined for alias [events]"));
    let single = s.json("GET", "/events/_doc/9", None).await;
    assert_eq!(single.status, 400);
    assert!(single
        .text()
        .contains("has more than one index associated with it"));
    let mget = s
        .json(
            "POST",
            "/_mget",
            Some(json!({"docs": [{"_index": "events", "_id": "9"}]})),
        )
        .await;
    assert_eq!(
        mget.json()["docs"][0]["error"]["type"],
        "illegal_argument_exception"
    );
    assert_eq!(count(&s, "events").await, 4);

    // Mark events-2 as the write index: bulk, update and delete follow it.
    let r = s
        .json(
            "PUT",
            "/events-2/_alias/events",
            Some(json!({"is_write_index": true})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    bulk(
        &s,
        "{\"index\":{\"_index\":\"events\",\"_id\":\"11\"}}\n{\"level\":\"info\"}\n",
    )
    .await;
    assert_eq!(count(&s, "events-2").await, 2);
    let r = s
        .json(
            "POST",
            "/events/_update/11",
            Some(json!({"doc": {"level": "debug"}})),
        )
        .await;
    assert_eq!(
        (r.status, r.json()["_index"].clone()),
        (200, json!("events-2"))
    );
    let r = s.json("DELETE", "/events/_doc/11?refresh=true", None).await;
    assert_eq!(
        (r.status, r.json()["_index"].clone()),
        (200, json!("events-2"))
    );

    // Listings.
    let all = s.json("GET", "/_alias", None).await.json();
    assert_eq!(
        all["events-1"]["aliases"]["errors"]["filter"]["term"]["level"],
        "error"
    );
    assert_eq!(all["events-2"]["aliases"]["events"]["is_write_index"], true);
    let one = s.json("GET", "/_alias/errors", None).await.json();
    assert_eq!(one.as_object().unwrap().len(), 1);
    let idx = s.json("GET", "/events-2/_alias/ev*", None).await.json();
    assert_eq!(
        idx,
        json!({"events-2": {"aliases": {"events": {"is_write_index": true}}}})
    );
    assert_eq!(s.json("HEAD", "/_alias/errors", None).await.status, 200);
    assert_eq!(s.json("HEAD", "/_alias/nope", None).await.status, 404);
    let missing = s.json("GET", "/_alias/errors,nope", None).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"], "alias [nope] missing");
    assert!(missing.json()["events-1"].is_object());
    let index = s.json("GET", "/events-1", None).await.json();
    assert!(index["events-1"]["aliases"]["events"].is_object());
    let cat = s
        .json("GET", "/_cat/aliases?v=true&s=alias,index", None)
        .await
        .text();
    let lines: Vec<&str> = cat.lines().collect();
    assert_eq!(lines.len(), 4, "{cat}");
    assert!(
        lines[1].starts_with("errors") && lines[1].contains(" * "),
        "{cat}"
    );
    assert!(lines[3].contains("events-2") && lines[3].trim_end().ends_with("true"));

    // No flush at stop: the alias table is durable on its own.
    let dir = s.stop(false).await;
    let s = TestServer::start_in(dir, LIMIT).await;
    assert_eq!(count(&s, "errors").await, 1);
    let all = s.json("GET", "/_alias", None).await.json();
    assert_eq!(all["events-2"]["aliases"]["events"]["is_write_index"], true);

    // Swap atomically, remove, remove_index.
    let r = s
        .json(
            "POST",
            "/_aliases",
            Some(json!({"actions": [
                {"remove": {"index": "events-*", "alias": "events"}},
                {"add": {"indices": ["events-1"], "aliases": ["events", "latest"]}},
                {"remove_index": {"index": "events-2"}}
            ]})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.json("HEAD", "/events-2", None).await.status, 404);
    assert_eq!(count(&s, "latest").await, 3);
    let r = s.json("DELETE", "/events-1/_alias/latest", None).await;
    assert_eq!(r.status, 200);
    let r = s.json("DELETE", "/events-1/_alias/latest", None).await;
    assert_eq!(
        (r.status, error_type(&r.json()).to_string()),
        (404, "aliases_not_found_exception".into())
    );
    assert_eq!(r.json()["error"]["resource.id"], "latest");
    // Deleting the index removes its aliases.
    assert_eq!(s.json("DELETE", "/events-1", None).await.status, 200);
    assert_eq!(s.json("GET", "/_alias", None).await.json(), json!({}));
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alias_errors_have_elasticsearch_shapes() {
    let s = TestServer::start(LIMIT).await;
    s.json("PUT", "/a-1", None).await;
    s.json("PUT", "/a-2", None).await;
    // An alias named like an index, and an index named like an alias.
    let r = s.json("PUT", "/a-1/_alias/a-2", None).await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "invalid_alias_name_exception")
    );
    assert!(r.json()["error"]["reason"]
        .as_str()
        .unwrap()
        .contains("an index or data stream exists with the same name as the alias"));
    s.json("PUT", "/a-1/_alias/shared", None).await;
    let r = s.json("PUT", "/shared", None).await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "invalid_index_name_exception")
    );
    assert_eq!(
        r.json()["error"]["reason"],
        "Invalid index name [shared], already exists as alias"
    );
    let r = s
        .json("PUT", "/a-3", Some(json!({"aliases": {"a-1": {}}})))
        .await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "invalid_alias_name_exception")
    );
    assert_eq!(s.json("HEAD", "/a-3", None).await.status, 404);
    // Two write indices.
    s.json(
        "PUT",
        "/a-1/_alias/w",
        Some(json!({"is_write_index": true})),
    )
    .await;
    let r = s
        .json(
            "PUT",
            "/a-2/_alias/w",
            Some(json!({"is_write_index": true})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.text().contains("has more than one write index"));
    // Deleting through an alias, a missing index, bad actions.
    let r = s.json("DELETE", "/shared", None).await;
    assert_eq!(r.status, 400);
    assert!(r
        .text()
        .contains("matches an alias, specify the corresponding concrete indices"));
    let r = s
        .json(
            "POST",
            "/_aliases",
            Some(json!({"actions": [{"add": {"index": "nope", "alias": "x"}}]})),
        )
        .await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (404, "index_not_found_exception")
    );
    let r = s
        .json(
            "POST",
            "/_aliases",
            Some(json!({"actions": [{"add": {"alias": "x"}}]})),
        )
        .await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "action_request_validation_exception")
    );
    let r = s
        .json("POST", "/_aliases", Some(json!({"actions": []})))
        .await;
    assert_eq!(r.status, 400);
    let r = s
        .json(
            "POST",
            "/_aliases",
            Some(json!({"actions": [{"frob": {"index": "a-1"}}]})),
        )
        .await;
    assert_eq!(r.status, 400);
    let r = s
        .json(
            "PUT",
            "/a-1/_alias/bad",
            Some(json!({"filter": {"no_such_query": {}}})),
        )
        .await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "illegal_argument_exception")
    );
    let r = s.json("PUT", "/a-1/_alias/_bad", None).await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "invalid_alias_name_exception")
    );
    // A failed request changed nothing.
    let all = s.json("GET", "/_alias", None).await.json();
    assert_eq!(all["a-2"]["aliases"], json!({}));
    assert!(all["a-1"]["aliases"]["bad"].is_null());
    // Filters that differ across the indices of one search are refused.
    s.json(
        "PUT",
        "/a-2/_alias/f2",
        Some(json!({"filter": {"term": {"x": 1}}})),
    )
    .await;
    let r = s.json("GET", "/f2,shared/_search", None).await;
    assert_eq!(r.status, 400);
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn require_alias_refuses_writes_to_non_aliases() {
    let s = TestServer::start(LIMIT).await;
    s.json("PUT", "/r-1", Some(json!({"aliases": {"r": {}}})))
        .await;
    let r = s
        .json("PUT", "/r/_doc/1?require_alias=true", Some(json!({"a": 1})))
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let r = s
        .json(
            "PUT",
            "/typo/_doc/1?require_alias=true",
            Some(json!({"a": 1})),
        )
        .await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (404, "index_not_found_exception")
    );
    assert_eq!(
        r.json()["error"]["reason"],
        "no such index [typo] and [require_alias] request flag is [true] and [typo] is not an alias"
    );
    assert_eq!(s.json("HEAD", "/typo", None).await.status, 404);
    let r = s
        .json(
            "POST",
            "/r-1/_update/1?require_alias=true",
            Some(json!({"doc": {"a": 2}})),
        )
        .await;
    assert_eq!(r.status, 404);
    let lines = concat!(
        "{\"index\":{\"_index\":\"r\",\"_id\":\"2\"}}\n{\"a\":1}\n",
        "{\"index\":{\"_index\":\"typo2\",\"_id\":\"3\"}}\n{\"a\":1}\n",
        "{\"index\":{\"_index\":\"typo3\",\"_id\":\"4\",\"require_alias\":false}}\n{\"a\":1}\n",
    );
    let r = s
        .send(
            "POST",
            "/_bulk?require_alias=true",
            &[("Content-Type", "application/x-ndjson")],
            Some(lines.as_bytes()),
        )
        .await
        .json();
    assert_eq!(r["errors"], true);
    assert_eq!(r["items"][0]["index"]["status"], 201);
    assert_eq!(r["items"][1]["index"]["status"], 404);
    assert_eq!(r["items"][2]["index"]["status"], 201);
    assert_eq!(s.json("HEAD", "/typo2", None).await.status, 404);
    s.stop(true).await;
}
