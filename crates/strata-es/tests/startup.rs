//! A node whose indices are still recovering (after a crash, translog
//! replay can take a while): the port answers at once as a recovering
//! Elasticsearch node does. `GET /` works, `_cluster/health` and
//! `_cat/health` say red, `wait_for_status` waits for the recovery, and
//! every other request gets the "state not recovered" block (503); once
//! the node is handed in, everything is served.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use strata_es::{Node, NodeConfig, NodeState};
use support::{send_to, Response, TestServer};
use tokio::net::TcpListener;

async fn get(addr: std::net::SocketAddr, path: &str) -> Response {
    send_to(addr, "GET", path, &[], None).await
}

fn assert_blocked(reply: &Response) {
    assert_eq!(reply.status, 503, "{}", reply.text());
    let body = reply.json();
    let reason = "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];";
    assert_eq!(body["error"]["type"], "cluster_block_exception");
    assert_eq!(body["error"]["reason"], reason);
    assert_eq!(
        body["error"]["root_cause"][0]["type"],
        "cluster_block_exception"
    );
    assert_eq!(body["status"], 503);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recovering_node_answers_root_and_health_and_blocks_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = NodeConfig {
        root: dir.path().join("search"),
        node_name: "test-node".into(),
        cluster_name: "test-cluster".into(),
        max_body: 1 << 20,
        http_addr: addr,
        storage: TestServer::storage(&dir),
        build_hash: support::BUILD_HASH.into(),
    };
    let state = NodeState::recovering(config.clone(), None).unwrap();
    let served = Arc::clone(&state);
    let task = tokio::spawn(strata_es::serve(listener, served, std::future::pending()));

    let root = get(addr, "/").await;
    assert_eq!(root.status, 200);
    assert_eq!(root.header("x-elastic-product"), Some("Elasticsearch"));
    let root = root.json();
    assert_eq!(root["cluster_name"], "test-cluster");
    assert_eq!(root["cluster_uuid"], state.identity().cluster_uuid);
    assert_eq!(send_to(addr, "HEAD", "/", &[], None).await.status, 200);

    let health = get(addr, "/_cluster/health").await;
    assert_eq!(health.status, 200);
    let body = health.json();
    assert_eq!(body["status"], "red");
    assert_eq!(body["active_primary_shards"], 0);
    assert_eq!(body["timed_out"], false);
    let waited = get(
        addr,
        "/_cluster/health?wait_for_status=yellow&timeout=100ms",
    )
    .await;
    assert_eq!(waited.status, 408);
    assert_eq!(waited.json()["status"], "red");
    assert_eq!(waited.json()["timed_out"], true);
    let red_ok = get(addr, "/_cluster/health?wait_for_status=red").await;
    assert_eq!(red_ok.status, 200);
    let cat = get(addr, "/_cat/health?h=cluster,status").await;
    assert_eq!(cat.status, 200);
    assert_eq!(cat.text().trim(), "test-cluster red");

    for path in [
        "/_search",
        "/logs/_search",
        "/_cat/indices",
        "/logs/_doc/1",
        "/_stats",
    ] {
        assert_blocked(&get(addr, path).await);
    }
    let put = send_to(
        addr,
        "PUT",
        "/logs/_doc/1",
        &[("Content-Type", "application/json")],
        Some(br#"{"a":1}"#),
    )
    .await;
    assert_blocked(&put);
    // An unknown path is still "no handler found".
    assert_eq!(get(addr, "/_nope/x/y/z").await.status, 400);

    // A health wait that outlasts the recovery sees the recovered node.
    let waiting = tokio::spawn(async move {
        get(addr, "/_cluster/health?wait_for_status=green&timeout=10s").await
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!waiting.is_finished(), "the wait ended before the recovery");
    let node = tokio::task::spawn_blocking(move || Node::open(config))
        .await
        .unwrap()
        .unwrap();
    state.set_ready(Arc::new(node));
    let waited = waiting.await.unwrap();
    assert_eq!(waited.status, 200, "{}", waited.text());
    assert_eq!(waited.json()["status"], "green");

    let created = send_to(
        addr,
        "PUT",
        "/logs/_doc/1?refresh=true",
        &[("Content-Type", "application/json")],
        Some(json!({"a": 1}).to_string().as_bytes()),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text());
    assert_eq!(get(addr, "/logs/_doc/1").await.json()["_source"]["a"], 1);
    task.abort();
}
