//! The node's DRAM caches by user: `INFO cache` over RESP and
//! `_nodes/stats` `strata_cache` over HTTP render one report (the KV
//! record cache of the SSD tier as `kv_records`, search's block cache as
//! `search_blocks`), so a client reading either sees the same numbers;
//! with `cache_size` the two users share one cache and its one budget.

use crate::common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use common::{http, info_numbers, resp_command, round_trip, test_config};
use serde_json::Value;
use strata_server::Server;
use tokio::net::TcpStream;

/// `INFO cache` as `field → value`.
async fn info_cache(resp: &mut TcpStream) -> BTreeMap<String, u64> {
    info_numbers(resp, "cache").await
}

/// `_nodes/stats` `strata_cache`, flattened as `INFO cache` names them.
async fn nodes_stats_cache(addr: SocketAddr) -> BTreeMap<String, u64> {
    let (status, body) = http(addr, "GET", "/_nodes/stats", "").await;
    assert_eq!(status, 200, "{body}");
    let json: Value = serde_json::from_str(&body).unwrap();
    let node = json["nodes"].as_object().unwrap().values().next().unwrap();
    let cache = &node["strata_cache"];
    let mut out = BTreeMap::new();
    let mut put = |prefix: &str, u: &Value| {
        for (field, key) in [
            ("bytes", "size_in_bytes"),
            ("budget", "budget_in_bytes"),
            ("entries", "entries"),
            ("hits", "hits"),
            ("misses", "misses"),
            ("insertions", "insertions"),
            ("evictions", "evictions"),
        ] {
            out.insert(format!("{prefix}{field}"), u[key].as_u64().unwrap());
        }
    };
    put("cache_", cache);
    for (user, usage) in cache["users"].as_object().unwrap() {
        put(&format!("cache_user_{user}_"), usage);
    }
    for (user, usage) in cache["users"].as_object().unwrap() {
        for (field, key) in [("floor", "floor_in_bytes"), ("ceiling", "ceiling_in_bytes")] {
            let value = usage[key].as_u64().unwrap();
            out.insert(format!("cache_user_{user}_{field}"), value);
        }
    }
    let shared = cache["shared"].as_bool().unwrap();
    out.insert("cache_shared".into(), u64::from(shared));
    out
}

/// `INFO cache`, once `_nodes/stats` read between two equal INFO replies
/// agreed with it (quiet between the reads: retried until INFO did not
/// move).
async fn agreed_reports(resp: &mut TcpStream, http: SocketAddr) -> BTreeMap<String, u64> {
    for _ in 0..20 {
        let before = info_cache(resp).await;
        let stats = nodes_stats_cache(http).await;
        let after = info_cache(resp).await;
        if before == after {
            assert_eq!(after, stats);
            return after;
        }
    }
    panic!("the caches never stood still");
}

