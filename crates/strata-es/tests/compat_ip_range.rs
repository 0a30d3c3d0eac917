//! The `ip_range` reply over HTTP, the whole JSON as Elasticsearch 8
//! gives it (keys, `from`/`to` left out when unbounded, IPv4-mapped
//! addresses shown as IPv4, IPv6 in their short form, keyed by key, a
//! sub-aggregation), and the 400 a bad mask gets.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

/// The index `ips`: four addressed documents (one IPv6, one written as an
/// IPv4-mapped IPv6 address) and one without an address.
async fn load(s: &TestServer) {
    let create = json!({
        "settings": {"number_of_shards": 2, "number_of_replicas": 0},
        "mappings": {"properties": {"addr": {"type": "ip"}, "n": {"type": "integer"}}}
    });
    assert_eq!(s.json("PUT", "/ips", Some(create)).await.status, 200);
    let docs = [
        json!({"addr": "192.168.0.1", "n": 1}),
        json!({"addr": "192.168.0.200", "n": 2}),
        json!({"addr": "::ffff:192.168.1.7", "n": 3}),
        json!({"addr": "fe80::1", "n": 4}),
        json!({"n": 5}),
    ];
    let mut body = String::new();
    for (i, doc) in docs.iter().enumerate() {
        body.push_str(&json!({"index": {"_id": i.to_string()}}).to_string());
        body.push('\n');
        body.push_str(&doc.to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send(
            "POST",
            "/ips/_bulk?refresh=true",
            &nd,
            Some(body.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false);
}

async fn search(s: &TestServer, aggs: Value) -> support::Response {
    s.json(
        "POST",
        "/ips/_search",
        Some(json!({"size": 0, "aggs": aggs})),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ip_range_replies() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let ranges = json!([
        {"from": "192.168.0.100"},
        {"to": "192.168.0.100"},
        {"mask": "192.168.0.0/23", "key": "lan"},
        {"mask": "fe80::/10"},
        {"from": "::ffff:192.168.1.0", "to": "192.168.2.0"}
    ]);
    let r = search(
        &s,
        json!({
            "list": {"ip_range": {"field": "addr", "ranges": ranges},
                     "aggs": {"n": {"sum": {"field": "n"}}}},
            "keyed": {"ip_range": {"field": "addr", "keyed": true,
                                   "ranges": [{"to": "192.168.0.100"}, {"mask": "fe80::/10"}]}}
        }),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json()["aggregations"],
        json!({
            "list": {"buckets": [
                {"key": "*-192.168.0.100", "to": "192.168.0.100", "doc_count": 1,
                 "n": {"value": 1.0}},
                {"key": "lan", "from": "192.168.0.0", "to": "192.168.2.0", "doc_count": 3,
                 "n": {"value": 6.0}},
                {"key": "192.168.0.100-*", "from": "192.168.0.100", "doc_count": 3,
                 "n": {"value": 9.0}},
                {"key": "192.168.1.0-192.168.2.0", "from": "192.168.1.0", "to": "192.168.2.0",
                 "doc_count": 1, "n": {"value": 3.0}},
                {"key": "fe80::/10", "from": "fe80::", "to": "fec0::", "doc_count": 1,
                 "n": {"value": 4.0}}
            ]},
            "keyed": {"buckets": {
                "*-192.168.0.100": {"to": "192.168.0.100", "doc_count": 1},
                "fe80::/10": {"from": "fe80::", "to": "fec0::", "doc_count": 1}
            }}
        })
    );

    let r = search(
        &s,
        json!({"r": {"ip_range": {"field": "addr", "ranges": [{"mask": "192.168.0.0/33"}]}}}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let error = &r.json()["error"];
    assert_eq!(error["type"], "x_content_parse_exception", "{error}");
    assert!(error["reason"]
        .as_str()
        .unwrap()
        .ends_with("[ip_range] failed to parse field [ranges]"));
    assert_eq!(
        error["caused_by"]["type"], "illegal_argument_exception",
        "{error}"
    );
    assert_eq!(
        error["caused_by"]["reason"],
        "Illegal prefix length [33] in [192.168.0.0/33]. Must be 0-32 for IPv4 ranges, 0-128 for IPv6 ranges"
    );
}
