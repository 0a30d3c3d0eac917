//! Indexing back pressure over a real socket: writes beyond the bound of
//! bytes in flight are refused with 429 `es_rejected_execution_exception`,
//! reads are not, and the bytes are released once a reply is sent.

use crate::support;

use serde_json::json;
use support::TestServer;

const LIMIT: usize = 1 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_beyond_the_bytes_in_flight_bound_get_429() {
    let s = TestServer::start(LIMIT).await;
    let pressure = s.node.indexing_pressure.clone();
    pressure.set_limit(200);
    let bulk = "{\"index\":{\"_index\":\"p\",\"_id\":\"1\"}}\n{\"msg\":\"small\"}\n";
    let r = s
        .send(
            "POST",
            "/_bulk",
            &[("Content-Type", "application/x-ndjson")],
            Some(bulk.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(pressure.current(), 0, "released once the reply is sent");

    // Work already in flight: a write that would pass the bound is refused.
    let held = pressure.acquire(190).unwrap();
    let r = s
        .json("PUT", "/p/_doc/2", Some(json!({"msg": "refused"})))
        .await;
    assert_eq!(r.status, 429, "{}", r.text());
    let body = r.json();
    assert_eq!(body["error"]["type"], "es_rejected_execution_exception");
    assert_eq!(body["status"], 429);
    assert!(body["error"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("rejected execution of coordinating operation"));
    // Reads still answer.
    assert_eq!(s.json("GET", "/p/_doc/1", None).await.status, 200);
    drop(held);
    let r = s
        .json("PUT", "/p/_doc/2", Some(json!({"msg": "accepted"})))
        .await;
    assert_eq!(r.status, 201, "{}", r.text());

    // One request larger than the whole bound is refused on its own.
    let big = format!("{{\"msg\":\"{}\"}}", "x".repeat(300));
    let r = s
        .send(
            "PUT",
            "/p/_doc/3",
            &[("Content-Type", "application/json")],
            Some(big.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 429);
    let stats = s.json("GET", "/_nodes/stats", None).await.json();
    let node = stats["nodes"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    let memory = &node["indexing_pressure"]["memory"];
    assert_eq!(memory["total"]["coordinating_rejections"], 2);
    assert_eq!(memory["limit_in_bytes"], 200);
    assert_eq!(memory["current"]["all_in_bytes"], 0);
    s.stop(true).await;
}
