//! The small log index several tests search: 40 documents 11 minutes
//! apart from the day Europe/London moves to summer time, in two shards,
//! and the Kibana dashboard search over it.

use serde_json::{json, Value};

use super::TestServer;

/// 2024-03-31T00:00:00Z, the day Europe/London moves to summer time.
pub const DAY: i64 = 1_711_843_200_000;

/// Creates `logs-1` and indexes the 40 documents, refreshed.
pub async fn load(s: &TestServer) {
    let r = s
        .json(
            "PUT",
            "/logs-1",
            Some(json!({
                "settings": {"index.codec": "best_compression", "index.number_of_shards": 2,
                             "index.merge.scheduler.max_thread_count": 1,
                             "index.number_of_replicas": 0},
                "mappings": {"properties": {"@timestamp": {"type": "date"}, "n": {"type": "long"}}}
            })),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for i in 0..40i64 {
        bulk.push_str("{\"index\":{}}\n");
        bulk.push_str(&json!({"@timestamp": DAY + i * 11 * 60_000, "n": i}).to_string());
        bulk.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send(
            "POST",
            "/logs-1/_bulk?refresh=true",
            &nd,
            Some(bulk.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false);
}

/// Kibana's date histogram of `query` at `interval`, with a sum of `n`.
pub fn dashboard(query: Value, interval: &str) -> Value {
    json!({"size": 0, "query": query,
           "aggs": {"2": {"date_histogram": {"field": "@timestamp", "fixed_interval": interval,
                                             "time_zone": "Europe/London", "min_doc_count": 1},
                          "aggs": {"1": {"sum": {"field": "n"}}}}}})
}
