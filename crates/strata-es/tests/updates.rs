//! `_update` and bulk `update` options: `detect_noop` and `_source` (in
//! the body, and as `_update` URL parameters), whose `get` carries the
//! document as the update left it.

use crate::support;

use serde_json::json;
use support::TestServer;

const LIMIT: usize = 1 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn detect_noop_and_source_on_update() {
    let s = TestServer::start(LIMIT).await;
    let r = s
        .json(
            "PUT",
            "/u/_doc/1",
            Some(json!({"a": 1, "b": {"c": 2, "d": 3}})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());

    // Unchanged: a noop by default, a new version with detect_noop=false.
    let r = s
        .json("POST", "/u/_update/1", Some(json!({"doc": {"a": 1}})))
        .await
        .json();
    assert_eq!(
        (r["result"].as_str(), r["_version"].as_u64()),
        (Some("noop"), Some(1)),
        "{r}"
    );
    let r = s
        .json(
            "POST",
            "/u/_update/1",
            Some(json!({"doc": {"a": 1}, "detect_noop": false})),
        )
        .await
        .json();
    assert_eq!(
        (r["result"].as_str(), r["_version"].as_u64()),
        (Some("updated"), Some(2)),
        "{r}"
    );
    let r = s
        .json(
            "POST",
            "/u/_update/1",
            Some(json!({"doc": {}, "detect_noop": "no"})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());

    // `_source` in the body: the merged document comes back in `get`.
    let r = s
        .json(
            "POST",
            "/u/_update/1",
            Some(json!({"doc": {"a": 5}, "_source": true})),
        )
        .await
        .json();
    assert_eq!(r["get"]["found"], true, "{r}");
    assert_eq!(r["get"]["_source"], json!({"a": 5, "b": {"c": 2, "d": 3}}));
    assert_eq!(r["get"]["_seq_no"], r["_seq_no"]);
    let r = s
        .json(
            "POST",
            "/u/_update/1",
            Some(json!({"doc": {"a": 6}, "_source": {"includes": ["b.*"], "excludes": ["b.d"]}})),
        )
        .await
        .json();
    assert_eq!(r["get"]["_source"], json!({"b": {"c": 2}}), "{r}");
    // As URL parameters.
    let r = s
        .json(
            "POST",
            "/u/_update/1?_source_includes=a",
            Some(json!({"doc": {"a": 7}})),
        )
        .await
        .json();
    assert_eq!(r["get"]["_source"], json!({"a": 7}), "{r}");
    // Without `_source`, no `get`.
    let r = s
        .json("POST", "/u/_update/1", Some(json!({"doc": {"a": 8}})))
        .await
        .json();
    assert!(r.get("get").is_none(), "{r}");

    // Bulk update items too.
    let body = format!(
        "{}\n{}\n{}\n{}\n",
        json!({"update": {"_index": "u", "_id": "1"}}),
        json!({"doc": {"a": 9}, "_source": ["a"]}),
        json!({"update": {"_index": "u", "_id": "1"}}),
        json!({"doc": {"a": 9}, "detect_noop": false}),
    );
    let r = s
        .send(
            "POST",
            "/_bulk",
            &[("Content-Type", "application/x-ndjson")],
            Some(body.as_bytes()),
        )
        .await
        .json();
    assert_eq!(r["errors"], false, "{r}");
    assert_eq!(
        r["items"][0]["update"]["get"]["_source"],
        json!({"a": 9}),
        "{r}"
    );
    assert_eq!(r["items"][1]["update"]["result"], "updated", "{r}");
    s.stop(true).await;
}
