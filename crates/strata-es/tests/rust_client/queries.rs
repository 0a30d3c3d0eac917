//! Every query type, sorting with `search_after`, `_source` filtering,
//! `_count` and `_msearch`, each answer checked against the documents.

use std::collections::BTreeSet;

use elasticsearch::http::request::JsonBody;
use elasticsearch::{CountParts, Elasticsearch, MsearchParts};
use serde_json::{json, Value};

use super::data::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_query_type_matches_the_computed_documents() {
    let (server, client) = loaded().await;
    let cases: Vec<(Value, BTreeSet<u64>)> = vec![
        (json!({"match_all": {}}), ids(|_| true)),
        (json!({"match": {"message": "item3"}}), ids(|d| d.item == 3)),
        (
            json!({"match_phrase": {"message": "shop item2"}}),
            ids(|d| d.item == 2),
        ),
        (
            json!({"multi_match": {"query": "user5", "fields": ["message", "user"]}}),
            ids(|d| d.user == "user5"),
        ),
        (json!({"term": {"status": 404}}), ids(|d| d.status == 404)),
        (
            json!({"terms": {"method": ["PUT", "HEAD"]}}),
            ids(|d| d.method == "PUT" || d.method == "HEAD"),
        ),
        (
            json!({"range": {"bytes": {"gte": 100, "lt": 300}}}),
            ids(|d| (100..300).contains(&d.bytes)),
        ),
        (
            json!({"range": {"@timestamp": {
                "gte": "2023-11-15", "lt": "2023-11-15T12:00:00",
                "format": "strict_date_optional_time"}}}),
            ids(|d| (1_700_006_400_000..1_700_049_600_000).contains(&d.ts)),
        ),
        (
            json!({"range": {"@timestamp": {
                "gt": (BASE_MS + DAY_MS).to_string(), "format": "epoch_millis"}}}),
            ids(|d| d.ts > BASE_MS + DAY_MS),
        ),
        (
            json!({"range": {"client_ip": {"gte": "10.0.1.0", "lte": "10.0.1.255"}}}),
            ids(|d| d.ip_octet == 1),
        ),
        (
            // Addresses order as numbers, not as text: 10.0.3.9 < 10.0.3.10.
            json!({"range": {"client_ip": {"gt": "10.0.3.9", "lt": "10.0.3.100"}}}),
            ids(|d| d.ip_octet == 3 && (10..100).contains(&(d.id % 200))),
        ),
        (
            json!({"term": {"client_ip": "10.0.2.0/24"}}),
            ids(|d| d.ip_octet == 2),
        ),
        (
            json!({"match": {"client_ip": "10.0.2.0/25"}}),
            ids(|d| d.ip_octet == 2 && d.id % 200 < 128),
        ),
        (
            json!({"query_string": {"query": "client_ip:\"10.0.3.0/24\" AND NOT status:404"}}),
            ids(|d| d.ip_octet == 3 && d.status != 404),
        ),
        (
            json!({"term": {"client_ip": "10.0.1.5"}}),
            ids(|d| d.ip_octet == 1 && d.id % 200 == 5),
        ),
        (
            // An IPv4 address and its IPv6 mapping are one address.
            json!({"term": {"client_ip": "::ffff:10.0.1.5"}}),
            ids(|d| d.ip_octet == 1 && d.id % 200 == 5),
        ),
        (
            // More addresses than are looked up one by one.
            json!({"terms": {"client_ip": (0..70).map(|i| format!("10.0.2.{i}")).collect::<Vec<_>>()}}),
            ids(|d| d.ip_octet == 2 && d.id % 200 < 70),
        ),
        (
            json!({"terms": {"client_ip": ["10.0.0.0/30", "10.0.1.5"]}}),
            ids(|d| d.id % 200 < 4 && d.ip_octet == 0 || d.id % 200 == 5 && d.ip_octet == 1),
        ),
        (
            json!({"exists": {"field": "referrer"}}),
            ids(|d| d.has_referrer),
        ),
        (
            json!({"prefix": {"user": "user1"}}),
            ids(|d| d.user.starts_with("user1")),
        ),
        (
            json!({"wildcard": {"user": {"value": "us*r1?"}}}),
            ids(|d| d.user.len() == 6 && d.user.starts_with("user1")),
        ),
        (
            json!({"ids": {"values": ["1", "2", "999"]}}),
            ids(|d| d.id == 1 || d.id == 2),
        ),
        (
            json!({"bool": {
                "must": [{"match": {"message": "shop"}}],
                "filter": [{"term": {"method": "GET"}}],
                "must_not": [{"term": {"status": 404}}],
                "should": [{"term": {"status": 500}}, {"range": {"bytes": {"lt": 100}}}],
                "minimum_should_match": 1}}),
            ids(|d| d.method == "GET" && d.status != 404 && (d.status == 500 || d.bytes < 100)),
        ),
        (
            json!({"query_string": {
                "query": "method:(PUT OR HEAD) AND NOT status:404 AND bytes:[100 TO 500]"}}),
            ids(|d| {
                (d.method == "PUT" || d.method == "HEAD")
                    && d.status != 404
                    && (100..=500).contains(&d.bytes)
            }),
        ),
        (
            // Kibana's form of a search bar query.
            json!({"query_string": {
                "query": "*", "analyze_wildcard": true, "default_field": "*"}}),
            ids(|_| true),
        ),
        (
            // Across all fields a pattern skips those that take none (ip,
            // numbers) instead of failing.
            json!({"query_string": {
                "query": "sho* AND us*r3", "analyze_wildcard": true, "default_field": "*"}}),
            ids(|d| d.user == "user3"),
        ),
        (
            json!({"simple_query_string": {"query": "item1 | item2", "fields": ["message"]}}),
            ids(|d| d.item == 1 || d.item == 2),
        ),
        (
            // Europe: Paris and Berlin.
            json!({"geo_bounding_box": {"location": {
                "top_left": {"lat": 60.0, "lon": -10.0},
                "bottom_right": {"lat": 40.0, "lon": 20.0}}}}),
            ids(|d| d.place.1 > -10.0 && d.place.1 < 20.0),
        ),
    ];
    for (query, want) in cases {
        assert!(
            !want.is_empty(),
            "a case that matches nothing proves little: {query}"
        );
        assert_eq!(matching(&client, query.clone()).await, want, "{query}");
    }
    server.stop(false).await;
}

