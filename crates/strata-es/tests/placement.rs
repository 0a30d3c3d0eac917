//! `index.store.tier` over HTTP: accepted in each body form, shown by
//! `_settings`, refused when bad or changed, reported by `_stats` and
//! `_nodes/stats`; and a `pmem` index whose refreshed documents survive an
//! unflushed restart without their translog records being replayed.

use crate::support;

use serde_json::json;
use support::TestServer;

const LIMIT: usize = 1 << 20;

async fn bulk(s: &TestServer, index: &str, from: usize, to: usize) {
    let mut body = String::new();
    for i in from..to {
        body.push_str(&format!("{{\"index\":{{\"_id\":\"d{i}\"}}}}\n"));
        body.push_str(&format!("{{\"n\":{i},\"msg\":\"line {i}\"}}\n"));
    }
    let r = s
        .send(
            "POST",
            &format!("/{index}/_bulk"),
            &[("Content-Type", "application/x-ndjson")],
            Some(body.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["errors"], false);
}

async fn count(s: &TestServer, index: &str) -> u64 {
    let r = s.json("GET", &format!("/{index}/_count"), None).await;
    r.json()["count"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_tier_setting_forms_errors_and_stats() {
    let s = TestServer::start(LIMIT).await;
    for (name, settings) in [
        ("a", json!({"index": {"store": {"tier": "ssd"}}})),
        ("b", json!({"index.store.tier": "pmem"})),
        ("c", json!({"index": {"store.tier": "dram"}})),
    ] {
        let r = s
            .json(
                "PUT",
                &format!("/{name}"),
                Some(json!({"settings": settings})),
            )
            .await;
        assert_eq!(r.status, 200, "{name}: {}", r.text());
    }
    let r = s.json("PUT", "/d", None).await;
    assert_eq!(r.status, 200);
    let all = s.json("GET", "/_all/_settings", None).await.json();
    let tier = |i: &str| all[i]["settings"]["index"]["store"]["tier"].clone();
    assert_eq!(
        (tier("a"), tier("b"), tier("c"), tier("d")),
        (json!("ssd"), json!("pmem"), json!("dram"), json!("dram"))
    );

    let r = s
        .json(
            "PUT",
            "/e",
            Some(json!({"settings": {"index.store.tier": "tape"}})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["type"], "illegal_argument_exception");
    assert_eq!(s.json("HEAD", "/e", None).await.status, 404);
    let r = s
        .json(
            "PUT",
            "/a/_settings",
            Some(json!({"index": {"store": {"tier": "dram"}}})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let again = s.json("GET", "/a/_settings", None).await.json();
    assert_eq!(again["a"]["settings"]["index"]["store"]["tier"], "ssd");

    bulk(&s, "a", 0, 300).await;
    s.json("POST", "/a/_flush", None).await;
    assert_eq!(count(&s, "a").await, 300);
    let r = s
        .json(
            "POST",
            "/a/_search",
            Some(json!({"query": {"match": {"msg": "line"}}, "size": 5})),
        )
        .await;
    assert_eq!(r.json()["hits"]["total"]["value"], 300);
    let stats = s.json("GET", "/a/_stats", None).await.json();
    assert_eq!(stats["indices"]["a"]["strata_store_tier"], "ssd");
    let store = &stats["indices"]["a"]["primaries"]["strata_store"];
    assert!(store["block_cache_misses"].as_u64().unwrap() > 0, "{store}");
    let node = s.json("GET", "/_nodes/stats", None).await.json();
    let (_, me) = node["nodes"].as_object().unwrap().iter().next().unwrap();
    let cache = &me["strata_search_cache"];
    assert_eq!(cache["budget_in_bytes"], 4 << 20);
    assert!(cache["misses"].as_u64().unwrap() > 0, "{cache}");
    assert!(cache["size_in_bytes"].as_u64().unwrap() <= 4 << 20);
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pmem_refreshes_survive_an_unflushed_restart() {
    let s = TestServer::start(LIMIT).await;
    let body = json!({"settings": {"index.store.tier": "pmem", "refresh_interval": "-1"}});
    assert_eq!(s.json("PUT", "/p", Some(body)).await.status, 200);
    bulk(&s, "p", 0, 200).await;
    s.json("POST", "/p/_refresh", None).await;
    let dir = s.stop(false).await; // no flush: as after a crash
    let s = TestServer::start_in(dir, LIMIT).await;
    assert_eq!(count(&s, "p").await, 200);
    let stats = s.json("GET", "/p/_stats", None).await.json();
    let store = &stats["indices"]["p"]["primaries"]["strata_store"];
    assert_eq!(store["translog_replayed_at_open"], 0, "{store}");
    s.stop(true).await;
}
