//! What Kibana's dashboards and Rally's eventdata track need from the HTTP
//! API: a named-zone `date_histogram` over an empty match (alone and in
//! `_msearch` beside a failing search: per-item errors, overall 200),
//! `_nodes/stats/jvm` with the pools and collectors Rally reads,
//! `_stats/<metric>` and `level`, and `index.codec` and the advisory
//! settings of Rally's template, and the `auto_date_histogram` Kibana and
//! Grafana send (its reply's shape, `interval` included, and a 400).
//! (`search.max_buckets` as a cluster setting is tested in a binary of its
//! own: `node_settings.rs`.)

use crate::support;

use serde_json::json;
use support::logs::{dashboard, load, DAY};

use crate::compat_aggs;
use support::{assert_error, TestServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kibana_msearch_errors_are_per_item() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let empty = json!({"range": {"@timestamp": {"gte": 0, "lte": 1000, "format": "epoch_millis"}}});
    for interval in ["30s", "3h", "1d"] {
        let r = s
            .json(
                "POST",
                "/logs-*/_search",
                Some(dashboard(empty.clone(), interval)),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["aggregations"]["2"]["buckets"], json!([]));
    }
    let lines = [
        json!({"index": "logs-*", "ignore_unavailable": true}),
        dashboard(empty.clone(), "30s"),
        json!({"index": "logs-*"}),
        json!({"query": {"range": {"@timestamp": {"gte": "not a date"}}}}),
        json!({"index": "missing-index"}),
        json!({"query": {"match_all": {}}}),
        json!({"index": "logs-*"}),
        dashboard(json!({"match_all": {}}), "1h"),
    ];
    let mut body = String::new();
    for line in &lines {
        body.push_str(&line.to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send("POST", "/_msearch", &nd, Some(body.as_bytes()))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let responses = r.json()["responses"].clone();
    assert_eq!(responses[0]["status"], 200);
    assert_eq!(responses[0]["aggregations"]["2"]["buckets"], json!([]));
    assert_eq!(responses[1]["status"], 400, "{}", responses[1]);
    assert!(responses[1]["error"]["type"].is_string());
    assert!(responses[1]["error"]["root_cause"].is_array());
    assert_eq!(responses[2]["status"], 404);
    assert_eq!(responses[2]["error"]["type"], "index_not_found_exception");
    // 40 documents 11 minutes apart from midnight UTC: hour buckets
    // counted here (Europe/London hours are UTC hours).
    let buckets = responses[3]["aggregations"]["2"]["buckets"]
        .as_array()
        .unwrap()
        .clone();
    let mut expected = std::collections::BTreeMap::<i64, u64>::new();
    for i in 0..40i64 {
        *expected.entry((i * 11) / 60).or_default() += 1;
    }
    assert_eq!(buckets.len(), expected.len());
    for (b, (hour, count)) in buckets.iter().zip(&expected) {
        assert_eq!(b["key"], DAY + hour * 3_600_000);
        assert_eq!(b["doc_count"], *count);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jvm_stats_and_index_stats_as_rally_reads_them() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let r = s.json("GET", "/_nodes/stats/jvm", None).await;
    assert_eq!(r.status, 200);
    let nodes = r.json()["nodes"].clone();
    let node = nodes.as_object().unwrap().values().next().unwrap().clone();
    for pool in ["young", "survivor", "old"] {
        assert!(
            node["jvm"]["mem"]["pools"][pool]["peak_used_in_bytes"].is_u64(),
            "{node}"
        );
    }
    for c in ["young", "old"] {
        assert_eq!(node["jvm"]["gc"]["collectors"][c]["collection_count"], 0);
    }
    assert!(node.get("indices").is_none(), "only jvm: {node}");

    let r = s.json("GET", "/*/_stats/store", None).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    let all = body["_all"]["total"].as_object().unwrap();
    assert!(
        all.contains_key("store") && !all.contains_key("docs"),
        "{body}"
    );
    assert!(
        body["_all"]["total"]["store"]["size_in_bytes"]
            .as_u64()
            .unwrap()
            > 0
    );

    let r = s.json("GET", "/_stats?level=shards", None).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    let shards = body["indices"]["logs-1"]["shards"]
        .as_object()
        .unwrap()
        .clone();
    assert_eq!(shards.len(), 2);
    let docs: u64 = shards
        .values()
        .map(|copies| {
            assert_eq!(copies[0]["routing"]["primary"], true);
            copies[0]["docs"]["count"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(docs, 40);
    assert_eq!(body["_all"]["primaries"]["docs"]["count"], 40);

    let r = s
        .json("GET", "/logs-1/_stats/docs?level=cluster", None)
        .await;
    assert_eq!(r.status, 200);
    assert!(r.json().get("indices").is_none());
    let r = s.json("GET", "/_stats?level=nodes", None).await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "level parameter must be one of",
    );
    let r = s.json("GET", "/_stats/bogus", None).await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "request [/_stats/bogus] contains unrecognized metric: [bogus]",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codec_and_template_settings_are_kept() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let r = s.json("GET", "/logs-1/_settings", None).await;
    let index = r.json()["logs-1"]["settings"]["index"].clone();
    assert_eq!(index["codec"], "best_compression");
    assert_eq!(index["merge"]["scheduler"]["max_thread_count"], "1");
    let r = s
        .json(
            "PUT",
            "/logs-1/_settings",
            Some(json!({"index.codec": "default"})),
        )
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "final index setting [index.codec]",
    );
    let r = s
        .json(
            "PUT",
            "/bad",
            Some(json!({"settings": {"index.codec": "snappy"}})),
        )
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "unknown value for [index.codec]",
    );
    let r = s
        .json(
            "PUT",
            "/bad",
            Some(json!({"settings": {"index.store.type": "tape"}})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    // The stored fields come back intact from zstd blocks.
    let r = s
        .json(
            "POST",
            "/logs-1/_search",
            Some(json!({"size": 40, "sort": ["n"]})),
        )
        .await;
    let hits = r.json()["hits"]["hits"].clone();
    assert_eq!(hits.as_array().unwrap().len(), 40);
    assert_eq!(hits[39]["_source"]["n"], 39);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_date_histogram_reply() {
    let s = TestServer::start(1 << 20).await;
    compat_aggs::load(&s).await;
    // Dates over two days, 10 buckets: 49 hours, merged by 12.
    let aggs = json!({"a": {"auto_date_histogram": {"field": "t"}}});
    let got = compat_aggs::aggs(&s, aggs).await;
    let bucket = |key: &str, ms: i64, n: u64| json!({"key_as_string": format!("2024-01-{key}:00:00.000Z"), "key": ms, "doc_count": n});
    const JAN1: i64 = 1_704_067_200_000;
    let half = 43_200_000;
    let want = json!({"a": {"buckets": [
        bucket("01T00", JAN1, 2), bucket("01T12", JAN1 + half, 0),
        bucket("02T00", JAN1 + 2 * half, 2), bucket("02T12", JAN1 + 3 * half, 0),
        bucket("03T00", JAN1 + 4 * half, 1)
    ], "interval": "12h"}});
    assert_eq!(got, want);
    let body = json!({"aggs": {"a": {"auto_date_histogram": {"field": "t", "buckets": 0}}}});
    let r = s.json("POST", "/m/_search", Some(body)).await;
    assert_error(
        &r,
        400,
        "x_content_parse_exception",
        "[1:48] [auto_date_histogram] failed to parse field [buckets]",
    );
}
