//! `term`, `terms`, `match` and `query_string` on numbers and dates over a
//! real socket. New indices keep no terms for them: their columns answer,
//! with Elasticsearch's constant score of 1.0 (its points query), across
//! segments, deletions and more values than one range scan each covers.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

async fn bulk(s: &TestServer, lines: &[Value]) {
    let mut body = String::new();
    for line in lines {
        body.push_str(&line.to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send(
            "POST",
            "/nums/_bulk?refresh=true",
            &nd,
            Some(body.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], json!(false), "{}", r.text());
}

/// The sorted ids and the scores of the hits of `query`.
async fn hits(s: &TestServer, query: Value) -> (Vec<String>, Vec<f64>) {
    let r = s
        .json(
            "POST",
            "/nums/_search",
            Some(json!({"query": query, "size": 100})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    let hits = body["hits"]["hits"].as_array().unwrap().clone();
    let mut ids: Vec<String> = hits
        .iter()
        .map(|h| h["_id"].as_str().unwrap().into())
        .collect();
    ids.sort();
    let scores = hits.iter().map(|h| h["_score"].as_f64().unwrap()).collect();
    (ids, scores)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_and_dates_are_found_by_their_columns() {
    let s = TestServer::start(1 << 20).await;
    let create = json!({"mappings": {"properties": {
        "status": {"type": "integer"}, "price": {"type": "double"},
        "@timestamp": {"type": "date"}, "tag": {"type": "keyword"}}}});
    assert_eq!(s.json("PUT", "/nums", Some(create)).await.status, 200);
    // Two refreshes: two segments per shard at least.
    let doc = |id: u32, status: Value, price: f64, time: &str| {
        [
            json!({"index": {"_id": id.to_string()}}),
            json!({"status": status, "price": price, "@timestamp": time, "tag": format!("t{id}")}),
        ]
    };
    bulk(
        &s,
        &[
            doc(1, json!(200), 1.0, "2024-03-30T22:30:00Z"),
            doc(2, json!(404), 2.5, "2024-03-31T00:30:00Z"),
        ]
        .concat(),
    )
    .await;
    bulk(
        &s,
        &[
            doc(3, json!([500, 503]), 3.0, "2024-04-02T12:00:00Z"),
            doc(4, json!(404), 4.5, "2024-04-03T00:00:00Z"),
        ]
        .concat(),
    )
    .await;

    let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (found, scores) = hits(&s, json!({"term": {"status": 404}})).await;
    assert_eq!(found, ids(&["2", "4"]));
    assert_eq!(scores, vec![1.0, 1.0]);
    // A value of a multi-valued field; a string holding a number.
    assert_eq!(
        hits(&s, json!({"term": {"status": "503"}})).await.0,
        ids(&["3"])
    );
    // `match` on a number scores 1.0, as Elasticsearch's points query.
    let (found, scores) = hits(
        &s,
        json!({"match": {"status": {"query": "404", "boost": 2.0}}}),
    )
    .await;
    assert_eq!(found, ids(&["2", "4"]));
    assert_eq!(scores, vec![2.0, 2.0]);
    // Fractions, and an integral value of a floating field.
    assert_eq!(
        hits(&s, json!({"term": {"price": 2.5}})).await.0,
        ids(&["2"])
    );
    assert_eq!(hits(&s, json!({"term": {"price": 3}})).await.0, ids(&["3"]));
    assert!(hits(&s, json!({"term": {"price": 2.4}})).await.0.is_empty());
    // Dates by their text or their epoch milliseconds.
    assert_eq!(
        hits(&s, json!({"term": {"@timestamp": "2024-03-31T00:30:00Z"}}))
            .await
            .0,
        ids(&["2"])
    );
    assert_eq!(
        hits(&s, json!({"term": {"@timestamp": 1_712_059_200_000u64}}))
            .await
            .0,
        ids(&["3"])
    );
    // `terms` with few values, and with more than one scan each covers.
    assert_eq!(
        hits(&s, json!({"terms": {"status": [200, 503, 999]}}))
            .await
            .0,
        ids(&["1", "3"])
    );
    let many: Vec<u32> = (0..40).map(|i| 390 + i).collect();
    assert_eq!(
        hits(&s, json!({"terms": {"status": many}})).await.0,
        ids(&["2", "4"])
    );
    assert_eq!(
        hits(&s, json!({"query_string": {"query": "status:500"}}))
            .await
            .0,
        ids(&["3"])
    );
    // Beside keyword terms in a bool.
    let both = json!({"bool": {"filter": [{"term": {"status": 404}}, {"term": {"tag": "t4"}}]}});
    assert_eq!(hits(&s, both).await.0, ids(&["4"]));
    // A deleted document is not found.
    let r = s.json("DELETE", "/nums/_doc/4?refresh=true", None).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        hits(&s, json!({"term": {"status": 404}})).await.0,
        ids(&["2"])
    );
    // A value the field cannot hold is the usual query error.
    let r = s
        .json(
            "POST",
            "/nums/_search",
            Some(json!({"query": {"term": {"status": "abc"}}})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    s.stop(true).await;
}
