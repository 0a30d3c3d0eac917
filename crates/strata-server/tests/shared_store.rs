//! One SSD store for the node's engines: with `data = ssd`, an index on
//! the `ssd` tier keeps its flushed segment files in the store the
//! key-value records live in, as its user `search`. `INFO tiers` and
//! `_nodes/stats` `strata_ssd_store` report the same space per user; a
//! restart brings back both engines' data from the one store (the
//! key-value opening marks search's catalogs before it frees anything);
//! deleting the index gives its space back.

use crate::common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use common::{http, info_numbers, resp_command, round_trip, test_config};
use serde_json::Value;
use strata_server::config::IndexPlacement;
use strata_server::Server;
use tokio::net::TcpStream;

fn config(dir: &tempfile::TempDir, index: IndexPlacement) -> strata_server::ServerConfig {
    test_config(dir, |c| {
        c.index = index;
        c.pmem_size = strata_server::ByteSize::new(64 << 20).unwrap();
        c.data = strata_server::config::DataPlacement::Ssd;
        c.ssd_path = Some(dir.path().join("ssd-device"));
        c.ssd_size = strata_server::ByteSize::new(64 << 20).unwrap();
        c.ssd_io = strata_server::config::SsdIo::Buffered;
    })
}

/// `_nodes/stats` `strata_ssd_store` users as `INFO tiers` names them.
async fn nodes_stats_store(addr: SocketAddr) -> BTreeMap<String, u64> {
    let (status, body) = http(addr, "GET", "/_nodes/stats", "").await;
    assert_eq!(status, 200, "{body}");
    let json: Value = serde_json::from_str(&body).unwrap();
    let node = json["nodes"].as_object().unwrap().values().next().unwrap();
    let users = node["strata_ssd_store"]["users"].as_object().unwrap();
    let mut out = BTreeMap::new();
    for (user, space) in users {
        for (field, key) in [
            ("blocks", "blocks"),
            ("bytes_used", "used_in_bytes"),
            ("bytes_live", "live_in_bytes"),
        ] {
            let value = space[key].as_u64().unwrap();
            out.insert(format!("tier_ssd_user_{user}_{field}"), value);
        }
    }
    out
}

/// `INFO tiers`' per-user fields, checked equal to `_nodes/stats`.
async fn agreed_users(resp: &mut TcpStream, addr: SocketAddr) -> BTreeMap<String, u64> {
    let info: BTreeMap<String, u64> = (info_numbers(resp, "tiers").await.into_iter())
        .filter(|(k, _)| k.starts_with("tier_ssd_user_"))
        .collect();
    assert_eq!(info, nodes_stats_store(addr).await);
    info
}

async fn count(addr: SocketAddr) -> u64 {
    let (status, body) = http(addr, "GET", "/logs/_count", "").await;
    assert_eq!(status, 200, "{body}");
    let json: Value = serde_json::from_str(&body).unwrap();
    json["count"].as_u64().unwrap()
}

/// The key-value index rebuilt from the store at each start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_segments_share_the_store_across_a_rebuild() {
    shares_the_store_across_a_restart(IndexPlacement::Dram).await;
}

/// The key-value index adopted from persistent memory at each start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_segments_share_the_store_across_an_adoption() {
    shares_the_store_across_a_restart(IndexPlacement::Pmem).await;
}

async fn shares_the_store_across_a_restart(index: IndexPlacement) {
    let dir = tempfile::tempdir().unwrap();
    let config = config(&dir, index);
    let server = Server::start(&config).await.unwrap();
    server.search_recovered().await.unwrap();
    let addr = server.http_addr().unwrap();
    let mut resp = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    for i in 0..50 {
        let set = resp_command(&["SET", &format!("k{i}"), &format!("v{i}")]);
        round_trip(&mut resp, &set, b"+OK\r\n").await;
    }
    let settings = r#"{"settings": {"index.store.tier": "ssd", "number_of_shards": 2}}"#;
    let (status, body) = http(addr, "PUT", "/logs", settings).await;
    assert_eq!(status, 200, "{body}");
    // Enough for each shard's flush to reach the store (a quarter of a
    // store block): words that neither compress nor repeat much.
    let mut bulk = String::new();
    for i in 0..2000u64 {
        let words: Vec<String> = (0..60u64)
            .map(|j| {
                format!(
                    "w{:x}",
                    (i * 60 + j).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40
                )
            })
            .collect();
        let words = words.join(" ");
        bulk.push_str(&format!(
            "{{\"index\":{{}}}}\n{{\"msg\":\"line {i} {words}\",\"n\":{i}}}\n"
        ));
    }
    let (status, body) = http(addr, "POST", "/logs/_bulk?refresh=true", &bulk).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(addr, "POST", "/logs/_flush", "").await;
    assert_eq!(status, 200, "{body}");
    let users = agreed_users(&mut resp, addr).await;
    assert!(users["tier_ssd_user_search_bytes_live"] > 0, "{users:?}");
    assert!(users["tier_ssd_user_search_blocks"] > 0, "{users:?}");
    assert!(users["tier_ssd_user_kv_bytes_live"] > 0, "{users:?}");
    drop(resp);
    server.shutdown(Duration::from_secs(5)).await;

    let server = Server::start(&config).await.unwrap();
    server.search_recovered().await.unwrap();
    let addr = server.http_addr().unwrap();
    let mut resp = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    assert_eq!(count(addr).await, 2000);
    let query = r#"{"query": {"match": {"msg": "1999"}}}"#;
    let (status, body) = http(addr, "POST", "/logs/_search", query).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("line 1999"), "{body}");
    for i in [0, 49] {
        let reply = format!("$2\r\nv{i}\r\n");
        let reply = if i < 10 {
            reply
        } else {
            format!("$3\r\nv{i}\r\n")
        };
        round_trip(
            &mut resp,
            &resp_command(&["GET", &format!("k{i}")]),
            reply.as_bytes(),
        )
        .await;
    }
    let after = agreed_users(&mut resp, addr).await;
    assert_eq!(
        after["tier_ssd_user_search_bytes_live"], users["tier_ssd_user_search_bytes_live"],
        "the restart marked every segment file"
    );
    let (status, body) = http(addr, "DELETE", "/logs", "").await;
    assert_eq!(status, 200, "{body}");
    let gone = agreed_users(&mut resp, addr).await;
    assert_eq!(
        gone.get("tier_ssd_user_search_bytes_live")
            .copied()
            .unwrap_or(0),
        0,
        "{gone:?}"
    );
    server.shutdown(Duration::from_secs(5)).await;
}
