//! Partial results over a real socket: a query that fails on some of the
//! indices searched answers 200 with the others' hits, `_shards.failed`
//! and `failures` (`shard`, `index`, `node`, `reason`), as Elasticsearch
//! does; failing on all of them is the search phase error.

mod support;

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
