//! Partial results over a real socket: a query that fails on some of the
//! indices searched answers 200 with the others' hits, `_shards.failed`
//! and `failures` (`shard`, `index`, `node`, `reason`), as Elasticsearch
//! does; failing on all of them is the search phase error.

use crate::support;

use serde_json::json;
use support::TestServer;

const MAX_BODY: usize = 1 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_failing_on_some_indices_answers_with_the_others() {
    let s = TestServer::start(MAX_BODY).await;
    for (index, ty, shards) in [("p-date", "date", 2), ("p-word", "keyword", 3)] {
        let r = s
            .json(
                "PUT",
                &format!("/{index}"),
                Some(json!({"settings": {"number_of_shards": shards},
                    "mappings": {"properties": {"d": {"type": ty}}}})),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text());
    }
    for (index, d) in [
        ("p-date", "2026-11-29"),
        ("p-word", "later"),
        ("p-word", "soon"),
    ] {
        let r = s
            .json(
                "POST",
                &format!("/{index}/_doc?refresh=true"),
                Some(json!({"d": d})),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let query = json!({"query": {"term": {"d": "soon"}}});
    // One index alone: the search phase error.
    let r = s.json("POST", "/p-date/_search", Some(query.clone())).await;
    assert_eq!(r.status, 400, "{}", r.text());
    let failed = r.json()["error"]["root_cause"][0].clone();
    // Both: the keyword index answers, the date index's shards fail.
    let r = s.json("POST", "/p-*/_search", Some(query)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["hits"]["total"]["value"], 1, "{body}");
    assert_eq!(body["hits"]["hits"][0]["_index"], "p-word");
    let shards = &body["_shards"];
    assert_eq!(shards["total"], 5, "{body}");
    assert_eq!(shards["successful"], 3);
    assert_eq!(shards["failed"], 2);
    let failure = &shards["failures"][0];
    assert_eq!(shards["failures"].as_array().unwrap().len(), 1);
    assert_eq!(failure["shard"], 0);
    assert_eq!(failure["index"], "p-date");
    assert_eq!(failure["node"], json!(s.node.identity.node_id));
    assert_eq!(failure["reason"]["type"], failed["type"]);
    assert_eq!(failure["reason"]["reason"], failed["reason"]);
}

/// Creates `index` with `shards` shards and `mapping`, and indexes `docs`.
async fn index_with(
    s: &TestServer,
    index: &str,
    shards: u64,
    mapping: serde_json::Value,
    docs: &[serde_json::Value],
) {
    let r = s
        .json(
            "PUT",
            &format!("/{index}"),
            Some(json!({"settings": {"number_of_shards": shards},
                "mappings": {"properties": mapping}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    for doc in docs {
        let r = s
            .json(
                "POST",
                &format!("/{index}/_doc?refresh=true"),
                Some(doc.clone()),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fetch_failing_on_some_indices_answers_with_the_others() {
    let s = TestServer::start(MAX_BODY).await;
    // `d` is text in one index (no doc values), keyword in the other.
    index_with(
        &s,
        "f-text",
        1,
        json!({"d": {"type": "text"}}),
        &[json!({"d": "a b"})],
    )
    .await;
    index_with(
        &s,
        "f-word",
        2,
        json!({"d": {"type": "keyword"}}),
        &[json!({"d": "x"}), json!({"d": "y"})],
    )
    .await;
    let body = json!({"query": {"match_all": {}}, "docvalue_fields": ["d"], "sort": ["_doc"]});
    // One index alone: the request fails.
    let r = s.json("POST", "/f-text/_search", Some(body.clone())).await;
    assert_eq!(r.status, 400, "{}", r.text());
    let failed = r.json()["error"]["root_cause"][0].clone();
    assert_eq!(failed["type"], "illegal_argument_exception");
    // Both: the query phase found all three, the text index's fetch fails.
    let r = s.json("POST", "/f-*/_search", Some(body)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let reply = r.json();
    assert_eq!(reply["hits"]["total"]["value"], 3, "{reply}");
    let hits = reply["hits"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{reply}");
    assert!(hits.iter().all(|h| h["_index"] == "f-word"), "{reply}");
    let mut values: Vec<_> = hits.iter().map(|h| h["fields"]["d"][0].clone()).collect();
    values.sort_by_key(|v| v.to_string());
    assert_eq!(values, [json!("x"), json!("y")]);
    let shards = &reply["_shards"];
    assert_eq!(shards["total"], 3, "{reply}");
    assert_eq!(shards["successful"], 2);
    assert_eq!(shards["failed"], 1);
    assert_eq!(shards["failures"].as_array().unwrap().len(), 1);
    let failure = &shards["failures"][0];
    assert_eq!(failure["index"], "f-text");
    assert_eq!(failure["shard"], 0);
    assert_eq!(failure["node"], json!(s.node.identity.node_id));
    assert_eq!(failure["reason"]["type"], failed["type"]);
    assert_eq!(failure["reason"]["reason"], failed["reason"]);
    // A page without the failing index's hits fetches nothing from it.
    let body = json!({"query": {"term": {"d": "x"}}, "docvalue_fields": ["d"]});
    let r = s.json("POST", "/f-*/_search", Some(body)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["_shards"]["failed"], 0, "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_field_failing_on_one_index_fails_only_its_shards() {
    let s = TestServer::start(MAX_BODY).await;
    index_with(
        &s,
        "g-num",
        1,
        json!({"n": {"type": "long"}}),
        &[json!({"n": 4})],
    )
    .await;
    index_with(
        &s,
        "g-none",
        1,
        json!({"m": {"type": "long"}}),
        &[json!({"m": 1})],
    )
    .await;
    let body = json!({"query": {"match_all": {}},
        "script_fields": {"twice": {"script": {"source": "doc['n'].value * 2"}}}});
    let alone = s.json("POST", "/g-none/_search", Some(body.clone())).await;
    assert_eq!(alone.status, 400, "{}", alone.text());
    let r = s.json("POST", "/g-*/_search", Some(body)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let reply = r.json();
    let hits = reply["hits"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{reply}");
    assert_eq!(hits[0]["_index"], "g-num");
    assert_eq!(hits[0]["fields"]["twice"], json!([8]));
    assert_eq!(reply["_shards"]["failed"], 1, "{reply}");
    assert_eq!(reply["_shards"]["failures"][0]["index"], "g-none");
    let root = &alone.json()["error"]["root_cause"][0];
    assert_eq!(
        reply["_shards"]["failures"][0]["reason"]["type"], root["type"],
        "{reply}"
    );
}
