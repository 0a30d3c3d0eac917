//! Smaller administrative endpoints over a real socket: `_cache/clear`
//! (including that it empties the node's block cache),
//! `_cluster/state`, `_cluster/settings` and the
//! `action.destructive_requires_name` guard on deleting indices.

use crate::support;

use serde_json::json;
use support::TestServer;

const LIMIT: usize = 1 << 20;

/// A server with index `c-1` (two shards) behind the alias `c`.
async fn with_index_c1() -> TestServer {
    let s = TestServer::start(LIMIT).await;
    s.json(
        "PUT",
        "/c-1",
        Some(json!({"settings": {"number_of_shards": 2, "number_of_replicas": 0}, "aliases": {"c": {}}})),
    )
    .await;
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_clear_replies_per_index() {
    let s = with_index_c1().await;
    let r = s.json("POST", "/_cache/clear", None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["_shards"]["successful"], 2);
    let r = s.json("POST", "/c/_cache/clear", None).await;
    assert_eq!(r.json()["_shards"]["total"], 2);
    assert_eq!(s.json("POST", "/nope/_cache/clear", None).await.status, 404);

    s.stop(true).await;
}

/// `_nodes/stats` `strata_search_cache.size_in_bytes`.
async fn cached_bytes(s: &TestServer) -> u64 {
    let node = s.json("GET", "/_nodes/stats", None).await.json();
    let (_, me) = node["nodes"].as_object().unwrap().iter().next().unwrap();
    me["strata_search_cache"]["size_in_bytes"].as_u64().unwrap()
}

/// Reads a flushed `ssd` index's blocks into the cache.
async fn read_blocks(s: &TestServer, index: &str) {
    let body = json!({"query": {"match": {"msg": "line"}}, "size": 50});
    let r = s
        .json("POST", &format!("/{index}/_search"), Some(body))
        .await;
    assert_eq!(r.json()["hits"]["total"]["value"], 200, "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_clear_empties_the_block_cache() {
    let s = TestServer::start(LIMIT).await;
    let settings = json!({"settings": {"index.store.tier": "ssd", "refresh_interval": "-1"}});
    for index in ["s1", "s2"] {
        assert_eq!(
            s.json("PUT", &format!("/{index}"), Some(settings.clone()))
                .await
                .status,
            200
        );
        let mut body = String::new();
        for i in 0..200 {
            body.push_str(&format!("{{\"index\":{{}}}}\n{{\"msg\":\"line {i}\"}}\n"));
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
        s.json("POST", &format!("/{index}/_flush"), None).await;
    }
    read_blocks(&s, "s1").await;
    assert!(
        cached_bytes(&s).await > 0,
        "a search of flushed files fills the cache"
    );
    assert_eq!(s.json("POST", "/_cache/clear", None).await.status, 200);
    assert_eq!(cached_bytes(&s).await, 0);

    // Per index: only the named index's blocks go.
    read_blocks(&s, "s1").await;
    let s1_only = cached_bytes(&s).await;
    assert!(s1_only > 0);
    read_blocks(&s, "s2").await;
    assert!(cached_bytes(&s).await > s1_only);
    assert_eq!(s.json("POST", "/s2/_cache/clear", None).await.status, 200);
    assert_eq!(cached_bytes(&s).await, s1_only, "s1's blocks stay");
    assert_eq!(s.json("POST", "/s1/_cache/clear", None).await.status, 200);
    assert_eq!(cached_bytes(&s).await, 0);
    // A missing index clears nothing.
    read_blocks(&s, "s1").await;
    assert_eq!(s.json("POST", "/nope/_cache/clear", None).await.status, 404);
    assert!(cached_bytes(&s).await > 0);
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_state() {
    let s = with_index_c1().await;
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
