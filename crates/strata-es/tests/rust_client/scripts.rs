//! Scripts with the Rust client: `_update` with a script, `script_fields`,
//! `script_score`, `function_score`, the `script` query and
//! `bucket_script`, each checked against values computed from the
//! documents; a failing script's `script_exception` shape.

use elasticsearch::params::Refresh;
use elasticsearch::{GetParts, IndexParts, SearchParts, UpdateParts};
use serde_json::{json, Value};

use super::data::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_scripts_and_upserts() {
    let (_server, client) = loaded().await;
    let index = "rs-scripts";
    ok(client
        .index(IndexParts::IndexId(index, "1"))
        .body(json!({"n": 2, "tags": ["a"]}))
        .refresh(Refresh::True)
        .send()
        .await)
    .await;
    let r = ok(client
        .update(UpdateParts::IndexId(index, "1"))
        .body(json!({"script": {"source": "ctx._source.n *= params.k; ctx._source.tags.add('b')", "params": {"k": 21}}}))
        .send()
        .await)
    .await;
    assert_eq!(r["result"], "updated");
    let got = ok(client.get(GetParts::IndexId(index, "1")).send().await).await;
    assert_eq!(got["_source"], json!({"n": 42, "tags": ["a", "b"]}));
    let r = ok(client
        .update(UpdateParts::IndexId(index, "2"))
        .body(json!({"script": "ctx._source.made = true", "upsert": {"n": 0}, "scripted_upsert": true}))
        .send()
        .await)
    .await;
    assert_eq!(r["result"], "created");
    let got = ok(client.get(GetParts::IndexId(index, "2")).send().await).await;
    assert_eq!(got["_source"], json!({"n": 0, "made": true}));
    let failed = client
        .update(UpdateParts::IndexId(index, "1"))
        .body(json!({"script": "ctx._source.n = ctx._source.n / 0"}))
        .send()
        .await
        .unwrap();
    assert_eq!(failed.status_code().as_u16(), 400);
    let body: Value = failed.json().await.unwrap();
    assert_eq!(
        body["error"]["root_cause"],
        json!([{"type": "illegal_argument_exception", "reason": "failed to execute script"}])
    );
    let root = &body["error"]["caused_by"];
    assert_eq!(root["type"], "script_exception");
    assert_eq!(root["reason"], "runtime error");
    assert_eq!(
        root["caused_by"],
        json!({"type": "arithmetic_exception", "reason": "/ by zero"})
    );
    assert_eq!(body["error"]["reason"], "failed to execute script");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_scripts_match_computed_values() {
    let (_server, client) = loaded().await;
    // script_fields
    let reply = search(&client, json!({
        "size": 1000,
        "script_fields": {"kb": {"script": {"source": "doc['bytes'].value / 100 + doc['status'].value", "params": {}}}}
    }))
    .await;
    let hits = reply["hits"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), DOCS as usize);
    for hit in hits {
        let d = Doc::new(hit["_id"].as_str().unwrap().parse().unwrap());
        assert_eq!(
            hit["fields"]["kb"],
            json!([d.bytes / 100 + d.status]),
            "{hit}"
        );
    }
    // script_score: the top ten by bytes * 2 + price among GETs.
    let reply = search(
        &client,
        json!({
            "size": 10,
            "query": {"script_score": {"query": {"term": {"method": "GET"}},
                                        "script": {"source": "doc['bytes'].value * 2 + doc['price'].value"}}}
        }),
    )
    .await;
    let mut want: Vec<f64> = docs()
        .iter()
        .filter(|d| d.method == "GET")
        .map(|d| d.bytes as f64 * 2.0 + d.price)
        .collect();
    want.sort_by(|a, b| b.total_cmp(a));
    let got: Vec<f64> = reply["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_score"].as_f64().unwrap())
        .collect();
    assert_eq!(got.len(), 10);
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-3 * w.max(1.0), "{got:?} vs {want:?}");
    }
    // The script query and function_score's field_value_factor.
    let matched = matching(
        &client,
        json!({"script": {"script": "doc['bytes'].value > doc['status'].value"}}),
    )
    .await;
    assert_eq!(matched, ids(|d| d.bytes > d.status));
    let reply = search(&client, json!({
        "size": 1000,
        "query": {"function_score": {"query": {"term": {"status": 404}},
                                      "field_value_factor": {"field": "bytes", "modifier": "sqrt", "missing": 0},
                                      "boost_mode": "replace"}}
    }))
    .await;
    for hit in reply["hits"]["hits"].as_array().unwrap() {
        let d = Doc::new(hit["_id"].as_str().unwrap().parse().unwrap());
        let want = (d.bytes as f64).sqrt();
        assert!(
            (hit["_score"].as_f64().unwrap() - want).abs() < 1e-4 * want.max(1.0),
            "{hit}"
        );
    }
    // bucket_script over terms buckets.
    let reply = ok(client
        .search(SearchParts::Index(&[INDEX]))
        .body(json!({"size": 0, "aggs": {"m": {"terms": {"field": "method"}, "aggs": {
            "b": {"sum": {"field": "bytes"}},
            "avg_b": {"bucket_script": {"buckets_path": {"s": "b", "n": "_count"}, "script": "params.s / params.n"}}
        }}}}))
        .send()
        .await)
    .await;
    for bucket in reply["aggregations"]["m"]["buckets"].as_array().unwrap() {
        let method = bucket["key"].as_str().unwrap();
        let of: Vec<Doc> = docs().into_iter().filter(|d| d.method == method).collect();
        let want = of.iter().map(|d| d.bytes as f64).sum::<f64>() / of.len() as f64;
        assert!(
            (bucket["avg_b"]["value"].as_f64().unwrap() - want).abs() < 1e-9,
            "{bucket}"
        );
    }
}
