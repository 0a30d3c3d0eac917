//! Smaller administrative endpoints over a real socket: `_cache/clear`,
//! `_cluster/state`, `_cluster/settings` and the
//! `action.destructive_requires_name` guard on deleting indices.

mod support;

use serde_json::json;
use support::TestServer;

const LIMIT: usize = 1 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_clear_and_cluster_state() {
    let s = TestServer::start(LIMIT).await;
    s.json(
        "PUT",
        "/c-1",
        Some(json!({"settings": {"number_of_shards": 2, "number_of_replicas": 0}, "aliases": {"c": {}}})),
    )
    .await;
    let r = s.json("POST", "/_cache/clear", None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["_shards"]["successful"], 2);
    let r = s.json("POST", "/c/_cache/clear", None).await;
    assert_eq!(r.json()["_shards"]["total"], 2);
    assert_eq!(s.json("POST", "/nope/_cache/clear", None).await.status, 404);

    let state = s.json("GET", "/_cluster/state", None).await.json();
    let master = state["master_node"].as_str().unwrap().to_string();
    assert_eq!(state["cluster_name"], "test-cluster");
    assert!(state["nodes"][&master]["name"].is_string());
    assert_eq!(state["metadata"]["indices"]["c-1"]["aliases"], json!(["c"]));
    assert_eq!(state["metadata"]["indices"]["c-1"]["state"], "open");
    let only = s
        .json("GET", "/_cluster/state/master_node", None)
        .await
        .json();
    assert_eq!(only["master_node"], master.as_str());
    assert!(only.get("metadata").is_none() && only.get("nodes").is_none());
    assert!(only["cluster_uuid"].is_string());
    let some = s
        .json("GET", "/_cluster/state/metadata/c-*", None)
        .await
        .json();
    assert!(some["metadata"]["indices"]["c-1"].is_object());
    assert_eq!(
        s.json("GET", "/_cluster/state/frob", None).await.status,
        400
    );
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destructive_requires_name_guards_wildcard_deletes() {
    let s = TestServer::start(LIMIT).await;
    s.json("PUT", "/d-1", None).await;
    s.json("PUT", "/d-2", None).await;
    for target in ["/d-*", "/_all", "/d-1,d-*"] {
        let r = s.json("DELETE", target, None).await;
        assert_eq!(r.status, 400, "{target}");
        assert_eq!(r.json()["error"]["type"], "illegal_argument_exception");
        assert_eq!(
            r.json()["error"]["reason"],
            "Wildcard expressions or all indices are not allowed"
        );
    }
    assert_eq!(s.json("HEAD", "/d-1", None).await.status, 200);
    let got = s.json("GET", "/_cluster/settings", None).await.json();
    assert_eq!(got, json!({"persistent": {}, "transient": {}}));
    let got = s
        .json("GET", "/_cluster/settings?include_defaults=true", None)
        .await
        .json();
    assert_eq!(
        got["defaults"]["action"]["destructive_requires_name"],
        "true"
    );
    let r = s
        .json(
            "PUT",
            "/_cluster/settings",
            Some(json!({"persistent": {"action.destructive_requires_name": false}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["acknowledged"], true);
    assert_eq!(
        r.json()["persistent"]["action"]["destructive_requires_name"],
        "false"
    );
    let r = s
        .json(
            "PUT",
            "/_cluster/settings",
            Some(json!({"persistent": {"cluster.frob": 1}})),
        )
        .await;
    assert_eq!(r.status, 400);

    // Persistent: still off after a restart.
    let dir = s.stop(true).await;
    let s = TestServer::start_in(dir, LIMIT).await;
    let flat = s
        .json("GET", "/_cluster/settings?flat_settings=true", None)
        .await
        .json();
    assert_eq!(
        flat["persistent"]["action.destructive_requires_name"],
        "false"
    );
    // A transient true wins over the persistent false.
    s.json(
        "PUT",
        "/_cluster/settings",
        Some(json!({"transient": {"action": {"destructive_requires_name": true}}})),
    )
    .await;
    assert_eq!(s.json("DELETE", "/d-*", None).await.status, 400);
    s.json(
        "PUT",
        "/_cluster/settings",
        Some(json!({"transient": {"action.destructive_requires_name": null}})),
    )
    .await;
    let r = s.json("DELETE", "/d-*", None).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.json("HEAD", "/d-1", None).await.status, 404);
    assert_eq!(s.json("HEAD", "/d-2", None).await.status, 404);
    s.stop(true).await;
}
