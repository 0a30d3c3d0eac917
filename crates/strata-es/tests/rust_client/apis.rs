//! Scroll, point in time, the by-query APIs, `_reindex` and `_tasks`
//! through the official Rust client, answers checked against the
//! documents of `data.rs`.

use std::collections::BTreeSet;

use elasticsearch::http::headers::HeaderMap;
use elasticsearch::http::Method;
use elasticsearch::{
    ClearScrollParts, CountParts, DeleteByQueryParts, OpenPointInTimeParts, ScrollParts,
    SearchParts,
};
use serde_json::{json, Value};

use super::data::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scroll_reads_every_document_once_and_clears() {
    let (_server, client) = loaded().await;
    let mut reply = ok(client
        .search(SearchParts::Index(&[INDEX]))
        .scroll("1m")
        .size(37)
        .body(json!({"query": {"term": {"method": "GET"}}}))
        .send()
        .await)
    .await;
    let id = reply["_scroll_id"].as_str().unwrap().to_string();
    let mut seen: Vec<u64> = Vec::new();
    while !reply["hits"]["hits"].as_array().unwrap().is_empty() {
        seen.extend(hit_ids(&reply));
        reply = ok(client
            .scroll(ScrollParts::None)
            .body(json!({"scroll": "1m", "scroll_id": id}))
            .send()
            .await)
        .await;
    }
    let want = ids(|d| d.method == "GET");
    assert_eq!(seen.len(), want.len(), "no document twice");
    assert_eq!(seen.into_iter().collect::<BTreeSet<_>>(), want);
    let cleared = ok(client
        .clear_scroll(ClearScrollParts::None)
        .body(json!({"scroll_id": [id]}))
        .send()
        .await)
    .await;
    assert_eq!(cleared, json!({"succeeded": true, "num_freed": 1}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn point_in_time_pages_by_search_after() {
    let (_server, client) = loaded().await;
    let pit = ok(client
        .open_point_in_time(OpenPointInTimeParts::Index(&[INDEX]))
        .keep_alive("1m")
        .send()
        .await)
    .await;
    let id = pit["id"].as_str().unwrap().to_string();
    let (mut seen, mut after): (Vec<(i64, u64)>, Option<Value>) = (Vec::new(), None);
    loop {
        let mut body =
            json!({"pit": {"id": id, "keep_alive": "1m"}, "size": 50, "sort": [{"bytes": "desc"}]});
        if let Some(a) = &after {
            body["search_after"] = a.clone();
        }
        let reply = ok(client.search(SearchParts::None).body(body).send().await).await;
        let hits = reply["hits"]["hits"].as_array().unwrap().clone();
        if hits.is_empty() {
            break;
        }
        for h in &hits {
            seen.push((
                h["_source"]["bytes"].as_i64().unwrap(),
                h["_id"].as_str().unwrap().parse().unwrap(),
            ));
        }
        after = hits.last().map(|h| h["sort"].clone());
    }
    let mut want: Vec<(i64, u64)> = docs().iter().map(|d| (d.bytes, d.id)).collect();
    want.sort_by_key(|w| std::cmp::Reverse(w.0));
    assert_eq!(seen, want);
    let closed = ok(client
        .close_point_in_time()
        .body(json!({"id": id}))
        .send()
        .await)
    .await;
    assert_eq!(closed["num_freed"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reindex_then_delete_by_query_as_a_task() {
    let (_server, client) = loaded().await;
    let copied = ok(client
        .reindex()
        .refresh(true)
        .body(
            json!({"source": {"index": INDEX, "query": {"range": {"status": {"gte": 400}}}},
                     "dest": {"index": "rs-errors"}}),
        )
        .send()
        .await)
    .await;
    let errors = ids(|d| d.status >= 400);
    assert_eq!(copied["created"].as_u64(), Some(errors.len() as u64));
    let started = ok(client
        .delete_by_query(DeleteByQueryParts::Index(&["rs-errors"]))
        .wait_for_completion(false)
        .refresh(true)
        .body(json!({"query": {"term": {"status": 404}}}))
        .send()
        .await)
    .await;
    let task = started["task"].as_str().unwrap().to_string();
    let mut done = Value::Null;
    for _ in 0..200 {
        // The task API is behind the client's experimental feature: sent raw.
        let sent = client
            .send(
                Method::Get,
                &format!("/_tasks/{task}"),
                HeaderMap::new(),
                Option::<&Value>::None,
                Option::<&[u8]>::None,
                None,
            )
            .await;
        done = ok(sent).await;
        if done["completed"] == true {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let not_found = ids(|d| d.status == 404).len() as u64;
    assert_eq!(
        done["response"]["deleted"].as_u64(),
        Some(not_found),
        "{done}"
    );
    let left = ok(client.count(CountParts::Index(&["rs-errors"])).send().await).await;
    assert_eq!(
        left["count"].as_u64(),
        Some(errors.len() as u64 - not_found)
    );
}
