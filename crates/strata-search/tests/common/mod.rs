//! What the aggregation and range tests share: a catalog holding one index
//! `logs` that refreshes only on demand (each refresh one segment per
//! shard), and searching it; `crash_model`: what the crash tests share.

pub mod crash_model;

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, Result, SearchIndex, SearchRequest};

/// A catalog in `dir` with the index `logs`: `shards` shards, refresh
/// `-1`, `async` translog, and the mapping `properties`.
pub fn logs_index(dir: &Path, shards: u32, properties: Value) -> (Catalog, Arc<SearchIndex>) {
    let catalog = Catalog::open(dir).unwrap();
    let body = json!({
        "settings": {"index": {"number_of_shards": shards, "refresh_interval": "-1",
            "translog": {"durability": "async"}}},
        "mappings": {"properties": properties}
    });
    let index = catalog.create_index("logs", &body).unwrap();
    (catalog, index)
}

/// Indexes `docs` into `index` under ids `0`, `1`, ..., refreshing after
/// every second document (so the data spans several segments) and at
/// the end.
pub fn index_in_pairs(index: &SearchIndex, docs: &[Value]) {
    for (i, doc) in docs.iter().enumerate() {
        let bytes = doc.to_string();
        index
            .index_document(Some(&i.to_string()), bytes.as_bytes(), Precondition::None)
            .unwrap();
        if i % 2 == 1 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
}

/// The search `body` over `logs`, or its error.
pub fn try_search(catalog: &Catalog, body: &Value) -> Result<Value> {
    let indices = catalog.resolve("logs").unwrap();
    // A query's errors come from the request's parse, the rest from the search.
    SearchRequest::parse(body).and_then(|req| search(&indices, &req))
}

/// The response of the search `body` over `logs`.
pub fn search_logs(catalog: &Catalog, body: &Value) -> Value {
    try_search(catalog, body).unwrap()
}

/// The `_id`s of a search response's hits, in order.
pub fn hit_ids(resp: &Value) -> Vec<String> {
    resp["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect()
}

/// The `(key, doc_count)` of each bucket of an aggregation whose keys are strings.
pub fn key_counts(agg: &Value) -> Vec<(String, u64)> {
    agg["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["key"].as_str().unwrap().to_string(),
                b["doc_count"].as_u64().unwrap(),
            )
        })
        .collect()
}