/// A server on the SSD tier with search, configured by `tune`.
fn ssd_config(
    dir: &tempfile::TempDir,
    tune: impl FnOnce(&mut strata_server::ServerConfig),
) -> strata_server::ServerConfig {
    test_config(dir, |c| {
        c.data = strata_server::config::DataPlacement::Ssd;
        c.ssd_path = Some(dir.path().join("ssd-device"));
        c.ssd_size = strata_server::ByteSize::new(64 << 20).unwrap();
        c.ssd_io = strata_server::config::SsdIo::Buffered;
        tune(c);
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn info_and_nodes_stats_report_the_same_caches_by_user() {
    let dir = tempfile::tempdir().unwrap();
    let config = ssd_config(&dir, |c| {
        c.dram_cache_size = strata_server::ByteSize::new(4 << 20);
        c.search_cache_size = strata_server::ByteSize::new(8 << 20);
    });
    let server = Server::start(&config).await.unwrap();
    server.search_recovered().await.unwrap();
    let mut resp = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    for i in 0..20 {
        let key = format!("k{i}");
        round_trip(&mut resp, &resp_command(&["SET", &key, "v"]), b"+OK\r\n").await;
        round_trip(&mut resp, &resp_command(&["GET", &key]), b"$1\r\nv\r\n").await;
    }
    let info = agreed_reports(&mut resp, server.http_addr().unwrap()).await;
    assert_eq!(info["cache_shared"], 0);
    assert_eq!(info["cache_user_kv_records_budget"], 4 << 20);
    assert_eq!(info["cache_user_search_blocks_budget"], 8 << 20);
    assert_eq!(info["cache_budget"], 12 << 20);
    // The SSD tier keeps each record it writes in its DRAM cache.
    assert_eq!(info["cache_user_kv_records_entries"], 20, "{info:?}");
    assert!(info["cache_user_kv_records_bytes"] > 0);
    assert_eq!(
        info["cache_bytes"],
        info["cache_user_kv_records_bytes"] + info["cache_user_search_blocks_bytes"]
    );
    server.shutdown(Duration::from_secs(5)).await;
}

/// With `cache_size`, one cache serves the SSD tier's records and search's
/// blocks: both users report its one budget, INFO and `_nodes/stats` agree,
/// and what the users hold adds up to at most the budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shared_cache_serves_both_engines_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let budget = 4u64 << 20;
    let config = ssd_config(&dir, |c| {
        c.cache_size = strata_server::ByteSize::new(budget);
        c.kv_records_cache_ceiling = strata_server::ByteSize::new(3 << 20);
        c.search_blocks_cache_floor = strata_server::ByteSize::new(256 << 10);
    });
    let server = Server::start(&config).await.unwrap();
    server.search_recovered().await.unwrap();
    let http_addr = server.http_addr().unwrap();
    let mut resp = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    let value = "v".repeat(1000);
    let reply = format!("${}\r\n{value}\r\n", value.len());
    for i in 0..8000 {
        let key = format!("k{i}");
        round_trip(&mut resp, &resp_command(&["SET", &key, &value]), b"+OK\r\n").await;
    }
    for i in [0, 7999] {
        let key = format!("k{i}");
        round_trip(&mut resp, &resp_command(&["GET", &key]), reply.as_bytes()).await;
    }
    let settings = r#"{"settings": {"index.store.tier": "ssd", "refresh_interval": "-1"}}"#;
    let (status, body) = http(http_addr, "PUT", "/s1", settings).await;
    assert_eq!(status, 200, "{body}");
    let mut bulk = String::new();
    for i in 0..500 {
        bulk.push_str(&format!("{{\"index\":{{}}}}\n{{\"msg\":\"line {i}\"}}\n"));
    }
    let (status, body) = http(http_addr, "POST", "/s1/_bulk?refresh=true", &bulk).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(http_addr, "POST", "/s1/_flush", "").await;
    assert_eq!(status, 200, "{body}");
    let query = r#"{"query": {"match": {"msg": "line"}}, "size": 50}"#;
    for _ in 0..2 {
        let (status, body) = http(http_addr, "POST", "/s1/_search", query).await;
        assert_eq!(status, 200, "{body}");
    }
    let info = agreed_reports(&mut resp, http_addr).await;
    assert_eq!(info["cache_shared"], 1);
    assert_eq!(info["cache_budget"], budget);
    for user in ["kv_records", "search_blocks"] {
        assert_eq!(
            info[&format!("cache_user_{user}_budget")],
            budget,
            "{info:?}"
        );
        assert!(info[&format!("cache_user_{user}_entries")] > 0, "{info:?}");
    }
    // The limits set, reported as set; none: floor 0, ceiling the budget.
    assert_eq!(info["cache_user_kv_records_ceiling"], 3 << 20);
    assert_eq!(info["cache_user_kv_records_floor"], 0);
    assert_eq!(info["cache_user_search_blocks_floor"], 256 << 10);
    assert_eq!(info["cache_user_search_blocks_ceiling"], budget);
    assert!(info["cache_user_search_blocks_hits"] > 0, "{info:?}");
    // The SSD tier keeps each record it writes, and each it reads from
    // the device (k0, evicted since), in the cache.
    let misses = info["cache_user_kv_records_misses"];
    assert!(misses >= 1, "{info:?}");
    assert_eq!(info["cache_user_kv_records_insertions"], 8000 + misses);
    // 8 MB of records went through a 4 MiB cache: evicted, on their user.
    assert!(info["cache_user_kv_records_evictions"] > 0, "{info:?}");
    assert_eq!(
        info["cache_bytes"],
        info["cache_user_kv_records_bytes"] + info["cache_user_search_blocks_bytes"]
    );
    assert!(info["cache_bytes"] <= budget, "{info:?}");
    // The search-only section reports the same budget and blocks.
    let (_, body) = http(http_addr, "GET", "/_nodes/stats", "").await;
    let json: Value = serde_json::from_str(&body).unwrap();
    let node = json["nodes"].as_object().unwrap().values().next().unwrap();
    assert_eq!(node["strata_search_cache"]["budget_in_bytes"], budget);
    server.shutdown(Duration::from_secs(5)).await;
}