/// Two pages of `size` hits under `sort` (only `bytes` in `_source`), the
/// second after the first's last hit: the first page's reply and the ids
/// of both.
async fn two_pages(client: &Elasticsearch, sort: Value, size: usize) -> (Value, Vec<u64>) {
    let mut body = json!({"size": size, "sort": sort, "_source": ["bytes"]});
    let first = search(client, body.clone()).await;
    body["search_after"] = first["hits"]["hits"][size - 1]["sort"].clone();
    let second = search(client, body).await;
    let mut ids = hit_ids(&first);
    ids.extend(hit_ids(&second));
    (first, ids)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sorting_paging_source_filtering_count_and_msearch() {
    let (server, client) = loaded().await;
    let mut by_bytes: Vec<(i64, u64)> = docs().iter().map(|d| (d.bytes, d.id)).collect();
    by_bytes.sort();

    // Two pages through search_after equal one sorted page.
    let (first, got) = two_pages(&client, json!([{"bytes": "asc"}]), 10).await;
    assert_eq!(
        first["hits"]["hits"][0]["_source"],
        json!({"bytes": by_bytes[0].0})
    );
    let want: Vec<u64> = by_bytes[..20].iter().map(|(_, id)| *id).collect();
    assert_eq!(got, want);

    // Addresses sort as addresses (10.0.0.9 before 10.0.0.10).
    let address = |d: &Doc| (d.ip_octet << 8) | (d.id % 200);
    let mut by_address: Vec<(u64, i64, u64)> =
        docs().iter().map(|d| (address(d), d.bytes, d.id)).collect();
    by_address.sort();
    let sort = json!([{"client_ip": "asc"}, {"bytes": "asc"}]);
    let (first, got) = two_pages(&client, sort, 15).await;
    assert_eq!(first["hits"]["hits"][14]["sort"][0], "10.0.0.28");
    let want: Vec<u64> = by_address[..30].iter().map(|(_, _, id)| *id).collect();
    assert_eq!(got, want);

    let count = ok(client
        .count(CountParts::Index(&[INDEX]))
        .body(json!({"query": {"term": {"method": "GET"}}}))
        .send()
        .await)
    .await;
    assert_eq!(count["count"], ids(|d| d.method == "GET").len());

    let body: Vec<JsonBody<Value>> = vec![
        json!({"index": INDEX}).into(),
        json!({"query": {"term": {"status": 500}}, "size": 0}).into(),
        json!({"index": "rs-missing"}).into(),
        json!({"query": {"match_all": {}}}).into(),
        json!({"index": INDEX}).into(),
        json!({"query": {"match_all": {}}, "size": 1}).into(),
    ];
    let reply = ok(client.msearch(MsearchParts::None).body(body).send().await).await;
    let responses = reply["responses"].as_array().unwrap();
    assert_eq!(
        responses[0]["hits"]["total"]["value"],
        ids(|d| d.status == 500).len()
    );
    assert_eq!(responses[1]["status"], 404);
    assert_eq!(responses[1]["error"]["type"], "index_not_found_exception");
    assert_eq!(responses[2]["hits"]["hits"].as_array().unwrap().len(), 1);
    server.stop(false).await;
}
